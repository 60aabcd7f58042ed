//! From table reads to a position's true value: the tables leave out
//! positions whose best move is a capture, and know nothing of en passant,
//! so captures are searched first; a DTZ table may store only one side to
//! move, so the other side is answered with a one-ply search.

use super::table::DtzRead;
use super::{RootMoveRank, Tablebases, Wdl};
use crate::board::movegen::{generate_moves, legal_moves, GenKind};
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::Position;
use crate::board::types::PieceKind;

/// DTZ of a position whose best move zeroes, by its WDL value (-2..=2).
fn zeroing_dtz(wdl: i32) -> i32 {
    match wdl {
        -2 => -1,
        -1 => -101,
        1 => 101,
        2 => 1,
        _ => 0,
    }
}

fn child(pos: &Position, mv: Move) -> Position {
    let mut next = *pos;
    next.make_move(mv);
    next
}

fn captures(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate_moves(pos, GenKind::Noisy, &mut list);
    list.retain(|mv| pos.is_capture(*mv));
    list
}

fn is_mate(pos: &Position) -> bool {
    pos.in_check() && legal_moves(pos).is_empty()
}

fn is_pawn_move(pos: &Position, mv: Move) -> bool {
    pos.piece_on(mv.from())
        .is_some_and(|p| p.kind() == PieceKind::Pawn)
}

impl Tablebases {
    /// The WDL table's value of `pos`, which must not have en passant
    /// rights that matter (the caller resolves captures).
    fn table_wdl(&self, pos: &Position) -> Option<i32> {
        if pos.occupied() == pos.pieces(PieceKind::King) {
            return Some(0);
        }
        let entry = self.entry(pos)?;
        entry.wdl.get(&entry.info, false)?.wdl(&entry.info, pos)
    }

    fn table_dtz(&self, pos: &Position, wdl: i32) -> Option<DtzRead> {
        let entry = self.entry(pos)?;
        let file = entry.dtz.as_ref()?;
        file.get(&entry.info, true)?.dtz(&entry.info, pos, wdl)
    }

    /// Value of `pos` within the window, captures searched first (a
    /// position after a capture has no en passant rights).
    fn capture_search(&self, pos: &Position, mut alpha: i32, beta: i32) -> Option<i32> {
        for mv in captures(pos) {
            let v = -self.capture_search(&child(pos, mv), -beta, -alpha)?;
            if v > alpha {
                if v >= beta {
                    return Some(v);
                }
                alpha = v;
            }
        }
        Some(alpha.max(self.table_wdl(pos)?))
    }

    /// The WDL value (-2..=2) of `pos`, and whether a capture (or an en
    /// passant capture that the table cannot see) is the best move, so the
    /// DTZ table must not be read.
    pub(super) fn resolved_wdl(&self, pos: &Position) -> Option<(i32, bool)> {
        let mut best_capture = -3;
        let mut best_ep = -3;
        for mv in captures(pos) {
            let v = -self.capture_search(&child(pos, mv), -2, -best_capture)?;
            if v > best_capture {
                if v == 2 {
                    return Some((2, true));
                }
                if mv.kind() == MoveKind::EnPassant {
                    best_ep = best_ep.max(v);
                } else {
                    best_capture = v;
                }
            }
        }
        let stored = self.table_wdl(pos)?;
        if best_ep > best_capture {
            if best_ep > stored {
                return Some((best_ep, true));
            }
            best_capture = best_ep;
        }
        if best_capture >= stored {
            return Some((best_capture, best_capture > 0));
        }
        // The table sees a stalemate where only en passant can be played.
        if best_ep > -3 && stored == 0 && !pos.in_check() {
            let moves = legal_moves(pos);
            if moves.iter().all(|mv| mv.kind() == MoveKind::EnPassant) {
                return Some((best_ep, true));
            }
        }
        Some((stored, false))
    }

    /// Signed distance to zeroing of `pos` (see `probe_dtz`). `depth` guards
    /// the one-ply search against tables that never hold the side asked.
    pub(super) fn distance(&self, pos: &Position, depth: u32) -> Option<i32> {
        let (wdl, capture_best) = self.resolved_wdl(pos)?;
        if wdl == 0 {
            return Some(0);
        }
        if capture_best {
            return Some(zeroing_dtz(wdl));
        }
        let moves = legal_moves(pos);
        if wdl > 0 {
            // A pawn move that keeps the win zeroes at once.
            for &mv in moves.iter() {
                if !is_pawn_move(pos, mv) || pos.is_capture(mv) {
                    continue;
                }
                let (v, _) = self.resolved_wdl(&child(pos, mv))?;
                if -v == wdl {
                    return Some(zeroing_dtz(wdl));
                }
            }
        }
        match self.table_dtz(pos, wdl)? {
            DtzRead::Value(d) => Some(zeroing_dtz(wdl) + if wdl > 0 { d } else { -d }),
            DtzRead::OtherSide => self.distance_by_search(pos, wdl, &moves, depth),
        }
    }

    /// DTZ from the children when the table holds only the other side to
    /// move: captures and pawn moves are already accounted for.
    fn distance_by_search(
        &self,
        pos: &Position,
        wdl: i32,
        moves: &MoveList,
        depth: u32,
    ) -> Option<i32> {
        if depth > 0 {
            return None;
        }
        // A loss may have to zero (a losing capture or pawn move, or mate).
        let mut best = if wdl > 0 { i32::MAX } else { zeroing_dtz(wdl) };
        for &mv in moves.iter() {
            if pos.is_capture(mv) || is_pawn_move(pos, mv) {
                continue;
            }
            let next = child(pos, mv);
            let v = -self.distance(&next, depth + 1)?;
            if v == 1 && is_mate(&next) {
                best = 1;
            } else if wdl > 0 {
                if v > 0 && v + 1 < best {
                    best = v + 1;
                }
            } else if v - 1 < best {
                best = v - 1;
            }
        }
        (best != i32::MAX).then_some(best)
    }

    /// Every legal move with its DTZ from the root and rank (see
    /// `rank_root_moves`).
    pub(super) fn rank_moves(&self, pos: &Position, rule50: bool) -> Option<Vec<RootMoveRank>> {
        let clock = i32::from(pos.halfmove_clock());
        let mut ranked = Vec::new();
        for &mv in legal_moves(pos).iter() {
            let next = child(pos, mv);
            let zeroing = next.halfmove_clock() == 0;
            let mate = is_mate(&next);
            let dtz = if mate {
                1
            } else if zeroing {
                let (v, _) = self.resolved_wdl(&next)?;
                zeroing_dtz(-v)
            } else {
                let v = -self.distance(&next, 0)?;
                v + v.signum()
            };
            let plies = dtz.abs() + if zeroing { 0 } else { clock };
            let in_time = plies <= 100;
            let (wdl, rank) = if mate {
                (Wdl::Win, 1000)
            } else if dtz > 0 {
                if rule50 && !in_time {
                    (Wdl::CursedWin, (1000 - plies).clamp(1, 899))
                } else {
                    (Wdl::Win, (1000 - plies).clamp(1, 999))
                }
            } else if dtz < 0 {
                if rule50 && !in_time {
                    (Wdl::BlessedLoss, (-1000 + plies).clamp(-899, -1))
                } else {
                    (Wdl::Loss, (-1000 + plies).clamp(-999, -1))
                }
            } else {
                (Wdl::Draw, 0)
            };
            ranked.push(RootMoveRank { mv, wdl, dtz, rank });
        }
        ranked.sort_by_key(|r| std::cmp::Reverse(r.rank));
        Some(ranked)
    }
}
