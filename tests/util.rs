//! Helpers shared by the test modules.

use rollsim::config::{self, AnalysisConfig};
use rollsim::model::Compiled;
use rollsim::sim::{self, Budget, Hidden, Histogram};
use std::path::{Path, PathBuf};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn shipped(name: &str) -> PathBuf {
    root().join("configs").join(name)
}

/// A designer's project in `dir`: a `configs/` folder holding these shipped configs.
pub fn project(dir: &Path, names: &[&str]) {
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    for n in names {
        std::fs::copy(shipped(n), dir.join("configs").join(n)).unwrap();
    }
}

pub fn load(name: &str) -> AnalysisConfig {
    config::load(&shipped(name), &[], &rollsim::Cancel::new()).expect("shipped config loads")
}

/// A shipped config with `--set` overrides.
pub fn load_with(name: &str, sets: &[&str]) -> AnalysisConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    config::load(&shipped(name), &sets, &rollsim::Cancel::new()).expect("shipped config loads")
}

/// A config from text, with the boilerplate units every rush test uses.
pub fn rush_config(extra: &str) -> AnalysisConfig {
    rush_config_with(extra, &[])
}

/// As [`rush_config`], with `--set` overrides.
pub fn rush_config_with(extra: &str, sets: &[&str]) -> AnalysisConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let base = std::fs::read_to_string(shipped("rush.toml")).unwrap();
    // keep [run], [rules] and the units; replace the scenarios
    let head = base.split("[scenarios.").next().unwrap();
    config::load_str(&format!("{head}\n{extra}"), "test.toml", &sets).expect("test config loads")
}

/// A config from text after the `[rules]` and characters of configs/dozen.toml.
pub fn dozen_config(extra: &str) -> AnalysisConfig {
    dozen_config_with(extra, &[])
}

/// As [`dozen_config`], with `--set` overrides.
pub fn dozen_config_with(extra: &str, sets: &[&str]) -> AnalysisConfig {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let base = std::fs::read_to_string(shipped("dozen.toml")).unwrap();
    let head = base.split("[scenarios.").next().unwrap();
    config::load_str(&format!("{head}\n{extra}"), "test.toml", &sets).expect("test config loads")
}

pub fn simulate(c: &Compiled, trials: u64, seed: u64, threads: usize) -> Histogram {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let stop = rollsim::Cancel::new();
    pool.install(|| {
        sim::run(
            c.trial.as_ref(),
            seed,
            Budget::Trials(trials),
            &|_| 0.0,
            &Hidden,
            &stop,
            None,
        )
    })
    .unwrap()
}

/// The exact probability of value `label` of metric `metric`.
pub fn exact_of(c: &Compiled, metric: &str, label: &str) -> f64 {
    let m = c.metrics.iter().find(|m| m.name == metric).expect("metric");
    let v = m.labels.iter().position(|l| l == label).expect("label");
    m.project_f64(c.exact.as_ref().expect("exact"))[v]
}

pub fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Monte Carlo (`n` trials, `seed`) within 4.5 standard errors of the exact value, for
/// every value of each metric named in `metrics`.
pub fn assert_agrees(c: &Compiled, metrics: &[&str], n: u64, seed: u64) {
    let h = simulate(c, n, seed, 2);
    let r = rollsim::report::summarize(c, &h, seed, "t", "t");
    for m in r
        .metrics
        .iter()
        .filter(|m| metrics.contains(&m.name.as_str()))
    {
        for row in &m.rows {
            let e = row.exact.expect("an exact value");
            // The report's z: the normal deviate, or for a rare value the exact binomial
            // tail turned into one (1 event where 0.03 were expected is a 3% event).
            let z = row.z.expect("a z against the exact value");
            assert!(
                z.abs() < 4.5,
                "{} {} {}: {} vs {e} (z {z})",
                c.name,
                m.name,
                row.label,
                row.probability
            );
        }
    }
}

/// The binary, as a designer runs it.
pub fn rollsim() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("rollsim").unwrap()
}

/// A command's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A token no test cancels.
static NEVER: std::sync::LazyLock<rollsim::Cancel> = std::sync::LazyLock::new(rollsim::Cancel::new);

/// The context a balance computation runs in here: never cancelled, no progress shown.
pub fn ctx() -> rollsim::run::Hooks<'static> {
    rollsim::run::Hooks::new(&NEVER, &rollsim::sim::Hidden)
}

/// A balance job on `source`'s `target`.
pub fn job<'a>(
    source: &'a rollsim::balance::Source,
    target: &'a rollsim::balance::Target,
    pick: &'a rollsim::balance::Pick,
    seed: u64,
    trials: Option<u64>,
) -> rollsim::balance::Job<'a> {
    rollsim::balance::Job {
        source,
        target,
        pick,
        seed,
        trials,
        ctx: ctx(),
        share: &WHOLE,
    }
}

