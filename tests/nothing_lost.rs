//! Issue #23, "nothing lost": a folder that is not a rollsim report is never replaced,
//! parts and balance outputs are never collateral damage, `-o out/.` is the folder
//! `out`, and a link planted at a lock's name is never followed. Each test is the
//! issue's reproduction.

use crate::util::{rollsim, shipped, tempdir, text};
use std::path::Path;

fn run_into(dir: &Path, out: &str) -> assert_cmd::assert::Assert {
    rollsim()
        .current_dir(dir)
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "stand-up-striker", "-n", "1000", "-q", "--no-plots"])
        .args(["-o", out])
        .assert()
}

#[test]
fn item1_a_folder_of_the_users_is_refused_not_wiped() {
    let d = tempdir();
    std::fs::create_dir(d.path().join("mydocs")).unwrap();
    std::fs::write(d.path().join("mydocs/thesis.txt"), "t").unwrap();
    let a = run_into(d.path(), "mydocs").code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("mydocs: this folder is not a rollsim report"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("mydocs/thesis.txt")).unwrap(),
        "t"
    );
    // An empty folder, a new one and a report rollsim wrote are fine; the report is
    // marked, and replaced by the next run.
    std::fs::create_dir(d.path().join("empty")).unwrap();
    run_into(d.path(), "empty").success();
    run_into(d.path(), "new").success();
    assert!(d.path().join("new/.rollsim-report").is_file());
    run_into(d.path(), "new").success();
    // A report made before the marker existed (report files only) is still replaced.
    let old = d.path().join("old");
    std::fs::create_dir_all(old.join("stand-up-striker")).unwrap();
    std::fs::write(old.join("summary.csv"), "x").unwrap();
    std::fs::write(old.join("stand-up-striker/result.png"), "x").unwrap();
    run_into(d.path(), "old").success();
    assert!(old.join(".rollsim-report").is_file());
    // A designer's notes that happen to look like tables are not a report.
    let notes = d.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("summary.md"), "my summary").unwrap();
    std::fs::write(notes.join("ideas.md"), "ideas").unwrap();
    run_into(d.path(), "notes").code(2);
    assert_eq!(
        std::fs::read_to_string(notes.join("summary.md")).unwrap(),
        "my summary"
    );
}

/// A one-shard run's part, in `dir/p/part-1-of-1.json`.
fn one_part(dir: &Path) {
    rollsim()
        .current_dir(dir)
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "stand-up-striker", "-n", "70000", "-q"])
        .args(["--shard", "1/1", "-o", "p"])
        .assert()
        .success();
}

#[test]
fn item1_merge_into_the_parts_folder_keeps_the_parts() {
    let d = tempdir();
    one_part(d.path());
    let part = d.path().join("p/part-1-of-1.json");
    assert!(part.is_file());
    let a = rollsim()
        .current_dir(d.path())
        .args(["merge", "p/part-1-of-1.json", "-o", "p"])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("not a rollsim report"));
    assert!(part.is_file());
}

