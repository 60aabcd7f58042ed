//! `guoxiang tune`: Texel tuning of the evaluation weights on the engine's
//! own self-play positions (from `guoxiang datagen`, see [`crate::tools::datagen`]).
//!
//! ```text
//! guoxiang datagen --games 2000 --nodes 5000 --threads 2 --out selfplay.txt
//! guoxiang tune --data selfplay.txt --epochs 300 --lr 1 --out tuned_weights.rs
//! guoxiang tune --data selfplay.txt --write-eval src/eval/weights.rs   # then rebuild
//! ```
//!
//! Options (defaults in brackets):
//!
//! * `--data FILE` (required): positions from `guoxiang datagen`.
//! * `--epochs N` [200]: full passes (one Adam step each).
//! * `--lr X` [1.0]: the Adam step, in centipawns of effect.
//! * `--reg X` [0.001]: L2 pull towards the current weights; the loss gets
//!   `X * sum(((w - w0) / 100)^2)` added. With few games it is what stops
//!   the tuner from fitting noise; lower it as the data grows (watch the
//!   validation loss).
//! * `--min-count N` [100]: weights used by fewer training positions keep
//!   their values.
//! * `--keep NAME,NAME...` [none]: these weights (by `const` name, e.g.
//!   `MOPUP_EDGE`) keep their values. For terms that steer the search
//!   rather than predict the result: mop-up drives a won ending towards
//!   mate, yet self-play at a few thousand nodes often fails to convert
//!   such endings, so the fit would turn it negative.
//! * `--validation F` [0.1]: the last F of the file is held out (the file
//!   holds whole games in order, so these are other games); the weights of
//!   the epoch with the lowest validation loss are kept. 0: no hold-out,
//!   the last epoch's weights are kept.
//! * `--k K` [fitted], `--loss mse|ce` [mse], `--threads N` [1],
//!   `--limit N` [all lines].
//! * `--out FILE` [tuned_weights.rs], `--write-eval PATH` [none]: see Output.
//!
//! Data: one position a line, `<FEN> | <result>`, the result from White's
//! point of view: `1.0`, `0.5`, `0.0` (also `1-0`, `1/2-1/2`, `0-1`, or any
//! number from 0 to 1). Empty lines and lines starting with `#` are skipped,
//! as are malformed lines (counted) and dead positions (their score is
//! always 0).
//!
//! Method: every position is traced once ([`crate::eval::trace`]): how many
//! times each weight counts for White minus Black, in the middle-game and in
//! the end-game sum, plus the phase, the scale factors and the king-danger
//! attack units. The evaluation is then a cheap function of the weight
//! vector. The prediction is `sigmoid(K * eval / 400)`, eval from White's
//! view; K is fitted first (line search on the training positions, weights
//! as compiled in) and then kept. The loss is the mean squared error
//! against the game result (`--loss ce`: cross-entropy), plus the `--reg`
//! term. All tunable weights are optimised at once by
//! full-batch Adam; each weight's step is divided by the mean size of its
//! coefficients, so weights that multiply counts or distances (king danger,
//! passed-pawn king distances, mop-up) move in steps of about `--lr`
//! centipawns of effect too. Finally the weights are rounded to integers.
//!
//! What is tuned and what is not: see the tuning support,
//! `src/eval/trace.rs`. In short: material, piece-square tables, mobility, pawn
//! structure, passed pawns, piece terms, threats, pawn shield and king files,
//! tempo, mop-up, and KING_DANGER_QUADRATIC / KING_DANGER_MAX /
//! KING_DANGER_EG are tuned; the attack-unit tables, the end-game scale
//! factors, NO_PAWN_EDGE and the phase weights stay fixed. Weights no
//! position uses (say the pawn table's first and last ranks) keep their
//! values.
//!
//! Output: `--out` writes the whole of `src/eval/weights.rs` (as compiled
//! into this binary) with the tuned values, ready to replace that file as it
//! is; `--write-eval PATH` (normally `src/eval/weights.rs`) rewrites the
//! tuned `const`s of that file in place (same names, same layout), so a
//! rebuild picks them up. The bench node count changes with the weights.

use crate::board::position::Position;
use crate::eval::{default_params, trace, EvalTrace, Shape, TunableItem, TUNABLES};
use std::time::Instant;

/// The weights source (`src/eval/weights.rs`) this binary was built from.
pub const WEIGHTS_SOURCE: &str = include_str!("../eval/weights.rs");

/// One training position.
#[derive(Clone, Debug)]
pub struct Sample {
    pub trace: EvalTrace,
    /// Game result from White's point of view, 0 to 1.
    pub result: f64,
}

