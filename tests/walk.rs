//! Issue #11: every balance command on every scenario and group of every shipped config.
//! Each call must succeed, or fail with a bad-input error (exit code 2) whose message says
//! what is wrong; a panic anywhere fails the walk and names the call.

use crate::util::{root, shipped, tempdir};
use rollsim::app::balance::{
    load_source, CompareOptions, EqualizeOptions, Options, OverlayOptions, RosterOptions,
    SweepOptions,
};
use rollsim::app::{balance as run, AppError};
use rollsim::balance::Source;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The names a balance command accepts, one of each shape: every scenario `rollsim list`
/// prints that is not a group member, each group's name (its commands reach every
/// member) and its first member (a member named on its own).
fn names(source: &Source) -> Vec<String> {
    let infos = source.base.scenarios();
    let mut out: Vec<String> = Vec::new();
    for i in &infos {
        if !i.member {
            out.push(i.name.clone());
        } else if !out.contains(&i.table) {
            out.push(i.name.clone());
            out.push(i.table.clone());
        }
    }
    out
}

/// `--vary` specs for every knob of a scenario table: each stat of each side's entry and
/// each dice key, from its value now to one step up (or down at the top).
fn knob_specs(source: &Source, table: &str) -> Vec<String> {
    let knobs = source.knobs();
    let Ok(roles) = source.roles(table) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for role in &roles {
        for st in knobs.stats.iter().filter(|s| s.table == role.table) {
            if let Some(now) = source.int_of(&role.table, &role.id, &st.key) {
                let other = if now < st.hi { now + 1 } else { now - 1 };
                let (lo, hi) = (now.min(other), now.max(other));
                out.push(format!("{}.{}={lo}..{hi}", role.key, st.key));
            }
        }
        for d in knobs.dice.iter().filter(|d| d.side == role.key) {
            let now = source.scenario_int(table, d.key).unwrap_or(0).max(d.lo);
            out.push(format!("{}={}..{}", d.key, now, (now + 1).min(d.hi)));
        }
    }
    out
}

/// Run one call; Ok, or an error that is bad input with a message; never a panic.
fn check(what: &str, f: impl FnOnce() -> Result<String, AppError>) -> bool {
    match catch_unwind(AssertUnwindSafe(f)) {
        Err(_) => panic!("{what}: panicked"),
        Ok(Ok(_)) => true,
        Ok(Err(e)) => {
            assert_eq!(e.exit_code(), 2, "{what}: {e} (exit {})", e.exit_code());
            assert!(e.to_string().len() > 10, "{what}: unclear message `{e}`");
            if std::env::var_os("WALK_VERBOSE").is_some() {
                eprintln!("refused: {what}: {e}");
            }
            false
        }
    }
}

/// As [`check`], for a command that steps the scenario's stats: a scenario with none to
/// step is refused by design (exit 2, "nothing to change"), which answers the question
/// rather than failing it.
fn check_stepped(what: &str, f: impl FnOnce() -> Result<String, AppError>) -> bool {
    let mut nothing = false;
    let answered = check(what, || {
        f().inspect_err(|e| nothing = e.to_string().contains(": nothing to change in `"))
    });
    answered || nothing
}

