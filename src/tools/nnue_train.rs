//! `guoxiang nnue`: trains the network of [`crate::eval::network`] on `datagen`
//! positions (the engine's own self-play only) and writes it as a network
//! file.
//!
//! ```text
//! guoxiang nnue --data selfplay.txt --epochs 20 --threads 2 --out src/eval/net.nnue
//! ```
//!
//! Options (defaults in brackets):
//!
//! * `--data FILE` (repeatable): `FEN | result | score` lines from `datagen`
//!   (result and score from White's point of view), or viriformat games
//!   (`.vf`, see [`crate::tools::viriformat`]).
//! * `--pool DIR`: every chunk of a self-play pool ([`crate::tools::pool`]).
//!   Games are filtered as they are read: not the first `--min-ply N` [8]
//!   plies, not in check, not where a capture or promotion was played, no
//!   mate score nor one beyond `--max-score CP` [10000], and each position
//!   once only (unless `--keep-duplicates`).
//! * `--epochs N` [20], `--batch N` [4096], `--lr X` [0.01]: Adam over
//!   mini-batches; the rate drops tenfold for the last 30% of the epochs.
//! * `--lambda X` [0.75] and `--sigmoid-scale K|fit` [400]: the target is
//!   `lambda * sigmoid(score / K) + (1 - lambda) * result`, fitted by
//!   `sigmoid(output / K)`. `fit` finds the K by which the scores best
//!   predict the games' results (about 150 cp on our self-play), so that the
//!   result and the score speak the same units (see [`Target`]).
//! * `--score-scale X` [1]: each search score is multiplied by `X` (and
//!   rounded to whole centipawns) before it enters the target. Search scores
//!   run larger than the static evaluation they come from, so a network
//!   fitted to them evaluates larger than its parent, and self-play from it
//!   larger again; `X` below 1 keeps a generation on its parent's scale.
//! * `--hce-percent P` [0]: the score is `P`% of the hand-written evaluation
//!   plus the network, which learns the rest (0: the network alone; 100: a
//!   correction to the hand-written evaluation).
//! * `--init FILE`: start from this network file instead of random weights
//!   (its hand-written share is kept), e.g. to go on training the shipped
//!   net on new data; its validation loss is printed before the first epoch.
//!   A network with fewer hidden neurons than this build's is widened: its
//!   neurons are kept and the new ones start silent (see
//!   [`FloatNet::from_parts`]).
//! * `--threads N` [1], `--seed S` [1], `--out FILE` [net.nnue].
//!
//! Each epoch shuffles the positions and mirrors every other one left to
//! right (the network never sees castling rights, so the mirrored position
//! is worth the same); whole games are held out for the validation loss (the
//! last 2% of a text file, every 50th game of a pool), and the epoch with the
//! lowest validation loss is written. The loss is the squared error between
//! `sigmoid(output x SCALE / K)` and the target, with `output` in units of
//! [`SCALE`] centipawns. Each epoch reports its positions per second.

use crate::board::position::Position;
use crate::board::types::Color;
use crate::eval::network::{
    feature, Network, NetworkParts, HIDDEN, INPUTS, MAX_OUTPUT_WEIGHT, QA, QB, SCALE,
};
use crate::tools::datagen::{format_of, DataFormat};
use crate::tools::pool::{
    games_from_text, list_chunks, read_games, visit_training_positions, FilterStats, PositionFilter,
};
use std::process::ExitCode;
use std::time::Instant;

/// Float weights are kept inside this range so that the quantised network
/// cannot overflow its i16 accumulators (33 rows x 1.98 x QA < 32767).
const CLIP: f32 = 1.98;

/// One training position: White-perspective feature indices of its pieces,
/// the side to move, and the search's score and the game's result from the
/// side to move's point of view (the target is made of both, see [`Target`]).
#[derive(Clone, Copy)]
pub struct Sample {
    features: [u16; 32],
    count: u8,
    black_to_move: bool,
    /// Centipawns.
    score: f32,
    /// 1.0, 0.5 or 0.0.
    result: f32,
    /// The hand-written evaluation in output units (centipawns / SCALE),
    /// side to move's point of view: the yardstick for the loss, and the
    /// base whose share `--hce-percent` the network adds to.
    hce: f32,
}

/// The White-perspective feature seen from Black: colours swapped, board
/// flipped vertically.
#[inline(always)]
fn flip_perspective(f: usize) -> usize {
    let other_colour = if f >= 384 { f - 384 } else { f + 384 };
    other_colour ^ 56
}

