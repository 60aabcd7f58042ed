//! Attack tables, all computed at compile time: leapers (pawn, knight, king),
//! lines between squares, and sliders by "fancy" magic bitboards.
//!
//! The magic multipliers below were found by [`find_magic`] (a deterministic
//! search, see the `bishop_magics_are_reproducible` test); the table build
//! checks them for collisions, so a bad constant fails the compilation.

use crate::board::bitboard::Bitboard;
use crate::board::types::{Color, Square};

const KNIGHT_DELTAS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

const fn leaper_table(deltas: &[(i8, i8); 8]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < 8 {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn pawn_table(color: Color) -> [u64; 64] {
    let mut table = [0u64; 64];
    let dr: i8 = match color {
        Color::White => 1,
        Color::Black => -1,
    };
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let nr = r + dr;
        if nr >= 0 && nr < 8 {
            if f > 0 {
                table[sq] |= 1u64 << (nr * 8 + f - 1);
            }
            if f < 7 {
                table[sq] |= 1u64 << (nr * 8 + f + 1);
            }
        }
        sq += 1;
    }
    table
}

/// Slider attacks computed slowly by walking rays; used to build and check tables.
pub const fn slow_slider_attacks(sq: usize, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut attacks = 0u64;
    let mut d = 0;
    while d < 4 {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += dirs[d].0;
            r += dirs[d].1;
            if f < 0 || f > 7 || r < 0 || r > 7 {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
        d += 1;
    }
    attacks
}

/// `BETWEEN[a][b]`: squares strictly between a and b on a shared line, else empty.
/// `LINE[a][b]`: the whole line through a and b (edge to edge), else empty.
const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let all_dirs: [(i8, i8); 8] = [
        (1, 0),
        (0, 1),
        (-1, 0),
        (0, -1),
        (1, 1),
        (-1, 1),
        (-1, -1),
        (1, -1),
    ];
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = all_dirs[d];
            // The full line through `a` in this direction, both ways.
            let mut full = 1u64 << a;
            let mut k = 0;
            while k < 2 {
                let (sf, sr) = if k == 0 { (df, dr) } else { (-df, -dr) };
                let (mut f, mut r) = ((a % 8) as i8, (a / 8) as i8);
                loop {
                    f += sf;
                    r += sr;
                    if f < 0 || f > 7 || r < 0 || r > 7 {
                        break;
                    }
                    full |= 1u64 << (r * 8 + f);
                }
                k += 1;
            }
            let (mut f, mut r) = ((a % 8) as i8, (a / 8) as i8);
            let mut path = 0u64;
            loop {
                f += df;
                r += dr;
                if f < 0 || f > 7 || r < 0 || r > 7 {
                    break;
                }
                let b = (r * 8 + f) as usize;
                between[a][b] = path;
                line[a][b] = full;
                path |= 1u64 << b;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static KNIGHT: [u64; 64] = leaper_table(&KNIGHT_DELTAS);
static KING: [u64; 64] = leaper_table(&KING_DELTAS);
static PAWN: [[u64; 64]; 2] = [pawn_table(Color::White), pawn_table(Color::Black)];
static LINES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();

const fn empty_board_table(dirs: &[(i8, i8); 4]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = slow_slider_attacks(sq, 0, dirs);
        sq += 1;
    }
    table
}

static ROOK_RAYS: [u64; 64] = empty_board_table(&ROOK_DIRS);
static BISHOP_RAYS: [u64; 64] = empty_board_table(&BISHOP_DIRS);

/// Relevant-occupancy mask of a slider: its rays without the board edge at their end.
const fn relevant_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut mask = 0u64;
    let mut d = 0;
    while d < 4 {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += dirs[d].0;
            r += dirs[d].1;
            let (nf, nr) = (f + dirs[d].0, r + dirs[d].1);
            if nf < 0 || nf > 7 || nr < 0 || nr > 7 {
                break;
            }
            mask |= 1u64 << (r * 8 + f);
        }
        d += 1;
    }
    mask
}

