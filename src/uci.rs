//! The UCI front end. A reader thread turns stdin lines into messages (EOF
//! becomes `quit`); this thread is the only one that writes to stdout. It owns
//! the game position, the options and the transposition table, and runs one
//! search at a time in the background.
//!
//! Every command that changes state (`position`, `setoption`, `ucinewgame`,
//! `go`, `quit`) first stops a running search and sends its `bestmove`, so no
//! answer is lost or doubled. Bad input never changes state: it gets an
//! `info string` saying why.

use crate::board::movegen::legal_moves;
use crate::board::moves::Move;
use crate::board::position::{Position, START_FEN};
use crate::eval::network::Network;
use crate::eval::score::{mate_in, MAX_PLY, TB_WIN, TB_WIN_BOUND};
use crate::eval::wdl;
use crate::eval::EvalConfig;
use crate::perft::{divide, PerftTable};
use crate::search::params::SearchParams;
use crate::search::strength::{self, Strength};
use crate::search::tb::TablebaseConfig;
use crate::search::time::Limits;
use crate::search::tt::{Bound, TranspositionTable};
use crate::search::{
    SearchEvent, SearchHandle, SearchInfo, SearchRequest, SearchResult, ThreadData,
};
use crate::tablebase::Tablebases;
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

pub const ENGINE_NAME: &str = "Guoxiang";
pub const ENGINE_AUTHOR: &str = "the Guoxiang developers";

/// Longest input line accepted; longer lines are dropped with a message.
const MAX_LINE: usize = 1 << 20;
const MAX_HASH_MB: usize = 1 << 20;
const MAX_THREADS: usize = 1024;
const MAX_MULTIPV: usize = 256;
const MAX_OVERHEAD_MS: u64 = 10_000;
/// How long a `go` whose every limit was unreadable searches.
const UNREADABLE_GO_MS: u64 = 1000;
/// `EvalFile`'s default: the network built into the binary (`src/eval/net.nnue`).
const EMBEDDED_NET_NAME: &str = "<embedded>";

/// Engine options as set by `setoption`.
#[derive(Clone, Debug)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub move_overhead_ms: u64,
    pub chess960: bool,
    /// `UCI_LimitStrength`: play at `elo` instead of full strength.
    pub limit_strength: bool,
    /// `UCI_Elo`.
    pub elo: i32,
    /// `UCI_ShowWDL`: win/draw/loss odds in the info lines.
    pub show_wdl: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 50,
            chess960: false,
            limit_strength: false,
            elo: strength::MIN_ELO,
            show_wdl: false,
        }
    }
}

enum Input {
    Line(String),
    TooLong,
}

/// Reads stdin line by line on its own thread. Invalid UTF-8 is replaced,
/// over-long lines are reported and skipped; EOF or a read error closes the channel.
fn spawn_reader() -> Receiver<Input> {
    let (tx, rx) = unbounded();
    let spawned = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut reader = stdin.lock();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let mut too_long = false;
                // Read one line, keeping at most MAX_LINE bytes of it.
                loop {
                    let chunk = match reader.fill_buf() {
                        Ok(c) => c,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(_) => return,
                    };
                    if chunk.is_empty() {
                        if buf.is_empty() && !too_long {
                            return;
                        }
                        break;
                    }
                    let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
                        Some(i) => (i + 1, true),
                        None => (chunk.len(), false),
                    };
                    if buf.len() + take <= MAX_LINE {
                        buf.extend_from_slice(&chunk[..take]);
                    } else {
                        too_long = true;
                    }
                    reader.consume(take);
                    if done {
                        break;
                    }
                }
                let msg = if too_long {
                    Input::TooLong
                } else {
                    Input::Line(String::from_utf8_lossy(&buf).into_owned())
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
    if spawned.is_err() {
        eprintln!("cannot start the input thread");
    }
    rx
}

struct ActiveSearch {
    handle: SearchHandle,
    /// `go infinite` / `go ponder`: the answer waits for `stop` or `ponderhit`.
    wait_for_stop: bool,
    /// `go infinite` (or no limit at all): even after `ponderhit` the answer waits for `stop`.
    infinite: bool,
    /// A result that arrived while it had to wait.
    held: Option<(Option<Move>, Option<Move>)>,
    start: Instant,
    chess960: bool,
    root: Position,
}

