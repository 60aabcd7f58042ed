//! `guoxiang datagen`: self-play games that produce training positions for
//! the evaluation tuner (`guoxiang tune`, see [`crate::tools::tune`]). Only the
//! engine's own games are used: no positions, games or evaluations from any
//! other engine.
//!
//! ```text
//! guoxiang datagen --games 2000 --nodes 5000 --threads 2 --seed 1 --out selfplay.txt
//! guoxiang datagen --games 2000 --openings book.epd --random-plies 4 --out selfplay.txt
//! ```
//!
//! Options (defaults in brackets):
//!
//! * `--games N` [100]: games to play.
//! * `--nodes N` [5000]: nodes searched per move (one search thread).
//! * `--soft-nodes N` [none]: no new iteration after N nodes.
//! * `--discard-nodes N` [none]: the plies whose positions training drops
//!   whatever the search finds (the first 8 after the opening, positions in
//!   check) are searched with N nodes only.
//! * `--tactical-nodes N` [none]: no new iteration after N nodes while the
//!   best move is a capture or a promotion (training drops the position if
//!   it is played, so its search only has to find a sound move).
//! * `--threads N` [1]: games played at once; every thread has its own
//!   transposition table (`--hash MB` [4]) and search tables.
//! * `--seed S` [1]: the seed of the random openings.
//! * `--out FILE` [selfplay.txt]: where the positions go (appended to with
//!   `--append`, otherwise overwritten).
//! * `--openings FILE` [none]: an EPD or FEN file, one position a line; each
//!   game starts from a random line of it, then plays `--random-plies`
//!   random legal plies [4]. Without a file, games start from the start
//!   position and `--random-plies` defaults to 8.
//! * `--max-plies N` [400]: a game that lasts this long is a draw.
//! * `--win-score CP` [2000] and `--win-plies N` [4]: a game is adjudicated
//!   as won once the search gives one side more than CP for N plies in a row.
//! * `--max-opening-score CP` [400]: openings the search already scores
//!   beyond CP are drawn again.
//! * `--eval-file FILE` [the embedded network]: play with this network
//!   instead, as the UCI option `EvalFile` does, so that a candidate
//!   network's own games can feed the next generation.
//!
//! Games end on mate, stalemate, threefold repetition, the 50-move rule, a
//! dead position, the win adjudication above, or after `--max-plies`.
//!
//! Written positions are quiet: not in check, the move the search chose is
//! not a capture or a promotion, no mate score, and not among the first 8
//! plies after the opening. Each is one line: the FEN, the game's result and
//! the search's score in centipawns, both from White's point of view:
//!
//! ```text
//! r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4 | 0.5 | 23
//! ```
//!
//! Every game depends only on the seed and its number (the tables are
//! cleared before each game, and a node-limited one-thread search is
//! deterministic), and games are written in order of their number, so the
//! output is the same for a given seed whatever `--threads` is.

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::eval::network::Network;
use crate::eval::score::MATE_BOUND;
use crate::eval::EvalConfig;
use crate::search::time::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{search_sync, SearchRequest, SearchResult, ThreadData};
use crate::tools::pool::{
    chunk_path, md5_hex, meta_path, pool_dir, remove_partial_files, write_atomically, ChunkMeta,
};
use crate::tools::selfplay::{
    load_openings, pick_opening, rules_result, white_score, Adjudication, Adjudicator, Outcome, Rng,
};
use crate::tools::viriformat::{clamp_score, GameRecord, Wdl};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Everything one `datagen` run needs.
#[derive(Clone, Debug)]
pub struct DatagenOptions {
    pub games: u64,
    pub nodes: u64,
    /// No new iteration after this many nodes (see [`NodeBudget`]).
    pub soft_nodes: Option<u64>,
    /// Nodes of the plies whose positions training drops whatever the
    /// search says (the first `skip_plies`, and positions in check); `None`:
    /// the full budget.
    pub discard_nodes: Option<u64>,
    /// No new iteration after this many nodes while the best move is a
    /// capture or a promotion (see [`NodeBudget`]).
    pub tactical_nodes: Option<u64>,
    pub threads: usize,
    pub seed: u64,
    /// Opening positions (FENs); empty: the start position.
    pub openings: Vec<String>,
    /// Random legal plies played after the opening position.
    pub random_plies: usize,
    pub hash_mb: usize,
    pub max_plies: usize,
    /// Plies after the opening whose positions are not written.
    pub skip_plies: usize,
    pub win_score: i32,
    pub win_plies: usize,
    pub max_opening_score: i32,
    /// The evaluation both sides play with.
    pub eval: EvalConfig,
}

