//! Issue #22: cancellation is a value handed to every long loop, exact passes included.

use rollsim::balance::compile;
use rollsim::Cancel;
use std::time::{Duration, Instant};

/// Two pool variables read several ways: about 12 s of exact work on this machine.
const HEAVY: &str = r#"
system = "dice"
[scenarios.heavy]
roll = "let a = 6d10 in let b = 6d10 in (a count 10) - (b count 10) + a highest - b highest"
"#;

#[test]
fn a_token_cancelled_mid_pass_stops_the_exact_evaluation() {
    let cfg = rollsim::config::load_str(HEAVY, "heavy.toml", &[]).unwrap();
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let start = Instant::now();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
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
    assert!(took < Duration::from_secs(2), "{took:?}");
}

#[test]
fn an_uncancelled_token_lets_a_light_pass_finish() {
    let text = "system = \"dice\"\n[scenarios.x]\nroll = \"3d6\"\n";
    let cfg = rollsim::config::load_str(text, "x.toml", &[]).unwrap();
    let c = compile(&cfg, "x", &Cancel::new()).unwrap();
    let e = c.exact.expect("3d6 is exact");
    // P(3d6 = 10) = 27/216.
    let m = &c.metrics[0];
    let p = m.project_f64(&e);
    let i = m.labels.iter().position(|l| l == "10").unwrap();
    assert!((p[i] - 27.0 / 216.0).abs() < 1e-12);
}
