//! `guoxiang labels`: how good self-play's labels are at a node budget,
//! so that a cheaper self-play setting (more positions a second) can be
//! shown not to lower them.
//!
//! ```text
//! guoxiang labels --pool DIR --games 20 --budgets 5000 5000/2500 5000:1000 --reference 100000 --threads 2
//! ```
//!
//! Games are taken from the pool (the last games of its chunks, in
//! order) and replayed move by move as they were played. At every
//! position each budget (`HARD` nodes, or `HARD/SOFT`: no new iteration
//! after `SOFT`; a suffix `:DISCARD` searches the plies training drops
//! anyway with that many nodes, as `datagen --discard-nodes`; a last
//! suffix `@TACTICAL` is `datagen --tactical-nodes`) searches
//! with its own tables, kept from ply to ply and
//! cleared for each game, as in `datagen`; then the game's own move is
//! played, so every budget labels the same positions with tables warmed
//! the same way. A reference search of `--reference` nodes labels each
//! position too. For the positions the trainer keeps (its filter), it
//! prints per budget: nodes and depth per search, how often the move
//! differs from the reference's, the mean absolute label error against the
//! reference in centipawns and in win probability (`sigmoid(cp / K)`), and
//! the squared error against the game result.

use crate::eval::EvalConfig;
use crate::search::tt::TranspositionTable;
use crate::search::ThreadData;
use crate::tools::datagen::{is_quiet, search_nodes, NodeBudget, PlyBudget};
use crate::tools::pool::{list_chunks, pool_dir, read_games, PositionFilter};
use crate::tools::selfplay::white_score;
use crate::tools::viriformat::GameRecord;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The options of `guoxiang labels` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct LabelsArgs {
    /// The pool to take games from [default: $GUOXIANG_POOL]
    #[arg(long, value_name = "DIR")]
    pool: Option<String>,
    /// Games to replay
    #[arg(long, value_name = "N", default_value_t = 20)]
    games: usize,
    /// Budgets to compare: HARD or HARD/SOFT nodes a search, each with an
    /// optional :DISCARD, then an optional @TACTICAL
    #[arg(long, value_name = "B", num_args = 1.., required = true)]
    budgets: Vec<String>,
    /// Nodes of the reference search
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    reference: u64,
    /// Games replayed at once
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Centipawns of one sigmoid unit for the win-probability error
    #[arg(long, value_name = "CP", default_value_t = 150.0)]
    sigmoid_scale: f64,
    /// Transposition table of each search, in MB (datagen's default)
    #[arg(long = "hash", value_name = "MB", default_value_t = 4)]
    hash_mb: usize,
}

/// Parses `HARD`, `HARD/SOFT`, each optionally followed by `:DISCARD`,
/// then optionally by `@TACTICAL`.
fn parse_budget(text: &str) -> Result<PlyBudget, String> {
    let number = |s: &str| {
        s.parse::<u64>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("budget '{text}': '{s}' is not a positive number of nodes"))
    };
    let (before_tactical, tactical) = match text.split_once('@') {
        None => (text, None),
        Some((left, tactical)) => (left, Some(number(tactical)?)),
    };
    let (search, discard) = match before_tactical.split_once(':') {
        None => (before_tactical, None),
        Some((search, discard)) => (search, Some(number(discard)?)),
    };
    let full = match search.split_once('/') {
        None => NodeBudget::hard(number(search)?),
        Some((hard, soft)) => NodeBudget {
            soft: Some(number(soft)?),
            ..NodeBudget::hard(number(hard)?)
        },
    };
    let full = NodeBudget { tactical, ..full };
    Ok(PlyBudget { full, discard })
}

/// What one budget's searches added up to over the replayed games.
#[derive(Clone, Copy, Default)]
struct Totals {
    searches: u64,
    nodes: u64,
    depths: u64,
    kept: u64,
    moves_differ: u64,
    abs_cp: f64,
    abs_prob: f64,
    result_sq: f64,
}

/// Each kept position's win-probability error, per budget: the pairs behind
/// the difference against the first budget and its error bar.
type PairedErrors = Vec<Vec<f64>>;

