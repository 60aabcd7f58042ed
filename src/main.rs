//! The `guoxiang` binary: the UCI engine by default, plus the developer
//! subcommands `perft`, `bench`, `epd`, `datagen`, `tune`, `nnue`, `spsa`, `sprt`, `wdl` and `pool`.
//!
//! The command line is parsed by `clap`: every subcommand has its `--help`,
//! and a usage error exits with status 2. The tools' options are declared
//! next to their code (`guoxiang::tools::*::*Args`); a later flag overrides
//! an earlier one, as repeated flags always did.

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};
use guoxiang::board::position::{Position, START_FEN};
use guoxiang::perft::{divide, parse_suite, run_suite, PerftTable, SuiteOptions};
use guoxiang::tools::{datagen, epd, labels, nnue_train, pool, sprt, spsa, tune, wdl};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Guoxiang, a UCI chess engine. Without a subcommand it runs the engine,
/// which reads UCI commands on stdin.
#[derive(Parser)]
#[command(name = "guoxiang", args_override_self = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Perft divide of one position, or a check of every position of a perft suite
    Perft(PerftArgs),
    /// Fixed-depth search of the bench positions; prints nodes and nps
    Bench(BenchArgs),
    /// Runs an EPD test suite (bm, am, STS c0 points); counts the solved positions
    ///
    /// Searches each position of the suite and counts the solved ones: `bm`
    /// (one of the best moves played), `am` (none of these played) and STS
    /// `c0` points. Workers search different positions at once, one thread each.
    Epd(epd::EpdArgs),
    /// Self-play games; writes quiet positions as `FEN | result | score`
    Datagen(datagen::DatagenArgs),
    /// Texel-tunes the evaluation weights on datagen positions
    Tune(tune::TuneArgs),
    /// Trains the network evaluation on datagen positions
    Nnue(nnue_train::NnueArgs),
    /// Tunes the search parameters on game pairs played in process (SPSA)
    Spsa(spsa::SpsaArgs),
    /// Pools match PGNs by game pairs: pentanomial, Elo, SPRT LLR
    ///
    /// Pools the game pairs of every FILE with the pentanomials of earlier
    /// parts (--prior), and prints the Elo estimate and the SPRT
    /// log-likelihood ratio of H1 (--elo1) against H0 (--elo0).
    Sprt(sprt::SprtArgs),
    /// Fits the win/draw/loss model (UCI_ShowWDL) on datagen positions
    ///
    /// Fits the model's coefficients on the --fit files and prints
    /// them, then compares predicted and observed W/D/L on the --check
    /// files (other games than the fit saw) by score bucket and material band.
    Wdl(wdl::WdlArgs),
    /// The self-play pool's manifest (chunks, games, positions), or a text file imported into it
    Pool(pool::PoolArgs),
    /// Compares self-play node budgets' labels against a deep search on pool games
    Labels(labels::LabelsArgs),
}

#[derive(Args)]
struct PerftArgs {
    /// Depth of the divide (0 to 20)
    #[arg(
        required_unless_present = "suite",
        value_parser = clap::value_parser!(u32).range(0..=20)
    )]
    depth: Option<u32>,
    /// The position, as one argument or as several words [default: the start position]
    fen: Vec<String>,
    /// Check every position of this EPD or block-format perft suite instead
    #[arg(long, value_name = "FILE")]
    suite: Option<String>,
    /// With --suite: check depths up to D only
    #[arg(long, value_name = "D")]
    max_depth: Option<u32>,
    /// With --suite: skip depths whose expected count is above N
    #[arg(long, value_name = "N")]
    max_count: Option<u64>,
    /// Threads (1 to 1024)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = RangedU64ValueParser::<usize>::new().range(1..=1024)
    )]
    threads: usize,
    /// A table of counts of this many MB, shared by the threads (and by the
    /// positions of a suite), so that transpositions are counted once
    /// (0: none; up to 1048576)
    #[arg(
        long,
        value_name = "MB",
        default_value_t = 0,
        value_parser = RangedU64ValueParser::<usize>::new().range(0..=1 << 20)
    )]
    hash: usize,
    /// Chess960: castling moves printed as king takes rook (a FEN whose
    /// castling field names files switches it on by itself)
    #[arg(long = "960")]
    chess960: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Search depth (1 to 64)
    #[arg(
        default_value_t = guoxiang::bench::DEFAULT_DEPTH,
        value_parser = clap::value_parser!(i32).range(1..=64)
    )]
    depth: i32,
}

