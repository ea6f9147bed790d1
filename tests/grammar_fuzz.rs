//! Issue #23: a grammar-based fuzz. Dice expressions are generated from the language's
//! grammar (`core/src/systems/dice/lang.rs`, with `repeat`, the versus forms and the
//! logic operators), configs from each system's schema (the tables, keys, kinds and
//! values of the shipped configs, recombined, with names that do and do not exist and
//! values of every type and size). Each case runs the real binary under a 30 s and 4 GB
//! cap and must end in 0 or 2 with no panic, no hang and no internal error.
//!
//! `cargo test` runs a fixed-seed slice; the whole fuzz is
//! `FUZZ_CASES=10000 cargo test --release -- --ignored grammar_fuzz_full --nocapture`;
//! `FUZZ_FROM=N FUZZ_CASES=N+1` runs case N alone, as a failure names it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// xorshift64*: the same cases on every machine.
struct Gen(u64);

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    /// A number: mostly small, sometimes at the edges.
    fn int(&mut self) -> i64 {
        match self.below(10) {
            0 => *self.pick(&[0, -1, 1_000_000, 65_536, 999_999_999_999, i64::MAX]),
            1..=3 => self.below(100) as i64,
            _ => self.below(13) as i64,
        }
    }
}

fn cond(g: &mut Gen) -> String {
    let cmp = *g.pick(&["", "<=", ">=", "<", ">", "==", "!="]);
    match g.below(7) {
        0 => "max".into(),
        1 => "min".into(),
        3 if g.chance(30) => g.pick(&["even", "odd"]).to_string(),
        // Faces named one by one, bare or in braces.
        2 => {
            let faces: Vec<String> = (0..1 + g.below(3))
                .map(|_| g.below(12).to_string())
                .collect();
            match g.below(2) {
                0 => format!("on {}", faces.join(", ")),
                _ => format!("on {{{}}}", faces.join(", ")),
            }
        }
        _ => format!("{cmp}{}", g.below(12)),
    }
}

fn dice(g: &mut Gen, depth: u32) -> String {
    let count = match g.below(6) {
        0 => String::new(),
        1 if depth > 0 => format!("({})", expr(g, depth - 1)),
        _ => g.int().clamp(0, 1000).to_string(),
    };
    let die = match g.below(8) {
        0 => "F".into(),
        1 => "%".into(),
        2 => {
            let n = 1 + g.below(4);
            let faces: Vec<String> = (0..n)
                .map(|_| match g.below(3) {
                    0 => g.pick(&["hit", "blank", "crit=2", "miss"]).to_string(),
                    _ => g.int().to_string(),
                })
                .collect();
            format!("{{{}}}", faces.join(","))
        }
        _ => g
            .pick(&[2, 3, 4, 6, 8, 10, 12, 20, 100, 1000, 0, 1])
            .to_string(),
    };
    format!("{count}d{die}")
}

fn pool(g: &mut Gen, depth: u32) -> String {
    let mut s = if g.chance(15) {
        let n = 1 + g.below(3);
        let parts: Vec<String> = (0..n).map(|_| dice(g, depth)).collect();
        format!("[{}]", parts.join(", "))
    } else {
        dice(g, depth)
    };
    let mut kept = false;
    for _ in 0..g.below(3) {
        let m = match g.below(5) {
            0 => format!("explode {}", cond(g)),
            1 => format!("again {}", cond(g)),
            2 => format!("reroll {}{}", cond(g), g.pick(&["", " once", " always"])),
            4 if g.chance(25) => format!("keep middle {}", g.below(5)),
            _ => format!(
                "{} {} {}",
                g.pick(&["keep", "drop"]),
                g.pick(&["highest", "lowest"]),
                g.below(5)
            ),
        };
        kept |= m.starts_with("keep") || m.starts_with("drop");
        s = format!("{s} {m}");
    }
    if g.chance(50) {
        let a = match g.below(5) {
            0 => format!("count {}", cond(g)),
            1 => "highest".into(),
            // `middle` is `keep middle 1`: one keep per read.
            2 if !kept && g.chance(30) => "middle".into(),
            2 => "lowest".into(),
            3 => g
                .pick(&["maxset", "runs", "sets 2", "straight", "mode"])
                .to_string(),
            _ => "sum".into(),
        };
        s = format!("{s} {a}");
    }
    s
}

