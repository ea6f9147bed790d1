//! The README's worked examples: every image it shows exists, and every number it quotes
//! for the turn-spanning scenarios (issue #13) is the exact value, to the digits quoted:
//! the test works every number out itself (`derived`), the README is checked against
//! that working and the program against it too.

use crate::util::{load_with, root};
use crate::worked::*;
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
    let mut derivations = 0;
    for (file, sets, name, q, quoted) in QUOTES {
        let cfg = load_with(file, sets);
        let c = cfg.compile(name).unwrap();
        let v = exact_value(&c, q);
        let decimals = quoted.split('.').nth(1).map_or(0, str::len);
        // The README's digits are the test's own derivation where it has one, and the
        // program's exact value is that derivation.
        if let Some(d) = derived(name, sets, q) {
            assert_eq!(
                &format!("{d:.decimals$}"),
                quoted,
                "{file} {name}: derived {d}"
            );
            assert!(
                (v - d).abs() < 1e-9,
                "{file} {name}: exact {v}, derived {d}"
            );
            derivations += 1;
        }
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
    // Every quote is worked out by `derived` (a misspelt key would skip one).
    assert_eq!(derivations, QUOTES.len(), "quotes derived");
    assert_eq!(derivations, 60, "quotes derived");
}

/// The test's own working of a quoted number, in the units the README prints it (a
/// percentage or a mean), apart from the library: a closed form, an enumeration of every
/// roll, or a Markov chain over the state written here. Every quote has one; `None`
/// only for a key the match does not name (which the count in the test catches).
fn derived(name: &str, sets: &[&str], q: &Quote) -> Option<f64> {
    let what = match q {
        Quote::Percent(m, l) => format!("{m}={l}"),
        Quote::Mean(m) => format!("mean {m}"),
    };
    let set = sets.first().copied().unwrap_or("");
    Some(match (name, set, what.as_str()) {
        // rush (as tests/rush_rules.rs works them out): the jack picks up with 3 dice at
        // 4+ (2+ successes: 1/2) and passes 4 hexes with 2 dice: inaccurate 1/4, else 1
        // or 2 successes (1/2, 1/4); the striker catches with those successes + 1 die:
        // after 1, 2 dice need 2 (1/4); after 2, 3 dice need 2 (1/2); then throws with
        // 3 dice - 1 (Strike hex) + 1 (striker), accurate 7/8.
        ("play-jack-picks-up-passes-to-striker", "", "result=Strike!") => {
            100.0 * 0.5 * (0.5 * 0.25 + 0.25 * 0.5) * 7.0 / 8.0
        }
        // The striker Dashes twice: 4 dice need 1 success (15/16), then with a threat 3
        // dice need 2 (1/2); picks up with 4 dice needing 2 (11/16); throws with 3 dice
        // (7/8): 15/16 * 1/2 * 11/16 * 7/8 = 1155/4096.
        ("play-striker-dashes-picks-up-strikes", "", "result=Strike!") => 100.0 * 1155.0 / 4096.0,
        // It falls over unless both Dashes pass: 1 - 15/16 * 1/2 = 17/32.
        ("play-striker-dashes-picks-up-strikes", "", "result=falls over dashing") => {
            100.0 * 17.0 / 32.0
        }
        // descent (tests/descent_rules.rs): Stun costs 2 surges; the red die is not the
        // miss with 5/6 and then shows a surge with 2/5; yellow and both power dice 2/6
        // each. P(0 surges) = 3/5 (2/3)^3 = 24/135, P(1) = 2/5 (2/3)^3 + 3/5 * 3 (1/3)
        // (2/3)^2 = 52/135, so P(Stun) = 5/6 (1 - 76/135) = 5/6 * 59/135.
        ("mace-stuns-ogre", "", "stun=1") => 100.0 * 5.0 / 6.0 * 59.0 / 135.0,
        // Damage first: the repeatable +1 damage takes every surge, none is left to buy
        // a Stun.
        ("mace-stuns-ogre", "rules.surge_effects=last", "stun=1") => 0.0,
        ("mace-stuns-ogre", "", "mean damage") => mace_damage(),
        // Three beastmen's axes on the fighter's 6 wounds: the sum of three attacks, by
        // `axe` and `sum_of`; with a grey defence die, and its Iron Shield re-roll.
        ("beastmen-turn-defence-die", "", "fate=dies") => {
            100.0 * at_least(&sum_of(&axe(&GREY), 3), 6)
        }
        ("beastmen-turn-iron-shield", "", "fate=dies") => {
            100.0 * at_least(&sum_of(&axe(&IRON), 3), 6)
        }
        ("beastmen-turn-guard", "", "guard=attacker killed") => 100.0 * guard().0,
        ("beastmen-turn-guard", "", "fate=dies") => 100.0 * guard().1,
        ("fighter-fatigue-split@4+0", "", "fate=dies") => 100.0 * fatigue(4).0,
        ("fighter-fatigue-split@3+1", "", "fate=dies") => 100.0 * fatigue(3).0,
        ("fighter-fatigue-split@2+2", "", "fate=dies") => 100.0 * fatigue(2).0,
        ("fighter-fatigue-split@2+2", "", "mean damage") => fatigue(2).1,
        ("fighter-fatigue-split@4+0", "", "mean damage") => fatigue(4).1,
        // dice-examples.toml, each by enumeration or a Markov chain below.
        ("blades-action", "", "outcome=failure") => blades(0),
        ("blades-action", "", "outcome=partial success") => blades(1),
        ("blades-action", "", "outcome=full success") => blades(2),
        ("blades-action", "", "outcome=critical") => blades(3),
        ("fighter-duels-orc", "", "outcome=the fighter wins") => 100.0 * duel(12)[2],
        ("fighter-duels-orc", "", "outcome=both fall") => 100.0 * duel(12)[1],
        ("fighter-duels-orc", "units.fighter.hp=16", "outcome=the fighter wins") => {
            100.0 * duel(16)[2]
        }
        ("squads-shoot-it-out", "", "value=0") => 100.0 * squads_marines_wiped(),
        ("genesys-check", "", "successes=0") => 100.0 * genesys().0,
        ("genesys-check", "", "triumphs=1") => 100.0 * genesys().1,
        ("genesys-check", "", "mean successes") => genesys().2,
        ("genesys-check", "", "mean advantages") => genesys().3,
        ("gloomhaven-attack", "", "mean value") => gloomhaven(false).0,
        ("gloomhaven-advantage", "", "mean value") => gloomhaven(true).0,
        ("gloomhaven-advantage", "", "value=6") => 100.0 * gloomhaven(true).1,
        ("infinity-face-to-face", "", "mean active_hits") => infinity().0,
        ("infinity-face-to-face", "", "active_hits=0") => 100.0 * infinity().1,
        ("infinity-face-to-face", "", "reactive_hits=1") => 100.0 * infinity().2,
        ("warhammer-allocate", "", "mean killed") => warhammer().0,
        ("warhammer-allocate", "", "killed=5") => 100.0 * warhammer().1,
        ("warhammer-allocate", "", "mean wounds_left") => warhammer().2,
        ("yahtzee-in-three-rolls", "", "yahtzee=1") => 100.0 * yahtzee()[5],
        ("yahtzee-in-three-rolls", "", "mean alike") => yahtzee()
            .iter()
            .enumerate()
            .map(|(k, p)| k as f64 * p)
            .sum(),
        ("cortex-total-and-effect", "", "mean total") => cortex().0,
        ("cortex-total-and-effect", "", "effect=10") => 100.0 * cortex().1,
        ("cortex-total-and-effect", "", "effect=4") => 100.0 * cortex().2,
        // dozen (tests/dozen_rules.rs): running past two archers, each die of their 2d12
        // costs the thief 1 HP with p = 4/12 (a hit at DX 4) x 7/12 (not saved at AC 5):
        // HP lost Binomial(4, 7/36); a casualty at 3 of his 3 HP or more.
        ("thief-runs-past-two-archers", "", "condition=casualty") => {
            let b = binomial(4, 7.0 / 36.0);
            100.0 * (b[3] + b[4])
        }
        ("thief-runs-past-two-archers", "", "condition=unhurt") => {
            100.0 * binomial(4, 7.0 / 36.0)[0]
        }
        // skirmish: the combat and the firefights, Markov chains over the models left
        // (`skirmish_combat`, `firefight`).
        ("warband-charges-spearmen-combat", "", "outcome=Spearmen win") => {
            100.0 * skirmish_combat()[0]
        }
        ("warband-charges-spearmen-combat", "", "outcome=Warband wins") => {
            100.0 * skirmish_combat()[1]
        }
        ("warband-charges-spearmen-combat", "", "outcome=both out") => 100.0 * skirmish_combat()[2],
        ("archers-vs-skirmishers-fatigue", "", "outcome=Archers win") => {
            100.0 * firefight(&ECONOMY[0])[0]
        }
        ("archers-vs-skirmishers-regroup", "", "outcome=Archers win") => {
            100.0 * firefight(&ECONOMY[1])[0]
        }
        (
            "archers-vs-skirmishers-regroup",
            "scenarios.archers-vs-skirmishers-regroup.b_regroup=20",
            "outcome=Archers win",
        ) => 100.0 * firefight(&ECONOMY[2])[0],
        ("archers-vs-skirmishers-ready-markers", "", "outcome=Archers win") => {
            100.0 * firefight(&ECONOMY[3])[0]
        }
        ("archers-vs-skirmishers-ready-markers", "", "outcome=Skirmishers win") => {
            100.0 * firefight(&ECONOMY[3])[1]
        }
        (
            "archers-vs-skirmishers-ready-markers",
            "scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false",
            "outcome=Archers win",
        ) => 100.0 * firefight(&ECONOMY[4])[0],
        (
            "archers-vs-skirmishers-ready-markers",
            "scenarios.archers-vs-skirmishers-ready-markers.ready_markers=false",
            "outcome=Skirmishers win",
        ) => 100.0 * firefight(&ECONOMY[4])[1],
        ("duel-fighter-vs-dwarf-green-dice", "", "mean activations") => dozen_duel(true).0,
        ("duel-fighter-vs-dwarf-no-green", "", "mean activations") => dozen_duel(false).0,
        ("duel-fighter-vs-dwarf-green-dice", "", "winner=Fighter wins") => dozen_duel(true).1,
        ("duel-fighter-vs-dwarf-no-green", "", "winner=Fighter wins") => dozen_duel(false).1,
        ("fighter-pushes-dwarf-off-bridge", "", "result=attacker wins") => 100.0 * bridge().0,
        ("fighter-pushes-dwarf-off-bridge", "", "mean fall_hp_lost") => bridge().1,
        ("fighter-pushes-dwarf-off-bridge", "", "defender_condition=casualty") => {
            100.0 * bridge().2
        }
        _ => return None,
    })
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

/// The dice-language reference table: every example's quoted result is the test's own
/// working of it (`example_derived`), and the program's exact value.
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
    let mut derivations = 0;
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
        // The table's digits are the test's own working, and so is the program's value.
        let derived = example_derived(example);
        derivations += derived.is_some() as u32;
        let (own_mean, own_percent) = derived.unwrap_or((None, None));
        let trim = |s: &str| s.trim_end_matches('0').trim_end_matches('.').to_string();
        for part in result.split(", ") {
            if let Some(m) = part.strip_prefix("mean ") {
                let decimals = m.split('.').nth(1).map_or(0, str::len);
                let v = mean(&c);
                let d = own_mean.unwrap_or_else(|| panic!("{example}: no derived mean"));
                assert_eq!(trim(&format!("{d:.decimals$}")), trim(m), "{example}: {d}");
                assert!((v - d).abs() < 1e-9, "{example}: exact {v}, derived {d}");
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
                let d = own_percent.unwrap_or_else(|| panic!("{example}: no derived P"));
                assert_eq!(format!("{d:.decimals$}"), p, "{example}: {d}");
                assert!((v - d).abs() < 1e-7, "{example}: exact {v}, derived {d}");
                assert_eq!(format!("{v:.decimals$}"), p, "{example}: {v}");
            } else {
                panic!("{example}: cannot read `{part}`");
            }
        }
        checked += 1;
    }
    assert!(checked >= 18, "{checked} examples checked");
    // Every example with a number of its own is worked out by `example_derived`.
    assert_eq!(derivations, 50, "examples derived");
}

