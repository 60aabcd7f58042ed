//! The evaluation: a hand-written tapered evaluation (`terms`) corrected by a
//! small network (`network`), and the score units both share (`score`).
//! It reads the board and nothing else.

pub mod network;
pub mod score;
mod terms;

pub use terms::*;
