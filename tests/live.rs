//! Issue #25: the live page in a real browser. `tests/live/drive.mjs` (puppeteer-core, from
//! the npm registry, against Debian's chromium) opens the page served by the real binary,
//! moves sliders with the keyboard and picks a side from a select, as a designer does; this
//! test holds what it saw against `rollsim run --exact-only` with the same `--set`s.
//! `.ci/run` installs node, npm and the driver; here a missing driver is installed with
//! `npm ci` (the registry is reachable), a missing node or chromium fails with how to get it.

use crate::serve::Server;
use crate::util::{rollsim, root, text};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/live` with its `node_modules`, installed from the lock file when missing.
pub fn driver() -> PathBuf {
    let dir = root().join("tests/live");
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node is needed for the live page's browser test (apt-get install nodejs npm; .ci/run installs it)"
    );
    if !dir.join("node_modules/puppeteer-core").exists() {
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .output()
            .expect("npm is needed for the live page's browser test (apt-get install npm)");
        assert!(out.status.success(), "npm ci: {}", text(&out.stderr));
    }
    dir
}

pub fn chromium() -> PathBuf {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("Debian's chromium is needed (apt-get install chromium; .ci/run installs it)")
}

/// Run the driver on `plan` against a server of `configs`; what the page showed.
pub fn drive(configs: &Path, plan: &Value, shot: &Path) -> Value {
    let dir = driver();
    let server = Server::start(configs);
    let plan_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(plan_file.path(), plan.to_string()).unwrap();
    let out = Command::new("node")
        .arg(dir.join("drive.mjs"))
        .arg(format!("http://{}", server.addr))
        .arg(plan_file.path())
        .arg(shot)
        .env("CHROMIUM", chromium())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the browser driver failed:\n{}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (member, metric, value) -> the exact probability, from `run --exact-only`'s CSV.
fn cli_table(
    config: &Path,
    scenario: &str,
    sets: &[String],
) -> BTreeMap<(String, String, String), f64> {
    let mut cmd = rollsim();
    cmd.arg("run")
        .arg(config)
        .args(["-s", scenario, "--exact-only", "-o", "-", "--format", "csv"]);
    for s in sets {
        cmd.args(["--set", s]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = text(&out.stdout);
    let mut t = BTreeMap::new();
    for line in csv.lines().skip(1) {
        // Labels may hold commas inside quotes: the last seven fields are six numbers
        // and the exact fraction.
        let f: Vec<&str> = line.split(',').collect();
        let n = f.len();
        let value = f[2..n - 7].join(",").trim_matches('"').to_string();
        t.insert(
            (f[0].to_string(), f[1].to_string(), value),
            f[n - 2].parse::<f64>().unwrap(),
        );
    }
    t
}

/// (member, metric, value) -> (exact, the percentage shown) from what the driver read.
fn page_table(tables: &Value) -> BTreeMap<(String, String, String), (f64, String)> {
    let mut t = BTreeMap::new();
    for table in tables.as_array().unwrap() {
        for row in table["rows"].as_array().unwrap() {
            let exact: f64 = row["exact"].as_str().unwrap().parse().unwrap();
            t.insert(
                (
                    table["member"].as_str().unwrap().to_string(),
                    table["metric"].as_str().unwrap().to_string(),
                    row["value"].as_str().unwrap().to_string(),
                ),
                (exact, row["shown"].as_str().unwrap().to_string()),
            );
        }
    }
    t
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sliders_in_a_real_browser_show_what_run_exact_only_prints() {
    let configs = root().join("configs");
    let slam = "slam-orc-vs-human-guard";
    let steps = json!([
        { "name": "rush", "config": "rush.toml", "scenario": slam, "shot": true,
          "actions": [{ "key": "units.orc.strength", "press": "ArrowLeft" }],
          "sets": ["units.orc.strength=2"] },
        // A side swapped by a select: the slider then belongs to the Goblin.
        { "name": "rush, attacker swapped", "config": "rush.toml", "scenario": slam,
          "actions": [
            { "key": format!("scenarios.{slam}.attacker"), "select": "goblin" },
            { "key": "units.goblin.strength", "press": "ArrowLeft" }],
          "sets": [format!("scenarios.{slam}.attacker=goblin"), "units.goblin.strength=4"] },
        { "name": "descent attack", "config": "descent.toml", "scenario": "broadsword-vs-beastman",
          "actions": [{ "key": "monsters.beastman.armour", "press": "ArrowRight" }],
          "sets": ["monsters.beastman.armour=2"] },
        { "name": "dice language", "config": "dice-examples.toml", "scenario": "fighter-hits-orc",
          "actions": [{ "key": "units.orc.ac", "press": "ArrowRight" }],
          "sets": ["units.orc.ac=14"] },
    ]);
    let shot = root().join("target/live-page.png");
    let _ = std::fs::remove_file(&shot);
    let seen = drive(
        &configs,
        &json!({ "steps": steps, "expr": "3d6 keep highst 2",
                 "tabs": { "config": "rush.toml", "scenario": slam } }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    for (step, want) in seen["steps"]
        .as_array()
        .unwrap()
        .iter()
        .zip(steps.as_array().unwrap())
    {
        let name = step["name"].as_str().unwrap();
        let sets = strings(&step["sets"]);
        // The slider moved and the URL holds the change as the CLI's --set.
        assert_eq!(sets, strings(&want["sets"]), "{name}");
        let config = configs.join(want["config"].as_str().unwrap());
        let scenario = want["scenario"].as_str().unwrap();
        let cli = cli_table(&config, scenario, &sets);
        let page = page_table(&step["after"]);
        assert_eq!(
            page.keys().collect::<Vec<_>>(),
            cli.keys().collect::<Vec<_>>(),
            "{name}: the page's rows are not the CLI's"
        );
        for (k, (exact, shown)) in &page {
            assert_eq!(*exact, cli[k], "{name}: {k:?}");
            assert_eq!(*shown, format!("{:.2}%", 100.0 * cli[k]), "{name}: {k:?}");
        }
        // Moving the slider changed the numbers.
        assert_ne!(
            page_table(&step["before"]),
            page,
            "{name}: the move changed nothing"
        );
        // Reloading the URL restores the same view.
        assert_eq!(strings(&step["reloadedSets"]), sets, "{name}");
        assert_eq!(page_table(&step["reloaded"]), page, "{name}: reload");
        let mut command = format!(
            "rollsim run {} -s {scenario} --exact-only",
            config.display()
        );
        for s in &sets {
            command.push_str(&format!(" --set {s}"));
        }
        assert_eq!(step["command"], command, "{name}");
    }
    // The broken expression, with its caret under the column the CLI names (10).
    let dice = &seen["dice"];
    assert_eq!(dice["column"], "10", "{dice}");
    let lines: Vec<&str> = dice["text"].as_str().unwrap().lines().collect();
    assert_eq!(lines[0], "3d6 keep highst 2");
    assert!(
        lines[1].starts_with("         ^ expected `highest`, `lowest` or `middle`"),
        "{lines:?}"
    );
    let cli = rollsim()
        .args(["roll", "3d6 keep highst 2"])
        .output()
        .unwrap();
    assert!(text(&cli.stderr).contains("column 10"));
    // The balance tabs: the matchup heatmap is rush's five units each way, its Orc
    // against Human Guard cell the Slam's headline: 2,802 of 3,888 weighted counts =
    // 467/648 = 0.7206790123 = 72.07% (`util::orc_slams_guard` adds them up).
    let tabs = &seen["tabs"];
    let cells = strings(&tabs["matrix"]["cells"]);
    assert_eq!(cells.len(), 25, "{tabs}");
    let (wins, _) = crate::util::orc_slams_guard();
    let cell = format!(
        "{:.2}%",
        100.0 * wins as f64 / crate::util::ORC_SLAMS_GUARD_WAYS as f64
    );
    assert_eq!(cell, "72.07%");
    assert!(cells.contains(&cell), "{cells:?}");
    assert!(tabs["matrix"]["url"]
        .as_str()
        .unwrap()
        .contains("tab=matrix"));
    assert!(
        tabs["sensitivity"]["text"]
            .as_str()
            .unwrap()
            .contains("attacker Orc: +1 die"),
        "{tabs}"
    );
    assert!(
        tabs["sensitivity"]["rows"].as_u64().unwrap() >= 10,
        "{tabs}"
    );
    // Issue #57: one table and one bar scale per quantity (P(slammer wins) in points,
    // each mean in its own unit), its longest bar the full width.
    let scales = tabs["sensitivity"]["scales"].as_array().unwrap();
    assert!(scales.len() >= 2, "{tabs}");
    for s in scales {
        let widest = s["widths"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(widest, 100.0, "{s}");
    }
    assert!(
        tabs["roster"]["text"]
            .as_str()
            .unwrap()
            .contains("Nash weight"),
        "{tabs}"
    );
    // The screenshot is kept for the README and for a person to look at.
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{}",
        png.len()
    );
}

/// Issue #57: on the live page a wide dice distribution ran to 168 bars with labels
/// printed over each other and a table of dozens of 0.00% rows. The exploding margin
/// (8 exploding dice against 6) takes 309 values; the page's table hides those under
/// 0.05% at either end (still in the page, so its rows are the CLI's), its chart folds
/// them into `≤x` and `≥y` bars whose labels, measured by the browser, never overlap,
/// and the button under the table shows every row.
#[test]
fn a_wide_distribution_on_the_live_page_hides_its_tails_until_asked() {
    let dir = crate::util::tempdir();
    let config = dir.path().join("wide.toml");
    std::fs::write(&config, crate::util::EXPLODING_MARGIN).unwrap();
    let shot = root().join("target/live-page-tails.png");
    let seen = drive(
        dir.path(),
        &json!({ "steps": [], "tails": { "config": "wide.toml", "scenario": "exploding-margin",
                 "shot": shot.to_str().unwrap() } }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    let tails = &seen["tails"];
    let cli = cli_table(&config, "exploding-margin", &[]);
    let margin = |tables: &Value| -> Vec<Value> {
        tables
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["metric"] == "margin")
            .unwrap()["rows"]
            .as_array()
            .unwrap()
            .clone()
    };
    let rows = margin(&tails["before"]);
    // Every row is in the page, as the CLI has it; the tails are hidden.
    assert_eq!(page_table(&tails["before"]).len(), cli.len());
    let hidden: Vec<&Value> = rows.iter().filter(|r| r["hidden"] == true).collect();
    let shown = rows.len() - hidden.len();
    assert!(
        hidden.len() > 250 && (10..=25).contains(&shown),
        "{shown} shown of {}",
        rows.len()
    );
    for r in &hidden {
        let p: f64 = r["exact"].as_str().unwrap().parse().unwrap();
        assert!(p < 5e-4, "{r}");
    }
    // The charts' labels, as laid out by the browser, never overlap on one line, with
    // the tails folded or every value shown.
    let all: Vec<&Value> = tails["charts"]
        .as_array()
        .unwrap()
        .iter()
        .chain(tails["chartsAll"].as_array().unwrap())
        .collect();
    for chart in all {
        let boxes = chart.as_array().unwrap();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
                let same_line = (f(a, "y") - f(b, "y")).abs() < 1.0;
                let apart = f(a, "x") + f(a, "width") <= f(b, "x") + 0.5
                    || f(b, "x") + f(b, "width") <= f(a, "x") + 0.5;
                assert!(!same_line || apart, "{a} over {b}");
            }
        }
    }
    let labels: Vec<String> = tails["charts"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect();
    assert!(labels.iter().any(|l| l.starts_with('≤')), "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with('≥')), "{labels:?}");
    // The button shows every row.
    assert!(margin(&tails["after"]).iter().all(|r| r["hidden"] == false));
    assert_eq!(
        tails["button"],
        format!("Hide the {} values under 0.05% at the ends", hidden.len())
    );
}

/// A fraction too long for its cell (300d6: the numbers have up to 234 digits) is shown
/// by its first digits and its length, and whole in the cell's tooltip, as the command
/// line's data file has it.
#[test]
fn a_fraction_too_long_for_its_cell_is_cut_and_whole_in_its_tooltip() {
    let dir = crate::util::tempdir();
    let config = dir.path().join("horde.toml");
    std::fs::write(
        &config,
        "system = \"dice\"\n[scenarios.horde]\nroll = \"300d6\"\n",
    )
    .unwrap();
    let shot = root().join("target/live-page-horde.png");
    let seen = drive(
        dir.path(),
        &json!({ "steps": [], "tails": { "config": "horde.toml", "scenario": "horde",
                 "shot": shot.to_str().unwrap() } }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    // The command line's whole fractions, value by value.
    let out = rollsim()
        .arg("run")
        .arg(&config)
        .args(["-s", "horde", "--exact-only", "-o", "-", "--format", "csv"])
        .output()
        .unwrap();
    let csv = text(&out.stdout);
    let whole: BTreeMap<String, String> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].to_string(), f[f.len() - 1].to_string())
        })
        .collect();
    let rows = seen["tails"]["before"][0]["rows"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rows.len(), 1501, "every sum from 300 to 1800");
    let mut cut = 0;
    for r in &rows {
        let (shown, title) = (
            r["fraction"].as_str().unwrap(),
            r["whole"].as_str().unwrap(),
        );
        let want = &whole[r["value"].as_str().unwrap()];
        if want.len() > 40 {
            assert_eq!(title, want, "{r}");
            assert!(shown.len() < want.len() && shown.contains("digits)"), "{r}");
            cut += 1;
        } else {
            assert_eq!((shown, title), (want.as_str(), ""), "{r}");
        }
    }
    // The lowest sum is 1 over 6^300, a number of 234 digits; the middle's two numbers
    // are both long.
    let low = rows.iter().find(|r| r["value"] == "300").unwrap();
    assert!(low["fraction"].as_str().unwrap().starts_with("1/"), "{low}");
    assert!(
        low["fraction"]
            .as_str()
            .unwrap()
            .ends_with("… (234 digits)"),
        "{low}"
    );
    let mid = rows.iter().find(|r| r["value"] == "1050").unwrap();
    let shown = mid["fraction"].as_str().unwrap();
    assert!(
        shown.matches('…').count() == 2 && shown.ends_with(" digits)") && shown.len() < 40,
        "{mid}"
    );
    assert!(cut > 1000, "{cut} cut");
}

/// The rows of the Markdown table in `md` whose heading row starts `| HEAD |`, cells split.
fn md_rows(md: &str, head: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = md.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with(&format!("| {head} |")))
        .unwrap_or_else(|| panic!("no table `{head}` in:\n{md}"));
    lines[start + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// Issue #57: the live page's roster tab showed 12.96% "worth" for the Orc and 50.00%
/// for every other unit (rush, the Orc at strength 2+), where `rollsim roster` says
/// +37.04 points and +0.00. The tab now shows the command line's tables cell for cell,
/// with the same edits, and with `--count` its price table too.
#[test]
fn the_roster_tab_shows_what_rollsim_roster_prints() {
    let configs = root().join("configs");
    for (config, scenario, sets, count) in [
        (
            "rush.toml",
            "slam-orc-vs-human-guard",
            vec!["units.orc.strength=2"],
            None,
        ),
        (
            "dice-examples.toml",
            "fighter-duels-orc",
            vec![],
            Some("hp"),
        ),
    ] {
        let mut tabs = json!({ "config": config, "scenario": scenario, "sets": sets });
        if let Some(c) = count {
            tabs["count"] = json!(c);
        }
        let shot = root().join("target/live-page-roster.png");
        let seen = drive(&configs, &json!({ "steps": [], "tabs": tabs }), &shot);
        assert_eq!(seen["errors"], json!([]), "the page threw");
        let mut cmd = rollsim();
        cmd.arg("roster")
            .arg(configs.join(config))
            .args(["-s", scenario, "--exact-only", "--no-plots", "-o"])
            .arg(crate::util::tempdir().path().join("r"));
        for s in &sets {
            cmd.args(["--set", s]);
        }
        if let Some(c) = count {
            cmd.args(["--count", c]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        let md = text(&out.stdout);
        let page: Vec<Vec<String>> = seen["tabs"]["roster"]["roster"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| strings(&r["cells"]))
            .collect();
        assert_eq!(page, md_rows(&md, "unit | rating (Elo)"), "{config}");
        if config == "rush.toml" {
            assert_eq!(page[0][0], "Orc");
            assert_eq!(page[0][4], "+37.04 points");
            assert!(page[1..].iter().all(|r| r[4] == "+0.00 points"), "{page:?}");
        }
        if count.is_some() {
            let costs: Vec<Vec<String>> = seen["tabs"]["costs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| strings(&r["cells"]))
                .collect();
            assert_eq!(costs, md_rows(&md, "unit | hp"), "{config}");
            assert_eq!(costs[1][4], "75.2 (75 to 78.9)");
        }
    }
}