impl Default for DatagenOptions {
    fn default() -> DatagenOptions {
        DatagenOptions {
            games: 100,
            nodes: 5000,
            soft_nodes: None,
            discard_nodes: None,
            tactical_nodes: None,
            threads: 1,
            seed: 1,
            openings: Vec::new(),
            random_plies: 8,
            hash_mb: 4,
            max_plies: 400,
            skip_plies: 8,
            win_score: 2000,
            win_plies: 4,
            max_opening_score: 400,
            eval: EvalConfig::default(),
        }
    }
}

impl DatagenOptions {
    /// The budget of every ply's search.
    fn ply_budget(&self) -> PlyBudget {
        PlyBudget {
            full: NodeBudget {
                hard: self.nodes,
                soft: self.soft_nodes,
                tactical: self.tactical_nodes,
            },
            discard: self.discard_nodes,
        }
    }

    /// The budget of the search at `ply` (counted from the opening) of `pos`.
    fn budget_at(&self, pos: &Position, ply: usize) -> NodeBudget {
        self.ply_budget().at(pos, ply, self.skip_plies)
    }
}

/// The budget of a self-play search by ply: `full`, or `discard` nodes
/// where training drops the position whatever the search finds (`None`:
/// `full` there too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyBudget {
    pub full: NodeBudget,
    pub discard: Option<u64>,
}

impl PlyBudget {
    /// The budget at `ply` after the opening of `pos`: the discard one (at
    /// most `full`'s nodes) in the first `skip_plies` and in check, where a
    /// search only has to pick a sound move.
    pub fn at(&self, pos: &Position, ply: usize, skip_plies: usize) -> NodeBudget {
        match self.discard {
            Some(nodes) if ply < skip_plies || pos.in_check() => NodeBudget {
                hard: nodes.min(self.full.hard),
                soft: None,
                tactical: None,
            },
            _ => self.full,
        }
    }
}

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenStats {
    pub games: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    /// Plies played, openings excluded.
    pub plies: u64,
    /// The completed depths of the searches of those plies, summed.
    pub depths: u64,
    /// Nodes of those searches.
    pub nodes: u64,
}

/// One finished game.
struct Game {
    /// Every ply with the search's score, for the pool's format.
    record: GameRecord,
    /// The quiet positions among them (see the module documentation) as FENs,
    /// each with the search's score in centipawns from White's point of view.
    fens: Vec<(String, i32)>,
    /// 1.0, 0.5 or 0.0, White's point of view.
    result: f64,
    plies: u64,
    /// The completed depths of the game's searches, summed.
    depths: u64,
    /// Nodes of the game's searches (the opening's check aside).
    nodes: u64,
}

/// How `generate` writes the games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// `FEN | result | score` lines of the quiet positions.
    Text,
    /// Whole games in viriformat ([`crate::tools::viriformat`]).
    Viriformat,
}

/// A one-thread search limited to `nodes`: the move and its score (side to
/// move's view; 0 if not even depth 1 was finished).
pub fn search_nodes(
    pos: &Position,
    history: &[u64],
    nodes: NodeBudget,
    eval: &EvalConfig,
    tt: &TranspositionTable,
    data: &mut Vec<ThreadData>,
) -> SearchResult {
    let limits = Limits {
        nodes: Some(nodes.hard.max(1)),
        soft_nodes: nodes.soft,
        tactical_soft_nodes: nodes.tactical,
        ..Limits::default()
    };
    let mut request = SearchRequest::new(*pos, limits);
    request.history = history.to_vec();
    request.eval = eval.clone();
    search_sync(&request, tt, data)
}

/// The nodes of one self-play search: it stops at `hard`, and starts no new
/// iteration after `soft`, nor after `tactical` while its best move is a
/// capture or a promotion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeBudget {
    pub hard: u64,
    pub soft: Option<u64>,
    pub tactical: Option<u64>,
}

