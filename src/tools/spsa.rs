//! `guoxiang spsa`: tunes the search parameters ([`crate::search::params`]) by
//! measurement. Simultaneous perturbation stochastic approximation: each
//! iteration nudges every chosen parameter up or down at random, plays one
//! game pair (an opening, each side once) between the two settings, and moves
//! every parameter towards the setting that scored better. All games are
//! played in this process, one pair per thread at a time.
//!
//! ```text
//! guoxiang spsa --pairs 3000 --nodes 25000 --threads 2 --openings ../shared/books/8moves_v3.epd
//! guoxiang spsa --pairs 2000 --tc 2+0.02 --params lmr_base,lmr_divisor,nmp_base --log spsa.log
//! ```
//!
//! Options (defaults in brackets):
//!
//! * `--pairs N` [1000]: iterations, one game pair each.
//! * `--nodes N` [25000] or `--tc BASE+INC` (seconds): the limit of every move.
//!   Node-limited games do not depend on how busy the machine is.
//! * `--params a,b,..` [all]: the parameters to tune (see `src/search/params.rs`).
//! * `--start a=1,b=2` [the defaults]: where the tuned parameters start.
//! * `--r-end X` [0.02]: the learning rate at the end, relative to the step
//!   (fishtest's `r_end`); each pair moves a parameter by at most about
//!   `2 x r_end x step`.
//! * `--threads N` [1], `--hash MB` [8] (per player), `--seed S` [1],
//!   `--openings FILE` [start position + random plies], `--random-plies N`
//!   [2 with a book, 8 without], `--max-plies N` [300].
//! * `--log FILE`: one line per pair (iteration, result, every value), for
//!   plotting the run or resuming it with `--start`.
//! * `--write-params FILE`: writes the final values as the defaults of a
//!   `params.rs` (normally `src/search/params.rs`).
//!
//! The schedule follows fishtest and OpenBench: with `N` pairs, `A = N/10`,
//! `alpha = 0.602`, `gamma = 0.101`, iteration `k` perturbs a parameter by
//! `c_k = step x (N / k)^gamma` and moves it by
//! `a_k / c_k x result x direction`, where `a_k = r_end x step^2 x ((A + N) /
//! (A + k))^alpha` and `result` is the pair's score of the raised setting
//! minus that of the lowered one (-2 to 2). Games are adjudicated: a win
//! once both sides' searches give one side more than 1000 cp for 4 plies in
//! a row, a draw after ply 80 once both give no more than 10 cp for 8 plies.

use crate::board::position::Position;
use crate::board::types::Color;
use crate::search::params::{SearchParams, Tunable, TUNABLES};
use crate::search::time::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{search_sync, SearchRequest, SearchResult, ThreadData};
use crate::tools::selfplay::{
    load_openings, pick_opening, rules_result, white_score, win_for, Adjudication, Adjudicator,
    Outcome, Rng,
};
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;

/// The adjudication of the module documentation. "Both sides' searches
/// agree for N plies in a row" is N + 1 scores in a row: each ply's and the
/// one before it.
const ADJUDICATION: Adjudication = Adjudication {
    win_score: 1000,
    win_plies: 4 + 1,
    draw_from: 80 - 1,
    draw_score: 10,
    draw_plies: 8 + 1,
};

/// How each move of a game is limited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveLimit {
    Nodes(u64),
    /// Base time and increment, in milliseconds.
    Clock {
        base_ms: u64,
        inc_ms: u64,
    },
}

/// Everything one `spsa` run needs.
#[derive(Clone, Debug)]
pub struct SpsaOptions {
    pub pairs: u64,
    pub limit: MoveLimit,
    /// The tuned parameters, and where each starts.
    pub tuned: Vec<(Tunable, f64)>,
    pub r_end: f64,
    pub threads: usize,
    pub hash_mb: usize,
    pub seed: u64,
    pub openings: Vec<String>,
    pub random_plies: usize,
    pub max_plies: usize,
}

