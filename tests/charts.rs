//! Issue #16: the words on the charts. Charts are drawn as SVG beside the PNG
//! (`--charts png,svg`), whose `<text>` elements are exactly what the PNG prints; the
//! tests read them.

use crate::util::{rollsim, shipped, tempdir};
use std::path::{Path, PathBuf};

/// Every `.svg` under `dir`.
fn svgs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(svgs(&p));
        } else if p.extension().is_some_and(|x| x == "svg") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The texts of an SVG chart in drawing order (the title first).
/// A chart titled `lead` then `what` (`lead` ends in `:` or `?`): both in the title
/// where they fit the page's width, else the lead alone with `what` leading the
/// subtitle.
pub(crate) fn titled(t: &[String], lead: &str, what: &str) {
    let whole = format!("{lead} {what}");
    let alone = lead.trim_end_matches(':');
    assert!(
        t[0] == whole || (t[0] == alone && t[1].starts_with(&format!("{what}. "))),
        "{t:?}: {lead} / {what}"
    );
}

pub(crate) fn texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut rest = svg.as_str();
    while let Some(start) = rest.find("<text") {
        let body = &rest[start..];
        let open = body.find('>').unwrap() + 1;
        let close = body.find("</text>").unwrap();
        out.push(
            body[open..close]
                .trim()
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&apos;", "'")
                .replace("&quot;", "\"")
                .replace("&amp;", "&"),
        );
        rest = &body[close + 7..];
    }
    out
}

