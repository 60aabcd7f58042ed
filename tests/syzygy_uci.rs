//! Syzygy tablebases through the UCI protocol: the options, bad paths and
//! files, and play at a root in the tables (the move keeps the tables'
//! result, draws score 0, `tbhits` is reported, MultiPV ranks the moves).
//!
//! The tables live outside the repository: `GUOXIANG_SYZYGY`, else
//! `../shared/syzygy` beside the checkout. Tests that need them say they are
//! skipped without them, except under `CI=true`, where that is a failure.
//! The bad-path tests make their own broken files and always run.

mod common;

use common::syzygy::tables_dir;
use common::{check_bestmove, replay, Engine};
use guoxiang::board::movegen::legal_moves;
use guoxiang::tablebase::{Tablebases, Wdl, PATH_SEPARATOR};
use std::path::{Path, PathBuf};

fn engine() -> Engine {
    let mut e = Engine::spawn();
    e.send("uci");
    e.wait_for("uciok", |l| l == "uciok");
    e
}

/// A fresh folder under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guoxiang-uci-tb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    dir
}

/// The last scored info line before `bestmove`, whole.
fn last_info(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info ") && l.contains(" score "))
        .expect("an info line with a score")
}

/// The number after `key` in an info line.
fn field(line: &str, key: &str) -> Option<i64> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|t| *t == key)?;
    tokens.get(at + 1)?.parse().ok()
}

/// `(kind, value)` of the score: `("cp", 12)` or `("mate", 3)`.
fn score(line: &str) -> (String, i64) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|t| *t == "score").expect("score");
    let value = tokens[at + 2].parse().expect("a score value");
    (tokens[at + 1].to_string(), value)
}

#[test]
fn syzygy_options_are_offered_as_in_stockfish() {
    let mut e = Engine::spawn();
    e.send("uci");
    let lines = e.wait_for("uciok", |l| l == "uciok");
    for option in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(option)), "{option}");
    }
}

#[test]
fn bad_syzygy_paths_and_files_get_an_info_string_and_the_engine_plays_on() {
    let missing = std::env::temp_dir().join("guoxiang-uci-tb-no-such-folder");
    let empty = temp_dir("empty");
    let damaged = temp_dir("damaged");
    // A table cut short, and one whose first bytes are not Syzygy's magic.
    std::fs::write(
        damaged.join("KQvK.rtbw"),
        [0x71u8, 0xe8, 0x23, 0x5d, 1, 2, 3],
    )
    .expect("write");
    std::fs::write(damaged.join("KRvK.rtbw"), [0u8; 64 + 16]).expect("write");
    let cases = [
        (missing.display().to_string(), "does not exist"),
        (empty.display().to_string(), "no tables"),
        (damaged.display().to_string(), "KQvK.rtbw"),
        (damaged.display().to_string(), "KRvK.rtbw"),
        (
            format!("{}{PATH_SEPARATOR}{}", missing.display(), empty.display()),
            "does not exist",
        ),
    ];
    let mut e = engine();
    for (path, said) in cases {
        e.send(&format!("setoption name SyzygyPath value {path}"));
        let lines = e.sync();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string") && l.contains(said)),
            "{path}: {lines:?}"
        );
        // The engine plays on, without tables: no tbhits to report.
        let position = "position fen 8/8/8/4k3/8/8/8/3QK3 w - - 0 1";
        e.send(position);
        let (lines, best) = e.go("go depth 6");
        check_bestmove(&best, &replay(position, false));
        assert!(!last_info(&lines).contains("tbhits"), "{lines:?}");
    }
    let _ = std::fs::remove_dir_all(&empty);
    let _ = std::fs::remove_dir_all(&damaged);
}

/// An engine with the tables, and the library's own view of them to judge
/// the moves it plays.
fn engine_with_tables(dir: &Path) -> (Engine, Tablebases) {
    let (tables, _) = Tablebases::open(&dir.to_string_lossy());
    assert!(tables.max_pieces() >= 5);
    // The count grows as tables are added to the shared set: not pinned.
    let e = engine_with_syzygy_path(dir, "syzygy: found ");
    (e, tables)
}

