//! Win, draw and loss odds from a score and the material on the board (UCI
//! `UCI_ShowWDL`).
//!
//! The model: with `x` the score in centipawns (side to move's view) and
//! `m` the material of both sides (P = 1, N = B = 3, R = 5, Q = 9; at most 78),
//!
//! ```text
//! y = x + s                            the side to move's edge, fitted
//! W = (1 - f(m)) / (1 + exp((a(m) - y) / b(m)))
//! L = (1 - f(m)) / (1 + exp((a(m) + y) / b(m)))
//! D = 1 - W - L
//! ```
//!
//! `f(m)`, the share of positions no score converts (fortresses, and games
//! the winning side fails to finish), keeps a little draw chance; it is
//! piecewise linear in `m` too. It was fitted within +-300 cp and holds there
//! in full; beyond, it fades linearly to nothing at +-1000 cp, so that a
//! crushing score (king and queen against a bare king) is a win, not a
//! quarter draws. A tablebase or mate score is certain: 1000/0/0 or
//! 0/0/1000.
//!
//! where `a(m)` (the score of an even win/draw split) and `b(m)` (how fast
//! the odds turn with the score) are piecewise linear in `m` between the
//! material counts [`KNOTS`]: endings with little material are far more
//! drawish, and a smooth polynomial in `m` fitted them poorly.
//!
//! The coefficients ([`COEFFICIENTS`]) are fitted by maximum likelihood on
//! the results of Guoxiang's own self-play games (`guoxiang wdl`, on
//! `guoxiang datagen` positions); how well they predict games the fit did
//! not see is in docs/wdl.md.

use crate::board::position::Position;
use crate::board::types::PieceKind;
use crate::eval::score::TB_WIN_BOUND;

/// The material counts where `a` and `b` are given.
pub const KNOTS: [i32; 11] = [0, 6, 12, 18, 24, 32, 40, 50, 60, 70, 78];

/// Coefficients: `a` at each knot, then `b`, then the fortress share `f`
/// (percent), then the edge `s`.
pub const PARAMETERS: usize = 3 * KNOTS.len() + 1;
/// Where the fortress shares `f` (percent) begin among the coefficients.
pub const FORTRESS: usize = 2 * KNOTS.len();
/// Where the edge `s` is among the coefficients.
pub const EDGE: usize = 3 * KNOTS.len();

/// The fitted coefficients (see [`PARAMETERS`]): `guoxiang wdl --fit` on the
/// 212,097 positions within +-300 cp of 4,500 self-play games of the shipped
/// network at 5,000 nodes a move (datagen seeds 54 and 55; docs/wdl.md).
pub const COEFFICIENTS: [f64; PARAMETERS] = [
    750.7, 262.0, 236.4, 172.2, 138.9, 127.5, 110.4, 117.8, 109.5, 99.8, 75.8, //
    137.5, 49.9, 52.8, 73.8, 66.1, 85.7, 89.7, 105.0, 113.4, 113.5, 128.0, //
    50.0, 27.9, 0.0, 8.9, 7.0, 3.9, 0.0, 0.0, 0.0, 0.0, 0.0,  //
    -4.0, //
];

/// Where `material` falls among the knots: the knot below and the weight of
/// the knot above (0 to 1).
pub fn knot_weights(material: i32) -> (usize, f64) {
    let m = material.clamp(0, 78);
    let i = KNOTS
        .windows(2)
        .position(|w| m <= w[1])
        .unwrap_or(KNOTS.len() - 2);
    let f = f64::from(m - KNOTS[i]) / f64::from(KNOTS[i + 1] - KNOTS[i]);
    (i, f)
}

/// The material count the model reads: P = 1, N = B = 3, R = 5, Q = 9, both sides.
pub fn material(pos: &Position) -> i32 {
    [
        (PieceKind::Pawn, 1),
        (PieceKind::Knight, 3),
        (PieceKind::Bishop, 3),
        (PieceKind::Rook, 5),
        (PieceKind::Queen, 9),
    ]
    .iter()
    .map(|&(kind, value)| value * pos.pieces(kind).count() as i32)
    .sum()
}

/// `(a, b, f)` of the model at `material` for the coefficients `c` (`f` as
/// a share, 0 to 1).
pub fn model_parameters(c: &[f64; PARAMETERS], material: i32) -> (f64, f64, f64) {
    let k = KNOTS.len();
    let (i, w) = knot_weights(material);
    let at = |start: usize| c[start + i] * (1.0 - w) + c[start + i + 1] * w;
    (at(0), at(k).max(1.0), at(FORTRESS).clamp(0.0, 50.0) / 100.0)
}

