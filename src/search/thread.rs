//! What one search thread keeps from one search to the next: its
//! move-ordering statistics, its correction history and its evaluator.

use crate::eval::{EvalConfig, Evaluator};
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
    /// The evaluation this thread plays with, and the network's accumulators.
    pub(crate) evaluator: Evaluator,
}

impl ThreadData {
    pub fn clear(&mut self) {
        *self = ThreadData::default();
    }

    /// Makes the evaluator play as `config` says (a search request's choice).
    pub(crate) fn follow(&mut self, config: &EvalConfig) {
        if !self.evaluator.follows(config) {
            self.evaluator = Evaluator::new(config);
        }
    }
}
