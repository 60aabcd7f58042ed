//! One test per chess rule, through the public API only.
//!
//! Each test pairs the position that exercises a rule with a control position
//! where the rule does not bite, so a generator that simply never (or always)
//! produces a move cannot pass.

use guoxiang::board::movegen::{count_legal, legal_moves};
use guoxiang::board::position::{castling_index, START_FEN};
use guoxiang::perft::perft;
use guoxiang::{Color, FenError, Move, MoveKind, Piece, PieceKind, Position, Square};

// ----- helpers -----

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, false).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn pos960(fen: &str) -> Position {
    Position::from_fen(fen, true).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Legal moves as UCI text in the position's own notation, sorted.
fn uci_moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = legal_moves(p)
        .iter()
        .map(|m| m.to_uci(p.is_chess960()))
        .collect();
    v.sort();
    v
}

/// Castling moves as king-takes-rook text (unambiguous in both modes), sorted.
fn castles(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = legal_moves(p)
        .iter()
        .filter(|m| m.is_castling())
        .map(|m| m.to_uci(true))
        .collect();
    v.sort();
    v
}

fn play(p: &Position, uci: &str) -> Position {
    let mv = p
        .parse_uci_move(uci)
        .unwrap_or_else(|| panic!("{uci} is not legal in {}", p.to_fen()));
    let mut next = *p;
    next.make_move(mv);
    next
}

fn play_all(p: &Position, moves: &[&str]) -> Position {
    moves.iter().fold(*p, |p, m| play(&p, m))
}

fn castling_field(p: &Position) -> String {
    p.to_fen().split_whitespace().nth(2).unwrap().to_string()
}

fn piece(c: char) -> Option<Piece> {
    Piece::from_char(c)
}

// ----- castling: each condition on its own -----

const CASTLE_BASE: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn castling_both_sides_when_every_condition_holds() {
    let p = pos(CASTLE_BASE);
    assert_eq!(castles(&p), ["e1a1", "e1h1"]);
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(castles(&p), ["e8a8", "e8h8"]);
}

#[test]
fn no_castling_out_of_check() {
    // The b4 bishop checks e1 and touches no other square the king needs.
    let p = pos("r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1");
    assert!(p.in_check());
    assert_eq!(castles(&p), Vec::<String>::new());
    assert!(!uci_moves(&p).contains(&"e1g1".to_string()));
    assert!(!uci_moves(&p).contains(&"e1c1".to_string()));
}

#[test]
fn no_castling_across_an_attacked_square() {
    // c4 bishop covers f1 only: O-O goes, O-O-O stays.
    let p = pos("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1");
    assert!(!p.in_check());
    assert_eq!(castles(&p), ["e1a1"]);
    // d4 rook covers d1 only: O-O-O goes, O-O stays.
    let p = pos("r3k2r/8/8/8/3r4/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1h1"]);
}

#[test]
fn no_castling_onto_an_attacked_square() {
    // h3 knight covers g1.
    let p = pos("r3k2r/8/8/8/8/7n/8/R3K2R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1a1"]);
    // b3 knight covers c1 (and attacks the a1 rook, which does not matter).
    let p = pos("r3k2r/8/8/8/8/1n6/8/R3K2R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1h1"]);
}

#[test]
fn queen_side_castling_ignores_an_attacked_b1() {
    // The king never touches b1, only the rook crosses it.
    let p = pos("1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1");
    assert_eq!(castles(&p), ["e1a1", "e1h1"]);
}

#[test]
fn no_castling_through_a_piece() {
    // Own knight on b1: the rook's path is blocked although the king's is free.
    let p = pos("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1h1"]);
    // Own bishop on f1.
    let p = pos("r3k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1");
    assert_eq!(castles(&p), ["e1a1"]);
    // Enemy knight on g1 (attacks e2, f3, h3: nothing the king crosses).
    let p = pos("r3k2r/8/8/8/8/8/8/R3K1nR w KQkq - 0 1");
    assert!(!p.in_check());
    assert_eq!(castles(&p), ["e1a1"]);
}

#[test]
fn moving_a_rook_loses_its_right_only() {
    let p = play_all(&pos(CASTLE_BASE), &["h1h2", "a8a7", "h2h1", "a7a8"]);
    assert_eq!(p.piece_on(Square::H1), piece('R'));
    assert_eq!(p.castling_rook(castling_index(Color::White, true)), None);
    assert_eq!(
        p.castling_rook(castling_index(Color::White, false)),
        Some(Square::A1)
    );
    assert_eq!(castles(&p), ["e1a1"]);
    assert_eq!(castling_field(&p), "Qk");
}

