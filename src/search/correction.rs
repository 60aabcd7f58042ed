//! Correction history: a per-thread memory of how far the static evaluation
//! has been from the search's own results in positions with the same pawn
//! structure. The evaluation is blind to some features of a pawn structure
//! (a fortress, a blockade); the search sees their effect, and the running
//! average of (search score - static eval) over positions sharing that
//! structure corrects the eval that the pruning rules rely on. A second
//! pair of tables does the same per side for the placement of that side's
//! pieces (everything but pawns), weighted by a search parameter.

use crate::board::position::Position;
use crate::board::types::{Color, PieceKind};

/// Entries per side; the pawn structure is hashed into this many slots.
const SIZE: usize = 16384;
/// Entries are kept in 1/GRAIN centipawns, so small corrections accumulate.
const GRAIN: i32 = 256;
/// A search result moves its entry by at most this many 256ths.
const MAX_WEIGHT: i32 = 16;

#[derive(Clone)]
pub struct CorrectionHistory {
    /// [side to move][pawn-structure slot]
    pawn: Box<[[i32; SIZE]; 2]>,
    /// [side to move][colour of the pieces][piece-placement slot]
    pieces: Box<[[[i32; SIZE]; 2]; 2]>,
}

impl Default for CorrectionHistory {
    fn default() -> CorrectionHistory {
        CorrectionHistory {
            pawn: Box::new([[0; SIZE]; 2]),
            pieces: Box::new([[[0; SIZE]; 2]; 2]),
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

/// Slot of where `color`'s knights, bishops, rooks, queens and king stand.
#[inline]
fn piece_slot(pos: &Position, color: Color) -> usize {
    const KINDS: [(PieceKind, u64); 5] = [
        (PieceKind::Knight, 0x9E37_79B9_7F4A_7C15),
        (PieceKind::Bishop, 0xC2B2_AE3D_27D4_EB4F),
        (PieceKind::Rook, 0x1656_67B1_9E37_79F9),
        (PieceKind::Queen, 0xD6E8_FEB8_6659_FD93),
        (PieceKind::King, 0xFF51_AFD7_ED55_8CCD),
    ];
    let hash = KINDS.iter().fold(0u64, |hash, &(kind, factor)| {
        hash.rotate_left(7) ^ pos.pieces_of(color, kind).0.wrapping_mul(factor)
    });
    (hash >> (64 - SIZE.trailing_zeros())) as usize
}

/// Moves one entry towards `target` (both in 1/GRAIN cp) by `weight`/256.
#[inline]
fn pull(entry: &mut i32, target: i32, weight: i32, limit: i32) {
    *entry = ((*entry * (256 - weight) + target * weight) / 256).clamp(-limit, limit);
}

impl CorrectionHistory {
    /// The static eval `raw` (side to move's view) shifted by what the search
    /// has learned about this pawn structure, each entry at most `limit`
    /// centipawns (0 turns the correction off), plus `pieces` percent of the
    /// two piece-placement entries (0 leaves them out).
    #[inline]
    pub fn corrected(&self, pos: &Position, raw: i32, limit: i32, pieces: i32) -> i32 {
        if limit == 0 {
            return raw;
        }
        let side = pos.side_to_move().index();
        let mut correction = self.pawn[side][pawn_slot(pos)];
        if pieces != 0 {
            let placement: i32 = [Color::White, Color::Black]
                .iter()
                .map(|&c| self.pieces[side][c.index()][piece_slot(pos, c)])
                .sum();
            correction += placement * pieces / 100;
        }
        raw + correction / GRAIN
    }

    /// Pulls this structure's entry towards `search_score - static_eval`
    /// (both bounded by `limit` centipawns), harder for deeper, more
    /// trustworthy searches.
    /// The piece-placement entries learn only when `pieces` is not 0.
    pub fn update(&mut self, pos: &Position, depth: i32, error: i32, limit: i32, pieces: i32) {
        if limit == 0 {
            return;
        }
        let limit = limit * GRAIN;
        let side = pos.side_to_move().index();
        let weight = (depth + 1).clamp(1, MAX_WEIGHT);
        let target = (error * GRAIN).clamp(-limit, limit);
        pull(&mut self.pawn[side][pawn_slot(pos)], target, weight, limit);
        if pieces != 0 {
            for color in [Color::White, Color::Black] {
                let entry = &mut self.pieces[side][color.index()][piece_slot(pos, color)];
                pull(entry, target, weight, limit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_the_sign_and_stays_bounded() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::default();
        assert_eq!(history.corrected(&pos, 10, 64, 0), 10);
        for _ in 0..1000 {
            history.update(&pos, 20, 10_000, 64, 0);
        }
        let up = history.corrected(&pos, 0, 64, 0);
        assert!(up > 0 && up <= 64, "{up}");
        for _ in 0..1000 {
            history.update(&pos, 20, -30, 64, 0);
        }
        let down = history.corrected(&pos, 0, 64, 0);
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
            history.update(&white, 10, 50, 64, 0);
        }
        assert!(history.corrected(&white, 0, 64, 0) > 0);
        assert_eq!(history.corrected(&black, 0, 64, 0), 0);
        assert_eq!(history.corrected(&other, 0, 64, 0), 0);
    }

    #[test]
    fn a_zero_limit_turns_it_off() {
        let pos = Position::startpos();
        let mut history = CorrectionHistory::default();
        for _ in 0..100 {
            history.update(&pos, 10, 50, 0, 0);
        }
        assert_eq!(history.corrected(&pos, 7, 64, 0), 7);
        for _ in 0..100 {
            history.update(&pos, 10, 50, 64, 0);
        }
        assert_eq!(history.corrected(&pos, 7, 0, 0), 7);
    }

    #[test]
    fn piece_placement_entries_count_only_when_weighted() {
        let pos = Position::startpos();
        // Same pawns, a knight moved: a different piece placement.
        let knight_out = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1",
            false,
        )
        .expect("valid FEN");
        let mut history = CorrectionHistory::default();
        for _ in 0..1000 {
            history.update(&pos, 20, 40, 64, 100);
        }
        // The pawn entry (shared with knight_out) plus both placement entries.
        let full = history.corrected(&pos, 0, 64, 100);
        let pawn_only = history.corrected(&pos, 0, 64, 0);
        assert!((30..=40).contains(&pawn_only), "{pawn_only}");
        assert!(full >= 2 * pawn_only, "{full} vs {pawn_only}");
        // White's placement differs, Black's is shared.
        let moved = history.corrected(&knight_out, 0, 64, 100);
        assert!(moved > pawn_only && moved < full, "{moved}");
    }
}
