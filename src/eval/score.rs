//! Score units and limits shared by the evaluation and the search: scores
//! are centipawns from the side to move's point of view, and a mate in `n`
//! plies scores `MATE - n`. A leaf: it imports nothing.

/// The deepest a search goes (plies from the root); per-ply tables are this long.
pub const MAX_PLY: usize = 128;
/// Above every score: the initial alpha-beta window.
pub const INFINITE: i32 = 32_001;
/// The score of giving mate now.
pub const MATE: i32 = 32_000;
/// Scores beyond this are mates (in at most MAX_PLY plies).
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 1;
/// A tablebase win `n` plies from the root scores `TB_WIN - n`: below every
/// mate, far above every evaluation.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores from here up to `MATE_BOUND` are tablebase wins.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// Converts a score to "mate in N moves" if it is a mate score.
pub fn mate_in(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-(MATE + score) / 2)
    } else {
        None
    }
}
