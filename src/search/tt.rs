//! The transposition table, shared by every search thread without locks.
//!
//! Each entry is two `AtomicU64`: the data word and the key XOR-ed with the
//! data. A reader accepts an entry only if `stored_key ^ data == key`, so a
//! torn write (one word from one thread, one from another) is rejected
//! instead of being believed (Hyatt's lockless hashing). A wrong entry can
//! still slip through on a true 64-bit key collision, which is why the
//! search checks the stored move for legality before playing it.

use crate::board::moves::Move;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// The threads faulting a large table's pages in behind the engine's
    /// back; stopped and joined before the entries are freed.
    toucher: Option<Toucher>,
    /// Set by the first search since the memory was allocated: until then
    /// every entry is still zero, and `reset` has nothing to empty.
    searched: AtomicBool,
}

/// The background threads that fault a new table's pages in, each over
/// its own contiguous part of the table.
struct Toucher {
    stop: Arc<AtomicBool>,
    handles: Vec<std::thread::JoinHandle<()>>,
    started: Instant,
}

impl Toucher {
    fn finished(&self) -> bool {
        self.handles.iter().all(|h| h.is_finished())
    }
}

/// Up to this size a new table's pages are faulted in before `new`
/// returns (a few milliseconds); above, by a background thread.
const TOUCH_NOW_MB: usize = 64;

/// Bytes between two touches when faulting pages in: the smallest page.
const PAGE: usize = 4096;

/// At most this many threads fault a table's pages in. Faulting is mostly
/// the kernel zeroing memory, which several cores do faster than one.
const MAX_TOUCH_THREADS: usize = 8;

/// How long after a large table's allocation `isready` may wait for its
/// pages to be faulted in (`wait_touched`): long enough that a search
/// started right after `readyok` does not pay for the faults itself,
/// short enough that `readyok` still comes within a second.
pub const READY_WAIT: Duration = Duration::from_millis(850);