#[test]
fn moving_the_king_loses_both_rights() {
    let p = play_all(&pos(CASTLE_BASE), &["e1e2", "e8e7", "e2e1", "e7e8"]);
    assert_eq!(p.castling_rights(), 0);
    assert_eq!(castles(&p), Vec::<String>::new());
    assert_eq!(castling_field(&p), "-");
    // Same placement as the start, different rights: different keys.
    assert_ne!(p.key(), pos(CASTLE_BASE).key());
    assert_eq!(p.key(), pos("r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3").key());
}

#[test]
fn capturing_a_rook_removes_its_right() {
    let p = play(&pos("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1"), "g2h1");
    assert_eq!(castles(&p), ["e1a1"]);
    assert_eq!(castling_field(&p), "Qkq");
    // A rook taking a rook removes both rights at once.
    let p = play(&pos(CASTLE_BASE), "a1a8");
    assert_eq!(castling_field(&p), "Kk");
    // A promotion capturing on the rook square too.
    let p = play(&pos("r3k2r/8/8/8/8/8/1p6/R3K2R b KQkq - 0 1"), "b2a1n");
    assert_eq!(p.piece_on(Square::A1), piece('n'));
    assert_eq!(castles(&p), ["e1h1"]);
    assert_eq!(castling_field(&p), "Kkq");
}

#[test]
fn castling_moves_king_and_rook_in_standard_chess() {
    let p = pos(CASTLE_BASE);
    let short = play(&p, "e1g1");
    assert_eq!(short.piece_on(Square::G1), piece('K'));
    assert_eq!(short.piece_on(Square::F1), piece('R'));
    assert_eq!(short.piece_on(Square::E1), None);
    assert_eq!(short.piece_on(Square::H1), None);
    let long = play(&p, "e1c1");
    assert_eq!(long.piece_on(Square::C1), piece('K'));
    assert_eq!(long.piece_on(Square::D1), piece('R'));
    assert_eq!(long.piece_on(Square::A1), None);
    assert_eq!(long.piece_on(Square::E1), None);
    assert_eq!(castling_field(&long), "kq");
}

#[test]
fn castling_uci_text_standard_vs_chess960() {
    let p = pos(CASTLE_BASE);
    let mv = p.parse_uci_move("e1g1").expect("e1g1 castles");
    assert!(mv.is_castling());
    assert_eq!(mv, Move::castling(Square::E1, Square::H1));
    assert_eq!(mv.to_uci(false), "e1g1");
    assert_eq!(mv.to_uci(true), "e1h1");
    let long = p.parse_uci_move("e1c1").expect("e1c1 castles");
    assert_eq!(long.to_uci(false), "e1c1");
    assert_eq!(long.to_uci(true), "e1a1");
    assert!(uci_moves(&p).contains(&"e1g1".to_string()));
    assert!(!uci_moves(&p).contains(&"e1h1".to_string()));

    // The same position in Chess960 mode lists king-takes-rook.
    let p960 = pos960(CASTLE_BASE);
    assert!(p960.is_chess960());
    assert!(uci_moves(&p960).contains(&"e1h1".to_string()));
    assert!(!uci_moves(&p960).contains(&"e1g1".to_string()));
    assert_eq!(p960.parse_uci_move("e1h1"), Some(mv));
    // GUIs differ: the other spelling is accepted where it is not a king move.
    assert_eq!(p960.parse_uci_move("e1g1"), Some(mv));
    assert_eq!(p.parse_uci_move("e1h1"), Some(mv));
}

#[test]
fn chess960_king_step_is_not_read_as_castling() {
    // King f1, rook h1: f1g1 is an ordinary king move, f1h1 castles.
    let p = pos960("2k5/8/8/8/8/8/8/R4K1R w HA - 0 1");
    let step = p.parse_uci_move("f1g1").expect("f1g1 is legal");
    assert_eq!(step.kind(), MoveKind::Normal);
    let castle = p.parse_uci_move("f1h1").expect("f1h1 castles");
    assert!(castle.is_castling());
    let after = play(&p, "f1h1");
    assert_eq!(after.piece_on(Square::G1), piece('K'));
    assert_eq!(after.piece_on(Square::F1), piece('R'));
    assert_eq!(after.piece_on(Square::H1), None);
}