/// An engine given `dir` as its SyzygyPath, which answers with `found`.
fn engine_with_syzygy_path(dir: &Path, found: &str) -> Engine {
    let mut e = engine();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        dir.display()
    ));
    let lines = e.sync();
    assert!(lines.iter().any(|l| l.contains(found)), "{lines:?}");
    e
}

/// Plays `fen` for 200 ms: the final info line and the position after the move.
fn play(e: &mut Engine, fen: &str) -> (String, guoxiang::Position) {
    let position = format!("position fen {fen}");
    e.send("ucinewgame");
    e.send(&position);
    let (lines, best) = e.go("go movetime 200");
    let (mv, _) = check_bestmove(&best, &replay(&position, false));
    let mut after = replay(&position, false);
    after.make_move(mv);
    (last_info(&lines).to_string(), after)
}

#[test]
fn a_tablebase_root_keeps_its_result_and_scores_draws_as_draws() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, tables) = engine_with_tables(&dir);
    // Wins far from a zeroing move (KBNvK, KQvKR, KRPvKR): a win after the move too.
    for fen in [
        "8/6N1/6B1/8/8/8/k4K2/8 w - - 0 1",
        "8/4r2K/2Q5/8/8/3k4/8/8 w - - 0 1",
        "2r5/5R2/7k/1P6/8/8/8/3K4 w - - 0 1",
        // Lucena.
        "1K6/1P1k4/8/8/8/8/r7/2R5 w - - 0 1",
    ] {
        let (info, after) = play(&mut e, fen);
        assert_eq!(tables.probe_wdl(&after), Some(Wdl::Loss), "{fen}: {info}");
        let (kind, value) = score(&info);
        assert!(kind == "mate" || value >= 19_000, "{fen}: {info}");
        assert!(field(&info, "tbhits").is_some_and(|n| n > 0), "{info}");
    }
    // Draws with material ahead (KRvKB, KRvKN, KRPvKR): a draw after the
    // move, and a score of 0.
    for fen in [
        "8/8/8/8/8/1k6/2b5/K1R5 w - - 0 1",
        "8/8/8/3k4/3n4/8/8/K3R3 w - - 0 1",
        "2k5/3R4/8/8/8/2P5/2K4r/8 w - - 0 1",
    ] {
        let root = replay(&format!("position fen {fen}"), false);
        assert_eq!(tables.probe_wdl(&root), Some(Wdl::Draw), "{fen}");
        let (info, after) = play(&mut e, fen);
        let result = tables.probe_wdl(&after).map(Wdl::flip);
        assert!(result.is_some_and(|w| w >= Wdl::Draw), "{fen}: {info}");
        let (kind, value) = score(&info);
        assert!(kind == "cp" && value.abs() <= 2, "{fen}: {info}");
    }
}

#[test]
fn the_fifty_move_rule_option_decides_what_a_late_win_is_worth() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, _) = engine_with_tables(&dir);
    // KBNvK, 50 plies from a zeroing move, with 60 plies already played:
    // too late to win under the 50-move rule.
    let fen = "8/6N1/6B1/8/8/8/k4K2/8 w - - 60 1";
    let (info, _) = play(&mut e, fen);
    let (kind, value) = score(&info);
    assert!(kind == "cp" && value.abs() <= 2, "{info}");
    e.send("setoption name Syzygy50MoveRule value false");
    let (info, _) = play(&mut e, fen);
    let (kind, value) = score(&info);
    assert!(kind == "mate" || value >= 19_000, "{info}");
}

