//! Issue #11: what a game system is lives in its folder. Outside `src/systems/`, no source
//! file names a system, and the layers import one way.

use crate::util::root;
use std::path::{Path, PathBuf};

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
}

/// System names that are also ordinary words of the code base.
const COMMON_WORDS: &[&str] = &["dice"];

#[test]
fn no_system_is_named_outside_its_folder() {
    let systems = root().join("src/systems");
    let names: Vec<String> = std::fs::read_dir(&systems)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            p.is_dir()
                .then(|| p.file_name().unwrap().to_string_lossy().to_string())
        })
        .collect();
    assert!(names.len() >= 4, "{names:?}");
    let mut hits = Vec::new();
    for f in sources(&root().join("src")) {
        if f.starts_with(&systems) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            // "dice" is also a word every layer uses (and `crate::dice` the shared dice
            // code): for it, only a path into its folder or the string a config writes
            // names the system.
            let named = |n: &String| {
                if COMMON_WORDS.contains(&n.as_str()) {
                    line.contains(&format!("systems::{n}")) || line.contains(&format!("\"{n}\""))
                } else {
                    words(line).any(|w| w.eq_ignore_ascii_case(n))
                }
            };
            if names.iter().any(named) {
                hits.push(format!("{}:{}: {line}", f.display(), i + 1));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "system names outside src/systems:\n{}",
        hits.join("\n")
    );
}

#[test]
fn layers_import_one_way() {
    let src = root().join("src");
    let rules: &[(&str, &[&str])] = &[
        (
            "report",
            &["crate::balance", "crate::app", "crate::systems"],
        ),
        ("balance", &["crate::app"]),
        (
            "systems",
            &["crate::app", "crate::balance", "crate::report"],
        ),
        (
            "sim",
            &[
                "crate::app",
                "crate::balance",
                "crate::report",
                "crate::systems",
            ],
        ),
        ("config", &["crate::app", "crate::balance", "crate::report"]),
        ("engine.rs", &["crate::app", "crate::balance"]),
    ];
    let mut bad = Vec::new();
    for (dir, banned) in rules {
        let p = src.join(dir);
        let files = if p.is_dir() { sources(&p) } else { vec![p] };
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for b in *banned {
                if text.contains(b) {
                    bad.push(format!("{} uses {b}", f.display()));
                }
            }
        }
    }
    // polars stays in the table module and its exporters.
    for f in sources(&src) {
        let text = std::fs::read_to_string(&f).unwrap();
        let ok = ["frame.rs", "csv.rs", "json.rs", "parquet.rs"]
            .iter()
            .any(|n| f.ends_with(Path::new("report").join(n)));
        if text.contains("polars") && !ok {
            bad.push(format!("{} uses polars", f.display()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
