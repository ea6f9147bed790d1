//! Balance (issue #6): the full Slam matchup matrix of the five rush units, 25 pairs, by
//! Monte Carlo at 10^7 trials per pair and exact-only.

use criterion::{criterion_group, criterion_main, Criterion};
use rollsim::balance::{compare, Pick, Source};
use std::path::Path;

fn matrix(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rush.toml");
    let source = Source::load(&path, &[]).expect("shipped config");
    let sc = "slam-orc-vs-human-guard";
    let mut g = c.benchmark_group("compare_slam_5x5");
    g.sample_size(10);
    g.bench_function("monte_carlo_1e7_per_pair", |b| {
        b.iter(|| {
            compare::matrix(
                &source,
                sc,
                (&[], &[]),
                &Pick::Headline,
                7,
                Some(rollsim::sim::Budget::Trials(10_000_000)),
            )
            .unwrap()
        })
    });
    g.bench_function("exact_only", |b| {
        b.iter(|| compare::matrix(&source, sc, (&[], &[]), &Pick::Headline, 7, None).unwrap())
    });
    g.finish();
}

criterion_group!(benches, matrix);
criterion_main!(benches);