/// The mean of `f` over every roll of `n` dice of faces 1..=`sides`.
fn avg(n: u32, sides: usize, f: impl Fn(&[usize]) -> f64) -> f64 {
    rolls(n, sides).map(|r| f(&r)).sum::<f64>() / sides.pow(n) as f64
}

/// A roll's faces high to low.
fn high_to_low(r: &[usize]) -> Vec<usize> {
    let mut v = r.to_vec();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

/// The dice-language table's results worked out by the test: (mean, P(the headline)
/// in percent), each by a closed form or an enumeration of every roll. `None` for an
/// example the table gives as another (`as ...`).
#[allow(clippy::type_complexity)]
fn example_derived(example: &str) -> Option<(Option<f64>, Option<f64>)> {
    let mean = |x: f64| Some((Some(x), None));
    let percent = |x: f64| Some((None, Some(100.0 * x)));
    // 3 d6 against 2 d6 in one roll of 5: the first three faces are A's.
    let cancelled = |r: &[usize]| {
        let mut a = r[..3].to_vec();
        for y in &r[3..] {
            if let Some(i) = a.iter().position(|x| x == y) {
                a.remove(i);
            }
        }
        a
    };
    let pairs_won = |r: &[usize]| {
        let (a, b) = (high_to_low(&r[..3]), high_to_low(&r[3..]));
        a.iter().zip(&b).filter(|(x, y)| x > y).count() as f64
    };
    match example {
        "3d6" | "3d6 sum" => mean(3.0 * 3.5),
        "2d6 * 2" => mean(2.0 * 7.0),
        // Fudge faces -1, 0, +1 (written 1, 2, 3 here, less 2): symmetric, mean 0;
        // a total of 1 or more in 31 of the 81 rolls.
        "4dF" => Some((
            Some(0.0),
            Some(100.0 * avg(4, 3, |r| (r.iter().sum::<usize>() >= 9) as i32 as f64)),
        )),
        "d%" => mean(101.0 / 2.0),
        "d{0, 0, 1, 1, 2}" => mean((0.0 + 0.0 + 1.0 + 1.0 + 2.0) / 5.0),
        "[2d6, 1d8] keep highest 2" => {
            let mut s = 0;
            for a in 1..=6 {
                for b in 1..=6 {
                    for c in 1..=8 {
                        let v = high_to_low(&[a, b, c]);
                        s += v[0] + v[1];
                    }
                }
            }
            mean(s as f64 / 288.0)
        }
        // E[number of dice] x E[a d6].
        "(d4)d6" => mean(2.5 * 3.5),
        // A d4, d6 or d8, each a third of the time.
        "d(2 * d3 + 2)" => mean((2.5 + 3.5 + 4.5) / 3.0),
        "let k = d3 in 4d6 keep highest k" => mean(
            (1..=3)
                .map(|k| avg(4, 6, |r| high_to_low(r)[..k].iter().sum::<usize>() as f64))
                .sum::<f64>()
                / 3.0,
        ),
        // Every roll of 5d6: a face starts a run unless the face below it shows too.
        "5d6 runs" => mean(avg(5, 6, |r| {
            (1..=6)
                .filter(|f| r.contains(f) && !r.contains(&(f - 1)))
                .count() as f64
        })),
        // Every roll of 5d6: the faces shown on two dice or more.
        "5d6 sets 2" => mean(avg(5, 6, |r| {
            (1..=6)
                .filter(|f| r.iter().filter(|&&d| d == *f).count() >= 2)
                .count() as f64
        })),
        // Every roll of 5d6: the face on the most dice, the highest of those tied.
        "5d6 mode" => mean(avg(5, 6, |r| {
            let on = |f: usize| r.iter().filter(|&&d| d == f).count();
            let most = (1..=6).map(on).max().unwrap_or(0);
            (1..=6).rev().find(|&f| on(f) == most).unwrap_or(0) as f64
        })),
        // By symmetry the middle three of five d6 average 3.5 each.
        "5d6 keep middle 3" => mean(avg(5, 6, |r| {
            high_to_low(r)[1..4].iter().sum::<usize>() as f64
        })),
        "4d6 drop lowest" => mean(avg(4, 6, |r| {
            high_to_low(r)[..3].iter().sum::<usize>() as f64
        })),
        // Each roll of the chain adds 3.5 and comes with (1/6)^k: 3.5 / (1 - 1/6).
        "d6 explode" => mean(3.5 / (1.0 - 1.0 / 6.0)),
        // Each roll 10.5 on average, and another after a 10 or a 20 (1 in 10): the
        // chain's rolls are 1 + 1/10 + ... + 1/10^20 (its depth).
        "d20 explode on 10, 20" => mean(10.5 * (1.0 - 0.1f64.powi(21)) / 0.9),
        // A die succeeds on 7+ (0.4) and adds a die on a 10 (0.1): x = 0.4 + 0.1 x.
        "5d10 again 10 count >= 7" => mean(5.0 * 0.4 / 0.9),
        // Per die, a chain of 1 + 1/9 rolls on average, each 7+ with 0.4 and a 1 with 0.1.
        "let p = 5d10 again 10 in p count >= 7 - p count 1" => mean(5.0 * (0.4 - 0.1) / 0.9),
        // A 6 (1/6) adds one more d6 and stops.
        "d6 explode depth 1" => mean(3.5 + 3.5 / 6.0),
        // A 1 is rerolled once: worth a fresh d6.
        "d6 reroll 1" => mean((3.5 + 2.0 + 3.0 + 4.0 + 5.0 + 6.0) / 6.0),
        "d6 reroll <= 2 always" => mean((3.0 + 4.0 + 5.0 + 6.0) / 4.0),
        "5d10 count >= 7" => Some((Some(5.0 * 0.4), Some(100.0 * (1.0 - 0.6f64.powi(5))))),
        "let t = d6 in 3d6 count >= (4 + (t > 3))" => mean(3.0 * (0.5 * 0.5 + 0.5 / 3.0)),
        "2d20 highest" => mean(avg(2, 20, |r| r[0].max(r[1]) as f64)),
        "abs(d6 - d6)" => mean(avg(2, 6, |r| r[0].abs_diff(r[1]) as f64)),
        "3d6 % 4" => mean(avg(3, 6, |r| (r.iter().sum::<usize>() % 4) as f64)),
        "5d6 count even" => mean(avg(5, 6, |r| {
            r.iter().filter(|&&v| v % 2 == 0).count() as f64
        })),
        "3d20 middle" => mean(avg(3, 20, |r| {
            let mut v = r.to_vec();
            v.sort();
            v[1] as f64
        })),
        "5d6 maxset" => mean(avg(5, 6, |r| {
            r.iter()
                .map(|&v| r.iter().filter(|&&x| x == v).count())
                .max()
                .unwrap() as f64
        })),
        "8d6 straight" => mean(avg(8, 6, |r| {
            (1..=6)
                .map(|s| (s..=6).take_while(|v| r.contains(v)).count())
                .max()
                .unwrap() as f64
        })),
        "pairs(3d6, 2d6)" => Some((
            Some(avg(5, 6, pairs_won)),
            Some(100.0 * avg(5, 6, |r| (pairs_won(r) >= 1.0) as i32 as f64)),
        )),
        "beats(3d12, 2d12)" => mean(avg(5, 12, |r| {
            r[..3].iter().filter(|&&x| x > r[3].max(r[4])).count() as f64
        })),
        "cancel(3d6, 2d6)" => mean(avg(5, 6, |r| cancelled(r).len() as f64)),
        // B's dice, highest first, each take out A's highest die at or below it.
        "cancel(3d6, 2d6, <=)" => mean(avg(5, 6, |r| {
            let mut a = r[..3].to_vec();
            for y in high_to_low(&r[3..]) {
                if let Some(i) = (0..a.len()).filter(|&i| a[i] <= y).max_by_key(|&i| a[i]) {
                    a.remove(i);
                }
            }
            a.len() as f64
        })),
        "cancel(3d6, 2d6) highest" => mean(avg(5, 6, |r| {
            cancelled(r).into_iter().max().unwrap_or(0) as f64
        })),
        "beats(3d20 only <= 13, d20 only <= 12)" => mean(infinity().0),
        "max(d6, d6)" => mean(avg(2, 6, |r| r[0].max(r[1]) as f64)),
        // 4 hits of d3 on 3 models of 2 wounds, one model at a time, excess lost.
        "allocate(models = 3, wounds = 2, hits = 4, damage = d3)" => mean(avg(4, 3, |r| {
            let (mut killed, mut left) = (0, 2);
            for &d in r {
                if killed == 3 {
                    break;
                }
                if d >= left {
                    killed += 1;
                    left = 2;
                } else {
                    left -= d;
                }
            }
            killed as f64
        })),
        // Every roll keeps the dice whose reroll gives the best chance of 15+, every
        // subset tried.
        "reroll p = 3d6 to maximise p sum >= 15" => percent(avg(3, 6, |r| {
            (0..8u32)
                .map(|mask| {
                    let kept: usize = (0..3).filter(|i| mask >> i & 1 == 0).map(|i| r[i]).sum();
                    avg(mask.count_ones(), 6, |x| {
                        (kept + x.iter().sum::<usize>() >= 15) as i32 as f64
                    })
                })
                .fold(0.0, f64::max)
        })),
        "d20 + 5 >= 15" => percent(11.0 / 20.0),
        "let x = d6 in x * x" => mean((1 + 4 + 9 + 16 + 25 + 36) as f64 / 6.0),
        "let p = 3d6 in p count 6 + p highest" => mean(avg(3, 6, |r| {
            (r.iter().filter(|&&x| x == 6).count() + r.iter().max().unwrap()) as f64
        })),
        // Per die 0, 1 or 2 hits.
        "3d{blank, hit, hit+hit} count hit" => mean(3.0 * 1.0),
        // Two cards of five, each 3 on average.
        "deck{1, 2, 3, 4, 5} draw 2" => mean(2.0 * 3.0),
        // Two different cards of three, in either order: 1x2, 1x3, 2x3.
        "let a, b = deck{1, 2, 3} draw 2 in a * b" => mean((2.0 + 3.0 + 6.0) / 3.0),
        "if d6 == 6 then 2d6 else d6" => mean(7.0 / 6.0 + 5.0 / 6.0 * 3.5),
        // Two dice: 3..=6 and 1..=4.
        "d6 >= 3 and d6 <= 4" => percent(4.0 / 6.0 * 4.0 / 6.0),
        // Rounds to the third success at 1/3 a round: 3 x 3.
        "repeat hp = 3 until hp <= 0 do hp = hp - (d6 >= 5) then rounds" => mean(3.0 / (2.0 / 6.0)),
        // n = rounds without a 6, at most 3: P(n >= k) = (5/6)^k.
        "repeat n = 0 until d6 == 6 do n = n + 1 limit 3 then n" => {
            mean((1..=3).map(|k| (5.0f64 / 6.0).powi(k)).sum())
        }
        _ => None,
    }
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

/// Skirmish (docs/games/skirmish.md): the chance that one attack die kills, a d10 to
/// hit (roll + `to_hit` >= `target`) times the chance the d10 defence roll (saving at
/// `defence` or more) fails.
fn kill_chance(to_hit: i64, target: i64, defence: i64) -> f64 {
    let hit = (1..=10).filter(|r| r + to_hit >= target).count() as f64 / 10.0;
    let fail = (1..=10).filter(|&r| r < defence).count() as f64 / 10.0;
    hit * fail
}

/// A skirmish morale test: passes on a d10 at or under `morale` - `penalty`.
fn holds(morale: usize, penalty: usize) -> f64 {
    morale.saturating_sub(penalty).min(10) as f64 / 10.0
}

/// One simultaneous skirmish exchange: side i has `m[i]` models, each rolling one die
/// that kills a model of the other side with `p[i]` (0: it does not fire). Casualties
/// come off at once (at most the models there are); a side that lost models but not all
/// tests morale against `morale[i]` less the penalty `penalty(i, lost)` (the models lost,
/// or the tokens then held). Each outcome: (models lost, out: wiped or broken, chance).
#[allow(clippy::type_complexity)]
fn exchange(
    m: [usize; 2],
    p: [f64; 2],
    morale: [usize; 2],
    penalty: impl Fn(usize, usize) -> usize,
) -> Vec<([usize; 2], [bool; 2], f64)> {
    // Models side i loses: a binomial of the other side's dice, folded at m[i].
    let lost = |i: usize| {
        let mut d = vec![0.0; m[i] + 1];
        for (k, q) in binomial(m[1 - i], p[1 - i]).into_iter().enumerate() {
            d[k.min(m[i])] += q;
        }
        d
    };
    let (l0, l1) = (lost(0), lost(1));
    let mut out = vec![];
    for (a, &pa) in l0.iter().enumerate() {
        for (b, &pb) in l1.iter().enumerate() {
            let l = [a, b];
            // For each side: (out?, chance) pairs.
            let fate = |i: usize| -> Vec<(bool, f64)> {
                if l[i] == m[i] {
                    vec![(true, 1.0)]
                } else if l[i] == 0 {
                    vec![(false, 1.0)]
                } else {
                    let h = holds(morale[i], penalty(i, l[i]));
                    vec![(false, h), (true, 1.0 - h)]
                }
            };
            for (o0, q0) in fate(0) {
                for (o1, q1) in fate(1) {
                    out.push((l, [o0, o1], pa * pb * q0 * q1));
                }
            }
        }
    }
    out
}

/// The warband (12 models, fight 0, target value 6, saves on 10, charge bonus 1, morale
/// 6) charges the spearmen (10 models, fight 1, target value 7, saves on 8+, defend
/// bonus 2, morale 8), who defend: up to 10 rounds, the first with the bonuses. A Markov
/// chain over the models left. [spearmen win, warband wins, both out].
fn skirmish_combat() -> [f64; 3] {
    let mut state = std::collections::BTreeMap::from([((12usize, 10usize), 1.0)]);
    let mut end = [0.0; 3];
    for round in 0..10 {
        let bonus = |b: i64| if round == 0 { b } else { 0 };
        // Warband dice at the spearmen, spearmen dice at the warband.
        let p = [
            kill_chance(bonus(1), 7, 8),
            kill_chance(1 + bonus(2), 6, 10),
        ];
        let mut next = std::collections::BTreeMap::new();
        for (&(w, s), &q) in &state {
            for (l, out, r) in exchange([w, s], p, [6, 8], |_, lost| lost) {
                match out {
                    [true, true] => end[2] += q * r,
                    [true, false] => end[0] += q * r,
                    [false, true] => end[1] += q * r,
                    [false, false] => *next.entry((w - l[0], s - l[1])).or_insert(0.0) += q * r,
                }
            }
        }
        state = next;
    }
    end
}

/// How a skirmish firefight between the archers (a: 10 models, shoot +1, target value
/// 7, saves on 9+, morale 7) and the skirmishers (b: 6 models, target value 8 + cover 1,
/// saves on 10, morale 6) is played, as docs/games/skirmish.md gives the switches.
struct Firefight {
    /// The skirmishers go to ground when shot at (else they take it).
    b_ground: bool,
    /// The skirmishers shoot back (the archers always may).
    b_shoot_back: bool,
    /// A reaction is the round's action; a unit that acted cannot react.
    fatigue: bool,
    /// Casualties are tokens kept; a test counts every token held.
    tokens: bool,
    /// The skirmishers Regroup (one token off) instead of shooting at this many tokens.
    b_regroup: usize,
    /// Shooting and shooting back need a ready marker, lost when shot at.
    ready: bool,
}

/// The README's firefights as configs/skirmish.toml sets them: fatigue (the
/// skirmishers go to ground), Regroup at 2 tokens, never Regrouping, ready markers (both
/// shooting back), and the same without ready markers.
const ECONOMY: [Firefight; 5] = [
    Firefight {
        b_ground: true,
        b_shoot_back: false,
        fatigue: true,
        tokens: true,
        b_regroup: usize::MAX,
        ready: false,
    },
    Firefight {
        b_ground: false,
        b_shoot_back: false,
        fatigue: true,
        tokens: true,
        b_regroup: 2,
        ready: false,
    },
    Firefight {
        b_ground: false,
        b_shoot_back: false,
        fatigue: true,
        tokens: true,
        b_regroup: usize::MAX,
        ready: false,
    },
    Firefight {
        b_ground: false,
        b_shoot_back: true,
        fatigue: false,
        tokens: false,
        b_regroup: usize::MAX,
        ready: true,
    },
    Firefight {
        b_ground: false,
        b_shoot_back: true,
        fatigue: false,
        tokens: false,
        b_regroup: usize::MAX,
        ready: false,
    },
];

/// Three rounds of the firefight: a Markov chain over (models, tokens, ready marker)
/// of both sides, one action at a time. [archers win, skirmishers win].
fn firefight(f: &Firefight) -> [f64; 2] {
    // A die's chance to kill: archers at skirmishers (d10 + 1 >= 9: 3/10, or 11 gone to
    // ground: 1/10; 9/10 unsaved), skirmishers at archers (d10 >= 7: 4/10; 8/10 unsaved).
    let a_hits = if f.b_ground {
        kill_chance(1, 8 + 1 + 2, 10)
    } else {
        kill_chance(1, 8 + 1, 10)
    };
    let p_of = [a_hits, kill_chance(0, 7, 9)];
    let morale = [7, 6];
    type State = ([usize; 2], [usize; 2], [bool; 2]);
    let mut state: std::collections::BTreeMap<State, f64> =
        std::collections::BTreeMap::from([(([10, 6], [0, 0], [true, true]), 1.0)]);
    let mut end = [0.0; 2];
    for _ in 0..3 {
        // (state, the skirmishers fatigued this round).
        let mut within: Vec<(State, bool, f64)> =
            state.iter().map(|(&s, &q)| (s, false, q)).collect();
        for x in 0..2 {
            let y = 1 - x;
            let mut after = vec![];
            for ((m, t, r), b_tired, q) in within {
                if x == 1 && b_tired {
                    after.push(((m, t, r), b_tired, q));
                    continue;
                }
                // x Regroups (at b_regroup tokens), Makes Ready (without a marker) or
                // shoots; y answers with fire if it shoots back, is ready (with markers)
                // and, with fatigue, has not acted (the archers, acting first, have).
                let y_shoots_back =
                    (y == 0 || f.b_shoot_back) && (!f.ready || r[y]) && !(f.fatigue && y == 0);
                let regroup = x == 1 && f.tokens && t[1] >= f.b_regroup;
                let make_ready = f.ready && !r[x];
                let x_fires = !regroup && !make_ready;
                // Going to ground answers a shot only.
                let y_ground = y == 1 && f.b_ground && x_fires;
                let mut p = [0.0; 2];
                if x_fires {
                    p[x] = p_of[x];
                }
                if y_shoots_back {
                    p[y] = p_of[y];
                }
                let tired = b_tired || (y == 1 && f.fatigue && (y_shoots_back || y_ground));
                let mut t0 = t;
                if regroup {
                    t0[1] -= 1;
                }
                let mut r0 = r;
                if make_ready && !y_shoots_back {
                    r0[x] = true;
                }
                // A morale test counts the tokens then held, or the exchange's losses.
                let penalty = |i: usize, lost: usize| if f.tokens { t0[i] + lost } else { lost };
                for (l, out, s) in exchange(m, p, morale, penalty) {
                    let q = q * s;
                    match out {
                        [true, false] => end[1] += q,
                        [false, true] => end[0] += q,
                        // Both out: a win for nobody.
                        [true, true] => {}
                        [false, false] => {
                            let mut t1 = t0;
                            let mut r1 = r0;
                            for i in 0..2 {
                                if f.tokens {
                                    t1[i] += l[i];
                                }
                                // Shot at: the marker is gone.
                                if p[1 - i] > 0.0 {
                                    r1[i] = false;
                                }
                            }
                            after.push((([m[0] - l[0], m[1] - l[1]], t1, r1), tired, q));
                        }
                    }
                }
            }
            within = after;
        }
        let mut next = std::collections::BTreeMap::new();
        for (s, _, q) in within {
            *next.entry(s).or_insert(0.0) += q;
        }
        state = next;
    }
    end
}

/// dozen's charge, every roll of 2d12 at or under `ta` (the attacker) against 2d12 at
/// or under `td` (a 12 always fails): the attacker's dice at or above the defender's
/// highest success stand, the defender's above the attacker's highest. Each roll's
/// (attacker's hits, defender's hits, probability).
fn charge_both(ta: usize, td: usize) -> Vec<(usize, usize, f64)> {
    let ok = |x: usize, t: usize| x <= t && x < 12;
    rolls(4, 12)
        .map(|r| {
            let (a, d) = r.split_at(2);
            let best = |s: &[usize], t: usize| s.iter().filter(|&&x| ok(x, t)).max().copied();
            let (best_a, best_d) = (best(a, ta).unwrap_or(0), best(d, td).unwrap_or(0));
            let hits_a = a.iter().filter(|&&x| ok(x, ta) && x >= best_d).count();
            let hits_d = d.iter().filter(|&&y| ok(y, td) && y > best_a).count();
            (hits_a, hits_d, 1.0 / 12f64.powi(4))
        })
        .collect()
}

/// The duel of the fighter (5 HP, injured at 2 or less; 2d12 at ST 4 + sword 3 = 7) and
/// the dwarf (4 HP, injured at 1; 2d12 at ST 4 + axe 2 = 6), both armour class 4 (a hit
/// costs 1 HP unless a d12 shows 4 or less: 8/12). Two dice each in the bag, drawn with
/// replacement, one of each side's green when `green` (an injured side loses its green
/// draw). The drawn side charges; a charge with hits earns a second one. A Markov chain
/// over (fighter's HP, dwarf's HP), 300 draws as the scenario's limit. (mean draws,
/// P(the fighter wins)).
fn dozen_duel(green: bool) -> (f64, f64) {
    let hp = [5i64, 4];
    // A charge by side x: (HP lost by x, HP lost by y, hits of x, chance), the saves
    // rolled per hit.
    let charge = |x: usize| {
        let t = [7, 6];
        let mut d = std::collections::BTreeMap::new();
        for (ha, hd, p) in charge_both(t[x], t[1 - x]) {
            for (ly, py) in binomial(ha, 8.0 / 12.0).into_iter().enumerate() {
                for (lx, px) in binomial(hd, 8.0 / 12.0).into_iter().enumerate() {
                    *d.entry((lx as i64, ly as i64, ha > 0)).or_insert(0.0) += p * py * px;
                }
            }
        }
        d
    };
    let charges = [charge(0), charge(1)];
    let mut state = std::collections::BTreeMap::from([((hp[0], hp[1]), 1.0)]);
    let (mut draws, mut fighter) = (0.0, 0.0);
    for _ in 0..300 {
        draws += state.values().sum::<f64>();
        let mut next = std::collections::BTreeMap::new();
        for (&(f, w), &p) in &state {
            let now = [f, w];
            for x in 0..2 {
                let injured = 2 * now[x] < hp[x];
                // Half the draws are x's; with a green die, half of those are lost when
                // x is injured.
                let lost = if green && injured { 0.25 } else { 0.0 };
                *next.entry((f, w)).or_insert(0.0) += p * lost;
                // Up to two charges, the second after one with hits.
                let mut live = vec![(now, p * (0.5 - lost), true)];
                for _ in 0..2 {
                    let mut more = vec![];
                    for (s, q, again) in live {
                        if !again {
                            *next.entry((s[0], s[1])).or_insert(0.0) += q;
                            continue;
                        }
                        for (&(lx, ly, won), &r) in &charges[x] {
                            let mut s = s;
                            s[x] -= lx;
                            s[1 - x] -= ly;
                            if s[1 - x] <= 0 {
                                fighter += if x == 0 { q * r } else { 0.0 };
                            } else if s[x] <= 0 {
                                fighter += if x == 1 { q * r } else { 0.0 };
                            } else {
                                more.push((s, q * r, won));
                            }
                        }
                    }
                    live = more;
                }
                for (s, q, _) in live {
                    *next.entry((s[0], s[1])).or_insert(0.0) += q;
                }
            }
        }
        state = next;
    }
    (draws, 100.0 * fighter)
}
