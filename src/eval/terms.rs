//! Hand-written tapered evaluation.
//!
//! Every term has a middle-game and an end-game value, held together in an
//! [`S`] pair; the two halves are blended by the game phase (non-pawn
//! material: N = B = 1, R = 2, Q = 4, at most 24). The end-game half is first
//! multiplied by a scale factor that recognises drawish endings
//! (opposite-coloured bishops, pawnless small material edges).
//!
//! All weights live in the `const`s of the "Weights" section at the top of
//! this file, one named item per term, written as plain integer literals, so
//! a Texel tuner can later parse and rewrite them mechanically. The tables
//! are written from White's point of view in board layout (the first row is
//! the eighth rank) and mirrored for Black.
//!
//! [`evaluate`] computes every attack map once per call and allocates nothing
//! but each thread's pawn cache, on its first call. [`evaluate_verbose`]
//! prints the same terms one by one; [`trace`] records which weights a
//! position uses, for the tuner (the `tune` tool; see the "Tuning support"
//! section below). Any new weight goes into the
//! `tunables!` list there, and every use of it reports to the tracer, or the
//! test `trace_reproduces_evaluate` fails.

use crate::board::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, PieceKind, Square};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A (middle-game, end-game) pair of centipawn values.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl S {
    pub const ZERO: S = S(0, 0);

    #[inline(always)]
    pub const fn mg(self) -> i32 {
        self.0
    }

    #[inline(always)]
    pub const fn eg(self) -> i32 {
        self.1
    }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

// ===========================================================================
// Weights (tunable). Keep every value a plain integer literal.
// ===========================================================================

// ----- material -----
pub const PAWN_VALUE: S = S(78, 107);
pub const KNIGHT_VALUE: S = S(346, 318);
pub const BISHOP_VALUE: S = S(352, 340);
pub const ROOK_VALUE: S = S(479, 552);
pub const QUEEN_VALUE: S = S(983, 1013);

// ----- piece-square tables (White's view, a8 first, h1 last) -----
#[rustfmt::skip]
pub const PAWN_PST_MG: [i32; 64] = [
      0,   0,   0,   0,   0,   0,   0,   0,
     40,  45,  34,  45,  46,  35,  45,  39,
     13,  12,  20,  27,  28,  21,  15,  10,
      0,   9,   7,  17,  20,   5,   7,  -4,
     -4,  -2,   7,  15,  15,  11,   1,  -6,
      0,  -2,   1,   5,   2,   2,   3,  -6,
    -10,   2,  -1, -10, -14,   9,   3,  -3,
      0,   0,   0,   0,   0,   0,   0,   0,
];
#[rustfmt::skip]
pub const PAWN_PST_EG: [i32; 64] = [
      0,   0,   0,   0,   0,   0,   0,   0,
     43,  45,  38,  36,  37,  40,  45,  42,
     25,  22,  23,  16,  16,  22,  25,  24,
      7,  14,   2,   0,   2,   3,  14,   7,
      8,   3,   0,  -1,  -8,   0,   2,  -2,
      4,  -3,   0,  -1,   3,  -5,  -3,  -2,
      4,   5,   2,   3,   1,   6,   1,   5,
      0,   0,   0,   0,   0,   0,   0,   0,
];
#[rustfmt::skip]
pub const KNIGHT_PST_MG: [i32; 64] = [
    -90, -40, -30, -25, -25, -30, -40, -90,
    -35, -18,   0,   5,   5,   0, -18, -35,
    -20,   4,  15,  24,  21,  16,   5, -20,
    -15,   9,  21,  29,  30,  22,  10, -14,
    -19,   1,  12,  20,  23,  13,   3, -17,
    -26,  -1,   1,  10,  11,  12,  -1, -24,
    -36, -19,  -5,   7,  -3,  -3, -20, -34,
    -70, -23, -31, -21, -21, -30, -28, -70,
];
#[rustfmt::skip]
pub const KNIGHT_PST_EG: [i32; 64] = [
    -60, -40, -28, -22, -22, -28, -40, -60,
    -35, -18,  -8,   0,   0,  -8, -18, -35,
    -25,  -6,   7,  13,  11,   8,  -5, -25,
    -19,   1,  17,  20,  20,  15,   0, -20,
    -19,  -1,   9,  15,  19,  13,   0, -19,
    -25,  -9,   4,   8,   9,   5,  -7, -24,
    -38, -20, -11,   0,  -5,  -7, -20, -37,
    -55, -39, -29, -21, -22, -27, -40, -55,
];
#[rustfmt::skip]
pub const BISHOP_PST_MG: [i32; 64] = [
    -25, -10, -15, -18, -18, -15, -10, -25,
    -15,  -5,   0,  -5,  -5,   0,  -5, -15,
     -8,   7,  10,   6,   8,  11,   6, -10,
     -6,   8,   8,  15,  16,   8,   7,  -7,
     -2,   3,   9,  16,  15,   4,   3,  -4,
     -5,  11,   8,   8,  14,   7,   8,   1,
     -6,  13,   5,   3,   2,   8,  17,  -6,
    -17,  -3,  -5,  -8,  -8,  -6,  -4, -19,
];
#[rustfmt::skip]
pub const BISHOP_PST_EG: [i32; 64] = [
    -18, -12,  -8,  -7,  -6,  -8, -12, -18,
    -10,  -1,   1,   2,   2,  -1,  -3, -10,
     -6,   3,   8,   5,   6,   7,   1,  -6,
     -4,   5,   9,   8,  12,   7,   5,  -4,
     -4,   4,   9,   9,   8,   7,   3,  -5,
     -7,   3,   4,   9,  10,   5,   1,  -3,
    -10,  -6,   0,   2,   3,   1,   0, -11,
    -16, -10,  -8,  -6,  -7,  -6, -10, -17,
];
#[rustfmt::skip]
pub const ROOK_PST_MG: [i32; 64] = [
     10,  12,  14,  15,  16,  14,  12,  10,
     15,  22,  27,  28,  27,  26,  22,  18,
     -1,   4,   7,  10,   8,   6,   4,  -2,
     -6,  -5,   0,   3,   4,  -1,  -4,  -8,
    -10,  -8,  -4,   0,   0,  -3,  -9, -12,
    -12, -10,  -4,  -4,  -1,  -5, -10, -15,
    -18,  -9,  -4,  -4,  -3,  -6,  -9, -19,
    -13,  -9,   0,   2,  14,   2,  -6, -14,
];
#[rustfmt::skip]
pub const ROOK_PST_EG: [i32; 64] = [
     11,  10,  10,  10,  10,  10,  11,  11,
     12,  14,  16,  14,  14,  14,  14,  12,
      9,   5,   8,   9,   5,   7,   7,   7,
      5,   1,   3,   1,   3,   2,   2,   2,
      1,  -1,   2,   1,   0,   1,   1,   1,
     -2,  -3,  -2,  -3,  -2,  -1,  -1,  -3,
     -8,  -3,  -5,  -6,  -5,  -4,  -3,  -7,
     -7,  -7,   0,  -2,   0,  -6,  -3,  -6,
];
#[rustfmt::skip]
pub const QUEEN_PST_MG: [i32; 64] = [
    -20, -10,  -8,  -4,  -4,  -8, -10, -20,
    -13, -17,  -3,   0,   0,  -4, -16, -12,
     -8,  -5,   2,   4,   4,   2,  -4,  -9,
     -6,  -4,   3,   3,   5,   1,  -3,  -3,
     -3,   1,   2,   5,   6,   2,   0,  -4,
     -7,   1,   3,   4,   2,   3,   2,  -4,
    -10,   1,   4,   4,   5,   3,   0, -10,
    -16, -14,  -3,   2,   1,  -6, -12, -16,
];
#[rustfmt::skip]
pub const QUEEN_PST_EG: [i32; 64] = [
    -20, -10,  -6,  -2,  -2,  -6, -10, -20,
    -10,   0,   6,  10,  10,   6,   0, -10,
     -5,   6,  12,  16,  16,  12,   6,  -6,
     -4,   8,  16,  23,  23,  16,   9,  -3,
     -4,   8,  17,  22,  22,  16,   8,  -4,
     -6,   5,  10,  13,  14,  10,   4,  -5,
    -12,  -4,   1,   2,   4,   0,  -4, -12,
    -22, -14,  -9,  -7,  -6, -10, -14, -22,
];
#[rustfmt::skip]
pub const KING_PST_MG: [i32; 64] = [
    -60, -60, -65, -70, -70, -65, -60, -60,
    -55, -55, -60, -65, -65, -60, -55, -55,
    -50, -50, -55, -60, -60, -55, -50, -50,
    -45, -45, -50, -55, -55, -50, -45, -45,
    -35, -40, -45, -50, -50, -45, -40, -35,
    -20, -25, -30, -41, -40, -29, -25, -20,
     11,  11, -10, -24, -25, -12,  12,   9,
     21,  35,  12, -15,   2, -14,  40,  25,
];
#[rustfmt::skip]
pub const KING_PST_EG: [i32; 64] = [
    -70, -40, -30, -25, -25, -30, -40, -71,
    -35, -10,   0,   5,   5,   0, -10, -36,
    -24,   6,  18,  25,  25,  19,   6, -26,
    -21,   7,  22,  28,  28,  22,   4, -22,
    -24,  -1,  17,  27,  25,  19,  -1, -27,
    -30, -10,   5,  11,  14,  10,  -6, -30,
    -39, -18,  -8,  -2,   0,  -7, -17, -38,
    -63, -45, -32, -27, -28, -35, -42, -63,
];

// ----- mobility: index = attacked squares not holding own pieces and not
// attacked by enemy pawns -----
pub const KNIGHT_MOBILITY: [S; 9] = [
    S(-39, -50),
    S(-17, -27),
    S(-5, -10),
    S(4, 3),
    S(10, 10),
    S(17, 15),
    S(22, 20),
    S(26, 15),
    S(26, 12),
];
pub const BISHOP_MOBILITY: [S; 14] = [
    S(-33, -44),
    S(-16, -27),
    S(-6, -11),
    S(3, -3),
    S(11, 8),
    S(19, 13),
    S(20, 20),
    S(24, 25),
    S(26, 24),
    S(29, 28),
    S(31, 29),
    S(34, 34),
    S(35, 33),
    S(38, 36),
];
pub const ROOK_MOBILITY: [S; 15] = [
    S(-29, -55),
    S(-14, -29),
    S(-4, -11),
    S(1, 0),
    S(2, 7),
    S(3, 14),
    S(0, 26),
    S(6, 30),
    S(10, 36),
    S(16, 42),
    S(19, 47),
    S(19, 49),
    S(22, 51),
    S(23, 53),
    S(24, 51),
];
pub const QUEEN_MOBILITY: [S; 28] = [
    S(-20, -40),
    S(-14, -30),
    S(-9, -22),
    S(-5, -15),
    S(0, -9),
    S(-1, -4),
    S(-1, 0),
    S(1, 4),
    S(7, 7),
    S(11, 13),
    S(10, 15),
    S(10, 18),
    S(14, 21),
    S(15, 25),
    S(16, 27),
    S(18, 29),
    S(18, 31),
    S(18, 33),
    S(19, 34),
    S(20, 35),
    S(21, 36),
    S(22, 37),
    S(22, 38),
    S(23, 38),
    S(23, 40),
    S(24, 40),
    S(24, 41),
    S(25, 41),
];

// ----- pawn structure -----
pub const ISOLATED_PAWN: S = S(-4, -11);
pub const DOUBLED_PAWN: S = S(-9, -23);
pub const BACKWARD_PAWN: S = S(-13, -10);
/// Per defending pawn.
pub const SUPPORTED_PAWN: S = S(7, 0);
/// By relative rank, for a pawn that is supported or has a phalanx neighbour.
pub const CONNECTED_PAWN: [S; 8] = [
    S(0, 0),
    S(5, 2),
    S(10, 8),
    S(7, 8),
    S(10, 9),
    S(29, 30),
    S(48, 42),
    S(0, 0),
];
/// Passed pawn by relative rank.
pub const PASSED_PAWN: [S; 8] = [
    S(0, 0),
    S(-1, 10),
    S(2, 13),
    S(10, 24),
    S(24, 47),
    S(44, 78),
    S(79, 124),
    S(0, 0),
];
/// Extra for a passed pawn whose squares up to promotion are empty.
pub const PASSED_FREE_PATH: [S; 8] = [
    S(0, 0),
    S(-1, 2),
    S(0, 4),
    S(2, 11),
    S(5, 18),
    S(9, 31),
    S(14, 44),
    S(0, 0),
];
/// Extra again when no enemy piece or pawn attacks that empty path.
pub const PASSED_SAFE_PATH: [S; 8] = [
    S(0, 0),
    S(0, 2),
    S(0, 5),
    S(1, 8),
    S(4, 15),
    S(9, 27),
    S(12, 41),
    S(0, 0),
];
/// Candidate passed pawn by relative rank: no pawn ahead on its file, and at
/// least as many own pawns beside or behind it on the neighbouring files as
/// enemy pawns ahead on them, so trading them off would leave it passed.
/// Zero until a tune on own data sets it.
pub const CANDIDATE_PASSED: [S; 8] = [
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
];
/// End-game bonus per square of enemy-king distance to the square in front of
/// a passed pawn, times (relative rank - 2).
pub const PASSED_KING_THEIRS: i32 = 11;
/// End-game penalty per square of own-king distance to that square, times
/// (relative rank - 2).
pub const PASSED_KING_OURS: i32 = 8;

// ----- pieces -----
pub const BISHOP_PAIR: S = S(34, 55);
pub const ROOK_OPEN_FILE: S = S(23, 5);
pub const ROOK_SEMI_OPEN_FILE: S = S(12, 13);
/// Rook on the seventh rank with the enemy king on the eighth or enemy pawns on the seventh.
pub const ROOK_ON_SEVENTH: S = S(7, 24);
/// Minor on relative ranks 4-6, defended by a pawn, not attackable by enemy pawns.
pub const KNIGHT_OUTPOST: S = S(21, 10);
pub const BISHOP_OUTPOST: S = S(12, 5);

// ----- threats (bonus for the attacking side) -----
/// Enemy piece attacked by one of our pawns, by its kind.
pub const THREAT_BY_PAWN: [S; 6] = [S(0, 0), S(46, 30), S(46, 30), S(60, 30), S(54, 30), S(0, 0)];
pub const THREAT_MINOR_ON_ROOK: S = S(38, 25);
pub const THREAT_MINOR_ON_QUEEN: S = S(35, 25);
pub const THREAT_ROOK_ON_QUEEN: S = S(36, 15);
/// Enemy piece (not pawn, not king) attacked by us and not defended at all.
pub const HANGING_PIECE: S = S(25, 14);

// ----- king safety -----
/// Attack units per attacked king-zone square, by attacker kind.
pub const KING_ATTACK_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];
/// Attack units when the attacker kind has a safe checking square.
pub const SAFE_CHECK_UNITS: [i32; 6] = [0, 6, 4, 7, 6, 0];
/// Middle-game penalty = min(units^2 * KING_DANGER_QUADRATIC / 16, KING_DANGER_MAX)
/// once at least two pieces take part.
pub const KING_DANGER_QUADRATIC: i32 = 2;
pub const KING_DANGER_MAX: i32 = 500;
/// End-game penalty per attack unit.
pub const KING_DANGER_EG: i32 = 2;
/// Attack units are divided by this when the attacker has no queen.
pub const KING_DANGER_NO_QUEEN_DIV: i32 = 2;
/// Pawn shield, per file around the king: own pawn one or two ranks ahead,
/// farther ahead, or missing altogether.
pub const SHIELD_PAWN_NEAR: S = S(9, -5);
pub const SHIELD_PAWN_FAR: S = S(6, -6);
pub const SHIELD_PAWN_DISTANT: S = S(-11, -2);
pub const SHIELD_PAWN_MISSING: S = S(-12, 8);
/// Files on or next to the king without own pawns (semi-open) or without any pawn (open).
pub const KING_SEMI_OPEN_FILE: S = S(-9, 4);
pub const KING_OPEN_FILE: S = S(-22, -12);
/// Pawn storm, per file on or next to the king: the enemy pawn nearest the
/// king ahead of it on that file, by that pawn's rank relative to the king's
/// side; `BLOCKED_STORM` when an own pawn stands right in front of it. Zero
/// until a tune on own data sets them.
pub const PAWN_STORM: [S; 8] = [
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
];
pub const BLOCKED_STORM: [S; 8] = [
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
    S(0, 0),
];

