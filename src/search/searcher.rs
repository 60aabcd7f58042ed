//! One thread's search: iterative deepening with aspiration windows over a
//! principal variation search (alpha-beta), quiescence search, transposition
//! table cutoffs, null-move pruning, reverse futility and futility pruning,
//! late-move reductions and pruning, singular and check extensions.

use crate::board::movegen::{generate_moves, legal_moves, GenKind};
use crate::board::moves::{Move, MoveList};
use crate::board::position::Position;
use crate::board::see::{see_ge, see_value};
use crate::board::types::PieceKind;
use crate::eval::score::{mate_in, INFINITE, MATE, MATE_BOUND, MAX_PLY, TB_WIN_BOUND};
use crate::search::history::{piece_to, Previous, TT_MOVE_SCORE};
use crate::search::params::SearchParams;
use crate::search::picker::{pick, MovePicker};
use crate::search::tb::{RootTablebase, TablebaseConfig};
use crate::search::time::{Limits, TimeBudget};
use crate::search::tt::{Bound, TranspositionTable, TtHit};
use crate::search::{SearchEvent, SearchInfo, SearchRequest, SharedState, ThreadData};
use arrayvec::ArrayVec;
use crossbeam_channel::Sender;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const DRAW: i32 = 0;

#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub(super) mv: Move,
    pub(super) score: i32,
    pub(super) previous_score: i32,
    pub(super) pv: Vec<Move>,
    pub(super) seldepth: usize,
    /// Nodes this thread has spent below this move, over all iterations.
    pub(super) nodes: u64,
    /// The move's tablebase result when the root is in the tables.
    pub(super) tablebase: Option<RootTablebase>,
}

impl RootMove {
    /// The score to show and choose by: this iteration's, or the last
    /// one's while this iteration has not reached the move yet.
    pub(super) fn latest_score(&self) -> i32 {
        if self.score == -INFINITE {
            self.previous_score
        } else {
            self.score
        }
    }

    /// The score to show: the search's, or at a tablebase root the
    /// tables' verdict unless the search has found a mate.
    pub(super) fn shown_score(&self) -> i32 {
        let score = self.latest_score();
        match self.tablebase {
            Some(tb) if score.abs() < MATE_BOUND => tb.score,
            _ => score,
        }
    }
}

#[derive(Clone, Copy, Default)]
struct StackEntry {
    eval: i32,
    current: Option<Move>,
    /// `piece.index() * 64 + to` of the move made here; None for a null move.
    piece_to: Option<usize>,
    /// The move a singular-extension test leaves out of this node's search.
    excluded: Option<Move>,
}

const LMR_MAX: usize = 64;

pub(super) fn lmr_table(p: &SearchParams) -> [[i32; LMR_MAX]; LMR_MAX] {
    let base = p.lmr_base as f64 / 100.0;
    let divisor = p.lmr_divisor as f64 / 100.0;
    let mut t = [[0; LMR_MAX]; LMR_MAX];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as i32;
        }
    }
    t
}

/// One thread's search.
pub(super) struct Searcher<'a> {
    pub(super) id: usize,
    pub(super) shared: &'a SharedState,
    tt: &'a TranspositionTable,
    data: &'a mut ThreadData,
    pub(super) events: Option<&'a Sender<SearchEvent>>,
    limits: &'a Limits,
    tablebases: &'a TablebaseConfig,
    /// Probe the tables inside the tree (off when the root's ranking
    /// settles the result).
    tree_probes: bool,
    budget: TimeBudget,
    start: Instant,
    pub(super) nodes: u64,
    seldepth: usize,
    /// Keys of the positions before the current node: game history, then the search path.
    keys: Vec<u64>,
    /// Repetitions are not looked for across a null move.
    null_barrier: usize,
    pv: Vec<ArrayVec<Move, { MAX_PLY + 2 }>>,
    stack: [StackEntry; MAX_PLY + 4],
    pub(super) root_moves: Vec<RootMove>,
    pv_index: usize,
    pub(super) root_depth: i32,
    /// The last iteration this thread finished.
    pub(super) completed_depth: i32,
    lmr: [[i32; LMR_MAX]; LMR_MAX],
    p: SearchParams,
    /// The last exact score reported for the best move, for [`SearchResult`](super::SearchResult).
    pub(super) reported_score: Option<i32>,
}

