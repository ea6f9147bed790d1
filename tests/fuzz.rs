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
