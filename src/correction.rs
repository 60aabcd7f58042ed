//! Correction history: a per-thread memory of how far the static evaluation
//! has been from the search's own results in positions with the same pawn
//! structure. The evaluation is blind to some features of a pawn structure
//! (a fortress, a blockade); the search sees their effect, and the running
//! average of (search score - static eval) over positions sharing that
//! structure corrects the eval that the pruning rules rely on.

use crate::position::Position;
use crate::types::{Color, PieceKind};

/// Entries per side; the pawn structure is hashed into this many slots.
const SIZE: usize = 16384;
/// Entries are kept in 1/GRAIN centipawns, so small corrections accumulate.
const GRAIN: i32 = 256;
/// A search result moves its entry by at most this many 256ths.
const MAX_WEIGHT: i32 = 16;

#[derive(Clone)]
pub struct CorrectionHistory {
    pawn: Box<[[i32; SIZE]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> CorrectionHistory {
        CorrectionHistory {
            pawn: Box::new([[0; SIZE]; 2]),
        }
    }
}

/// Slot of the position's pawn structure: a multiplicative hash of both
/// sides' pawn bitboards (cheaper than a second incremental Zobrist key, and
/// collisions only blur an average).
#[inline]
fn pawn_slot(pos: &Position) -> usize {
    let white = pos.pieces_of(Color::White, PieceKind::Pawn).0;
    let black = pos.pieces_of(Color::Black, PieceKind::Pawn).0;
    let hash =
        white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (hash >> (64 - SIZE.trailing_zeros())) as usize
}

impl CorrectionHistory {
    /// The static eval `raw` (side to move's view) shifted by what the search
    /// has learned about this pawn structure, by at most `limit` centipawns
    /// (0 turns the correction off).
    #[inline]
    pub fn corrected(&self, pos: &Position, raw: i32, limit: i32) -> i32 {
        if limit == 0 {
            return raw;
        }
        let side = pos.side_to_move().index();
        raw + self.pawn[side][pawn_slot(pos)] / GRAIN
    }

    /// Pulls this structure's entry towards `search_score - static_eval`
    /// (both bounded by `limit` centipawns), harder for deeper, more
    /// trustworthy searches.
    pub fn update(&mut self, pos: &Position, depth: i32, error: i32, limit: i32) {
        if limit == 0 {
            return;
        }
        let limit = limit * GRAIN;
        let side = pos.side_to_move().index();
        let entry = &mut self.pawn[side][pawn_slot(pos)];
        let weight = (depth + 1).clamp(1, MAX_WEIGHT);
        let target = (error * GRAIN).clamp(-limit, limit);
        *entry = ((*entry * (256 - weight) + target * weight) / 256).clamp(-limit, limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_the_sign_and_stays_bounded() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::default();
        assert_eq!(history.corrected(&pos, 10, 64), 10);
        for _ in 0..1000 {
            history.update(&pos, 20, 10_000, 64);
        }
        let up = history.corrected(&pos, 0, 64);
        assert!(up > 0 && up <= 64, "{up}");
        for _ in 0..1000 {
            history.update(&pos, 20, -30, 64);
        }
        let down = history.corrected(&pos, 0, 64);
        assert!((-30..0).contains(&down), "{down}");
    }

    #[test]
    fn sides_and_structures_are_separate() {
        let mut history = CorrectionHistory::default();
        let white = Position::startpos();
        let black = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .expect("valid FEN");
        let other = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1",
            false,
        )
        .expect("valid FEN");
        for _ in 0..100 {
            history.update(&white, 10, 50, 64);
        }
        assert!(history.corrected(&white, 0, 64) > 0);
        assert_eq!(history.corrected(&black, 0, 64), 0);
        assert_eq!(history.corrected(&other, 0, 64), 0);
    }

    #[test]
    fn a_zero_limit_turns_it_off() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::default();
        for _ in 0..100 {
            history.update(&pos, 10, 50, 0);
        }
        assert_eq!(history.corrected(&pos, 7, 64), 7);
        for _ in 0..100 {
            history.update(&pos, 10, 50, 64);
        }
        assert_eq!(history.corrected(&pos, 7, 0), 7);
    }
}