impl TranspositionTable {
    /// A table of `mb` mebibytes. Returns an error instead of aborting when
    /// the memory cannot be had.
    ///
    /// The memory comes from the allocator already zeroed (`alloc_zeroed`:
    /// for a large block, fresh pages from the system that read as zero
    /// until written), and an all-zero entry is an empty one, so nothing is
    /// written here: a table of gigabytes is ready in milliseconds. Linux
    /// is asked to back it with 2 MB pages (`advise_huge_pages`) before any
    /// page is touched. Each page still costs a fault (and the system's
    /// zeroing) the first time it is written; so that a search does not
    /// pay for them, a table above `TOUCH_NOW_MB` has its pages touched by a
    /// background thread, and a smaller one here.
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
        let entries = zeroed_entries(count)
            .ok_or_else(|| format!("cannot allocate {mb} MB for the hash table"))?;
        advise_huge_pages(&entries);
        let mut table = TranspositionTable {
            entries,
            age: std::sync::atomic::AtomicU8::new(0),
            toucher: None,
            searched: AtomicBool::new(false),
        };
        if mb <= TOUCH_NOW_MB {
            touch_pages(&table.entries, &AtomicBool::new(false));
        } else {
            table.toucher = table.spawn_toucher();
        }
        Ok(table)
    }

    /// Starts the threads that touch every page of the table once, one per
    /// core (at most `MAX_TOUCH_THREADS`), each over its own part. Where
    /// none can start, the search faults the pages in as it goes.
    fn spawn_toucher(&self) -> Option<Toucher> {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, MAX_TOUCH_THREADS);
        let part = self.entries.len().div_ceil(threads).max(1);
        let mut handles = Vec::new();
        for chunk in self.entries.chunks(part) {
            let (start, len) = (chunk.as_ptr() as usize, chunk.len());
            let flag = Arc::clone(&stop);
            let spawned = std::thread::Builder::new()
                .name("hash pages".to_string())
                .spawn(move || {
                    // SAFETY: the entries live until the table is dropped or
                    // given new memory, and both first stop and join these
                    // threads (`stop_toucher`); entries are atomics, shared
                    // with the search threads.
                    let entries = unsafe { std::slice::from_raw_parts(start as *const Entry, len) };
                    touch_pages(entries, &flag);
                });
            if let Ok(handle) = spawned {
                handles.push(handle);
            }
        }
        (!handles.is_empty()).then(|| Toucher {
            stop,
            handles,
            started: Instant::now(),
        })
    }

    /// Waits until the background threads have faulted every page in, but
    /// no later than `budget` after they started (at once when that has
    /// passed or there are none). `isready` calls it, so that a search
    /// started right after `readyok` finds the table's pages there.
    pub fn wait_touched(&self, budget: Duration) {
        let Some(toucher) = &self.toucher else {
            return;
        };
        let deadline = toucher.started + budget;
        while !toucher.finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn size_mb(&self) -> usize {
        (self.entries.len() * std::mem::size_of::<Entry>()) >> 20
    }

    /// Empties a table nothing else holds (`ucinewgame`, `Clear Hash`): a
    /// large one by handing its memory back and taking fresh zeroed memory
    /// of the same size (milliseconds, where writing gigabytes of zeros
    /// takes about a second here), its pages touched again in the
    /// background as after `new`; a small one in place.
    pub fn reset(&mut self) {
        if !self.searched.load(Ordering::Relaxed) {
            // Nothing was stored since the memory was allocated: it is
            // still empty, and its pages may still be being faulted in.
            return;
        }
        if self.size_mb() <= TOUCH_NOW_MB {
            self.clear();
            return;
        }
        self.stop_toucher();
        let count = self.entries.len();
        // Free the old block before asking for the new one, so both need
        // not fit at once.
        self.entries = Box::new([]);
        match zeroed_entries(count) {
            Some(entries) => {
                advise_huge_pages(&entries);
                self.entries = entries;
                self.toucher = self.spawn_toucher();
            }
            // The memory just freed is gone: keep the table usable, small.
            None => {
                self.entries =
                    zeroed_entries(1 << 16).unwrap_or_else(|| Box::new([Entry::default()]))
            }
        }
        self.age.store(0, Ordering::Relaxed);
        self.searched.store(false, Ordering::Relaxed);
    }

    /// Stops and joins the threads touching the pages, if any.
    fn stop_toucher(&mut self) {
        if let Some(toucher) = self.toucher.take() {
            toucher.stop.store(true, Ordering::Relaxed);
            for handle in toucher.handles {
                let _ = handle.join();
            }
        }
    }

    /// Empties the table in place; a large one split across the machine's
    /// cores.
    pub fn clear(&self) {
        let threads = if self.size_mb() > TOUCH_NOW_MB {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            1
        };
        let chunk = self.entries.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for part in self.entries.chunks(chunk) {
                s.spawn(move || {
                    for e in part {
                        e.key_xor_data.store(0, Ordering::Relaxed);
                        e.data.store(0, Ordering::Relaxed);
                    }
                });
            }
        });
        self.age.store(0, Ordering::Relaxed);
        self.searched.store(false, Ordering::Relaxed);
    }

    /// Marks the start of a new search.
    pub fn new_search(&self) {
        self.searched.store(true, Ordering::Relaxed);
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

impl Drop for TranspositionTable {
    fn drop(&mut self) {
        self.stop_toucher();
    }
}

/// `count` empty entries in memory the allocator hands out zeroed; `None`
/// when it cannot.
fn zeroed_entries(count: usize) -> Option<Box<[Entry]>> {
    let layout = std::alloc::Layout::array::<Entry>(count.max(1)).ok()?;
    // SAFETY: the layout's size is not zero (at least one 16-byte entry).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Entry>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` is a fresh allocation from the global allocator with
    // the layout of `count.max(1)` entries, which is the layout a
    // `Box<[Entry]>` of that length frees with; all-zero bytes are a valid
    // `Entry` (two `AtomicU64` zeros: an empty entry).
    Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, count.max(1))) })
}

