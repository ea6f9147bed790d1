//! Roster (issue #24): the metagame analysis of a 10-unit matrix alone (both seats, the
//! Nash mix, each unit's worth by ten more linear programs, dominance, Bradley-Terry,
//! the cyclic share), and the whole `roster` on the rush Slam, exact only.

use criterion::{criterion_group, criterion_main, Criterion};
use rollsim::balance::{metagame, roster, Job, Pick, Source};
use rollsim::run::Hooks;
use rollsim::sim::Hidden;
use rollsim::Cancel;
use std::path::Path;

/// A 10 x 10 matrix with a strength order and some rock-paper-scissors in it.
fn ten() -> Vec<Vec<f64>> {
    (0..10)
        .map(|i| {
            (0..10)
                .map(|j| {
                    let line = 1.0 / (1.0 + (-(i as f64 - j as f64) * 0.3).exp());
                    let cycle = 0.15 * (((i + 2 * j) % 3) as f64 - 1.0);
                    (line + cycle).clamp(0.01, 0.99)
                })
                .collect()
        })
        .collect()
}

fn analysis(c: &mut Criterion) {
    let a = ten();
    c.bench_function("roster_analysis_10_units", |b| {
        b.iter(|| {
            let m = metagame::both_seats(&a);
            let mix = metagame::nash(&m).unwrap();
            let without = metagame::without_each(&m).unwrap();
            let d = metagame::dominated_by(&m);
            let r = metagame::bradley_terry(&m, None);
            (mix, without, d, r, metagame::cyclic_share(&m))
        })
    });
}

fn whole(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rush.toml");
    let source = Source::parse(&std::fs::read_to_string(&path).unwrap(), &path, &[]).unwrap();
    let target = source.target("slam-orc-vs-human-guard").unwrap();
    let cancel = Cancel::new();
    let job = Job {
        source: &source,
        target: &target,
        pick: &Pick::Headline,
        seed: 7,
        trials: None,
        ctx: Hooks::new(&cancel, &Hidden),
        share: &rollsim::balance::Share::All,
    };
    let mut g = c.benchmark_group("roster_rush");
    g.sample_size(10);
    g.bench_function("exact_only", |b| {
        b.iter(|| roster::roster(&job, &[], false).unwrap())
    });
    g.finish();
}

criterion_group!(benches, analysis, whole);
criterion_main!(benches);
