//! The offline tools behind the developer subcommands: self-play data
//! generation (`datagen`), Texel tuning of the hand-written weights
//! (`tune`), SPSA tuning of the search parameters (`spsa`), the network
//! trainer (`nnue_train`), SPRT pooling of match results (`sprt`) and the EPD
//! test-suite runner (`epd`), the WDL model fit (`wdl`), the check of
//! self-play's labels against deeper searches (`labels`), and what the
//! self-play tools share (`selfplay`).
//! The engine never imports them.

pub mod datagen;
pub mod epd;
pub mod labels;
pub mod nnue_train;
pub mod pool;
pub mod selfplay;
pub mod sprt;
pub mod spsa;
pub mod tune;
pub mod viriformat;
pub mod wdl;
