//! The `guoxiang` binary: the UCI engine by default, plus the developer
//! subcommands `perft`, `bench`, `epd`, `datagen`, `tune`, `nnue`, `spsa` and `sprt`.

use guoxiang::board::position::{Position, START_FEN};
use guoxiang::perft::{divide, parse_suite, run_suite, SuiteOptions};
use guoxiang::tools::cli::{exit_code, flag_value};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  guoxiang                      run the UCI engine (reads commands on stdin)
  guoxiang perft <depth> [fen] [--threads N] [--960]
                                perft divide of one position (default: start position)
  guoxiang perft --suite <file> [--max-depth D] [--max-count N] [--threads N] [--960]
                                check every position of an EPD or block-format perft suite
  guoxiang bench [depth]        fixed-depth search of the bench positions; prints nodes and nps
  guoxiang epd <file> [--movetime MS | --nodes N | --depth D] [--workers N] [--max N]
                                runs an EPD test suite (bm, am, STS c0 points); counts the solved
  guoxiang datagen [--games N] [--nodes N] [--threads N] [--seed S] [--out FILE] [--openings FILE]
                                self-play games; writes quiet positions as `FEN | result | score`
  guoxiang tune --data FILE [--epochs N] [--lr X] [--out FILE] [--write-eval src/eval/terms.rs]
                                Texel-tunes the evaluation weights on datagen positions
  guoxiang nnue --data FILE [--epochs N] [--threads N] [--out FILE]
                                trains the network evaluation on datagen positions
  guoxiang spsa [--pairs N] [--nodes N | --tc BASE+INC] [--params a,b,..] [--threads N]
                                tunes the search parameters on game pairs played in process
  guoxiang sprt --name NAME [--prior A,B,C,D,E] [--elo0 X] [--elo1 Y] FILE.pgn...
                                pools match PGNs by game pairs: pentanomial, Elo, SPRT LLR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {
            guoxiang::uci::run();
            ExitCode::SUCCESS
        }
        Some("perft") => perft_command(&args[1..]),
        Some("bench") => bench_command(&args[1..]),
        Some("epd") => guoxiang::tools::epd::command(&args[1..]),
        Some("datagen") => guoxiang::tools::datagen::command(&args[1..]),
        Some("tune") => guoxiang::tools::tune::command(&args[1..]),
        Some("nnue") => guoxiang::tools::nnue_train::command(&args[1..]),
        Some("sprt") => guoxiang::tools::sprt::command(&args[1..]),
        Some("spsa") => guoxiang::tools::spsa::command(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown command '{other}'\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn bench_command(args: &[String]) -> ExitCode {
    let depth = match args.first() {
        None => guoxiang::bench::DEFAULT_DEPTH,
        Some(d) => match d.parse::<i32>() {
            Ok(d) if (1..=64).contains(&d) => d,
            _ => {
                eprintln!("bench: depth must be a number from 1 to 64, not '{d}'");
                return ExitCode::from(2);
            }
        },
    };
    let (nodes, nps) = guoxiang::bench::run(depth, true);
    println!("{nodes} nodes {nps} nps");
    ExitCode::SUCCESS
}

fn perft_command(args: &[String]) -> ExitCode {
    exit_code("perft", USAGE, perft_main(args))
}

fn perft_main(args: &[String]) -> Result<ExitCode, String> {
    let mut opts = SuiteOptions::default();
    let mut suite: Option<String> = None;
    let mut positional: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--suite" => suite = Some(flag_value(args, &mut i, "--suite")?),
            "--max-depth" => opts.max_depth = flag_value(args, &mut i, "--max-depth")?,
            "--max-count" => opts.max_count = flag_value(args, &mut i, "--max-count")?,
            "--threads" => {
                opts.threads = flag_value(args, &mut i, "--threads")?;
                if !(1..=1024).contains(&opts.threads) {
                    return Err("--threads must be from 1 to 1024".into());
                }
            }
            "--960" => opts.chess960 = true,
            other if other.starts_with("--") => return Err(format!("unknown option '{other}'")),
            other => positional.push(other.to_string()),
        }
        i += 1;
    }

    if let Some(path) = suite {
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

    let depth: u32 = positional
        .first()
        .ok_or("missing depth")?
        .parse()
        .map_err(|_| format!("depth '{}' is not a number", positional[0]))?;
    if depth > 20 {
        return Err(format!("depth {depth} is too deep (at most 20)"));
    }
    let fen = if positional.len() > 1 {
        positional[1..].join(" ")
    } else {
        START_FEN.to_string()
    };
    let chess960 = opts.chess960
        || fen.split_whitespace().nth(2).is_some_and(|c| {
            c.chars()
                .any(|ch| matches!(ch.to_ascii_lowercase(), 'a'..='h'))
        });
    let pos = Position::from_fen(&fen, chess960).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let results = divide(&pos, depth, opts.threads);
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
