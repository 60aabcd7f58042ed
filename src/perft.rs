//! Perft (move path enumeration): plain, divided by root move, split over
//! threads, with or without a table of counts shared by the threads, and a
//! runner for whole suites of positions with expected counts.
//!
//! Fully legal generation; the last ply is bulk-counted with
//! [`count_legal`](crate::board::movegen::count_legal), and the ply before
//! it makes its moves on the bitboards only.
//!
//! The table ([`PerftTable`]) maps (position, depth) to a count, so a deep
//! count meets each transposition once. A hit is trusted only when the whole
//! 64-bit key and the depth match; key and count are stored as two words,
//! `key ^ data` and `data`, so a torn read (the words of two different
//! writes, possible since threads write without locks) fails the check
//! instead of giving a wrong count. What is left is a true 64-bit key
//! collision, as in every hashed perft.

use crate::board::movegen::{count_legal_inline, generate_all_inline, legal_moves};
use crate::board::moves::{Move, MoveList};
use crate::board::position::Position;
use crate::search::tt::{advise_huge_pages, available_memory_mb};
use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The number of leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_with(pos, depth, &NoTable)
}

/// [`perft`] with a table of counts (shared with other threads if wanted).
pub fn perft_hashed(pos: &Position, depth: u32, table: &PerftTable) -> u64 {
    perft_with(pos, depth, table)
}

fn perft_with<T: Counts>(pos: &Position, depth: u32, table: &T) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_x86_64_v3() {
            // SAFETY: every feature `perft_v3` is compiled with was detected
            // on this CPU just above.
            return unsafe { perft_v3(pos, depth, table) };
        }
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports POPCNT (checked just above), the only
            // requirement for calling a function compiled with that feature.
            return unsafe { perft_popcnt(pos, depth, table) };
        }
    }
    perft_portable(pos, depth, table)
}

/// Whether the CPU has the x86-64-v3 instructions `perft_v3` is compiled with.
#[cfg(target_arch = "x86_64")]
fn has_x86_64_v3() -> bool {
    std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("avx2")
}

/// Perft compiled for the baseline CPU.
fn perft_portable<T: Counts>(pos: &Position, depth: u32, table: &T) -> u64 {
    perft_body(pos, depth, table, |p, d| perft_portable(p, d, table))
}

/// The same code compiled with the POPCNT instruction, which the last-ply
/// move count leans on: about 1.4x faster than the baseline build.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn perft_popcnt<T: Counts>(pos: &Position, depth: u32, table: &T) -> u64 {
    // The closure inherits this function's target feature, so the recursive
    // call needs no `unsafe`.
    perft_body(pos, depth, table, |p, d| perft_popcnt(p, d, table))
}

/// The same code for x86-64-v3 CPUs (Haswell, Zen and later): BMI1's
/// `blsr`/`tzcnt` for the square loops and AVX2 for copying the position.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt,avx2")]
fn perft_v3<T: Counts>(pos: &Position, depth: u32, table: &T) -> u64 {
    perft_body(pos, depth, table, |p, d| perft_v3(p, d, table))
}

/// The shallowest depth whose counts go into the table: below it a subtree
/// costs less to count again than a probe that misses the cache.
const HASH_MIN_DEPTH: u32 = 2;

#[inline(always)]
fn perft_body<T: Counts>(
    pos: &Position,
    depth: u32,
    table: &T,
    recurse: impl Fn(&Position, u32) -> u64,
) -> u64 {
    match depth {
        0 => 1,
        1 => count_legal_inline(pos),
        _ => {
            let key = (T::ENABLED && depth >= HASH_MIN_DEPTH).then(|| table_key(pos));
            if let Some(key) = key {
                if let Some(nodes) = table.probe(key, depth) {
                    return nodes;
                }
            }
            let mut nodes = 0;
            let mut moves = MoveList::new();
            generate_all_inline(pos, &mut moves);
            if depth == 2 {
                for &mv in &moves {
                    let mut next = *pos;
                    next.make_move_for_count(mv);
                    nodes += count_legal_inline(&next);
                }
            } else {
                for &mv in &moves {
                    let mut next = *pos;
                    next.make_move_inline(mv);
                    nodes += recurse(&next, depth - 1);
                }
            }
            if let Some(key) = key {
                table.store(key, depth, nodes);
            }
            nodes
        }
    }
}

/// Where perft keeps counts: a [`PerftTable`], or nowhere.
trait Counts: Sync {
    /// False for [`NoTable`]: the key is then never computed.
    const ENABLED: bool;
    fn probe(&self, key: u64, depth: u32) -> Option<u64>;
    fn store(&self, key: u64, depth: u32, nodes: u64);
}

/// No table: plain perft.
struct NoTable;

