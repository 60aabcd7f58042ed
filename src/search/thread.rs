//! What one search thread keeps from one search to the next: its
//! move-ordering statistics, its correction history and its evaluator.

use crate::eval::network::AccumulatorStack;
use crate::search::correction::CorrectionHistory;
use crate::search::history::Histories;

/// Per-thread tables that outlive one search; the UCI layer hands them from
/// search to search and clears them for a new game.
#[derive(Clone, Default)]
pub struct ThreadData {
    /// Killers and histories, for move ordering.
    pub(crate) history: Histories,
    /// How far the static eval has been from search results, by pawn structure.
    pub(crate) correction: CorrectionHistory,
    /// The network's accumulators by ply.
    pub(crate) accumulators: AccumulatorStack,
}

impl ThreadData {
    pub fn clear(&mut self) {
        *self = ThreadData::default();
    }
}