fn expr(g: &mut Gen, depth: u32) -> String {
    if depth == 0 {
        return if g.chance(30) {
            g.int().to_string()
        } else {
            pool(g, 0)
        };
    }
    let d = depth - 1;
    match g.below(14) {
        0 => format!("let x = {} in {} + x", expr(g, d), expr(g, d)),
        // An `again` pool read several ways: a tally per read (a varying dice count).
        1 if g.chance(30) => format!(
            "let p = {} again {} in p {} - p {}",
            dice(g, d),
            cond(g),
            g.pick(&["count 6", "sum", "count >= 4", "highest"]),
            g.pick(&["count 1", "sum", "count >= 2"])
        ),
        1 => format!(
            "let p = {} in p {} + p {}",
            pool(g, d),
            g.pick(&["highest", "lowest", "count 6", "sum", "keep highest 2 sum"]),
            g.pick(&["highest", "lowest", "count >= 4", "maxset"])
        ),
        2 => format!("if {} then {} else {}", expr(g, d), expr(g, d), expr(g, d)),
        3 if g.chance(30) => format!(
            "cancel({}, {}{})",
            dice(g, 0),
            dice(g, 0),
            g.pick(&["", ", ==", ", <=", ", <"])
        ),
        3 => format!(
            "{}({}, {}{})",
            g.pick(&["pairs", "beats"]),
            dice(g, 0),
            dice(g, 0),
            g.pick(&["", ", ties"])
        ),
        4 => format!(
            "(repeat hp = {} until hp <= 0 do hp = hp - ({}) limit {} then rounds)",
            g.below(12),
            expr(g, d),
            g.pick(&[1, 5, 30, 1000, 0])
        ),
        5 if g.chance(30) => format!("abs({})", expr(g, d)),
        5 => format!("-({})", expr(g, d)),
        6 => format!("({} {} {})", expr(g, d), g.pick(&["and", "or"]), expr(g, d)),
        7 => format!("not ({})", expr(g, d)),
        8 => format!("({})", expr(g, d)),
        _ => format!(
            "({}) {} ({})",
            expr(g, d),
            g.pick(&["+", "-", "*", "/", "%", "<=", ">=", "<", ">", "==", "!="]),
            expr(g, d)
        ),
    }
}

/// A dice expression from the grammar, 0 to 4 levels deep.
fn dice_case(g: &mut Gen) -> String {
    let depth = g.below(5) as u32;
    expr(g, depth)
}

/// What the shipped configs of one system hold: the grammar configs are drawn from.
struct Schema {
    system: String,
    top: toml::Table,
}

fn schemas() -> Vec<Schema> {
    let dir = crate::util::root().join("configs");
    let mut out: Vec<Schema> = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    for p in names {
        let t: toml::Table = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let system = t["system"].as_str().unwrap().to_string();
        match out.iter_mut().find(|s| s.system == system) {
            // Configs of one system are merged: their tables together are its grammar.
            Some(s) => merge(&mut s.top, &t),
            None => out.push(Schema { system, top: t }),
        }
    }
    out
}

fn merge(into: &mut toml::Table, from: &toml::Table) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (None, v) => {
                into.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
}

