//! Hand-written tapered evaluation: the terms.
//!
//! Every term has a middle-game and an end-game value, held together in an
//! [`S`] pair; the two halves are blended by the game phase (non-pawn
//! material: N = B = 1, R = 2, Q = 4, at most 24). The end-game half is first
//! multiplied by a scale factor that recognises drawish endings
//! (opposite-coloured bishops, pawnless small material edges).
//!
//! The weights are the `const`s of `weights.rs`, a data module the tuner
//! rewrites whole; the tuning support (parameter vector, traces) is
//! `trace.rs`. A term takes each weight through `weight!` or `weight_eg!`,
//! which hands it the value and reports the same weight to the tracer, so
//! every use is traced (the test `trace_reproduces_evaluate` checks it).
//! A new weight goes into `weights.rs` and the `tunables!` list of
//! `trace.rs`.
//!
//! [`evaluate_hce`] computes every attack map once per call and allocates
//! nothing but each thread's pawn cache, on its first call.
//! [`evaluate_verbose`] prints the same terms one by one; `trace()` records
//! which weights a position uses, for the tuner (the `tune` tool).

use super::trace::{trace_psq, weight, weight_eg, NoTrace, Tracer};
use super::weights::*;
use crate::board::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use crate::board::bitboard::Bitboard;
use crate::board::position::Position;
use crate::board::types::{Color, PieceKind, Square};
use crate::eval::S;
use std::cell::RefCell;
use std::fmt::Write as _;

// ===========================================================================
// Derived tables (built at compile time)
// ===========================================================================

const MATERIAL: [S; 6] = [
    PAWN_VALUE,
    KNIGHT_VALUE,
    BISHOP_VALUE,
    ROOK_VALUE,
    QUEEN_VALUE,
    S(0, 0),
];

/// Material plus piece-square value, indexed `[kind][square as seen by its owner]` (a1 = 0).
const PSQ: [[S; 64]; 6] = build_psq();

const fn build_psq() -> [[S; 64]; 6] {
    let mg: [&[i32; 64]; 6] = [
        &PAWN_PST_MG,
        &KNIGHT_PST_MG,
        &BISHOP_PST_MG,
        &ROOK_PST_MG,
        &QUEEN_PST_MG,
        &KING_PST_MG,
    ];
    let eg: [&[i32; 64]; 6] = [
        &PAWN_PST_EG,
        &KNIGHT_PST_EG,
        &BISHOP_PST_EG,
        &ROOK_PST_EG,
        &QUEEN_PST_EG,
        &KING_PST_EG,
    ];
    let mut t = [[S(0, 0); 64]; 6];
    let mut k = 0;
    while k < 6 {
        let mut sq = 0;
        while sq < 64 {
            // Tables are written with a8 first: flip the rank.
            t[k][sq] = S(
                MATERIAL[k].0 + mg[k][sq ^ 56],
                MATERIAL[k].1 + eg[k][sq ^ 56],
            );
            sq += 1;
        }
        k += 1;
    }
    t
}

/// `[color][rank]`: every square on ranks strictly ahead of `rank` for `color`.
const FORWARD_RANKS: [[u64; 8]; 2] = build_forward_ranks();

const fn build_forward_ranks() -> [[u64; 8]; 2] {
    let mut t = [[0u64; 8]; 2];
    let mut r = 0;
    while r < 8 {
        t[0][r] = if r == 7 { 0 } else { !0u64 << (8 * (r + 1)) };
        t[1][r] = if r == 0 { 0 } else { !0u64 >> (8 * (8 - r)) };
        r += 1;
    }
    t
}

/// The files next to `file` (not the file itself).
const ADJACENT_FILES: [u64; 8] = build_adjacent_files();

const fn build_adjacent_files() -> [u64; 8] {
    let mut t = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        let mut m = 0u64;
        if f > 0 {
            m |= Bitboard::FILE_A.0 << (f - 1);
        }
        if f < 7 {
            m |= Bitboard::FILE_A.0 << (f + 1);
        }
        t[f] = m;
        f += 1;
    }
    t
}

// ===========================================================================
// Helpers
// ===========================================================================

#[inline(always)]
fn forward_ranks(color: Color, sq: Square) -> Bitboard {
    Bitboard(FORWARD_RANKS[color.index()][sq.rank() as usize])
}

#[inline(always)]
fn adjacent_files(file: u8) -> Bitboard {
    Bitboard(ADJACENT_FILES[file as usize])
}

#[inline(always)]
fn pawn_attack_span(color: Color, pawns: Bitboard) -> Bitboard {
    let west = pawns.0 & !Bitboard::FILE_A.0;
    let east = pawns.0 & !Bitboard::FILE_H.0;
    match color {
        Color::White => Bitboard((west << 7) | (east << 9)),
        Color::Black => Bitboard((west >> 9) | (east >> 7)),
    }
}

#[inline(always)]
fn push(color: Color, b: Bitboard) -> Bitboard {
    match color {
        Color::White => b.north(),
        Color::Black => b.south(),
    }
}

#[inline(always)]
fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

#[inline(always)]
fn manhattan(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs() + (a.rank() as i32 - b.rank() as i32).abs()
}

/// Manhattan distance from the four centre squares (0..=6).
#[inline(always)]
fn center_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    (3 - f).max(f - 4) + (3 - r).max(r - 4)
}

/// The square of `b` nearest to `color`'s eighth rank (b non-empty).
#[inline(always)]
fn frontmost(color: Color, b: Bitboard) -> Square {
    match color {
        Color::White => Square::new(63 - b.0.leading_zeros() as u8),
        Color::Black => b.lsb(),
    }
}

/// The square of `b` nearest to `color`'s first rank (b non-empty).
#[inline(always)]
fn rearmost(color: Color, b: Bitboard) -> Square {
    frontmost(!color, b)
}