impl NodeBudget {
    /// `hard` nodes, no soft limit.
    pub fn hard(hard: u64) -> NodeBudget {
        NodeBudget {
            hard,
            soft: None,
            tactical: None,
        }
    }
}

/// Plays game number `index`. The tables are cleared first, so the game
/// depends only on the options and `index`.
fn play_game(
    opts: &DatagenOptions,
    index: u64,
    tt: &TranspositionTable,
    data: &mut Vec<ThreadData>,
) -> Game {
    tt.clear();
    data.clear();
    data.push(ThreadData::default());
    let mut rng = Rng(opts.seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    rng.next();

    // Opening: drawn again if it is clearly lost for one side.
    let (mut pos, mut history) = pick_opening(
        &opts.openings,
        opts.random_plies,
        &mut rng,
        100,
        |pos, history| {
            opts.max_opening_score <= 0
                || search_nodes(pos, history, opts.ply_budget().full, &opts.eval, tt, data)
                    .score
                    .abs()
                    <= opts.max_opening_score
        },
    );

    let start = pos;
    let mut fens = Vec::new();
    let mut moves = Vec::new();
    let mut depths = 0u64;
    let mut nodes = 0u64;
    let mut ply = 0usize;
    let mut adjudicator = Adjudicator::new(Adjudication {
        win_score: opts.win_score,
        win_plies: opts.win_plies,
        draw_from: 0,
        draw_score: 0,
        draw_plies: 0,
    });
    let result = loop {
        let stm = pos.side_to_move();
        if let Some(result) = rules_result(&pos, &history) {
            break result;
        }
        if ply >= opts.max_plies {
            break 0.5;
        }
        let budget = opts.budget_at(&pos, ply);
        let searched = search_nodes(&pos, &history, budget, &opts.eval, tt, data);
        let (best, score) = (searched.best, searched.score);
        depths += u64::try_from(searched.depth).unwrap_or(0);
        nodes += searched.nodes;
        let Some(best) = best else {
            break 0.5;
        };
        let white_score = white_score(stm, score);
        if let Some(result) = adjudicator.update(ply, white_score) {
            break result;
        }
        if ply >= opts.skip_plies && is_quiet(&pos, best, white_score) {
            fens.push((pos.to_fen(), white_score));
        }
        moves.push((best, clamp_score(white_score, score.abs() >= MATE_BOUND)));
        history.push(pos.key());
        pos.make_move(best);
        ply += 1;
    };
    Game {
        record: GameRecord {
            start,
            start_score: 0,
            wdl: Wdl::from_white_result(result),
            moves,
        },
        fens,
        result,
        plies: ply as u64,
        depths,
        nodes,
    }
}

/// A position worth training on: not in check, the search's move neither a
/// capture nor a promotion (the static evaluation cannot see what it wins),
/// and no mate score. The pool's reader applies the same test.
pub fn is_quiet(pos: &Position, best: Move, score: i32) -> bool {
    !pos.in_check() && !pos.is_noisy(best) && score.abs() < MATE_BOUND
}

/// Plays `opts.games` games on `opts.threads` threads and writes them to
/// `out` in game order, in `format`. `progress` is called after every game.
pub fn generate(
    opts: &DatagenOptions,
    format: DataFormat,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&DatagenStats),
) -> Result<DatagenStats, String> {
    let threads = opts.threads.max(1);
    let mut tables = Vec::with_capacity(threads);
    for _ in 0..threads {
        tables.push(TranspositionTable::new(opts.hash_mb.max(1))?);
    }
    let next = AtomicU64::new(0);
    let (tx, rx) = crossbeam_channel::unbounded::<(u64, Game)>();
    let mut stats = DatagenStats::default();
    let mut write_error: Option<String> = None;

    std::thread::scope(|s| -> Result<(), String> {
        for (i, tt) in tables.iter().enumerate() {
            let tx = tx.clone();
            let next = &next;
            std::thread::Builder::new()
                .name(format!("datagen {i}"))
                .stack_size(16 << 20)
                .spawn_scoped(s, move || {
                    let mut data = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= opts.games {
                            break;
                        }
                        let game = play_game(opts, index, tt, &mut data);
                        if tx.send((index, game)).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| format!("cannot start a datagen thread: {e}"))?;
        }
        drop(tx);

        // Write finished games in order of their number.
        let mut pending: BTreeMap<u64, Game> = BTreeMap::new();
        let mut next_to_write = 0u64;
        for (index, game) in rx.iter() {
            pending.insert(index, game);
            while let Some(game) = pending.remove(&next_to_write) {
                next_to_write += 1;
                let result = match Outcome::of(game.result) {
                    Outcome::Win => {
                        stats.white_wins += 1;
                        "1.0"
                    }
                    Outcome::Loss => {
                        stats.black_wins += 1;
                        "0.0"
                    }
                    Outcome::Draw => {
                        stats.draws += 1;
                        "0.5"
                    }
                };
                if write_error.is_none() {
                    let written = match format {
                        DataFormat::Text => game.fens.iter().try_for_each(|(fen, score)| {
                            writeln!(out, "{fen} | {result} | {score}")
                        }),
                        DataFormat::Viriformat => {
                            let mut bytes = Vec::with_capacity(40 + 4 * game.record.moves.len());
                            game.record.write(&mut bytes);
                            out.write_all(&bytes)
                        }
                    };
                    if let Err(e) = written {
                        write_error = Some(e.to_string());
                        // Stop handing out games; the running ones finish.
                        next.store(opts.games, Ordering::Relaxed);
                    }
                }
                stats.games += 1;
                stats.positions += game.fens.len() as u64;
                stats.plies += game.plies;
                stats.depths += game.depths;
                stats.nodes += game.nodes;
                progress(&stats);
            }
        }
        Ok(())
    })?;
    if let Some(e) = write_error {
        return Err(format!("cannot write the positions: {e}"));
    }
    out.flush()
        .map_err(|e| format!("cannot write the positions: {e}"))?;
    Ok(stats)
}

/// The options of `guoxiang datagen` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct DatagenArgs {
    /// Games to play
    #[arg(long, value_name = "N", default_value_t = DatagenOptions::default().games)]
    games: u64,
    /// Nodes searched per move (one search thread)
    #[arg(long, value_name = "N", default_value_t = DatagenOptions::default().nodes)]
    nodes: u64,
    /// No new iteration of a move's search is started after N nodes (a
    /// soft limit under --nodes) [default: none]
    #[arg(long, value_name = "N")]
    soft_nodes: Option<u64>,
    /// Nodes of the plies training drops whatever the search finds (the
    /// first 8 after the opening, positions in check) [default: --nodes]
    #[arg(long, value_name = "N")]
    discard_nodes: Option<u64>,
    /// No new iteration after N nodes while the best move is a capture or a
    /// promotion, whose position training drops [default: none]
    #[arg(long, value_name = "N")]
    tactical_nodes: Option<u64>,
    /// Games played at once, each thread with its own tables (1 to 256)
    #[arg(long, value_name = "N", default_value_t = DatagenOptions::default().threads)]
    threads: usize,
    /// The seed of the random openings
    #[arg(long, value_name = "S", default_value_t = DatagenOptions::default().seed)]
    seed: u64,
    /// Where the positions go (overwritten unless --append): viriformat
    /// games if it ends in `.vf`, else `FEN | result | score` lines
    /// [default: selfplay.txt, or the pool if GUOXIANG_POOL is set]
    #[arg(long, value_name = "FILE", conflicts_with = "pool")]
    out: Option<String>,
    /// Append to --out instead of overwriting it
    #[arg(long)]
    append: bool,
    /// An EPD or FEN file, one position a line; each game starts from a random
    /// line of it [default: the start position]
    #[arg(long, value_name = "FILE")]
    openings: Option<String>,
    /// Random legal plies played after the opening position [default: 4 with
    /// --openings, 8 without]
    #[arg(long, value_name = "N")]
    random_plies: Option<usize>,
    /// Transposition table per thread, in MB (1 to 4096)
    #[arg(long = "hash", value_name = "MB", default_value_t = DatagenOptions::default().hash_mb)]
    hash_mb: usize,
    /// A game that lasts this many plies is a draw
    #[arg(long, value_name = "N", default_value_t = DatagenOptions::default().max_plies)]
    max_plies: usize,
    /// A game is won once the search gives one side more than CP centipawns
    /// for --win-plies plies in a row
    #[arg(
        long,
        value_name = "CP",
        default_value_t = DatagenOptions::default().win_score,
        allow_negative_numbers = true
    )]
    win_score: i32,
    /// See --win-score (at least 1)
    #[arg(long, value_name = "N", default_value_t = DatagenOptions::default().win_plies)]
    win_plies: usize,
    /// Openings the search already scores beyond CP centipawns are drawn
    /// again (0: never)
    #[arg(
        long,
        value_name = "CP",
        default_value_t = DatagenOptions::default().max_opening_score,
        allow_negative_numbers = true
    )]
    max_opening_score: i32,
    /// Play with this network instead of the embedded one (as UCI `EvalFile`)
    #[arg(long, value_name = "FILE")]
    eval_file: Option<String>,
    /// Self-play into this pool folder, chunk after chunk from --seed upward,
    /// going on where an earlier run stopped [default: $GUOXIANG_POOL]
    #[arg(long, value_name = "DIR")]
    pool: Option<String>,
    /// Games of one pool chunk
    #[arg(long, value_name = "N", default_value_t = 2000)]
    chunk_games: u64,
    /// Pool chunks to write before stopping (0: until stopped)
    #[arg(long, value_name = "N", default_value_t = 0)]
    chunks: u64,
}

