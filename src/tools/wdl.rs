//! `guoxiang wdl`: fits the win/draw/loss model of `eval::wdl` to the
//! results of Guoxiang's own self-play games, and checks it on games the
//! fit did not see.
//!
//! Input: `guoxiang datagen` files (`FEN | result | score`, White's point of
//! view; the score is the search's at the datagen node count). Each position
//! becomes (score, material, outcome) from the side to move's view. The fit
//! maximises the likelihood of the outcomes over the eight coefficients with
//! Adam, on positions grouped by score (5 cp steps, within +-1500) and
//! material. The check compares the mean predicted W, D and L with the
//! observed shares in 50 cp buckets from -400 to +400, and by material band.

use crate::board::position::Position;
use crate::eval::wdl::{material, probabilities};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One position: score (side to move's view), material, outcome for the
/// side to move (0: loss, 1: draw, 2: win).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub score: i32,
    pub material: i32,
    pub outcome: u8,
}

/// Reads one `datagen` line; `None` for blank, comment or malformed lines.
pub fn parse_line(line: &str) -> Option<Sample> {
    let mut fields = line.split('|').map(str::trim);
    let (fen, result, score) = (fields.next()?, fields.next()?, fields.next()?);
    if fen.is_empty() || fen.starts_with('#') {
        return None;
    }
    let pos = Position::from_fen(fen, false).ok()?;
    let white_result: f64 = result.parse().ok()?;
    let white_score: i32 = score.parse().ok()?;
    let white_to_move = pos.side_to_move() == crate::board::types::Color::White;
    let (score, result) = if white_to_move {
        (white_score, white_result)
    } else {
        (-white_score, 1.0 - white_result)
    };
    let outcome = match result {
        r if r > 0.75 => 2,
        r if r < 0.25 => 0,
        _ => 1,
    };
    Some(Sample {
        score,
        material: material(&pos),
        outcome,
    })
}

/// Every usable position of a file's text.
pub fn parse(text: &str) -> Vec<Sample> {
    text.lines().filter_map(parse_line).collect()
}

/// Outcome counts by (score rounded to 5 cp, material): the fit's input.
fn grouped(samples: &[Sample]) -> Vec<(i32, i32, [f64; 3])> {
    let mut cells: BTreeMap<(i32, i32), [f64; 3]> = BTreeMap::new();
    for s in samples {
        let score = (s.score.clamp(-1500, 1500) as f64 / 5.0).round() as i32 * 5;
        cells.entry((score, s.material)).or_default()[s.outcome as usize] += 1.0;
    }
    cells.into_iter().map(|((x, m), n)| (x, m, n)).collect()
}

/// The negative log-likelihood per position, and its gradient.
fn loss_and_gradient(cells: &[(i32, i32, [f64; 3])], c: &[f64; 8]) -> (f64, [f64; 8]) {
    let mut loss = 0.0;
    let mut grad = [0.0; 8];
    let mut total = 0.0;
    for &(x, m, n) in cells {
        let t = f64::from(m.clamp(17, 78)) / 58.0;
        let powers = [t * t * t, t * t, t, 1.0];
        let (a, b) = crate::eval::wdl::model_parameters(c, m);
        let x = f64::from(x);
        let win = 1.0 / (1.0 + ((a - x) / b).exp());
        let lose = 1.0 / (1.0 + ((a + x) / b).exp());
        let draw = (1.0 - win - lose).max(1e-9);
        let (win, lose) = (win.max(1e-9), lose.max(1e-9));
        // Derivatives of W and L by a and b.
        let dw_da = -win * (1.0 - win) / b;
        let dw_db = -win * (1.0 - win) * (x - a) / (b * b);
        let dl_da = -lose * (1.0 - lose) / b;
        let dl_db = -lose * (1.0 - lose) * (-x - a) / (b * b);
        let mut d_a = 0.0;
        let mut d_b = 0.0;
        for (count, p, dp_da, dp_db) in [
            (n[2], win, dw_da, dw_db),
            (n[0], lose, dl_da, dl_db),
            (n[1], draw, -dw_da - dl_da, -dw_db - dl_db),
        ] {
            if count > 0.0 {
                loss -= count * p.ln();
                d_a -= count * dp_da / p;
                d_b -= count * dp_db / p;
            }
        }
        total += n.iter().sum::<f64>();
        for i in 0..4 {
            grad[i] += d_a * powers[i];
            grad[4 + i] += d_b * powers[i];
        }
    }
    let total = total.max(1.0);
    (loss / total, grad.map(|g| g / total))
}

/// Maximum-likelihood coefficients, starting from `start`.
pub fn fit(samples: &[Sample], start: [f64; 8], steps: usize) -> ([f64; 8], f64) {
    let cells = grouped(samples);
    let mut c = start;
    let (mut m, mut v) = ([0.0; 8], [0.0; 8]);
    let (b1, b2, lr) = (0.9, 0.999, 2.0);
    for step in 1..=steps {
        let (_, g) = loss_and_gradient(&cells, &c);
        for i in 0..8 {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let m_hat = m[i] / (1.0 - f64::powi(b1, step as i32));
            let v_hat = v[i] / (1.0 - f64::powi(b2, step as i32));
            c[i] -= lr * m_hat / (v_hat.sqrt() + 1e-12);
        }
    }
    let (loss, _) = loss_and_gradient(&cells, &c);
    (c, loss)
}

