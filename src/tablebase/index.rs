//! From piece squares to a position's index in a table: the symmetry
//! reductions and combinatorial numbering the Syzygy format fixes.
//!
//! The geometry tables are computed from their definitions (not stored), once,
//! and shared by every table.

use std::sync::OnceLock;

/// Most pieces a table may hold (the format's limit).
pub const MAX_PIECES: usize = 7;

/// Positions of two kings (the first in the a1-d1-d4 triangle).
const KING_PAIRS: u64 = 462;
/// Positions of three unique pieces, the first in the a1-d1-d4 triangle.
const TRIPLES: u64 = 31332;

/// Precomputed numbering tables.
struct Geometry {
    /// `binomial[k][n]` = n choose k.
    binomial: [[u64; 64]; MAX_PIECES + 1],
    /// Index of the first king pair: `king_pairs[triangle(a)][b]`, -1 when
    /// the pair is impossible (adjacent or reduced away).
    king_pairs: [[i16; 64]; 10],
    /// Offset of the leading pawn's square within its file group, per count
    /// of leading pawns (minus one) and flap number.
    pawn_offset: [[u64; 24]; 6],
    /// Number of leading-pawn placements per count (minus one) and file.
    pawn_file_size: [[u64; 4]; 6],
}

fn geometry() -> &'static Geometry {
    static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
    GEOMETRY.get_or_init(build_geometry)
}

/// Which side of the a1-h8 diagonal: 1 above (rank > file), -1 below, 0 on.
pub fn off_diagonal(sq: u8) -> i32 {
    let (rank, file) = ((sq >> 3) as i32, (sq & 7) as i32);
    (rank - file).signum()
}

/// Reflection in the a1-h8 diagonal.
fn transpose(sq: u8) -> u8 {
    ((sq & 7) << 3) | (sq >> 3)
}

/// The class (0..10) of a square in the a1-d1-d4 triangle after the board's
/// symmetries: off-diagonal squares b1,c1,d1,c2,d2,d3 are 0..6, diagonal
/// squares a1,b2,c3,d4 are 6..10.
fn triangle(sq: u8) -> usize {
    let mut file = sq & 7;
    let mut rank = sq >> 3;
    if file > 3 {
        file = 7 - file;
    }
    if rank > 3 {
        rank = 7 - rank;
    }
    if rank > file {
        std::mem::swap(&mut rank, &mut file);
    }
    if rank == file {
        return 6 + rank as usize;
    }
    // Below the diagonal, rank by rank: (0,1..3), (1,2..3), (2,3).
    const ROW_START: [usize; 3] = [0, 3, 5];
    ROW_START[rank as usize] + (file - rank - 1) as usize
}

/// Number of a square below the a1-h8 diagonal (0..28), on it (28..36), or
/// above it (numbered as its reflection).
fn lower(sq: u8) -> u64 {
    let sq = if off_diagonal(sq) > 0 {
        transpose(sq)
    } else {
        sq
    };
    let (rank, file) = ((sq >> 3) as u64, (sq & 7) as u64);
    if rank == file {
        return 28 + rank;
    }
    // Squares below the diagonal in earlier ranks: 7 + 6 + ... for each.
    let before: u64 = (0..rank).map(|r| 7 - r).sum();
    before + (file - rank - 1)
}

/// Number of a square on the a1-h8 diagonal (0..8) or the h1-a8 one (8..16).
fn diagonal(sq: u8) -> u64 {
    let (rank, file) = ((sq >> 3) as u64, (sq & 7) as u64);
    if rank == file {
        rank
    } else if rank + file == 7 {
        8 + rank
    } else {
        0
    }
}

/// File folded to a..d.
fn folded_file(sq: u8) -> u8 {
    let file = sq & 7;
    if file > 3 {
        7 - file
    } else {
        file
    }
}

/// Number of a pawn square (ranks 2..7) by folded file, then rank: orders
/// the candidates for the leading pawn.
pub fn flap(sq: u8) -> usize {
    let rank = (sq >> 3) as usize;
    rank.saturating_sub(1) + 6 * folded_file(sq) as usize
}

/// Number of a pawn square (ranks 2..7) that grows towards the edge files
/// and the first rank: the order of the other leading pawns.
fn pawn_twist(sq: u8) -> usize {
    let rank = (sq >> 3) as usize;
    let file = sq & 7;
    if !(1..=6).contains(&rank) {
        return 0;
    }
    12 * (3 - folded_file(sq) as usize) + (12 - 2 * rank) + usize::from(file <= 3)
}

