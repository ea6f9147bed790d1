//! Balance: the Slam matchup matrix of the five rush units (by Monte Carlo and exact),
//! and sensitivity, sweep and equalize exact-only on shipped scenarios and on a dice
//! firefight with three units (issue #22: a command parses its config once and applies
//! typed edits per cell).

use criterion::{criterion_group, criterion_main, Criterion};
use rollsim::balance::{compare, equalize, sensitivity, sweep, Job, Pick, Share, Source, Target};
use rollsim::run::Hooks;
use rollsim::sim::Hidden;
use rollsim::Cancel;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn source(rel: &str) -> Source {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).expect("config");
    Source::parse(&text, &path, &[]).expect("config loads")
}

fn matrix(c: &mut Criterion) {
    let source = source("configs/rush.toml");
    let cancel = Cancel::new();
    let ctx = Hooks::new(&cancel, &Hidden);
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
                ctx,
            )
            .unwrap()
        })
    });
    g.bench_function("exact_only", |b| {
        b.iter(|| compare::matrix(&source, sc, (&[], &[]), &Pick::Headline, 7, None, ctx).unwrap())
    });
    g.finish();
}

/// Sensitivity, a five-point sweep and equalize (with pairs), exact only.
fn exact_commands(c: &mut Criterion) {
    let cancel = Cancel::new();
    let ctx = Hooks::new(&cancel, &Hidden);
    let cases = [
        (
            "configs/rush.toml",
            "slam-orc-vs-human-guard",
            "defender.strength=2..6",
        ),
        (
            "benches/common/firefight.toml",
            "shoot-it-out",
            "opponent.models=6..10",
        ),
        (
            "configs/dice-examples.toml",
            "fighter-duels-orc",
            "unit.attack=3..7",
        ),
    ];
    let mut g = c.benchmark_group("balance_exact");
    g.sample_size(10);
    for (config, scenario, vary) in cases {
        let source = source(config);
        let target = source.target(scenario).unwrap();
        let pick = Pick::Headline;
        let job = Job {
            source: &source,
            target: &target,
            pick: &pick,
            seed: 7,
            trials: None,
            ctx,
            share: &rollsim::balance::Share::All,
        };
        g.bench_function(format!("sensitivity/{scenario}"), |b| {
            b.iter(|| sensitivity::rows(&job).unwrap())
        });
        g.bench_function(format!("sweep/{scenario}"), |b| {
            b.iter(|| {
                let v = sweep::parse(&source, &target.table, vary).unwrap();
                sweep::sweep(&job, vec![v]).unwrap()
            })
        });
        g.bench_function(format!("equalize/{scenario}"), |b| {
            b.iter(|| equalize::equalize(&job, None, false).unwrap())
        });
        g.bench_function(format!("equalize_pairs/{scenario}"), |b| {
            b.iter(|| equalize::equalize(&job, None, true).unwrap())
        });
    }
    g.finish();
}

/// The three slowest balance commands on a shipped scenario with `--exact-only`, from a
/// run of sensitivity, equalize, compare and roster on every shipped scenario and group
/// (2026-11-26: 1.6 s, 1.1 s and 1.0 s as whole processes, every other under 0.6 s).
fn slowest(c: &mut Criterion) {
    let cancel = Cancel::new();
    let ctx = Hooks::new(&cancel, &Hidden);
    let mut g = c.benchmark_group("balance_slowest");
    g.sample_size(10);
    let descent = source("configs/descent.toml");
    let examples = source("configs/dice-examples.toml");
    let pick = Pick::Headline;
    fn job<'a>(source: &'a Source, target: &'a Target, pick: &'a Pick, ctx: Hooks<'a>) -> Job<'a> {
        Job {
            source,
            target,
            pick,
            seed: 7,
            trials: None,
            ctx,
            share: &Share::All,
        }
    }
    // The three slowest whole-process runs of `benches/balance-every-scenario.sh` on
    // 2026-11-26 (1.57 to 1.59 s), then the slowest two equalizes.
    for scenario in [
        "bare-hands-red-power",
        "broadsword-power",
        "bare-hands-power",
    ] {
        let target = descent.target(scenario).unwrap();
        let on = job(&descent, &target, &pick, ctx);
        g.bench_function(format!("compare/{scenario}"), |b| {
            b.iter(|| compare::matrices(&on, (&[], &[]), false).unwrap())
        });
    }
    for (source, scenario) in [
        (&descent, "fire-staff-range"),
        (&examples, "fighter-duels-orc"),
    ] {
        let target = source.target(scenario).unwrap();
        let on = job(source, &target, &pick, ctx);
        g.bench_function(format!("equalize/{scenario}"), |b| {
            b.iter(|| equalize::equalize(&on, None, false).unwrap())
        });
    }
    g.finish();
}

/// A command as four shards' parts and their merge, in one process, against the same
/// command whole: what recording the items and reading them back costs (issue #27).
fn sharded(c: &mut Criterion) {
    let source = source("configs/rush.toml");
    let target = source.target("slam-orc-vs-human-guard").unwrap();
    let cancel = Cancel::new();
    let ctx = Hooks::new(&cancel, &Hidden);
    let pick = Pick::Headline;
    fn job<'a>(
        (source, target, pick): (&'a Source, &'a rollsim::balance::Target, &'a Pick),
        share: &'a Share,
        trials: Option<u64>,
        ctx: Hooks<'a>,
    ) -> Job<'a> {
        Job {
            source,
            target,
            pick,
            seed: 7,
            trials,
            ctx,
            share,
        }
    }
    let on = (&source, &target, &pick);
    let mut g = c.benchmark_group("sharded");
    g.sample_size(10);
    for (name, trials) in [("exact", None), ("monte_carlo_1e5", Some(100_000))] {
        g.bench_function(format!("equalize_pairs_{name}/whole"), |b| {
            b.iter(|| equalize::equalize(&job(on, &Share::All, trials, ctx), None, true).unwrap())
        });
        g.bench_function(format!("equalize_pairs_{name}/4_parts_and_merge"), |b| {
            b.iter(|| {
                let parts: Vec<_> = (1..=4)
                    .map(|k| {
                        let s = Share::part(k, 4);
                        let _ = equalize::equalize(&job(on, &s, trials, ctx), None, true);
                        s.recorded()
                    })
                    .collect();
                let m = Share::merged(parts).unwrap();
                equalize::equalize(&job(on, &m, trials, ctx), None, true).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, matrix, exact_commands, slowest, sharded);
criterion_main!(benches);
