//! Tuning support: the weights as one parameter vector, and evaluation traces.
//!
//! Every tunable `const` of `weights.rs` is listed once in `tunables!`
//! below. That gives each weight an offset in a flat parameter vector
//! (`idx::NAME`; an `S` takes two entries, mg then eg, an array takes its
//! elements in order), the list [`TUNABLES`] (names and shapes, for writing
//! the weights back as Rust source) and [`default_params`] (the compiled-in
//! values). [`trace()`] evaluates a position while recording how often each
//! weight is used; the evaluation is then a cheap function of the parameter
//! vector ([`EvalTrace::evaluate_int`] reproduces
//! [`evaluate_hce`](crate::eval::evaluate_hce) exactly).
//!
//! The terms take every weight through `weight!` (an [`S`]) or `weight_eg!`
//! (an end-game-only `i32`): named once, the macro gives the term the value
//! and reports the same name's parameter to the `Tracer`, so a term cannot
//! use a weight without tracing it. Only material and piece-square
//! values (`trace_psq`) and the king-danger formula are traced by hand.
//!
//! Tuned: every weight listed in `tunables!`, i.e. material, the piece-square
//! tables, mobility, pawn structure, passed pawns, piece terms, threats, pawn
//! shield and king files, tempo, mop-up, and the king-danger formula's
//! KING_DANGER_QUADRATIC, KING_DANGER_MAX and KING_DANGER_EG.
//! Fixed: the attack-unit tables (KING_ATTACK_UNITS, SAFE_CHECK_UNITS,
//! KING_DANGER_NO_QUEEN_DIV: each position's attack units are taken as
//! given), the end-game scale factors and NO_PAWN_EDGE, and the phase weights.
//! The conditions that compare material (mop-up, scale factors) are taken
//! as they are with the compiled-in weights.

use super::terms::{breakdown_with, phase, scale_factor};
use super::weights::*;
use crate::board::position::Position;
use crate::board::types::{Color, PieceKind, Square};
use crate::eval::S;

/// How a tunable weight is laid out in the parameter vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One [`S`]: middle-game value, then end-game value.
    Pair,
    /// `[S; n]`: mg and eg of element 0, then of element 1, and so on.
    Pairs(usize),
    /// One `i32`.
    Int,
    /// `[i32; n]` (the piece-square tables, a8 first).
    Ints(usize),
}

impl Shape {
    /// Number of entries in the parameter vector.
    pub const fn size(self) -> usize {
        match self {
            Shape::Pair => 2,
            Shape::Pairs(n) => 2 * n,
            Shape::Int => 1,
            Shape::Ints(n) => n,
        }
    }
}

/// A weight type that flattens into the parameter vector.
pub trait Tunable {
    const SHAPE: Shape;
    fn flatten(&self, out: &mut Vec<i32>);
}

impl Tunable for S {
    const SHAPE: Shape = Shape::Pair;
    fn flatten(&self, out: &mut Vec<i32>) {
        out.extend([self.0, self.1]);
    }
}

impl<const N: usize> Tunable for [S; N] {
    const SHAPE: Shape = Shape::Pairs(N);
    fn flatten(&self, out: &mut Vec<i32>) {
        for s in self {
            out.extend([s.0, s.1]);
        }
    }
}

impl Tunable for i32 {
    const SHAPE: Shape = Shape::Int;
    fn flatten(&self, out: &mut Vec<i32>) {
        out.push(*self);
    }
}

impl<const N: usize> Tunable for [i32; N] {
    const SHAPE: Shape = Shape::Ints(N);
    fn flatten(&self, out: &mut Vec<i32>) {
        out.extend_from_slice(self);
    }
}

const fn shape_of<T: Tunable>(_: &T) -> Shape {
    T::SHAPE
}

/// One tunable `const` of `weights.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunableItem {
    pub name: &'static str,
    /// Where its first entry is in the parameter vector.
    pub offset: usize,
    pub shape: Shape,
}

macro_rules! tunables {
    ($($name:ident),* $(,)?) => {
        /// Offsets of the tunable weights in the parameter vector; `COUNT` is its length.
        pub mod idx {
            tunables!(@offsets 0usize; $($name),*);
        }

        /// Every tunable weight, in the order of the parameter vector.
        pub const TUNABLES: &[TunableItem] = &[
            $(TunableItem {
                name: stringify!($name),
                offset: idx::$name,
                shape: shape_of(&$name),
            }),*
        ];

        /// The compiled-in weights as a parameter vector.
        pub fn default_params() -> Vec<i32> {
            let mut v = Vec::with_capacity(idx::COUNT);
            $($name.flatten(&mut v);)*
            v
        }
    };
    (@offsets $off:expr; $name:ident $(, $rest:ident)*) => {
        pub const $name: usize = $off;
        tunables!(@offsets $off + super::shape_of(&super::$name).size(); $($rest),*);
    };
    (@offsets $off:expr;) => {
        pub const COUNT: usize = $off;
    };
}