#[test]
fn chess960_king_b1_rook_a1() {
    let p = pos960("1k6/8/8/8/8/8/8/RK5R w HA - 0 1");
    assert_eq!(castles(&p), ["b1a1", "b1h1"]);
    let long = play(&p, "b1a1");
    assert_eq!(long.piece_on(Square::C1), piece('K'));
    assert_eq!(long.piece_on(Square::D1), piece('R'));
    assert_eq!(long.piece_on(Square::A1), None);
    assert_eq!(long.piece_on(Square::B1), None);
    let short = play(&p, "b1h1");
    assert_eq!(short.piece_on(Square::G1), piece('K'));
    assert_eq!(short.piece_on(Square::F1), piece('R'));
    assert_eq!(short.piece_on(Square::B1), None);
    assert_eq!(short.piece_on(Square::H1), None);
    assert_eq!(short.key(), short.compute_key());
    // A piece on c1 blocks O-O-O even though king and rook only swap past it.
    let p = pos960("1k6/8/8/8/8/8/8/RKN4R w HA - 0 1");
    assert_eq!(castles(&p), Vec::<String>::new());
}

#[test]
fn chess960_king_f1_rook_g1_swap() {
    let p = pos960("2k5/8/8/8/8/8/8/R4KR1 w GA - 0 1");
    assert_eq!(castles(&p), ["f1a1", "f1g1"]);
    let short = play(&p, "f1g1");
    assert_eq!(short.piece_on(Square::G1), piece('K'));
    assert_eq!(short.piece_on(Square::F1), piece('R'));
    assert_eq!(castling_field(&short), "-");
    assert_eq!(short.key(), short.compute_key());
    // g1 attacked from g8 (through the castling rook, which leaves): no O-O.
    let p = pos960("2k3r1/8/8/8/8/8/8/R4KR1 w GA - 0 1");
    assert!(!p.in_check());
    assert_eq!(castles(&p), ["f1a1"]);
}

#[test]
fn chess960_king_that_does_not_move() {
    // King already on g1: O-O only moves the rook h1 -> f1.
    let p = pos960("2k5/8/8/8/8/8/8/6KR w H - 0 1");
    assert_eq!(castles(&p), ["g1h1"]);
    let after = play(&p, "g1h1");
    assert_eq!(after.piece_on(Square::G1), piece('K'));
    assert_eq!(after.piece_on(Square::F1), piece('R'));
    assert_eq!(after.piece_on(Square::H1), None);
}

#[test]
fn chess960_castling_rook_shielding_the_destination() {
    // Queen a1, rook b1, king c1: the king stays on c1 but the rook leaves
    // for d1 and opens the rank; castling would walk into check.
    let p = pos960("7k/8/8/8/8/8/8/qRK5 w Q - 0 1");
    assert!(!p.in_check());
    assert_eq!(castles(&p), Vec::<String>::new());
    let control = pos960("7k/8/8/8/8/8/8/1RK5 w Q - 0 1");
    assert_eq!(castles(&control), ["c1b1"]);

    // Rook a1 (enemy), rook b1, king d1: king to c1, rook to d1, c1 is hit.
    let p = pos960("7k/8/8/8/8/8/8/rR1K4 w Q - 0 1");
    assert!(!p.in_check());
    assert_eq!(castles(&p), Vec::<String>::new());
    let control = pos960("7k/8/8/8/8/8/8/1R1K4 w Q - 0 1");
    assert_eq!(castles(&control), ["d1b1"]);
}

// ----- en passant -----

#[test]
fn en_passant_only_right_after_the_double_step() {
    let start = pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let p = play(&start, "e2e4");
    assert_eq!(p.en_passant(), Some(sq("e3")));
    assert!(p.to_fen().contains(" e3 "));
    let ep = p.parse_uci_move("d4e3").expect("d4e3 en passant");
    assert_eq!(ep.kind(), MoveKind::EnPassant);
    let after = play(&p, "d4e3");
    assert_eq!(after.piece_on(sq("e4")), None);
    assert_eq!(after.piece_on(sq("e3")), piece('p'));
    assert_eq!(after.piece_on(sq("d4")), None);
    assert_eq!(after.halfmove_clock(), 0);

    // One move pair later the chance is gone.
    let later = play_all(&p, &["e8d8", "e1d1"]);
    assert_eq!(later.en_passant(), None);
    assert_eq!(later.parse_uci_move("d4e3"), None);
    assert!(!legal_moves(&later)
        .iter()
        .any(|m| m.kind() == MoveKind::EnPassant));

    // A single step gives no en passant.
    let single = play_all(&start, &["e2e3", "e8d8", "e3e4"]);
    assert_eq!(single.en_passant(), None);
}

