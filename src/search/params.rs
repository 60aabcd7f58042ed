//! The search's numeric parameters: margins, reductions and depth limits of
//! the pruning rules. They live in one struct, rather than as constants
//! spread over the search, so that `guoxiang spsa` (the `spsa` tool) can
//! play games between two settings in one process and tune them by
//! measurement. Play always uses [`SearchParams::default`]; tuned values are
//! written back here as the new defaults.

/// One tunable parameter: its range and the size of the step SPSA tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    /// The perturbation SPSA applies at the end of a run (`c_end`): big
    /// enough that the two settings play measurably differently.
    pub step: i32,
}

macro_rules! search_params {
    ($($(#[doc = $doc:literal])* $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal;)*) => {
        /// The search's tunable parameters (see the module text).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct SearchParams {
            $($(#[doc = $doc])* pub $name: i32,)*
        }

        impl Default for SearchParams {
            fn default() -> SearchParams {
                SearchParams { $($name: $default,)* }
            }
        }

        /// Every parameter with its range, in declaration order.
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable { name: stringify!($name), default: $default, min: $min, max: $max, step: $step },)*
        ];

        impl SearchParams {
            /// The value of the parameter called `name`.
            pub fn get(&self, name: &str) -> Option<i32> {
                match name {
                    $(stringify!($name) => Some(self.$name),)*
                    _ => None,
                }
            }

            /// Sets the parameter called `name`, clamped to its range; false
            /// if there is no such parameter.
            pub fn set(&mut self, name: &str, value: i32) -> bool {
                match name {
                    $(stringify!($name) => self.$name = value.clamp($min, $max),)*
                    _ => return false,
                }
                true
            }
        }
    };
}

search_params! {
    /// Late-move reduction: `lmr_base / 100 + ln(depth) ln(move number) / (lmr_divisor / 100)`.
    lmr_base = 71, 0..=200, step 10;
    lmr_divisor = 303, 100..=400, step 15;
    /// A quiet move's reduction shrinks by one per this much history.
    lmr_history = 4800, 2000..=20000, step 1000;
    /// Null move reduction: `nmp_base + depth / nmp_depth_divisor + min((eval - beta) / nmp_eval_divisor, 3)`.
    nmp_base = 3, 1..=6, step 1;
    nmp_depth_divisor = 4, 2..=6, step 1;
    nmp_eval_divisor = 188, 50..=400, step 25;
    /// Reverse futility: return the eval when it beats beta by this much per ply (up to `rfp_depth`).
    rfp_margin = 62, 30..=150, step 8;
    rfp_depth = 10, 3..=12, step 1;
    /// Futility: skip quiet moves when eval + base + scale x depth is still below alpha.
    futility_base = 123, 0..=300, step 15;
    futility_scale = 115, 30..=200, step 10;
    /// Late-move pruning: keep `(lmp_base + depth^2) / (2 - improving)` quiet moves.
    lmp_base = 5, 1..=8, step 1;
    /// Exchange thresholds below which a move is pruned at low depth:
    /// `-see_quiet x depth^2` for quiet moves, `-see_noisy x depth` for captures.
    see_quiet = 7, 5..=80, step 4;
    see_noisy = 69, 30..=200, step 10;
    /// History pruning: at depth <= 4, skip the quiet moves whose history is
    /// below `-history_prune x depth`; 0 turns it off (2000 was flat over
    /// 2,200 games at 25,000 nodes: strength log).
    history_prune = 0, 0..=8000, step 250;
    /// Half-width of the first aspiration window.
    aspiration_delta = 13, 5..=60, step 3;
    /// Singular extensions test the hash move against `hash score - singular_margin x depth`.
    singular_margin = 3, 1..=6, step 1;
    /// A cutoff at `depth` moves the histories by `min(history_scale x depth^2, history_max)`.
    history_scale = 35, 4..=64, step 3;
    history_max = 2500, 400..=4000, step 150;
    /// Pawn-structure correction of the static eval (`src/search/correction.rs`):
    /// at most this many centipawns; 0 turns it off. 64 with the line
    /// below: +19.5 Elo at 8+0.08 (strength log).
    correction_limit = 64, 0..=128, step 8;
    /// Percent of the two piece-placement corrections (one per colour,
    /// same cap) added to the pawn one; 0: off (50 was flat over 2,000
    /// games at 25,000 nodes: strength log).
    piece_correction = 0, 0..=100, step 10;
    /// 1: a hash score whose bound shows the static eval is off replaces it
    /// in the pruning rules; 0: off.
    tt_eval_refine = 1, 0..=1, step 1;
    /// Time management, in hundredths: the soft limit is also scaled by
    /// `(1.5 - share of root nodes under the best move) x tm_effort / 100`
    /// (kept within 0.6..1.6, from depth 6); 0 turns it off (pending an SPRT).
    tm_effort = 0, 0..=200, step 10;
    /// ... and by `1 + fall / tm_fall` while the best score falls (fall
    /// capped at 100 cp); 0 turns it off.
    tm_fall = 0, 0..=400, step 20;
    /// Quiescence delta pruning: a capture must be able to bring the score this close to alpha.
    delta_margin = 171, 50..=400, step 20;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_reads_and_writes_its_own_field() {
        let defaults = SearchParams::default();
        for t in TUNABLES {
            assert_eq!(defaults.get(t.name), Some(t.default), "{}", t.name);
            assert!(t.min <= t.default && t.default <= t.max, "{}", t.name);
            let mut p = defaults;
            let other = if t.default < t.max {
                t.default + 1
            } else {
                t.default - 1
            };
            assert!(p.set(t.name, other));
            assert_eq!(p.get(t.name), Some(other), "{}", t.name);
            // Only that field moved.
            let changed = TUNABLES
                .iter()
                .filter(|u| p.get(u.name) != defaults.get(u.name))
                .count();
            assert_eq!(changed, 1, "{}", t.name);
        }
    }

    #[test]
    fn values_are_clamped_and_unknown_names_refused() {
        let mut p = SearchParams::default();
        assert!(p.set("lmr_base", 10_000));
        assert_eq!(p.lmr_base, 200);
        assert!(p.set("lmr_base", -5));
        assert_eq!(p.lmr_base, 0);
        assert!(!p.set("no_such_parameter", 1));
        assert_eq!(p.get("no_such_parameter"), None);
    }
}