tunables! {
    PAWN_VALUE,
    KNIGHT_VALUE,
    BISHOP_VALUE,
    ROOK_VALUE,
    QUEEN_VALUE,
    PAWN_PST_MG,
    PAWN_PST_EG,
    KNIGHT_PST_MG,
    KNIGHT_PST_EG,
    BISHOP_PST_MG,
    BISHOP_PST_EG,
    ROOK_PST_MG,
    ROOK_PST_EG,
    QUEEN_PST_MG,
    QUEEN_PST_EG,
    KING_PST_MG,
    KING_PST_EG,
    KNIGHT_MOBILITY,
    BISHOP_MOBILITY,
    ROOK_MOBILITY,
    QUEEN_MOBILITY,
    ISOLATED_PAWN,
    DOUBLED_PAWN,
    BACKWARD_PAWN,
    SUPPORTED_PAWN,
    CONNECTED_PAWN,
    PASSED_PAWN,
    CANDIDATE_PASSED,
    PASSED_FREE_PATH,
    PASSED_SAFE_PATH,
    PASSED_KING_THEIRS,
    PASSED_KING_OURS,
    BISHOP_PAIR,
    ROOK_OPEN_FILE,
    ROOK_SEMI_OPEN_FILE,
    ROOK_ON_SEVENTH,
    KNIGHT_OUTPOST,
    BISHOP_OUTPOST,
    THREAT_BY_PAWN,
    THREAT_MINOR_ON_ROOK,
    THREAT_MINOR_ON_QUEEN,
    THREAT_ROOK_ON_QUEEN,
    HANGING_PIECE,
    KING_DANGER_QUADRATIC,
    KING_DANGER_MAX,
    KING_DANGER_EG,
    SHIELD_PAWN_NEAR,
    SHIELD_PAWN_FAR,
    SHIELD_PAWN_DISTANT,
    SHIELD_PAWN_MISSING,
    KING_SEMI_OPEN_FILE,
    KING_OPEN_FILE,
    PAWN_STORM,
    BLOCKED_STORM,
    TEMPO,
    MOPUP_EDGE,
    MOPUP_CLOSE,
    MOPUP_BN_CORNER,
}

/// Material parameter of each piece kind (the king has none).
const MATERIAL_AT: [Option<usize>; 6] = [
    Some(idx::PAWN_VALUE),
    Some(idx::KNIGHT_VALUE),
    Some(idx::BISHOP_VALUE),
    Some(idx::ROOK_VALUE),
    Some(idx::QUEEN_VALUE),
    None,
];

/// (mg, eg) piece-square table parameters of each piece kind.
const PST_AT: [(usize, usize); 6] = [
    (idx::PAWN_PST_MG, idx::PAWN_PST_EG),
    (idx::KNIGHT_PST_MG, idx::KNIGHT_PST_EG),
    (idx::BISHOP_PST_MG, idx::BISHOP_PST_EG),
    (idx::ROOK_PST_MG, idx::ROOK_PST_EG),
    (idx::QUEEN_PST_MG, idx::QUEEN_PST_EG),
    (idx::KING_PST_MG, idx::KING_PST_EG),
];

/// Sees every tunable weight the evaluation uses: `n` times, for colour `c`.
/// The terms report through [`Tracer::weight`] and [`Tracer::weight_eg`]
/// (by way of `weight!` and `weight_eg!`), which test `Self::ON` first; the
/// few direct calls sit behind `if T::ON`. So with [`NoTrace`] the
/// evaluation compiles to exactly what it would be without tracing.
pub(super) trait Tracer {
    const ON: bool;
    /// The [`S`] weight whose middle-game half is parameter `at` (eg: `at + 1`).
    fn pair(&mut self, at: usize, c: Color, n: i32);
    /// A middle-game-only parameter.
    fn mg(&mut self, at: usize, c: Color, n: i32);
    /// An end-game-only parameter.
    fn eg(&mut self, at: usize, c: Color, n: i32);
    /// `c`'s king takes the quadratic king-danger penalty with `units` attack units.
    fn king_danger(&mut self, c: Color, units: i32);