impl Sample {
    /// Builds a sample from a position with its result and score (White's
    /// point of view); `None` for positions with more than 32 pieces (never
    /// legal chess).
    pub fn new(pos: &Position, result_white: f32, score_white: f32) -> Option<Sample> {
        let mut features = [0u16; 32];
        let mut count = 0;
        for sq in pos.occupied() {
            let piece = pos.piece_on(sq)?;
            *features.get_mut(count)? = feature(Color::White, piece, sq) as u16;
            count += 1;
        }
        let black_to_move = pos.side_to_move() == Color::Black;
        let hce = crate::eval::evaluate_hce(pos) as f32 / SCALE as f32;
        let (score, result) = if black_to_move {
            (-score_white, 1.0 - result_white)
        } else {
            (score_white, result_white)
        };
        Some(Sample {
            features,
            count: count as u8,
            black_to_move,
            score,
            result,
            hce,
        })
    }

    /// The active inputs of the side to move's and the opponent's
    /// perspective, mirrored left to right when `mirror` is set.
    fn inputs(&self, mirror: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
        let file_flip = if mirror { 7 } else { 0 };
        self.features[..self.count as usize].iter().map(move |&f| {
            let white = f as usize ^ file_flip;
            let black = flip_perspective(white);
            if self.black_to_move {
                (black, white)
            } else {
                (white, black)
            }
        })
    }
}

#[inline(always)]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// What the network is fitted to: `sigmoid(output x SCALE / k)` against
/// `lambda x sigmoid(score / k) + (1 - lambda) x result`. With `k` fitted to
/// the games (the score at which a side's expected result is 73%, see
/// [`fit_sigmoid_scale`]) the result and the score speak the same units, so
/// blending in the result neither inflates nor shrinks the evaluation; the
/// network's centipawns stay the search's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Target {
    /// The search score's weight (0 to 1).
    pub lambda: f32,
    /// Centipawns a sigmoid unit stands for (400 before it was fitted).
    pub k: f32,
}

impl Target {
    #[inline(always)]
    fn of(&self, s: &Sample) -> f32 {
        self.lambda * sigmoid(s.score / self.k) + (1.0 - self.lambda) * s.result
    }

    /// The factor from network output units to sigmoid units.
    #[inline(always)]
    fn gain(&self) -> f32 {
        SCALE as f32 / self.k
    }
}

impl Default for Target {
    fn default() -> Target {
        Target {
            lambda: 1.0,
            k: 400.0,
        }
    }
}

/// The `k` (centipawns per sigmoid unit) for which `sigmoid(score / k)`
/// best predicts the game results of `samples` (least squares, searched on a
/// grid then refined): how our own games say a score turns into points.
pub fn fit_sigmoid_scale(samples: &[Sample]) -> f32 {
    let error = |k: f32| -> f64 {
        samples
            .iter()
            .map(|s| f64::from((sigmoid(s.score / k) - s.result).powi(2)))
            .sum()
    };
    let mut best = (400.0f32, error(400.0));
    for k in (100..=1500).step_by(50) {
        let e = error(k as f32);
        if e < best.1 {
            best = (k as f32, e);
        }
    }
    let mut step = 25.0;
    while step >= 1.0 {
        for k in [best.0 - step, best.0 + step] {
            let e = error(k);
            if k > 0.0 && e < best.1 {
                best = (k, e);
            }
        }
        step /= 2.0;
    }
    best.0
}

/// A uniform draw from `-range..range`.
fn uniform(rng: &mut crate::tools::selfplay::Rng, range: f32) -> f32 {
    let unit = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
    (unit * 2.0 - 1.0) * range
}

/// The float network the trainer works on; the layout of [`Network`].
#[derive(Clone)]
pub struct FloatNet {
    /// `INPUTS x HIDDEN`, input-major.
    w1: Vec<f32>,
    b1: Vec<f32>,
    /// `2 x HIDDEN`: side to move first.
    w2: Vec<f32>,
    b2: f32,
    /// The share (percent) of the hand-written evaluation added to the output.
    hce_percent: u32,
}

impl FloatNet {
    fn zeros() -> FloatNet {
        FloatNet {
            w1: vec![0.0; INPUTS * HIDDEN],
            b1: vec![0.0; HIDDEN],
            w2: vec![0.0; 2 * HIDDEN],
            b2: 0.0,
            hce_percent: 0,
        }
    }

    /// Small uniform random weights.
    pub fn random(seed: u64, hce_percent: u32) -> FloatNet {
        let mut rng = crate::tools::selfplay::Rng(seed);
        let mut net = FloatNet::zeros();
        let r1 = 1.0 / (INPUTS as f32).sqrt();
        net.w1.iter_mut().for_each(|w| *w = uniform(&mut rng, r1));
        let r2 = 1.0 / (2.0 * HIDDEN as f32).sqrt();
        net.w2.iter_mut().for_each(|w| *w = uniform(&mut rng, r2));
        net.hce_percent = hce_percent;
        net
    }

