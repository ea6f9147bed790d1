//! Issue #71: every fenced block of README.md and docs/**/*.md is run or checked, and
//! the output a page shows is compared with what the command prints.
//!
//! Each page runs in a scratch folder of its own holding a copy of configs/, its blocks
//! in page order, so a file one block writes is there for the next. `rollsim` is the
//! test build (first on PATH), `cargo run --release --` is read as `rollsim`. A block's
//! role is in its fence's info string: the language, then role words. GitHub shows
//! only the language, so the role costs a reader nothing. A fence without an info string
//! fails, naming file:line.
//!
//! | info string | role |
//! |---|---|
//! | `sh` | each command line (`\` continues one) run with `sh`, stdout and stderr together; each exits 0. `rollsim serve` is started with `--port 0` and stopped by Ctrl-C at the page's end; `curl` lines go to it (127.0.0.1:8080 and localhost:8080 rewritten) |
//! | `sh exit=N` | as `sh`, its last command exits N |
//! | `sh refused` | as `sh`, for requests the server refuses: each answer holds an `error` (a 4xx, or an error line in a stream). tests/docs.rs runs the plain `sh` curls and wants none, so it leaves these out |
//! | `sh no-run=WHY covered-by=PATH[::FN],...` | not run; WHY is `cargo`, `install`, `long`, `cluster` or `hosts`; each PATH exists and holds `fn FN` or `def FN` |
//! | `text output` | an excerpt of the output of the nearest run block above (see `compare`) |
//! | `text file=PATH` | an excerpt of that file of the scratch folder, compared at the page's end |
//! | `text diagram`, `text sample` | not compared: a drawing or a synopsis; an example no command prints (a URL, what the page draws) |
//! | `toml file=NAME [exit=N]` | written to the scratch folder; `rollsim check NAME` exits N (default 0); its output is the output above |
//! | `toml in=configs/X.toml` | every line that is not blank or a comment is a line of that config, in order (comments and runs of spaces aside) |
//! | `toml fragment [check=configs/X.toml]` | parses as TOML; with `check`, put at the top of a copy of that config, which `rollsim check` accepts |
//! | `python`, `pycon` | run by python/tests/test_doc_blocks.py |
//!
//! A Markdown table right after a run block, or after one paragraph that says `prints`
//! and ends in `:` ("prints, among other tables:"), is an excerpt of that block's output
//! too, row by row. Blocks whose bare fence another test finds them by are in `KEPT` with that
//! test: cluster.md's plan scripts (tests/cluster.rs looks for ```` ```bash ````,
//! ```` ```sh ```` and ```` ```yaml ````).

use crate::util::root;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Blocks whose fence must stay bare: (page, language, a line of the block, the test
/// that compares it with what rollsim prints).
const KEPT: &[(&str, &str, &str, &str)] = &[
    (
        "docs/cluster.md",
        "bash",
        "as 4 shards on SLURM, then the merge.",
        "tests/cluster.rs::the_readme_shows_what_plan_prints_for_each_scheduler",
    ),
    (
        "docs/cluster.md",
        "sh",
        "as 4 shards on HyperQueue, then the merge.",
        "tests/cluster.rs::the_readme_shows_what_plan_prints_for_each_scheduler",
    ),
    (
        "docs/cluster.md",
        "yaml",
        "as 4 shards on Kubernetes, then the merge.",
        "tests/cluster.rs::the_readme_shows_what_plan_prints_for_each_scheduler",
    ),
];

const NO_RUN_REASONS: &[&str] = &["cargo", "install", "long", "cluster", "hosts"];

/// The path the scratch folder is shown as, and the server's address.
const SHOWN_ROOT: &str = "/home/you/rollsim";
const SHOWN_ADDR: &str = "127.0.0.1:8080";

struct Block {
    line: usize,
    lang: String,
    words: Vec<(String, Option<String>)>,
    body: String,
    /// A Markdown table of the prose right after the block (see the module's doc).
    table: Vec<String>,
}

impl Block {
    fn has(&self, word: &str) -> bool {
        self.words.iter().any(|(w, _)| w == word)
    }
    fn attr(&self, key: &str) -> Option<&str> {
        self.words
            .iter()
            .find(|(w, _)| w == key)
            .and_then(|(_, v)| v.as_deref())
    }
}

#[derive(Debug, PartialEq)]
enum Role {
    Run { exit: i32, refused: bool },
    NoRun { covered_by: Vec<String> },
    Output,
    File(String),
    NotCompared,
    TomlFile { name: String, exit: i32 },
    TomlIn(String),
    TomlFragment { check: Option<String> },
    Python,
    Kept(&'static str),
}

/// The pages: README.md and every page under docs/, as paths from the root.
fn pages() -> Vec<String> {
    std::iter::once("README.md".to_string())
        .chain(
            crate::util::docs_pages()
                .into_iter()
                .map(|p| p.strip_prefix(root()).unwrap().display().to_string()),
        )
        .collect()
}

/// The fenced blocks of a page; an untagged fence is an error naming file:line.
fn blocks(page: &str) -> Result<Vec<Block>, String> {
    let text = std::fs::read_to_string(root().join(page)).map_err(|e| format!("{page}: {e}"))?;
    parse_blocks(page, &text)
}

fn parse_blocks(page: &str, text: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let Some(info) = t.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let indent = lines[i].len() - t.len();
        let start = i + 1;
        let info = info.trim();
        if info.is_empty() {
            return Err(format!(
                "{page}:{start}: a fence without an info string: tag it (tests/doc_blocks.rs says how)"
            ));
        }
        let mut words = info.split_whitespace();
        let lang = words.next().unwrap().to_string();
        let words = words
            .map(|w| match w.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (w.to_string(), None),
            })
            .collect();
        let mut body = String::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != "```" {
            let l = lines[i];
            body.push_str(
                l.get(indent.min(l.len() - l.trim_start().len())..)
                    .unwrap_or(""),
            );
            body.push('\n');
            i += 1;
        }
        if i == lines.len() {
            return Err(format!("{page}:{start}: the fence is never closed"));
        }
        i += 1;
        out.push(Block {
            line: start,
            lang,
            words,
            body,
            table: table_after(&lines[i..]),
        });
    }
    Ok(out)
}

