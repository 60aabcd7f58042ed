//! The weights of the hand-written evaluation: every `const` its terms read,
//! the tuned ones and the fixed ones, and nothing else.
//!
//! This file is data. The Texel tuner (`guoxiang tune`) parses it and writes
//! it out whole with new values, so keep every value a plain integer literal,
//! one named item per term, laid out as rustfmt leaves it. Which weights are
//! tuned is the `tunables!` list of the tuning support (`trace.rs`); the
//! attack-unit tables, the end-game scale factors, `NO_PAWN_EDGE` and the
//! phase weights stay fixed. The tables are written from White's point of
//! view in board layout (the first row is the eighth rank) and mirrored for
//! Black.

use crate::eval::S;

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