/// A value like `like`: itself, one of its type's edges, or one of another type.
fn value(g: &mut Gen, like: &toml::Value, names: &[String]) -> toml::Value {
    use toml::Value as V;
    match g.below(10) {
        0 => V::Integer(g.int() * if g.chance(30) { -1 } else { 1 }),
        1 => V::String(
            g.pick(&["", "x", "4+", "\u{1b}[31mred", "a\nb", "max"])
                .to_string(),
        ),
        2 => V::Boolean(g.chance(50)),
        3 => V::Array(vec![V::Integer(g.int())]),
        4 => V::Float(*g.pick(&[0.5, -1.0, 1e300, f64::NAN])),
        _ => match like {
            V::Integer(i) => V::Integer(match g.below(3) {
                0 => *i,
                1 => i + g.below(3) as i64 - 1,
                _ => g.int(),
            }),
            V::String(s) if !names.is_empty() && g.chance(60) => {
                let _ = s;
                V::String(g.pick(names).clone())
            }
            V::String(_) if g.chance(40) => V::String(dice_case(g)),
            V::Table(t) => V::Table(table(g, t, names, 0)),
            V::Array(a) if !a.is_empty() => {
                V::Array((0..g.below(4)).map(|_| value(g, &a[0], names)).collect())
            }
            other => other.clone(),
        },
    }
}

/// A table with a random subset of `like`'s keys (and now and then a key it lacks).
fn table(g: &mut Gen, like: &toml::Table, names: &[String], depth: u32) -> toml::Table {
    let mut t = toml::Table::new();
    for (k, v) in like {
        if g.chance(75) {
            let v = match v {
                toml::Value::Table(inner) if depth < 3 => {
                    toml::Value::Table(table(g, inner, names, depth + 1))
                }
                v => value(g, v, names),
            };
            t.insert(k.clone(), v);
        }
    }
    if g.chance(10) {
        t.insert("strenght".into(), toml::Value::Integer(3));
    }
    t
}

/// A config from a system's schema: its rules, 1 to 4 entries of each named table
/// (units, characters...) built from the keys entries have, and 1 to 3 scenarios
/// built from the keys scenarios of one kind have, naming entries that exist (mostly).
fn config_case(g: &mut Gen, schemas: &[Schema]) -> String {
    use toml::Value as V;
    let s = g.pick(schemas);
    let mut doc = toml::Table::new();
    doc.insert("system".into(), V::String(s.system.clone()));
    doc.insert("title".into(), V::String("fuzz".into()));
    let mut names: Vec<String> = Vec::new();
    let mut tables: Vec<(String, toml::Table)> = Vec::new();
    for (k, v) in &s.top {
        let V::Table(t) = v else { continue };
        if k == "scenarios" || k == "run" {
            continue;
        }
        // A table of named entries (each a table), or a plain table such as rules.
        let entries: Vec<&toml::Table> = t.values().filter_map(|e| e.as_table()).collect();
        if !entries.is_empty() && entries.len() == t.len() {
            let mut out = toml::Table::new();
            for i in 0..1 + g.below(4) {
                let like = entries[g.below(entries.len())];
                let name = if g.chance(5) {
                    "bad name!".to_string()
                } else {
                    format!("{}{i}", &k[..k.len().min(4)])
                };
                names.push(name.clone());
                out.insert(name, V::Table(table(g, like, &[], 1)));
            }
            tables.push((k.clone(), out));
        } else if g.chance(80) {
            tables.push((k.clone(), table(g, t, &[], 1)));
        }
    }
    if g.chance(5) {
        names.push("nobody".into());
    }
    for (k, t) in tables {
        doc.insert(k, V::Table(t));
    }
    if let Some(V::Table(sc)) = s.top.get("scenarios") {
        let all: Vec<&toml::Table> = sc.values().filter_map(|e| e.as_table()).collect();
        let mut out = toml::Table::new();
        for i in 0..1 + g.below(3) {
            let like = all[g.below(all.len())];
            let mut t = table(g, like, &names, 1);
            // A scenario keeps its kind most of the time: the kind decides its keys.
            if let Some(kind) = like.get("kind") {
                if g.chance(90) {
                    t.insert("kind".into(), kind.clone());
                }
            }
            out.insert(format!("s{i}"), V::Table(t));
        }
        doc.insert("scenarios".into(), V::Table(out));
    }
    toml::to_string(&doc).unwrap_or_default()
}

