//! Guoxiang (国象): a UCI chess engine.
//!
//! The library holds the board, move generation, perft, evaluation and
//! search; `src/main.rs` is the command line and UCI front end.

// Every `unsafe` block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod board;
pub mod eval;
pub mod perft;
pub mod search;
pub mod tools;
pub mod uci;

pub use board::bitboard::Bitboard;
pub use board::moves::{Move, MoveKind, MoveList};
pub use board::position::{FenError, Position};
pub use board::types::{Color, Piece, PieceKind, Square};
