//! The compressed value stream of one table part: blocks of canonical
//! Huffman codes over a dictionary of symbols, each symbol either one value
//! or a pair of symbols (so one code can stand for a run of values).
//!
//! Everything is read through bounds-checked accessors; a count or offset
//! that does not fit the file gives `None`, and every loop is bounded by the
//! data it walks, so corrupt bytes cannot make a probe panic or hang.

/// Little-endian u16 at `at`.
pub fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// Little-endian u32 at `at`.
pub fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Big-endian u32 at `at`, zero-padded past the end of the file (the bit
/// reader may look ahead a few bytes beyond the last block).
fn read_be_u32_padded(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    for (i, w) in word.iter_mut().enumerate() {
        *w = at
            .checked_add(i)
            .and_then(|p| bytes.get(p))
            .copied()
            .unwrap_or(0);
    }
    u32::from_be_bytes(word)
}

/// A symbol's bytes: a leaf's value is its low 12 bits.
pub type Symbol = [u8; 3];

/// How the values of a part are stored.
#[derive(Debug)]
pub enum Codebook {
    /// Every position has the same value.
    Constant(Symbol),
    Compressed(Box<Huffman>),
}

/// Decoding tables of a compressed part; offsets are into the file.
#[derive(Debug)]
pub struct Huffman {
    block_size_log: u32,
    index_bits: u32,
    min_len: u32,
    /// Per code length (from `min_len`): the first symbol, as file offset of
    /// its u16.
    first_symbol_at: usize,
    /// Per code length: the smallest code, left-aligned in 64 bits.
    base: Vec<u64>,
    /// Per symbol: values it stands for, minus one.
    run_len: Vec<u8>,
    symbols_at: usize,
    blocks: u32,
    stored_blocks: u32,
    pub index_table_at: usize,
    pub size_table_at: usize,
    pub data_at: usize,
}

/// Sizes (in bytes) of the three regions a compressed part owns later in
/// the file: its index table, its block-size table and its blocks.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegionSizes {
    pub index: usize,
    pub sizes: usize,
    pub data: usize,
}

impl Codebook {
    /// Reads a part's header at `*at` (advanced past it). `wdl`: a constant
    /// WDL part stores its value; a constant DTZ part is 0. `positions`:
    /// the part's number of positions. Also returns the part's flags byte.
    pub fn parse(
        bytes: &[u8],
        at: &mut usize,
        positions: u64,
        wdl: bool,
    ) -> Option<(Codebook, u8, RegionSizes)> {
        let start = *at;
        let flags = *bytes.get(start)?;
        if flags & 0x80 != 0 {
            let value = if wdl { *bytes.get(start + 1)? } else { 0 };
            *at = start + 2;
            return Some((
                Codebook::Constant([value, 0, 0]),
                flags,
                RegionSizes::default(),
            ));
        }
        let block_size_log = u32::from(*bytes.get(start + 1)?);
        let index_bits = u32::from(*bytes.get(start + 2)?);
        let extra_blocks = u32::from(*bytes.get(start + 3)?);
        let stored_blocks = read_u32(bytes, start + 4)?;
        let max_len = u32::from(*bytes.get(start + 8)?);
        let min_len = u32::from(*bytes.get(start + 9)?);
        if !(1..=40).contains(&index_bits)
            || block_size_log > 32
            || min_len == 0
            || max_len < min_len
            || max_len > 32
        {
            return None;
        }
        let lengths = (max_len - min_len + 1) as usize;
        let first_symbol_at = start + 10;
        let symbol_count = read_u16(bytes, first_symbol_at + 2 * lengths)? as usize;
        let symbols_at = first_symbol_at + 2 * lengths + 2;
        let symbols_end = symbols_at + 3 * symbol_count;
        bytes.get(symbols_at..symbols_end)?;
        *at = symbols_end + (symbol_count & 1);

        let run_len = run_lengths(bytes, symbols_at, symbol_count)?;

        // Canonical code bases, longest code first.
        let mut base = vec![0u64; lengths];
        for i in (0..lengths.saturating_sub(1)).rev() {
            let here = u64::from(read_u16(bytes, first_symbol_at + 2 * i)?);
            let next = u64::from(read_u16(bytes, first_symbol_at + 2 * (i + 1))?);
            base[i] = base[i + 1].wrapping_add(here).wrapping_sub(next) / 2;
        }
        for (i, b) in base.iter_mut().enumerate() {
            *b = b.checked_shl(64 - (min_len + i as u32))?;
        }

        let chunks = positions.div_ceil(1u64 << index_bits);
        let blocks = stored_blocks.checked_add(extra_blocks)?;
        let sizes = RegionSizes {
            index: usize::try_from(chunks.checked_mul(6)?).ok()?,
            sizes: 2 * blocks as usize,
            data: usize::try_from((u64::from(stored_blocks)).checked_shl(block_size_log)?).ok()?,
        };
        let huffman = Huffman {
            block_size_log,
            index_bits,
            min_len,
            first_symbol_at,
            base,
            run_len,
            symbols_at,
            blocks,
            stored_blocks,
            index_table_at: 0,
            size_table_at: 0,
            data_at: 0,
        };
        Some((Codebook::Compressed(Box::new(huffman)), flags, sizes))
    }

