//! Zobrist keys: fixed, reproducible 64-bit keys generated at compile time by
//! SplitMix64 from a constant seed, so a key never changes between builds or
//! crate versions.

use crate::board::types::{Color, Piece, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// 12 pieces x 64 squares, 16 castling-right sets, 8 en-passant files, side.
const COUNT: usize = 12 * 64 + 16 + 8 + 1;

const KEYS: [u64; COUNT] = {
    let mut keys = [0u64; COUNT];
    let mut state = 0x4775_6F78_6961_6E67; // "Guoxiang"
    let mut i = 0;
    while i < COUNT {
        let (s, k) = splitmix(state);
        state = s;
        keys[i] = k;
        i += 1;
    }
    // Castling keys are combined per right so that any set of rights has one key.
    let mut set = 0;
    while set < 16 {
        let mut key = 0u64;
        let mut bit = 0;
        while bit < 4 {
            if set & (1 << bit) != 0 {
                key ^= keys[12 * 64 + (1 << bit)];
            }
            bit += 1;
        }
        keys[12 * 64 + set] = key;
        set += 1;
    }
    keys
};

#[inline(always)]
pub fn piece(p: Piece, sq: Square) -> u64 {
    KEYS[p.index() * 64 + sq.index()]
}

/// Key of a set of castling rights (4 bits).
#[inline(always)]
pub fn castling(rights: u8) -> u64 {
    KEYS[12 * 64 + (rights & 15) as usize]
}

#[inline(always)]
pub fn en_passant(file: u8) -> u64 {
    KEYS[12 * 64 + 16 + (file & 7) as usize]
}

/// XOR-ed in when Black is to move.
#[inline(always)]
pub fn side(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => KEYS[COUNT - 1],
    }
}
