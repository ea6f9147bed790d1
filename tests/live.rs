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

/// Dice-box expressions whose answer has words beside the numbers: what a limit cut, a
/// warning, neither.
const SAID: [&str; 3] = [
    "repeat t = 0 until t >= 1 do t = t + (6d6 == 36) limit 2 then rounds",
    "10d6 >= 5",
    "2d6",
];

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
        &json!({ "steps": steps, "expr": "3d6 keep highst 2", "said": SAID,
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
            // As the CLI prints it: never 0.00% for what can happen.
            assert_eq!(*shown, rollsim::text::percent(cli[k], 2), "{name}: {k:?}");
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
    // What the command line says beside the numbers, the page says too: a warning, and
    // what a limit cut (a turn ended by six 6s, at most two rounds: cut with chance
    // (46655/46656)^2, 9.9996e-1); a plain roll says neither.
    let said = seen["said"].as_array().unwrap();
    assert_eq!(said.len(), SAID.len(), "{said:?}");
    assert_eq!(
        said[0]["capped"],
        json!(["exact probability that a `repeat` reached its limit of rounds unfinished (a roll of the dice stops there too): 9.9996e-1"]),
        "{said:?}"
    );
    assert_eq!(said[0]["warning"], json!([]), "{said:?}");
    let warning = said[1]["warning"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("⚠ ") && warning.contains("`10d6 >= 5` always holds"),
        "{said:?}"
    );
    assert_eq!(said[2]["warning"], json!([]), "{said:?}");
    assert_eq!(said[2]["capped"], json!([]), "{said:?}");
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
    // The button shows every row; the chart of all 309 values, from -132 to 176, is
    // drawn in ranges of 5 (from -135: 63 bars), as the note under the table says.
    assert!(margin(&tails["after"]).iter().all(|r| r["hidden"] == false));
    assert_eq!(tails["barsAll"][0], 63, "{}", tails["barsAll"]);
    assert!(
        strings(&tails["rangesAll"]).contains(&"The chart: 63 bars, each a range of 5".to_string()),
        "{}",
        tails["rangesAll"]
    );
    let ranged: Vec<&str> = tails["chartsAll"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    // Each labelled by its start, its tooltip the range.
    assert!(ranged.contains(&"-135 to -131-135"), "{ranged:?}");
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
            // The whole state is in the URL, the price stat too: reloaded, the same prices.
            let url = seen["tabs"]["costsUrl"].as_str().unwrap();
            assert!(
                url.contains("tab=roster") && url.contains("count=hp"),
                "{url}"
            );
            assert_eq!(seen["tabs"]["costsReloaded"], seen["tabs"]["costs"]);
        }
    }
}

/// Which of `stats` `rollsim roster --count` takes on this scenario.
fn counts_the_cli_takes(config: &Path, scenario: &str, stats: &[&str]) -> Vec<String> {
    stats
        .iter()
        .filter(|&&s| {
            rollsim()
                .arg("roster")
                .arg(config)
                .args([
                    "-s",
                    scenario,
                    "--exact-only",
                    "--no-plots",
                    "-q",
                    "--count",
                    s,
                    "-o",
                ])
                .arg(crate::util::tempdir().path().join("r"))
                .output()
                .unwrap()
                .status
                .success()
        })
        .map(|s| s.to_string())
        .collect()
}

