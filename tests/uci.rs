//! End-to-end UCI tests: the real binary driven over pipes. Every move the
//! engine prints (bestmove, ponder, pv) is checked for legality with the library.

mod common;

use common::{
    check_bestmove, check_pv, exact_move, forces_mate, infos, is_bestmove, replay, Engine, Score,
    TIMEOUT,
};
use guoxiang::board::movegen::legal_moves;
use std::collections::HashSet;

const KIWIPETE: &str =
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// White mates in two (e.g. 1. Ra7 Kg8 2. Rc8#); no mate in one.
const MATE_IN_2: &str = "position fen 7k/8/8/8/8/8/8/R1R3K1 w - - 0 1";
const FOOLS_MATE: &str = "position startpos moves f2f3 e7e5 g2g4 d8h4";
const STALEMATE: &str = "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// Chess960: king b1 between rooks a1 and h1 (and the same for Black); all
/// four castlings are legal. Queen-side castling `b1a1` ends with Kc1 Rd1,
/// which `b1c1` (a plain king step here) does not.
const C960: &str = "position fen rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1";

fn engine() -> Engine {
    let mut e = Engine::spawn();
    e.send("uci");
    e.wait_for("uciok", |l| l == "uciok");
    e
}

/// Sets the position and runs `go`, checking the single bestmove and every PV.
fn search(e: &mut Engine, position: &str, go: &str) -> (Vec<common::Info>, String) {
    let pos = replay(position, false);
    e.send(position);
    let (lines, best) = e.go(go);
    check_bestmove(&best, &pos);
    let infos = infos(&lines);
    for info in &infos {
        check_pv(info, &pos);
    }
    (infos, best)
}

fn first_move(best: &str) -> &str {
    best.split_whitespace()
        .nth(1)
        .expect("bestmove line has a move")
}

/// The placement field of a FEN.
fn placement(fen: &str) -> &str {
    fen.split_whitespace().next().expect("FEN has a placement")
}

// ----- handshake -----

#[test]
fn handshake_lists_id_and_options_then_uciok() {
    let mut e = Engine::spawn();
    e.send("uci");
    let lines = e.wait_for("uciok", |l| l == "uciok");
    // On start, before any command, one line names the engine for a person at a terminal.
    assert!(
        lines[0].starts_with("Guoxiang ") && lines[0].contains(" by "),
        "start line: {}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("id name Guoxiang"),
        "first line after uci: {}",
        lines[1]
    );
    assert!(lines.iter().any(|l| l.starts_with("id author ")));
    let expected = [
        "option name Hash type spin",
        "option name Threads type spin",
        "option name MultiPV type spin",
        "option name Ponder type check",
        "option name Move Overhead type spin",
        "option name UCI_Chess960 type check",
        "option name UseNNUE type check",
        "option name EvalFile type string default <embedded>",
        "option name Clear Hash type button",
    ];
    for want in expected {
        assert!(
            lines.iter().any(|l| l.starts_with(want)),
            "missing '{want}' in {lines:?}"
        );
    }
    // Every spin option states default, min and max; every check option a default.
    for l in lines.iter().filter(|l| l.starts_with("option ")) {
        if l.contains(" type spin") {
            for field in [" default ", " min ", " max "] {
                assert!(l.contains(field), "'{l}' lacks{field}");
            }
        } else if l.contains(" type check") {
            assert!(
                l.ends_with("default true") || l.ends_with("default false"),
                "{l}"
            );
        }
    }
    assert_eq!(lines.last().map(String::as_str), Some("uciok"));
    assert!(
        lines[..lines.len() - 1].iter().all(|l| l != "uciok"),
        "uciok twice"
    );
    assert!(e.sync().is_empty(), "isready must answer only readyok");
}

// ----- each form of go gives exactly one legal bestmove -----

#[test]
fn go_depth() {
    let mut e = engine();
    let (infos, _) = search(&mut e, "position startpos", "go depth 5");
    assert_eq!(infos.last().map(|i| i.depth), Some(5), "last depth");
    assert!(infos.iter().all(|i| i.depth <= 5));
}

#[test]
fn go_nodes() {
    let mut e = engine();
    let (infos, _) = search(&mut e, KIWIPETE, "go nodes 20000");
    let last = infos.last().expect("at least one info line");
    // One thread checks the limit at every node: no report may exceed it.
    assert!(
        infos.iter().all(|i| i.nodes <= 20_000),
        "reported more than 20000 nodes: {}",
        last.raw
    );
}

#[test]
fn go_with_a_value_too_big_for_64_bits_saturates() {
    let mut e = engine();
    e.send("position startpos");
    let (lines, _) = e.go("go depth 3 nodes 99999999999999999999");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "a huge node count is a valid limit: {lines:?}"
    );
    let infos: Vec<_> = lines.iter().filter_map(|l| common::parse_info(l)).collect();
    assert_eq!(
        infos.last().map(|i| i.depth),
        Some(3),
        "the depth limit ends it"
    );
}

#[test]
fn go_movetime() {
    let mut e = engine();
    search(&mut e, KIWIPETE, "go movetime 200");
}

#[test]
fn go_with_clock_and_increment() {
    let mut e = engine();
    search(
        &mut e,
        "position startpos moves e2e4",
        "go wtime 1000 btime 1000 winc 10 binc 10",
    );
}

#[test]
fn go_with_movestogo_one() {
    let mut e = engine();
    search(
        &mut e,
        "position startpos",
        "go wtime 500 btime 500 movestogo 1",
    );
}

/// Only the opponent's clock: the engine assumes its own is the same
/// instead of searching until told to stop.
#[test]
fn go_with_only_the_opponents_clock() {
    let mut e = engine();
    search(&mut e, "position startpos", "go btime 300 binc 10");
    search(&mut e, "position startpos moves e2e4", "go wtime 300");
}

