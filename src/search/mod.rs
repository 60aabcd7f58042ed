//! The search: a request ([`SearchRequest`]) goes in, events
//! ([`SearchEvent`]) and a result ([`SearchResult`]) come out. It runs in the
//! background ([`SearchHandle`]) for the UCI layer, or to its end in the
//! calling thread ([`search_sync`]) for bench, tests and the tools.
//!
//! Lazy SMP: several threads run the same search (`searcher`) on one shared
//! transposition table (`tt`); the main thread owns the clock, reports, and
//! decides the move. Each thread keeps its tables between searches
//! (`thread`: histories for the move picker, correction history, the
//! evaluator's accumulators). The search never prints.

pub mod correction;
pub mod history;
pub mod params;
pub mod picker;
mod searcher;
pub mod strength;
pub mod tb;
pub mod thread;
pub mod time;
pub mod tt;

pub use thread::ThreadData;

use crate::board::movegen::{is_legal, legal_moves};
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::eval::score::INFINITE;
use crate::eval::EvalConfig;
use crate::search::params::SearchParams;
use crate::search::searcher::{lmr_table, RootMove, Searcher};
use crate::search::strength::Strength;
use crate::search::tb::{root_selection, TablebaseConfig};
use crate::search::time::{Limits, TimeBudget};
use crate::search::tt::{Bound, TranspositionTable};
use crossbeam_channel::Sender;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A line of analysis, reported to the GUI.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: i32,
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    /// Tablebase probes so far; `None` when no tables are loaded.
    pub tbhits: Option<u64>,
    pub pv: Vec<Move>,
}

/// What the search tells the UCI layer.
#[derive(Clone, Debug)]
pub enum SearchEvent {
    Info(SearchInfo),
    CurrentMove {
        depth: i32,
        mv: Move,
        number: usize,
    },
    /// The search is over; always the last event.
    Done(SearchResult),
}

/// What a finished search found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` only when there is no legal move.
    pub best: Option<Move>,
    /// The expected reply, for pondering.
    pub ponder: Option<Move>,
    /// The last exact score reported for `best` (side to move's view); 0 if
    /// not even depth 1 finished.
    pub score: i32,
    /// The deepest iteration the main thread completed.
    pub depth: i32,
    /// Nodes searched by all threads.
    pub nodes: u64,
}

/// State shared by all threads of one search.
struct SharedState {
    /// Set to end the search: by a limit, or by the GUI.
    stop: AtomicBool,
    /// Set when the GUI ended the search (`stop`), not a limit.
    stopped_from_outside: AtomicBool,
    /// While set (`go ponder`), no time limit applies.
    pondering: AtomicBool,
    /// When `ponderhit` came, in nanoseconds after the `go`; 0 before (or without) one.
    ponderhit_ns: AtomicU64,
    node_counts: Vec<AtomicU64>,
    /// Tablebase probes by all threads.
    tbhits: AtomicU64,
    /// Whether the search probes the tables inside the tree; off when the
    /// root's ranking already settles the result.
    tree_probes: AtomicBool,
    /// The deepest iteration any helper has completed: (depth, score, pv).
    deepest_helper: std::sync::Mutex<Option<(i32, i32, Vec<Move>)>>,
}

