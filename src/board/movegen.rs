//! Fully legal move generation.
//!
//! One generator serves three uses through the [`MoveSink`] trait: filling a
//! move list, counting moves by popcount without building them (perft's
//! last ply), and testing whether one given move is among them (`is_legal`). It
//! knows nothing of search.
//!
//! Legality comes from check and pin masks computed in `Position`
//! (`checkers`, `pinned`): king moves and castling are tested against the
//! attacks with the king lifted off the board (gathered once, from the
//! enemy pieces that can reach the king's squares at all), pinned pieces move
//! only along their pin line, and en passant is tested by playing it out on
//! the occupancy.

use crate::board::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks,
    rook_attacks, rook_rays,
};
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind, MoveList};
use crate::board::position::{castling_index, Position};
use crate::board::types::{Color, PieceKind, Square};

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenKind {
    /// Every legal move.
    All,
    /// Captures (en passant included) and every promotion.
    Noisy,
    /// Everything else: quiet moves and castling.
    Quiet,
}

const ALL: u8 = 0;
const NOISY: u8 = 1;
const QUIET: u8 = 2;

/// Receives generated moves.
pub trait MoveSink {
    fn add(&mut self, mv: Move);
    /// Normal moves from `from` to each square of `targets`.
    fn add_targets(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves without promotion to each square of `targets`, from `to - delta`.
    fn add_pawn_moves(&mut self, targets: Bitboard, delta: i8);
    /// The four promotions from `to - delta` for each square of `targets`.
    fn add_promotions(&mut self, targets: Bitboard, delta: i8);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn add(&mut self, mv: Move) {
        self.push(mv);
    }

    #[inline(always)]
    fn add_targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }

    #[inline(always)]
    fn add_pawn_moves(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            self.push(Move::normal(to.offset(-delta), to));
        }
    }

    #[inline(always)]
    fn add_promotions(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            let from = to.offset(-delta);
            for kind in [
                PieceKind::Queen,
                PieceKind::Knight,
                PieceKind::Rook,
                PieceKind::Bishop,
            ] {
                self.push(Move::promotion(from, to, kind));
            }
        }
    }
}

/// Counts moves instead of storing them.
struct Counter(u64);

