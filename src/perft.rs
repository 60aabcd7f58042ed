//! Perft (move path enumeration): plain, divided by root move, split over
//! threads, and a runner for whole suites of positions with expected counts.
//!
//! Fully legal generation; the last ply is bulk-counted with
//! [`count_legal`]; no hash table.

use crate::board::movegen::{count_legal_inline, generate_all_inline, legal_moves};
use crate::board::moves::{Move, MoveList};
use crate::board::position::Position;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The number of leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_x86_64_v3() {
            // SAFETY: every feature `perft_v3` is compiled with was detected
            // on this CPU just above.
            return unsafe { perft_v3(pos, depth) };
        }
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports POPCNT (checked just above), the only
            // requirement for calling a function compiled with that feature.
            return unsafe { perft_popcnt(pos, depth) };
        }
    }
    perft_portable(pos, depth)
}

/// Whether the CPU has the x86-64-v3 instructions `perft_v3` is compiled with.
#[cfg(target_arch = "x86_64")]
fn has_x86_64_v3() -> bool {
    std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("avx2")
}

/// Perft compiled for the baseline CPU.
fn perft_portable(pos: &Position, depth: u32) -> u64 {
    perft_body(pos, depth, perft_portable)
}

/// The same code compiled with the POPCNT instruction, which the last-ply
/// move count leans on: about 1.4x faster (see README, perft speed).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn perft_popcnt(pos: &Position, depth: u32) -> u64 {
    // The closure inherits this function's target feature, so the recursive
    // call needs no `unsafe`.
    perft_body(pos, depth, |p, d| perft_popcnt(p, d))
}

/// The same code for x86-64-v3 CPUs (Haswell, Zen and later): BMI1's
/// `blsr`/`tzcnt` for the square loops and AVX2 for copying the position.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
fn perft_v3(pos: &Position, depth: u32) -> u64 {
    perft_body(pos, depth, |p, d| perft_v3(p, d))
}

#[inline(always)]
fn perft_body(pos: &Position, depth: u32, recurse: impl Fn(&Position, u32) -> u64) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal_inline(pos),
        _ => {
            let mut nodes = 0;
            let mut moves = MoveList::new();
            generate_all_inline(pos, &mut moves);
            if depth == 2 {
                for &mv in &moves {
                    let mut next = *pos;
                    next.make_move_for_count(mv);
                    nodes += count_legal_inline(&next);
                }
            } else {
                for &mv in &moves {
                    let mut next = *pos;
                    next.make_move_inline(mv);
                    nodes += recurse(&next, depth - 1);
                }
            }
            nodes
        }
    }
}

/// Perft split by root move, the root moves shared out over `threads` threads.
/// The result is in move-generation order.
pub fn divide(pos: &Position, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = legal_moves(pos).into_iter().collect();
    if depth == 0 {
        return Vec::new();
    }
    let results: Vec<Mutex<u64>> = moves.iter().map(|_| Mutex::new(0)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(&mv) = moves.get(i) else { break };
        let mut child = *pos;
        child.make_move(mv);
        let n = perft(&child, depth - 1);
        if let Ok(mut slot) = results[i].lock() {
            *slot = n;
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads.max(1) {
            s.spawn(work);
        }
        work();
    });
    moves
        .into_iter()
        .zip(results)
        .map(|(m, r)| (m, r.into_inner().unwrap_or_else(|e| e.into_inner())))
        .collect()
}

/// One position of a perft suite with its expected counts by depth.
#[derive(Clone, Debug)]
pub struct SuiteEntry {
    /// Where the entry was found (line number), for messages.
    pub line: usize,
    pub id: Option<String>,
    pub fen: String,
    pub expected: Vec<(u32, u64)>,
}

/// Whether a castling field can only be read as Chess960 (Shredder-FEN file letters).
fn castling_field_is_960(fen: &str) -> bool {
    fen.split_whitespace().nth(2).is_some_and(|c| {
        c.chars()
            .any(|ch| matches!(ch.to_ascii_lowercase(), 'a'..='h'))
    })
}

impl SuiteEntry {
    /// Parses the FEN; Chess960 when asked or when the castling field says so.
    pub fn position(&self, chess960: bool) -> Result<Position, crate::board::position::FenError> {
        Position::from_fen(&self.fen, chess960 || castling_field_is_960(&self.fen))
    }
}

