//! Generated-input tests: hundreds of thousands of random, truncated and
//! mutated commands and FENs go through the UCI command handler (in process)
//! and through the real binary. The engine must never panic or hang, must
//! answer every `isready`, must send exactly one `bestmove` per search, and
//! must only ever print well-formed protocol lines.
//!
//! Deterministic: a fixed-seed generator, so a failure reproduces.

use guoxiang::uci::Engine;
use std::cell::RefCell;
use std::io::Write;
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

const MOVES: &[&str] = &[
    "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1", "e1h1", "d2d4", "d7d5", "a7a8q",
    "b2b1n", "e5d6", "h2h4", "0000", "e2e5", "e9e4", "xx", "e1c1", "a1a1", "e2e4e", "E2E4",
    "c7c8r",
];

const COMMANDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3 b8c6",
    "position fen",
    "position moves e2e4",
    "setoption name Hash value 1",
    "setoption name Hash value 8",
    "setoption name Threads value 2",
    "setoption name Threads value 1",
    "setoption name MultiPV value 3",
    "setoption name Move Overhead value 50",
    "setoption name UCI_Chess960 value true",
    "setoption name UCI_Chess960 value false",
    "setoption name Clear Hash",
    "setoption name Ponder value true",
    "setoption name",
    "setoption",
    "go depth 1",
    "go depth 2",
    "go nodes 500",
    "go movetime 1",
    "go wtime 40 btime 40 winc 0 binc 0",
    "go wtime 0 btime -50",
    "go wtime 30 btime 30 movestogo 1",
    "go mate 1 depth 3",
    "go searchmoves e2e4 d2d4 depth 2",
    "go infinite",
    "go ponder depth 2",
    "go perft 2",
    "stop",
    "ponderhit",
    "d",
    "eval",
    "debug on",
    "register later",
];

const TOKENS: &[&str] = &[
    "go",
    "position",
    "fen",
    "startpos",
    "moves",
    "setoption",
    "name",
    "value",
    "depth",
    "nodes",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
    "stop",
    "isready",
    "uci",
    "Hash",
    "Threads",
    "MultiPV",
    "-1",
    "0",
    "1",
    "3",
    "99999999999999999999",
    "-9223372036854775808",
    "1e9",
    "NaN",
    "KQkq",
    "w",
    "b",
    "-",
    "8/8/8",
    "\t",
    "é",
    "\u{0}",
    "\u{7f}",
];

/// A FEN with a few random characters replaced, dropped or duplicated, or cut short.
fn mutate_fen(rng: &mut Rng, fen: &str) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    for _ in 0..1 + rng.below(3) {
        if chars.is_empty() {
            break;
        }
        let i = rng.below(chars.len());
        match rng.below(5) {
            0 => {
                chars[i] = "pnbrqkPNBRQK12345678/ -wbKQkqa-h0-9"
                    .chars()
                    .nth(rng.below(34))
                    .unwrap_or('x')
            }
            1 => {
                chars.remove(i);
            }
            2 => {
                let c = chars[i];
                chars.insert(i, c);
            }
            3 => chars.truncate(i),
            _ => {
                let j = rng.below(chars.len());
                chars.swap(i, j);
            }
        }
    }
    chars.into_iter().collect()
}

/// One generated input line.
fn generate_line(rng: &mut Rng) -> String {
    match rng.below(10) {
        // A real command, unchanged.
        0 | 1 => rng.pick(COMMANDS).to_string(),
        // A position command with a (possibly mutated) FEN and a move list.
        2 | 3 => {
            let fen = rng.pick(FENS);
            let fen = if rng.below(2) == 0 {
                mutate_fen(rng, fen)
            } else {
                fen.to_string()
            };
            let mut line = format!("position fen {fen}");
            if rng.below(2) == 0 {
                line.push_str(" moves");
                for _ in 0..rng.below(6) {
                    line.push(' ');
                    line.push_str(rng.pick(MOVES));
                }
            }
            line
        }
        // A real command with tokens dropped, duplicated, swapped or replaced.
        4..=6 => {
            let mut tokens: Vec<String> = rng.pick(COMMANDS).split(' ').map(String::from).collect();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(tokens.len());
                match rng.below(4) {
                    0 if tokens.len() > 1 => {
                        tokens.remove(i);
                    }
                    1 => {
                        let t = tokens[i].clone();
                        tokens.insert(i, t);
                    }
                    2 => {
                        let j = rng.below(tokens.len());
                        tokens.swap(i, j);
                    }
                    _ => tokens[i] = rng.pick(TOKENS).to_string(),
                }
            }
            tokens.join(" ")
        }
        // Random tokens.
        7 | 8 => (0..1 + rng.below(8))
            .map(|_| rng.pick(TOKENS))
            .collect::<Vec<_>>()
            .join(" "),
        // Random printable and control characters, sometimes long.
        _ => {
            let len = if rng.below(20) == 0 {
                5000 + rng.below(20_000)
            } else {
                rng.below(60)
            };
            (0..len)
                .map(|_| char::from_u32(rng.below(0x3000) as u32).unwrap_or('?'))
                .filter(|&c| c != '\n')
                .collect()
        }
    }
}