    /// A network file of this build's hidden size or a narrower one. A
    /// narrower network is widened: its neurons keep their weights, and each
    /// new neuron gets small random feature weights (as [`FloatNet::random`]
    /// draws them, from `seed`) and zero output weights, so the widened
    /// network computes exactly what the narrow one did and training then
    /// puts the new neurons to use.
    pub fn from_parts(parts: &NetworkParts, seed: u64) -> Result<FloatNet, String> {
        let old = parts.hidden;
        if old > HIDDEN {
            return Err(format!(
                "the network has {old} hidden neurons, more than this build's {HIDDEN}"
            ));
        }
        let (qa, qb) = (QA as f32, QB as f32);
        let mut rng = crate::tools::selfplay::Rng(seed);
        let r1 = 1.0 / (INPUTS as f32).sqrt();
        let mut float = FloatNet::zeros();
        for (row, words) in float
            .w1
            .chunks_exact_mut(HIDDEN)
            .zip(parts.feature_weights.chunks_exact(old))
        {
            for (f, &w) in row.iter_mut().zip(words) {
                *f = f32::from(w) / qa;
            }
            row[old..]
                .iter_mut()
                .for_each(|f| *f = uniform(&mut rng, r1));
        }
        for (f, &w) in float.b1.iter_mut().zip(&parts.feature_bias) {
            *f = f32::from(w) / qa;
        }
        for (half, words) in float
            .w2
            .chunks_exact_mut(HIDDEN)
            .zip(parts.output_weights.chunks_exact(old))
        {
            for (f, &w) in half.iter_mut().zip(words) {
                *f = f32::from(w) / qb;
            }
        }
        float.b2 = parts.output_bias as f32 / (qa * qb);
        float.hce_percent = parts.hce_percent;
        Ok(float)
    }

    /// The float form of a quantised network of this build: each weight
    /// divided by its quantisation scale, so that [`FloatNet::quantise`]
    /// gives it back.
    pub fn from_network(net: &Network) -> FloatNet {
        // Same width, so nothing is widened and no draw is made.
        FloatNet::from_parts(&NetworkParts::from(net), 0)
            .expect("a network of this build is not wider than this build")
    }

    /// Forward pass: the output (in units of SCALE centipawns) and the
    /// accumulators before activation.
    fn forward(&self, sample: &Sample, mirror: bool, acc: &mut [[f32; HIDDEN]; 2]) -> f32 {
        acc[0].copy_from_slice(&self.b1);
        acc[1].copy_from_slice(&self.b1);
        for (us, them) in sample.inputs(mirror) {
            for (a, w) in acc[0].iter_mut().zip(&self.w1[us * HIDDEN..][..HIDDEN]) {
                *a += w;
            }
            for (a, w) in acc[1].iter_mut().zip(&self.w1[them * HIDDEN..][..HIDDEN]) {
                *a += w;
            }
        }
        let mut out = self.b2 + sample.hce * self.hce_percent as f32 / 100.0;
        for (side, weights) in self.w2.chunks_exact(HIDDEN).enumerate() {
            for (a, w) in acc[side].iter().zip(weights) {
                let c = a.clamp(0.0, 1.0);
                out += c * c * w;
            }
        }
        out
    }

    /// Adds the gradient of the squared error on `sample` to `grad`; returns
    /// the loss.
    fn backward(&self, sample: &Sample, target: &Target, mirror: bool, grad: &mut FloatNet) -> f32 {
        let mut acc = [[0.0f32; HIDDEN]; 2];
        let out = self.forward(sample, mirror, &mut acc);
        let gain = target.gain();
        let p = sigmoid(out * gain);
        let err = p - target.of(sample);
        let d_out = 2.0 * err * p * (1.0 - p) * gain;
        grad.b2 += d_out;
        let mut d_acc = [[0.0f32; HIDDEN]; 2];
        for side in 0..2 {
            let w2 = &self.w2[side * HIDDEN..][..HIDDEN];
            let g2 = &mut grad.w2[side * HIDDEN..][..HIDDEN];
            for j in 0..HIDDEN {
                let a = acc[side][j];
                let c = a.clamp(0.0, 1.0);
                g2[j] += d_out * c * c;
                if a > 0.0 && a < 1.0 {
                    d_acc[side][j] = d_out * w2[j] * 2.0 * a;
                }
            }
        }
        for ((g, d0), d1) in grad.b1.iter_mut().zip(&d_acc[0]).zip(&d_acc[1]) {
            *g += d0 + d1;
        }
        for (us, them) in sample.inputs(mirror) {
            for (g, d) in grad.w1[us * HIDDEN..][..HIDDEN].iter_mut().zip(&d_acc[0]) {
                *g += d;
            }
            for (g, d) in grad.w1[them * HIDDEN..][..HIDDEN].iter_mut().zip(&d_acc[1]) {
                *g += d;
            }
        }
        err * err
    }

