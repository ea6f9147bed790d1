//! Issue #12: hostile input and faults. One test per finding of the issue, each failing on
//! the code before it: names that would escape or inject, planted links, kills, two runs
//! at once, a full stdout, tampered parts, unbounded ranges, signals, messages.

use crate::util::{rollsim, shipped, tempdir, text as text_of};
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn bin() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).to_string()
}

/// Every file below `dir`, relative to it, with its bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    if dir.exists() {
        walk(dir, &mut files);
    }
    files
        .into_iter()
        .map(|p| {
            (
                p.strip_prefix(dir).unwrap().to_path_buf(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// A small rush config with one more scenario named `name` (as a TOML key).
fn with_scenario(name: &str) -> String {
    let base = std::fs::read_to_string(shipped("rush.toml")).unwrap();
    format!("{base}\n[scenarios.{name}]\nkind = \"stand_up\"\nunit = \"orc\"\n")
}

#[test]
fn item1_11_names_that_would_escape_hide_collide_or_inject_are_refused_at_load() {
    let cases: &[(&str, &str)] = &[
        ("\"..\"", "starts with a letter or a digit"),
        ("\".\"", "starts with a letter or a digit"),
        ("\".hidden\"", "starts with a letter or a digit"),
        ("\"a\\u0000b\"", "only letters, digits"),
        ("\"distribution.csv\"", "only letters, digits"),
        ("\"=1+2\"", "starts with a letter or a digit"),
        ("\"+cmd\"", "starts with a letter or a digit"),
        ("\"a/b\"", "only letters, digits"),
        ("compare", "the name of a folder reports write"),
        (&"x".repeat(300), "at most 64 characters"),
    ];
    for (name, why) in cases {
        let dir = tempdir();
        let cfg = dir.path().join("c.toml");
        let text = with_scenario(name);
        std::fs::write(&cfg, &text).unwrap();
        let out = dir.path().join("out");
        let a = rollsim()
            .args(["run", cfg.to_str().unwrap(), "-n", "100", "-q", "-o"])
            .arg(&out)
            .assert()
            .code(2);
        let e = stderr(&a);
        let line = text.lines().count() - 2;
        assert!(e.contains(&format!("c.toml:{line}:")), "{name}: {e}");
        assert!(e.contains(why), "{name}: {e}");
        assert!(!out.exists(), "{name}: nothing is written");
        assert!(!dir
            .path()
            .join("..")
            .join("slam-orc-vs-human-guard")
            .exists());
    }
    // Entry ids become CSV cells and file names too.
    let text = std::fs::read_to_string(shipped("rush.toml"))
        .unwrap()
        .replace("[units.goblin]", "[units.\"=HYPERLINK(1)\"]");
    let e = rollsim::config::load_str(&text, "u.toml", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unit `=HYPERLINK(1)`: a name starts with a letter"),
        "{e}"
    );
}

#[test]
fn item11_text_cells_from_the_command_line_cannot_start_a_formula() {
    // An overlay labels its entries with the config's file name: name it like a formula.
    let dir = tempdir();
    let cfg = dir.path().join("=1+2.toml");
    std::fs::copy(shipped("rush.toml"), &cfg).unwrap();
    let entry = format!("{}:slam-orc-vs-human-guard", cfg.display());
    rollsim()
        .args(["overlay", &entry, &format!("{entry}:defender=orc")])
        .args(["-n", "1000", "--no-plots", "-o"])
        .arg(dir.path())
        .assert()
        .success();
    let csv = std::fs::read_to_string(dir.path().join("overlay-result.csv")).unwrap();
    assert!(
        csv.lines().nth(1).unwrap().starts_with("'=1+2: slam"),
        "{csv}"
    );
    for line in csv.lines() {
        assert!(!"=+-@".contains(line.chars().next().unwrap()), "{line}");
    }
}

#[test]
fn a_unit_id_that_is_a_column_heading_is_refused_and_nothing_is_written() {
    // The wide matchup table heads its first column `attacker` and then one column per
    // defender id: a defender called `attacker` would give two columns of one name,
    // which a reader keeps one of. Refused as bad input, with the name, no file made.
    let dir = tempdir();
    let text = std::fs::read_to_string(shipped("rush.toml"))
        .unwrap()
        .replace("[units.human_jack]", "[units.attacker]")
        .replace("\"human_jack\"", "\"attacker\"");
    let cfg = dir.path().join("rush.toml");
    std::fs::write(&cfg, text).unwrap();
    let out = dir.path().join("out");
    let a = rollsim()
        .arg("compare")
        .arg(&cfg)
        .args([
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "--no-plots",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(2);
    let e = text_of(&a.get_output().stderr);
    assert!(e.contains("two columns are named `attacker`"), "{e}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn item2_planted_links_are_never_followed() {
    let dir = tempdir();
    let d = dir.path();
    let victim = d.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    // A report rollsim wrote (issue #23: only such a folder is replaced), then links
    // planted where the report's files go, and under every temporary name an older
    // rollsim would have used for the next few thousand process ids.
    std::fs::write(out.join(".rollsim-report"), "").unwrap();
    let me = std::process::id();
    for name in ["summary.csv", "distribution.csv"] {
        std::os::unix::fs::symlink(&victim, out.join(name)).unwrap();
    }
    for pid in me..me + 2000 {
        std::os::unix::fs::symlink(&victim, out.join(format!(".summary.{pid}.partial.csv")))
            .unwrap();
    }
    rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args([
            "-s",
            "stand-up-striker",
            "-n",
            "1000",
            "-q",
            "--no-plots",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(out.join("summary.csv")).unwrap();
    assert!(
        meta.file_type().is_file(),
        "summary.csv is a file, not a link"
    );
    // The temporary name is random and created exclusively: a planted link under it
    // fails the write instead of being followed.
    let planted = d.join("planted");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    assert!(rollsim::report::write::create_new(&planted).is_err());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

fn run_cmd(config: &Path, seed: &str, out: &Path, trials: &str) -> std::process::Command {
    let mut c = bin();
    c.args(["run", config.to_str().unwrap(), "-n", trials, "-q"])
        .args(["--format", "csv,parquet,json", "--seed", seed, "-o"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

#[test]
fn item3_a_killed_run_leaves_the_whole_old_report_or_the_whole_new_one() {
    let dir = tempdir();
    let d = dir.path();
    let config = shipped("dozen.toml");
    assert!(run_cmd(&config, "1", &d.join("out"), "3000")
        .status()
        .unwrap()
        .success());
    assert!(run_cmd(&config, "2", &d.join("new"), "3000")
        .status()
        .unwrap()
        .success());
    let (old, new) = (snapshot(&d.join("out")), snapshot(&d.join("new")));
    assert!(old.len() > 50 && old.len() == new.len() && old != new);
    let (mut n_old, mut n_new) = (0, 0);
    for delay in [5u64, 20, 40, 80, 120, 160, 220, 300, 400, 600, 900] {
        let mut child = run_cmd(&config, "2", &d.join("out"), "3000")
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let now = snapshot(&d.join("out"));
        if now == old {
            n_old += 1;
        } else if now == new {
            n_new += 1;
            // Back to the old report for the next kill.
            assert!(run_cmd(&config, "1", &d.join("out"), "3000")
                .status()
                .unwrap()
                .success());
        } else {
            let mixed = now
                .iter()
                .filter(|(p, b)| old.get(*p) != Some(*b) && new.get(*p) != Some(*b))
                .count();
            panic!("after {delay} ms the folder is neither report ({mixed} foreign files)");
        }
    }
    eprintln!("kills: {n_old} left the old report, {n_new} the new one");
    // Kills did land before the end (the old report stayed), and leftovers of killed runs
    // are cleaned by the next run.
    assert!(n_old > 0);
    assert!(run_cmd(&config, "2", &d.join("out"), "3000")
        .status()
        .unwrap()
        .success());
    assert_eq!(snapshot(&d.join("out")), new);
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains("staging") || n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn item3_a_second_run_on_the_same_folder_refuses_while_the_first_writes() {
    let dir = tempdir();
    let d = dir.path();
    let config = shipped("rush.toml");
    let out = d.join("out");
    let mut first = run_cmd(&config, "1", &out, "20000000").spawn().unwrap();
    // Wait until the first run holds the folder.
    let staged = || {
        std::fs::read_dir(d).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".out.staging-")
        })
    };
    let t0 = std::time::Instant::now();
    while !staged() && t0.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(staged());
    let a = rollsim()
        .args(["run", config.to_str().unwrap(), "-n", "1000", "-q", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("another rollsim run is writing this folder"),
        "{}",
        stderr(&a)
    );
    let _ = first.kill();
    let _ = first.wait();
    // A run of one scenario replaces the whole folder: no other scenario's folder stays.
    rollsim()
        .args(["run", config.to_str().unwrap(), "-s", "stand-up-striker"])
        .args(["-n", "1000", "-q", "-o"])
        .arg(&out)
        .assert()
        .success();
    let dirs: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.path().is_dir().then(|| e.file_name())
        })
        .collect();
    assert_eq!(dirs, vec![std::ffi::OsString::from("stand-up-striker")]);
}

#[test]
fn item4_signals_give_a_truthful_message_and_exit_code() {
    let dir = tempdir();
    let d = dir.path();
    let config = shipped("dozen.toml");
    let out = d.join("out");
    assert!(run_cmd(&config, "1", &out, "3000")
        .status()
        .unwrap()
        .success());
    let old = snapshot(&out);
    for (signal, delay) in [
        (libc::SIGINT, 10u64),
        (libc::SIGTERM, 10),
        (libc::SIGINT, 150),
        (libc::SIGTERM, 300),
    ] {
        let mut c = run_cmd(&config, "2", &out, "3000");
        c.stderr(Stdio::piped());
        let child = c.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, signal) };
        let o = child.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(130) => {
                assert!(e.contains("interrupted: no output was written"), "{e}");
                assert_eq!(
                    snapshot(&out),
                    old,
                    "{signal} after {delay} ms: nothing written"
                );
            }
            Some(0) => assert_ne!(snapshot(&out), old, "finished: the new report"),
            // On a loaded machine the signal can arrive before the process installed
            // its handler: the default action ends it, and still nothing is written.
            None if std::os::unix::process::ExitStatusExt::signal(&o.status) == Some(signal) => {
                assert_eq!(
                    snapshot(&out),
                    old,
                    "{signal} after {delay} ms: killed early"
                );
            }
            other => panic!("signal {signal} after {delay} ms: exit {other:?}: {e}"),
        }
        if snapshot(&out) != old {
            assert!(run_cmd(&config, "1", &out, "3000")
                .status()
                .unwrap()
                .success());
        }
    }
    // Commands that write no report stop too, and say so: `check` compiling every descent
    // policy table, and the equalizer over every point of a distance profile.
    let descent = shipped("descent.toml");
    let d = descent.to_str().unwrap();
    for args in [
        vec!["check", d],
        vec![
            "equalize",
            d,
            "-s",
            "crossbow-range",
            "--exact-only",
            "--pairs",
        ],
    ] {
        let mut c = bin();
        c.args(&args)
            .arg("-o")
            .arg(dir.path().join("b"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if args[0] == "check" {
            c = bin();
            c.args(&args).stdout(Stdio::null()).stderr(Stdio::piped());
        }
        let child = c.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(40));
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{args:?}: {e}");
        assert!(e.contains("interrupted"), "{e}");
    }
}

#[test]
fn item5_a_failing_stdout_is_an_error() {
    for args in [
        vec!["list", "CONFIG"],
        vec!["check", "CONFIG"],
        vec!["--help"],
        vec![
            "run",
            "CONFIG",
            "-n",
            "10000",
            "--format",
            "md",
            "--no-plots",
            "-q",
        ],
    ] {
        let dir = tempdir();
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if *a == "CONFIG" {
                    shipped("rush.toml").display().to_string()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = bin()
            .args(&args)
            .args(if args[0] == "run" {
                vec!["-o".to_string(), dir.path().join("o").display().to_string()]
            } else {
                vec![]
            })
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("writing to standard output"),
            "{args:?}"
        );
    }
    // A closed pipe ends quietly.
    let mut child = bin()
        .args(["list", shipped("descent.toml").to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Two shards of a small run, as parts on disk.
fn parts(d: &Path) -> Vec<PathBuf> {
    for k in 1..=2 {
        rollsim()
            .args(["run", shipped("rush.toml").to_str().unwrap()])
            .args([
                "-s",
                "stand-up-striker",
                "-n",
                "200000",
                "-q",
                "--seed",
                "3",
            ])
            .args(["--shard", &format!("{k}/2"), "-o"])
            .arg(d.join("parts"))
            .assert()
            .success();
    }
    (1..=2)
        .map(|k| d.join(format!("parts/part-{k}-of-2.json")))
        .collect()
}

fn merge(parts: &[PathBuf], out: &Path) -> assert_cmd::assert::Assert {
    rollsim()
        .arg("merge")
        .args(parts)
        .args(["--no-plots", "--format", "csv", "-o"])
        .arg(out)
        // A watchdog, not a timing: a merge that hung on a forged part is killed, and
        // its assertions fail.
        .timeout(std::time::Duration::from_secs(60))
        .assert()
}

/// Edit part 1 with `f`; with `reseal`, recompute its checksum as a forger would.
fn tamper(p: &Path, reseal: bool, f: impl Fn(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    f(&mut v);
    if reseal {
        let part: rollsim::app::shard::Part = serde_json::from_value(v.clone()).unwrap();
        v["checksum"] = serde_json::Value::String(part.content_hash().unwrap());
    }
    std::fs::write(p, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn item6_merge_refuses_edited_parts() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("merged");
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(bool, &str, Edit)> = vec![
        (
            false,
            "the part was edited or damaged",
            Box::new(|v| {
                let c = v["scenarios"][0]["counts"][1].as_u64().unwrap();
                v["scenarios"][0]["counts"][1] = (c + 1).into();
            }),
        ),
        (
            true,
            "the counts add up to 131073, shard 1/2 ran 131072 trials",
            Box::new(|v| {
                let c = v["scenarios"][0]["counts"][1].as_u64().unwrap();
                v["scenarios"][0]["counts"][1] = (c + 1).into();
            }),
        ),
        (
            true,
            "the counts overflow",
            Box::new(|v| {
                v["scenarios"][0]["counts"][1] = u64::MAX.into();
            }),
        ),
        (
            true,
            "it was edited",
            Box::new(|v| {
                let t =
                    v["config_text"]
                        .as_str()
                        .unwrap()
                        .replacen("strength = 3", "strength = 4", 1);
                v["config_text"] = t.into();
            }),
        ),
        (
            true,
            "is not a shard of a",
            Box::new(|v| {
                v["shard"] = serde_json::json!([1u64, u64::MAX]);
            }),
        ),
    ];
    for (reseal, why, f) in cases {
        let ps = parts(d);
        tamper(&ps[0], reseal, f);
        let a = merge(&ps, &out).code(2);
        assert!(stderr(&a).contains(why), "{why}: {}", stderr(&a));
        assert!(!out.exists());
    }
    // Untouched parts still merge.
    merge(&parts(d), &out).success();
}

#[test]
fn item7_ranges_are_bounded_before_anything_is_made() {
    let rush = shipped("rush.toml");
    for range in [
        "0..9223372036854775807",
        "0..1000000000",
        "-9223372036854775808..9223372036854775807",
    ] {
        let a = rollsim()
            .args([
                "sweep",
                rush.to_str().unwrap(),
                "-s",
                "slam-orc-vs-human-guard",
            ])
            .args([
                "--vary",
                &format!("attacker.strength={range}"),
                "--exact-only",
            ])
            .assert()
            .code(2);
        assert!(stderr(&a).contains("at most 200 per key"), "{}", stderr(&a));
    }
    let a = rollsim()
        .args([
            "run",
            rush.to_str().unwrap(),
            "--shard",
            "1/18446744073709551615",
        ])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("shards"), "{}", stderr(&a));
}

#[test]
fn item9_messages_name_the_key() {
    let rush = std::fs::read_to_string(shipped("rush.toml")).unwrap();
    let e = |text: &str, sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        match rollsim::config::load_str(text, "r.toml", &sets) {
            Ok(_) => "loaded without an error".to_string(),
            Err(e) => e.to_string(),
        }
    };
    // 58 extra dice pass the key's own range; the pool limit names the key that broke it.
    let m = e(
        &rush,
        &["scenarios.slam-orc-vs-human-guard.defender_extra_dice=58"],
    );
    assert!(
        m.contains(
            "key `scenarios.slam-orc-vs-human-guard.defender_extra_dice`: pools are limited"
        ),
        "{m}"
    );
    let m = e(&rush, &["system=dozen"]);
    assert!(
        m.starts_with("--set system=dozen:") && m.contains("cannot be changed"),
        "{m}"
    );
    let dup = rush.replacen("strength = 4", "strength = 4\nstrength = 5", 1);
    let m = e(&dup, &[]);
    assert!(
        m.contains("key `units.human_striker.strength`")
            && m.contains("duplicate key: already set on line 32"),
        "{m}"
    );
    let big = rush.replacen("strength = 4", "strength = 9223372036854775808", 1);
    let m = e(&big, &[]);
    assert!(m.contains("key `strength`"), "{m}");
    for bad in ["\"3+++++\"", "\"+3\"", "\"3 +\""] {
        let t = rush.replacen("strength = 4", &format!("strength = {bad}"), 1);
        let m = e(&t, &[]);
        assert!(m.contains("expected a target from 2+ to 6+"), "{bad}: {m}");
    }
}

#[test]
fn item10_a_precision_not_reached_is_said() {
    let dir = tempdir();
    let a = rollsim()
        .args([
            "run",
            shipped("rush.toml").to_str().unwrap(),
            "-s",
            "slam-orc-vs-human-guard",
        ])
        .args([
            "--precision",
            "1e-12",
            "--max-trials",
            "1000",
            "--no-plots",
            "-o",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let md = String::from_utf8_lossy(&a.get_output().stdout);
    assert!(
        md.contains("**Note:** precision 0.000000000001 not reached: stopped at the cap of"),
        "{md}"
    );
    assert!(stderr(&a).contains("warning: slam-orc-vs-human-guard: precision"));
}

/// The one quotient past the integers (the least one over -1) panicked the sampler and
/// the constant folder: it reads as the greatest, in every engine, as the exact engine
/// always read it.
#[test]
fn the_least_integer_over_minus_one_is_the_greatest_in_every_engine() {
    let least = "(-(1000000 * 1000000 * 1000000 * 1000000) - 1000000)";
    // Folded at compile; rolled, through the sampler and the exact engine (compared
    // with 0, as a result of 2^64 values is refused before it is rolled).
    for (roll, row) in [
        (
            format!("{least} / -1"),
            "roll,value,9223372036854775807,2000,2000,",
        ),
        (
            format!("({least} + d2 - 1) / -1 > 0"),
            "roll,value,1,2000,2000,",
        ),
    ] {
        let out = bin()
            .args(["roll", &roll, "-o", "-", "-n", "2000", "--seed", "1"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{roll}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains(row), "{roll}: {text}");
        assert!(text.contains(",1.0,1/1"), "{roll}: exact 1: {text}");
    }
}
