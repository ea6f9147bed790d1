//! Issue #38: a newcomer's first hour. The README is a front door of at most 250 lines,
//! every page of `docs/` is reachable from it and every relative link in them resolves
//! (files and headings), the four games are written down, the project names nothing a
//! clone does not have, and the live page's curl examples answer against a real server.

use crate::util::{docs_pages, root, tempdir};
use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The lines of a Markdown text outside fenced code blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The targets of a Markdown text's inline links and images, outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        // Inline code spans hold examples, not links.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        for part in plain.split("](").skip(1) {
            if let Some(end) = part.find(')') {
                let target = part[..end].split_whitespace().next().unwrap_or("");
                out.push(target.to_string());
            }
        }
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`, ...).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text).filter(|l| l.starts_with('#')) {
        let s = slug(line.trim_start_matches('#'));
        let mut name = s.clone();
        let mut k = 1;
        while seen.contains(&name) {
            name = format!("{s}-{k}");
            k += 1;
        }
        seen.insert(name);
    }
    seen
}

/// Where a relative link of `from` points: the file, and the anchor if any.
fn resolve(from: &Path, target: &str) -> Option<(PathBuf, Option<String>)> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap().join(path)
    };
    Some((file, anchor))
}

#[test]
fn the_readme_is_a_front_door_of_at_most_250_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(n <= 250, "README.md has {n} lines");
    // The two commands and the worked example stand in it.
    assert!(readme.contains("cargo run --release"));
    assert!(readme.contains("cargo test --release"));
    assert!(readme.contains("slam-orc-vs-human-guard"));
}

#[test]
fn every_relative_link_of_the_readme_and_docs_resolves() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(docs_pages());
    let mut checked = 0;
    let mut bad = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for target in links(&text) {
            let Some((file, anchor)) = resolve(page, &target) else {
                continue;
            };
            checked += 1;
            if !file.exists() {
                bad.push(format!("{}: {target} (no such file)", page.display()));
                continue;
            }
            if let (Some(a), true) = (anchor, file.extension().is_some_and(|x| x == "md")) {
                let there = std::fs::read_to_string(&file).unwrap();
                if !anchors(&there).contains(&a) {
                    bad.push(format!("{}: {target} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
    assert!(checked > 50, "{checked} links");
}

#[test]
fn every_docs_page_is_reachable_from_the_readme() {
    let start = root().join("README.md").canonicalize().unwrap();
    let mut seen = BTreeSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    while let Some(page) = queue.pop_front() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            let Some((file, _)) = resolve(&page, &target) else {
                continue;
            };
            let Ok(file) = file.canonicalize() else {
                continue;
            };
            if file.extension().is_some_and(|x| x == "md") && seen.insert(file.clone()) {
                queue.push_back(file);
            }
        }
    }
    let missing: Vec<String> = docs_pages()
        .into_iter()
        .filter(|p| !seen.contains(&p.canonicalize().unwrap()))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "not reachable from README.md: {missing:?}"
    );
}

#[test]
fn the_four_games_are_written_down_in_docs_games() {
    for game in ["rush", "descent", "skirmish", "dozen"] {
        let page = root().join("docs/games").join(format!("{game}.md"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        // The rules, the readings with their keys, and the config.
        assert!(text.lines().count() > 100, "{game}.md is a stub");
        assert!(text.to_lowercase().contains("reading"), "{game}.md");
        assert!(text.contains("[rules]"), "{game}.md names no [rules] key");
        // Every reading a config can switch is named on its game's page.
        let path = root().join("configs").join(format!("{game}.toml"));
        let source =
            rollsim::balance::Source::parse(&std::fs::read_to_string(&path).unwrap(), &path, &[])
                .unwrap();
        for r in source.knobs().readings {
            assert!(
                text.contains(r.key),
                "{game}.md does not name the reading `{}`",
                r.key
            );
        }
    }
}

/// The words no file of the project may hold: the private sources' names. Built from
/// parts, so that this file does not hold them either.
fn forbidden(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let shared = ["shared", "/"].concat();
    if let Some(i) = lower.find(&shared) {
        return Some(lower[i.saturating_sub(30)..(i + 30).min(lower.len())].to_string());
    }
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(i) = lower[from..].find("seed") {
        let at = from + i + 4;
        let rest = &b[at..];
        let rest = rest.strip_prefix(b" ").unwrap_or(rest);
        if rest.len() >= 3
            && rest[0] == b'0'
            && rest[1].is_ascii_digit()
            && rest[2].is_ascii_digit()
        {
            return Some(lower[from + i..(at + 8).min(lower.len())].to_string());
        }
        from = at;
    }
    None
}

#[test]
fn no_file_of_the_project_names_a_private_source() {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git, to list the project's files");
    assert!(out.status.success());
    let mut checked = 0;
    let mut bad = Vec::new();
    for name in out.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let Ok(text) = std::fs::read_to_string(root().join(&name)) else {
            continue; // binary (an image) or gone from the work tree
        };
        checked += 1;
        if let Some(hit) = forbidden(&text) {
            bad.push(format!("{name}: …{hit}…"));
        }
    }
    assert!(checked > 100, "{checked} files");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The check itself finds what it must.
    assert!(forbidden(&["see ", "shared", "/RULES"].concat()).is_some());
    assert!(forbidden(&["the ", "seed", " 004 teams"].concat()).is_some());
    assert!(forbidden(&["Seed", "003 says"].concat()).is_some());
    assert!(forbidden("the fixed seed 2026").is_none());
}

/// The runnable lines of the live page's API reference: one-line `curl` commands in
/// `sh` blocks.
fn curl_examples() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/live-page.md")).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            in_sh = !in_sh && info.trim() == "sh";
            continue;
        }
        if in_sh && t.starts_with("curl ") {
            out.push(t.to_string());
        }
    }
    out
}

#[test]
fn the_live_page_api_examples_answer_against_a_real_server() {
    let examples = curl_examples();
    assert!(examples.len() >= 10, "{} curl examples", examples.len());
    let dir = tempdir();
    let configs = dir.path().join("configs");
    std::fs::create_dir(&configs).unwrap();
    for e in std::fs::read_dir(root().join("configs")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, configs.join(p.file_name().unwrap())).unwrap();
    }
    let server = crate::serve::Server::start(&configs);
    for line in &examples {
        let command = line
            .replace("127.0.0.1:8080", &server.addr)
            .replace("localhost:8080", &server.addr);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{command} -w '\\nHTTP-STATUS %{{http_code}}\\n'"))
            .current_dir(dir.path())
            .output()
            .expect("sh and curl (.ci/run installs curl)");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{line}: {stderr}");
        let status = stdout
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("HTTP-STATUS "))
            .unwrap_or_else(|| panic!("{line}: no status in {stdout}"));
        assert!(status.starts_with('2'), "{line}: HTTP {status}\n{stdout}");
        let body = stdout.split("HTTP-STATUS ").next().unwrap().trim();
        assert!(
            !body.is_empty() || line.contains("-I"),
            "{line}: an empty answer"
        );
        // A streamed answer's lines are JSON; none reports an error.
        if line.contains("/api/") {
            for l in body.lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("{line}: not JSON ({e}): {l}"));
                assert!(v.get("error").is_none(), "{line}: {l}");
            }
        }
    }
    // The save example wrote its new file beside the configs.
    assert!(
        std::fs::read_dir(&configs).unwrap().count()
            > std::fs::read_dir(root().join("configs")).unwrap().count(),
        "no /api/save example wrote a file"
    );
}
