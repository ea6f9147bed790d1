//! Issue #71, "no silent surprise": a flag before its command is refused rather than
//! dropped, and an expression that starts with a minus is an expression.

use crate::util::{rollsim, text};

/// `-n`, `--threads` and `-q` before a command's name belong to the run with no
/// command: given before `run`, they are refused, naming where they go, and nothing is
/// run (the command would otherwise run its own default trials, silently).
#[test]
fn a_flag_before_the_command_is_refused_not_dropped() {
    let config = crate::util::shipped("rush.toml");
    for before in [vec!["-n", "1000"], vec!["--threads", "1"], vec!["-q"]] {
        let a = rollsim()
            .args(&before)
            .args(["run"])
            .arg(&config)
            .args(["-s", "slam-orc-vs-human-guard", "-o", "-"])
            .assert()
            .code(2);
        let out = a.get_output();
        let err = text(&out.stderr);
        assert!(err.contains(before[0]), "{before:?}: {err}");
        assert!(
            err.contains("after the command's name"),
            "{before:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{before:?}: ran anyway");
    }
    // After the command it is the command's: 1,000 trials exactly.
    let a = rollsim()
        .arg("run")
        .arg(&config)
        .args(["-s", "slam-orc-vs-human-guard", "-o", "-", "-n", "1000"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(csv.lines().nth(1).unwrap().contains(",1000,"), "{csv}");
}

/// `rollsim roll "-d6 + 3"` is the roll 3 - d6 (-3 to 2, each 1/6), not an unknown
/// option `-d`; so is an opposing roll that starts with a minus.
#[test]
fn an_expression_starting_with_a_minus_is_a_roll() {
    let a = rollsim()
        .args(["roll", "-d6 + 3", "--exact-only", "-o", "-"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    for v in -3..=2 {
        assert!(
            csv.contains(&format!("\nroll,value,{v},,,,,,")),
            "{v}: {csv}"
        );
    }
    assert_eq!(csv.matches(",1/6\n").count(), 6, "{csv}");
    // d6 against -d6: the margin d6 + d6, 2 to 12, 7 the most likely at 1/6.
    let a = rollsim()
        .args(["roll", "d6", "--vs", "-d6", "--exact-only", "-o", "-"])
        .assert()
        .success();
    let csv = text(&a.get_output().stdout);
    assert!(csv.contains("\nroll,margin,7,,,,,,"), "{csv}");
    assert!(
        csv.contains("\nroll,margin,2,,,,,,0.02777777777778,1/36\n"),
        "{csv}"
    );
}
