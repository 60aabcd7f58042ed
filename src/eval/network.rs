//! A small efficiently-updatable neural network evaluation ("NNUE"), trained
//! by `guoxiang nnue` (the `nnue_train` tool) on the engine's own
//! self-play positions only.
//!
//! Architecture: `(768 -> HIDDEN) x 2 -> 1`. Each of the 768 inputs is one
//! (piece colour relative to the perspective, piece kind, square) triple,
//! with the board flipped vertically for Black's perspective, so both sides
//! share one feature transformer. The side to move's accumulator comes first
//! in the output layer, the opponent's second. The activation is SCReLU
//! (`clamp(x, 0, 1)^2`).
//!
//! Quantisation: feature weights and biases are scaled by [`QA`], output
//! weights by [`QB`], the output bias by `QA * QB`; the output times
//! [`SCALE`] is centipawns. The search keeps one accumulator pair per ply
//! ([`AccumulatorStack`]) and updates it from the parent's by the pieces that
//! changed, so make-move stays free of network state.
//!
//! A network may also carry a share of the hand-written evaluation: the score
//! is then `P% x evaluate_hce + network`, the network trained for the rest
//! (`guoxiang nnue --hce-percent P`).
//!
//! The network file (`src/eval/net.nnue`, embedded at build time and parsed
//! once, or one chosen with the UCI option `EvalFile` at run time) is: the magic
//! `GXNN`, the hidden size as a little-endian `u32`, the hand-written share
//! `P` as a `u32`, then the feature weights
//! (`768 x HIDDEN` `i16`, input-major), the feature biases (`HIDDEN` `i16`),
//! the output weights (`2 x HIDDEN` `i16`) and the output bias (`i32`), all
//! little-endian.

use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, Piece, PieceKind, Square};
use once_cell::sync::Lazy;
use std::path::Path;
use std::sync::Arc;

/// Inputs of the feature transformer: 2 colours x 6 kinds x 64 squares.
pub const INPUTS: usize = 768;
/// Neurons of the hidden layer (per perspective).
pub const HIDDEN: usize = 256;
/// Quantisation of the feature transformer (its activation range is 0..QA).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Output units to centipawns.
pub const SCALE: i32 = 400;
/// The largest output weight a network file may hold: what the trainer's
/// clipping gives (1.98 x QB), and what keeps `activation x weight` inside
/// an i16 in the output layer.
pub const MAX_OUTPUT_WEIGHT: u16 = 127;
/// The magic at the start of a network file.
pub const MAGIC: &[u8; 4] = b"GXNN";

/// `UseNNUE`'s default: play with the network.
pub const DEFAULT_ENABLED: bool = true;

/// Network scores stay inside this bound, far from mate scores.
pub const MAX_SCORE: i32 = 10_000;

/// The network the engine plays with, embedded at build time.
static EMBEDDED: &[u8] = include_bytes!("net.nnue");

/// The quantised network.
#[repr(C, align(64))]
pub struct Network {
    pub feature_weights: [[i16; HIDDEN]; INPUTS],
    pub feature_bias: [i16; HIDDEN],
    pub output_weights: [i16; 2 * HIDDEN],
    pub output_bias: i32,
    /// The share (percent, 0 to 100) of [`crate::eval::evaluate_hce`] added
    /// to the network's output.
    pub hce_percent: u32,
}

/// The embedded network, parsed once. Read-only: which network a search
/// uses travels with its request (`EvalConfig`), not in process-wide state.
static EMBEDDED_NETWORK: Lazy<Arc<Network>> = Lazy::new(|| {
    // The embedded file is checked by a unit test, so a failure here is a
    // build that shipped a broken network: no outside input reaches this.
    let net = Network::from_bytes(EMBEDDED)
        .expect("the embedded network (src/eval/net.nnue) is malformed");
    Arc::from(net)
});

/// The number of bytes of a network file with `hidden` neurons.
pub const fn file_bytes(hidden: usize) -> usize {
    12 + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4
}

/// The number of bytes of a network file of this build.
pub const FILE_BYTES: usize = file_bytes(HIDDEN);

/// A network file's contents at whatever hidden size it has. The engine
/// plays only its own size ([`Network::from_bytes`]); the trainer also
/// widens a narrower network into it (`guoxiang nnue --init`).
pub struct NetworkParts {
    pub hidden: usize,
    pub hce_percent: u32,
    /// `768 x hidden`, input-major.
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// `2 x hidden`: the side to move's half first.
    pub output_weights: Vec<i16>,
    pub output_bias: i32,
}