#[test]
fn en_passant_cannot_expose_the_king_along_the_rank() {
    // Both pawns leave rank 5 at once, opening it for the h5 rook.
    for (fen, double, ep_move) in [
        ("8/3p4/8/K3P2r/8/8/8/7k b - - 0 1", "d7d5", "e5d6"),
        ("8/2p5/8/KP5r/8/8/8/7k b - - 0 1", "c7c5", "b5c6"),
    ] {
        let p = play(&pos(fen), double);
        assert_eq!(p.en_passant(), None, "{fen}");
        assert_eq!(p.parse_uci_move(ep_move), None, "{fen}");
        assert!(!p.to_fen().contains(" d6 ") && !p.to_fen().contains(" c6 "));

        let control = play(&pos(&fen.replace("2r/", "3/").replace("5r/", "6/")), double);
        let mv = control
            .parse_uci_move(ep_move)
            .expect("legal without the rook");
        assert_eq!(mv.kind(), MoveKind::EnPassant, "{fen}");
    }
}

#[test]
fn en_passant_as_the_evasion_of_a_pawn_check() {
    let p = play(&pos("8/8/8/2k5/4p3/8/3P4/4K3 w - - 0 1"), "d2d4");
    assert!(p.in_check());
    assert_eq!(p.en_passant(), Some(sq("d3")));
    let moves = uci_moves(&p);
    assert!(moves.contains(&"e4d3".to_string()), "{moves:?}");
    let after = play(&p, "e4d3");
    assert_eq!(after.piece_on(sq("d4")), None);
    assert_eq!(after.piece_on(sq("d3")), piece('p'));
    // Ordinary pawn pushes do not answer the check.
    assert!(!moves.contains(&"e4e3".to_string()));
}

#[test]
fn en_passant_illegal_for_a_diagonally_pinned_pawn() {
    // The e5 pawn is pinned on the c3-g7 diagonal.
    let start = pos("4k3/3p1pb1/8/4P3/8/2K5/8/8 b - - 0 1");
    let p = play(&start, "d7d5");
    assert_eq!(p.en_passant(), None);
    assert_eq!(p.parse_uci_move("e5d6"), None);
    // Capturing along the pin line stays legal.
    let p = play(&start, "f7f5");
    assert_eq!(p.en_passant(), Some(sq("f6")));
    let mv = p.parse_uci_move("e5f6").expect("along the pin");
    assert_eq!(mv.kind(), MoveKind::EnPassant);
}

