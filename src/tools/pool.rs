//! The self-play pool: one folder outside the repository (`--pool DIR`, or
//! the environment variable `GUOXIANG_POOL`) that grows by chunks of
//! viriformat games ([`crate::tools::viriformat`]), one chunk a seed.
//!
//! - `seed-N.vf` holds the games of `datagen --seed N`; it is written under a
//!   temporary name and renamed when whole, so a chunk is there entirely or
//!   not at all, and an interrupted self-play loses at most the chunk it was
//!   playing.
//! - `seed-N.meta` beside it says how the chunk was made (`key: value`
//!   lines: the command that makes the same bytes again, games, positions,
//!   nodes a move, the network's MD5, positions per second), so that the
//!   manifest in `docs/network.md` can be printed from the pool
//!   (`guoxiang pool`) and anyone who finds the pool gone can regenerate it.
//!
//! ```text
//! guoxiang datagen --pool ~/pool --seed 1000 --chunk-games 2000 --threads 2 --openings book.epd
//! guoxiang pool --pool ~/pool                 # the manifest, with totals
//! guoxiang pool --pool ~/pool --verify        # also decodes every game
//! guoxiang pool --pool ~/pool --import old.txt --seed 101   # a text file as a chunk
//! ```

use crate::board::position::Position;
use crate::tools::viriformat::{GameReader, GameRecord, Wdl, MATE_SCORE};
use std::path::{Path, PathBuf};

/// The environment variable that names the pool when `--pool` is not given.
pub const POOL_ENV: &str = "GUOXIANG_POOL";

/// The pool folder: `flag` if given, else `$GUOXIANG_POOL` if set.
pub fn pool_dir(flag: Option<&str>) -> Option<PathBuf> {
    flag.map(PathBuf::from).or_else(|| {
        std::env::var_os(POOL_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// The data file of chunk `seed`.
pub fn chunk_path(dir: &Path, seed: u64) -> PathBuf {
    dir.join(format!("seed-{seed}.vf"))
}

/// The description of chunk `seed`.
pub fn meta_path(dir: &Path, seed: u64) -> PathBuf {
    dir.join(format!("seed-{seed}.meta"))
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it,
/// flushed to disk, then renamed over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.part"));
    let written = std::fs::File::create(&temp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    written
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            format!("cannot write '{}': {e}", path.display())
        })
}

/// Removes the temporary files an interrupted run left in the pool.
pub fn remove_partial_files(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.ends_with(".part") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// How a chunk was made: one `seed-N.meta` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMeta {
    pub seed: u64,
    /// The command that writes the same bytes (`datagen ... --out seed-N.vf`).
    pub command: String,
    pub games: u64,
    /// Plies played and stored: every one is a position of the chunk.
    pub plies: u64,
    /// Quiet positions (not in check, no capture or promotion played, no mate
    /// score, after the first plies): what the trainer's default filter keeps.
    pub positions: u64,
    pub nodes: u64,
    /// MD5 of the network the games were played with.
    pub network_md5: String,
    /// Quiet positions per second of the run and its threads.
    pub positions_per_second: u64,
    pub threads: usize,
    /// The engine's version and a free-form note (where the chunk came from).
    pub version: String,
}

impl ChunkMeta {
    pub fn to_text(&self) -> String {
        format!(
            "seed: {}\ncommand: {}\ngames: {}\nplies: {}\npositions: {}\nnodes: {}\n\
             network_md5: {}\npositions_per_second: {}\nthreads: {}\nversion: {}\n",
            self.seed,
            self.command,
            self.games,
            self.plies,
            self.positions,
            self.nodes,
            self.network_md5,
            self.positions_per_second,
            self.threads,
            self.version
        )
    }

    /// Reads the lines [`ChunkMeta::to_text`] writes; unknown keys are
    /// ignored, missing ones stay empty.
    pub fn parse(text: &str) -> ChunkMeta {
        let mut meta = ChunkMeta::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            let number = || value.parse::<u64>().unwrap_or(0);
            match key.trim() {
                "seed" => meta.seed = number(),
                "command" => meta.command = value.to_string(),
                "games" => meta.games = number(),
                "plies" => meta.plies = number(),
                "positions" => meta.positions = number(),
                "nodes" => meta.nodes = number(),
                "network_md5" => meta.network_md5 = value.to_string(),
                "positions_per_second" => meta.positions_per_second = number(),
                "threads" => meta.threads = number() as usize,
                "version" => meta.version = value.to_string(),
                _ => {}
            }
        }
        meta
    }
}

/// One chunk of the pool as found on disk.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub seed: u64,
    pub path: PathBuf,
    pub bytes: u64,
    /// `None` when its `.meta` file is missing.
    pub meta: Option<ChunkMeta>,
}

/// The chunks of the pool, by seed.
pub fn list_chunks(dir: &Path) -> Result<Vec<Chunk>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the pool '{}': {e}", dir.display()))?;
    let mut chunks = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(seed) = name
            .strip_prefix("seed-")
            .and_then(|n| n.strip_suffix(".vf"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let meta = std::fs::read_to_string(meta_path(dir, seed))
            .ok()
            .map(|t| ChunkMeta::parse(&t));
        chunks.push(Chunk {
            seed,
            path: entry.path(),
            bytes: entry.metadata().map(|m| m.len()).unwrap_or(0),
            meta,
        });
    }
    chunks.sort_by_key(|c| c.seed);
    Ok(chunks)
}

/// Every game of a chunk file.
pub fn read_games(path: &Path) -> Result<Vec<GameRecord>, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    GameReader::new(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("'{}': {e}", path.display()))
}

