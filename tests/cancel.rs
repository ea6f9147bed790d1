//! Issue #22: cancellation is a value handed to every long loop, exact passes included.

use rollsim::balance::compile;
use rollsim::Cancel;
use std::time::{Duration, Instant};

/// Two pool variables read several ways: about a second of exact work on this machine
/// (8d10 against 6d10 became half a second once a variable's rolls that read alike
/// were grouped, and a cold CI run finished it before the token was cancelled). It now
/// ends in about a tenth of a second, when it finds too many states: a loaded test run
/// once finished it before a token cancelled at 100 ms, so the token goes at 20 ms.
const HEAVY: &str = r#"
system = "dice"
[scenarios.heavy]
roll = "let a = 11d10 in let b = 10d10 in a sum - b sum + a highest * b lowest"
"#;

#[test]
fn a_token_cancelled_mid_pass_stops_the_exact_evaluation() {
    let cfg = rollsim::config::load_str(HEAVY, "heavy.toml", &[]).unwrap();
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let start = Instant::now();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        stop.cancel();
    });
    let r = compile(&cfg, "heavy", &cancel);
    let took = start.elapsed();
    stopper.join().unwrap();
    assert!(
        matches!(r, Err(rollsim::Error::Interrupted)),
        "{:?}",
        r.err()
    );
    // The promise (at once) is measured by `cargo bench --bench promises`; uncancelled,
    // the pass finishes with an answer, not `Interrupted`.
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// A kept sum of a big pool (about 0.6 s of sums of distributions): each of its sums
/// looks at the token, so a stop is taken at once, not when the sum is done (a Ctrl-C
/// at the start of `rollsim roll "200d100 keep highest 100"` waited 0.7 s).
#[test]
fn a_token_cancelled_during_a_big_kept_sum_stops_it() {
    let text = "system = \"dice\"\n[scenarios.big]\nroll = \"200d100 keep highest 100\"\n";
    let cfg = rollsim::config::load_str(text, "big.toml", &[]).unwrap();
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        stop.cancel();
    });
    let r = compile(&cfg, "big", &cancel);
    stopper.join().unwrap();
    assert!(
        matches!(r, Err(rollsim::Error::Interrupted)),
        "{:?}",
        r.map(|c| c.exact.is_some())
    );
}

#[test]
fn an_uncancelled_token_lets_a_light_pass_finish() {
    let text = "system = \"dice\"\n[scenarios.x]\nroll = \"3d6\"\n";
    let cfg = rollsim::config::load_str(text, "x.toml", &[]).unwrap();
    let c = compile(&cfg, "x", &Cancel::new()).unwrap();
    let e = c.exact.expect("3d6 is exact");
    // P(3d6 = 10) = 27/216: the orderings of {1,3,6}, {1,4,5}, {2,3,5} (6 each), {2,2,6},
    // {2,4,4}, {3,3,4} (3 each): 18 + 9 = 27 of the 216 rolls.
    let m = &c.metrics[0];
    let p = m.project_f64(&e);
    let i = m.labels.iter().position(|l| l == "10").unwrap();
    assert!((p[i] - 27.0 / 216.0).abs() < 1e-12);
}

#[test]
fn sigterm_stops_a_run_of_2_to_the_64_trials_at_once() {
    // A stopped run used to walk every remaining chunk: 2^48 of them here.
    let d = crate::util::tempdir();
    let out = d.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
        .args(["run", crate::util::shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "stand-up-striker", "-n", "18446744073709551615", "-q"])
        .arg("--no-trial-cap")
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (status, took) = sigterm(&mut child);
    // The promise is half a second, measured by `cargo bench --bench promises`; here a
    // guard: the remaining chunks would take for ever.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(status.code(), Some(130));
    assert!(!out.exists());
}

#[test]
fn sigterm_stops_a_run_whose_single_trials_take_milliseconds() {
    // Each trial is a `repeat` of up to 10,000 rounds: a chunk of 65,536 trials is
    // minutes of work, and the stop was looked at only between chunks.
    let d = crate::util::tempdir();
    let out = d.path().join("out");
    let slow = "repeat hp = 0 until hp < 0 do hp = hp + d6 limit 10000 then hp";
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
        .args([
            "roll",
            slow,
            "-n",
            "70000",
            "-q",
            "--no-plots",
            "--threads",
            "1",
        ])
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "finished too soon to test"
    );
    let (status, took) = sigterm(&mut child);
    // Half a second promised (`cargo bench --bench promises`); the chunk would take
    // minutes.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(status.code(), Some(130));
    assert!(!out.exists());
}

/// SIGTERM to a child, then its exit status and how long it took to end (killed, and
/// the test failed, past 60 s).
fn sigterm(child: &mut std::process::Child) -> (std::process::ExitStatus, Duration) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let sent = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (s, sent.elapsed());
        }
        if sent.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running 60 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
