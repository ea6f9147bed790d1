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
        Quote::Percent("outcome", "Spearmen win"),
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
        Quote::Percent("outcome", "Archers win"),
        "74.64",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-regroup",
        Quote::Percent("outcome", "Archers win"),
        "93.21",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-regroup.b_regroup=20"],
        "archers-vs-skirmishers-regroup",
        Quote::Percent("outcome", "Archers win"),
        "85.37",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Archers win"),
        "35.06",
    ),
    (
        "skirmish.toml",
        &[],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Skirmishers win"),
        "31.43",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false"],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Archers win"),
        "45.75",
    ),
    (
        "skirmish.toml",
        &["scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false"],
        "archers-vs-skirmishers-ready-markers",
        Quote::Percent("outcome", "Skirmishers win"),
        "18.96",
    ),
    // dice: the Blades in the Dark action roll
    (
        "dice-examples.toml",
        &[],
        "blades-action",
        Quote::Percent("outcome", "failure"),
        "12.5",
    ),
    (
        "dice-examples.toml",
        &[],
        "blades-action",
        Quote::Percent("outcome", "partial success"),
        "45.37",
    ),
    (
        "dice-examples.toml",
        &[],
        "blades-action",
        Quote::Percent("outcome", "full success"),
        "34.72",
    ),
    (
        "dice-examples.toml",
        &[],
        "blades-action",
        Quote::Percent("outcome", "critical"),
        "7.41",
    ),
    // dice: a duel to the end, attrition
    (
        "dice-examples.toml",
        &[],
        "fighter-duels-orc",
        Quote::Percent("outcome", "the fighter wins"),
        "49.98",
    ),
    (
        "dice-examples.toml",
        &[],
        "fighter-duels-orc",
        Quote::Percent("outcome", "both fall"),
        "10.32",
    ),
    (
        "dice-examples.toml",
        &["units.fighter.hp=16"],
        "fighter-duels-orc",
        Quote::Percent("outcome", "the fighter wins"),
        "65.06",
    ),
    (
        "dice-examples.toml",
        &[],
        "squads-shoot-it-out",
        Quote::Percent("value", "0"),
        "65.07",
    ),
    // dice: Genesys narrative dice, named results
    (
        "dice-examples.toml",
        &[],
        "genesys-check",
        Quote::Percent("successes", "0"),
        "19.58",
    ),
    (
        "dice-examples.toml",
        &[],
        "genesys-check",
        Quote::Percent("triumphs", "1"),
        "8.33",
    ),
    (
        "dice-examples.toml",
        &[],
        "genesys-check",
        Quote::Mean("successes"),
        "1.0833",
    ),
    (
        "dice-examples.toml",
        &[],
        "genesys-check",
        Quote::Mean("advantages"),
        "0.4167",
    ),
    // dice: the Gloomhaven modifier deck
    (
        "dice-examples.toml",
        &[],
        "gloomhaven-attack",
        Quote::Mean("value"),
        "3",
    ),
    (
        "dice-examples.toml",
        &[],
        "gloomhaven-advantage",
        Quote::Mean("value"),
        "3.7684",
    ),
    (
        "dice-examples.toml",
        &[],
        "gloomhaven-advantage",
        Quote::Percent("value", "6"),
        "10",
    ),
    // dice: Infinity's face to face
    (
        "dice-examples.toml",
        &[],
        "infinity-face-to-face",
        Quote::Mean("active_hits"),
        "1.365",
    ),
    (
        "dice-examples.toml",
        &[],
        "infinity-face-to-face",
        Quote::Percent("active_hits", "0"),
        "23.79",
    ),
    (
        "dice-examples.toml",
        &[],
        "infinity-face-to-face",
        Quote::Percent("reactive_hits", "1"),
        "18",
    ),
    // dice: damage over models
    (
        "dice-examples.toml",
        &[],
        "warhammer-allocate",
        Quote::Mean("killed"),
        "3.1687",
    ),
    (
        "dice-examples.toml",
        &[],
        "warhammer-allocate",
        Quote::Percent("killed", "5"),
        "10.11",
    ),
    (
        "dice-examples.toml",
        &[],
        "warhammer-allocate",
        Quote::Mean("wounds_left"),
        "3.4416",
    ),
    // dice: choices after the roll
    (
        "dice-examples.toml",
        &[],
        "yahtzee-in-three-rolls",
        Quote::Percent("yahtzee", "1"),
        "4.6029",
    ),
    (
        "dice-examples.toml",
        &[],
        "yahtzee-in-three-rolls",
        Quote::Mean("alike"),
        "3.0792",
    ),
    (
        "dice-examples.toml",
        &[],
        "cortex-total-and-effect",
        Quote::Mean("total"),
        "12.3474",
    ),
    (
        "dice-examples.toml",
        &[],
        "cortex-total-and-effect",
        Quote::Percent("effect", "10"),
        "30.99",
    ),
    (
        "dice-examples.toml",
        &[],
        "cortex-total-and-effect",
        Quote::Percent("effect", "4"),
        "8.31",
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
                .map(|(v, p)| m.value(v) * p)
                .sum()
        }
    }
}