#[inline(always)]
fn count(b: Bitboard) -> i32 {
    b.count() as i32
}

// ===========================================================================
// Evaluation
// ===========================================================================

/// The per-side value of each term, from that side's own point of view.
#[derive(Clone, Copy, Debug, Default)]
struct Terms {
    material_psq: [S; 2],
    mobility: [S; 2],
    pawns: [S; 2],
    passed: [S; 2],
    pieces: [S; 2],
    threats: [S; 2],
    king_safety: [S; 2],
    mopup: [S; 2],
    tempo: [S; 2],
}

impl Terms {
    #[inline(always)]
    fn total(&self) -> S {
        let all = [
            self.material_psq,
            self.mobility,
            self.pawns,
            self.passed,
            self.pieces,
            self.threats,
            self.king_safety,
            self.mopup,
            self.tempo,
        ];
        let mut s = S::ZERO;
        for t in all {
            s += t[0] - t[1];
        }
        s
    }
}

/// The result of one evaluation, White's point of view unless stated.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Breakdown {
    terms: Terms,
    /// Sum of all terms, White minus Black.
    total: S,
    phase: i32,
    scale: i32,
    /// Blended score, White's point of view.
    white: i32,
}

struct Ctx {
    occ: Bitboard,
    pawns: [Bitboard; 2],
    pawn_att: [Bitboard; 2],
    king: [Square; 2],
    king_zone: [Bitboard; 2],
    /// Squares attacked by `[color][kind]`.
    att: [[Bitboard; 6]; 2],
    /// Squares attacked by any piece of a colour.
    all_att: [Bitboard; 2],
    /// Attack units and attacker counts against each colour's king.
    ks_units: [i32; 2],
    ks_attackers: [i32; 2],
}

/// The hand-written evaluation, in centipawns from the side to move's
/// point of view; exactly 0 for dead positions.
pub fn evaluate_hce(pos: &Position) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports POPCNT (checked just above), the only
        // requirement for calling a function compiled with that feature.
        return unsafe { evaluate_popcnt(pos) };
    }
    evaluate_body(pos)
}

/// [`evaluate_hce`] compiled with the POPCNT instruction: mobility and king
/// attacks count bits all the time, and the portable bit count is several
/// instructions long (see README, search speed).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn evaluate_popcnt(pos: &Position) -> i32 {
    evaluate_body(pos)
}

#[inline(always)]
fn evaluate_body(pos: &Position) -> i32 {
    if pos.is_dead_position() {
        return 0;
    }
    let b = breakdown(pos);
    match pos.side_to_move() {
        Color::White => b.white,
        Color::Black => -b.white,
    }
}

/// Game phase: 24 with all pieces on the board, 0 with only kings and pawns.
#[inline]
pub fn phase(pos: &Position) -> i32 {
    let mut p = 0;
    for kind in [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ] {
        p += PHASE_WEIGHT[kind.index()] * count(pos.pieces(kind));
    }
    p.min(PHASE_MAX)
}

#[inline(always)]
fn breakdown(pos: &Position) -> Breakdown {
    breakdown_with(pos, &mut NoTrace)
}