/// Every item computed here (not a shard, not a merge).
static WHOLE: std::sync::LazyLock<rollsim::balance::Share> =
    std::sync::LazyLock::new(|| rollsim::balance::Share::All);

/// Every file under `dir` (at any depth) whose name ends in `.ext`, sorted.
pub fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every page of `docs/`.
pub fn docs_pages() -> Vec<PathBuf> {
    files_with(&root().join("docs"), "md")
}

/// The README and every page of `docs/`, one text: what a promise quoted "in the docs"
/// is checked against, wherever a page moves it.
pub fn all_docs() -> String {
    std::iter::once(root().join("README.md"))
        .chain(docs_pages())
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One page of `docs/`, e.g. `cluster.md`.
pub fn doc(name: &str) -> String {
    std::fs::read_to_string(root().join("docs").join(name))
        .unwrap_or_else(|e| panic!("docs/{name}: {e}"))
}

/// The Orc's Slam on the Human Guard (`rush.toml`, `slam-orc-vs-human-guard`), worked
/// out apart from the library: the Orc rolls 5 dice that succeed on 3+ (2/3 each), the
/// Guard 4 on 4+ (1/2 each); more successes win the Slam, as many draw. Over the
/// 3^5 x 2^4 = 3,888 equally weighted counts, (wins, draws) = (2,802, 681): 467/648
/// and 227/1296.
pub fn orc_slams_guard() -> (u64, u64) {
    let choose = |n: u64, k: u64| (0..k).fold(1, |acc, j| acc * (n - j) / (j + 1));
    let (mut win, mut draw) = (0, 0);
    for a in 0..=5u64 {
        for d in 0..=4u64 {
            let ways = choose(5, a) * 2u64.pow(a as u32) * choose(4, d);
            if a > d {
                win += ways;
            } else if a == d {
                draw += ways;
            }
        }
    }
    (win, draw)
}

/// P(the slammer wins) in a Slam and Slamback, apart from the library: `a` dice that
/// succeed on `a_target`+ against `d` dice on `d_target`+ (a d6 each), the slammer
/// winning with more successes.
pub fn slam_wins(a: u32, a_target: u32, d: u32, d_target: u32) -> f64 {
    slam_where(a, a_target, d, d_target, |x, y| x > y)
}

/// The same two pools: the probability of the (slammer's, defender's) success counts
/// that `keep` picks, summed over both binomials, P(x of a) P(y of d) with
/// P(x of n) = C(n, x) p^x (1 - p)^(n - x) and p = (7 - target) / 6.
pub fn slam_where(
    a: u32,
    a_target: u32,
    d: u32,
    d_target: u32,
    keep: impl Fn(u32, u32) -> bool,
) -> f64 {
    let binomial = |n: u32, target: u32| {
        let p = (7 - target) as f64 / 6.0;
        let choose = |k: u32| (0..k).fold(1.0, |acc, j| acc * (n - j) as f64 / (j + 1) as f64);
        (0..=n)
            .map(|k| choose(k) * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32))
            .collect::<Vec<f64>>()
    };
    let (xs, ys) = (binomial(a, a_target), binomial(d, d_target));
    let mut sum = 0.0;
    for (x, p) in (0..).zip(&xs) {
        for (y, q) in (0..).zip(&ys) {
            if keep(x, y) {
                sum += p * q;
            }
        }
    }
    sum
}

/// The denominator of [`orc_slams_guard`]'s counts.
pub const ORC_SLAMS_GUARD_WAYS: u64 = 3_888;

/// Greatest common divisor, to write a count over its ways as a reduced fraction.
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A dice config of one wide distribution (issue #57): the margin of 8 exploding dice
/// against 6, 1s cancelling successes, values from -132 up. Tests of charts and the live
/// page append scenarios to it.
pub const EXPLODING_MARGIN: &str = r#"system = "dice"
[units.a]
name = "Raiders"
pool = 8
[units.b]
name = "Guards"
pool = 6
[scenarios.exploding-margin]
unit = "a"
opponent = "b"
roll = "let p = (pool)d6 in max(0, p count >= 5 - p count 1 + (p count 6)d6 again 6 count >= 5)"
vs = "let p = (pool)d6 in max(0, p count >= 5 - p count 1 + (p count 6)d6 again 6 count >= 5)"
"#;

/// Euclid's greatest common divisor of two big integers (fractions past `u128` in the
/// tests' own enumerators).
pub fn big_gcd(a: &num_bigint::BigUint, b: &num_bigint::BigUint) -> num_bigint::BigUint {
    let (mut a, mut b) = (a.clone(), b.clone());
    while b != num_bigint::BigUint::from(0u8) {
        let r = &a % &b;
        a = b;
        b = r;
    }
    a
}

/// Every file below `dir`, at any depth.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
