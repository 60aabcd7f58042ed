//! Seeded random games checked ply by ply against invariants and against a
//! deliberately naive reference move generator written here.
//!
//! The reference knows nothing of check masks, pins or bulk counting: it
//! lists pseudo-legal moves square by square from the attack tables, plays
//! each on a plain 64-square array and keeps it if the mover's king is not
//! attacked afterwards. It tracks castling rights and the en-passant chance
//! itself from the moves played, so a position that silently drops either
//! shows up as a difference.

use guoxiang::board::attacks::pawn_attacks;
use guoxiang::board::movegen::{count_legal, generate_moves, is_legal, legal_moves, GenKind};
use guoxiang::board::position::{castling_index, START_FEN};
use guoxiang::perft::parse_suite;
use guoxiang::{Bitboard, Color, Move, MoveKind, MoveList, Piece, PieceKind, Position, Square};

/// xorshift64: tiny, seeded, no crates.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

type Board = [Option<Piece>; 64];

fn mailbox(pos: &Position) -> Board {
    let mut b = [None; 64];
    for sq in Square::all() {
        b[sq.index()] = pos.piece_on(sq);
    }
    b
}

fn occupancy(b: &Board) -> Bitboard {
    Square::all()
        .filter(|s| b[s.index()].is_some())
        .fold(Bitboard::EMPTY, |acc, s| acc | Bitboard::from_square(s))
}

fn king_of(b: &Board, color: Color) -> Square {
    Square::all()
        .find(|s| b[s.index()] == Some(Piece::new(color, PieceKind::King)))
        .expect("every position has both kings")
}

/// Whether any piece of `by` attacks `sq`, found by asking every piece.
fn attacked(b: &Board, sq: Square, by: Color) -> bool {
    let occ = occupancy(b);
    Square::all().any(|s| match b[s.index()] {
        Some(p) if p.color() == by => Position::attacks_of(p.kind(), by, s, occ).contains(sq),
        _ => false,
    })
}

fn castle_targets(color: Color, king_side: bool) -> (Square, Square) {
    let rank = color.back_rank();
    let (k, r) = if king_side { (6, 5) } else { (2, 3) };
    (
        Square::from_file_rank(k, rank),
        Square::from_file_rank(r, rank),
    )
}

/// The board after `mv`, played by hand.
fn apply(b: &Board, mv: Move) -> Board {
    let mut n = *b;
    let (from, to) = (mv.from(), mv.to());
    let Some(piece) = b[from.index()] else {
        panic!("no piece on {from} for {mv:?}");
    };
    match mv.kind() {
        MoveKind::Normal => {
            n[from.index()] = None;
            n[to.index()] = Some(piece);
        }
        MoveKind::Promotion => {
            n[from.index()] = None;
            n[to.index()] = Some(Piece::new(piece.color(), mv.promotion_piece().unwrap()));
        }
        MoveKind::EnPassant => {
            n[from.index()] = None;
            n[to.index()] = Some(piece);
            n[Square::from_file_rank(to.file(), from.rank()).index()] = None;
        }
        MoveKind::Castling => {
            let rook = b[to.index()];
            let (king_to, rook_to) = castle_targets(piece.color(), to.file() > from.file());
            n[from.index()] = None;
            n[to.index()] = None;
            n[king_to.index()] = Some(piece);
            n[rook_to.index()] = rook;
        }
    }
    n
}

/// What the test itself remembers about the game: rights and the ep chance.
#[derive(Clone)]
struct Track {
    /// (colour, king side, rook square) of each castling right still held.
    rights: Vec<(Color, bool, Square)>,
    /// The square skipped by a double step on the previous ply.
    ep: Option<Square>,
}

impl Track {
    fn new(pos: &Position, fen: &str) -> Track {
        let mut rights = Vec::new();
        for color in Color::ALL {
            for king_side in [true, false] {
                if let Some(r) = pos.castling_rook(castling_index(color, king_side)) {
                    rights.push((color, king_side, r));
                }
            }
        }
        let ep = fen
            .split_whitespace()
            .nth(3)
            .filter(|f| *f != "-")
            .map(|f| f.parse().unwrap());
        Track { rights, ep }
    }

    fn after(&self, b: &Board, mv: Move) -> Track {
        let piece = b[mv.from().index()].unwrap();
        let (from, to) = (mv.from(), mv.to());
        let rights = self
            .rights
            .iter()
            .copied()
            .filter(|&(color, _, rook)| {
                !(piece.kind() == PieceKind::King && piece.color() == color)
                    && rook != from
                    && rook != to
            })
            .collect();
        let double = piece.kind() == PieceKind::Pawn && from.rank().abs_diff(to.rank()) == 2;
        let ep = double.then(|| Square::from_file_rank(from.file(), (from.rank() + to.rank()) / 2));
        Track { rights, ep }
    }
}

