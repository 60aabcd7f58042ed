//! How the search uses Syzygy tablebases (`crate::tablebase` probes them):
//! which positions to probe, what a result scores, and the root's ranking.
//!
//! - At the root, a position in the tables ranks its moves by distance to
//!   zeroing and the search only plays among those with the best rank, so a
//!   won ending is converted inside the 50-move rule and a drawn one is never
//!   lost (with `MultiPV` above 1 every move stays, lines ordered by rank).
//!   Without the DTZ tables the moves are ranked by win/draw/loss alone.
//! - Inside the tree, a node right after a capture or pawn move with few
//!   enough pieces is probed for win/draw/loss; a win scores below every mate
//!   and above every evaluation, so the two never collide.

use crate::board::movegen::legal_moves;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::eval::score::{MAX_PLY, TB_WIN};
use crate::tablebase::{RootMoveRank, Tablebases, Wdl};
use std::sync::Arc;

/// The tables and the UCI options that govern probing them.
#[derive(Clone, Debug)]
pub struct TablebaseConfig {
    pub tables: Arc<Tablebases>,
    /// Probe inside the tree only from this remaining depth on
    /// (`SyzygyProbeDepth`).
    pub probe_depth: i32,
    /// Probe only positions with at most this many pieces
    /// (`SyzygyProbeLimit`).
    pub probe_limit: usize,
    /// Count the 50-move rule: cursed wins and blessed losses are draws
    /// (`Syzygy50MoveRule`).
    pub rule50: bool,
}

impl Default for TablebaseConfig {
    fn default() -> TablebaseConfig {
        TablebaseConfig {
            tables: Arc::new(Tablebases::none()),
            probe_depth: 1,
            probe_limit: 7,
            rule50: true,
        }
    }
}

impl TablebaseConfig {
    /// The most pieces a probe may have: the option's limit and the largest
    /// table found.
    pub fn cardinality(&self) -> usize {
        self.probe_limit.min(self.tables.max_pieces())
    }

    /// Whether `pos` may be looked up at all: few enough pieces and no
    /// castling rights (the tables assume none).
    pub fn covers(&self, pos: &Position) -> bool {
        let pieces = pos.occupied().count() as usize;
        pieces <= self.cardinality() && pos.castling_rights() == 0
    }

    /// Whether an inner node is probed: right after a capture or pawn move,
    /// deep enough (or already below the largest tables' size).
    pub(super) fn probes_node(&self, pos: &Position, depth: i32) -> bool {
        pos.halfmove_clock() == 0
            && self.covers(pos)
            && (depth >= self.probe_depth || (pos.occupied().count() as usize) < self.cardinality())
    }

    /// The score of a result `ply` plies from the root: wins below every
    /// mate (`TB_WIN - ply`), cursed wins and blessed losses a hair from a
    /// draw while the 50-move rule counts.
    pub fn score(&self, wdl: Wdl, ply: usize) -> i32 {
        let win = TB_WIN - ply.min(MAX_PLY) as i32;
        match wdl {
            Wdl::Win => win,
            Wdl::Loss => -win,
            Wdl::CursedWin if self.rule50 => 1,
            Wdl::CursedWin => win,
            Wdl::BlessedLoss if self.rule50 => -1,
            Wdl::BlessedLoss => -win,
            Wdl::Draw => 0,
        }
    }

    /// The root ranked, when `pos` is in the tables: by distance to
    /// zeroing, or by win/draw/loss alone where the DTZ tables are missing
    /// (`by_dtz` false), with the game's repetitions counted (see
    /// `count_repetitions`). `history`: the keys of the game's positions
    /// before `pos`, oldest first. `None` when the tables do not cover
    /// `pos`.
    pub(super) fn rank_root(&self, pos: &Position, history: &[u64]) -> Option<RootRanking> {
        if !self.covers(pos) {
            return None;
        }
        let (mut moves, by_dtz) = match self.tables.rank_root_moves(pos, self.rule50) {
            Some(moves) => (moves, true),
            None => (self.rank_root_by_wdl(pos)?, false),
        };
        count_repetitions(&mut moves, pos, history);
        Some(RootRanking { moves, by_dtz })
    }

