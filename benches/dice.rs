//! The dice language: exact evaluation of the queries the issue sets against icepool,
//! and Monte Carlo throughput of a 5-dice-against-4-dice success-pool opposed test, both
//! through the same compile path `rollsim roll` uses.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rollsim::config::load_str;
use rollsim::model::Compiled;
use rollsim::sim::CHUNK;
use std::hint::black_box;

fn compile(roll: &str, vs: Option<&str>) -> Compiled {
    let mut text = format!("system = \"dice\"\n[scenarios.s]\nroll = {roll:?}\n");
    if let Some(v) = vs {
        text.push_str(&format!("vs = {v:?}\n"));
    }
    load_str(&text, "bench.toml", &[])
        .expect("a valid expression")
        .compile("s")
        .expect("compiles")
}

/// A whole compile per iteration: parsing, the exact distribution and the sampler, so
/// the figure is a first evaluation (nothing is cached between iterations).
fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("dice_exact");
    g.sample_size(10);
    for q in [
        "20d20 keep highest 10",
        "100d6 keep highest 50",
        "6d10 explode keep highest 3",
        "6d10 explode depth 4 keep highest 3",
        "pairs(10d6, 10d6)",
        "beats(5d20, 5d20)",
        "cancel(9d10, 8d10)",
        "let p = 5d10 in p count >= 7 - p count 1",
        // Chains: the integer law, its counts in machine words.
        "let hits = 20d6 count >= 3 in let wounds = (hits)d6 count >= 4 in let saves = (wounds)d6 count >= 5 in wounds - saves",
        "let attacks = 2d6 in let hits = (attacks)d6 count >= 3 in let wounds = (hits)d6 count >= 3 in let unsaved = (wounds)d6 count <= 4 in (unsaved)d3",
        // Past them: big integers.
        "1000d6 sum",
        "repeat me = 20, foe = 20 until me <= 0 or foe <= 0 do let a = 3d6 in let b = 3d6 in me = me - (b > a) * (b - a), foe = foe - (a > b) * (a - b) then me > 0",
        // A chain that seldom ends: each value's fraction shares up to 3^20400 with
        // the denominator, divided out by a ladder of powers.
        "repeat hp = 6 until hp <= 0 do hp = hp - ((5d10) <= (68dF)) limit 300 then rounds",
    ] {
        g.bench_function(q, |b| b.iter(|| black_box(compile(q, None))));
    }
    g.finish();
}

/// Issue #26's targets, a whole compile each: two pool variables read several ways
/// (under 1 s), a 20-card deck dealt 5 (under 10 ms).
fn language(c: &mut Criterion) {
    let mut g = c.benchmark_group("dice_language");
    g.sample_size(10);
    for q in [
        "let a = 6d10 in let b = 6d10 in a count >= 7 - b count >= 7 + (a highest > b highest)",
        "let h = deck{0*6, 1*5, -1*5, 2, -2, x2=100, null=-100} draw 5 in h count 1 + h highest",
        "deck{0*6, 1*5, -1*5, 2, -2, x2=100, null=-100} draw 5 sum",
        "let t = d6 in 10d6 count >= (4 + (t > 3))",
        "let active = 3d20 in let reactive = 1d20 in { a = beats(active only <= 13, reactive only <= 12), r = beats(reactive only <= 12, active only <= 13) }",
        // Choices after a roll (the target: 5 dice under 100 ms).
        "reroll p = 5d6 to maximise p count >= 5 >= 3",
        "reroll p = 5d6 twice to maximise p maxset == 5",
        "choose total = 2, effect = 1 from [1d10, 2d8, 1d6] only >= 2 to maximise total sum * 100 + effect sides in { total = total sum, effect = max(effect sides, 4) }",
    ] {
        g.bench_function(q, |b| b.iter(|| black_box(compile(q, None))));
    }
    g.finish();
}

fn monte_carlo(c: &mut Criterion) {
    let mut g = c.benchmark_group("dice_monte_carlo");
    g.throughput(Throughput::Elements(CHUNK));
    let sc = compile("5d6 count >= 4", Some("4d6 count >= 4"));
    common::bench_chunks(&mut g, "5d6 vs 4d6 success pools", sc.trial.as_ref());
    // Issue #35: the rush Slam written in the language beside the built-in one, and the
    // shipped damage allocation, one core each.
    for (file, scenario) in [
        ("rush-as-dice.toml", "slam-orc-vs-human-guard"),
        ("rush.toml", "slam-orc-vs-human-guard"),
        ("dice-examples.toml", "warhammer-allocate"),
    ] {
        let sc = shipped(file, scenario);
        common::bench_chunks(&mut g, &format!("{file}/{scenario}"), sc.trial.as_ref());
    }
    g.finish();
    // Issue #42: Monte Carlo's cost is linear in the dice. Throughput in dice, so the
    // two figures compare directly (2000d6 at no less than a fifth of 20d6's rate).
    for n in [20u64, 2000] {
        let mut g = c.benchmark_group("dice_monte_carlo_dice");
        g.sample_size(10);
        g.throughput(Throughput::Elements(CHUNK * n));
        let sc = compile(&format!("{n}d6 count >= 4"), None);
        common::bench_chunks(&mut g, &format!("{n}d6 count >= 4"), sc.trial.as_ref());
        g.finish();
    }
}

