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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

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
    #![proptest_config(ProptestConfig::with_cases(200))]

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
            rollsim::exact::check_pmf(exact, 1e-9).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
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