/// Faults every page of `entries` in, writable, without changing its
/// contents, so that later writes find the page there; stops early when
/// `stop` is set. Linux populates each chunk with one `madvise`
/// (`MADV_POPULATE_WRITE`, Linux 5.14 on); elsewhere, or where that fails,
/// each page gets an atomic compare-exchange of 0 with 0 on one entry (a
/// write where the entry is empty, no change where a search has stored
/// into it). A plain read would not do: it maps the shared zero page.
fn touch_pages(entries: &[Entry], stop: &AtomicBool) {
    const CHUNK: usize = 32 << 20;
    let per_chunk = CHUNK / std::mem::size_of::<Entry>();
    let per_page = (PAGE / std::mem::size_of::<Entry>()).max(1);
    for chunk in entries.chunks(per_chunk) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        if populate_write(chunk) {
            continue;
        }
        for e in chunk.iter().step_by(per_page) {
            let _ = e
                .data
                .compare_exchange(0, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// Linux: faults the whole pages inside `entries` in, writable, without
/// changing them (`MADV_POPULATE_WRITE`); false where that is not done (a
/// kernel before 5.14, another system), which sends the caller to the
/// portable way.
fn populate_write(entries: &[Entry]) -> bool {
    const MADV_POPULATE_WRITE: i32 = 23;
    advise_pages(entries, MADV_POPULATE_WRITE)
}

/// Asks Linux to back the table's (still untouched) memory with 2 MB pages.
/// Probes land anywhere in the table, so with 4 KB pages nearly every probe
/// also misses the TLB; huge pages make that page walk rare. Only advice:
/// where transparent huge pages are off it changes nothing, so a failure is
/// ignored. (The perft table uses it too, on its reserved, not yet written
/// capacity.)
pub(crate) fn advise_huge_pages<T>(entries: &[T]) {
    const MADV_HUGEPAGE: i32 = 14;
    let _ = advise_pages(entries, MADV_HUGEPAGE);
}

/// `madvise(advice)` on the whole pages inside `entries`; true if Linux
/// took it. Only advices that never change the memory's contents are
/// passed here.
fn advise_pages<T>(entries: &[T], advice: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        let start = entries.as_ptr() as usize;
        let end = start + std::mem::size_of_val(entries);
        let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
        if first >= last {
            return false;
        }
        // SAFETY: the range is whole pages inside the slice's own
        // allocation, and the callers' advices (MADV_HUGEPAGE,
        // MADV_POPULATE_WRITE) change only how and when the kernel backs
        // those pages, never their contents, so they are safe beside
        // threads storing into the table.
        unsafe { madvise(first as *mut std::ffi::c_void, last - first, advice) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (entries, advice);
        false
    }
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
    fn a_large_table_starts_empty_and_clears_while_its_pages_are_touched() {
        // Above TOUCH_NOW_MB: zeroed memory, pages touched in the background.
        let tt = TranspositionTable::new(TOUCH_NOW_MB + 8).expect("72 MB");
        assert!(tt.toucher.is_some());
        assert_eq!(tt.size_mb(), TOUCH_NOW_MB + 8);
        let keys: Vec<u64> = (1..2000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
        assert_eq!(tt.hashfull(), 0);
        tt.new_search();
        for &k in &keys {
            tt.store(k, None, 5, 5, 3, Bound::Exact);
        }
        let found = keys.iter().filter(|&&k| tt.probe(k).is_some()).count();
        assert!(found > 1900, "{found}");
        tt.clear();
        assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
        tt.new_search();
        for &k in &keys {
            tt.store(k, None, 5, 5, 3, Bound::Exact);
        }
        let mut tt = tt;
        tt.reset(); // fresh memory, touched again in the background
        assert_eq!(tt.size_mb(), TOUCH_NOW_MB + 8);
        assert!(tt.toucher.is_some());
        assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
        tt.store(keys[0], None, 7, 7, 3, Bound::Exact);
        assert_eq!(tt.probe(keys[0]).map(|h| h.score), Some(7));
        drop(tt); // joins the background thread
    }

    #[test]
    fn a_table_never_searched_keeps_its_memory_on_reset() {
        let mut tt = TranspositionTable::new(TOUCH_NOW_MB + 8).expect("72 MB");
        let first = tt.entries.as_ptr();
        tt.wait_touched(Duration::from_secs(60));
        assert!(tt.toucher.as_ref().is_some_and(Toucher::finished));
        tt.reset(); // nothing stored yet: the same, still empty, memory
        assert_eq!(tt.entries.as_ptr(), first);
        assert!(tt.toucher.as_ref().is_some_and(Toucher::finished));
        tt.new_search();
        tt.store(42, None, 1, 1, 1, Bound::Exact);
        tt.reset(); // searched: emptied, with its pages touched again
        assert!(tt.probe(42).is_none());
        assert!(tt.toucher.is_some());
        // A wait whose budget has passed returns at once.
        tt.wait_touched(Duration::ZERO);
    }

    #[test]
    fn impossible_allocation_is_an_error() {
        assert!(TranspositionTable::new(usize::MAX >> 21).is_err());
    }
}