    /// Mean loss over `samples` (no mirroring).
    pub fn loss(&self, samples: &[Sample], target: &Target) -> f64 {
        let mut acc = [[0.0f32; HIDDEN]; 2];
        let total: f64 = samples
            .iter()
            .map(|s| {
                let e = sigmoid(self.forward(s, false, &mut acc) * target.gain()) - target.of(s);
                f64::from(e * e)
            })
            .sum();
        total / samples.len().max(1) as f64
    }

    fn params_mut(&mut self) -> impl Iterator<Item = &mut f32> {
        self.w1
            .iter_mut()
            .chain(self.b1.iter_mut())
            .chain(self.w2.iter_mut())
            .chain(std::iter::once(&mut self.b2))
    }

    fn params(&self) -> impl Iterator<Item = &f32> {
        self.w1
            .iter()
            .chain(self.b1.iter())
            .chain(self.w2.iter())
            .chain(std::iter::once(&self.b2))
    }

    /// The quantised network (format of [`crate::eval::network`]).
    pub fn quantise(&self) -> Box<Network> {
        let q16 = |x: f32, scale: i32| (x * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        let mut net = Box::new(Network {
            feature_weights: [[0; HIDDEN]; INPUTS],
            feature_bias: [0; HIDDEN],
            output_weights: [0; 2 * HIDDEN],
            output_bias: 0,
            hce_percent: 0,
        });
        for (i, row) in net.feature_weights.iter_mut().enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = q16(self.w1[i * HIDDEN + j], QA);
            }
        }
        for (w, f) in net.feature_bias.iter_mut().zip(&self.b1) {
            *w = q16(*f, QA);
        }
        let max_output = i16::try_from(MAX_OUTPUT_WEIGHT).unwrap_or(i16::MAX);
        for (w, f) in net.output_weights.iter_mut().zip(&self.w2) {
            *w = q16(*f, QB).clamp(-max_output, max_output);
        }
        net.output_bias = (self.b2 * (QA * QB) as f32).round() as i32;
        net.hce_percent = self.hce_percent;
        net
    }
}

/// The loss of the hand-written evaluation on `samples`.
pub fn baseline_loss(samples: &[Sample], target: &Target) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| f64::from((sigmoid(s.hce * target.gain()) - target.of(s)).powi(2)))
        .sum();
    total / samples.len().max(1) as f64
}

/// Adam state for every parameter of a [`FloatNet`].
struct Adam {
    m: FloatNet,
    v: FloatNet,
    step: i32,
}

impl Adam {
    fn update(&mut self, net: &mut FloatNet, grad: &FloatNet, lr: f32, batch: usize) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.step += 1;
        let c1 = 1.0 - B1.powi(self.step);
        let c2 = 1.0 - B2.powi(self.step);
        let scale = 1.0 / batch as f32;
        let params = net
            .params_mut()
            .zip(grad.params())
            .zip(self.m.params_mut().zip(self.v.params_mut()));
        for ((p, g), (m, v)) in params {
            let g = g * scale;
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *p -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
            *p = p.clamp(-CLIP, CLIP);
        }
    }
}

/// Training settings.
#[derive(Clone)]
pub struct TrainOptions {
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    pub threads: usize,
    pub seed: u64,
    /// The share (percent) of the hand-written evaluation in the score (see
    /// [`crate::eval::network`]); the network learns the rest.
    pub hce_percent: u32,
    /// Start from this network instead of random weights.
    pub init: Option<FloatNet>,
    pub target: Target,
}