/// The Markdown table right after a block, or after one paragraph ending in `:`.
fn table_after(rest: &[&str]) -> Vec<String> {
    let mut k = 0;
    let blank = |k: usize| rest.get(k).is_some_and(|l| l.trim().is_empty());
    while blank(k) {
        k += 1;
    }
    if !rest.get(k).is_some_and(|l| l.starts_with('|')) {
        // One paragraph that says what the block prints, ending in ':', then the table.
        let mut last = "";
        let mut paragraph = String::new();
        while rest
            .get(k)
            .is_some_and(|l| !l.trim().is_empty() && !l.starts_with('|'))
        {
            last = rest[k];
            paragraph.push_str(last);
            if last.trim_start().starts_with("```") {
                return Vec::new();
            }
            k += 1;
        }
        if !last.trim_end().ends_with(':') || !paragraph.contains("prints") {
            return Vec::new();
        }
        while blank(k) {
            k += 1;
        }
    }
    rest[k.min(rest.len())..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.to_string())
        .collect()
}

/// A block's role from its info string, or why it has none.
fn role(page: &str, b: &Block) -> Result<Role, String> {
    let at = format!("{page}:{}", b.line);
    let known = |allowed: &[&str]| -> Result<(), String> {
        match b.words.iter().find(|(w, _)| !allowed.contains(&w.as_str())) {
            Some((w, _)) => Err(format!("{at}: `{}` takes no `{w}`", b.lang)),
            None => Ok(()),
        }
    };
    let exit = |b: &Block| -> Result<i32, String> {
        b.attr("exit")
            .map_or(Ok(0), |v| v.parse().map_err(|_| format!("{at}: exit={v}")))
    };
    if let Some(&(_, _, _, test)) = KEPT.iter().find(|(p, l, line, _)| {
        *p == page && *l == b.lang && b.words.is_empty() && b.body.contains(line)
    }) {
        return Ok(Role::Kept(test));
    }
    match b.lang.as_str() {
        "sh" | "bash" => {
            if let Some(why) = b.attr("no-run") {
                known(&["no-run", "covered-by"])?;
                if !NO_RUN_REASONS.contains(&why) {
                    return Err(format!(
                        "{at}: no-run={why}: give one of {NO_RUN_REASONS:?}"
                    ));
                }
                let by = b
                    .attr("covered-by")
                    .ok_or_else(|| format!("{at}: no-run needs covered-by=PATH::FN"))?;
                return Ok(Role::NoRun {
                    covered_by: by.split(',').map(String::from).collect(),
                });
            }
            known(&["exit", "refused"])?;
            Ok(Role::Run {
                exit: exit(b)?,
                refused: b.has("refused"),
            })
        }
        "text" => {
            if b.has("output") {
                known(&["output"])?;
                Ok(Role::Output)
            } else if let Some(f) = b.attr("file") {
                known(&["file"])?;
                Ok(Role::File(f.to_string()))
            } else if b.has("diagram") || b.has("sample") {
                known(&["diagram", "sample"])?;
                Ok(Role::NotCompared)
            } else {
                Err(format!(
                    "{at}: `text` needs a role: output, file=PATH, diagram or sample"
                ))
            }
        }
        "toml" => {
            if let Some(name) = b.attr("file") {
                known(&["file", "exit"])?;
                Ok(Role::TomlFile {
                    name: name.to_string(),
                    exit: exit(b)?,
                })
            } else if let Some(cfg) = b.attr("in") {
                known(&["in"])?;
                Ok(Role::TomlIn(cfg.to_string()))
            } else if b.has("fragment") {
                known(&["fragment", "check"])?;
                Ok(Role::TomlFragment {
                    check: b.attr("check").map(String::from),
                })
            } else {
                Err(format!(
                    "{at}: `toml` needs a role: file=NAME, in=CONFIG or fragment"
                ))
            }
        }
        "python" | "pycon" => {
            known(&[])?;
            Ok(Role::Python)
        }
        other => Err(format!(
            "{at}: no role for a `{other}` block (see tests/doc_blocks.rs)"
        )),
    }
}