/// Predicted and observed W/D/L (percent) of a group of positions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Check {
    pub positions: usize,
    pub predicted: [f64; 3],
    pub observed: [f64; 3],
}

impl Check {
    fn add(&mut self, s: &Sample, c: &[f64; 8]) {
        let (w, d, l) = probabilities(c, s.score, s.material);
        self.positions += 1;
        for (i, p) in [w, d, l].into_iter().enumerate() {
            self.predicted[i] += p;
        }
        self.observed[2 - s.outcome as usize] += 1.0;
    }

    fn finish(mut self) -> Check {
        let n = self.positions.max(1) as f64;
        for i in 0..3 {
            self.predicted[i] *= 100.0 / n;
            self.observed[i] *= 100.0 / n;
        }
        self
    }

    /// The largest gap between predicted and observed, in percentage points.
    pub fn worst_gap(&self) -> f64 {
        (0..3)
            .map(|i| (self.predicted[i] - self.observed[i]).abs())
            .fold(0.0, f64::max)
    }
}

/// Material bands of the check (both sides' material, P = 1 ... Q = 9).
pub const MATERIAL_BANDS: [(i32, i32); 4] = [(0, 20), (21, 40), (41, 60), (61, 78)];

/// The check of one table: each row's label (a bucket's lowest score, or a
/// material band) with its figures.
pub type CheckRows<L> = Vec<(L, Check)>;

/// The check on `samples`: by 50 cp bucket from -400 to +400, then by
/// material band (positions within -400..+400).
pub fn check(samples: &[Sample], c: &[f64; 8]) -> (CheckRows<i32>, CheckRows<(i32, i32)>) {
    let mut buckets: Vec<(i32, Check)> = (-8..8).map(|i| (i * 50, Check::default())).collect();
    let mut bands: Vec<((i32, i32), Check)> = MATERIAL_BANDS
        .iter()
        .map(|&b| (b, Check::default()))
        .collect();
    for s in samples.iter().filter(|s| (-400..400).contains(&s.score)) {
        let i = ((s.score + 400) / 50) as usize;
        buckets[i].1.add(s, c);
        if let Some(band) = bands
            .iter_mut()
            .find(|((lo, hi), _)| (*lo..=*hi).contains(&s.material.min(78)))
        {
            band.1.add(s, c);
        }
    }
    (
        buckets.into_iter().map(|(x, k)| (x, k.finish())).collect(),
        bands.into_iter().map(|(b, k)| (b, k.finish())).collect(),
    )
}

/// The check as Markdown tables.
pub fn check_table(samples: &[Sample], c: &[f64; 8]) -> String {
    let (buckets, bands) = check(samples, c);
    let mut out = String::new();
    let row = |out: &mut String, label: String, k: &Check| {
        let _ = writeln!(
            out,
            "| {label} | {} | {:.1} / {:.1} / {:.1} | {:.1} / {:.1} / {:.1} | {:.1} |",
            k.positions,
            k.predicted[0],
            k.predicted[1],
            k.predicted[2],
            k.observed[0],
            k.observed[1],
            k.observed[2],
            k.worst_gap()
        );
    };
    let header =
        "| positions | predicted W / D / L % | observed W / D / L % | largest gap (pp) |\n";
    out.push_str(&format!(
        "| score (cp) {header}| --- | --- | --- | --- | --- |\n"
    ));
    for (x, k) in &buckets {
        row(&mut out, format!("{x} .. {}", x + 50), k);
    }
    out.push_str(&format!(
        "\n| material {header}| --- | --- | --- | --- | --- |\n"
    ));
    for ((lo, hi), k) in &bands {
        row(&mut out, format!("{lo} .. {hi}"), k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outcomes drawn from the model itself with known coefficients.
    fn synthetic(c: &[f64; 8]) -> Vec<Sample> {
        let mut out = Vec::new();
        let mut state = 7u64;
        let mut unit = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..60_000 {
            let score = (unit() * 1200.0) as i32 - 600;
            let material = 10 + (i % 69);
            let (w, d, _) = probabilities(c, score, material);
            let r = unit();
            let outcome = if r < w {
                2
            } else if r < w + d {
                1
            } else {
                0
            };
            out.push(Sample {
                score,
                material,
                outcome,
            });
        }
        out
    }

    #[test]
    fn lines_are_read_from_the_side_to_moves_view() {
        let w = parse_line("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 | 1.0 | 150").expect("line");
        assert_eq!((w.score, w.material, w.outcome), (150, 1, 2));
        let b = parse_line("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 | 1.0 | 150").expect("line");
        assert_eq!((b.score, b.outcome), (-150, 0));
        assert!(parse_line("not a fen | 1.0 | 3").is_none());
        assert!(parse_line("").is_none());
    }

    #[test]
    fn the_fit_recovers_the_model_it_was_drawn_from() {
        let truth = [-20.0, 60.0, -30.0, 180.0, 10.0, -20.0, 30.0, 70.0];
        let samples = synthetic(&truth);
        let (fitted, _) = fit(&samples, [0.0, 0.0, 0.0, 200.0, 0.0, 0.0, 0.0, 100.0], 1500);
        let (buckets, bands) = check(&samples, &fitted);
        for (x, k) in &buckets {
            assert!(k.worst_gap() < 3.0, "score {x}: {k:?}");
        }
        for (band, k) in &bands {
            assert!(k.worst_gap() < 3.0, "material {band:?}: {k:?}");
        }
    }
}