/// What loading a data file found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadStats {
    pub lines: usize,
    pub positions: usize,
    pub dead: usize,
    pub malformed: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Mean squared error of the predicted score (Texel's original).
    Mse,
    /// Cross-entropy (logistic loss).
    CrossEntropy,
}

/// Parses one data line, `FEN | result` with an optional `| score` after it
/// (the score is not used here): `Ok(None)` for blank and comment lines.
pub fn parse_line(line: &str) -> Result<Option<(&str, f64)>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut fields = line.split('|');
    let fen = fields.next().unwrap_or_default();
    let result = fields.next().ok_or("no '|' between FEN and result")?;
    let result = match result.trim() {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        r => r
            .trim_matches(|c| c == '[' || c == ']')
            .parse::<f64>()
            .map_err(|_| format!("result '{r}' is not a number"))?,
    };
    if !(0.0..=1.0).contains(&result) {
        return Err(format!("result {result} is not between 0 and 1"));
    }
    Ok(Some((fen.trim(), result)))
}

/// Runs `f` on `threads` chunks of `items` at once; the results in order.
fn parallel<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return vec![f(items)];
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| {
                let f = &f;
                s.spawn(move || f(c))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// Parses and traces every position of a data file's text.
pub fn load(text: &str, limit: usize, threads: usize) -> (Vec<Sample>, LoadStats) {
    let lines: Vec<&str> = text.lines().take(limit).collect();
    let parts = parallel(&lines, threads, |chunk| {
        let mut samples = Vec::with_capacity(chunk.len());
        let mut stats = LoadStats::default();
        for line in chunk {
            stats.lines += 1;
            let parsed = match parse_line(line) {
                Ok(Some(p)) => p,
                Ok(None) => continue,
                Err(_) => {
                    stats.malformed += 1;
                    continue;
                }
            };
            let Ok(pos) = Position::from_fen(parsed.0, false) else {
                stats.malformed += 1;
                continue;
            };
            match trace(&pos) {
                Some(t) => samples.push(Sample {
                    trace: t,
                    result: parsed.1,
                }),
                None => stats.dead += 1,
            }
        }
        stats.positions = samples.len();
        (samples, stats)
    });
    let mut samples = Vec::new();
    let mut stats = LoadStats::default();
    for (s, st) in parts {
        samples.extend(s);
        stats.lines += st.lines;
        stats.positions += st.positions;
        stats.dead += st.dead;
        stats.malformed += st.malformed;
    }
    (samples, stats)
}

#[inline]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The loss of one prediction `p` against result `r`, and its derivative in `p`.
#[inline]
fn point_loss(kind: LossKind, p: f64, r: f64) -> (f64, f64) {
    match kind {
        LossKind::Mse => ((r - p) * (r - p), 2.0 * (p - r)),
        LossKind::CrossEntropy => {
            let p = p.clamp(1e-12, 1.0 - 1e-12);
            (
                -(r * p.ln() + (1.0 - r) * (1.0 - p).ln()),
                (p - r) / (p * (1.0 - p)),
            )
        }
    }
}

/// Mean loss over the samples with weights `w`.
pub fn loss(samples: &[Sample], w: &[f64], k: f64, kind: LossKind, threads: usize) -> f64 {
    let sums = parallel(samples, threads, |chunk| {
        chunk
            .iter()
            .map(|s| {
                let (e, _) = s.trace.evaluate_f64(w);
                point_loss(kind, sigmoid(k * e / 400.0), s.result).0
            })
            .sum::<f64>()
    });
    sums.iter().sum::<f64>() / samples.len().max(1) as f64
}

/// Mean loss and its gradient in the weights.
fn loss_and_gradient(
    samples: &[Sample],
    w: &[f64],
    k: f64,
    kind: LossKind,
    threads: usize,
) -> (f64, Vec<f64>) {
    let parts = parallel(samples, threads, |chunk| {
        let mut grad = vec![0.0; w.len()];
        let mut total = 0.0;
        for s in chunk {
            let (e, eg_weight) = s.trace.evaluate_f64(w);
            let p = sigmoid(k * e / 400.0);
            let (l, dl_dp) = point_loss(kind, p, s.result);
            total += l;
            let g = dl_dp * p * (1.0 - p) * k / 400.0;
            s.trace.add_gradient(w, eg_weight, g, &mut grad);
        }
        (total, grad)
    });
    let n = samples.len().max(1) as f64;
    let mut grad = vec![0.0; w.len()];
    let mut total = 0.0;
    for (l, g) in parts {
        total += l;
        for (a, b) in grad.iter_mut().zip(g) {
            *a += b;
        }
    }
    for g in grad.iter_mut() {
        *g /= n;
    }
    (total / n, grad)
}

/// The K that minimises the loss with weights `w`: a coarse scan, then two
/// finer ones around the best value.
pub fn fit_k(samples: &[Sample], w: &[f64], kind: LossKind, threads: usize) -> f64 {
    let scores: Vec<(f64, f64)> = parallel(samples, threads, |chunk| {
        chunk
            .iter()
            .map(|s| (s.trace.evaluate_f64(w).0, s.result))
            .collect::<Vec<_>>()
    })
    .concat();
    let loss_at = |k: f64| -> f64 {
        scores
            .iter()
            .map(|&(e, r)| point_loss(kind, sigmoid(k * e / 400.0), r).0)
            .sum::<f64>()
    };
    let (mut best, mut step) = (1.0f64, 0.25f64);
    let mut lo = 0.05;
    let mut hi = 6.0;
    for _ in 0..4 {
        let mut best_loss = f64::INFINITY;
        let mut k = lo;
        while k <= hi + 1e-12 {
            let l = loss_at(k);
            if l < best_loss {
                best_loss = l;
                best = k;
            }
            k += step;
        }
        lo = (best - step).max(0.01);
        hi = best + step;
        step /= 10.0;
    }
    best
}

/// Per weight: in how many positions it counts, and the mean absolute size
/// of its coefficients there (at least 1).
fn usage(samples: &[Sample], w0: &[f64]) -> (Vec<u64>, Vec<f64>) {
    let mut sum = vec![0.0f64; w0.len()];
    let mut n = vec![0u64; w0.len()];
    let (q, max) = (
        crate::eval::idx::KING_DANGER_QUADRATIC,
        crate::eval::idx::KING_DANGER_MAX,
    );
    for s in samples {
        for &(i, c) in s.trace.mg.iter().chain(&s.trace.eg) {
            sum[i as usize] += f64::from(c).abs();
            n[i as usize] += 1;
        }
        for &u in s.trace.king_units.iter().flatten() {
            let u2 = f64::from(u * u) / 16.0;
            if u2 * w0[q] < w0[max] {
                sum[q] += u2;
                n[q] += 1;
            } else {
                sum[max] += 1.0;
                n[max] += 1;
            }
        }
    }
    let size = sum
        .iter()
        .zip(&n)
        .map(|(&s, &n)| if n == 0 { 1.0 } else { (s / n as f64).max(1.0) })
        .collect();
    (n, size)
}

/// Tuning settings.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub epochs: usize,
    /// Adam step, in centipawns of effect.
    pub lr: f64,
    pub threads: usize,
    pub kind: LossKind,
    /// L2 pull towards the starting weights: `reg * sum(((w - w0) / 100)^2)`
    /// is added to the loss.
    pub reg: f64,
    /// Weights used by fewer training positions than this stay as they are.
    pub min_count: u64,
    /// Weights (by `const` name) that stay as they are whatever the data
    /// says: terms that steer the search rather than predict the result.
    pub keep: Vec<String>,
}

