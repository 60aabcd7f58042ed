//! Search-side benchmarks: static evaluation (hand-written and network), static exchange evaluation,
//! the transposition table, and fixed-depth searches. They time the parts
//! that the README's "Search speed" rows change.
//!
//! Run with `cargo bench --bench search`; add
//! `-- --warm-up-time 1 --measurement-time 3` for a quick pass.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use guoxiang::board::movegen::legal_moves;
use guoxiang::board::see::see_ge;
use guoxiang::eval::evaluate_hce;
use guoxiang::eval::network;
use guoxiang::search::time::Limits;
use guoxiang::search::tt::{Bound, TranspositionTable};
use guoxiang::search::{search_sync, SearchRequest, ThreadData};
use guoxiang::Position;
use std::hint::black_box;

/// An opening, two middlegames (one with a king attack), an endgame with
/// passed pawns: evaluation takes a different share of its terms in each.
const POSITIONS: &[(&str, &str)] = &[
    (
        "opening",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ),
    (
        "middlegame",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    ),
    (
        "attack",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/P3BPPP/R1BQ1RK1 w - - 0 9",
    ),
    ("endgame", "8/5pk1/6p1/3P4/1p3P2/1P4P1/5K2/8 w - - 0 1"),
];

fn position(fen: &str) -> Position {
    // The FENs above are constants known to be valid.
    Position::from_fen(fen, false).expect("benchmark FEN is valid")
}

fn bench_evaluate(c: &mut Criterion) {
    let mut group = c.benchmark_group("evaluate");
    let net = network::Network::embedded();
    for &(name, fen) in POSITIONS {
        let pos = position(fen);
        group.bench_function(format!("{name}_hce"), |b| {
            b.iter(|| evaluate_hce(black_box(&pos)))
        });
        group.bench_function(format!("{name}_nnue"), |b| {
            b.iter(|| net.evaluate(black_box(&pos)))
        });
    }
    group.finish();
}

fn bench_see(c: &mut Criterion) {
    let pos = position(POSITIONS[1].1);
    let moves = legal_moves(&pos);
    let mut group = c.benchmark_group("see_ge");
    group.throughput(Throughput::Elements(moves.len() as u64));
    group.bench_function("middlegame_all_moves", |b| {
        b.iter(|| {
            moves
                .iter()
                .filter(|&&mv| see_ge(black_box(&pos), mv, 0))
                .count()
        })
    });
    group.finish();
}

fn bench_tt(c: &mut Criterion) {
    let tt = TranspositionTable::new(16).expect("16 MB table");
    // Keys spread over the whole table, as a search's are.
    let keys: Vec<u64> = (1..=4096u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    for &k in &keys {
        tt.store(k, None, 10, 5, 3, Bound::Exact);
    }
    let mut group = c.benchmark_group("tt");
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function("probe_4096_scattered", |b| {
        b.iter(|| {
            keys.iter()
                .filter_map(|&k| tt.probe(black_box(k)))
                .map(|hit| hit.depth)
                .sum::<i32>()
        })
    });
    group.finish();
}

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search_depth_9");
    group.sample_size(10);
    for &(name, fen) in POSITIONS {
        let pos = position(fen);
        let tt = TranspositionTable::new(16).expect("16 MB table");
        group.bench_function(name, |b| {
            b.iter(|| {
                // A cleared table and fresh histories each time, as bench
                // does, so every iteration searches the same tree.
                tt.clear();
                let mut data = vec![ThreadData::default()];
                let limits = Limits {
                    depth: Some(9),
                    ..Limits::default()
                };
                let request = SearchRequest::new(black_box(pos), limits);
                search_sync(&request, &tt, &mut data).nodes
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_evaluate, bench_see, bench_tt, bench_search);
criterion_main!(benches);