/// The `datagen` subcommand.
pub fn command(args: DatagenArgs) -> Result<(), String> {
    let DatagenArgs {
        games,
        nodes,
        soft_nodes,
        discard_nodes,
        tactical_nodes,
        threads,
        seed,
        out: out_path,
        append,
        openings: book,
        random_plies,
        hash_mb,
        max_plies,
        win_score,
        win_plies,
        max_opening_score,
        eval_file,
        pool,
        chunk_games,
        chunks,
    } = args;
    let mut opts = DatagenOptions {
        games,
        nodes,
        soft_nodes,
        discard_nodes,
        tactical_nodes,
        threads,
        seed,
        hash_mb,
        max_plies,
        win_score,
        win_plies,
        max_opening_score,
        ..DatagenOptions::default()
    };
    if !(1..=256).contains(&opts.threads) {
        return Err("--threads must be from 1 to 256".into());
    }
    if !(1..=4096).contains(&opts.hash_mb) {
        return Err("--hash must be from 1 to 4096".into());
    }
    if opts.nodes == 0
        || opts.win_plies == 0
        || chunk_games == 0
        || discard_nodes == Some(0)
        || tactical_nodes == Some(0)
    {
        return Err(
            "--nodes, --discard-nodes, --tactical-nodes, --win-plies and --chunk-games must be at least 1"
                .into(),
        );
    }
    if let Some(path) = &book {
        let (fens, bad) = load_openings(path)?;
        eprintln!(
            "{} openings from {path}{}",
            fens.len(),
            if bad > 0 {
                format!(" ({bad} lines skipped)")
            } else {
                String::new()
            }
        );
        opts.openings = fens;
    }
    opts.random_plies = random_plies.unwrap_or(if opts.openings.is_empty() { 8 } else { 4 });
    if let Some(path) = &eval_file {
        opts.eval.network = Network::load(std::path::Path::new(path))?;
        eprintln!("playing with the network {path}");
    }
    // The pool: the flag, or the environment variable unless a file is named.
    let pool = match (pool, &out_path) {
        (Some(dir), _) => Some(std::path::PathBuf::from(dir)),
        (None, None) => pool_dir(None),
        (None, Some(_)) => None,
    };
    if let Some(dir) = pool {
        let settings = ChunkSettings {
            book,
            eval_file,
            chunk_games,
            chunks,
        };
        return fill_pool(&dir, opts, &settings);
    }

    let out_path = out_path.unwrap_or_else(|| "selfplay.txt".to_string());
    let format = format_of(&out_path);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&out_path)
        .map_err(|e| format!("cannot open '{out_path}': {e}"))?;
    let mut out = std::io::BufWriter::new(file);
    eprintln!(
        "datagen: {} games, {} nodes per move, {} thread(s), seed {}, into {out_path}",
        opts.games, opts.nodes, opts.threads, opts.seed
    );
    let start = Instant::now();
    let stats = generate(&opts, format, &mut out, &mut progress_printer(opts.games))?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} games ({} plies, mean depth {:.2}, {:.0} nodes a ply, +{} ={} -{} for White), {} positions written to {out_path} in {:.1} s ({:.2} games/s)",
        stats.games,
        stats.plies,
        stats.depths as f64 / stats.plies.max(1) as f64,
        stats.nodes as f64 / stats.plies.max(1) as f64,
        stats.white_wins,
        stats.draws,
        stats.black_wins,
        stats.positions,
        secs,
        stats.games as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// The file format an output path asks for: viriformat for `.vf`, else text.
