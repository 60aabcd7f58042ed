//! Runs the `guoxiang` binary's subcommands as real processes.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn guoxiang(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_guoxiang"))
        .args(args)
        .output()
        .expect("the binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A failure the user can read: non-zero exit, a message, no panic.
pub fn assert_clean_failure(args: &[&str]) -> String {
    let o = guoxiang(args);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(!o.status.success(), "{args:?} succeeded:\n{out}");
    assert!(o.status.code().is_some(), "{args:?} died by a signal");
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    assert!(!out.contains("panicked"), "{args:?} panicked:\n{out}");
    assert!(!err.trim().is_empty(), "{args:?} failed without a message");
    err
}

/// A file in the test target's scratch folder holding `text`; `name` keeps tests apart.
pub fn temp_file(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}
