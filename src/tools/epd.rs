//! `guoxiang epd`: runs a test suite of EPD positions (`bm` best moves, `am`
//! moves to avoid, and the scored alternatives of the Strategic Test Suite in
//! `c0 "f5=10, Bf2=5, ..."`) and says how many the engine solves. A quick,
//! repeatable check of tactics and judgement next to the slower matches.

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::san::{parse_san, to_san};
use crate::eval::EvalConfig;
use crate::search::time::Limits;
use crate::search::tt::TranspositionTable;
use crate::search::{search_sync, SearchRequest, ThreadData};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One position of a suite and what counts as solving it.
#[derive(Clone, Debug)]
pub struct EpdEntry {
    pub position: Position,
    pub id: String,
    /// `bm`: playing any of these solves the position.
    pub best: Vec<Move>,
    /// `am`: playing any of these fails it.
    pub avoid: Vec<Move>,
    /// STS-style `c0` points per move (10 for the best); other moves score 0.
    pub points: Vec<(Move, u32)>,
}

/// How one position went.
#[derive(Clone, Debug)]
pub struct EpdResult {
    pub played: Option<Move>,
    pub solved: bool,
    pub points: u32,
}

impl EpdEntry {
    /// Judges the move the engine chose.
    pub fn judge(&self, played: Option<Move>) -> EpdResult {
        let solved = played.is_some_and(|m| {
            (self.best.is_empty() || self.best.contains(&m)) && !self.avoid.contains(&m)
        });
        let points = played
            .and_then(|m| self.points.iter().find(|(p, _)| *p == m))
            .map_or(0, |&(_, pts)| pts);
        EpdResult {
            played,
            solved,
            points,
        }
    }

    /// The most points the position can give (0 when it has no `c0` scores).
    pub fn max_points(&self) -> u32 {
        self.points.iter().map(|&(_, p)| p).max().unwrap_or(0)
    }

    /// The suite's group for a per-theme summary: the id up to its last `.`
    /// (`STS(v1.0) Undermine.001` -> `STS(v1.0) Undermine`).
    pub fn group(&self) -> &str {
        self.id.rsplit_once('.').map_or("", |(g, _)| g)
    }
}

/// Splits an EPD line's operations on `;`, leaving `;` inside quotes alone.
fn operations(text: &str) -> Vec<String> {
    let mut ops = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ';' if !quoted => ops.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    ops.push(current);
    ops.into_iter()
        .map(|op| op.trim().to_string())
        .filter(|op| !op.is_empty())
        .collect()
}

/// The first `n` whitespace-separated words of `text` (fewer if it has fewer) and what follows them.
fn leading_words(text: &str, n: usize) -> (Vec<&str>, &str) {
    let mut rest = text;
    let mut words = Vec::new();
    while words.len() < n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        words.push(&rest[..end]);
        rest = &rest[end..];
    }
    (words, rest)
}

/// Parses one EPD line: `None` for a blank or comment line, an error that
/// names the problem for a line that cannot be used.
pub fn parse_line(line: &str, chess960: bool) -> Result<Option<EpdEntry>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (fields, mut rest) = leading_words(line, 4);
    if fields.len() < 4 {
        return Err("fewer than four FEN fields".into());
    }
    // Move counters, when the line carries them FEN-style before the operations.
    let mut counters = "0 1".to_string();
    let (words, after_words) = leading_words(rest, 2);
    let numbers: Vec<u16> = words
        .iter()
        .filter_map(|w| w.trim_end_matches(';').parse().ok())
        .collect();
    if numbers.len() == 2 {
        counters = format!("{} {}", numbers[0], numbers[1]);
        rest = after_words;
    }
    let fen = format!("{} {counters}", fields[..4].join(" "));
    let position = Position::from_fen(&fen, chess960).map_err(|e| format!("bad FEN: {e}"))?;

    let mut entry = EpdEntry {
        position,
        id: String::new(),
        best: Vec::new(),
        avoid: Vec::new(),
        points: Vec::new(),
    };
    let read_moves = |operand: &str, opcode: &str| -> Result<Vec<Move>, String> {
        operand
            .split_whitespace()
            .map(|san| {
                parse_san(&position, san)
                    .ok_or_else(|| format!("{opcode} '{san}' is not legal here"))
            })
            .collect()
    };
    for op in operations(rest) {
        let (opcode, operand) = op.split_once(char::is_whitespace).unwrap_or((&op, ""));
        let operand = operand.trim().trim_matches('"');
        match opcode {
            "bm" => entry.best = read_moves(operand, "bm")?,
            "am" => entry.avoid = read_moves(operand, "am")?,
            "id" => entry.id = operand.to_string(),
            // STS scores; any other use of `c0` is a comment and is ignored.
            "c0" => entry.points = sts_points(&position, operand).unwrap_or_default(),
            _ => {}
        }
    }
    if entry.best.is_empty() && entry.avoid.is_empty() && entry.points.is_empty() {
        return Err("no bm, am or scored c0 to check".into());
    }
    Ok(Some(entry))
}