#[test]
fn key_has_the_ep_file_only_when_a_capture_is_legal() {
    // No white pawn can take on e6: the ep square is noise.
    let with = pos("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2");
    let without = pos("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(with.en_passant(), None);
    assert_eq!(with.key(), without.key());
    assert_eq!(with, without);
    assert!(with.to_fen().contains(" - 0 2"));

    // Pinned capturer: the ep square is dropped too.
    let pinned = pos("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1");
    let plain = pos("8/8/8/K2pP2r/8/8/8/7k w - - 0 1");
    assert_eq!(pinned.key(), plain.key());

    // e5 can take on d6: the keys must differ.
    let with = pos("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    let without = pos("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_eq!(with.en_passant(), Some(sq("d6")));
    assert_ne!(with.key(), without.key());
    assert_eq!(with.key(), with.compute_key());

    // 1. e4 reached by play equals the FEN without an ep square.
    let after_e4 = play(&Position::startpos(), "e2e4");
    assert_eq!(
        after_e4,
        pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    );
}

// ----- promotions -----

#[test]
fn promotions_to_each_piece_with_and_without_capture() {
    let p = pos("1r6/P7/8/8/8/8/8/k6K w - - 0 1");
    let promos: Vec<Move> = legal_moves(&p)
        .iter()
        .copied()
        .filter(|m| m.from() == sq("a7"))
        .collect();
    assert_eq!(promos.len(), 8, "{promos:?}");
    assert!(promos.iter().all(|m| m.kind() == MoveKind::Promotion));
    assert_eq!(p.parse_uci_move("a7a8"), None, "a pawn cannot stay a pawn");
    assert_eq!(p.parse_uci_move("a7b8"), None);
    assert_eq!(p.parse_uci_move("a7a8k"), None);
    assert_eq!(p.parse_uci_move("a7a8p"), None);
    for to in ["a8", "b8"] {
        for (letter, kind) in [
            ('q', PieceKind::Queen),
            ('r', PieceKind::Rook),
            ('b', PieceKind::Bishop),
            ('n', PieceKind::Knight),
        ] {
            let text = format!("a7{to}{letter}");
            let mv = p.parse_uci_move(&text).expect(&text);
            assert_eq!(mv.promotion_piece(), Some(kind));
            assert_eq!(mv.to_uci(false), text);
            assert_eq!(p.is_capture(mv), to == "b8");
            let after = play(&p, &text);
            assert_eq!(after.piece_on(sq(to)), Some(Piece::new(Color::White, kind)));
            assert_eq!(after.piece_on(sq("a7")), None);
            assert!(after.pieces(PieceKind::Pawn).is_empty());
            assert_eq!(after.halfmove_clock(), 0);
            assert_eq!(after.key(), after.compute_key());
        }
    }
}

#[test]
fn black_promotions_and_promotion_check() {
    let p = pos("7k/8/8/8/8/8/p7/1N4K1 b - - 0 1");
    let mut promos: Vec<String> = uci_moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("a2"))
        .collect();
    promos.sort();
    assert_eq!(
        promos,
        ["a2a1b", "a2a1n", "a2a1q", "a2a1r", "a2b1b", "a2b1n", "a2b1q", "a2b1r"]
    );
    // bxb1=Q and =R check g1 along the rank; a1=Q is blocked by the knight.
    assert!(play(&p, "a2b1q").in_check());
    assert!(play(&p, "a2b1r").in_check());
    assert!(!play(&p, "a2b1n").in_check());
    assert!(!play(&p, "a2a1q").in_check());
}

#[test]
fn max_known_legal_move_count() {
    // The composed position with 218 legal moves.
    let p = pos("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1");
    assert_eq!(legal_moves(&p).len(), 218);
    assert_eq!(count_legal(&p), 218);
}

// ----- game end -----

#[test]
fn checkmate_is_check_without_moves() {
    // Fool's mate.
    let p = play_all(&Position::startpos(), &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert!(p.in_check());
    assert!(legal_moves(&p).is_empty());
    assert_eq!(count_legal(&p), 0);
    // Back-rank mate.
    let p = pos("3R2k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    assert!(p.in_check());
    assert_eq!(count_legal(&p), 0);
    // Check with an escape is not mate.
    let p = pos("3R2k1/5pp1/8/8/8/8/8/6K1 b - - 0 1");
    assert!(p.in_check());
    assert_eq!(uci_moves(&p), ["g8h7"]);
}

#[test]
fn stalemate_is_no_moves_without_check() {
    let p = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(!p.in_check());
    assert!(legal_moves(&p).is_empty());
    assert_eq!(count_legal(&p), 0);
    // A blocked pawn does not help; a free one does.
    let p = pos("k7/P7/1K6/8/8/8/8/8 b - - 0 1");
    assert!(!p.in_check());
    assert_eq!(count_legal(&p), 0);
    let p = pos("k7/P7/1K6/8/8/8/7p/8 b - - 0 1");
    assert_eq!(count_legal(&p), 4);
}

// ----- draw rules -----

#[test]
fn dead_positions() {
    let dead = [
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",     // K v K
        "8/8/8/4k3/8/8/8/4KN2 w - - 0 1",    // KN v K
        "8/8/8/4k3/8/8/8/4K1n1 b - - 0 1",   // K v KN
        "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",   // KB v K
        "5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1", // KB v KB, both dark
        "8/8/8/4k3/8/8/8/2B1K1B1 w - - 0 1", // K+BB v K, all on dark squares
    ];
    for fen in dead {
        assert!(pos(fen).is_dead_position(), "{fen} is dead");
    }
    let alive = [
        "2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1", // KB v KB, opposite colours
        "8/8/8/4k3/8/8/8/1NN1K3 w - - 0 1",  // KNN v K: not in our list
        "8/8/8/4k3/8/8/8/1N2K1n1 w - - 0 1", // KN v KN
        "8/8/8/4k3/8/8/8/1B2K1n1 w - - 0 1", // KB v KN
        "8/8/8/4k3/8/8/8/1BB1K3 w - - 0 1",  // bishops of both colours
        "8/8/8/4k3/8/8/P7/4K3 w - - 0 1",    // a pawn
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",    // a rook
        "8/8/8/4k3/8/8/8/3QK3 w - - 0 1",    // a queen
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ];
    for fen in alive {
        assert!(!pos(fen).is_dead_position(), "{fen} is not dead");
    }
}

#[test]
fn fifty_move_clock() {
    let p = pos("8/8/8/4k3/8/8/P7/R3K3 w - - 99 80");
    assert!(!p.fifty_move_clock_expired());
    assert!(pos("8/8/8/4k3/8/8/P7/R3K3 w - - 100 80").fifty_move_clock_expired());
    assert!(play(&p, "a1b1").fifty_move_clock_expired());
    let pawn = play(&p, "a2a3");
    assert_eq!(pawn.halfmove_clock(), 0);
    assert!(!pawn.fifty_move_clock_expired());
    assert_eq!(play(&p, "a1b1").halfmove_clock(), 100);
}

#[test]
fn repetitions_counted_from_the_key_history() {
    let dance = ["g1f3", "g8f6", "f3g1", "f6g8"];
    let mut p = Position::startpos();
    let mut history: Vec<u64> = Vec::new();
    let mut counts = vec![p.repetitions(&history)];
    for mv in dance.iter().chain(dance.iter()) {
        history.push(p.key());
        p = play(&p, mv);
        counts.push(p.repetitions(&history));
    }
    assert_eq!(counts, [0, 0, 0, 0, 1, 1, 1, 1, 2]);
    assert_eq!(p.key(), Position::startpos().key());

    // A pawn move ends the window: earlier equal keys no longer count.
    let after_pawn = play(&p, "e2e4");
    let mut fake = history.clone();
    fake.push(p.key());
    fake.push(after_pawn.key());
    assert_eq!(after_pawn.halfmove_clock(), 0);
    assert_eq!(after_pawn.repetitions(&fake), 0);

    // Same key with the other side to move does not count (odd plies back).
    let q = play(&Position::startpos(), "g1f3");
    assert_eq!(q.repetitions(&[q.key()]), 0);
}

// ----- FEN errors -----

fn syntax(fen: &str) {
    match Position::from_fen(fen, false) {
        Err(FenError::Syntax(m)) => assert!(!m.is_empty()),
        other => panic!("{fen}: expected a syntax error, got {other:?}"),
    }
}

fn illegal(fen: &str) {
    match Position::from_fen(fen, false) {
        Err(FenError::Illegal(m)) => assert!(!m.is_empty()),
        other => panic!("{fen}: expected an illegal-position error, got {other:?}"),
    }
}

#[test]
fn fen_syntax_errors() {
    syntax("");
    syntax("8/8/8/8/8/8/8/8 w");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra");
    // Rank lengths.
    syntax("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/72/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/0/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    // Characters.
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN- w KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq xx 0 1");
    // Clocks.
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 y");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1");
    syntax("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999");
}

#[test]
fn fen_illegal_positions() {
    // Kings.
    illegal("4k3/8/8/8/8/8/8/3KK3 w - - 0 1");
    illegal("8/8/8/8/8/8/8/4K3 w - - 0 1");
    illegal("4k3/8/8/8/8/8/8/8 w - - 0 1");
    illegal("3kk3/8/8/8/8/8/8/4K3 w - - 0 1");
    // Pawns on the first or last rank.
    illegal("4k2P/8/8/8/8/8/8/4K3 w - - 0 1");
    illegal("4k3/8/8/8/8/8/8/p3K3 w - - 0 1");
    illegal("4k3/8/8/8/8/8/8/P3K3 w - - 0 1");
    // The side not to move in check.
    illegal("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1");
    illegal("4k3/3P4/8/8/8/8/8/6K1 w - - 0 1");
    illegal("8/8/8/8/8/8/3k4/4K3 w - - 0 1");
    // Too much material.
    illegal("4k3/8/8/8/PPPPPPPP/NNNNNNNN/8/4K3 w - - 0 1"); // 17 pieces
    illegal("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"); // 9 pawns
    illegal("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1"); // 9 black pawns
    illegal("4k3/8/8/8/8/QQQ5/PPPPPPP1/4K3 w - - 0 1"); // 2 promoted, 1 pawn missing
    illegal("4k3/8/8/8/8/NNN5/PPPPPPPP/4K3 w - - 0 1"); // a third knight, no pawn missing
                                                        // Castling rights without their pieces.
    illegal("4k3/8/8/8/8/8/8/4K3 w K - 0 1");
    illegal("4k3/8/8/8/8/8/8/R3K3 w K - 0 1");
    illegal("4k3/8/8/8/8/8/4K3/7R w K - 0 1");
    illegal("r3k2r/8/8/8/8/8/8/R3K2R w KQkqK - 0 1");
    illegal("r3k2r/8/8/8/8/8/8/R3K2R w KHkq - 0 1");
    illegal("r3k2r/8/8/8/8/8/8/R3K2R w E - 0 1"); // the king's own file
    illegal("r3k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1"); // black has no h-side rook
                                                    // En-passant squares that no double step explains.
    illegal("4k3/8/8/8/8/8/8/4K3 w - e6 0 1");
    illegal("4k3/8/8/4p3/8/8/8/4K3 w - e3 0 1");
    illegal("4k3/8/8/4p3/8/8/8/4K3 b - e6 0 1");
    illegal("4k3/8/4n3/4p3/8/8/8/4K3 w - e6 0 1");
    illegal("4k3/4p3/8/4p3/8/8/8/4K3 w - e6 0 1");
    illegal("4k3/8/8/4P3/8/8/8/4K3 w - e6 0 1");
    // More than 16 pieces for 9 queens and a full set.
    illegal("kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1");
}

#[test]
fn fen_limits_that_are_accepted() {
    // One promoted queen for one missing pawn is fine.
    pos("4k3/8/8/8/8/QQ6/PPPPPPP1/4K3 w - - 0 1");
    // 16 pieces.
    pos("4k3/8/8/8/PPPPPPPP/NN6/RRBBQ3/4K3 w - - 0 1");
    // Double check is possible.
    pos("4k3/8/8/8/8/5n2/8/4K2r w - - 0 1");
    // Four fields.
    let p = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(p.to_fen(), START_FEN);
    // Extra whitespace is tolerated.
    assert_eq!(
        pos("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w KQkq -  0 1 ").to_fen(),
        START_FEN
    );
}

#[test]
fn fen_error_messages_are_readable() {
    let e = Position::from_fen("8/8/8/8/8/8/8/4K3 w - - 0 1", false).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("impossible position"), "{text}");
    assert!(text.contains("Black"), "{text}");
    let e = Position::from_fen("xyz", false).unwrap_err();
    assert!(e.to_string().contains("malformed FEN"), "{e}");
}

/// Deterministic xorshift for the garbage-FEN test.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn mutated_fens_never_panic_and_accepted_ones_round_trip() {
    let seeds = [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let alphabet: Vec<char> = "pnbrqkPNBRQK12345678/ wb-KQkqABCDEFGHabcdefgh09x"
        .chars()
        .collect();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut accepted = 0;
    for round in 0..20_000 {
        let mut chars: Vec<char> = seeds[round % seeds.len()].chars().collect();
        for _ in 0..1 + next(&mut rng) % 3 {
            let i = (next(&mut rng) % chars.len() as u64) as usize;
            match next(&mut rng) % 4 {
                0 => chars[i] = alphabet[(next(&mut rng) % alphabet.len() as u64) as usize],
                1 => {
                    chars.remove(i);
                }
                2 => chars.insert(
                    i,
                    alphabet[(next(&mut rng) % alphabet.len() as u64) as usize],
                ),
                _ => chars.truncate(i.max(1)),
            }
            if chars.is_empty() {
                chars.push('8');
            }
        }
        let fen: String = chars.into_iter().collect();
        for chess960 in [false, true] {
            let Ok(p) = Position::from_fen(&fen, chess960) else {
                continue;
            };
            accepted += 1;
            let again = Position::from_fen(&p.to_fen(), p.is_chess960())
                .unwrap_or_else(|e| panic!("{fen} -> {} rejected: {e}", p.to_fen()));
            assert_eq!(again, p, "{fen}");
            assert_eq!(p.key(), p.compute_key(), "{fen}");
            // Whatever was accepted must be playable.
            let n = perft(&p, 2);
            let by_moves: u64 = legal_moves(&p)
                .iter()
                .map(|&m| {
                    let mut c = p;
                    c.make_move(m);
                    count_legal(&c)
                })
                .sum();
            assert_eq!(n, by_moves, "{fen}");
        }
    }
    assert!(accepted > 500, "only {accepted} mutated FENs were accepted");
}

// ----- FEN round trip -----

const NORMAL_FENS: &[&str] = &[
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
    "rnbqkb1r/ppppp1pp/7n/4Pp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Kq d3 0 3",
    "8/8/8/4k3/8/8/8/4K3 b - - 57 120",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "r3k3/8/8/8/8/8/8/4K3 b q - 3 40",
];

const CHESS960_FENS: &[&str] = &[
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w KQkq - 1 9",
    "1r2k1rr/8/8/8/8/8/8/1R2K1RR w GQgq - 0 1",
    "4k3/8/8/8/8/8/8/4KR1R w F - 0 1",
    "1k6/8/8/8/8/8/8/RK5R w KQ - 0 1",
    "rk2r3/8/8/8/8/8/8/RK2R3 b KQkq - 0 1",
];

#[test]
fn fen_round_trip_of_normal_fens() {
    for &fen in NORMAL_FENS {
        let p = pos(fen);
        assert_eq!(p.to_fen(), fen);
        assert!(!p.is_chess960(), "{fen}");
        assert_eq!(pos(&p.to_fen()), p);
    }
    for &fen in CHESS960_FENS {
        let p = pos960(fen);
        assert!(p.is_chess960());
        assert_eq!(p.to_fen(), fen);
        assert_eq!(pos960(&p.to_fen()), p);
    }
}

#[test]
fn shredder_fen_reads_like_x_fen() {
    for (shredder, xfen) in [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
        ),
        (
            "1r2k1rr/8/8/8/8/8/8/1R2K1RR w GBgb - 0 1",
            "1r2k1rr/8/8/8/8/8/8/1R2K1RR w GQgq - 0 1",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        ),
    ] {
        let a = pos960(shredder);
        let b = pos960(xfen);
        assert_eq!(a, b, "{shredder}");
        assert_eq!(a.to_fen(), xfen);
    }
    // The inner-rook right differs from the outer one.
    let inner = pos960("r3k2r/8/8/8/8/8/8/1R2K1RR w G - 0 1");
    let outer = pos960("r3k2r/8/8/8/8/8/8/1R2K1RR w K - 0 1");
    assert_eq!(inner.castling_rook(0), Some(Square::G1));
    assert_eq!(outer.castling_rook(0), Some(Square::H1));
    assert_ne!(inner, outer);
    assert_eq!(castles(&outer), Vec::<String>::new()); // g1 rook in the way
    assert_eq!(castles(&inner), ["e1g1"]);
}

#[test]
fn positions_equal_however_a_right_was_lost() {
    // Moving the g1 rook drops the G right; the position must equal the one
    // read from a FEN without that right (no stale rook square left behind).
    let p = play(&pos960("2k5/8/8/8/8/8/8/R4KR1 w GA - 0 1"), "g1g2");
    let q = pos960("2k5/8/8/8/8/8/6R1/R4K2 b A - 1 1");
    assert_eq!(p, q);
    assert_eq!(p.key(), q.key());
    assert_eq!(pos960(&p.to_fen()), p);
    // The same through a capture of the castling rook.
    let p = play(&pos960("2k5/8/8/8/8/8/6r1/R4KR1 b GA - 0 1"), "g2g1");
    let q = pos960("2k5/8/8/8/8/8/8/R4Kr1 w A - 0 2");
    assert_eq!(p, q);
}

#[test]
fn chess960_rights_switch_the_mode_on() {
    // Rights a standard reader cannot express turn Chess960 on by themselves.
    let p = Position::from_fen("1k6/8/8/8/8/8/8/RK5R w HA - 0 1", false).unwrap();
    assert!(p.is_chess960());
    let p = Position::from_fen(START_FEN, false).unwrap();
    assert!(!p.is_chess960());
    let p = Position::from_fen(START_FEN, true).unwrap();
    assert!(p.is_chess960());
    // The start position is the same position in both modes apart from the flag.
    assert_eq!(
        perft(&Position::from_fen(START_FEN, true).unwrap(), 3),
        8902
    );
}

#[test]
fn fen_after_moves_normalises_the_ep_square() {
    // 1. e4 d5 2. e5 f5: f6 is capturable, written; 3. Nf3 drops it.
    let p = play_all(&Position::startpos(), &["e2e4", "d7d5", "e4e5", "f7f5"]);
    assert_eq!(
        p.to_fen(),
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    );
    let q = play(&p, "g1f3");
    assert_eq!(
        q.to_fen(),
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 3"
    );
}