impl Default for TuneConfig {
    fn default() -> TuneConfig {
        TuneConfig {
            epochs: 200,
            lr: 1.0,
            threads: 1,
            kind: LossKind::Mse,
            reg: 0.001,
            min_count: 100,
            keep: Vec::new(),
        }
    }
}

/// What [`tune`] found.
#[derive(Clone, Debug)]
pub struct TuneResult {
    /// Real-valued weights: those of the epoch with the lowest validation
    /// loss, or the last ones without validation positions.
    pub weights: Vec<f64>,
    /// The epoch those weights are from (0: the starting weights).
    pub best_epoch: usize,
    /// Weights left alone because too few positions use them.
    pub frozen: usize,
}

/// Full-batch Adam from `start` on `train`. `report(epoch, train loss,
/// validation loss)` sees the losses of the weights after `epoch` steps
/// (the data loss only, without the `reg` term).
pub fn tune(
    train: &[Sample],
    validation: &[Sample],
    start: &[i32],
    k: f64,
    cfg: &TuneConfig,
    report: &mut dyn FnMut(usize, f64, Option<f64>),
) -> TuneResult {
    let w0: Vec<f64> = start.iter().map(|&x| f64::from(x)).collect();
    let mut w = w0.clone();
    let (count, size) = usage(train, &w0);
    let rare: Vec<bool> = count.iter().map(|&n| n < cfg.min_count.max(1)).collect();
    let mut frozen = rare.clone();
    for item in TUNABLES
        .iter()
        .filter(|t| cfg.keep.iter().any(|k| k == t.name))
    {
        frozen[item.offset..item.offset + item.shape.size()].fill(true);
    }
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-12);
    let mut best = (f64::INFINITY, 0usize, w.clone());
    for epoch in 0..=cfg.epochs {
        let (l, mut grad) = loss_and_gradient(train, &w, k, cfg.kind, cfg.threads);
        let val = (!validation.is_empty()).then(|| loss(validation, &w, k, cfg.kind, cfg.threads));
        report(epoch, l, val);
        if let Some(val) = val {
            if val < best.0 {
                best = (val, epoch, w.clone());
            }
        }
        if epoch == cfg.epochs {
            break;
        }
        if cfg.reg > 0.0 {
            for i in 0..w.len() {
                grad[i] += cfg.reg * 2.0 * (w[i] - w0[i]) / 1e4;
            }
        }
        let t = (epoch + 1) as i32;
        let c1 = 1.0 - beta1.powi(t);
        let c2 = 1.0 - beta2.powi(t);
        for i in 0..w.len() {
            if frozen[i] {
                continue;
            }
            let g = grad[i];
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            if v[i] > 0.0 {
                w[i] -= cfg.lr / size[i] * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
            }
        }
    }
    let frozen = rare
        .iter()
        .zip(&count)
        .filter(|(&f, &n)| f && n > 0)
        .count();
    if validation.is_empty() {
        TuneResult {
            weights: w,
            best_epoch: cfg.epochs,
            frozen,
        }
    } else {
        TuneResult {
            weights: best.2,
            best_epoch: best.1,
            frozen,
        }
    }
}

