//! The Syzygy prober against Fathom, and its behaviour with missing or
//! damaged files.
//!
//! The tables live outside the repository: `GUOXIANG_SYZYGY`, else
//! `../shared/syzygy` beside the checkout. Without them each test says it is
//! skipped, except under `CI=true`, where that is a failure.
//!
//! The oracle (`tests/data/syzygy_oracle.txt`, made by
//! `make_syzygy_oracle.py`) holds what Debian's `fathom` prints: `WDL` is
//! derived by fathom from the root DTZ and the FEN's halfmove clock
//! (`dtz + clock <= 100` wins, more is a cursed win; the same for losses),
//! and `DTZ` is the root's |dtz|. So our signed `probe_dtz` must have that
//! size, and give that `WDL` by the same rule; our `probe_wdl` must be the
//! WDL the DTZ implies with a clock of 0.

mod common;

use common::syzygy::{has_six_pieces, tables_dir};
use guoxiang::board::movegen::legal_moves;
use guoxiang::tablebase::{Tablebases, Wdl, PATH_SEPARATOR};
use guoxiang::Position;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn open(dir: &Path) -> Tablebases {
    let (tb, notes) = Tablebases::open(&dir.to_string_lossy());
    assert!(tb.max_pieces() >= 5, "notes: {notes:?}");
    tb
}

struct Case {
    fen: String,
    wdl: String,
    dtz: i32,
    dtz_ranks: Vec<(String, i32)>,
    wdl_ranks: Vec<(String, i32)>,
}

fn ranks(text: &str) -> Vec<(String, i32)> {
    text.split_whitespace()
        .map(|pair| {
            let (mv, rank) = pair.split_once(':').expect("uci:rank");
            (mv.to_string(), rank.parse().expect("a rank"))
        })
        .collect()
}

fn oracle() -> Vec<Case> {
    oracle_file("syzygy_oracle.txt")
}

/// The 6-piece oracle: KRRvKRR (`make_syzygy6_oracle.py`).
fn oracle6() -> Vec<Case> {
    oracle_file("syzygy6_oracle.txt")
}

fn oracle_file(name: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the oracle file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(';').collect();
            assert_eq!(f.len(), 5, "{line}");
            Case {
                fen: f[0].to_string(),
                wdl: f[1].to_string(),
                dtz: f[2].parse().expect("a dtz"),
                dtz_ranks: ranks(f[3]),
                wdl_ranks: ranks(f[4]),
            }
        })
        .collect()
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, false).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Fathom's WDL name for a signed DTZ with the halfmove clock counted.
fn fathom_wdl(clock: i32, dtz: i32) -> &'static str {
    match dtz {
        d if d > 0 && d + clock <= 100 => "Win",
        d if d > 0 => "CursedWin",
        d if d < 0 && -d + clock <= 100 => "Loss",
        d if d < 0 => "BlessedLoss",
        _ => "Draw",
    }
}

fn wdl_name(w: Wdl) -> &'static str {
    match w {
        Wdl::Loss => "Loss",
        Wdl::BlessedLoss => "BlessedLoss",
        Wdl::Draw => "Draw",
        Wdl::CursedWin => "CursedWin",
        Wdl::Win => "Win",
    }
}

/// Fathom's root rank (`tb_probe_root_dtz`, 50-move rule on, no
/// repetition) of a move with root-counted DTZ `v`.
fn fathom_rank(v: i32, clock: i32) -> i32 {
    if v > 0 {
        if v + clock <= 99 {
            1000
        } else {
            1000 - (v + clock)
        }
    } else if v < 0 {
        if -v * 2 + clock < 100 {
            -1000
        } else {
            -1000 + (-v + clock)
        }
    } else {
        0
    }
}