/// Trains from random weights (or from `opts.init`); returns the network of
/// the epoch with the lowest validation loss and that loss. `report` sees
/// each epoch's (epoch, training loss, validation loss).
pub fn train(
    train_set: &mut [Sample],
    validation: &[Sample],
    opts: &TrainOptions,
    mut report: impl FnMut(usize, f64, f64),
) -> (FloatNet, f64) {
    let mut net = match &opts.init {
        Some(init) => init.clone(),
        None => FloatNet::random(opts.seed, opts.hce_percent),
    };
    let mut adam = Adam {
        m: FloatNet::zeros(),
        v: FloatNet::zeros(),
        step: 0,
    };
    let threads = opts.threads.max(1);
    let mut grads: Vec<FloatNet> = (0..threads).map(|_| FloatNet::zeros()).collect();
    let mut rng = crate::tools::selfplay::Rng(opts.seed ^ 0x9E37_79B9_7F4A_7C15);
    let mut best = (net.clone(), f64::INFINITY);
    for epoch in 1..=opts.epochs {
        // Fisher-Yates shuffle.
        for i in (1..train_set.len()).rev() {
            train_set.swap(i, rng.below(i + 1));
        }
        let lr = if epoch * 10 > opts.epochs * 7 {
            opts.lr / 10.0
        } else {
            opts.lr
        };
        let mut train_loss = 0.0f64;
        for (b, batch) in train_set.chunks(opts.batch.max(1)).enumerate() {
            let chunk = batch.len().div_ceil(threads);
            let net_ref = &net;
            let target = opts.target;
            let losses: Vec<f64> = std::thread::scope(|scope| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(batch.chunks(chunk.max(1)))
                    .enumerate()
                    .map(|(t, (grad, part))| {
                        scope.spawn(move || {
                            grad.params_mut().for_each(|g| *g = 0.0);
                            let mut loss = 0.0f64;
                            for (i, s) in part.iter().enumerate() {
                                // Mirror every other position, varying by batch and epoch.
                                let mirror = (i + t + b + epoch) % 2 == 1;
                                loss += f64::from(net_ref.backward(s, &target, mirror, grad));
                            }
                            loss
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(0.0))
                    .collect()
            });
            train_loss += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(chunk.max(1)).min(threads);
            let (first, rest) = grads.split_at_mut(1);
            for other in rest.iter().take(used.saturating_sub(1)) {
                for (g, o) in first[0].params_mut().zip(other.params()) {
                    *g += o;
                }
            }
            adam.update(&mut net, &first[0], lr, batch.len());
        }
        let validation_loss = net.loss(validation, &opts.target);
        report(
            epoch,
            train_loss / train_set.len().max(1) as f64,
            validation_loss,
        );
        if validation_loss < best.1 {
            best = (net.clone(), validation_loss);
        }
    }
    best
}

/// Parses `FEN | result | score` lines into samples, each score multiplied
/// by `score_scale` and rounded; counts the lines it could not use.
pub fn parse_samples(text: &str, score_scale: f64) -> (Vec<Sample>, usize) {
    let (positions, mut bad) = games_from_text(text);
    let mut samples = Vec::with_capacity(positions.len());
    for p in &positions {
        let score = (f64::from(p.start_score) * score_scale).round() as f32;
        match Sample::new(&p.start, p.wdl.white_result(), score) {
            Some(s) => samples.push(s),
            None => bad += 1,
        }
    }
    (samples, bad)
}

/// The training samples of the `--data` files (text or `.vf`) and of every
/// chunk of `pool`, and how many of them, at the end, are held out: for text
/// files the last 2% of their lines (whole games, as datagen writes a game's
/// positions together), for games every 50th game.
fn load_samples(
    data: &[String],
    pool: Option<&str>,
    filter: &PositionFilter,
    score_scale: f64,
) -> Result<(Vec<Sample>, usize), String> {
    let mut training = Vec::new();
    let mut validation = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stats = FilterStats::default();
    let mut game_files: Vec<std::path::PathBuf> = Vec::new();
    for path in data {
        if format_of(path) == DataFormat::Viriformat {
            game_files.push(path.into());
            continue;
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let (mut s, bad) = parse_samples(&text, score_scale);
        eprintln!("{path}: {} positions, {bad} lines skipped", s.len());
        let held = s.split_off(s.len() - s.len() / 50);
        training.append(&mut s);
        validation.extend(held);
    }
    if let Some(dir) = pool {
        let chunks = list_chunks(std::path::Path::new(dir))?;
        eprintln!("pool {dir}: {} chunks", chunks.len());
        game_files.extend(chunks.into_iter().map(|c| c.path));
    }
    let mut number = 0u64;
    for path in &game_files {
        let games = read_games(path)?;
        let before = stats;
        for game in &games {
            visit_training_positions(game, number, filter, &mut seen, &mut stats, |p| {
                let score = (f64::from(p.score) * score_scale).round() as f32;
                if let Some(sample) = Sample::new(&p.position, p.result, score) {
                    if p.held_out {
                        validation.push(sample);
                    } else {
                        training.push(sample);
                    }
                }
            });
            number += 1;
        }
        eprintln!(
            "{}: {} games, {} positions stored, {} used",
            path.display(),
            games.len(),
            stats.stored - before.stored,
            stats.kept - before.kept
        );
    }
    if !game_files.is_empty() {
        eprintln!("games: {stats}");
    }
    let held_out = validation.len();
    training.append(&mut validation);
    Ok((training, held_out))
}

/// The options of `guoxiang nnue` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct NnueArgs {
    /// Positions from `guoxiang datagen` (repeatable): `FEN | result |
    /// score` lines, or viriformat games if the name ends in `.vf`
    #[arg(long, value_name = "FILE", required_unless_present = "pool")]
    data: Vec<String>,
    /// Every chunk of this self-play pool (see `guoxiang pool`), after --data
    #[arg(long, value_name = "DIR")]
    pool: Option<String>,
    /// Pool games: positions of the first N plies of each game are not used
    #[arg(long, value_name = "N", default_value_t = PositionFilter::default().min_ply)]
    min_ply: usize,
    /// Pool games: positions scored beyond CP centipawns are not used
    #[arg(long, value_name = "CP", default_value_t = PositionFilter::default().max_score)]
    max_score: i32,
    /// Pool games: keep repeated positions (each is used once otherwise)
    #[arg(long)]
    keep_duplicates: bool,
    /// Passes over the training positions
    #[arg(long, value_name = "N", default_value_t = 20)]
    epochs: usize,
    /// Positions per Adam step
    #[arg(long, value_name = "N", default_value_t = 4096)]
    batch: usize,
    /// Adam's learning rate (a tenth of it for the last 30% of the epochs)
    #[arg(
        long,
        value_name = "X",
        default_value_t = 0.01,
        allow_negative_numbers = true
    )]
    lr: f32,
    /// The weight of the search score in the target (0 to 1):
    /// lambda * sigmoid(score / K) + (1 - lambda) * result
    #[arg(
        long,
        value_name = "X",
        default_value_t = 0.75,
        allow_negative_numbers = true
    )]
    lambda: f32,
    /// K, the centipawns of one sigmoid unit in the target and the loss:
    /// a number, or `fit` to fit it to the training positions' results
    #[arg(long, value_name = "K|fit", default_value = "400")]
    sigmoid_scale: String,
    /// Each search score is multiplied by X (rounded to whole centipawns)
    /// before it enters the target; below 1 keeps a generation on its
    /// parent's scale (search scores run larger than static ones)
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    score_scale: f64,
    /// The score is P% of the hand-written evaluation plus the network (0 to
    /// 100) [default: 0, or that of --init]
    #[arg(long, value_name = "P")]
    hce_percent: Option<u32>,
    /// Start from this network file instead of random weights
    #[arg(long, value_name = "FILE")]
    init: Option<String>,
    /// Threads
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// The seed of the random weights and of the shuffles
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Where the network goes
    #[arg(long, value_name = "FILE", default_value = "net.nnue")]
    out: String,
}

