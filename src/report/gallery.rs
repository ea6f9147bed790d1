//! The report gallery: `reports/index.md` and a self-contained `reports/index.html`
//! linking every table and chart the default run wrote, with one matchup matrix per
//! config. The HTML embeds the matrices and each scenario's first chart (so it reads
//! offline on its own) and links the rest, which sit beside it.

use super::write::{atomic, WriteError};
use super::ScenarioResult;
use crate::report::analysis::Matrix;
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
    format!("{:.2}%", p * 100.0)
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
            for f in files {
                let r = rel(root, f);
                if r.ends_with(".png") {
                    let _ = writeln!(s, "![matrix]({r})\n");
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

/// Standard base64 (RFC 4648) for data URIs.
pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if c.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

fn embed(p: &Path, alt: &str) -> String {
    match std::fs::read(p) {
        Ok(b) => format!(
            "<img alt=\"{}\" src=\"data:image/png;base64,{}\">",
            escape(alt),
            base64(&b)
        ),
        Err(_) => String::new(),
    }
}

pub fn html(root: &Path, sections: &[Section]) -> String {
    let mut s = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rollsim report gallery</title>\n<style>\
         body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;max-width:1180px;margin:2em auto;padding:0 1em;color:#222}\
         img{max-width:100%;border:1px solid #ddd;margin:.4em 0}table{border-collapse:collapse;margin:.5em 0 1.5em}\
         td,th{border:1px solid #ccc;padding:.25em .5em;font-size:.9em}td.n{text-align:right}\
         nav a{margin-right:1em}details{margin:.3em 0}h2{border-bottom:2px solid #4c72b0;padding-bottom:.2em;margin-top:2em}\
         </style></head><body>\n<h1>rollsim report gallery</h1>\n<p>Every shipped config, every scenario, from plain <code>rollsim</code>. \
         Bars are Monte Carlo with 95% confidence intervals, diamonds or lines exact values. Matrices and each scenario's first chart are embedded; \
         the other charts and the tables are linked (they sit beside this file).</p>\n<nav>",
    );
    for sec in sections {
        let _ = write!(
            s,
            "<a href=\"#{}\">{}</a>",
            escape(&sec.stem),
            escape(&sec.stem)
        );
    }
    s.push_str("</nav>\n");
    for sec in sections {
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
        for t in [
            "distribution.csv",
            "summary.csv",
            "decisions.csv",
            "distribution.parquet",
            "summary.parquet",
        ] {
            if sec.dir.join(t).exists() {
                tables.push(format!(
                    "<a href=\"{}\">{t}</a>",
                    escape(&rel(root, &sec.dir.join(t)))
                ));
            }
        }
        let _ = writeln!(s, "<p>Tables: {}</p>", tables.join(" · "));
        if let Some((m, files)) = &sec.matrix {
            let _ = writeln!(
                s,
                "<h3>Matchup matrix: {} ({})</h3>",
                escape(&m.scenario),
                escape(&m.what)
            );
            for f in files {
                if f.extension().is_some_and(|x| x == "png") {
                    s.push_str(&embed(f, "matchup matrix"));
                } else {
                    let _ = write!(
                        s,
                        " <a href=\"{}\">{}</a>",
                        escape(&rel(root, f)),
                        escape(&f.file_name().unwrap_or_default().to_string_lossy())
                    );
                }
            }
        }
        s.push_str("<h3>Scenarios</h3>\n<table><tr><th>scenario</th><th>headline</th><th>Monte Carlo</th><th>exact</th></tr>\n");
        for r in &sec.results {
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(&r.name),
                escape(&r.headline.label),
                pct(r.headline.probability),
                r.headline.exact.map(pct).unwrap_or_else(|| "-".into())
            );
        }
        s.push_str("</table>\n");
        let mut seen = Vec::new();
        for r in &sec.results {
            let (folder, files) = charts(&sec.dir, r);
            if seen.contains(&folder) || files.is_empty() {
                continue;
            }
            seen.push(folder.clone());
            let _ = writeln!(
                s,
                "<details><summary><b>{}</b>: {}</summary>",
                escape(&folder),
                escape(&r.description)
            );
            s.push_str(&embed(&sec.dir.join(&folder).join(&files[0]), &files[0]));
            let links: Vec<String> = files
                .iter()
                .map(|f| {
                    format!(
                        "<a href=\"{}\">{}</a>",
                        escape(&rel(root, &sec.dir.join(&folder).join(f))),
                        escape(f.trim_end_matches(".png"))
                    )
                })
                .collect();
            let _ = writeln!(s, "<p>All charts: {}</p></details>", links.join(" · "));
        }
    }
    s.push_str("</body></html>\n");
    s
}

/// Write `index.md` and `index.html` into `root`.
pub fn write(root: &Path, sections: &[Section]) -> Result<Vec<PathBuf>, WriteError> {
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

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
