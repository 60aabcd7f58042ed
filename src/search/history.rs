//! The statistics the search learns as it goes, for move ordering: killers,
//! butterfly, continuation and capture history, and the ordering score each
//! move gets from them.

use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::see::{see_ge, see_value};
use crate::board::types::{Piece, PieceKind};
use crate::eval::score::MAX_PLY;
use arrayvec::ArrayVec;

/// Number of (coloured piece, destination) pairs: the key of continuation history.
const PIECE_TO: usize = 12 * 64;

/// History entries saturate towards ±this value.
const HISTORY_LIMIT: i32 = 16384;

// Move-ordering scores. The bands never overlap: a noisy move scores within
// about ±13,000 of ±GOOD_NOISY_SCORE, so its sign says whether it wins its
// exchange, and quiet history (three tables, each within ±HISTORY_LIMIT)
// stays far below KILLER_SCORE.
pub(crate) const TT_MOVE_SCORE: i32 = 1 << 30;
const GOOD_NOISY_SCORE: i32 = 1 << 20;
const KILLER_SCORE: i32 = 1 << 19;
const UNDERPROMOTION_PENALTY: i32 = -(1 << 21);

/// The continuation-history keys of the moves one and two plies back.
pub(crate) type Previous = [Option<usize>; 2];

/// The move-ordering statistics of one thread; they outlive one search.
#[derive(Clone)]
pub struct Histories {
    /// Butterfly history: [side][from][to].
    history: Box<[[[i16; 64]; 64]; 2]>,
    /// Continuation history: [earlier move's piece-to][this move's piece-to],
    /// shared by the move one ply back and the move two plies back.
    continuation: Box<[[i16; PIECE_TO]]>,
    /// Capture history: [moving piece][to][captured kind].
    captures: Box<[[[i16; 6]; 64]; 12]>,
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
}

impl Default for Histories {
    fn default() -> Histories {
        Histories {
            history: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![[0; PIECE_TO]; PIECE_TO].into_boxed_slice(),
            captures: Box::new([[[0; 6]; 64]; 12]),
            killers: [[None; 2]; MAX_PLY + 2],
        }
    }
}

/// Moves an entry towards ±HISTORY_LIMIT, ever more slowly as it nears it (gravity).
#[inline]
fn apply_gravity(entry: &mut i16, bonus: i32) {
    let v = *entry as i32;
    *entry = (v + bonus - v * bonus.abs() / HISTORY_LIMIT) as i16;
}

/// Continuation-history key of a move: the moving piece and its destination.
#[inline]
pub(crate) fn piece_to(pos: &Position, mv: Move) -> usize {
    pos.piece_on(mv.from()).map_or(0, |p| p.index()) * 64 + mv.to().index()
}

impl Histories {
    pub(crate) fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply]
    }

    /// Remembers a quiet move that cut off at `ply`, newest first.
    pub(crate) fn add_killer(&mut self, ply: usize, mv: Move) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
    }

    /// History score of a quiet move: butterfly plus both continuation entries.
    pub(crate) fn quiet_history(
        &self,
        side: usize,
        mv: Move,
        piece_to: usize,
        previous: Previous,
    ) -> i32 {
        let mut score = self.history[side][mv.from().index()][mv.to().index()] as i32;
        for prev in previous.into_iter().flatten() {
            score += self.continuation[prev][piece_to] as i32;
        }
        score
    }

    pub(crate) fn update_quiet_history(
        &mut self,
        side: usize,
        mv: Move,
        piece_to: usize,
        previous: Previous,
        bonus: i32,
    ) {
        apply_gravity(
            &mut self.history[side][mv.from().index()][mv.to().index()],
            bonus,
        );
        for prev in previous.into_iter().flatten() {
            apply_gravity(&mut self.continuation[prev][piece_to], bonus);
        }
    }

    /// Capture history of `mover` taking `victim` with `mv`; 0 for a non-capture.
    fn capture_history(&self, mover: Option<Piece>, mv: Move, victim: Option<PieceKind>) -> i32 {
        match (mover, victim) {
            (Some(piece), Some(victim)) => {
                self.captures[piece.index()][mv.to().index()][victim.index()] as i32
            }
            _ => 0,
        }
    }

    pub(crate) fn update_capture_history(&mut self, pos: &Position, mv: Move, bonus: i32) {
        if let (Some(piece), Some(victim)) = (pos.piece_on(mv.from()), pos.captured(mv)) {
            apply_gravity(
                &mut self.captures[piece.index()][mv.to().index()][victim.index()],
                bonus,
            );
        }
    }

    /// Score of a capture or promotion: the sign says whether it wins or holds
    /// its exchange; then the victim, capture history and the cheaper attacker.
    pub(crate) fn noisy_score(&self, pos: &Position, mv: Move) -> i32 {
        let captured = pos.captured(mv);
        let victim = captured.map_or(0, see_value);
        let mover = pos.piece_on(mv.from());
        let attacker = mover.map_or(0, |p| p.kind().index() as i32);
        let promo_bonus = match mv.promotion_piece() {
            Some(PieceKind::Queen) => 2000,
            Some(_) => UNDERPROMOTION_PENALTY,
            None => 0,
        };
        let base = if see_ge(pos, mv, 0) {
            GOOD_NOISY_SCORE
        } else {
            -GOOD_NOISY_SCORE
        };
        base + promo_bonus + victim * 8 + self.capture_history(mover, mv, captured) / 8 - attacker
    }

    /// Score of a quiet move: the killers first, then by history.
    pub(crate) fn quiet_score(
        &self,
        pos: &Position,
        mv: Move,
        killers: [Option<Move>; 2],
        previous: Previous,
    ) -> i32 {
        if killers[0] == Some(mv) {
            return KILLER_SCORE + 2;
        }
        if killers[1] == Some(mv) {
            return KILLER_SCORE + 1;
        }
        let side = pos.side_to_move().index();
        self.quiet_history(side, mv, piece_to(pos, mv), previous)
    }

    /// Scores a whole list at once (the root's moves, quiescence's captures).
    pub(crate) fn score_moves(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        previous: Previous,
    ) -> ArrayVec<i32, 256> {
        moves
            .iter()
            .map(|&mv| {
                if Some(mv) == tt_move {
                    TT_MOVE_SCORE
                } else if pos.is_noisy(mv) {
                    self.noisy_score(pos, mv)
                } else {
                    self.quiet_score(pos, mv, killers, previous)
                }
            })
            .collect()
    }
}
