//! The report gallery: `reports/index.md` and `reports/index.html`, an overview of what
//! the default run wrote: every headline in one table first, then per config one card
//! per scenario (a profile or decision table is one card) with its description, its
//! headline and its headline chart, loaded from the file beside the page (nothing is
//! embedded, so the page stays small), and one matchup matrix per config, with its
//! roster card (ratings and the Nash mix) where both sides pick from one table.

use super::write::{atomic, WriteError};
use super::ScenarioResult;
use crate::report::analysis::Matrix;
use rollsim_core::balance::roster::Roster;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// One config's part of the gallery.
pub struct Section {
    pub stem: String,
    pub system: String,
    pub title: String,
    /// `reports/<stem>`
    pub dir: PathBuf,
    pub results: Vec<ScenarioResult>,
    /// The matrix and the files it wrote (CSV long, CSV wide, PNG).
    pub matrix: Option<(Matrix, Vec<PathBuf>)>,
    /// The roster read off that matrix (when both its sides pick from one table) and
    /// the files it wrote (CSV, the Nash weights' and the ratings' charts).
    pub roster: Option<(Roster, Vec<PathBuf>)>,
}

/// The folders holding a scenario's charts: its own, or its profile's or decision's.
fn charts(dir: &Path, r: &ScenarioResult) -> (String, Vec<String>) {
    let folder = r.group.as_ref().map_or(r.name.clone(), |g| g.name.clone());
    let mut files: Vec<String> = std::fs::read_dir(dir.join(&folder))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|f| f.ends_with(".png"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    (folder, files)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

fn pct(p: f64) -> String {
    crate::text::percent(p, 2)
}

pub fn markdown(root: &Path, sections: &[Section]) -> String {
    let mut s = String::from(
        "# rollsim report gallery\n\nWritten by `cargo run --release` (plain `rollsim`): every shipped config, every scenario. \
         Each scenario links its charts; each config has its tables and one matchup matrix. \
         `index.html` beside this file shows the same with the charts inline.\n\n",
    );
    for sec in sections {
        let _ = writeln!(
            s,
            "## {} (`{}`)\n",
            if sec.title.is_empty() {
                &sec.stem
            } else {
                &sec.title
            },
            sec.system
        );
        let mut tables = Vec::new();
        for t in [
            "distribution.csv",
            "summary.csv",
            "decisions.csv",
            "distribution.parquet",
            "summary.parquet",
        ] {
            if sec.dir.join(t).exists() {
                tables.push(format!("[{t}]({})", rel(root, &sec.dir.join(t))));
            }
        }
        let _ = writeln!(s, "Tables: {}\n", tables.join(" · "));
        if let Some((m, files)) = &sec.matrix {
            let _ = writeln!(s, "### Matchup matrix: {} ({})\n", m.scenario, m.what);
            md_files(&mut s, root, files, "matrix");
        }
        if let Some((r, files)) = &sec.roster {
            let _ = writeln!(
                s,
                "### Roster: {} as a metagame\n\n{}\n",
                r.matrix.scenario,
                roster_line(r)
            );
            md_files(&mut s, root, files, "roster");
        }
        let _ = writeln!(s, "### Scenarios\n");
        use super::markdown::{Align, Table};
        let mut t = Table::new([
            ("scenario", Align::Left),
            ("headline", Align::Left),
            ("Monte Carlo", Align::Right),
            ("exact", Align::Right),
            ("charts", Align::Left),
        ]);
        let mut seen = Vec::new();
        for r in &sec.results {
            let (folder, files) = charts(&sec.dir, r);
            let links = if seen.contains(&folder) {
                format!("see {folder}")
            } else {
                seen.push(folder.clone());
                files
                    .iter()
                    .map(|f| {
                        format!(
                            "[{}]({})",
                            f.trim_end_matches(".png"),
                            rel(root, &sec.dir.join(&folder).join(f))
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" · ")
            };
            t.row([
                r.name.clone(),
                r.headline.label.clone(),
                pct(r.headline.probability),
                r.headline.exact.map(pct).unwrap_or_else(|| "-".into()),
                links,
            ]);
        }
        s.push_str(&t.render());
        s.push('\n');
    }
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One entry of a config's overview: a scenario, or a whole profile or decision table
/// (its members are one chart and one compact table).
struct Entry<'a> {
    /// The anchor and the folder of its charts.
    folder: String,
    title: String,
    description: String,
    /// (label, Monte Carlo, CI, exact) of the headline; for a group, its range.
    headline: String,
    members: Vec<&'a ScenarioResult>,
    /// The chart shown, then every chart of the folder.
    chart: Option<String>,
    charts: Vec<String>,
}

fn entries<'a>(sec: &'a Section) -> Vec<Entry<'a>> {
    let mut out: Vec<Entry> = Vec::new();
    for r in &sec.results {
        let (folder, files) = charts(&sec.dir, r);
        if let Some(e) = out.iter_mut().find(|e| e.folder == folder) {
            e.members.push(r);
            continue;
        }
        // The headline's own chart; a group's is its overview chart; where the rules
        // fix the headline, the chart of what varies instead ("P(stays up after k
        // Dashes)").
        let wanted = match (fixed_by_rules(&r.headline), varying_mean(r)) {
            (Some(_), Some((m, _))) if files.contains(&format!("{}_at_least.png", m.name)) => {
                format!("{}_at_least.png", m.name)
            }
            (Some(_), Some((m, _))) => format!("{}.png", m.name),
            _ => format!("{}.png", r.headline.metric),
        };
        let chart = if r.group.is_some() {
            files
                .iter()
                .find(|f| f.starts_with("probabilities") || f.starts_with("decision"))
                .or(files.first())
                .cloned()
        } else {
            files
                .iter()
                .find(|f| **f == wanted)
                .or(files.first())
                .cloned()
        };
        let (title, description) = match &r.group {
            Some(g) => (super::plot::title::words(&g.name), g.label.clone()),
            None => (super::plot::title::words(&r.name), r.description.clone()),
        };
        out.push(Entry {
            folder,
            title,
            description,
            headline: String::new(),
            members: vec![r],
            chart,
            charts: files,
        });
    }
    for e in &mut out {
        e.headline = entry_headline(&e.members);
    }
    out
}

/// The line a card leads with: one scenario's headline with its interval, a group's
/// range over its points, or what varies where the rules fix the headline.
fn entry_headline(members: &[&ScenarioResult]) -> String {
    let first = members[0];
    let h = &first.headline;
    if let (1, Some(fixed)) = (members.len(), fixed_by_rules(h)) {
        // A headline the rules fix (a Goblin that never stays up) is no headline:
        // the gallery leads with what can vary, and says why.
        match varying_mean(first) {
            Some((m, mean)) => format!(
                "mean {}: {} ({} {fixed} by the rules)",
                m.name.replace('_', " "),
                crate::text::fixed(mean, 2),
                h.label
            ),
            None => format!("{} {fixed} by the rules", h.label),
        }
    } else if members.len() == 1 {
        format!(
            "{}: {} [{} .. {}]{}",
            h.label,
            pct(h.probability),
            pct(h.ci_low),
            pct(h.ci_high),
            h.exact
                .map_or(String::new(), |x| format!(", exact {}", pct(x)))
        )
    } else {
        let ps: Vec<f64> = members
            .iter()
            .map(|r| r.headline.exact.unwrap_or(r.headline.probability))
            .collect();
        let lo = ps.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let choice = first.group.as_ref().is_some_and(|g| g.choice);
        let n = members.len();
        let what = if choice { "choices" } else { "points" };
        if lo < hi {
            format!("{}: {} to {} over {n} {what}", h.label, pct(lo), pct(hi))
        } else {
            // The same everywhere (a kill no point of the range can make): no
            // headline. The first mean that moves is one, with the flat chance said.
            match moving_mean(members) {
                Some((name, a, b)) => format!(
                    "{name}: {} to {} over {n} {what} ({} {} at every one)",
                    crate::text::fixed(a, 2),
                    crate::text::fixed(b, 2),
                    h.label,
                    pct(lo)
                ),
                None => format!("{}: {} at every one of {n} {what}", h.label, pct(lo)),
            }
        }
    }
}

/// "cannot happen" or "is certain" where the rules fix a headline: its exact value is 0
/// or 1 by its fraction (not a float that rounds there).
fn fixed_by_rules(h: &rollsim_core::results::HeadlineResult) -> Option<&'static str> {
    let f = h.exact_fraction.as_ref().filter(|f| f.is_whole())?;
    match f.to_f64() {
        0.0 => Some("cannot happen"),
        1.0 => Some("is certain"),
        _ => None,
    }
}

/// The first numeric metric of a scenario that can take more than one value, with its
/// mean (exact where known).
fn varying_mean(r: &ScenarioResult) -> Option<(&rollsim_core::results::MetricResult, f64)> {
    r.metrics.iter().filter(|m| m.numeric).find_map(|m| {
        let can = m
            .rows
            .iter()
            .filter(|x| x.exact.map_or(x.count > 0, |e| e > 0.0))
            .count();
        (can > 1).then_some((m, m.exact_mean.or(m.mean)?))
    })
}

/// The first numeric metric whose mean differs between a group's members: its name and
/// its mean at the first and the last member (exact where known).
fn moving_mean(members: &[&ScenarioResult]) -> Option<(String, f64, f64)> {
    let first = members.first()?;
    first.metrics.iter().filter(|m| m.numeric).find_map(|m| {
        let means: Vec<f64> = members
            .iter()
            .map(|r| {
                r.metrics
                    .iter()
                    .find(|x| x.name == m.name)
                    .and_then(|x| x.exact_mean.or(x.mean))
            })
            .collect::<Option<_>>()?;
        let (a, b) = (*means.first()?, *means.last()?);
        means
            .iter()
            .any(|x| (x - a).abs() > 1e-12)
            .then(|| (format!("mean {}", m.name), a, b))
    })
}

pub fn html(root: &Path, sections: &[Section]) -> String {
    let mut s = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>rollsim report gallery</title>\n<style>\
         body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}\
         table{border-collapse:collapse;margin:.5em 0 1.5em;width:100%}\
         td,th{border:1px solid #ccc;padding:.25em .5em;font-size:.88em;text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}\
         nav a{margin-right:1em}h2{border-bottom:2px solid #4c72b0;padding-bottom:.2em;margin-top:2em}\
         .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:1em}\
         .card{border:1px solid #ddd;border-radius:4px;padding:.6em}.card h3{font-size:1em;margin:0 0 .3em}\
         .card p{font-size:.82em;margin:.3em 0}.card img{width:100%;height:auto;border:1px solid #eee}\
         .desc{color:#555}.head{font-weight:bold}\
         </style></head><body>\n<h1>rollsim report gallery</h1>\n\
         <p>Every shipped config, every scenario, from plain <code>rollsim</code>. First every headline (Monte Carlo with its 95% \
         confidence interval, and the exact value), then one card per scenario with its headline chart: bars are Monte Carlo with \
         95% intervals, diamonds or lines exact values. A profile or decision table is one card. Charts and tables sit beside this \
         page and are linked, not embedded.</p>\n<nav>",
    );
    for sec in sections {
        let _ = write!(
            s,
            "<a href=\"#{}\">{}</a>",
            escape(&sec.stem),
            escape(&sec.stem)
        );
    }
    s.push_str("</nav>\n<h2 id=\"headlines\">Headlines</h2>\n<table><tr><th>config</th><th>scenario</th><th>headline</th><th>Monte Carlo</th><th>95% CI</th><th>exact</th></tr>\n");
    let all: Vec<(&Section, Vec<Entry>)> = sections.iter().map(|sec| (sec, entries(sec))).collect();
    for (sec, es) in &all {
        for e in es {
            headline_row(&mut s, sec, e);
        }
    }
    s.push_str("</table>\n");
    for (sec, es) in &all {
        html_section(&mut s, root, sec, es);
    }
    s.push_str("</body></html>\n");
    s
}

/// One scenario's row of the headline table.
fn headline_row(s: &mut String, sec: &Section, e: &Entry) {
    let h = &e.members[0].headline;
    let (mc, ci, exact) = if e.members.len() == 1 {
        (
            pct(h.probability),
            format!("{} .. {}", pct(h.ci_low), pct(h.ci_high)),
            h.exact.map(pct).unwrap_or_else(|| "-".into()),
        )
    } else {
        (
            e.headline.split(": ").nth(1).unwrap_or("").to_string(),
            String::new(),
            String::new(),
        )
    };
    let _ = writeln!(
        s,
        "<tr><td>{}</td><td><a href=\"#{}-{}\">{}</a></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
        escape(&sec.stem),
        escape(&sec.stem),
        escape(&e.folder),
        escape(&e.title),
        escape(&h.label),
        escape(&mc),
        escape(&ci),
        escape(&exact)
    );
}

/// One config's heading, its tables and its cards.
fn html_section(s: &mut String, root: &Path, sec: &Section, es: &[Entry]) {
    let _ = writeln!(
        s,
        "<h2 id=\"{}\">{} <small>({})</small></h2>",
        escape(&sec.stem),
        escape(if sec.title.is_empty() {
            &sec.stem
        } else {
            &sec.title
        }),
        escape(&sec.system)
    );
    let mut tables = Vec::new();
    let mut names: Vec<String> = [
        "headline.csv",
        "distribution.csv",
        "summary.csv",
        "decisions.csv",
        "distribution.parquet",
        "summary.parquet",
    ]
    .iter()
    .map(|t| t.to_string())
    .collect();
    if let Ok(d) = std::fs::read_dir(&sec.dir) {
        let mut profiles: Vec<String> = d
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| {
                (f.starts_with("profile-") || f.starts_with("decision-")) && f.ends_with(".csv")
            })
            .collect();
        profiles.sort();
        names.extend(profiles);
    }
    for t in &names {
        if sec.dir.join(t).exists() {
            tables.push(format!(
                "<a href=\"{}\">{t}</a>",
                escape(&rel(root, &sec.dir.join(t)))
            ));
        }
    }
    let _ = writeln!(s, "<p>Tables: {}</p>", tables.join(" · "));
    s.push_str("<div class=\"cards\">\n");
    if let Some((m, files)) = &sec.matrix {
        let _ = write!(
            s,
            "<div class=\"card\"><h3>Matchup matrix: {}</h3><p class=\"desc\">{}, every attacker against every defender</p>",
            escape(&super::plot::title::words(&m.scenario)),
            escape(&m.what)
        );
        html_files(s, root, files, "matchup matrix");
    }
    if let Some((r, files)) = &sec.roster {
        let _ = write!(
            s,
            "<div class=\"card\"><h3>Roster: {}</h3><p class=\"desc\">{}</p>",
            escape(&super::plot::title::words(&r.matrix.scenario)),
            escape(&roster_line(r))
        );
        html_files(s, root, files, "roster");
    }
    for e in es {
        html_card(s, root, sec, e);
    }
    s.push_str("</div>\n");
}

/// One scenario's card: its headline, chart and the links to its other charts.
fn html_card(s: &mut String, root: &Path, sec: &Section, e: &Entry) {
    let dir = sec.dir.join(&e.folder);
    let _ = write!(
        s,
        "<div class=\"card\" id=\"{}-{}\"><h3>{}</h3><p class=\"desc\">{}</p><p class=\"head\">{}</p>",
        escape(&sec.stem),
        escape(&e.folder),
        escape(&e.title),
        escape(&e.description),
        escape(&e.headline)
    );
    if let Some(c) = &e.chart {
        let r = escape(&rel(root, &dir.join(c)));
        let _ = write!(
            s,
            "<a href=\"{r}\"><img loading=\"lazy\" width=\"1100\" height=\"650\" src=\"{r}\" alt=\"{}\"></a>",
            escape(&e.title)
        );
    }
    if e.charts.len() > 1 {
        let links: Vec<String> = e
            .charts
            .iter()
            .map(|f| {
                format!(
                    "<a href=\"{}\">{}</a>",
                    escape(&rel(root, &dir.join(f))),
                    escape(&f.trim_end_matches(".png").replace('_', " "))
                )
            })
            .collect();
        let _ = write!(s, "<p>Charts: {}</p>", links.join(" · "));
    }
    s.push_str("</div>\n");
}

/// Write `index.md` and `index.html` into `root`.
pub fn write_index(root: &Path, sections: &[Section]) -> Result<Vec<PathBuf>, WriteError> {
    let md = root.join("index.md");
    let text = markdown(root, sections);
    atomic(&md, |w| {
        w.write_all(text.as_bytes())
            .map_err(|e| WriteError::io(&md, e))
    })?;
    let page = root.join("index.html");
    let text = html(root, sections);
    atomic(&page, |w| {
        w.write_all(text.as_bytes())
            .map_err(|e| WriteError::io(&page, e))
    })?;
    Ok(vec![md, page])
}

/// A roster in one sentence: the strongest unit, what a perfect player picks, what it
/// never picks, and how cyclic the units are.
fn roster_line(r: &Roster) -> String {
    let best = r
        .units
        .iter()
        .max_by(|a, b| a.elo.total_cmp(&b.elo))
        .map(|u| u.name.clone())
        .unwrap_or_default();
    let mut picked: Vec<&rollsim_core::balance::roster::UnitRow> =
        r.units.iter().filter(|u| u.weight >= 1e-9).collect();
    picked.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    let mix = picked
        .iter()
        .map(|u| format!("{} {}", u.name, crate::text::percent(u.weight, 0)))
        .collect::<Vec<_>>()
        .join(", ");
    let never = r.units.len() - picked.len();
    format!(
        "Strongest: {best}. A perfect player picks {mix}{}; cyclic share {}.",
        if never > 0 {
            format!(" and never the other {never}")
        } else {
            String::new()
        },
        crate::text::percent(r.cyclic, 0)
    )
}

/// A card's files in Markdown: each chart shown, each table linked.
fn md_files(s: &mut String, root: &Path, files: &[PathBuf], alt: &str) {
    for f in files {
        let r = rel(root, f);
        if r.ends_with(".png") {
            let _ = writeln!(s, "![{alt}]({r})\n");
        } else {
            let _ = writeln!(
                s,
                "- [{}]({r})",
                f.file_name().unwrap_or_default().to_string_lossy()
            );
        }
    }
    s.push('\n');
}

/// A card's files in HTML, closing the card: each chart shown, each table linked.
fn html_files(s: &mut String, root: &Path, files: &[PathBuf], alt: &str) {
    for f in files {
        let r = escape(&rel(root, f));
        if f.extension().is_some_and(|x| x == "png") {
            let _ = write!(
                s,
                "<a href=\"{r}\"><img loading=\"lazy\" src=\"{r}\" alt=\"{alt}\"></a>"
            );
        } else {
            let _ = write!(
                s,
                " <a href=\"{r}\">{}</a>",
                escape(&f.file_name().unwrap_or_default().to_string_lossy())
            );
        }
    }
    s.push_str("</div>\n");
}
