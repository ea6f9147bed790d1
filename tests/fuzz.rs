//! No input makes the config loader panic: mutated shipped configs and arbitrary `--set`
//! arguments give Ok or a located error, never a panic. (Issue 7 asks for a 10^5-input
//! fuzz run; this is the always-on smoke version.)

use proptest::prelude::*;
use rollsim::config::load_str;

fn shipped() -> String {
    std::fs::read_to_string(crate::util::shipped("rush.toml")).unwrap()
}

/// Fragments that make a mutation likely to stay parseable TOML but hit validation.
const TOKENS: &[&str] = &[
    "7",
    "0",
    "-1",
    "\"4+\"",
    "\"x\"",
    "true",
    "[]",
    "{}",
    "99999999999",
    "kind = \"slam\"",
    "\n[units.x]\n",
    "\n[scenarios.y]\n",
    "=",
    "\"",
    "[",
    "#",
    "1.5",
    "dashes = 0",
    "hits = -2",
];

/// `n` cases from a fixed seed, so that a run in CI is the run anyone repeats; a
/// `PROPTEST_RNG_SEED` set in the environment explores other cases.
fn cases(n: u32) -> ProptestConfig {
    let mut c = ProptestConfig::with_cases(n);
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = proptest::test_runner::RngSeed::Fixed(20261201);
    }
    c
}