impl MoveSink for Counter {
    #[inline(always)]
    fn add(&mut self, _mv: Move) {
        self.0 += 1;
    }
    #[inline(always)]
    fn add_targets(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn add_pawn_moves(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += targets.count() as u64;
    }
    #[inline(always)]
    fn add_promotions(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += 4 * targets.count() as u64;
    }
}

/// Looks for one move among the generated ones instead of storing them.
struct Finder {
    target: Move,
    found: bool,
}

impl Finder {
    /// Whether the target is a plain move (spare promotion bits clear).
    #[inline(always)]
    fn target_is_normal(&self) -> bool {
        let t = self.target;
        t == Move::normal(t.from(), t.to())
    }
}

impl MoveSink for Finder {
    #[inline(always)]
    fn add(&mut self, mv: Move) {
        self.found |= mv == self.target;
    }
    #[inline(always)]
    fn add_targets(&mut self, from: Square, targets: Bitboard) {
        let t = self.target;
        self.found |= t.from() == from && targets.contains(t.to()) && self.target_is_normal();
    }
    #[inline(always)]
    fn add_pawn_moves(&mut self, targets: Bitboard, delta: i8) {
        let t = self.target;
        self.found |= targets.contains(t.to())
            && t.to().offset(-delta) == t.from()
            && self.target_is_normal();
    }
    #[inline(always)]
    fn add_promotions(&mut self, targets: Bitboard, delta: i8) {
        let t = self.target;
        self.found |= t.kind() == MoveKind::Promotion
            && targets.contains(t.to())
            && t.to().offset(-delta) == t.from();
    }
}

#[inline(always)]
fn shift_up(bb: Bitboard, color: Color) -> Bitboard {
    match color {
        Color::White => bb.north(),
        Color::Black => bb.south(),
    }
}

/// Shift towards the enemy and one file towards the a-file (`west`) or the h-file.
#[inline(always)]
fn shift_capture(bb: Bitboard, color: Color, west: bool) -> Bitboard {
    let b = if west {
        bb & !Bitboard::FILE_A
    } else {
        bb & !Bitboard::FILE_H
    };
    let up = shift_up(b, color);
    if west {
        Bitboard(up.0 >> 1)
    } else {
        Bitboard(up.0 << 1)
    }
}

#[inline(always)]
fn generate<S: MoveSink, const MODE: u8>(pos: &Position, sink: &mut S) {
    // One copy of the generator per side, so that pawn directions, ranks
    // and piece-set indices are constants.
    match pos.side_to_move() {
        Color::White => generate_side::<S, MODE, true>(pos, sink),
        Color::Black => generate_side::<S, MODE, false>(pos, sink),
    }
}

#[inline(always)]
fn generate_side<S: MoveSink, const MODE: u8, const WHITE: bool>(pos: &Position, sink: &mut S) {
    let us = if WHITE { Color::White } else { Color::Black };
    let them = !us;
    let our = pos.colored(us);
    let their = pos.colored(them);
    let occ = our | their;
    let empty = !occ;
    let ksq = pos.king_square(us);
    let checkers = pos.checkers();
    let pinned = pos.pinned();

    let mode_mask = match MODE {
        ALL => !our,
        NOISY => their,
        _ => empty,
    };

    // King moves and castling: no square the king lands on or crosses may be
    // attacked once the king has left. Leaper attacks are excluded in bulk;
    // for sliders, the attacks of those whose lines reach one of these
    // squares at all are gathered once and serve both.
    let leapers = leaper_attacks(pos, them);
    let mut king_targets = king_attacks(ksq) & mode_mask & !leapers;
    let mut castles = [None; 2];
    let mut zone = king_targets;
    if MODE != NOISY && checkers.is_empty() && pos.castling_rights() != 0 {
        for (slot, king_side) in castles.iter_mut().zip([true, false]) {
            if let Some(rook) = pos.castling_rook(castling_index(us, king_side)) {
                if let Some(path) = castling_path(us, ksq, rook, king_side, occ) {
                    if (path & leapers).is_empty() {
                        *slot = Some((rook, path));
                        zone |= path;
                    }
                }
            }
        }
    }
    if zone.nonempty() {
        let their_rq = (pos.pieces(PieceKind::Rook) | pos.pieces(PieceKind::Queen)) & their;
        let their_bq = (pos.pieces(PieceKind::Bishop) | pos.pieces(PieceKind::Queen)) & their;
        let seen = slider_attacks_on(zone, their_rq, their_bq, occ ^ Bitboard::from_square(ksq));
        king_targets &= !seen;
        for slot in &mut castles {
            if slot.is_some_and(|(_, path)| (path & seen).nonempty()) {
                *slot = None;
            }
        }
        for to in king_targets {
            sink.add(Move::normal(ksq, to));
        }
    }
    if checkers.more_than_one() {
        return;
    }
    // Other pieces must capture the checker or block its line.
    let check_mask = if checkers.nonempty() {
        between(ksq, checkers.lsb()) | checkers
    } else {
        Bitboard::FULL
    };
    let targets = check_mask & mode_mask;

    // Most positions have no pinned piece: then the sliders need no pin test.
    if pinned.is_empty() {
        piece_moves::<S, false>(pos, sink, our, occ, targets, ksq, pinned);
    } else {
        piece_moves::<S, true>(pos, sink, our, occ, targets, ksq, pinned);
    }

    generate_pawns::<S, MODE>(pos, sink, us, their, empty, check_mask, ksq, pinned);

    if MODE != QUIET {
        if let Some(ep) = pos.en_passant() {
            for from in pawn_attacks(them, ep) & pos.pieces_of(us, PieceKind::Pawn) {
                if pos.ep_capture_legal(from, ep) {
                    sink.add(Move::en_passant(from, ep));
                }
            }
        }
    }

    for (rook, _) in castles.into_iter().flatten() {
        // A rook off the corner may shield a square of the king's path
        // along the back rank, which the attacks above were computed with
        // it in place: such castling is checked with both pieces lifted.
        if matches!(rook.file(), 0 | 7) || castling_safe(pos, us, ksq, rook) {
            sink.add(Move::castling(ksq, rook));
        }
    }
}

/// The attacks of the sliders among `rq` (rook-like) and `bq` (bishop-like)
/// that could reach a square of `zone` on an empty board, with occupancy `occ`.
#[inline(always)]
fn slider_attacks_on(zone: Bitboard, rq: Bitboard, bq: Bitboard, occ: Bitboard) -> Bitboard {
    let mut seen = Bitboard::EMPTY;
    for from in rq {
        if (rook_rays(from) & zone).nonempty() {
            seen |= rook_attacks(from, occ);
        }
    }
    for from in bq {
        if (bishop_rays(from) & zone).nonempty() {
            seen |= bishop_attacks(from, occ);
        }
    }
    seen
}

/// Knight, bishop, rook and queen moves to `targets`; pinned pieces (only if
/// `PINS`) along their pin line.
#[inline(always)]
fn piece_moves<S: MoveSink, const PINS: bool>(
    pos: &Position,
    sink: &mut S,
    our: Bitboard,
    occ: Bitboard,
    targets: Bitboard,
    ksq: Square,
    pinned: Bitboard,
) {
    for from in pos.pieces(PieceKind::Knight) & our & !pinned {
        sink.add_targets(from, knight_attacks(from) & targets);
    }
    let queens = pos.pieces(PieceKind::Queen);
    for from in (pos.pieces(PieceKind::Bishop) | queens) & our {
        let mut t = bishop_attacks(from, occ) & targets;
        if PINS && pinned.contains(from) {
            t &= line(ksq, from);
        }
        sink.add_targets(from, t);
    }
    for from in (pos.pieces(PieceKind::Rook) | queens) & our {
        let mut t = rook_attacks(from, occ) & targets;
        if PINS && pinned.contains(from) {
            t &= line(ksq, from);
        }
        sink.add_targets(from, t);
    }
}

/// Squares attacked by `color`'s pawns, knights and king.
#[inline(always)]
fn leaper_attacks(pos: &Position, color: Color) -> Bitboard {
    let pawns = pos.pieces_of(color, PieceKind::Pawn);
    let mut attacks = shift_capture(pawns, color, true) | shift_capture(pawns, color, false);
    for sq in pos.pieces_of(color, PieceKind::Knight) {
        attacks |= knight_attacks(sq);
    }
    attacks | king_attacks(pos.king_square(color))
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn generate_pawns<S: MoveSink, const MODE: u8>(
    pos: &Position,
    sink: &mut S,
    us: Color,
    their: Bitboard,
    empty: Bitboard,
    check_mask: Bitboard,
    ksq: Square,
    pinned: Bitboard,
) {
    let pawns = pos.pieces_of(us, PieceKind::Pawn);
    let (up, third_rank, seventh_rank): (i8, Bitboard, Bitboard) = match us {
        Color::White => (8, Bitboard::rank(2), Bitboard::rank(6)),
        Color::Black => (-8, Bitboard::rank(5), Bitboard::rank(1)),
    };
    let free = pawns & !pinned;
    let promoting = free & seventh_rank;
    let normal = free & !seventh_rank;

    // Pushes.
    let one = shift_up(normal, us) & empty;
    if MODE != NOISY {
        let two = shift_up(one & third_rank, us) & empty;
        sink.add_pawn_moves(one & check_mask, up);
        sink.add_pawn_moves(two & check_mask, 2 * up);
    }
    if MODE != QUIET {
        // Captures.
        for west in [true, false] {
            let delta = up + if west { -1 } else { 1 };
            sink.add_pawn_moves(shift_capture(normal, us, west) & their & check_mask, delta);
            sink.add_promotions(
                shift_capture(promoting, us, west) & their & check_mask,
                delta,
            );
        }
        // Promotions by push are noisy moves.
        sink.add_promotions(shift_up(promoting, us) & empty & check_mask, up);
    }

    // Pinned pawns move only along the line through their king.
    for from in pawns & pinned {
        let pin_line = line(ksq, from);
        let from_bb = Bitboard::from_square(from);
        let mut pushes = shift_up(from_bb, us) & empty;
        pushes |= shift_up(pushes & third_rank, us) & empty;
        let captures = pawn_attacks(us, from) & their;
        let allowed = match MODE {
            ALL => pushes | captures,
            NOISY => {
                captures
                    | if seventh_rank.contains(from) {
                        pushes
                    } else {
                        Bitboard::EMPTY
                    }
            }
            _ => {
                if seventh_rank.contains(from) {
                    Bitboard::EMPTY
                } else {
                    pushes
                }
            }
        } & pin_line
            & check_mask;
        for to in allowed {
            if seventh_rank.contains(from) {
                sink.add_promotions(
                    Bitboard::from_square(to),
                    to.index() as i8 - from.index() as i8,
                );
            } else {
                sink.add(Move::normal(from, to));
            }
        }
    }
}

/// The squares the king crosses and lands on when castling with `rook`
/// (standard and Chess960), if every square between king and its
/// destination and between rook and its destination is empty except for
/// those two pieces; `None` if castling is blocked.
#[inline(always)]
fn castling_path(
    us: Color,
    ksq: Square,
    rook: Square,
    king_side: bool,
    occ: Bitboard,
) -> Option<Bitboard> {
    let rank = us.back_rank();
    let king_to = Square::from_file_rank(if king_side { 6 } else { 2 }, rank);
    let rook_to = Square::from_file_rank(if king_side { 5 } else { 3 }, rank);
    let movers = Bitboard::from_square(ksq) | Bitboard::from_square(rook);
    let king_path = between(ksq, king_to) | Bitboard::from_square(king_to);
    let must_be_empty =
        (king_path | between(rook, rook_to) | Bitboard::from_square(rook_to)) & !movers;
    (must_be_empty & occ).is_empty().then_some(king_path)
}

/// Whether no square the king crosses or lands on when castling with `rook`
/// is attacked, with king and rook lifted: exact where the castling rook
/// stands between an enemy slider and the king's path (Chess960).
#[cold]
fn castling_safe(pos: &Position, us: Color, ksq: Square, rook: Square) -> bool {
    let king_side = rook.file() > ksq.file();
    let king_to = Square::from_file_rank(if king_side { 6 } else { 2 }, us.back_rank());
    let king_path = between(ksq, king_to) | Bitboard::from_square(king_to);
    let occ_lifted = pos.occupied() ^ Bitboard::from_square(ksq) ^ Bitboard::from_square(rook);
    !king_path
        .into_iter()
        .any(|sq| pos.is_attacked(sq, !us, occ_lifted))
}

/// Appends the moves of `kind` to `list`.
pub fn generate_moves(pos: &Position, kind: GenKind, list: &mut MoveList) {
    match kind {
        GenKind::All => generate::<MoveList, ALL>(pos, list),
        GenKind::Noisy => generate::<MoveList, NOISY>(pos, list),
        GenKind::Quiet => generate::<MoveList, QUIET>(pos, list),
    }
}

/// All legal moves.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate::<MoveList, ALL>(pos, &mut list);
    list
}

/// The number of legal moves, counted without building them.
pub fn count_legal(pos: &Position) -> u64 {
    count_legal_inline(pos)
}

/// `count_legal`, inlined into the caller so that it is compiled with the
/// caller's target features (perft's POPCNT version).
#[inline(always)]
pub(crate) fn count_legal_inline(pos: &Position) -> u64 {
    let mut counter = Counter(0);
    generate::<Counter, ALL>(pos, &mut counter);
    counter.0
}

/// Every legal move into `list`, inlined into the caller (see `count_legal_inline`).
#[inline(always)]
pub(crate) fn generate_all_inline(pos: &Position, list: &mut MoveList) {
    generate::<MoveList, ALL>(pos, list);
}

/// Whether `mv` is legal here (used for moves from the transposition table,
/// which may come from another position after a key collision, and for killer
/// moves). The generator itself answers, so legality has one definition; it
/// runs without building a list.
pub fn is_legal(pos: &Position, mv: Move) -> bool {
    let Some(piece) = pos.piece_on(mv.from()) else {
        return false;
    };
    if piece.color() != pos.side_to_move() {
        return false;
    }
    let mut finder = Finder {
        target: mv,
        found: false,
    };
    generate::<Finder, ALL>(pos, &mut finder);
    finder.found
}