/// Replays one game under every budget and the reference; adds to `totals`
/// (the reference's own last).
fn replay(
    game: &GameRecord,
    budgets: &[PlyBudget],
    reference: PlyBudget,
    hash_mb: usize,
    k: f64,
    totals: &mut [Totals],
    paired: &mut PairedErrors,
) -> Result<(), String> {
    let eval = EvalConfig::default();
    let filter = PositionFilter::default();
    let all: Vec<PlyBudget> = budgets.iter().copied().chain([reference]).collect();
    let mut tables = Vec::new();
    for _ in &all {
        tables.push((
            TranspositionTable::new(hash_mb)?,
            vec![ThreadData::default()],
        ));
    }
    let result = f64::from(game.wdl.white_result());
    let mut history: Vec<u64> = Vec::new();
    for (ply, (pos, _, played)) in game.positions().into_iter().enumerate() {
        let Some(played) = played else { break };
        let mut results = Vec::with_capacity(all.len());
        for (budget, (tt, data)) in all.iter().zip(tables.iter_mut()) {
            tt.new_search();
            let nodes = budget.at(&pos, ply, filter.min_ply);
            results.push(search_nodes(&pos, &history, nodes, &eval, tt, data));
        }
        let Some(reference_result) = results.last().copied() else {
            break;
        };
        let stm = pos.side_to_move();
        let reference_score = white_score(stm, reference_result.score);
        // The trainer's filter, judged on the reference's score.
        let keep = ply >= filter.min_ply
            && is_quiet(&pos, played, reference_score)
            && reference_score.abs() <= filter.max_score;
        for ((searched, total), errors) in
            results.iter().zip(totals.iter_mut()).zip(paired.iter_mut())
        {
            total.searches += 1;
            total.nodes += searched.nodes;
            total.depths += u64::try_from(searched.depth).unwrap_or(0);
            if !keep {
                continue;
            }
            let label = white_score(stm, searched.score).clamp(-filter.max_score, filter.max_score);
            let p = sigmoid(f64::from(label) / k);
            total.kept += 1;
            total.moves_differ += u64::from(searched.best != reference_result.best);
            total.abs_cp += f64::from((label - reference_score).abs());
            let error = (p - sigmoid(f64::from(reference_score) / k)).abs();
            total.abs_prob += error;
            errors.push(error);
            total.result_sq += (p - result).powi(2);
        }
        history.push(pos.key());
    }
    Ok(())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The `labels` subcommand.
pub fn command(args: LabelsArgs) -> Result<(), String> {
    let budgets = args
        .budgets
        .iter()
        .map(|b| parse_budget(b))
        .collect::<Result<Vec<_>, _>>()?;
    if args.reference == 0 || !(1..=4096).contains(&args.hash_mb) {
        return Err("--reference must be at least 1 and --hash 1 to 4096".to_string());
    }
    if args.sigmoid_scale.is_nan() || args.sigmoid_scale <= 0.0 {
        return Err("--sigmoid-scale must be positive".to_string());
    }
    let reference = PlyBudget {
        full: NodeBudget::hard(args.reference),
        discard: None,
    };
    let dir =
        pool_dir(args.pool.as_deref()).ok_or("no pool: give --pool DIR or set GUOXIANG_POOL")?;
    // The last games of each chunk with moves, chunk by chunk, until enough.
    let mut games = Vec::new();
    let mut chunks = list_chunks(&dir)?;
    chunks.reverse();
    'chunks: for chunk in &chunks {
        let mut chunk_games = read_games(&chunk.path)?;
        while let Some(game) = chunk_games.pop() {
            if games.len() >= args.games {
                break 'chunks;
            }
            if !game.moves.is_empty() {
                games.push(game);
            }
        }
    }
    if games.is_empty() {
        return Err(format!("no games with moves in {}", dir.display()));
    }
    let next = AtomicUsize::new(0);
    let totals = Mutex::new(vec![Totals::default(); budgets.len() + 1]);
    let paired = Mutex::new(vec![Vec::new(); budgets.len() + 1]);
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..args.threads.clamp(1, 64) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(game) = games.get(i) else { break };
                let mut mine = vec![Totals::default(); budgets.len() + 1];
                let mut my_errors = vec![Vec::new(); budgets.len() + 1];
                let k = args.sigmoid_scale;
                match replay(
                    game,
                    &budgets,
                    reference,
                    args.hash_mb,
                    k,
                    &mut mine,
                    &mut my_errors,
                ) {
                    Ok(()) => {
                        if let (Ok(mut all), Ok(mut pairs)) = (totals.lock(), paired.lock()) {
                            for (a, m) in all.iter_mut().zip(&mine) {
                                add(a, m);
                            }
                            for (a, m) in pairs.iter_mut().zip(my_errors) {
                                a.extend(m);
                            }
                        }
                    }
                    Err(e) => {
                        if let Ok(mut errors) = errors.lock() {
                            errors.push(e);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = errors.into_inner().ok().and_then(|e| e.into_iter().next()) {
        return Err(e);
    }
    let totals = totals.into_inner().map_err(|_| "a replay thread failed")?;
    let paired = paired.into_inner().map_err(|_| "a replay thread failed")?;
    println!(
        "{} games, reference {} nodes, K {}; errors are against the reference, over the positions training keeps",
        games.len(),
        args.reference,
        args.sigmoid_scale
    );
    println!("budget        searches  nodes/search  depth  kept   move differs  |cp error|  |p error|  (p - result)^2  |p error| - first's (95%)");
    let names = args
        .budgets
        .iter()
        .cloned()
        .chain([format!("{} (reference)", args.reference)]);
    for ((name, t), errors) in names.zip(&totals).zip(&paired) {
        let per = |x: u64, n: u64| x as f64 / n.max(1) as f64;
        let kept = t.kept.max(1) as f64;
        let (difference, margin) = paired_difference(errors, &paired[0]);
        println!(
            "{name:<13} {:>8}  {:>12.0}  {:>5.2}  {:>5}  {:>11.1}%  {:>10.1}  {:>9.4}  {:>14.4}  {difference:+.4} +- {margin:.4}",
            t.searches,
            per(t.nodes, t.searches),
            per(t.depths, t.searches),
            t.kept,
            100.0 * t.moves_differ as f64 / kept,
            t.abs_cp / kept,
            t.abs_prob / kept,
            t.result_sq / kept,
        );
    }
    Ok(())
}

/// The mean of `a - b` over paired values, and the half-width of its 95%
/// interval (normal approximation).
fn paired_difference(a: &[f64], b: &[f64]) -> (f64, f64) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len().max(1) as f64;
    let mean = d.iter().sum::<f64>() / n;
    let variance = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, 1.96 * (variance / n).sqrt())
}

fn add(a: &mut Totals, b: &Totals) {
    a.searches += b.searches;
    a.nodes += b.nodes;
    a.depths += b.depths;
    a.kept += b.kept;
    a.moves_differ += b.moves_differ;
    a.abs_cp += b.abs_cp;
    a.abs_prob += b.abs_prob;
    a.result_sq += b.result_sq;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::position::Position;

    #[test]
    fn budgets_parse_and_bad_ones_are_refused() {
        let budget = |hard, soft, discard| PlyBudget {
            full: NodeBudget {
                soft,
                ..NodeBudget::hard(hard)
            },
            discard,
        };
        assert_eq!(parse_budget("5000").ok(), Some(budget(5000, None, None)));
        assert_eq!(
            parse_budget("5000/2500").ok(),
            Some(budget(5000, Some(2500), None))
        );
        assert_eq!(
            parse_budget("5000/2500:1000").ok(),
            Some(budget(5000, Some(2500), Some(1000)))
        );
        assert_eq!(
            parse_budget("5000:1000").ok(),
            Some(budget(5000, None, Some(1000)))
        );
        let tactical = parse_budget("5000/3500:1000@1200").ok();
        let mut expected = budget(5000, Some(3500), Some(1000));
        expected.full.tactical = Some(1200);
        assert_eq!(tactical, Some(expected));
        let mut expected = budget(5000, None, None);
        expected.full.tactical = Some(1200);
        assert_eq!(parse_budget("5000@1200").ok(), Some(expected));
        for bad in [
            "", "0", "x", "5000/", "5000/-1", "/2500", "5000:", "5000:0", ":10", "5000@", "5000@0",
            "@100",
        ] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_budget_labels_the_same_positions_and_the_reference_agrees_with_itself() {
        let mut start = Position::startpos();
        let mut moves = Vec::new();
        for uci in [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1",
            "b7b5",
        ] {
            let mv = start.parse_uci_move(uci).expect("legal");
            moves.push((mv, 0));
            start.make_move(mv);
        }
        let game = GameRecord {
            start: Position::startpos(),
            start_score: 0,
            wdl: crate::tools::viriformat::Wdl::DRAW,
            moves,
        };
        let budget = |hard, discard| PlyBudget {
            full: NodeBudget::hard(hard),
            discard,
        };
        let budgets = [
            budget(300, None),
            budget(2000, None),
            budget(2000, Some(100)),
        ];
        let reference = budget(2000, None);
        let mut totals = vec![Totals::default(); 4];
        let mut paired = vec![Vec::new(); 4];
        replay(
            &game,
            &budgets,
            reference,
            1,
            150.0,
            &mut totals,
            &mut paired,
        )
        .expect("replays");
        // Every ply searched by every budget, and the same positions kept
        // (after the first 8 plies, the quiet ones).
        assert!(totals.iter().all(|t| t.searches == 12));
        let kept = totals[0].kept;
        assert!(kept > 0 && totals.iter().all(|t| t.kept == kept));
        // A budget equal to the reference's, with its own tables warmed the
        // same way, gives the same labels: no error.
        assert_eq!(totals[1].abs_cp, 0.0);
        assert_eq!(totals[1].moves_differ, 0);
        assert!(totals[0].nodes < totals[1].nodes);
        assert!(paired.iter().all(|p| p.len() as u64 == kept));
        assert_eq!(paired_difference(&paired[1], &paired[3]), (0.0, 0.0));
        // The first 8 plies are searched with the discard budget: fewer nodes.
        assert!(totals[2].nodes < totals[1].nodes);
        assert_eq!(totals[2].searches, 12);
    }

    #[test]
    fn the_paired_difference_has_the_mean_and_spread_of_the_pairs() {
        let (mean, margin) = paired_difference(&[1.0, 2.0, 3.0, 4.0], &[0.0, 1.0, 1.0, 2.0]);
        assert!((mean - 1.5).abs() < 1e-12);
        // Differences 1, 1, 2, 2: sample variance 1/3, n = 4.
        assert!((margin - 1.96 * (1.0f64 / 12.0).sqrt()).abs() < 1e-12);
    }
}