    /// Each move ranked by the result after it (as Stockfish does without
    /// DTZ tables): the best result is kept, though a win may not be
    /// converted by the quickest road.
    fn rank_root_by_wdl(&self, pos: &Position) -> Option<Vec<RootMoveRank>> {
        let mut ranks = Vec::new();
        for mv in legal_moves(pos) {
            let mut next = *pos;
            next.make_move(mv);
            let wdl = if legal_moves(&next).is_empty() {
                if next.in_check() {
                    Wdl::Win
                } else {
                    Wdl::Draw
                }
            } else {
                self.tables.probe_wdl(&next)?.flip()
            };
            let wdl = match wdl {
                Wdl::CursedWin if !self.rule50 => Wdl::Win,
                Wdl::BlessedLoss if !self.rule50 => Wdl::Loss,
                wdl => wdl,
            };
            let rank = match wdl {
                Wdl::Win => 1000,
                Wdl::CursedWin => 1,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -1,
                Wdl::Loss => -1000,
            };
            ranks.push(RootMoveRank {
                mv,
                wdl,
                dtz: 0,
                rank,
            });
        }
        ranks.sort_by_key(|r| std::cmp::Reverse(r.rank));
        Some(ranks)
    }
}

/// The root's moves ranked by the tables, best first.
#[derive(Clone, Debug)]
pub(super) struct RootRanking {
    pub(super) moves: Vec<RootMoveRank>,
    /// Ranked by distance to zeroing (else by win/draw/loss alone).
    pub(super) by_dtz: bool,
}

impl RootRanking {
    /// Whether the ranking settles the game's result, so the search needs
    /// no probes of its own (as Stockfish): the moves kept are ranked by
    /// distance to zeroing, or the best is no better than a draw.
    pub(super) fn decides(&self) -> bool {
        self.by_dtz || self.moves.first().is_none_or(|m| m.wdl <= Wdl::Draw)
    }
}

/// The tables know nothing of the game before the root; the arbiter does.
/// A move into a position that has already occurred twice since the last
/// capture or pawn move (the halfmove clock's window of `history`) draws
/// by threefold repetition: it ranks as a draw whatever the tables say.
/// A winning move into a position that has occurred once ranks one step
/// lower (as one ply slower), so among equally quick wins the one that
/// makes progress comes first and a win is not walked round in a circle.
fn count_repetitions(moves: &mut [RootMoveRank], pos: &Position, history: &[u64]) {
    let window = usize::from(pos.halfmove_clock()).min(history.len());
    let recent = &history[history.len() - window..];
    if recent.is_empty() {
        return;
    }
    let mut changed = false;
    for m in moves.iter_mut() {
        let mut next = *pos;
        next.make_move(m.mv);
        if next.halfmove_clock() == 0 {
            continue;
        }
        let key = next.key();
        match recent.iter().filter(|&&k| k == key).count() {
            0 => {}
            1 if m.rank > 1 => {
                m.rank -= 1;
                changed = true;
            }
            1 => {}
            _ => {
                *m = RootMoveRank {
                    wdl: Wdl::Draw,
                    dtz: 0,
                    rank: 0,
                    ..*m
                };
                changed = true;
            }
        }
    }
    if changed {
        moves.sort_by_key(|r| std::cmp::Reverse(r.rank));
    }
}

/// What the root's ranking says of one move, kept beside the search's own
/// score for reporting.
#[derive(Clone, Copy, Debug)]
pub(super) struct RootTablebase {
    pub(super) score: i32,
    pub(super) rank: i32,
}