fn adjacent_or_same(a: u8, b: u8) -> bool {
    let dr = ((a >> 3) as i32 - (b >> 3) as i32).abs();
    let df = ((a & 7) as i32 - (b & 7) as i32).abs();
    dr <= 1 && df <= 1
}

fn build_geometry() -> Geometry {
    let mut binomial = [[0u64; 64]; MAX_PIECES + 1];
    for (k, row) in binomial.iter_mut().enumerate() {
        for (n, cell) in row.iter_mut().enumerate() {
            let (mut num, mut den) = (1u64, 1u64);
            for i in 0..k as u64 {
                num *= (n as u64).saturating_sub(i);
                den *= i + 1;
            }
            *cell = num / den;
        }
    }

    // King pairs: the first king in the triangle; if it is on the diagonal,
    // the second one not above it; pairs with both on the diagonal last.
    let mut king_pairs = [[-1i16; 64]; 10];
    let mut code = 0i16;
    let mut both_on_diagonal = Vec::new();
    for (class, row) in king_pairs.iter_mut().enumerate() {
        let Some(first) =
            (0..64u8).find(|&s| (s & 7) <= 3 && (s >> 3) <= (s & 7) && triangle(s) == class)
        else {
            continue;
        };
        for second in 0..64u8 {
            if adjacent_or_same(first, second) {
                continue;
            }
            match (off_diagonal(first), off_diagonal(second)) {
                (0, 1) => {}
                (0, 0) => both_on_diagonal.push((class, second)),
                _ => {
                    row[second as usize] = code;
                    code += 1;
                }
            }
        }
    }
    for (class, second) in both_on_diagonal {
        king_pairs[class][second as usize] = code;
        code += 1;
    }

    let mut pawn_offset = [[0u64; 24]; 6];
    let mut pawn_file_size = [[0u64; 4]; 6];
    for count in 0..6 {
        let mut sum = 0;
        for j in 0..24 {
            pawn_offset[count][j] = sum;
            let sq = ((1 + j % 6) * 8 + j / 6) as u8;
            sum += binomial[count][pawn_twist(sq)];
            if (j + 1) % 6 == 0 {
                pawn_file_size[count][j / 6] = sum;
                sum = 0;
            }
        }
    }
    Geometry {
        binomial,
        king_pairs,
        pawn_offset,
        pawn_file_size,
    }
}

/// Ways to place `k` like pieces on `n` squares.
pub fn placements(k: usize, n: usize) -> Option<u64> {
    let (mut num, mut den) = (1u64, 1u64);
    for i in 0..k {
        num = num.checked_mul(n.checked_sub(i)? as u64)?;
        den = den.checked_mul(i as u64 + 1)?;
    }
    Some(num / den)
}

/// Number of leading-pawn placements for `count` leading pawns on `file`.
pub fn pawn_file_size(count: usize, file: usize) -> Option<u64> {
    geometry()
        .pawn_file_size
        .get(count.checked_sub(1)?)?
        .get(file)
        .copied()
}

/// Size of the first factor of a pieces-only table.
pub fn first_factor(kings_only_unique: bool) -> u64 {
    if kings_only_unique {
        KING_PAIRS
    } else {
        TRIPLES
    }
}

fn binomial(k: usize, n: usize) -> Option<u64> {
    geometry().binomial.get(k)?.get(n).copied()
}

/// How a table numbers its positions: piece groups and their factors.
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    /// Piece code per slot (1..6 white pawn..king, 9..14 black), in the
    /// table's order.
    pub pieces: [u8; MAX_PIECES],
    /// Size of the group of like pieces starting at a slot (0 inside one).
    pub group: [u8; MAX_PIECES],
    /// Multiplier of the group starting at a slot.
    pub factor: [u64; MAX_PIECES],
}

/// Material facts a table's numbering depends on.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub pieces: usize,
    /// Pieces only, and the kings are the only unique pieces.
    pub kings_only_unique: bool,
    /// Pawns of the leading colour and of the other colour (pawn tables).
    pub pawns: [u8; 2],
    pub has_pawns: bool,
}

/// The leading pawn (the one nearest the a-file side and rank 2 by `flap`)
/// moved to slot 0; returns its folded file (the table's file part).
pub fn lead_pawn_file(squares: &mut [u8], leading: usize) -> Option<usize> {
    let mut best = 0;
    for i in 1..leading {
        if flap(*squares.get(i)?) < flap(*squares.get(best)?) {
            best = i;
        }
    }
    squares.swap(0, best);
    Some(folded_file(*squares.first()?) as usize)
}