/// The calls answered and refused, and the rosters answered (counted apart: a roster
/// needs both sides from one table, which most scenarios of some systems do not have).
fn walk_config(file: &str, trials: Option<u64>, out: &Path) -> (usize, usize, usize) {
    let path = shipped(file);
    let source = load_source(&path, &[]).unwrap();
    let (mut ok, mut refused, mut rosters) = (0, 0, 0);
    let mut tally = |b: bool| if b { ok += 1 } else { refused += 1 };
    for name in names(&source) {
        let started = std::time::Instant::now();
        let table = source.target(&name).unwrap().table;
        let mut o = Options::new(&path, &name);
        o.exact_only = trials.is_none();
        o.trials = trials;
        o.threads = Some(1);
        o.plots = false;
        o.out = Some(out.to_path_buf());
        let tag = |cmd: &str| format!("{file} {cmd} -s {name} (trials {trials:?})");
        for best in [false, true] {
            tally(check(&tag(&format!("compare best={best}")), || {
                run::compare(&CompareOptions {
                    common: o.clone(),
                    attackers: Vec::new(),
                    defenders: Vec::new(),
                    best_response: best,
                })
            }));
        }
        for best in [false, true] {
            rosters += check(&tag(&format!("roster best={best}")), || {
                run::roster(&RosterOptions {
                    common: o.clone(),
                    units: Vec::new(),
                    best_response: best,
                    count: None,
                    reference: None,
                })
            }) as usize;
        }
        for spec in knob_specs(&source, &table) {
            tally(check(&tag(&format!("sweep --vary {spec}")), || {
                run::sweep(&SweepOptions {
                    common: o.clone(),
                    vary: vec![spec.clone()],
                })
            }));
        }
        tally(check_stepped(&tag("sensitivity"), || run::sensitivity(&o)));
        tally(check_stepped(&tag("equalize"), || {
            run::equalize(&EqualizeOptions {
                common: o.clone(),
                target: None,
                pairs: false,
            })
        }));
        if let Some(n) = trials {
            let entry = format!("{}:{name}", path.display());
            tally(check(&tag("overlay"), || {
                run::overlay(&OverlayOptions {
                    entries: vec![entry.clone(), entry.clone()],
                    metric: None,
                    seed: None,
                    trials: Some(n),
                    threads: Some(1),
                    out: Some(out.to_path_buf()),
                    plots: false,
                    svg: false,
                    cancel: rollsim::Cancel::new(),
                    texts: Default::default(),
                    sharing: Default::default(),
                })
            }));
        }
        if std::env::var_os("WALK_TIME").is_some() {
            eprintln!(
                "{:>8.2}s {file} {name} {trials:?}",
                started.elapsed().as_secs_f64()
            );
        }
    }
    (ok, refused, rosters)
}

/// Both modes of one config: exact only, then a small Monte Carlo run.
fn walk(file: &str) {
    walk_with(file, 4);
}

/// As [`walk`], where `ratio` answered calls per refusal are expected (a config of
/// one-sided rolls refuses every matchup matrix).
fn walk_with(file: &str, ratio: usize) {
    let dir = tempdir();
    for trials in [None, Some(2_000)] {
        let (ok, refused, rosters) = walk_config(file, trials, dir.path());
        // Most calls answer; the refusals are the cases the rules forbid (a Slamback
        // from behind, a melee weapon's distance) or that have nothing to step.
        assert!(
            ok > ratio * refused,
            "{file} {trials:?}: {ok} answered, {refused} refused"
        );
        // A config with units has a roster: some scenario sets unit against unit.
        let text = std::fs::read_to_string(shipped(file)).unwrap();
        if text.contains("[units.") {
            assert!(rosters > 0, "{file} {trials:?}: no scenario gave a roster");
        }
    }
}

#[test]
fn the_walk_covers_every_shipped_config() {
    let mut configs: Vec<String> = std::fs::read_dir(root().join("configs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    configs.sort();
    assert_eq!(
        configs,
        [
            "descent.toml",
            "dice-examples.toml",
            "dozen.toml",
            "rush-as-dice.toml",
            "rush-exploding.toml",
            "rush.toml",
            "skirmish.toml"
        ],
        "a new shipped config needs its walk test below"
    );
}

#[test]
fn walk_descent() {
    walk("descent.toml");
}

#[test]
fn walk_dice_examples() {
    // Most of its scenarios are one roll without sides: compare has no matchup there.
    walk_with("dice-examples.toml", 1);
}

#[test]
fn walk_dozen() {
    walk("dozen.toml");
}

#[test]
fn walk_rush() {
    walk("rush.toml");
}

#[test]
fn walk_rush_as_dice() {
    // No units, so nothing to step or set against each other: no panic is the point.
    walk_with("rush-as-dice.toml", 0);
}

#[test]
fn walk_rush_exploding() {
    walk("rush-exploding.toml");
}

#[test]
fn walk_skirmish() {
    walk("skirmish.toml");
}