/// The root moves to search, given the ranking: those with the best rank
/// when one line is asked for, every ranked move otherwise; `keep` says
/// which moves were asked for (`searchmoves`).
pub(super) fn root_selection(
    ranks: &[RootMoveRank],
    config: &TablebaseConfig,
    lines: usize,
    keep: impl Fn(Move) -> bool,
) -> Vec<(Move, RootTablebase)> {
    let kept: Vec<&RootMoveRank> = ranks.iter().filter(|r| keep(r.mv)).collect();
    let best = kept.iter().map(|r| r.rank).max();
    kept.into_iter()
        .filter(|r| lines > 1 || Some(r.rank) == best)
        .map(|r| {
            (
                r.mv,
                RootTablebase {
                    score: config.score(r.wdl, 1),
                    rank: r.rank,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::score::{MATE_BOUND, TB_WIN_BOUND};

    #[test]
    fn tablebase_scores_sit_between_evaluations_and_mates() {
        let config = TablebaseConfig::default();
        for ply in [0, 1, 40, MAX_PLY, MAX_PLY + 10] {
            let win = config.score(Wdl::Win, ply);
            assert!((TB_WIN_BOUND..MATE_BOUND).contains(&win), "{ply}: {win}");
            assert_eq!(config.score(Wdl::Loss, ply), -win);
        }
        assert_eq!(config.score(Wdl::Draw, 3), 0);
        assert_eq!(config.score(Wdl::CursedWin, 3), 1);
        assert_eq!(config.score(Wdl::BlessedLoss, 3), -1);
        let no_rule = TablebaseConfig {
            rule50: false,
            ..TablebaseConfig::default()
        };
        assert_eq!(no_rule.score(Wdl::CursedWin, 3), no_rule.score(Wdl::Win, 3));
    }

    #[test]
    fn repetitions_in_the_game_demote_or_draw_a_move() {
        // KRvK: the position after b1d1 is in the history twice, once
        // within the last 2 plies (the halfmove clock's window).
        let pos = Position::from_fen("8/8/8/8/8/2k5/8/KR6 w - - 2 9", false).expect("fen");
        let mv = |s: &str| pos.parse_uci_move(s).expect("legal");
        let key_after = |s: &str| {
            let mut next = pos;
            next.make_move(mv(s));
            next.key()
        };
        let rank = |m: &str, wdl, rank| RootMoveRank {
            mv: mv(m),
            wdl,
            dtz: 0,
            rank,
        };
        let mut ranks = [
            rank("b1d1", Wdl::Win, 973),
            rank("b1e1", Wdl::Win, 973),
            rank("a1a2", Wdl::Win, 972),
            rank("b1b3", Wdl::Draw, 0),
        ];
        let old = 0x1234_5678;
        let history = [key_after("b1d1"), old, key_after("b1d1")];
        // Only the last 2 plies count: b1d1 seen once, demoted below b1e1.
        count_repetitions(&mut ranks, &pos, &history);
        let order: Vec<(String, i32)> =
            ranks.iter().map(|r| (r.mv.to_uci(false), r.rank)).collect();
        assert_eq!(order[0], ("b1e1".to_string(), 973), "{order:?}");
        assert!(order.contains(&("b1d1".to_string(), 972)), "{order:?}");
        // With 3 plies both occurrences count: a threefold, a draw.
        let pos = Position::from_fen("8/8/8/8/8/2k5/8/KR6 w - - 3 9", false).expect("fen");
        let mut ranks = [rank("b1d1", Wdl::Win, 973), rank("a1a2", Wdl::Win, 972)];
        count_repetitions(&mut ranks, &pos, &history);
        assert_eq!(ranks[0].mv, mv("a1a2"));
        assert_eq!((ranks[1].wdl, ranks[1].rank), (Wdl::Draw, 0));
    }

    #[test]
    fn one_line_keeps_only_the_best_rank_and_respects_searchmoves() {
        let pos = Position::from_fen("8/8/8/8/8/2k5/8/KR6 w - - 0 1", false).expect("fen");
        let mv = |s: &str| pos.parse_uci_move(s).expect("legal");
        let rank = |m: &str, wdl, rank| RootMoveRank {
            mv: mv(m),
            wdl,
            dtz: 0,
            rank,
        };
        let ranks = [
            rank("b1d1", Wdl::Win, 973),
            rank("b1e1", Wdl::Win, 973),
            rank("a1a2", Wdl::Win, 970),
            rank("b1b3", Wdl::Draw, 0),
        ];
        let config = TablebaseConfig::default();
        let one: Vec<Move> = root_selection(&ranks, &config, 1, |_| true)
            .iter()
            .map(|s| s.0)
            .collect();
        assert_eq!(one, vec![mv("b1d1"), mv("b1e1")]);
        assert_eq!(root_selection(&ranks, &config, 3, |_| true).len(), 4);
        let only = root_selection(&ranks, &config, 1, |m| m == mv("b1b3"));
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].1.score, 0);
    }
}