/// Index of the slots' squares in the table; squares are reduced in place.
pub fn position_index(squares: &mut [u8], shape: &Shape, numbering: &Numbering) -> Option<u64> {
    let n = shape.pieces;
    if squares.len() < n || n == 0 {
        return None;
    }
    let squares = &mut squares[..n];
    if squares[0] & 4 != 0 {
        squares.iter_mut().for_each(|s| *s ^= 7);
    }
    let g = geometry();
    let mut index;
    let mut k;
    if !shape.has_pawns {
        if squares[0] & 0x20 != 0 {
            squares.iter_mut().for_each(|s| *s ^= 0x38);
        }
        let unique = if shape.kings_only_unique { 2 } else { 3 };
        if let Some(i) = squares.iter().position(|&s| off_diagonal(s) != 0) {
            if off_diagonal(squares[i]) > 0 && i < unique {
                squares.iter_mut().for_each(|s| *s = transpose(*s));
            }
        }
        if shape.kings_only_unique {
            let code = *g
                .king_pairs
                .get(triangle(squares[0]))?
                .get(squares[1] as usize)?;
            index = u64::try_from(code).ok()?;
            k = 2;
        } else {
            index = triple_index(squares[0], squares[1], squares[2]);
            k = 3;
        }
        index = index.checked_mul(numbering.factor[0])?;
    } else {
        let lead = shape.pawns[0] as usize;
        if lead == 0 || lead > n {
            return None;
        }
        squares[1..lead].sort_unstable_by_key(|&s| std::cmp::Reverse(pawn_twist(s)));
        index = *g.pawn_offset.get(lead - 1)?.get(flap(squares[0]))?;
        for (i, &sq) in squares.iter().enumerate().take(lead).skip(1) {
            index += binomial(lead - i, pawn_twist(sq))?;
        }
        index = index.checked_mul(numbering.factor[0])?;
        k = lead;
        let other = shape.pawns[1] as usize;
        if other > 0 {
            let end = k + other;
            if end > n {
                return None;
            }
            let part = group_index(squares, k, end, 8)?;
            index = index.checked_add(part.checked_mul(numbering.factor[k])?)?;
            k = end;
        }
    }
    while k < n {
        let size = numbering.group[k] as usize;
        if size == 0 || k + size > n {
            return None;
        }
        let part = group_index(squares, k, k + size, 0)?;
        index = index.checked_add(part.checked_mul(numbering.factor[k])?)?;
        k += size;
    }
    Some(index)
}

/// Index of three unique pieces after the symmetry reduction.
fn triple_index(a: u8, b: u8, c: u8) -> u64 {
    let s1 = u64::from(b > a);
    let s2 = u64::from(c > a) + u64::from(c > b);
    let (b64, c64) = (b as u64, c as u64);
    let tri = triangle(a) as u64;
    if off_diagonal(a) != 0 {
        tri * 63 * 62 + (b64 - s1) * 62 + (c64 - s2)
    } else if off_diagonal(b) != 0 {
        6 * 63 * 62 + diagonal(a) * 28 * 62 + lower(b) * 62 + c64 - s2
    } else if off_diagonal(c) != 0 {
        6 * 63 * 62 + 4 * 28 * 62 + diagonal(a) * 7 * 28 + (diagonal(b) - s1) * 28 + lower(c)
    } else {
        6 * 63 * 62
            + 4 * 28 * 62
            + 4 * 7 * 28
            + diagonal(a) * 7 * 6
            + (diagonal(b) - s1) * 6
            + (diagonal(c) - s2)
    }
}

/// Combinatorial number of the like pieces in slots `from..to` (sorted in
/// place), on the squares left by the slots before `from`, less `base`.
fn group_index(squares: &mut [u8], from: usize, to: usize, base: u8) -> Option<u64> {
    squares.get_mut(from..to)?.sort_unstable();
    let mut sum = 0u64;
    for i in from..to {
        let sq = squares[i];
        let skips = squares[..from].iter().filter(|&&p| sq > p).count();
        let free = (sq as usize).checked_sub(skips + base as usize)?;
        sum += binomial(i - from + 1, free)?;
    }
    Some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometry_has_the_format_sizes() {
        let g = geometry();
        let max = g.king_pairs.iter().flatten().copied().max();
        assert_eq!(max, Some(461));
        assert_eq!(triangle(0), 6);
        assert_eq!(triangle(1), 0);
        assert_eq!(triangle(27), 9);
        assert_eq!(triangle(19), 5);
        assert_eq!(lower(7), 6);
        assert_eq!(lower(63), 35);
        assert_eq!(pawn_twist(8), 47);
        assert_eq!(pawn_twist(52), 0);
        assert_eq!(flap(9), 6);
    }
}