/// A pawn move, as the four promotions when it reaches the last rank.
fn add_pawn(list: &mut Vec<Move>, from: Square, to: Square, last_rank: u8) {
    if to.rank() == last_rank {
        for k in [
            PieceKind::Queen,
            PieceKind::Rook,
            PieceKind::Bishop,
            PieceKind::Knight,
        ] {
            list.push(Move::promotion(from, to, k));
        }
    } else {
        list.push(Move::normal(from, to));
    }
}

/// Every legal move by brute force.
fn reference_moves(pos: &Position, track: &Track) -> Vec<Move> {
    let b = mailbox(pos);
    let us = pos.side_to_move();
    let them = !us;
    let occ = occupancy(&b);
    let mut pseudo = Vec::new();
    let (up, start_rank, last_rank): (i8, u8, u8) = match us {
        Color::White => (8, 1, 7),
        Color::Black => (-8, 6, 0),
    };
    let ours = |s: Square| b[s.index()].is_some_and(|p| p.color() == us);
    let theirs = |s: Square| b[s.index()].is_some_and(|p| p.color() == them);
    for from in Square::all() {
        let Some(p) = b[from.index()].filter(|p| p.color() == us) else {
            continue;
        };
        if p.kind() != PieceKind::Pawn {
            for to in Position::attacks_of(p.kind(), us, from, occ) {
                if !ours(to) {
                    pseudo.push(Move::normal(from, to));
                }
            }
            continue;
        }
        let one = from.offset(up);
        if b[one.index()].is_none() {
            add_pawn(&mut pseudo, from, one, last_rank);
            let two = one.offset(up);
            if from.rank() == start_rank && b[two.index()].is_none() {
                add_pawn(&mut pseudo, from, two, last_rank);
            }
        }
        for to in pawn_attacks(us, from) {
            if theirs(to) {
                add_pawn(&mut pseudo, from, to, last_rank);
            } else if track.ep == Some(to) {
                pseudo.push(Move::en_passant(from, to));
            }
        }
    }
    let mut legal: Vec<Move> = pseudo
        .into_iter()
        .filter(|&m| {
            let n = apply(&b, m);
            !attacked(&n, king_of(&n, us), them)
        })
        .collect();

    // Castling by the letter of the rules: king and rook alone between their
    // start and end squares, king not in check, not crossing an attacked
    // square, not ending in check.
    let king = king_of(&b, us);
    for &(color, king_side, rook) in &track.rights {
        if color != us {
            continue;
        }
        assert_eq!(
            b[rook.index()],
            Some(Piece::new(us, PieceKind::Rook)),
            "castling right without its rook in {}",
            pos.to_fen()
        );
        let (king_to, rook_to) = castle_targets(us, king_side);
        let span = |a: Square, c: Square| {
            let (lo, hi) = (a.file().min(c.file()), a.file().max(c.file()));
            (lo..=hi).map(move |f| Square::from_file_rank(f, a.rank()))
        };
        let clear = span(king, king_to)
            .chain(span(rook, rook_to))
            .all(|s| s == king || s == rook || b[s.index()].is_none());
        let crossed_safe = span(king, king_to)
            .filter(|&s| s != king_to)
            .all(|s| !attacked(&b, s, them));
        let mv = Move::castling(king, rook);
        if clear && crossed_safe {
            let n = apply(&b, mv);
            if !attacked(&n, king_of(&n, us), them) {
                legal.push(mv);
            }
        }
    }
    legal
}

fn sorted_bits(moves: &[Move]) -> Vec<u16> {
    let mut v: Vec<u16> = moves.iter().map(|m| m.bits()).collect();
    v.sort_unstable();
    v
}

fn names(bits: &[u16], chess960: bool) -> Vec<String> {
    bits.iter()
        .map(|&b| Move::from_bits(b).unwrap().to_uci(chess960))
        .collect()
}