#[test]
fn multipv_at_a_tablebase_root_ranks_every_move_by_its_result() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, _) = engine_with_tables(&dir);
    e.send("setoption name MultiPV value 4");
    // KRvKR, White to move: Rxd1 wins; the other moves draw.
    e.send("position fen 8/8/3k4/8/8/8/3KR3/3r4 w - - 0 1");
    let (lines, best) = e.go("go movetime 300");
    assert!(best.starts_with("bestmove d2d1"), "{best}");
    let depth = lines
        .iter()
        .filter_map(|l| field(l, "depth").filter(|_| l.contains("multipv 4")))
        .max()
        .expect("a fourth line");
    let shown: Vec<(i64, i64)> = (1..=4)
        .map(|k| {
            let line = lines
                .iter()
                .rev()
                .find(|l| field(l, "depth") == Some(depth) && field(l, "multipv") == Some(k))
                .expect("each line at the last depth");
            (k, score(line).1)
        })
        .collect();
    assert!(shown[0].1 >= 19_000, "{shown:?}");
    assert!(shown[1..].iter().all(|&(_, s)| s == 0), "{shown:?}");
}

#[test]
fn probe_limit_zero_turns_the_tables_off() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, _) = engine_with_tables(&dir);
    e.send("setoption name SyzygyProbeLimit value 0");
    let (info, _) = play(&mut e, "8/8/8/8/8/1k6/2b5/K1R5 w - - 0 1");
    assert!(!info.contains("tbhits"), "{info}");
}

#[test]
fn without_dtz_tables_the_root_keeps_its_result_by_win_draw_loss() {
    let Some(dir) = tables_dir() else { return };
    // Only the WDL files of KRvKB and the tables a capture leads to.
    let wdl_only = temp_dir("wdl-only");
    for name in ["KRvKB.rtbw", "KRvK.rtbw", "KBvK.rtbw"] {
        std::fs::copy(dir.join(name), wdl_only.join(name)).expect("copy a table");
    }
    let mut e = engine_with_syzygy_path(&wdl_only, "found 3 WDL and 0 DTZ");
    let (tables, _) = Tablebases::open(&dir.to_string_lossy());
    // KRvKB, drawn with the exchange ahead: still a draw after the move, scored 0.
    let fen = "8/8/8/8/8/1k6/2b5/K1R5 w - - 0 1";
    let (info, after) = play(&mut e, fen);
    let result = tables.probe_wdl(&after).map(Wdl::flip);
    assert!(result.is_some_and(|w| w >= Wdl::Draw), "{info}");
    let (kind, value) = score(&info);
    assert!(kind == "cp" && value.abs() <= 2, "{info}");
    assert!(field(&info, "tbhits").is_some_and(|n| n > 0), "{info}");
    let _ = std::fs::remove_dir_all(&wdl_only);
}