    /// The symbol of position `index`.
    pub fn symbol(&self, bytes: &[u8], index: u64) -> Option<Symbol> {
        match self {
            Codebook::Constant(symbol) => Some(*symbol),
            Codebook::Compressed(h) => h.symbol(bytes, index),
        }
    }
}

/// Values each symbol stands for, minus one, checking the symbol tree is
/// well formed (children in range, no cycle, runs under 256).
fn run_lengths(bytes: &[u8], symbols_at: usize, count: usize) -> Option<Vec<u8>> {
    const UNSEEN: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; count];
    let mut len = vec![0u8; count];
    let mut stack = Vec::new();
    for root in 0..count {
        if state[root] == DONE {
            continue;
        }
        stack.push(root);
        while let Some(&s) = stack.last() {
            let (left, right) = children(bytes, symbols_at, s)?;
            let Some((left, right)) = left.zip(right) else {
                state[s] = DONE;
                len[s] = 0;
                stack.pop();
                continue;
            };
            if left >= count || right >= count {
                return None;
            }
            if state[s] == UNSEEN {
                state[s] = OPEN;
                for child in [left, right] {
                    match state[child] {
                        UNSEEN => stack.push(child),
                        OPEN => return None,
                        _ => {}
                    }
                }
            } else {
                if state[left] != DONE || state[right] != DONE {
                    return None;
                }
                let total = u32::from(len[left]) + u32::from(len[right]) + 1;
                len[s] = u8::try_from(total).ok()?;
                state[s] = DONE;
                stack.pop();
            }
        }
    }
    Some(len)
}

/// A symbol's two children, or `(None, None)` for a leaf.
fn children(bytes: &[u8], symbols_at: usize, s: usize) -> Option<(Option<usize>, Option<usize>)> {
    let w = bytes.get(symbols_at + 3 * s..symbols_at + 3 * s + 3)?;
    let right = (usize::from(w[2]) << 4) | usize::from(w[1] >> 4);
    if right == 0xfff {
        return Some((None, None));
    }
    let left = (usize::from(w[1] & 0xf) << 8) | usize::from(w[0]);
    Some((Some(left), Some(right)))
}

impl Huffman {
    fn symbol(&self, bytes: &[u8], index: u64) -> Option<Symbol> {
        let chunk = usize::try_from(index >> self.index_bits).ok()?;
        let half = 1i64 << (self.index_bits - 1);
        let mut offset = (index & ((1u64 << self.index_bits) - 1)) as i64 - half;
        let entry = self.index_table_at.checked_add(chunk.checked_mul(6)?)?;
        let mut block = read_u32(bytes, entry)?;
        offset += i64::from(read_u16(bytes, entry + 4)?);

        // Walk to the block that holds the position.
        let block_len = |b: u32| -> Option<i64> {
            if b >= self.blocks {
                return None;
            }
            Some(i64::from(read_u16(bytes, self.size_table_at + 2 * b as usize)?) + 1)
        };
        while offset < 0 {
            block = block.checked_sub(1)?;
            offset += block_len(block)?;
        }
        loop {
            let len = block_len(block)?;
            if offset < len {
                break;
            }
            offset -= len;
            block = block.checked_add(1)?;
        }
        if block >= self.stored_blocks {
            return None;
        }

        // Decode codes until the one covering `offset`.
        let mut at = self
            .data_at
            .checked_add((block as usize).checked_shl(self.block_size_log)?)?;
        bytes.get(at)?;
        let mut code = (u64::from(read_be_u32_padded(bytes, at)) << 32)
            | u64::from(read_be_u32_padded(bytes, at + 4));
        at += 8;
        let mut spare_bits = 0u32;
        let mut sym;
        loop {
            let mut l = 0usize;
            while code < *self.base.get(l)? {
                l += 1;
            }
            let len = self.min_len + l as u32;
            let first = u64::from(read_u16(bytes, self.first_symbol_at + 2 * l)?);
            sym = usize::try_from(first + ((code - self.base[l]) >> (64 - len))).ok()?;
            let run = i64::from(*self.run_len.get(sym)?) + 1;
            if offset < run {
                break;
            }
            offset -= run;
            code <<= len;
            spare_bits += len;
            if spare_bits >= 32 {
                spare_bits -= 32;
                code |= u64::from(read_be_u32_padded(bytes, at)) << spare_bits;
                at += 4;
            }
        }

        // Descend the pair tree to the single value.
        while self.run_len[sym] != 0 {
            let (left, right) = children(bytes, self.symbols_at, sym)?;
            let (left, right) = left.zip(right)?;
            let left_run = i64::from(*self.run_len.get(left)?) + 1;
            if offset < left_run {
                sym = left;
            } else {
                offset -= left_run;
                sym = right;
            }
            self.run_len.get(sym)?;
        }
        let w = bytes.get(self.symbols_at + 3 * sym..self.symbols_at + 3 * sym + 3)?;
        Some([w[0], w[1], w[2]])
    }
}