/// A finished run: the final values and the games' totals.
#[derive(Clone, Debug, Default)]
pub struct SpsaOutcome {
    /// Final value of each tuned parameter, unrounded.
    pub values: Vec<f64>,
    pub pairs: u64,
    /// Wins, draws and losses of the raised setting.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// The schedule's constants for one parameter.
struct Gains {
    c: f64,
    a: f64,
}

struct State {
    values: Vec<f64>,
    next_iteration: u64,
    outcome: SpsaOutcome,
}

/// One side of a game: its settings and tables.
struct Player {
    params: SearchParams,
    tt: TranspositionTable,
    data: Vec<ThreadData>,
}

impl Player {
    fn new(params: SearchParams, hash_mb: usize) -> Result<Player, String> {
        Ok(Player {
            params,
            tt: TranspositionTable::new(hash_mb)?,
            data: Vec::new(),
        })
    }

    fn reset(&mut self, params: SearchParams) {
        self.params = params;
        self.tt.clear();
        self.data.clear();
    }
}

/// The parameters with the tuned ones set to `values` (rounded).
fn params_from(tuned: &[(Tunable, f64)], values: &[f64]) -> SearchParams {
    let mut p = SearchParams::default();
    for ((t, _), v) in tuned.iter().zip(values) {
        p.set(t.name, v.round() as i32);
    }
    p
}

/// Plays one game from the opening; the result from White's point of view.
fn play_game(
    opts: &SpsaOptions,
    opening: &(Position, Vec<u64>),
    white: &mut Player,
    black: &mut Player,
) -> f64 {
    let (mut pos, mut history) = opening.clone();
    let mut clocks = match opts.limit {
        MoveLimit::Clock { base_ms, .. } => [base_ms as i64; 2],
        MoveLimit::Nodes(_) => [0; 2],
    };
    let mut adjudicator = Adjudicator::new(ADJUDICATION);
    for ply in 0..opts.max_plies {
        if let Some(result) = rules_result(&pos, &history) {
            return result;
        }
        let stm = pos.side_to_move();
        let player = if stm == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let limits = match opts.limit {
            MoveLimit::Nodes(n) => Limits {
                nodes: Some(n),
                ..Limits::default()
            },
            MoveLimit::Clock { inc_ms, .. } => Limits {
                wtime: Some(clocks[0]),
                btime: Some(clocks[1]),
                winc: Some(inc_ms as i64),
                binc: Some(inc_ms as i64),
                ..Limits::default()
            },
        };
        let started = Instant::now();
        let mut request = SearchRequest::new(pos, limits);
        request.history = history.clone();
        request.params = player.params;
        let SearchResult { best, score, .. } = search_sync(&request, &player.tt, &mut player.data);
        if let MoveLimit::Clock { inc_ms, .. } = opts.limit {
            let clock = &mut clocks[stm.index()];
            *clock -= started.elapsed().as_millis() as i64;
            if *clock < 0 {
                return win_for(!stm);
            }
            *clock += inc_ms as i64;
        }
        let Some(best) = best else {
            return 0.5;
        };
        if let Some(result) = adjudicator.update(ply, white_score(stm, score)) {
            return result;
        }
        history.push(pos.key());
        pos.make_move(best);
    }
    0.5
}

/// Runs the tuning; `progress` sees the state after every pair.
pub fn run(
    opts: &SpsaOptions,
    log: &mut (dyn Write + Send),
    progress: &(dyn Fn(&SpsaOutcome) + Sync),
) -> Result<SpsaOutcome, String> {
    let n = opts.pairs.max(1) as f64;
    let big_a = n / 10.0;
    let gains: Vec<Gains> = opts
        .tuned
        .iter()
        .map(|(t, _)| {
            let c_end = t.step as f64;
            Gains {
                c: c_end * n.powf(GAMMA),
                a: opts.r_end * c_end * c_end * (big_a + n).powf(ALPHA),
            }
        })
        .collect();
    let state = Mutex::new(State {
        values: opts.tuned.iter().map(|(_, v)| *v).collect(),
        next_iteration: 1,
        outcome: SpsaOutcome::default(),
    });
    let log = Mutex::new(log);
    let mut failure: Option<String> = None;

    std::thread::scope(|s| {
        let mut workers = Vec::new();
        for thread in 0..opts.threads.max(1) {
            let (state, log, gains) = (&state, &log, &gains);
            let worker = std::thread::Builder::new()
                .name(format!("spsa {thread}"))
                .stack_size(16 << 20)
                .spawn_scoped(s, move || -> Result<(), String> {
                    let defaults = SearchParams::default();
                    let mut plus = Player::new(defaults, opts.hash_mb)?;
                    let mut minus = Player::new(defaults, opts.hash_mb)?;
                    loop {
                        // Draw this iteration's perturbation under the lock.
                        let (k, directions, c_k, up, down) = {
                            let mut st = state.lock().map_err(|_| "a worker panicked")?;
                            let k = st.next_iteration;
                            if k > opts.pairs {
                                return Ok(());
                            }
                            st.next_iteration += 1;
                            let mut rng = Rng(opts.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                            rng.next();
                            let directions: Vec<f64> = gains
                                .iter()
                                .map(|_| if rng.next() & 1 == 0 { 1.0 } else { -1.0 })
                                .collect();
                            let c_k: Vec<f64> =
                                gains.iter().map(|g| g.c / (k as f64).powf(GAMMA)).collect();
                            let shifted = |sign: f64| -> Vec<f64> {
                                st.values
                                    .iter()
                                    .zip(&directions)
                                    .zip(&c_k)
                                    .map(|((v, d), c)| v + sign * d * c)
                                    .collect()
                            };
                            let (up, down) = (shifted(1.0), shifted(-1.0));
                            (k, directions, c_k, up, down)
                        };

                        let mut rng = Rng(opts.seed.rotate_left(17) ^ k);
                        rng.next();
                        let opening = pick_opening(
                            &opts.openings,
                            opts.random_plies,
                            &mut rng,
                            usize::MAX,
                            |_, _| true,
                        );
                        let (p_up, p_down) = (
                            params_from(&opts.tuned, &up),
                            params_from(&opts.tuned, &down),
                        );
                        plus.reset(p_up);
                        minus.reset(p_down);
                        let first = play_game(opts, &opening, &mut plus, &mut minus);
                        plus.reset(p_up);
                        minus.reset(p_down);
                        let second = 1.0 - play_game(opts, &opening, &mut minus, &mut plus);
                        // The raised setting's points minus the lowered one's, -2..2.
                        let result = (first + second) * 2.0 - 2.0;

                        let mut st = state.lock().map_err(|_| "a worker panicked")?;
                        for (i, g) in gains.iter().enumerate() {
                            let a_k = g.a / (big_a + k as f64).powf(ALPHA);
                            let t = &opts.tuned[i].0;
                            let moved = st.values[i] + a_k / c_k[i] * result * directions[i];
                            st.values[i] = moved.clamp(t.min as f64, t.max as f64);
                        }
                        for score in [first, second] {
                            match Outcome::of(score) {
                                Outcome::Win => st.outcome.wins += 1,
                                Outcome::Loss => st.outcome.losses += 1,
                                Outcome::Draw => st.outcome.draws += 1,
                            }
                        }
                        st.outcome.pairs += 1;
                        st.outcome.values = st.values.clone();
                        progress(&st.outcome);
                        let line: Vec<String> =
                            st.values.iter().map(|v| format!("{v:.3}")).collect();
                        if let Ok(mut log) = log.lock() {
                            writeln!(log, "{k} {result} {}", line.join(" "))
                                .map_err(|e| format!("cannot write the log: {e}"))?;
                        }
                    }
                })
                .map_err(|e| format!("cannot start an spsa thread: {e}"));
            match worker {
                Ok(w) => workers.push(w),
                Err(e) => failure = Some(e),
            }
        }
        for w in workers {
            match w.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => failure = Some(e),
                Err(_) => failure = Some("an spsa thread panicked".into()),
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let st = state.into_inner().map_err(|_| "a worker panicked")?;
    let mut outcome = st.outcome;
    outcome.values = st.values;
    Ok(outcome)
}

/// Rewrites the defaults in the text of `src/search/params.rs`: in each line
/// `name = value, min..=max, step s;` of a tuned parameter, the value.
pub fn write_defaults(source: &str, values: &[(&str, i32)]) -> Result<String, String> {
    let mut out = String::with_capacity(source.len());
    let mut written = 0;
    for line in source.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let found = values.iter().find(|(name, _)| {
            trimmed
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(" = "))
        });
        match (found, trimmed.find(',')) {
            (Some((name, value)), Some(comma)) => {
                out.push_str(&format!("{indent}{name} = {value}{}", &trimmed[comma..]));
                written += 1;
            }
            _ => out.push_str(line),
        }
    }
    if written != values.len() {
        return Err(format!(
            "found {written} of the {} parameters in the source",
            values.len()
        ));
    }
    Ok(out)
}

/// The options of `guoxiang spsa` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct SpsaArgs {
    /// Iterations, one game pair each
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pairs: u64,
    /// Nodes searched per move (the later of --nodes and --tc counts)
    #[arg(
        long,
        value_name = "N",
        default_value_t = 25_000,
        overrides_with = "tc"
    )]
    nodes: u64,
    /// A clock instead of --nodes: base time and increment in seconds, e.g. 2+0.02
    #[arg(long, value_name = "BASE+INC", overrides_with = "nodes")]
    tc: Option<String>,
    /// The parameters to tune (see src/search/params.rs) [default: all]
    #[arg(long, value_name = "a,b,..")]
    params: Option<String>,
    /// Where tuned parameters start [default: their defaults]
    #[arg(long, value_name = "a=V,..")]
    start: Vec<String>,
    /// The learning rate at the end, relative to the step (above 0, below 1)
    #[arg(
        long,
        value_name = "X",
        default_value_t = 0.02,
        allow_negative_numbers = true
    )]
    r_end: f64,
    /// Game pairs played at once
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Transposition table per player, in MB (1 to 4096)
    #[arg(long = "hash", value_name = "MB", default_value_t = 8)]
    hash_mb: usize,
    /// The seed of the perturbations and openings
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// An EPD or FEN file, one position a line, for the openings [default: the start position]
    #[arg(long, value_name = "FILE")]
    openings: Option<String>,
    /// Random legal plies played after the opening position [default: 2 with
    /// --openings, 8 without]
    #[arg(long, value_name = "N")]
    random_plies: Option<usize>,
    /// A game that lasts this many plies is a draw
    #[arg(long, value_name = "N", default_value_t = 300)]
    max_plies: usize,
    /// One line per pair: iteration, result, every value
    #[arg(long, value_name = "FILE")]
    log: Option<String>,
    /// Writes the final values as the defaults of this copy of src/search/params.rs
    #[arg(long, value_name = "FILE")]
    write_params: Option<String>,
}

