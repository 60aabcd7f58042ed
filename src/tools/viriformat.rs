//! The self-play pool's game format: viriformat, the layout the viridithas
//! engine and the public trainers built around it read, written from its
//! published specification (not with the `viriformat` crate, which brings its
//! own chess code and several dependencies for what is 150 lines here).
//!
//! A file is games one after another. A game is a 32-byte marlinformat board
//! (the position the game starts from, with the game's result), then one
//! 4-byte `(move, score)` pair per ply played, then four zero bytes. About
//! 4.3 bytes a position, against about 63 for a `FEN | result | score` line.
//! All integers are little-endian; squares run a1 = 0 .. h8 = 63.
//!
//! The board: a 64-bit occupancy; 32 four-bit pieces in the order of the
//! occupied squares (low nibble first; type pawn 0 .. king 5, 6 a rook that
//! still holds a castling right, bit 3 set for Black); side to move (bit 7)
//! with the en-passant square (64: none); the halfmove clock (8 bits); the
//! fullmove number (16 bits); a score (16 bits); the result (0 Black won, 1
//! draw, 2 White won); a spare byte.
//!
//! A move: from (bits 0-5), to (6-11; castling as king takes rook, so Chess960
//! fits), promotion piece (12-13: knight 0 .. queen 3), kind (14-15: en
//! passant 1, castling 2, promotion 3). A score is the search's score of the
//! position the move is played from, from White's point of view; a mate is
//! stored as +-[`MATE_SCORE`].
//!
//! A game with no moves carries one position, scored in its board: that is
//! how positions from the older text files (`FEN | result | score`, already
//! filtered) enter the pool.

use crate::board::bitboard::Bitboard;
use crate::board::movegen::legal_moves;
use crate::board::moves::{Move, MoveKind};
use crate::board::position::Position;
use crate::board::types::{Color, Piece, PieceKind, Square};
use crate::tools::selfplay::Outcome;

/// Bytes of a packed board.
pub const BOARD_BYTES: usize = 32;

/// The stored score of a mate (White mates; Black's is its negation). Scores
/// at or beyond it are mates; [`clamp_score`] keeps every other score inside.
pub const MATE_SCORE: i16 = i16::MAX;

const UNMOVED_ROOK: u8 = 6;
const NO_EN_PASSANT: u8 = 64;

/// A game's result as stored: 0 Black won, 1 draw, 2 White won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wdl(u8);

impl Wdl {
    pub const BLACK_WINS: Wdl = Wdl(0);
    pub const DRAW: Wdl = Wdl(1);
    pub const WHITE_WINS: Wdl = Wdl(2);

    /// From a result of 1.0, 0.5 or 0.0 (White's point of view).
    pub fn from_white_result(result: f64) -> Wdl {
        match Outcome::of(result) {
            Outcome::Win => Wdl::WHITE_WINS,
            Outcome::Draw => Wdl::DRAW,
            Outcome::Loss => Wdl::BLACK_WINS,
        }
    }

    /// 1.0, 0.5 or 0.0 from White's point of view.
    pub fn white_result(self) -> f32 {
        self.0 as f32 / 2.0
    }
}

/// A search score (side to move's view, centipawns) as stored: White's view,
/// mates as +-[`MATE_SCORE`], everything else kept short of it.
pub fn clamp_score(white_score: i32, is_mate: bool) -> i16 {
    if is_mate {
        if white_score > 0 {
            MATE_SCORE
        } else {
            -MATE_SCORE
        }
    } else {
        white_score.clamp(-(MATE_SCORE as i32 - 1), MATE_SCORE as i32 - 1) as i16
    }
}

/// The 32 bytes of `pos`, with a score and the game's result.
pub fn pack_board(pos: &Position, score: i16, wdl: Wdl) -> [u8; BOARD_BYTES] {
    let mut out = [0u8; BOARD_BYTES];
    let occupied = pos.occupied();
    out[0..8].copy_from_slice(&occupied.0.to_le_bytes());
    let castling_rooks: Vec<Square> = (0..4).filter_map(|i| pos.castling_rook(i)).collect();
    for (i, sq) in occupied.enumerate() {
        let Some(piece) = pos.piece_on(sq) else {
            continue;
        };
        let mut code = piece.kind().index() as u8;
        if piece.kind() == PieceKind::Rook && castling_rooks.contains(&sq) {
            code = UNMOVED_ROOK;
        }
        if piece.color() == Color::Black {
            code |= 8;
        }
        out[8 + i / 2] |= code << ((i % 2) * 4);
    }
    let ep = pos.en_passant().map_or(NO_EN_PASSANT, |s| s.index() as u8);
    let black = u8::from(pos.side_to_move() == Color::Black);
    out[24] = black << 7 | ep;
    out[25] = pos.halfmove_clock().min(255) as u8;
    out[26..28].copy_from_slice(&pos.fullmove_number().to_le_bytes());
    out[28..30].copy_from_slice(&score.to_le_bytes());
    out[30] = wdl.0;
    out
}

