//! Where the Syzygy test tables are: `GUOXIANG_SYZYGY`, else
//! `../shared/syzygy` beside the checkout. Without them a test says it is
//! skipped, except under `CI=true`, where that is a failure.

use std::path::{Path, PathBuf};

/// The tables' folder, or `None` (with a "skipped" line) when absent.
pub fn tables_dir() -> Option<PathBuf> {
    let dir = match std::env::var("GUOXIANG_SYZYGY") {
        Ok(d) if !d.is_empty() => PathBuf::from(d),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy"),
    };
    let needed = ["KRPvKR.rtbw", "KQvK.rtbz", "KBNvK.rtbz"];
    if needed.iter().all(|name| dir.join(name).exists()) {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "Syzygy tables not found at {} (set GUOXIANG_SYZYGY); required under CI=true",
            dir.display()
        );
    }
    println!(
        "skipped: no Syzygy tables at {} (set GUOXIANG_SYZYGY)",
        dir.display()
    );
    None
}

/// Whether the 6-piece table the tests use (KRRvKRR) is in `dir`; without
/// it a test says it is skipped, except under `CI=true` (a failure).
pub fn has_six_pieces(dir: &Path) -> bool {
    if ["KRRvKRR.rtbw", "KRRvKRR.rtbz", "KRRvKR.rtbz"]
        .iter()
        .all(|name| dir.join(name).exists())
    {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "KRRvKRR not found at {}; required under CI=true",
            dir.display()
        );
    }
    println!("skipped: no KRRvKRR table at {}", dir.display());
    false
}