/// All the per-position checks; returns the engine's legal moves.
fn check_position(pos: &Position, track: &Track) -> MoveList {
    let fen = pos.to_fen();
    let b = mailbox(pos);
    let us = pos.side_to_move();

    assert_eq!(pos.key(), pos.compute_key(), "incremental key in {fen}");
    assert_eq!(
        pos.in_check(),
        attacked(&b, king_of(&b, us), !us),
        "check flag in {fen}"
    );

    // Castling rights as the test remembers them.
    for color in Color::ALL {
        for king_side in [true, false] {
            let expected = track
                .rights
                .iter()
                .find(|r| r.0 == color && r.1 == king_side)
                .map(|r| r.2);
            assert_eq!(
                pos.castling_rook(castling_index(color, king_side)),
                expected,
                "castling rights in {fen}"
            );
        }
    }

    // FEN round trip.
    let again = Position::from_fen(&fen, pos.is_chess960())
        .unwrap_or_else(|e| panic!("own FEN {fen} rejected: {e}"));
    assert_eq!(&again, pos, "FEN round trip of {fen}");
    assert_eq!(again.key(), pos.key());

    // Legal moves against the reference, duplicates included.
    let moves = legal_moves(pos);
    let reference = reference_moves(pos, track);
    let (got, want) = (sorted_bits(&moves), sorted_bits(&reference));
    if got != want {
        let extra: Vec<u16> = got.iter().copied().filter(|m| !want.contains(m)).collect();
        let missing: Vec<u16> = want.iter().copied().filter(|m| !got.contains(m)).collect();
        panic!(
            "{fen}: generator has extra {:?}, misses {:?} (lengths {} vs {})",
            names(&extra, pos.is_chess960()),
            names(&missing, pos.is_chess960()),
            got.len(),
            want.len()
        );
    }
    assert_eq!(count_legal(pos), moves.len() as u64, "count_legal in {fen}");

    // The en-passant square is kept exactly when a capture there is legal.
    let ep_legal = reference.iter().any(|m| m.kind() == MoveKind::EnPassant);
    assert_eq!(
        pos.en_passant(),
        if ep_legal { track.ep } else { None },
        "ep square in {fen}"
    );

    // Noisy + quiet = all, split by capture/promotion.
    let mut noisy = MoveList::new();
    let mut quiet = MoveList::new();
    generate_moves(pos, GenKind::Noisy, &mut noisy);
    generate_moves(pos, GenKind::Quiet, &mut quiet);
    assert!(noisy
        .iter()
        .all(|&m| pos.is_capture(m) || m.kind() == MoveKind::Promotion));
    assert!(quiet
        .iter()
        .all(|&m| !pos.is_capture(m) && m.kind() != MoveKind::Promotion));
    let mut both: Vec<Move> = noisy.to_vec();
    both.extend(quiet.iter().copied());
    assert_eq!(sorted_bits(&both), got, "noisy + quiet in {fen}");

    // is_legal agrees on a few illegal candidates too.
    for m in moves.iter().take(4) {
        assert!(is_legal(pos, *m));
        let flipped = Move::normal(m.to(), m.from());
        assert_eq!(is_legal(pos, flipped), moves.contains(&flipped));
    }

    // Every child: copy-make leaves the parent alone and gets the rules right.
    let before = *pos;
    for &mv in &moves {
        let mut child = *pos;
        child.make_move(mv);
        assert_eq!(*pos, before);
        let expected_board = apply(&b, mv);
        assert!(
            Square::all().all(|s| child.piece_on(s) == expected_board[s.index()]),
            "{fen}: board after {}",
            mv.to_uci(pos.is_chess960())
        );
        assert_eq!(child.key(), child.compute_key(), "{fen}: key after {mv:?}");
        assert_eq!(child.side_to_move(), !us);
        let resets =
            pos.is_capture(mv) || b[mv.from().index()].is_some_and(|p| p.kind() == PieceKind::Pawn);
        let clock = if resets { 0 } else { pos.halfmove_clock() + 1 };
        assert_eq!(child.halfmove_clock(), clock, "{fen}: clock after {mv:?}");
        let number = pos.fullmove_number() + u16::from(us == Color::Black);
        assert_eq!(child.fullmove_number(), number);
        assert_eq!(child.is_chess960(), pos.is_chess960());
    }

    if !pos.in_check() {
        let mut null = *pos;
        null.make_null_move();
        assert_eq!(null.key(), null.compute_key(), "{fen}: key after null move");
        assert_eq!(null.side_to_move(), !us);
        assert_eq!(null.en_passant(), None);
    }
    moves
}

/// Plays one random game of at most `plies` plies, checking every position.
fn random_game(fen: &str, chess960: bool, plies: usize, rng: &mut Rng) -> usize {
    let mut pos = Position::from_fen(fen, chess960).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut track = Track::new(&pos, fen);
    for ply in 0..plies {
        let moves = check_position(&pos, &track);
        if moves.is_empty() {
            return ply;
        }
        let mv = moves[rng.below(moves.len())];
        track = track.after(&mailbox(&pos), mv);
        pos.make_move(mv);
    }
    check_position(&pos, &track);
    plies
}

/// Fewer games in debug builds, where everything is much slower.
fn scaled(n: usize) -> usize {
    if cfg!(debug_assertions) {
        n.div_ceil(20)
    } else {
        n
    }
}

const MAX_PLIES: usize = 200;

#[test]
fn random_games_from_the_start_position() {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut plies = 0;
    for _ in 0..scaled(250) {
        plies += random_game(START_FEN, false, MAX_PLIES, &mut rng);
    }
    assert!(
        plies > scaled(250) * 20,
        "games ended too soon: {plies} plies"
    );
}

