//! The `guoxiang epd` test-suite runner, run as a real process: it parses
//! the suite, searches, reports each position and the totals, and fails with
//! a message (never a panic) on bad input.

mod common;

use common::cli::{assert_clean_failure, guoxiang, stderr, stdout, temp_file};

const SUITE: &str = "\
# a comment line
6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mates.1\";
6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm Ra8+; c0 \"Ra8=10, Ra7=2\"; id \"mates.2\";
4k3/8/8/8/8/8/4P3/4K3 w - - bm e5; id \"broken.1\";
";

#[test]
fn solves_and_totals_a_small_suite() {
    let path = temp_file("suite.epd", SUITE);
    let path = path.to_str().expect("utf-8 temp path");
    let o = guoxiang(&["epd", path, "--depth", "3", "--workers", "2"]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "{err}");
    // The line with an illegal best move is skipped, with its line number.
    assert!(err.contains(":4: skipped: bm 'e5' is not legal"), "{err}");
    assert!(out.contains("skipped 1 unusable lines"), "{out}");
    for id in ["mates.1", "mates.2"] {
        let line = out
            .lines()
            .find(|l| l.ends_with(id))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(line.contains(" ok ") && line.contains("Ra8#"), "{line}");
    }
    assert_eq!(
        out.lines().last(),
        Some("solved 2/2 (100.0%), points 10/10 (100.0%)"),
        "{out}"
    );
}

#[test]
fn quiet_prints_only_the_totals() {
    let path = temp_file("quiet.epd", SUITE);
    let path = path.to_str().expect("utf-8 temp path");
    let o = guoxiang(&[
        "epd",
        path,
        "--nodes",
        "2000",
        "--max",
        "1",
        "--quiet",
        "--no-nnue",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "solved 1/1 (100.0%)");
}

#[test]
fn bad_arguments_fail_cleanly() {
    let path = temp_file("args.epd", SUITE);
    let path = path.to_str().expect("utf-8 temp path");
    let empty = temp_file("empty.epd", "# nothing\n");
    let empty = empty.to_str().expect("utf-8 temp path");
    for (args, why) in [
        (vec!["epd"], "required arguments were not provided"),
        (vec!["epd", "/nonexistent/suite.epd"], "cannot read"),
        (vec!["epd", empty], "no usable positions"),
        (vec!["epd", path, "--depth", "3", "--nodes", "5"], "one of"),
        (vec!["epd", path, "--depth", "0"], "--depth"),
        (
            vec!["epd", path, "--movetime", "abc"],
            "invalid value 'abc'",
        ),
        (vec!["epd", path, "--workers", "0"], "--workers"),
        (vec!["epd", path, "--hash"], "a value is required"),
        (
            vec!["epd", path, "--bogus"],
            "unexpected argument '--bogus'",
        ),
        (vec!["epd", path, "extra"], "unexpected argument"),
    ] {
        let err = assert_clean_failure(&args);
        assert!(err.contains(why), "{args:?}: {err}");
    }
}