impl NetworkParts {
    /// Parses a network file (format in the module docs) of any hidden size
    /// up to 4,096.
    pub fn from_bytes(bytes: &[u8]) -> Result<NetworkParts, String> {
        if bytes.len() < 12 || &bytes[..4] != MAGIC {
            return Err("not a Guoxiang network file (no GXNN magic)".into());
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let hidden = word(4) as usize;
        if hidden == 0 || hidden > 4096 {
            return Err(format!(
                "a hidden layer of {hidden} neurons is not a network of ours"
            ));
        }
        let expected = file_bytes(hidden);
        if bytes.len() != expected {
            return Err(format!(
                "the network file has {} bytes, expected {expected} for {hidden} hidden neurons",
                bytes.len()
            ));
        }
        let hce_percent = word(8);
        if hce_percent > 100 {
            return Err(format!("hand-written share {hce_percent}% is above 100%"));
        }
        let mut words: Vec<i16> = bytes[12..expected - 4]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let output_weights = words.split_off(INPUTS * hidden + hidden);
        let feature_bias = words.split_off(INPUTS * hidden);
        if let Some(w) = output_weights
            .iter()
            .find(|w| w.unsigned_abs() > MAX_OUTPUT_WEIGHT)
        {
            return Err(format!(
                "output weight {w} is outside -{MAX_OUTPUT_WEIGHT}..{MAX_OUTPUT_WEIGHT} (the trainer keeps them inside)"
            ));
        }
        Ok(NetworkParts {
            hidden,
            hce_percent,
            feature_weights: words,
            feature_bias,
            output_weights,
            output_bias: word(expected - 4) as i32,
        })
    }

    /// Writes the file format of the module docs.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_bytes(self.hidden));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        out.extend_from_slice(&self.hce_percent.to_le_bytes());
        let words = self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights);
        for w in words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        out
    }
}

impl From<&Network> for NetworkParts {
    fn from(net: &Network) -> NetworkParts {
        NetworkParts {
            hidden: HIDDEN,
            hce_percent: net.hce_percent,
            feature_weights: net.feature_weights.iter().flatten().copied().collect(),
            feature_bias: net.feature_bias.to_vec(),
            output_weights: net.output_weights.to_vec(),
            output_bias: net.output_bias,
        }
    }
}

impl Network {
    /// Parses a network file (format in the module docs) of this build's
    /// hidden size.
    pub fn from_bytes(bytes: &[u8]) -> Result<Box<Network>, String> {
        let parts = NetworkParts::from_bytes(bytes)?;
        if parts.hidden != HIDDEN {
            return Err(format!(
                "the network has {} hidden neurons, this build expects {HIDDEN}",
                parts.hidden
            ));
        }
        let mut net = Box::new(Network {
            feature_weights: [[0; HIDDEN]; INPUTS],
            feature_bias: [0; HIDDEN],
            output_weights: [0; 2 * HIDDEN],
            output_bias: parts.output_bias,
            hce_percent: parts.hce_percent,
        });
        for (row, words) in net
            .feature_weights
            .iter_mut()
            .zip(parts.feature_weights.chunks_exact(HIDDEN))
        {
            row.copy_from_slice(words);
        }
        net.feature_bias.copy_from_slice(&parts.feature_bias);
        net.output_weights.copy_from_slice(&parts.output_weights);
        Ok(net)
    }

    /// Reads and parses a network file. The size is checked before reading,
    /// so a wrong path to some large file fails fast.
    pub fn load(path: &Path) -> Result<Arc<Network>, String> {
        let shown = path.display();
        let size = std::fs::metadata(path)
            .map_err(|e| format!("cannot read '{shown}': {e}"))?
            .len();
        if size != FILE_BYTES as u64 {
            return Err(format!(
                "'{shown}' has {size} bytes, a network file of this build has {FILE_BYTES}"
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read '{shown}': {e}"))?;
        Network::from_bytes(&bytes)
            .map(Arc::from)
            .map_err(|e| format!("'{shown}': {e}"))
    }

    /// The network built into the binary.
    pub fn embedded() -> Arc<Network> {
        Arc::clone(&EMBEDDED_NETWORK)
    }

    /// This network's score of `pos` in centipawns, from the side to move's
    /// point of view, its share of the hand-written evaluation included.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports AVX2 and POPCNT (checked just above), the
            // only requirement for calling a function compiled with them.
            return unsafe { evaluate_avx2(self, pos) };
        }
        evaluate_full(self, pos)
    }

    /// Writes the network in the file format of the module docs.
    pub fn to_bytes(&self) -> Vec<u8> {
        NetworkParts::from(self).to_bytes()
    }
}

/// The input index of `piece` on `sq` seen from `perspective`: own pieces
/// first, squares flipped vertically for Black.
#[inline(always)]
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let relative = usize::from(piece.color() != perspective);
    let sq = match perspective {
        Color::White => sq.index(),
        Color::Black => sq.index() ^ 56,
    };
    relative * 384 + piece.kind().index() * 64 + sq
}