    /// The [`S`] weight `value`, parameter `at`, taken `n` times by `c`:
    /// reports it and returns what it adds, `value * n`.
    #[inline(always)]
    fn weight(&mut self, at: usize, c: Color, n: i32, value: S) -> S {
        if Self::ON {
            self.pair(at, c, n);
        }
        value * n
    }

    /// The end-game-only weight `value`, parameter `at`, taken `n` times by
    /// `c`: reports it and returns what it adds to the end-game half, `value * n`.
    #[inline(always)]
    fn weight_eg(&mut self, at: usize, c: Color, n: i32, value: i32) -> i32 {
        if Self::ON {
            self.eg(at, c, n);
        }
        value * n
    }
}

/// `weight!(tr, side, NAME)`: the [`S`] weight `NAME` taken once by `side`,
/// reported to the tracer `tr` as parameter `idx::NAME`. Also
/// `weight!(tr, side, NAME, n)` (taken `n` times, `n` carrying the sign),
/// `weight!(tr, side, NAME[i])` and `weight!(tr, side, NAME[i], n)` for an
/// element of an `[S; N]` table. The value and the parameter come from the
/// one name, so they cannot disagree; add the result, never subtract it.
/// Where a term picks one of several weights, add inside each branch
/// (`if c { s += weight!(..) } else { s += weight!(..) }`): adding an `if`
/// or `match` whose arms are `weight!`s compiles to more instructions.
macro_rules! weight {
    (@n) => {
        1
    };
    (@n $n:expr) => {
        $n
    };
    ($tr:expr, $side:expr, $name:ident [$i:expr] $(, $n:expr)?) => {{
        let i: usize = $i;
        $tr.weight(
            $crate::eval::idx::$name + 2 * i,
            $side,
            $crate::eval::trace::weight!(@n $($n)?),
            $name[i],
        )
    }};
    ($tr:expr, $side:expr, $name:ident $(, $n:expr)?) => {
        $tr.weight($crate::eval::idx::$name, $side, $crate::eval::trace::weight!(@n $($n)?), $name)
    };
}

/// `weight_eg!(tr, side, NAME, n)`: the end-game-only `i32` weight `NAME`
/// taken `n` times by `side` (`n` carrying the sign), reported to `tr` as
/// parameter `idx::NAME`; gives `NAME * n`.
macro_rules! weight_eg {
    ($tr:expr, $side:expr, $name:ident, $n:expr) => {
        $tr.weight_eg($crate::eval::idx::$name, $side, $n, $name)
    };
}

pub(super) use {weight, weight_eg};

/// The tracer of the ordinary evaluation: does nothing.
pub(super) struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn pair(&mut self, _: usize, _: Color, _: i32) {}
    #[inline(always)]
    fn mg(&mut self, _: usize, _: Color, _: i32) {}
    #[inline(always)]
    fn eg(&mut self, _: usize, _: Color, _: i32) {}
    #[inline(always)]
    fn king_danger(&mut self, _: Color, _: i32) {}
}

/// Dense White-minus-Black coefficients, compacted into an [`EvalTrace`].
struct Collect {
    mg: Vec<i32>,
    eg: Vec<i32>,
    king_units: [Option<i32>; 2],
}

impl Collect {
    fn new() -> Collect {
        Collect {
            mg: vec![0; idx::COUNT],
            eg: vec![0; idx::COUNT],
            king_units: [None; 2],
        }
    }
}

#[inline(always)]
fn signed(c: Color, n: i32) -> i32 {
    match c {
        Color::White => n,
        Color::Black => -n,
    }
}

impl Tracer for Collect {
    const ON: bool = true;
    fn pair(&mut self, at: usize, c: Color, n: i32) {
        self.mg[at] += signed(c, n);
        self.eg[at + 1] += signed(c, n);
    }
    fn mg(&mut self, at: usize, c: Color, n: i32) {
        self.mg[at] += signed(c, n);
    }
    fn eg(&mut self, at: usize, c: Color, n: i32) {
        self.eg[at] += signed(c, n);
    }
    fn king_danger(&mut self, c: Color, units: i32) {
        self.king_units[c.index()] = Some(units);
    }
}

/// Material and piece-square parameters of a `kind` on `sq` (absolute square) for `c`.
#[inline(always)]
pub(super) fn trace_psq<T: Tracer>(tr: &mut T, kind: PieceKind, sq: Square, c: Color) {
    let k = kind.index();
    if let Some(at) = MATERIAL_AT[k] {
        tr.pair(at, c, 1);
    }
    // The tables are written with a8 first.
    let i = sq.relative(c).index() ^ 56;
    tr.mg(PST_AT[k].0 + i, c, 1);
    tr.eg(PST_AT[k].1 + i, c, 1);
}

