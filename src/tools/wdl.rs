//! `guoxiang wdl`: fits the win/draw/loss model of `eval::wdl` to the
//! results of Guoxiang's own self-play games, and checks it on games the
//! fit did not see.
//!
//! Input: `guoxiang datagen` files (`FEN | result | score`, White's point of
//! view; the score is the search's at the datagen node count), or pool
//! chunks (`.vf`, [`crate::tools::pool`]), whose positions are taken as
//! the text files hold them: quiet, after the first 8 plies. Each position
//! becomes (score, material, outcome) from the side to move's view. The fit
//! maximises the likelihood of the outcomes over the model's coefficients with
//! Adam, on positions grouped by score (5 cp steps, within +-1500) and
//! material. The check compares the mean predicted W, D and L with the
//! observed shares in 50 cp buckets from -400 to +400, and by material band.
//! Without `--fit`, `--check` checks the model built into the binary, say on
//! the games of a new network.

use crate::board::position::Position;
use crate::eval::wdl::{knot_weights, material, probabilities, EDGE, FORTRESS, KNOTS, PARAMETERS};
use crate::tools::pool::{read_games, visit_training_positions, FilterStats, PositionFilter};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The options of `guoxiang wdl`.
#[derive(clap::Args, Debug)]
pub struct WdlArgs {
    /// datagen files or pool chunks (.vf) to fit the model on
    /// (repeatable); without them, --check checks the model built into
    /// this binary
    #[arg(long, value_name = "FILE")]
    fit: Vec<String>,
    /// datagen files or pool chunks (.vf) of other games to check the fit
    /// on (repeatable)
    #[arg(long, value_name = "FILE")]
    check: Vec<String>,
    /// Adam steps of the fit
    #[arg(long, value_name = "N", default_value_t = 40_000)]
    steps: usize,
    /// Fit on the positions whose score is within +-N cp only (the odds
    /// matter most there; far from 0 every model says win or loss)
    #[arg(long, value_name = "N", default_value_t = 300)]
    max_score: i32,
}

/// Where every fit starts: the same odds at every material count.
pub fn neutral_start() -> [f64; PARAMETERS] {
    let k = KNOTS.len();
    let mut c = [0.0; PARAMETERS];
    c[..k].fill(150.0);
    c[k..2 * k].fill(80.0);
    c[FORTRESS..FORTRESS + k].fill(5.0);
    c
}

/// Reads the samples of every `datagen` file in `paths`.
fn read_samples(paths: &[String]) -> Result<Vec<Sample>, String> {
    let mut samples = Vec::new();
    for path in paths {
        if path.ends_with(".vf") {
            // What datagen's text keeps: every quiet position, repeats too.
            let filter = PositionFilter {
                dedup: false,
                ..PositionFilter::default()
            };
            let (mut seen, mut stats) = (Default::default(), FilterStats::default());
            for (number, game) in read_games(Path::new(path))?.iter().enumerate() {
                visit_training_positions(
                    game,
                    number as u64,
                    &filter,
                    &mut seen,
                    &mut stats,
                    |p| {
                        samples.push(sample(&p.position, i32::from(p.score), f64::from(p.result)));
                    },
                );
            }
            continue;
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        samples.extend(parse(&text));
    }
    Ok(samples)
}

/// Fits the model on the `--fit` files and prints the coefficients (as the
/// Rust constant to paste) and the check on the fitted positions.
fn fit_files(args: &WdlArgs) -> Result<[f64; PARAMETERS], String> {
    let mut fitting = read_samples(&args.fit)?;
    fitting.retain(|s| s.score.abs() <= args.max_score);
    if fitting.is_empty() {
        return Err("no usable positions in the --fit files".into());
    }
    let (coefficients, loss) = fit(&fitting, neutral_start(), args.steps);
    let row = |part: &[f64]| {
        let cells: Vec<String> = part.iter().map(|c| format!("{c:.1}")).collect();
        cells.join(", ")
    };
    let k = KNOTS.len();
    println!(
        "fitted on {} positions, loss {loss:.5}:\npub const COEFFICIENTS: [f64; PARAMETERS] = [\n    {}, //\n    {}, //\n    {}, //\n    {}, //\n];",
        fitting.len(),
        row(&coefficients[..k]),
        row(&coefficients[k..2 * k]),
        row(&coefficients[2 * k..3 * k]),
        row(&coefficients[3 * k..])
    );
    println!(
        "\nOn the fitted positions:\n{}",
        check_table(&fitting, &coefficients)
    );
    Ok(coefficients)
}

/// The `wdl` subcommand.
pub fn command(args: WdlArgs) -> Result<(), String> {
    let coefficients = if !args.fit.is_empty() {
        fit_files(&args)?
    } else if !args.check.is_empty() {
        println!("checking the model of this build (eval::wdl::COEFFICIENTS)");
        crate::eval::wdl::COEFFICIENTS
    } else {
        return Err("give --fit files to fit the model, --check files to check it, or both".into());
    };
    if !args.check.is_empty() {
        let checking = read_samples(&args.check)?;
        println!(
            "On {} positions of other games:\n{}",
            checking.len(),
            check_table(&checking, &coefficients)
        );
    }
    Ok(())
}

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
    Some(sample(&pos, white_score, white_result))
}

