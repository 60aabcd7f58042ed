//! A handful of fast games between two instances of the real binary, with the
//! clocks kept here as a GUI keeps them: every `bestmove` must be legal and
//! must come. Clock overruns are printed, not failed: whether a move lands
//! inside a few hundred milliseconds depends on the machine's load, so time
//! losses are measured in matches (see the README), not asserted here. Once
//! a clock is overrun the engine is sent a negative time and must still answer.

mod common;

use common::Engine;
use guoxiang::board::movegen::legal_moves;
use guoxiang::Position;
use std::time::{Duration, Instant};

/// Starts an engine through the shared driver and waits until it is ready.
fn start_engine() -> Engine {
    let mut e = Engine::spawn();
    e.send("uci");
    wait_for(&mut e, "uciok", Duration::from_secs(10));
    e.send("setoption name Hash value 8");
    e.send("isready");
    wait_for(&mut e, "readyok", Duration::from_secs(10));
    e
}

/// Waits for a line starting with `prefix`; fails the test after `timeout`.
fn wait_for(e: &mut Engine, prefix: &str, timeout: Duration) -> String {
    e.expect_line(|l| l.starts_with(prefix), timeout)
        .unwrap_or_else(|err| panic!("no '{prefix}' within {timeout:?}: {err}"))
}

enum Outcome {
    Mate,
    Draw(&'static str),
    PlyLimit,
}

fn play_game(
    opening: &[&str],
    engines: &mut [Engine; 2],
    base_ms: i64,
    inc_ms: i64,
) -> (Outcome, usize) {
    let mut pos = Position::startpos();
    let mut history: Vec<u64> = Vec::new();
    let mut moves: Vec<String> = Vec::new();
    for text in opening {
        let mv = pos.parse_uci_move(text).expect("opening move is legal");
        history.push(pos.key());
        pos.make_move(mv);
        moves.push(text.to_string());
    }
    let mut clock = [base_ms, base_ms];
    for e in engines.iter_mut() {
        e.send("ucinewgame");
        e.send("isready");
        wait_for(e, "readyok", Duration::from_secs(10));
    }
    for ply in 0..300 {
        if legal_moves(&pos).is_empty() {
            return (
                if pos.in_check() {
                    Outcome::Mate
                } else {
                    Outcome::Draw("stalemate")
                },
                ply,
            );
        }
        if pos.is_dead_position() {
            return (Outcome::Draw("dead position"), ply);
        }
        if pos.fifty_move_clock_expired() {
            return (Outcome::Draw("50 moves"), ply);
        }
        if pos.repetitions(&history) >= 2 {
            return (Outcome::Draw("threefold repetition"), ply);
        }
        let side = pos.side_to_move().index();
        let engine = &mut engines[side];
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        engine.send(&format!(
            "go wtime {} btime {} winc {inc_ms} binc {inc_ms}",
            clock[0], clock[1]
        ));
        let started = Instant::now();
        // The generous wait only tells a hang from a slow answer (see the module doc).
        let line = wait_for(
            engine,
            "bestmove",
            Duration::from_millis(clock[side].max(0) as u64 + 5000),
        );
        let used = started.elapsed().as_millis() as i64;
        if used > clock[side] {
            eprintln!(
                "note: {used} ms used with {} ms on the clock after {} moves",
                clock[side],
                moves.len()
            );
        }
        clock[side] += inc_ms - used;
        let text = line.split_whitespace().nth(1).expect("bestmove has a move");
        let mv = pos
            .parse_uci_move(text)
            .unwrap_or_else(|| panic!("illegal bestmove {text} in {}", pos.to_fen()));
        if let Some(ponder) = line.split_whitespace().nth(3) {
            let mut next = pos;
            next.make_move(mv);
            assert!(
                next.parse_uci_move(ponder).is_some(),
                "illegal ponder move {ponder}"
            );
        }
        history.push(pos.key());
        pos.make_move(mv);
        moves.push(text.to_string());
    }
    (Outcome::PlyLimit, 300)
}

#[test]
fn fast_games_are_legal_and_answered() {
    let openings: [&[&str]; 4] = [
        &["e2e4", "c7c5", "g1f3"],
        &["d2d4", "g8f6", "c2c4", "e7e6"],
        &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"],
        &["c2c4", "e7e5", "b1c3"],
    ];
    let mut engines = [start_engine(), start_engine()];
    let mut total_plies = 0;
    for (i, opening) in openings.iter().enumerate() {
        // Alternate colours between games.
        if i % 2 == 1 {
            engines.swap(0, 1);
        }
        let (outcome, plies) = play_game(opening, &mut engines, 2000, 20);
        total_plies += plies;
        let how = match outcome {
            Outcome::Mate => "checkmate".to_string(),
            Outcome::Draw(why) => format!("draw ({why})"),
            Outcome::PlyLimit => "ply limit".to_string(),
        };
        eprintln!("game {}: {how} after {plies} plies", i + 1);
    }
    assert!(total_plies >= 40, "the games were actually played");
}