/// One position's evaluation as a function of the parameter vector:
///
/// ```text
/// mg = sum(w[i] * c) over `mg` - king danger(White) + king danger(Black)
/// eg = sum(w[i] * c) over `eg`
/// white = (mg * phase + eg * scale / 128 * (24 - phase)) / 24
/// ```
///
/// where king danger(side) = min(units^2 * KING_DANGER_QUADRATIC / 16,
/// KING_DANGER_MAX) for the sides listed in `king_units`, and `scale` is
/// `scale[0]` when eg > 0 and `scale[1]` otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EvalTrace {
    /// (parameter, White-minus-Black coefficient) of the middle-game sum; no zeros.
    pub mg: Vec<(u16, i16)>,
    /// The same for the end-game sum.
    pub eg: Vec<(u16, i16)>,
    /// Attack units against [White's, Black's] king, where the quadratic
    /// king-danger penalty applies.
    pub king_units: [Option<i32>; 2],
    /// 0..=PHASE_MAX.
    pub phase: i32,
    /// End-game scale factor (of SCALE_NORMAL) when the end-game sum favours
    /// White (> 0), and when it does not.
    pub scale: [i32; 2],
    pub white_to_move: bool,
}

fn sparse(dense: &[i32]) -> Vec<(u16, i16)> {
    dense
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != 0)
        .map(|(i, &c)| {
            debug_assert!(i <= u16::MAX as usize && i16::try_from(c).is_ok());
            (i as u16, c.clamp(i16::MIN as i32, i16::MAX as i32) as i16)
        })
        .collect()
}

/// Traces the evaluation of `pos`; `None` for dead positions (always 0).
pub fn trace(pos: &Position) -> Option<EvalTrace> {
    if pos.is_dead_position() {
        return None;
    }
    let mut c = Collect::new();
    breakdown_with(pos, &mut c);
    Some(EvalTrace {
        mg: sparse(&c.mg),
        eg: sparse(&c.eg),
        king_units: c.king_units,
        phase: phase(pos),
        scale: [scale_factor(pos, 1), scale_factor(pos, 0)],
        white_to_move: pos.side_to_move() == Color::White,
    })
}

impl EvalTrace {
    /// The evaluation with integer weights `w` (length `idx::COUNT`), from the
    /// side to move's point of view, rounded exactly as
    /// [`evaluate_hce`](crate::eval::evaluate_hce) rounds: with
    /// [`default_params`] it equals `evaluate_hce`.
    pub fn evaluate_int(&self, w: &[i32]) -> i32 {
        let dot = |v: &[(u16, i16)]| -> i32 {
            v.iter().map(|&(i, c)| w[i as usize] * i32::from(c)).sum()
        };
        let mut mg = dot(&self.mg);
        let eg = dot(&self.eg);
        for (side, units) in self.king_units.iter().enumerate() {
            if let Some(u) = *units {
                let danger =
                    (u * u * w[idx::KING_DANGER_QUADRATIC] / 16).min(w[idx::KING_DANGER_MAX]);
                mg += if side == 0 { -danger } else { danger };
            }
        }
        let scale = if eg > 0 { self.scale[0] } else { self.scale[1] };
        let eg = eg * scale / SCALE_NORMAL;
        let white = (mg * self.phase + eg * (PHASE_MAX - self.phase)) / PHASE_MAX;
        if self.white_to_move {
            white
        } else {
            -white
        }
    }

    /// The evaluation with real-valued weights, from White's point of view,
    /// without rounding; also returns the weight of the end-game sum in it
    /// (scale / 128 * (24 - phase) / 24), for [`EvalTrace::add_gradient`].
    pub fn evaluate_f64(&self, w: &[f64]) -> (f64, f64) {
        let dot = |v: &[(u16, i16)]| -> f64 {
            v.iter().map(|&(i, c)| w[i as usize] * f64::from(c)).sum()
        };
        let mut mg = dot(&self.mg);
        let eg = dot(&self.eg);
        for (side, units) in self.king_units.iter().enumerate() {
            if let Some(u) = *units {
                let u2 = f64::from(u * u) / 16.0;
                let danger = (u2 * w[idx::KING_DANGER_QUADRATIC]).min(w[idx::KING_DANGER_MAX]);
                mg += if side == 0 { -danger } else { danger };
            }
        }
        let scale = if eg > 0.0 {
            self.scale[0]
        } else {
            self.scale[1]
        };
        let phase = f64::from(self.phase) / f64::from(PHASE_MAX);
        let eg_weight = f64::from(scale) / f64::from(SCALE_NORMAL) * (1.0 - phase);
        (mg * phase + eg * eg_weight, eg_weight)
    }

