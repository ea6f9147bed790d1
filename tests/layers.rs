//! Issues #11 and #22: what a game system is lives in its folder, the core crate depends
//! on nothing heavy, and the modules import one way. The imports are read as paths
//! (`use` trees expanded, `super::` resolved, test modules left out), not as substrings,
//! and the module graph must have no circle.

use crate::util::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

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
    out.sort();
    out
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
}

/// System names that are also ordinary words of the code base.
const COMMON_WORDS: &[&str] = &["dice"];

#[test]
fn no_system_is_named_outside_its_folder() {
    let systems = root().join("core/src/systems");
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
    let files = sources(&root().join("src"))
        .into_iter()
        .chain(sources(&root().join("core/src")));
    for f in files {
        if f.starts_with(&systems) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            // "dice" is also a word every layer uses: for it, only a path into its
            // folder or the string a config writes names the system.
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
        "system names outside core/src/systems:\n{}",
        hits.join("\n")
    );
}

/// What the core crate must never depend on (issue #22): the front ends' heavy parts.
const BANNED_IN_CORE: &[&str] = &[
    "polars",
    "parquet",
    "plotters",
    "image",
    "indicatif",
    "ctrlc",
    "libc",
];

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// The packages `cargo tree -p PACKAGE -e normal` lists (names only).
fn tree(package: &str, features: &[&str]) -> BTreeSet<String> {
    let mut c = cargo();
    c.args([
        "tree",
        "--offline",
        "-p",
        package,
        "-e",
        "normal",
        "--prefix",
        "none",
    ]);
    c.args(features);
    let out = c.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A package is banned when its name is a banned one or starts with it and a dash
/// (`polars-core`), so `imagine` would not count but `image-webp` would.
fn banned(packages: &BTreeSet<String>) -> Vec<&String> {
    packages
        .iter()
        .filter(|p| {
            BANNED_IN_CORE
                .iter()
                .any(|b| *p == b || p.starts_with(&format!("{b}-")))
        })
        .collect()
}

#[test]
fn the_core_depends_on_nothing_heavy() {
    let core = tree("rollsim-core", &[]);
    assert!(core.contains("rand") && core.contains("toml"), "{core:?}");
    assert_eq!(banned(&core), Vec::<&String>::new(), "{core:?}");
    // Without its one optional feature it runs on the caller's thread alone: no rayon,
    // and nothing that rules out a WASM build later (no OS randomness).
    let bare = tree("rollsim-core", &["--no-default-features"]);
    for not in ["rayon", "getrandom"] {
        assert!(!bare.contains(not), "{not} in {bare:?}");
    }
    // The check itself can fail: it finds each banned crate the CLI does use.
    let cli = tree("rollsim", &[]);
    let found = banned(&cli);
    for krate in [
        "polars-core",
        "polars-lazy",
        "plotters",
        "image",
        "indicatif",
        "ctrlc",
        "libc",
    ] {
        assert!(
            found.iter().any(|p| *p == krate),
            "{krate} not found in {cli:?}"
        );
    }
}

#[test]
fn the_crate_graph_is_a_core_under_a_cli() {
    let out = cargo()
        .args([
            "metadata",
            "--offline",
            "--format-version",
            "1",
            "--no-deps",
        ])
        .output()
        .expect("cargo runs");
    assert!(out.status.success());
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let deps = |name: &str| -> Vec<String> {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no package {name}"))["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(deps("rollsim").contains(&"rollsim-core".to_string()));
    assert!(!deps("rollsim-core")
        .iter()
        .any(|d| d.starts_with("rollsim")));
}

/// A module's path from its file: `core/src/balance/compare.rs` -> `balance::compare`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without comments, string literals and test modules.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '\'' => {
                // A char literal such as '"' or '{' (a lifetime has no closing quote).
                let rest: String = chars.clone().take(3).collect();
                if let Some(end) = rest.find('\'') {
                    if end > 0 {
                        for _ in 0..=end {
                            chars.next();
                        }
                        continue;
                    }
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Expand a `use` tree (`crate::{a, b::{c, d}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_string()];
    };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap()];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.trim_end_matches("::").to_string()
            } else {
                format!("{prefix}{p}")
            }
        })
        .collect()
}

/// Every path a module names, as absolute segments within its crate (`crate::`,
/// `super::` and `self::` resolved); other crates' paths keep their crate's name.
fn referenced(module: &[String], code: &str) -> Vec<Vec<String>> {
    let mut paths: Vec<String> = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        let after = &rest[i + 4..];
        let end = after.find(';').unwrap_or(after.len());
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            paths.extend(expand(&after[..end]));
        }
        rest = &after[end.min(after.len())..];
    }
    // Paths written inline (`crate::text::plural(...)`).
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if code[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        {
            continue;
        }
        let p: String = code[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        paths.push(p);
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
            let mut here: Vec<String> = module.to_vec();
            let mut it = segs.iter().peekable();
            match it.peek().copied() {
                Some(&"crate") => {
                    here.clear();
                    it.next();
                }
                Some(&"super") => {
                    while it.peek() == Some(&&"super") {
                        here.pop();
                        it.next();
                    }
                }
                Some(&"self") => {
                    it.next();
                }
                _ => return None,
            }
            here.extend(it.map(|s| s.to_string()));
            (!here.is_empty()).then_some(here)
        })
        .collect()
}

/// A crate's module graph: module -> the modules it uses. Edges between a module and
/// its own ancestors or descendants are left out (a `mod.rs` declares its children and
/// they read what it defines): the rule is about modules beside each other.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = sources(src);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut g = BTreeMap::new();
    for f in &files {
        let m = module_of(src, f);
        let text = code(&std::fs::read_to_string(f).unwrap());
        let mut to = BTreeSet::new();
        for p in referenced(&m, &text) {
            // The longest module the path goes through.
            let Some(target) = (1..=p.len())
                .rev()
                .map(|n| p[..n].to_vec())
                .find(|x| modules.contains(x))
            else {
                continue;
            };
            if target.starts_with(&m) || m.starts_with(&target) {
                continue;
            }
            to.insert(target);
        }
        g.insert(m, to);
    }
    g
}

/// The circles of a graph: its strongly connected parts of more than one module.
fn circles(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    let reach = |from: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for n in g.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    };
    let mut out = BTreeSet::new();
    for m in g.keys() {
        let r = reach(m);
        if r.contains(m) {
            let mut part: Vec<String> = g
                .keys()
                .filter(|n| r.contains(*n) && reach(n).contains(m))
                .map(|n| n.join("::"))
                .collect();
            part.sort();
            out.insert(part);
        }
    }
    out.into_iter().collect()
}

fn edges(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<(String, String)> {
    g.iter()
        .flat_map(|(a, bs)| bs.iter().map(move |b| (a.join("::"), b.join("::"))))
        .collect()
}

/// Whether module `m` (a `::` path) is `layer` or inside it.
fn within(m: &str, layer: &str) -> bool {
    m == layer || m.starts_with(&format!("{layer}::"))
}

#[test]
fn the_module_graph_has_no_circle() {
    for src in ["core/src", "src"] {
        let g = graph(&root().join(src));
        assert!(g.len() > 10, "{src}: {} modules", g.len());
        assert_eq!(circles(&g), Vec::<Vec<String>>::new(), "{src}");
    }
}

#[test]
fn the_reader_finds_circles_and_expands_use_trees() {
    // The checks above can fail: a made-up circle is found, and a use tree's parts and
    // `super::` are read as the compiler would.
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    g.insert(m("d"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&g), vec![vec!["a", "b", "c"]]);
    let paths = referenced(
        &m("systems::rush::play"),
        "use crate::{dice::{Pool, Rng}, exact};\nuse super::rules::Side;\nfn f() { crate::text::plural(1, \"a\", \"b\"); }",
    );
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "dice::Pool",
            "dice::Rng",
            "exact",
            "systems::rush::rules::Side",
            "text::plural",
            "systems::rush::rules::Side"
        ]
    );
}

#[test]
fn layers_import_one_way() {
    // (module, layers it must not use): the core's loader sits above the systems and the
    // toolkit below them; results know nothing of balance; the engine nothing of games.
    let core: &[(&str, &[&str])] = &[
        (
            "config",
            &["systems", "document", "balance", "run", "results", "edit"],
        ),
        (
            "systems",
            &["document", "balance", "run", "results", "edit"],
        ),
        ("results", &["balance", "run", "document", "systems"]),
        ("sim", &["systems", "balance", "results", "document"]),
        ("run", &["balance", "systems", "document"]),
        ("document", &["balance", "run", "results"]),
        ("model", &["systems", "config", "document", "balance"]),
        ("kernels", &["systems", "model", "sim", "balance"]),
        ("pmf", &["systems", "model", "sim", "balance"]),
    ];
    let cli: &[(&str, &[&str])] = &[
        ("report", &["app", "balance", "progress"]),
        ("progress", &["app", "report"]),
        ("config", &["app", "report"]),
        ("error", &["app"]),
    ];
    let mut bad = Vec::new();
    for (src, rules) in [("core/src", core), ("src", cli)] {
        for (a, b) in edges(&graph(&root().join(src))) {
            for (layer, banned) in rules {
                if within(&a, layer) && banned.iter().any(|x| within(&b, x)) {
                    bad.push(format!("{src}: {a} uses {b}"));
                }
            }
        }
    }
    // Only the binary reaches `app`; the core never names the CLI.
    for f in sources(&root().join("core/src")) {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        if text.contains("rollsim::") {
            bad.push(format!("{} names the CLI crate", f.display()));
        }
    }
    // Each table crate is named in its own files only: a path that starts with the
    // crate (`polars_io::`, `::polars_io::`, not a module of ours of that name), or a
    // `use` of the crate itself (`use polars_io as pio;`).
    let names_crate = |text: &str, krate: &str| {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let path = text.match_indices(&format!("{krate}::")).any(|(i, _)| {
            let before = &text[..i];
            match before.strip_suffix("::") {
                Some(rest) => !rest.ends_with(|c: char| ident(c) || c == '>' || c == '}'),
                None => !before.ends_with(ident),
            }
        });
        let used = [" ", ";"]
            .iter()
            .any(|end| text.contains(&format!("use {krate}{end}")));
        path || used
    };
    for f in sources(&root().join("src"))
        .into_iter()
        .chain(sources(&root().join("python/src")))
    {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        // polars is the table layer: frames and their operations in the table file,
        // its writers in the exporters' files.
        for (krate, homes) in [
            (
                "polars",
                &["table.rs", "csv.rs", "json.rs", "parquet.rs", "arrow.rs"][..],
            ),
            ("polars_io", &["csv.rs", "json.rs", "parquet.rs"]),
            ("polars_arrow", &["arrow.rs"]),
        ] {
            // `rollsim::tables` hands DataFrames to the library's callers.
            let home = homes
                .iter()
                .any(|n| f.ends_with(Path::new("report").join(n)))
                || (krate == "polars" && f.ends_with("src/tables.rs"));
            if names_crate(&text, krate) && !home {
                bad.push(format!("{} uses {krate} outside its exporter", f.display()));
            }
        }
    }
    // Nothing reads where the source tree was built: an installed binary has no tree.
    for f in sources(&root().join("src"))
        .into_iter()
        .chain(sources(&root().join("core/src")))
    {
        let text = std::fs::read_to_string(&f).unwrap();
        if text.contains("CARGO_MANIFEST_DIR") {
            bad.push(format!("{} reads CARGO_MANIFEST_DIR", f.display()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_core_reads_no_file_clock_environment_or_global() {
    let mut bad = Vec::new();
    for f in sources(&root().join("core/src")) {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for banned in [
            "std::fs",
            "std::env",
            "env!(",
            "Instant",
            "SystemTime",
            "static mut",
            "OnceLock",
            "LazyLock",
            "thread_local!",
            "Mutex",
            "Box::leak",
            "AtomicBool",
        ] {
            // The cancel token is the one atomic, and it is a value passed in.
            if banned == "AtomicBool" && f.ends_with("cancel.rs") {
                continue;
            }
            // A shard's record of its items is a value the command is handed (a
            // `Share`), not a global: its lock lets the matrix's threads share it.
            if banned == "Mutex" && f.ends_with("balance/share.rs") {
                continue;
            }
            // A value made on first use, a cell of the value that needs it (a compiled
            // roll's Monte Carlo tables, an attack's re-roll masks, a scenario's whole-
            // number fractions), not a global: the one `Lazy` every such value holds.
            if banned == "OnceLock" && f.ends_with("core/src/lazy.rs") {
                continue;
            }
            // Likewise a command's memo of the runs it made (a `Memo` in its `Hooks`).
            if banned == "Mutex" && f.ends_with("sim/memo.rs") {
                continue;
            }
            if text.contains(banned) {
                bad.push(format!("{} uses {banned}", f.display()));
            }
        }
        for line in text.lines() {
            let l = line.trim_start();
            // A `static` that is not a plain table of constants.
            if (l.starts_with("static ")
                || l.starts_with("pub static ")
                || l.starts_with("pub(crate) static "))
                && (l.contains("Atomic") || l.contains("Mutex") || l.contains("Cell"))
            {
                bad.push(format!("{}: {l}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_cli_keeps_no_switch_or_flag_in_a_global() {
    // The stop flag, the progress batch and the SVG switch were globals: each is now a
    // value a command is handed (Cancel, Bars, Charts).
    let mut bad = Vec::new();
    for f in sources(&root().join("src")) {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        for line in text.lines() {
            let l = line.trim_start();
            let is_static = l.starts_with("static ") || l.starts_with("pub static ");
            if is_static && (l.contains("AtomicBool") || l.contains("Mutex")) {
                bad.push(format!("{}: {l}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A newcomer reads a file at a time: the dice language is a compiler split by stage (the
/// parser, the lowering, the sampler, the exact engine, the multiset pass), each game's
/// rules a file per scenario kind. No file of ours is over 1,500 lines: the core, the
/// CLI, the tests, the benches, the Python package, the live page, the docs.
#[test]
fn no_source_file_is_over_1500_lines() {
    let ours = ["rs", "py", "js", "html", "md", "toml", "sh"];
    let listed = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .unwrap();
    let mut files: Vec<PathBuf> = String::from_utf8(listed.stdout)
        .unwrap()
        .split('\0')
        .filter(|f| ours.iter().any(|x| f.ends_with(&format!(".{x}"))))
        .map(|f| root().join(f))
        .collect();
    if files.is_empty() {
        // Not a git checkout (a source archive): the Rust sources still.
        files = sources(&root().join("core/src"));
        files.extend(sources(&root().join("src")));
        files.extend(sources(&root().join("tests")));
    }
    assert!(files.len() >= 150, "{} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > 1500).then(|| format!("{}: {lines} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The files of the `#[cfg(test)] mod NAME;` modules `file` declares: tests, in a file
/// of their own.
fn test_modules(file: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // A module's own folder: beside a `mod.rs` or `lib.rs`, else named as the file.
    let dir = match file.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs" | "lib.rs" | "main.rs") => file.parent().unwrap().to_path_buf(),
        _ => file.with_extension(""),
    };
    lines
        .windows(2)
        .filter(|w| w[0].trim() == "#[cfg(test)]")
        .filter_map(|w| {
            let name = w[1].trim().strip_prefix("mod ")?.strip_suffix(';')?;
            [
                dir.join(format!("{name}.rs")),
                dir.join(name).join("mod.rs"),
            ]
            .into_iter()
            .find(|p| p.exists())
        })
        .collect()
}

/// Each function of ours that is not a test, with its length in lines: from its `fn`
/// line to the closing brace at its indent (rustfmt's layout), outside `#[cfg(test)]`
/// modules.
fn functions(file: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i < end {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn");
        let item = at.is_some_and(|k| {
            words[..k]
                .iter()
                .all(|w| w.starts_with("pub") || ["const", "async", "unsafe", "extern"].contains(w))
        });
        if let (true, Some(k)) = (item, at) {
            let name = words
                .get(k + 1)
                .map_or("", |w| w.split(['(', '<']).next().unwrap_or(""));
            // The signature ends at a `{` (a body) or a `;` (a trait's declaration).
            let mut j = i;
            while j < end
                && !lines[j].trim_end().ends_with('{')
                && !lines[j].trim_end().ends_with(';')
            {
                j += 1;
            }
            if j < end && lines[j].trim_end().ends_with('{') {
                let close = " ".repeat(indent) + "}";
                let last = (j + 1..lines.len())
                    .find(|&m| {
                        lines[m].starts_with(&close)
                            && lines[m].len() - lines[m].trim_start().len() == indent
                    })
                    .unwrap_or(lines.len() - 1);
                out.push((format!("{}:{} {name}", file.display(), i + 1), last - i + 1));
            }
        }
        i += 1;
    }
    out
}

/// A change lands in a function a newcomer reads whole (issue #72): none over 150 lines,
/// at most 10 over 100, in the core, the command line and the Python package.
#[test]
fn no_function_is_over_150_lines_and_few_over_100() {
    let mut all = Vec::new();
    for dir in ["core/src", "src", "python/src"] {
        let files = sources(&root().join(dir));
        let tests: Vec<PathBuf> = files.iter().flat_map(|f| test_modules(f)).collect();
        for f in files.iter().filter(|f| !tests.contains(f)) {
            all.extend(functions(f));
        }
    }
    assert!(all.len() > 1000, "{} functions read", all.len());
    let over = |n: usize| -> Vec<String> {
        all.iter()
            .filter(|(_, len)| *len > n)
            .map(|(name, len)| format!("{name}: {len} lines"))
            .collect()
    };
    assert!(
        over(150).is_empty(),
        "over 150 lines:\n{}",
        over(150).join("\n")
    );
    let long = over(100);
    assert!(
        long.len() <= 10,
        "{} over 100 lines:\n{}",
        long.len(),
        long.join("\n")
    );
}
