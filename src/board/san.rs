//! Standard algebraic notation (SAN): `Nf3`, `exd5`, `Rae1`, `O-O-O`,
//! `e8=Q+`. Test suites (`bm`, `am` in EPD) and people write moves this way;
//! the engine itself speaks UCI.

use crate::board::movegen::legal_moves;
use crate::board::moves::Move;
use crate::board::position::Position;
use crate::board::types::{PieceKind, Square};

/// The SAN of `mv`, a legal move in `pos`, with its `+` or `#` suffix.
pub fn to_san(pos: &Position, mv: Move) -> String {
    let mut san = if mv.is_castling() {
        let kingside = mv.to().file() > mv.from().file();
        String::from(if kingside { "O-O" } else { "O-O-O" })
    } else {
        let kind = moving_kind(pos, mv);
        let capture = pos.is_capture(mv);
        let mut s = String::new();
        if kind == PieceKind::Pawn {
            if capture {
                s.push(file_char(mv.from()));
            }
        } else {
            s.push(kind.char().to_ascii_uppercase());
            s.push_str(&disambiguation(pos, mv, kind));
        }
        if capture {
            s.push('x');
        }
        s.push_str(&mv.to().to_string());
        if let Some(promoted) = mv.promotion_piece() {
            s.push('=');
            s.push(promoted.char().to_ascii_uppercase());
        }
        s
    };
    let mut after = *pos;
    after.make_move(mv);
    if after.in_check() {
        san.push(if legal_moves(&after).is_empty() {
            '#'
        } else {
            '+'
        });
    }
    san
}

/// Reads a move in SAN, leniently: the check suffix, annotations (`!`, `?`),
/// the capture mark and the `=` of a promotion may be missing or extra, castling
/// may be written with zeros, and a needless disambiguation is accepted. A move
/// in UCI text is accepted too. `None` unless exactly one legal move fits.
pub fn parse_san(pos: &Position, text: &str) -> Option<Move> {
    let text = text.trim().trim_end_matches(['+', '#', '!', '?']);
    if text.is_empty() {
        return None;
    }
    san_move(pos, text).or_else(|| pos.parse_uci_move(text))
}

