//! Library-level search tests: mate scores, draws by repetition (from the
//! game history and inside the search), the 50-move rule, dead positions,
//! and the determinism of `bench`.

use guoxiang::board::movegen::legal_moves;
use guoxiang::eval::score::{mate_in, MATE};
use guoxiang::search::time::Limits;
use guoxiang::search::tt::TranspositionTable;
use guoxiang::search::{search_sync, SearchRequest, SearchResult, ThreadData};
use guoxiang::{Move, Position};

/// Searches `pos` (after the game `history`, oldest key first) to `depth`
/// with a fresh table; returns the best move and the score for the side to move.
fn search(pos: &Position, history: &[u64], depth: i32) -> (Option<Move>, i32) {
    let tt = TranspositionTable::new(16).expect("a 16 MB table");
    let mut data = vec![ThreadData::default()];
    let mut request = SearchRequest::new(*pos, to_depth(depth));
    request.history = history.to_vec();
    let SearchResult { best, score, .. } = search_sync(&request, &tt, &mut data);
    if let Some(mv) = best {
        assert!(
            legal_moves(pos).contains(&mv),
            "best move {} is illegal in {}",
            mv.to_uci(false),
            pos.to_fen()
        );
    }
    (best, score)
}

fn to_depth(depth: i32) -> Limits {
    Limits {
        depth: Some(depth),
        ..Limits::default()
    }
}

fn fen(text: &str) -> Position {
    Position::from_fen(text, false).expect("test FEN is valid")
}

/// Plays `moves` from `fen`; returns the final position and the keys of the
/// positions before it, oldest first (what the UCI layer passes as history).
fn play(fen_text: &str, moves: &[&str]) -> (Position, Vec<u64>) {
    let mut pos = fen(fen_text);
    let mut history = Vec::new();
    for text in moves {
        let mv = pos
            .parse_uci_move(text)
            .unwrap_or_else(|| panic!("{text} is illegal in {}", pos.to_fen()));
        history.push(pos.key());
        pos.make_move(mv);
    }
    (pos, history)
}

fn uci(mv: Option<Move>) -> String {
    mv.map_or("(none)".to_string(), |m| m.to_uci(false))
}

/// True if after `mv` its side mates within `n` moves against every defence.
fn forces_mate(pos: &Position, mv: Move, n: u32) -> bool {
    let mut next = *pos;
    next.make_move(mv);
    let replies = legal_moves(&next);
    if replies.is_empty() {
        return next.in_check();
    }
    n > 1
        && replies.iter().all(|&reply| {
            let mut after = next;
            after.make_move(reply);
            legal_moves(&after)
                .iter()
                .any(|&m| forces_mate(&after, m, n - 1))
        })
}

#[test]
fn mate_in_two_is_found_with_a_mate_score() {
    // 1. Ra7 (or Rc7) and mate on the back rank next move; no mate in one.
    let pos = fen("7k/8/8/8/8/8/8/R1R3K1 w - - 0 1");
    // Shallow searches may prune the quiet mating move (no checks in the
    // quiescence search); with a few plies to spare the mate must be found.
    for depth in [8, 10] {
        let (best, score) = search(&pos, &[], depth);
        assert_eq!(mate_in(score), Some(2), "depth {depth}: score {score}");
        assert_eq!(score, MATE - 3, "mate in three plies");
        let mv = best.expect("a move");
        assert!(forces_mate(&pos, mv, 2), "{} does not mate in 2", uci(best));
    }
}

#[test]
fn mate_in_one_and_being_mated() {
    // Back-rank mate: Rd8#.
    let pos = fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    let (best, score) = search(&pos, &[], 6);
    assert_eq!(uci(best), "d1d8");
    assert_eq!(mate_in(score), Some(1), "score {score}");
    // Black to move must play Ka7, and Ra1 mates: "mate -1".
    let pos = fen("k7/2K5/8/8/8/8/8/7R b - - 0 1");
    let (best, score) = search(&pos, &[], 8);
    assert_eq!(uci(best), "a8a7");
    assert_eq!(mate_in(score), Some(-1), "score {score}");
}

#[test]
fn perpetual_check_saves_the_side_that_is_behind() {
    // White is a rook and a knight down but has a perpetual:
    // Qe8+ Kh7 Qh5+ Kg8 Qe8+ ... Nothing can interpose on f8 or h6.
    let pos = fen("6k1/3Q2p1/8/8/8/rr6/6PP/nb5K w - - 0 1");
    let (best, score) = search(&pos, &[], 10);
    assert_eq!(uci(best), "d7e8", "the only saving move");
    assert!(
        score.abs() <= 30,
        "perpetual should score about 0, got {score}"
    );
}