#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
0x2080_0082_1422_4002, 0x0840_1000_2000_4004, 0xD100_1100_2000_400C, 0x0100_0806_2010_0100,
    0x2080_0380_0400_0800, 0x0280_1102_0004_0080, 0x0180_0180_0200_0100, 0x8200_0402_0040_2081,
    0x0006_8000_4000_8822, 0x4801_0020_9040_0104, 0x0002_0010_2044_8200, 0x404A_0008_4201_1021,
    0x0000_8080_0800_0400, 0x8A84_8004_0080_0201, 0x1052_0001_4402_0028, 0x1720_8011_0000_6080,
    0x8040_0080_2080_0040, 0x0210_0040_0040_2004, 0x0010_0020_0024_0800, 0x0800_8080_0800_1001,
    0x9C04_0080_0480_0800, 0x0544_0040_4002_0100, 0x0304_C101_0002_0004, 0x2100_0200_00B0_4401,
    0x2020_4000_8000_2080, 0x0440_2000_8080_4000, 0x4000_1000_8020_0080, 0x0000_0801_8030_0180,
    0x0088_0040_4004_0200, 0x0104_0100_4040_0200, 0x0020_30C4_0008_0102, 0x0809_1882_0001_2444,
    0x4048_B240_0280_0080, 0x4040_8021_0100_4000, 0x0100_1000_8080_2008, 0x4000_8010_0280_0800,
    0x0200_0801_0100_1004, 0x0000_0200_8080_0400, 0x10C0_8102_0400_0810, 0x0E24_0081_0200_0044,
    0x0800_4000_8020_8000, 0x0840_2000_4000_8080, 0x4420_1000_2000_8080, 0x2010_0104_0811_0020,
    0x0000_0800_0400_8080, 0x0022_4010_0488_0120, 0x0000_2201_0844_0070, 0x4158_2400_8042_0001,
    0x0090_2080_0040_0080, 0x1210_0040_00E0_0140, 0x2000_2000_1000_8080, 0x0400_0900_2010_0100,
    0x1008_8004_0008_0080, 0x0083_0004_0008_0300, 0x1240_8801_0210_0400, 0x0030_0040_9114_0200,
    0x028A_0011_0160_8042, 0x0041_0040_2200_8012, 0x0010_400A_2001_0013, 0x0414_1000_0500_0821,
    0x4202_0010_A008_0482, 0x0013_0008_160C_0091, 0x0540_0882_1048_1104, 0x1000_0100_8044_0022,
];

#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x0020_2101_0204_0042, 0xC424_0404_4042_0240, 0x0008_2081_0E00_0184, 0x0024_4410_8001_0112,
    0x1004_0420_0000_0000, 0x0102_0104_200C_2890, 0x8000_9609_6020_4400, 0x0002_8141_4820_2810,
    0x2004_0410_3021_0521, 0x4000_1010_0101_0828, 0x1000_5021_0210_2000, 0x0006_6806_0440_2010,
    0x4008_0410_44C1_6008, 0x0001_6504_20C5_1400, 0x1500_1202_1002_4A80, 0x0004_0200_8084_3100,
    0x0040_8120_0404_4080, 0xA024_0011_4108_0104, 0x0290_8018_0884_0108, 0x0828_0042_2200_4044,
    0x0012_0114_0121_0090, 0x0002_0089_0501_0900, 0x0004_0602_0212_0240, 0x0C00_4000_8048_0802,
    0x4002_0968_4010_0402, 0x0204_0202_F430_4410, 0x0020_B404_0208_0200, 0x8120_0800_0100_4008,
    0x2409_0101_0010_4003, 0x0818_0A00_0041_0085, 0x4A02_0404_0080_8800, 0x001E_0040_0880_5800,
    0x00AC_2025_0020_0400, 0x1025_3008_0090_0582, 0x0002_0111_0010_0040, 0x260C_2080_2248_0200,
    0x0004_2002_0048_2080, 0x0890_2E4A_0080_4100, 0x1882_4800_4202_0200, 0x1002_1202_0000_2088,
    0x8002_1010_8508_0804, 0x0000_8201_9000_2000, 0x0000_1084_1000_4101, 0x0010_0E01_2208_0400,
    0x1850_2801_0402_1440, 0x6120_6004_0040_1020, 0x0010_1001_0113_0043, 0x0004_0802_02A1_014A,
    0x0105_0802_3004_0032, 0x1098_8200_82A0_0060, 0x3020_4184_00A8_5008, 0x8000_0000_8404_0080,
    0x0040_0008_2104_4040, 0x0080_A004_117A_0200, 0x8020_2401_025C_0000, 0x8060_0544_2302_4C08,
    0x4010_2021_1008_2001, 0x000A_2880_4110_1000, 0x0080_0001_0288_111C, 0x8400_0842_0020_8820,
    0x00D2_0002_1102_020B, 0x0100_08A2_0410_0080, 0xA200_2048_2108_4290, 0x6044_0410_0412_3380,
];