#[test]
fn go_with_degenerate_limits() {
    let mut e = engine();
    for go in [
        "go depth 0",
        "go nodes 1",
        "go movetime 0",
        "go movetime 1",
        "go wtime 0 btime 0",
        "go wtime -100 btime -100",
        "go wtime 1 btime 1 movestogo 1",
    ] {
        search(&mut e, "position startpos moves d2d4", go);
    }
    // A depth beyond the maximum is clamped, not treated as "search forever":
    // a stop still ends it.
    e.send("position startpos");
    e.send("go depth 1000");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("stop");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &replay("position startpos", false));
    e.sync_no_bestmove("after stop");
}

/// A limit below its minimum is raised to it, and the engine says so.
#[test]
fn go_with_a_value_below_its_minimum_says_so() {
    let mut e = engine();
    for (go, said) in [
        ("go depth 0", "go depth: 0 is below 1, using 1"),
        ("go movetime -5", "go movetime: -5 is below 1, using 1"),
        (
            "go wtime 500 btime 500 winc -10",
            "go winc: -10 is below 0, using 0",
        ),
    ] {
        e.send("position startpos");
        let (lines, best) = e.go(go);
        check_bestmove(&best, &replay("position startpos", false));
        let expected = format!("info string {said}");
        assert!(
            lines.contains(&expected),
            "'{go}' did not say '{said}': {lines:?}"
        );
    }
}

#[test]
fn go_mate_finds_the_mate_in_two() {
    let mut e = engine();
    let pos = replay(MATE_IN_2, false);
    let (infos, best) = search(&mut e, MATE_IN_2, "go mate 2");
    let last = infos.last().expect("info lines");
    assert_eq!(last.score, Score::Mate(2), "last info: {}", last.raw);
    let (mv, _) = check_bestmove(&best, &pos);
    assert!(forces_mate(&pos, mv, 2), "{best} does not force mate in 2");
    // The PV of the mate line is itself a mate: three plies ending in mate.
    assert_eq!(last.pv.len(), 3, "mate pv: {}", last.raw);
    let mut p = pos;
    for text in &last.pv {
        p.make_move(exact_move(&p, text).expect("pv checked legal"));
    }
    assert!(
        p.in_check() && legal_moves(&p).is_empty(),
        "pv ends in mate"
    );
}

#[test]
fn go_infinite_then_stop() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.sync_no_bestmove("go infinite before stop");
    e.send("stop");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &pos);
    e.sync_no_bestmove("after stop");
}

#[test]
fn plain_go_searches_until_stop() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.sync_no_bestmove("plain go before stop");
    e.send("stop");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &pos);
    e.sync_no_bestmove("after stop");
}

#[test]
fn go_then_immediate_stop_still_gives_a_legal_move() {
    let mut e = engine();
    let position = "position startpos moves e2e4 c7c5";
    let pos = replay(position, false);
    e.send(position);
    for _ in 0..5 {
        e.send("go infinite");
        e.send("stop");
        let (_, best) = e.bestmove();
        check_bestmove(&best, &pos);
        e.sync_no_bestmove("after stop");
    }
}

#[test]
fn ponder_then_ponderhit_finishes_on_its_own() {
    let mut e = engine();
    e.send("setoption name Ponder value true");
    let position = "position startpos moves e2e4 e7e5";
    let pos = replay(position, false);
    e.send(position);
    e.send("go ponder wtime 2000 btime 2000");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.sync_no_bestmove("while pondering");
    e.send("ponderhit");
    // No stop: the clock now runs and the search ends by itself.
    let (lines, best) = e.bestmove();
    check_bestmove(&best, &pos);
    for info in infos(&lines) {
        check_pv(&info, &pos);
    }
    e.sync_no_bestmove("after ponderhit's bestmove");
}

#[test]
fn ponder_search_that_already_finished_waits_for_ponderhit() {
    let mut e = engine();
    let position = "position startpos moves d2d4";
    let pos = replay(position, false);
    e.send(position);
    e.send("go ponder depth 2");
    e.wait_for("the depth 2 info line", |l| l.starts_with("info depth 2 "));
    // The search is over, but a ponder search may not answer before ponderhit or stop.
    e.sync_no_bestmove("finished ponder search before ponderhit");
    e.sync_no_bestmove("finished ponder search before ponderhit (again)");
    e.send("ponderhit");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &pos);
    e.sync_no_bestmove("after ponderhit");
}

#[test]
fn ponder_then_stop_gives_bestmove() {
    let mut e = engine();
    e.send("setoption name Ponder value true");
    let position = "position startpos moves g1f3 d7d5";
    let pos = replay(position, false);
    e.send(position);
    e.send("go ponder wtime 60000 btime 60000");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.sync_no_bestmove("while pondering");
    e.send("stop");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &pos);
    e.sync_no_bestmove("after stop");
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut e = engine();
    let (infos, best) = search(
        &mut e,
        "position startpos",
        "go searchmoves a2a3 h2h3 depth 6",
    );
    let allowed = ["a2a3", "h2h3"];
    assert!(allowed.contains(&first_move(&best)), "{best}");
    for info in &infos {
        assert!(
            allowed.contains(&info.pv[0].as_str()),
            "pv outside searchmoves: {}",
            info.raw
        );
    }
    assert_eq!(infos.last().map(|i| i.depth), Some(6));
}

#[test]
fn searchmoves_with_an_illegal_move_is_reported() {
    let mut e = engine();
    e.send("position startpos");
    e.send("go searchmoves e2e5 g1f3 depth 3");
    e.wait_for("a complaint about e2e5", |l| {
        l.starts_with("info string") && l.contains("e2e5")
    });
    let (_, best) = e.bestmove();
    assert_eq!(first_move(&best), "g1f3");
    e.sync_no_bestmove("after bestmove");
}

