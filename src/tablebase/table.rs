//! One table file: its material (from the file name), the layout of its
//! header (parsed once, on first use), and reading a position's value.
//!
//! A table names its stronger side first ("KRPvKR"); we call that side the
//! table's white. A position matches the table either as is or with colours
//! swapped (then, in pawn tables, with ranks mirrored too).

use super::codebook::{read_u16, Codebook, RegionSizes};
use super::index::{
    first_factor, lead_pawn_file, pawn_file_size, placements, position_index, Numbering, Shape,
    MAX_PIECES,
};
use crate::board::position::Position;
use crate::board::types::{Color, PieceKind};
use memmap2::Mmap;

pub const WDL_MAGIC: u32 = 0x5d23_e871;
pub const DTZ_MAGIC: u32 = 0xa50c_66d7;

/// Piece kinds in a table name, with their order in our material key.
const NAME_KINDS: [(char, PieceKind); 5] = [
    ('P', PieceKind::Pawn),
    ('N', PieceKind::Knight),
    ('B', PieceKind::Bishop),
    ('R', PieceKind::Rook),
    ('Q', PieceKind::Queen),
];

/// Material key: 4 bits per (colour, kind), kings left out.
fn pack(counts: &[[u8; 5]; 2]) -> u64 {
    let mut key = 0u64;
    for (side, row) in counts.iter().enumerate() {
        for (kind, &n) in row.iter().enumerate() {
            key |= u64::from(n & 15) << (4 * (side * 5 + kind));
        }
    }
    key
}

/// The material key of a position (White's pieces as the first side).
pub fn position_key(pos: &Position) -> u64 {
    let mut counts = [[0u8; 5]; 2];
    for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
        for (i, (_, kind)) in NAME_KINDS.iter().enumerate() {
            counts[side][i] = pos.pieces_of(color, *kind).count() as u8;
        }
    }
    pack(&counts)
}

/// What a table's name says.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// Material key with the table's white as White.
    pub key: u64,
    /// Material key with colours swapped.
    pub mirrored_key: u64,
    /// Both sides have the same material.
    pub symmetric: bool,
    pub shape: Shape,
}

impl TableInfo {
    /// Reads a name such as `KRPvKR`; `None` unless it is one.
    pub fn from_name(name: &str) -> Option<TableInfo> {
        let (white, black) = name.split_once('v')?;
        let mut counts = [[0u8; 5]; 2];
        let mut pieces = 0;
        for (side, text) in [white, black].iter().enumerate() {
            let rest = text.strip_prefix('K')?;
            pieces += 1;
            for c in rest.chars() {
                let i = NAME_KINDS.iter().position(|(l, _)| *l == c)?;
                counts[side][i] += 1;
                pieces += 1;
            }
        }
        if !(3..=MAX_PIECES).contains(&pieces) {
            return None;
        }
        let key = pack(&counts);
        let mirrored_key = pack(&[counts[1], counts[0]]);
        let (wp, bp) = (counts[0][0], counts[1][0]);
        // The leading pawns are those of the side with fewer (but some).
        let pawns = if bp > 0 && (wp == 0 || wp > bp) {
            [bp, wp]
        } else {
            [wp, bp]
        };
        let unique = counts.iter().flatten().filter(|&&n| n == 1).count() + 2;
        Some(TableInfo {
            key,
            mirrored_key,
            symmetric: key == mirrored_key,
            shape: Shape {
                pieces,
                kings_only_unique: unique == 2,
                pawns,
                has_pawns: wp + bp > 0,
            },
        })
    }
}

/// One independently numbered and compressed part of a table.
#[derive(Debug)]
struct Part {
    numbering: Numbering,
    codebook: Codebook,
}

/// A loaded table file: its bytes (mapped, see `file.rs`) and the parsed
/// header.
pub struct Table {
    bytes: Mmap,
    /// WDL: `[side * files + file]`; DTZ: `[file]`.
    parts: Vec<Part>,
    files: usize,
    /// WDL: one part per side to move (else only side 0 is stored).
    two_sides: bool,
    /// DTZ only, per file: bit 0 the side to move stored, bit 1 values go
    /// through a map, bit 2/3 win/loss values are exact (not halved), bit 4
    /// the map has 16-bit entries.
    dtz_flags: [u8; 4],
    /// DTZ only, per file and map: file offset of the map's first entry.
    dtz_maps: [[usize; 4]; 4],
}

