//! The board: piece placement, side to move, castling rights, en passant,
//! clocks and the Zobrist key; FEN (standard, Shredder-FEN, X-FEN) in and out;
//! validation; copy-make; draw rules.

use crate::board::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
    queen_attacks, rook_attacks, rook_rays,
};
use crate::board::bitboard::Bitboard;
use crate::board::moves::{Move, MoveKind};
use crate::board::types::{Color, Piece, PieceKind, Square};
use crate::board::zobrist;
use std::fmt;

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// The text does not have the FEN shape (fields, ranks, characters).
    Syntax(String),
    /// The text is well formed but describes an impossible position.
    Illegal(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Syntax(m) => write!(f, "malformed FEN: {m}"),
            FenError::Illegal(m) => write!(f, "impossible position: {m}"),
        }
    }
}

impl std::error::Error for FenError {}

/// Castling right index: 0 = White h-side (O-O), 1 = White a-side (O-O-O), 2/3 the same for Black.
#[inline(always)]
pub const fn castling_index(color: Color, king_side: bool) -> usize {
    color.index() * 2 + if king_side { 0 } else { 1 }
}

/// `castle_rook` entries of rights not held, so that equal positions compare
/// equal however their rights were lost.
const NO_CASTLE_ROOK: [Square; 4] = [Square::H1, Square::A1, Square::new(63), Square::new(56)];

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    by_kind: [Bitboard; 6],
    by_color: [Bitboard; 2],
    board: [Option<Piece>; 64],
    side: Color,
    /// Bit `castling_index(..)` set while that castling right exists.
    castling: u8,
    /// The original rook square of each castling right.
    castle_rook: [Square; 4],
    /// The squares whose pieces hold castling rights (those rooks and their
    /// kings): a move touching none of them keeps every right.
    castling_squares: Bitboard,
    /// Set only when an en-passant capture is actually legal.
    ep: Option<Square>,
    halfmove: u16,
    fullmove: u16,
    key: u64,
    chess960: bool,
    /// Enemy pieces giving check to the side to move.
    checkers: Bitboard,
    /// Pieces of the side to move pinned to their own king.
    pinned: Bitboard,
}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl Position {
    fn empty() -> Position {
        Position {
            by_kind: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            board: [None; 64],
            side: Color::White,
            castling: 0,
            castle_rook: NO_CASTLE_ROOK,
            castling_squares: Bitboard::EMPTY,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            chess960: false,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
        }
    }

    pub fn startpos() -> Position {
        match Position::from_fen(START_FEN, false) {
            Ok(p) => p,
            Err(e) => unreachable!("start position FEN is valid: {e}"),
        }
    }

    // ----- queries -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()]
    }

    #[inline(always)]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn pieces_of(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_kind[kind.index()] & self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.pieces_of(color, PieceKind::King).lsb()
    }

    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.nonempty()
    }

    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    #[inline(always)]
    pub fn en_passant(&self) -> Option<Square> {
        self.ep
    }

    #[inline(always)]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The rook square of castling right `index` (see [`castling_index`]), if the right exists.
    #[inline(always)]
    pub fn castling_rook(&self, index: usize) -> Option<Square> {
        if self.castling & (1 << index) != 0 {
            Some(self.castle_rook[index])
        } else {
            None
        }
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    #[inline(always)]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    pub fn set_chess960(&mut self, on: bool) {
        self.chess960 = on || self.needs_chess960();
    }

    /// The rooks of the castling rights held and the kings they belong to.
    fn compute_castling_squares(&self) -> Bitboard {
        let mut squares = Bitboard::EMPTY;
        for (i, &rook) in self.castle_rook.iter().enumerate() {
            if self.castling & (1 << i) != 0 {
                let color = if i < 2 { Color::White } else { Color::Black };
                squares |=
                    Bitboard::from_square(rook) | Bitboard::from_square(self.king_square(color));
            }
        }
        squares
    }

    /// Castling rights that standard notation cannot express.
    fn needs_chess960(&self) -> bool {
        (0..4).any(|i| {
            self.castling & (1 << i) != 0 && {
                let color = if i < 2 { Color::White } else { Color::Black };
                let rook_file = if i % 2 == 0 { 7 } else { 0 };
                self.king_square(color).file() != 4 || self.castle_rook[i].file() != rook_file
            }
        })
    }

    /// All pieces of either colour that attack `sq`, given occupancy `occ`.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let rq = self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen);
        let bq = self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen);
        (pawn_attacks(Color::White, sq) & self.pieces_of(Color::Black, PieceKind::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.pieces_of(Color::White, PieceKind::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceKind::Knight))
            | (king_attacks(sq) & self.pieces(PieceKind::King))
            | (rook_attacks(sq, occ) & rq)
            | (bishop_attacks(sq, occ) & bq)
    }

    /// Whether `by` attacks `sq` with occupancy `occ`.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.colored(by);
        let rq = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & them;
        let bq = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & them;
        (knight_attacks(sq) & self.pieces(PieceKind::Knight) & them).nonempty()
            || (pawn_attacks(!by, sq) & self.pieces(PieceKind::Pawn) & them).nonempty()
            || (king_attacks(sq) & self.pieces(PieceKind::King) & them).nonempty()
            || (rook_attacks(sq, occ) & rq).nonempty()
            || (bishop_attacks(sq, occ) & bq).nonempty()
    }

    /// Attack set of a piece of `kind` and `color` standing on `sq`.
    #[inline(always)]
    pub fn attacks_of(kind: PieceKind, color: Color, sq: Square, occ: Bitboard) -> Bitboard {
        match kind {
            PieceKind::Pawn => pawn_attacks(color, sq),
            PieceKind::Knight => knight_attacks(sq),
            PieceKind::Bishop => bishop_attacks(sq, occ),
            PieceKind::Rook => rook_attacks(sq, occ),
            PieceKind::Queen => queen_attacks(sq, occ),
            PieceKind::King => king_attacks(sq),
        }
    }

    /// The piece a move captures (the pawn for en passant), if any.
    #[inline(always)]
    pub fn captured(&self, mv: Move) -> Option<PieceKind> {
        match mv.kind() {
            MoveKind::EnPassant => Some(PieceKind::Pawn),
            MoveKind::Castling => None,
            _ => self.piece_on(mv.to()).map(|p| p.kind()),
        }
    }

    #[inline(always)]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.captured(mv).is_some()
    }

    /// A capture or a promotion: the moves that change the material, which
    /// move ordering, history and training data all treat apart.
    #[inline(always)]
    pub fn is_noisy(&self, mv: Move) -> bool {
        self.is_capture(mv) || mv.promotion_piece().is_some()
    }

    // ----- changing the board -----

    #[inline(always)]
    fn put(&mut self, piece: Piece, sq: Square) {
        self.put_bb::<true>(piece, sq);
    }

    /// `put`; without `FULL` only the bitboards (see `make_move_for_count`).
    #[inline(always)]
    fn put_bb<const FULL: bool>(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_kind[piece.kind().index()] |= bb;
        self.by_color[piece.color().index()] |= bb;
        if FULL {
            self.board[sq.index()] = Some(piece);
            self.key ^= zobrist::piece(piece, sq);
        }
    }

    #[inline(always)]
    fn remove_bb<const FULL: bool>(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_kind[piece.kind().index()] ^= bb;
        self.by_color[piece.color().index()] ^= bb;
        if FULL {
            self.board[sq.index()] = None;
            self.key ^= zobrist::piece(piece, sq);
        }
    }

    #[inline(always)]
    fn shift_bb<const FULL: bool>(&mut self, piece: Piece, from: Square, to: Square) {
        let bb = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_kind[piece.kind().index()] ^= bb;
        self.by_color[piece.color().index()] ^= bb;
        if FULL {
            self.board[from.index()] = None;
            self.board[to.index()] = Some(piece);
            self.key ^= zobrist::piece(piece, from) ^ zobrist::piece(piece, to);
        }
    }

    /// Plays a legal move in place. Use a copy of the position to take it back
    /// (copy-make): `let mut next = *pos; next.make_move(mv);`.
    ///
    /// The move must be legal in this position (from the move generator or
    /// checked with `is_legal`).
    pub fn make_move(&mut self, mv: Move) {
        self.make_move_inline(mv);
    }

    /// `make_move`, inlined into the caller so that it is compiled with the
    /// caller's target features (perft's versions for newer CPUs).
    #[inline(always)]
    pub(crate) fn make_move_inline(&mut self, mv: Move) {
        self.make_move_impl::<true>(mv);
    }

    /// `make_move` for a position whose legal moves will only be counted
    /// (perft's last ply but one): the bitboards, side, castling rights, en
    /// passant, checkers and pins are updated, but not the square-by-square
    /// board, the key or the clocks. Such a position must not be used for
    /// anything but move generation.
    #[inline(always)]
    pub(crate) fn make_move_for_count(&mut self, mv: Move) {
        self.make_move_impl::<false>(mv);
    }

    #[inline(always)]
    fn make_move_impl<const FULL: bool>(&mut self, mv: Move) {
        match self.side {
            Color::White => self.make_move_side::<FULL, true>(mv),
            Color::Black => self.make_move_side::<FULL, false>(mv),
        }
    }

    /// `make_move_impl` for a side to move known at compile time.
    #[inline(always)]
    fn make_move_side<const FULL: bool, const WHITE: bool>(&mut self, mv: Move) {
        let us = if WHITE { Color::White } else { Color::Black };
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        let Some(piece) = self.piece_on(from) else {
            debug_assert!(false, "make_move: no piece on {from}");
            return;
        };

        if let Some(ep) = self.ep.take() {
            if FULL {
                self.key ^= zobrist::en_passant(ep.file());
            }
        }
        if FULL {
            self.halfmove += 1;
            if us == Color::Black {
                self.fullmove = self.fullmove.saturating_add(1);
            }
        }
        let mut double_push = false;

        match mv.kind() {
            MoveKind::Castling => {
                let king_side = to.file() > from.file();
                let rank = us.back_rank();
                let king_to = Square::from_file_rank(if king_side { 6 } else { 2 }, rank);
                let rook_to = Square::from_file_rank(if king_side { 5 } else { 3 }, rank);
                let rook = Piece::new(us, PieceKind::Rook);
                self.remove_bb::<FULL>(piece, from);
                self.remove_bb::<FULL>(rook, to);
                self.put_bb::<FULL>(piece, king_to);
                self.put_bb::<FULL>(rook, rook_to);
            }
            MoveKind::EnPassant => {
                let cap_sq = Square::from_file_rank(to.file(), from.rank());
                self.remove_bb::<FULL>(Piece::new(them, PieceKind::Pawn), cap_sq);
                self.shift_bb::<FULL>(piece, from, to);
                self.halfmove = 0;
            }
            kind => {
                if let Some(captured) = self.piece_on(to) {
                    self.remove_bb::<FULL>(captured, to);
                    self.halfmove = 0;
                }
                if piece.kind() == PieceKind::Pawn {
                    self.halfmove = 0;
                    if kind == MoveKind::Promotion {
                        self.remove_bb::<FULL>(piece, from);
                        let promo = mv.promotion_piece().unwrap_or(PieceKind::Queen);
                        self.put_bb::<FULL>(Piece::new(us, promo), to);
                    } else {
                        self.shift_bb::<FULL>(piece, from, to);
                        double_push = from.index().abs_diff(to.index()) == 16;
                    }
                } else {
                    self.shift_bb::<FULL>(piece, from, to);
                }
            }
        }

        let touched = Bitboard::from_square(from) | Bitboard::from_square(to);
        if (self.castling_squares & touched).nonempty() {
            let mut lost = 0u8;
            if piece.kind() == PieceKind::King {
                lost |= 3 << (us.index() * 2);
            }
            for i in 0..4 {
                let rook = self.castle_rook[i];
                if rook == from || rook == to {
                    lost |= 1 << i;
                }
            }
            let lost = lost & self.castling;
            if lost != 0 {
                if FULL {
                    self.key ^=
                        zobrist::castling(self.castling) ^ zobrist::castling(self.castling & !lost);
                }
                self.castling &= !lost;
                for (i, rook) in self.castle_rook.iter_mut().enumerate() {
                    if lost & (1 << i) != 0 {
                        *rook = NO_CASTLE_ROOK[i];
                    }
                }
                self.castling_squares = self.compute_castling_squares();
            }
        }

        self.side = them;
        if FULL {
            self.key ^= zobrist::side(Color::Black);
        }
        self.update_check_info();

        if double_push {
            let ep_sq = Square::from_file_rank(from.file(), (from.rank() + to.rank()) / 2);
            if self.ep_capture_possible(ep_sq) {
                self.ep = Some(ep_sq);
                if FULL {
                    self.key ^= zobrist::en_passant(ep_sq.file());
                }
            }
        }
    }

    /// Passes the move to the opponent (for null-move pruning). Not legal in check.
    pub fn make_null_move(&mut self) {
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::en_passant(ep.file());
        }
        self.halfmove += 1;
        self.side = !self.side;
        self.key ^= zobrist::side(Color::Black);
        self.update_check_info();
    }

    /// Recomputes checkers and pins for the side to move. The enemy sliders
    /// on a line with the king are found from empty-board rays (no magic
    /// lookup): with nothing between they give check, with one piece of ours
    /// between they pin it.
    #[inline(always)]
    fn update_check_info(&mut self) {
        let us = self.side;
        let them = !us;
        let ksq = self.king_square(us);
        let occ = self.occupied();
        let their = self.colored(them);
        let their_rq = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & their;
        let their_bq = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & their;
        let snipers = (rook_rays(ksq) & their_rq) | (bishop_rays(ksq) & their_bq);
        let mut checkers = (knight_attacks(ksq) & self.pieces(PieceKind::Knight)
            | pawn_attacks(us, ksq) & self.pieces(PieceKind::Pawn))
            & their;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(ksq, sniper) & occ;
            if blockers.is_empty() {
                checkers |= Bitboard::from_square(sniper);
            } else if !blockers.more_than_one() {
                pinned |= blockers & self.colored(us);
            }
        }
        self.checkers = checkers;
        self.pinned = pinned;
    }

    /// Whether the side to move has a legal en-passant capture onto `ep_sq`.
    fn ep_capture_possible(&self, ep_sq: Square) -> bool {
        let us = self.side;
        let capturers = pawn_attacks(!us, ep_sq) & self.pieces_of(us, PieceKind::Pawn);
        capturers
            .into_iter()
            .any(|from| self.ep_capture_legal(from, ep_sq))
    }

    /// Whether capturing en passant from `from` onto `ep_sq` leaves our king safe.
    /// Handles the horizontal pin through both pawns and evasions of a check.
    pub(crate) fn ep_capture_legal(&self, from: Square, ep_sq: Square) -> bool {
        let us = self.side;
        let them = !us;
        let cap_sq = Square::from_file_rank(ep_sq.file(), from.rank());
        let ksq = self.king_square(us);
        let occ = (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(cap_sq))
            | Bitboard::from_square(ep_sq);
        let their = self.colored(them) & !Bitboard::from_square(cap_sq);
        let rq = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & their;
        let bq = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & their;
        (rook_attacks(ksq, occ) & rq).is_empty()
            && (bishop_attacks(ksq, occ) & bq).is_empty()
            && (knight_attacks(ksq) & self.pieces(PieceKind::Knight) & their).is_empty()
            && (pawn_attacks(us, ksq) & self.pieces(PieceKind::Pawn) & their).is_empty()
    }

    /// The key computed from scratch; equals `key()` after any sequence of moves.
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in Square::all() {
            if let Some(p) = self.piece_on(sq) {
                key ^= zobrist::piece(p, sq);
            }
        }
        key ^= zobrist::castling(self.castling);
        if let Some(ep) = self.ep {
            key ^= zobrist::en_passant(ep.file());
        }
        key ^ zobrist::side(self.side)
    }

    // ----- draw rules -----

    /// Neither side can ever mate: K v K, K+N v K, K+B v K, or only bishops
    /// besides the kings and all of them on squares of one colour.
    pub fn is_dead_position(&self) -> bool {
        let heavy = self.pieces(PieceKind::Pawn)
            | self.pieces(PieceKind::Rook)
            | self.pieces(PieceKind::Queen);
        if heavy.nonempty() {
            return false;
        }
        let knights = self.pieces(PieceKind::Knight);
        let bishops = self.pieces(PieceKind::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & Bitboard::DARK_SQUARES).is_empty())
    }

    /// The 50-move rule's clock has run out (100 plies without capture or pawn
    /// move). A checkmate delivered on that ply still wins: callers test for
    /// mate first.
    pub fn fifty_move_clock_expired(&self) -> bool {
        self.halfmove >= 100
    }

    /// How many times this position occurred before, given the keys of the
    /// earlier positions of the game (oldest first, the current one excluded).
    /// Only positions since the last capture or pawn move can repeat.
    pub fn repetitions(&self, history: &[u64]) -> usize {
        let window = (self.halfmove as usize).min(history.len());
        history[history.len() - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == self.key)
            .count()
    }

    // ----- FEN -----

    /// Parses a FEN with 4 or 6 fields. Castling may be standard (`KQkq`),
    /// X-FEN (`KQkq` = outermost rook, a file letter when ambiguous) or
    /// Shredder-FEN (`HAha`). Rights that standard chess cannot express turn
    /// Chess960 mode on.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Position, FenError> {
        let syntax = |m: String| Err(FenError::Syntax(m));
        let illegal = |m: String| Err(FenError::Illegal(m));
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 4 && fields.len() != 6 {
            return syntax(format!("expected 4 or 6 fields, found {}", fields.len()));
        }
        let mut pos = Position::empty();

        // Placement.
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return syntax(format!("expected 8 ranks, found {}", ranks.len()));
        }
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in rank_text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if !(1..=8).contains(&d) {
                        return syntax(format!(
                            "bad empty-square count '{c}' on rank {}",
                            rank + 1
                        ));
                    }
                    file += d as u8;
                } else if let Some(p) = Piece::from_char(c) {
                    if file >= 8 {
                        return syntax(format!("rank {} has more than 8 squares", rank + 1));
                    }
                    pos.put(p, Square::from_file_rank(file, rank));
                    file += 1;
                } else {
                    return syntax(format!("unexpected character '{c}' in the placement"));
                }
                if file > 8 {
                    return syntax(format!("rank {} has more than 8 squares", rank + 1));
                }
            }
            if file != 8 {
                return syntax(format!("rank {} has {file} squares, not 8", rank + 1));
            }
        }

        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            s => return syntax(format!("side to move must be 'w' or 'b', not '{s}'")),
        };
        if pos.side == Color::Black {
            pos.key ^= zobrist::side(Color::Black);
        }

        // Material must be sane before castling and checks are looked at.
        for color in Color::ALL {
            let name = if color == Color::White {
                "White"
            } else {
                "Black"
            };
            let kings = pos.pieces_of(color, PieceKind::King).count();
            if kings != 1 {
                return illegal(format!("{name} has {kings} kings, must have exactly one"));
            }
            let all = pos.colored(color).count();
            if all > 16 {
                return illegal(format!("{name} has {all} pieces, at most 16 are possible"));
            }
            let pawns = pos.pieces_of(color, PieceKind::Pawn).count();
            if pawns > 8 {
                return illegal(format!("{name} has {pawns} pawns, at most 8 are possible"));
            }
            let extra = |kind: PieceKind, start: u32| {
                pos.pieces_of(color, kind).count().saturating_sub(start)
            };
            let promoted = extra(PieceKind::Queen, 1)
                + extra(PieceKind::Rook, 2)
                + extra(PieceKind::Bishop, 2)
                + extra(PieceKind::Knight, 2);
            if promoted > 8 - pawns {
                return illegal(format!(
                    "{name} has {promoted} promoted pieces but only {} missing pawns",
                    8 - pawns
                ));
            }
        }
        if (pos.pieces(PieceKind::Pawn) & (Bitboard::RANK_1 | Bitboard::RANK_8)).nonempty() {
            return illegal("a pawn stands on the first or last rank".into());
        }

        pos.parse_castling(fields[2])?;
        pos.castling_squares = pos.compute_castling_squares();
        pos.chess960 = chess960 || pos.needs_chess960();
        pos.key ^= zobrist::castling(pos.castling);

        // Checks: the side not to move must not be in check.
        let them = !pos.side;
        if pos.is_attacked(pos.king_square(them), pos.side, pos.occupied()) {
            return illegal("the side not to move is in check".into());
        }
        pos.update_check_info();
        if pos.checkers.count() > 2 {
            return illegal(format!(
                "the king is attacked by {} pieces",
                pos.checkers.count()
            ));
        }

        // En passant: the square must match a double step just played; it is
        // kept only if a capture there is legal.
        if fields[3] != "-" {
            let ep: Square = fields[3]
                .parse()
                .map_err(|e: String| FenError::Syntax(format!("en-passant field: {e}")))?;
            let us = pos.side;
            if ep.relative_rank(us) != 5 {
                return illegal(format!("en-passant square {ep} is not on the right rank"));
            }
            let pawn_sq = Square::from_file_rank(ep.file(), if us == Color::White { 4 } else { 3 });
            let origin = Square::from_file_rank(ep.file(), if us == Color::White { 6 } else { 1 });
            if pos.piece_on(pawn_sq) != Some(Piece::new(them, PieceKind::Pawn))
                || pos.piece_on(ep).is_some()
                || pos.piece_on(origin).is_some()
            {
                return illegal(format!(
                    "en-passant square {ep} does not follow a double step"
                ));
            }
            if pos.ep_capture_possible(ep) {
                pos.ep = Some(ep);
                pos.key ^= zobrist::en_passant(ep.file());
            }
        }

        if fields.len() == 6 {
            pos.halfmove = fields[4].parse().map_err(|_| {
                FenError::Syntax(format!("half-move clock '{}' is not a number", fields[4]))
            })?;
            let full: u16 = fields[5].parse().map_err(|_| {
                FenError::Syntax(format!("move number '{}' is not a number", fields[5]))
            })?;
            pos.fullmove = full.max(1);
        }
        Ok(pos)
    }

    fn parse_castling(&mut self, text: &str) -> Result<(), FenError> {
        if text == "-" {
            return Ok(());
        }
        for c in text.chars() {
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let rank = color.back_rank();
            let ksq = self.king_square(color);
            let name = if color == Color::White {
                "White"
            } else {
                "Black"
            };
            if ksq.rank() != rank {
                return Err(FenError::Illegal(format!(
                    "castling right '{c}' but {name}'s king is not on its first rank"
                )));
            }
            let rook = Piece::new(color, PieceKind::Rook);
            let rooks_on_rank = |lo: u8, hi: u8| -> Vec<Square> {
                (lo..=hi)
                    .map(|f| Square::from_file_rank(f, rank))
                    .filter(|&s| self.piece_on(s) == Some(rook))
                    .collect()
            };
            let rook_sq = match c.to_ascii_lowercase() {
                'k' => rooks_on_rank(ksq.file().saturating_add(1).min(7), 7)
                    .into_iter()
                    .filter(|s| s.file() > ksq.file())
                    .max(),
                'q' => rooks_on_rank(0, ksq.file())
                    .into_iter()
                    .filter(|s| s.file() < ksq.file())
                    .min(),
                f @ 'a'..='h' => {
                    let s = Square::from_file_rank(f as u8 - b'a', rank);
                    (self.piece_on(s) == Some(rook) && s.file() != ksq.file()).then_some(s)
                }
                _ => {
                    return Err(FenError::Syntax(format!(
                        "unexpected castling character '{c}'"
                    )));
                }
            };
            let Some(rook_sq) = rook_sq else {
                return Err(FenError::Illegal(format!(
                    "castling right '{c}' but {name} has no rook for it on its first rank"
                )));
            };
            let index = castling_index(color, rook_sq.file() > ksq.file());
            if self.castling & (1 << index) != 0 {
                return Err(FenError::Illegal(format!(
                    "castling right '{c}' given twice for one side"
                )));
            }
            self.castling |= 1 << index;
            self.castle_rook[index] = rook_sq;
        }
        Ok(())
    }

    /// The FEN of this position. Castling is written as X-FEN: `KQkq` for the
    /// outermost rooks (so standard chess reads as usual), a file letter when
    /// another rook stands further out.
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_on(Square::from_file_rank(file, rank)) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.side == Color::White {
            " w "
        } else {
            " b "
        });
        if self.castling == 0 {
            s.push('-');
        }
        for index in 0..4 {
            if self.castling & (1 << index) == 0 {
                continue;
            }
            let color = if index < 2 {
                Color::White
            } else {
                Color::Black
            };
            let rook_sq = self.castle_rook[index];
            let ksq = self.king_square(color);
            let rook = Piece::new(color, PieceKind::Rook);
            let outer = |f: u8| {
                let (lo, hi) = if f > ksq.file() { (f + 1, 8) } else { (0, f) };
                (lo..hi)
                    .any(|g| self.piece_on(Square::from_file_rank(g, rook_sq.rank())) == Some(rook))
            };
            let c = if outer(rook_sq.file()) {
                (b'a' + rook_sq.file()) as char
            } else if index % 2 == 0 {
                'k'
            } else {
                'q'
            };
            s.push(if color == Color::White {
                c.to_ascii_uppercase()
            } else {
                c
            });
        }
        match self.ep {
            Some(ep) => s.push_str(&format!(" {ep}")),
            None => s.push_str(" -"),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// Parses a move in UCI text (`e2e4`, `e7e8q`; castling as `e1g1`, or as
    /// king-takes-rook `e1h1` in Chess960) and returns it if it is legal here.
    /// The other castling spelling is accepted too when it is not also a
    /// normal king move, since GUIs differ.
    pub fn parse_uci_move(&self, text: &str) -> Option<Move> {
        let moves = crate::board::movegen::legal_moves(self);
        moves
            .iter()
            .find(|m| m.to_uci(self.chess960) == text)
            .or_else(|| {
                moves
                    .iter()
                    .find(|m| m.is_castling() && m.to_uci(!self.chess960) == text)
            })
            .copied()
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            write!(f, " {} ", rank + 1)?;
            for file in 0..8 {
                let c = self
                    .piece_on(Square::from_file_rank(file, rank))
                    .map_or('.', |p| p.char());
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "    a b c d e f g h")?;
        writeln!(f, "FEN: {}", self.to_fen())?;
        write!(f, "Key: {:016x}", self.key)
    }
}