pub fn format_of(path: &str) -> DataFormat {
    if path.ends_with(".vf") {
        DataFormat::Viriformat
    } else {
        DataFormat::Text
    }
}

/// A progress line every five seconds, and one at the end of `total` games.
fn progress_printer(total: u64) -> impl FnMut(&DatagenStats) {
    let start = Instant::now();
    let mut last_report = Instant::now();
    move |s: &DatagenStats| {
        if last_report.elapsed().as_secs_f64() >= 5.0 || s.games == total {
            last_report = Instant::now();
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            eprintln!(
                "games {}/{total}  positions {}  {:.2} games/s  {:.0} positions/s  +{} ={} -{}",
                s.games,
                s.positions,
                s.games as f64 / secs,
                s.positions as f64 / secs,
                s.white_wins,
                s.draws,
                s.black_wins
            );
        }
    }
}

/// The engine's version, and the commit it was built from when the build
/// said so (`GUOXIANG_COMMIT=$(git rev-parse --short HEAD) cargo build`, as
/// `.ci/pool.sh` does), so that a chunk's manifest row names its binary.
fn engine_version() -> String {
    match option_env!("GUOXIANG_COMMIT") {
        Some(commit) => format!("{} {commit}", env!("CARGO_PKG_VERSION")),
        None => env!("CARGO_PKG_VERSION").to_string(),
    }
}

