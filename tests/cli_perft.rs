//! The `guoxiang perft` command line, run as a real process: output format,
//! exit codes, and clean error messages (never a panic) on bad input.

mod common;

use common::cli::{assert_clean_failure, guoxiang, stderr, stdout, temp_file};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// `uci: n` lines of a divide.
fn divide_lines(out: &str) -> Vec<(String, u64)> {
    out.lines()
        .filter_map(|l| {
            let (mv, n) = l.split_once(": ")?;
            let n: u64 = n.trim().parse().ok()?;
            let is_move =
                (4..=5).contains(&mv.len()) && mv.chars().all(|c| c.is_ascii_alphanumeric());
            is_move.then(|| (mv.to_string(), n))
        })
        .collect()
}

fn nodes_searched(out: &str) -> u64 {
    out.lines()
        .find_map(|l| l.strip_prefix("Nodes searched: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no 'Nodes searched' line in:\n{out}"))
}

#[test]
fn perft_3_of_the_start_position() {
    let o = guoxiang(&["perft", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(nodes_searched(&out), 8902);
    let mut lines = divide_lines(&out);
    lines.sort();
    let mut expected: Vec<(String, u64)> = [
        ("a2a3", 380),
        ("a2a4", 420),
        ("b1a3", 400),
        ("b1c3", 440),
        ("b2b3", 420),
        ("b2b4", 421),
        ("c2c3", 420),
        ("c2c4", 441),
        ("d2d3", 539),
        ("d2d4", 560),
        ("e2e3", 599),
        ("e2e4", 600),
        ("f2f3", 380),
        ("f2f4", 401),
        ("g1f3", 440),
        ("g1h3", 400),
        ("g2g3", 420),
        ("g2g4", 421),
        ("h2h3", 380),
        ("h2h4", 420),
    ]
    .iter()
    .map(|&(m, n)| (m.to_string(), n))
    .collect();
    expected.sort();
    assert_eq!(lines, expected, "{out}");
    assert!(out.contains("e2e3: 599\n"), "{out}");
}

#[test]
fn perft_2_of_kiwipete_with_threads() {
    for threads in ["1", "2"] {
        let o = guoxiang(&["perft", "2", KIWIPETE, "--threads", threads]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert_eq!(nodes_searched(&out), 2039);
        let lines = divide_lines(&out);
        assert_eq!(lines.len(), 48);
        assert_eq!(lines.iter().map(|l| l.1).sum::<u64>(), 2039);
        // Castling is printed the standard way outside Chess960.
        assert!(lines.iter().any(|l| l.0 == "e1g1"), "{out}");
        assert!(lines.iter().any(|l| l.0 == "e1c1"), "{out}");
    }
}

#[test]
fn perft_with_a_table_of_counts() {
    // The same divide with and without the table, on one thread and two.
    let plain = stdout(&guoxiang(&["perft", "4", KIWIPETE]));
    assert_eq!(nodes_searched(&plain), 4085603);
    for threads in ["1", "2"] {
        for mb in ["1", "16"] {
            let o = guoxiang(&["perft", "4", KIWIPETE, "--hash", mb, "--threads", threads]);
            assert!(o.status.success(), "{}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(nodes_searched(&out), 4085603);
            assert_eq!(divide_lines(&out), divide_lines(&plain));
        }
    }
    // A suite with a table.
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/perft/random-960-xfen.epd");
    let o = guoxiang(&[
        "perft",
        "--suite",
        suite,
        "--max-count",
        "1000000",
        "--hash",
        "4",
        "--threads",
        "2",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}\n{}", stderr(&o));
    assert!(out.contains("mismatches 0"), "{out}");
    assert!(!out.contains("MISMATCH"), "{out}");
}

#[test]
fn perft_fen_given_as_separate_words() {
    let words: Vec<&str> = KIWIPETE.split(' ').collect();
    let mut args = vec!["perft", "1"];
    args.extend(&words);
    let o = guoxiang(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(nodes_searched(&stdout(&o)), 48);
}

#[test]
fn perft_chess960_prints_king_takes_rook() {
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let o = guoxiang(&["perft", "2", fen]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(nodes_searched(&stdout(&o)), 528);
    // With --960 a standard FEN lists castling as king-takes-rook.
    let o = guoxiang(&[
        "perft",
        "1",
        "--960",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("e1h1: 1"), "{out}");
    assert!(out.contains("e1a1: 1"), "{out}");
}

#[test]
fn perft_standard_suite_to_depth_3() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/perft/standard.epd");
    let o = guoxiang(&[
        "perft",
        "--suite",
        suite,
        "--max-depth",
        "3",
        "--threads",
        "2",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}\n{}", stderr(&o));
    assert!(out.contains("mismatches 0"), "{out}");
    assert!(out.contains("checks 21"), "{out}");
    assert!(!out.contains("MISMATCH"), "{out}");
}

#[test]
fn perft_suite_with_a_wrong_count_fails() {
    let path = temp_file(
        "wrong.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n",
    );
    let o = guoxiang(&["perft", "--suite", path.to_str().unwrap()]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(!o.status.success(), "{out}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains("MISMATCH"), "{out}");
    assert!(out.contains("expected 401, found 400"), "{out}");
    assert!(out.contains("mismatches 1"), "{out}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn perft_suite_block_format_with_max_count() {
    let path = temp_file(
        "block.perft",
        &format!("id kiwipete\nepd {KIWIPETE}\nperft 1 48\nperft 2 2039\nperft 3 97862\nperft 4 4085603\n"),
    );
    let o = guoxiang(&[
        "perft",
        "--suite",
        path.to_str().unwrap(),
        "--max-count",
        "100000",
    ]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}\n{}", stderr(&o));
    assert!(out.contains("checks 3"), "{out}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn perft_suite_file_problems_are_reported() {
    let err = assert_clean_failure(&["perft", "--suite", "/nonexistent/suite.epd"]);
    assert!(err.contains("cannot read"), "{err}");
    let path = temp_file("malformed.epd", "8/8/8/4k3/8/8/8/4K3 w - - ;D1 five\n");
    let err = assert_clean_failure(&["perft", "--suite", path.to_str().unwrap()]);
    assert!(err.contains("line 1"), "{err}");
    let _ = std::fs::remove_file(path);
    // An impossible position in a suite is reported, not a crash.
    let path = temp_file(
        "impossible.epd",
        "4k3/8/8/8/8/8/8/3KK3 w - - 0 1 ;D1 5\n8/8/8/4k3/8/8/8/4K3 w - - 0 1 ;D1 5\n",
    );
    let o = guoxiang(&["perft", "--suite", path.to_str().unwrap()]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains("rejected 1"), "{out}");
    assert!(out.contains("2 kings"), "{out}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn perft_bad_fens_fail_cleanly() {
    let err = assert_clean_failure(&["perft", "3", "not a fen"]);
    assert!(err.contains("FEN"), "{err}");
    let err = assert_clean_failure(&["perft", "3", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1"]);
    assert!(err.contains("2 kings"), "{err}");
    let err = assert_clean_failure(&["perft", "3", "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"]);
    assert!(err.contains("pawns"), "{err}");
    for fen in [
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
        "",
    ] {
        assert_clean_failure(&["perft", "2", fen]);
    }
}

#[test]
fn perft_bad_arguments_fail_cleanly() {
    let err = assert_clean_failure(&["perft", "abc"]);
    assert!(err.contains("abc"), "{err}");
    assert_clean_failure(&["perft"]);
    assert_clean_failure(&["perft", "-1"]);
    assert_clean_failure(&["perft", "99"]);
    assert_clean_failure(&["perft", "2", "--threads"]);
    assert_clean_failure(&["perft", "2", "--threads", "0"]);
    assert_clean_failure(&["perft", "2", "--threads", "many"]);
    assert_clean_failure(&["perft", "2", "--bogus"]);
    assert_clean_failure(&["perft", "2", "--hash"]);
    assert_clean_failure(&["perft", "2", "--hash", "-1"]);
    assert_clean_failure(&["perft", "2", "--hash", "lots"]);
    assert_clean_failure(&["perft", "2", "--hash", "2000000"]);
    assert_clean_failure(&["perft", "--suite"]);
    assert_clean_failure(&["perft", "--max-depth", "x", "--suite", "perft/standard.epd"]);
}