/// The position, score and result of a packed board; an error for a board
/// that is not a legal position.
pub fn unpack_board(bytes: &[u8; BOARD_BYTES]) -> Result<(Position, i16, Wdl), String> {
    let occupied = Bitboard(u64::from_le_bytes(bytes[0..8].try_into().unwrap_or([0; 8])));
    if occupied.count() > 32 {
        return Err(format!("{} pieces on the board", occupied.count()));
    }
    let mut squares: [Option<(Piece, bool)>; 64] = [None; 64];
    for (i, sq) in occupied.enumerate() {
        let code = bytes[8 + i / 2] >> ((i % 2) * 4) & 0xF;
        let color = if code & 8 != 0 {
            Color::Black
        } else {
            Color::White
        };
        let (kind, unmoved) = match code & 7 {
            UNMOVED_ROOK => (PieceKind::Rook, true),
            7 => return Err(format!("piece code 7 on {sq}")),
            k => (PieceKind::from_index(k as usize), false),
        };
        squares[sq.index()] = Some((Piece::new(color, kind), unmoved));
    }
    // The FEN board, then Shredder-FEN castling letters (the rook's file), which
    // serve standard chess and Chess960 alike.
    let mut fen = String::with_capacity(90);
    let mut castling = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match squares[rank * 8 + file] {
                None => empty += 1,
                Some((piece, _)) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(piece.char());
                }
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    for color in [Color::White, Color::Black] {
        for file in 0..8u8 {
            let sq = Square::from_file_rank(file, color.back_rank());
            if let Some((piece, true)) = squares[sq.index()] {
                if piece.color() != color {
                    return Err(format!("an unmoved rook of the wrong colour on {sq}"));
                }
                let letter = char::from(b'a' + file);
                castling.push(if color == Color::White {
                    letter.to_ascii_uppercase()
                } else {
                    letter
                });
            }
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    let side = if bytes[24] & 0x80 != 0 { 'b' } else { 'w' };
    let ep = match bytes[24] & 0x7F {
        NO_EN_PASSANT => "-".to_string(),
        s if s < 64 => Square::new(s).to_string(),
        s => return Err(format!("en-passant square {s}")),
    };
    let fullmove = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let fen = format!("{fen} {side} {castling} {ep} {} {fullmove}", bytes[25]);
    let pos = Position::from_fen(&fen, false).map_err(|e| format!("{fen}: {e}"))?;
    let score = i16::from_le_bytes([bytes[28], bytes[29]]);
    let wdl = match bytes[30] {
        w @ 0..=2 => Wdl(w),
        w => return Err(format!("result byte {w}")),
    };
    Ok((pos, score, wdl))
}

/// The 16 bits of a move.
pub fn encode_move(mv: Move) -> u16 {
    let (promotion, kind) = match mv.kind() {
        MoveKind::Normal => (0, 0),
        MoveKind::EnPassant => (0, 1),
        MoveKind::Castling => (0, 2),
        MoveKind::Promotion => {
            let piece = mv.promotion_piece().map_or(4, PieceKind::index);
            ((piece as u16).saturating_sub(1) & 3, 3)
        }
    };
    mv.from().index() as u16 | (mv.to().index() as u16) << 6 | promotion << 12 | kind << 14
}

/// The legal move of `pos` that `bits` stands for, if there is one.
pub fn decode_move(pos: &Position, bits: u16) -> Option<Move> {
    legal_moves(pos)
        .into_iter()
        .find(|&mv| encode_move(mv) == bits)
}

/// One game: the position it starts from, each ply's move with the search's
/// score (White's view, see [`clamp_score`]) and the result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub start: Position,
    /// The board's own score: used only by a game without moves.
    pub start_score: i16,
    pub wdl: Wdl,
    pub moves: Vec<(Move, i16)>,
}

impl GameRecord {
    /// Appends the game's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&pack_board(&self.start, self.start_score, self.wdl));
        for &(mv, score) in &self.moves {
            out.extend_from_slice(&encode_move(mv).to_le_bytes());
            out.extend_from_slice(&score.to_le_bytes());
        }
        out.extend_from_slice(&[0; 4]);
    }

    /// Every position of the game with its score and ply number (from the
    /// game's start), and the move played from it (`None` for the one
    /// position of a game without moves).
    pub fn positions(&self) -> Vec<(Position, i16, Option<Move>)> {
        if self.moves.is_empty() {
            return vec![(self.start, self.start_score, None)];
        }
        let mut pos = self.start;
        let mut out = Vec::with_capacity(self.moves.len());
        for &(mv, score) in &self.moves {
            out.push((pos, score, Some(mv)));
            pos.make_move(mv);
        }
        out
    }
}