/// Black, a rook down, to move with the king on h7. The game went
/// Kh8 Ra2 Kg8 Ra1 Kh8 Ra2 Kh7 Ra1, so Kh7-h8 now repeats, for the third
/// time, the position after Black's first move.
const SHUFFLE_FEN: &str = "6k1/8/8/8/8/2K5/8/R7 b - - 20 60";
const SHUFFLE: [&str; 8] = [
    "g8h8", "a1a2", "h8g8", "a2a1", "g8h8", "a1a2", "h8h7", "a2a1",
];

#[test]
fn repetition_from_game_history_is_a_draw() {
    let (pos, history) = play(SHUFFLE_FEN, &SHUFFLE);
    assert_eq!(
        pos.to_fen().split_whitespace().next(),
        Some("8/7k/8/8/8/2K5/8/R7")
    );
    // The root itself has not occurred before: no draw claim yet.
    assert_eq!(pos.repetitions(&history), 0);
    let mut after = pos;
    after.make_move(pos.parse_uci_move("h7h8").expect("h7h8 is legal"));
    let mut after_history = history.clone();
    after_history.push(pos.key());
    assert_eq!(after.repetitions(&after_history), 2, "h7h8 is a threefold");

    // Without the history Black is simply lost.
    let (_, lost) = search(&pos, &[], 7);
    assert!(
        lost < -300,
        "a rook down should score clearly negative, got {lost}"
    );
    // With it, Kh8 claims the draw.
    let (best, score) = search(&pos, &history, 7);
    assert_eq!(uci(best), "h7h8", "the repeating move");
    assert!(
        score.abs() <= 30,
        "repetition should score about 0, got {score}"
    );
}

#[test]
fn fifty_move_rule_makes_a_won_ending_a_draw() {
    // K+R v K with the clock at 99 plies: every White move (no captures, no
    // pawns, no mate in one) completes 100 plies.
    let clock_99 = fen("8/8/8/4k3/8/8/8/R3K3 w - - 99 80");
    let (best, score) = search(&clock_99, &[], 6);
    assert!(best.is_some());
    assert_eq!(score, 0, "50-move rule");
    // The same position with a fresh clock is clearly winning.
    let fresh = fen("8/8/8/4k3/8/8/8/R3K3 w - - 0 80");
    let (_, score) = search(&fresh, &[], 6);
    assert!(score > 300, "K+R v K should be winning, got {score}");
}

#[test]
fn fifty_move_rule_yields_to_mate_on_the_last_move() {
    // Clock at 99, but Rd8 mates: a mate on the 100th ply still wins.
    let pos = fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 80");
    let (best, score) = search(&pos, &[], 6);
    assert_eq!(uci(best), "d1d8");
    assert_eq!(mate_in(score), Some(1), "score {score}");
}

#[test]
fn dead_positions_score_zero() {
    for text in [
        "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/2B1K3 b - - 0 1",
        "8/8/8/4k3/8/8/8/1N2K3 w - - 0 1",
        "8/8/3b4/4k3/8/8/8/2B1K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
    ] {
        let pos = fen(text);
        let (best, score) = search(&pos, &[], 6);
        assert!(best.is_some(), "{text}");
        assert_eq!(score, 0, "{text}");
    }
}

#[test]
fn bench_is_deterministic() {
    let (first, _) = guoxiang::bench::run(6, false);
    let (second, _) = guoxiang::bench::run(6, false);
    assert!(first > 0);
    assert_eq!(first, second, "bench node count differs between runs");
}

#[test]
fn fixed_depth_search_is_deterministic_with_a_reused_table() {
    // Two searches from the same start state give the same move, score and nodes.
    let pos = fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let run = || {
        let tt = TranspositionTable::new(16).expect("a 16 MB table");
        let mut data = vec![ThreadData::default()];
        search_sync(&SearchRequest::new(pos, to_depth(7)), &tt, &mut data)
    };
    assert_eq!(run(), run());
}

#[test]
fn a_one_node_limit_still_finishes_depth_one() {
    // The limit is reached at the first node, but the main thread completes
    // depth 1 before it stops, so it finds the mate in one (Ra8#) rather than
    // answering with whatever move comes first.
    let pos = fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    let tt = TranspositionTable::new(16).expect("a 16 MB table");
    let mut data = vec![ThreadData::default()];
    let limits = Limits {
        nodes: Some(1),
        ..Limits::default()
    };
    let SearchResult { best, score, .. } =
        search_sync(&SearchRequest::new(pos, limits), &tt, &mut data);
    assert_eq!(uci(best), "a1a8");
    assert_eq!(mate_in(score), Some(1));
}