/// One square's magic: `((occupied & mask) * magic) >> shift` indexes its part of the table.
#[derive(Clone, Copy)]
struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

/// Every subset of `mask`, by the carry-rippler trick.
fn subsets(mask: u64) -> impl Iterator<Item = u64> {
    let mut subset = 0u64;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let current = subset;
        subset = subset.wrapping_sub(mask) & mask;
        done = subset == 0;
        Some(current)
    })
}

/// Searches a magic multiplier for one square, deterministically from `seed`.
/// Used offline to produce the constants above (see the tests).
pub fn find_magic(sq: usize, rook: bool, seed: u64) -> u64 {
    let dirs = if rook { &ROOK_DIRS } else { &BISHOP_DIRS };
    let mask = relevant_mask(sq, dirs);
    let bits = mask.count_ones();
    let occupancies: Vec<u64> = subsets(mask).collect();
    let attacks: Vec<u64> = occupancies
        .iter()
        .map(|&o| slow_slider_attacks(sq, o, dirs))
        .collect();
    let mut rng = seed ^ (sq as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut used = vec![0u64; 1 << bits];
    let mut epoch = vec![0u32; 1 << bits];
    let mut attempt = 0u32;
    loop {
        let magic = next() & next() & next();
        if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        attempt += 1;
        let ok = occupancies.iter().zip(&attacks).all(|(&occ, &att)| {
            let idx = (occ.wrapping_mul(magic) >> (64 - bits)) as usize;
            if epoch[idx] != attempt {
                epoch[idx] = attempt;
                used[idx] = att;
                true
            } else {
                used[idx] == att
            }
        });
        if ok {
            return magic;
        }
    }
}

const fn build_magics(rook: bool, first_offset: usize) -> ([Magic; 64], usize) {
    let dirs = if rook { &ROOK_DIRS } else { &BISHOP_DIRS };
    let magics = if rook { &ROOK_MAGICS } else { &BISHOP_MAGICS };
    let mut out = [Magic {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    }; 64];
    let mut offset = first_offset;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic {
            mask,
            magic: magics[sq],
            shift: 64 - bits,
            offset,
        };
        offset += 1 << bits;
        sq += 1;
    }
    (out, offset)
}

const ROOK_LAYOUT: ([Magic; 64], usize) = build_magics(true, 0);
const BISHOP_LAYOUT: ([Magic; 64], usize) = build_magics(false, ROOK_LAYOUT.1);
const TABLE_SIZE: usize = BISHOP_LAYOUT.1;
static ROOK_MAGIC: [Magic; 64] = ROOK_LAYOUT.0;
static BISHOP_MAGIC: [Magic; 64] = BISHOP_LAYOUT.0;