/// What a pool run adds to the options of one chunk.
struct ChunkSettings {
    book: Option<String>,
    eval_file: Option<String>,
    chunk_games: u64,
    /// Chunks to write before stopping; 0: until stopped.
    chunks: u64,
}

/// The `datagen` command that writes the same bytes as chunk `opts.seed`.
fn chunk_command(opts: &DatagenOptions, settings: &ChunkSettings) -> String {
    let mut command = format!(
        "guoxiang datagen --seed {} --games {} --nodes {} --hash {} --max-plies {} \
         --win-score {} --win-plies {} --max-opening-score {} --random-plies {}",
        opts.seed,
        opts.games,
        opts.nodes,
        opts.hash_mb,
        opts.max_plies,
        opts.win_score,
        opts.win_plies,
        opts.max_opening_score,
        opts.random_plies
    );
    if let Some(soft) = opts.soft_nodes {
        command += &format!(" --soft-nodes {soft}");
    }
    if let Some(discard) = opts.discard_nodes {
        command += &format!(" --discard-nodes {discard}");
    }
    if let Some(tactical) = opts.tactical_nodes {
        command += &format!(" --tactical-nodes {tactical}");
    }
    if let Some(book) = &settings.book {
        command += &format!(" --openings {book}");
    }
    if let Some(net) = &settings.eval_file {
        command += &format!(" --eval-file {net}");
    }
    command + &format!(" --out seed-{}.vf", opts.seed)
}

