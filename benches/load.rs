//! Loading (issue #12): `rollsim check` on configs of 2,000 and 20,000 scenarios, every
//! one loaded and compiled. Linear: ten times the scenarios, about ten times the time.

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;

fn config(n: usize) -> String {
    let base =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rush.toml"))
            .expect("shipped config");
    let head = base
        .split("[scenarios.")
        .next()
        .unwrap_or_default()
        .to_string();
    (0..n).fold(head, |mut s, i| {
        s.push_str(&format!(
            "\n[scenarios.s{i}]\nkind = \"stand_up\"\nunit = \"orc\"\n"
        ));
        s
    })
}

fn load(c: &mut Criterion) {
    let mut g = c.benchmark_group("load_and_compile_all");
    g.sample_size(10);
    for n in [2_000usize, 20_000] {
        let text = config(n);
        g.bench_function(format!("{n}_scenarios"), |b| {
            b.iter(|| {
                let cfg = rollsim::config::load_str(&text, "big.toml", &[]).expect("loads");
                for name in cfg.scenario_names() {
                    cfg.compile(&name).expect("compiles");
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
