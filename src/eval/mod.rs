//! The evaluation: a hand-written tapered evaluation (`terms`, its weights
//! in `weights`, the tuner's view of them in `trace`) corrected by a small
//! network (`network`), the score units both share (`score`), and the
//! win/draw/loss model of a score (`wdl`). It reads the board and nothing
//! else; which evaluation plays travels with each search ([`EvalConfig`]).

pub mod network;
pub mod score;
mod tapered;
mod terms;
mod trace;
pub mod wdl;
mod weights;

pub use tapered::S;
pub use terms::{evaluate_hce, evaluate_verbose, phase};
pub use trace::{default_params, idx, trace, EvalTrace, Shape, Tunable, TunableItem, TUNABLES};
pub use weights::*;

use crate::board::position::Position;
use network::{AccumulatorStack, Network};
use std::sync::Arc;

/// Which evaluation an engine plays with: the network (with its share of
/// the hand-written evaluation) or the hand-written evaluation alone. Cheap
/// to clone; it travels with each search request, so two engines in one
/// process never see each other's choice (UCI `UseNNUE`, `EvalFile`).
#[derive(Clone)]
pub struct EvalConfig {
    /// The network played with while `use_network` is on.
    pub network: Arc<Network>,
    /// False: the hand-written evaluation alone.
    pub use_network: bool,
}

impl std::fmt::Debug for EvalConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalConfig")
            .field("use_network", &self.use_network)
            .field("network_hce_percent", &self.network.hce_percent)
            .finish()
    }
}

impl Default for EvalConfig {
    /// The embedded network, on as `UseNNUE` is by default.
    fn default() -> EvalConfig {
        EvalConfig {
            network: Network::embedded(),
            use_network: network::DEFAULT_ENABLED,
        }
    }
}

impl EvalConfig {
    /// The hand-written evaluation alone.
    pub fn hand_written() -> EvalConfig {
        EvalConfig {
            use_network: false,
            ..EvalConfig::default()
        }
    }

    /// Static evaluation in centipawns from the side to move's point of
    /// view; exactly 0 for dead positions.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        if !self.use_network {
            return evaluate_hce(pos);
        }
        if pos.is_dead_position() {
            return 0;
        }
        self.network.evaluate(pos)
    }
}

/// One search thread's evaluation: an [`EvalConfig`] and, for the network,
/// its accumulators by ply, so that a node's are its parent's plus the few
/// pieces that changed.
#[derive(Clone)]
pub struct Evaluator {
    use_network: bool,
    accumulators: AccumulatorStack,
}

impl Default for Evaluator {
    fn default() -> Evaluator {
        Evaluator::new(&EvalConfig::default())
    }
}

impl Evaluator {
    pub fn new(config: &EvalConfig) -> Evaluator {
        Evaluator {
            use_network: config.use_network,
            accumulators: AccumulatorStack::new(Arc::clone(&config.network)),
        }
    }

    /// Whether this evaluator plays as `config` says.
    pub fn follows(&self, config: &EvalConfig) -> bool {
        self.use_network == config.use_network
            && Arc::ptr_eq(self.accumulators.network(), &config.network)
    }

    /// [`EvalConfig::evaluate`] for a search node `ply` plies from the root:
    /// the network reuses the accumulators (same score, less work).
    #[inline]
    pub fn evaluate_at(&mut self, pos: &Position, ply: usize) -> i32 {
        if !self.use_network {
            return evaluate_hce(pos);
        }
        if pos.is_dead_position() {
            return 0;
        }
        network::evaluate_at(pos, &mut self.accumulators, ply)
    }
}
