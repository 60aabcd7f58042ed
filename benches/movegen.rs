//! Move generator benchmarks: full legal generation, counting only,
//! copy-make, and a complete perft (plain and with a table of counts).
//!
//! Run with `cargo bench --bench movegen`; add
//! `-- --warm-up-time 1 --measurement-time 3` for a quick pass.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use guoxiang::board::movegen::{count_legal, legal_moves};
use guoxiang::board::position::START_FEN;
use guoxiang::perft::{perft, perft_hashed, PerftTable};
use guoxiang::Position;
use std::hint::black_box;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Openings, middlegames with castling and pins, an endgame, a promotion
/// tangle: the standard perft positions cover the generator's branches.
const POSITIONS: &[(&str, &str)] = &[
    ("startpos", START_FEN),
    ("kiwipete", KIWIPETE),
    ("endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    (
        "promotions",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    ),
    (
        "middlegame",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    ),
];

fn position(fen: &str) -> Position {
    // The FENs above are constants known to be valid.
    Position::from_fen(fen, false).expect("benchmark FEN is valid")
}

fn bench_legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for &(name, fen) in POSITIONS {
        let pos = position(fen);
        group.bench_function(name, |b| b.iter(|| legal_moves(black_box(&pos))));
    }
    group.finish();
}

fn bench_count_legal(c: &mut Criterion) {
    let mut group = c.benchmark_group("count_legal");
    for &(name, fen) in POSITIONS {
        let pos = position(fen);
        group.bench_function(name, |b| b.iter(|| count_legal(black_box(&pos))));
    }
    group.finish();
}

fn bench_make_move(c: &mut Criterion) {
    let pos = position(KIWIPETE);
    let moves = legal_moves(&pos);
    let mut group = c.benchmark_group("make_move");
    group.throughput(Throughput::Elements(moves.len() as u64));
    // Copy-make of each of Kiwipete's 48 moves; the key is read so the
    // work cannot be optimised away.
    group.bench_function("kiwipete_all_moves", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &mv in black_box(&moves) {
                let mut next = *black_box(&pos);
                next.make_move(mv);
                acc ^= next.key();
            }
            acc
        })
    });
    group.finish();
}

fn bench_perft(c: &mut Criterion) {
    let pos = position(KIWIPETE);
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.throughput(Throughput::Elements(193_690_690));
    group.bench_function("kiwipete_5", |b| b.iter(|| perft(black_box(&pos), 5)));
    // A fresh table each time (its allocation not timed), so every count is
    // found the hard way once and transpositions hit.
    group.bench_function("kiwipete_5_hash_16mb", |b| {
        b.iter_batched(
            || PerftTable::new(16).expect("16 MB"),
            |table| perft_hashed(black_box(&pos), 5, &table),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_legal_moves,
    bench_count_legal,
    bench_make_move,
    bench_perft
);
criterion_main!(benches);
