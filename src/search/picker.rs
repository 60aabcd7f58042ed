//! The staged move picker: hands the search a node's moves best first while
//! generating as little as it can.
//!
//! Order at a node: the hash move; captures and promotions that win or hold
//! their exchange (SEE), by victim and capture history; the two killers;
//! other quiet moves by history; last, the losing captures and the
//! underpromotions. Quiet moves are generated only once the earlier stages
//! have failed to cut the node off.

use crate::board::movegen::{generate_moves, is_legal, GenKind};
use crate::board::moves::{Move, MoveList};
use crate::board::position::Position;
use crate::search::history::{Histories, Previous, TT_MOVE_SCORE};
use arrayvec::ArrayVec;

/// Moves the best-scored remaining move to position `i`.
#[inline]
pub(crate) fn pick(moves: &mut [Move], scores: &mut [i32], i: usize) {
    // Two passes (a vectorised maximum, then its first index) choose the
    // same move as one scan with `>`, and run faster.
    let rest = &scores[i..];
    let max = rest.iter().copied().max().unwrap_or(i32::MIN);
    let best = i + rest.iter().position(|&s| s == max).unwrap_or(0);
    moves.swap(i, best);
    scores.swap(i, best);
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    /// A list given whole (the root's moves).
    Given,
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    GenerateQuiets,
    Quiets,
    BadNoisy,
    Done,
}

/// Hands out the legal moves of one node in stages (see the module text),
/// each exactly once, with its ordering score.
///
/// One list holds the noisy moves, then the quiet moves once generated; a
/// second cursor comes back for the losing noisy moves at the end.
pub(crate) struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    previous: Previous,
    moves: MoveList,
    scores: ArrayVec<i32, 256>,
    /// The next move of the current stage.
    next: usize,
    /// Where the noisy moves end (and the quiet moves begin).
    noisy_end: usize,
    /// The first losing noisy move.
    bad_noisy: usize,
    skip_quiets: bool,
}

