//! Issue #58, item 1: every number a config holds, set to the edges of what an integer
//! can be. A stat of exactly i64::MIN passed the dice system's ±1,000,000 check (its
//! absolute value wraps to itself) and gave one value with probability 1 where there were
//! six. Here every integer of every shipped config, of every system, is set by `--set` to
//! i64::MIN, i64::MAX, their neighbours and u64::MAX: each must be refused with a message
//! naming the key, or load and give valid distributions (no panic, no NaN, mass 1).

use crate::util::shipped;
use rollsim::config::load;
use rollsim::exact::check_pmf;

/// Every integer of a TOML table, as `--set` paths.
fn integers(t: &toml::Table, at: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        match v {
            toml::Value::Integer(_) => out.push(path),
            toml::Value::Table(t) => integers(t, &path, out),
            _ => {}
        }
    }
}

const EDGES: [&str; 5] = [
    "-9223372036854775808",
    "-9223372036854775807",
    "9223372036854775806",
    "9223372036854775807",
    "18446744073709551615",
];

#[test]
fn every_integer_of_every_config_at_the_edges_is_refused_or_right() {
    let mut refused = 0;
    let mut loaded = 0;
    for file in [
        "rush.toml",
        "rush-exploding.toml",
        "rush-as-dice.toml",
        "descent.toml",
        "skirmish.toml",
        "dozen.toml",
        "dice-examples.toml",
    ] {
        let path = shipped(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = text.parse().unwrap();
        let mut keys = Vec::new();
        integers(&table, "", &mut keys);
        assert!(!keys.is_empty(), "{file}");
        for key in &keys {
            for edge in EDGES {
                let set = format!("{key}={edge}");
                match load(&path, std::slice::from_ref(&set)) {
                    Err(e) => {
                        let e = e.to_string();
                        // The message names the key it refuses (or the --set).
                        let last = key.rsplit('.').next().unwrap();
                        assert!(e.contains(last), "{file} --set {set}: {e}");
                        refused += 1;
                    }
                    Ok(cfg) => {
                        loaded += 1;
                        // Accepted: every scenario compiles to a valid distribution.
                        for name in cfg.scenario_names() {
                            let c = cfg
                                .compile(&name)
                                .unwrap_or_else(|e| panic!("{file} --set {set}: {name}: {e}"));
                            if let Some(p) = &c.exact {
                                check_pmf(p, 1e-9)
                                    .unwrap_or_else(|e| panic!("{file} --set {set}: {name}: {e}"));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(refused > 100, "{refused} refused, {loaded} loaded");
}

/// The case the issue found: `s - d6` with s at i64::MIN has six values; refused now,
/// as i64::MIN + 1 was.
#[test]
fn a_stat_of_i64_min_is_refused_as_its_neighbour_is() {
    for s in ["-9223372036854775808", "-9223372036854775807"] {
        let text = format!(
            "system = \"dice\"\n[units.u]\ns = {s}\n[scenarios.x]\nunit = \"u\"\nroll = \"s - d6\"\n"
        );
        let e = rollsim::config::load_str(&text, "u.toml", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("u.toml:3:1: key `units.u.s`"), "{e}");
        assert!(
            e.contains("expected a stat from -1,000,000 to 1,000,000"),
            "{e}"
        );
    }
}

/// Issue #58, item 2: a `--set` with a line break in it dropped everything after the
/// break and exited 0. Refused now, naming the character and where it stands, by the
/// command line (and so the Python package, which runs it) as by the server.
#[test]
fn a_set_with_a_control_character_is_refused_naming_it() {
    let a = crate::util::rollsim()
        .args(["check", "configs/dice-examples.toml", "--set"])
        .arg("units.fighter.attack=5\nunits.orc.ac=1")
        .assert()
        .code(2);
    let e = crate::util::text(&a.get_output().stderr);
    assert!(
        e.contains("character 23 is a line break (U+000A): a --set is one KEY=VALUE on one line"),
        "{e}"
    );
    assert!(e.contains("units.fighter.attack=5\\nunits.orc.ac=1"), "{e}");
    let a = crate::util::rollsim()
        .args(["check", "configs/dice-examples.toml", "--set"])
        .arg("units.fighter.attack=\t5")
        .assert()
        .code(2);
    let e = crate::util::text(&a.get_output().stderr);
    assert!(e.contains("character 22 is a tab (U+0009)"), "{e}");
}

/// Issue #58, item 7: the page's list of configs showed a stale title after an edit that
/// kept the file's size and time of change. It is keyed on the content now.
#[test]
fn the_configs_list_sees_an_edit_of_the_same_size_and_time() {
    use crate::serve::{folder, Server};
    let dir = folder(&["rush.toml"]);
    let path = dir.path().join("rush.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let title = text
        .lines()
        .find_map(|l| l.strip_prefix("title = \""))
        .and_then(|t| t.strip_suffix('"'))
        .expect("rush.toml has a title")
        .to_string();
    let s = Server::start(dir.path());
    let (_, before) = s.get("/api/configs");
    assert!(before.contains(&title), "{before}");
    // The same number of bytes, the time of change put back.
    let when = std::fs::metadata(&path).unwrap().modified().unwrap();
    let other: String = title.chars().rev().collect();
    assert_ne!(other, title);
    std::fs::write(&path, text.replacen(&title, &other, 1)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, text.len());
    let (_, after) = s.get("/api/configs");
    assert!(after.contains(&other), "{after}");
    assert!(!after.contains(&format!("\"{title}\"")), "{after}");
}