#[test]
fn multipv_reports_distinct_ordered_lines() {
    let mut e = engine();
    e.send("setoption name MultiPV value 3");
    let (infos, best) = search(&mut e, "position startpos moves e2e4", "go depth 6");
    let at_six: Vec<_> = infos
        .iter()
        .filter(|i| i.depth == 6 && i.bound.is_none())
        .collect();
    let mut last_per_line = std::collections::BTreeMap::new();
    for info in &at_six {
        assert!(
            (1..=3).contains(&info.multipv),
            "multipv out of range: {}",
            info.raw
        );
        last_per_line.insert(info.multipv, *info);
    }
    assert_eq!(
        last_per_line.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 3],
        "lines at depth 6: {at_six:?}"
    );
    let firsts: HashSet<&str> = last_per_line.values().map(|i| i.pv[0].as_str()).collect();
    assert_eq!(firsts.len(), 3, "first moves not distinct: {at_six:?}");
    let cp = |s: Score| match s {
        Score::Cp(c) => c,
        Score::Mate(_) => panic!("no mate here"),
    };
    let scores: Vec<i32> = last_per_line.values().map(|i| cp(i.score)).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "multipv scores not ordered: {scores:?}"
    );
    assert_eq!(
        first_move(&best),
        last_per_line[&1].pv[0],
        "bestmove is line 1"
    );
}

#[test]
fn isready_during_infinite_search_answers_and_search_goes_on() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    let before = e.sync_no_bestmove("isready during go infinite");
    let reached = common::infos(&before)
        .iter()
        .map(|i| i.depth)
        .max()
        .unwrap_or(1);
    // The search is still running: deeper iterations keep coming.
    let lines = e.wait_for("a deeper iteration", |l| {
        common::parse_info(l).is_some_and(|i| i.depth > reached)
    });
    assert!(!lines.iter().any(|l| is_bestmove(l)), "{lines:?}");
    e.sync_no_bestmove("second isready");
    e.send("stop");
    let (_, best) = e.bestmove();
    check_bestmove(&best, &pos);
    e.sync_no_bestmove("after stop");
}

// ----- positions without a legal move -----

#[test]
fn checkmated_side_answers_bestmove_none() {
    let mut e = engine();
    e.send(FOOLS_MATE);
    let (_, best) = e.go("go depth 3");
    assert_eq!(best, "bestmove (none)");
    // Also with a clock and with an infinite search (answered at stop).
    assert_eq!(e.go("go wtime 1000 btime 1000").1, "bestmove (none)");
    e.send("go infinite");
    e.sync_no_bestmove("infinite search of a mated position");
    e.send("stop");
    assert_eq!(e.bestmove().1, "bestmove (none)");
}

#[test]
fn stalemated_side_answers_bestmove_none() {
    let mut e = engine();
    e.send(STALEMATE);
    let (_, best) = e.go("go depth 3");
    assert_eq!(best, "bestmove (none)");
    let (_, best) = e.go("go movetime 50");
    assert_eq!(best, "bestmove (none)");
}

// ----- info lines -----

#[test]
fn info_lines_are_complete_and_consistent() {
    let mut e = engine();
    e.send(KIWIPETE);
    let pos = replay(KIWIPETE, false);
    let (lines, best) = e.go("go depth 7");
    check_bestmove(&best, &pos);
    let score_lines: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info") && !l.starts_with("info string"))
        .filter(|l| l.contains(" score "))
        .collect();
    assert!(!score_lines.is_empty(), "no info lines: {lines:?}");
    for l in &score_lines {
        for field in [
            " depth ",
            " seldepth ",
            " score ",
            " nodes ",
            " nps ",
            " time ",
            " pv ",
        ] {
            assert!(l.contains(field), "'{l}' lacks{field}");
        }
        let s = l.split_whitespace().collect::<Vec<_>>();
        let at = s.iter().position(|&t| t == "score").expect("score");
        assert!(matches!(s[at + 1], "cp" | "mate"), "{l}");
    }
    let infos = infos(&lines);
    for i in &infos {
        check_pv(i, &pos);
        let sel = i.seldepth.expect("seldepth");
        assert!(sel >= i.depth, "seldepth < depth: {}", i.raw);
        assert!(i.hashfull.is_none_or(|h| h <= 1000), "{}", i.raw);
    }
    let depths: Vec<i32> = infos.iter().map(|i| i.depth).collect();
    assert!(
        depths.windows(2).all(|w| w[0] <= w[1]),
        "depth went down: {depths:?}"
    );
    let nodes: Vec<u64> = infos.iter().map(|i| i.nodes).collect();
    assert!(
        nodes.windows(2).all(|w| w[0] <= w[1]),
        "nodes went down: {nodes:?}"
    );
    let times: Vec<u64> = infos.iter().map(|i| i.time.expect("time")).collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "time went down: {times:?}"
    );
    let last = infos.last().expect("info lines");
    assert_eq!(last.depth, 7);
    assert_eq!(
        first_move(&best),
        last.pv[0],
        "bestmove is the first move of the last pv"
    );
}

// ----- bad input -----

#[test]
fn bad_position_commands_keep_the_previous_position() {
    let mut e = engine();
    let good = "position startpos moves e2e4 c7c5 g1f3";
    let pos = replay(good, false);
    e.send(good);
    let fen = e.fen();
    assert_eq!(fen, pos.to_fen());
    for bad in [
        "position fen rnbqkbnr w",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "position fen rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K1K1 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K2q b - - 0 1",
        "position fen P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves e2e4 e7e5 e4e5",
        "position startpos moves e7e5",
        "position startpos moves e2e4 zz",
        "position startpos e2e4",
        "position",
        "position somewhere",
    ] {
        e.send(bad);
        e.wait_for(&format!("an info string for '{bad}'"), |l| {
            l.starts_with("info string")
        });
        e.sync();
        assert_eq!(e.fen(), fen, "'{bad}' changed the position");
    }
    let (_, best) = e.go("go depth 1");
    check_bestmove(&best, &pos);
}