/// Issue: the roster's price menu offered rush's strength, speed, skill and armour, which
/// `rollsim roster --count` refuses (each is better low), and picking one replaced the
/// tab with one error line; the Matchups and Roster tabs printed `rollsim run`. Now the
/// menu offers what the command line takes (nothing on rush), a refused price leaves the
/// roster and its menu with the reason in the alert, and each tab prints the command
/// that makes its table, which run gives the same cells.
#[test]
fn the_balance_tabs_offer_what_the_cli_takes_and_print_the_command_that_makes_them() {
    let configs = root().join("configs");
    let shot = root().join("target/live-page-balance.png");
    for (config, scenario, stats, count) in [
        (
            "rush.toml",
            "slam-orc-vs-human-guard",
            vec!["strength", "speed", "skill", "armour"],
            None,
        ),
        (
            "skirmish.toml",
            "archers-volley",
            vec!["shoot", "fight", "target_value", "defence", "models"],
            Some("models"),
        ),
    ] {
        let mut plan = json!({ "steps": [], "tabs": { "config": config, "scenario": scenario } });
        if let Some(c) = count {
            plan["tabs"]["count"] = json!(c);
            plan["refuse"] =
                json!({ "config": config, "scenario": scenario, "stat": "defence", "then": c });
        }
        let seen = drive(&configs, &plan, &shot);
        assert_eq!(seen["errors"], json!([]), "the page threw");
        let path = configs.join(config);
        let tabs = &seen["tabs"];
        // The menu: what the command line takes, no more (none at all: no menu).
        let offered = tabs["roster"]["counts"]
            .as_array()
            .map_or(vec![], |_| strings(&tabs["roster"]["counts"]));
        assert_eq!(
            offered,
            counts_the_cli_takes(&path, scenario, &stats),
            "{config}"
        );
        // A menu says what it is in a label beside it, not only in its first option.
        if tabs["roster"]["counts"].is_array() {
            assert_eq!(
                tabs["roster"]["countLabel"],
                json!("Point costs: "),
                "{config}"
            );
        }
        // Each tab's command is the one that makes its table.
        for (tab, verb) in [
            ("matrix", "compare"),
            ("sensitivity", "sensitivity"),
            ("roster", "roster"),
        ] {
            let want = format!(
                "rollsim {verb} {} -s {scenario} --exact-only",
                path.display()
            );
            assert_eq!(tabs[tab]["command"], want, "{config} {tab}");
        }
        // Run as printed, the matrix's command gives the heatmap's cells.
        let printed = tabs["matrix"]["command"].as_str().unwrap().to_string();
        let out = crate::util::tempdir();
        let mut cmd = rollsim();
        cmd.args(printed.split(' ').skip(1))
            .args(["--no-plots", "-q", "-o"])
            .arg(out.path());
        assert!(cmd.output().unwrap().status.success(), "{printed}");
        let wide = std::fs::read_to_string(out.path().join(format!("matrix-{scenario}-wide.csv")))
            .unwrap();
        let cli_cells: Vec<String> = wide
            .lines()
            .skip(1)
            .flat_map(|l| {
                l.split(',')
                    .skip(1)
                    .map(|v| format!("{:.2}%", 100.0 * v.parse::<f64>().unwrap()))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(strings(&tabs["matrix"]["cells"]), cli_cells, "{config}");
        if let Some(c) = count {
            assert_eq!(
                tabs["costsCommand"],
                format!(
                    "rollsim roster {} -s {scenario} --exact-only --count {c}",
                    path.display()
                )
            );
            // A price refused: the roster stays, the menu back on `no costs`, the reason
            // in the alert; the menu still prices.
            let r = &seen["refuse"];
            assert!(
                r["problem"]
                    .as_str()
                    .unwrap_or("")
                    .contains("`defence` is better low"),
                "{r}"
            );
            assert_eq!(
                (r["rosters"].as_u64(), r["menu"].as_str()),
                (Some(1), Some("")),
                "{r}"
            );
            assert_eq!(
                (r["priced"].as_u64(), &r["problemAfter"]),
                (Some(5), &Value::Null),
                "{r}"
            );
        }
    }
}

/// Issue: at 9 dice (the Orc's Slam with 4 extra dice) the page cut `slamback win` and
/// `slamback double` both to `slamback…` and the sidebar `defender_extra_dice` to
/// `defender_ex…`, drew two y ticks (the top and its half, at 42% and 84%) and three
/// lines, showed `mean 0.0000` and a row `1 | 0.00%` under its own "values under 0.05%
/// at the ends hidden", and kept fraction columns with every cell empty.
#[test]
fn at_nine_dice_the_page_names_every_bar_ticks_round_values_and_hides_what_it_says() {
    let configs = root().join("configs");
    let slam = "slam-orc-vs-human-guard";
    let sets = vec![format!("scenarios.{slam}.extra_dice=4")];
    let shot = root().join("target/live-page-nine-dice.png");
    let seen = drive(
        &configs,
        &json!({ "steps": [], "charts": [{ "config": "rush.toml", "scenario": slam, "sets": &sets }] }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    let c = &seen["charts"][0];
    assert_eq!(c["cut"], json!([]), "a control's name is cut short");
    let metrics = c["metrics"].as_array().unwrap();
    let metric = |name: &str| metrics.iter().find(|m| m["metric"] == name).unwrap();
    assert_eq!(
        strings(&metric("result")["labels"]),
        ["draw", "win", "double", "slamback win", "slamback double"]
    );
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    for m in metrics {
        let name = m["metric"].as_str().unwrap();
        // No two labels read the same, and none lies over another.
        let labels = strings(&m["labels"]);
        let mut distinct = labels.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), labels.len(), "{name}: {labels:?}");
        let boxes = m["boxes"].as_array().unwrap();
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                let same_line = (f(a, "y") - f(b, "y")).abs() < 1.0;
                let apart = f(a, "x") + f(a, "width") <= f(b, "x") + 0.5
                    || f(b, "x") + f(b, "width") <= f(a, "x") + 0.5;
                assert!(!same_line || apart, "{name}: {a} over {b}");
            }
        }
        // The y axis as the PNG charts have it: from 0 in equal round steps (1, 2 or 5
        // times a power of ten), at least four ticks, the top at or over the tallest
        // bar, a grid line at each tick.
        let ticks = m["ticks"].as_array().unwrap();
        let at: Vec<f64> = ticks
            .iter()
            .map(|t| {
                t["text"]
                    .as_str()
                    .unwrap()
                    .trim_end_matches('%')
                    .parse()
                    .unwrap()
            })
            .collect();
        assert!(at.len() >= 4 && at[0] == 0.0, "{name}: {at:?}");
        let step = at[1];
        let mantissa = step / 10f64.powf(step.log10().floor());
        assert!(
            [1.0, 2.0, 5.0].iter().any(|k| (mantissa - k).abs() < 1e-6),
            "{name}: {at:?}"
        );
        for (i, v) in at.iter().enumerate() {
            assert!((v - i as f64 * step).abs() < 1e-6, "{name}: {at:?}");
        }
        let grid: Vec<f64> = m["grid"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_f64().unwrap())
            .collect();
        for t in ticks {
            assert!(
                grid.iter()
                    .any(|g| (f(t, "y")..f(t, "y") + 14.0).contains(g)),
                "{name}: no grid line at {t}"
            );
        }
        let top = grid.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(
            top <= f(m, "tallest") + 0.5,
            "{name}: a bar over the top tick"
        );
        // A fraction column only where a cell has one.
        let head = strings(&m["head"]);
        assert_eq!(
            head.contains(&"fraction".to_string()),
            m["fractions"].as_u64() > Some(0),
            "{name}"
        );
    }
    // What the table hides is what it says it hides: no row under 0.05% at either end
    // of what it shows.
    for name in [
        "slammer_successes",
        "target_turns_out_of_play",
        "slammer_turns_out_of_play",
    ] {
        let rows = metric(name)["rows"].as_array().unwrap();
        let shown: Vec<&Value> = rows.iter().filter(|r| r["hidden"] == false).collect();
        for end in [shown[0], shown[shown.len() - 1]] {
            assert!(f(end, "exact") >= 5e-4, "{name}: {end} shown");
        }
    }
    // At 9 dice the fractions are over 6^18, counted in whole numbers (none read off a
    // float), and in the table as in the CLI's.
    assert_eq!(metric("target_turns_out_of_play")["fractions"], 10);
    assert_eq!(metric("result")["fractions"], 5);
    // The mean is not 0: the CLI's exact rows give 0.0000435, shown to 3 digits.
    let cli = cli_table(&configs.join("rush.toml"), slam, &sets);
    let mean: f64 = cli
        .iter()
        .filter(|((_, m, _), _)| m == "slammer_turns_out_of_play")
        .map(|((_, _, v), p)| v.parse::<f64>().unwrap() * p)
        .sum();
    let about = metric("slammer_turns_out_of_play")["about"]
        .as_str()
        .unwrap();
    let shown: f64 = about
        .rsplit("mean ")
        .next()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((shown - mean).abs() <= 0.005 * mean, "{about} vs {mean}");
}