/// The evaluation proper; `tr` sees every tunable weight it uses (see
/// [`Tracer`]). With [`NoTrace`] this compiles to exactly the plain evaluation.
#[inline(always)]
pub(super) fn breakdown_with<T: Tracer>(pos: &Position, tr: &mut T) -> Breakdown {
    let occ = pos.occupied();
    let pawns = [
        pos.pieces_of(Color::White, PieceKind::Pawn),
        pos.pieces_of(Color::Black, PieceKind::Pawn),
    ];
    let pawn_att = [
        pawn_attack_span(Color::White, pawns[0]),
        pawn_attack_span(Color::Black, pawns[1]),
    ];
    let king = [pos.king_square(Color::White), pos.king_square(Color::Black)];
    let mut king_zone = [Bitboard::EMPTY; 2];
    for c in Color::ALL {
        let ring = king_attacks(king[c.index()]) | Bitboard::from_square(king[c.index()]);
        king_zone[c.index()] = ring | push(c, ring);
    }
    let mut ctx = Ctx {
        occ,
        pawns,
        pawn_att,
        king,
        king_zone,
        att: [[Bitboard::EMPTY; 6]; 2],
        all_att: [Bitboard::EMPTY; 2],
        ks_units: [0; 2],
        ks_attackers: [0; 2],
    };
    let mut t = Terms::default();

    for c in Color::ALL {
        pieces(pos, &mut ctx, &mut t, c, tr);
    }
    for c in Color::ALL {
        let i = c.index();
        ctx.att[i][PieceKind::Pawn.index()] = ctx.pawn_att[i];
        ctx.att[i][PieceKind::King.index()] = king_attacks(ctx.king[i]);
        let mut all = Bitboard::EMPTY;
        for a in ctx.att[i] {
            all |= a;
        }
        ctx.all_att[i] = all;
    }
    // The tracer must see every pawn weight, so it never takes the cache.
    let pawn_terms = if T::ON {
        pawn_entry(&ctx, tr)
    } else {
        cached_pawn_entry(&ctx)
    };
    for c in Color::ALL {
        pawn_structure(&ctx, &pawn_terms, &mut t, c, tr);
        king_safety(pos, &ctx, &mut t, c, tr);
        threats(pos, &ctx, &mut t, c, tr);
    }
    mopup(pos, &ctx, &mut t, tr);
    let stm = pos.side_to_move();
    t.tempo[stm.index()] = weight!(tr, stm, TEMPO);

    let total = t.total();
    let phase = phase(pos);
    let scale = scale_factor(pos, total.eg());
    let eg = total.eg() * scale / SCALE_NORMAL;
    let white = (total.mg() * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
    Breakdown {
        terms: t,
        total,
        phase,
        scale,
        white,
    }
}

/// Material plus piece-square value of `us`'s `kind` on `sq`, reported to `tr`.
#[inline(always)]
fn psq_of<T: Tracer>(tr: &mut T, kind: PieceKind, sq: Square, us: Color) -> S {
    if T::ON {
        trace_psq(tr, kind, sq, us);
    }
    PSQ[kind.index()][sq.relative(us).index()]
}

/// Material, piece-square, mobility, king attacks and the piece terms.
#[inline(always)]
fn pieces<T: Tracer>(pos: &Position, ctx: &mut Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let own = pos.colored(us);
    let occ = ctx.occ;
    let mob_area = !own & !ctx.pawn_att[th];
    let zone = ctx.king_zone[th];
    let our_pawns = ctx.pawns[u];
    let their_pawns = ctx.pawns[th];
    let queens = pos.pieces_of(us, PieceKind::Queen);
    let rooks = pos.pieces_of(us, PieceKind::Rook);

    let mut psq = S::ZERO;
    let mut mob = S::ZERO;
    let mut extra = S::ZERO;
    let mut units = 0;
    let mut attackers = 0;

    // Pawns and king: only material/PSQ here, the rest comes later.
    for sq in our_pawns {
        psq += psq_of(tr, PieceKind::Pawn, sq, us);
    }
    psq += psq_of(tr, PieceKind::King, ctx.king[u], us);

    let outpost_ok = |sq: Square| -> bool {
        let rr = sq.relative_rank(us);
        (3..=5).contains(&rr)
            && ctx.pawn_att[u].contains(sq)
            && (their_pawns & adjacent_files(sq.file()) & forward_ranks(us, sq)).is_empty()
    };

    let mut att_n = Bitboard::EMPTY;
    for sq in pos.pieces_of(us, PieceKind::Knight) {
        psq += psq_of(tr, PieceKind::Knight, sq, us);
        let a = knight_attacks(sq);
        att_n |= a;
        mob += weight!(tr, us, KNIGHT_MOBILITY[(a & mob_area).count() as usize]);
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Knight.index()] * count(z);
            attackers += 1;
        }
        if outpost_ok(sq) {
            extra += weight!(tr, us, KNIGHT_OUTPOST);
        }
    }

    let bishops = pos.pieces_of(us, PieceKind::Bishop);
    let mut att_b = Bitboard::EMPTY;
    for sq in bishops {
        psq += psq_of(tr, PieceKind::Bishop, sq, us);
        let a = bishop_attacks(sq, occ ^ queens);
        att_b |= a;
        mob += weight!(tr, us, BISHOP_MOBILITY[(a & mob_area).count() as usize]);
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Bishop.index()] * count(z);
            attackers += 1;
        }
        if outpost_ok(sq) {
            extra += weight!(tr, us, BISHOP_OUTPOST);
        }
    }
    if bishops.more_than_one() {
        extra += weight!(tr, us, BISHOP_PAIR);
    }

    let mut att_r = Bitboard::EMPTY;
    for sq in rooks {
        psq += psq_of(tr, PieceKind::Rook, sq, us);
        let a = rook_attacks(sq, occ ^ queens ^ rooks);
        att_r |= a;
        mob += weight!(tr, us, ROOK_MOBILITY[(a & mob_area).count() as usize]);
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Rook.index()] * count(z);
            attackers += 1;
        }
        let file = Bitboard::file(sq.file());
        if (our_pawns & file).is_empty() {
            if (their_pawns & file).is_empty() {
                extra += weight!(tr, us, ROOK_OPEN_FILE);
            } else {
                extra += weight!(tr, us, ROOK_SEMI_OPEN_FILE);
            }
        }
        if sq.relative_rank(us) == 6
            && ((their_pawns & Bitboard::rank(sq.rank())).nonempty()
                || ctx.king[th].relative_rank(us) == 7)
        {
            extra += weight!(tr, us, ROOK_ON_SEVENTH);
        }
    }

    let mut att_q = Bitboard::EMPTY;
    for sq in queens {
        psq += psq_of(tr, PieceKind::Queen, sq, us);
        let a = bishop_attacks(sq, occ) | rook_attacks(sq, occ);
        att_q |= a;
        mob += weight!(tr, us, QUEEN_MOBILITY[(a & mob_area).count() as usize]);
        let z = a & zone;
        if z.nonempty() {
            units += KING_ATTACK_UNITS[PieceKind::Queen.index()] * count(z);
            attackers += 1;
        }
    }

    ctx.att[u][PieceKind::Knight.index()] = att_n;
    ctx.att[u][PieceKind::Bishop.index()] = att_b;
    ctx.att[u][PieceKind::Rook.index()] = att_r;
    ctx.att[u][PieceKind::Queen.index()] = att_q;
    ctx.ks_units[th] += units;
    ctx.ks_attackers[th] += attackers;
    t.material_psq[u] = psq;
    t.mobility[u] = mob;
    t.pieces[u] = extra;
}

/// What the pawns alone decide: the structure terms and which pawns are
/// passed. Kept per thread in [`PAWN_CACHE`], since the pawns change on few
/// moves and a search meets the same structures over and over.
#[derive(Clone, Copy, Debug, Default)]
struct PawnEntry {
    /// The cache key: both sides' pawns exactly, so a hit is never wrong.
    /// The empty default is the true entry of a pawnless board.
    pawns: [Bitboard; 2],
    structure: [S; 2],
    /// Each side's passed pawns: no enemy pawn ahead on its own or a
    /// neighbouring file, and no own pawn in front of it.
    passed: [Bitboard; 2],
}