impl std::fmt::Debug for Table {
    /// The sizes only: the bytes are megabytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("bytes", &self.bytes.len())
            .field("parts", &self.parts.len())
            .field("two_sides", &self.two_sides)
            .finish()
    }
}

/// A DTZ table read.
pub enum DtzRead {
    Value(i32),
    /// The table holds the other side to move.
    OtherSide,
}

impl Table {
    /// Parses `bytes` (already checked for the magic) as a WDL or DTZ table.
    pub fn parse(bytes: Mmap, info: &TableInfo, dtz: bool) -> Option<Table> {
        let shape = &info.shape;
        let flags = *bytes.get(4)?;
        let two_sides = !dtz && flags & 1 != 0;
        let files = if shape.has_pawns { 4 } else { 1 };
        let other_pawns = shape.has_pawns && shape.pawns[1] > 0;
        let mut at = 5;

        // Numberings, per file, for side 0 then (if stored) side 1.
        let mut numberings: Vec<[Option<(Numbering, u64)>; 2]> = Vec::new();
        for file in 0..files {
            let side0 = numbering(&bytes, at, shape, file, 0)?;
            let side1 = if two_sides {
                Some(numbering(&bytes, at, shape, file, 4)?)
            } else {
                None
            };
            numberings.push([Some(side0), side1]);
            at += shape.pieces + 1 + usize::from(other_pawns);
        }
        at += at & 1;

        // Codebook headers, in the same order.
        let sides = if two_sides { 2 } else { 1 };
        let mut books: Vec<Vec<(Numbering, Codebook, RegionSizes)>> =
            (0..sides).map(|_| Vec::new()).collect();
        let mut dtz_flags = [0u8; 4];
        for (file, pair) in numberings.into_iter().enumerate() {
            for (side, entry) in pair.into_iter().enumerate() {
                let Some((numbering, positions)) = entry else {
                    continue;
                };
                let (book, part_flags, sizes) = Codebook::parse(&bytes, &mut at, positions, !dtz)?;
                if dtz {
                    dtz_flags[file] = part_flags;
                }
                books.get_mut(side)?.push((numbering, book, sizes));
            }
        }

        let mut dtz_maps = [[0usize; 4]; 4];
        if dtz {
            for file in 0..files {
                let f = dtz_flags[file];
                if f & 2 == 0 {
                    continue;
                }
                if f & 16 == 0 {
                    for map in dtz_maps[file].iter_mut() {
                        *map = at + 1;
                        at += 1 + usize::from(*bytes.get(at)?);
                    }
                } else {
                    at += at & 1;
                    for map in dtz_maps[file].iter_mut() {
                        *map = at + 2;
                        at += 2 + 2 * usize::from(read_u16(&bytes, at)?);
                    }
                }
            }
            at += at & 1;
        }

        // Regions, interleaved by file then side: index tables, size tables,
        // then the 64-byte aligned blocks.
        let order: Vec<(usize, usize)> = (0..files)
            .flat_map(|f| (0..sides).map(move |s| (s, f)))
            .collect();
        for &(side, file) in &order {
            let (_, book, sizes) = books.get_mut(side)?.get_mut(file)?;
            if let Codebook::Compressed(h) = book {
                h.index_table_at = at;
            }
            at = at.checked_add(sizes.index)?;
        }
        for &(side, file) in &order {
            let (_, book, sizes) = books.get_mut(side)?.get_mut(file)?;
            if let Codebook::Compressed(h) = book {
                h.size_table_at = at;
            }
            at = at.checked_add(sizes.sizes)?;
        }
        for &(side, file) in &order {
            let (_, book, sizes) = books.get_mut(side)?.get_mut(file)?;
            at = at.checked_add(63)? & !63;
            if let Codebook::Compressed(h) = book {
                h.data_at = at;
            }
            at = at.checked_add(sizes.data)?;
        }
        if at > bytes.len() {
            return None;
        }
        let parts = books
            .into_iter()
            .flatten()
            .map(|(numbering, codebook, _)| Part {
                numbering,
                codebook,
            })
            .collect();
        Some(Table {
            bytes,
            parts,
            files,
            two_sides,
            dtz_flags,
            dtz_maps,
        })
    }