#[test]
fn a_table_cut_short_between_searches_gets_an_info_string_and_no_crash() {
    let Some(dir) = tables_dir() else { return };
    let folder = temp_dir("cut-short");
    for name in ["KQvK.rtbw", "KQvK.rtbz"] {
        std::fs::copy(dir.join(name), folder.join(name)).expect("copy a table");
    }
    let mut e = engine_with_syzygy_path(&folder, "found 1 WDL and 1 DTZ");
    let position = "position fen 4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    e.send(position);
    let (lines, _) = e.go("go depth 4");
    assert!(field(last_info(&lines), "tbhits").is_some_and(|n| n > 0));
    // Copied over in place, and cut short (the copy is still running).
    let bytes = std::fs::read(dir.join("KQvK.rtbz")).expect("KQvK.rtbz");
    std::fs::write(folder.join("KQvK.rtbz"), &bytes[..bytes.len() / 3]).expect("write");
    let (lines, best) = e.go("go depth 4");
    check_bestmove(&best, &replay(position, false));
    assert!(
        lines.iter().any(|l| l.starts_with("info string syzygy:")
            && l.contains("KQvK.rtbz changed size on disk")
            && l.contains("not used")),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// Plays out `fen` after `moves` (a game that has already repeated): the
/// engine has White, Black the tables' longest defence, but walks back
/// into a position seen before whenever it can. Returns how the game
/// ended: `Ok(plies)` for a mate, `Err(why)` otherwise.
fn play_out_with_repetitions(
    e: &mut Engine,
    tables: &Tablebases,
    fen: &str,
    moves: &str,
) -> Result<usize, String> {
    let mut played: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
    let start = replay(&format!("position fen {fen}"), false);
    let mut seen = vec![start.key()];
    let mut pos = start;
    for mv in &played {
        let m = pos.parse_uci_move(mv).expect("a legal history move");
        pos.make_move(m);
        seen.push(pos.key());
    }
    e.send("ucinewgame");
    for ply in 0..200 {
        if legal_moves(&pos).is_empty() {
            return if pos.in_check() {
                Ok(ply)
            } else {
                Err(format!("stalemate after {played:?}"))
            };
        }
        if pos.halfmove_clock() >= 100 {
            return Err(format!("fifty-move rule after {played:?}"));
        }
        let mv = if pos.side_to_move() == guoxiang::board::types::Color::White {
            let position = format!("position fen {fen} moves {}", played.join(" "));
            e.send(&position);
            let (_, best) = e.go("go depth 5");
            check_bestmove(&best, &pos).0
        } else {
            let ranked = tables.rank_root_moves(&pos, true).expect("in the tables");
            let count = |m: &guoxiang::Move| {
                let mut next = pos;
                next.make_move(*m);
                seen.iter().filter(|&&k| k == next.key()).count()
            };
            let repeat = ranked.iter().map(|r| r.mv).max_by_key(|m| count(m));
            match repeat {
                Some(m) if count(&m) > 0 => m,
                _ => ranked[0].mv,
            }
        };
        played.push(mv.to_uci(false));
        pos.make_move(mv);
        seen.push(pos.key());
        if seen.iter().filter(|&&k| k == pos.key()).count() >= 3 {
            return Err(format!("threefold repetition after {played:?}"));
        }
    }
    Err(format!("no mate in 200 plies: {played:?}"))
}

#[test]
fn a_won_position_that_has_already_repeated_is_converted_not_drawn() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, tables) = engine_with_tables(&dir);
    // Each start has repeated once, and the one move that zeroes soonest
    // leads to a position that has occurred twice: a third time draws.
    // (Found with python-chess's prober: KRvK Re5, DTZ 19; KQvK Qd7, DTZ 11.)
    for (fen, moves, best) in [
        (
            "8/8/6K1/7R/8/5k2/8/8 w - - 0 1",
            "h5e5 f3g4 g6h7 g4f3 h7g6 f3g4 e5h5 g4f3",
            "h5e5",
        ),
        (
            "6k1/8/8/8/8/8/4K3/3Q4 w - - 0 1",
            "d1d7 g8h8 d7e7 h8g8 e7d7 g8h8 d7d1 h8g8",
            "d1d7",
        ),
    ] {
        let root = replay(&format!("position fen {fen}"), false);
        let ranked = tables.rank_root_moves(&root, true).expect("ranked");
        assert_eq!(ranked[0].mv.to_uci(false), best, "{fen}");
        assert!(
            ranked[1].rank < ranked[0].rank,
            "{fen}: the best move is alone"
        );
        let plies = play_out_with_repetitions(&mut e, &tables, fen, moves)
            .unwrap_or_else(|why| panic!("{fen}: {why}"));
        assert!(plies <= 100, "{fen}: mate after {plies} plies");
    }
}

#[test]
fn a_root_settled_by_the_dtz_ranking_is_not_probed_again_inside_the_tree() {
    let Some(dir) = tables_dir() else { return };
    let (mut e, _) = engine_with_tables(&dir);
    // KQvKR, won: the root's moves are probed once each, and the search
    // makes no probes of its own (tbhits = the number of legal moves).
    let fen = "8/4r2K/2Q5/8/8/3k4/8/8 w - - 0 1";
    let moves = legal_moves(&replay(&format!("position fen {fen}"), false)).len() as i64;
    e.send(&format!("position fen {fen}"));
    let (lines, _) = e.go("go depth 10");
    assert_eq!(field(last_info(&lines), "tbhits"), Some(moves), "{lines:?}");
    // A position with more pieces than the tables: probes in the tree.
    e.send("position fen 8/4r2K/2Q5/8/8/3k4/1P4p1/8 w - - 0 1");
    let (lines, _) = e.go("go depth 10");
    assert!(
        field(last_info(&lines), "tbhits").is_some_and(|n| n > 0),
        "{lines:?}"
    );
}
