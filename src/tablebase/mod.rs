//! Syzygy endgame tablebases: win/draw/loss (`.rtbw`) and distance to the
//! next zeroing move (`.rtbz`), read by a prober of our own in safe Rust.
//!
//! The tables are read-only data shared by every search thread of the
//! process (the engine holds them in an `Arc`); a table file is checked
//! (size, magic) when the folder is opened, mapped into memory the first
//! time a position needs it (`file.rs` says why a map), and every read of
//! it is bounds-checked, so a truncated or corrupt file makes a probe fail
//! (`None`), never a crash. `refresh` notices files changed on disk since.
//! Nothing here prints: problems come back as notes for the UCI layer.
//!
//! Why a prober of our own: `fathom-syzygy` (Fathom's C prober, compiled
//! with `cc`) prints to stdout, calls `exit()` when a file cannot be mapped
//! and trusts a table's contents once its magic matches, each against an
//! engine rule; `shakmaty-syzygy` is GPL-3, which does not fit our MIT
//! licence. The format was learnt from Fathom's source; the code is ours.

mod codebook;
mod file;
mod index;
mod probe;
mod table;

use crate::board::moves::Move;
use crate::board::position::Position;
use file::Stamp;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use table::{Table, TableInfo, DTZ_MAGIC, WDL_MAGIC};

/// A position's tablebase result, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss,
    /// Lost, but the opponent cannot win inside the 50-move rule.
    BlessedLoss,
    Draw,
    /// Won, but not inside the 50-move rule.
    CursedWin,
    Win,
}

impl Wdl {
    /// The result for the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }
}

/// One legal root move with its tablebase result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMoveRank {
    pub mv: Move,
    /// The result for the side to move at the root after playing `mv`
    /// (with the 50-move rule on: a win whose zeroing comes too late,
    /// counting the plies already played, is a cursed win).
    pub wdl: Wdl,
    /// Distance to zeroing after `mv`, in plies, from the root side's view
    /// (positive: the root side wins; 0: draw), as the tables count it.
    pub dtz: i32,
    /// Higher is better: the order to play and show moves in. Moves with
    /// the best rank keep the best result; among wins, the one that zeroes
    /// soonest ranks highest, among losses the one that resists longest.
    pub rank: i32,
}

/// One table file, mapped and parsed the first time a probe needs it.
#[derive(Debug)]
struct TableFile {
    path: PathBuf,
    loaded: OnceLock<Loaded>,
}

/// A table file once looked at: the table (`None`: it could not be mapped
/// or parsed, or was refused; probes fail) and the file's stamp then.
#[derive(Debug)]
struct Loaded {
    table: Option<Table>,
    stamp: Option<Stamp>,
}

impl TableFile {
    fn new(path: PathBuf) -> TableFile {
        TableFile {
            path,
            loaded: OnceLock::new(),
        }
    }

    /// A file that is not read (until it changes again): probes fail.
    fn refused(path: PathBuf) -> TableFile {
        let file = TableFile::new(path);
        let _ = file.loaded.set(Loaded {
            table: None,
            stamp: Stamp::now(&file.path),
        });
        file
    }

    fn get(&self, info: &TableInfo, dtz: bool) -> Option<&Table> {
        self.loaded
            .get_or_init(|| self.load(info, dtz))
            .table
            .as_ref()
    }

    fn load(&self, info: &TableInfo, dtz: bool) -> Loaded {
        let Some((map, stamp)) = file::map(&self.path) else {
            return Loaded {
                table: None,
                stamp: Stamp::now(&self.path),
            };
        };
        let magic = if dtz { DTZ_MAGIC } else { WDL_MAGIC };
        let table = (codebook::read_u32(&map, 0) == Some(magic) && plausible_size(stamp.len))
            .then(|| Table::parse(map, info, dtz))
            .flatten();
        Loaded {
            table,
            stamp: Some(stamp),
        }
    }

    /// Whether the file was looked at and has changed on disk since; with
    /// words saying how.
    fn changed(&self) -> Option<String> {
        let loaded = self.loaded.get()?;
        let now = Stamp::now(&self.path);
        if now == loaded.stamp {
            return None;
        }
        Some(match (now, &loaded.stamp) {
            (None, _) => "cannot be found or read any more".to_string(),
            (Some(now), Some(then)) if now.len != then.len => {
                format!("changed size on disk ({} to {} bytes)", then.len, now.len)
            }
            _ => "was changed or replaced on disk".to_string(),
        })
    }
}

/// The WDL table of one material and, if found, its DTZ table. The files
/// are shared with the `Tablebases` made by `refresh`.
#[derive(Clone, Debug)]
struct Entry {
    info: TableInfo,
    wdl: Arc<TableFile>,
    dtz: Option<Arc<TableFile>>,
}