// ----- misc -----
pub const TEMPO: S = S(14, 5);
/// End-game bonus driving a bare king to the edge and the kings together.
pub const MOPUP_EDGE: i32 = 9;
pub const MOPUP_CLOSE: i32 = 2;
/// Extra for KBN v K: driving the king to a corner of the bishop's colour.
pub const MOPUP_BN_CORNER: i32 = 11;

// ----- end-game scaling (out of SCALE_NORMAL) -----
pub const SCALE_NORMAL: i32 = 128;
/// Only bishops (one each, opposite colours) and pawns.
pub const SCALE_OCB: i32 = 48;
/// Opposite-coloured bishops plus other pieces.
pub const SCALE_OCB_PIECES: i32 = 104;
/// Stronger side has no pawns and a non-pawn edge below NO_PAWN_EDGE.
pub const SCALE_NO_PAWNS_SMALL_EDGE: i32 = 16;
/// ... and besides that only one minor piece: cannot win.
pub const SCALE_NO_PAWNS_MINOR: i32 = 0;
/// Non-pawn material edge (middle-game values) below which a pawnless side cannot force a win.
pub const NO_PAWN_EDGE: i32 = 400;

// ----- phase -----
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const PHASE_MAX: i32 = 24;

// ===========================================================================
// Derived tables (built at compile time)
// ===========================================================================