/// The UCI engine state.
pub struct Engine {
    position: Position,
    /// Keys of the positions before `position`, oldest first.
    history: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    thread_data: Vec<ThreadData>,
    search: Option<ActiveSearch>,
    events_tx: Sender<SearchEvent>,
    events_rx: Receiver<SearchEvent>,
    out: Output,
    /// The evaluation searches play with (`UseNNUE`, `EvalFile`).
    eval: EvalConfig,
    /// Syzygy tablebases and the options for probing them.
    tablebases: TablebaseConfig,
}

/// Where the protocol lines go: stdout for the engine, any writer for
/// tests that drive an [`Engine`] in-process.
struct Output {
    sink: Box<dyn Write>,
}

impl Output {
    /// Writes one protocol line and flushes it.
    fn line(&mut self, line: &str) {
        let _ = writeln!(self.sink, "{line}");
        let _ = self.sink.flush();
    }

    /// An `info string`: one line per message, since a newline inside would
    /// start an unknown command in the GUI.
    fn info(&mut self, text: &str) {
        self.line(&format!("info string {}", text.replace(['\n', '\r'], " ")));
    }

    fn bestmove(&mut self, best: Option<Move>, ponder: Option<Move>, chess960: bool) {
        match (best, ponder) {
            (Some(b), Some(p)) => self.line(&format!(
                "bestmove {} ponder {}",
                b.to_uci(chess960),
                p.to_uci(chess960)
            )),
            (Some(b), None) => self.line(&format!("bestmove {}", b.to_uci(chess960))),
            (None, _) => self.line("bestmove (none)"),
        }
    }
}