/// Self-play into the pool, chunk after chunk, from seed `opts.seed` upward,
/// skipping the chunks the pool already has: stopped at any moment, it goes
/// on where it stopped when started again with the same options.
fn fill_pool(
    dir: &std::path::Path,
    mut opts: DatagenOptions,
    settings: &ChunkSettings,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    remove_partial_files(dir);
    let network_md5 = md5_hex(&opts.eval.network.to_bytes());
    opts.games = settings.chunk_games;
    eprintln!(
        "datagen into the pool {}: chunks of {} games from seed {}, {} nodes a move, {} thread(s), network {network_md5}",
        dir.display(),
        opts.games,
        opts.seed,
        opts.nodes,
        opts.threads
    );
    let mut written = 0;
    let mut seed = opts.seed;
    while settings.chunks == 0 || written < settings.chunks {
        if chunk_path(dir, seed).exists() {
            seed += 1;
            continue;
        }
        opts.seed = seed;
        let start = Instant::now();
        let mut bytes = Vec::new();
        let stats = generate(
            &opts,
            DataFormat::Viriformat,
            &mut bytes,
            &mut progress_printer(opts.games),
        )?;
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let meta = ChunkMeta {
            seed,
            command: chunk_command(&opts, settings),
            games: stats.games,
            plies: stats.plies,
            positions: stats.positions,
            nodes: opts.nodes,
            network_md5: network_md5.clone(),
            positions_per_second: (stats.positions as f64 / secs).round() as u64,
            threads: opts.threads,
            version: engine_version(),
        };
        write_atomically(&meta_path(dir, seed), meta.to_text().as_bytes())?;
        write_atomically(&chunk_path(dir, seed), &bytes)?;
        println!(
            "chunk {seed}: {} games, {} plies, {} quiet positions, {} bytes, {:.0} s, {} positions/s",
            stats.games,
            stats.plies,
            stats.positions,
            bytes.len(),
            secs,
            meta.positions_per_second
        );
        written += 1;
        seed += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::movegen::legal_moves;
    use crate::tools::selfplay::read_openings;

    fn run(opts: &DatagenOptions) -> (String, DatagenStats) {
        let mut out = Vec::new();
        let stats = generate(opts, DataFormat::Text, &mut out, &mut |_| {}).expect("datagen runs");
        (String::from_utf8(out).expect("utf-8"), stats)
    }

    fn tiny() -> DatagenOptions {
        DatagenOptions {
            games: 2,
            nodes: 300,
            hash_mb: 1,
            max_plies: 120,
            ..DatagenOptions::default()
        }
    }

    #[test]
    fn writes_well_formed_quiet_positions() {
        let (text, stats) = run(&tiny());
        assert_eq!(stats.games, 2);
        assert_eq!(stats.white_wins + stats.draws + stats.black_wins, 2);
        assert!(stats.positions > 0, "no positions");
        assert_eq!(text.lines().count() as u64, stats.positions);
        for line in text.lines() {
            let fields: Vec<&str> = line.split(" | ").collect();
            let [fen, result, score] = fields[..] else {
                panic!("not FEN | result | score: {line}");
            };
            assert!(["1.0", "0.5", "0.0"].contains(&result), "{line}");
            let score: i32 = score.parse().expect("score in centipawns");
            assert!(score.abs() < MATE_BOUND, "{line}");
            let pos = Position::from_fen(fen, false).expect("valid FEN");
            assert_eq!(pos.to_fen(), fen);
            assert!(!pos.in_check(), "{line}");
            assert!(!legal_moves(&pos).is_empty(), "{line}");
        }
    }

    #[test]
    fn a_soft_node_limit_starts_no_iteration_past_it() {
        let tt = TranspositionTable::new(1).expect("a table");
        let mut data = Vec::new();
        let pos = Position::startpos();
        let mut search = |soft| {
            tt.clear();
            data.clear();
            let budget = NodeBudget {
                soft,
                ..NodeBudget::hard(20_000)
            };
            search_nodes(&pos, &[], budget, &EvalConfig::default(), &tt, &mut data)
        };
        let hard_only = search(None);
        assert!(hard_only.nodes >= 20_000, "{hard_only:?}");
        let soft = search(Some(1));
        assert_eq!(soft.depth, 1, "{soft:?}");
        assert!(soft.nodes < 1000 && soft.best.is_some(), "{soft:?}");
        let some = search(Some(5_000));
        assert!(
            some.depth > 1 && some.depth <= hard_only.depth + 1,
            "{some:?}"
        );
        assert!(some.nodes < hard_only.nodes, "{some:?}");
    }

    #[test]
    fn a_tactical_limit_cuts_only_searches_whose_best_move_is_a_capture() {
        let tt = TranspositionTable::new(1).expect("a table");
        let mut data = Vec::new();
        let mut search = |fen: &str, tactical| {
            tt.clear();
            data.clear();
            let pos = Position::from_fen(fen, false).expect("FEN");
            let budget = NodeBudget {
                tactical,
                ..NodeBudget::hard(20_000)
            };
            search_nodes(&pos, &[], budget, &EvalConfig::default(), &tt, &mut data)
        };
        // White takes the undefended queen.
        let capture = "4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1";
        let full = search(capture, None);
        let cut = search(capture, Some(500));
        assert_eq!(full.best, cut.best);
        assert_eq!(cut.best.map(|m| m.to_uci(false)), Some("d2d5".into()));
        assert!(full.nodes >= 20_000, "{full:?}");
        assert!(cut.nodes < 5_000, "{cut:?}");
        // A quiet best move: the limit changes nothing.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (full, cut) = (search(start, None), search(start, Some(500)));
        assert_eq!(
            (full.best, full.nodes, full.score),
            (cut.best, cut.nodes, cut.score)
        );
    }

    #[test]
    fn plies_training_drops_get_the_discard_budget() {
        let opts = DatagenOptions {
            nodes: 5000,
            soft_nodes: Some(3500),
            discard_nodes: Some(1000),
            ..DatagenOptions::default()
        };
        let full = NodeBudget {
            soft: Some(3500),
            ..NodeBudget::hard(5000)
        };
        let cheap = NodeBudget::hard(1000);
        let quiet = Position::startpos();
        let check = Position::from_fen("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1", false).expect("FEN");
        assert_eq!(opts.budget_at(&quiet, 0), cheap);
        assert_eq!(opts.budget_at(&quiet, 7), cheap);
        assert_eq!(opts.budget_at(&quiet, 8), full);
        assert_eq!(opts.budget_at(&check, 40), cheap);
        let plain = DatagenOptions {
            discard_nodes: None,
            ..opts.clone()
        };
        assert_eq!(plain.budget_at(&check, 40), full);
        // Never more than the full budget.
        let big = DatagenOptions {
            discard_nodes: Some(9000),
            ..opts
        };
        assert_eq!(big.budget_at(&check, 40).hard, 5000);
    }

    #[test]
    fn a_discard_budget_saves_nodes_and_keeps_the_positions_written() {
        let opts = DatagenOptions {
            games: 4,
            nodes: 400,
            max_plies: 60,
            ..tiny()
        };
        let (full_text, full) = run(&opts);
        let (cheap_text, cheap) = run(&DatagenOptions {
            discard_nodes: Some(50),
            ..opts
        });
        assert!(cheap.nodes < full.nodes, "{cheap:?} against {full:?}");
        assert!(cheap.positions > 0 && !cheap_text.is_empty());
        assert_ne!(full_text, cheap_text);
    }

    #[test]
    fn same_seed_same_games_whatever_the_threads() {
        let opts = DatagenOptions {
            games: 3,
            nodes: 150,
            max_plies: 60,
            ..tiny()
        };
        let (a, _) = run(&opts);
        let (b, _) = run(&DatagenOptions {
            threads: 2,
            ..opts.clone()
        });
        assert_eq!(a, b);
        let (c, _) = run(&DatagenOptions { seed: 2, ..opts });
        assert_ne!(a, c);
    }

    #[test]
    fn the_chosen_evaluation_plays_the_games() {
        let opts = DatagenOptions {
            max_plies: 40,
            ..tiny()
        };
        let (network, _) = run(&opts);
        let (hand_written, _) = run(&DatagenOptions {
            eval: EvalConfig::hand_written(),
            ..opts
        });
        assert_ne!(network, hand_written);
    }

    #[test]
    fn openings_from_epd_and_fen_lines() {
        let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 id \"e4\";\n\
                    # comment\n\
                    \n\
                    r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n\
                    not a fen\n\
                    7k/5QQ1/8/8/8/8/8/K7 b - - 0 1\n";
        let (fens, bad) = read_openings(text);
        assert_eq!(fens.len(), 2, "{fens:?}");
        assert_eq!(bad, 2); // the garbage line and the stalemate
        assert!(fens[0].ends_with(" 0 1"));
        let (out, stats) = run(&DatagenOptions {
            games: 1,
            openings: fens,
            random_plies: 2,
            ..tiny()
        });
        assert_eq!(stats.games, 1);
        assert_eq!(out.lines().count() as u64, stats.positions);
    }
}