const MATERIAL: [S; 6] = [
    PAWN_VALUE,
    KNIGHT_VALUE,
    BISHOP_VALUE,
    ROOK_VALUE,
    QUEEN_VALUE,
    S(0, 0),
];

/// Material plus piece-square value, indexed `[kind][square as seen by its owner]` (a1 = 0).
const PSQ: [[S; 64]; 6] = build_psq();

const fn build_psq() -> [[S; 64]; 6] {
    let mg: [&[i32; 64]; 6] = [
        &PAWN_PST_MG,
        &KNIGHT_PST_MG,
        &BISHOP_PST_MG,
        &ROOK_PST_MG,
        &QUEEN_PST_MG,
        &KING_PST_MG,
    ];
    let eg: [&[i32; 64]; 6] = [
        &PAWN_PST_EG,
        &KNIGHT_PST_EG,
        &BISHOP_PST_EG,
        &ROOK_PST_EG,
        &QUEEN_PST_EG,
        &KING_PST_EG,
    ];
    let mut t = [[S(0, 0); 64]; 6];
    let mut k = 0;
    while k < 6 {
        let mut sq = 0;
        while sq < 64 {
            // Tables are written with a8 first: flip the rank.
            t[k][sq] = S(
                MATERIAL[k].0 + mg[k][sq ^ 56],
                MATERIAL[k].1 + eg[k][sq ^ 56],
            );
            sq += 1;
        }
        k += 1;
    }
    t
}

/// `[color][rank]`: every square on ranks strictly ahead of `rank` for `color`.
const FORWARD_RANKS: [[u64; 8]; 2] = build_forward_ranks();

const fn build_forward_ranks() -> [[u64; 8]; 2] {
    let mut t = [[0u64; 8]; 2];
    let mut r = 0;
    while r < 8 {
        t[0][r] = if r == 7 { 0 } else { !0u64 << (8 * (r + 1)) };
        t[1][r] = if r == 0 { 0 } else { !0u64 >> (8 * (8 - r)) };
        r += 1;
    }
    t
}

/// The files next to `file` (not the file itself).
const ADJACENT_FILES: [u64; 8] = build_adjacent_files();

const fn build_adjacent_files() -> [u64; 8] {
    let mut t = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        let mut m = 0u64;
        if f > 0 {
            m |= Bitboard::FILE_A.0 << (f - 1);
        }
        if f < 7 {
            m |= Bitboard::FILE_A.0 << (f + 1);
        }
        t[f] = m;
        f += 1;
    }
    t
}

// ===========================================================================
// Helpers
// ===========================================================================

#[inline(always)]
fn forward_ranks(color: Color, sq: Square) -> Bitboard {
    Bitboard(FORWARD_RANKS[color.index()][sq.rank() as usize])
}

#[inline(always)]
fn adjacent_files(file: u8) -> Bitboard {
    Bitboard(ADJACENT_FILES[file as usize])
}

#[inline(always)]
fn pawn_attack_span(color: Color, pawns: Bitboard) -> Bitboard {
    let west = pawns.0 & !Bitboard::FILE_A.0;
    let east = pawns.0 & !Bitboard::FILE_H.0;
    match color {
        Color::White => Bitboard((west << 7) | (east << 9)),
        Color::Black => Bitboard((west >> 9) | (east >> 7)),
    }
}

#[inline(always)]
fn push(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => b.north(),
        Color::Black => b.south(),
    }
}

#[inline(always)]
fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

#[inline(always)]
fn manhattan(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs() + (a.rank() as i32 - b.rank() as i32).abs()
}

/// Manhattan distance from the four centre squares (0..=6).
#[inline(always)]
fn center_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    (3 - f).max(f - 4) + (3 - r).max(r - 4)
}

/// The square of `b` nearest to `color`'s eighth rank (b non-empty).
#[inline(always)]
fn frontmost(color: Color, b: Bitboard) -> Square {
    match color {
        Color::White => Square::new(63 - b.0.leading_zeros() as u8),
        Color::Black => b.lsb(),
    }
}

/// The square of `b` nearest to `color`'s first rank (b non-empty).
#[inline(always)]
fn rearmost(color: Color, b: Bitboard) -> Square {
    frontmost(!color, b)
}

#[inline(always)]
fn count(b: Bitboard) -> i32 {
    b.count() as i32
}

// ===========================================================================
// Evaluation
// ===========================================================================

/// The per-side value of each term, from that side's own point of view.
#[derive(Clone, Copy, Debug, Default)]
struct Terms {
    material_psq: [S; 2],
    mobility: [S; 2],
    pawns: [S; 2],
    passed: [S; 2],
    pieces: [S; 2],
    threats: [S; 2],
    king_safety: [S; 2],
    mopup: [S; 2],
    tempo: [S; 2],
}

impl Terms {
    #[inline(always)]
    fn total(&self) -> S {
        let all = [
            self.material_psq,
            self.mobility,
            self.pawns,
            self.passed,
            self.pieces,
            self.threats,
            self.king_safety,
            self.mopup,
            self.tempo,
        ];
        let mut s = S::ZERO;
        for t in all {
            s += t[0] - t[1];
        }
        s
    }
}

/// The result of one evaluation, White's point of view unless stated.
#[derive(Clone, Copy, Debug, Default)]
struct Breakdown {
    terms: Terms,
    /// Sum of all terms, White minus Black.
    total: S,
    phase: i32,
    scale: i32,
    /// Blended score, White's point of view.
    white: i32,
}

struct Ctx {
    occ: Bitboard,
    pawns: [Bitboard; 2],
    pawn_att: [Bitboard; 2],
    king: [Square; 2],
    king_zone: [Bitboard; 2],
    /// Squares attacked by `[color][kind]`.
    att: [[Bitboard; 6]; 2],
    /// Squares attacked by any piece of a colour.
    all_att: [Bitboard; 2],
    /// Attack units and attacker counts against each colour's king.
    ks_units: [i32; 2],
    ks_attackers: [i32; 2],
}

/// The hand-written evaluation, in centipawns from the side to move's
/// point of view; exactly 0 for dead positions.
pub fn evaluate_hce(pos: &Position) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports POPCNT (checked just above), the only
        // requirement for calling a function compiled with that feature.
        return unsafe { evaluate_popcnt(pos) };
    }
    evaluate_body(pos)
}

/// [`evaluate`] compiled with the POPCNT instruction: mobility and king
/// attacks count bits all the time, and the portable bit count is several
/// instructions long (see README, search speed).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn evaluate_popcnt(pos: &Position) -> i32 {
    evaluate_body(pos)
}

#[inline(always)]
fn evaluate_body(pos: &Position) -> i32 {
    if pos.is_dead_position() {
        return 0;
    }
    let b = breakdown(pos);
    match pos.side_to_move() {
        Color::White => b.white,
        Color::Black => -b.white,
    }
}

/// Game phase: 24 with all pieces on the board, 0 with only kings and pawns.
#[inline]
pub fn phase(pos: &Position) -> i32 {
    let mut p = 0;
    for kind in [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ] {
        p += PHASE_WEIGHT[kind.index()] * count(pos.pieces(kind));
    }
    p.min(PHASE_MAX)
}