/// The forward pass plus the network's share of the hand-written evaluation.
#[inline(always)]
fn evaluate_full(net: &Network, pos: &Position) -> i32 {
    hce_share(net, pos) + evaluate_body(net, pos)
}

/// `hce_percent`% of the hand-written evaluation (0 without computing it).
#[inline(always)]
fn hce_share(net: &Network, pos: &Position) -> i32 {
    match net.hce_percent {
        0 => 0,
        p => crate::eval::evaluate_hce(pos) * p as i32 / 100,
    }
}

/// The squares of each coloured piece, indexed by [`Piece::index`].
type PieceSets = [u64; 12];

/// The piece sets of `pos`.
#[inline(always)]
fn piece_sets(pos: &Position) -> PieceSets {
    let mut sets = [0; 12];
    for color in Color::ALL {
        for kind in PieceKind::ALL {
            sets[Piece::new(color, kind).index()] = pos.pieces_of(color, kind).0;
        }
    }
    sets
}

/// The number of (piece, square) features that differ between two positions.
#[inline(always)]
fn differences(a: &PieceSets, b: &PieceSets) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// One ply's accumulators and the pieces they were computed for.
#[derive(Clone)]
struct StackEntry {
    pieces: PieceSets,
    acc: [[i16; HIDDEN]; 2],
    valid: bool,
}

/// Accumulators by search ply, so that a node's accumulators are its
/// parent's plus the few features that changed: the piece bitboards are
/// compared, which covers every kind of move (and a null move) without
/// make-move knowing about the network. An entry left over from another
/// branch is still exact for its own pieces, so a stale parent costs only a
/// few more updates (or a refresh), never a wrong score.
#[derive(Clone)]
pub struct AccumulatorStack {
    /// The network these accumulators belong to.
    net: Arc<Network>,
    entries: Vec<StackEntry>,
}

impl AccumulatorStack {
    /// Empty accumulators for `net`.
    pub fn new(net: Arc<Network>) -> AccumulatorStack {
        AccumulatorStack {
            net,
            entries: vec![
                StackEntry {
                    pieces: [0; 12],
                    acc: [[0; HIDDEN]; 2],
                    valid: false,
                };
                crate::eval::score::MAX_PLY + 4
            ],
        }
    }

    /// The network these accumulators belong to.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }
}

/// [`Network::evaluate`] of the stack's network for the node `ply` plies from
/// the root, reusing the accumulators of `stack` (the same score, less work).
pub fn evaluate_at(pos: &Position, stack: &mut AccumulatorStack, ply: usize) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports AVX2 and POPCNT (checked just above), the
        // only requirement for calling a function compiled with them.
        return unsafe { evaluate_at_avx2(pos, stack, ply) };
    }
    evaluate_at_body(pos, stack, ply)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn evaluate_at_avx2(pos: &Position, stack: &mut AccumulatorStack, ply: usize) -> i32 {
    evaluate_at_body(pos, stack, ply)
}

#[inline(always)]
fn evaluate_at_body(pos: &Position, stack: &mut AccumulatorStack, ply: usize) -> i32 {
    let AccumulatorStack { net, entries } = stack;
    let net: &Network = net;
    let ply = ply.min(entries.len() - 1);
    let now = piece_sets(pos);
    let (before, rest) = entries.split_at_mut(ply);
    let entry = &mut rest[0];
    // Update from the parent's entry or this ply's previous one, whichever
    // is closer; a refresh when that costs more than the pieces on the board.
    let from_parent = before
        .last()
        .filter(|p| p.valid)
        .map(|p| (differences(&p.pieces, &now), p));
    let from_self = entry.valid.then(|| differences(&entry.pieces, &now));
    let refresh_cost = pos.occupied().0.count_ones();
    let old = match (from_parent, from_self) {
        (Some((d, parent)), own) if d < refresh_cost && own.is_none_or(|o| d <= o) => {
            entry.acc = parent.acc;
            Some(parent.pieces)
        }
        (_, Some(d)) if d < refresh_cost => Some(entry.pieces),
        _ => None,
    };
    match old {
        Some(old) => {
            for (index, (was, is)) in old.iter().zip(&now).enumerate() {
                let piece = Piece::from_index(index);
                for sq in Bitboard(was & !is) {
                    remove_piece(net, &mut entry.acc, piece, sq);
                }
                for sq in Bitboard(is & !was) {
                    add_piece(net, &mut entry.acc, piece, sq);
                }
            }
        }
        None => entry.acc = refresh(net, &now),
    }
    entry.pieces = now;
    entry.valid = true;
    let us = pos.side_to_move();
    hce_share(net, pos) + output(net, &entry.acc[us.index()], &entry.acc[(!us).index()])
}