/// Number of [`PawnEntry`] slots per thread (48 bytes each).
const PAWN_CACHE_SLOTS: usize = 1 << 12;

thread_local! {
    /// Per-thread pawn cache: search threads, datagen and tuner workers each
    /// have their own, so no locking.
    static PAWN_CACHE: RefCell<Box<[PawnEntry]>> =
        RefCell::new(vec![PawnEntry::default(); PAWN_CACHE_SLOTS].into_boxed_slice());
}

/// The pawn entry of `ctx`'s pawns, from this thread's cache or computed and stored.
fn cached_pawn_entry(ctx: &Ctx) -> PawnEntry {
    let slot = pawn_cache_slot(ctx.pawns);
    PAWN_CACHE.with(|cache| {
        let entry = &mut cache.borrow_mut()[slot];
        if entry.pawns != ctx.pawns {
            *entry = pawn_entry(ctx, &mut NoTrace);
        }
        *entry
    })
}

/// The cache slot of a pawn configuration (White's and Black's pawns).
fn pawn_cache_slot([white, black]: [Bitboard; 2]) -> usize {
    let mixed = (white.0 ^ black.0.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - PAWN_CACHE_SLOTS.trailing_zeros())) as usize
}

/// Computes the pawn entry: isolated, backward, doubled and connected pawns
/// of both sides, and the passed pawns.
#[inline(always)]
fn pawn_entry<T: Tracer>(ctx: &Ctx, tr: &mut T) -> PawnEntry {
    let mut entry = PawnEntry {
        pawns: ctx.pawns,
        ..PawnEntry::default()
    };
    for us in Color::ALL {
        let them = !us;
        let u = us.index();
        let ours = ctx.pawns[u];
        let theirs = ctx.pawns[them.index()];
        let mut structure = S::ZERO;

        for sq in ours {
            let rr = sq.relative_rank(us) as usize;
            let file = Bitboard::file(sq.file());
            let adj = adjacent_files(sq.file());
            let ahead = forward_ranks(us, sq);
            let front = ahead & file;
            let stop = push(us, Bitboard::from_square(sq));

            let supporters = pawn_attacks(them, sq) & ours;
            let phalanx = ours & adj & Bitboard::rank(sq.rank());
            let doubled = (front & ours).nonempty();
            let isolated = (ours & adj).is_empty();

            if isolated {
                structure += weight!(tr, us, ISOLATED_PAWN);
            } else if (ours & adj & !ahead).is_empty()
                && (stop & ctx.pawn_att[them.index()]).nonempty()
            {
                // No own pawn beside or behind on a neighbouring file can ever
                // defend it, and its stop square is held by an enemy pawn.
                structure += weight!(tr, us, BACKWARD_PAWN);
            }
            if doubled {
                structure += weight!(tr, us, DOUBLED_PAWN);
            }
            if supporters.nonempty() || phalanx.nonempty() {
                structure += weight!(tr, us, CONNECTED_PAWN[rr])
                    + weight!(tr, us, SUPPORTED_PAWN, count(supporters));
            }
            if doubled {
                // Only the front pawn of a file can be passed or a candidate.
            } else if (theirs & ahead & (file | adj)).is_empty() {
                entry.passed[u] |= Bitboard::from_square(sq);
            } else if (theirs & front).is_empty() {
                let helpers = ours & adj & !ahead;
                let sentries = theirs & adj & ahead;
                if count(helpers) >= count(sentries) {
                    structure += weight!(tr, us, CANDIDATE_PASSED[rr]);
                }
            }
        }
        entry.structure[u] = structure;
    }
    entry
}

/// Pawn structure and passed pawns of `us`: the cached pawn-only part, then
/// what depends on the pieces (king distances, a free and safe path).
#[inline(always)]
fn pawn_structure<T: Tracer>(
    ctx: &Ctx,
    pawn_entry: &PawnEntry,
    t: &mut Terms,
    us: Color,
    tr: &mut T,
) {
    let u = us.index();
    let th = (!us).index();
    let mut passed = S::ZERO;
    for sq in pawn_entry.passed[u] {
        let rr = sq.relative_rank(us) as usize;
        let front = forward_ranks(us, sq) & Bitboard::file(sq.file());
        let stop = push(us, Bitboard::from_square(sq));
        passed += weight!(tr, us, PASSED_PAWN[rr]);
        let w = rr as i32 - 2;
        if w > 0 {
            let block = stop.lsb();
            let d_them = distance(ctx.king[th], block);
            let d_us = distance(ctx.king[u], block);
            passed += S(
                0,
                weight_eg!(tr, us, PASSED_KING_THEIRS, w * d_them)
                    + weight_eg!(tr, us, PASSED_KING_OURS, -w * d_us),
            );
        }
        if (front & ctx.occ).is_empty() {
            passed += weight!(tr, us, PASSED_FREE_PATH[rr]);
            if (front & ctx.all_att[th]).is_empty() {
                passed += weight!(tr, us, PASSED_SAFE_PATH[rr]);
            }
        }
    }
    t.pawns[u] = pawn_entry.structure[u];
    t.passed[u] = passed;
}

