//! Every shipped perft suite, the suite parser and `divide`.
//!
//! Node caps keep the file fast: in release builds the standard positions run
//! up to 2e8 nodes per check (Kiwipete depth 5 included) and the random suites
//! up to 2e7; debug builds, about 30x slower, use much smaller caps.

use guoxiang::board::movegen::legal_moves;
use guoxiang::board::position::START_FEN;
use guoxiang::perft::{
    divide, parse_suite, perft, perft_hashed, run_suite, PerftTable, SuiteEntry, SuiteOptions,
};
use guoxiang::Position;
use std::sync::Arc;

const STANDARD: &str = include_str!("../perft/standard.epd");
const RANDOM: &str = include_str!("../perft/random.epd");
const RANDOM_960_XFEN: &str = include_str!("../perft/random-960-xfen.epd");

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn cap(release: u64, debug: u64) -> u64 {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// How many (position, depth) checks a run with `max_count` must make.
fn expected_checks(entries: &[SuiteEntry], max_count: u64) -> usize {
    entries
        .iter()
        .map(|e| e.expected.iter().filter(|&&(_, n)| n <= max_count).count())
        .sum()
}

/// Runs a whole suite and insists on zero mismatches, zero rejected FENs and
/// every check under the cap actually made (at least `min_checks`).
fn run(text: &str, chess960: bool, max_count: u64, positions: usize, min_checks: usize) {
    run_with(text, chess960, max_count, positions, min_checks, None);
}

/// `run`, with a table of counts shared by the threads and positions if given.
fn run_with(
    text: &str,
    chess960: bool,
    max_count: u64,
    positions: usize,
    min_checks: usize,
    table: Option<Arc<PerftTable>>,
) {
    let entries = parse_suite(text).expect("suite parses");
    assert_eq!(entries.len(), positions);
    let opts = SuiteOptions {
        max_count,
        threads: 2,
        chess960,
        table,
        ..SuiteOptions::default()
    };
    let mut log = Vec::new();
    let report = run_suite(&entries, &opts, &mut log);
    let log = String::from_utf8_lossy(&log);
    assert!(report.mismatches.is_empty(), "{:#?}", report.mismatches);
    assert!(report.rejected.is_empty(), "{:#?}", report.rejected);
    assert_eq!(report.positions, positions);
    assert_eq!(report.checks, expected_checks(&entries, max_count), "{log}");
    assert!(
        report.checks >= min_checks,
        "only {} checks were run",
        report.checks
    );
    assert!(!log.contains("MISMATCH"), "{log}");
}

#[test]
fn standard_suite() {
    // Release: 38 checks, about 8e8 nodes; debug: 26 checks, 2e6 nodes.
    run(
        STANDARD,
        false,
        cap(200_000_000, 1_000_000),
        7,
        cap(38, 26) as usize,
    );
}

#[test]
fn standard_suite_every_depth_up_to_2e7() {
    // The same file through plain `perft`, so a bug in the suite runner's
    // skipping cannot hide a position.
    let limit = cap(20_000_000, 1_000_000);
    let mut checked = 0;
    for entry in parse_suite(STANDARD).unwrap() {
        let pos = entry.position(false).unwrap();
        for &(depth, expected) in &entry.expected {
            if expected <= limit {
                assert_eq!(perft(&pos, depth), expected, "{} depth {depth}", entry.fen);
                checked += 1;
            }
        }
    }
    assert!(checked >= cap(33, 26) as usize, "only {checked} checks");
}

#[test]
fn random_suite_standard_and_shredder_fen() {
    run(
        RANDOM,
        false,
        cap(20_000_000, 200_000),
        400,
        cap(1789, 1341) as usize,
    );
}

#[test]
fn random_suite_chess960_x_fen() {
    run(
        RANDOM_960_XFEN,
        true,
        cap(20_000_000, 200_000),
        150,
        cap(666, 499) as usize,
    );
}

#[test]
fn x_fen_suite_reads_the_same_in_both_modes() {
    // `KQkq` means the outermost rook in both modes, and rights that only
    // Chess960 can have switch the mode on; so the flag may only change
    // how moves are printed, never the position or its counts.
    let entries = parse_suite(RANDOM_960_XFEN).unwrap();
    let mut switched_on = 0;
    for e in &entries {
        let plain = e.position(false).unwrap();
        let c960 = e.position(true).unwrap();
        for i in 0..4 {
            assert_eq!(plain.castling_rook(i), c960.castling_rook(i), "{}", e.fen);
        }
        assert_eq!(plain.key(), c960.key());
        assert_eq!(perft(&plain, 2), perft(&c960, 2), "{}", e.fen);
        switched_on += usize::from(plain.is_chess960());
    }
    // Many have lost their rights; those that keep Chess960-only ones
    // (59 of 150) turn the mode on by themselves.
    assert!(switched_on > 20, "{switched_on}");
}

#[test]
fn suites_with_a_table_of_counts() {
    // One small table for all three suites, both threads and every
    // position, so entries are replaced and positions of different suites
    // (Chess960 among them) meet in it.
    let table = Arc::new(PerftTable::new(1).unwrap());
    run_with(
        STANDARD,
        false,
        cap(20_000_000, 200_000),
        7,
        cap(33, 23) as usize,
        Some(Arc::clone(&table)),
    );
    run_with(
        RANDOM,
        false,
        cap(2_000_000, 50_000),
        400,
        cap(1600, 1200) as usize,
        Some(Arc::clone(&table)),
    );
    run_with(
        RANDOM_960_XFEN,
        true,
        cap(2_000_000, 50_000),
        150,
        cap(600, 450) as usize,
        Some(table),
    );
}

#[test]
fn hashed_perft_equals_plain_perft() {
    // Each depth on its own with a fresh table, then every depth again in
    // one shared table (entries of other depths of the same positions are
    // there to be mistaken for the asked one), with divide on two threads.
    let positions = [
        (START_FEN, 5),
        (KIWIPETE, 4),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            4,
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            4,
        ),
        // En passant possible only for some move orders.
        ("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", 6),
    ];
    let shared = PerftTable::new(1).unwrap();
    for (fen, max_depth) in positions {
        let pos = Position::from_fen(fen, fen.contains("HF")).unwrap();
        // Debug builds, about 30x slower, stop a ply earlier.
        let max_depth = max_depth - u32::from(cfg!(debug_assertions));
        for depth in (0..=max_depth).rev() {
            let plain = perft(&pos, depth);
            let fresh = PerftTable::new(1).unwrap();
            assert_eq!(perft_hashed(&pos, depth, &fresh), plain, "{fen} {depth}");
            assert_eq!(perft_hashed(&pos, depth, &shared), plain, "{fen} {depth}");
            // Again, now from the entries just stored.
            assert_eq!(perft_hashed(&pos, depth, &shared), plain, "{fen} {depth}");
            if depth > 0 {
                let parts = divide(&pos, depth, 2, Some(&shared));
                assert_eq!(parts, divide(&pos, depth, 1, None), "{fen} {depth}");
            }
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    for (fen, depth) in [
        (START_FEN, 4),
        (KIWIPETE, 3),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            3,
        ),
    ] {
        let pos = Position::from_fen(fen, fen.contains("HF")).unwrap();
        let total = perft(&pos, depth);
        for threads in [1, 3] {
            let parts = divide(&pos, depth, threads, None);
            // One entry per legal move, in generation order.
            let moves: Vec<_> = legal_moves(&pos).into_iter().collect();
            assert_eq!(parts.iter().map(|p| p.0).collect::<Vec<_>>(), moves);
            assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), total, "{fen}");
            for &(mv, n) in &parts {
                let mut child = pos;
                child.make_move(mv);
                assert_eq!(perft(&child, depth - 1), n);
            }
        }
    }
    // Depth 1: every root move counts once.
    let pos = Position::startpos();
    let parts = divide(&pos, 1, 2, None);
    assert_eq!(parts.len(), 20);
    assert!(parts.iter().all(|p| p.1 == 1));
    assert!(divide(&pos, 0, 1, None).is_empty());
    assert_eq!(perft(&pos, 0), 1);
}