/// Issue #42's hordes, a whole compile each (the exact distribution included).
fn hordes(c: &mut Criterion) {
    let mut g = c.benchmark_group("dice_hordes");
    g.sample_size(10);
    for q in [
        "160d20 keep highest 80",
        "200d6 sum",
        "500d6 count >= 4",
        "1000d6 sum",
        "cancel(9d10, 8d10) highest",
        "cancel(12d6, 10d6) sum",
        "let a = 5d20 in let b = 5d20 in beats(a only <= 12, b only <= 12) - beats(b only <= 12, a only <= 12)",
        "let a = 6d10 in let b = 6d10 in { mine = beats(a, b), theirs = beats(b, a), left = cancel(a, b) highest }",
        "8d6 straight",
    ] {
        g.bench_function(q, |b| b.iter(|| black_box(compile(q, None))));
    }
    g.finish();
}

fn shipped(file: &str, scenario: &str) -> Compiled {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(file);
    rollsim::config::load(&path, &[], &rollsim::Cancel::new())
        .expect("shipped config")
        .compile(scenario)
        .expect("scenario")
}

/// Issue #55: programs whose `let`s are read by parts, each's exact law (its `let`s
/// moved down to the parts that read them, what a compile does), counted with its
/// fractions; and each's parse into the tree the law reads, paid on every roll of it.
fn law(c: &mut Criterion) {
    use rollsim::systems::dice::{exact, program};
    let mut g = c.benchmark_group("dice_law");
    g.sample_size(10);
    for (name, q) in [
        ("penetrating", "let a = d10 explode depth 6 in let b = d10 explode depth 6 in let c = d8 explode depth 6 in (a - a / 10) + (b - b / 10) + (c - c / 8)"),
        ("chain", "let hits = 20d6 count >= 3 in let wounds = (hits)d6 count >= 4 in let saves = (wounds)d6 count >= 5 in wounds - saves"),
        ("doubles", "let a = d6 in let b = d6 in if a == b then a + b + (repeat t = 0, go = 1 until go == 0 do t = t + d6, go = d6 == 6 limit 8 then t) else a + b"),
        // Short rows of the mechanics table, where a fresh process's 0.2 ms bar is
        // the law's and the tables' together.
        ("lethal_hits", "let p = 20d6 in let w = p count 6 + (p count >= 3 - p count 6)d6 count >= 4 in (w)d6 count <= 2"),
        ("mortal_wounds", "let p = 12d6 in p count 6 + ((p count >= 3 - p count 6)d6 count >= 3)d6 count <= 3"),
        ("basic_save", "let dmg = 6d6 in let r = d20 in let t = r + 8 in let deg = (t >= 31) + (t >= 21) + (t > 11) + (r == 20) - (r == 1) in if deg >= 3 then 0 else if deg == 2 then dmg / 2 else if deg == 1 then dmg else 2 * dmg"),
        ("scorching_ray", "let r = 3d20 in (2 * r count >= 8 + 2 * r count 20)d6"),
        ("torg", "let t = d20 explode on 10, 20 in if t == 1 then -12 else if t == 2 then -10 else if t <= 4 then -8 else if t <= 6 then -5 else if t <= 8 then -2 else if t <= 10 then -1 else if t <= 12 then 0 else if t <= 14 then 1 else if t <= 20 then t - 13 else 8 + (t - 21) / 5"),
        ("farkle", "let p = 6d6 in let c1 = p count 1 in let c5 = p count 5 in let m = p maxset in if m == 6 then 3000 else if p sets 3 == 2 then 2500 else if p straight == 6 or p sets 2 == 3 or (m == 4 and p sets 2 == 2) then 1500 else (if m == 5 then 2000 else if m == 4 then 1000 else 1000 * (c1 == 3) + 200 * (p count 2 == 3) + 300 * (p count 3 == 3) + 400 * (p count 4 == 3) + 500 * (c5 == 3) + 600 * (p count 6 == 3)) + 100 * c1 * (c1 < 3) + 50 * c5 * (c5 < 3)"),
        ("reign", "let p = 7d10 in let w = p maxset in if w < 2 then 0 else 100 * w + p mode"),
        ("dragon_die", "let p = 2d6 in let dragon = d6 in if p maxset >= 2 or p count == dragon >= 1 then dragon else 0"),
        ("edge", "12d6 again 6 count >= 5"),
        ("nine_again", "8d10 again >= 9 count >= 8"),
        ("eight_again", "7d10 again >= 8 count >= 8"),
        ("risus", "repeat a = 4, b = 3 until a == 0 or b == 0 do let x = (a)d6 in let y = (b)d6 in a = a - (x < y), b = b - (y < x) then a - b"),
        ("space_cannon", "let shots = 2d10 count >= 6 in repeat c = 3 - shots, d = 2 until c <= 0 or d <= 0 do let hc = (c)d10 count >= 7 in let hd = (d)d10 count >= 9 in c = max(0, c - hd), d = max(0, d - hc) then c - d"),
        ("three_players", "let sa = (let a = 6d6 in a count 6 * 49 + a count 5 * 7 + a count 4) in let sb = (let b = 6d6 in b count 6 * 49 + b count 5 * 7 + b count 4) in let sc = (let c = 6d6 in c count 6 * 49 + c count 5 * 7 + c count 4) in if sa > max(sb, sc) then 1 else if sb > max(sa, sc) then 2 else if sc > max(sa, sb) then 3 else 0"),
    ] {
        let (n, _) = program::parse_result(q, &[]).expect("a valid expression");
        g.bench_function(format!("{name}/parse"), |b| {
            b.iter(|| black_box(program::parse_result(q, &[]).is_ok()))
        });
        g.bench_function(format!("{name}/law"), |b| {
            b.iter(|| black_box(exact::first_law(&n, None, &Default::default()).is_ok()))
        });
    }
    g.finish();
}

criterion_group!(benches, exact, language, monte_carlo, hordes, law);
criterion_main!(benches);