/// Rounds real-valued weights to the integers the source holds.
pub fn round_weights(w: &[f64]) -> Vec<i32> {
    w.iter().map(|x| x.round() as i32).collect()
}

/// A readable name of parameter `i`: `KNIGHT_MOBILITY[3].eg`, `KING_PST_MG[g1]`.
pub fn param_name(i: usize) -> String {
    for item in TUNABLES {
        let size = item.shape.size();
        if i < item.offset || i >= item.offset + size {
            continue;
        }
        let j = i - item.offset;
        let half = if j.is_multiple_of(2) { "mg" } else { "eg" };
        return match item.shape {
            Shape::Pair => format!("{}.{half}", item.name),
            Shape::Pairs(_) => format!("{}[{}].{half}", item.name, j / 2),
            Shape::Int => item.name.to_string(),
            Shape::Ints(64) => {
                // Written with a8 first.
                let file = (b'a' + (j % 8) as u8) as char;
                let rank = 8 - j / 8;
                format!("{}[{file}{rank}]", item.name)
            }
            Shape::Ints(_) => format!("{}[{j}]", item.name),
        };
    }
    format!("#{i}")
}

/// The `pub const` item of `item` with the values of `w`, laid out as
/// `src/eval/weights.rs` has it (and as rustfmt leaves it).
pub fn format_item(item: &TunableItem, w: &[i32]) -> String {
    let v = &w[item.offset..item.offset + item.shape.size()];
    let name = item.name;
    match item.shape {
        Shape::Pair => format!("pub const {name}: S = S({}, {});", v[0], v[1]),
        Shape::Int => format!("pub const {name}: i32 = {};", v[0]),
        Shape::Ints(64) => {
            let mut s = format!("pub const {name}: [i32; 64] = [\n");
            for row in v.chunks(8) {
                let cells: Vec<String> = row.iter().map(|x| format!("{x:>3}")).collect();
                s.push_str(&format!("    {},\n", cells.join(", ")));
            }
            s.push_str("];");
            s
        }
        Shape::Ints(n) => {
            let cells: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            format!("pub const {name}: [i32; {n}] = [{}];", cells.join(", "))
        }
        Shape::Pairs(n) => {
            let cells: Vec<String> = v
                .chunks(2)
                .map(|p| format!("S({}, {})", p[0], p[1]))
                .collect();
            let inner = cells.join(", ");
            let one_line = format!("pub const {name}: [S; {n}] = [{inner}];");
            // rustfmt keeps an array on one line while its elements take at
            // most 60 columns and the line fits in 100.
            if inner.len() <= 60 && one_line.len() <= 100 {
                one_line
            } else {
                let mut s = format!("pub const {name}: [S; {n}] = [\n");
                for c in cells {
                    s.push_str(&format!("    {c},\n"));
                }
                s.push_str("];");
                s
            }
        }
    }
}

/// Where the item `pub const NAME: ...;` starts and ends (after the `;`) in `src`.
fn find_item(src: &str, name: &str) -> Result<(usize, usize), String> {
    let needle = format!("pub const {name}:");
    let starts: Vec<usize> = src
        .match_indices(&needle)
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || src.as_bytes()[i - 1] == b'\n')
        .collect();
    let start = match starts.as_slice() {
        [one] => *one,
        [] => return Err(format!("no `{needle}` at the start of a line")),
        _ => return Err(format!("`{needle}` appears {} times", starts.len())),
    };
    let mut depth = 0i32;
    for (off, ch) in src[start..].char_indices() {
        match ch {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ';' if depth == 0 => return Ok((start, start + off + 1)),
            _ => {}
        }
    }
    Err(format!("`{needle}` has no end"))
}