/// The score (either side) up to which the fortress share holds in full,
/// and the score where it has faded to nothing.
pub const FORTRESS_FADE: (i32, i32) = (300, 1000);

/// How much of the fortress share holds at `score`: 1 up to
/// `FORTRESS_FADE.0`, 0 from `FORTRESS_FADE.1`, linear between.
fn fortress_weight(score: i32) -> f64 {
    let (full, none) = FORTRESS_FADE;
    f64::from((none - score.abs()).clamp(0, none - full)) / f64::from(none - full)
}

/// `(W, D, L)` probabilities for a score `x` (side to move's view, centipawns).
pub fn probabilities(c: &[f64; PARAMETERS], score: i32, material: i32) -> (f64, f64, f64) {
    let (a, b, fortress) = model_parameters(c, material);
    let x = f64::from(score) + c[EDGE];
    let keep = 1.0 - fortress * fortress_weight(score);
    let win = keep / (1.0 + ((a - x) / b).exp());
    let loss = keep / (1.0 + ((a + x) / b).exp());
    (win, (1.0 - win - loss).max(0.0), loss)
}

/// `(W, D, L)` in per mille, summing to exactly 1000, as `info ... wdl` shows;
/// a tablebase or mate score is a certain result.
pub fn per_mille(score: i32, material: i32) -> (u32, u32, u32) {
    if score >= TB_WIN_BOUND {
        return (1000, 0, 0);
    }
    if score <= -TB_WIN_BOUND {
        return (0, 0, 1000);
    }
    let (w, _, l) = probabilities(&COEFFICIENTS, score, material);
    let win = (w * 1000.0).round().clamp(0.0, 1000.0) as u32;
    let loss = ((l * 1000.0).round().clamp(0.0, 1000.0) as u32).min(1000 - win);
    (win, 1000 - win - loss, loss)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::{MATE, TB_WIN};

    #[test]
    fn odds_sum_to_a_thousand_and_follow_the_score() {
        let mut last_win = 0;
        for score in (-2000..=2000).step_by(25) {
            for material in [0, 20, 40, 60, 78, 100] {
                let (w, d, l) = per_mille(score, material);
                assert_eq!(w + d + l, 1000, "{score} {material}");
            }
            let (w, _, _) = per_mille(score, 40);
            assert!(w >= last_win, "{score}");
            last_win = w;
        }
        // Nearly symmetric: a score for one side is about the same score
        // against the other; only the side to move's edge (a few
        // centipawns) tells them apart.
        for score in [0, 50, 150, 400] {
            let (w, d, l) = per_mille(score, 50);
            let (w2, d2, l2) = per_mille(-score, 50);
            let gaps = (w.abs_diff(l2), l.abs_diff(w2), d.abs_diff(d2));
            assert!(
                gaps.0 <= 25 && gaps.1 <= 25 && gaps.2 <= 25,
                "{score}: {gaps:?}"
            );
        }
    }

    #[test]
    fn crushing_tablebase_and_mate_scores_are_certain() {
        // King and queen against a bare king (material 9), as the search
        // scores it: a win, not a quarter draws.
        assert_eq!(per_mille(-1362, 9), (0, 0, 1000));
        assert_eq!(per_mille(1362, 9), (1000, 0, 0));
        for score in [TB_WIN, TB_WIN_BOUND, MATE - 1] {
            assert_eq!(per_mille(score, 0), (1000, 0, 0), "{score}");
            assert_eq!(per_mille(-score, 40), (0, 0, 1000), "{score}");
        }
        // Within +-300 cp the fitted fortress share holds in full.
        assert_eq!(fortress_weight(300), 1.0);
        assert_eq!(fortress_weight(-650), 0.5);
        assert_eq!(fortress_weight(1000), 0.0);
        let (_, draws, _) = per_mille(250, 9);
        assert!(draws > 200, "{draws}");
    }

    #[test]
    fn material_counts_both_sides() {
        assert_eq!(material(&Position::startpos()), 78);
        let kpk = Position::from_fen("8/8/4k3/8/8/4P3/4K3/8 w - - 0 1", false).expect("fen");
        assert_eq!(material(&kpk), 1);
    }
}
