//! Throughput of the Monte Carlo engine on the issue's reference case: Slam vs Slamback,
//! 5 dice at 3+ (Orc, moved adjacent) against 4 dice at 4+ (Human Guard), armour check
//! included, through the same compiled scenario and engine the CLI uses.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollsim::config;
use rollsim::sim::CHUNK;
use std::path::Path;

fn load(file: &str, scenario: &str) -> rollsim::model::Compiled {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(file);
    let cfg = config::load(&path, &[], &rollsim::Cancel::new()).expect("shipped config");
    cfg.compile(scenario).expect("scenario")
}

fn one_core(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_core_chunk");
    g.throughput(Throughput::Elements(CHUNK));
    for (file, scenario) in [
        ("rush.toml", "slam-orc-vs-human-guard"),
        ("rush.toml", "dash-chain-striker"),
        ("rush.toml", "pass-striker-to-jack"),
        ("rush-exploding.toml", "slam-orc-vs-human-guard"),
    ] {
        let sc = load(file, scenario);
        common::bench_chunks(&mut g, &format!("{file}/{scenario}"), sc.trial.as_ref());
    }
    let cfg = config::load_str(SLAM_3V3, "bench.toml", &[]).expect("bench config");
    let sc = cfg.compile("slam-3v3").expect("scenario");
    common::bench_chunks(&mut g, "slam_3v3", sc.trial.as_ref());
    g.finish();
}

/// The issue's 3-dice-against-3-dice Slam: two Jacks at 4+, armour 4+, no bonus dice.
const SLAM_3V3: &str = r#"
system = "rush"

[units.jack]
name = "Jack"
move = 5
strength = 4
speed = 4
skill = 4
armour = 4
role = "jack"

[units.other]
name = "Other Jack"
move = 5
strength = 4
speed = 4
skill = 4
armour = 4
role = "jack"

[scenarios.slam-3v3]
kind = "slam"
attacker = "jack"
defender = "other"
response = "slamback"
"#;

fn threads(c: &mut Criterion) {
    let sc = load("rush.toml", "slam-orc-vs-human-guard");
    let trials = CHUNK * 256; // 16.8M trials per iteration
    let mut g = c.benchmark_group("engine_run");
    g.throughput(Throughput::Elements(trials));
    g.sample_size(10);
    for t in [1usize, 2] {
        let pool = common::pool(t);
        g.bench_function(format!("slam_5v4_{t}_threads"), |b| {
            b.iter(|| common::run(&pool, sc.trial.as_ref(), trials))
        });
    }
    g.finish();
}

criterion_group!(benches, one_core, threads);
criterion_main!(benches);