#[test]
fn parse_suite_epd_lines() {
    let text = "\
# a comment, then a blank line

rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902
8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - ;D1 14;D2 191 ;
";
    let entries = parse_suite(text).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].line, 3);
    assert_eq!(entries[0].id, None);
    assert_eq!(entries[0].fen, START_FEN);
    assert_eq!(entries[0].expected, [(1, 20), (2, 400), (3, 8902)]);
    assert_eq!(entries[1].fen, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -");
    assert_eq!(entries[1].expected, [(1, 14), (2, 191)]);
    let report = run_suite(&entries, &SuiteOptions::default(), &mut Vec::new());
    assert_eq!(report.checks, 5);
    assert!(report.mismatches.is_empty());
}

#[test]
fn parse_suite_block_format() {
    let text = format!(
        "\
id kiwipete
epd {KIWIPETE}
perft 1 48
perft 2 2039

id chess960-a
epd bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9
perft 1 21
perft 2 528

epd 8/8/8/4k3/8/8/8/4K3 w - - 0 1
perft 1 5
"
    );
    let entries = parse_suite(&text).unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].id.as_deref(), Some("kiwipete"));
    assert_eq!(entries[0].fen, KIWIPETE);
    assert_eq!(entries[0].expected, [(1, 48), (2, 2039)]);
    assert_eq!(entries[1].id.as_deref(), Some("chess960-a"));
    assert_eq!(entries[1].expected, [(1, 21), (2, 528)]);
    // An id belongs to the next epd only.
    assert_eq!(entries[2].id, None);
    // Shredder letters select Chess960 by themselves.
    assert!(entries[1].position(false).unwrap().is_chess960());
    let report = run_suite(&entries, &SuiteOptions::default(), &mut Vec::new());
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    assert_eq!(report.checks, 5);
}

