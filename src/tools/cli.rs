//! Small helpers shared by the command-line subcommands (`perft`, `datagen`, `tune`).

use std::process::ExitCode;

/// Takes the value after the flag at `*i` (advancing `i`), or says which flag lacks a usable one.
pub fn flag_value<T: std::str::FromStr>(
    args: &[String],
    i: &mut usize,
    flag: &str,
) -> Result<T, String> {
    *i += 1;
    let value = args
        .get(*i)
        .ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: '{value}' is not a valid value"))
}

/// Turns a subcommand's result into an exit code: errors are printed with
/// the subcommand's name and usage, and exit with status 2.
pub fn exit_code(name: &str, usage: &str, result: Result<ExitCode, String>) -> ExitCode {
    result.unwrap_or_else(|message| {
        eprintln!("{name}: {message}\n{usage}");
        ExitCode::from(2)
    })
}
