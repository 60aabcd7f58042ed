//! `Move`: 16 bits — from (6), to (6), promotion piece (2), kind (2).
//!
//! Castling is stored as "king takes own rook" so the same encoding serves
//! standard chess and Chess960; the UCI text is chosen when printing.

use crate::board::types::{PieceKind, Square};
use arrayvec::ArrayVec;
use std::num::NonZeroU16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    Normal,
    Promotion,
    EnPassant,
    Castling,
}

/// A move. Never zero (a1a1 is not a move), so `Option<Move>` is two bytes too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

const _: () = assert!(std::mem::size_of::<Option<Move>>() == 2);

const KIND_SHIFT: u16 = 14;
const PROMO_SHIFT: u16 = 12;

impl Move {
    #[inline(always)]
    fn pack(from: Square, to: Square, promo: u16, kind: u16) -> Move {
        let bits = from.index() as u16
            | (to.index() as u16) << 6
            | promo << PROMO_SHIFT
            | kind << KIND_SHIFT;
        // from != to for every real move, so the value is never zero; fall back to a
        // harmless non-zero pattern rather than panicking if a caller breaks that.
        Move(NonZeroU16::new(bits).unwrap_or(NonZeroU16::MIN))
    }

    #[inline(always)]
    pub fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, 0, 0)
    }

    /// A promotion to `kind` (Knight, Bishop, Rook or Queen).
    #[inline(always)]
    pub fn promotion(from: Square, to: Square, kind: PieceKind) -> Move {
        Move::pack(from, to, (kind.index() as u16).wrapping_sub(1) & 3, 1)
    }

    #[inline(always)]
    pub fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, 0, 2)
    }

    /// Castling, encoded as the king moving onto its own rook's square.
    #[inline(always)]
    pub fn castling(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, 0, 3)
    }

    #[inline(always)]
    pub fn from(self) -> Square {
        Square::new((self.0.get() & 63) as u8)
    }

    /// The destination; for castling, the rook's square.
    #[inline(always)]
    pub fn to(self) -> Square {
        Square::new((self.0.get() >> 6 & 63) as u8)
    }

    #[inline(always)]
    pub fn kind(self) -> MoveKind {
        match self.0.get() >> KIND_SHIFT {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The piece a promotion makes, if this is a promotion.
    #[inline(always)]
    pub fn promotion_piece(self) -> Option<PieceKind> {
        if self.kind() == MoveKind::Promotion {
            Some(PieceKind::from_index(
                (self.0.get() >> PROMO_SHIFT & 3) as usize + 1,
            ))
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn is_castling(self) -> bool {
        self.kind() == MoveKind::Castling
    }

    /// The raw 16 bits, for compact storage (the transposition table).
    #[inline(always)]
    pub fn bits(self) -> u16 {
        self.0.get()
    }

    #[inline(always)]
    pub fn from_bits(bits: u16) -> Option<Move> {
        NonZeroU16::new(bits).map(Move)
    }

    /// UCI text. Castling is printed as king-to-destination (`e1g1`) unless
    /// `chess960`, where it is king-takes-rook (`e1h1`).
    pub fn to_uci(self, chess960: bool) -> String {
        let to = if self.is_castling() && !chess960 {
            let file = if self.to().file() > self.from().file() {
                6
            } else {
                2
            };
            Square::from_file_rank(file, self.from().rank())
        } else {
            self.to()
        };
        let mut s = format!("{}{}", self.from(), to);
        if let Some(p) = self.promotion_piece() {
            s.push(p.char());
        }
        s
    }
}

/// The largest number of legal moves in a chess position is 218; 256 leaves room.
pub const MAX_MOVES: usize = 256;

pub type MoveList = ArrayVec<Move, MAX_MOVES>;