#[test]
fn parse_suite_rejects_malformed_lines() {
    for bad in [
        "perft 1 20\n",                               // perft before any epd
        "epd 8/8/8/4k3/8/8/8/4K3 w - -\nperft x 5\n", // depth not a number
        "epd 8/8/8/4k3/8/8/8/4K3 w - -\nperft 1\n",   // count missing
        "epd 8/8/8/4k3/8/8/8/4K3 w - -\nperft 1 five\n",
        "epd 8/8/8/4k3/8/8/8/4K3 w - -\nperft -1 5\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;D1 abc\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;D1\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;X1 5\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;Dx 5\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;D1 -5\n",
        "8/8/8/4k3/8/8/8/4K3 w - - ;D1 5 ;D2 18446744073709551616\n",
    ] {
        let err = parse_suite(bad).expect_err(bad);
        assert!(err.starts_with("line "), "{bad:?}: {err}");
    }
    // The line number points at the bad line.
    let err = parse_suite("# c\n8/8/8/4k3/8/8/8/4K3 w - - ;D1 5\n\nx ;D1 y\n").unwrap_err();
    assert!(err.starts_with("line 4:"), "{err}");
}

#[test]
fn run_suite_reports_mismatches_and_bad_fens() {
    let text = format!(
        "\
{START_FEN} ;D1 20 ;D2 401
8/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5
not a fen ;D1 1
{KIWIPETE} ;D1 48 ;D3 97862
"
    );
    let entries = parse_suite(&text).unwrap();
    let mut log = Vec::new();
    let report = run_suite(
        &entries,
        &SuiteOptions {
            max_depth: 2,
            ..SuiteOptions::default()
        },
        &mut log,
    );
    let log = String::from_utf8(log).unwrap();
    assert_eq!(report.positions, 4);
    // D3 of Kiwipete is skipped by max_depth.
    assert_eq!(report.checks, 3);
    assert_eq!(report.mismatches.len(), 1, "{:?}", report.mismatches);
    assert!(report.mismatches[0].contains("expected 401, found 400"));
    assert!(log.contains("MISMATCH"));
    assert_eq!(report.rejected.len(), 2, "{:?}", report.rejected);
    assert!(log.contains("rejected"));
}

#[test]
fn perft_handles_positions_at_the_edges() {
    // Mate, stalemate, double check (king moves only), the 218-move position.
    for (fen, moves) in [
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            0,
        ),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0),
        ("4k3/8/8/8/8/5n2/8/4K2r w - - 0 1", 2),
        ("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 218),
    ] {
        let pos = Position::from_fen(fen, false).unwrap();
        assert_eq!(perft(&pos, 1), moves, "{fen}");
        let sum: u64 = legal_moves(&pos)
            .iter()
            .map(|&m| {
                let mut c = pos;
                c.make_move(m);
                perft(&c, 1)
            })
            .sum();
        assert_eq!(perft(&pos, 2), sum, "{fen}");
    }
}