#[test]
fn random_games_from_the_standard_suite() {
    let entries = parse_suite(include_str!("../perft/standard.epd")).unwrap();
    assert_eq!(entries.len(), 7);
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    for entry in &entries {
        for _ in 0..scaled(30) {
            random_game(&entry.fen, false, MAX_PLIES, &mut rng);
        }
    }
}

/// Back rank of Chess960 start position number `n` (Scharnagl numbering).
fn chess960_back_rank(mut n: usize) -> String {
    let mut rank = [' '; 8];
    rank[2 * (n % 4) + 1] = 'b';
    n /= 4;
    rank[2 * (n % 4)] = 'b';
    n /= 4;
    let place = |rank: &mut [char; 8], nth: usize, c: char| {
        let f = (0..8).filter(|&f| rank[f] == ' ').nth(nth).unwrap();
        rank[f] = c;
    };
    place(&mut rank, n % 6, 'q');
    n /= 6;
    let (a, b) = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ][n];
    place(&mut rank, b, 'n');
    place(&mut rank, a, 'n');
    for c in ['r', 'k', 'r'] {
        place(&mut rank, 0, c);
    }
    rank.iter().collect()
}

fn chess960_fen(n: usize) -> String {
    let black = chess960_back_rank(n);
    format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1",
        black.to_uppercase()
    )
}

#[test]
fn chess960_numbering_matches_known_positions() {
    assert_eq!(chess960_back_rank(518), "rnbqkbnr");
    assert_eq!(chess960_back_rank(0), "bbqnnrkr");
    assert_eq!(chess960_back_rank(959), "rkrnnqbb");
    let all: std::collections::HashSet<String> = (0..960).map(chess960_back_rank).collect();
    assert_eq!(all.len(), 960);
}

#[test]
fn chess960_start_positions_have_twenty_moves_and_parse() {
    for n in 0..960 {
        let fen = chess960_fen(n);
        let p = Position::from_fen(&fen, true).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(p.castling_rights(), 0b1111, "{fen}");
        assert_eq!(p.to_fen(), fen);
        let track = Track::new(&p, &fen);
        let moves = check_position(&p, &track);
        assert!(!moves.is_empty());
    }
}

#[test]
fn random_games_from_chess960_starts() {
    let mut rng = Rng(0x5EED_0960_0960_5EED);
    for _ in 0..scaled(120) {
        let n = rng.below(960);
        random_game(&chess960_fen(n), true, MAX_PLIES, &mut rng);
    }
}

#[test]
fn random_games_from_the_random_suites() {
    let mut rng = Rng(0x0BAD_5EED_1234_4321);
    let standard = parse_suite(include_str!("../perft/random.epd")).unwrap();
    let xfen = parse_suite(include_str!("../perft/random-960-xfen.epd")).unwrap();
    let step = if cfg!(debug_assertions) { 40 } else { 2 };
    for entry in standard.iter().step_by(step) {
        // Shredder-FEN castling letters mean Chess960.
        let pos = entry.position(false).unwrap();
        random_game(&entry.fen, pos.is_chess960(), MAX_PLIES / 2, &mut rng);
    }
    for entry in xfen.iter().step_by(step) {
        random_game(&entry.fen, true, MAX_PLIES / 2, &mut rng);
    }
}

/// `is_legal` answers for moves that come from nowhere (a hash collision, a
/// killer from a sibling): every one of the 65,535 possible encodings must get
/// the answer the move list gives, along random games from every suite.
#[test]
fn is_legal_agrees_with_the_move_list_on_every_encoding() {
    let mut rng = Rng(0x1E6A_1C0D_E5EE_D001);
    let mut fens: Vec<(String, bool)> = Vec::new();
    for (suite, chess960) in [
        (include_str!("../perft/standard.epd"), false),
        (include_str!("../perft/random-960-xfen.epd"), true),
    ] {
        for entry in parse_suite(suite).unwrap().iter().take(8) {
            fens.push((entry.fen.clone(), chess960));
        }
    }
    let step = if cfg!(debug_assertions) { 12 } else { 3 };
    let mut checked = 0;
    for (fen, chess960) in &fens {
        let mut pos = Position::from_fen(fen, *chess960).unwrap();
        for ply in 0..36 {
            let moves = legal_moves(&pos);
            if ply % step == 0 {
                for bits in 1..=u16::MAX {
                    let Some(mv) = Move::from_bits(bits) else {
                        continue;
                    };
                    assert_eq!(
                        is_legal(&pos, mv),
                        moves.contains(&mv),
                        "{} in {}",
                        mv.to_uci(*chess960),
                        pos.to_fen()
                    );
                }
                checked += 1;
            }
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves[rng.below(moves.len())]);
        }
    }
    assert!(
        checked >= fens.len() * 2,
        "only {checked} positions checked"
    );
}