#[inline(always)]
fn breakdown(pos: &Position) -> Breakdown {
    breakdown_with(pos, &mut NoTrace)
}

/// The evaluation proper; `tr` sees every tunable weight it uses (see
/// [`Tracer`]). With [`NoTrace`] this compiles to exactly the plain evaluation.
#[inline(always)]
fn breakdown_with<T: Tracer>(pos: &Position, tr: &mut T) -> Breakdown {
    let occ = pos.occupied();
    let pawns = [
        pos.pieces_of(Color::White, PieceKind::Pawn),
        pos.pieces_of(Color::Black, PieceKind::Pawn),
    ];
    let pawn_att = [
        pawn_attack_span(Color::White, pawns[0]),
        pawn_attack_span(Color::Black, pawns[1]),
    ];
    let king = [pos.king_square(Color::White), pos.king_square(Color::Black)];
    let mut king_zone = [Bitboard::EMPTY; 2];
    for c in Color::ALL {
        let ring = king_attacks(king[c.index()]) | Bitboard::from_square(king[c.index()]);
        king_zone[c.index()] = ring | push(c, ring);
    }
    let mut ctx = Ctx {
        occ,
        pawns,
        pawn_att,
        king,
        king_zone,
        att: [[Bitboard::EMPTY; 6]; 2],
        all_att: [Bitboard::EMPTY; 2],
        ks_units: [0; 2],
        ks_attackers: [0; 2],
    };
    let mut t = Terms::default();

    for c in Color::ALL {
        pieces(pos, &mut ctx, &mut t, c, tr);
    }
    for c in Color::ALL {
        let i = c.index();
        ctx.att[i][PieceKind::Pawn.index()] = ctx.pawn_att[i];
        ctx.att[i][PieceKind::King.index()] = king_attacks(ctx.king[i]);
        let mut all = Bitboard::EMPTY;
        for a in ctx.att[i] {
            all |= a;
        }
        ctx.all_att[i] = all;
    }
    // The tracer must see every pawn weight, so it never takes the cache.
    let pawn_terms = if T::ON {
        pawn_entry(&ctx, tr)
    } else {
        cached_pawn_entry(&ctx)
    };
    for c in Color::ALL {
        pawn_structure(&ctx, &pawn_terms, &mut t, c, tr);
        king_safety(pos, &ctx, &mut t, c, tr);
        threats(pos, &ctx, &mut t, c, tr);
    }
    mopup(pos, &ctx, &mut t, tr);
    t.tempo[pos.side_to_move().index()] = TEMPO;
    if T::ON {
        tr.pair(idx::TEMPO, pos.side_to_move(), 1);
    }

    let total = t.total();
    let phase = phase(pos);
    let scale = scale_factor(pos, total.eg());
    let eg = total.eg() * scale / SCALE_NORMAL;
    let white = (total.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    Breakdown {
        terms: t,
        total,
        phase,
        scale,
        white,
    }
}

/// Material, piece-square, mobility, king attacks and the piece terms.
#[inline(always)]
fn pieces<T: Tracer>(pos: &Position, ctx: &mut Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let own = pos.colored(us);
    let occ = ctx.occ;
    let mob_area = !own & !ctx.pawn_att[th];
    let zone = ctx.king_zone[th];
    let our_pawns = ctx.pawns[u];
    let their_pawns = ctx.pawns[th];
    let queens = pos.pieces_of(us, PieceKind::Queen);
    let rooks = pos.pieces_of(us, PieceKind::Rook);

    let mut psq = S::ZERO;
    let mut mob = S::ZERO;
    let mut extra = S::ZERO;
    let mut units = 0;
    let mut attackers = 0;

    // Pawns and king: only material/PSQ here, the rest comes later.
    for sq in our_pawns {
        psq += PSQ[PieceKind::Pawn.index()][sq.relative(us).index()];
        if T::ON {
            trace_psq(tr, PieceKind::Pawn, sq, us);
        }
    }
    psq += PSQ[PieceKind::King.index()][ctx.king[u].relative(us).index()];
    if T::ON {
        trace_psq(tr, PieceKind::King, ctx.king[u], us);
    }

    let outpost_ok = |sq: Square| -> bool {
        let rr = sq.relative_rank(us);
        (3..=5).contains(&rr)
            && ctx.pawn_att[u].contains(sq)
            && (their_pawns & adjacent_files(sq.file()) & forward_ranks(us, sq)).is_empty()
    };

    let mut att_n = Bitboard::EMPTY;
    for sq in pos.pieces_of(us, PieceKind::Knight) {
        psq += PSQ[PieceKind::Knight.index()][sq.relative(us).index()];
        if T::ON {
            trace_psq(tr, PieceKind::Knight, sq, us);
        }
        let a = knight_attacks(sq);
        att_n |= a;
        mob += KNIGHT_MOBILITY[(a & mob_area).count() as usize];
        if T::ON {
            tr.pair(
                idx::KNIGHT_MOBILITY + 2 * (a & mob_area).count() as usize,
                us,
                1,
            );
        }
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Knight.index()] * count(z);
            attackers += 1;
        }
        if outpost_ok(sq) {
            extra += KNIGHT_OUTPOST;
            if T::ON {
                tr.pair(idx::KNIGHT_OUTPOST, us, 1);
            }
        }
    }

    let bishops = pos.pieces_of(us, PieceKind::Bishop);
    let mut att_b = Bitboard::EMPTY;
    for sq in bishops {
        psq += PSQ[PieceKind::Bishop.index()][sq.relative(us).index()];
        if T::ON {
            trace_psq(tr, PieceKind::Bishop, sq, us);
        }
        let a = bishop_attacks(sq, occ ^ queens);
        att_b |= a;
        mob += BISHOP_MOBILITY[(a & mob_area).count() as usize];
        if T::ON {
            tr.pair(
                idx::BISHOP_MOBILITY + 2 * (a & mob_area).count() as usize,
                us,
                1,
            );
        }
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Bishop.index()] * count(z);
            attackers += 1;
        }
        if outpost_ok(sq) {
            extra += BISHOP_OUTPOST;
            if T::ON {
                tr.pair(idx::BISHOP_OUTPOST, us, 1);
            }
        }
    }
    if bishops.more_than_one() {
        extra += BISHOP_PAIR;
        if T::ON {
            tr.pair(idx::BISHOP_PAIR, us, 1);
        }
    }

    let mut att_r = Bitboard::EMPTY;
    for sq in rooks {
        psq += PSQ[PieceKind::Rook.index()][sq.relative(us).index()];
        if T::ON {
            trace_psq(tr, PieceKind::Rook, sq, us);
        }
        let a = rook_attacks(sq, occ ^ queens ^ rooks);
        att_r |= a;
        mob += ROOK_MOBILITY[(a & mob_area).count() as usize];
        if T::ON {
            tr.pair(
                idx::ROOK_MOBILITY + 2 * (a & mob_area).count() as usize,
                us,
                1,
            );
        }
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Rook.index()] * count(z);
            attackers += 1;
        }
        let file = Bitboard::file(sq.file());
        if (our_pawns & file).is_empty() {
            extra += if (their_pawns & file).is_empty() {
                ROOK_OPEN_FILE
            } else {
                ROOK_SEMI_OPEN_FILE
            };
            if T::ON {
                let at = if (their_pawns & file).is_empty() {
                    idx::ROOK_OPEN_FILE
                } else {
                    idx::ROOK_SEMI_OPEN_FILE
                };
                tr.pair(at, us, 1);
            }
        }
        if sq.relative_rank(us) == 6
            && ((their_pawns & Bitboard::rank(sq.rank())).nonempty()
                || ctx.king[th].relative_rank(us) == 7)
        {
            extra += ROOK_ON_SEVENTH;
            if T::ON {
                tr.pair(idx::ROOK_ON_SEVENTH, us, 1);
            }
        }
    }

    let mut att_q = Bitboard::EMPTY;
    for sq in queens {
        psq += PSQ[PieceKind::Queen.index()][sq.relative(us).index()];
        if T::ON {
            trace_psq(tr, PieceKind::Queen, sq, us);
        }
        let a = bishop_attacks(sq, occ) | rook_attacks(sq, occ);
        att_q |= a;
        mob += QUEEN_MOBILITY[(a & mob_area).count() as usize];
        if T::ON {
            tr.pair(
                idx::QUEEN_MOBILITY + 2 * (a & mob_area).count() as usize,
                us,
                1,
            );
        }
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Queen.index()] * count(z);
            attackers += 1;
        }
    }

    ctx.att[u][PieceKind::Knight.index()] = att_n;
    ctx.att[u][PieceKind::Bishop.index()] = att_b;
    ctx.att[u][PieceKind::Rook.index()] = att_r;
    ctx.att[u][PieceKind::Queen.index()] = att_q;
    ctx.ks_units[th] += units;
    ctx.ks_attackers[th] += attackers;
    t.material_psq[u] = psq;
    t.mobility[u] = mob;
    t.pieces[u] = extra;
}