/// Runs the UCI loop until `quit` or end of input.
pub fn run() {
    let lines = spawn_reader();
    let mut engine = Engine::new();
    // For a person at a terminal: the engine is there and waiting (GUIs ignore it).
    engine.out.line(&format!(
        "{ENGINE_NAME} {} by {ENGINE_AUTHOR}",
        env!("CARGO_PKG_VERSION")
    ));
    loop {
        select! {
            recv(lines) -> msg => match msg {
                Ok(Input::Line(line)) => {
                    let keep_going = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.handle_line(&line)));
                    match keep_going {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(_) => engine.out.info("internal error while handling that command; state kept"),
                    }
                }
                Ok(Input::TooLong) => engine.out.info(&format!("input line longer than {MAX_LINE} bytes ignored")),
                Err(_) => {
                    engine.finish_search();
                    break;
                }
            },
            recv(engine.events_rx) -> event => {
                if let Ok(event) = event {
                    engine.handle_event(event);
                }
            }
        }
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine that answers on stdout.
    pub fn new() -> Engine {
        Engine::with_output(Box::new(std::io::stdout()))
    }

    /// An engine that writes its protocol lines to `sink` (tests drive
    /// [`Engine::handle_line`] in-process and read what it answers).
    pub fn with_output(sink: Box<dyn Write>) -> Engine {
        let options = Options::default();
        let tt = match TranspositionTable::new(options.hash_mb) {
            Ok(t) => t,
            Err(_) => match TranspositionTable::new(1) {
                Ok(t) => t,
                Err(e) => panic!("cannot allocate even 1 MB of hash: {e}"),
            },
        };
        let (events_tx, events_rx) = unbounded();
        Engine {
            position: Position::startpos(),
            history: Vec::new(),
            options,
            tt: Arc::new(tt),
            thread_data: Vec::new(),
            search: None,
            events_tx,
            events_rx,
            out: Output { sink },
            eval: EvalConfig::default(),
            tablebases: TablebaseConfig::default(),
        }
    }

    /// Handles one input line; returns false on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            [] => {}
            ["uci", ..] => self.cmd_uci(),
            ["isready", ..] => {
                // A new large table's pages are faulted in for a moment
                // more, so that the first search does not pay for them.
                self.tt.wait_touched(crate::search::tt::READY_WAIT);
                self.out.line("readyok");
            }
            ["ucinewgame", ..] => {
                self.finish_search();
                self.clear_hash();
                self.thread_data.iter_mut().for_each(ThreadData::clear);
                self.position = Position::startpos();
                self.position.set_chess960(self.options.chess960);
                self.history.clear();
            }
            ["position", rest @ ..] => {
                self.finish_search();
                if let Err(e) = self.cmd_position(rest) {
                    self.out.info(&format!("position ignored: {e}"));
                }
            }
            ["setoption", rest @ ..] => {
                self.finish_search();
                if let Err(e) = self.cmd_setoption(rest, line) {
                    self.out.info(&e);
                }
            }
            ["go", rest @ ..] => {
                self.finish_search();
                self.cmd_go(rest);
            }
            ["stop", ..] => self.finish_search(),
            ["ponderhit", ..] => self.cmd_ponderhit(),
            ["quit", ..] => {
                self.finish_search();
                return false;
            }
            ["debug", ..] | ["register", ..] => {}
            ["d", ..] => {
                for l in self.position.to_string().lines() {
                    self.out.info(l);
                }
            }
            ["eval", ..] => self.out.info(&format!(
                "static evaluation {} cp (side to move)",
                self.eval.evaluate(&self.position)
            )),
            [cmd, ..] => {
                let shown: String = cmd.chars().take(40).collect();
                self.out.info(&format!("unknown command '{shown}'"));
            }
        }
        true
    }

    fn cmd_uci(&mut self) {
        self.out.line(&format!(
            "id name {ENGINE_NAME} {}",
            env!("CARGO_PKG_VERSION")
        ));
        self.out.line(&format!("id author {ENGINE_AUTHOR}"));
        self.out.line(&format!(
            "option name Hash type spin default 16 min 1 max {MAX_HASH_MB}"
        ));
        self.out.line(&format!(
            "option name Threads type spin default 1 min 1 max {MAX_THREADS}"
        ));
        self.out.line(&format!(
            "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"
        ));
        self.out.line("option name Ponder type check default false");
        self.out.line(&format!(
            "option name Move Overhead type spin default 50 min 0 max {MAX_OVERHEAD_MS}"
        ));
        self.out
            .line("option name UCI_Chess960 type check default false");
        self.out
            .line("option name UCI_LimitStrength type check default false");
        self.out
            .line("option name UCI_ShowWDL type check default false");
        self.out.line(&format!(
            "option name UCI_Elo type spin default {} min {} max {}",
            strength::MIN_ELO,
            strength::MIN_ELO,
            strength::MAX_ELO
        ));
        self.out.line(&format!(
            "option name UseNNUE type check default {}",
            crate::eval::network::DEFAULT_ENABLED
        ));
        self.out.line(&format!(
            "option name EvalFile type string default {EMBEDDED_NET_NAME}"
        ));
        self.out
            .line("option name SyzygyPath type string default <empty>");
        self.out.line(&format!(
            "option name SyzygyProbeDepth type spin default 1 min 1 max {MAX_PLY}"
        ));
        self.out
            .line("option name Syzygy50MoveRule type check default true");
        self.out
            .line("option name SyzygyProbeLimit type spin default 7 min 0 max 7");
        self.out.line("option name Clear Hash type button");
        self.out.line("uciok");
    }

    fn cmd_position(&mut self, args: &[&str]) -> Result<(), String> {
        let (fen, rest) = match args {
            ["startpos", rest @ ..] => (START_FEN.to_string(), rest),
            ["fen", rest @ ..] => {
                let end = rest
                    .iter()
                    .position(|&t| t == "moves")
                    .unwrap_or(rest.len());
                (rest[..end].join(" "), &rest[end..])
            }
            [other, ..] => return Err(format!("expected 'startpos' or 'fen', found '{other}'")),
            [] => return Err("expected 'startpos' or 'fen'".into()),
        };
        let mut pos = Position::from_fen(&fen, self.options.chess960).map_err(|e| e.to_string())?;
        let mut history = Vec::new();
        match rest {
            [] => {}
            ["moves", moves @ ..] => {
                for (i, text) in moves.iter().enumerate() {
                    let mv = pos.parse_uci_move(text).ok_or_else(|| {
                        let shown: String = text.chars().take(16).collect();
                        format!("move {} '{shown}' is not legal in {}", i + 1, pos.to_fen())
                    })?;
                    history.push(pos.key());
                    pos.make_move(mv);
                }
            }
            [other, ..] => return Err(format!("expected 'moves', found '{other}'")),
        }
        self.position = pos;
        self.history = history;
        Ok(())
    }

    /// `setoption name <name> [value <value>]`; `line` is the whole input
    /// line, so that a value keeps its own spacing (a Windows path such as
    /// `C:\My  Nets\net.nnue`).
    fn cmd_setoption(&mut self, args: &[&str], line: &str) -> Result<(), String> {
        let ["name", rest @ ..] = args else {
            return Err("setoption: expected 'setoption name <name> [value <value>]'".into());
        };
        let value_at = rest.iter().position(|t| t.eq_ignore_ascii_case("value"));
        let name = rest[..value_at.unwrap_or(rest.len())]
            .join(" ")
            .to_ascii_lowercase();
        let value = value_at.map(|_| raw_value(line));
        let need_value = || {
            value
                .clone()
                .filter(|v| !v.is_empty())
                .ok_or(format!("option '{name}' needs a value"))
        };
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            let v = need_value()?;
            let n: u64 = v
                .parse()
                .map_err(|_| format!("option '{name}': '{v}' is not a whole number"))?;
            if !(min..=max).contains(&n) {
                return Err(format!("option '{name}': {n} is out of range {min}..{max}"));
            }
            Ok(n)
        };
        let check = || -> Result<bool, String> {
            let v = need_value()?;
            match v.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("option '{name}': '{v}' is not true or false")),
            }
        };
        match name.as_str() {
            "hash" => {
                let mb = spin(1, MAX_HASH_MB as u64)? as usize;
                if mb != self.tt.size_mb() {
                    // Free the old table first so both need not fit at once; restore it on failure.
                    let old_mb = self.tt.size_mb();
                    self.tt = Arc::new(TranspositionTable::new(1).map_err(|e| e.to_string())?);
                    match TranspositionTable::new(mb) {
                        Ok(t) => self.tt = Arc::new(t),
                        Err(e) => {
                            if let Ok(t) = TranspositionTable::new(old_mb) {
                                self.tt = Arc::new(t);
                            }
                            return Err(format!("{e}; keeping {} MB", self.tt.size_mb()));
                        }
                    }
                }
                self.options.hash_mb = mb;
            }
            "threads" => {
                self.options.threads = spin(1, MAX_THREADS as u64)? as usize;
                self.thread_data.truncate(self.options.threads);
            }
            "multipv" => self.options.multipv = spin(1, MAX_MULTIPV as u64)? as usize,
            "ponder" => self.options.ponder = check()?,
            "move overhead" => self.options.move_overhead_ms = spin(0, MAX_OVERHEAD_MS)?,
            "uci_chess960" => {
                self.options.chess960 = check()?;
                self.position.set_chess960(self.options.chess960);
            }
            "uci_limitstrength" => self.options.limit_strength = check()?,
            "uci_showwdl" => self.options.show_wdl = check()?,
            "uci_elo" => {
                let (min, max) = (strength::MIN_ELO as u64, strength::MAX_ELO as u64);
                self.options.elo = spin(min, max)? as i32;
            }
            "usennue" => {
                let on = check()?;
                if on != self.eval.use_network {
                    // Stored static evaluations and corrections belong to
                    // the other evaluation: start afresh.
                    self.eval.use_network = on;
                    self.clear_hash();
                    self.thread_data.iter_mut().for_each(ThreadData::clear);
                }
            }
            "evalfile" => {
                let path = value.clone().unwrap_or_default();
                // Some GUIs send "<empty>" for an empty string option.
                let net = match path.as_str() {
                    "" | "<empty>" | EMBEDDED_NET_NAME => None,
                    path => Some(
                        Network::load(std::path::Path::new(path))
                            .map_err(|e| format!("EvalFile: {e}; network kept"))?,
                    ),
                };
                let share = net.as_ref().map(|n| n.hce_percent);
                // Stored static evaluations, corrections and accumulators
                // belong to the old network: start afresh.
                self.eval.network = net.unwrap_or_else(Network::embedded);
                self.clear_hash();
                self.thread_data.iter_mut().for_each(ThreadData::clear);
                if let Some(share) = share {
                    self.out.info(&format!(
                        "EvalFile: playing with '{path}' (hand-written share {share}%)"
                    ));
                }
            }
            "syzygypath" => {
                let paths = value.clone().unwrap_or_default();
                let (tables, notes) = match paths.trim() {
                    "" | "<empty>" => (Tablebases::none(), Vec::new()),
                    paths => Tablebases::open(paths),
                };
                for note in notes {
                    self.out.info(&note);
                }
                self.tablebases.tables = Arc::new(tables);
            }
            "syzygyprobedepth" => {
                self.tablebases.probe_depth = spin(1, MAX_PLY as u64)? as i32;
            }
            "syzygy50moverule" => self.tablebases.rule50 = check()?,
            "syzygyprobelimit" => self.tablebases.probe_limit = spin(0, 7)? as usize,
            "clear hash" => {
                self.clear_hash();
                self.thread_data.iter_mut().for_each(ThreadData::clear);
            }
            _ => {
                let shown: String = name.chars().take(40).collect();
                return Err(format!("unknown option '{shown}'"));
            }
        }
        Ok(())
    }

    fn cmd_go(&mut self, args: &[&str]) {
        let (mut limits, perft_depth, notes, unreadable) = parse_go(args, &self.position);
        for note in &notes {
            self.out.info(note);
        }
        if let Some(depth) = perft_depth {
            self.perft(depth);
            return;
        }
        let no_limit = limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.mate.is_none()
            && limits.movetime.is_none()
            && limits.wtime.is_none()
            && limits.btime.is_none();
        if no_limit && unreadable && !limits.infinite {
            // Something was meant as a limit but could not be read: a search
            // that nothing ends would run the GUI's clock out.
            self.out.info(&format!(
                "go: no readable limit, searching for {UNREADABLE_GO_MS} ms"
            ));
            limits.movetime = Some(UNREADABLE_GO_MS);
        } else if no_limit {
            // A bare `go` (or `go infinite`, `go searchmoves ...`) analyses until `stop`.
            limits.infinite = true;
        }
        let infinite = limits.infinite;
        let wait_for_stop = infinite || limits.ponder;
        self.refresh_tablebases();
        let start = Instant::now();
        let request = SearchRequest {
            position: self.position,
            history: self.history.clone(),
            limits,
            threads: self.options.threads,
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            start,
            params: SearchParams::default(),
            eval: self.eval.clone(),
            // The top level is full strength itself.
            strength: (self.options.limit_strength && self.options.elo < strength::MAX_ELO)
                .then(|| Strength::new(self.options.elo)),
            tablebases: self.tablebases.clone(),
        };
        let data = std::mem::take(&mut self.thread_data);
        match SearchHandle::start(request, Arc::clone(&self.tt), data, self.events_tx.clone()) {
            Ok(handle) => {
                self.search = Some(ActiveSearch {
                    handle,
                    wait_for_stop,
                    infinite,
                    held: None,
                    start,
                    chess960: self.position.is_chess960(),
                    root: self.position,
                });
            }
            Err(e) => {
                self.out.info(&e);
                let fallback = legal_moves(&self.position).first().copied();
                self.out
                    .bestmove(fallback, None, self.position.is_chess960());
            }
        }
    }

    /// Empties the hash table: fresh zeroed memory for a large one (see
    /// `TranspositionTable::reset`); in place while a search still holds it
    /// (never, as every caller finishes the search first).
    fn clear_hash(&mut self) {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.reset(),
            None => self.tt.clear(),
        }
    }

    /// Before a search: a table file changed on disk since it was mapped
    /// (an operator copying tables in) is said in an `info string` and
    /// mapped again on next use, or dropped, so a truncated file is never
    /// read through its old map. One `stat` per mapped file.
    fn refresh_tablebases(&mut self) {
        if let Some((tables, notes)) = self.tablebases.tables.refresh() {
            for note in notes {
                self.out.info(&note);
            }
            self.tablebases.tables = Arc::new(tables);
        }
    }

    /// `go perft`: a divide with `Threads` threads and a table of counts of
    /// `Hash` MB, allocated for the command (beside the search's table) and
    /// freed after it; without one if the memory cannot be had.
    fn perft(&mut self, depth: u32) {
        let table = match PerftTable::new(self.options.hash_mb) {
            Ok(t) => Some(t),
            Err(e) => {
                self.out.info(&format!("perft without a table: {e}"));
                None
            }
        };
        let start = Instant::now();
        let results = divide(&self.position, depth, self.options.threads, table.as_ref());
        let chess960 = self.position.is_chess960();
        let mut total = 0u64;
        for (mv, n) in &results {
            self.out.line(&format!("{}: {n}", mv.to_uci(chess960)));
            total += n;
        }
        if depth == 0 {
            total = 1;
        }
        self.out.line("");
        self.out.line(&format!("Nodes searched: {total}"));
        let ms = start.elapsed().as_millis();
        let table_mb = table.as_ref().map_or(0, PerftTable::size_mb);
        self.out.info(&format!(
            "perft {depth}: {total} nodes in {ms} ms ({} threads, table {table_mb} MB)",
            self.options.threads
        ));
    }

    fn cmd_ponderhit(&mut self) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        search.handle.ponderhit();
        // Only the ponder part ends here; an infinite search still waits for `stop`.
        search.wait_for_stop = search.infinite;
        if search.wait_for_stop {
            return;
        }
        if let Some((best, ponder)) = search.held.take() {
            self.complete_search(best, ponder);
        }
    }

    fn handle_event(&mut self, event: SearchEvent) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        match event {
            SearchEvent::Info(info) => self.out.line(&format_info(
                &info,
                &search.root,
                search.start,
                self.options.show_wdl,
            )),
            SearchEvent::CurrentMove { depth, mv, number } => self.out.line(&format!(
                "info depth {depth} currmove {} currmovenumber {number}",
                mv.to_uci(search.chess960)
            )),
            SearchEvent::Done(SearchResult { best, ponder, .. }) => {
                if search.wait_for_stop {
                    search.held = Some((best, ponder));
                } else {
                    self.complete_search(best, ponder);
                }
            }
        }
    }

    /// Sends `bestmove` and takes back the thread data.
    fn complete_search(&mut self, best: Option<Move>, ponder: Option<Move>) {
        if let Some(search) = self.search.take() {
            let chess960 = search.chess960;
            self.thread_data = search.handle.join();
            self.out.bestmove(best, ponder, chess960);
        }
    }

    /// Stops a running search (if any) and waits for its `bestmove`.
    pub fn finish_search(&mut self) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        search.handle.stop();
        search.wait_for_stop = false;
        if let Some((best, ponder)) = search.held.take() {
            self.complete_search(best, ponder);
            return;
        }
        while self.search.is_some() {
            match self.events_rx.recv() {
                Ok(event) => self.handle_event(event),
                Err(_) => break,
            }
        }
    }
}