/// `src` (the text of `src/eval/weights.rs`) with every tunable `const` set to `w`.
pub fn rewrite_source(src: &str, w: &[i32]) -> Result<String, String> {
    let mut out = src.to_string();
    for item in TUNABLES {
        let (a, b) = find_item(&out, item.name)?;
        out.replace_range(a..b, &format_item(item, w));
    }
    Ok(out)
}

/// The options of `guoxiang tune` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Positions from `guoxiang datagen`, `<FEN> | <result>` a line
    #[arg(long, value_name = "FILE")]
    data: String,
    /// Full passes over the data (one Adam step each)
    #[arg(long, value_name = "N", default_value_t = TuneConfig::default().epochs)]
    epochs: usize,
    /// The Adam step, in centipawns of effect
    #[arg(
        long,
        value_name = "X",
        default_value_t = TuneConfig::default().lr,
        allow_negative_numbers = true
    )]
    lr: f64,
    /// Threads (1 to 256)
    #[arg(long, value_name = "N", default_value_t = TuneConfig::default().threads)]
    threads: usize,
    /// The scale K of the prediction sigmoid(K * eval / 400) [default: fitted]
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: Option<f64>,
    /// The loss: mean squared error (mse) or cross-entropy (ce)
    #[arg(long, value_name = "mse|ce", default_value = "mse")]
    loss: String,
    /// The share of the file, at its end, held out to validate (0 to 0.9)
    #[arg(
        long,
        value_name = "F",
        default_value_t = 0.1,
        allow_negative_numbers = true
    )]
    validation: f64,
    /// L2 pull towards the current weights: X * sum(((w - w0) / 100)^2)
    #[arg(
        long,
        value_name = "X",
        default_value_t = TuneConfig::default().reg,
        allow_negative_numbers = true
    )]
    reg: f64,
    /// Weights used by fewer training positions keep their values
    #[arg(long, value_name = "N", default_value_t = TuneConfig::default().min_count)]
    min_count: u64,
    /// These weights (by `const` name, e.g. MOPUP_EDGE) keep their values
    #[arg(long, value_name = "NAME,NAME...")]
    keep: Vec<String>,
    /// Read at most N lines [default: all]
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Writes the whole of src/eval/weights.rs with the tuned values
    #[arg(long, value_name = "FILE", default_value = "tuned_weights.rs")]
    out: String,
    /// Rewrites the tuned weights in place in this copy of src/eval/weights.rs
    #[arg(long, value_name = "PATH")]
    write_eval: Option<String>,
}

