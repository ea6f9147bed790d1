//! `dozen` (issue #3): Monte Carlo melee 3d12 vs 3d12 on one core through the generic
//! engine, the exact melee cancellation for 12 dice against 12, and the exact duel of
//! two 10-HP characters.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollsim::config;
use rollsim::systems::dozen::config::DozenConfig;
use rollsim::systems::dozen::rules::{duel, melee, Rules};
use std::hint::black_box;

const CONFIG: &str = r#"
system = "dozen"

[characters.three]
dx = 4
co = 10
st = 5
ch = 3
aw = 3
mv = 3
weapon = 2
skills = { melee = 3 }

[characters.other]
dx = 3
co = 10
st = 4
ch = 3
aw = 3
mv = 3
weapon = 2
armour = 1
skills = { melee = 3 }

[characters.twelve]
dx = 4
co = 10
st = 7
ch = 3
aw = 3
mv = 3
skills = { melee = 12 }

[scenarios.melee-3v3]
kind = "melee"
attacker = "three"
defender = "other"

[scenarios.melee-12v12]
kind = "melee"
attacker = "twelve"
defender = "twelve"

[scenarios.duel-10hp]
kind = "duel"
a = "three"
b = "other"
"#;

fn cfg() -> config::AnalysisConfig {
    config::load_str(CONFIG, "bench.toml", &[]).expect("bench config")
}

fn monte_carlo(c: &mut Criterion) {
    let cfg = cfg();
    let sc = cfg.compile("melee-3v3").unwrap();
    let trials = 1u64 << 24;
    let mut g = c.benchmark_group("dozen_mc");
    g.throughput(Throughput::Elements(trials));
    g.sample_size(10);
    let pool = common::pool(1);
    g.bench_function("melee_3v3_1_thread", |b| {
        b.iter(|| common::run(&pool, sc.trial.as_ref(), trials))
    });
    let duel = cfg.compile("duel-10hp").unwrap();
    let trials = 1u64 << 20;
    g.throughput(Throughput::Elements(trials));
    g.bench_function("duel_10hp_1_thread", |b| {
        b.iter(|| common::run(&pool, duel.trial.as_ref(), trials))
    });
    g.finish();

    // The shipped duels (about five activations each), one engine chunk at a time.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/dozen.toml");
    let shipped = config::load(&path, &[], &rollsim::Cancel::new()).expect("shipped config");
    let mut g = c.benchmark_group("one_core_chunk");
    g.throughput(Throughput::Elements(rollsim::sim::CHUNK));
    for name in ["duel-fighter-vs-dwarf", "duel-thief-vs-dwarf"] {
        let sc = shipped.compile(name).expect("shipped duel");
        common::bench_chunks(&mut g, &format!("dozen.toml/{name}"), sc.trial.as_ref());
    }
    g.finish();
}

fn exact(c: &mut Criterion) {
    let cfg = cfg();
    let d = cfg.typed::<DozenConfig>().expect("a dozen config");
    let ch = |id: &str| d.characters.iter().find(|c| c.id == id).unwrap().clone();
    let rules = Rules::default();
    let mut g = c.benchmark_group("dozen_exact");
    g.bench_function("melee_hits_12v12", |b| {
        b.iter(|| melee::hits::<f64>(black_box(12), 7, 12, 7))
    });
    g.bench_function("melee_face_to_face_12v12", |b| {
        b.iter(|| melee::face_to_face::<f64>(black_box(12), 7, 12, 7))
    });
    let (a, bb) = (ch("three"), ch("other"));
    assert_eq!((a.hp(), bb.hp()), (10, 10));
    g.bench_function("duel_10hp_vs_10hp", |b| {
        b.iter(|| {
            duel::exact(
                black_box(&a),
                &bb,
                duel::Bag::new([1, 1], [0, 0]),
                300,
                &rules,
            )
        })
    });
    g.bench_function("compile_melee_12v12_with_armour_and_metrics", |b| {
        b.iter(|| cfg.compile(black_box("melee-12v12")).unwrap())
    });
    // The same exact code in whole numbers, for the tables' fractions.
    g.bench_function("melee_face_to_face_12v12_fractions", |b| {
        b.iter(|| melee::face_to_face::<rollsim::pmf::Ratio>(black_box(12), 7, 12, 7))
    });
    g.bench_function("melee_12v12_every_metric_s_fractions", |b| {
        b.iter(|| {
            let c = cfg.compile(black_box("melee-12v12")).unwrap();
            c.metrics
                .iter()
                .map(|m| c.metric_fractions(m).map_or(0, |f| f.len()))
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, monte_carlo, exact);
criterion_main!(benches);