/// Reads the games of a viriformat file one by one. A game whose board or
/// moves do not decode ends the reading with an error that names its byte
/// offset: a pool chunk is written whole, so damage means a bad file.
pub struct GameReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> GameReader<'a> {
    pub fn new(bytes: &'a [u8]) -> GameReader<'a> {
        GameReader { bytes, at: 0 }
    }

    fn read_game(&mut self) -> Result<GameRecord, String> {
        let start_at = self.at;
        let board: &[u8; BOARD_BYTES] = self
            .bytes
            .get(self.at..self.at + BOARD_BYTES)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("a board cut short at byte {start_at}"))?;
        let (start, start_score, wdl) =
            unpack_board(board).map_err(|e| format!("game at byte {start_at}: {e}"))?;
        self.at += BOARD_BYTES;
        let mut pos = start;
        let mut moves = Vec::new();
        loop {
            let pair = self
                .bytes
                .get(self.at..self.at + 4)
                .ok_or_else(|| format!("game at byte {start_at}: no end marker"))?;
            self.at += 4;
            let bits = u16::from_le_bytes([pair[0], pair[1]]);
            let score = i16::from_le_bytes([pair[2], pair[3]]);
            if bits == 0 && score == 0 {
                break;
            }
            let mv = decode_move(&pos, bits).ok_or_else(|| {
                format!(
                    "game at byte {start_at}: move {} (bits {bits:#06x}) is not legal in {}",
                    moves.len() + 1,
                    pos.to_fen()
                )
            })?;
            moves.push((mv, score));
            pos.make_move(mv);
        }
        Ok(GameRecord {
            start,
            start_score,
            wdl,
            moves,
        })
    }
}