/// The one legal move that `text` (SAN, suffixes already stripped) names, if any.
fn san_move(pos: &Position, text: &str) -> Option<Move> {
    let moves = legal_moves(pos);
    let castling = match text {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(kingside) = castling {
        return moves
            .iter()
            .copied()
            .find(|m| m.is_castling() && (m.to().file() > m.from().file()) == kingside);
    }

    let (kind, rest) = match text.chars().next() {
        Some(c @ ('N' | 'B' | 'R' | 'Q' | 'K')) => (PieceKind::from_char(c)?, &text[1..]),
        _ => (PieceKind::Pawn, text),
    };
    let mut body: Vec<char> = rest
        .chars()
        .filter(|c| !matches!(c, 'x' | ':' | '-'))
        .collect();
    // A promotion: `e8=Q`, or `e8Q` / `e8q` without the sign.
    let mut promotion = None;
    if kind == PieceKind::Pawn && body.len() >= 3 {
        let last = body[body.len() - 1];
        if matches!(last.to_ascii_lowercase(), 'n' | 'b' | 'r' | 'q') {
            // A lower-case `b` could be a file, but a SAN pawn move never ends on a file.
            promotion = PieceKind::from_char(last);
            body.pop();
            if body.last() == Some(&'=') {
                body.pop();
            }
        }
    }
    if body.len() < 2 {
        return None;
    }
    let destination: String = body[body.len() - 2..].iter().collect();
    let to = destination.parse::<Square>().ok()?;
    let hints = &body[..body.len() - 2];
    if hints.len() > 2 {
        return None;
    }
    let mut from_file = None;
    let mut from_rank = None;
    for &c in hints {
        match c {
            'a'..='h' => from_file = Some(c as u8 - b'a'),
            '1'..='8' => from_rank = Some(c as u8 - b'1'),
            _ => return None,
        }
    }
    let mut fitting = moves.iter().copied().filter(|&m| {
        !m.is_castling()
            && m.to() == to
            && moving_kind(pos, m) == kind
            && m.promotion_piece() == promotion
            && from_file.is_none_or(|f| m.from().file() == f)
            && from_rank.is_none_or(|r| m.from().rank() == r)
    });
    match (fitting.next(), fitting.next()) {
        (Some(m), None) => Some(m),
        _ => None,
    }
}

fn moving_kind(pos: &Position, mv: Move) -> PieceKind {
    pos.piece_on(mv.from())
        .map_or(PieceKind::Pawn, |p| p.kind())
}

fn file_char(sq: Square) -> char {
    (b'a' + sq.file()) as char
}

/// The file, rank or square that tells `mv` apart from the other moves of the
/// same kind of piece to the same square (empty when there are none).
fn disambiguation(pos: &Position, mv: Move, kind: PieceKind) -> String {
    let rivals: Vec<Square> = legal_moves(pos)
        .iter()
        .filter(|m| {
            !m.is_castling()
                && m.to() == mv.to()
                && m.from() != mv.from()
                && moving_kind(pos, **m) == kind
        })
        .map(|m| m.from())
        .collect();
    if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|s| s.file() != mv.from().file()) {
        file_char(mv.from()).to_string()
    } else if rivals.iter().all(|s| s.rank() != mv.from().rank()) {
        ((b'1' + mv.from().rank()) as char).to_string()
    } else {
        mv.from().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, false).expect("test FEN parses")
    }

    fn san_of(fen: &str, uci: &str) -> String {
        let p = pos(fen);
        let mv = p.parse_uci_move(uci).expect("test move is legal");
        to_san(&p, mv)
    }

    #[test]
    fn writes_each_kind_of_move() {
        let start = crate::board::position::START_FEN;
        assert_eq!(san_of(start, "g1f3"), "Nf3");
        assert_eq!(san_of(start, "e2e4"), "e4");
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        assert_eq!(san_of(kiwipete, "e1g1"), "O-O");
        assert_eq!(san_of(kiwipete, "e1c1"), "O-O-O");
        assert_eq!(san_of(kiwipete, "d5e6"), "dxe6");
        assert_eq!(san_of(kiwipete, "e5f7"), "Nxf7");
        // Both rooks reach d1 from the first rank: the file tells them apart.
        let rooks = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1";
        assert_eq!(san_of(rooks, "a1d1"), "Rad1");
        // Two knights on one file: the rank tells them apart.
        let knights = "4k3/8/8/1N6/8/1N6/8/4K3 w - - 0 1";
        assert_eq!(san_of(knights, "b5d4"), "N5d4");
        // Three queens: neither file nor rank alone is enough.
        let queens = "7k/8/8/8/Q1Q5/8/Q7/7K w - - 0 1";
        assert_eq!(san_of(queens, "a4b3"), "Qa4b3");
        // En passant and promotion with check and mate.
        assert_eq!(san_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6");
        assert_eq!(san_of("8/P6k/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), "a8=Q");
        assert_eq!(san_of("7k/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8r"), "a8=R+");
        assert_eq!(san_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"), "Ra8#");
    }

    #[test]
    fn reads_what_it_writes_for_every_legal_move() {
        // Castling both ways, en passant, promotions with and without capture,
        // checks, pins, and several pieces of a kind able to reach one square.
        const VARIED: [&str; 6] = [
            crate::board::position::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "1n2k3/P1P5/8/3pP3/8/1N3N2/4K3/1N6 w - d6 0 1",
        ];
        for fen in VARIED {
            let p = pos(fen);
            for &mv in legal_moves(&p).iter() {
                let san = to_san(&p, mv);
                assert_eq!(parse_san(&p, &san), Some(mv), "{san} in {fen}");
            }
        }
    }

    #[test]
    fn reads_loose_spellings() {
        let kiwipete = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
        let uci = |s: &str| kiwipete.parse_uci_move(s);
        assert_eq!(parse_san(&kiwipete, "0-0"), uci("e1g1"));
        assert_eq!(parse_san(&kiwipete, "O-O-O!?"), uci("e1c1"));
        assert_eq!(parse_san(&kiwipete, "Nf7"), uci("e5f7"));
        assert_eq!(parse_san(&kiwipete, "Ne5xf7"), uci("e5f7"));
        assert_eq!(parse_san(&kiwipete, "e5f7"), uci("e5f7"));
        let promo = pos("8/P6k/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(parse_san(&promo, "a8Q"), promo.parse_uci_move("a7a8q"));
        assert_eq!(parse_san(&promo, "a8=n"), promo.parse_uci_move("a7a8n"));
    }

    #[test]
    fn rejects_what_is_not_one_legal_move() {
        let start = pos(crate::board::position::START_FEN);
        for bad in [
            "", "e5", "Nf4", "Ke2", "O-O", "Zf3", "Nf3f3f3", "x", "=Q", "+",
        ] {
            assert_eq!(parse_san(&start, bad), None, "{bad:?}");
        }
        // Ambiguous without the file.
        let rooks = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert_eq!(parse_san(&rooks, "Rd1"), None);
        assert_eq!(parse_san(&rooks, "Rhd1"), rooks.parse_uci_move("h1d1"));
    }
}