/// [`Network::evaluate`] compiled with AVX2 (and POPCNT for the hand-written part),
/// so that the accumulator sums and the output layer run 16 lanes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn evaluate_avx2(net: &Network, pos: &Position) -> i32 {
    evaluate_full(net, pos)
}

/// The forward pass of `net` on `pos` (side to move's point of view).
#[inline(always)]
pub fn evaluate_body(net: &Network, pos: &Position) -> i32 {
    let acc = refresh(net, &piece_sets(pos));
    let us = pos.side_to_move();
    output(net, &acc[us.index()], &acc[(!us).index()])
}

/// Both perspectives' accumulators (White's first), from scratch.
#[inline(always)]
fn refresh(net: &Network, pieces: &PieceSets) -> [[i16; HIDDEN]; 2] {
    let mut acc = [net.feature_bias; 2];
    for (index, &set) in pieces.iter().enumerate() {
        for sq in Bitboard(set) {
            add_piece(net, &mut acc, Piece::from_index(index), sq);
        }
    }
    acc
}

#[inline(always)]
fn add_piece(net: &Network, acc: &mut [[i16; HIDDEN]; 2], piece: Piece, sq: Square) {
    for perspective in Color::ALL {
        let row = &net.feature_weights[feature(perspective, piece, sq)];
        for (a, w) in acc[perspective.index()].iter_mut().zip(row) {
            *a = a.wrapping_add(*w);
        }
    }
}

#[inline(always)]
fn remove_piece(net: &Network, acc: &mut [[i16; HIDDEN]; 2], piece: Piece, sq: Square) {
    for perspective in Color::ALL {
        let row = &net.feature_weights[feature(perspective, piece, sq)];
        for (a, w) in acc[perspective.index()].iter_mut().zip(row) {
            *a = a.wrapping_sub(*w);
        }
    }
}