/// `f5=10, Bf2=5, ...` as moves with points; `None` if any item is not that.
fn sts_points(position: &Position, text: &str) -> Option<Vec<(Move, u32)>> {
    text.split(',')
        .map(|item| {
            let (san, pts) = item.trim().split_once('=')?;
            Some((parse_san(position, san)?, pts.trim().parse().ok()?))
        })
        .collect()
}

/// What a run of the suite adds up to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub positions: usize,
    pub solved: usize,
    pub points: u64,
    pub max_points: u64,
}

impl Tally {
    fn add(&mut self, entry: &EpdEntry, result: &EpdResult) {
        self.positions += 1;
        self.solved += usize::from(result.solved);
        self.points += u64::from(result.points);
        self.max_points += u64::from(entry.max_points());
    }

    fn line(&self) -> String {
        let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
        let mut s = format!(
            "solved {}/{} ({:.1}%)",
            self.solved,
            self.positions,
            pct(self.solved as f64, self.positions as f64)
        );
        if self.max_points > 0 {
            s.push_str(&format!(
                ", points {}/{} ({:.1}%)",
                self.points,
                self.max_points,
                pct(self.points as f64, self.max_points as f64)
            ));
        }
        s
    }
}

/// How each position is searched.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub limits: Limits,
    pub hash_mb: usize,
    /// Positions searched at once, one search thread each.
    pub workers: usize,
    /// The evaluation searched with (`--no-nnue`: the hand-written one).
    pub eval: EvalConfig,
}