/// `FEN | result | score` lines (the older datagen text) as one-position
/// games; the number of lines that did not parse.
pub fn games_from_text(text: &str) -> (Vec<GameRecord>, usize) {
    let mut games = Vec::new();
    let mut bad = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let parsed = match fields[..] {
            [fen, result, score] => (|| {
                let start = Position::from_fen(fen, false).ok()?;
                let result: f64 = result.parse().ok()?;
                let score: i32 = score.parse().ok()?;
                Some(GameRecord {
                    start,
                    start_score: score.clamp(-32_000, 32_000) as i16,
                    wdl: Wdl::from_white_result(result),
                    moves: Vec::new(),
                })
            })(),
            _ => None,
        };
        match parsed {
            Some(g) => games.push(g),
            None => bad += 1,
        }
    }
    (games, bad)
}

/// Which stored positions training uses: the pool keeps every ply, the
/// filter chooses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionFilter {
    /// Positions of a game's first plies (after its opening) are not used.
    pub min_ply: usize,
    /// Positions scored beyond this (centipawns, either side) are not used.
    pub max_score: i32,
    /// A position (by its Zobrist key) is used once only.
    pub dedup: bool,
}

impl Default for PositionFilter {
    fn default() -> PositionFilter {
        PositionFilter {
            min_ply: 8,
            max_score: 10_000,
            dedup: true,
        }
    }
}

/// What a filter kept and why it dropped the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterStats {
    pub stored: u64,
    pub kept: u64,
    pub early: u64,
    pub in_check: u64,
    /// The move played was a capture or a promotion.
    pub tactical: u64,
    /// A mate score, or beyond `max_score`.
    pub score: u64,
    pub duplicate: u64,
}

impl std::fmt::Display for FilterStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions stored, {} used; dropped: {} early plies, {} in check, {} captures or promotions played, {} mate or large scores, {} repeated",
            self.stored, self.kept, self.early, self.in_check, self.tactical, self.score, self.duplicate
        )
    }
}

/// One position training may use.
pub struct TrainingPosition {
    pub position: Position,
    /// 1.0, 0.5 or 0.0, White's point of view.
    pub result: f32,
    /// The search's score, White's point of view.
    pub score: i16,
    /// Kept out of training, for the validation loss: every 50th game, or,
    /// for games without moves (positions imported from text, about a
    /// hundred to a game), every 50th block of a hundred.
    pub held_out: bool,
}

/// Calls `visit` with every position of game number `number` that `filter`
/// keeps, counting in `stats`; `seen` holds the keys of positions already
/// used, across games.
pub fn visit_training_positions(
    game: &GameRecord,
    number: u64,
    filter: &PositionFilter,
    seen: &mut std::collections::HashSet<u64>,
    stats: &mut FilterStats,
    mut visit: impl FnMut(&TrainingPosition),
) {
    let held_out = if game.moves.is_empty() {
        (number / 100) % 50 == 49
    } else {
        number % 50 == 49
    };
    let result = game.wdl.white_result();
    for (ply, (position, score, played)) in game.positions().into_iter().enumerate() {
        stats.stored += 1;
        if played.is_some() && ply < filter.min_ply {
            stats.early += 1;
            continue;
        }
        if position.in_check() {
            stats.in_check += 1;
            continue;
        }
        if played.is_some_and(|mv| position.is_noisy(mv)) {
            stats.tactical += 1;
            continue;
        }
        let magnitude = i32::from(score).abs();
        if magnitude >= i32::from(MATE_SCORE) || magnitude > filter.max_score {
            stats.score += 1;
            continue;
        }
        if filter.dedup && !seen.insert(position.key()) {
            stats.duplicate += 1;
            continue;
        }
        stats.kept += 1;
        visit(&TrainingPosition {
            position,
            result,
            score,
            held_out,
        });
    }
}

