//! A table file mapped into memory, and what it looked like when it was.
//!
//! Why a map rather than reading the file: the 6- and 7-piece sets are
//! 150 GB and 17 TB, one table up to tens of GB. A read-only shared map
//! costs the same to open for 1 MB as for 1 GB (the kernel reads a page
//! only when a probe touches it), adds no anonymous memory to the process
//! (the pages are the OS page cache's, shared by every engine on the
//! machine that maps the same files, and dropped by the kernel under
//! memory pressure), and works the same on Windows (`memmap2` wraps
//! `CreateFileMapping` there). A bounded cache of blocks read with `pread`
//! would also keep the heap small, but copies every block once per
//! process, needs a lock (or sharding) on the probe path for every search
//! thread, and a size to tune.
//!
//! The risk of a map: a file truncated under it makes the kernel raise
//! SIGBUS when a page past the new end is touched (Windows refuses to
//! truncate a mapped file). See `Stamp` and `Tablebases::refresh`.

use memmap2::Mmap;
use std::fs::{File, Metadata};
use std::path::Path;
use std::time::SystemTime;

/// What identifies a file's contents cheaply: size, modification time
/// and (on Unix) device and inode. A copy over the file changes the size
/// or time; a new file moved into place changes the inode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub len: u64,
    modified: Option<SystemTime>,
    id: (u64, u64),
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Stamp {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            id,
        }
    }

    /// The file at `path` now; `None` when it cannot be looked at.
    pub fn now(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }
}

/// Maps the file at `path` read-only; also returns its stamp at the time.
pub fn map(path: &Path) -> Option<(Mmap, Stamp)> {
    let file = File::open(path).ok()?;
    let stamp = Stamp::of(&file.metadata().ok()?);
    // SAFETY: `Mmap::map` is unsafe because the file may change while it is
    // mapped, which Rust's `&[u8]` does not expect. Here:
    // - the map is read-only and its length is fixed at the file's length
    //   now; every read of it goes through bounds-checked accessors (`get`,
    //   `read_u16`, ...) and takes bytes as plain values, so contents that
    //   change under us give wrong values (probes then answer wrongly or
    //   `None`), never an out-of-bounds read or a broken invariant: the
    //   prober's safety never rests on a table's contents;
    // - a file truncated under the map would raise SIGBUS on a read past
    //   its new end. The UCI layer re-checks every mapped file's stamp
    //   before each search (`Tablebases::refresh`) and drops a changed one
    //   before it is read again; a file truncated while a search is
    //   reading it is not covered (docs/tablebases.md says so). On Windows
    //   the system refuses to truncate a mapped file.
    let map = unsafe { Mmap::map(&file) }.ok()?;
    if map.len() as u64 != stamp.len {
        return None;
    }
    Some((map, stamp))
}