/// Searches every entry (a fresh table and fresh statistics for each, so a
/// result does not depend on the order or the number of workers under a node
/// or depth limit) and returns the results in the suite's order.
pub fn run(
    entries: &[EpdEntry],
    options: &RunOptions,
    on_result: &(dyn Fn(usize, &EpdResult) + Sync),
) -> Result<Vec<EpdResult>, String> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<EpdResult>>> = Mutex::new(vec![None; entries.len()]);
    let failure: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..options.workers.clamp(1, entries.len().max(1)) {
            s.spawn(|| {
                let tt = match TranspositionTable::new(options.hash_mb) {
                    Ok(tt) => tt,
                    Err(e) => {
                        if let Ok(mut f) = failure.lock() {
                            *f = Some(e);
                        }
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = entries.get(i) else { break };
                    tt.clear();
                    let mut data = vec![ThreadData::default()];
                    let mut request = SearchRequest::new(entry.position, options.limits.clone());
                    request.eval = options.eval.clone();
                    let played = search_sync(&request, &tt, &mut data).best;
                    let result = entry.judge(played);
                    on_result(i, &result);
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(result);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let results = results
        .into_inner()
        .map_err(|_| "a worker failed".to_string())?;
    results
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| "a worker stopped early".to_string())
}

/// The options of `guoxiang epd`.
#[derive(clap::Args, Debug)]
pub struct EpdArgs {
    /// The suite: one EPD position a line
    file: String,
    /// Milliseconds per position [default: 1000 unless --nodes or --depth]
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Nodes per position, instead of --movetime
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Depth per position (1 to 64), instead of --movetime
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    depth: Option<i32>,
    /// Transposition table per worker, in MB (1 to 65536)
    #[arg(long = "hash", value_name = "MB", default_value_t = 16)]
    hash_mb: usize,
    /// Positions searched at once, one thread each (1 to 256)
    #[arg(long, value_name = "N", default_value_t = 1)]
    workers: usize,
    /// Only the first N usable positions [default: all]
    #[arg(long, value_name = "N")]
    max: Option<usize>,
    /// Chess960 FENs: castling as king takes rook
    #[arg(long = "960")]
    chess960: bool,
    /// Print the totals only
    #[arg(long)]
    quiet: bool,
    /// Play with the hand-written evaluation alone (as `setoption name UseNNUE value false`)
    #[arg(long)]
    no_nnue: bool,
}

/// The `epd` subcommand.
pub fn command(args: EpdArgs) -> Result<ExitCode, String> {
    let EpdArgs {
        file,
        movetime,
        nodes,
        depth,
        hash_mb,
        workers,
        max,
        chess960,
        quiet,
        no_nnue,
    } = args;
    let eval = if no_nnue {
        EvalConfig::hand_written()
    } else {
        EvalConfig::default()
    };
    let max = max.unwrap_or(usize::MAX);
    let mut limits = Limits {
        movetime,
        nodes,
        depth,
        ..Limits::default()
    };
    let limit_count = [
        limits.movetime.is_some(),
        limits.nodes.is_some(),
        limits.depth.is_some(),
    ]
    .iter()
    .filter(|&&set| set)
    .count();
    match limit_count {
        0 => limits.movetime = Some(1000),
        1 => {}
        _ => return Err("give one of --movetime, --nodes and --depth".into()),
    }
    if limits.movetime == Some(0) || limits.nodes == Some(0) {
        return Err("the limit must be above 0".into());
    }
    if let Some(d) = limits.depth {
        if !(1..=64).contains(&d) {
            return Err("--depth must be from 1 to 64".into());
        }
    }
    if !(1..=65536).contains(&hash_mb) {
        return Err("--hash must be from 1 to 65536 MB".into());
    }
    if !(1..=256).contains(&workers) {
        return Err("--workers must be from 1 to 256".into());
    }
    let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {file}: {e}"))?;

    let mut entries = Vec::new();
    let mut skipped = 0;
    for (n, line) in text.lines().enumerate() {
        match parse_line(line, chess960) {
            Ok(Some(entry)) => entries.push(entry),
            Ok(None) => {}
            Err(e) => {
                skipped += 1;
                eprintln!("epd: {file}:{}: skipped: {e}", n + 1);
            }
        }
        if entries.len() >= max {
            break;
        }
    }
    if entries.is_empty() {
        return Err(format!("{file} has no usable positions"));
    }

    let total = entries.len();
    let report = |i: usize, result: &EpdResult| {
        if quiet {
            return;
        }
        let entry = &entries[i];
        let san = |m: Move| to_san(&entry.position, m);
        let played = result.played.map_or("(none)".to_string(), san);
        let mut expected: Vec<String> = entry.best.iter().map(|&m| san(m)).collect();
        expected.extend(entry.avoid.iter().map(|&m| format!("not {}", san(m))));
        let verdict = if result.solved { "ok" } else { "--" };
        let points = if entry.points.is_empty() {
            String::new()
        } else {
            format!(" {:2} pts", result.points)
        };
        println!(
            "{:>4}/{total} {verdict}{points} {played:8} {:<24} {}",
            i + 1,
            expected.join(" "),
            entry.id
        );
    };
    let options = RunOptions {
        limits,
        hash_mb,
        workers,
        eval,
    };
    let results = run(&entries, &options, &report)?;

    let mut overall = Tally::default();
    let mut groups: BTreeMap<&str, Tally> = BTreeMap::new();
    for (entry, result) in entries.iter().zip(&results) {
        overall.add(entry, result);
        groups.entry(entry.group()).or_default().add(entry, result);
    }
    if groups.len() > 1 {
        for (group, tally) in &groups {
            let name = if group.is_empty() {
                "(no group)"
            } else {
                group
            };
            println!("{name}: {}", tally.line());
        }
    }
    if skipped > 0 {
        println!("skipped {skipped} unusable lines");
    }
    println!("{}", overall.line());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STS_LINE: &str = "1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; \
        id \"STS(v1.0) Undermine.001\"; c0 \"f5=10, Bf2=5, Bg4=3, fxg5=2\";";

    fn uci(entry: &EpdEntry, text: &str) -> Move {
        entry
            .position
            .parse_uci_move(text)
            .expect("legal test move")
    }

    #[test]
    fn reads_best_moves_ids_and_sts_points() {
        let entry = parse_line(STS_LINE, false).unwrap().unwrap();
        assert_eq!(entry.id, "STS(v1.0) Undermine.001");
        assert_eq!(entry.group(), "STS(v1.0) Undermine");
        assert_eq!(entry.best, vec![uci(&entry, "f4f5")]);
        assert_eq!(entry.points.len(), 4);
        assert_eq!(entry.max_points(), 10);
        assert_eq!(entry.judge(Some(uci(&entry, "f4f5"))).points, 10);
        let second = entry.judge(Some(uci(&entry, "d4f2")));
        assert!(!second.solved);
        assert_eq!(second.points, 5);
        assert_eq!(entry.judge(Some(uci(&entry, "g1h1"))).points, 0);
        assert!(!entry.judge(None).solved);
    }

    #[test]
    fn avoid_moves_and_fen_counters() {
        let line = "4k3/8/8/8/8/8/4P3/4K3 w - - 3 40 am e3 Kd1; id \"x\";";
        let entry = parse_line(line, false).unwrap().unwrap();
        assert_eq!(entry.position.halfmove_clock(), 3);
        assert_eq!(entry.position.fullmove_number(), 40);
        assert!(entry.best.is_empty());
        assert!(!entry.judge(Some(uci(&entry, "e2e3"))).solved);
        assert!(!entry.judge(Some(uci(&entry, "e1d1"))).solved);
        assert!(entry.judge(Some(uci(&entry, "e2e4"))).solved);
    }

    #[test]
    fn semicolons_inside_quotes_do_not_split() {
        assert_eq!(
            operations("bm e4; id \"a; b\"; c0 \"x\""),
            vec!["bm e4", "id \"a; b\"", "c0 \"x\""]
        );
    }

    #[test]
    fn unusable_lines_say_why() {
        assert!(parse_line("", false).unwrap().is_none());
        assert!(parse_line("# comment", false).unwrap().is_none());
        for (line, why) in [
            ("8/8/8 w", "fewer than four"),
            ("8/8/8/8/8/8/8/8 w - - bm e4;", "bad FEN"),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - bm e5;", "bm 'e5' is not legal"),
            ("4k3/8/8/8/8/8/4P3/4K3 w - - id \"x\";", "no bm"),
        ] {
            let err = parse_line(line, false).unwrap_err();
            assert!(err.contains(why), "{line}: {err}");
        }
        // A c0 that is a plain comment is ignored, not an error.
        let entry = parse_line(
            "4k3/8/8/8/8/8/4P3/4K3 w - - bm e4; c0 \"a comment\";",
            false,
        )
        .unwrap()
        .unwrap();
        assert!(entry.points.is_empty());
    }

    #[test]
    fn the_search_solves_a_mate_in_one_and_misses_nothing_it_should_avoid() {
        let entries: Vec<EpdEntry> = [
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate.1\";",
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - am Ra7; id \"mate.2\";",
        ]
        .iter()
        .map(|l| parse_line(l, false).unwrap().unwrap())
        .collect();
        let options = RunOptions {
            limits: Limits {
                depth: Some(4),
                ..Limits::default()
            },
            hash_mb: 1,
            workers: 2,
            eval: EvalConfig::default(),
        };
        let results = run(&entries, &options, &|_, _| {}).unwrap();
        assert_eq!(results.len(), 2);
        assert!(results[0].solved, "{:?}", results[0]);
        assert_eq!(results[0].played, Some(uci(&entries[0], "a1a8")));
        assert!(results[1].solved, "{:?}", results[1]);
    }
}