#[test]
fn every_quoted_number_is_the_exact_value_and_in_the_readme() {
    let readme = crate::util::all_docs();
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
fn every_image_the_readme_and_docs_show_exists() {
    let docs = crate::util::all_docs();
    let mut n = 0;
    for part in docs.split("![").skip(1) {
        let Some(path) = part.split("](").nth(1).and_then(|p| p.split(')').next()) else {
            continue;
        };
        // README.md names `docs/img/...`; a page of docs/ names `img/...` or `../img/...`.
        let name = path.rsplit("img/").next().unwrap();
        assert!(
            root().join("docs/img").join(name).is_file(),
            "the docs show missing {path}"
        );
        n += 1;
    }
    assert!(n >= 15, "{n} images");
}

/// The dice-language reference table: every example's quoted result is its exact value.
#[test]
fn every_dice_language_example_gives_the_quoted_result() {
    let readme = crate::util::doc("dice-language.md");
    let table = readme
        .split("| write | means | example | result (exact) |")
        .nth(1)
        .expect("the dice-language table");
    let compile = |expr: &str| {
        let text = format!("system = \"dice\"\n[scenarios.s]\nroll = {expr:?}\n");
        rollsim::config::load_str(&text, "readme.toml", &[])
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .compile("s")
            .unwrap()
    };
    let mean = |c: &Compiled| exact_value(c, &Quote::Mean("value"));
    let mut checked = 0;
    for line in table.lines().skip(2) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (example, result) = (cells[3].trim_matches('`'), cells[4]);
        if result.is_empty() {
            continue;
        }
        let c = compile(example);
        if let Some(other) = result.strip_prefix("as `").map(|r| r.trim_end_matches('`')) {
            let (a, b) = (c.exact.clone().unwrap(), compile(other).exact.unwrap());
            assert_eq!(a.len(), b.len(), "{example} as {other}");
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-12, "{example} as {other}: {x} {y}");
            }
            checked += 1;
            continue;
        }
        for part in result.split(", ") {
            if let Some(m) = part.strip_prefix("mean ") {
                let decimals = m.split('.').nth(1).map_or(0, str::len);
                let v = mean(&c);
                let shown = format!("{v:.decimals$}");
                assert_eq!(
                    shown.trim_end_matches('0').trim_end_matches('.'),
                    m.trim_end_matches('0').trim_end_matches('.'),
                    "{example}: mean {v}"
                );
            } else if let Some((label, p)) = part.split_once(") ") {
                assert_eq!(format!("{})", label), c.headline.label, "{example}");
                let e = c.exact.as_ref().unwrap();
                let h = c.metrics[c.headline.metric].project_f64(e);
                let v = 100.0 * c.headline.values.iter().map(|&i| h[i]).sum::<f64>();
                let p = p.trim_end_matches('%');
                let decimals = p.split('.').nth(1).map_or(0, str::len);
                assert_eq!(format!("{v:.decimals$}"), p, "{example}: {v}");
            } else {
                panic!("{example}: cannot read `{part}`");
            }
        }
        checked += 1;
    }
    assert!(checked >= 18, "{checked} examples checked");
}

#[test]
fn the_readme_test_command_is_what_ci_runs() {
    let readme = std::fs::read_to_string(crate::util::root().join("README.md")).unwrap();
    let ci = std::fs::read_to_string(crate::util::root().join(".ci/run")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains("# the whole test suite"))
        .expect("the README names its test command");
    let command = line.split('#').next().unwrap().trim();
    assert_eq!(command, "cargo test --release");
    assert!(
        ci.lines().any(|l| l.trim() == command),
        ".ci/run must run `{command}`"
    );
}
