//! Issue #27: past one machine. Every balance command shards and merges into the single
//! run's files byte for byte (rush and dice configs, Monte Carlo and exact, with the
//! shard picked by hand, by SLURM's variables and by HyperQueue's and Kubernetes' with a
//! stated count); `plan` prints scripts that run; and the README's SLURM script runs on
//! a real single-node SLURM (slurmctld, slurmd and munged started by the test).

use crate::util::{rollsim, root, shipped, tempdir, text};
use rollsim::app::scheduler::VARIABLES;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// rollsim without any scheduler's variables from the environment the tests run in.
fn clean() -> assert_cmd::Command {
    let mut c = rollsim();
    for v in VARIABLES {
        c.env_remove(v);
    }
    c
}

/// Every file under `dir`, by its path inside it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// `args` (a balance command and its options, without -o) run whole, and as three
/// shards: the first by `--shard 1/3`, the second as SLURM array task 2 of 3, the third
/// as HyperQueue task 3 or Kubernetes index 2 with `--shards 3`. Their merge writes the
/// whole run's files, byte for byte, and prints its tables.
fn sharded_is_single(args: &[&str], kubernetes: bool) {
    let d = tempdir();
    let (single, parts, merged) = (
        d.path().join("single"),
        d.path().join("parts"),
        d.path().join("merged"),
    );
    let whole = clean().args(args).arg("-o").arg(&single).assert().success();
    let whole = text(&whole.get_output().stdout);
    let run = |k: u64| {
        let mut c = clean();
        c.args(args).arg("-o").arg(&parts);
        match k {
            1 => {
                c.args(["--shard", "1/3"]);
            }
            2 => {
                c.env("SLURM_ARRAY_TASK_ID", "6")
                    .env("SLURM_ARRAY_TASK_MIN", "5")
                    .env("SLURM_ARRAY_TASK_COUNT", "3");
            }
            _ if kubernetes => {
                c.env("JOB_COMPLETION_INDEX", "2").args(["--shards", "3"]);
            }
            _ => {
                c.env("HQ_TASK_ID", "3").args(["--shards", "3"]);
            }
        }
        let a = c.assert().success();
        let (out, err) = (text(&a.get_output().stdout), text(&a.get_output().stderr));
        assert!(out.contains(&format!("shard {k}/3")), "{args:?}: {out}");
        if k == 2 {
            assert!(
                err.contains("SLURM array task 2 of 3 (SLURM_ARRAY_TASK_ID=6"),
                "{err}"
            );
        }
    };
    for k in [3, 1, 2] {
        run(k);
    }
    // A shard writes only its part: no output folder yet.
    assert!(!merged.exists());
    assert_eq!(
        files(&parts).keys().cloned().collect::<Vec<_>>(),
        ["part-1-of-3.json", "part-2-of-3.json", "part-3-of-3.json"]
    );
    let mut merge = clean();
    merge.arg("merge").arg(&parts);
    // The merge draws what its own flags say, as `run`'s merge does.
    if args.contains(&"--no-plots") {
        merge.arg("--no-plots");
    }
    let m = merge.arg("-o").arg(&merged).assert().success();
    let m = text(&m.get_output().stdout);
    let (a, b) = (files(&single), files(&merged));
    assert!(!a.is_empty(), "{args:?}");
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{args:?}"
    );
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{args:?}: {name} differs after the merge"
        );
    }
    let tables = |s: &str, dir: &Path| s.replace(&dir.display().to_string(), "DIR");
    assert_eq!(tables(&whole, &single), tables(&m, &merged), "{args:?}");
}

#[test]
fn every_balance_command_on_rush_merges_into_the_single_run() {
    let rush = shipped("rush.toml");
    let rush = rush.to_str().unwrap();
    let slam = "slam-orc-vs-human-guard";
    let n = ["-n", "3000"];
    for (cmd, more) in [
        ("compare", vec!["--response", "best"]),
        ("sweep", vec!["--vary", "attacker.strength=2..5"]),
        ("sensitivity", vec![]),
        ("equalize", vec!["--pairs"]),
        ("roster", vec![]),
    ] {
        let args: Vec<&str> = [cmd, rush, "-s", slam]
            .into_iter()
            .chain(n)
            .chain(more)
            .collect();
        sharded_is_single(&args, cmd == "sweep");
    }
    // Overlay: entries of two configs, one with a side changed.
    let as_dice = shipped("rush-as-dice.toml");
    sharded_is_single(
        &[
            "overlay",
            &format!("{rush}:{slam}"),
            &format!("{rush}:{slam}:attacker=goblin"),
            &format!("{}:{slam}", as_dice.display()),
            "-n",
            "3000",
        ],
        false,
    );
    // Exact only, and a side swapped by --set (the sweep steps the unit now attacking).
    sharded_is_single(&["compare", rush, "-s", slam, "--exact-only"], false);
    sharded_is_single(
        &[
            "sweep",
            rush,
            "-s",
            slam,
            "-n",
            "3000",
            "--vary",
            "attacker.strength=2..5",
            "--set",
            &format!("scenarios.{slam}.attacker=human_guard"),
            "--set",
            &format!("scenarios.{slam}.defender=orc"),
        ],
        true,
    );
}

