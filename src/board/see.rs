//! Static exchange evaluation: does a capture sequence on one square win at
//! least a threshold? Used to order captures and to prune losing ones.

use crate::board::attacks::{bishop_attacks, rook_attacks};
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::PieceKind;

/// Piece values for exchanges (the king can be "captured" only last).
pub const SEE_VALUES: [i32; 6] = [100, 300, 300, 500, 900, 20_000];

#[inline(always)]
pub fn see_value(kind: PieceKind) -> i32 {
    SEE_VALUES[kind.index()]
}

/// Whether `mv` wins at least `threshold` in the exchange on its destination,
/// both sides recapturing with their least valuable attacker (x-rays
/// included, pins ignored). Castling, en passant and promotions count as
/// neutral exchanges.
pub fn see_ge(pos: &Position, mv: Move, threshold: i32) -> bool {
    if mv.kind() != MoveKind::Normal {
        return threshold <= 0;
    }
    let from = mv.from();
    let to = mv.to();
    let Some(mover) = pos.piece_on(from) else {
        return false;
    };
    // What we win if nobody recaptures.
    let mut swap = pos.piece_on(to).map_or(0, |p| see_value(p.kind())) - threshold;
    if swap < 0 {
        return false;
    }
    // What we still win if our piece is taken for nothing more.
    swap = see_value(mover.kind()) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = pos.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
    let mut side = mover.color();
    let mut attackers = pos.attackers_to(to, occupied);
    let diagonal = pos.pieces(PieceKind::Bishop) | pos.pieces(PieceKind::Queen);
    let straight = pos.pieces(PieceKind::Rook) | pos.pieces(PieceKind::Queen);
    // 1 while the side that made the last capture is ahead of the threshold.
    let mut result = 1;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & pos.colored(side);
        if ours.is_empty() {
            break;
        }
        result ^= 1;
        // Least valuable attacker.
        let Some(kind) = PieceKind::ALL
            .into_iter()
            .find(|&k| (ours & pos.pieces(k)).nonempty())
        else {
            break;
        };
        if kind == PieceKind::King {
            // The king may capture only if the other side has nothing left to recapture.
            return if (attackers & pos.colored(!side)).nonempty() {
                result ^ 1 == 1
            } else {
                result == 1
            };
        }
        swap = see_value(kind) - swap;
        if swap < result {
            break;
        }
        occupied ^= Bitboard::from_square((ours & pos.pieces(kind)).lsb());
        // Sliders behind the capturer join in.
        if matches!(kind, PieceKind::Pawn | PieceKind::Bishop | PieceKind::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(kind, PieceKind::Rook | PieceKind::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
    }
    result == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, mv: &str, threshold: i32) -> bool {
        let pos = Position::from_fen(fen, false).expect("valid FEN");
        let m = pos.parse_uci_move(mv).expect("legal move");
        see_ge(&pos, m, threshold)
    }

    #[test]
    fn free_pawn_is_won() {
        let fen = "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1";
        assert!(see(fen, "e1e5", 100));
        assert!(!see(fen, "e1e5", 101));
    }

    #[test]
    fn defended_pawn_taken_by_queen_loses() {
        // Qxd5 exd5: the queen is lost for a pawn.
        let fen = "4k3/8/4p3/3p4/8/8/3Q4/4K3 w - - 0 1";
        assert!(!see(fen, "d2d5", 0));
        assert!(see(fen, "d2d5", -800));
    }

    #[test]
    fn xray_recapture_counts() {
        // Rxe5 with a second rook behind: dxe5 Rxe5 nets pawn + pawn - rook.
        let fen = "4k3/8/3p4/4p3/8/8/4R3/4RK2 w - - 0 1";
        assert!(!see(fen, "e2e5", 0));
        assert!(see(fen, "e2e5", -400));
    }
}