impl SharedState {
    fn new(threads: usize, pondering: bool) -> SharedState {
        SharedState {
            stop: AtomicBool::new(false),
            stopped_from_outside: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            ponderhit_ns: AtomicU64::new(0),
            node_counts: (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect(),
            tbhits: AtomicU64::new(0),
            tree_probes: AtomicBool::new(true),
            deepest_helper: std::sync::Mutex::new(None),
        }
    }

    fn total_nodes(&self) -> u64 {
        self.node_counts
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum()
    }
}

/// Everything one search needs.
pub struct SearchRequest {
    pub position: Position,
    /// Keys of the game's earlier positions, oldest first.
    pub history: Vec<u64>,
    pub limits: Limits,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead_ms: u64,
    /// When the `go` arrived: every time limit counts from here.
    pub start: Instant,
    pub params: SearchParams,
    /// The evaluation to play with.
    pub eval: EvalConfig,
    /// A limited playing strength (`UCI_LimitStrength`); `None`: full strength.
    pub strength: Option<Strength>,
    /// Syzygy tablebases and how to probe them.
    pub tablebases: TablebaseConfig,
}

impl SearchRequest {
    /// A one-thread search of `position` under `limits`, with no game before
    /// it, no move overhead, the clock starting now and the default
    /// parameters and evaluation; change the fields for more.
    pub fn new(position: Position, limits: Limits) -> SearchRequest {
        SearchRequest {
            position,
            history: Vec::new(),
            limits,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 0,
            start: Instant::now(),
            params: SearchParams::default(),
            eval: EvalConfig::default(),
            strength: None,
            tablebases: TablebaseConfig::default(),
        }
    }
}

/// The root moves the search may play: all legal moves, or the `searchmoves` among them.
fn root_moves(pos: &Position, limits: &Limits) -> Vec<RootMove> {
    legal_moves(pos)
        .into_iter()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .map(|mv| RootMove {
            mv,
            score: -INFINITE,
            previous_score: -INFINITE,
            pv: vec![mv],
            seldepth: 0,
            nodes: 0,
            tablebase: None,
        })
        .collect()
}

/// At a root in the tablebases, keeps the moves that hold the best result
/// (all of them, ordered by result, when several lines are asked for) and
/// notes each one's verdict; elsewhere leaves the roots as they are. When
/// the ranking settles the result, the search makes no probes of its own
/// (`SharedState::tree_probes`).
fn apply_tablebases(roots: &mut Vec<RootMove>, request: &SearchRequest, shared: &SharedState) {
    let config = &request.tablebases;
    let Some(ranking) = config.rank_root(&request.position, &request.history) else {
        return;
    };
    shared
        .tbhits
        .fetch_add(ranking.moves.len() as u64, Ordering::Relaxed);
    let listed = |mv: Move| roots.iter().any(|r| r.mv == mv);
    let selection = root_selection(&ranking.moves, config, request.multipv, listed);
    if selection.is_empty() {
        return;
    }
    if ranking.decides() {
        shared.tree_probes.store(false, Ordering::Relaxed);
    }
    let mut kept = Vec::with_capacity(selection.len());
    for (mv, verdict) in selection {
        if let Some(root) = roots.iter().find(|r| r.mv == mv) {
            kept.push(RootMove {
                tablebase: Some(verdict),
                ..root.clone()
            });
        }
    }
    *roots = kept;
}

/// Puts the hash move (when legal and among the roots) first, keeping the
/// others in order: a `stop` that lands before the first root move is done
/// then still answers with the move the last search preferred, not whichever
/// legal move the generator happened to list first.
fn hash_move_first(roots: &mut [RootMove], tt: &TranspositionTable, pos: &Position) {
    let hash_move = tt.probe(pos.key()).and_then(|hit| hit.mv);
    if let Some(index) = hash_move.and_then(|m| roots.iter().position(|r| r.mv == m)) {
        roots[..=index].rotate_right(1);
    }
}

/// Runs a whole search in the calling thread (helpers in scoped threads),
/// reporting on `events` when given, and leaves the thread data in
/// `thread_data` for reuse.
fn run_search(
    request: &SearchRequest,
    tt: &TranspositionTable,
    shared: &SharedState,
    thread_data: &mut Vec<ThreadData>,
    events: Option<&Sender<SearchEvent>>,
) -> SearchResult {
    // A strength level searches with one thread, its node budget and
    // several root lines to choose among.
    let original = request;
    let limited;
    let request = match &request.strength {
        Some(strength) => {
            limited = SearchRequest {
                history: request.history.clone(),
                limits: strength.limit(&request.limits),
                threads: 1,
                multipv: strength.lines(request.multipv),
                eval: request.eval.clone(),
                tablebases: request.tablebases.clone(),
                ..*request
            };
            &limited
        }
        None => request,
    };
    let threads = request.threads.max(1);
    thread_data.resize_with(threads, ThreadData::default);
    for data in thread_data.iter_mut() {
        data.follow(&request.eval);
    }
    let pos = request.position;
    let mut roots = root_moves(&pos, &request.limits);
    if roots.is_empty() {
        return SearchResult::default();
    }
    apply_tablebases(&mut roots, original, shared);
    tt.new_search();
    hash_move_first(&mut roots, tt, &pos);
    let budget = TimeBudget::new(
        &request.limits,
        pos.side_to_move(),
        request.move_overhead_ms,
    );
    let lmr = lmr_table(&request.params);
    let make_searcher =
        |id: usize, data| Searcher::new(id, shared, tt, data, request, budget, &roots, lmr);

    let (main_data, helper_data) = thread_data.split_at_mut(1);
    let mut result = SearchResult::default();
    let mut final_line = None;
    std::thread::scope(|s| {
        for (i, data) in helper_data.iter_mut().enumerate() {
            let mut helper = make_searcher(i + 1, data);
            let spawned = std::thread::Builder::new()
                .name(format!("helper {}", i + 1))
                .stack_size(16 << 20)
                .spawn_scoped(s, move || {
                    helper.iterate(&pos, 1);
                    helper.shared.node_counts[helper.id].store(helper.nodes, Ordering::Relaxed);
                });
            // A helper that cannot start only costs speed, never the answer.
            if spawned.is_err() {
                break;
            }
        }
        let mut main = make_searcher(0, &mut main_data[0]);
        main.events = events;
        main.iterate(&pos, request.multipv.max(1));
        // The main thread decides; stop the helpers (and wait, under ponder/infinite, in the UCI layer).
        shared.stop.store(true, Ordering::Relaxed);
        shared.node_counts[0].store(main.nodes, Ordering::Relaxed);
        // A helper that finished a deeper iteration than the main thread gives the move.
        let helper = shared.deepest_helper.lock().ok().and_then(|d| d.clone());
        if let Some((depth, score, pv)) = helper {
            let index = pv
                .first()
                .and_then(|m| main.root_moves.iter().position(|r| r.mv == *m));
            if let (Some(index), true) =
                (index, depth > main.completed_depth && request.multipv <= 1)
            {
                main.root_moves.swap(0, index);
                let rm = &mut main.root_moves[0];
                rm.score = score;
                rm.pv = pv;
                main.root_depth = depth;
                main.report_line(0, None, 0);
            }
        }
        if let Some(strength) = &request.strength {
            let lines: Vec<(Move, i32)> = main
                .root_moves
                .iter()
                .take(request.multipv.min(main.root_moves.len()))
                .map(|r| (r.mv, r.latest_score()))
                .collect();
            let chosen = strength.choose(&lines, strength::random_unit());
            main.root_moves[..=chosen].rotate_right(1);
            main.wait_for_pace(Strength::pace(budget.soft, budget.hard));
        }
        let best = main.root_moves[0].mv;
        let ponder = main.root_moves[0].pv.get(1).copied().or_else(|| {
            let mut next = pos;
            next.make_move(best);
            tt.probe(next.key())
                .and_then(|h| h.mv)
                .filter(|&m| is_legal(&next, m))
        });
        result.best = Some(best);
        result.ponder = ponder;
        result.score = main.reported_score.unwrap_or(0);
        result.depth = main.completed_depth;
        final_line = main.line_info(0, None, 0);
    });
    result.nodes = shared.total_nodes();
    // The last word before `bestmove`: the whole search's nodes and time,
    // and a line that starts with the move played, also when the last
    // iteration was cut short.
    if let (Some(events), Some(mut info)) = (events, final_line) {
        info.nodes = result.nodes;
        info.time = request.start.elapsed();
        let _ = events.send(SearchEvent::Info(info));
    }
    result
}

/// Handle on a search running in the background.
pub struct SearchHandle {
    shared: Arc<SharedState>,
    /// When the `go` arrived (the request's start).
    start: Instant,
    thread: Option<std::thread::JoinHandle<Vec<ThreadData>>>,
}

impl SearchHandle {
    /// Starts a search on its own thread; events arrive on `events`, `Done` last.
    pub fn start(
        request: SearchRequest,
        tt: Arc<TranspositionTable>,
        mut thread_data: Vec<ThreadData>,
        events: Sender<SearchEvent>,
    ) -> Result<SearchHandle, String> {
        let shared = Arc::new(SharedState::new(request.threads, request.limits.ponder));
        let s = Arc::clone(&shared);
        let start = request.start;
        let thread = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_search(&request, &tt, &s, &mut thread_data, Some(&events))
                }));
                let result = outcome.unwrap_or_else(|_| {
                    // A bug must not leave the GUI without an answer: fall back to a legal move.
                    thread_data = Vec::new();
                    SearchResult {
                        best: legal_moves(&request.position).first().copied(),
                        ..SearchResult::default()
                    }
                });
                let _ = events.send(SearchEvent::Done(result));
                thread_data
            })
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        Ok(SearchHandle {
            shared,
            start,
            thread: Some(thread),
        })
    }

    /// Ends the search as soon as it can answer (also a ponder search).
    pub fn stop(&self) {
        self.shared
            .stopped_from_outside
            .store(true, Ordering::Relaxed);
        self.shared.pondering.store(false, Ordering::Relaxed);
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// The opponent played the move a `go ponder` search guessed. The
    /// pondering counts toward the move: the soft limit counts from the `go`,
    /// so a search that has already spent it stops at the next clock check;
    /// the hard limit, the guard against flagging, counts from now.
    pub fn ponderhit(&self) {
        if self.shared.pondering.load(Ordering::Relaxed) {
            let since_go = (self.start.elapsed().as_nanos() as u64).max(1);
            self.shared.ponderhit_ns.store(since_go, Ordering::Relaxed);
            self.shared.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Waits for the search thread and takes back its tables.
    pub fn join(mut self) -> Vec<ThreadData> {
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

/// Runs `request` to its end in the calling thread (bench, tests, the
/// tools), with `request.threads` threads, and returns what it found.
/// `thread_data` keeps the per-thread tables from one call to the next.
pub fn search_sync(
    request: &SearchRequest,
    tt: &TranspositionTable,
    thread_data: &mut Vec<ThreadData>,
) -> SearchResult {
    let shared = SharedState::new(request.threads, request.limits.ponder);
    run_search(request, tt, &shared, thread_data, None)
}
