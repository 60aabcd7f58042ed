//! Guoxiang (国象): a UCI chess engine.
//!
//! Areas, each depending only on those before it: `board` (rules, move
//! generation), `eval` (score units, hand-written evaluation, network, WDL
//! model), `tablebase` (the Syzygy prober), `search` (the alpha-beta search
//! and its tables, strength levels, tablebase use), `tools` (the offline
//! tools); on top, `uci` (the protocol), `perft` and
//! `bench`. `src/main.rs` is the command line. `tests/architecture.rs` keeps
//! the areas free of import cycles.

// Every `unsafe` block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bench;
pub mod board;
pub mod eval;
pub mod perft;
pub mod search;
pub mod tablebase;
pub mod tools;
pub mod uci;

pub use board::bitboard::Bitboard;
pub use board::moves::{Move, MoveKind, MoveList};
pub use board::position::{FenError, Position};
pub use board::types::{Color, Piece, PieceKind, Square};