/// How a case ended, if not well.
fn run_case(mut c: Command) -> Result<Duration, String> {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit in the child before exec; it touches no memory of the parent.
    unsafe {
        c.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: 4 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &cap);
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("hang: over 30 s".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut err = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let took = start.elapsed();
    if err.contains("panicked") || err.contains("a bug in rollsim") {
        return Err(format!("internal: {err}"));
    }
    match status.code() {
        Some(0) | Some(2) => Ok(took),
        Some(c) => Err(format!("exit {c}: {err}")),
        None => Err(format!("killed by a signal ({status:?}): {err}")),
    }
}

fn bin() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
}

/// The slowest case: its time, number and input.
type Slowest = (Duration, u64, String);

/// Cases `from..to`: even ones a dice expression, odd ones a config. The failures, and
/// the slowest case.
fn fuzz(from: u64, to: u64, dir: &Path) -> (Vec<String>, Slowest) {
    let schemas = schemas();
    let mut bad = Vec::new();
    let mut slowest: Slowest = (Duration::ZERO, 0, String::new());
    for i in from..to {
        let mut g = Gen::new(i);
        let out = dir.join(format!("o{i}"));
        let (what, c) = if i % 2 == 0 {
            let e = dice_case(&mut g);
            let mut c = bin();
            c.args(["roll", &e, "-n", "2000", "-q", "--no-plots", "-o"])
                .arg(&out);
            (e, c)
        } else {
            let text = config_case(&mut g, &schemas);
            let path = dir.join(format!("c{i}.toml"));
            std::fs::write(&path, &text).unwrap();
            let mut c = bin();
            c.arg("run")
                .arg(&path)
                .args(["-n", "2000", "-q", "--no-plots", "-o"])
                .arg(&out);
            (text, c)
        };
        match run_case(c) {
            Ok(t) if t > slowest.0 => slowest = (t, i, what),
            Ok(_) => {}
            Err(e) => bad.push(format!("case {i}: {e}\n--- input:\n{what}\n")),
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    (bad, slowest)
}

#[test]
fn grammar_fuzz_fixed_seed_slice() {
    let d = crate::util::tempdir();
    let (bad, slowest) = fuzz(0, 120, d.path());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    eprintln!("grammar fuzz slice: 120 cases, slowest {:?}", slowest.0);
}

#[test]
#[ignore]
fn grammar_fuzz_full() {
    let n: u64 = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let from: u64 = std::env::var("FUZZ_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let d = crate::util::tempdir();
    let t0 = Instant::now();
    let (bad, slowest) = fuzz(from, n, d.path());
    eprintln!(
        "grammar fuzz: cases {from}..{n} in {:.0} s, {} failures, slowest case {} in {:?}:\n{}",
        t0.elapsed().as_secs_f64(),
        bad.len(),
        slowest.1,
        slowest.0,
        slowest.2
    );
    assert!(bad.is_empty(), "{}", bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn the_generators_make_valid_and_invalid_inputs() {
    // The grammar reaches accepted inputs, not only errors: of 200 expressions and 200
    // configs, some load and some are refused.
    let schemas = schemas();
    assert!(schemas.len() >= 4, "{}", schemas.len());
    let (mut ok, mut refused) = (0, 0);
    for i in 0..400u64 {
        let mut g = Gen::new(i);
        let text = if i % 2 == 0 {
            format!(
                "system = \"dice\"\n[scenarios.s]\nroll = {:?}\n",
                dice_case(&mut g)
            )
        } else {
            config_case(&mut g, &schemas)
        };
        match rollsim::config::load_str(&text, "fuzz.toml", &[]) {
            Ok(_) => ok += 1,
            Err(_) => refused += 1,
        }
    }
    assert!(ok >= 40 && refused >= 40, "ok {ok}, refused {refused}");
}
