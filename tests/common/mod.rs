//! Drives the real `guoxiang` binary over pipes, and checks what it says
//! against the library's own move generator.
//!
//! Every wait has a generous deadline so that a slow, busy CI machine never
//! makes a test flaky; no test asserts how fast something happened.

#![allow(dead_code)]

pub mod cli;
pub mod syzygy;

use guoxiang::board::movegen::legal_moves;
use guoxiang::{Move, Position};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any single expected answer may take.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    /// What was sent (`> `) and received (`< `), for failure messages.
    transcript: Vec<String>,
}

impl Engine {
    /// Starts the binary with piped stdin and stdout; a thread forwards every
    /// stdout line, with the time it arrived, into a channel.
    pub fn spawn() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_guoxiang"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start the guoxiang binary");
        let stdout = child.stdout.take().expect("child stdout is piped");
        let stdin = child.stdin.take().expect("child stdin is piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf)
                            .trim_end_matches(['\n', '\r'])
                            .to_string();
                        if tx.send((Instant::now(), line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines: rx,
            transcript: Vec::new(),
        }
    }

    /// The last lines of the conversation, for failure messages.
    pub fn transcript(&self) -> String {
        let start = self.transcript.len().saturating_sub(60);
        self.transcript[start..].join("\n")
    }

    /// Sends one command line.
    pub fn send(&mut self, cmd: &str) {
        let mut bytes = cmd.as_bytes().to_vec();
        bytes.push(b'\n');
        let shown: String = cmd.chars().take(120).collect();
        self.send_raw(&bytes, &shown);
    }

    /// Sends raw bytes (which may be invalid UTF-8); `shown` goes into the transcript.
    pub fn send_raw(&mut self, bytes: &[u8], shown: &str) {
        self.transcript.push(format!("> {shown}"));
        let stdin = self.stdin.as_mut().expect("stdin was already closed");
        if let Err(e) = stdin.write_all(bytes).and_then(|_| stdin.flush()) {
            panic!(
                "cannot write to the engine ({e}); transcript:\n{}",
                self.transcript()
            );
        }
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.transcript.push("> <EOF>".to_string());
        self.stdin = None;
    }

    /// Waits for a line matching `pred`, dropping (but recording) the lines before it.
    pub fn expect_line(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, String> {
        self.lines_until(pred, timeout)
            .map(|mut lines| lines.pop().expect("lines_until returns the matching line"))
    }

    /// All lines up to and including the first one matching `pred`.
    pub fn lines_until(
        &mut self,
        pred: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((_, line)) => {
                    self.transcript.push(format!("< {line}"));
                    let done = pred(&line);
                    out.push(line);
                    if done {
                        return Ok(out);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "no matching line within {timeout:?}; transcript:\n{}",
                        self.transcript()
                    ))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the engine closed its output; transcript:\n{}",
                        self.transcript()
                    ))
                }
            }
        }
    }

    /// Like [`Engine::lines_until`] but panics on failure, saying what was awaited.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> Vec<String> {
        match self.lines_until(pred, TIMEOUT) {
            Ok(lines) => lines,
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    }

    /// Sends `isready` and returns every line that came before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.wait_for("readyok", |l| l == "readyok");
        lines.pop();
        lines
    }

    /// Sends `isready` and asserts no `bestmove` came before `readyok`.
    pub fn sync_no_bestmove(&mut self, context: &str) -> Vec<String> {
        let lines = self.sync();
        assert!(
            !lines.iter().any(|l| is_bestmove(l)),
            "{context}: unexpected bestmove; transcript:\n{}",
            self.transcript()
        );
        lines
    }

    /// Waits for the next `bestmove` line; returns it and the lines before it.
    pub fn bestmove(&mut self) -> (Vec<String>, String) {
        let mut lines = self.wait_for("bestmove", is_bestmove);
        let best = lines.pop().expect("wait_for returns the matching line");
        (lines, best)
    }

    /// Sends a `go` command, waits for its `bestmove` and checks that no
    /// second one follows. Returns the info lines and the bestmove line.
    pub fn go(&mut self, go: &str) -> (Vec<String>, String) {
        self.send(go);
        let (lines, best) = self.bestmove();
        self.sync_no_bestmove(&format!("after the bestmove of '{go}'"));
        (lines, best)
    }

    /// The FEN of the engine's current position, as printed by `d`.
    pub fn fen(&mut self) -> String {
        self.send("d");
        let line = self.wait_for("the FEN line of 'd'", |l| {
            l.starts_with("info string FEN: ")
        });
        line.last()
            .expect("wait_for returns the matching line")
            .trim_start_matches("info string FEN: ")
            .trim()
            .to_string()
    }

    /// Waits until the process exits; `None` if it did not within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => return None,
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn is_bestmove(line: &str) -> bool {
    line.starts_with("bestmove")
}

/// The position a `position ...` command describes, replayed with the library.
pub fn replay(cmd: &str, chess960: bool) -> Position {
    let tokens: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(
        tokens.first(),
        Some(&"position"),
        "not a position command: {cmd}"
    );
    let moves_at = tokens
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(tokens.len());
    let fen = match tokens.get(1) {
        Some(&"startpos") => guoxiang::board::position::START_FEN.to_string(),
        Some(&"fen") => tokens[2..moves_at].join(" "),
        _ => panic!("bad position command in a test: {cmd}"),
    };
    let mut pos = Position::from_fen(&fen, chess960).expect("test FEN is valid");
    for text in tokens.iter().skip(moves_at + 1) {
        let mv = pos
            .parse_uci_move(text)
            .unwrap_or_else(|| panic!("test move {text} is illegal in {}", pos.to_fen()));
        pos.make_move(mv);
    }
    pos
}