/// Reads a suite in either of two formats:
/// - EPD lines: `<FEN> ;D1 20 ;D2 400 ...`
/// - blocks: `id <name>` / `epd <FEN>` / `perft <depth> <count>` lines.
///
/// `#` starts a comment line. Returns an error naming the first bad line.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, String> {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut pending_id: Option<String> = None;
    let parse_count = |s: &str, n: usize| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("line {n}: '{s}' is not a node count"))
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("id ") {
            pending_id = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("epd ") {
            entries.push(SuiteEntry {
                line: n,
                id: pending_id.take(),
                fen: rest.trim().to_string(),
                expected: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut parts = rest.split_whitespace();
            let depth = parts
                .next()
                .and_then(|d| d.parse::<u32>().ok())
                .ok_or_else(|| format!("line {n}: bad perft depth"))?;
            let count = parse_count(parts.next().unwrap_or(""), n)?;
            let entry = entries
                .last_mut()
                .ok_or_else(|| format!("line {n}: 'perft' before any 'epd'"))?;
            entry.expected.push((depth, count));
        } else {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or("").trim().to_string();
            let mut expected = Vec::new();
            for part in parts {
                let part = part.trim();
                if part.is_empty() {
                    continue;
                }
                let (tag, value) = part
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| format!("line {n}: '{part}' is not 'D<depth> <count>'"))?;
                let depth = tag
                    .strip_prefix('D')
                    .and_then(|d| d.parse::<u32>().ok())
                    .ok_or_else(|| format!("line {n}: '{tag}' is not 'D<depth>'"))?;
                expected.push((depth, parse_count(value, n)?));
            }
            entries.push(SuiteEntry {
                line: n,
                id: None,
                fen,
                expected,
            });
        }
    }
    Ok(entries)
}

/// Options of a suite run.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    pub max_depth: u32,
    /// Skip depths whose expected count is above this.
    pub max_count: u64,
    pub threads: usize,
    /// Parse every FEN in Chess960 mode (X-FEN files).
    pub chess960: bool,
}

impl Default for SuiteOptions {
    fn default() -> SuiteOptions {
        SuiteOptions {
            max_depth: u32::MAX,
            max_count: u64::MAX,
            threads: 1,
            chess960: false,
        }
    }
}

/// What a suite run found.
#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    pub positions: usize,
    pub checks: usize,
    pub nodes: u64,
    pub seconds: f64,
    /// Human-readable description of each mismatch.
    pub mismatches: Vec<String>,
    /// Positions whose FEN was rejected, with the reason.
    pub rejected: Vec<String>,
}

/// Runs every entry of a suite, positions shared out over the threads.
/// Progress and mismatches go to `log` as they happen.
pub fn run_suite(
    entries: &[SuiteEntry],
    opts: &SuiteOptions,
    log: &mut (dyn Write + Send),
) -> SuiteReport {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let report = Mutex::new(SuiteReport {
        positions: entries.len(),
        ..SuiteReport::default()
    });
    let log = Mutex::new(log);
    let say = |text: String| {
        if let Ok(mut l) = log.lock() {
            let _ = writeln!(l, "{text}");
            let _ = l.flush();
        }
    };
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(entry) = entries.get(i) else { break };
        let name = entry
            .id
            .clone()
            .unwrap_or_else(|| format!("line {}", entry.line));
        let pos = match entry.position(opts.chess960) {
            Ok(p) => p,
            Err(e) => {
                say(format!("[{name}] rejected: {e} ({})", entry.fen));
                if let Ok(mut r) = report.lock() {
                    r.rejected.push(format!("{name}: {} -- {e}", entry.fen));
                }
                continue;
            }
        };
        let (mut checks, mut nodes) = (0, 0);
        let mut bad = Vec::new();
        for &(depth, expected) in &entry.expected {
            if depth > opts.max_depth || expected > opts.max_count {
                continue;
            }
            let found = perft(&pos, depth);
            checks += 1;
            nodes += found;
            if found != expected {
                bad.push(format!(
                    "MISMATCH [{name}] {} depth {depth}: expected {expected}, found {found}",
                    entry.fen
                ));
            }
        }
        let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
        for b in &bad {
            say(b.clone());
        }
        if finished.is_multiple_of(50) || finished == entries.len() {
            say(format!("progress: {finished}/{} positions", entries.len()));
        }
        if let Ok(mut r) = report.lock() {
            r.checks += checks;
            r.nodes += nodes;
            r.mismatches.extend(bad);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..opts.threads.max(1) {
            s.spawn(work);
        }
        work();
    });
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.seconds = start.elapsed().as_secs_f64();
    report
}