/// Safety of `us`'s king: pawn shield, open files, enemy attacks.
#[inline(always)]
fn king_safety<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let ksq = ctx.king[u];
    let ours = ctx.pawns[u];
    let theirs = ctx.pawns[th];
    let ahead = forward_ranks(us, ksq);
    let krr = ksq.relative_rank(us) as i32;
    let mut s = S::ZERO;

    let kf = ksq.file();
    let lo = kf.saturating_sub(1);
    let hi = (kf + 1).min(7);
    for f in lo..=hi {
        let file = Bitboard::file(f);
        let shield = ours & file & ahead;
        if shield.is_empty() {
            s += weight!(tr, us, SHIELD_PAWN_MISSING);
        } else {
            match rearmost(us, shield).relative_rank(us) as i32 - krr {
                1 => s += weight!(tr, us, SHIELD_PAWN_NEAR),
                2 => s += weight!(tr, us, SHIELD_PAWN_FAR),
                _ => s += weight!(tr, us, SHIELD_PAWN_DISTANT),
            }
        }
        let storm = theirs & file & ahead;
        if storm.nonempty() {
            let storm_sq = rearmost(us, storm);
            let rr = storm_sq.relative_rank(us) as usize;
            let blocked = (push(them, Bitboard::from_square(storm_sq)) & ours).nonempty();
            if blocked {
                s += weight!(tr, us, BLOCKED_STORM[rr]);
            } else {
                s += weight!(tr, us, PAWN_STORM[rr]);
            }
        }
        if (ours & file).is_empty() {
            if (theirs & file).is_empty() {
                s += weight!(tr, us, KING_OPEN_FILE);
            } else {
                s += weight!(tr, us, KING_SEMI_OPEN_FILE);
            }
        }
    }

    // Enemy attack units: king-zone hits (collected with mobility) plus safe checks.
    let mut units = ctx.ks_units[u];
    let safe = !ctx.all_att[u] & !pos.colored(them);
    let b_checks = bishop_attacks(ksq, ctx.occ) & safe;
    let r_checks = rook_attacks(ksq, ctx.occ) & safe;
    let ta = &ctx.att[th];
    if (knight_attacks(ksq) & safe & ta[PieceKind::Knight.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Knight.index()];
    }
    if (b_checks & ta[PieceKind::Bishop.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Bishop.index()];
    }
    if (r_checks & ta[PieceKind::Rook.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Rook.index()];
    }
    if ((b_checks | r_checks) & ta[PieceKind::Queen.index()]).nonempty() {
        units += SAFE_CHECK_UNITS[PieceKind::Queen.index()];
    }
    if pos.pieces_of(them, PieceKind::Queen).is_empty() {
        units /= KING_DANGER_NO_QUEEN_DIV;
    }
    if ctx.ks_attackers[u] >= 2 {
        // The middle-game half is not linear in its weights: it is traced as
        // the attack units, and the tuner applies the formula itself.
        let mg = (units * units * KING_DANGER_QUADRATIC / 16).min(KING_DANGER_MAX);
        if T::ON {
            tr.king_danger(us, units);
        }
        s += S(-mg, weight_eg!(tr, us, KING_DANGER_EG, -units));
    }
    t.king_safety[u] = s;
}

/// Bonuses for `us` attacking enemy pieces.
#[inline(always)]
fn threats<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, us: Color, tr: &mut T) {
    let them = !us;
    let u = us.index();
    let th = them.index();
    let mut s = S::ZERO;
    let their_rooks = pos.pieces_of(them, PieceKind::Rook);
    let their_queens = pos.pieces_of(them, PieceKind::Queen);
    let their_pieces = pos.colored(them) & !ctx.pawns[th] & !Bitboard::from_square(ctx.king[th]);

    let by_pawn = ctx.pawn_att[u] & their_pieces;
    if by_pawn.nonempty() {
        for kind in [
            PieceKind::Knight,
            PieceKind::Bishop,
            PieceKind::Rook,
            PieceKind::Queen,
        ] {
            let n = count(by_pawn & pos.pieces(kind));
            s += weight!(tr, us, THREAT_BY_PAWN[kind.index()], n);
        }
    }
    let minor = ctx.att[u][PieceKind::Knight.index()] | ctx.att[u][PieceKind::Bishop.index()];
    let rook_att = ctx.att[u][PieceKind::Rook.index()];
    let hanging = their_pieces & ctx.all_att[u] & !ctx.all_att[th];
    s += weight!(tr, us, THREAT_MINOR_ON_ROOK, count(minor & their_rooks));
    s += weight!(tr, us, THREAT_MINOR_ON_QUEEN, count(minor & their_queens));
    s += weight!(tr, us, THREAT_ROOK_ON_QUEEN, count(rook_att & their_queens));
    s += weight!(tr, us, HANGING_PIECE, count(hanging));
    t.threats[u] = s;
}

/// Non-pawn material of one side, middle-game values.
#[inline(always)]
fn non_pawn_material(pos: &Position, c: Color) -> i32 {
    KNIGHT_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Knight))
        + BISHOP_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Bishop))
        + ROOK_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Rook))
        + QUEEN_VALUE.mg() * count(pos.pieces_of(c, PieceKind::Queen))
}

/// Against a bare king: push it to the edge (to the right corner for KBN)
/// and bring the kings together.
#[inline(always)]
fn mopup<T: Tracer>(pos: &Position, ctx: &Ctx, t: &mut Terms, tr: &mut T) {
    for strong in Color::ALL {
        let weak = !strong;
        if pos.colored(weak).more_than_one() {
            continue;
        }
        let npm = non_pawn_material(pos, strong);
        if npm < ROOK_VALUE.mg() {
            continue;
        }
        let wk = ctx.king[weak.index()];
        let sk = ctx.king[strong.index()];
        let mut eg = weight_eg!(tr, strong, MOPUP_EDGE, center_distance(wk))
            + weight_eg!(tr, strong, MOPUP_CLOSE, 14 - manhattan(wk, sk));
        let bishops = pos.pieces_of(strong, PieceKind::Bishop);
        let knights = pos.pieces_of(strong, PieceKind::Knight);
        if npm == BISHOP_VALUE.mg() + KNIGHT_VALUE.mg()
            && bishops.nonempty()
            && knights.nonempty()
            && ctx.pawns[strong.index()].is_empty()
        {
            // Corners of the bishop's colour: a1/h8 share one colour, a8/h1 the other.
            let a1_colour = if Bitboard::LIGHT_SQUARES.contains(Square::A1) {
                Bitboard::LIGHT_SQUARES
            } else {
                Bitboard::DARK_SQUARES
            };
            let (c1, c2) = if (bishops & a1_colour).nonempty() {
                (Square::A1, Square::new(63))
            } else {
                (Square::new(56), Square::H1)
            };
            let d = distance(wk, c1).min(distance(wk, c2));
            eg += weight_eg!(tr, strong, MOPUP_BN_CORNER, 7 - d);
        }
        t.mopup[strong.index()] = S(0, eg);
    }
}