/// What the pawns alone decide: the structure terms and which pawns are
/// passed. Kept per thread in [`PAWN_CACHE`], since the pawns change on few
/// moves and a search meets the same structures over and over.
#[derive(Clone, Copy, Debug, Default)]
struct PawnEntry {
    /// The cache key: both sides' pawns exactly, so a hit is never wrong.
    /// The empty default is the true entry of a pawnless board.
    pawns: [Bitboard; 2],
    structure: [S; 2],
    /// Each side's passed pawns: no enemy pawn ahead on its own or a
    /// neighbouring file, and no own pawn in front of it.
    passed: [Bitboard; 2],
}

/// Number of [`PawnEntry`] slots per thread (48 bytes each).
const PAWN_CACHE_SLOTS: usize = 1 << 12;

thread_local! {
    /// Per-thread pawn cache: search threads, datagen and tuner workers each
    /// have their own, so no locking.
    static PAWN_CACHE: RefCell<Box<[PawnEntry]>> =
        RefCell::new(vec![PawnEntry::default(); PAWN_CACHE_SLOTS].into_boxed_slice());
}

/// The pawn entry of `ctx`'s pawns, from this thread's cache or computed and stored.
fn cached_pawn_entry(ctx: &Ctx) -> PawnEntry {
    let slot = pawn_cache_slot(ctx.pawns);
    PAWN_CACHE.with(|cache| {
        let entry = &mut cache.borrow_mut()[slot];
        if entry.pawns != ctx.pawns {
            *entry = pawn_entry(ctx, &mut NoTrace);
        }
        *entry
    })
}

/// The cache slot of a pawn configuration (White's and Black's pawns).
fn pawn_cache_slot([white, black]: [Bitboard; 2]) -> usize {
    let mixed = (white.0 ^ black.0.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - PAWN_CACHE_SLOTS.trailing_zeros())) as usize
}

/// Computes the pawn entry: isolated, backward, doubled and connected pawns
/// of both sides, and the passed pawns.
#[inline(always)]
fn pawn_entry<T: Tracer>(ctx: &Ctx, tr: &mut T) -> PawnEntry {
    let mut entry = PawnEntry {
        pawns: ctx.pawns,
        ..PawnEntry::default()
    };
    for us in Color::ALL {
        let them = !us;
        let u = us.index();
        let ours = ctx.pawns[u];
        let theirs = ctx.pawns[them.index()];
        let mut structure = S::ZERO;

        for sq in ours {
            let rr = sq.relative_rank(us) as usize;
            let file = Bitboard::file(sq.file());
            let adj = adjacent_files(sq.file());
            let ahead = forward_ranks(us, sq);
            let front = ahead & file;
            let stop = push(us, Bitboard::from_square(sq));

            let supporters = pawn_attacks(them, sq) & ours;
            let phalanx = ours & adj & Bitboard::rank(sq.rank());
            let doubled = (front & ours).nonempty();
            let isolated = (ours & adj).is_empty();

            if isolated {
                structure += ISOLATED_PAWN;
                if T::ON {
                    tr.pair(idx::ISOLATED_PAWN, us, 1);
                }
            } else if (ours & adj & !ahead).is_empty()
                && (stop & ctx.pawn_att[them.index()]).nonempty()
            {
                // No own pawn beside or behind on a neighbouring file can ever
                // defend it, and its stop square is held by an enemy pawn.
                structure += BACKWARD_PAWN;
                if T::ON {
                    tr.pair(idx::BACKWARD_PAWN, us, 1);
                }
            }
            if doubled {
                structure += DOUBLED_PAWN;
                if T::ON {
                    tr.pair(idx::DOUBLED_PAWN, us, 1);
                }
            }
            if supporters.nonempty() || phalanx.nonempty() {
                structure += CONNECTED_PAWN[rr] + SUPPORTED_PAWN * count(supporters);
                if T::ON {
                    tr.pair(idx::CONNECTED_PAWN + 2 * rr, us, 1);
                    tr.pair(idx::SUPPORTED_PAWN, us, count(supporters));
                }
            }
            if doubled {
                // Only the front pawn of a file can be passed or a candidate.
            } else if (theirs & ahead & (file | adj)).is_empty() {
                entry.passed[u] |= Bitboard::from_square(sq);
            } else if (theirs & front).is_empty() {
                let helpers = ours & adj & !ahead;
                let sentries = theirs & adj & ahead;
                if count(helpers) >= count(sentries) {
                    structure += CANDIDATE_PASSED[rr];
                    if T::ON {
                        tr.pair(idx::CANDIDATE_PASSED + 2 * rr, us, 1);
                    }
                }
            }
        }
        entry.structure[u] = structure;
    }
    entry
}

/// Pawn structure and passed pawns of `us`: the cached pawn-only part, then
/// what depends on the pieces (king distances, a free and safe path).
#[inline(always)]
fn pawn_structure<T: Tracer>(
    ctx: &Ctx,
    pawn_entry: &PawnEntry,
    t: &mut Terms,
    us: Color,
    tr: &mut T,
) {
    let u = us.index();
    let th = (!us).index();
    let mut passed = S::ZERO;
    for sq in pawn_entry.passed[u] {
        let rr = sq.relative_rank(us) as usize;
        let front = forward_ranks(us, sq) & Bitboard::file(sq.file());
        let stop = push(us, Bitboard::from_square(sq));
        passed += PASSED_PAWN[rr];
        if T::ON {
            tr.pair(idx::PASSED_PAWN + 2 * rr, us, 1);
        }
        let w = rr as i32 - 2;
        if w > 0 {
            let block = stop.lsb();
            let d_them = distance(ctx.king[th], block);
            let d_us = distance(ctx.king[u], block);
            passed += S(
                0,
                w * (PASSED_KING_THEIRS * d_them - PASSED_KING_OURS * d_us),
            );
            if T::ON {
                tr.eg(idx::PASSED_KING_THEIRS, us, w * d_them);
                tr.eg(idx::PASSED_KING_OURS, us, -w * d_us);
            }
        }
        if (front & ctx.occ).is_empty() {
            passed += PASSED_FREE_PATH[rr];
            if T::ON {
                tr.pair(idx::PASSED_FREE_PATH + 2 * rr, us, 1);
            }
            if (front & ctx.all_att[th]).is_empty() {
                passed += PASSED_SAFE_PATH[rr];
                if T::ON {
                    tr.pair(idx::PASSED_SAFE_PATH + 2 * rr, us, 1);
                }
            }
        }
    }
    t.pawns[u] = pawn_entry.structure[u];
    t.passed[u] = passed;
}