/// A hyphenated lowercase name like `slam-orc-vs-human-guard`.
fn is_slug(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    w.matches('-').count() >= 2
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `1.1e-4`, `9.9e-1`, `5e3`: a number in scientific notation.
fn scientific(text: &str) -> bool {
    let c: Vec<char> = text.chars().collect();
    (1..c.len().saturating_sub(1)).any(|i| {
        c[i] == 'e'
            && c[i - 1].is_ascii_digit()
            && (c[i + 1].is_ascii_digit()
                || (matches!(c[i + 1], '-' | '+')
                    && c.get(i + 2).is_some_and(char::is_ascii_digit)))
    })
}

/// A bar label as charts print probabilities: `45.3%`, `1.15%`, `<0.01%`, `>99.99%`.
fn good_percent(t: &str) -> bool {
    let Some(n) = t.strip_suffix('%') else {
        return true;
    };
    if n == "<0.01" || n == ">99.99" {
        return true;
    }
    let decimals = n.split('.').nth(1).map_or(0, str::len);
    n.parse::<f64>().is_ok_and(|v| (0.0..=100.0).contains(&v)) && decimals <= 2
}

/// An attribute of an SVG tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// What is wrong with a chart's layout (issue #57): two horizontal texts drawn over each
/// other (each text's box from its anchor, font size and half an em a character, which
/// is narrower than DejaVu Sans prints, so only real overlaps count), or more than
/// [`MAX_EMPTY`] bars in a row under half a pixel high.
///
/// [`MAX_EMPTY`]: rollsim::report::plot::MAX_EMPTY
fn layout_problems(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let mut boxes: Vec<(f64, f64, f64, f64, String)> = Vec::new();
    let mut rest = svg.as_str();
    while let Some(start) = rest.find("<text") {
        let body = &rest[start..];
        let open = body.find('>').unwrap();
        let close = body.find("</text>").unwrap();
        let (tag, text) = (&body[..open], body[open + 1..close].trim().to_string());
        rest = &body[close + 7..];
        if text.is_empty() || tag.contains("transform=") {
            continue;
        }
        let num = |k: &str| attr(tag, k).and_then(|v| v.parse::<f64>().ok()).unwrap();
        let (x, y, size) = (num("x"), num("y"), num("font-size"));
        let w = text.chars().count() as f64 * size * 0.5;
        let x0 = match attr(tag, "text-anchor") {
            Some("middle") => x - w / 2.0,
            Some("end") => x - w,
            _ => x,
        };
        boxes.push((x0, x0 + w, y, size, text));
    }
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let same_line = (a.2 - b.2).abs() < 0.8 * a.3.min(b.3);
            if same_line && a.1.min(b.1) - a.0.max(b.0) > 1.0 {
                out.push(format!("{}: `{}` over `{}`", path.display(), a.4, b.4));
            }
        }
    }
    // The bar charts' bars: rectangles of the bar colour at 0.85 opacity, left to right.
    let mut bars: Vec<(f64, f64)> = svg
        .split("<rect ")
        .skip(1)
        .filter(|t| t.contains("fill=\"#4477AA\"") && t.contains("opacity=\"0.85\""))
        .map(|t| {
            let n = |k: &str| attr(&format!(" {t}"), k).unwrap().parse::<f64>().unwrap();
            (n("x"), n("height"))
        })
        .collect();
    bars.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut run, mut longest) = (0, 0);
    for (_, h) in &bars {
        run = if *h < 0.5 { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest > rollsim::report::plot::MAX_EMPTY {
        out.push(format!("{}: {longest} empty bars in a row", path.display()));
    }
    out
}

/// Issue #57: charts of wide distributions were unreadable (120 empty bars of an
/// exploding margin, tick labels printed into a smear). Each of these draws its tails
/// folded into `x or less` / `y or more`, as many labels as fit, no run of empty bars,
/// and says on its axis what it folded.
#[test]
fn wide_distributions_draw_legible_charts() {
    let dir = tempdir();
    let cfg = dir.path().join("wide.toml");
    std::fs::write(
        &cfg,
        format!(
            "{}[scenarios.hundred]\nroll = \"100d6 count >= 4\"\n[scenarios.sum]\nroll = \"200d6\"\n[scenarios.tens]\nroll = \"d6 * 10\"\n[scenarios.gaps]\nroll = \"d6 * 10 + d2\"\n",
            crate::util::EXPLODING_MARGIN
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    rollsim()
        .arg("run")
        .arg(&cfg)
        .args(["-n", "20000", "-q", "--charts", "png,svg", "-o"])
        .arg(&out)
        .assert()
        .success();
    let all = svgs(&out);
    assert_eq!(all.len(), 11, "{all:?}");
    let bad: Vec<String> = all.iter().flat_map(|f| layout_problems(f)).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The margin takes values from -132 up (the CSV keeps every one, 309 rows);
    // its chart starts at `-8 or less` and ends at `9 or more`.
    let margin = texts(&out.join("exploding-margin/margin.svg"));
    assert!(margin.iter().any(|t| t == "-8 or less"), "{margin:?}");
    assert!(margin.iter().any(|t| t == "9 or more"), "{margin:?}");
    assert!(margin
        .iter()
        .any(|t| t.contains("tails under 0.05% folded into the end bars")));
    let csv = std::fs::read_to_string(out.join("distribution.csv")).unwrap();
    let rows = csv
        .lines()
        .filter(|l| l.starts_with("exploding-margin,margin,"))
        .count();
    assert!(rows > 40, "{rows}");
    // 127 bars of 200d6 print at most one label in five.
    let sum = texts(&out.join("sum/value.svg"));
    let ticks = sum.iter().filter(|t| t.parse::<i64>().is_ok()).count();
    assert!((5..=30).contains(&ticks), "{sum:?}");
    // d6 * 10: the values run in steps of 10, a bar each, nothing between.
    let tens = texts(&out.join("tens/value.svg"));
    for v in ["10", "20", "30", "40", "50", "60"] {
        assert!(tens.iter().any(|t| t == v), "{v}: {tens:?}");
    }
    assert!(!tens.iter().any(|t| t == "…" || t == "15"), "{tens:?}");
    // d6 * 10 + d2: 11, 12, 21, 22, ...: the impossible values between 12 and 21 are
    // one empty slot.
    let gaps = texts(&out.join("gaps/value.svg"));
    assert_eq!(gaps.iter().filter(|t| *t == "…").count(), 5, "{gaps:?}");
    assert!(gaps
        .iter()
        .any(|t| t.contains("… = values that cannot happen")));
}

/// A bar a value of 2,670 (`d20 * d20 * d20 * d20`) was a smear under a band of ticks,
/// spaced by bar, not by value, its last label cut at the edge: past 150 bars a chart
/// draws ranges of one width, each the sum of its values, and reads "k or more" at each
/// range's start. Worked by hand on a uniform law of 1000 values; then the whole chart.
#[test]
fn thousands_of_values_are_drawn_in_ranges_of_one_width() {
    use rollsim::report::plot::{shown, Bars, Tails};
    let uniform = |tails: Tails, values: Vec<(f64, (f64, f64), Option<f64>)>| Bars {
        title: String::new(),
        subtitle: String::new(),
        x_desc: "value".into(),
        y_desc: "probability",
        labels: (0..1000).map(|v| v.to_string()).collect(),
        xs: Some((0..1000).collect()),
        values,
        trials: 0,
        tails,
    };
    let each = (0.001, (0.001, 0.001), Some(0.001));
    let b = shown(&uniform(Tails::Fold, vec![each; 1000]));
    // 999 / 60 rounds up to ranges of 20: fifty bars of 2%.
    assert_eq!(b.values.len(), 50);
    assert_eq!(
        (b.labels[0].as_str(), b.labels[49].as_str()),
        ("0–19", "980–999")
    );
    for (p, _, exact) in &b.values {
        assert!((p - 0.02).abs() < 1e-12 && (exact.unwrap() - 0.02).abs() < 1e-12);
    }
    assert_eq!(b.x_desc, "value (in ranges of 20)");
    // P(at least k) = (1000 - k) / 1000, read at 0, 20, 40, ...
    let at_least = (0..1000)
        .map(|k| {
            let p = f64::from(1000 - k) / 1000.0;
            (p, (p, p), Some(p))
        })
        .collect();
    let b = shown(&uniform(Tails::AtLeast, at_least));
    assert_eq!(b.values.len(), 50);
    assert_eq!((b.labels[1].as_str(), b.values[1].0), ("≥20", 0.98));
    assert_eq!((b.labels[49].as_str(), b.values[49].0), ("≥980", 0.02));

    let dir = tempdir();
    let cfg = dir.path().join("far.toml");
    std::fs::write(
        &cfg,
        "system = \"dice\"\n[scenarios.four]\nroll = \"d20 * d20 * d20 * d20\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    rollsim()
        .arg("run")
        .arg(&cfg)
        .args(["--exact-only", "-q", "--charts", "svg", "-o"])
        .arg(&out)
        .assert()
        .success();
    let value = out.join("four/value.svg");
    let svg = std::fs::read_to_string(&value).unwrap();
    // 1 to 35 and 57,000 up folded (each value under 0.05%), ranges of 1000 between.
    assert_eq!(svg.matches("opacity=\"0.85\"").count(), 58);
    let t = texts(&value);
    assert!(t.iter().any(|t| t.contains("in ranges of 1000")), "{t:?}");
    for l in ["999 or less", "7000–7999", "57000 or more"] {
        assert!(t.iter().any(|t| t == l), "{l}: {t:?}");
    }
    let problems = layout_problems(&value);
    assert!(problems.is_empty(), "{problems:?}");
    // The last label, centred on the last bar, ends inside the chart.
    let last = svg
        .split("<text")
        .find(|t| {
            t.split("</text>")
                .next()
                .unwrap()
                .trim_end()
                .ends_with("or more")
        })
        .unwrap_or_else(|| panic!("no `or more` label: {t:?}"));
    let num = |k: &str| attr(last, k).and_then(|v| v.parse::<f64>().ok()).unwrap();
    let text = &last[last.find('>').unwrap() + 1..last.find("</text>").unwrap()];
    let right = num("x") + text.trim().chars().count() as f64 * num("font-size") * 0.6 / 2.0;
    assert!(right <= 1100.0, "`{}` ends at {right}", text.trim());
    let t = texts(&out.join("four/value_at_least.svg"));
    assert!(t.iter().any(|t| t.contains("read every 2000")), "{t:?}");
    // Read at 26 (k below it, each over 99.8%, left off), 2000, 4000, ...
    assert!(
        t.iter().any(|t| t == "≥26") && t.iter().any(|t| t == "≥8000"),
        "{t:?}"
    );
}

#[test]
fn every_shipped_chart_reads_as_words() {
    let dir = tempdir();
    rollsim()
        .current_dir(dir.path())
        .args(["-n", "2000", "-q", "--charts", "png,svg"])
        .assert()
        .success();
    let all = svgs(&dir.path().join("reports"));
    assert!(all.len() >= 600, "{} charts", all.len());
    let mut bad = Vec::new();
    for f in &all {
        bad.extend(layout_problems(f));
        let t = texts(f);
        let title = &t[0];
        if title.is_empty()
            || title.contains('_')
            || title.contains('@')
            || title.split_whitespace().any(is_slug)
        {
            bad.push(format!("{}: title `{title}`", f.display()));
        }
        for s in &t {
            if scientific(s) || s.contains("(s)") || s == "-0.00" || s == "-0.0" {
                bad.push(format!("{}: `{s}`", f.display()));
            }
            // Labels that are a percentage alone follow the one format.
            if !s.contains(' ') && !good_percent(s) {
                bad.push(format!("{}: percentage `{s}`", f.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} bad texts:\n{}",
        bad.len(),
        bad[..bad.len().min(40)].join("\n")
    );
    // Counts agree with their nouns, verbs with plural unit names.
    let words: Vec<String> = all.iter().flat_map(|f| texts(f)).collect();
    assert!(!words
        .iter()
        .any(|w| w.contains(" 1 wounds") || w.contains("Archers wins")));
    assert!(words.iter().any(|w| w == "Archers win"));
    assert!(words.iter().any(|w| w.contains("Fighter wins")));
}

#[test]
fn each_chart_kind_titles_labels_and_legends() {
    let dir = tempdir();
    let out = |name: &str| dir.path().join(name);
    let run = |config: &str, scenario: &str, o: &Path| {
        rollsim()
            .args(["run", shipped(config).to_str().unwrap(), "-s", scenario])
            .args(["-n", "20000", "-q", "--format", "csv", "--charts", "svg"])
            .arg("-o")
            .arg(o)
            .assert()
            .success();
    };
    // The distribution and "at least": the scenario in words, the metric, the legend.
    run("rush.toml", "slam-orc-vs-human-guard", &out("rush"));
    let t = texts(&out("rush").join("slam-orc-vs-human-guard/result.svg"));
    assert_eq!(t[0], "Orc slams Human Guard: result");
    assert_eq!(t[1], "5 dice at 3+ vs slamback 4 dice at 4+ (seed 2026)");
    assert!(t.contains(&"Monte Carlo, 20,000 trials (whiskers: 95% CI)".to_string()));
    assert!(t.contains(&"exact".to_string()));
    for l in ["draw", "win", "double", "slamback win"] {
        assert!(t.contains(&l.to_string()), "{l}");
    }
    let t =
        texts(&out("rush").join("slam-orc-vs-human-guard/target_turns_out_of_play_at_least.svg"));
    assert_eq!(
        t[0],
        "Orc slams Human Guard: target turns out of play, k or more"
    );
    assert!(t.contains(&"≥1".to_string()));
    // An exploding pool: the tail past what a chart can show is its last bar, `k or more`.
    run(
        "rush-exploding.toml",
        "slam-orc-vs-human-guard",
        &out("boom"),
    );
    let t = texts(&out("boom").join("slam-orc-vs-human-guard/slammer_successes.svg"));
    assert!(t.iter().any(|s| s.ends_with(" or more")), "{t:?}");
    // The duel race: the winners in the legend, shares as percentages.
    run("dozen.toml", "duel-fighter-vs-dwarf", &out("dozen"));
    let t = texts(&out("dozen").join("duel-fighter-vs-dwarf/duel.svg"));
    titled(
        &t,
        "Who wins, and how often is the winner injured?",
        "Who has won by each activation",
    );
    assert!(t.contains(&"Fighter wins by then".to_string()));
    assert!(t.contains(&"Dwarf wins by then".to_string()));
    assert!(t
        .iter()
        .any(|s| s.starts_with("Fighter wins ") && s.ends_with('%')));
    // A profile: its label, both series.
    run("descent.toml", "crossbow-range", &out("descent"));
    let t = texts(&out("descent").join("crossbow-range/probabilities_vs_distance.svg"));
    titled(
        &t,
        "Crossbow damage against distance:",
        "P(miss or out of range) and P(killed) against distance",
    );
    assert!(t.contains(&"P(killed), Aim (optimal)".to_string()));
    // A decision: the units' names in the legends, and morale in its own chart.
    run("skirmish.toml", "archers-shot-at", &out("skirmish"));
    let t = texts(&out("skirmish").join("archers-shot-at/decision.svg"));
    assert!(t.contains(&"models Archers lose".to_string()), "{t:?}");
    assert!(t.contains(&"models Skirmishers lose".to_string()));
    let t = texts(&out("skirmish").join("archers-shot-at/decision_morale.svg"));
    titled(
        &t,
        "When shot at, should the archers shoot back or go to ground?",
        "Morale of each choice",
    );
    for l in ["P(Archers broken)", "P(Skirmishers wiped out)"] {
        assert!(t.contains(&l.to_string()), "{l}");
    }
    // The balance charts: a matrix, a sweep, sensitivity, an overlay.
    let balance = |args: &[&str], o: &Path| {
        // An exact command rolls no trials (`-n` beside it is refused).
        let trials: &[&str] = match args.contains(&"--exact-only") {
            true => &[],
            false => &["-n", "20000"],
        };
        rollsim()
            .args(args)
            .args(trials)
            .args(["--charts", "svg", "-o"])
            .arg(o)
            .assert()
            .success();
    };
    let rush = shipped("rush.toml");
    let rush = rush.to_str().unwrap();
    balance(
        &[
            "compare",
            rush,
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
        ],
        &out("cmp"),
    );
    let t = texts(&out("cmp").join("matrix-slam-orc-vs-human-guard.svg"));
    assert_eq!(t[0], "Slam orc vs human guard: P(slammer wins) by matchup");
    assert!(t.contains(&"Human Guard".to_string()));
    balance(
        &[
            "sweep",
            rush,
            "-s",
            "slam-orc-vs-human-guard",
            "--vary",
            "attacker.strength=2..5",
        ],
        &out("sweep"),
    );
    let sweep = svgs(&out("sweep"));
    let t = texts(&sweep[0]);
    assert_eq!(
        t[0],
        "Slam orc vs human guard: P(slammer wins) against Orc's strength (attacker)"
    );
    // The axis names the unit the side names now: after a --set swapping the
    // attacker, and after a rename.
    for (set, who) in [
        (
            "scenarios.slam-orc-vs-human-guard.attacker=goblin",
            "Goblin",
        ),
        ("units.orc.name=Warboss", "Warboss"),
    ] {
        let o = out(&format!("sweep-{who}"));
        balance(
            &[
                "sweep",
                rush,
                "-s",
                "slam-orc-vs-human-guard",
                "--vary",
                "attacker.strength=2..5",
                "--set",
                set,
            ],
            &o,
        );
        let t = texts(&svgs(&o)[0]);
        assert!(
            t[0].ends_with(&format!("against {who}'s strength (attacker)")),
            "{t:?}"
        );
        assert!(t.contains(&format!("{who}'s strength (attacker)")), "{t:?}");
    }
    balance(
        &[
            "sensitivity",
            rush,
            "-s",
            "slam-orc-vs-human-guard",
            "--exact-only",
        ],
        &out("sens"),
    );
    let t = texts(&svgs(&out("sens"))[0]);
    assert_eq!(t[0], "Slam orc vs human guard: what one step is worth");
    assert!(!t.iter().any(|s| s == "-0.00" || s == "+0.00"));
    let boom = shipped("rush-exploding.toml");
    rollsim()
        .args(["overlay", "--metric", "slammer_successes", "-n", "20000"])
        .arg(format!("{}:slam-orc-vs-human-guard", rush))
        .arg(format!("{}:slam-orc-vs-human-guard", boom.display()))
        .args(["--charts", "svg", "-o"])
        .arg(out("overlay"))
        .assert()
        .success();
    let t = texts(&svgs(&out("overlay"))[0]);
    assert_eq!(t[0], "slammer successes: side by side");
    // Legend entries whole (no ellipsis); the axis stops where the bars do.
    assert!(!t.iter().any(|s| s.contains('…')), "{t:?}");
    let top: i64 = t
        .iter()
        .filter_map(|s| s.parse::<i64>().ok())
        .max()
        .unwrap();
    assert!(top <= 14, "the x-axis runs to {top}");
}