/// The tables found in a set of folders.
#[derive(Clone, Debug, Default)]
pub struct Tablebases {
    entries: Vec<Entry>,
    /// Material key (either colour orientation) to entry.
    by_key: HashMap<u64, usize>,
    max_pieces: usize,
}

/// The separator between folders in `SyzygyPath`: `;` on Windows, `:`
/// elsewhere (as Stockfish).
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// Syzygy files are their 64-byte aligned blocks plus a 16-byte checksum.
fn plausible_size(len: u64) -> bool {
    len >= 16 + 64 && len % 64 == 16
}

/// Why a table file is refused, if it is.
fn check_file(path: &Path, magic: u32) -> Result<(), String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot be opened ({e})"))?;
    let len = file
        .metadata()
        .map_err(|e| format!("cannot be read ({e})"))?
        .len();
    if !plausible_size(len) {
        return Err(format!(
            "is truncated or corrupt: its size {len} is not a table's (16 more than a multiple of 64)"
        ));
    }
    let mut head = [0u8; 4];
    file.read_exact(&mut head)
        .map_err(|e| format!("cannot be read ({e})"))?;
    let found = u32::from_le_bytes(head);
    if found != magic {
        return Err(format!(
            "is corrupt: bad magic number {found:#010x} (expected {magic:#010x})"
        ));
    }
    Ok(())
}

impl Tablebases {
    /// No tables.
    pub fn none() -> Tablebases {
        Tablebases::default()
    }

    /// Opens every table in the folders of `paths` (split on
    /// `PATH_SEPARATOR`; empty parts and `<empty>` are ignored). Each file
    /// is checked (size, magic) before it is accepted. The notes say, one
    /// line each, what was found and what was refused (a folder that does
    /// not exist, a folder without tables, a truncated or corrupt file).
    pub fn open(paths: &str) -> (Tablebases, Vec<String>) {
        let mut tb = Tablebases::none();
        let mut notes = Vec::new();
        let folders: Vec<&str> = paths
            .split(PATH_SEPARATOR)
            .map(str::trim)
            .filter(|p| !p.is_empty() && *p != "<empty>")
            .collect();
        if folders.is_empty() {
            return (tb, notes);
        }
        // Per material name: the first WDL and DTZ file found.
        let mut wdl_files: Vec<(String, PathBuf)> = Vec::new();
        let mut dtz_files: HashMap<String, PathBuf> = HashMap::new();
        for folder in folders {
            let dir = Path::new(folder);
            let listing = match std::fs::read_dir(dir) {
                Ok(listing) => listing,
                Err(e) => {
                    let why = if dir.exists() {
                        format!("cannot be read ({e})")
                    } else {
                        "does not exist".to_string()
                    };
                    notes.push(format!("syzygy: folder {folder} {why}"));
                    continue;
                }
            };
            let mut names: Vec<PathBuf> = listing.flatten().map(|e| e.path()).collect();
            names.sort();
            let mut found = 0;
            for path in names {
                let (Some(stem), Some(ext)) = (
                    path.file_stem().and_then(|s| s.to_str()),
                    path.extension().and_then(|s| s.to_str()),
                ) else {
                    continue;
                };
                let dtz = match ext {
                    "rtbw" => false,
                    "rtbz" => true,
                    _ => continue,
                };
                if TableInfo::from_name(stem).is_none() {
                    continue;
                }
                found += 1;
                let magic = if dtz { DTZ_MAGIC } else { WDL_MAGIC };
                if let Err(why) = check_file(&path, magic) {
                    notes.push(format!("syzygy: {} {why}; not used", path.display()));
                    continue;
                }
                if dtz {
                    dtz_files.entry(stem.to_string()).or_insert(path);
                } else if !wdl_files.iter().any(|(n, _)| n == stem) {
                    wdl_files.push((stem.to_string(), path));
                }
            }
            if found == 0 {
                notes.push(format!("syzygy: no tables in folder {folder}"));
            }
        }
        let mut dtz_count = 0;
        for (name, path) in wdl_files {
            let Some(info) = TableInfo::from_name(&name) else {
                continue;
            };
            if tb.by_key.contains_key(&info.key) {
                continue;
            }
            let dtz = dtz_files.remove(&name).map(|p| Arc::new(TableFile::new(p)));
            dtz_count += usize::from(dtz.is_some());
            let at = tb.entries.len();
            tb.by_key.insert(info.key, at);
            tb.by_key.insert(info.mirrored_key, at);
            tb.max_pieces = tb.max_pieces.max(info.shape.pieces);
            tb.entries.push(Entry {
                info,
                wdl: Arc::new(TableFile::new(path)),
                dtz,
            });
        }
        let mut orphans: Vec<String> = dtz_files.into_keys().collect();
        orphans.sort();
        for name in orphans {
            notes.push(format!(
                "syzygy: {name}.rtbz has no usable {name}.rtbw beside it; not used"
            ));
        }
        notes.push(format!(
            "syzygy: found {} WDL and {dtz_count} DTZ tables, up to {} pieces",
            tb.entries.len(),
            tb.max_pieces
        ));
        (tb, notes)
    }