    /// Adds `g` times the gradient of [`EvalTrace::evaluate_f64`]'s score
    /// (at `w`, with its `eg_weight`) to `grad`.
    pub fn add_gradient(&self, w: &[f64], eg_weight: f64, g: f64, grad: &mut [f64]) {
        let gm = g * f64::from(self.phase) / f64::from(PHASE_MAX);
        let ge = g * eg_weight;
        for &(i, c) in &self.mg {
            grad[i as usize] += gm * f64::from(c);
        }
        for &(i, c) in &self.eg {
            grad[i as usize] += ge * f64::from(c);
        }
        for (side, units) in self.king_units.iter().enumerate() {
            if let Some(u) = *units {
                let sign = if side == 0 { -gm } else { gm };
                let u2 = f64::from(u * u) / 16.0;
                if u2 * w[idx::KING_DANGER_QUADRATIC] < w[idx::KING_DANGER_MAX] {
                    grad[idx::KING_DANGER_QUADRATIC] += sign * u2;
                } else {
                    grad[idx::KING_DANGER_MAX] += sign;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::terms::fixtures::*;
    use super::*;
    use crate::eval::evaluate_verbose;

    #[test]
    fn parameter_layout() {
        let w = default_params();
        assert_eq!(w.len(), idx::COUNT);
        let mut next = 0;
        for item in TUNABLES {
            assert_eq!(item.offset, next, "{}", item.name);
            next += item.shape.size();
        }
        assert_eq!(next, idx::COUNT);
        assert_eq!(w[idx::KNIGHT_VALUE + 1], KNIGHT_VALUE.eg());
        assert_eq!(w[idx::ROOK_MOBILITY + 2 * 3], ROOK_MOBILITY[3].mg());
        assert_eq!(w[idx::KING_PST_MG + 63], KING_PST_MG[63]);
        assert_eq!(w[idx::MOPUP_BN_CORNER], MOPUP_BN_CORNER);
    }

    #[test]
    fn trace_reproduces_evaluate() {
        let w = default_params();
        let wf: Vec<f64> = w.iter().map(|&x| f64::from(x)).collect();
        let positions = random_walk_positions(120);
        assert!(positions.len() > 1500, "{}", positions.len());
        let mut traced = 0;
        for p in &positions {
            let expected = evaluate(p);
            let Some(t) = trace(p) else {
                assert_eq!(expected, 0);
                continue;
            };
            traced += 1;
            assert_eq!(
                t.evaluate_int(&w),
                expected,
                "{}\n{}",
                p.to_fen(),
                evaluate_verbose(p)
            );
            // Without rounding: within the two truncations.
            let white = if t.white_to_move { expected } else { -expected };
            let (f, _) = t.evaluate_f64(&wf);
            assert!(
                (f - f64::from(white)).abs() < 2.0,
                "{}: {f} vs {white}",
                p.to_fen()
            );
        }
        assert!(traced > 1500);
    }

    #[test]
    fn trace_gradient_matches_finite_differences() {
        let w: Vec<f64> = default_params().iter().map(|&x| f64::from(x)).collect();
        let mut seen_danger = false;
        for p in random_walk_positions(40).iter().step_by(7) {
            let Some(t) = trace(p) else { continue };
            seen_danger |= t.king_units.iter().any(|u| u.is_some());
            let (_, eg_weight) = t.evaluate_f64(&w);
            let mut grad = vec![0.0; idx::COUNT];
            t.add_gradient(&w, eg_weight, 1.0, &mut grad);
            let touched =
                t.mg.iter()
                    .chain(&t.eg)
                    .map(|&(i, _)| i as usize)
                    .chain([idx::KING_DANGER_QUADRATIC, idx::KING_DANGER_MAX]);
            for i in touched {
                let h = 1e-3;
                let mut up = w.clone();
                up[i] += h;
                let mut down = w.clone();
                down[i] -= h;
                let numeric = (t.evaluate_f64(&up).0 - t.evaluate_f64(&down).0) / (2.0 * h);
                assert!(
                    (numeric - grad[i]).abs() < 1e-6 * (1.0 + numeric.abs()),
                    "{} param {i}: numeric {numeric} vs analytic {}",
                    p.to_fen(),
                    grad[i]
                );
            }
        }
        assert!(seen_danger);
    }
}
