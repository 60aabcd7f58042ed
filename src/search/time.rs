//! Time management: turns the `go` parameters into a soft limit (checked
//! between iterations: do not start another) and a hard limit (checked inside
//! the search: stop now).

use crate::board::moves::Move;
use crate::board::types::Color;
use std::time::Duration;

/// Everything a `go` command can ask for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration is started once this many nodes are searched (a
    /// node budget's soft limit, as a time budget has one; not a UCI `go`
    /// parameter: self-play uses it to spend no nodes on an iteration the
    /// hard `nodes` limit would cut short).
    pub soft_nodes: Option<u64>,
    /// No new iteration is started once this many nodes are searched and
    /// the best move is a capture or a promotion (not a UCI `go` parameter:
    /// self-play training drops such positions whatever their score, so
    /// their search only has to find a sound move).
    pub tactical_soft_nodes: Option<u64>,
    /// Find a mate in at most this many moves.
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    /// Root moves to consider (legal in the position searched); empty: all.
    pub searchmoves: Vec<Move>,
}

/// The two limits of one search; `None` means unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

impl TimeBudget {
    /// Budget for `us` from the limits. `overhead_ms` (GUI and transport lag) is
    /// taken off every figure first, so the answer reaches the GUI in time.
    pub fn new(limits: &Limits, us: Color, overhead_ms: u64) -> TimeBudget {
        let overhead = overhead_ms as i64;
        if let Some(mt) = limits.movetime {
            // A fixed time is used in full: no soft limit ends it early. The
            // margin is at most a tenth of it, so a short `movetime` is
            // searched, not spent on the margin.
            let t = (mt as i64 - overhead.min(mt as i64 / 10)).max(1) as u64;
            return TimeBudget {
                soft: None,
                hard: Some(Duration::from_millis(t)),
            };
        }
        let (ours, theirs) = match us {
            Color::White => ((limits.wtime, limits.winc), (limits.btime, limits.binc)),
            Color::Black => ((limits.btime, limits.binc), (limits.wtime, limits.winc)),
        };
        // A `go` that gives only the opponent's clock still sets a time control:
        // assume ours is the same rather than think forever.
        let (time, inc) = if ours.0.is_some() { ours } else { theirs };
        let Some(time) = time else {
            return TimeBudget {
                soft: None,
                hard: None,
            };
        };
        let inc = inc.unwrap_or(0).max(0);
        // What we may spend at most, with a reserve against lag spikes.
        let left = (time - overhead).max(1);
        let moves_to_go = limits.movestogo.map_or(30, |m| m.clamp(1, 30)) as i64;
        let (soft, hard) = if moves_to_go == 1 {
            (left / 2, left * 3 / 4)
        } else {
            // Lean on the increment only while the clock could absorb a slow
            // answer: on a loaded machine a move can cost more than the
            // increment returns, and a low clock must not bleed to zero.
            let inc_share = if left > 20 * inc {
                inc * 3 / 4
            } else {
                inc / 2
            };
            let base = left / moves_to_go + inc_share;
            let soft = base.min(left / 5);
            let hard = (base * 4).min(left / 3).max(soft);
            (soft, hard)
        };
        TimeBudget {
            soft: Some(Duration::from_millis(soft.max(1) as u64)),
            hard: Some(Duration::from_millis(hard.max(1) as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(l: Limits) -> (u64, u64) {
        let b = TimeBudget::new(&l, Color::White, 50);
        (
            b.soft.map_or(u64::MAX, |d| d.as_millis() as u64),
            b.hard.map_or(u64::MAX, |d| d.as_millis() as u64),
        )
    }

    #[test]
    fn movetime_minus_overhead() {
        let l = Limits {
            movetime: Some(1000),
            ..Limits::default()
        };
        assert_eq!(budget(l), (u64::MAX, 950));
    }

    #[test]
    fn a_short_movetime_keeps_most_of_its_time() {
        // The 50 ms overhead would leave nothing of 50 ms: a tenth is kept back.
        for (movetime, hard) in [(50, 45), (200, 180), (1, 1)] {
            let l = Limits {
                movetime: Some(movetime),
                ..Limits::default()
            };
            assert_eq!(budget(l), (u64::MAX, hard), "movetime {movetime}");
        }
    }

    #[test]
    fn never_more_than_the_clock() {
        for (time, inc, mtg) in [
            (50, 0, None),
            (0, 0, None),
            (-500, 10, None),
            (1000, 10, Some(1)),
            (60_000, 1000, None),
        ] {
            let l = Limits {
                wtime: Some(time),
                winc: Some(inc),
                movestogo: mtg,
                ..Limits::default()
            };
            let (soft, hard) = budget(l);
            assert!(soft <= hard);
            let usable = (time - 50).max(1) as u64;
            assert!(
                hard <= usable.max(1),
                "hard {hard} > usable {usable} for time {time}"
            );
        }
    }

    #[test]
    fn only_the_opponents_clock_still_limits_the_search() {
        let l = Limits {
            btime: Some(10_000),
            binc: Some(100),
            ..Limits::default()
        };
        let (soft, hard) = budget(l);
        assert!(soft <= hard && hard < 10_000, "soft {soft} hard {hard}");
    }

    #[test]
    fn no_clock_means_no_limit() {
        assert_eq!(budget(Limits::default()), (u64::MAX, u64::MAX));
    }
}