impl Counts for NoTable {
    const ENABLED: bool = false;
    #[inline(always)]
    fn probe(&self, _key: u64, _depth: u32) -> Option<u64> {
        None
    }
    #[inline(always)]
    fn store(&self, _key: u64, _depth: u32, _nodes: u64) {}
}

/// The position's key for the perft table: its Zobrist key (pieces, side,
/// castling rights, an en-passant square only where a capture there is
/// legal), plus the file of each castling right's rook. Within one game the
/// rights alone say which rook castles, but a table shared by several
/// starting positions (a suite, Chess960) may see the same pieces and
/// rights with another castling rook, and those castle differently.
#[inline(always)]
fn table_key(pos: &Position) -> u64 {
    let mut key = pos.key();
    if pos.castling_rights() != 0 {
        for (index, salt) in ROOK_FILE_KEYS.iter().enumerate() {
            if let Some(rook) = pos.castling_rook(index) {
                key ^= salt[rook.file() as usize];
            }
        }
    }
    key
}

/// Random keys by castling right and rook file (SplitMix64, fixed seed).
const ROOK_FILE_KEYS: [[u64; 8]; 4] = {
    let mut keys = [[0u64; 8]; 4];
    let mut state: u64 = 0x7065_7266_7430_3936; // "perft096"
    let mut i = 0;
    while i < 32 {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i / 8][i % 8] = z ^ (z >> 31);
        i += 1;
    }
    keys
};

/// One stored count: `data` = count << 8 | depth, `check` = key ^ data.
#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// Two entries sharing a cache line's half: the first keeps the deeper
/// count, the second takes whatever the first would not.
#[derive(Default)]
#[repr(align(32))]
struct Bucket([Entry; 2]);

/// Counts at or above this do not fit beside the depth and are not stored.
const MAX_STORED: u64 = 1 << 56;

/// A table of perft counts, (position key, depth) -> leaf count, shared by
/// the threads of a perft without locks (see the module text).
pub struct PerftTable {
    buckets: Box<[Bucket]>,
}

impl std::fmt::Debug for PerftTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PerftTable({} buckets)", self.buckets.len())
    }
}

impl PerftTable {
    /// A table of `mb` mebibytes (at least one bucket). An error, never an
    /// abort, when the memory cannot be had.
    pub fn new(mb: usize) -> Result<PerftTable, String> {
        if let Some(available) = available_memory_mb() {
            if mb > available.saturating_sub(256) {
                return Err(format!(
                    "cannot allocate {mb} MB for the perft table: only {available} MB of memory is available"
                ));
            }
        }
        let count = (mb
            .checked_mul(1 << 20)
            .ok_or_else(|| format!("{mb} MB is too large"))?
            / std::mem::size_of::<Bucket>())
        .max(1);
        let mut buckets: Vec<Bucket> = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| format!("cannot allocate {mb} MB for the perft table"))?;
        advise_huge_pages(buckets.spare_capacity_mut());
        buckets.resize_with(count, Bucket::default);
        Ok(PerftTable {
            buckets: buckets.into_boxed_slice(),
        })
    }

    /// The size in mebibytes.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }
}

impl Counts for PerftTable {
    const ENABLED: bool = true;

    #[inline(always)]
    fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        let want = u64::from(depth);
        self.bucket(key).0.iter().find_map(|e| {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            (check ^ data == key && data & 0xFF == want).then_some(data >> 8)
        })
    }

    #[inline(always)]
    fn store(&self, key: u64, depth: u32, nodes: u64) {
        if nodes >= MAX_STORED || depth > 0xFF {
            return;
        }
        let data = nodes << 8 | u64::from(depth);
        let [deep, recent] = &self.bucket(key).0;
        let old_depth = deep.data.load(Ordering::Relaxed) & 0xFF;
        let e = if u64::from(depth) >= old_depth {
            deep
        } else {
            recent
        };
        e.data.store(data, Ordering::Relaxed);
        e.check.store(key ^ data, Ordering::Relaxed);
    }
}

/// Perft split by root move, the root moves shared out over `threads` threads,
/// with a table shared by all of them if one is given. The result is in
/// move-generation order.
pub fn divide(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
) -> Vec<(Move, u64)> {
    let moves: Vec<Move> = legal_moves(pos).into_iter().collect();
    if depth == 0 {
        return Vec::new();
    }
    let results: Vec<Mutex<u64>> = moves.iter().map(|_| Mutex::new(0)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(&mv) = moves.get(i) else { break };
        let mut child = *pos;
        child.make_move(mv);
        let n = match table {
            Some(t) => perft_hashed(&child, depth - 1, t),
            None => perft(&child, depth - 1),
        };
        if let Ok(mut slot) = results[i].lock() {
            *slot = n;
        }
    };
    std::thread::scope(|s| {
        for _ in 1..threads.max(1) {
            s.spawn(work);
        }
        work();
    });
    moves
        .into_iter()
        .zip(results)
        .map(|(m, r)| (m, r.into_inner().unwrap_or_else(|e| e.into_inner())))
        .collect()
}

