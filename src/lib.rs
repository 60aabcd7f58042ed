//! Guoxiang (国象): a UCI chess engine.
//!
//! The library holds the board, move generation, perft, evaluation and
//! search; `src/main.rs` is the command line and UCI front end.

// Every `unsafe` block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod board;
pub mod cli;
pub mod datagen;
pub mod epd;
pub mod eval;
pub mod nnue_train;
pub mod perft;
pub mod search;
pub mod sprt;
pub mod spsa;
pub mod tune;
pub mod uci;

pub use board::bitboard::Bitboard;
pub use board::moves::{Move, MoveKind, MoveList};
pub use board::position::{FenError, Position};
pub use board::types::{Color, Piece, PieceKind, Square};