/// Whether a line asks for something that only takes long (a huge table, a
/// deep perft, a thousand threads): those are tested on their own elsewhere.
/// Numbers are read as `i128` because the engine saturates values too big
/// for 64 bits (`go perft 99999999999999999999` is a perft 15).
fn too_expensive(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let tokens: Vec<&str> = lower.split_whitespace().collect();
    // Coarse on purpose: `key` anywhere plus any number over `limit` anywhere
    // (a mutated line may have the value away from its keyword).
    let big_after = |key: &str, limit: i128| {
        lower.contains(key)
            && tokens
                .iter()
                .any(|t| t.parse::<i128>().is_ok_and(|n| n > limit))
    };
    (lower.contains("hash") && big_after("value", 64))
        || (lower.contains("threads") && big_after("value", 4))
        || (lower.contains("multipv") && big_after("value", 8))
        || big_after("perft", 3)
        || (tokens.first() == Some(&"go") && big_after("depth", 6))
        || (tokens.first() == Some(&"go") && big_after("nodes", 200_000))
        || (tokens.first() == Some(&"go") && big_after("mate", 4))
}

/// Whether the engine starts a search for this line (a `go` that is not a perft).
fn starts_search(line: &str) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.first() == Some(&"go")
        && !tokens
            .windows(2)
            .any(|w| w[0] == "perft" && w[1].parse::<i128>().is_ok())
}

