//! Issue #58, hardening from a hostile afternoon: one test per defect it found, each
//! failing on the code before it.
//!
//! Item 1: every number a config holds, set to the edges of what an integer can be. A stat of exactly i64::MIN passed the dice system's ±1,000,000 check (its
//! absolute value wraps to itself) and gave one value with probability 1 where there were
//! six. Here every integer of every shipped config, of every system, is set by `--set` to
//! i64::MIN, i64::MAX, their neighbours and u64::MAX: each must be refused with a message
//! naming the key, or load and give valid distributions (no panic, no NaN, mass 1).

use crate::util::shipped;
use rollsim::config::load;
use rollsim::pmf::check_pmf;

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
                match load(&path, std::slice::from_ref(&set), &rollsim::Cancel::new()) {
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

/// Issue #58, item 3: a run removed a killed run's leftover staging folder (a whole
/// report) before it looked at Ctrl-C, which then waited seconds. The leftovers are
/// removed after the commit now: a run stopped early leaves them for the next, and a run
/// that finishes removes them.
#[test]
fn a_killed_runs_leftovers_are_removed_after_the_run_never_before_a_stop() {
    let d = crate::util::tempdir();
    let out = d.path().join("out");
    let plant = || {
        let left = d.path().join(".out.staging-99999");
        for i in 0..50 {
            let sub = left.join(format!("s{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            for j in 0..40 {
                std::fs::write(sub.join(format!("f{j}.csv")), "x").unwrap();
            }
        }
        left
    };
    let config = crate::util::shipped("rush.toml");
    let left = plant();
    crate::util::rollsim()
        .args([
            "run",
            config.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
        ])
        .args(["-n", "1000", "-q", "--no-plots", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert!(!left.exists(), "a finished run removes the leftovers");
    let left = plant();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
        .args([
            "run",
            config.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
        ])
        .args(["-n", "4000000000", "-q", "--no-plots", "-o"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let own = d.path().join(format!(".out.staging-{}", child.id()));
    let t0 = std::time::Instant::now();
    while !own.exists() && t0.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(own.exists(), "the run staged");
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(
        left.exists(),
        "the stopped run left the leftovers for the next"
    );
    assert!(out.join("summary.csv").exists(), "the old report stands");
}

/// The resident memory of a process, in KiB.
/// The server's anonymous resident memory: what it allocated and holds. Not `VmRSS`,
/// which also counts the pages of the binary's code the kernel has read in (the table
/// layer's code alone is about 15 MB of them once a matrix is pivoted): shared with
/// every other copy of the program and dropped by the kernel when memory is short.
fn rss_kib(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

const VIEWS: [&str; 3] = ["matrix", "sensitivity", "roster"];

/// Issue #58, item 6: after 10,000 mixed requests at concurrency 50 the idle server
/// held 80 to 127 MB (5.5 MB fresh) in the issue's probe: freed memory stayed in the
/// allocator's per-thread arenas. The server now keeps two arenas and gives their free
/// pages back when the last request in flight ends.
#[test]
fn the_server_gives_memory_back_after_ten_thousand_requests_at_concurrency_fifty() {
    use crate::serve::{folder, Server};
    let dir = folder(&[
        "rush.toml",
        "skirmish.toml",
        "descent.toml",
        "dice-examples.toml",
    ]);
    let s = std::sync::Arc::new(Server::start(dir.path()));
    let fresh = rss_kib(s.pid());
    let workers: Vec<_> = (0..50)
        .map(|w| {
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    let view = |file: &str, scenario: &str, sets: Vec<String>| {
                        serde_json::json!({ "file": file, "scenario": scenario, "sets": sets })
                            .to_string()
                    };
                    let (status, text) = match (w + i) % 7 {
                        0 => s.get("/api/configs"),
                        1 => s.post(
                            "/api/view",
                            &view(
                                "rush.toml",
                                "slam-orc-vs-human-guard",
                                vec![format!("units.orc.strength={}", 2 + i % 5)],
                            ),
                        ),
                        2 => s.post("/api/view", &view("skirmish.toml", "archers-shot-at@none", vec![])),
                        3 => s.post("/api/view", &view("descent.toml", "bare-hands-vs-skeleton", vec![])),
                        4 => s.post(
                            "/api/roll",
                            &serde_json::json!({ "expr": format!("{}d6 keep highest 3", 3 + i % 9) })
                                .to_string(),
                        ),
                        5 => s.post(
                            "/api/balance",
                            &serde_json::json!({
                                "file": "rush.toml",
                                "scenario": "slam-orc-vs-human-guard",
                                "view": VIEWS[i % 3],
                            })
                            .to_string(),
                        ),
                        _ => s.post("/api/view", &view("dice-examples.toml", "blades-action", vec![])),
                    };
                    assert_eq!(status, 200, "{text}");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let busy = rss_kib(s.pid());
    // Read until it is under the bound, for 10 s at most: the memory must be given back
    // within them, and waiting out all ten once it is proves nothing more.
    let since = std::time::Instant::now();
    let mut idle = rss_kib(s.pid());
    while idle >= 16 * 1024 && since.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        idle = rss_kib(s.pid());
    }
    eprintln!(
        "resident: fresh {fresh} KiB, after the load {busy} KiB, {:.1} s later {idle} KiB",
        since.elapsed().as_secs_f64()
    );
    // The issue asks under 60 MB. Measured here (2 cores), all resident: 29 to 31 MB idle
    // before the arenas were bounded, 17 MB after, of which about 6 MB were the binary's
    // code. Anonymous memory alone: 8 MB idle with the table layer's pivots in the load;
    // 16 MB fails the unbounded arenas (about 24 MB of anonymous memory) and leaves room
    // for noise.
    assert!(
        idle < 16 * 1024,
        "fresh {fresh} KiB, after {busy}, idle {idle}"
    );
    s.serves();
}

/// Issue #57, item 5: a dice config's own stats offered hit points from -6 and a damage
/// die from -10. A stat the config gives as positive slides from 0 up (1 where it sizes a
/// die, which the config's loads find), one given as negative stays at or below 0.
#[test]
fn a_dice_configs_own_stats_keep_their_sign_on_the_live_page() {
    use rollsim::balance::controls::{controls, ControlKind};
    use rollsim::balance::Source;
    let text =
        "system = \"dice\"\n[units.a]\nname = \"A\"\nhp = 12\ndmg = 8\nbonus = -2\nedge = 0\n\
                [scenarios.hit]\nunit = \"a\"\nroll = \"d(dmg) + bonus + edge >= hp / 3\"\n";
    let source = Source::parse(text, std::path::Path::new("d.toml"), &[]).unwrap();
    let ends: std::collections::BTreeMap<String, (i64, i64)> =
        controls(&source, &source.target("hit").unwrap())
            .unwrap()
            .into_iter()
            .filter_map(|c| match c.kind {
                ControlKind::Number { lo, hi, .. } => Some((c.label, (lo, hi))),
                _ => None,
            })
            .collect();
    assert_eq!(ends["hp"], (0, 32));
    assert_eq!(ends["dmg"], (1, 28));
    assert_eq!(ends["bonus"], (-22, 0));
    assert_eq!(ends["edge"], (-20, 20));
    // The shipped dice examples: no stat given as positive slides below 0.
    let path = crate::util::shipped("dice-examples.toml");
    let source = Source::parse(&std::fs::read_to_string(&path).unwrap(), &path, &[]).unwrap();
    for name in source.base.scenario_names() {
        for c in controls(&source, &source.target(&name).unwrap()).unwrap() {
            if let ControlKind::Number { lo, value, .. } = c.kind {
                if c.key.starts_with("units.") && value > 0 {
                    assert!(lo >= 0, "{name}: {} from {lo}", c.key);
                }
            }
        }
    }
}

/// Issue #58, item 4: the live page offered slider values the server refused (a
/// skirmish defence of 15 where the die allows 1 to 11, `explode_on = 1`). Every slider of
/// every scenario and group of every shipped config, at both ends and in the middle,
/// loads as the server loads it (`Source::parse` with the `--set` the page sends).
#[test]
fn every_slider_of_every_shipped_config_is_accepted_at_both_ends_and_the_middle() {
    use rollsim::balance::controls::{controls, ControlKind};
    use rollsim::balance::Source;
    let (mut probed, mut refused) = (0, Vec::new());
    for entry in std::fs::read_dir(crate::util::shipped("rush.toml").parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let base = Source::parse(&text, &path, &[]).unwrap();
        let mut all = base.base.scenario_names();
        for i in base.base.scenarios().into_iter().filter(|i| i.member) {
            if !all.contains(&i.table) {
                all.push(i.table);
            }
        }
        let mut seen = std::collections::HashSet::new();
        for name in all {
            let target = base.target(&name).unwrap();
            for c in controls(&base, &target).unwrap() {
                let ControlKind::Number { lo, hi, .. } = c.kind else {
                    continue;
                };
                for v in [lo, (lo + hi) / 2, hi] {
                    let set = c.set(&v.to_string());
                    if !seen.insert(set.clone()) {
                        continue;
                    }
                    probed += 1;
                    if let Err(e) = Source::parse(&text, &path, std::slice::from_ref(&set)) {
                        refused.push(format!("{file} {name}: {set}: {e}"));
                    }
                }
            }
        }
    }
    assert!(probed > 300, "{probed}");
    assert!(
        refused.is_empty(),
        "{} of {probed} refused:\n{}",
        refused.len(),
        refused.join("\n")
    );
}

/// Issue #58, item 8: work with no end in sight started without a word. `-n` past 10^10
/// trials in one process is refused unless `--no-trial-cap` says so, and a run whose
/// pace says it takes a minute or more says how long, and how to stop it, up front.
#[test]
fn long_work_says_so_up_front() {
    let config = crate::util::shipped("rush.toml");
    let a = crate::util::rollsim()
        .args([
            "run",
            config.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
        ])
        .args(["-n", "1e15", "-q"])
        .assert()
        .code(2);
    let e = crate::util::text(&a.get_output().stderr);
    assert!(
        e.contains("-n 1000000000000000: more than 10000000000 trials in one process"),
        "{e}"
    );
    assert!(e.contains("add --no-trial-cap to run them anyway"), "{e}");
    // Every command that takes -n.
    for args in [
        vec!["roll", "d6", "-n", "2e10"],
        vec![
            "sweep",
            config.to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
        ],
    ] {
        let mut args = args.clone();
        if args[0] == "sweep" {
            args.extend(["--vary", "attacker.strength=2..3", "-n", "2e10"]);
        }
        let a = crate::util::rollsim().args(&args).assert().code(2);
        let e = crate::util::text(&a.get_output().stderr);
        assert!(e.contains("more than 10000000000 trials"), "{args:?}: {e}");
    }
    // With the flag it starts; and a run of minutes says so within seconds.
    let dir = crate::util::tempdir();
    let (line, status) = first_warning(
        &["roll", "let a = 3d6 in let b = 3d6 in max(a, b) * d6"],
        &["-n", "2e10", "--no-trial-cap", "--threads", "1"],
        &dir.path().join("r"),
    );
    assert!(
        line.starts_with("roll: 20000000000 trials at about ")
            && line.contains(" a second will take about "),
        "{line}"
    );
    assert!(
        line.contains("Ctrl-C stops it and writes nothing"),
        "{line}"
    );
    assert_eq!(status.code(), Some(130), "{line}");
    // A trial of milliseconds: its first chunk of 65,536 trials would take minutes, so
    // the estimate comes from a pilot of a few trials rolled before the run.
    let (line, status) = first_warning(
        &["roll", "cancel(500000d6, 500000d6) highest"],
        &["-n", "1e6", "--threads", "1"],
        &dir.path().join("c"),
    );
    assert!(
        line.starts_with("roll: 1000000 trials at about ") && line.contains(" will take about "),
        "{line}"
    );
    assert_eq!(status.code(), Some(130), "{line}");
    // A balance command counts its points: 40,000 exact points of a sweep whose cost
    // grows along both axes, taken in an order that samples the whole grid early.
    let config = dir.path().join("slow.toml");
    std::fs::write(
        &config,
        "system = \"dice\"\n[scenarios.big]\nroll = \"(n)d10 keep highest (k) sum\"\nvalues = { n = 10, k = 5 }\n",
    )
    .unwrap();
    let (line, status) = first_warning(
        &["sweep", config.to_str().unwrap(), "-s", "big"],
        &[
            "--vary",
            "scenarios.big.values.n=1..200",
            "--vary",
            "scenarios.big.values.k=1..200",
            "--exact-only",
            "--threads",
            "1",
        ],
        &dir.path().join("s"),
    );
    assert!(
        line.starts_with("40000 sweep points at about ") && line.contains(" will take about "),
        "{line}"
    );
    assert_eq!(status.code(), Some(130), "{line}");
    assert!(!dir.path().join("s").exists());
}

/// Start `rollsim ARGS EXTRA -q -o OUT`, read its first line on stderr (within 60 s, else
/// an empty line), then stop it with Ctrl-C: the line, and how it ended.
fn first_warning(
    args: &[&str],
    extra: &[&str],
    out: &std::path::Path,
) -> (String, std::process::ExitStatus) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
        .args(args)
        .args(extra)
        .args(["-q", "-o"])
        .arg(out)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    // The reader keeps the pipe open to the end: a closed one would make the child's
    // last words fail.
    let reader = std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut err, &mut line);
        let _ = tx.send(line);
        let _ = std::io::Read::read_to_end(&mut err, &mut Vec::new());
    });
    let line = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or_default();
    unsafe { libc::kill(pid, libc::SIGINT) };
    let status = child.wait().unwrap();
    reader.join().unwrap();
    (line, status)
}

/// Ctrl-C while a config loads: checking a roll may work out its exact distribution
/// (here a wide one, refused after about a second of work), and that work stopped at
/// the token of the command, not at one of its own. Before, each command went on to the
/// refusal (exit 2) however early the signal came; now it stops, says so, exits 130.
/// Every command that loads a config, and `roll` that loads an expression.
#[test]
fn ctrl_c_while_a_config_loads_stops_the_command() {
    let roll = "repeat m = 1, r = -1 until r >= 0 do let x = d1000 + d1000 in r = if x == 2 then -1 else m * x, m = 2 * m then r";
    let d = tempfile::tempdir().unwrap();
    let config = d.path().join("wide.toml");
    std::fs::write(
        &config,
        format!("system = \"dice\"\n[scenarios.stress]\nroll = \"{roll}\"\n"),
    )
    .unwrap();
    let c = config.to_str().unwrap();
    let out = d.path().join("out");
    let o = out.to_str().unwrap();
    let overlay = format!("{c}:stress");
    // Not stopped, the load refuses the roll: the signal below is sent well before.
    let whole = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
        .args(["check", c])
        .output()
        .unwrap();
    assert_eq!(whole.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&whole.stderr).contains("more than 65536 values"));
    let commands: [Vec<&str>; 6] = [
        vec!["check", c],
        vec!["list", c],
        vec!["run", c, "-o", o],
        vec!["sensitivity", c, "--scenario", "stress", "-o", o],
        vec!["overlay", &overlay, &overlay, "-o", o],
        vec!["roll", roll],
    ];
    for args in commands {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
            .args(&args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let got = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(130), "{args:?}: {said}");
        assert!(said.contains("interrupted"), "{args:?}: {said}");
        assert!(!out.exists(), "{args:?} wrote nothing");
    }
}