/// Fills the shared attack table at compile time. A magic that maps two
/// occupancies with different attacks to one slot stops the build, so a
/// wrong constant can never reach a binary.
const fn build_slider_table() -> [u64; TABLE_SIZE] {
    let mut table = [0u64; TABLE_SIZE];
    let mut kind = 0;
    while kind < 2 {
        let (layout, dirs) = if kind == 0 {
            (&ROOK_LAYOUT.0, &ROOK_DIRS)
        } else {
            (&BISHOP_LAYOUT.0, &BISHOP_DIRS)
        };
        let mut sq = 0;
        while sq < 64 {
            let m = layout[sq];
            let mut occ = 0u64;
            loop {
                let idx = m.offset + (occ.wrapping_mul(m.magic) >> m.shift) as usize;
                let att = slow_slider_attacks(sq, occ, dirs);
                // An attack set is never empty, so 0 marks a free slot.
                assert!(table[idx] == 0 || table[idx] == att, "magic collision");
                table[idx] = att;
                occ = occ.wrapping_sub(m.mask) & m.mask;
                if occ == 0 {
                    break;
                }
            }
            sq += 1;
        }
        kind += 1;
    }
    table
}

static SLIDER_TABLE: [u64; TABLE_SIZE] = build_slider_table();

/// Kept for callers that want to touch the tables at start-up; every table is
/// built at compile time, so there is nothing left to do.
pub fn init() {}

#[inline(always)]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize + m.offset;
    Bitboard(SLIDER_TABLE[idx])
}

#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGIC[sq.index()], occupied)
}

#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGIC[sq.index()], occupied)
}

#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// A rook's attacks from `sq` on an empty board: a cheap test of whether a
/// rook there could reach a square at all, before the magic lookup.
#[inline(always)]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// A bishop's attacks from `sq` on an empty board (see [`rook_rays`]).
#[inline(always)]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.0[a.index()][b.index()])
}

/// The full line through `a` and `b` if they are aligned, else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.1[a.index()][b.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slider_tables_match_ray_walk() {
        let mut rng = 0x1234_5678_9ABC_DEF0u64;
        for sq in 0..64 {
            for _ in 0..200 {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let occ = rng & rng.rotate_left(17);
                let s = Square::new(sq as u8);
                assert_eq!(
                    rook_attacks(s, Bitboard(occ)).0,
                    slow_slider_attacks(sq, occ, &ROOK_DIRS)
                );
                assert_eq!(
                    bishop_attacks(s, Bitboard(occ)).0,
                    slow_slider_attacks(sq, occ, &BISHOP_DIRS)
                );
            }
        }
    }

    #[test]
    fn bishop_magics_are_reproducible() {
        // The rook search takes longer; the bishop one shows the constants come from `find_magic`.
        for (sq, &magic) in BISHOP_MAGICS.iter().enumerate() {
            assert_eq!(find_magic(sq, false, 0x6A09_E667_F3BC_C908), magic);
        }
        assert_eq!(find_magic(0, true, 0x6A09_E667_F3BC_C908), ROOK_MAGICS[0]);
    }

    #[test]
    fn leapers_and_lines() {
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(king_attacks(Square::E1).count(), 5);
        assert_eq!(
            between(Square::A1, Square::H1).count(),
            6,
            "b1..g1 lie between a1 and h1"
        );
        assert_eq!(line(Square::A1, Square::C1), Bitboard::RANK_1);
        assert!(between(Square::A1, Square::new(17)).is_empty());
        for sq in Square::all() {
            assert_eq!(rook_rays(sq), rook_attacks(sq, Bitboard::EMPTY));
            assert_eq!(bishop_rays(sq), bishop_attacks(sq, Bitboard::EMPTY));
            assert_eq!(rook_rays(sq).count(), 14);
        }
    }
}