#[test]
fn every_balance_command_on_a_dice_config_merges_into_the_single_run() {
    let dice = shipped("dice-examples.toml");
    let dice = dice.to_str().unwrap();
    let duel = "fighter-vs-orc";
    for (cmd, more) in [
        ("compare", vec![]),
        ("sweep", vec!["--vary", "unit.attack=1..6"]),
        ("sensitivity", vec![]),
        ("equalize", vec![]),
        ("roster", vec![]),
    ] {
        let args: Vec<&str> = [cmd, dice, "-s", duel, "-n", "3000"]
            .into_iter()
            .chain(more)
            .collect();
        sharded_is_single(&args, cmd == "roster");
    }
    // Priced: the searches are shared out; the check at the suggested costs needs every
    // search, so the merge plays it.
    sharded_is_single(
        &[
            "roster",
            dice,
            "-s",
            "fighter-duels-orc",
            "-n",
            "2000",
            "--count",
            "hp",
        ],
        false,
    );
    // With current costs too: the check at the current costs is shared out as well.
    let d = tempdir();
    let squads = d.path().join("squads.toml");
    std::fs::write(&squads, crate::roster::SQUADS).unwrap();
    sharded_is_single(
        &[
            "roster",
            squads.to_str().unwrap(),
            "-s",
            "volley",
            "-n",
            "3000",
            "--count",
            "models",
            "--no-plots",
        ],
        true,
    );
}

#[test]
fn parts_of_two_commands_or_a_missing_shard_are_refused() {
    let d = tempdir();
    let rush = shipped("rush.toml");
    // `cmd` on the rush Slam, exact, into `dir`, with these variables and flags.
    let on_slam = |cmd: &str, env: &[(&str, &str)], flags: &[&str], dir: &str| {
        let mut c = clean();
        c.envs(env.iter().copied())
            .arg(cmd)
            .arg(&rush)
            .args(["-s", "slam-orc-vs-human-guard", "--exact-only"])
            .args(flags)
            .arg("-o")
            .arg(d.path().join(dir));
        c.assert()
    };
    let merge = |dir: &str| {
        clean()
            .arg("merge")
            .arg(d.path().join(dir))
            .arg("-o")
            .arg(d.path().join("m"))
            .assert()
    };
    on_slam("compare", &[], &["--shard", "1/2"], "a").success();
    on_slam("roster", &[], &["--shard", "2/2"], "a").success();
    let err = text(&merge("a").code(2).get_output().stderr);
    assert!(err.contains("come from different runs: command"), "{err}");
    on_slam("compare", &[], &["--shard", "1/2"], "b").success();
    let err = text(&merge("b").code(2).get_output().stderr);
    assert!(err.contains("missing shard(s) 2 of 2"), "{err}");
    assert!(!d.path().join("m").exists());
    // A scheduler's count without a task, and a task without a count.
    let a = on_slam("compare", &[], &["--shards", "4"], "c").code(2);
    assert!(text(&a.get_output().stderr).contains("no array task in the environment"));
    let a = on_slam("compare", &[("HQ_TASK_ID", "0")], &["--no-plots"], "whole").success();
    assert!(text(&a.get_output().stderr)
        .contains("HQ_TASK_ID=0 is set, but HyperQueue gives no task count: this run is whole"));
    assert!(d
        .path()
        .join("whole/matrix-slam-orc-vs-human-guard.csv")
        .exists());
    // --no-shard runs whole inside an array task.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    let flags = ["--no-shard", "--no-plots", "--format", "csv"];
    on_slam("run", &slurm, &flags, "run").success();
    assert!(d.path().join("run/summary.csv").is_file());
}