#[derive(Clone, Default)]
struct Captured(Rc<RefCell<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Aborts the whole test process if `progress` stops moving: a hang must fail, not stall CI.
fn watchdog(progress: Arc<AtomicU64>, what: &'static str) {
    std::thread::spawn(move || {
        let mut last = u64::MAX;
        loop {
            std::thread::sleep(Duration::from_secs(60));
            let now = progress.load(Ordering::Relaxed);
            if now == u64::MAX {
                return;
            }
            if now == last {
                eprintln!("{what}: no progress for 60 s after input {now}: hang");
                std::process::abort();
            }
            last = now;
        }
    });
}

fn is_protocol_line(line: &str) -> bool {
    const PREFIXES: [&str; 6] = [
        "id ",
        "option name ",
        "info ",
        "bestmove ",
        "Nodes searched: ",
        "",
    ];
    line == "uciok"
        || line == "readyok"
        || PREFIXES[..5].iter().any(|p| line.starts_with(p))
        || line.is_empty()
        // perft divide lines: `e2e4: 20`
        || line.split_once(": ").is_some_and(|(m, n)| m.len() >= 4 && m.len() <= 5 && n.parse::<u64>().is_ok())
}

#[test]
fn generated_commands_in_process() {
    let inputs: u64 = if cfg!(debug_assertions) {
        30_000
    } else {
        300_000
    };
    let captured = Captured::default();
    let progress = Arc::new(AtomicU64::new(0));
    watchdog(Arc::clone(&progress), "in-process fuzz");

    let mut engine = Engine::with_output(Box::new(captured.clone()));
    let mut rng = Rng(0x6775_6F78_6961_6E67);
    let (mut isready, mut searches, mut run) = (0, 0, 0u64);
    let start = Instant::now();
    let mut n = 0;
    while run < inputs {
        n += 1;
        let line = generate_line(&mut rng);
        // Searches cost milliseconds each: keep one in ten so the parser gets most inputs.
        if too_expensive(&line) || (starts_search(&line) && rng.below(10) != 0) {
            continue;
        }
        if line.split_whitespace().next() == Some("isready") {
            isready += 1;
        }
        if starts_search(&line) {
            searches += 1;
        }
        // `quit` only ends the loop in the binary; here the engine goes on.
        engine.handle_line(&line);
        run += 1;
        progress.store(n, Ordering::Relaxed);
    }
    engine.handle_line("stop");
    engine.handle_line("position startpos moves e2e4");
    engine.handle_line("go depth 3");
    engine.handle_line("stop");
    engine.handle_line("isready");
    progress.store(u64::MAX, Ordering::Relaxed);

    let out = String::from_utf8(captured.0.borrow().clone()).expect("output is UTF-8");
    let lines: Vec<&str> = out.lines().collect();
    let readyok = lines.iter().filter(|l| **l == "readyok").count();
    let bestmoves: Vec<&&str> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    eprintln!(
        "{run} generated inputs in {:.1} s: {searches} searches, {isready} isready, {} output lines",
        start.elapsed().as_secs_f64(),
        lines.len()
    );
    assert_eq!(readyok, isready + 1, "every isready is answered");
    assert_eq!(
        bestmoves.len(),
        searches + 1,
        "exactly one bestmove per search"
    );
    for l in &lines {
        assert!(is_protocol_line(l), "not a protocol line: {l:?}");
    }
    // The engine still works: the last search was in the position after e2e4.
    let last = bestmoves.last().expect("a last bestmove");
    let mv = last.split_whitespace().nth(1).expect("a move");
    let mut pos = guoxiang::Position::startpos();
    let e4 = pos.parse_uci_move("e2e4").expect("e2e4");
    pos.make_move(e4);
    assert!(
        pos.parse_uci_move(mv).is_some(),
        "final bestmove {mv} is legal"
    );
}

#[test]
fn generated_fens_never_panic() {
    let inputs = if cfg!(debug_assertions) {
        20_000
    } else {
        200_000
    };
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut accepted = 0;
    for _ in 0..inputs {
        let base = rng.pick(FENS);
        let fen = mutate_fen(&mut rng, base);
        for chess960 in [false, true] {
            if let Ok(pos) = guoxiang::Position::from_fen(&fen, chess960) {
                accepted += 1;
                assert_eq!(pos.key(), pos.compute_key(), "{fen}");
                let again = guoxiang::Position::from_fen(&pos.to_fen(), pos.is_chess960())
                    .expect("own FEN parses");
                assert_eq!(again, pos, "{fen}");
                let moves = guoxiang::board::movegen::legal_moves(&pos);
                assert_eq!(
                    moves.len() as u64,
                    guoxiang::board::movegen::count_legal(&pos)
                );
                for mv in moves {
                    let mut next = pos;
                    next.make_move(mv);
                    assert_eq!(next.key(), next.compute_key(), "{fen} {}", mv.to_uci(false));
                }
            }
        }
    }
    assert!(
        accepted > 1000,
        "enough mutated FENs are still legal to exercise the rest"
    );
}

#[test]
fn generated_bytes_through_the_binary() {
    let mut rng = Rng(0xFEED_FACE_CAFE_BEEF);
    let mut input: Vec<u8> = Vec::new();
    let mut isready = 1;
    let mut searches = 0;
    for i in 0..20_000 {
        if i % 97 == 0 {
            // Raw bytes, invalid UTF-8 included.
            let len = rng.below(300);
            input.extend((0..len).map(|_| rng.next() as u8).filter(|&b| b != b'\n'));
        } else {
            let line = generate_line(&mut rng);
            if too_expensive(&line) || line.split_whitespace().next() == Some("quit") {
                continue;
            }
            if line.split_whitespace().next() == Some("isready") {
                isready += 1;
            }
            if starts_search(&line) {
                searches += 1;
            }
            input.extend_from_slice(line.as_bytes());
        }
        input.push(if rng.below(10) == 0 { b'\r' } else { b' ' });
        input.push(b'\n');
    }
    // A line far over the engine's 1 MB limit, then the closing commands.
    input.extend(std::iter::repeat_n(b'x', 3 << 20));
    input.extend_from_slice(b"\nstop\nisready\nquit\n");

    let mut child = Command::new(env!("CARGO_BIN_EXE_guoxiang"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().expect("engine exits");
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit status {:?}; stderr: {stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let readyok = stdout.lines().filter(|l| *l == "readyok").count();
    let bestmoves = stdout.lines().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(readyok, isready, "every isready answered");
    assert_eq!(bestmoves, searches, "one bestmove per search");
    assert!(
        stdout.contains("info string input line longer than"),
        "the long line was reported"
    );
}
