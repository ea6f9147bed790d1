//! Reliability (issue #7): shards and merge, the table of broken configs, the kill test,
//! interval coverage over 200 seeds, and limits.

use crate::util::{load, rollsim, shipped, tempdir};

#[test]
fn four_shards_merge_into_the_single_run_byte_for_byte() {
    let dir = tempdir();
    let d = dir.path();
    let config = shipped("rush.toml");
    let c = config.to_str().unwrap();
    let scen = [
        "-s",
        "slam-orc-vs-human-guard,pass-striker-to-jack,dash-chain-striker",
    ];
    // 4 shards as separate processes, running at the same time.
    let children: Vec<_> = (1..=4)
        .map(|k| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
                .args([
                    "run",
                    c,
                    "-n",
                    "1000003",
                    "-q",
                    "--seed",
                    "11",
                    "--shard",
                    &format!("{k}/4"),
                    "-o",
                ])
                .arg(d.join("parts"))
                .args(scen)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut ch in children {
        assert!(ch.wait().unwrap().success());
    }
    let parts: Vec<_> = (1..=4)
        .map(|k| d.join(format!("parts/part-{k}-of-4.json")))
        .collect();
    rollsim()
        .arg("merge")
        .args(&parts)
        .args(["--format", "csv,json", "--no-plots", "-o"])
        .arg(d.join("merged"))
        .assert()
        .success();
    rollsim()
        .args([
            "run",
            c,
            "-n",
            "1000003",
            "-q",
            "--seed",
            "11",
            "--format",
            "csv,json",
            "--no-plots",
            "-o",
        ])
        .arg(d.join("single"))
        .args(scen)
        .assert()
        .success();
    for f in [
        "distribution.csv",
        "summary.csv",
        "distribution.json",
        "summary.json",
    ] {
        let a = std::fs::read(d.join("merged").join(f)).unwrap();
        let b = std::fs::read(d.join("single").join(f)).unwrap();
        assert!(a == b, "{f} differs");
    }
    // A missing shard and a shard given twice are refused, naming what is wrong.
    let a = rollsim()
        .arg("merge")
        .args(&parts[..3])
        .args(["-o"])
        .arg(d.join("bad"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("missing shard(s) 4 of 4"), "{err}");
    let twice = [&parts[..], &parts[..1]].concat();
    let a = rollsim()
        .arg("merge")
        .args(&twice)
        .args(["-o"])
        .arg(d.join("bad"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(err.contains("a shard was given twice"), "{err}");
    assert!(!d.join("bad").exists(), "nothing written");
    // Parts of a different seed do not mix.
    rollsim()
        .args([
            "run", c, "-n", "1000003", "-q", "--seed", "12", "--shard", "4/4", "-o",
        ])
        .arg(d.join("other"))
        .args(scen)
        .assert()
        .success();
    let mixed = [&parts[..3], &[d.join("other/part-4-of-4.json")][..]].concat();
    let a = rollsim()
        .arg("merge")
        .args(&mixed)
        .args(["-o"])
        .arg(d.join("bad"))
        .assert()
        .code(2);
    assert!(
        String::from_utf8_lossy(&a.get_output().stderr).contains("different runs: seed 11 vs 12")
    );
}

#[test]
fn shard_arguments_are_checked() {
    for bad in ["0/4", "5/4", "x/2", "3"] {
        let a = rollsim()
            .args([
                "run",
                shipped("rush.toml").to_str().unwrap(),
                "-n",
                "1000",
                "--shard",
                bad,
            ])
            .assert()
            .code(2);
        assert!(
            String::from_utf8_lossy(&a.get_output().stderr).contains("expected K/N"),
            "{bad}"
        );
    }
}

#[test]
fn intervals_cover_the_exact_value_about_95_percent_of_the_time() {
    // For a few scenarios of each system, 200 seeds of 4096 trials: the 95% Wilson
    // interval of one probability must cover its exact value in 93% to 97% of the runs
    // (pooled over the scenarios, so the band is not too wide for 200 draws alone).
    let cases = [
        ("rush.toml", "slam-orc-vs-human-guard", "result", "double"),
        ("rush.toml", "pass-striker-to-jack", "result", "caught"),
        (
            "dozen.toml",
            "fighter-charges-dwarf",
            "result",
            "attacker wins",
        ),
        (
            "dozen.toml",
            "duel-fighter-vs-dwarf",
            "winner",
            "Fighter wins",
        ),
        ("descent.toml", "crossbow-vs-ogre", "result", "hit"),
        (
            "descent.toml",
            "broadsword-vs-beastman-aim",
            "kill",
            "killed",
        ),
        ("skirmish.toml", "archers-volley", "target_morale", "broken"),
        (
            "skirmish.toml",
            "archers-vs-skirmishers-firefight",
            "outcome",
            "Archers win",
        ),
    ];
    let (mut covered, mut total) = (0u32, 0u32);
    for (file, name, metric, value) in cases {
        let c = load(file).compile(name).unwrap();
        let m = c.metrics.iter().find(|m| m.name == metric).unwrap();
        let v = m.labels.iter().position(|l| l == value).unwrap();
        let exact = m.project_f64(c.exact.as_ref().unwrap())[v];
        let mut hits = 0;
        for seed in 0..200u64 {
            let h = crate::util::simulate(&c, 4096, 10_000 + seed, 1);
            let k = m.project_counts(&h.counts)[v];
            let (lo, hi) = rollsim::stats::wilson(k, h.trials, rollsim::stats::z95());
            hits += (lo <= exact && exact <= hi) as u32;
        }
        // Each scenario alone: well inside what 200 draws of a 95% interval give (190
        // expected, SE sqrt(200 x 0.95 x 0.05) = 3.08: 180 is 3.2 SE below).
        assert!((180..=200).contains(&hits), "{file} {name}: {hits}/200");
        covered += hits;
        total += 200;
    }
    // Pooled over the 8 scenarios, 1,600 draws: SE sqrt(0.95 x 0.05 / 1600) = 0.0054,
    // so 0.93..=0.97 is 0.95 +- 3.7 SE.
    let rate = covered as f64 / total as f64;
    assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
}