/// The text after the first word `value` of a `setoption` line, as it
/// was written (inner spaces kept), without the spaces around it.
fn raw_value(line: &str) -> String {
    let mut rest = line.trim_start();
    while let Some(word) = rest.split_whitespace().next() {
        rest = rest[word.len()..].trim_start();
        if word.eq_ignore_ascii_case("value") {
            return rest.trim_end().to_string();
        }
    }
    String::new()
}

/// The words of `go` that start a limit; anything else is an unknown parameter.
const GO_KEYWORDS: [&str; 13] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

/// Reads the arguments of `go` (for the position `pos`): the limits, a
/// perft depth if asked, a note for each value that was unreadable or
/// out of range (dropped or clamped), and whether anything was unreadable.
fn parse_go(args: &[&str], pos: &Position) -> (Limits, Option<u32>, Vec<String>, bool) {
    let mut limits = Limits::default();
    let mut perft_depth = None;
    let mut notes = Vec::new();
    let mut unreadable = false;
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let value = args.get(i + 1).copied();
        let mut takes_value = true;
        // A number within `min..=max`: too big saturates silently (a huge
        // limit is still a limit); too small is a mistake worth a note.
        let mut num = |min: i64, max: i64| -> Result<i64, String> {
            let v = value.ok_or(format!("go {key}: missing value"))?;
            // Parsed wide so that a huge value saturates instead of being refused.
            let n: i128 = v.parse().map_err(|_| {
                let shown: String = v.chars().take(16).collect();
                format!("go {key}: '{shown}' is not a number")
            })?;
            if n < i128::from(min) {
                notes.push(format!("go {key}: {n} is below {min}, using {min}"));
            }
            Ok(n.clamp(i128::from(min), i128::from(max)) as i64)
        };
        let result: Result<(), String> = match key {
            "wtime" => num(i64::MIN / 4, i64::MAX / 4).map(|n| limits.wtime = Some(n)),
            "btime" => num(i64::MIN / 4, i64::MAX / 4).map(|n| limits.btime = Some(n)),
            "winc" => num(0, i64::MAX / 4).map(|n| limits.winc = Some(n)),
            "binc" => num(0, i64::MAX / 4).map(|n| limits.binc = Some(n)),
            "movestogo" => num(1, 1000).map(|n| limits.movestogo = Some(n as u32)),
            "depth" => num(1, 127).map(|n| limits.depth = Some(n as i32)),
            "nodes" => num(1, i64::MAX).map(|n| limits.nodes = Some(n as u64)),
            "mate" => num(1, 63).map(|n| limits.mate = Some(n as i32)),
            "movetime" => num(1, i64::MAX / 4).map(|n| limits.movetime = Some(n as u64)),
            "perft" => num(0, 15).map(|n| perft_depth = Some(n as u32)),
            "infinite" => {
                takes_value = false;
                limits.infinite = true;
                Ok(())
            }
            "ponder" => {
                takes_value = false;
                limits.ponder = true;
                Ok(())
            }
            "searchmoves" => {
                takes_value = false;
                while let Some(&m) = args.get(i + 1) {
                    if GO_KEYWORDS.contains(&m) {
                        break;
                    }
                    match pos.parse_uci_move(m) {
                        Some(mv) => limits.searchmoves.push(mv),
                        None => {
                            let shown: String = m.chars().take(16).collect();
                            notes.push(format!(
                                "searchmoves: '{shown}' is not a legal move, ignored"
                            ));
                        }
                    }
                    i += 1;
                }
                Ok(())
            }
            _ => {
                takes_value = false;
                let shown: String = key.chars().take(16).collect();
                Err(format!("go: unknown parameter '{shown}' ignored"))
            }
        };
        if let Err(e) = result {
            notes.push(e);
            unreadable = true;
            // Do not swallow a following keyword as a bad value.
            if value.is_some_and(|v| GO_KEYWORDS.contains(&v)) {
                takes_value = false;
            }
        }
        i += if takes_value { 2 } else { 1 };
    }
    (limits, perft_depth, notes, unreadable)
}