/// Safety of `us`'s king: pawn shield, open files, enemy attacks.
#[inline(always)]
fn king_safety<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let ksq = ctx.king[u];
    let ours = ctx.pawns[u];
    let theirs = ctx.pawns[th];
    let ahead = forward_ranks(us, ksq);
    let krr = ksq.relative_rank(us) as i32;
    let mut s = S::ZERO;

    let kf = ksq.file();
    let lo = kf.saturating_sub(1);
    let hi = (kf + 1).min(7);
    for f in lo..=hi {
        let file = Bitboard::file(f);
        let shield = ours & file & ahead;
        s += if shield.is_empty() {
            SHIELD_PAWN_MISSING
        } else {
            match rearmost(us, shield).relative_rank(us) as i32 - krr {
                1 => SHIELD_PAWN_NEAR,
                2 => SHIELD_PAWN_FAR,
                _ => SHIELD_PAWN_DISTANT,
            }
        };
        if T::ON {
            let at = if shield.is_empty() {
                idx::SHIELD_PAWN_MISSING
            } else {
                match rearmost(us, shield).relative_rank(us) as i32 - krr {
                    1 => idx::SHIELD_PAWN_NEAR,
                    2 => idx::SHIELD_PAWN_FAR,
                    _ => idx::SHIELD_PAWN_DISTANT,
                }
            };
            tr.pair(at, us, 1);
        }
        let storm = theirs & file & ahead;
        if storm.nonempty() {
            let storm_sq = rearmost(us, storm);
            let rr = storm_sq.relative_rank(us) as usize;
            let blocked = (push(them, Bitboard::from_square(storm_sq)) & ours).nonempty();
            let (weights, at) = if blocked {
                (&BLOCKED_STORM, idx::BLOCKED_STORM)
            } else {
                (&PAWN_STORM, idx::PAWN_STORM)
            };
            s += weights[rr];
            if T::ON {
                tr.pair(at + 2 * rr, us, 1);
            }
        }
        if (ours & file).is_empty() {
            s += if (theirs & file).is_empty() {
                KING_OPEN_FILE
            } else {
                KING_SEMI_OPEN_FILE
            };
            if T::ON {
                let at = if (theirs & file).is_empty() {
                    idx::KING_OPEN_FILE
                } else {
                    idx::KING_SEMI_OPEN_FILE
                };
                tr.pair(at, us, 1);
            }
        }
    }

    // Enemy attack units: king-zone hits (collected with mobility) plus safe checks.
    let mut units = ctx.ks_units[u];
    let safe = !ctx.all_att[u] & !pos.colored(them);
    let b_checks = bishop_attacks(ksq, ctx.occ) & safe;
    let r_checks = rook_attacks(ksq, ctx.occ) & safe;
    let ta = &ctx.att[th];
    if (knight_attacks(ksq) & safe & ta[PieceKind::Knight.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Knight.index()];
    }
    if (b_checks & ta[PieceKind::Bishop.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Bishop.index()];
    }
    if (r_checks & ta[PieceKind::Rook.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Rook.index()];
    }
    if ((b_checks | r_checks) & ta[PieceKind::Queen.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Queen.index()];
    }
    if pos.pieces_of(them, PieceKind::Queen).is_empty() {
        units /= KING_DANGER_NO_QUEEN_DIV;
    }
    if ctx.ks_attackers[u] >= 2 {
        let mg = (units * units * KING_DANGER_QUADRATIC / 16).min(KING_DANGER_MAX);
        s -= S(mg, units * KING_DANGER_EG);
        if T::ON {
            tr.king_danger(us, units);
            tr.eg(idx::KING_DANGER_EG, us, -units);
        }
    }
    t.king_safety[u] = s;
}

/// Bonuses for `us` attacking enemy pieces.
#[inline(always)]
fn threats<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let mut s = S::ZERO;
    let their_rooks = pos.pieces_of(them, PieceKind::Rook);
    let their_queens = pos.pieces_of(them, PieceKind::Queen);
    let their_pieces = pos.colored(them) & !ctx.pawns[th] & !Bitboard::from_square(ctx.king[th]);

    let by_pawn = ctx.pawn_att[u] & their_pieces;
    if by_pawn.nonempty() {
        for kind in [
            PieceKind::Knight,
            PieceKind::Bishop,
            PieceKind::Rook,
            PieceKind::Queen,
        ] {
            s += THREAT_BY_PAWN[kind.index()] * count(by_pawn & pos.pieces(kind));
            if T::ON {
                let n = count(by_pawn & pos.pieces(kind));
                tr.pair(idx::THREAT_BY_PAWN + 2 * kind.index(), us, n);
            }
        }
    }
    let minor = ctx.att[u][PieceKind::Knight.index()] | ctx.att[u][PieceKind::Bishop.index()];
    s += THREAT_MINOR_ON_ROOK * count(minor & their_rooks);
    s += THREAT_MINOR_ON_QUEEN * count(minor & their_queens);
    s += THREAT_ROOK_ON_QUEEN * count(ctx.att[u][PieceKind::Rook.index()] & their_queens);
    s += HANGING_PIECE * count(their_pieces & ctx.all_att[u] & !ctx.all_att[th]);
    if T::ON {
        tr.pair(idx::THREAT_MINOR_ON_ROOK, us, count(minor & their_rooks));
        tr.pair(idx::THREAT_MINOR_ON_QUEEN, us, count(minor & their_queens));
        let rook_on_queen = count(ctx.att[u][PieceKind::Rook.index()] & their_queens);
        tr.pair(idx::THREAT_ROOK_ON_QUEEN, us, rook_on_queen);
        let hanging = count(their_pieces & ctx.all_att[u] & !ctx.all_att[th]);
        tr.pair(idx::HANGING_PIECE, us, hanging);
    }
    t.threats[u] = s;
}

/// Non-pawn material of one side, middle-game values.
#[inline(always)]
fn non_pawn_material(pos: &Position, c: Color) -> i32 {
    KNIGHT_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Knight))
        + BISHOP_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Bishop))
        + ROOK_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Rook))
        + QUEEN_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Queen))
}

/// Against a bare king: push it to the edge (to the right corner for KBN)
/// and bring the kings together.
#[inline(always)]
fn mopup<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, tr: &mut T) {
    for strong in Color::ALL {
        let weak = !strong;
        if pos.colored(weak).more_than_one() {
            continue;
        }
        let npm = non_pawn_material(pos, strong);
        if npm < ROOK_VALUE.mg() {
            continue;
        }
        let wk = ctx.king[weak.index()];
        let sk = ctx.king[strong.index()];
        let mut eg = MOPUP_EDGE * center_distance(wk) + MOPUP_CLOSE * (14 - manhattan(wk, sk));
        if T::ON {
            tr.eg(idx::MOPUP_EDGE, strong, center_distance(wk));
            tr.eg(idx::MOPUP_CLOSE, strong, 14 - manhattan(wk, sk));
        }
        let bishops = pos.pieces_of(strong, PieceKind::Bishop);
        let knights = pos.pieces_of(strong, PieceKind::Knight);
        if npm == BISHOP_VALUE.mg() + KNIGHT_VALUE.mg()
            && bishops.nonempty()
            && knights.nonempty()
            && ctx.pawns[strong.index()].is_empty()
        {
            // Corners of the bishop's colour: a1/h8 share one colour, a8/h1 the other.
            let a1_colour = if Bitboard::LIGHT_SQUARES.contains(Square::A1) {
                Bitboard::LIGHT_SQUARES
            } else {
                Bitboard::DARK_SQUARES
            };
            let (c1, c2) = if (bishops & a1_colour).nonempty() {
                (Square::A1, Square::new(63))
            } else {
                (Square::new(56), Square::H1)
            };
            let d = distance(wk, c1).min(distance(wk, c2));
            eg += MOPUP_BN_CORNER * (7 - d);
            if T::ON {
                tr.eg(idx::MOPUP_BN_CORNER, strong, 7 - d);
            }
        }
        t.mopup[strong.index()] = S(0, eg);
    }
}

/// End-game scale factor (out of SCALE_NORMAL) for the side the end-game
/// score favours.
#[inline(always)]
fn scale_factor(pos: &Position, eg: i32) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let npm_strong = non_pawn_material(pos, strong);
    let npm_weak = non_pawn_material(pos, weak);
    if pos.pieces_of(strong, PieceKind::Pawn).is_empty() {
        if npm_strong - npm_weak < NO_PAWN_EDGE {
            return if npm_strong < ROOK_VALUE.mg() {
                SCALE_NO_PAWNS_MINOR
            } else {
                SCALE_NO_PAWNS_SMALL_EDGE
            };
        }
        // Two knights cannot force mate against a bare king.
        if npm_strong == 2 * KNIGHT_VALUE.mg()
            && pos.pieces_of(strong, PieceKind::Knight).count() == 2
            && pos.colored(weak).count() == 1
        {
            return SCALE_NO_PAWNS_MINOR;
        }
    }
    let wb = pos.pieces_of(Color::White, PieceKind::Bishop);
    let bb = pos.pieces_of(Color::Black, PieceKind::Bishop);
    if wb.count() == 1 && bb.count() == 1 {
        let light = Bitboard::LIGHT_SQUARES;
        let opposite = (wb & light).is_empty() != (bb & light).is_empty();
        if opposite {
            let others = pos.pieces(PieceKind::Knight)
                | pos.pieces(PieceKind::Rook)
                | pos.pieces(PieceKind::Queen);
            return if others.is_empty() {
                SCALE_OCB
            } else {
                SCALE_OCB_PIECES
            };
        }
    }
    SCALE_NORMAL
}