/// One position of a perft suite with its expected counts by depth.
#[derive(Clone, Debug)]
pub struct SuiteEntry {
    /// Where the entry was found (line number), for messages.
    pub line: usize,
    pub id: Option<String>,
    pub fen: String,
    pub expected: Vec<(u32, u64)>,
}

/// Whether a castling field can only be read as Chess960 (Shredder-FEN file letters).
fn castling_field_is_960(fen: &str) -> bool {
    fen.split_whitespace().nth(2).is_some_and(|c| {
        c.chars()
            .any(|ch| matches!(ch.to_ascii_lowercase(), 'a'..='h'))
    })
}

impl SuiteEntry {
    /// Parses the FEN; Chess960 when asked or when the castling field says so.
    pub fn position(&self, chess960: bool) -> Result<Position, crate::board::position::FenError> {
        Position::from_fen(&self.fen, chess960 || castling_field_is_960(&self.fen))
    }
}

/// Reads a suite in either of two formats:
/// - EPD lines: `<FEN> ;D1 20 ;D2 400 ...`
/// - blocks: `id <name>` / `epd <FEN>` / `perft <depth> <count>` lines.
///
/// `#` starts a comment line. Returns an error naming the first bad line.
pub fn parse_suite(text: &str) -> Result<Vec<SuiteEntry>, String> {
    let mut entries: Vec<SuiteEntry> = Vec::new();
    let mut pending_id: Option<String> = None;
    let parse_count = |s: &str, n: usize| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| format!("line {n}: '{s}' is not a node count"))
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("id ") {
            pending_id = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("epd ") {
            entries.push(SuiteEntry {
                line: n,
                id: pending_id.take(),
                fen: rest.trim().to_string(),
                expected: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut parts = rest.split_whitespace();
            let depth = parts
                .next()
                .and_then(|d| d.parse::<u32>().ok())
                .ok_or_else(|| format!("line {n}: bad perft depth"))?;
            let count = parse_count(parts.next().unwrap_or(""), n)?;
            let entry = entries
                .last_mut()
                .ok_or_else(|| format!("line {n}: 'perft' before any 'epd'"))?;
            entry.expected.push((depth, count));
        } else {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or("").trim().to_string();
            let mut expected = Vec::new();
            for part in parts {
                let part = part.trim();
                if part.is_empty() {
                    continue;
                }
                let (tag, value) = part
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| format!("line {n}: '{part}' is not 'D<depth> <count>'"))?;
                let depth = tag
                    .strip_prefix('D')
                    .and_then(|d| d.parse::<u32>().ok())
                    .ok_or_else(|| format!("line {n}: '{tag}' is not 'D<depth>'"))?;
                expected.push((depth, parse_count(value, n)?));
            }
            entries.push(SuiteEntry {
                line: n,
                id: None,
                fen,
                expected,
            });
        }
    }
    Ok(entries)
}

/// Options of a suite run.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    pub max_depth: u32,
    /// Skip depths whose expected count is above this.
    pub max_count: u64,
    pub threads: usize,
    /// Parse every FEN in Chess960 mode (X-FEN files).
    pub chess960: bool,
    /// A table of counts shared by every thread and every position.
    pub table: Option<Arc<PerftTable>>,
}

impl Default for SuiteOptions {
    fn default() -> SuiteOptions {
        SuiteOptions {
            max_depth: u32::MAX,
            max_count: u64::MAX,
            threads: 1,
            chess960: false,
            table: None,
        }
    }
}

/// What a suite run found.
#[derive(Clone, Debug, Default)]
pub struct SuiteReport {
    pub positions: usize,
    pub checks: usize,
    pub nodes: u64,
    pub seconds: f64,
    /// Human-readable description of each mismatch.
    pub mismatches: Vec<String>,
    /// Positions whose FEN was rejected, with the reason.
    pub rejected: Vec<String>,
}