impl Iterator for GameReader<'_> {
    type Item = Result<GameRecord, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.bytes.len() {
            return None;
        }
        let game = self.read_game();
        if game.is_err() {
            self.at = self.bytes.len();
        }
        Some(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, false).expect("a valid FEN")
    }

    #[test]
    fn the_start_position_packs_as_the_specification_says() {
        let bytes = pack_board(&Position::startpos(), 0, Wdl::WHITE_WINS);
        assert_eq!(&bytes[0..8], &0xFFFF_0000_0000_FFFFu64.to_le_bytes());
        // a1 rook with its right (6), b1 knight (1), c1 bishop (2), d1 queen
        // (4), e1 king (5), f1 bishop, g1 knight, h1 rook with its right.
        assert_eq!(&bytes[8..12], &[0x16, 0x42, 0x25, 0x61]);
        assert_eq!(&bytes[12..16], &[0; 4]); // eight white pawns
        assert_eq!(&bytes[16..20], &[0x88; 4]); // eight black pawns
        assert_eq!(&bytes[20..24], &[0x9E, 0xCA, 0xAD, 0xE9]);
        assert_eq!(bytes[24], 64); // White to move, no en passant
        assert_eq!(&bytes[25..28], &[0, 1, 0]);
        assert_eq!(bytes[30], 2);
    }

    #[test]
    fn moves_encode_as_the_specification_says() {
        let pos = position("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1");
        let find = |uci: &str| pos.parse_uci_move(uci).expect("a legal move");
        // e2e4-style: from 12, to 28 gives 0x070c in the specification's example.
        let e4 = Position::startpos().parse_uci_move("e2e4").expect("e4");
        assert_eq!(encode_move(e4), 0x070C);
        assert_eq!(encode_move(find("e5d6")) >> 14, 1);
        let castle = find("e1g1");
        assert_eq!(encode_move(castle), 4 | 7 << 6 | 2 << 14); // king takes the h1 rook
        assert_eq!(encode_move(find("b7b8q")), 49 | 57 << 6 | 3 << 12 | 3 << 14);
        assert_eq!(encode_move(find("b7a8n")) >> 12, 3 << 2);
        for mv in legal_moves(&pos) {
            assert_eq!(decode_move(&pos, encode_move(mv)), Some(mv));
        }
    }

    #[test]
    fn boards_round_trip_standard_and_chess960() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k3/8/8/8/8/8/8/4K2R b Kq - 37 80",
            "8/8/8/8/8/8/6k1/4K3 w - - 0 1",
            // Chess960: rooks on b and g, king on d; one right each side kept.
            "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w Gb - 0 1",
        ];
        for fen in fens {
            let pos = position(fen);
            let bytes = pack_board(&pos, -321, Wdl::DRAW);
            let (back, score, wdl) = unpack_board(&bytes).expect("unpacks");
            assert_eq!(back.to_fen(), pos.to_fen(), "{fen}");
            assert_eq!(back.key(), pos.key(), "{fen}");
            assert_eq!((score, wdl), (-321, Wdl::DRAW));
        }
    }

    #[test]
    fn a_game_round_trips_and_replays() {
        let mut pos = Position::startpos();
        let mut record = GameRecord {
            start: pos,
            start_score: 0,
            wdl: Wdl::BLACK_WINS,
            moves: Vec::new(),
        };
        for (i, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
            let mv = pos.parse_uci_move(uci).expect("legal");
            record.moves.push((mv, -(i as i16) * 100));
            pos.make_move(mv);
        }
        let mut bytes = Vec::new();
        record.write(&mut bytes);
        assert_eq!(bytes.len(), BOARD_BYTES + 4 * 4 + 4);
        // A second game: one converted position without moves.
        let single = GameRecord {
            start: position("4k3/8/8/8/8/8/8/3QK3 b - - 3 40"),
            start_score: 900,
            wdl: Wdl::WHITE_WINS,
            moves: Vec::new(),
        };
        single.write(&mut bytes);
        let games: Vec<GameRecord> = GameReader::new(&bytes)
            .collect::<Result<_, _>>()
            .expect("reads");
        assert_eq!(games, vec![record.clone(), single.clone()]);
        let positions = games[0].positions();
        assert_eq!(positions.len(), 4);
        assert_eq!(
            positions[3].0.to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"
        );
        assert_eq!(positions[3].1, -300);
        assert_eq!(games[1].positions(), vec![(single.start, 900, None)]);
    }

    #[test]
    fn damaged_files_are_errors_not_panics() {
        let mut bytes = Vec::new();
        GameRecord {
            start: Position::startpos(),
            start_score: 0,
            wdl: Wdl::DRAW,
            moves: vec![(Position::startpos().parse_uci_move("e2e4").expect("e4"), 20)],
        }
        .write(&mut bytes);
        for cut in 0..bytes.len() {
            let result: Result<Vec<_>, _> = GameReader::new(&bytes[..cut]).collect();
            assert!(cut == 0 || result.is_err(), "cut at {cut}");
        }
        let mut illegal = bytes.clone();
        illegal[BOARD_BYTES] ^= 0x3F; // the move's from square
        assert!(GameReader::new(&illegal).any(|g| g.is_err()));
        let mut bad_result = bytes.clone();
        bad_result[30] = 7;
        assert!(GameReader::new(&bad_result).any(|g| g.is_err()));
        let mut two_kings = bytes;
        two_kings[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(GameReader::new(&two_kings).any(|g| g.is_err()));
    }

    #[test]
    fn scores_keep_mates_apart() {
        assert_eq!(clamp_score(150, false), 150);
        assert_eq!(clamp_score(-40_000, false), -(MATE_SCORE - 1));
        assert_eq!(clamp_score(31_000, true), MATE_SCORE);
        assert_eq!(clamp_score(-31_000, true), -MATE_SCORE);
        assert_eq!(Wdl::from_white_result(0.5).white_result(), 0.5);
        assert_eq!(Wdl::from_white_result(1.0), Wdl::WHITE_WINS);
    }
}