    /// The WDL value (-2..=2) of `pos` for its side to move.
    pub fn wdl(&self, info: &TableInfo, pos: &Position) -> Option<i32> {
        let (side, flip) = orientation(info, pos);
        if side == 1 && !self.two_sides {
            return None;
        }
        let (_, part, index) = self.locate(info, pos, flip, |file| side * self.files + file)?;
        let symbol = part.codebook.symbol(&self.bytes, index)?;
        match symbol[0] {
            v @ 0..=4 => Some(i32::from(v) - 2),
            _ => None,
        }
    }

    /// The stored distance of `pos`, which has WDL value `wdl` (not 0).
    pub fn dtz(&self, info: &TableInfo, pos: &Position, wdl: i32) -> Option<DtzRead> {
        let (side, flip) = orientation(info, pos);
        let (file, part, index) = self.locate(info, pos, flip, |file| file)?;
        let flags = *self.dtz_flags.get(file)?;
        if usize::from(flags & 1) != side && !info.symmetric {
            return Some(DtzRead::OtherSide);
        }
        let symbol = part.codebook.symbol(&self.bytes, index)?;
        let mut value = usize::from(symbol[0]) | (usize::from(symbol[1] & 0x0f) << 8);
        if flags & 2 != 0 {
            let map = match wdl {
                -2 => 1,
                -1 => 3,
                1 => 2,
                _ => 0,
            };
            let start = *self.dtz_maps.get(file)?.get(map)?;
            value = if flags & 16 == 0 {
                usize::from(*self.bytes.get(start.checked_add(value)?)?)
            } else {
                usize::from(read_u16(&self.bytes, start.checked_add(2 * value)?)?)
            };
        }
        let exact = match wdl {
            2 => flags & 4 != 0,
            -2 => flags & 8 != 0,
            _ => false,
        };
        let value = i32::try_from(value).ok()?;
        Some(DtzRead::Value(if exact { value } else { 2 * value }))
    }

    /// Squares of `pos` in the table's slot order, and the position's part
    /// (`part_of(file)`) and index in it.
    fn locate(
        &self,
        info: &TableInfo,
        pos: &Position,
        flip: bool,
        part_of: impl Fn(usize) -> usize,
    ) -> Option<(usize, &Part, u64)> {
        let shape = &info.shape;
        let mirror = if shape.has_pawns && flip { 0x38 } else { 0 };
        let mut squares = [0u8; MAX_PIECES];
        let mut file = 0;
        let mut filled = 0;
        if shape.has_pawns {
            let first = &self.parts.get(part_of(0))?.numbering;
            let lead = usize::from(shape.pawns[0]);
            filled = fill(&mut squares, 0, lead, &first.pieces, pos, flip, mirror)?;
            file = lead_pawn_file(&mut squares, lead)?;
        }
        let part = self.parts.get(part_of(file))?;
        let filled = fill(
            &mut squares,
            filled,
            shape.pieces,
            &part.numbering.pieces,
            pos,
            flip,
            mirror,
        )?;
        if filled != shape.pieces {
            return None;
        }
        let index = position_index(&mut squares, shape, &part.numbering)?;
        Some((file, part, index))
    }
}

/// Which side of the table is to move (0: its white), and whether the
/// position's colours are swapped against the table's.
fn orientation(info: &TableInfo, pos: &Position) -> (usize, bool) {
    let white_to_move = pos.side_to_move() == Color::White;
    if info.symmetric {
        (0, !white_to_move)
    } else {
        let flip = position_key(pos) != info.key;
        (usize::from(white_to_move == flip), flip)
    }
}