/// The legal move of `pos` whose UCI text is exactly `text` (in the notation
/// the position's mode asks for).
pub fn exact_move(pos: &Position, text: &str) -> Option<Move> {
    legal_moves(pos)
        .iter()
        .copied()
        .find(|m| m.to_uci(pos.is_chess960()) == text)
}

/// Checks a `bestmove` line against the position searched: the move (and the
/// ponder move, if any) must be legal and spelt as UCI wants. Returns the moves.
pub fn check_bestmove(line: &str, pos: &Position) -> (Move, Option<Move>) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let (best, ponder) = match tokens.as_slice() {
        ["bestmove", b] => (*b, None),
        ["bestmove", b, "ponder", p] => (*b, Some(*p)),
        _ => panic!("malformed bestmove line '{line}'"),
    };
    let mv = exact_move(pos, best).unwrap_or_else(|| {
        panic!(
            "bestmove '{best}' is not a legal move in {} ('{line}')",
            pos.to_fen()
        )
    });
    let ponder = ponder.map(|p| {
        let mut next = *pos;
        next.make_move(mv);
        exact_move(&next, p).unwrap_or_else(|| {
            panic!(
                "ponder move '{p}' is not legal after {best} in {} ('{line}')",
                pos.to_fen()
            )
        })
    });
    (mv, ponder)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

/// One search `info` line (not `info string`, not `currmove`).
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: i32,
    pub seldepth: Option<i32>,
    pub multipv: usize,
    pub score: Score,
    pub bound: Option<String>,
    pub nodes: u64,
    pub nps: Option<u64>,
    pub time: Option<u64>,
    pub hashfull: Option<u32>,
    pub pv: Vec<String>,
    pub raw: String,
}

/// Parses an info line that carries a score; `None` for other lines. Panics
/// on a score line that lacks depth, nodes or a well-formed score.
pub fn parse_info(line: &str) -> Option<Info> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() != Some(&"info") || tokens.get(1) == Some(&"string") {
        return None;
    }
    if !tokens.contains(&"score") {
        return None;
    }
    let num = |i: usize| -> i64 {
        tokens
            .get(i)
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("bad number after '{}' in '{line}'", tokens[i - 1]))
    };
    let mut depth = None;
    let mut seldepth = None;
    let mut multipv = 1;
    let mut score = None;
    let mut bound = None;
    let mut nodes = None;
    let mut nps = None;
    let mut time = None;
    let mut hashfull = None;
    let mut pv = Vec::new();
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => depth = Some(num(i + 1) as i32),
            "seldepth" => seldepth = Some(num(i + 1) as i32),
            "multipv" => multipv = num(i + 1) as usize,
            "nodes" => nodes = Some(num(i + 1) as u64),
            "nps" => nps = Some(num(i + 1) as u64),
            "time" => time = Some(num(i + 1) as u64),
            "hashfull" => hashfull = Some(num(i + 1) as u32),
            "score" => {
                let value = num(i + 2) as i32;
                score = Some(match tokens.get(i + 1) {
                    Some(&"cp") => Score::Cp(value),
                    Some(&"mate") => Score::Mate(value),
                    _ => panic!("bad score in '{line}'"),
                });
                if let Some(&b @ ("lowerbound" | "upperbound")) = tokens.get(i + 3) {
                    bound = Some(b.to_string());
                    i += 1;
                }
                i += 1;
            }
            "pv" => {
                pv = tokens[i + 1..].iter().map(|s| s.to_string()).collect();
                break;
            }
            "currmove" | "currmovenumber" | "tbhits" | "cpuload" => {}
            other => panic!("unexpected field '{other}' in '{line}'"),
        }
        i += 2;
    }
    Some(Info {
        depth: depth.unwrap_or_else(|| panic!("no depth in '{line}'")),
        seldepth,
        multipv,
        score: score.unwrap_or_else(|| panic!("no score in '{line}'")),
        bound,
        nodes: nodes.unwrap_or_else(|| panic!("no nodes in '{line}'")),
        nps,
        time,
        hashfull,
        pv,
        raw: line.to_string(),
    })
}

/// The parsed score lines among `lines`.
pub fn infos(lines: &[String]) -> Vec<Info> {
    lines.iter().filter_map(|l| parse_info(l)).collect()
}

/// Checks that every move of the PV is legal when played out from `pos`.
pub fn check_pv(info: &Info, pos: &Position) {
    assert!(!info.pv.is_empty(), "empty pv in '{}'", info.raw);
    let mut p = *pos;
    for text in &info.pv {
        let mv = exact_move(&p, text).unwrap_or_else(|| {
            panic!(
                "pv move '{text}' is not legal in {} ('{}')",
                p.to_fen(),
                info.raw
            )
        });
        p.make_move(mv);
    }
}

/// True if after `mv` the side that played it mates in at most `n` moves
/// against every defence (brute force; for small `n` only).
pub fn forces_mate(pos: &Position, mv: Move, n: u32) -> bool {
    let mut next = *pos;
    next.make_move(mv);
    let replies = legal_moves(&next);
    if replies.is_empty() {
        return next.in_check();
    }
    if n <= 1 {
        return false;
    }
    replies.iter().all(|&reply| {
        let mut after = next;
        after.make_move(reply);
        legal_moves(&after)
            .iter()
            .any(|&m| forces_mate(&after, m, n - 1))
    })
}