/// End-game scale factor (out of SCALE_NORMAL) for the side the end-game
/// score favours.
#[inline(always)]
pub(super) fn scale_factor(pos: &Position, eg: i32) -> i32 {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let npm_strong = non_pawn_material(pos, strong);
    let npm_weak = non_pawn_material(pos, weak);
    if pos.pieces_of(strong, PieceKind::Pawn).is_empty() {
        if npm_strong - npm_weak < NO_PAWN_EDGE {
            return if npm_strong < ROOK_VALUE.mg() {
                SCALE_NO_PAWNS_MINOR
            } else {
                SCALE_NO_PAWNS_SMALL_EDGE
            };
        }
        // Two knights cannot force mate against a bare king.
        if npm_strong == 2 * KNIGHT_VALUE.mg()
            && pos.pieces_of(strong, PieceKind::Knight).count() == 2
            && pos.colored(weak).count() == 1
        {
            return SCALE_NO_PAWNS_MINOR;
        }
    }
    let wb = pos.pieces_of(Color::White, PieceKind::Bishop);
    let bb = pos.pieces_of(Color::Black, PieceKind::Bishop);
    if wb.count() == 1 && bb.count() == 1 {
        let light = Bitboard::LIGHT_SQUARES;
        let opposite = (wb & light).is_empty() != (bb & light).is_empty();
        if opposite {
            let others = pos.pieces(PieceKind::Knight)
                | pos.pieces(PieceKind::Rook)
                | pos.pieces(PieceKind::Queen);
            return if others.is_empty() {
                SCALE_OCB
            } else {
                SCALE_OCB_PIECES
            };
        }
    }
    SCALE_NORMAL
}

/// A readable table of every term (White, Black, White - Black; mg and eg),
/// the phase, the scale factor and the final score. Allocates; for the UCI
/// `eval` command and debugging, not for the search.
pub fn evaluate_verbose(pos: &Position) -> String {
    let mut out = String::new();
    if pos.is_dead_position() {
        out.push_str("dead position: 0\n");
        return out;
    }
    let b = breakdown(pos);
    let t = &b.terms;
    let rows: [(&str, [S; 2]); 9] = [
        ("material+psq", t.material_psq),
        ("mobility", t.mobility),
        ("pawn structure", t.pawns),
        ("passed pawns", t.passed),
        ("pieces", t.pieces),
        ("threats", t.threats),
        ("king safety", t.king_safety),
        ("mop-up", t.mopup),
        ("tempo", t.tempo),
    ];
    let _ = writeln!(
        out,
        "{:<15}|{:>7}{:>7} |{:>7}{:>7} |{:>7}{:>7}",
        "term", "W mg", "W eg", "B mg", "B eg", "mg", "eg"
    );
    for (name, v) in rows {
        let d = v[0] - v[1];
        let _ = writeln!(
            out,
            "{:<15}|{:>7}{:>7} |{:>7}{:>7} |{:>7}{:>7}",
            name,
            v[0].mg(),
            v[0].eg(),
            v[1].mg(),
            v[1].eg(),
            d.mg(),
            d.eg()
        );
    }
    let _ = writeln!(
        out,
        "{:<15}|{:>14} |{:>14} |{:>7}{:>7}",
        "total",
        "",
        "",
        b.total.mg(),
        b.total.eg()
    );
    let stm = match pos.side_to_move() {
        Color::White => b.white,
        Color::Black => -b.white,
    };
    let _ = writeln!(
        out,
        "phase {}/{}, eg scale {}/{}\nscore (White's view) {} cp, side to move {} cp",
        b.phase, PHASE_MAX, b.scale, SCALE_NORMAL, b.white, stm
    );
    out
}

/// Positions and helpers shared by the tests of the terms and of the trace.
#[cfg(test)]
pub(super) mod fixtures {
    use super::evaluate_hce;
    use crate::board::position::Position;

    /// These tests are about the hand-written evaluation, whatever
    /// `UseNNUE`'s default is (the network has its own tests in `nnue`).
    pub fn evaluate(pos: &Position) -> i32 {
        evaluate_hce(pos)
    }

    pub fn pos(fen: &str) -> Position {
        Position::from_fen(fen, false).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// The same position with colours swapped and the board mirrored top to bottom.
    pub fn flip_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |c: char| {
            if c.is_ascii_uppercase() {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            }
        };
        let board: Vec<String> = fields[0]
            .split('/')
            .rev()
            .map(|rank| rank.chars().map(swap_case).collect())
            .collect();
        let side = if fields[1] == "w" { "b" } else { "w" };
        let castling: String = if fields[2] == "-" {
            "-".to_string()
        } else {
            let mut c: Vec<char> = fields[2].chars().map(swap_case).collect();
            // Keep the conventional order: upper case first.
            c.sort_by_key(|ch| (ch.is_ascii_lowercase(), *ch));
            c.into_iter().collect()
        };
        let ep = if fields[3] == "-" {
            "-".to_string()
        } else {
            let b = fields[3].as_bytes();
            let rank = b'1' + (b'8' - b[1]);
            format!("{}{}", b[0] as char, rank as char)
        };
        let mut out = format!("{} {} {} {}", board.join("/"), side, castling, ep);
        for f in &fields[4..] {
            out.push(' ');
            out.push_str(f);
        }
        out
    }