proptest! {
    #![proptest_config(cases(1500))]

    #[test]
    fn mutated_configs_never_panic(at in 0usize..10_000, cut in 0usize..40, tok in 0usize..TOKENS.len()) {
        let text = shipped();
        let at = at % text.len();
        let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
        let end = (at + cut).min(text.len());
        let end = (end..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap();
        let mutated = format!("{}{}{}", &text[..at], TOKENS[tok], &text[end..]);
        let _ = load_str(&mutated, "fuzz.toml", &[]);
    }

    #[test]
    fn arbitrary_sets_never_panic(key in "[a-z_.\\-]{0,40}", value in ".{0,20}") {
        let _ = load_str(&shipped(), "fuzz.toml", &[format!("{key}={value}")]);
        let _ = load_str(&shipped(), "fuzz.toml", std::slice::from_ref(&key));
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = load_str(&text, "fuzz.toml", &[]);
    }
}

proptest! {
    #![proptest_config(cases(200))]

    /// Any stat line the loader accepts compiles every dozen scenario to a valid PMF
    /// whose states every metric can label (the generic paths included: big pools).
    #[test]
    fn dozen_random_stats_compile_to_valid_pmfs(
        stats in proptest::collection::vec(1i64..=12, 16),
        levels in proptest::collection::vec(0i64..=12, 8),
        natural_fail in 0i64..=12,
        second in 0usize..3,
    ) {
        let ids = ["thief", "temple_knight", "fighter", "dwarf"];
        let mut sets = vec![
            format!("rules.natural_fail={natural_fail}"),
            format!("rules.second_charge={}", ["after_win", "always", "never"][second]),
        ];
        for (i, id) in ids.iter().enumerate() {
            sets.push(format!("characters.{id}.dx={}", stats[4 * i]));
            sets.push(format!("characters.{id}.co={}", stats[4 * i + 1]));
            sets.push(format!("characters.{id}.st={}", stats[4 * i + 2]));
            sets.push(format!("characters.{id}.weapon={}", stats[4 * i + 3] - 1));
            sets.push(format!("characters.{id}.skills.melee={}", levels[2 * i]));
            sets.push(format!("characters.{id}.skills.endurance={}", levels[2 * i + 1]));
        }
        let text = std::fs::read_to_string(crate::util::shipped("dozen.toml")).unwrap();
        let cfg = load_str(&text, "fuzz.toml", &sets).unwrap();
        for name in cfg.scenario_names() {
            let c = cfg.compile(&name).unwrap();
            let exact = c.exact.as_ref().unwrap();
            prop_assert_eq!(exact.len(), c.trial.states());
            rollsim::pmf::check_pmf(exact, 1e-9).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            for m in &c.metrics {
                prop_assert_eq!(m.map.len(), exact.len());
                prop_assert!(m.map.iter().all(|&v| (v as usize) < m.labels.len()), "{} {}", name, m.name);
            }
        }
    }
}

/// 10^5 mutated configs of every shipped system and `--set` arguments: each gives Ok or a
/// located error, never a panic (issue #7). Deterministic (a fixed xorshift stream), spread
/// over the cores.
#[test]
fn fuzz_100k_inputs_never_panic() {
    use rayon::prelude::*;
    let configs: Vec<String> = [
        "rush.toml",
        "rush-exploding.toml",
        "dozen.toml",
        "descent.toml",
        "skirmish.toml",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(crate::util::shipped(f)).unwrap())
    .collect();
    const EXTRA: &[&str] = &[
        "-3",
        "13",
        "0",
        "100",
        "-1",
        "\"\"",
        "\"X\"",
        "[]",
        "[1]",
        "[1, 2, 3]",
        "{}",
        "{ cost = 0 }",
        "true",
        "2..6",
        "\"H|R\"",
        "\"R99 99H\"",
        "nan",
        "inf",
        "1e309",
        "\"4+\"",
        "\"very hard\"",
        "\n[scenarios.z]\nkind = \"duel\"\n",
        "\n[characters.q]\n",
        "\n[dice.e]\nfaces = []\n",
        "\n[units.u]\nmodels = 0\n",
        "shields = true",
        "reaction = \"shield_wall\"",
    ];
    let n = 100_000u64;
    let panics: Vec<u64> = (0..n)
        .into_par_iter()
        .filter(|&i| {
            let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ i.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            let text = &configs[(next() % configs.len() as u64) as usize];
            let at = (next() % text.len() as u64) as usize;
            let at = (0..=at).rev().find(|&j| text.is_char_boundary(j)).unwrap();
            let cut = (next() % 24) as usize;
            let end = (at + cut).min(text.len());
            let end = (end..=text.len())
                .find(|&j| text.is_char_boundary(j))
                .unwrap();
            let tok = EXTRA[(next() % EXTRA.len() as u64) as usize];
            let mutated = format!("{}{}{}", &text[..at], tok, &text[end..]);
            let sets: Vec<String> = if i % 4 == 0 {
                // A --set on a real path with a hostile value.
                let keys = [
                    "units.orc.strength",
                    "characters.fighter.dx",
                    "heroes.mage.power_dice",
                    "units.spearmen.models",
                    "rules.die",
                    "scenarios.x.distance",
                    "run.trials",
                ];
                vec![format!(
                    "{}={}",
                    keys[(next() % keys.len() as u64) as usize],
                    tok
                )]
            } else {
                Vec::new()
            };
            std::panic::catch_unwind(|| {
                if let Ok(cfg) = load_str(&mutated, "fuzz.toml", &sets) {
                    // What loads must compile: compile the first scenario too.
                    if let Some(name) = cfg.scenario_names().first() {
                        let _ = cfg.compile(name);
                    }
                }
            })
            .is_err()
        })
        .collect();
    assert!(
        panics.is_empty(),
        "panics at inputs {:?}",
        &panics[..panics.len().min(10)]
    );
}

/// Random commands on random, sometimes broken, configs (issue #12): every command the
/// binary has, through the same library calls, with hostile names, metrics, ranges,
/// precisions and overrides. Each call answers or fails with a bad-input error (exit 2),
/// never a panic and never an internal error.
mod commands {
    use rollsim::app::balance::{
        CompareOptions, EqualizeOptions, Options, OverlayOptions, SweepOptions,
    };
    use rollsim::app::{self, balance as run_balance, AppError, Format, RunOptions};
    use std::path::{Path, PathBuf};

    const CONFIGS: &[&str] = &[
        "rush.toml",
        "rush-exploding.toml",
        "dozen.toml",
        "descent.toml",
        "skirmish.toml",
    ];
    const NAMES: &[&str] = &[
        "",
        "..",
        ".",
        "x@d4",
        "=1+2",
        "a/b",
        "crossbow-range@d99",
        "\u{0}",
    ];
    const METRICS: &[&str] = &[
        "result=double",
        "result=win,double",
        "damage",
        "kill=killed",
        "kill",
        "result",
        "target_turns_out_of_play",
        "nope",
        "result=nope",
        "=",
        "damage=1",
    ];
    const VARY: &[&str] = &[
        "attacker.strength=2..6",
        "defender.strength=6..2",
        "attacker.strength=0..9223372036854775807",
        "distance=1..10:3",
        "distance=1..",
        "target.armour=0..3",
        "extra_dice=-70..70",
        "weapon.pierce=0..2",
        "a.st=1..12",
        "shooter.shoot=-1..1",
        "units.orc.strength=2..3",
        "x=1..2",
        "=1..2",
        "attacker.=1..2",
        "power_dice=0..6",
        "hero.power_dice=0..5",
    ];
    const SETS: &[&str] = &[
        "units.orc.strength=2",
        "units.orc.strength=\"+3\"",
        "system=dozen",
        "run.trials=0",
        "rules.explode_on=6",
        "rules.base_dice=0",
        "characters.fighter.dx=13",
        "heroes.mage.power_dice=5",
        "units.archers.models=1",
        "scenarios.slam-orc-vs-human-guard.extra_dice=60",
        "a.b.c=1",
        "=",
    ];
    const TOKENS: &[&str] = &[
        "-3",
        "13",
        "0",
        "\"\"",
        "[]",
        "{}",
        "true",
        "\"4+\"",
        "\n[scenarios.z]\nkind = \"duel\"\n",
        "1e309",
    ];

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len())]
        }
        fn chance(&mut self, one_in: u64) -> bool {
            self.next().is_multiple_of(one_in)
        }
    }

    /// Case `i`: Err(what) if it panicked or failed as a bug would.
    pub fn case(i: u64, dir: &Path) -> Result<(), String> {
        if std::env::var_os("FUZZ_VERBOSE").is_some() {
            eprintln!("case {i}");
        }
        let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ i.wrapping_mul(0xBF58_476D_1CE4_E5B9) | 1);
        let file = r.pick(CONFIGS);
        let shipped = crate::util::shipped(file);
        let config: PathBuf = if r.chance(3) {
            let text = std::fs::read_to_string(&shipped).unwrap();
            let at = r.below(text.len());
            let at = (0..=at).rev().find(|&j| text.is_char_boundary(j)).unwrap();
            let end = (at + r.below(24)).min(text.len());
            let end = (end..=text.len())
                .find(|&j| text.is_char_boundary(j))
                .unwrap();
            let p = dir.join(format!("c{i}.toml"));
            let tok = r.pick(TOKENS);
            std::fs::write(&p, format!("{}{}{}", &text[..at], tok, &text[end..])).unwrap();
            p
        } else {
            shipped
        };
        let names: Vec<String> = rollsim::app::balance::load_source(&config, &[])
            .map(|s| {
                let infos = s.base.scenarios();
                let mut n: Vec<String> = infos.iter().map(|i| i.name.clone()).collect();
                n.extend(infos.iter().filter(|i| i.member).map(|i| i.table.clone()));
                n
            })
            .unwrap_or_default();
        let name = if !names.is_empty() && !r.chance(8) {
            names[r.below(names.len())].clone()
        } else {
            r.pick(NAMES).to_string()
        };
        let sets: Vec<String> = if r.chance(5) {
            vec![r.pick(SETS).to_string()]
        } else {
            vec![]
        };
        let out = dir.join(format!("o{i}"));
        let trials = Some(1 + r.next() % 3000);
        let metric = if r.chance(3) {
            Some(r.pick(METRICS).to_string())
        } else {
            None
        };
        let mut common = Options::new(&config, &name);
        common.metric = metric.clone();
        common.trials = trials;
        common.exact_only = r.chance(2);
        common.threads = Some(1);
        common.out = Some(out.clone());
        common.sets = sets.clone();
        common.plots = r.chance(20);
        let what = format!("case {i}: {file} -s {name:?} sets {sets:?} metric {metric:?}");
        let call = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || -> Result<String, AppError> {
                match r.below(9) {
                    0 => app::list(&config, &sets, &rollsim::Cancel::new()),
                    1 => app::check(&config, &sets, &rollsim::Cancel::new()),
                    2 | 3 => {
                        let mut o = RunOptions::new(&config);
                        o.scenarios = vec![name.clone()];
                        o.trials = trials;
                        o.threads = Some(1);
                        o.quiet = true;
                        o.out = Some(out.clone());
                        o.sets = sets.clone();
                        o.plots = r.chance(20);
                        o.formats = [Format::Csv, Format::Json, Format::Md, Format::Parquet]
                            .into_iter()
                            .filter(|_| r.chance(2))
                            .collect();
                        if r.chance(4) {
                            o.trials = None;
                            o.precision = Some([0.1, 1e-12, -1.0, 0.6, f64::NAN][r.below(5)]);
                            o.max_trials = 1 + r.next() % 5000;
                        }
                        app::run(&o)
                    }
                    4 => run_balance::compare(&CompareOptions {
                        common,
                        attackers: if r.chance(4) {
                            vec![r.pick(NAMES).to_string()]
                        } else {
                            vec![]
                        },
                        defenders: vec![],
                        best_response: r.chance(2),
                    }),
                    5 => {
                        let mut vary = vec![r.pick(VARY).to_string()];
                        if r.chance(3) {
                            vary.push(r.pick(VARY).to_string());
                        }
                        run_balance::sweep(&SweepOptions { common, vary })
                    }
                    6 => run_balance::sensitivity(&common),
                    7 => run_balance::equalize(&EqualizeOptions {
                        common,
                        target: if r.chance(2) {
                            Some([0.5, 2.0, -1.0, 0.0][r.below(4)])
                        } else {
                            None
                        },
                        pairs: r.chance(4),
                    }),
                    _ => {
                        let entry = format!("{}:{name}", config.display());
                        let other = if r.chance(2) {
                            format!("{entry}:{}", r.pick(SETS))
                        } else {
                            entry.clone()
                        };
                        run_balance::overlay(&OverlayOptions {
                            entries: vec![entry, other],
                            metric,
                            seed: None,
                            trials,
                            threads: Some(1),
                            out: Some(out.clone()),
                            plots: false,
                            svg: false,
                            cancel: rollsim::Cancel::new(),
                            texts: Default::default(),
                            sharing: Default::default(),
                        })
                    }
                }
            },
        ));
        let _ = std::fs::remove_dir_all(&out);
        if std::env::var_os("FUZZ_VERBOSE").is_some() {
            eprintln!("done {i}");
        }
        match call {
            Err(_) => Err(format!("{what}: panicked")),
            Ok(Err(e)) if e.exit_code() != 2 => Err(format!("{what}: exit {}: {e}", e.exit_code())),
            Ok(_) => Ok(()),
        }
    }

    /// Cases `from..to` over the cores; every failure, sorted. Plain threads, not a rayon
    /// iterator: each command builds its own pool, and a rayon worker waiting on another
    /// pool steals more cases onto its stack.
    pub fn run(from: u64, to: u64) -> Vec<String> {
        let dir = crate::util::tempdir();
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
        let mut bad: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let dir = dir.path();
                    s.spawn(move || {
                        (from + t..to)
                            .step_by(threads as usize)
                            .filter_map(|i| case(i, dir).err())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| {
                    h.join()
                        .unwrap_or_else(|_| vec!["a fuzz thread died".into()])
                })
                .collect()
        });
        bad.sort();
        bad
    }
}