#[test]
fn bad_options_and_go_values_are_reported() {
    let mut e = engine();
    for bad in [
        "setoption name Hash value abc",
        "setoption name Hash value 0",
        "setoption name Hash value -5",
        "setoption name Hash",
        "setoption name Threads value 0",
        "setoption name Threads value 99999",
        "setoption name MultiPV value 0",
        "setoption name Ponder value maybe",
        "setoption name UCI_Chess960 value 1",
        "setoption name UseNNUE value yes",
        "setoption name Nope value 1",
        "setoption Hash value 16",
        "setoption",
    ] {
        e.send(bad);
        e.wait_for(&format!("an info string for '{bad}'"), |l| {
            l.starts_with("info string")
        });
        assert!(e.sync().is_empty());
    }
    // Option names are case-insensitive; good values are silent.
    for good in [
        "setoption name hash value 8",
        "setoption name THREADS value 2",
        "setoption name Move Overhead value 0",
        "setoption name Clear Hash",
    ] {
        e.send(good);
        let extra = e.sync();
        assert!(extra.is_empty(), "'{good}' answered {extra:?}");
    }

    let position = "position startpos moves b1c3";
    let pos = replay(position, false);
    e.send(position);
    // A bad value is reported; with no usable limit left the search runs until stop.
    e.send("go depth abc");
    e.wait_for("an info string for 'go depth abc'", |l| {
        l.starts_with("info string") && l.contains("abc")
    });
    e.sync_no_bestmove("go depth abc before stop");
    e.send("stop");
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after stop");
    // A bad value does not swallow the keyword after it.
    e.send("go depth movetime 100");
    e.wait_for("an info string for 'go depth movetime'", |l| {
        l.starts_with("info string")
    });
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after bestmove");
    e.send("go depth 2 frobnicate");
    e.wait_for("an info string for 'frobnicate'", |l| {
        l.starts_with("info string") && l.contains("frobnicate")
    });
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after bestmove");
    let (_, best) = e.go("go depth 3");
    check_bestmove(&best, &pos);
}

/// The engine's `eval` answer for its current position, in centipawns.
fn static_eval(e: &mut Engine) -> i32 {
    e.send("eval");
    let lines = e.wait_for("the static evaluation", |l| {
        l.starts_with("info string static evaluation")
    });
    let line = lines.last().expect("a line");
    line.split_whitespace()
        .nth(4)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number in '{line}'"))
}

/// The embedded network's static evaluation of `pos`.
fn embedded_network_eval(pos: &guoxiang::Position) -> i32 {
    guoxiang::eval::network::Network::embedded().evaluate(pos)
}

