//! `guoxiang --help` and every subcommand's `--help`, run as real processes:
//! each exits 0 and names all of its options, and a usage error exits 2.

mod common;

use common::cli::{assert_clean_failure, guoxiang, stderr, stdout};

/// Every subcommand and the options its `--help` must name.
const SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "perft",
        &[
            "--suite",
            "--max-depth",
            "--max-count",
            "--threads",
            "--960",
        ],
    ),
    ("bench", &["[DEPTH]"]),
    (
        "epd",
        &[
            "<FILE>",
            "--movetime",
            "--nodes",
            "--depth",
            "--hash",
            "--workers",
            "--max",
            "--960",
            "--quiet",
            "--no-nnue",
        ],
    ),
    (
        "datagen",
        &[
            "--games",
            "--nodes",
            "--threads",
            "--seed",
            "--out",
            "--append",
            "--openings",
            "--random-plies",
            "--hash",
            "--max-plies",
            "--win-score",
            "--win-plies",
            "--max-opening-score",
        ],
    ),
    (
        "tune",
        &[
            "--data",
            "--epochs",
            "--lr",
            "--threads",
            "--k",
            "--loss",
            "--validation",
            "--reg",
            "--min-count",
            "--keep",
            "--limit",
            "--out",
            "--write-eval",
        ],
    ),
    (
        "nnue",
        &[
            "--data",
            "--epochs",
            "--batch",
            "--lr",
            "--lambda",
            "--hce-percent",
            "--init",
            "--threads",
            "--seed",
            "--out",
        ],
    ),
    (
        "spsa",
        &[
            "--pairs",
            "--nodes",
            "--tc",
            "--params",
            "--start",
            "--r-end",
            "--threads",
            "--hash",
            "--seed",
            "--openings",
            "--random-plies",
            "--max-plies",
            "--log",
            "--write-params",
        ],
    ),
    (
        "sprt",
        &["--name", "--prior", "--elo0", "--elo1", "FILE.pgn"],
    ),
    ("wdl", &["--fit", "--check", "--steps", "--max-score"]),
];

#[test]
fn the_top_level_help_lists_every_subcommand() {
    let o = guoxiang(&["--help"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for (name, _) in SUBCOMMANDS {
        assert!(
            out.contains(&format!("\n  {name} ")),
            "{name} missing:\n{out}"
        );
    }
}

#[test]
fn each_subcommand_help_names_its_options_and_defaults() {
    for (name, options) in SUBCOMMANDS {
        let o = guoxiang(&[name, "--help"]);
        assert!(o.status.success(), "{name} --help: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.contains(&format!("Usage: guoxiang {name}")),
            "{name}:\n{out}"
        );
        for option in *options {
            assert!(out.contains(option), "{name} --help lacks {option}:\n{out}");
        }
    }
    let out = stdout(&guoxiang(&["datagen", "--help"]));
    assert!(out.contains("[default: 100]"), "{out}");
    let out = stdout(&guoxiang(&["bench", "--help"]));
    let depth = format!("[default: {}]", guoxiang::bench::DEFAULT_DEPTH);
    assert!(out.contains(&depth), "{out}");
}

#[test]
fn usage_errors_exit_with_status_2() {
    for (name, _) in SUBCOMMANDS {
        let err = assert_clean_failure(&[name, "--bogus"]);
        assert!(err.contains("'--bogus'"), "{name}: {err}");
        assert_eq!(
            guoxiang(&[name, "--bogus"]).status.code(),
            Some(2),
            "{name}"
        );
    }
    let err = assert_clean_failure(&["no-such-command"]);
    assert!(err.contains("no-such-command"), "{err}");
    assert_eq!(guoxiang(&["no-such-command"]).status.code(), Some(2));
}