/// The output layer on the side to move's (`us`) and the opponent's
/// accumulators, in centipawns.
#[inline(always)]
fn output(net: &Network, us: &[i16; HIDDEN], them: &[i16; HIDDEN]) -> i32 {
    let mut sum: i64 = 0;
    for (acc, weights) in [us, them]
        .into_iter()
        .zip(net.output_weights.chunks_exact(HIDDEN))
    {
        // `c * w` fits an i16 (at most QA * 127 = 32,385: loading checks
        // MAX_OUTPUT_WEIGHT), so it is an i16 product widened once, the form
        // the compiler turns into AVX2's 16-lane `vpmullw` and `vpmaddwd`
        // rather than 8-lane 32-bit multiplies. Per element at most
        // QA * 127 * QA (8.3M), so the sum of HIDDEN of them fits an i32.
        let mut part: i32 = 0;
        for (a, w) in acc.iter().zip(weights) {
            let c = (*a).clamp(0, QA as i16);
            part = part.wrapping_add(i32::from(c.wrapping_mul(*w)) * i32::from(c));
        }
        sum += i64::from(part);
    }
    let out = sum / i64::from(QA) + i64::from(net.output_bias);
    let cp = out * i64::from(SCALE) / i64::from(QA * QB);
    cp.clamp(-i64::from(MAX_SCORE), i64::from(MAX_SCORE)) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded network's score.
    fn evaluate(pos: &Position) -> i32 {
        Network::embedded().evaluate(pos)
    }
    use crate::board::position::START_FEN;

    #[test]
    fn embedded_network_parses_and_round_trips() {
        let net = Network::from_bytes(EMBEDDED).expect("embedded network");
        assert_eq!(net.to_bytes(), EMBEDDED);
    }

    #[test]
    fn network_files_load_from_disk_and_bad_ones_are_refused() {
        let dir = std::env::temp_dir();
        let good = dir.join(format!("guoxiang-nnue-unit-{}.nnue", std::process::id()));
        std::fs::write(&good, EMBEDDED).expect("write");
        let net = Network::load(&good).expect("a copy of the embedded network loads");
        assert_eq!(net.to_bytes(), EMBEDDED);
        let pos = Position::from_fen(START_FEN, false).expect("fen");
        assert_eq!(net.evaluate(&pos), evaluate_full(&EMBEDDED_NETWORK, &pos));
        std::fs::write(&good, &EMBEDDED[..100]).expect("write");
        assert!(Network::load(&good).is_err());
        let _ = std::fs::remove_file(&good);
        assert!(Network::load(&dir.join("guoxiang-no-such-network.nnue")).is_err());
    }

    #[test]
    fn malformed_network_files_are_refused() {
        assert!(Network::from_bytes(b"").is_err());
        assert!(Network::from_bytes(b"XXXX\x80\0\0\0").is_err());
        let mut wrong_size = EMBEDDED.to_vec();
        wrong_size.pop();
        assert!(Network::from_bytes(&wrong_size).is_err());
        let mut wrong_hidden = EMBEDDED.to_vec();
        wrong_hidden[4] ^= 1;
        assert!(Network::from_bytes(&wrong_hidden).is_err());
        let mut share_too_big = EMBEDDED.to_vec();
        share_too_big[8..12].copy_from_slice(&101u32.to_le_bytes());
        assert!(Network::from_bytes(&share_too_big).is_err());
        let first_output_weight = 12 + 2 * (INPUTS * HIDDEN + HIDDEN);
        let mut weight_too_big = EMBEDDED.to_vec();
        weight_too_big[first_output_weight..first_output_weight + 2]
            .copy_from_slice(&128i16.to_le_bytes());
        assert!(Network::from_bytes(&weight_too_big).is_err());
        weight_too_big[first_output_weight..first_output_weight + 2]
            .copy_from_slice(&(-127i16).to_le_bytes());
        assert!(Network::from_bytes(&weight_too_big).is_ok());
    }

    #[test]
    fn features_mirror_between_perspectives() {
        let wp = Piece::new(Color::White, crate::board::types::PieceKind::Pawn);
        let bp = Piece::new(Color::Black, crate::board::types::PieceKind::Pawn);
        let e2 = Square::from_file_rank(4, 1);
        let e7 = Square::from_file_rank(4, 6);
        assert_eq!(feature(Color::White, wp, e2), feature(Color::Black, bp, e7));
        assert_ne!(feature(Color::White, wp, e2), feature(Color::White, bp, e7));
    }

    #[test]
    fn colour_flipped_positions_score_the_same() {
        // The same position with colours swapped and the board flipped,
        // side to move included: the network sees identical inputs.
        let pairs = [
            (
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3",
            ),
            (
                START_FEN,
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
            ),
        ];
        for (a, b) in pairs {
            let a = Position::from_fen(a, false).expect("fen");
            let b = Position::from_fen(b, false).expect("fen");
            assert_eq!(evaluate(&a), evaluate(&b));
            assert_eq!(evaluate(&a), evaluate_full(&Network::embedded(), &a));
        }
    }

    #[test]
    fn incremental_accumulators_match_a_fresh_evaluation() {
        // Walk pseudo-random games (castling, captures, promotions and en
        // passant all occur), jumping back to earlier plies as a search
        // does, so that stale entries are reused too.
        let mut stack = AccumulatorStack::new(Network::embedded());
        // A small LCG is enough to vary the games (the evaluation imports no tools).
        let mut state = 99u64;
        let mut below = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % n
        };
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Position::startpos();
            let mut ply = below(3);
            for _ in 0..120 {
                let moves = crate::board::movegen::legal_moves(&pos);
                if moves.is_empty() {
                    break;
                }
                pos.make_move(moves[below(moves.len())]);
                ply = if below(8) == 0 {
                    below(ply + 1)
                } else {
                    ply + 1
                };
                let ply = ply.min(crate::eval::score::MAX_PLY + 10);
                assert_eq!(
                    evaluate_at(&pos, &mut stack, ply),
                    evaluate(&pos),
                    "{}",
                    pos.to_fen()
                );
                checked += 1;
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn extra_queen_is_good_for_its_owner() {
        let up = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", false).expect("fen");
        let down = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", false).expect("fen");
        assert!(evaluate(&up) > 200, "{}", evaluate(&up));
        assert!(evaluate(&down) < -200, "{}", evaluate(&down));
    }
}
