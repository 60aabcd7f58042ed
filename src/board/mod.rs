//! The board: squares, pieces and bitboards, attack tables (magic bitboards
//! for the sliders), Zobrist keys, moves, the position with make-move and FEN,
//! the legal move generator, SAN reading and writing, and static exchange
//! evaluation. Everything here is rules and geometry: it imports nothing from
//! the rest of the crate.

pub mod attacks;
pub mod bitboard;
pub mod movegen;
pub mod moves;
pub mod position;
pub mod san;
pub mod see;
pub mod types;
pub mod zobrist;