/// A readable table of every term (White, Black, White - Black; mg and eg),
/// the phase, the scale factor and the final score. Allocates; for the UCI
/// `eval` command and debugging, not for the search.
pub fn evaluate_verbose(pos: &Position) -> String {
    let mut out = String::new();
    if pos.is_dead_position() {
        out.push_str("dead position: 0\n");
        return out;
    }
    let b = breakdown(pos);
    let t = &b.terms;
    let rows: [(&str, [S; 2]); 9] = [
        ("material+psq", t.material_psq),
        ("mobility", t.mobility),
        ("pawn structure", t.pawns),
        ("passed pawns", t.passed),
        ("pieces", t.pieces),
        ("threats", t.threats),
        ("king safety", t.king_safety),
        ("mop-up", t.mopup),
        ("tempo", t.tempo),
    ];
    let _ = writeln!(
        out,
        "{:<15}|{:>7}{:>7} |{:>7}{:>7} |{:>7}{:>7}",
        "term", "W mg", "W eg", "B mg", "B eg", "mg", "eg"
    );
    for (name, v) in rows {
        let d = v[0] - v[1];
        let _ = writeln!(
            out,
            "{:<15}|{:>7}{:>7} |{:>7}{:>7} |{:>7}{:>7}",
            name,
            v[0].mg(),
            v[0].eg(),
            v[1].mg(),
            v[1].eg(),
            d.mg(),
            d.eg()
        );
    }
    let _ = writeln!(
        out,
        "{:<15}|{:>14} |{:>14} |{:>7}{:>7}",
        "total",
        "",
        "",
        b.total.mg(),
        b.total.eg()
    );
    let stm = match pos.side_to_move() {
        Color::White => b.white,
        Color::Black => -b.white,
    };
    let _ = writeln!(
        out,
        "phase {}/{}, eg scale {}/{}\nscore (White's view) {} cp, side to move {} cp",
        b.phase, PHASE_MAX, b.scale, SCALE_NORMAL, b.white, stm
    );
    out
}

// ===========================================================================
// Tuning support: the weights as one parameter vector, and evaluation traces
// ===========================================================================
//
// Every tunable `const` of the Weights section is listed once in
// `tunables!` below. That gives each weight an offset in a flat parameter
// vector (`idx::NAME`; an `S` takes two entries, mg then eg, an array takes
// its elements in order), the list [`TUNABLES`] (names and shapes, for writing
// the weights back as Rust source) and [`default_params`] (the compiled-in
// values). [`trace`] evaluates a position while recording how often each
// weight is used; the evaluation is then a cheap function of the parameter
// vector ([`EvalTrace::evaluate_int`] reproduces [`evaluate`] exactly).
//
// Tuned: every weight listed in `tunables!`, i.e. material, the piece-square
// tables, mobility, pawn structure, passed pawns, piece terms, threats, pawn
// shield and king files, tempo, mop-up, and the king-danger formula's
// KING_DANGER_QUADRATIC, KING_DANGER_MAX and KING_DANGER_EG.
// Fixed: the attack-unit tables (KING_ATTACK_UNITS, SAFE_CHECK_UNITS,
// KING_DANGER_NO_QUEEN_DIV: each position's attack units are taken as
// given), the end-game scale factors and NO_PAWN_EDGE, and the phase weights.
// The conditions that compare material (mop-up, scale factors) are taken
// as they are with the compiled-in weights.

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

/// One tunable `const` of the Weights section.
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
/// Every call site sits behind `if T::ON`, so with [`NoTrace`] the
/// evaluation compiles to exactly what it would be without tracing.
trait Tracer {
    const ON: bool;
    /// The [`S`] weight whose middle-game half is parameter `at` (eg: `at + 1`).
    fn pair(&mut self, at: usize, c: Color, n: i32);
    /// A middle-game-only parameter.
    fn mg(&mut self, at: usize, c: Color, n: i32);
    /// An end-game-only parameter.
    fn eg(&mut self, at: usize, c: Color, n: i32);
    /// `c`'s king takes the quadratic king-danger penalty with `units` attack units.
    fn king_danger(&mut self, c: Color, units: i32);
}