fn parse_tc(text: &str) -> Result<MoveLimit, String> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |s: &str| -> Result<u64, String> {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| (v * 1000.0) as u64)
            .ok_or_else(|| format!("--tc: '{text}' is not BASE+INC in seconds"))
    };
    Ok(MoveLimit::Clock {
        base_ms: seconds(base)?.max(1),
        inc_ms: seconds(inc)?,
    })
}

fn tunable(name: &str) -> Result<Tunable, String> {
    TUNABLES
        .iter()
        .find(|t| t.name == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = TUNABLES.iter().map(|t| t.name).collect();
            format!("no parameter '{name}'; there are: {}", names.join(", "))
        })
}

/// The `spsa` subcommand.
pub fn command(args: SpsaArgs) -> Result<(), String> {
    let limit = match &args.tc {
        Some(tc) => parse_tc(tc)?,
        None => MoveLimit::Nodes(args.nodes),
    };
    let tuned = match &args.params {
        Some(list) => list
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|name| tunable(name).map(|t| (t, t.default as f64)))
            .collect::<Result<_, _>>()?,
        None => TUNABLES.iter().map(|t| (*t, t.default as f64)).collect(),
    };
    let mut start: Vec<(String, f64)> = Vec::new();
    for item in args.start.iter().flat_map(|list| list.split(',')) {
        if item.is_empty() {
            continue;
        }
        let (name, value) = item
            .split_once('=')
            .and_then(|(n, v)| Some((n, v.parse::<f64>().ok()?)))
            .ok_or_else(|| format!("--start: '{item}' is not NAME=VALUE"))?;
        start.push((name.to_string(), value));
    }
    let openings = match &args.openings {
        Some(path) => load_openings(path)?.0,
        None => Vec::new(),
    };
    let mut opts = SpsaOptions {
        pairs: args.pairs,
        limit,
        tuned,
        r_end: args.r_end,
        threads: args.threads,
        hash_mb: args.hash_mb,
        seed: args.seed,
        openings,
        random_plies: 8,
        max_plies: args.max_plies,
    };
    let (random_plies, log_path, write_path) = (args.random_plies, args.log, args.write_params);
    for (name, value) in start {
        let entry = opts
            .tuned
            .iter_mut()
            .find(|(t, _)| t.name == name)
            .ok_or_else(|| format!("--start: '{name}' is not among the tuned parameters"))?;
        entry.1 = value.clamp(entry.0.min as f64, entry.0.max as f64);
    }
    opts.random_plies = random_plies.unwrap_or(if opts.openings.is_empty() { 8 } else { 2 });
    if opts.pairs == 0 || opts.threads == 0 || !(1..=4096).contains(&opts.hash_mb) {
        return Err("--pairs and --threads must be at least 1, --hash from 1 to 4096".into());
    }
    if !(opts.r_end > 0.0 && opts.r_end < 1.0) {
        return Err("--r-end must be between 0 and 1".into());
    }
    if matches!(opts.limit, MoveLimit::Nodes(0)) {
        return Err("--nodes must be at least 1".into());
    }

    let mut log: Box<dyn Write + Send> = match &log_path {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?,
        )),
        None => Box::new(std::io::sink()),
    };
    let names: Vec<&str> = opts.tuned.iter().map(|(t, _)| t.name).collect();
    writeln!(log, "# iteration result {}", names.join(" "))
        .map_err(|e| format!("cannot write the log: {e}"))?;
    let started = Instant::now();
    let report_every = (opts.pairs / 50).max(1);
    let tuned = &opts.tuned;
    let progress = move |o: &SpsaOutcome| {
        if o.pairs.is_multiple_of(report_every) {
            let values: Vec<String> = tuned
                .iter()
                .zip(&o.values)
                .map(|((t, _), v)| format!("{}={v:.1}", t.name))
                .collect();
            eprintln!(
                "pair {} ({:.0}s): +{} ={} -{}  {}",
                o.pairs,
                started.elapsed().as_secs_f64(),
                o.wins,
                o.draws,
                o.losses,
                values.join(" ")
            );
        }
    };
    let outcome = run(&opts, &mut log, &progress)?;
    log.flush()
        .map_err(|e| format!("cannot write the log: {e}"))?;
    let rounded: Vec<(&str, i32)> = opts
        .tuned
        .iter()
        .zip(&outcome.values)
        .map(|((t, _), v)| (t.name, v.round() as i32))
        .collect();
    println!(
        "{} pairs in {:.0?}: +{} ={} -{} (raised setting's games)",
        outcome.pairs,
        Duration::from_secs(started.elapsed().as_secs()),
        outcome.wins,
        outcome.draws,
        outcome.losses
    );
    for ((t, _), v) in opts.tuned.iter().zip(&outcome.values) {
        println!("{} = {:.2} (default {})", t.name, v, t.default);
    }
    if let Some(path) = write_path {
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let updated = write_defaults(&source, &rounded)?;
        std::fs::write(&path, updated).map_err(|e| format!("cannot write {path}: {e}"))?;
        println!("wrote the values into {path}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_defaults_changes_only_the_named_values() {
        let source = "search_params! {\n    /// doc\n    lmr_base = 75, 0..=200, step 10;\n    lmr_divisor = 225, 100..=400, step 15;\n}\n";
        let out = write_defaults(source, &[("lmr_base", 60)]).unwrap();
        assert!(
            out.contains("    lmr_base = 60, 0..=200, step 10;\n"),
            "{out}"
        );
        assert!(out.contains("lmr_divisor = 225, 100..=400, step 15;"));
        assert_eq!(out.lines().count(), source.lines().count());
        assert!(write_defaults(source, &[("missing", 1)]).is_err());
    }

    #[test]
    fn write_defaults_finds_every_tunable_in_params_rs() {
        let source = include_str!("../search/params.rs");
        let values: Vec<(&str, i32)> = TUNABLES.iter().map(|t| (t.name, t.default)).collect();
        assert_eq!(write_defaults(source, &values).unwrap(), source);
    }

    #[test]
    fn a_short_run_plays_its_pairs_and_stays_in_range() {
        let tuned: Vec<(Tunable, f64)> = ["lmr_base", "nmp_base"]
            .iter()
            .map(|n| {
                let t = tunable(n).unwrap();
                (t, t.default as f64)
            })
            .collect();
        let opts = SpsaOptions {
            pairs: 4,
            limit: MoveLimit::Nodes(300),
            tuned: tuned.clone(),
            r_end: 0.5,
            threads: 2,
            hash_mb: 1,
            seed: 7,
            openings: Vec::new(),
            random_plies: 8,
            max_plies: 60,
        };
        let mut log = Vec::new();
        let outcome = run(&opts, &mut log, &|_| {}).unwrap();
        assert_eq!(outcome.pairs, 4);
        assert_eq!(outcome.wins + outcome.draws + outcome.losses, 8);
        for ((t, _), v) in tuned.iter().zip(&outcome.values) {
            assert!(
                (t.min as f64..=t.max as f64).contains(v),
                "{} = {v}",
                t.name
            );
        }
        let text = String::from_utf8(log).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
    }

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: SpsaArgs,
    }

    #[test]
    fn bad_arguments_are_refused_with_a_reason() {
        use clap::Parser;
        let run = |args: &[&str]| match Cli::try_parse_from(
            std::iter::once("spsa").chain(args.iter().copied()),
        ) {
            Ok(cli) => command(cli.args).expect_err("refused"),
            Err(e) => e.to_string(),
        };
        assert!(run(&["--params", "nope"]).contains("no parameter 'nope'"));
        assert!(run(&["--r-end", "2"]).contains("--r-end"));
        assert!(run(&["--pairs", "0"]).contains("--pairs"));
        assert!(run(&["--nodes", "0"]).contains("--nodes"));
        assert!(run(&["--params", "lmr_base", "--start", "nmp_base=2"]).contains("nmp_base"));
        assert!(run(&["--start", "lmr_base"]).contains("NAME=VALUE"));
        assert!(run(&["--tc", "x+y"]).contains("--tc"));
        assert!(run(&["--openings", "/no/such/file"]).contains("cannot read"));
        assert!(run(&["--frobnicate"]).contains("unexpected argument '--frobnicate'"));
        assert!(run(&["--pairs", "x"]).contains("--pairs"));
    }

    #[test]
    fn tc_parses_seconds() {
        assert_eq!(
            parse_tc("2+0.02").unwrap(),
            MoveLimit::Clock {
                base_ms: 2000,
                inc_ms: 20
            }
        );
        assert!(parse_tc("fast").is_err());
        assert!(parse_tc("-1+0").is_err());
    }
}