#[test]
fn a_run_after_a_balance_shard_keeps_its_part_and_an_odd_target_is_refused() {
    let d = tempdir();
    crate::util::project(d.path(), &["rush.toml"]);
    let at = |args: &[&str]| clean().current_dir(d.path()).args(args).assert();
    at(&[
        "compare",
        "configs/rush.toml",
        "-s",
        "slam-orc-vs-human-guard",
        "--exact-only",
        "--shard",
        "1/2",
    ])
    .success();
    let part = d.path().join("reports/rush-parts/compare/part-1-of-2.json");
    assert!(part.is_file());
    // The config's report is replaced whole; the part beside it stays.
    at(&[
        "run",
        "configs/rush.toml",
        "-s",
        "slam-orc-vs-human-guard",
        "--exact-only",
        "--no-plots",
        "--format",
        "csv",
    ])
    .success();
    at(&[
        "run",
        "configs/rush.toml",
        "-s",
        "slam-orc-vs-human-guard",
        "--exact-only",
        "--no-plots",
        "--format",
        "csv",
    ])
    .success();
    assert!(part.is_file());
    // A target no part could carry is refused before anything runs.
    for t in ["inf", "NaN"] {
        let a = at(&[
            "equalize",
            "configs/rush.toml",
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
            "--target",
            t,
        ])
        .code(2);
        assert!(
            text(&a.get_output().stderr).contains("expected a number"),
            "{t}"
        );
    }
}

