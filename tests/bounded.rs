//! Issue #23, "nothing hung": inputs that hung the tool or reached an internal error
//! now answer at once, each with a clear message and exit 2. Each test is the issue's
//! reproduction.
//!
//! A command that could hang runs under a watchdog ([`WATCHDOG`]) that kills it, so a
//! hang fails its test rather than stalling the run; no test here times an answer (how
//! fast each comes is measured by `cargo bench --bench promises`).

use crate::util::{rollsim, shipped, text};
use std::time::Duration;

/// Past this a command is taken for hung and killed: its assertions then fail.
const WATCHDOG: Duration = Duration::from_secs(60);

#[test]
fn item5_parsing_is_linear_in_nesting() {
    // 40 parentheses around d6 never finished; 24 took 7-14 s.
    let deep = "(".repeat(40) + "d6" + &")".repeat(40);
    let a = rollsim()
        .args(["roll", &deep, "--exact-only"])
        .timeout(WATCHDOG)
        .assert()
        .success();
    // Parentheses change nothing: one d6, mean (1 + 2 + ... + 6) / 6 = 21/6 = 3.5.
    assert!(text(&a.get_output().stdout).contains("mean (exact): 3.5000"));
    // Past the depth limit: an error at the column, at once.
    let deeper = "(".repeat(70) + "d6" + &")".repeat(70);
    let a = rollsim().args(["roll", &deeper]).assert().code(2);
    assert!(text(&a.get_output().stderr).contains("nesting deeper than 64 levels"));
    // The deepest nesting the limit allows: linear, so it finishes (at 2^63 steps it
    // would not, and the watchdog would end it). 2d6 and three d6: 7 + 10.5.
    let deepest = "(".repeat(63) + "2d6 + (3)d6" + &")".repeat(63);
    let a = rollsim()
        .args(["roll", &deepest, "--exact-only"])
        .timeout(WATCHDOG)
        .assert()
        .success();
    assert!(text(&a.get_output().stdout).contains("mean (exact): 17.5000"));
}

#[test]
fn item11_a_result_too_wide_is_refused_not_an_internal_error() {
    let a = rollsim().args(["roll", "66d1000", "-q"]).assert().code(2);
    let err = text(&a.get_output().stderr);
    assert!(
        err.contains(
            "roll `66d1000`: the result takes 65,935 values, from 66 to 66000: more than 65536 values"
        ),
        "{err}"
    );
    assert!(!err.contains("a bug in rollsim"), "{err}");
    // A sum of plain dice takes every total from the fewest to the most (n dice of s
    // sides: n(s - 1) + 1 values), so no law can list fewer: refused as 66d1000 is,
    // without one being worked out (`100000d6` spent 1.9 s on it).
    for (roll, said) in [
        (
            "100000d6",
            "the result takes 500,001 values, from 100000 to 600000",
        ),
        (
            "1000d1000",
            "the result takes 999,001 values, from 1000 to 1000000",
        ),
        (
            "100000d6 - 50000d6",
            "the result takes 750,001 values, from -200000 to 550000",
        ),
    ] {
        let a = rollsim().args(["roll", roll, "-q"]).assert().code(2);
        let err = text(&a.get_output().stderr);
        assert!(
            err.contains(&format!("roll `{roll}`: {said}: more than 65536 values")),
            "{err}"
        );
    }
    // Just inside the limit it runs (65 to 65,000: 64,936 values).
    let a = rollsim()
        .args(["roll", "65d1000", "--exact-only"])
        .assert()
        .success();
    // The mean of a d1000 is (1 + 1000) / 2 = 500.5; of 65 of them 65 x 500.5.
    let mean = format!("mean (exact): {:.4}", 65.0 * 500.5);
    assert_eq!(mean, "mean (exact): 32532.5000");
    assert!(text(&a.get_output().stdout).contains(&mean));
}

#[test]
fn item12_a_trial_count_past_2_to_the_64_is_refused() {
    let a = rollsim()
        .args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-n", "18446744073709551616", "-q"])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("expected a whole number of trials"));
    let a = rollsim()
        .args(["roll", "d6", "-n", "1e20"])
        .assert()
        .code(2);
    assert!(text(&a.get_output().stderr).contains("expected a whole number of trials"));
}

