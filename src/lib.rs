//! Guoxiang (国象): a UCI chess engine.
//!
//! The library holds the board, move generation, perft, evaluation and
//! search; `src/main.rs` is the command line and UCI front end.

// Every `unsafe` block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
pub mod bench;
pub mod bitboard;
pub mod cli;
pub mod correction;
pub mod datagen;
pub mod epd;
pub mod eval;
pub mod movegen;
pub mod moves;
pub mod nnue;
pub mod nnue_train;
pub mod ordering;
pub mod params;
pub mod perft;
pub mod position;
pub mod san;
pub mod search;
pub mod see;
pub mod sprt;
pub mod spsa;
pub mod time;
pub mod tt;
pub mod tune;
pub mod types;
pub mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use moves::{Move, MoveKind, MoveList};
pub use position::{FenError, Position};
pub use types::{Color, Piece, PieceKind, Square};
