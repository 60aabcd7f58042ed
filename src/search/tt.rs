//! The transposition table, shared by every search thread without locks.
//!
//! Each entry is two `AtomicU64`: the data word and the key XOR-ed with the
//! data. A reader accepts an entry only if `stored_key ^ data == key`, so a
//! torn write (one word from one thread, one from another) is rejected
//! instead of being believed (Hyatt's lockless hashing). A wrong entry can
//! still slip through on a true 64-bit key collision, which is why the
//! search checks the stored move for legality before playing it.

use crate::board::moves::Move;
use std::sync::atomic::{AtomicU64, Ordering};

/// How a stored score relates to the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most this (fail low).
    Upper = 1,
    /// The true score is at least this (fail high).
    Lower = 2,
    Exact = 3,
}

/// What a probe returns.
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    pub mv: Option<Move>,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 16);

// Data word layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | age 6.
fn pack(mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let mv = mv.map_or(0, |m| m.bits()) as u64;
    let score = score as i16 as u16 as u64;
    let eval = eval as i16 as u16 as u64;
    let depth = depth.clamp(-1, 254) as i8 as u8 as u64;
    mv | score << 16 | eval << 32 | depth << 48 | (bound as u64) << 56 | ((age & 63) as u64) << 58
}

fn unpack(data: u64) -> Option<TtHit> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(TtHit {
        mv: Move::from_bits(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: (data >> 48) as u8 as i8 as i32,
        bound,
    })
}

pub struct TranspositionTable {
    entries: Box<[Entry]>,
    /// Bumped each search so entries from old searches are replaced first.
    age: std::sync::atomic::AtomicU8,
}

impl TranspositionTable {
    /// A table of `mb` mebibytes. Returns an error instead of aborting when
    /// the memory cannot be had.
    pub fn new(mb: usize) -> Result<TranspositionTable, String> {
        // With memory overcommit an allocation "succeeds" and the process is
        // killed later when the table is touched: refuse what the machine
        // does not have free now.
        if let Some(available) = available_memory_mb() {
            if mb > available.saturating_sub(256) {
                return Err(format!("cannot allocate {mb} MB for the hash table: only {available} MB of memory is available"));
            }
        }
        let count = mb
            .max(1)
            .checked_mul(1 << 20)
            .ok_or_else(|| format!("{mb} MB is too large"))?
            / std::mem::size_of::<Entry>();
        let mut entries: Vec<Entry> = Vec::new();
        entries
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate {mb} MB for the hash table"))?;
        advise_huge_pages(&entries);
        entries.resize_with(count, Entry::default);
        Ok(TranspositionTable {
            entries: entries.into_boxed_slice(),
            age: std::sync::atomic::AtomicU8::new(0),
        })
    }

    pub fn size_mb(&self) -> usize {
        (self.entries.len() * std::mem::size_of::<Entry>()) >> 20
    }

    pub fn clear(&self) {
        for e in self.entries.iter() {
            e.key_xor_data.store(0, Ordering::Relaxed);
            e.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search.
    pub fn new_search(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age.store(age.wrapping_add(1) & 63, Ordering::Relaxed);
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &Entry {
        // Multiply-shift maps the key onto the table without a division.
        let index = ((key as u128 * self.entries.len() as u128) >> 64) as usize;
        &self.entries[index]
    }

    /// Asks the CPU to start loading the slot of `key`, so that a probe made a
    /// little later (in the child node) finds it in cache instead of waiting
    /// on main memory, the largest single cost of a node.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Entry = self.slot(key);
            // SAFETY: SSE is part of every x86_64 CPU, and a prefetch is only a
            // hint: it reads nothing into the program and cannot fault, even on a
            // bad address (this one is in the table anyway).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtHit> {
        let e = self.slot(key);
        let data = e.data.load(Ordering::Relaxed);
        let check = e.key_xor_data.load(Ordering::Relaxed);
        if check ^ data != key {
            return None;
        }
        unpack(data)
    }

    /// Stores an entry, replacing the old one unless that is deeper, from the
    /// current search and about another position.
    #[inline]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let e = self.slot(key);
        let age = self.age.load(Ordering::Relaxed);
        let old_data = e.data.load(Ordering::Relaxed);
        let old_key = e.key_xor_data.load(Ordering::Relaxed) ^ old_data;
        let same = old_key == key;
        let old_depth = (old_data >> 48) as u8 as i8 as i32;
        let old_age = ((old_data >> 58) & 63) as u8;
        let replace = !same && (old_age != age || depth + 2 >= old_depth)
            || same && (bound == Bound::Exact || depth + 3 >= old_depth);
        if !replace {
            return;
        }
        // Keep the old move when the new entry has none for the same position.
        let mv = if mv.is_none() && same {
            Move::from_bits(old_data as u16)
        } else {
            mv
        };
        let data = pack(mv, score, eval, depth, bound, age);
        e.data.store(data, Ordering::Relaxed);
        e.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of a sample of entries used by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let sample = self.entries.len().min(1000);
        let used = self.entries[..sample]
            .iter()
            .filter(|e| {
                let d = e.data.load(Ordering::Relaxed);
                (d >> 56) & 3 != 0 && ((d >> 58) & 63) as u8 == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// Asks Linux to back the table's (still untouched) memory with 2 MB pages.
/// Probes land anywhere in the table, so with 4 KB pages nearly every probe
/// also misses the TLB; huge pages make that page walk rare. Only advice:
/// where transparent huge pages are off it changes nothing. (The perft
/// table uses it too.)
pub(crate) fn advise_huge_pages<T>(entries: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = entries.as_ptr() as usize;
        let end = start + entries.capacity() * std::mem::size_of::<T>();
        let first_page = start.next_multiple_of(PAGE);
        if first_page < end {
            // SAFETY: the range lies inside the vector's own allocation, and
            // MADV_HUGEPAGE only changes how the kernel backs those pages,
            // never their contents; a failure (an old kernel, THP off) is
            // harmless, so its result is ignored.
            unsafe {
                madvise(
                    first_page as *mut std::ffi::c_void,
                    end - first_page,
                    MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = entries;
}

/// Memory the system can still hand out (Linux `MemAvailable`), if known.
pub(crate) fn available_memory_mb() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::types::Square;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1).expect("1 MB");
        let mv = Move::normal(Square::E1, Square::E8);
        tt.store(0xDEAD_BEEF, Some(mv), -31000, 25, 7, Bound::Lower);
        let hit = tt.probe(0xDEAD_BEEF).expect("stored entry is found");
        assert_eq!(hit.mv, Some(mv));
        assert_eq!(
            (hit.score, hit.eval, hit.depth, hit.bound),
            (-31000, 25, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEE).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF).is_none());
    }

    #[test]
    fn impossible_allocation_is_an_error() {
        assert!(TranspositionTable::new(usize::MAX >> 21).is_err());
    }
}