/// At 1024 px a sensitivity change's name wraps, but its step (`defence 10 -> 9`) stays
/// on one line: it broke inside the arrow (`8 -` then `> 9`).
#[test]
fn a_sensitivity_change_keeps_its_step_on_one_line() {
    let configs = root().join("configs");
    let shot = root().join("target/live-page-steps.png");
    let seen = drive(
        &configs,
        &json!({ "steps": [], "width": 1024,
                 "tabs": { "config": "skirmish.toml", "scenario": "archers-shot-at" } }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    let lines: Vec<u64> = seen["tabs"]["sensitivity"]["stepLines"]
        .as_array()
        .expect("the sensitivity tab's rows")
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(lines.len() > 20, "{lines:?}");
    assert!(lines.iter().all(|&n| n == 1), "{lines:?}");
}

/// Issue: the sensitivity table showed `-0.0000` (a change of -2e-16, float noise) and
/// `+0.00 pts`; the command line prints `0.000` and `0.00 pts`.
#[test]
fn the_sensitivity_tab_writes_no_signed_zero() {
    let configs = root().join("configs");
    let shot = root().join("target/live-page-sensitivity.png");
    let seen = drive(
        &configs,
        &json!({ "steps": [], "tabs": { "config": "dozen.toml", "scenario": "fighter-charges-dwarf" } }),
        &shot,
    );
    assert_eq!(seen["errors"], json!([]), "the page threw");
    let worth = strings(&seen["tabs"]["sensitivity"]["worth"]);
    let zero = |w: &str| {
        w.trim_end_matches(" pts")
            .trim_start_matches(['+', '-'])
            .chars()
            .all(|c| c == '0' || c == '.')
    };
    assert!(worth.iter().filter(|w| zero(w)).count() > 10, "{worth:?}");
    for w in worth.iter().filter(|w| zero(w)) {
        assert!(!w.starts_with(['+', '-']), "{w}");
    }
}