/// The `nnue` subcommand.
pub fn command(args: NnueArgs) -> Result<ExitCode, String> {
    let NnueArgs {
        data,
        epochs,
        batch,
        lr,
        lambda,
        score_scale,
        hce_percent,
        init: init_path,
        threads,
        seed,
        out,
        pool,
        min_ply,
        max_score,
        keep_duplicates,
        sigmoid_scale,
    } = args;
    let filter = PositionFilter {
        min_ply,
        max_score,
        dedup: !keep_duplicates,
    };
    let hce_percent_given = hce_percent.is_some();
    let mut opts = TrainOptions {
        epochs,
        batch,
        lr,
        threads,
        seed,
        hce_percent: hce_percent.unwrap_or(0),
        init: None,
        target: Target { lambda, k: 400.0 },
    };
    if !(0.0..=1.0).contains(&lambda) || opts.batch == 0 || opts.epochs == 0 {
        return Err("--lambda must be in 0..1, --batch and --epochs above 0".into());
    }
    if !(score_scale > 0.0 && score_scale <= 4.0) {
        return Err("--score-scale must be above 0 and at most 4".into());
    }
    if opts.hce_percent > 100 {
        return Err("--hce-percent must be in 0..100".into());
    }
    if let Some(path) = &init_path {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let parts = NetworkParts::from_bytes(&bytes).map_err(|e| format!("'{path}': {e}"))?;
        if hce_percent_given && opts.hce_percent != parts.hce_percent {
            return Err(format!(
                "--hce-percent {} differs from the {}% of '{path}'",
                opts.hce_percent, parts.hce_percent
            ));
        }
        if parts.hidden < HIDDEN {
            println!(
                "--init: widening '{path}' from {} to {HIDDEN} hidden neurons",
                parts.hidden
            );
        }
        opts.hce_percent = parts.hce_percent;
        opts.init = Some(FloatNet::from_parts(&parts, seed).map_err(|e| format!("'{path}': {e}"))?);
    }
    let start = Instant::now();
    let (mut samples, held_out) = load_samples(&data, pool.as_deref(), &filter, score_scale)?;
    if samples.len() < 100 || held_out == 0 {
        return Err(format!(
            "only {} usable positions ({held_out} held out)",
            samples.len()
        ));
    }
    let split = samples.len() - held_out;
    opts.target.k = match sigmoid_scale.as_str() {
        "fit" => fit_sigmoid_scale(&samples[..split]),
        k => k
            .parse::<f32>()
            .ok()
            .filter(|k| (10.0..=10_000.0).contains(k))
            .ok_or("--sigmoid-scale must be `fit` or a number from 10 to 10000")?,
    };
    eprintln!(
        "target: {} x sigmoid(score / {:.1}) + {} x result; {:.0} positions/s loaded",
        opts.target.lambda,
        opts.target.k,
        1.0 - opts.target.lambda,
        samples.len() as f64 / start.elapsed().as_secs_f64().max(1e-9)
    );
    let (train_set, validation) = samples.split_at_mut(split);
    eprintln!(
        "{} training, {} validation positions; hidden {HIDDEN}, scale {SCALE}",
        train_set.len(),
        validation.len()
    );
    eprintln!(
        "hand-written evaluation: validation loss {:.6}",
        baseline_loss(validation, &opts.target)
    );
    if let Some(init) = &opts.init {
        eprintln!(
            "--init network: validation loss {:.6}",
            init.loss(validation, &opts.target)
        );
    }
    let trained = train_set.len() as f64;
    let mut epoch_start = Instant::now();
    let (net, loss) = train(train_set, validation, &opts, |epoch, t, v| {
        eprintln!(
            "epoch {epoch:3}  train {t:.6}  validation {v:.6}  {:.0} s  {:.0} positions/s",
            start.elapsed().as_secs_f64(),
            trained / epoch_start.elapsed().as_secs_f64().max(1e-9)
        );
        epoch_start = Instant::now();
    });
    let quantised = net.quantise();
    // What rounding the weights to the file's integers costs, on the same
    // held-out positions.
    let quantised_loss = FloatNet::from_network(&quantised).loss(validation, &opts.target);
    std::fs::write(&out, quantised.to_bytes()).map_err(|e| format!("cannot write '{out}': {e}"))?;
    eprintln!(
        "best validation loss {loss:.6}, quantised {quantised_loss:.6} ({:+.2}%); wrote {out}",
        (quantised_loss / loss - 1.0) * 100.0
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::network::evaluate_body;
    use crate::eval::network::file_bytes;

    #[test]
    fn perspective_flip_is_an_involution() {
        for f in 0..INPUTS {
            assert_eq!(flip_perspective(flip_perspective(f)), f);
            assert_ne!(flip_perspective(f), f);
        }
    }

    #[test]
    fn quantised_network_matches_the_float_one() {
        let net = FloatNet::random(7, 0);
        let q = net.quantise();
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4";
        let pos = Position::from_fen(fen, false).expect("fen");
        let sample = Sample::new(&pos, 0.5, 0.0).expect("sample");
        let mut acc = [[0.0; HIDDEN]; 2];
        let float_cp = net.forward(&sample, false, &mut acc) * SCALE as f32;
        let quantised_cp = evaluate_body(&q, &pos) as f32;
        assert!(
            (float_cp - quantised_cp).abs() <= 2.0,
            "{float_cp} vs {quantised_cp}"
        );
    }

    #[test]
    fn score_scale_shrinks_the_score_before_the_target() {
        let line = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 0.5 | 401\n";
        let (plain, _) = parse_samples(line, 1.0);
        let (scaled, _) = parse_samples(line, 0.5);
        let target = Target::default();
        // 401 x 0.5 = 200.5 rounds to 201 centipawns.
        assert!((target.of(&plain[0]) - sigmoid(401.0 / 400.0)).abs() < 1e-6);
        assert!((target.of(&scaled[0]) - sigmoid(201.0 / 400.0)).abs() < 1e-6);
    }

    #[test]
    fn the_target_blends_score_and_result_in_fitted_units() {
        let line = "4k3/8/8/8/8/8/8/3QK3 b - - 0 1 | 1.0 | 300\n";
        let (samples, _) = parse_samples(line, 1.0);
        // Black to move: the side to move's score is -300 and it lost.
        let target = Target {
            lambda: 0.75,
            k: 300.0,
        };
        let expected = 0.75 * sigmoid(-1.0);
        assert!((target.of(&samples[0]) - expected).abs() < 1e-6);
        assert!((target.gain() - SCALE as f32 / 300.0).abs() < 1e-6);
    }

    #[test]
    fn the_sigmoid_scale_fits_the_results() {
        // Results drawn so that a score s wins with probability
        // sigmoid(s / 250): the fit finds about 250.
        let mut rng = crate::tools::selfplay::Rng(5);
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false).expect("fen");
        let samples: Vec<Sample> = (0..20_000)
            .filter_map(|_| {
                let score = rng.below(1201) as f32 - 600.0;
                let unit = (rng.next() >> 11) as f32 / (1u64 << 53) as f32;
                let result = if unit < sigmoid(score / 250.0) {
                    1.0
                } else {
                    0.0
                };
                Sample::new(&pos, result, score)
            })
            .collect();
        let k = fit_sigmoid_scale(&samples);
        assert!((225.0..=275.0).contains(&k), "fitted {k}");
    }

    #[test]
    fn training_lowers_the_loss() {
        let text = "\
4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 1.0 | 900
4k3/8/8/8/8/8/8/3QK3 b - - 0 1 | 1.0 | 900
3qk3/8/8/8/8/8/8/4K3 w - - 0 1 | 0.0 | -900
3qk3/8/8/8/8/8/8/4K3 b - - 0 1 | 0.0 | -900
4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0.5 | 0
not a line
";
        let (mut samples, bad) = parse_samples(text, 1.0);
        assert_eq!((samples.len(), bad), (5, 1));
        let validation = samples.clone();
        let opts = TrainOptions {
            epochs: 60,
            batch: 4,
            lr: 0.01,
            threads: 2,
            seed: 3,
            hce_percent: 0,
            init: None,
            target: Target {
                lambda: 0.5,
                k: 400.0,
            },
        };
        let before = FloatNet::random(opts.seed, 0).loss(&validation, &opts.target);
        let (net, after) = train(&mut samples, &validation, &opts, |_, _, _| {});
        assert!(after < before / 2.0, "{before} -> {after}");
        let q = net.quantise();
        let up = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false).expect("fen");
        assert!(evaluate_body(&q, &up) > 100);
    }

    /// A network file of `hidden` neurons: the first `hidden` of `net`'s.
    fn narrow_file(net: &Network, hidden: usize) -> Vec<u8> {
        let full = NetworkParts::from(net);
        let first = |words: &[i16], width: usize| -> Vec<i16> {
            words
                .chunks_exact(width)
                .flat_map(|row| &row[..hidden])
                .copied()
                .collect()
        };
        NetworkParts {
            hidden,
            feature_weights: first(&full.feature_weights, HIDDEN),
            feature_bias: first(&full.feature_bias, HIDDEN),
            output_weights: first(&full.output_weights, HIDDEN),
            ..full
        }
        .to_bytes()
    }

    #[test]
    fn a_narrower_network_is_widened_into_the_same_function() {
        let narrow = HIDDEN / 2;
        // A network whose neurons past `narrow` are silent computes what its
        // first `narrow` neurons alone do.
        let mut net = FloatNet::random(11, 100).quantise();
        for half in net.output_weights.chunks_exact_mut(HIDDEN) {
            half[narrow..].fill(0);
        }
        let parts = NetworkParts::from_bytes(&narrow_file(&net, narrow)).expect("narrow file");
        assert_eq!(parts.hidden, narrow);
        let widened = FloatNet::from_parts(&parts, 5).expect("widens");
        // The new neurons start with feature weights, so training moves them.
        assert!(widened.w1[..HIDDEN][narrow..].iter().any(|&w| w != 0.0));
        let widened = widened.quantise();
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen, false).expect("fen");
            assert_eq!(
                evaluate_body(&widened, &pos),
                evaluate_body(&net, &pos),
                "{fen}"
            );
        }
        // A network wider than this build's is refused, not cut.
        let mut wide = narrow_file(&net, narrow);
        wide[4..8].copy_from_slice(&(2 * HIDDEN as u32).to_le_bytes());
        let extra = file_bytes(2 * HIDDEN) - file_bytes(narrow);
        wide.splice(12..12, std::iter::repeat_n(0, extra));
        let parts = NetworkParts::from_bytes(&wide).expect("parses at its own size");
        assert!(FloatNet::from_parts(&parts, 5).is_err());
    }

    #[test]
    fn a_network_survives_the_float_round_trip() {
        let q = FloatNet::random(11, 100).quantise();
        let back = FloatNet::from_network(&q).quantise();
        assert_eq!(q.to_bytes(), back.to_bytes());
    }
}
