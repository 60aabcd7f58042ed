//! The evaluation: a hand-written tapered evaluation (`terms`) corrected by a
//! small network (`network`), and the score units both share (`score`).
//! It reads the board and nothing else.

pub mod network;
pub mod score;
mod tapered;
mod terms;
mod trace;
mod weights;

pub use tapered::S;
pub use terms::{evaluate_hce, evaluate_verbose, phase};
pub use trace::{default_params, idx, trace, EvalTrace, Shape, Tunable, TunableItem, TUNABLES};
pub use weights::*;

use crate::board::position::Position;

/// Static evaluation in centipawns from the side to move's point of view.
/// Exactly 0 for dead positions. With the network switched on (UCI option
/// `UseNNUE`), the network's score; otherwise the hand-written evaluation.
pub fn evaluate(pos: &Position) -> i32 {
    if crate::eval::network::enabled() {
        if pos.is_dead_position() {
            return 0;
        }
        return crate::eval::network::evaluate(pos);
    }
    evaluate_hce(pos)
}

/// [`evaluate`] for a search node `ply` plies from the root: the network
/// reuses the accumulators of `stack` (same score, less work).
#[inline]
pub fn evaluate_at(
    pos: &Position,
    stack: &mut crate::eval::network::AccumulatorStack,
    ply: usize,
) -> i32 {
    if crate::eval::network::enabled() {
        if pos.is_dead_position() {
            return 0;
        }
        return crate::eval::network::evaluate_at(pos, stack, ply);
    }
    evaluate_hce(pos)
}
