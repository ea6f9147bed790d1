//! `descent` (issue #4): a 3-die attack plus 2 power dice with the optimal Aim, sampled on
//! one core through the generic engine (the policy is tabulated once per scenario), and
//! the exact plan (every roll's best re-roll) for 3 + 2 and for 3 + 5 dice.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollsim::config;
use std::hint::black_box;
use std::path::Path;

fn cfg(sets: &[&str]) -> config::AnalysisConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/descent.toml");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    config::load(&path, &sets, &rollsim::Cancel::new()).expect("shipped config")
}

fn monte_carlo(c: &mut Criterion) {
    let sc = cfg(&[]).compile("fire-staff-vs-ogre-aim").unwrap();
    let trials = 1u64 << 24;
    let mut g = c.benchmark_group("descent_mc");
    g.throughput(Throughput::Elements(trials));
    g.sample_size(10);
    let pool = common::pool(1);
    g.bench_function("fire_staff_3_dice_2_power_optimal_aim_1_thread", |b| {
        b.iter(|| common::run(&pool, sc.trial.as_ref(), trials))
    });
    g.finish();
}

fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("descent_exact");
    g.sample_size(10);
    let two = cfg(&[]);
    g.bench_function("plan_3_dice_2_power_optimal_aim", |b| {
        b.iter(|| two.compile(black_box("fire-staff-vs-ogre-aim")).unwrap())
    });
    let five = cfg(&["heroes.mage.power_dice=5"]);
    g.bench_function("plan_3_dice_5_power_optimal_aim", |b| {
        b.iter(|| five.compile(black_box("fire-staff-vs-ogre-aim")).unwrap())
    });
    g.finish();
}

criterion_group!(benches, monte_carlo, exact);
criterion_main!(benches);