/// Runs every entry of a suite, positions shared out over the threads.
/// Progress and mismatches go to `log` as they happen.
pub fn run_suite(
    entries: &[SuiteEntry],
    opts: &SuiteOptions,
    log: &mut (dyn Write + Send),
) -> SuiteReport {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let report = Mutex::new(SuiteReport {
        positions: entries.len(),
        ..SuiteReport::default()
    });
    let log = Mutex::new(log);
    let say = |text: String| {
        if let Ok(mut l) = log.lock() {
            let _ = writeln!(l, "{text}");
            let _ = l.flush();
        }
    };
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(entry) = entries.get(i) else { break };
        let name = entry
            .id
            .clone()
            .unwrap_or_else(|| format!("line {}", entry.line));
        let pos = match entry.position(opts.chess960) {
            Ok(p) => p,
            Err(e) => {
                say(format!("[{name}] rejected: {e} ({})", entry.fen));
                if let Ok(mut r) = report.lock() {
                    r.rejected.push(format!("{name}: {} -- {e}", entry.fen));
                }
                continue;
            }
        };
        let (mut checks, mut nodes) = (0, 0);
        let mut bad = Vec::new();
        for &(depth, expected) in &entry.expected {
            if depth > opts.max_depth || expected > opts.max_count {
                continue;
            }
            let found = match &opts.table {
                Some(table) => perft_hashed(&pos, depth, table),
                None => perft(&pos, depth),
            };
            checks += 1;
            nodes += found;
            if found != expected {
                bad.push(format!(
                    "MISMATCH [{name}] {} depth {depth}: expected {expected}, found {found}",
                    entry.fen
                ));
            }
        }
        let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
        for b in &bad {
            say(b.clone());
        }
        if finished.is_multiple_of(50) || finished == entries.len() {
            say(format!("progress: {finished}/{} positions", entries.len()));
        }
        if let Ok(mut r) = report.lock() {
            r.checks += checks;
            r.nodes += nodes;
            r.mismatches.extend(bad);
        }
    };
    std::thread::scope(|s| {
        for _ in 1..opts.threads.max(1) {
            s.spawn(work);
        }
        work();
    });
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.seconds = start.elapsed().as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_answers_only_for_the_same_key_and_depth() {
        let table = PerftTable::new(1).expect("1 MB");
        let key = 0x0123_4567_89AB_CDEF;
        assert_eq!(table.probe(key, 5), None);
        table.store(key, 5, 4_865_609);
        assert_eq!(table.probe(key, 5), Some(4_865_609));
        assert_eq!(table.probe(key, 4), None);
        assert_eq!(table.probe(key, 6), None);
        assert_eq!(table.probe(key ^ 1, 5), None);
        // A shallower count of the same position goes beside the deeper one.
        table.store(key, 3, 8_902);
        assert_eq!(table.probe(key, 5), Some(4_865_609));
        assert_eq!(table.probe(key, 3), Some(8_902));
        // Counts too large to sit beside the depth are not stored.
        table.store(key, 7, MAX_STORED);
        assert_eq!(table.probe(key, 7), None);
        table.store(key, 7, MAX_STORED - 1);
        assert_eq!(table.probe(key, 7), Some(MAX_STORED - 1));
    }

    #[test]
    fn a_torn_entry_is_not_believed() {
        // One word from one write and one from another, as two threads
        // writing the same entry at once may leave it.
        let table = PerftTable::new(1).expect("1 MB");
        let key = 0x5555_AAAA_0F0F_F0F0;
        table.store(key, 4, 197_281);
        let e = &table.bucket(key).0[0];
        let other = 400u64 << 8 | 4;
        e.data.store(other, Ordering::Relaxed);
        assert_eq!(table.probe(key, 4), None);
        // The other order: the check word of the second write, the data of the first.
        e.data.store(197_281 << 8 | 4, Ordering::Relaxed);
        e.check.store(key ^ other, Ordering::Relaxed);
        assert_eq!(table.probe(key, 4), None);
    }

    #[test]
    fn the_table_key_tells_castling_rooks_apart() {
        // The same pieces and the same castling bit, with the a1 rook or the
        // b1 rook as the queen-side castling rook: equal Zobrist keys, but
        // only the b1 rook can castle (the a1 rook has b1 in its way).
        let a = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w A - 0 1", true).expect("FEN");
        let b = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w B - 0 1", true).expect("FEN");
        assert_eq!(a.key(), b.key());
        assert_ne!(table_key(&a), table_key(&b));
        assert_ne!(perft(&a, 1), perft(&b, 1));
        let table = PerftTable::new(1).expect("1 MB");
        for depth in 1..=4 {
            assert_eq!(perft_hashed(&a, depth, &table), perft(&a, depth));
            assert_eq!(perft_hashed(&b, depth, &table), perft(&b, depth));
        }
        // Without castling rights the table key is the Zobrist key.
        let plain = Position::startpos();
        let mut moved = plain;
        for uci in ["e2e4", "e7e5", "e1e2", "e8e7"] {
            let mv = moved.parse_uci_move(uci).expect("legal");
            moved.make_move(mv);
        }
        assert_eq!(table_key(&moved), moved.key());
        assert_ne!(table_key(&plain), plain.key());
    }

    #[test]
    fn impossible_allocation_is_an_error() {
        assert!(PerftTable::new(usize::MAX >> 21).is_err());
        assert!(PerftTable::new(0).is_ok());
    }
}