/// A fixed slice of the command fuzz, always on.
#[test]
fn fuzz_commands_slice_never_panics() {
    let bad = commands::run(0, 300);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The whole command fuzz: `FUZZ_CASES=100000 cargo test --release -- --ignored fuzz_commands_full`.
#[test]
#[ignore]
fn fuzz_commands_full() {
    let n: u64 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let from: u64 = std::env::var("FUZZ_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let t0 = std::time::Instant::now();
    let bad = commands::run(from, from + n);
    eprintln!("{n} command cases in {:.0} s", t0.elapsed().as_secs_f64());
    assert!(
        bad.is_empty(),
        "{} failures:\n{}",
        bad.len(),
        bad[..bad.len().min(30)].join("\n")
    );
}

/// Pieces of the dice language, for expressions a fuzzer strings together.
const DICE_TOKENS: &[&str] = &[
    "d6",
    "3d6",
    "2d20",
    "dF",
    "d%",
    "d{0,1,2}",
    "d{hit,blank}",
    "(2)d4",
    "[2d6, 1d8]",
    "4",
    "0",
    "-",
    "+",
    "*",
    "/",
    ">=",
    "==",
    "<",
    "(",
    ")",
    "keep highest",
    "drop lowest 2",
    "explode",
    "again 6",
    "reroll 1",
    "reroll <= 2 always",
    "count >= 4",
    "highest",
    "lowest",
    "maxset",
    "sum",
    "let x =",
    "let p = 4d6 in",
    "in",
    "x",
    "p count 6",
    "p highest",
    "if",
    "then",
    "else",
    "pairs(3d6, 2d6)",
    "beats(2d12, 2d12, ties)",
    "1000000",
    "max",
    ",",
    "and",
    "or",
    "not",
    "repeat hp = 3 until hp <= 0 do hp = hp -",
    "repeat a =",
    "until",
    "do",
    "a = a + 1",
    "limit 5",
    "rounds",
];

proptest! {
    #![proptest_config(cases(1500))]

    /// Any string of language pieces: a located error, or a scenario whose exact
    /// distribution and Monte Carlo both run; never a panic.
    #[test]
    fn dice_expressions_never_panic(picks in proptest::collection::vec(0usize..DICE_TOKENS.len(), 1..12)) {
        let expr: Vec<&str> = picks.iter().map(|&i| DICE_TOKENS[i]).collect();
        let expr = expr.join(" ");
        let text = format!("system = \"dice\"\n[scenarios.s]\nroll = {expr:?}\n");
        if let Ok(cfg) = load_str(&text, "fuzz.toml", &[]) {
            let c = cfg.compile("s").unwrap();
            let h = crate::util::simulate(&c, 2_000, 1, 1);
            prop_assert_eq!(h.trials, 2_000);
        }
    }
}

/// Whole expressions the language accepts, for the fuzzer to combine.
const DICE_ATOMS: &[&str] = &[
    "3d6",
    "2d20 highest",
    "4dF",
    "d{0, 1, 2}",
    "[2d6, 1d8] keep highest 2",
    "4d6 drop lowest",
    "d6 explode",
    "5d10 again 10 count >= 7",
    "d6 reroll 1",
    "5d6 maxset",
    "(let x = d6 in x * x)",
    "(let p = 3d6 in p count 6 + p highest)",
    "(if d6 == 6 then 2d6 else d6)",
    "pairs(3d6, 2d6)",
    "beats(3d12, 2d12)",
    "7",
    "-3",
    "d%",
    "(d6 >= 3 and not d6 == 1 or d6 == 6)",
    "(repeat hp = 3 until hp <= 0 do hp = hp - (d6 >= 5) then rounds)",
    "(repeat a = 2, b = 2 until a <= 0 or b <= 0 do let x = 2d6 in let y = 2d6 in a = a - (y > x), b = b - (x > y) limit 30 then a - b)",
];

proptest! {
    #![proptest_config(cases(300))]

    /// Valid pieces joined by any operator: exact and Monte Carlo agree on the range and
    /// nothing panics (division by a roll of 0 gives 0, sums saturate).
    #[test]
    fn combined_dice_expressions_run(a in 0usize..DICE_ATOMS.len(), b in 0usize..DICE_ATOMS.len(), op in 0usize..8) {
        let ops = ["+", "-", "*", "/", ">=", "==", "<", "!="];
        // Parenthesised: `d6 explode >= 3` reads `>= 3` as the explosion's condition.
        let expr = format!("({}) {} ({})", DICE_ATOMS[a], ops[op], DICE_ATOMS[b]);
        let text = format!("system = \"dice\"\n[scenarios.s]\nroll = {expr:?}\n");
        let cfg = load_str(&text, "fuzz.toml", &[]).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let c = cfg.compile("s").unwrap();
        let h = crate::util::simulate(&c, 2_000, 1, 1);
        prop_assert_eq!(h.trials, 2_000);
    }
}