impl MovePicker {
    /// `tt_move` may be anything (even illegal after a hash collision): it is
    /// checked before it is handed out.
    pub(crate) fn new(
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        previous: Previous,
    ) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers,
            previous,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            next: 0,
            noisy_end: 0,
            bad_noisy: 0,
            skip_quiets: false,
        }
    }

    /// Hands out `moves`, already scored, best first and nothing else.
    pub(crate) fn with_moves(moves: MoveList, scores: ArrayVec<i32, 256>) -> MovePicker {
        let mut picker = MovePicker::new(None, [None, None], [None, None]);
        picker.noisy_end = moves.len();
        picker.moves = moves;
        picker.scores = scores;
        picker.stage = Stage::Given;
        picker
    }

    /// No more quiet moves from now on (late-move and futility pruning).
    pub(crate) fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// The best move left in `self.next..end` if it scores at least `floor`.
    fn take_best(&mut self, end: usize, floor: i32) -> Option<(Move, i32)> {
        let i = self.next;
        if i >= end {
            return None;
        }
        pick(&mut self.moves[..end], &mut self.scores[..end], i);
        let score = self.scores[i];
        if score < floor {
            return None;
        }
        self.next += 1;
        Some((self.moves[i], score))
    }

    /// The next move and its ordering score, or `None` when all are out.
    pub(crate) fn next(&mut self, pos: &Position, data: &Histories) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::Given => return self.take_best(self.noisy_end, i32::MIN),
                Stage::TtMove => {
                    self.stage = Stage::GenerateNoisy;
                    match self.tt_move {
                        Some(mv) if is_legal(pos, mv) => return Some((mv, TT_MOVE_SCORE)),
                        _ => self.tt_move = None,
                    }
                }
                Stage::GenerateNoisy => {
                    generate_moves(pos, GenKind::Noisy, &mut self.moves);
                    self.remove_tt_move();
                    for &mv in &self.moves {
                        self.scores.push(data.noisy_score(pos, mv));
                    }
                    self.noisy_end = self.moves.len();
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.take_best(self.noisy_end, 0) {
                    Some(found) => return Some(found),
                    None => {
                        self.bad_noisy = self.next;
                        self.stage = Stage::GenerateQuiets;
                    }
                },
                Stage::GenerateQuiets => {
                    self.stage = Stage::BadNoisy;
                    if !self.skip_quiets {
                        generate_moves(pos, GenKind::Quiet, &mut self.moves);
                        self.remove_tt_move();
                        for &mv in &self.moves[self.noisy_end..] {
                            let score = data.quiet_score(pos, mv, self.killers, self.previous);
                            self.scores.push(score);
                        }
                        self.next = self.noisy_end;
                        self.stage = Stage::Quiets;
                    }
                }
                Stage::Quiets => {
                    if !self.skip_quiets {
                        if let Some(found) = self.take_best(self.moves.len(), i32::MIN) {
                            return Some(found);
                        }
                    }
                    self.next = self.bad_noisy;
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => match self.take_best(self.noisy_end, i32::MIN) {
                    Some(found) => return Some(found),
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }

    /// Drops the hash move from the list (it was handed out first). Only the
    /// moves not yet scored can hold it, so the scored ones keep their places.
    fn remove_tt_move(&mut self) {
        if let Some(tt) = self.tt_move {
            let start = self.scores.len();
            if let Some(at) = self.moves[start..].iter().position(|&m| m == tt) {
                self.moves.remove(start + at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::movegen::legal_moves;
    use crate::board::types::Square;

    const FENS: [&str; 6] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        // In check: evasions go through the same stages.
        "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
    ];

    fn drain(pos: &Position, picker: &mut MovePicker, data: &Histories) -> Vec<(Move, i32)> {
        std::iter::from_fn(|| picker.next(pos, data)).collect()
    }

    fn sorted(mut v: Vec<Move>) -> Vec<u16> {
        let mut bits: Vec<u16> = v.drain(..).map(Move::bits).collect();
        bits.sort_unstable();
        bits
    }

    #[test]
    fn hands_out_every_legal_move_once_whatever_the_hash_move() {
        let data = Histories::default();
        for fen in FENS {
            let pos = Position::from_fen(fen, false).unwrap();
            let legal = legal_moves(&pos);
            // The hash move may be legal, illegal here, or missing.
            let mut candidates: Vec<Option<Move>> = legal.iter().map(|&m| Some(m)).collect();
            candidates.push(None);
            candidates.push(Some(Move::normal(Square::new(0), Square::new(63))));
            for tt in candidates {
                let killers = [
                    legal.last().copied(),
                    Some(Move::normal(Square::new(9), Square::new(1))),
                ];
                let mut picker = MovePicker::new(tt, killers, [None, None]);
                let got = drain(&pos, &mut picker, &data);
                let moves: Vec<Move> = got.iter().map(|g| g.0).collect();
                assert_eq!(sorted(moves.clone()), sorted(legal.to_vec()), "{fen}");
                if let Some(tt) = tt.filter(|m| legal.contains(m)) {
                    assert_eq!(moves[0], tt, "hash move first in {fen}");
                }
            }
        }
    }

    #[test]
    fn stages_come_in_order() {
        let data = Histories::default();
        for fen in FENS {
            let pos = Position::from_fen(fen, false).unwrap();
            let mut picker = MovePicker::new(None, [None, None], [None, None]);
            let got = drain(&pos, &mut picker, &data);
            // Band of each move: 0 good noisy, 1 quiet, 2 losing noisy.
            let band = |&(mv, score): &(Move, i32)| {
                let noisy = pos.is_noisy(mv);
                match (noisy, score >= 0) {
                    (true, true) => 0,
                    (false, _) => 1,
                    (true, false) => 2,
                }
            };
            let bands: Vec<i32> = got.iter().map(band).collect();
            assert!(bands.windows(2).all(|w| w[0] <= w[1]), "{fen}: {bands:?}");
            for w in got.windows(2) {
                if band(&w[0]) == band(&w[1]) {
                    assert!(w[0].1 >= w[1].1, "{fen}: scores out of order");
                }
            }
        }
    }

    #[test]
    fn skipping_quiets_leaves_the_captures() {
        let data = Histories::default();
        for fen in FENS {
            let pos = Position::from_fen(fen, false).unwrap();
            let mut picker = MovePicker::new(None, [None, None], [None, None]);
            picker.skip_quiets();
            let got = drain(&pos, &mut picker, &data);
            let mut noisy = MoveList::new();
            generate_moves(&pos, GenKind::Noisy, &mut noisy);
            let moves: Vec<Move> = got.iter().map(|g| g.0).collect();
            assert_eq!(sorted(moves), sorted(noisy.to_vec()), "{fen}");
        }
    }
}
