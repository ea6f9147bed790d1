//! The README's worked examples: every image it shows exists, and every number it quotes
//! for the turn-spanning scenarios (issue #13) is the exact value, to the digits quoted.

use crate::util::{load_with, root};
use rollsim::model::Compiled;

/// What a quoted number is: the exact probability of a metric's value (in percent), or
/// its exact mean.
enum Quote {
    Percent(&'static str, &'static str),
    Mean(&'static str),
}

/// (config, `--set` overrides, scenario, what, the number as the README prints it).
const QUOTES: &[(&str, &[&str], &str, Quote, &str)] = &[
    // rush: a whole play
    (
        "rush.toml",
        &[],
        "play-jack-picks-up-passes-to-striker",
        Quote::Percent("result", "Strike!"),
        "10.94",
    ),
    (
        "rush.toml",
        &[],
        "play-striker-dashes-picks-up-strikes",
        Quote::Percent("result", "Strike!"),
        "28.20",
    ),
    (
        "rush.toml",
        &[],
        "play-striker-dashes-picks-up-strikes",
        Quote::Percent("result", "falls over dashing"),
        "53.1",
    ),
    // descent: defence dice, Iron Shield, Guard, fatigue, effects
    (
        "descent.toml",
        &[],
        "beastmen-turn-defence-die",
        Quote::Percent("fate", "dies"),
        "4.94",
    ),
    (
        "descent.toml",
        &[],
        "beastmen-turn-iron-shield",
        Quote::Percent("fate", "dies"),
        "1.50",
    ),
    (
        "descent.toml",
        &[],
        "beastmen-turn-guard",
        Quote::Percent("guard", "attacker killed"),
        "64.12",
    ),
    (
        "descent.toml",
        &[],
        "beastmen-turn-guard",
        Quote::Percent("fate", "dies"),
        "12.22",
    ),
    (
        "descent.toml",
        &[],
        "fighter-fatigue-split@4+0",
        Quote::Percent("fate", "dies"),
        "61.46",
    ),
    (
        "descent.toml",
        &[],
        "fighter-fatigue-split@3+1",
        Quote::Percent("fate", "dies"),
        "60.50",
    ),
    (
        "descent.toml",
        &[],
        "fighter-fatigue-split@2+2",
        Quote::Percent("fate", "dies"),
        "56.77",
    ),
    (
        "descent.toml",
        &[],
        "fighter-fatigue-split@2+2",
        Quote::Mean("damage"),
        "7.59",
    ),
    (
        "descent.toml",
        &[],
        "fighter-fatigue-split@4+0",
        Quote::Mean("damage"),
        "7.59",
    ),
    (
        "descent.toml",
        &[],
        "mace-stuns-ogre",
        Quote::Percent("stun", "1"),
        "36.42",
    ),
    (
        "descent.toml",
        &[],
        "mace-stuns-ogre",
        Quote::Mean("damage"),
        "1.64",
    ),
    (
        "descent.toml",
        &["rules.surge_effects=last"],
        "mace-stuns-ogre",
        Quote::Percent("stun", "1"),
        "0.00",
    ),
    // skirmish: combat, the firefight's economy
    (
        "skirmish.toml",
        &[],
        "warband-charges-spearmen-combat",
        Quote::Percent("outcome", "Spearmen wins"),
        "37.9",
    ),
    (
        "skirmish.toml",
        &[],
        "warband-charges-spearmen-combat",
        Quote::Percent("outcome", "Warband wins"),
        "1.07",
    ),
    (
        "skirmish.toml",
        &[],
        "warband-charges-spearmen-combat",
        Quote::Percent("outcome", "both out"),
        "61.0",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-fatigue",
        Quote::Percent("outcome", "Archers wins"),
        "74.64",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-regroup",
        Quote::Percent("outcome", "Archers wins"),
        "93.21",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-regroup.b_regroup=20"],
        "archers-vs-skirmishers-regroup",
        Quote::Percent("outcome", "Archers wins"),
        "85.37",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Archers wins"),
        "35.06",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Skirmishers wins"),
        "31.43",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false"],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Archers wins"),
        "45.75",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false"],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Skirmishers wins"),
        "18.96",
    ),
    // dozen: reactions, a push off a bridge, green dice
    (
        "dozen.toml",
        &[],
        "thief-runs-past-two-archers",
        Quote::Percent("condition", "casualty"),
        "2.51",
    ),
    (
        "dozen.toml",
        &[],
        "thief-runs-past-two-archers",
        Quote::Percent("condition", "unhurt"),
        "42.11",
    ),
    (
        "dozen.toml",
        &[],
        "fighter-pushes-dwarf-off-bridge",
        Quote::Percent("result", "attacker wins"),
        "62.31",
    ),
    (
        "dozen.toml",
        &[],
        "fighter-pushes-dwarf-off-bridge",
        Quote::Mean("fall_hp_lost"),
        "1.66",
    ),
    (
        "dozen.toml",
        &[],
        "fighter-pushes-dwarf-off-bridge",
        Quote::Percent("defender_condition", "casualty"),
        "32.90",
    ),
    (
        "dozen.toml",
        &[],
        "duel-fighter-vs-dwarf-green-dice",
        Quote::Mean("activations"),
        "5.95",
    ),
    (
        "dozen.toml",
        &[],
        "duel-fighter-vs-dwarf-no-green",
        Quote::Mean("activations"),
        "5.15",
    ),
    (
        "dozen.toml",
        &[],
        "duel-fighter-vs-dwarf-green-dice",
        Quote::Percent("winner", "Fighter wins"),
        "81.74",
    ),
    (
        "dozen.toml",
        &[],
        "duel-fighter-vs-dwarf-no-green",
        Quote::Percent("winner", "Fighter wins"),
        "82.07",
    ),
];

fn exact_value(c: &Compiled, q: &Quote) -> f64 {
    let e = c.exact.as_ref().expect("exact");
    let metric = |name: &str| {
        c.metrics
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("{}: no metric {name}", c.name))
    };
    match q {
        Quote::Percent(name, label) => {
            let m = metric(name);
            let v = m
                .labels
                .iter()
                .position(|l| l == label)
                .unwrap_or_else(|| panic!("{}: {name} has no value {label}", c.name));
            100.0 * m.project_f64(e)[v]
        }
        Quote::Mean(name) => {
            let m = metric(name);
            m.project_f64(e)
                .iter()
                .enumerate()
                .map(|(v, p)| v as f64 * p)
                .sum()
        }
    }
}

#[test]
fn every_quoted_number_is_the_exact_value_and_in_the_readme() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for (file, sets, name, q, quoted) in QUOTES {
        let cfg = load_with(file, sets);
        let c = cfg.compile(name).unwrap();
        let v = exact_value(&c, q);
        let decimals = quoted.split('.').nth(1).map_or(0, str::len);
        let shown = format!("{v:.decimals$}");
        assert_eq!(&shown, quoted, "{file} {name}: exact {v}");
        // The README prints it (as a percentage where it is one).
        let text = match q {
            Quote::Percent(..) => format!("{quoted}%"),
            Quote::Mean(_) => quoted.to_string(),
        };
        if *quoted != "0.00" {
            assert!(
                readme.contains(&text),
                "README does not quote {text} ({name})"
            );
        }
    }
}

#[test]
fn every_image_the_readme_shows_exists() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut n = 0;
    for part in readme.split("](").skip(1) {
        let path = part.split(')').next().unwrap();
        if path.starts_with("docs/") {
            assert!(root().join(path).is_file(), "README shows missing {path}");
            n += 1;
        }
    }
    assert!(n >= 15, "{n} images");
}
