//! The live page's latency: from a control change to the new exact result.
//!
//! 1. criterion: one `/api/view` round trip (HTTP to the real binary, the changed config
//!    parsed, validated, compiled, its exact distribution and controls as JSON) on the
//!    three scenarios of the browser test.
//! 2. A sweep over every shipped scenario with an exact distribution: its first slider
//!    moved back and forth, 20 requests each; p50/p95 per scenario, the worst printed.
//! 3. The same in headless chromium (when node and the driver of `tests/live` are
//!    installed): the time the page itself measures from the input event to the table
//!    drawn, over every scenario that has a slider (20 moves each: the p95 of six
//!    moves would be their maximum).
//!
//! `cargo bench --bench live`; `LIVE_BROWSER=0` skips part 3.

use criterion::{criterion_group, Criterion};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn start() -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rollsim"))
        .arg("serve")
        .arg(root().join("configs"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    Server { child, addr }
}

fn post(addr: &str, path: &str, body: &Value) -> Value {
    let body = body.to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (_, body) = out.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

/// Every (config, scenario) and the `--set`s of its first slider one step each way.
fn cases(addr: &str) -> Vec<(String, String, [String; 2])> {
    let mut out = Vec::new();
    let mut files: Vec<String> = std::fs::read_dir(root().join("configs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for file in files {
        let v = post(addr, "/api/view", &json!({ "file": file }));
        for s in v["scenarios"].as_array().unwrap() {
            let name = s["name"].as_str().unwrap().to_string();
            let v = post(
                addr,
                "/api/view",
                &json!({ "file": file, "scenario": name }),
            );
            if v["members"][0]["exact"].is_null() {
                continue;
            }
            let Some(c) = v["controls"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["kind"] == "number")
            else {
                continue;
            };
            let (lo, hi, now) = (
                c["lo"].as_i64().unwrap(),
                c["hi"].as_i64().unwrap(),
                c["value"].as_i64().unwrap(),
            );
            let other = if now < hi { now + 1 } else { lo.max(now - 1) };
            let plus = if c["quoted"] == true { "+" } else { "" };
            let key = c["key"].as_str().unwrap();
            out.push((
                file.clone(),
                name,
                [format!("{key}={other}{plus}"), format!("{key}={now}{plus}")],
            ));
        }
    }
    out
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn round_trip(c: &mut Criterion) {
    let server = start();
    let mut g = c.benchmark_group("live: a slider moved, /api/view answered");
    g.measurement_time(Duration::from_secs(4));
    for (file, scenario, set) in [
        (
            "rush.toml",
            "slam-orc-vs-human-guard",
            "units.orc.strength=2",
        ),
        (
            "descent.toml",
            "broadsword-vs-beastman",
            "monsters.beastman.armour=2",
        ),
        ("dice-examples.toml", "fighter-hits-orc", "units.orc.ac=14"),
    ] {
        g.bench_function(scenario, |b| {
            b.iter(|| {
                post(
                    &server.addr,
                    "/api/view",
                    &json!({ "file": file, "scenario": scenario, "sets": [set] }),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, round_trip);

fn sweep() {
    let server = start();
    let cases = cases(&server.addr);
    let mut worst: Vec<(f64, String)> = Vec::new();
    let mut all = Vec::new();
    for (file, name, sets) in &cases {
        let mut ms = Vec::new();
        for i in 0..20 {
            let t = Instant::now();
            let v = post(
                &server.addr,
                "/api/view",
                &json!({ "file": file, "scenario": name, "sets": [sets[i % 2]] }),
            );
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(v["error"].is_null(), "{file} {name}: {v}");
        }
        all.extend(ms.iter().copied());
        let p50 = percentile(&mut ms, 0.5);
        let p95 = percentile(&mut ms, 0.95);
        worst.push((
            p95,
            format!("{p95:7.1} ms p95, {p50:6.1} ms p50  {file} {name}"),
        ));
    }
    summary(
        &format!(
            "live sweep (HTTP round trip): {} scenarios with an exact distribution and a slider, 20 moves each",
            cases.len()
        ),
        &mut all,
        worst,
    );
    if std::env::var("LIVE_BROWSER").as_deref() == Ok("0") {
        return;
    }
    browser(&server, &cases);
}

/// Part 3: the page's own measurement in chromium, through tests/live/drive.mjs.
fn browser(server: &Server, cases: &[(String, String, [String; 2])]) {
    let dir = root().join("tests/live");
    if !dir.join("node_modules/puppeteer-core").exists() {
        println!("  (browser part skipped: run `npm ci` in tests/live)");
        return;
    }
    let latency: Vec<Value> = cases
        .iter()
        .map(|(file, name, sets)| {
            let key = sets[0].split('=').next().unwrap();
            json!({ "config": file, "scenario": name, "key": key, "moves": 20 })
        })
        .collect();
    let plan = std::env::temp_dir().join(format!("rollsim-live-bench-{}.json", std::process::id()));
    std::fs::write(
        &plan,
        json!({ "steps": [], "latency": latency }).to_string(),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(dir.join("drive.mjs"))
        .arg(format!("http://{}", server.addr))
        .arg(&plan)
        .arg(root().join("target/live-bench.png"))
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&plan);
    if !out.status.success() {
        println!(
            "  browser part failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut all = Vec::new();
    let mut worst: Vec<(f64, String)> = Vec::new();
    for l in seen["latency"].as_array().unwrap() {
        let Some(ms) = l["ms"].as_array() else {
            continue;
        };
        // The first move of a page pays for its first layout: kept, it is what a
        // designer waits for too.
        let mut ms: Vec<f64> = ms.iter().map(|x| x.as_f64().unwrap()).collect();
        all.extend(ms.iter().copied());
        let p95 = percentile(&mut ms, 0.95);
        worst.push((
            p95,
            format!(
                "{p95:7.1} ms p95  {} {}",
                l["config"].as_str().unwrap(),
                l["scenario"].as_str().unwrap()
            ),
        ));
    }
    summary(
        &format!(
            "live page in chromium (input event -> table drawn): {} scenarios, {} moves",
            worst.len(),
            all.len()
        ),
        &mut all,
        worst,
    );
}

/// Every move's p50/p95/max, then the eight scenarios with the worst p95.
fn summary(title: &str, all: &mut [f64], mut worst: Vec<(f64, String)>) {
    worst.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("\n{title}");
    println!(
        "  all moves: p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        percentile(all, 0.5),
        percentile(all, 0.95),
        percentile(all, 1.0)
    );
    println!("  slowest scenarios by p95:");
    for (_, line) in worst.iter().take(8) {
        println!("    {line}");
    }
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    sweep();
}