    pub const FENS: [&str; 22] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "8/8/4k3/8/2p5/8/B2K4/8 b - - 0 1",
        "8/5pk1/6p1/8/4B3/1b4P1/5PK1/8 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        "8/8/8/4k3/8/8/8/R3K3 w Q - 0 1",
        "rnbqkbnr/pppp1ppp/8/4pP2/8/8/PPPPP1PP/RNBQKBNR w KQkq e6 0 3",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "8/8/1k6/8/8/8/6K1/4N1N1 w - - 0 1",
        "8/8/8/3k4/8/8/8/KQ6 w - - 0 1",
        "r1bq1rk1/pp2nppp/2n1p3/3pP3/1b1P4/2NB1N2/PP3PPP/R1BQK2R w KQ - 0 9",
        "2r3k1/pp3ppp/8/3p4/3P4/8/PP3PPP/2R3K1 b - - 0 1",
        "8/PPP4k/8/8/8/8/5ppp/K7 w - - 0 1",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "3r1rk1/1pq2ppp/p1n1bn2/2b1p3/4P3/1NN1BB2/PPP1QPPP/3R1RK1 b - - 4 14",
        "r2q1rk1/ppp2ppp/2n1bn2/2bpp3/4P3/2PP1NP1/PP1N1PBP/R1BQ1RK1 w - - 0 8",
        "8/8/3k4/8/8/2NBK3/8/8 w - - 0 1",
        "6k1/5p2/6p1/8/7p/8/6PP/3r2K1 w - - 0 40",
    ];

    /// Positions reached by random play from every test position.
    pub fn random_walk_positions(plies: usize) -> Vec<Position> {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = Vec::new();
        for fen in FENS {
            let mut p = pos(fen);
            for _ in 0..plies {
                out.push(p);
                let moves = crate::board::movegen::legal_moves(&p);
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                p.make_move(moves[(rng % moves.len() as u64) as usize]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;
    use crate::eval::{idx, trace};

    #[test]
    fn flip_fen_round_trips() {
        for fen in FENS {
            assert_eq!(flip_fen(&flip_fen(fen)), fen);
        }
    }

    #[test]
    fn colour_symmetry() {
        for fen in FENS {
            let p = pos(fen);
            let flipped = flip_fen(fen);
            let q = pos(&flipped);
            assert_eq!(
                evaluate(&p),
                evaluate(&q),
                "{fen} vs {flipped}\n{}\n{}",
                evaluate_verbose(&p),
                evaluate_verbose(&q)
            );
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let e = evaluate(&Position::startpos());
        assert!(e.abs() < 50, "start position scores {e}");
    }

    #[test]
    fn dead_positions_are_zero() {
        for fen in [
            "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
            "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
            "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",
            "8/2b5/4k3/8/8/3KB3/8/8 w - - 0 1",
        ] {
            let p = pos(fen);
            assert!(p.is_dead_position(), "{fen}");
            assert_eq!(evaluate(&p), 0, "{fen}");
        }
    }

    #[test]
    fn extra_queen_is_winning() {
        let w = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(evaluate(&w) > 700, "{}", evaluate_verbose(&w));
        let b = pos("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert!(evaluate(&b) < -700, "{}", evaluate_verbose(&b));
    }

    #[test]
    fn advanced_passed_pawn_is_worth_more() {
        let seventh = pos("7k/P7/8/8/8/8/8/4K3 w - - 0 1");
        let third = pos("7k/8/8/8/8/P7/8/4K3 w - - 0 1");
        let (a, b) = (evaluate(&seventh), evaluate(&third));
        assert!(a > b + 50, "7th {a} vs 3rd {b}");
        assert!(b > 0);
    }

    #[test]
    fn opposite_coloured_bishops_are_drawish() {
        // White is a pawn up; with opposite-coloured bishops the ending is scaled down.
        let ocb = pos("8/5k2/4b3/6p1/3P4/2B1P3/5K2/8 w - - 0 1");
        let same = pos("8/5k2/3b4/6p1/3P4/2B1P3/5K2/8 w - - 0 1");
        let (o, s) = (evaluate(&ocb), evaluate(&same));
        assert!(o > 0 && o < 80, "OCB {o}\n{}", evaluate_verbose(&ocb));
        assert!(o < s, "OCB {o} vs same-colour {s}");
    }

    #[test]
    fn pawnless_minor_edge_cannot_win() {
        // K+R v K+B: heavily scaled; K+N v K+P: the knight side cannot win.
        let rb = evaluate(&pos("8/8/3k4/8/3b4/8/3K4/4R3 w - - 0 1"));
        assert!(rb.abs() < 60, "KR v KB {rb}");
        let np = evaluate(&pos("8/8/3k4/8/8/1p6/3K4/4N3 w - - 0 1"));
        assert!(np < 20, "KN v KP {np}");
        // Only the (phase 2/24) middle-game half is left unscaled.
        let nn = evaluate(&pos("8/8/3k4/8/8/8/3K4/3NN3 w - - 0 1"));
        assert!(nn.abs() < 60, "KNN v K {nn}");
    }

    #[test]
    fn phase_bounds() {
        assert_eq!(phase(&Position::startpos()), PHASE_MAX);
        assert_eq!(phase(&pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")), 0);
    }

    #[test]
    fn verbose_mentions_terms() {
        let s = evaluate_verbose(&Position::startpos());
        assert!(
            s.contains("king safety") && s.contains("phase 24/24"),
            "{s}"
        );
    }

    /// A tracer that records nothing but, being `ON`, bypasses the pawn cache.
    struct Uncached;

    impl Tracer for Uncached {
        const ON: bool = true;
        fn pair(&mut self, _: usize, _: Color, _: i32) {}
        fn mg(&mut self, _: usize, _: Color, _: i32) {}
        fn eg(&mut self, _: usize, _: Color, _: i32) {}
        fn king_danger(&mut self, _: Color, _: i32) {}
    }

    #[test]
    fn the_pawn_cache_never_changes_a_score() {
        let positions = random_walk_positions(80);
        let uncached: Vec<i32> = positions
            .iter()
            .map(|p| breakdown_with(p, &mut Uncached).white)
            .collect();
        // Forward, then backward: each position meets the cache in another state.
        for order in [false, true] {
            for i in 0..positions.len() {
                let i = if order { positions.len() - 1 - i } else { i };
                let p = &positions[i];
                assert_eq!(breakdown(p).white, uncached[i], "{}", p.to_fen());
            }
        }
        // The walk must make different pawn structures share a slot, or
        // replacement went untested.
        let mut by_slot = std::collections::HashMap::new();
        let mut sharing = 0;
        for p in &positions {
            let pawns = [
                p.pieces_of(Color::White, PieceKind::Pawn),
                p.pieces_of(Color::Black, PieceKind::Pawn),
            ];
            let first = *by_slot.entry(pawn_cache_slot(pawns)).or_insert(pawns);
            sharing += usize::from(first != pawns);
        }
        assert!(sharing > 0);
    }

    /// The middle-game coefficient (White minus Black) the trace of `fen` gives parameter `at`.
    fn mg_coefficient(fen: &str, at: usize) -> i32 {
        let t = trace(&pos(fen)).expect("not a dead position");
        t.mg.iter()
            .filter(|&&(i, _)| i as usize == at)
            .map(|&(_, c)| i32::from(c))
            .sum()
    }

    #[test]
    fn candidate_passed_pawn_needs_as_many_helpers_as_sentries() {
        // d5 is held back only by e6, and c4 can trade itself for it.
        let candidate = "4k3/8/4p3/3P4/2P5/8/8/4K3 w - - 0 1";
        assert_eq!(mg_coefficient(candidate, idx::CANDIDATE_PASSED + 2 * 4), 1);
        // Without c4 nothing helps: no candidate for either side.
        let alone = "4k3/8/4p3/3P4/8/8/8/4K3 w - - 0 1";
        for rr in 0..8 {
            assert_eq!(mg_coefficient(alone, idx::CANDIDATE_PASSED + 2 * rr), 0);
        }
        // A pawn on its file ahead means it is no candidate.
        let blocked = "4k3/3p4/4p3/3P4/2P5/8/8/4K3 w - - 0 1";
        assert_eq!(mg_coefficient(blocked, idx::CANDIDATE_PASSED + 2 * 4), 0);
        // The mirror image counts for Black.
        assert_eq!(
            mg_coefficient(&flip_fen(candidate), idx::CANDIDATE_PASSED + 2 * 4),
            -1
        );
    }

    #[test]
    fn pawn_storm_by_rank_and_blocked() {
        // h4 storms White's g1 king unopposed; h3 is stopped by h2.
        let open = "k7/8/8/8/7p/8/5PPP/6K1 w - - 0 1";
        assert_eq!(mg_coefficient(open, idx::PAWN_STORM + 2 * 3), 1);
        let blocked = "k7/8/8/8/8/7p/5PPP/6K1 w - - 0 1";
        assert_eq!(mg_coefficient(blocked, idx::BLOCKED_STORM + 2 * 2), 1);
        assert_eq!(mg_coefficient(blocked, idx::PAWN_STORM + 2 * 2), 0);
        // A pawn two files away from the king storms nothing.
        let far = "k7/8/8/8/4p3/8/5PPP/6K1 w - - 0 1";
        for rr in 0..8 {
            assert_eq!(mg_coefficient(far, idx::PAWN_STORM + 2 * rr), 0);
            assert_eq!(mg_coefficient(far, idx::BLOCKED_STORM + 2 * rr), 0);
        }
        assert_eq!(mg_coefficient(&flip_fen(open), idx::PAWN_STORM + 2 * 3), -1);
    }

    #[test]
    fn popcnt_build_agrees_with_portable_build() {
        // `evaluate` takes the POPCNT-compiled copy wherever the CPU has it.
        for p in &random_walk_positions(40) {
            assert_eq!(evaluate(p), evaluate_body(p), "{}", p.to_fen());
        }
    }

    /// `cargo test --release --lib eval::terms::tests::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn speed() {
        let p = pos(FENS[1]);
        let n = 1_000_000u32;
        let start = std::time::Instant::now();
        let mut acc = 0i64;
        for _ in 0..n {
            acc += evaluate(std::hint::black_box(&p)) as i64;
        }
        let dt = start.elapsed();
        println!(
            "{n} evals of Kiwipete: {:?}, {:.1} ns/eval (checksum {acc})",
            dt,
            dt.as_nanos() as f64 / n as f64
        );
        let mut ps: Vec<Position> = FENS.iter().map(|f| pos(f)).collect();
        ps.retain(|p| !p.is_dead_position());
        let start = std::time::Instant::now();
        for _ in 0..n / ps.len() as u32 {
            for p in &ps {
                acc += evaluate(std::hint::black_box(p)) as i64;
            }
        }
        let dt = start.elapsed();
        println!(
            "mixed set: {:.1} ns/eval (checksum {acc})",
            dt.as_nanos() as f64 / (n / ps.len() as u32 * ps.len() as u32) as f64
        );
    }
}