/// The `tune` subcommand.
pub fn command(args: TuneArgs) -> Result<(), String> {
    let mut cfg = TuneConfig {
        epochs: args.epochs,
        lr: args.lr,
        threads: args.threads,
        reg: args.reg,
        min_count: args.min_count,
        ..TuneConfig::default()
    };
    for name in args.keep.iter().flat_map(|names| names.split(',')) {
        if name.is_empty() {
            continue;
        }
        if !TUNABLES.iter().any(|t| t.name == name) {
            return Err(format!("--keep: '{name}' is not a tunable weight"));
        }
        cfg.keep.push(name.to_string());
    }
    cfg.kind = match args.loss.as_str() {
        "mse" => LossKind::Mse,
        "ce" => LossKind::CrossEntropy,
        other => return Err(format!("--loss: '{other}' is not mse or ce")),
    };
    let (fixed_k, validation_share) = (args.k, args.validation);
    let limit = args.limit.unwrap_or(usize::MAX);
    let (out, write_eval) = (Some(args.out), args.write_eval);
    let path = args.data;
    if !(1..=256).contains(&cfg.threads) {
        return Err("--threads must be from 1 to 256".into());
    }
    if !(cfg.lr.is_finite() && cfg.lr > 0.0) {
        return Err("--lr must be a positive number".into());
    }
    if !(cfg.reg.is_finite() && cfg.reg >= 0.0) {
        return Err("--reg must be a number, 0 or more".into());
    }
    if !(0.0..0.9).contains(&validation_share) {
        return Err("--validation must be from 0 to 0.9".into());
    }
    if fixed_k.is_some_and(|k| !(k.is_finite() && k > 0.0)) {
        return Err("--k must be a positive number".into());
    }
    // Check the rewrite works before spending time on the tuning.
    let defaults = default_params();
    let eval_text = match &write_eval {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("cannot read '{p}': {e}"))?;
            rewrite_source(&text, &defaults).map_err(|e| format!("'{p}': {e}"))?;
            Some(text)
        }
        None => None,
    };
    rewrite_source(WEIGHTS_SOURCE, &defaults)?;

    let t0 = Instant::now();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    let (samples, stats) = load(&text, limit, cfg.threads);
    drop(text);
    // The file holds whole games one after another: the last lines are
    // (nearly all) other games than the first ones.
    let held_out = (samples.len() as f64 * validation_share) as usize;
    let (train, validation) = samples.split_at(samples.len() - held_out);
    println!(
        "{} positions from {path} ({} lines, {} malformed, {} dead skipped) in {:.1} s: \
         {} to train on, the last {} to validate",
        stats.positions,
        stats.lines,
        stats.malformed,
        stats.dead,
        t0.elapsed().as_secs_f64(),
        train.len(),
        validation.len()
    );
    if train.is_empty() {
        return Err(format!("'{path}' holds no usable position"));
    }

    let start_w: Vec<f64> = defaults.iter().map(|&x| f64::from(x)).collect();
    let t1 = Instant::now();
    let k = match fixed_k {
        Some(k) => k,
        None => fit_k(train, &start_w, cfg.kind, cfg.threads),
    };
    let val_loss = |w: &[f64]| -> String {
        if validation.is_empty() {
            "-".to_string()
        } else {
            format!("{:.6}", loss(validation, w, k, cfg.kind, cfg.threads))
        }
    };
    let before = loss(train, &start_w, k, cfg.kind, cfg.threads);
    let before_val = val_loss(&start_w);
    println!(
        "K = {k:.3}{} ({:.1} s); loss with the current weights: train {before:.6}, validation {before_val}",
        if fixed_k.is_some() {
            " (given)"
        } else {
            " (fitted)"
        },
        t1.elapsed().as_secs_f64()
    );

    let t2 = Instant::now();
    let every = (cfg.epochs / 20).max(1);
    let mut report = |epoch: usize, l: f64, v: Option<f64>| {
        if epoch.is_multiple_of(every) || epoch == cfg.epochs {
            let v = v.map_or("-".to_string(), |v| format!("{v:.6}"));
            println!(
                "epoch {epoch:>5}  train {l:.6}  validation {v}  {:.1} s",
                t2.elapsed().as_secs_f64()
            );
        }
    };
    let result = tune(train, validation, &defaults, k, &cfg, &mut report);
    let secs = t2.elapsed().as_secs_f64();
    let rounded = round_weights(&result.weights);
    let rounded_f: Vec<f64> = rounded.iter().map(|&x| f64::from(x)).collect();
    let after = loss(train, &rounded_f, k, cfg.kind, cfg.threads);
    let after_val = val_loss(&rounded_f);
    println!(
        "{} epochs in {secs:.1} s ({:.1} ms/epoch), kept epoch {}; {} rarely used weights frozen",
        cfg.epochs,
        secs * 1000.0 / cfg.epochs.max(1) as f64,
        result.best_epoch,
        result.frozen
    );
    println!(
        "loss (rounded weights): train {before:.6} -> {after:.6}, validation {before_val} -> {after_val}"
    );

    let mut changes: Vec<(usize, i32)> = rounded
        .iter()
        .zip(&defaults)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, a - b))
        .collect();
    println!("{} of {} weights changed", changes.len(), defaults.len());
    changes.sort_by_key(|&(i, d)| (std::cmp::Reverse(d.abs()), i));
    for &(i, d) in changes.iter().take(12) {
        println!(
            "  {:<28} {:>6} -> {:>6} ({d:+})",
            param_name(i),
            defaults[i],
            rounded[i]
        );
    }

    if let Some(out) = out {
        let mut text = format!(
            "// Tuned by `guoxiang tune` on {path} ({} + {} positions), K = {k:.3}, epoch {},\n\
             // loss: train {before:.6} -> {after:.6}, validation {before_val} -> {after_val}.\n\
             // Replaces src/eval/weights.rs as it is.\n\n",
            train.len(),
            validation.len(),
            result.best_epoch
        );
        text.push_str(&rewrite_source(WEIGHTS_SOURCE, &rounded)?);
        std::fs::write(&out, text).map_err(|e| format!("cannot write '{out}': {e}"))?;
        println!("tuned weights.rs written to {out}");
    }
    if let (Some(p), Some(src)) = (&write_eval, eval_text) {
        let text = rewrite_source(&src, &rounded)?;
        std::fs::write(p, text).map_err(|e| format!("cannot write '{p}': {e}"))?;
        println!("tuned weights written into {p}; rebuild to use them");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::movegen::legal_moves;
    use crate::eval::idx;

    #[test]
    fn rewriting_with_the_current_weights_changes_nothing() {
        let w = default_params();
        assert_eq!(
            rewrite_source(WEIGHTS_SOURCE, &w).as_deref(),
            Ok(WEIGHTS_SOURCE)
        );
        // The whole file is the weights: the fixed ones too, nothing else.
        assert!(WEIGHTS_SOURCE.contains("pub const PAWN_VALUE: S"));
        assert!(WEIGHTS_SOURCE.contains("pub const PHASE_MAX"));
        assert!(!WEIGHTS_SOURCE.contains("fn "));
    }

    #[test]
    fn rewriting_sets_the_new_values() {
        let mut w = default_params();
        w[idx::KNIGHT_VALUE] = 1234;
        w[idx::KING_PST_EG + 63] = -77;
        w[idx::PASSED_KING_OURS] = 9;
        let text = rewrite_source(WEIGHTS_SOURCE, &w).expect("rewrite");
        assert!(text.contains("pub const KNIGHT_VALUE: S = S(1234, "));
        assert!(text.contains("pub const PASSED_KING_OURS: i32 = 9;"));
        // The last entry of the table (h8) closes it, after its three neighbours.
        let tail = format!(
            "{:>3}, {:>3}, {:>3}, -77,\n];",
            w[idx::KING_PST_EG + 60],
            w[idx::KING_PST_EG + 61],
            w[idx::KING_PST_EG + 62]
        );
        assert!(text.contains(&tail), "missing {tail:?}");
        // Reading it back gives the same vector: every item still parses the same way.
        assert_eq!(rewrite_source(&text, &w).as_deref(), Ok(text.as_str()));
        assert!(rewrite_source("fn main() {}", &w).is_err());
    }

    #[test]
    fn parses_data_lines() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        assert_eq!(parse_line(&format!("{fen} | 1.0")), Ok(Some((fen, 1.0))));
        assert_eq!(
            parse_line(&format!("{fen} | 1/2-1/2")),
            Ok(Some((fen, 0.5)))
        );
        assert_eq!(parse_line(&format!("{fen} |0-1")), Ok(Some((fen, 0.0))));
        assert_eq!(parse_line("  # comment"), Ok(None));
        assert_eq!(parse_line(""), Ok(None));
        assert!(parse_line(fen).is_err());
        assert!(parse_line(&format!("{fen} | 2")).is_err());
        assert!(parse_line(&format!("{fen} | x")).is_err());
        let (samples, stats) = load(
            &format!("{fen} | 1.0\nbad line\n8/8/4k3/8/8/3K4/8/8 w - - 0 1 | 0.5\nxx | 0.5\n"),
            usize::MAX,
            2,
        );
        assert_eq!(samples.len(), 1);
        assert_eq!(
            stats,
            LoadStats {
                lines: 4,
                positions: 1,
                dead: 1,
                malformed: 2
            }
        );
    }

    #[test]
    fn names() {
        assert_eq!(param_name(idx::PAWN_VALUE + 1), "PAWN_VALUE.eg");
        assert_eq!(
            param_name(idx::KNIGHT_MOBILITY + 7),
            "KNIGHT_MOBILITY[3].eg"
        );
        assert_eq!(param_name(idx::KING_PST_MG + 62), "KING_PST_MG[g1]");
        assert_eq!(param_name(idx::MOPUP_EDGE), "MOPUP_EDGE");
    }

    /// Positions from random games, labelled by a "truth" in which knights
    /// are worth much more than the current weights say and White is better
    /// when it has more pawns on the board.
    fn synthetic() -> Vec<Sample> {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut samples = Vec::new();
        for game in 0..40 {
            let mut pos = Position::startpos();
            for ply in 0..80 {
                let moves = legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                pos.make_move(moves[(rng % moves.len() as u64) as usize]);
                if ply % 4 != 3 {
                    continue;
                }
                let Some(t) = trace(&pos) else { continue };
                let count = |c, k| pos.pieces_of(c, k).count() as f64;
                use crate::board::types::{Color::*, PieceKind::*};
                let truth = 300.0 * (count(White, Knight) - count(Black, Knight))
                    + 100.0 * (count(White, Pawn) - count(Black, Pawn))
                    + if game % 2 == 0 { 30.0 } else { -30.0 };
                let result = if truth > 50.0 {
                    1.0
                } else if truth < -50.0 {
                    0.0
                } else {
                    0.5
                };
                samples.push(Sample { trace: t, result });
            }
        }
        samples
    }

    #[test]
    fn tuning_reduces_the_loss() {
        let samples = synthetic();
        assert!(samples.len() > 300, "{}", samples.len());
        let w0 = default_params();
        let start: Vec<f64> = w0.iter().map(|&x| f64::from(x)).collect();
        let k = fit_k(&samples, &start, LossKind::Mse, 2);
        assert!(k > 0.0 && k < 6.5, "K {k}");
        let before = loss(&samples, &start, k, LossKind::Mse, 2);
        let cfg = TuneConfig {
            epochs: 60,
            lr: 2.0,
            threads: 2,
            min_count: 5,
            ..TuneConfig::default()
        };
        let mut losses = Vec::new();
        let tuned = tune(&samples, &[], &w0, k, &cfg, &mut |_, l, v| {
            assert!(v.is_none());
            losses.push(l)
        });
        assert_eq!(tuned.best_epoch, 60);
        let tuned = tuned.weights;
        assert_eq!(losses.len(), 61);
        assert!((losses[0] - before).abs() < 1e-12);
        let after = loss(&samples, &tuned, k, LossKind::Mse, 1);
        assert!((losses[60] - after).abs() < 1e-12);
        assert!(after < before * 0.95, "loss {before} -> {after}");
        // Knights gained value.
        assert!(tuned[idx::KNIGHT_VALUE] > f64::from(w0[idx::KNIGHT_VALUE]));
        // Cross-entropy goes down as well.
        let ce = TuneConfig {
            kind: LossKind::CrossEntropy,
            epochs: 20,
            ..cfg.clone()
        };
        let before = loss(&samples, &start, k, LossKind::CrossEntropy, 1);
        let tuned = tune(&samples, &[], &w0, k, &ce, &mut |_, _, _| {}).weights;
        assert!(loss(&samples, &tuned, k, LossKind::CrossEntropy, 1) < before);
    }

    #[test]
    fn validation_keeps_the_best_epoch_and_rare_weights_stay() {
        let samples = synthetic();
        let (train, validation) = samples.split_at(samples.len() * 3 / 4);
        let w0 = default_params();
        let cfg = TuneConfig {
            epochs: 30,
            lr: 2.0,
            min_count: 5,
            reg: 0.01,
            ..TuneConfig::default()
        };
        let mut val = Vec::new();
        let r = tune(train, validation, &w0, 1.0, &cfg, &mut |_, _, v| {
            val.extend(v)
        });
        assert_eq!(val.len(), 31);
        let best = val.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(val[r.best_epoch], best);
        assert!((loss(validation, &r.weights, 1.0, LossKind::Mse, 1) - best).abs() < 1e-12);
        // Nothing is used by a million positions: nothing moves.
        let none = TuneConfig {
            min_count: 1_000_000,
            ..cfg.clone()
        };
        let r = tune(train, &[], &w0, 1.0, &none, &mut |_, _, _| {});
        assert!(r.frozen > 100);
        assert_eq!(round_weights(&r.weights), w0);
    }

    #[test]
    fn kept_weights_stay_while_the_others_move() {
        let samples = synthetic();
        let w0 = default_params();
        let free = TuneConfig {
            epochs: 30,
            lr: 2.0,
            min_count: 5,
            ..TuneConfig::default()
        };
        let moved = round_weights(&tune(&samples, &[], &w0, 1.0, &free, &mut |_, _, _| {}).weights);
        let knight = idx::KNIGHT_VALUE..idx::KNIGHT_VALUE + 2;
        assert_ne!(
            moved[knight.clone()],
            w0[knight.clone()],
            "the data moves the knight value"
        );
        let keep = TuneConfig {
            keep: vec!["KNIGHT_VALUE".to_string()],
            ..free
        };
        let kept = round_weights(&tune(&samples, &[], &w0, 1.0, &keep, &mut |_, _, _| {}).weights);
        assert_eq!(kept[knight.clone()], w0[knight]);
        assert_ne!(kept, w0, "the other weights still move");
    }

    #[test]
    fn gradient_matches_finite_differences_of_the_loss() {
        let samples: Vec<Sample> = synthetic().into_iter().take(60).collect();
        let w: Vec<f64> = default_params().iter().map(|&x| f64::from(x)).collect();
        for kind in [LossKind::Mse, LossKind::CrossEntropy] {
            let (_, grad) = loss_and_gradient(&samples, &w, 1.3, kind, 1);
            for i in [idx::KNIGHT_VALUE, idx::PAWN_VALUE + 1, idx::TEMPO] {
                let h = 1e-3;
                let mut up = w.clone();
                up[i] += h;
                let mut down = w.clone();
                down[i] -= h;
                let numeric = (loss(&samples, &up, 1.3, kind, 1)
                    - loss(&samples, &down, 1.3, kind, 1))
                    / (2.0 * h);
                assert!(
                    (numeric - grad[i]).abs() <= 1e-4 * numeric.abs() + 1e-12,
                    "{}: {numeric} vs {}",
                    param_name(i),
                    grad[i]
                );
            }
        }
    }
}