fn main() -> ExitCode {
    let Some(command) = Cli::parse().command else {
        guoxiang::uci::run();
        return ExitCode::SUCCESS;
    };
    let done = |result: Result<(), String>| result.map(|()| ExitCode::SUCCESS);
    let result = match command {
        Command::Perft(args) => perft(args),
        Command::Bench(args) => Ok(bench(args)),
        Command::Epd(args) => epd::command(args),
        Command::Datagen(args) => done(datagen::command(args)),
        Command::Tune(args) => done(tune::command(args)),
        Command::Nnue(args) => nnue_train::command(args),
        Command::Spsa(args) => done(spsa::command(args)),
        Command::Sprt(args) => sprt::command(args),
        Command::Wdl(args) => done(wdl::command(args)),
        Command::Pool(args) => done(pool::command(args)),
        Command::Labels(args) => done(labels::command(args)),
    };
    result.unwrap_or_else(|message| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
}

fn bench(args: BenchArgs) -> ExitCode {
    let (nodes, nps) = guoxiang::bench::run(args.depth, true);
    println!("{nodes} nodes {nps} nps");
    ExitCode::SUCCESS
}

fn perft(args: PerftArgs) -> Result<ExitCode, String> {
    let defaults = SuiteOptions::default();
    let table = match args.hash {
        0 => None,
        mb => Some(Arc::new(PerftTable::new(mb)?)),
    };
    let opts = SuiteOptions {
        max_depth: args.max_depth.unwrap_or(defaults.max_depth),
        max_count: args.max_count.unwrap_or(defaults.max_count),
        threads: args.threads,
        chess960: args.chess960,
        table,
    };

    if let Some(path) = args.suite {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let entries = parse_suite(&text)?;
        println!("{} positions from {path}", entries.len());
        let report = run_suite(&entries, &opts, &mut std::io::stdout());
        let mnps = report.nodes as f64 / report.seconds.max(1e-9) / 1e6;
        println!(
            "positions {}  checks {}  mismatches {}  rejected {}  nodes {}  time {:.2} s  {:.1} Mnps",
            report.positions,
            report.checks,
            report.mismatches.len(),
            report.rejected.len(),
            report.nodes,
            report.seconds,
            mnps
        );
        return Ok(if report.mismatches.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }

    let depth = args.depth.ok_or("missing depth")?;
    let fen = if args.fen.is_empty() {
        START_FEN.to_string()
    } else {
        args.fen.join(" ")
    };
    let chess960 = opts.chess960
        || fen.split_whitespace().nth(2).is_some_and(|c| {
            c.chars()
                .any(|ch| matches!(ch.to_ascii_lowercase(), 'a'..='h'))
        });
    let pos = Position::from_fen(&fen, chess960).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let results = divide(&pos, depth, opts.threads, opts.table.as_deref());
    let elapsed = start.elapsed().as_secs_f64();
    let total: u64 = if depth == 0 {
        1
    } else {
        results.iter().map(|r| r.1).sum()
    };
    for (mv, n) in &results {
        println!("{}: {n}", mv.to_uci(pos.is_chess960()));
    }
    println!();
    println!("Nodes searched: {total}");
    println!(
        "Time: {:.3} s  Speed: {:.1} Mnps",
        elapsed,
        total as f64 / elapsed.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