/// One position's sample from its score and its game's result, both from
/// White's point of view.
fn sample(pos: &Position, white_score: i32, white_result: f64) -> Sample {
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
    Sample {
        score,
        material: material(pos),
        outcome,
    }
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
fn loss_and_gradient(
    cells: &[(i32, i32, [f64; 3])],
    c: &[f64; PARAMETERS],
) -> (f64, [f64; PARAMETERS]) {
    let mut loss = 0.0;
    let mut grad = [0.0; PARAMETERS];
    let mut total = 0.0;
    for &(x, m, n) in cells {
        let (knot, f) = knot_weights(m);
        let (a, b, fortress) = crate::eval::wdl::model_parameters(c, m);
        let x = f64::from(x) + c[EDGE];
        let keep = 1.0 - fortress;
        let (sw, sl) = (
            1.0 / (1.0 + ((a - x) / b).exp()),
            1.0 / (1.0 + ((a + x) / b).exp()),
        );
        let (win, lose) = ((keep * sw).max(1e-9), (keep * sl).max(1e-9));
        let draw = (1.0 - win - lose).max(1e-9);
        // Derivatives of W and L by a, b, the edge and the fortress share.
        let dw_da = -keep * sw * (1.0 - sw) / b;
        let dw_db = -keep * sw * (1.0 - sw) * (x - a) / (b * b);
        let dl_da = -keep * sl * (1.0 - sl) / b;
        let dl_db = -keep * sl * (1.0 - sl) * (-x - a) / (b * b);
        // W turns with y as it turns against a, L with a.
        let (dw_dy, dl_dy) = (-dw_da, dl_da);
        let (dw_df, dl_df) = (-sw / 100.0, -sl / 100.0);
        let mut d_a = 0.0;
        let mut d_b = 0.0;
        let mut d_f = 0.0;
        for (count, p, dp_da, dp_db, dp_dy, dp_df) in [
            (n[2], win, dw_da, dw_db, dw_dy, dw_df),
            (n[0], lose, dl_da, dl_db, dl_dy, dl_df),
            (
                n[1],
                draw,
                -dw_da - dl_da,
                -dw_db - dl_db,
                -dw_dy - dl_dy,
                -dw_df - dl_df,
            ),
        ] {
            if count > 0.0 {
                loss -= count * p.ln();
                d_a -= count * dp_da / p;
                d_b -= count * dp_db / p;
                grad[EDGE] -= count * dp_dy / p;
                d_f -= count * dp_df / p;
            }
        }
        total += n.iter().sum::<f64>();
        let k = KNOTS.len();
        for (at, weight) in [(knot, 1.0 - f), (knot + 1, f)] {
            grad[at] += d_a * weight;
            grad[k + at] += d_b * weight;
            grad[FORTRESS + at] += d_f * weight;
        }
    }
    let total = total.max(1.0);
    (loss / total, grad.map(|g| g / total))
}

/// Maximum-likelihood coefficients, starting from `start`.
pub fn fit(samples: &[Sample], start: [f64; PARAMETERS], steps: usize) -> ([f64; PARAMETERS], f64) {
    let cells = grouped(samples);
    let mut c = start;
    let (mut m, mut v) = ([0.0; PARAMETERS], [0.0; PARAMETERS]);
    let (b1, b2) = (0.9, 0.999);
    for step in 1..=steps {
        // The step shrinks to a fortieth over the run, so the fit settles.
        let lr = 2.0 * (1.0 - 0.975 * step as f64 / steps as f64);
        let (_, g) = loss_and_gradient(&cells, &c);
        for i in 0..PARAMETERS {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let m_hat = m[i] / (1.0 - f64::powi(b1, step as i32));
            let v_hat = v[i] / (1.0 - f64::powi(b2, step as i32));
            c[i] -= lr * m_hat / (v_hat.sqrt() + 1e-12);
        }
        for share in &mut c[FORTRESS..FORTRESS + KNOTS.len()] {
            *share = share.clamp(0.0, 50.0);
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
    fn add(&mut self, s: &Sample, c: &[f64; PARAMETERS]) {
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
pub fn check(samples: &[Sample], c: &[f64; PARAMETERS]) -> (CheckRows<i32>, CheckRows<(i32, i32)>) {
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
pub fn check_table(samples: &[Sample], c: &[f64; PARAMETERS]) -> String {
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

    fn args(fit: &[&str], check: &[&str]) -> WdlArgs {
        WdlArgs {
            fit: fit.iter().map(|s| s.to_string()).collect(),
            check: check.iter().map(|s| s.to_string()).collect(),
            steps: 10,
            max_score: 300,
        }
    }

    #[test]
    fn check_alone_uses_the_built_in_model_and_nothing_at_all_is_refused() {
        assert!(command(args(&[], &[])).is_err());
        assert!(command(args(&[], &["/nonexistent/guoxiang/wdl.txt"])).is_err());
        let path = std::env::temp_dir().join(format!("guoxiang-wdl-{}.txt", std::process::id()));
        let line = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 0.5 | 30\n";
        std::fs::write(&path, line).expect("temporary file");
        let path_text = path.to_string_lossy().into_owned();
        let checked = command(args(&[], &[&path_text]));
        let _ = std::fs::remove_file(&path);
        assert!(checked.is_ok(), "{checked:?}");
    }

    #[test]
    fn a_pool_chunk_gives_the_samples_of_the_same_games_as_text() {
        use crate::tools::datagen::{generate, DataFormat, DatagenOptions};
        let opts = DatagenOptions {
            games: 3,
            nodes: 300,
            hash_mb: 1,
            max_plies: 120,
            ..DatagenOptions::default()
        };
        let dir = std::env::temp_dir().join(format!("guoxiang-wdl-vf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary folder");
        let mut paths = Vec::new();
        for (format, name) in [
            (DataFormat::Text, "games.txt"),
            (DataFormat::Viriformat, "games.vf"),
        ] {
            let mut bytes = Vec::new();
            generate(&opts, format, &mut bytes, &mut |_| {}).expect("self-play");
            let path = dir.join(name);
            std::fs::write(&path, bytes).expect("temporary file");
            paths.push(path.to_string_lossy().into_owned());
        }
        let text = read_samples(&paths[..1]);
        let chunk = read_samples(&paths[1..]);
        let _ = std::fs::remove_dir_all(&dir);
        let text = text.expect("text read");
        assert!(!text.is_empty());
        assert_eq!(chunk, Ok(text));
    }

    /// Outcomes drawn from the model itself with known coefficients.
    fn synthetic(c: &[f64; PARAMETERS]) -> Vec<Sample> {
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
        let mut truth = crate::eval::wdl::COEFFICIENTS;
        for (i, t) in truth.iter_mut().enumerate() {
            *t += [30.0, -20.0, 10.0][i % 3];
        }
        let samples = synthetic(&truth);
        let (fitted, _) = fit(&samples, neutral_start(), 3000);
        let (buckets, bands) = check(&samples, &fitted);
        for (x, k) in &buckets {
            assert!(k.worst_gap() < 3.0, "score {x}: {k:?}");
        }
        for (band, k) in &bands {
            assert!(k.worst_gap() < 3.0, "material {band:?}: {k:?}");
        }
    }
}