/// Formats an `info` line; the PV is cut at the first move that is not legal
/// (it never is, but a GUI must never see one).
fn format_info(info: &SearchInfo, root: &Position, start: Instant, show_wdl: bool) -> String {
    let elapsed = start.elapsed().max(info.time);
    let ms = elapsed.as_millis() as u64;
    let nps = (info.nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let score = match mate_in(info.score) {
        Some(m) => format!("mate {m}"),
        None => format!("cp {}", shown_cp(info.score)),
    };
    let bound = match info.bound {
        Some(Bound::Lower) => " lowerbound",
        Some(Bound::Upper) => " upperbound",
        _ => "",
    };
    // Only when asked: some GUIs reject an info line with a wdl field.
    let wdl = if show_wdl {
        let (w, d, l) = match mate_in(info.score) {
            Some(m) if m > 0 => (1000, 0, 0),
            Some(_) => (0, 0, 1000),
            None => wdl::per_mille(info.score, wdl::material(root)),
        };
        format!(" wdl {w} {d} {l}")
    } else {
        String::new()
    };
    let mut pv = String::new();
    let mut pos = *root;
    for &mv in &info.pv {
        if !legal_moves(&pos).contains(&mv) {
            break;
        }
        pv.push(' ');
        pv.push_str(&mv.to_uci(root.is_chess960()));
        pos.make_move(mv);
    }
    let tbhits = info
        .tbhits
        .map_or(String::new(), |n| format!(" tbhits {n}"));
    format!(
        "info depth {} seldepth {} multipv {} score {score}{bound}{wdl} nodes {} nps {nps} hashfull {} time {ms}{tbhits} pv{pv}",
        info.depth, info.seldepth, info.multipv, info.nodes, info.hashfull
    )
}

/// Centipawns to show for a score that is not a mate: a tablebase win `n`
/// plies away shows as `20000 - n`, as Stockfish shows it, evaluations as
/// they are.
fn shown_cp(score: i32) -> i32 {
    if score.abs() >= TB_WIN_BOUND {
        score.signum() * (20_000 - (TB_WIN - score.abs()))
    } else {
        score
    }
}