    /// Checks every table file mapped so far against its stamp (size,
    /// modification time, inode) and, when any has changed on disk (an
    /// operator copying tables in), returns tables in which those files
    /// are checked again (size, magic) and mapped afresh on next use, or
    /// refused, with a note for each. `None` when nothing changed.
    ///
    /// The caller swaps the result in before the next search, so a file
    /// truncated between searches is never read through its old map
    /// (which would raise SIGBUS past the new end).
    pub fn refresh(&self) -> Option<(Tablebases, Vec<String>)> {
        let mut notes = Vec::new();
        let mut fresh = self.clone();
        for entry in fresh.entries.iter_mut() {
            let dtz = entry.dtz.iter_mut().map(|f| (f, DTZ_MAGIC));
            for (file, magic) in std::iter::once((&mut entry.wdl, WDL_MAGIC)).chain(dtz) {
                let Some(how) = file.changed() else {
                    continue;
                };
                let path = file.path.clone();
                let replaced = match check_file(&path, magic) {
                    Ok(()) => {
                        notes.push(format!(
                            "syzygy: {} {how}; mapped again on next use",
                            path.display()
                        ));
                        TableFile::new(path)
                    }
                    Err(why) => {
                        notes.push(format!(
                            "syzygy: {} {how} and now {why}; not used",
                            path.display()
                        ));
                        TableFile::refused(path)
                    }
                };
                *file = Arc::new(replaced);
            }
        }
        (!notes.is_empty()).then_some((fresh, notes))
    }

    /// The most pieces (kings included) of any table found; 0 when none.
    pub fn max_pieces(&self) -> usize {
        self.max_pieces
    }

    /// The result of `pos` for its side to move; `None` when it is not in
    /// the tables: too many pieces, castling rights, a table missing or
    /// unreadable.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let (value, _) = self.resolved_wdl(pos)?;
        Some(wdl_from_value(value))
    }

    /// Distance to zeroing of `pos` in plies, with the sign of the result
    /// for the side to move (positive wins, negative loses, 0 draws; cursed
    /// wins and blessed losses are beyond 100 in size); `None` as for
    /// `probe_wdl`. As the tables store it (and Fathom returns it): it may
    /// be one ply longer than the truth, never at the 100-ply edge; a
    /// position already mated gives -1.
    pub fn probe_dtz(&self, pos: &Position) -> Option<i32> {
        if !self.covers(pos) {
            return None;
        }
        self.distance(pos, 0)
    }

    /// Every legal move of `pos` with its result and rank, best rank first;
    /// `None` when `pos` is not in the tables. `rule50`: count the 50-move
    /// rule (UCI `Syzygy50MoveRule`), so a win too slow to beat it, given
    /// `pos`'s halfmove clock, ranks as a draw.
    ///
    /// Ranks (a move's `dtz` is counted from the root, this move included;
    /// `plies` is that dtz plus the root's halfmove clock, or the dtz alone
    /// for a capture or pawn move):
    /// - an immediate mate: 1000;
    /// - a win: `1000 - plies` (900..=999 when `plies <= 100`); with `rule50`
    ///   a win with `plies > 100` is a cursed win, ranked 1..=899 (still
    ///   `1000 - plies` when that fits);
    /// - a draw: 0;
    /// - a loss: `-1000 + plies` (-999..=-900), longest resistance first;
    ///   with `rule50` a loss with `plies > 100` is a blessed loss, ranked
    ///   -899..=-1;
    /// - without `rule50`, cursed wins and blessed losses rank (and are
    ///   reported) as wins and losses, clamped to 1..=999 and -999..=-1.
    pub fn rank_root_moves(&self, pos: &Position, rule50: bool) -> Option<Vec<RootMoveRank>> {
        if !self.covers(pos) {
            return None;
        }
        self.rank_moves(pos, rule50)
    }

    /// Whether `pos` may be probed at all.
    fn covers(&self, pos: &Position) -> bool {
        pos.castling_rights() == 0
            && self.max_pieces > 0
            && pos.occupied().count() as usize <= self.max_pieces
    }

    /// The entry for `pos`'s material.
    fn entry(&self, pos: &Position) -> Option<&Entry> {
        let key = table::position_key(pos);
        self.entries.get(*self.by_key.get(&key)?)
    }
}

/// A WDL value (-2..=2) as a `Wdl`.
fn wdl_from_value(value: i32) -> Wdl {
    match value {
        i32::MIN..=-2 => Wdl::Loss,
        -1 => Wdl::BlessedLoss,
        0 => Wdl::Draw,
        1 => Wdl::CursedWin,
        _ => Wdl::Win,
    }
}