/// A writer that keeps what an in-process engine says.
#[derive(Clone, Default)]
struct Transcript(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Transcript {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Transcript {
    /// The number in the last `static evaluation N cp` line.
    fn last_eval(&self) -> i32 {
        let text = String::from_utf8_lossy(&self.0.borrow()).into_owned();
        let line = text
            .lines()
            .rfind(|l| l.contains("static evaluation"))
            .unwrap_or_else(|| panic!("no eval line in {text}"));
        line.split_whitespace()
            .nth(4)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no number in '{line}'"))
    }
}

#[test]
fn two_engines_in_one_process_keep_their_own_evaluation() {
    use guoxiang::uci::Engine;
    // A position where the two evaluations differ, or the test could not
    // tell the engines apart (the network's correction is 0 at some).
    let (fen, pos) = [
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/P3BPPP/R1BQ1RK1 w - - 0 9",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    ]
    .into_iter()
    .map(|fen| (fen, guoxiang::Position::from_fen(fen, false).expect("fen")))
    .find(|(_, pos)| guoxiang::eval::evaluate_hce(pos) != embedded_network_eval(pos))
    .expect("a position where the network changes the evaluation");
    let (hand_out, net_out) = (Transcript::default(), Transcript::default());
    let mut hand = Engine::with_output(Box::new(hand_out.clone()));
    let mut net = Engine::with_output(Box::new(net_out.clone()));
    for e in [&mut hand, &mut net] {
        e.handle_line(&format!("position fen {fen}"));
    }
    hand.handle_line("setoption name UseNNUE value false");
    net.handle_line("setoption name UseNNUE value true");
    // Each searches and evaluates with its own choice, whatever the other did last.
    for e in [&mut hand, &mut net] {
        e.handle_line("go depth 4");
        e.finish_search();
        e.handle_line("eval");
    }
    assert_eq!(hand_out.last_eval(), guoxiang::eval::evaluate_hce(&pos));
    assert_eq!(net_out.last_eval(), embedded_network_eval(&pos));
    assert_ne!(hand_out.last_eval(), net_out.last_eval());
    for out in [&hand_out, &net_out] {
        let text = String::from_utf8_lossy(&out.0.borrow()).into_owned();
        assert!(text.contains("bestmove "), "{text}");
    }
}

#[test]
fn use_nnue_switches_between_network_and_hand_written_evaluation() {
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/P3BPPP/R1BQ1RK1 w - - 0 9";
    let pos = guoxiang::Position::from_fen(fen, false).expect("fen");
    let mut e = engine();
    e.send(&format!("position fen {fen}"));
    let default = static_eval(&mut e);
    e.send("setoption name UseNNUE value false");
    assert!(e.sync().is_empty());
    assert_eq!(static_eval(&mut e), guoxiang::eval::evaluate_hce(&pos));
    let (_, best) = e.go("go depth 5");
    check_bestmove(&best, &pos);
    e.send("setoption name UseNNUE value true");
    assert_eq!(static_eval(&mut e), embedded_network_eval(&pos));
    let (_, best) = e.go("go depth 5");
    check_bestmove(&best, &pos);
    let expected_default = if guoxiang::eval::network::DEFAULT_ENABLED {
        embedded_network_eval(&pos)
    } else {
        guoxiang::eval::evaluate_hce(&pos)
    };
    assert_eq!(default, expected_default);
}

#[test]
fn eval_file_switches_networks_and_bad_files_keep_the_current_one() {
    use guoxiang::eval::network::{Network, QA, QB};
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/P3BPPP/R1BQ1RK1 w - - 0 9";
    let pos = guoxiang::Position::from_fen(fen, false).expect("fen");
    // The shipped network with its output bias raised by about a pawn.
    let mut bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/net.nnue"))
        .expect("src/eval/net.nnue");
    let tail = bytes.len() - 4;
    let bias = i32::from_le_bytes([
        bytes[tail],
        bytes[tail + 1],
        bytes[tail + 2],
        bytes[tail + 3],
    ]);
    bytes[tail..].copy_from_slice(&(bias + QA * QB / 4).to_le_bytes());
    let other = Network::from_bytes(&bytes).expect("modified network parses");
    let dir = std::env::temp_dir();
    let good = dir.join(format!("guoxiang-evalfile-{}.nnue", std::process::id()));
    let short = dir.join(format!(
        "guoxiang-evalfile-{}-short.nnue",
        std::process::id()
    ));
    std::fs::write(&good, &bytes).expect("write network");
    std::fs::write(&short, &bytes[..bytes.len() / 2]).expect("write truncated network");

    let mut e = engine();
    e.send("setoption name UseNNUE value true");
    e.send(&format!("position fen {fen}"));
    let embedded = static_eval(&mut e);
    assert_eq!(embedded, embedded_network_eval(&pos));
    let loaded = other.evaluate(&pos);
    assert!(loaded > embedded + 50, "{loaded} vs {embedded}");

    e.send(&format!("setoption name EvalFile value {}", good.display()));
    e.wait_for("the load report", |l| {
        l.starts_with("info string EvalFile: playing with")
    });
    assert_eq!(static_eval(&mut e), loaded);
    let (_, best) = e.go("go depth 6");
    check_bestmove(&best, &pos);

    // A missing file, a truncated one and a file that is not a network are
    // refused, and the loaded network stays.
    for bad in [
        dir.join("guoxiang-no-such-file.nnue"),
        short.clone(),
        std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")),
    ] {
        e.send(&format!("setoption name EvalFile value {}", bad.display()));
        let l = e.wait_for("a refusal", |l| l.starts_with("info string"));
        assert!(
            l.last().is_some_and(|l| l.contains("network kept")),
            "{l:?}"
        );
        assert_eq!(static_eval(&mut e), loaded, "after {}", bad.display());
    }

    e.send("setoption name EvalFile value <embedded>");
    assert!(e.sync().is_empty());
    assert_eq!(static_eval(&mut e), embedded);
    let (_, best) = e.go("go depth 6");
    check_bestmove(&best, &pos);
    let _ = std::fs::remove_file(&good);
    let _ = std::fs::remove_file(&short);
}

#[test]
fn garbage_lines_are_reported_and_harmless() {
    let mut e = engine();
    let position = "position startpos moves c2c4";
    let pos = replay(position, false);
    e.send(position);

    e.send("frobnicate now");
    let l = e.wait_for("unknown command", |l| l.starts_with("info string"));
    assert!(l.last().is_some_and(|l| l.contains("frobnicate")), "{l:?}");
    assert!(e.sync().is_empty());

    // Empty and blank lines, and the commands this engine ignores, are silent.
    e.send("");
    e.send("   \t ");
    e.send("debug on");
    e.send("debug off");
    e.send("register later");
    assert!(e.sync().is_empty(), "an empty line got an answer");

    // 200 KB of junk on one line.
    let junk: String = "xyzzy ".repeat(200 * 1024 / 6);
    e.send(&junk);
    e.wait_for("a complaint about the junk line", |l| {
        l.starts_with("info string")
    });
    assert!(e.sync().is_empty());

    // A line longer than the engine accepts (over 1 MB).
    let huge = "position startpos moves ".to_string() + &"e2e4 ".repeat(300_000);
    e.send(&huge);
    e.wait_for("a complaint about the huge line", |l| {
        l.starts_with("info string")
    });
    assert!(e.sync().is_empty());

    // Invalid UTF-8.
    e.send_raw(b"\xff\xfe\xfd\x80 go\n", "<invalid utf-8>");
    e.wait_for("a complaint about invalid UTF-8", |l| {
        l.starts_with("info string")
    });
    assert!(e.sync().is_empty());
    e.send_raw(b"isready\xc3\n", "isready<truncated utf-8>");
    e.wait_for("an answer to a broken isready", |l| {
        l.starts_with("info string") || l == "readyok"
    });
    e.sync();

    // Windows line endings and surrounding blanks are fine.
    e.send_raw(b"  isready  \r\n", "isready<CRLF>");
    e.wait_for("readyok after CRLF", |l| l == "readyok");

    assert_eq!(e.fen(), pos.to_fen(), "junk changed the position");
    let (_, best) = e.go("go depth 3");
    check_bestmove(&best, &pos);
}

// ----- castling notation -----

#[test]
fn standard_castling_is_accepted_and_printed_king_two_squares() {
    let mut e = engine();
    let before = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";
    e.send(&format!("{before} e1g1"));
    let fen = e.fen();
    assert_eq!(
        placement(&fen),
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1",
        "{fen}"
    );
    assert!(
        fen.contains(" b kq "),
        "White lost its castling rights: {fen}"
    );
    let (_, best) = search(&mut e, before, "go searchmoves e1g1 depth 4");
    assert_eq!(best.split_whitespace().nth(1), Some("e1g1"), "{best}");
}

#[test]
fn chess960_castling_in_king_takes_rook_form() {
    let mut e = engine();
    e.send("setoption name UCI_Chess960 value true");
    // Queen side: king b1 takes rook a1 -> Kc1, Rd1.
    e.send(&format!("{C960} moves b1a1"));
    let fen = e.fen();
    assert_eq!(placement(&fen), "rk5r/8/8/8/8/8/8/2KR3R", "{fen}");
    // King side for White, then queen side for Black.
    e.send(&format!("{C960} moves b1h1 b8a8"));
    let fen = e.fen();
    assert_eq!(placement(&fen), "2kr3r/8/8/8/8/8/8/R4RK1", "{fen}");
    // In Chess960 b1c1 is a plain king step, not castling.
    e.send(&format!("{C960} moves b1c1"));
    let fen = e.fen();
    assert_eq!(placement(&fen), "rk5r/8/8/8/8/8/8/R1K4R", "{fen}");
    // Castlings where the king stays put, or swaps squares with its rook.
    for (position, want) in [
        (
            "position fen 1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1 moves g1h1 g8h8",
            "1r3rk1/8/8/8/8/8/8/1R3RK1",
        ),
        (
            "position fen 1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1 moves g1b1",
            "1r4kr/8/8/8/8/8/8/2KR3R",
        ),
        (
            "position fen 1k6/8/8/8/8/8/8/5KR1 w G - 0 1 moves f1g1",
            "1k6/8/8/8/8/8/8/5RK1",
        ),
        (
            "position fen 5kr1/8/8/8/8/8/8/1K6 b g - 0 1 moves f8g8",
            "5rk1/8/8/8/8/8/8/1K6",
        ),
    ] {
        e.send(position);
        let fen = e.fen();
        assert_eq!(placement(&fen), want, "{position}");
        assert_eq!(
            fen,
            replay(position, true).to_fen(),
            "engine and library disagree"
        );
    }

    // The engine prints castling as king takes rook.
    let pos = replay(C960, true);
    for castle in ["b1a1", "b1h1"] {
        e.send(C960);
        let (lines, best) = e.go(&format!("go searchmoves {castle} depth 4"));
        let (mv, _) = check_bestmove(&best, &pos);
        assert!(mv.is_castling(), "{best}");
        assert_eq!(first_move(&best), castle);
        for info in infos(&lines) {
            check_pv(&info, &pos);
            assert_eq!(info.pv[0], castle, "{}", info.raw);
        }
    }
    // Black castles too, and the pv / ponder moves are in the same notation.
    let black = format!("{C960} moves a1a2");
    let pos = replay(&black, true);
    e.send(&black);
    let (_, best) = e.go("go searchmoves b8h8 depth 4");
    check_bestmove(&best, &pos);
    assert_eq!(first_move(&best), "b8h8");

    // A castling where the king does not move is still printed king-takes-rook.
    let still = "position fen 1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1";
    let pos = replay(still, true);
    e.send(still);
    let (_, best) = e.go("go searchmoves g1h1 depth 3");
    let (mv, _) = check_bestmove(&best, &pos);
    assert!(mv.is_castling() && first_move(&best) == "g1h1", "{best}");

    // In Chess960 mode the standard start position castles as e1h1, and the
    // e1g1 spelling from a standard GUI is understood as the same move.
    let italian = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";
    let pos = replay(italian, true);
    e.send(italian);
    for asked in ["e1h1", "e1g1"] {
        let (_, best) = e.go(&format!("go searchmoves {asked} depth 3"));
        let (mv, _) = check_bestmove(&best, &pos);
        assert!(mv.is_castling(), "{best}");
        assert_eq!(first_move(&best), "e1h1", "asked for {asked}");
    }
}

#[test]
fn chess960_fen_with_shredder_castling_field() {
    let mut e = engine();
    e.send("setoption name UCI_Chess960 value true");
    let position = "position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let pos = replay(position, true);
    e.send(position);
    e.send("go perft 1");
    let lines = e.wait_for("perft total", |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 21"));
    assert_eq!(legal_moves(&pos).len(), 21);
    let (lines, best) = e.go("go depth 5");
    check_bestmove(&best, &pos);
    for info in infos(&lines) {
        check_pv(&info, &pos);
    }
}

// ----- races and odd orderings -----

#[test]
fn stop_when_idle_prints_nothing() {
    let mut e = engine();
    e.send("stop");
    e.send("stop");
    e.send("ponderhit");
    assert!(e.sync().is_empty());
    let (_, best) = e.go("go depth 2");
    check_bestmove(&best, &replay("position startpos", false));
    e.send("stop");
    assert!(
        e.sync().is_empty(),
        "stop after the search ended printed something"
    );
}

#[test]
fn two_go_in_a_row_give_two_bestmoves() {
    let mut e = engine();
    let position = "position startpos moves e2e4 e7e5 g1f3";
    let pos = replay(position, false);
    e.send(position);
    e.send("go infinite");
    e.send("go infinite");
    let mut lines = e.sync();
    e.send("stop");
    lines.extend(e.sync());
    e.send("go depth 2");
    e.send("go depth 2");
    e.send("stop");
    lines.extend(e.sync());
    let best: Vec<&String> = lines.iter().filter(|l| is_bestmove(l)).collect();
    assert_eq!(best.len(), 4, "{lines:?}");
    for b in best {
        check_bestmove(b, &pos);
    }
}

#[test]
fn position_during_search_answers_the_old_search_first() {
    let mut e = engine();
    let old = "position startpos";
    let new = "position startpos moves e2e4";
    e.send(old);
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send(new);
    let (_, best) = e.bestmove();
    // The move answers the old position (White to move); Black is to move in the new one.
    check_bestmove(&best, &replay(old, false));
    e.sync_no_bestmove("after the old search's bestmove");
    let new_pos = replay(new, false);
    assert_eq!(e.fen(), new_pos.to_fen());
    let (_, best) = e.go("go depth 3");
    check_bestmove(&best, &new_pos);
}

#[test]
fn setoption_during_search() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("setoption name Hash value 32");
    let mut lines = e.sync();
    e.send("stop");
    lines.extend(e.sync());
    let best: Vec<&String> = lines.iter().filter(|l| is_bestmove(l)).collect();
    assert_eq!(best.len(), 1, "{lines:?}");
    check_bestmove(best[0], &pos);
    let (_, best) = e.go("go depth 4");
    check_bestmove(&best, &pos);
}

#[test]
fn ponderhit_after_stop_prints_nothing_more() {
    let mut e = engine();
    let position = "position startpos moves e2e4 e7e5";
    let pos = replay(position, false);
    e.send(position);
    e.send("go ponder wtime 1000 btime 1000");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("stop");
    check_bestmove(&e.bestmove().1, &pos);
    e.send("ponderhit");
    e.sync_no_bestmove("ponderhit after stop");
    let (_, best) = e.go("go depth 2");
    check_bestmove(&best, &pos);
}

#[test]
fn ucinewgame_during_search() {
    let mut e = engine();
    let position = "position startpos moves d2d4 d7d5";
    let pos = replay(position, false);
    e.send(position);
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("ucinewgame");
    let mut lines = e.sync();
    e.send("stop");
    lines.extend(e.sync());
    let best: Vec<&String> = lines.iter().filter(|l| is_bestmove(l)).collect();
    assert_eq!(best.len(), 1, "{lines:?}");
    check_bestmove(best[0], &pos);
    e.send("position startpos");
    let (_, best) = e.go("go depth 4");
    check_bestmove(&best, &replay("position startpos", false));
}

#[test]
fn quit_during_search_exits_cleanly() {
    let mut e = engine();
    e.send("setoption name Threads value 2");
    e.send("position startpos");
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("quit");
    let status = e
        .wait_exit(TIMEOUT)
        .expect("the engine did not exit after quit");
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn end_of_input_during_search_exits() {
    let mut e = engine();
    e.send("position startpos");
    e.send("go infinite");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.close_stdin();
    let status = e
        .wait_exit(TIMEOUT)
        .expect("the engine did not exit at end of input");
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn end_of_input_when_idle_exits() {
    let mut e = engine();
    e.close_stdin();
    let status = e
        .wait_exit(TIMEOUT)
        .expect("the engine did not exit at end of input");
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn hash_and_threads_changes_between_searches() {
    let mut e = engine();
    let hashes = [1, 256, 2, 128, 4, 64, 8, 32, 16, 200, 3, 100];
    let positions = [
        "position startpos",
        KIWIPETE,
        "position startpos moves e2e4 e7e5 g1f3 b8c6",
        "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    for cycle in 0..30 {
        let hash = hashes[cycle % hashes.len()];
        let threads = cycle % 8 + 1;
        e.send(&format!("setoption name Hash value {hash}"));
        e.send(&format!("setoption name Threads value {threads}"));
        if cycle % 5 == 0 {
            e.send("setoption name Clear Hash");
        }
        let extra = e.sync();
        assert!(
            extra.is_empty(),
            "cycle {cycle}: setoption answered {extra:?}"
        );
        search(&mut e, positions[cycle % positions.len()], "go depth 4");
    }
}

// ----- perft -----

#[test]
fn go_perft_divides_the_start_position() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.wait_for("perft total", |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.len(), 22, "{lines:?}");
    let mut seen = HashSet::new();
    let mut sum = 0u64;
    for l in &lines[..20] {
        let (mv, count) = l
            .split_once(": ")
            .unwrap_or_else(|| panic!("bad divide line '{l}'"));
        let m = exact_move(&pos, mv).unwrap_or_else(|| panic!("'{mv}' is not legal"));
        let mut next = pos;
        next.make_move(m);
        let expected: u64 = legal_moves(&next)
            .iter()
            .map(|&r| {
                let mut after = next;
                after.make_move(r);
                legal_moves(&after).len() as u64
            })
            .sum();
        let count: u64 = count.parse().expect("count is a number");
        assert_eq!(count, expected, "{l}");
        assert!(seen.insert(mv.to_string()), "{mv} twice");
        sum += count;
    }
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 8902");
    assert_eq!(sum, 8902);
    // perft is not a search: no bestmove follows.
    e.sync_no_bestmove("after perft");
    // The same count with several threads, and perft 0 counts the position itself.
    e.send("setoption name Threads value 3");
    e.send("go perft 3");
    let again = e.wait_for("perft total", |l| l.starts_with("Nodes searched"));
    assert_eq!(again, lines, "perft with 3 threads differs");
    e.sync_no_bestmove("after perft");
    e.send("go perft 0");
    let zero = e.wait_for("perft 0 total", |l| l.starts_with("Nodes searched"));
    assert_eq!(zero, vec!["".to_string(), "Nodes searched: 1".to_string()]);
}

#[test]
fn go_perft_uses_the_hash_and_threads_options() {
    // The table of counts takes the Hash option's size; the counts stay
    // exact with a table too small for the tree, on several threads, and in
    // Chess960 (where the same pieces and rights can castle differently).
    let mut e = engine();
    let mut totals = Vec::new();
    for (hash, threads) in [("1", "1"), ("1", "2"), ("32", "2")] {
        e.send(&format!("setoption name Hash value {hash}"));
        e.send(&format!("setoption name Threads value {threads}"));
        e.send(KIWIPETE);
        e.send("go perft 4");
        let lines = e.wait_for("perft total", |l| l.starts_with("Nodes searched"));
        assert_eq!(
            lines.last().map(String::as_str),
            Some("Nodes searched: 4085603")
        );
        e.sync_no_bestmove("after perft");
        e.send("setoption name UCI_Chess960 value true");
        e.send(C960);
        e.send("go perft 4");
        let lines = e.wait_for("960 perft total", |l| l.starts_with("Nodes searched"));
        totals.push(lines.last().cloned());
        e.sync_no_bestmove("after perft");
        e.send("setoption name UCI_Chess960 value false");
    }
    let pos = replay(C960, true);
    let expected = guoxiang::perft::perft(&pos, 4);
    for t in totals {
        assert_eq!(t, Some(format!("Nodes searched: {expected}")));
    }
}

// ----- more protocol corners -----

#[test]
fn ponderhit_does_not_end_an_infinite_search() {
    // `ponderhit` belongs to `go ponder`; an infinite search still waits for `stop`.
    let mut e = engine();
    e.send(FOOLS_MATE);
    e.send("go infinite");
    e.sync_no_bestmove("infinite search before ponderhit");
    e.send("ponderhit");
    e.sync_no_bestmove("infinite search after a stray ponderhit");
    e.send("stop");
    assert_eq!(e.bestmove().1, "bestmove (none)");
    e.sync_no_bestmove("after stop");

    let position = "position startpos moves e2e4";
    let pos = replay(position, false);
    e.send(position);
    e.send("go infinite depth 2");
    e.wait_for("the depth 2 info line", |l| l.starts_with("info depth 2 "));
    e.send("ponderhit");
    e.sync_no_bestmove("finished infinite search after a stray ponderhit");
    e.send("stop");
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after stop");
}

#[test]
fn ponder_without_a_clock_is_infinite_after_ponderhit() {
    let mut e = engine();
    let position = "position startpos moves e2e4 e7e5";
    let pos = replay(position, false);
    e.send(position);
    e.send("go ponder");
    e.wait_for("an info line", |l| l.starts_with("info depth"));
    e.send("ponderhit");
    e.sync_no_bestmove("ponder without limits after ponderhit");
    e.send("stop");
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after stop");
}

#[test]
fn being_mated_reports_a_negative_mate_score() {
    let mut e = engine();
    // Black must play Ka7 and Ra1 mates.
    let (infos, best) = search(
        &mut e,
        "position fen k7/2K5/8/8/8/8/8/7R b - - 0 1",
        "go depth 8",
    );
    assert_eq!(first_move(&best), "a8a7");
    let last = infos.last().expect("info lines");
    assert_eq!(last.score, Score::Mate(-1), "{}", last.raw);
}

#[test]
fn long_game_history_is_accepted() {
    let mut e = engine();
    // 400 plies of knight shuffling (well past the 50-move rule), then a real move.
    let mut position = "position startpos moves".to_string();
    for _ in 0..100 {
        position.push_str(" g1f3 g8f6 f3g1 f6g8");
    }
    position.push_str(" e2e4");
    let pos = replay(&position, false);
    assert_eq!(pos.halfmove_clock(), 0);
    e.send(&position);
    assert_eq!(e.fen(), pos.to_fen());
    let (_, best) = e.go("go depth 5");
    check_bestmove(&best, &pos);
}

#[test]
fn impossible_hash_size_is_refused_and_the_engine_goes_on() {
    let mut e = engine();
    e.send("setoption name Hash value 1048576");
    e.wait_for("a refusal", |l| l.starts_with("info string"));
    let (_, best) = search(&mut e, "position startpos", "go depth 4");
    check_bestmove(&best, &replay("position startpos", false));
}

#[test]
fn many_isready_during_a_search_each_get_readyok() {
    let mut e = engine();
    let pos = replay("position startpos", false);
    e.send("position startpos");
    e.send("go infinite");
    for _ in 0..300 {
        e.send("isready");
    }
    let mut answered = 0;
    while answered < 300 {
        let line = e
            .expect_line(|l| l == "readyok" || is_bestmove(l), TIMEOUT)
            .unwrap_or_else(|err| panic!("after {answered} readyok: {err}"));
        assert_eq!(line, "readyok", "bestmove before stop");
        answered += 1;
    }
    e.send("stop");
    check_bestmove(&e.bestmove().1, &pos);
    e.sync_no_bestmove("after stop");
}

// ----- go limits and the last word -----

#[test]
fn a_go_whose_every_limit_is_unreadable_searches_briefly_and_says_so() {
    let mut e = engine();
    for go in [
        "go wtime abc",
        "go movetime",
        "go depth x",
        "go wtime abc btime abc",
        "go movetim 500",
    ] {
        e.send("position startpos");
        // A bestmove comes by itself (the harness gives up after its deadline).
        let (lines, best) = e.go(go);
        check_bestmove(&best, &guoxiang::Position::startpos());
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string go: no readable limit")),
            "{go}: {lines:?}"
        );
        // And the next go is answered normally.
        let (lines, best) = e.go("go depth 3");
        check_bestmove(&best, &guoxiang::Position::startpos());
        assert!(!lines.iter().any(|l| l.contains("no readable limit")));
    }
    // A readable limit beside an unreadable one is kept.
    let (lines, _) = e.go("go depth 2 wtime abc");
    let last = common::infos(&lines).pop().expect("an info line");
    assert_eq!(last.depth, 2, "{lines:?}");
}

#[test]
fn the_last_info_line_reports_the_whole_search_and_starts_with_the_move_played() {
    let mut e = engine();
    for (position, limit) in [
        ("position startpos", 30_000u64),
        (
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            77_777,
        ),
    ] {
        e.send(position);
        let (lines, best) = e.go(&format!("go nodes {limit}"));
        let last = common::infos(&lines).pop().expect("an info line");
        let played = best.split_whitespace().nth(1).expect("a move");
        assert_eq!(
            last.pv.first().map(String::as_str),
            Some(played),
            "{lines:?}"
        );
        assert!(last.nodes >= limit * 95 / 100, "{} of {limit}", last.nodes);
    }
}

// ----- strength levels, win/draw/loss odds, option values with spaces -----

#[test]
fn a_strength_level_plays_legal_moves_and_its_last_line_starts_with_the_move_played() {
    let mut e = engine();
    e.send("setoption name UCI_LimitStrength value true");
    for elo in ["1350", "1900", "2200"] {
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        for position in [
            "position startpos",
            "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ] {
            let pos = replay(position, false);
            e.send(position);
            let (lines, best) = e.go("go depth 20");
            check_bestmove(&best, &pos);
            let last = common::infos(&lines).pop().expect("an info line");
            let played = best.split_whitespace().nth(1).expect("a move");
            assert_eq!(
                last.pv.first().map(String::as_str),
                Some(played),
                "{lines:?}"
            );
        }
    }
    // Out of range: refused, the level kept.
    e.send("setoption name UCI_Elo value 99999");
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains("out of range")),
        "{lines:?}"
    );
}

#[test]
fn wdl_appears_only_when_asked_and_sums_to_a_thousand() {
    let mut e = engine();
    e.send("position startpos");
    let (lines, _) = e.go("go depth 6");
    assert!(!lines.iter().any(|l| l.contains(" wdl ")), "{lines:?}");
    e.send("setoption name UCI_ShowWDL value true");
    let (lines, _) = e.go("go depth 6");
    let scored: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(!scored.is_empty());
    for line in scored {
        let t: Vec<&str> = line.split_whitespace().collect();
        let at = t.iter().position(|&w| w == "wdl").expect("a wdl field");
        let sum: u32 = t[at + 1..at + 4]
            .iter()
            .map(|v| v.parse::<u32>().expect("a number"))
            .sum();
        assert_eq!(sum, 1000, "{line}");
    }
}

#[test]
fn an_eval_file_path_keeps_its_spaces() {
    let dir = std::env::temp_dir().join(format!("guoxiang nets {}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let net = dir.join("my  net.nnue");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/net.nnue"),
        &net,
    )
    .expect("copy the network");
    let mut e = engine();
    e.send(&format!("setoption name EvalFile value {}", net.display()));
    e.wait_for("the load report", |l| {
        l.starts_with("info string EvalFile: playing with")
    });
    let _ = std::fs::remove_dir_all(&dir);
}