fn report(what: &str, checked: usize, bad: &[String]) {
    println!("{what}: {checked} checked, {} mismatches", bad.len());
    assert!(
        bad.is_empty(),
        "{what}: {} of {checked} differ from fathom, e.g.:\n{}",
        bad.len(),
        bad.iter().take(12).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn tablebase_wdl_and_dtz_match_fathom() {
    let Some(dir) = tables_dir() else { return };
    let cases = oracle();
    assert!(cases.len() >= 3000, "{} oracle positions", cases.len());
    check_wdl_and_dtz(&open(&dir), &cases, "WDL and DTZ");
}

#[test]
fn tablebase_six_piece_wdl_and_dtz_match_fathom() {
    let Some(dir) = tables_dir() else { return };
    if !has_six_pieces(&dir) {
        return;
    }
    let tb = open(&dir);
    let cases = oracle6();
    assert!(cases.len() >= 2000, "{} oracle positions", cases.len());
    check_wdl_and_dtz(&tb, &cases, "KRRvKRR WDL and DTZ");
}

fn check_wdl_and_dtz(tb: &Tablebases, cases: &[Case], what: &str) {
    let mut bad = Vec::new();
    for c in cases {
        let p = pos(&c.fen);
        let clock = i32::from(p.halfmove_clock());
        let (Some(dtz), Some(wdl)) = (tb.probe_dtz(&p), tb.probe_wdl(&p)) else {
            bad.push(format!("{}: no result", c.fen));
            continue;
        };
        if dtz.abs() != c.dtz || fathom_wdl(clock, dtz) != c.wdl {
            bad.push(format!(
                "{}: ours dtz {dtz} wdl {wdl:?}, fathom {} dtz {}",
                c.fen, c.wdl, c.dtz
            ));
        } else if wdl_name(wdl) != fathom_wdl(0, dtz) {
            bad.push(format!(
                "{}: our wdl {wdl:?} disagrees with our dtz {dtz}",
                c.fen
            ));
        }
    }
    report(what, cases.len(), &bad);
}

#[test]
fn tablebase_root_ranks_match_fathom() {
    let Some(dir) = tables_dir() else { return };
    let checked = check_root_ranks(&open(&dir), &oracle(), "root ranks");
    assert!(checked >= 500, "{checked} positions with root ranks");
}

#[test]
fn tablebase_six_piece_root_ranks_match_fathom() {
    let Some(dir) = tables_dir() else { return };
    if !has_six_pieces(&dir) {
        return;
    }
    let tb = open(&dir);
    let checked = check_root_ranks(&tb, &oracle6(), "KRRvKRR root ranks");
    assert!(checked >= 300, "{checked} positions with root ranks");
}

/// Every move's rank against fathom's where the oracle has them; returns
/// how many positions had them.
fn check_root_ranks(tb: &Tablebases, cases: &[Case], what: &str) -> usize {
    let mut checked = 0;
    let mut bad = Vec::new();
    for c in cases.iter().filter(|c| !c.dtz_ranks.is_empty()) {
        checked += 1;
        let p = pos(&c.fen);
        let clock = i32::from(p.halfmove_clock());
        let Some(ours) = tb.rank_root_moves(&p, true) else {
            bad.push(format!("{}: no ranking", c.fen));
            continue;
        };
        assert_eq!(ours.len(), legal_moves(&p).len(), "{}", c.fen);
        assert!(ours.windows(2).all(|w| w[0].rank >= w[1].rank));
        let fathom_of =
            |list: &[(String, i32)], mv: &str| list.iter().find(|(m, _)| m == mv).map(|(_, r)| *r);
        for r in &ours {
            let uci = r.mv.to_uci(false);
            let want = fathom_of(&c.dtz_ranks, &uci);
            let got = fathom_rank(r.dtz, clock);
            if want != Some(got) {
                bad.push(format!(
                    "{} {uci}: our dtz {} (fathom rank {got}), fathom {want:?}",
                    c.fen, r.dtz
                ));
            }
            // The WDL probe of the child, as fathom's WDL root ranking.
            let next = {
                let mut n = p;
                n.make_move(r.mv);
                n
            };
            let v = tb.probe_wdl(&next).map(|w| match w.flip() {
                Wdl::Loss => -1000,
                Wdl::BlessedLoss => -899,
                Wdl::Draw => 0,
                Wdl::CursedWin => 899,
                Wdl::Win => 1000,
            });
            let want = fathom_of(&c.wdl_ranks, &uci);
            if v != want {
                bad.push(format!(
                    "{} {uci}: WDL rank ours {v:?}, fathom {want:?}",
                    c.fen
                ));
            }
        }
        // Our best move is among fathom's best.
        let best = c.dtz_ranks.iter().map(|(_, r)| *r).max();
        if let Some(top) = ours.first() {
            if fathom_of(&c.dtz_ranks, &top.mv.to_uci(false)) != best {
                bad.push(format!("{}: our top move {top:?} is not fathom's", c.fen));
            }
        }
    }
    report(what, checked, &bad);
    checked
}

#[test]
fn tablebase_ranks_mate_first_and_follow_the_fifty_move_rule() {
    let Some(dir) = tables_dir() else { return };
    let tb = open(&dir);
    // KQvK: Qa8 mates at once (rank 1000); Qh7+ (Kf8) and the rest rank below.
    let p = pos("6k1/8/6K1/8/8/8/8/7Q w - - 0 1");
    let moves = tb.rank_root_moves(&p, true).expect("in the tables");
    let mut mates: Vec<String> = moves
        .iter()
        .filter(|m| m.rank == 1000)
        .map(|m| m.mv.to_uci(false))
        .collect();
    mates.sort();
    assert_eq!(mates, ["h1a8"]);
    assert_eq!(moves[0].mv.to_uci(false), "h1a8");
    assert!(moves[1..].iter().all(|m| m.rank < 1000));
    // A long KBNvK win with the clock near 100: a cursed win with rule50,
    // a win without.
    let fen = "8/8/8/8/8/2k5/8/KBN5 w - - 0 1";
    let start = pos(fen);
    let dtz = tb.probe_dtz(&start).expect("in the tables");
    assert!(dtz > 20, "dtz {dtz}");
    let late = pos(&fen.replace(" 0 1", " 90 1"));
    let with = tb.rank_root_moves(&late, true).expect("ranked");
    let without = tb.rank_root_moves(&late, false).expect("ranked");
    assert!(with.iter().all(|m| m.wdl != Wdl::Win && m.rank < 900));
    assert!(with.iter().any(|m| m.wdl == Wdl::CursedWin && m.rank > 0));
    assert!(without.iter().any(|m| m.wdl == Wdl::Win && m.rank > 0));
    assert!(without.iter().all(|m| m.wdl != Wdl::CursedWin));
}

#[test]
fn tablebase_refuses_castling_rights_and_big_positions() {
    let Some(dir) = tables_dir() else { return };
    let tb = open(&dir);
    let castling = pos("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(tb.probe_wdl(&castling), None);
    assert_eq!(tb.probe_dtz(&castling), None);
    assert!(tb.rank_root_moves(&castling, true).is_none());
    let without = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert_eq!(tb.probe_wdl(&without), Some(Wdl::Win));
    let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert_eq!(tb.probe_wdl(&start), None);
    // Material without a table here (KQQvKQ is 5 pieces but not present).
    let missing = pos("4k3/8/8/8/2q5/8/8/QQ2K3 w - - 0 1");
    assert_eq!(tb.probe_wdl(&missing), None);
    assert_eq!(tb.probe_dtz(&missing), None);
    let kings = pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(tb.probe_wdl(&kings), Some(Wdl::Draw));
    assert_eq!(tb.probe_dtz(&kings), Some(0));
}

/// A fresh folder under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guoxiang-tb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

fn copy(from: &Path, to: &Path, names: &[&str]) {
    for n in names {
        std::fs::copy(from.join(n), to.join(n)).expect("copy a table");
    }
}

#[test]
fn tablebase_open_reports_missing_empty_and_damaged_folders() {
    let Some(dir) = tables_dir() else { return };
    let missing = std::env::temp_dir().join("guoxiang-tb-no-such-folder");
    let (tb, notes) = Tablebases::open(&missing.to_string_lossy());
    assert_eq!(tb.max_pieces(), 0);
    assert!(
        notes.iter().any(|n| n.contains("does not exist")),
        "{notes:?}"
    );

    let empty = temp_dir("empty");
    let (tb, notes) = Tablebases::open(&empty.to_string_lossy());
    assert_eq!(tb.max_pieces(), 0);
    assert!(notes.iter().any(|n| n.contains("no tables")), "{notes:?}");

    // KQvK truncated, KRvK with a bad magic, KPvK intact.
    let damaged = temp_dir("damaged");
    copy(&dir, &damaged, &["KPvK.rtbw", "KPvK.rtbz", "KRvK.rtbz"]);
    let bytes = std::fs::read(dir.join("KQvK.rtbw")).expect("KQvK.rtbw");
    std::fs::write(damaged.join("KQvK.rtbw"), &bytes[..bytes.len() - 7]).expect("write");
    let mut bytes = std::fs::read(dir.join("KRvK.rtbw")).expect("KRvK.rtbw");
    bytes[0] ^= 0xff;
    std::fs::write(damaged.join("KRvK.rtbw"), &bytes).expect("write");
    let (tb, notes) = Tablebases::open(&damaged.to_string_lossy());
    let said = notes.join("\n");
    assert!(
        said.contains("KQvK.rtbw") && said.contains("truncated"),
        "{said}"
    );
    assert!(
        said.contains("KRvK.rtbw") && said.contains("magic"),
        "{said}"
    );
    assert!(said.contains("found 1 WDL and 1 DTZ"), "{said}");
    let kq = pos("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    let kr = pos("4k3/8/8/8/8/8/8/3RK3 w - - 0 1");
    let kp = pos("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1");
    assert_eq!(tb.probe_wdl(&kq), None);
    assert_eq!(tb.probe_dtz(&kq), None);
    assert_eq!(tb.probe_wdl(&kr), None);
    assert!(tb.rank_root_moves(&kr, true).is_none());
    assert!(tb.probe_wdl(&kp).is_some());
    let _ = std::fs::remove_dir_all(&damaged);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn tablebase_survives_corrupt_table_contents() {
    let Some(dir) = tables_dir() else { return };
    let positions: Vec<Position> = oracle()
        .iter()
        .map(|c| pos(&c.fen))
        .filter(|p| p.occupied().count() <= 4)
        .take(400)
        .collect();
    // Sizes and magic intact, contents damaged: probes may answer anything
    // or nothing, but must return.
    let names = ["KRvK", "KPvK", "KQvKR", "KPvKP", "KBNvK", "KRvKP"];
    for seed in 1..=6u64 {
        let bad = temp_dir(&format!("corrupt{seed}"));
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for name in names {
            for ext in ["rtbw", "rtbz"] {
                let file = format!("{name}.{ext}");
                let mut bytes = std::fs::read(dir.join(&file)).expect("a table");
                let len = bytes.len();
                // Damage the header area hard and the rest lightly.
                for _ in 0..(8 * seed) {
                    let at = 4 + (next() as usize) % (len.min(600) - 4);
                    bytes[at] = next() as u8;
                }
                for _ in 0..64 {
                    let at = 4 + (next() as usize) % (len - 4);
                    bytes[at] = next() as u8;
                }
                // Cut some to a plausible size (16 more than a multiple of 64).
                if seed % 2 == 0 && len > 2000 {
                    bytes.truncate((len / 2) / 64 * 64 + 16);
                }
                std::fs::write(bad.join(&file), &bytes).expect("write");
            }
        }
        let (tb, _) = Tablebases::open(&bad.to_string_lossy());
        for p in &positions {
            let _ = tb.probe_wdl(p);
            let _ = tb.probe_dtz(p);
        }
        for p in positions.iter().take(40) {
            let _ = tb.rank_root_moves(p, true);
        }
        let _ = std::fs::remove_dir_all(&bad);
    }
}

#[test]
fn tablebase_files_changed_on_disk_are_noticed_and_never_read_through_a_stale_map() {
    let Some(dir) = tables_dir() else { return };
    let folder = temp_dir("changing");
    copy(
        &dir,
        &folder,
        &["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz"],
    );
    let (tb, _) = Tablebases::open(&folder.to_string_lossy());
    let kq = pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
    let kr = pos("4k3/8/8/8/8/8/8/3RK3 b - - 0 1");
    assert_eq!(tb.probe_wdl(&kq), Some(Wdl::Loss));
    assert!(tb.probe_dtz(&kr).is_some_and(|d| d < 0));
    assert!(tb.refresh().is_none(), "nothing changed yet");

    // An operator copies over KQvK.rtbw in place (cut short here), and
    // moves a new KRvK.rtbz into place (a new file under the same name).
    let bytes = std::fs::read(dir.join("KQvK.rtbw")).expect("KQvK.rtbw");
    std::fs::write(folder.join("KQvK.rtbw"), &bytes[..bytes.len() / 2]).expect("write");
    let fresh = folder.join("KRvK.rtbz.part");
    std::fs::copy(dir.join("KRvK.rtbz"), &fresh).expect("copy");
    std::fs::rename(&fresh, folder.join("KRvK.rtbz")).expect("rename");

    let (tb, notes) = tb.refresh().expect("the changes are seen");
    let said = notes.join("\n");
    assert!(
        said.contains("KQvK.rtbw changed size on disk") && said.contains("not used"),
        "{said}"
    );
    assert!(
        said.contains("KRvK.rtbz was changed or replaced") && said.contains("mapped again"),
        "{said}"
    );
    assert!(!said.contains("KRvK.rtbw"), "{said}");
    assert_eq!(tb.probe_wdl(&kq), None, "a truncated table is not read");
    assert!(
        tb.probe_dtz(&kr).is_some_and(|d| d < 0),
        "the new file is read"
    );
    assert!(tb.refresh().is_none(), "reported once");

    // Put back whole: the table is used again.
    std::fs::write(folder.join("KQvK.rtbw"), &bytes).expect("write");
    let (tb, notes) = tb.refresh().expect("seen again");
    assert!(notes.join(" ").contains("mapped again"), "{notes:?}");
    assert_eq!(tb.probe_wdl(&kq), Some(Wdl::Loss));
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn tablebase_reads_several_folders() {
    let Some(dir) = tables_dir() else { return };
    let a = temp_dir("folder-a");
    let b = temp_dir("folder-b");
    copy(&dir, &a, &["KQvK.rtbw", "KQvK.rtbz"]);
    copy(&dir, &b, &["KRvK.rtbw", "KRvK.rtbz"]);
    let paths = format!("{}{PATH_SEPARATOR}{}", a.display(), b.display());
    let (tb, notes) = Tablebases::open(&paths);
    assert!(
        notes.iter().any(|n| n.contains("found 2 WDL and 2 DTZ")),
        "{notes:?}"
    );
    assert_eq!(tb.max_pieces(), 3);
    let kq = pos("4k3/8/8/8/8/8/8/3QK3 b - - 0 1");
    let kr = pos("4k3/8/8/8/8/8/8/3RK3 b - - 0 1");
    assert_eq!(tb.probe_wdl(&kq), Some(Wdl::Loss));
    assert_eq!(tb.probe_wdl(&kr), Some(Wdl::Loss));
    assert!(tb.probe_dtz(&kr).is_some_and(|d| d < 0));
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn tablebase_is_shareable_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Tablebases>();
}

#[test]
fn tablebase_probe_speed() {
    let Some(dir) = tables_dir() else { return };
    let tb = open(&dir);
    let positions: Vec<Position> = oracle().iter().map(|c| pos(&c.fen)).collect();
    // First pass loads the tables; the second is timed.
    for p in &positions {
        let _ = tb.probe_wdl(p);
    }
    let rounds = 5;
    let start = Instant::now();
    let mut found = 0;
    for _ in 0..rounds {
        found += positions
            .iter()
            .filter(|p| tb.probe_wdl(p).is_some())
            .count();
    }
    let secs = start.elapsed().as_secs_f64();
    let probes = (rounds * positions.len()) as f64;
    println!(
        "probe_wdl: {probes} probes ({found} answered) in {secs:.3} s: {:.0} probes/s",
        probes / secs
    );
    let start = Instant::now();
    for p in &positions {
        let _ = tb.probe_dtz(p);
    }
    let secs = start.elapsed().as_secs_f64();
    println!("probe_dtz: {:.0} probes/s", positions.len() as f64 / secs);
}