/// The tracer of the ordinary evaluation: does nothing.
struct NoTrace;

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
fn trace_psq<T: Tracer>(tr: &mut T, kind: PieceKind, sq: Square, c: Color) {
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
    /// side to move's point of view, rounded exactly as [`evaluate`] rounds:
    /// with [`default_params`] it equals `evaluate`.
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
    use super::*;

    /// These tests are about the hand-written evaluation, whatever
    /// `UseNNUE`'s default is (the network has its own tests in `nnue`).
    fn evaluate(pos: &Position) -> i32 {
        evaluate_hce(pos)
    }

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, false).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// The same position with colours swapped and the board mirrored top to bottom.
    fn flip_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        let board: Vec<String> = fields[0]
            .split('/')
            .rev()
            .map(|rank| rank.chars().map(swap_case).collect())
            .collect();
        let side = if fields[1] == "w" { "b" } else { "w" };
        let castling: String = if fields[2] == "-" {
            "-".to_string()
        } else {
            let mut c: Vec<char> = fields[2].chars().map(swap_case).collect();
            // Keep the conventional order: upper case first.
            c.sort_by_key(|ch| (ch.is_ascii_lowercase(), *ch));
            c.into_iter().collect()
        };
        let ep = if fields[3] == "-" {
            "-".to_string()
        } else {
            let b = fields[3].as_bytes();
            let rank = b'1' + (b'8' - b[1]);
            format!("{}{}", b[0] as char, rank as char)
        };
        let mut out = format!("{} {} {} {}", board.join("/"), side, castling, ep);
        for f in &fields[4..] {
            out.push(' ');
            out.push_str(f);
        }
        out
    }

    const FENS: [&str; 22] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "8/8/4k3/8/2p5/8/B2K4/8 b - - 0 1",
        "8/5pk1/6p1/8/4B3/1b4P1/5PK1/8 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1",
        "rnbqkbnr/pppp1ppp/8/4pP2/8/8/PPPPP1PP/RNBQKBNR w KQkq e6 0 3",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "8/8/1k6/8/8/8/6K1/4N1N1 w - - 0 1",
        "8/8/8/3k4/8/8/8/KQ6 w - - 0 1",
        "r1bq1rk1/pp2nppp/2n1p3/3pP3/1b1P4/2NB1N2/PP3PPP/R1BQK2R w KQ - 0 9",
        "2r3k1/pp3ppp/8/3p4/3P4/8/PP3PPP/2R3K1 b - - 0 1",
        "8/PPP4k/8/8/8/8/5ppp/K7 w - - 0 1",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "3r1rk1/1pq2ppp/p1n1bn2/2b1p3/4P3/1NN1BB2/PPP1QPPP/3R1RK1 b - - 4 14",
        "r2q1rk1/ppp2ppp/2n1bn2/2bpp3/4P3/2PP1NP1/PP1N1PBP/R1BQ1RK1 w - - 0 8",
        "8/8/3k4/8/8/2NBK3/8/8 w - - 0 1",
        "6k1/5p2/6p1/8/7p/8/6PP/3r2K1 w - - 0 40",
    ];

    #[test]
    fn flip_fen_round_trips() {
        for fen in FENS {
            assert_eq!(flip_fen(&flip_fen(fen)), fen);
        }
    }

    #[test]
    fn colour_symmetry() {
        for fen in FENS {
            let p = pos(fen);
            let flipped = flip_fen(fen);
            let q = pos(&flipped);
            assert_eq!(
                evaluate(&p),
                evaluate(&q),
                "{fen} vs {flipped}\n{}\n{}",
                evaluate_verbose(&p),
                evaluate_verbose(&q)
            );
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let e = evaluate(&Position::startpos());
        assert!(e.abs() < 50, "start position scores {e}");
    }

    #[test]
    fn dead_positions_are_zero() {
        for fen in [
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
            "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
            "8/2b5/4k3/8/8/3KB3/8/8 w - - 0 1",
        ] {
            let p = pos(fen);
            assert!(p.is_dead_position(), "{fen}");
            assert_eq!(evaluate(&p), 0, "{fen}");
        }
    }

    #[test]
    fn extra_queen_is_winning() {
        let w = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(evaluate(&w) > 700, "{}", evaluate_verbose(&w));
        let b = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert!(evaluate(&b) < -700, "{}", evaluate_verbose(&b));
    }

    #[test]
    fn advanced_passed_pawn_is_worth_more() {
        let seventh = pos("7k/P7/8/8/8/8/8/4K3 w - - 0 1");
        let third = pos("7k/8/8/8/8/P7/8/4K3 w - - 0 1");
        let (a, b) = (evaluate(&seventh), evaluate(&third));
        assert!(a > b + 50, "7th {a} vs 3rd {b}");
        assert!(b > 0);
    }

    #[test]
    fn opposite_coloured_bishops_are_drawish() {
        // White is a pawn up; with opposite-coloured bishops the ending is scaled down.
        let ocb = pos("8/5k2/4b3/6p1/3P4/2B1P3/5K2/8 w - - 0 1");
        let same = pos("8/5k2/3b4/6p1/3P4/2B1P3/5K2/8 w - - 0 1");
        let (o, s) = (evaluate(&ocb), evaluate(&same));
        assert!(o > 0 && o < 80, "OCB {o}\n{}", evaluate_verbose(&ocb));
        assert!(o < s, "OCB {o} vs same-colour {s}");
    }

    #[test]
    fn pawnless_minor_edge_cannot_win() {
        // K+R v K+B: heavily scaled; K+N v K+P: the knight side cannot win.
        let rb = evaluate(&pos("8/8/3k4/8/3b4/8/3K4/4R3 w - - 0 1"));
        assert!(rb.abs() < 60, "KR v KB {rb}");
        let np = evaluate(&pos("8/8/3k4/8/8/1p6/3K4/4N3 w - - 0 1"));
        assert!(np < 20, "KN v KP {np}");
        // Only the (phase 2/24) middle-game half is left unscaled.
        let nn = evaluate(&pos("8/8/3k4/8/8/8/3K4/3NN3 w - - 0 1"));
        assert!(nn.abs() < 60, "KNN v K {nn}");
    }

    #[test]
    fn phase_bounds() {
        assert_eq!(phase(&Position::startpos()), PHASE_MAX);
        assert_eq!(phase(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")), 0);
    }

    #[test]
    fn verbose_mentions_terms() {
        let s = evaluate_verbose(&Position::startpos());
        assert!(
            s.contains("king safety") && s.contains("phase 24/24"),
            "{s}"
        );
    }

    /// Positions reached by random play from every test position.
    fn random_walk_positions(plies: usize) -> Vec<Position> {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = Vec::new();
        for fen in FENS {
            let mut p = pos(fen);
            for _ in 0..plies {
                out.push(p);
                let moves = crate::board::movegen::legal_moves(&p);
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                p.make_move(moves[(rng % moves.len() as u64) as usize]);
            }
        }
        out
    }

    /// A tracer that records nothing but, being `ON`, bypasses the pawn cache.
    struct Uncached;

    impl Tracer for Uncached {
        const ON: bool = true;
        fn pair(&mut self, _: usize, _: Color, _: i32) {}
        fn mg(&mut self, _: usize, _: Color, _: i32) {}
        fn eg(&mut self, _: usize, _: Color, _: i32) {}
        fn king_danger(&mut self, _: Color, _: i32) {}
    }

    #[test]
    fn the_pawn_cache_never_changes_a_score() {
        let positions = random_walk_positions(80);
        let uncached: Vec<i32> = positions
            .iter()
            .map(|p| breakdown_with(p, &mut Uncached).white)
            .collect();
        // Forward, then backward: each position meets the cache in another state.
        for order in [false, true] {
            for i in 0..positions.len() {
                let i = if order { positions.len() - 1 - i } else { i };
                let p = &positions[i];
                assert_eq!(breakdown(p).white, uncached[i], "{}", p.to_fen());
            }
        }
        // The walk must make different pawn structures share a slot, or
        // replacement went untested.
        let mut by_slot = std::collections::HashMap::new();
        let mut sharing = 0;
        for p in &positions {
            let pawns = [
                p.pieces_of(Color::White, PieceKind::Pawn),
                p.pieces_of(Color::Black, PieceKind::Pawn),
            ];
            let first = *by_slot.entry(pawn_cache_slot(pawns)).or_insert(pawns);
            sharing += usize::from(first != pawns);
        }
        assert!(sharing > 0);
    }

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

    /// The middle-game coefficient (White minus Black) the trace of `fen` gives parameter `at`.
    fn mg_coefficient(fen: &str, at: usize) -> i32 {
        let t = trace(&pos(fen)).expect("not a dead position");
        t.mg.iter()
            .filter(|&&(i, _)| i as usize == at)
            .map(|&(_, c)| i32::from(c))
            .sum()
    }

    #[test]
    fn candidate_passed_pawn_needs_as_many_helpers_as_sentries() {
        // d5 is held back only by e6, and c4 can trade itself for it.
        let candidate = "4k3/8/4p3/3P4/2P5/8/8/4K3 w - - 0 1";
        assert_eq!(mg_coefficient(candidate, idx::CANDIDATE_PASSED + 2 * 4), 1);
        // Without c4 nothing helps: no candidate for either side.
        let alone = "4k3/8/4p3/3P4/8/8/8/4K3 w - - 0 1";
        for rr in 0..8 {
            assert_eq!(mg_coefficient(alone, idx::CANDIDATE_PASSED + 2 * rr), 0);
        }
        // A pawn on its file ahead means it is no candidate.
        let blocked = "4k3/3p4/4p3/3P4/2P5/8/8/4K3 w - - 0 1";
        assert_eq!(mg_coefficient(blocked, idx::CANDIDATE_PASSED + 2 * 4), 0);
        // The mirror image counts for Black.
        assert_eq!(
            mg_coefficient(&flip_fen(candidate), idx::CANDIDATE_PASSED + 2 * 4),
            -1
        );
    }

    #[test]
    fn pawn_storm_by_rank_and_blocked() {
        // h4 storms White's g1 king unopposed; h3 is stopped by h2.
        let open = "k7/8/8/8/7p/8/5PPP/6K1 w - - 0 1";
        assert_eq!(mg_coefficient(open, idx::PAWN_STORM + 2 * 3), 1);
        let blocked = "k7/8/8/8/8/7p/5PPP/6K1 w - - 0 1";
        assert_eq!(mg_coefficient(blocked, idx::BLOCKED_STORM + 2 * 2), 1);
        assert_eq!(mg_coefficient(blocked, idx::PAWN_STORM + 2 * 2), 0);
        // A pawn two files away from the king storms nothing.
        let far = "k7/8/8/8/4p3/8/5PPP/6K1 w - - 0 1";
        for rr in 0..8 {
            assert_eq!(mg_coefficient(far, idx::PAWN_STORM + 2 * rr), 0);
            assert_eq!(mg_coefficient(far, idx::BLOCKED_STORM + 2 * rr), 0);
        }
        assert_eq!(mg_coefficient(&flip_fen(open), idx::PAWN_STORM + 2 * 3), -1);
    }

    #[test]
    fn popcnt_build_agrees_with_portable_build() {
        // `evaluate` takes the POPCNT-compiled copy wherever the CPU has it.
        for p in &random_walk_positions(40) {
            assert_eq!(evaluate(p), evaluate_body(p), "{}", p.to_fen());
        }
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

    /// `cargo test --release --lib eval::tests::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn speed() {
        let p = pos(FENS[1]);
        let n = 1_000_000u32;
        let start = std::time::Instant::now();
        let mut acc = 0i64;
        for _ in 0..n {
            acc += evaluate(std::hint::black_box(&p)) as i64;
        }
        let dt = start.elapsed();
        println!(
            "{n} evals of Kiwipete: {:?}, {:.1} ns/eval (checksum {acc})",
            dt,
            dt.as_nanos() as f64 / n as f64
        );
        let mut ps: Vec<Position> = FENS.iter().map(|f| pos(f)).collect();
        ps.retain(|p| !p.is_dead_position());
        let start = std::time::Instant::now();
        for _ in 0..n / ps.len() as u32 {
            for p in &ps {
                acc += evaluate(std::hint::black_box(p)) as i64;
            }
        }
        let dt = start.elapsed();
        println!(
            "mixed set: {:.1} ns/eval (checksum {acc})",
            dt.as_nanos() as f64 / (n / ps.len() as u32 * ps.len() as u32) as f64
        );
    }
}