#[test]
fn item1_parts_and_balance_outputs_survive_the_next_run() {
    let d = tempdir();
    let cfg = d.path().join("configs/rush.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::copy(shipped("rush.toml"), &cfg).unwrap();
    let cfg = cfg.to_str().unwrap().to_string();
    // A shard without -o writes beside the config's report, not into it.
    rollsim()
        .current_dir(d.path())
        .args(["run", &cfg, "-s", "stand-up-striker", "-n", "70000", "-q"])
        .args(["--shard", "1/1"])
        .assert()
        .success();
    let part = d.path().join("reports/rush-parts/part-1-of-1.json");
    assert!(part.is_file());
    // A balance command's output inside the report folder.
    rollsim()
        .current_dir(d.path())
        .args([
            "sensitivity",
            &cfg,
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
        ])
        .args(["--no-plots"])
        .assert()
        .success();
    let sens = d
        .path()
        .join("reports/rush/sensitivity/sensitivity-slam-orc-vs-human-guard.csv");
    assert!(sens.is_file());
    let before = std::fs::read(&sens).unwrap();
    // A plain run replaces the report, and keeps both.
    rollsim()
        .current_dir(d.path())
        .args(["run", &cfg, "-n", "1000", "-q"])
        .assert()
        .success();
    assert!(d.path().join("reports/rush/summary.csv").is_file());
    assert_eq!(std::fs::read(&sens).unwrap(), before);
    assert!(part.is_file());
}

#[test]
fn item16_out_dot_is_the_folder_and_messages_name_it() {
    let d = tempdir();
    let a = run_into(d.path(), "out/.").success();
    assert!(text(&a.get_output().stderr).contains("to out"));
    assert!(d.path().join("out/summary.csv").is_file());
    // A second run into `out/.` replaces it (it was "Device or resource busy").
    run_into(d.path(), "out/.").success();
    // Two runs at once: the message names the folder, never the lock file.
    let busy = std::fs::File::create(d.path().join(".out.lock")).unwrap();
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(busy.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let a = run_into(d.path(), "out").failure();
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("out: another rollsim run is writing this folder"),
        "{err}"
    );
    assert!(!err.contains(".lock"), "{err}");
}

#[test]
fn item4_a_dangling_link_at_the_lock_name_is_not_followed() {
    let d = tempdir();
    let planted = d.path().join("planted");
    std::os::unix::fs::symlink(&planted, d.path().join(".out.lock")).unwrap();
    let a = run_into(d.path(), "out").failure();
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("a symbolic link sits where rollsim keeps"),
        "{err}"
    );
    assert!(!planted.exists());
    assert!(!d.path().join("out").exists());
}