/// Writes the squares of the pieces named by `codes[from..]` into
/// `squares[from..]`, group by group, until slot `to`; returns the slot
/// reached.
fn fill(
    squares: &mut [u8; MAX_PIECES],
    from: usize,
    to: usize,
    codes: &[u8; MAX_PIECES],
    pos: &Position,
    flip: bool,
    mirror: u8,
) -> Option<usize> {
    let mut slot = from;
    while slot < to {
        let code = *codes.get(slot)?;
        let kind = match code & 7 {
            k @ 1..=6 => PieceKind::from_index(usize::from(k - 1)),
            _ => return None,
        };
        let table_black = code & 8 != 0;
        let color = if table_black != flip {
            Color::Black
        } else {
            Color::White
        };
        let start = slot;
        for sq in pos.pieces_of(color, kind) {
            *squares.get_mut(slot)? = sq.index() as u8 ^ mirror;
            slot += 1;
        }
        // The group must be exactly the run of this code in the slot order.
        if slot == start || slot > to || codes[start..slot].iter().any(|&c| c != code) {
            return None;
        }
        if codes.get(slot) == Some(&code) && slot < to {
            return None;
        }
    }
    Some(slot)
}

/// A part's numbering from the header byte run at `at` (`shift` 0 for side
/// 0, 4 for side 1), and its number of positions.
fn numbering(
    bytes: &[u8],
    at: usize,
    shape: &Shape,
    file: usize,
    shift: u32,
) -> Option<(Numbering, u64)> {
    let n = shape.pieces;
    let other_pawns = shape.has_pawns && shape.pawns[1] > 0;
    let nibble = |i: usize| -> Option<u8> { Some((bytes.get(at + i)? >> shift) & 0x0f) };
    let mut nb = Numbering::default();
    for i in 0..n {
        nb.pieces[i] = nibble(i + 1 + usize::from(other_pawns))?;
    }
    let order = usize::from(nibble(0)?);
    let order2 = if other_pawns {
        usize::from(nibble(1)?)
    } else {
        0x0f
    };

    let first = if shape.has_pawns {
        usize::from(shape.pawns[0])
    } else if shape.kings_only_unique {
        2
    } else {
        3
    };
    nb.group[0] = first as u8;
    let mut k = first;
    if other_pawns {
        nb.group[k] = shape.pawns[1];
        k += usize::from(shape.pawns[1]);
    }
    let mut i = k;
    while i < n {
        let run = nb.pieces[i..n]
            .iter()
            .take_while(|&&p| p == nb.pieces[i])
            .count();
        nb.group[i] = run as u8;
        i += run;
    }

    // Factors, in the order the header gives for the first groups.
    let mut free = 64usize.checked_sub(k)?;
    let mut size = 1u64;
    let mut step = 0;
    while k < n || step == order || step == order2 {
        if step > 2 * MAX_PIECES + 16 {
            return None;
        }
        if step == order {
            nb.factor[0] = size;
            let first_size = if shape.has_pawns {
                pawn_file_size(first, file)?
            } else {
                first_factor(shape.kings_only_unique)
            };
            size = size.checked_mul(first_size)?;
        } else if step == order2 {
            let lead = first;
            nb.factor[lead] = size;
            size = size.checked_mul(placements(usize::from(nb.group[lead]), 48 - lead)?)?;
        } else {
            let group = usize::from(*nb.group.get(k)?);
            if group == 0 {
                return None;
            }
            nb.factor[k] = size;
            size = size.checked_mul(placements(group, free)?)?;
            free = free.checked_sub(group)?;
            k += group;
        }
        step += 1;
    }
    Some((nb, size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_up_to_seven_pieces_are_tables() {
        let seven = TableInfo::from_name("KQRBvKQR").expect("a 7-piece table");
        assert_eq!(seven.shape.pieces, 7);
        assert!(!seven.shape.has_pawns && !seven.symmetric);
        let pawns = TableInfo::from_name("KPPPvKPP").expect("a 7-piece pawn table");
        // The side with fewer pawns leads.
        assert_eq!(pawns.shape.pawns, [2, 3]);
        assert!(TableInfo::from_name("KRRvKRR").is_some_and(|t| t.symmetric));
        assert!(TableInfo::from_name("KQRBNvKQR").is_none(), "8 pieces");
        assert!(TableInfo::from_name("KQvQ").is_none());
    }
}