#[test]
fn plan_checks_the_command_before_printing_scripts() {
    let rush = shipped("rush.toml");
    let plan = |args: &[&str]| clean().arg("plan").arg(&rush).args(args).assert();
    let a = plan(&[
        "roster",
        "-s",
        "slam-orc-vs-human-guard",
        "-o",
        "out/r",
        "--tasks",
        "5",
    ])
    .success();
    let out = text(&a.get_output().stdout);
    for want in [
        "--array=1-5",
        "roster",
        "-o out/r-parts",
        "merge out/r-parts -o out/r",
        "hq submit --name=rollsim-roster-rush --array=1-5",
        "--shards 5",
        "completionMode: Indexed",
        "completions: 5",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert!(
        !out.contains("-o out/r "),
        "the command's -o is the merge's: {out}"
    );
    for (args, says) in [
        (
            vec!["roster", "-s", "slam-orc-vs-human-guard"],
            "give --tasks N",
        ),
        (vec!["list", "--tasks", "2"], "`list` does not shard"),
        (
            vec!["roster", "-s", "slma", "--tasks", "2"],
            "no scenario `slma`",
        ),
        (
            vec!["roster", "-s", "x", "--tasks", "2", "--shard", "1/2"],
            "leave --shard",
        ),
        (
            vec!["roster", "--sceanrio", "x", "--tasks", "2"],
            "does not parse",
        ),
        (
            vec!["run", "-n", "70000", "--tasks", "3"],
            "use at most 2 tasks",
        ),
        (
            vec!["run", "--tasks", "2", "--scheduler", "lsf"],
            "expected slurm, hyperqueue or kubernetes",
        ),
    ] {
        let a = plan(&args).code(2);
        let err = text(&a.get_output().stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// The README's "Big runs" command and the script `plan` prints for it, as the README
/// shows them.
fn readme_plan() -> (Vec<String>, String) {
    let section = crate::util::doc("cluster.md");
    let command = section
        .lines()
        .find(|l| l.starts_with("rollsim plan ") && l.contains("--scheduler slurm"))
        .expect("the README shows a `rollsim plan ... --scheduler slurm` line");
    let script = section
        .split("```bash\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the README shows the SLURM script in a ```bash block");
    let args = command
        .split_whitespace()
        .take_while(|w| !w.starts_with('>') && *w != "#")
        .skip(1)
        .map(String::from)
        .collect();
    (args, script.to_string())
}

#[test]
fn the_readme_shows_what_plan_prints_for_each_scheduler() {
    let section = crate::util::doc("cluster.md");
    let (args, script) = readme_plan();
    let bin = assert_cmd::cargo::cargo_bin("rollsim");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let at = |args: &[String]| {
        let a = clean()
            .env("PATH", &path)
            .current_dir(root())
            .args(args)
            .assert()
            .success();
        text(&a.get_output().stdout)
    };
    assert_eq!(
        at(&args),
        script,
        "the README's SLURM script is what plan prints"
    );
    for (scheduler, fence) in [("hyperqueue", "```sh\n"), ("kubernetes", "```yaml\n")] {
        let mut a = args.clone();
        let i = a.iter().position(|w| w == "slurm").unwrap();
        a[i] = scheduler.into();
        let printed = at(&a);
        let shown = section
            .split(fence)
            .skip(1)
            .filter_map(|s| s.split("```").next())
            .any(|block| block == printed);
        assert!(
            shown,
            "the README shows what `plan --scheduler {scheduler}` prints:\n{printed}"
        );
    }
}

/// Stops the test's SLURM whatever happens to the test.
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = std::process::Command::new("bash")
            .arg(root().join("tests/slurm/slurm-down.sh"))
            .arg(&self.0)
            .status();
    }
}

#[test]
fn the_readme_s_slurm_script_runs_on_a_real_slurm_and_merges_into_the_single_run() {
    // .ci/run sets this: there the packages are installed and the daemons must start.
    let ci =
        std::env::var_os("ROLLSIM_REQUIRE_SLURM").is_some() || std::env::var_os("CI").is_some();
    let missing: Vec<&str> = ["slurmctld", "slurmd", "munged", "sbatch"]
        .into_iter()
        .filter(|p| {
            !std::process::Command::new("sh")
                .args(["-c", &format!("command -v {p}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if !missing.is_empty() {
        let why = format!(
            "SLURM test: {} not installed (Debian: apt-get install slurm-wlm munge; .ci/run installs them)",
            missing.join(", ")
        );
        assert!(!ci, "{why}");
        eprintln!("{why}: skipped outside CI");
        return;
    }
    let d = tempdir();
    let cluster = d.path().join("cluster");
    let up = std::process::Command::new("bash")
        .arg(root().join("tests/slurm/slurm-up.sh"))
        .arg(&cluster)
        .output()
        .unwrap();
    let _down = Cluster(cluster.clone());
    if !up.status.success() {
        let why = format!(
            "SLURM test: the daemons did not start on this machine:\n{}",
            text(&up.stderr)
        );
        assert!(!ci, "{why}");
        eprintln!("{why}\nskipped outside CI");
        return;
    }
    let conf = cluster.join("slurm.conf");
    assert!(text(&up.stdout).contains(&format!("SLURM_CONF={}", conf.display())));
    // The README's command, in a folder of the user's own with the config.
    let work = d.path().join("work");
    crate::util::project(&work, &["rush.toml"]);
    let bin = assert_cmd::cargo::cargo_bin("rollsim");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (args, shown) = readme_plan();
    let a = clean()
        .env("PATH", &path)
        .current_dir(&work)
        .args(&args)
        .assert()
        .success();
    let script = text(&a.get_output().stdout);
    assert_eq!(script, shown);
    std::fs::write(work.join("job.sh"), &script).unwrap();
    let started = std::time::Instant::now();
    let job = std::process::Command::new("timeout")
        .args(["600", "bash", "job.sh", "--wait"])
        .current_dir(&work)
        .env("PATH", &path)
        .env("SLURM_CONF", &conf)
        .output()
        .unwrap();
    let logs = || {
        let mut s = String::new();
        for dir in [work.join("reports/rush-parts/roster"), cluster.join("log")] {
            for (name, bytes) in files(&dir)
                .into_iter()
                .filter(|(n, _)| !n.ends_with(".json"))
            {
                s += &format!("---- {name}\n{}\n", String::from_utf8_lossy(&bytes));
            }
        }
        s
    };
    assert!(
        job.status.success(),
        "bash job.sh --wait: {}\n{}\n{}",
        text(&job.stdout),
        text(&job.stderr),
        logs()
    );
    eprintln!(
        "SLURM: the array and the merge took {:?}",
        started.elapsed()
    );
    // `sbatch --wait` on a merge whose dependency failed returns 0 too: the proof is
    // the merged folder, and what the tasks' parts say about where their shard came from.
    let merged = work.join("reports/rush/roster");
    assert!(merged.is_dir(), "no merged output:\n{}", logs());
    for k in 1..=4 {
        let part: rollsim::app::shard::Part = serde_json::from_slice(
            &std::fs::read(work.join(format!("reports/rush-parts/roster/part-{k}-of-4.json")))
                .unwrap(),
        )
        .unwrap();
        assert!(
            part.from.starts_with(&format!(
                "SLURM array task {k} of 4 (SLURM_ARRAY_TASK_ID={k}"
            )),
            "{}",
            part.from
        );
    }
    // The same command run whole on this machine.
    let single = d.path().join("single");
    let i = args.iter().position(|w| w == "--tasks").unwrap();
    let whole: Vec<&String> = args[2..i].iter().collect();
    let (cmd, rest) = whole.split_first().unwrap();
    clean()
        .current_dir(&work)
        .arg(cmd.as_str())
        .arg("configs/rush.toml")
        .args(rest.iter().map(|s| s.as_str()))
        .arg("-o")
        .arg(&single)
        .assert()
        .success();
    let (a, b) = (files(&single), files(&merged));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs between the SLURM run and one run"
        );
    }
}