/// The MD5 digest of `data` as 32 hex digits (RFC 1321): how the manifest
/// names a network, as `md5sum` does.
pub fn md5_hex(data: &[u8]) -> String {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut state: [u32; 4] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in message.chunks_exact(64) {
        let words: Vec<u32> = block
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(words[g])
                .rotate_left(S[i]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(rotated);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    state
        .iter()
        .flat_map(|s| s.to_le_bytes())
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The options of `guoxiang pool`.
#[derive(clap::Args, Debug)]
pub struct PoolArgs {
    /// The pool folder [default: $GUOXIANG_POOL]
    #[arg(long, value_name = "DIR")]
    pool: Option<String>,
    /// Also read every game of every chunk, and count them
    #[arg(long)]
    verify: bool,
    /// Adds a `FEN | result | score` file (older datagen text) to the pool as
    /// chunk --seed
    #[arg(long, value_name = "FILE", requires = "seed")]
    import: Option<String>,
    /// The chunk --import writes (the seed the text was made with)
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// With --import: the command that made the text, for the manifest
    #[arg(long, value_name = "TEXT", default_value = "")]
    made_by: String,
    /// Prints every position stored in this viriformat file as a `FEN |
    /// result | score` line (White's view; mates as +-32767), unfiltered
    #[arg(long, value_name = "FILE", conflicts_with_all = ["import", "verify"])]
    dump: Option<String>,
}

/// The `pool` subcommand: the manifest of the pool (a Markdown table, as in
/// `docs/network.md`), or an import.
pub fn command(args: PoolArgs) -> Result<(), String> {
    if let Some(file) = &args.dump {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for game in read_games(Path::new(file))? {
            let result = game.wdl.white_result();
            for (pos, score, _) in game.positions() {
                writeln!(out, "{} | {result:.1} | {score}", pos.to_fen())
                    .map_err(|e| format!("cannot write: {e}"))?;
            }
        }
        return out.flush().map_err(|e| format!("cannot write: {e}"));
    }
    let dir = pool_dir(args.pool.as_deref())
        .ok_or_else(|| format!("no pool: give --pool DIR or set {POOL_ENV}"))?;
    if let (Some(file), Some(seed)) = (&args.import, args.seed) {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        if chunk_path(&dir, seed).exists() {
            return Err(format!("the pool already has chunk {seed}"));
        }
        let text =
            std::fs::read_to_string(file).map_err(|e| format!("cannot read '{file}': {e}"))?;
        let (games, bad) = games_from_text(&text);
        let mut bytes = Vec::with_capacity(games.len() * 36);
        for g in &games {
            g.write(&mut bytes);
        }
        let meta = ChunkMeta {
            seed,
            command: format!("{} (text), then guoxiang pool --import", args.made_by),
            games: 0,
            plies: games.len() as u64,
            positions: games.len() as u64,
            version: format!("imported by {}", env!("CARGO_PKG_VERSION")),
            ..ChunkMeta::default()
        };
        write_atomically(&meta_path(&dir, seed), meta.to_text().as_bytes())?;
        write_atomically(&chunk_path(&dir, seed), &bytes)?;
        println!(
            "chunk {seed}: {} positions from {file} ({bad} lines skipped), {} bytes",
            games.len(),
            bytes.len()
        );
        return Ok(());
    }
    let chunks = list_chunks(&dir)?;
    println!(
        "| chunk | seed | engine | network md5 | command | games | positions | nodes a move | positions/s |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let (mut games, mut positions, mut bytes) = (0u64, 0u64, 0u64);
    for chunk in &chunks {
        let name = chunk
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let meta = chunk.meta.clone().unwrap_or_default();
        if args.verify {
            let read = read_games(&chunk.path)?;
            let moves: usize = read.iter().map(|g| g.moves.len().max(1)).sum();
            if meta.plies != 0 && moves as u64 != meta.plies {
                return Err(format!(
                    "{name}: {moves} positions stored, its .meta says {}",
                    meta.plies
                ));
            }
        }
        games += meta.games;
        positions += meta.positions;
        bytes += chunk.bytes;
        println!(
            "| {name} | {} | {} | {} | `{}` | {} | {} | {} | {} |",
            chunk.seed,
            meta.version,
            meta.network_md5,
            meta.command,
            meta.games,
            meta.positions,
            meta.nodes,
            meta.positions_per_second
        );
    }
    println!(
        "\n{} chunks, {games} games, {positions} quiet positions, {:.1} MB{}",
        chunks.len(),
        bytes as f64 / 1e6,
        if args.verify {
            ", every game read back"
        } else {
            ""
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_matches_rfc_1321() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
        let digits =
            b"12345678901234567890123456789012345678901234567890123456789012345678901234567890";
        assert_eq!(md5_hex(digits), "57edf4a22be3c955ac49da2e2107b67a");
    }

    #[test]
    fn the_filter_drops_early_tactical_checked_mate_and_repeated_positions() {
        let mut pos = Position::startpos();
        let mut moves = Vec::new();
        let plies = [
            ("e2e4", 30),
            ("d7d5", 20),
            ("e4d5", 40), // a capture played: dropped
            ("d8d5", 10), // a capture played: dropped
            ("b1c3", 25),
            ("d5e5", 15),
            ("g1e2", 30),         // in check: dropped
            ("e5a5", MATE_SCORE), // a mate score: dropped
            ("e2g1", 35),
            ("a5e5", 12),
            ("g1e2", 30), // in check again: dropped
            ("e5a5", 20), // the position the mate score was dropped from: used now
        ];
        for (uci, score) in plies {
            let mv = pos.parse_uci_move(uci).expect(uci);
            moves.push((mv, score));
            pos.make_move(mv);
        }
        let game = GameRecord {
            start: Position::startpos(),
            start_score: 0,
            wdl: Wdl::DRAW,
            moves,
        };
        let filter = PositionFilter {
            min_ply: 1,
            ..PositionFilter::default()
        };
        let mut seen = std::collections::HashSet::new();
        let mut stats = FilterStats::default();
        let mut kept = Vec::new();
        visit_training_positions(&game, 49, &filter, &mut seen, &mut stats, |p| {
            assert!(p.held_out, "game 49 is held out");
            kept.push(p.score);
        });
        assert_eq!(kept, vec![20, 25, 15, 35, 12, 20]);
        assert_eq!(
            (
                stats.stored,
                stats.early,
                stats.tactical,
                stats.in_check,
                stats.score,
                stats.duplicate
            ),
            (12, 1, 2, 2, 1, 0)
        );
        let mut again = FilterStats::default();
        visit_training_positions(&game, 0, &filter, &mut seen, &mut again, |p| {
            assert!(!p.held_out);
        });
        assert_eq!(again.duplicate, 6, "every position was used already");
    }

    #[test]
    fn meta_round_trips() {
        let meta = ChunkMeta {
            seed: 7,
            command: "datagen --seed 7 --games 10 --out seed-7.vf".into(),
            games: 10,
            plies: 900,
            positions: 600,
            nodes: 5000,
            network_md5: md5_hex(b"net"),
            positions_per_second: 640,
            threads: 2,
            version: "0.3.0".into(),
        };
        assert_eq!(ChunkMeta::parse(&meta.to_text()), meta);
    }

    #[test]
    fn chunks_are_written_whole_and_listed_by_seed() {
        let dir = std::env::temp_dir().join(format!("guoxiang-pool-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let text = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 1.0 | 900\nnot a line\n";
        let (games, bad) = games_from_text(text);
        assert_eq!((games.len(), bad), (1, 1));
        let mut bytes = Vec::new();
        games[0].write(&mut bytes);
        for seed in [12, 3] {
            write_atomically(&chunk_path(&dir, seed), &bytes).expect("written");
        }
        std::fs::write(dir.join(".seed-5.vf.part"), b"half").expect("a leftover");
        remove_partial_files(&dir);
        let chunks = list_chunks(&dir).expect("listed");
        assert_eq!(
            chunks.iter().map(|c| c.seed).collect::<Vec<_>>(),
            vec![3, 12]
        );
        assert!(chunks.iter().all(|c| c.meta.is_none()));
        assert_eq!(read_games(&chunks[0].path).expect("read"), games);
        assert!(!dir.join(".seed-5.vf.part").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