/// `PATH::FN` names a test that exists: PATH exists and defines FN.
fn test_exists(target: &str) -> Result<(), String> {
    let (path, name) = match target.split_once("::") {
        Some((p, n)) => (p, Some(n)),
        None => (target, None),
    };
    let text = std::fs::read_to_string(root().join(path))
        .map_err(|e| format!("covered-by={target}: {path}: {e}"))?;
    match name {
        Some(n) if !text.contains(&format!("fn {n}(")) && !text.contains(&format!("def {n}(")) => {
            Err(format!("covered-by={target}: {path} has no test `{n}`"))
        }
        _ => Ok(()),
    }
}

/// The command lines of a `sh` block: `\` continuations joined, comments and blank lines
/// left out.
fn command_lines(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in body.lines() {
        if cur.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(head) => {
                cur.push_str(head);
                cur.push(' ');
            }
            None => {
                cur.push_str(line);
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `rollsim serve`, started by a page.
struct Server {
    child: Child,
    /// The line of the block that started it.
    line: usize,
    addr: String,
    out: BufReader<std::process::ChildStdout>,
}

/// A page being run: its scratch folder, the server it started, the output of its last
/// run block.
struct Page {
    name: String,
    dir: tempfile::TempDir,
    path: String,
    server: Option<Server>,
    last: Option<(usize, String)>,
    files: Vec<(usize, String, String)>,
    failures: Vec<String>,
    /// Blocks run, outputs compared, blocks not run.
    counts: [usize; 3],
    /// The line of the block being run.
    at: usize,
}

impl Page {
    fn new(name: &str) -> Page {
        let dir = crate::util::tempdir();
        let configs = dir.path().join("configs");
        std::fs::create_dir(&configs).unwrap();
        for e in std::fs::read_dir(root().join("configs")).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, configs.join(p.file_name().unwrap())).unwrap();
        }
        let bin = assert_cmd::cargo::cargo_bin("rollsim");
        let path = format!(
            "{}:{}",
            bin.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Page {
            name: name.to_string(),
            dir,
            path,
            server: None,
            last: None,
            files: Vec::new(),
            failures: Vec::new(),
            counts: [0; 3],
            at: 0,
        }
    }

    fn fail(&mut self, line: usize, what: impl std::fmt::Display) {
        self.failures.push(format!("{}:{line}: {what}", self.name));
    }

    /// The scratch folder and the server's address as the docs show them.
    fn normalise(&self, text: &str) -> String {
        let mut t = text.replace('\r', "");
        let real = self.dir.path().to_path_buf();
        let canon = real.canonicalize().unwrap_or_else(|_| real.clone());
        for p in [canon, real] {
            t = t.replace(&p.display().to_string(), SHOWN_ROOT);
        }
        if let Some(s) = &self.server {
            let port = s.addr.rsplit(':').next().unwrap();
            t = t
                .replace(&s.addr, SHOWN_ADDR)
                .replace(&format!("localhost:{port}"), "localhost:8080");
        }
        t.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
    }

    /// Run one command line; its exit code and output (stdout and stderr together).
    fn run(&mut self, line: &str) -> (Option<i32>, String) {
        let mut line = line.trim().to_string();
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"rollsim") && words.get(1) == Some(&"serve") {
            return self.serve(&line);
        }
        if let Some(s) = &self.server {
            let port = s.addr.rsplit(':').next().unwrap();
            line = line
                .replace(SHOWN_ADDR, &s.addr)
                .replace("localhost:8080", &format!("localhost:{port}"));
        } else if line.contains(":8080") {
            return (
                None,
                "no `rollsim serve` above on this page to send it to".into(),
            );
        }
        let mut c = Command::new("timeout");
        c.args(["600", "sh", "-c", &format!("{{ {line}\n}} 2>&1")])
            .current_dir(self.dir.path())
            .env("PATH", &self.path)
            .stdin(Stdio::null());
        for v in rollsim::app::scheduler::VARIABLES {
            c.env_remove(v);
        }
        let out = c.output().expect("sh");
        (out.status.code(), crate::util::text(&out.stdout))
    }

    /// Start `rollsim serve ...` with `--port 0`; its first line is its output.
    fn serve(&mut self, line: &str) -> (Option<i32>, String) {
        self.stop_server();
        let command = line.split(" #").next().unwrap();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
            .args(command.split_whitespace().skip(1))
            .args(["--port", "0"])
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rollsim serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let Some(addr) = first
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .map(String::from)
        else {
            let _ = child.kill();
            let _ = child.wait();
            return (None, first);
        };
        let line = self.at;
        self.server = Some(Server {
            child,
            line,
            addr,
            out,
        });
        (Some(0), first)
    }

    /// Ctrl-C to the page's server: it stops within 5 s, exit 0, saying so.
    fn stop_server(&mut self) {
        let Some(mut s) = self.server.take() else {
            return;
        };
        let line = s.line;
        unsafe { libc::kill(s.child.id() as i32, libc::SIGINT) };
        let start = Instant::now();
        let status = loop {
            if let Some(st) = s.child.try_wait().unwrap() {
                break Some(st);
            }
            if start.elapsed() > Duration::from_secs(5) {
                let _ = s.child.kill();
                let _ = s.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut rest = String::new();
        let _ = s.out.read_to_string(&mut rest);
        match status {
            Some(st) if st.success() && rest.contains("stopped") => {}
            other => self.fail(
                line,
                format!("`rollsim serve` on Ctrl-C: {other:?}, printed {rest:?}"),
            ),
        }
    }

    fn run_block(&mut self, b: &Block, exit: i32, refused: bool) {
        let lines = command_lines(&b.body);
        if lines.is_empty() {
            self.fail(b.line, "a `sh` block without a command");
        }
        let mut all = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            let line = match line.trim().strip_prefix("cargo run --release --") {
                Some(rest) => format!("rollsim{rest}"),
                None => line.trim().to_string(),
            };
            if line.starts_with("cargo ") {
                self.fail(
                    b.line,
                    format!("`{line}` is not run here: tag the block no-run"),
                );
                continue;
            }
            let line = &line;
            let (code, out) = self.run(line);
            let want = if k + 1 == lines.len() { exit } else { 0 };
            if code != Some(want) {
                self.fail(
                    b.line,
                    format!("`{line}` exited {code:?}, not {want}:\n{}", cut(&out)),
                );
            }
            if refused && !out.contains("\"error\"") {
                self.fail(
                    b.line,
                    format!("`{line}` (refused) answered:\n{}", cut(&out)),
                );
            }
            all.push(self.normalise(&out));
        }
        let out = all.join("\n");
        if !b.table.is_empty() {
            self.counts[1] += 1;
            let shown = b.table.join("\n");
            if let Err(e) = lines_excerpt(&shown, &out) {
                self.fail(
                    b.line,
                    format!("the table after the block: {e}\n--- output:\n{}", cut(&out)),
                );
            }
        }
        self.last = Some((b.line, out));
    }

    fn block(&mut self, b: &Block) {
        self.at = b.line;
        let role = match role(&self.name, b) {
            Ok(r) => r,
            Err(e) => {
                self.failures.push(e);
                return;
            }
        };
        match role {
            Role::Run { exit, refused } => {
                self.counts[0] += 1;
                self.run_block(b, exit, refused);
            }
            Role::NoRun { covered_by } => {
                self.counts[2] += 1;
                for t in covered_by {
                    if let Err(e) = test_exists(&t) {
                        self.fail(b.line, e);
                    }
                }
            }
            Role::Kept(test) => {
                if let Err(e) = test_exists(test) {
                    self.fail(b.line, e);
                }
            }
            Role::Output => {
                self.counts[1] += 1;
                match &self.last {
                    None => self.fail(b.line, "`text output` with no run block above it"),
                    Some((from, out)) => {
                        if let Err(e) = compare(&b.body, out) {
                            let from = *from;
                            let out = cut(out);
                            self.fail(
                                b.line,
                                format!("not what the block at line {from} prints: {e}\n--- output:\n{out}"),
                            );
                        }
                    }
                }
            }
            Role::File(path) => {
                self.counts[1] += 1;
                self.files.push((b.line, path, b.body.clone()));
            }
            Role::NotCompared | Role::Python => {}
            Role::TomlFile { name, exit } => {
                self.counts[0] += 1;
                std::fs::write(self.dir.path().join(&name), &b.body).unwrap();
                let (code, out) = self.run(&format!("rollsim check {name}"));
                if code != Some(exit) {
                    self.fail(
                        b.line,
                        format!("`rollsim check {name}` exited {code:?}, not {exit}:\n{out}"),
                    );
                }
                self.last = Some((b.line, self.normalise(&out)));
            }
            Role::TomlIn(cfg) => {
                self.counts[1] += 1;
                let text = std::fs::read_to_string(root().join(&cfg)).unwrap_or_default();
                let mut have = text.lines().map(toml_line);
                for l in b.body.lines().map(toml_line) {
                    if l.is_empty() {
                        continue;
                    }
                    if !have.any(|h| h == l) {
                        self.fail(b.line, format!("`{l}` is not in {cfg} (in this order)"));
                        break;
                    }
                }
            }
            Role::TomlFragment { check } => {
                if let Err(e) = b.body.parse::<toml::Table>() {
                    self.fail(b.line, format!("not TOML: {e}"));
                }
                if let Some(cfg) = check {
                    self.counts[0] += 1;
                    let text = std::fs::read_to_string(root().join(&cfg)).unwrap_or_default();
                    let name = format!("fragment-{}.toml", b.line);
                    std::fs::write(self.dir.path().join(&name), format!("{}\n{text}", b.body))
                        .unwrap();
                    let (code, out) = self.run(&format!("rollsim check {name}"));
                    if code != Some(0) {
                        self.fail(b.line, format!("at the top of {cfg}: {out}"));
                    }
                }
            }
        }
    }

    /// The page's end: the server stopped, the files shown compared.
    fn finish(mut self) -> Vec<String> {
        self.stop_server();
        for (line, path, shown) in std::mem::take(&mut self.files) {
            match std::fs::read_to_string(self.dir.path().join(&path)) {
                Ok(text) => {
                    let text = self.normalise(&text);
                    if let Err(e) = compare(&shown, &text) {
                        self.fail(
                            line,
                            format!("not what {path} holds: {e}\n--- {path}:\n{}", cut(&text)),
                        );
                    }
                }
                Err(e) => self.fail(line, format!("{path}: {e}")),
            }
        }
        let [run, compared, no_run] = self.counts;
        eprintln!(
            "{}: {run} blocks run, {compared} outputs compared, {no_run} not run",
            self.name
        );
        self.failures
    }
}

/// A line of TOML without its comment and with its runs of spaces made one.
fn toml_line(l: &str) -> String {
    let mut quoted = false;
    let end = l
        .char_indices()
        .find(|&(_, c)| {
            if c == '"' {
                quoted = !quoted;
            }
            c == '#' && !quoted
        })
        .map_or(l.len(), |(i, _)| i);
    l[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: &str) -> String {
    if s.len() <= 4000 {
        return s.to_string();
    }
    let mut end = 4000;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]", &s[..end], s.len() - end)
}

/// Run a page's blocks in order; every failure at once.
fn run_page(name: &str) {
    let start = Instant::now();
    let mut page = Page::new(name);
    match blocks(name) {
        Ok(bs) => {
            for b in &bs {
                page.block(b);
            }
        }
        Err(e) => page.failures.push(e),
    }
    let failures = page.finish();
    eprintln!("{name}: {:.1} s", start.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------
// Comparing what a page shows with what was printed.
//
// - A block that starts with `HTTP/`: an answer of `curl -i` among those printed, with
//   that status line, each header shown among its headers, and its body as below.
// - A block that starts with `{` or `[`: JSON values, each matching one printed value, in
//   order. `...` stands for any value, for any members of an object (without it an
//   object has exactly the keys shown), for any elements of an array, or for any text
//   inside a string; a number with decimals matches to the decimals shown.
// - Anything else: lines, each equal to a printed line, in order; a line `...` is only
//   a reminder that lines were left out, and `...` inside a line matches any text.
// ---------------------------------------------------------------------------------

fn compare(shown: &str, out: &str) -> Result<(), String> {
    let s = shown.trim_start();
    let first = s.lines().map(str::trim).find(|l| *l != "...").unwrap_or("");
    if s.starts_with("HTTP/") {
        http_excerpt(s, out)
    } else if first.starts_with('{') || first.starts_with('[') {
        json_excerpt(s, &json_values(out)?)
    } else {
        lines_excerpt(shown, out)
    }
}

fn line_matches(shown: &str, got: &str) -> bool {
    if !shown.contains("...") {
        return shown == got;
    }
    let parts: Vec<&str> = shown.split("...").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !got.starts_with(first) || got.len() < first.len() + last.len() || !got.ends_with(last) {
        return false;
    }
    let mut rest = &got[first.len()..got.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

fn lines_excerpt(shown: &str, out: &str) -> Result<(), String> {
    let got: Vec<&str> = out.lines().map(str::trim_end).collect();
    let mut at = 0;
    for s in shown.lines().map(str::trim_end) {
        if s.trim().is_empty() || s.trim() == "..." {
            continue;
        }
        match got[at..].iter().position(|g| line_matches(s, g)) {
            Some(i) => at += i + 1,
            None => {
                let anywhere = got.iter().any(|g| line_matches(s, g));
                return Err(format!(
                    "this line is not printed{}:\n{s}",
                    if anywhere { " in this order" } else { "" }
                ));
            }
        }
    }
    Ok(())
}

/// The answers of `curl -i` in an output: (status line, header lines, body).
fn answers(out: &str) -> Vec<(String, Vec<String>, String)> {
    let mut res = Vec::new();
    let lines: Vec<&str> = out.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("HTTP/") {
            i += 1;
            continue;
        }
        let status = lines[i].to_string();
        let mut head = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].trim().is_empty() {
            head.push(lines[i].to_string());
            i += 1;
        }
        let mut body = Vec::new();
        while i < lines.len() && !lines[i].starts_with("HTTP/") {
            body.push(lines[i]);
            i += 1;
        }
        res.push((status, head, body.join("\n").trim().to_string()));
    }
    res
}

fn http_excerpt(shown: &str, out: &str) -> Result<(), String> {
    let (head, body) = shown.split_once("\n\n").unwrap_or((shown, ""));
    let mut head = head.lines();
    let status = head.next().unwrap().trim_end();
    let headers: Vec<&str> = head.map(str::trim_end).collect();
    let all = answers(out);
    let mut why = format!("no answer `{status}` printed");
    for (st, hs, b) in &all {
        if st.trim_end() != status {
            continue;
        }
        if let Some(h) = headers.iter().find(|h| !hs.iter().any(|x| x == *h)) {
            why = format!("the answer `{status}` has no header `{h}`");
            continue;
        }
        match if body.trim().is_empty() {
            Ok(())
        } else {
            compare(body, b)
        } {
            Ok(()) => return Ok(()),
            Err(e) => why = format!("the answer `{status}`: {e}"),
        }
    }
    Err(why)
}

/// The JSON values of an output: the bodies of `curl -i` answers, or the output itself,
/// value after value.
fn json_values(out: &str) -> Result<Vec<serde_json::Value>, String> {
    let texts: Vec<String> = if out.lines().any(|l| l.starts_with("HTTP/")) {
        answers(out).into_iter().map(|(_, _, b)| b).collect()
    } else {
        vec![out.to_string()]
    };
    let mut values = Vec::new();
    for t in texts {
        for v in serde_json::Deserializer::from_str(&t).into_iter::<serde_json::Value>() {
            values.push(v.map_err(|e| format!("the output is not JSON ({e})"))?);
        }
    }
    Ok(values)
}

/// JSON as a page shows it: `...` for what was left out.
#[derive(Debug)]
enum Pat {
    Any,
    Gap,
    Lit(serde_json::Value),
    Num(String),
    Str(String),
    Arr(Vec<Pat>),
    Obj(Vec<(String, Pat)>, bool),
}

struct PatParser<'a> {
    s: &'a str,
    i: usize,
}

impl PatParser<'_> {
    fn ws(&mut self) {
        while self.s[self.i..].starts_with(|c: char| c.is_whitespace()) {
            self.i += self.s[self.i..].chars().next().unwrap().len_utf8();
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        let rest: String = self.s[self.i..].chars().take(40).collect();
        Err(format!("the shown JSON: {what} at `{rest}`"))
    }
    fn string(&mut self) -> Result<String, String> {
        self.ws();
        let b = self.s.as_bytes();
        if b.get(self.i) != Some(&b'"') {
            return self.err("expected a string");
        }
        let mut j = self.i + 1;
        while j < b.len() && b[j] != b'"' {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        let raw = &self.s[self.i..=j.min(b.len() - 1)];
        self.i = j + 1;
        serde_json::from_str(raw).map_err(|e| format!("the shown JSON: {raw}: {e}"))
    }
    fn value(&mut self) -> Result<Pat, String> {
        self.ws();
        if self.eat("...") || self.eat("…") {
            return Ok(Pat::Any);
        }
        if self.eat("{") {
            let mut members = Vec::new();
            let mut open = false;
            loop {
                if self.eat("}") {
                    return Ok(Pat::Obj(members, open));
                }
                if self.eat("...") || self.eat("…") {
                    // A comma after it may be left out.
                    open = true;
                    self.eat(",");
                    continue;
                }
                let k = self.string()?;
                if !self.eat(":") {
                    return self.err("expected `:`");
                }
                members.push((k, self.value()?));
                if !self.eat(",") && !self.s[self.i..].trim_start().starts_with('}') {
                    return self.err("expected `,` or `}`");
                }
            }
        }
        if self.eat("[") {
            let mut items = Vec::new();
            loop {
                if self.eat("]") {
                    return Ok(Pat::Arr(items));
                }
                if self.eat("...") || self.eat("…") {
                    items.push(Pat::Gap);
                    self.eat(",");
                    continue;
                }
                items.push(self.value()?);
                if !self.eat(",") && !self.s[self.i..].trim_start().starts_with(']') {
                    return self.err("expected `,` or `]`");
                }
            }
        }
        if self.s[self.i..].starts_with('"') {
            return Ok(Pat::Str(self.string()?));
        }
        for (word, v) in [
            ("true", serde_json::Value::Bool(true)),
            ("false", serde_json::Value::Bool(false)),
            ("null", serde_json::Value::Null),
        ] {
            if self.eat(word) {
                return Ok(Pat::Lit(v));
            }
        }
        let n: String = self.s[self.i..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || "-+.eE".contains(*c))
            .collect();
        if n.is_empty() || n.parse::<f64>().is_err() {
            return self.err("expected a value");
        }
        self.i += n.len();
        Ok(Pat::Num(n))
    }
}

fn matches(p: &Pat, v: &serde_json::Value) -> bool {
    mismatch(p, v, "").is_none()
}

/// Where a printed value differs from the pattern, if it does: the first place found.
fn mismatch(p: &Pat, v: &serde_json::Value, at: &str) -> Option<String> {
    if let (Pat::Obj(members, open), serde_json::Value::Object(m)) = (p, v) {
        for (k, p) in members {
            match m.get(k) {
                None => return Some(format!("{at}.{k}: not printed")),
                Some(v) => {
                    if let Some(e) = mismatch(p, v, &format!("{at}.{k}")) {
                        return Some(e);
                    }
                }
            }
        }
        if !*open && m.len() != members.len() {
            let extra: Vec<&String> = m
                .keys()
                .filter(|k| !members.iter().any(|(s, _)| s == *k))
                .collect();
            return Some(format!(
                "{at}: also prints {extra:?} (add `...` to the object shown)"
            ));
        }
        return None;
    }
    if let (Pat::Arr(items), serde_json::Value::Array(xs)) = (p, v) {
        if !items.iter().any(|i| matches!(i, Pat::Gap)) && items.len() == xs.len() {
            for (i, (p, x)) in items.iter().zip(xs).enumerate() {
                if let Some(e) = mismatch(p, x, &format!("{at}[{i}]")) {
                    return Some(e);
                }
            }
            return None;
        }
    }
    if equal(p, v) {
        None
    } else {
        let mut got = v.to_string();
        got.truncate(300);
        Some(format!("{at}: printed {got}"))
    }
}

fn equal(p: &Pat, v: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (p, v) {
        (Pat::Any, _) => true,
        (Pat::Gap, _) => false,
        (Pat::Lit(a), b) => a == b,
        (Pat::Num(s), V::Number(n)) => {
            let (want, got) = (s.parse::<f64>().unwrap(), n.as_f64().unwrap());
            match s.split_once('.') {
                None if !s.contains(['e', 'E']) => want == got,
                None => (want - got).abs() <= want.abs() * 1e-12,
                Some((_, frac)) => {
                    let d = frac.chars().take_while(|c| c.is_ascii_digit()).count();
                    (want - got).abs() <= 10f64.powi(-(d as i32)) * 0.5 + 1e-15
                }
            }
        }
        (Pat::Str(s), V::String(t)) => line_matches(s, t),
        (Pat::Arr(items), V::Array(xs)) => glob(items, xs),
        (Pat::Obj(members, open), V::Object(m)) => {
            members
                .iter()
                .all(|(k, p)| m.get(k).is_some_and(|v| matches(p, v)))
                && (*open || m.len() == members.len())
        }
        _ => false,
    }
}

/// Array elements against a pattern whose `...` (gaps) stand for any run of elements.
fn glob(pat: &[Pat], xs: &[serde_json::Value]) -> bool {
    match pat.split_first() {
        None => xs.is_empty(),
        Some((Pat::Gap, rest)) => (0..=xs.len()).any(|k| glob(rest, &xs[k..])),
        Some((p, rest)) => !xs.is_empty() && matches(p, &xs[0]) && glob(rest, &xs[1..]),
    }
}

fn json_excerpt(shown: &str, values: &[serde_json::Value]) -> Result<(), String> {
    let mut p = PatParser { s: shown, i: 0 };
    let mut pats = Vec::new();
    loop {
        p.ws();
        if p.i >= shown.len() {
            break;
        }
        let v = p.value()?;
        // A value alone on its line of `...`: values left out.
        if !matches!(v, Pat::Any) {
            pats.push(v);
        }
    }
    let mut at = 0;
    for (k, pat) in pats.iter().enumerate() {
        match values[at..].iter().position(|v| matches(pat, v)) {
            Some(i) => at += i + 1,
            None => {
                let why = values[at..]
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| {
                        mismatch(pat, v, "").map(|e| format!("  printed value {}: {e}", at + i + 1))
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                return Err(format!(
                    "shown JSON value {} of {} matches no printed value (in order):\n{why}",
                    k + 1,
                    pats.len()
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// The tests: the roles of every block, one test per page (the games' pages and any new
// page in one), and the comparisons themselves.
// ---------------------------------------------------------------------------------

/// The pages with a test of their own below; every other page runs in `other_pages`.
const OWN_TEST: &[&str] = &[
    "README.md",
    "docs/balance.md",
    "docs/cluster.md",
    "docs/commands.md",
    "docs/dice-language.md",
    "docs/live-page.md",
    "docs/python.md",
];

#[test]
fn every_fenced_block_of_the_docs_has_a_role() {
    let mut bad = Vec::new();
    let mut tally = std::collections::BTreeMap::<&str, usize>::new();
    for page in pages() {
        let bs = match blocks(&page) {
            Ok(bs) => bs,
            Err(e) => {
                bad.push(e);
                continue;
            }
        };
        for b in &bs {
            match role(&page, b) {
                Ok(r) => {
                    let key = match &r {
                        Role::Run { .. } | Role::TomlFile { .. } => "run",
                        Role::Output | Role::File(_) | Role::TomlIn(_) => "compared",
                        Role::NoRun { .. } => "not run",
                        Role::Python => "python",
                        Role::Kept(_) => "kept",
                        Role::NotCompared => "not compared",
                        Role::TomlFragment { .. } => "fragment",
                    };
                    *tally.entry(key).or_default() += 1;
                    if let Role::NoRun { covered_by } = &r {
                        for t in covered_by {
                            if let Err(e) = test_exists(t) {
                                bad.push(format!("{page}:{}: {e}", b.line));
                            }
                        }
                    }
                }
                Err(e) => bad.push(e),
            }
        }
    }
    // Every KEPT block is still on its page.
    for (page, lang, line, test) in KEPT {
        let found = blocks(page)
            .unwrap_or_default()
            .iter()
            .any(|b| b.lang == *lang && b.words.is_empty() && b.body.contains(line));
        if !found {
            bad.push(format!("KEPT: no ```{lang} block with `{line}` in {page}"));
        }
        if let Err(e) = test_exists(test) {
            bad.push(format!("KEPT: {e}"));
        }
    }
    assert!(
        root().join("python/tests/test_doc_blocks.py").is_file(),
        "the python blocks' test"
    );
    eprintln!("{tally:?}");
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
    // A floor, so that blocks do not drop out unseen.
    assert!(tally.get("run").copied().unwrap_or(0) >= 40, "{tally:?}");
    assert!(
        tally.get("compared").copied().unwrap_or(0) >= 40,
        "{tally:?}"
    );
}

#[test]
fn readme_blocks_run() {
    run_page("README.md");
}

#[test]
fn balance_blocks_run() {
    run_page("docs/balance.md");
}

#[test]
fn cluster_blocks_run() {
    run_page("docs/cluster.md");
}

#[test]
fn commands_blocks_run() {
    run_page("docs/commands.md");
}

#[test]
fn dice_language_blocks_run() {
    run_page("docs/dice-language.md");
}

#[test]
fn live_page_blocks_run() {
    run_page("docs/live-page.md");
}

#[test]
fn python_page_blocks_run() {
    run_page("docs/python.md");
}

/// The games' pages and every page without a test of its own.
#[test]
fn other_pages_blocks_run() {
    let mut failed = Vec::new();
    let mut n = 0;
    for page in pages().iter().filter(|p| !OWN_TEST.contains(&p.as_str())) {
        n += 1;
        if let Err(e) = std::panic::catch_unwind(|| run_page(page)) {
            failed.push(
                e.downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_else(|| format!("{page}: failed")),
            );
        }
    }
    assert!(n >= 5, "{n} pages");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The comparisons and the reading of fences find what they must.
#[test]
fn the_comparisons_catch_a_changed_output() {
    let out = "a line\nP(win) = 72.07%\nlast";
    assert!(compare("a line\n...\nlast", out).is_ok());
    assert!(compare("P(win) = ...%", out).is_ok());
    assert!(compare("P(win) = 72.1%", out).is_err());
    assert!(compare("last\na line", out).is_err(), "order");
    let json = r#"{"a":1,"b":[1,2,3],"c":{"d":0.123456,"e":"long text here"}}"#;
    assert!(compare(r#"{"a":1,"b":[1,...],"c":{"d":0.1235,...}}"#, json).is_ok());
    assert!(compare(r#"{"a":1,...,"c":{"e":"long ... here",...}}"#, json).is_ok());
    assert!(compare("...\n{\"a\":1,...}", json).is_ok());
    assert!(
        compare(r#"{"a":1,"c":{...}}"#, json).is_err(),
        "a key left out without ..."
    );
    assert!(compare(r#"{"a":2,...}"#, json).is_err());
    assert!(compare(r#"{"a":1,"b":[2,...],...}"#, json).is_err());
    assert!(
        compare(r#"{"a":1,"b":[1,2],...}"#, json).is_err(),
        "an element left out without ..."
    );
    assert!(
        compare(r#"{"c":{"d":0.1234,...},...}"#, json).is_err(),
        "to the digits shown"
    );
    let http = "HTTP/1.1 404 Not Found\ncontent-type: application/json\ndate: x\n\n{\"error\":\"no\"}\nHTTP/1.1 200 OK\n\n{}";
    assert!(compare(
        "HTTP/1.1 404 Not Found\ncontent-type: application/json\n\n{\"error\":\"no\"}",
        http
    )
    .is_ok());
    assert!(compare(
        "HTTP/1.1 404 Not Found\nallow: POST\n\n{\"error\":\"no\"}",
        http
    )
    .is_err());
    assert!(compare("HTTP/1.1 404 Not Found\n\n{\"error\":\"yes\"}", http).is_err());
    assert!(compare("{\"error\":\"no\"}", http).is_ok());
    assert_eq!(
        command_lines("# a comment\nrollsim a \\\n    b\n\nrollsim c   # why\n"),
        ["rollsim a      b", "rollsim c   # why"]
    );
    let bs = parse_blocks(
        "p.md",
        "```sh\nrollsim x\n```\n\nprints:\n\n| a |\n|---|\n\nmore\n",
    )
    .unwrap();
    assert_eq!(bs[0].table, ["| a |", "|---|"]);
    assert_eq!(
        role("p.md", &bs[0]),
        Ok(Role::Run {
            exit: 0,
            refused: false
        })
    );
    let bs = parse_blocks(
        "p.md",
        "```sh\nrollsim x\n```\n\nA table:\n\nnot a table\n\n| a |\n",
    )
    .unwrap();
    assert!(bs[0].table.is_empty());
    let e = parse_blocks("p.md", "text\n\n```\nx\n```\n").err().unwrap();
    assert!(
        e.starts_with("p.md:3: a fence without an info string"),
        "{e}"
    );
    let bs = parse_blocks("p.md", "```text\nx\n```\n```toml frag\nx\n```\n").unwrap();
    assert!(role("p.md", &bs[0]).is_err());
    assert!(role("p.md", &bs[1]).is_err());
}