impl<'a> Searcher<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        id: usize,
        shared: &'a SharedState,
        tt: &'a TranspositionTable,
        data: &'a mut ThreadData,
        request: &'a SearchRequest,
        budget: TimeBudget,
        roots: &[RootMove],
        lmr: [[i32; LMR_MAX]; LMR_MAX],
    ) -> Searcher<'a> {
        let mut keys = Vec::with_capacity(request.history.len() + MAX_PLY + 8);
        keys.extend_from_slice(&request.history);
        Searcher {
            id,
            shared,
            tt,
            data,
            events: None,
            limits: &request.limits,
            tablebases: &request.tablebases,
            tree_probes: shared.tree_probes.load(Ordering::Relaxed),
            budget,
            start: request.start,
            nodes: 0,
            seldepth: 0,
            keys,
            null_barrier: 0,
            pv: vec![ArrayVec::new(); MAX_PLY + 2],
            stack: [StackEntry::default(); MAX_PLY + 4],
            root_moves: roots.to_vec(),
            pv_index: 0,
            root_depth: 0,
            completed_depth: 0,
            lmr,
            p: request.params,
            reported_score: None,
        }
    }

    #[inline]
    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Time since the `go`: the soft limit counts from here, so time spent
    /// pondering on the right guess counts toward the move.
    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// When `ponderhit` arrived, counted from the `go`; zero without one.
    fn ponderhit_at(&self) -> Duration {
        Duration::from_nanos(self.shared.ponderhit_ns.load(Ordering::Relaxed))
    }

    /// Counts a node; the main thread checks its limits every 1024 nodes.
    /// True when the search must unwind now: this node reached a limit, or
    /// a periodic check found the stop set. Between checks the stop is read
    /// by [`Self::stopped`] as each node is entered, not here again.
    #[inline]
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        let mut checked = false;
        if self.nodes & 1023 == 0 {
            self.shared.node_counts[self.id].store(self.nodes, Ordering::Relaxed);
            if self.is_main() {
                self.check_limits();
            }
            checked = true;
        }
        if let Some(max) = self.limits.nodes {
            if self.is_main() && self.total_nodes() >= max {
                self.shared.stop.store(true, Ordering::Relaxed);
                checked = true;
            }
        }
        checked && self.stopped()
    }

    fn total_nodes(&self) -> u64 {
        if self.shared.node_counts.len() == 1 {
            self.nodes
        } else {
            self.shared.total_nodes() - self.shared.node_counts[self.id].load(Ordering::Relaxed)
                + self.nodes
        }
    }

    /// Waits until `pace` has passed since the `go` (a strength level that
    /// finished early), unless the GUI stopped the search or it still ponders:
    /// the clock is used like a player uses it.
    pub(super) fn wait_for_pace(&self, pace: Option<Duration>) {
        let Some(pace) = pace else { return };
        while self.elapsed() < pace
            && !self.shared.stopped_from_outside.load(Ordering::Relaxed)
            && !self.shared.pondering.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Stops the search when the hard limit, counted from the clock's start
    /// (the `go`, or the `ponderhit` of a ponder search), has passed. After a
    /// `ponderhit`, also when the soft limit counted from the `go` has: the
    /// pondering already paid for the move.
    fn check_limits(&self) {
        if self.shared.pondering.load(Ordering::Relaxed) {
            return;
        }
        let elapsed = self.elapsed();
        let ponderhit = self.ponderhit_at();
        let past = |limit: Option<Duration>, since: Duration| {
            limit.is_some_and(|l| elapsed.saturating_sub(since) >= l)
        };
        let banked = !ponderhit.is_zero() && past(self.budget.soft, Duration::ZERO);
        if past(self.budget.hard, ponderhit) || banked {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// `raw` with this thread's correction history applied (pawn structure,
    /// plus piece placement when `piece_correction` is on).
    #[inline]
    fn corrected_eval(&self, pos: &Position, raw: i32) -> i32 {
        let p = &self.p;
        let history = &self.data.correction;
        history.corrected(pos, raw, p.correction_limit, p.piece_correction)
    }

    /// The static evaluation of the node `ply` plies from the root.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        self.data.evaluator.evaluate_at(pos, ply)
    }

    /// Whether the search must unwind now. The main thread finishes depth 1
    /// first (a few hundred nodes at most), so an immediate `stop` or a tiny
    /// node limit still answers with a searched move, not the generator's first.
    #[inline]
    fn stopped(&self) -> bool {
        (self.completed_depth > 0 || !self.is_main()) && self.shared.stop.load(Ordering::Relaxed)
    }

    /// Draw by rule at an inner node: 50 moves, repetition, dead position.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.fifty_move_clock_expired() || pos.is_dead_position() {
            return true;
        }
        let n = self.keys.len();
        let window = (pos.halfmove_clock() as usize).min(n - self.null_barrier.min(n));
        let key = pos.key();
        (2..=window).step_by(2).any(|i| self.keys[n - i] == key)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend(tail[0].iter().copied());
    }

    /// The piece-to keys of the moves one and two plies before `ply`, for continuation history.
    fn previous_piece_to(&self, ply: usize) -> Previous {
        let back = |n: usize| ply.checked_sub(n).and_then(|p| self.stack[p].piece_to);
        [back(1), back(2)]
    }

    /// Ordering scores for a whole list (the root's moves, quiescence's captures).
    fn score_moves(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: Option<Move>,
        ply: usize,
    ) -> ArrayVec<i32, 256> {
        let killers = self.data.history.killers(ply);
        self.data
            .history
            .score_moves(pos, moves, tt_move, killers, self.previous_piece_to(ply))
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        self.pv[ply].clear();
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        // A node entered after the stop is not searched, so not counted
        // (`go nodes N` never reports more than N); the node that reaches
        // the limit is counted and abandoned.
        if self.stopped() && !root {
            return 0;
        }
        if self.count_node() && !root {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let in_check = pos.in_check();

        if !root {
            if pos.fifty_move_clock_expired() && in_check && legal_moves(pos).is_empty() {
                return -MATE + ply as i32;
            }
            if self.is_draw(pos) {
                return DRAW;
            }
            if ply >= MAX_PLY {
                return if in_check {
                    DRAW
                } else {
                    self.evaluate(pos, ply)
                };
            }
            // Mate-distance pruning: no line from here beats a mate already found nearer the root.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        let excluded = self.stack[ply].excluded;
        let key = pos.key();
        let tt_hit = self.tt.probe(key);
        let tt_move = tt_hit.and_then(|h| h.mv);
        if let Some(hit) = tt_hit {
            if !pv_node && excluded.is_none() && hit.depth >= depth {
                if let Some(score) = tt_cutoff(&hit, ply, alpha, beta) {
                    return score;
                }
            }
        }

        // The static eval (cached raw in the TT) with the correction history;
        // the pruning rules use a TT score instead where its bound says it is
        // the better estimate.
        let (raw_eval, static_eval, eval) = if in_check {
            (-INFINITE, -INFINITE, -INFINITE)
        } else {
            let raw = match tt_hit {
                Some(hit) => hit.eval,
                None => self.evaluate(pos, ply),
            };
            let corrected = self.corrected_eval(pos, raw);
            let refine = self.p.tt_eval_refine != 0;
            (
                raw,
                corrected,
                refined_eval(corrected, tt_hit.as_ref(), ply, refine),
            )
        };
        self.stack[ply].eval = static_eval;

        // Right after a capture or pawn move with few pieces left, the
        // tablebases know the result: take it where it settles the window.
        if !root
            && excluded.is_none()
            && self.tree_probes
            && self.tablebases.probes_node(pos, depth)
        {
            if let Some(wdl) = self.tablebases.tables.probe_wdl(pos) {
                self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
                let score = self.tablebases.score(wdl, ply);
                let (bound, settles) = if score >= TB_WIN_BOUND {
                    (Bound::Lower, score >= beta)
                } else if score <= -TB_WIN_BOUND {
                    (Bound::Upper, score <= alpha)
                } else {
                    (Bound::Exact, true)
                };
                if settles {
                    let depth = (depth + 6).min(MAX_PLY as i32 - 1);
                    let stored = score_to_tt(score, ply);
                    self.tt.store(key, None, stored, raw_eval, depth, bound);
                    return score;
                }
            }
        }
        let improving = !in_check && ply >= 2 && eval > self.stack[ply - 2].eval;
        let us = pos.side_to_move();
        let has_pieces =
            (pos.colored(us) & !pos.pieces(PieceKind::Pawn) & !pos.pieces(PieceKind::King))
                .nonempty();

        if !pv_node && !in_check && excluded.is_none() {
            // Reverse futility: far above beta, assume a quiet move keeps it there.
            if depth <= self.p.rfp_depth
                && eval.abs() < MATE_BOUND
                && eval - self.p.rfp_margin * (depth - improving as i32) >= beta
            {
                return eval;
            }
            // Null move: if passing still fails high, a real move will too (not in zugzwang-prone endings).
            if depth >= 3
                && eval >= beta
                && has_pieces
                && ply >= 1
                && self.stack[ply - 1].current.is_some()
            {
                let r = self.p.nmp_base
                    + depth / self.p.nmp_depth_divisor
                    + ((eval - beta) / self.p.nmp_eval_divisor).min(3);
                let mut next = *pos;
                next.make_null_move();
                self.keys.push(key);
                let barrier = std::mem::replace(&mut self.null_barrier, self.keys.len());
                self.stack[ply].current = None;
                self.stack[ply].piece_to = None;
                let score = -self.negamax(&next, depth - r, -beta, -beta + 1, ply + 1, !cut_node);
                self.null_barrier = barrier;
                self.keys.pop();
                if self.stopped() {
                    return 0;
                }
                if score >= beta {
                    return if score >= TB_WIN_BOUND { beta } else { score };
                }
            }
        }

        // Internal iterative reduction: without a hash move this node is probably not worth full depth.
        if tt_move.is_none() && depth >= 4 && (pv_node || cut_node) && excluded.is_none() {
            depth -= 1;
        }

        let killers = self.data.history.killers(ply);
        let previous = self.previous_piece_to(ply);
        let mut picker = if root {
            let mut moves = MoveList::new();
            moves.extend(self.root_moves[self.pv_index..].iter().map(|r| r.mv));
            let scores = self.score_moves(pos, &moves, tt_move, ply);
            MovePicker::with_moves(moves, scores)
        } else {
            MovePicker::new(tt_move, killers, previous)
        };

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let mut move_number = 0;
        // Only the hash move of a deep enough non-root node is tested for singularity.
        let singular_candidate = !root && excluded.is_none() && depth >= 8;

        while let Some((mv, move_score)) = picker.next(pos, &self.data.history) {
            if Some(mv) == excluded {
                continue;
            }
            move_number += 1;
            let is_capture = pos.is_capture(mv);
            let quiet = !is_capture && mv.promotion_piece().is_none();

            if !root && best_score > -MATE_BOUND && has_pieces {
                if quiet {
                    // Late-move pruning: at low depth, late quiet moves rarely matter.
                    if depth <= 8
                        && move_number as i32
                            >= (self.p.lmp_base + depth * depth) / (2 - improving as i32)
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    // Futility: this quiet move cannot lift a hopeless static score to alpha.
                    if !in_check
                        && depth <= 8
                        && eval + self.p.futility_base + self.p.futility_scale * depth <= alpha
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    // History pruning: quiet moves come by history, so once one has
                    // a bad enough record at low depth, every later one has too.
                    // (Killers carry a fixed score far above any history.)
                    if self.p.history_prune > 0
                        && depth <= 4
                        && move_score < -self.p.history_prune * depth
                    {
                        picker.skip_quiets();
                        continue;
                    }
                    if depth <= 8 && !see_ge(pos, mv, -self.p.see_quiet * depth * depth) {
                        continue;
                    }
                } else if depth <= 6 && !see_ge(pos, mv, -self.p.see_noisy * depth) {
                    continue;
                }
            }

            // Singular extension: if every other move fails well below the hash
            // score, the hash move is the only good one here and earns a ply.
            let mut singular_extension = 0;
            if let Some(hit) = tt_hit.filter(|_| singular_candidate && Some(mv) == tt_move) {
                let tt_score = score_from_tt(hit.score, ply);
                if hit.depth >= depth - 3
                    && hit.bound != Bound::Upper
                    && tt_score.abs() < MATE_BOUND
                {
                    let singular_beta = tt_score - self.p.singular_margin * depth;
                    self.stack[ply].excluded = Some(mv);
                    let score = self.negamax(
                        pos,
                        (depth - 1) / 2,
                        singular_beta - 1,
                        singular_beta,
                        ply,
                        cut_node,
                    );
                    self.stack[ply].excluded = None;
                    if self.stopped() {
                        return 0;
                    }
                    if score < singular_beta {
                        singular_extension = 1;
                    } else if singular_beta >= beta {
                        // Multi-cut: even without the hash move this node fails high.
                        return singular_beta;
                    } else if tt_score >= beta {
                        singular_extension = -1;
                    }
                }
            }

            let mut next = *pos;
            next.make_move(mv);
            self.tt.prefetch(next.key());
            let gives_check = next.in_check();
            let extension = if singular_extension != 0 {
                singular_extension
            } else {
                i32::from(gives_check && (ply as i32) < 2 * self.root_depth)
            };
            let new_depth = depth - 1 + extension;

            if root && self.is_main() && self.elapsed() > Duration::from_secs(1) {
                if let Some(events) = self.events {
                    let _ = events.send(SearchEvent::CurrentMove {
                        depth: self.root_depth,
                        mv,
                        number: move_number + self.pv_index,
                    });
                }
            }

            let nodes_before = self.nodes;
            self.keys.push(key);
            self.stack[ply].current = Some(mv);
            self.stack[ply].piece_to = Some(piece_to(pos, mv));
            let mut score;
            if move_number == 1 {
                score = -self.negamax(
                    &next,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    !pv_node && !cut_node,
                );
            } else {
                let mut r = 0;
                if depth >= 3 && move_number > 1 + pv_node as usize && (quiet || move_score < 0) {
                    r = self.lmr[(depth as usize).min(LMR_MAX - 1)][move_number.min(LMR_MAX - 1)];
                    r += i32::from(!pv_node);
                    r += i32::from(!improving);
                    r += i32::from(cut_node);
                    r -= i32::from(gives_check);
                    if killers.contains(&Some(mv)) {
                        r -= 1;
                    }
                    if quiet {
                        r -= move_score / self.p.lmr_history;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(&next, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if score > alpha && r > 0 {
                    score = -self.negamax(&next, new_depth, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&next, new_depth, -beta, -alpha, ply + 1, false);
                }
            }
            self.keys.pop();

            if self.stopped() {
                return 0;
            }

            if root {
                let index = self
                    .root_moves
                    .iter()
                    .position(|r| r.mv == mv)
                    .unwrap_or(self.pv_index);
                self.root_moves[index].nodes += self.nodes - nodes_before;
                if move_number == 1 || score > alpha {
                    let line: Vec<Move> = std::iter::once(mv)
                        .chain(self.pv[1].iter().copied())
                        .collect();
                    let seldepth = self.seldepth;
                    let rm = &mut self.root_moves[index];
                    rm.score = score;
                    rm.pv = line;
                    rm.seldepth = seldepth;
                } else {
                    self.root_moves[index].score = -INFINITE;
                }
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        let bonus = (self.p.history_scale * depth * depth).min(self.p.history_max);
                        if quiet {
                            self.data.history.add_killer(ply, mv);
                            let side = us.index();
                            self.data.history.update_quiet_history(
                                side,
                                mv,
                                piece_to(pos, mv),
                                previous,
                                bonus,
                            );
                            for &q in &quiets_tried {
                                self.data.history.update_quiet_history(
                                    side,
                                    q,
                                    piece_to(pos, q),
                                    previous,
                                    -bonus,
                                );
                            }
                        } else if is_capture {
                            self.data.history.update_capture_history(pos, mv, bonus);
                        }
                        // Captures that were tried first and failed to cut lose credit either way.
                        for &c in &captures_tried {
                            self.data.history.update_capture_history(pos, c, -bonus);
                        }
                        break;
                    }
                    alpha = score;
                }
            }
            if Some(mv) != best_move {
                if quiet {
                    let _ = quiets_tried.try_push(mv);
                } else if is_capture {
                    let _ = captures_tried.try_push(mv);
                }
            }
        }

        if move_number == 0 {
            if excluded.is_some() {
                return alpha;
            }
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        if best_score == -INFINITE {
            // Every move was pruned (cannot happen at the first move, see above); fail low.
            return alpha;
        }
        if !(root && self.pv_index > 0) && excluded.is_none() {
            let bound = if best_score >= beta {
                Bound::Lower
            } else if best_score > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let best_is_quiet = best_move.is_none_or(|mv| !pos.is_noisy(mv));
            // Learn from results that say where the true score lies relative
            // to the static eval (a fail-high above it, a fail-low below it).
            if !in_check
                && best_is_quiet
                && best_score.abs() < MATE_BOUND
                && !(bound == Bound::Lower && best_score <= static_eval)
                && !(bound == Bound::Upper && best_score >= static_eval)
            {
                self.data.correction.update(
                    pos,
                    depth,
                    best_score - static_eval,
                    self.p.correction_limit,
                    self.p.piece_correction,
                );
            }
            let stored_eval = if in_check { 0 } else { raw_eval };
            self.tt.store(
                key,
                best_move,
                score_to_tt(best_score, ply),
                stored_eval,
                depth,
                bound,
            );
        }
        best_score
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.stopped() || self.count_node() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if pos.is_dead_position() {
            return DRAW;
        }
        let in_check = pos.in_check();
        if pos.fifty_move_clock_expired() {
            return if in_check && legal_moves(pos).is_empty() {
                -MATE + ply as i32
            } else {
                DRAW
            };
        }
        if ply >= MAX_PLY {
            return if in_check {
                DRAW
            } else {
                self.evaluate(pos, ply)
            };
        }
        let key = pos.key();
        let tt_hit = self.tt.probe(key);
        if let Some(score) = tt_hit.and_then(|hit| tt_cutoff(&hit, ply, alpha, beta)) {
            return score;
        }

        let mut best_score;
        let stand_pat;
        let mut raw_eval = 0;
        if in_check {
            best_score = -INFINITE;
            stand_pat = -INFINITE;
        } else {
            raw_eval = match tt_hit {
                Some(hit) => hit.eval,
                None => self.evaluate(pos, ply),
            };
            let static_eval = self.corrected_eval(pos, raw_eval);
            stand_pat = refined_eval(
                static_eval,
                tt_hit.as_ref(),
                ply,
                self.p.tt_eval_refine != 0,
            );
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }

        let mut moves = MoveList::new();
        generate_moves(
            pos,
            if in_check {
                GenKind::All
            } else {
                GenKind::Noisy
            },
            &mut moves,
        );
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut scores = self.score_moves(pos, &moves, tt_hit.and_then(|h| h.mv), ply);
        let mut best_move = None;
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
            let mv = moves[i];
            if !in_check {
                // Moves come best first, so from the first losing capture or
                // underpromotion on, every move left is one of those: skip them all.
                if scores[i] < 0 {
                    break;
                }
                let promo = mv.promotion_piece();
                if matches!(promo, Some(p) if p != PieceKind::Queen) {
                    continue;
                }
                // Delta pruning: even winning this piece cannot reach alpha.
                let gain =
                    pos.captured(mv).map_or(0, see_value) + if promo.is_some() { 800 } else { 0 };
                if stand_pat + gain + self.p.delta_margin <= alpha {
                    continue;
                }
                // Only the hash move was scored without its exchange.
                let wins_exchange = if scores[i] == TT_MOVE_SCORE {
                    see_ge(pos, mv, 0)
                } else {
                    scores[i] > 0
                };
                if !wins_exchange {
                    continue;
                }
            }
            let mut next = *pos;
            next.make_move(mv);
            self.tt.prefetch(next.key());
            let score = -self.qsearch(&next, -beta, -alpha, ply + 1);
            if self.stopped() {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(mv);
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Upper
        };
        let stored_eval = raw_eval;
        self.tt.store(
            key,
            best_move,
            score_to_tt(best_score, ply),
            stored_eval,
            0,
            bound,
        );
        best_score
    }

    /// Iterative deepening; returns when the limits are reached or the search is stopped.
    pub(super) fn iterate(&mut self, root: &Position, multipv: usize) {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 1)
            .clamp(1, MAX_PLY as i32 - 1);
        let mut best_move_changes = 0.0f64;
        let mut last_best: Option<Move> = None;
        let mut previous_best_score: Option<i32> = None;
        for depth in 1..=max_depth {
            if self.skips_depth(depth) {
                continue;
            }
            self.root_depth = depth;
            for rm in self.root_moves.iter_mut() {
                rm.previous_score = rm.score;
            }
            let lines = multipv.min(self.root_moves.len());
            for pv_index in 0..lines {
                self.pv_index = pv_index;
                self.seldepth = 0;
                let previous = self.root_moves[pv_index].previous_score;
                let mut delta = self.p.aspiration_delta;
                let (mut alpha, mut beta) = if depth >= 5 && previous.abs() < TB_WIN_BOUND {
                    (
                        (previous - delta).max(-INFINITE),
                        (previous + delta).min(INFINITE),
                    )
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let score = self.negamax(root, depth, alpha, beta, 0, false);
                    self.root_moves[pv_index..].sort_by_key(|r| std::cmp::Reverse(r.score));
                    if self.stopped() {
                        break;
                    }
                    if score <= alpha {
                        if self.is_main() && self.elapsed() > Duration::from_secs(3) {
                            self.report_line(pv_index, Some(Bound::Upper), alpha);
                        }
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INFINITE);
                    } else if score >= beta {
                        if self.is_main() && self.elapsed() > Duration::from_secs(3) {
                            self.report_line(pv_index, Some(Bound::Lower), beta);
                        }
                        beta = (score + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    delta += delta / 2;
                }
                self.root_moves[..=pv_index].sort_by_key(|r| std::cmp::Reverse(r.score));
                if self.stopped() {
                    break;
                }
            }
            if self.stopped() {
                break;
            }
            self.completed_depth = depth;
            // At a tablebase root the lines go by the tables' verdict first.
            if self.root_moves[0].tablebase.is_some() {
                self.root_moves
                    .sort_by_key(|r| std::cmp::Reverse(r.tablebase.map(|t| t.rank)));
            }
            if !self.is_main() {
                self.publish_helper_result(depth, max_depth);
                continue;
            }
            for line in 0..lines {
                self.report_line(line, None, 0);
            }

            // Stop conditions, checked between iterations.
            let best = self.root_moves[0].mv;
            if last_best.is_some_and(|b| b != best) {
                best_move_changes += 1.0;
            }
            best_move_changes *= 0.5;
            last_best = Some(best);
            if self
                .limits
                .soft_nodes
                .is_some_and(|soft| self.total_nodes() >= soft)
            {
                break;
            }
            if self
                .limits
                .tactical_soft_nodes
                .is_some_and(|soft| self.total_nodes() >= soft)
                && root.is_noisy(best)
            {
                break;
            }
            if let Some(mate) = self.limits.mate {
                if mate_in(self.root_moves[0].score).is_some_and(|m| m > 0 && m <= mate) {
                    break;
                }
            }
            if !self.shared.pondering.load(Ordering::Relaxed) {
                if let Some(soft) = self.budget.soft {
                    // Spend longer while the best move keeps changing, while it
                    // takes a small share of the effort (its rivals needed deep
                    // searches to refute), and while the score is falling.
                    let scale = (0.6 + best_move_changes.min(2.0) * 0.6)
                        * self.effort_scale(depth)
                        * self.fall_scale(previous_best_score);
                    if self.elapsed().as_secs_f64() >= soft.as_secs_f64() * scale {
                        break;
                    }
                }
            }
            previous_best_score = Some(self.root_moves[0].score);
        }
    }

    /// Soft-limit factor from the share of this thread's nodes spent below
    /// the best root move: a small share means its rivals were hard to refute.
    fn effort_scale(&self, depth: i32) -> f64 {
        if self.p.tm_effort == 0 || depth < 6 {
            return 1.0;
        }
        let best_share = self.root_moves[0].nodes as f64 / self.nodes.max(1) as f64;
        ((1.5 - best_share) * self.p.tm_effort as f64 / 100.0).clamp(0.6, 1.6)
    }

    /// Soft-limit factor from how far the best score fell since the last iteration.
    fn fall_scale(&self, previous_best_score: Option<i32>) -> f64 {
        match previous_best_score {
            Some(prev) if self.p.tm_fall > 0 && prev.abs() < MATE_BOUND => {
                let fall = (prev - self.root_moves[0].score).clamp(0, 100);
                1.0 + fall as f64 / self.p.tm_fall as f64
            }
            _ => 1.0,
        }
    }

    /// Shares a helper's finished iteration; one that reaches the depth
    /// limit ends the search, since its answer is as deep as asked for.
    fn publish_helper_result(&self, depth: i32, max_depth: i32) {
        let best = &self.root_moves[0];
        if let Ok(mut deepest) = self.shared.deepest_helper.lock() {
            if deepest.as_ref().is_none_or(|d| d.0 < depth) {
                *deepest = Some((depth, best.score, best.pv.clone()));
            }
        }
        if depth >= max_depth && self.limits.depth.is_some() {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Lazy SMP diversity: helper threads skip some depths (a different
    /// pattern per helper) so that they run ahead of the main thread and fill
    /// the shared table with deeper results instead of repeating its work.
    fn skips_depth(&self, depth: i32) -> bool {
        const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
        const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
        if self.is_main() || depth <= 1 {
            return false;
        }
        let i = (self.id - 1) % 20;
        ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 != 0
    }

    pub(super) fn report_line(&mut self, line: usize, bound: Option<Bound>, bound_score: i32) {
        let Some(info) = self.line_info(line, bound, bound_score) else {
            return;
        };
        if bound.is_none() && line == 0 {
            self.reported_score = Some(info.score);
        }
        if let Some(events) = self.events {
            let _ = events.send(SearchEvent::Info(info));
        }
    }

    /// Analysis line `line` (0: the best) as it stands: this iteration's
    /// score, or the last one's where this iteration has not reached the
    /// move yet; `None` before depth 1 is done.
    pub(super) fn line_info(
        &self,
        line: usize,
        bound: Option<Bound>,
        bound_score: i32,
    ) -> Option<SearchInfo> {
        let rm = &self.root_moves[line];
        let score = rm.shown_score();
        let depth = self.root_depth - i32::from(rm.score == -INFINITE);
        if depth < 1 || rm.latest_score() == -INFINITE {
            return None;
        }
        Some(SearchInfo {
            depth,
            seldepth: rm.seldepth.max(depth as usize),
            multipv: line + 1,
            score: if bound.is_some() { bound_score } else { score },
            bound,
            nodes: self.total_nodes(),
            time: self.start.elapsed(),
            hashfull: self.tt.hashfull(),
            tbhits: (self.tablebases.cardinality() > 0)
                .then(|| self.shared.tbhits.load(Ordering::Relaxed)),
            pv: rm.pv.clone(),
        })
    }
}

/// The static eval, or the TT score where its bound shows the eval is off
/// in the direction the bound proves (a lower bound above it, an upper bound
/// below it).
fn refined_eval(static_eval: i32, hit: Option<&TtHit>, ply: usize, enabled: bool) -> i32 {
    let Some(hit) = hit.filter(|_| enabled) else {
        return static_eval;
    };
    let score = score_from_tt(hit.score, ply);
    let better = match hit.bound {
        Bound::Exact => true,
        Bound::Lower => score > static_eval,
        Bound::Upper => score < static_eval,
    };
    if better && score.abs() < MATE_BOUND {
        score
    } else {
        static_eval
    }
}

/// The stored score if its bound settles the window (alpha, beta).
#[inline]
fn tt_cutoff(hit: &TtHit, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let score = score_from_tt(hit.score, ply);
    let settles = match hit.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    settles.then_some(score)
}

/// Mate and tablebase scores are stored relative to the node, read back
/// relative to the root.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}