#[test]
fn item13_parts_name_their_format_and_build_and_use_sha256() {
    let d = tempdir();
    one_part(d.path());
    let path = d.path().join("p/part-1-of-1.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // SHA-256: 64 hex digits, and the config hash is the digest of the config's text.
    let sum = v["checksum"].as_str().unwrap().to_string();
    assert_eq!(sum.len(), 64, "{sum}");
    assert!(v["build"].as_str().unwrap().starts_with("rollsim "), "{v}");
    assert_eq!(
        v["config_hash"].as_str().unwrap(),
        rollsim::app::shard::hash(v["config_text"].as_str().unwrap(), &[])
    );
    // A part of an older layout is named as one, not as a missing field.
    let mut old = v.clone();
    old["format"] = 1.into();
    old.as_object_mut().unwrap().remove("checksum");
    std::fs::write(d.path().join("old.json"), old.to_string()).unwrap();
    let a = rollsim()
        .current_dir(d.path())
        .args(["merge", "old.json", "-o", "m"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("part format 1, this rollsim reads format 4"),
        "{err}"
    );
    // A part of another build is refused, even resealed.
    v["build"] = "rollsim 0.1.0 (0123456789ab)".into();
    v["checksum"] = "".into();
    let part: rollsim::app::shard::Part = serde_json::from_value(v.clone()).unwrap();
    v["checksum"] = part.content_hash().unwrap().into();
    std::fs::write(d.path().join("other.json"), v.to_string()).unwrap();
    let a = rollsim()
        .current_dir(d.path())
        .args(["merge", "other.json", "-o", "m"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("made by rollsim 0.1.0 (0123456789ab)"),
        "{err}"
    );
}

/// Every file under `dir` with its bytes (locks aside).
fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else if !e.file_name().to_string_lossy().ends_with(".lock") {
                let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
                out.push((rel, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `compare` on the rush Slam into `out` (relative to `dir`); `trials` None is exact only.
fn compare(
    dir: &Path,
    cfg: &str,
    scenario: &str,
    trials: Option<&str>,
    out: Option<&str>,
) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"));
    c.current_dir(dir).args(["compare", cfg, "-s", scenario]);
    match trials {
        // Runs of hours, to be stopped: past the trial cap on purpose.
        Some(n) => c.args(["-n", n, "--no-trial-cap"]),
        None => c.arg("--exact-only"),
    };
    if let Some(o) = out {
        c.args(["-o", o]);
    }
    c.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    c
}

/// Wait until a staging folder for `name` appears in `dir` (its run holds the locks).
fn staging_of(dir: &Path, name: &str) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(60) {
        if staging_of_now(dir, name) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}

/// A child that runs for hours: killed when the test ends, whatever happens in it.
struct Slow(Option<std::process::Child>);

impl Slow {
    fn spawn(mut c: std::process::Command) -> Slow {
        Slow(Some(c.spawn().unwrap()))
    }
}

impl Drop for Slow {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn stop(mut slow: Slow) -> std::process::Output {
    let child = slow.0.take().unwrap();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait_with_output().unwrap()
}

#[test]
fn item3_two_compares_into_one_folder_never_mix() {
    let d = tempdir();
    let cfg = shipped("rush.toml");
    let cfg = cfg.to_str().unwrap();
    let slam = "slam-orc-vs-human-guard";
    assert!(compare(d.path(), cfg, slam, None, Some("out"))
        .status()
        .unwrap()
        .success());
    std::fs::write(d.path().join("out/mine.txt"), "my notes").unwrap();
    let before = files(&d.path().join("out"));
    assert_eq!(
        before.len(),
        4,
        "{:?}",
        before.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    // A compare that runs for hours holds the folder; a second one into it is refused
    // before it computes anything.
    let slow = Slow::spawn(compare(
        d.path(),
        cfg,
        slam,
        Some("1000000000000"),
        Some("out"),
    ));
    assert!(staging_of(d.path(), "out"));
    let second = compare(d.path(), cfg, slam, None, Some("out"))
        .output()
        .unwrap();
    let err = text(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(
        err.contains("out: another rollsim run is writing this folder"),
        "{err}"
    );
    // Stopped, the slow one leaves the folder exactly as it was, and no staging behind.
    let out = stop(slow);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert_eq!(files(&d.path().join("out")), before);
    assert!(!staging_of_now(d.path(), "out"));
    // One after the other, both compares' files are there, whole, beside the notes.
    let other = "slam-human-guard-vs-orc";
    let a = compare(d.path(), cfg, other, None, Some("out"))
        .output()
        .unwrap();
    assert!(a.status.success(), "{}", text(&a.stderr));
    let after = files(&d.path().join("out"));
    assert_eq!(after.len(), 7);
    for f in &before {
        assert!(after.contains(f), "{:?} changed", f.0);
    }
}

fn staging_of_now(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!(".{name}.staging-"))
        })
}

#[test]
fn item3_a_run_or_the_main_job_never_replaces_a_folder_a_compare_writes_inside() {
    let d = tempdir();
    let cfg = d.path().join("rush.toml");
    std::fs::copy(shipped("rush.toml"), &cfg).unwrap();
    let slam = "slam-orc-vs-human-guard";
    // Without -o, compare writes into reports/rush/compare.
    let slow = Slow::spawn(compare(
        d.path(),
        "rush.toml",
        slam,
        Some("1000000000000"),
        None,
    ));
    assert!(staging_of(&d.path().join("reports/rush"), "compare"));
    let a = rollsim()
        .current_dir(d.path())
        .args(["run", "rush.toml", "-n", "1000", "-q"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("reports/rush/compare: another rollsim run is writing this folder"),
        "{err}"
    );
    let a = rollsim()
        .current_dir(d.path())
        .args(["-q", "-n", "1000"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains("reports/rush/compare: another rollsim run is writing this folder"),
        "{err}"
    );
    assert!(!d.path().join("reports/rush/summary.csv").exists());
    let out = stop(slow);
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    // And the other way: while a run holds reports/, a compare inside it is refused.
    let held = std::fs::File::create(d.path().join(".reports.lock")).unwrap();
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let a = compare(d.path(), "rush.toml", slam, None, None)
        .output()
        .unwrap();
    assert_eq!(a.status.code(), Some(2));
    assert!(
        text(&a.stderr).contains("reports: another rollsim run is writing this folder"),
        "{}",
        text(&a.stderr)
    );
    drop(held);
    assert!(compare(d.path(), "rush.toml", slam, None, None)
        .status()
        .unwrap()
        .success());
}