#[test]
fn item15_a_one_liner_error_points_at_the_expression() {
    let a = rollsim()
        .args(["roll", "d6", "--vs", "66d1000"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(err.contains("--vs `66d1000`:"), "{err}");
    assert!(
        !err.contains("scenarios.roll") && !err.contains(":4:1"),
        "{err}"
    );
}

#[test]
fn item10_14_list_answers_at_once_one_line_per_scenario_escaped() {
    let d = crate::util::tempdir();
    let cfg = d.path().join("heavy.toml");
    // A scenario whose exact pass takes about 12 s, a multi-line roll, and a description
    // with an escape sequence that would clear the terminal.
    std::fs::write(
        &cfg,
        "system = \"dice\"\n\
         [scenarios.heavy]\n\
         roll = \"let a = 6d10 in let b = 6d10 in (a count 10) - (b count 10) + a highest - b highest\"\n\
         [scenarios.long]\n\
         description = \"clears \\u001b[2J the screen\"\n\
         roll = \"\"\"3d6\n  + 2\"\"\"\n",
    )
    .unwrap();
    let a = rollsim()
        .args(["list", cfg.to_str().unwrap()])
        .timeout(WATCHDOG)
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("heavy\t`let a = 6d10"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(lines[1].contains("clears \\u{1b}[2J the screen"), "{out}");
    assert!(lines[1].ends_with("`3d6 + 2`"), "{out}");
}

#[test]
fn item8_devices_pipes_and_huge_files_are_refused_at_once() {
    let d = crate::util::tempdir();
    let fifo = d.path().join("fifo.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path in our own temporary folder.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let big = d.path().join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(17 << 20).unwrap();
    for (cmd, path) in [
        ("check", "/dev/zero"),
        ("check", fifo.to_str().unwrap()),
        ("list", big.to_str().unwrap()),
        ("merge", "/dev/zero"),
    ] {
        let mut c = rollsim();
        c.arg(cmd).arg(path);
        if cmd == "merge" {
            c.args(["-o", d.path().join("m").to_str().unwrap()]);
        }
        let a = c.timeout(WATCHDOG).assert().code(2);
        let err = text(&a.get_output().stderr);
        assert!(
            err.contains("not a regular file") || err.contains("may have at most"),
            "{cmd} {path}: {err}"
        );
        // Reading /dev/zero or a pipe would never end: the watchdog would. `cargo
        // bench --bench promises` measures the refusal.
    }
}

#[test]
fn item9_loading_is_linear_in_a_units_stats() {
    let d = crate::util::tempdir();
    let cfg = d.path().join("many.toml");
    let mut text = String::from("system = \"dice\"\n[units.big]\n");
    for i in 0..100_000 {
        text.push_str(&format!("s{i} = {}\n", i % 7));
    }
    text.push_str("[scenarios.x]\nunit = \"big\"\nroll = \"d6 + s99999\"\n");
    std::fs::write(&cfg, text).unwrap();
    let a = rollsim()
        .args(["check", cfg.to_str().unwrap()])
        .timeout(WATCHDOG)
        .assert()
        .success();
    assert!(
        text_of(&a).contains("ok (dice system, 1 scenario,"),
        "{}",
        text_of(&a)
    );
    // It took 11.9 s, and grew as the square of the stats; linear work is well under
    // a second (`cargo bench --bench promises` measures it).
}

fn text_of(a: &assert_cmd::assert::Assert) -> String {
    text(&a.get_output().stdout)
}

#[test]
fn item6_nested_lets_and_pool_variables_fall_back_to_monte_carlo() {
    for e in [
        // Every value read with the others (a sum of `let`s is three sums side by side,
        // and exact): 10^9 combinations.
        "let a = d1000 in let b = d1000 in let c = d1000 in (a*b + b*c + c*a) / 100000",
        // A ring of ten dice, each read with both neighbours: 6^10 combinations.
        "let a = d6 in let b = d6 in let c = d6 in let d = d6 in let e = d6 in let f = d6 in let g = d6 in let h = d6 in let i = d6 in let j = d6 in (a*b+b*c+c*d+d*e+e*f+f*g+g*h+h*i+i*j+j*a) / 10",
        "let a = 20d10 in let b = 20d10 in a sum - b sum + a highest * b lowest",
        // Each of a's outcomes (its sum and its 20s) set against b's.
        "let a = 12d20 in let b = 12d20 in a sum * b sum + a count 20 * b count 20",
        // (A count that could pass 100 dice is refused: `a_rolled_count_past_the_limit_is_refused_not_clamped`.)
        "([3d10, 3d20])d1000 > 3",
        "50d1000 again >= 5 == 0",
    ] {
        let a = rollsim()
            .args(["roll", e, "-n", "70000", "-q", "--no-plots"])
            .args(["-o", crate::util::tempdir().path().join("r").to_str().unwrap()])
            .timeout(WATCHDOG)
            .assert()
            .success();
        let out = text(&a.get_output().stdout);
        assert!(out.contains("no exact distribution"), "{e}: {out}");
        // The budget is about a second of work here (2 s promised, measured by `cargo
        // bench --bench promises`).
    }
}

#[test]
fn two_pool_variables_read_several_ways_are_exact() {
    // Issue #26: a pool variable's rolls that read the same every way are one outcome,
    // so these (Monte Carlo only before) are exact, and Monte Carlo agrees.
    for (e, mean) in [
        (
            "let a = 6d10 in let b = 6d10 in (a count 10) - (b count 10) + a highest - b highest",
            "0.0000",
        ),
        (
            "let a = 9d10 in let b = 8d10 in (a count 10) - (b count 10) + a highest - b highest",
            "",
        ),
        // Monte Carlo only until the integer law went first on pool variables.
        (
            "let a = 9d10 in let b = 9d10 in a sum - b sum + a highest * b lowest",
            "",
        ),
        // Monte Carlo only until b's dice were rolled once per sum of a's, not once per
        // outcome of a (its sum and its 20s): 126 * 126 + 12/20, by hand.
        (
            "let a = 12d20 in let b = 12d20 in a sum * b sum + a count 20",
            "15876.6000 = 79383/5",
        ),
    ] {
        let a = rollsim()
            .args(["roll", e, "--exact-only", "-q"])
            .timeout(WATCHDOG)
            .assert()
            .success();
        let out = text(&a.get_output().stdout);
        assert!(out.contains(&format!("mean (exact): {mean}")), "{e}: {out}");
    }
    // The 6d10 pair against an enumeration of each variable's (count of 10s, highest),
    // written here: P(count 10 = c, highest = h) for 6d10 by inclusion over the faces.
    let d10: Vec<i64> = (1..=10).collect();
    // (Counted as integers: a million additions of 10^-6 drift by 10^-12.)
    let mut counts: std::collections::BTreeMap<(i64, i64), u64> = Default::default();
    let rolls = crate::dice_lang::rolls(6, &d10);
    for r in &rolls {
        let k = (
            r.iter().filter(|&&x| x == 10).count() as i64,
            *r.iter().max().unwrap(),
        );
        *counts.entry(k).or_insert(0) += 1;
    }
    let one: std::collections::BTreeMap<(i64, i64), f64> = counts
        .into_iter()
        .map(|(k, n)| (k, n as f64 / rolls.len() as f64))
        .collect();
    let mut want: std::collections::BTreeMap<i64, f64> = Default::default();
    for ((ca, ha), p) in &one {
        for ((cb, hb), q) in &one {
            *want.entry(ca - cb + ha - hb).or_insert(0.0) += p * q;
        }
    }
    let c = crate::dice_lang::compile(
        "let a = 6d10 in let b = 6d10 in (a count 10) - (b count 10) + a highest - b highest",
        None,
    );
    crate::dice_lang::same(&c, &want);
}

#[test]
fn item6_a_sparse_die_over_a_wide_range_is_exact_at_once() {
    // Two faces a million apart: the lowest of one die read over the range in one pass
    // (it read every face at every value: 10^12 steps). P(lowest > 3) = 1/2: one die,
    // whose faces are 0 and 1,000,000, is above 3 when it shows the second of its two.
    let a = rollsim()
        .args(["roll", "d{0,1000000} lowest > 3", "--exact-only"])
        .timeout(WATCHDOG)
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(out.contains("| 1 | 50.0000% |"), "{out}");
    // 10^12 steps would not finish (the watchdog would end them).
}

#[test]
fn item14_control_characters_never_reach_the_terminal() {
    // A title and a description with an escape sequence (clear the screen) and a
    // carriage return, printed by `run` as Markdown, and a name with one in an error.
    let d = crate::util::tempdir();
    let cfg = d.path().join("esc.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\ntitle = \"Mine\\u001b[2J\"\n[scenarios.s]\ndescription = \"hidden\\rshown\"\nroll = \"d6\"\n",
    )
    .unwrap();
    let a = rollsim()
        .arg("run")
        .arg(&cfg)
        .args(["-n", "100", "-q", "--no-plots", "--format", "md", "-o"])
        .arg(d.path().join("out"))
        .assert()
        .success();
    let out = text(&a.get_output().stdout);
    assert!(!out.contains('\u{1b}') && !out.contains('\r'), "{out:?}");
    assert!(out.contains("Mine\\u{1b}[2J"), "{out}");
    let a = rollsim()
        .arg("run")
        .arg(&cfg)
        .args(["-s", "x\u{1b}[2J", "-q"])
        .assert()
        .code(2);
    let err = text(&a.get_output().stderr);
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn fuzz_finds_end_in_an_answer_not_an_internal_error() {
    // Found by the grammar fuzz: a rounding-negative entry (exact survives, cleared to 0)
    // and a NaN from reading an empty pool (now exact: 0).
    for (e, exact) in [
        (
            "if 44d1000 then [11d%] reroll ==7 once highest else 2",
            true,
        ),
        // An empty pool reads 0 whatever reads it: exact, as the sampler has it.
        (
            "((0d{miss,89} keep lowest 3) + (0d10 reroll ==0 lowest))",
            true,
        ),
    ] {
        let a = rollsim()
            .args(["roll", e, "-n", "2000", "-q", "--no-plots"])
            .args([
                "-o",
                crate::util::tempdir().path().join("r").to_str().unwrap(),
            ])
            .timeout(WATCHDOG)
            .assert()
            .success();
        let out = text(&a.get_output().stdout);
        assert_eq!(!out.contains("no exact distribution"), exact, "{e}: {out}");
        assert!(
            !text(&a.get_output().stderr).contains("a bug in rollsim"),
            "{e}"
        );
    }
}

#[test]
fn an_empty_pool_is_exactly_zero_and_its_probability_never_negative_zero() {
    for e in ["0d10 lowest", "0d{miss,89} keep lowest 3", "0d6 highest"] {
        let a = rollsim()
            .args(["roll", e, "--exact-only"])
            .assert()
            .success();
        let out = text_of(&a);
        // No dice: the value is 0 on every roll (100%), and no die can succeed (0%).
        assert!(out.contains("| 0 | 100.0000% |"), "{e}: {out}");
        // An empty sum of floats is -0.0: it printed as "-0.0000%".
        assert!(out.contains("P(success) (exact): 0.0000%"), "{e}: {out}");
        assert!(!out.contains("-0.0"), "{e}: {out}");
    }
}

#[test]
fn fuzz_finds_exploding_pools_answer_without_overflowing_the_stack() {
    // Found by the full grammar fuzz: two took 13-24 s (an explosion chain of a d1000
    // that rolls on at 999 faces in 1000, then a keep over its 20,000 values, neither
    // counted against the budget) and two overflowed the stack (a pool variable over
    // such a die went one recursion level per value).
    for e in [
        "not ((4d6 keep highest 2 sum) < (3d1000 drop highest 1 explode !=1 sum))",
        "(d6 count >=9) != (65d1000 explode >=7 drop highest 3 maxset)",
        "(repeat hp = 11 until hp <= 0 do hp = hp - (not (let p = d1000 explode max in p keep highest 2 sum + p count >= 4)) limit 1000 then rounds)",
        "if beats(0d{23,2}, 2d100) then (if [3d1000, 10d6, d%] then d6 reroll <=5 once again max else 53d6 reroll 5 once or (repeat hp = 10 until hp <= 0 do hp = hp - (80d% reroll <0 explode 11) limit 30 then rounds)) else (let p = d1000 keep lowest 0 explode !=6 in p keep highest 2 sum + p maxset)",
    ] {
        let a = rollsim()
            .args(["roll", e, "-n", "2000", "-q", "--no-plots"])
            .args(["-o", crate::util::tempdir().path().join("r").to_str().unwrap()])
            .timeout(WATCHDOG)
            .assert()
            .success();
        let err = text(&a.get_output().stderr);
        assert!(!err.contains("overflow") && !err.contains("panicked"), "{e}: {err}");
        // Each answers in about a second here (they took 13-24 s): `cargo bench
        // --bench promises` measures it.
    }
    // A pool variable over one exploding d1000 (20,000 values) is exact now, and right:
    // each roll of the chain adds 500.5 on average and is rolled with (1/1000)^k (the
    // k before it showed 1000), so the mean is 500.5 (1 + 1/1000 + 1/1000^2 + ...) =
    // 500.5 / (1 - 1/1000) = 500.5 * 1000 / 999 = 501.001001... (the chain's cap on
    // explosions leaves out a tail of 1/1000 to the twentieth power or so: nothing at
    // four decimals).
    let a = rollsim()
        .args([
            "roll",
            "let p = d1000 explode max in p keep highest 1 sum",
            "--exact-only",
        ])
        .timeout(WATCHDOG)
        .assert()
        .success();
    let out = text_of(&a);
    let mean = format!("mean (exact): {:.4}", 500.5 * 1000.0 / 999.0);
    assert_eq!(mean, "mean (exact): 501.0010");
    assert!(out.contains(&mean), "{out}");
}
