//! Issue #25: `rollsim serve`, the live page's server, as a page (or a hostile page
//! elsewhere, or a careless script) reaches it: raw HTTP over a socket to the real binary.
//! The browser half is `live.rs`.

use crate::util::{rollsim, root, shipped, tempdir};
use rollsim::balance::controls::{controls, ControlKind};
use rollsim::balance::Source;
use rollsim::systems::ReadingKind;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary serving `dir` on a free port; killed when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
    _out: BufReader<ChildStdout>,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    pub fn start_with(dir: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("rollsim"))
            .arg("serve")
            .arg(dir)
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server {
            child,
            addr,
            _out: out,
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Send `raw` and read the whole answer: (status, body), chunks joined.
    pub fn raw(&self, raw: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(raw).unwrap();
        read_answer(&mut s)
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        self.raw(
            format!(
                "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                self.addr
            )
            .as_bytes(),
        )
    }

    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        self.raw(post_request(&self.addr, &self.addr, path, body).as_bytes())
    }

    pub fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, text) = self.post(path, &body.to_string());
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    /// The last line of a streamed answer.
    pub fn streamed(&self, path: &str, body: &Value) -> (u16, Value) {
        let (status, text) = self.post(path, &body.to_string());
        let last = text.lines().last().unwrap_or("").to_string();
        (
            status,
            serde_json::from_str(&last).unwrap_or(Value::String(text)),
        )
    }

    /// Still answering, and answering right.
    pub fn serves(&self) {
        let (status, body) = self.get("/api/configs");
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("rush.toml"), "{body}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn post_request(addr: &str, host: &str, path: &str, body: &str) -> String {
    let _ = addr;
    format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn read_answer(s: &mut TcpStream) -> (u16, String) {
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    (status, if chunked { dechunk(body) } else { body.into() })
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].strip_prefix("\r\n").unwrap_or(&rest[n..]);
    }
    out
}

/// A folder with copies of the shipped configs named, as a designer's would be.
pub fn folder(names: &[&str]) -> tempfile::TempDir {
    let dir = tempdir();
    for n in names {
        std::fs::copy(shipped(n), dir.path().join(n)).unwrap();
    }
    dir
}

const SLAM: &str = "slam-orc-vs-human-guard";

/// Nothing half-written left behind: no hidden (temporary) file in the folder.
fn no_temporary_files(dir: &Path) {
    let stray: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn the_page_is_served_from_the_binary_with_its_safety_headers() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let (status, page) = s.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("<script src=\"/app.js\">"), "{page}");
    // Nothing from a CDN or anywhere else: the page works without a network.
    for asset in ["/", "/app.js", "/style.css"] {
        let (status, text) = s.get(asset);
        assert_eq!(status, 200, "{asset}");
        // SVG's namespace is a name, not an address the page loads.
        let text = text.replace("'http://www.w3.org/2000/svg'", "");
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{asset} names another site"
        );
    }
    // The page, and a refusal of a foreign Host as well (it once had no headers).
    for host in [s.addr.clone(), "evil.example".to_string()] {
        let mut sock = TcpStream::connect(&s.addr).unwrap();
        write!(
            sock,
            "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut head = String::new();
        sock.read_to_string(&mut head).unwrap();
        let head = head.to_ascii_lowercase();
        assert!(
            head.contains("content-security-policy: default-src 'self'"),
            "{head}"
        );
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(head.contains("cache-control: no-store"), "{head}");
    }
}

#[test]
fn a_foreign_host_header_is_refused_and_the_server_keeps_serving() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost:{}", port.parse::<u32>().unwrap() + 1),
        String::new(),
    ] {
        let (status, body) = s.raw(
            format!("GET /api/configs HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(status, 403, "Host {host:?}: {body}");
        assert!(body.contains("not this server's address"), "{body}");
        // A POST that would compute is refused the same way, before any work.
        let (status, _) =
            s.raw(post_request(&s.addr, &host, "/api/view", r#"{"file":"rush.toml"}"#).as_bytes());
        assert_eq!(status, 403, "Host {host:?}");
    }
    let (status, _) = s.raw(
        format!("GET /api/configs HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(status, 200);
    s.serves();
}

#[test]
fn names_outside_the_folder_are_refused_and_nothing_is_written_there() {
    let outer = tempdir();
    let dir = outer.path().join("configs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(shipped("rush.toml"), dir.join("rush.toml")).unwrap();
    std::fs::copy(shipped("rush.toml"), outer.path().join("secret.toml")).unwrap();
    std::os::unix::fs::symlink(outer.path().join("secret.toml"), dir.join("link.toml")).unwrap();
    let s = Server::start(&dir);
    let (_, list) = s.get("/api/configs");
    assert!(
        !list.contains("link.toml") && !list.contains("secret"),
        "{list}"
    );
    for (file, status) in [
        ("../secret.toml", 400),
        ("..%2Fsecret.toml", 400),
        ("/etc/passwd", 400),
        ("link.toml", 400),
        ("configs/rush.toml", 400),
        ("nope.toml", 404),
        ("", 400),
    ] {
        let (got, body) = s.post_json("/api/view", &json!({ "file": file }));
        assert_eq!(got, status, "{file}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
    for name in [
        "../evil.toml",
        "/tmp/evil.toml",
        "sub/evil.toml",
        ".evil.toml",
        "evil.txt",
    ] {
        let (got, body) = s.post_json(
            "/api/save",
            &json!({ "file": "rush.toml", "name": name, "sets": [] }),
        );
        assert_eq!(got, 400, "{name}: {body}");
    }
    let mut left: Vec<String> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["configs", "secret.toml"]);
    s.serves();
}

#[test]
fn a_100_mb_body_is_refused_without_reading_it() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let mut sock = TcpStream::connect(&s.addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let size = 100 << 20;
    write!(
        sock,
        "POST /api/view HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n{{\"file\": \"",
        s.addr
    )
    .unwrap();
    let mut w = sock.try_clone().unwrap();
    // A server that stops reading without answering fails the write and the read here,
    // after 30 s each, not the test by hanging.
    w.set_write_timeout(Some(Duration::from_secs(30))).unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..100 {
            if w.write_all(&chunk).is_err() {
                return false;
            }
        }
        true
    });
    let (status, body) = read_answer(&mut sock);
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("malformed request"), "{body}");
    drop(sock);
    let _ = writer.join();
    s.serves();
}

#[test]
fn malformed_requests_get_a_4xx_with_a_message_and_the_server_keeps_serving() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    for (body, status, says) in [
        (r#"{"file": "rush.toml""#, 400, "EOF while parsing"),
        (r#"not json"#, 400, "expected"),
        (r#"{"file": 3}"#, 400, "invalid type"),
        (r#"{"file": "rush.toml", "sets": "x"}"#, 400, "invalid type"),
        (
            r#"{"file": "rush.toml", "bogus": 1}"#,
            400,
            "unknown field `bogus`",
        ),
        (r#"[]"#, 400, "expected struct"),
        (
            r#"{"file": "rush.toml", "sets": ["units.orc.strenght=2"]}"#,
            400,
            "strength",
        ),
        (
            r#"{"file": "rush.toml", "sets": ["units.orc.strength=9"]}"#,
            400,
            "units.orc.strength",
        ),
        (
            r#"{"file": "rush.toml", "scenario": "slma"}"#,
            400,
            "no scenario `slma`",
        ),
    ] {
        let (got, text) = s.post("/api/view", body);
        assert_eq!(got, status, "{body}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(says), "{body}: {e}");
    }
    // Not JSON at all, the wrong method, no such page.
    let (got, _) = s.raw(
        format!(
            "POST /api/view HTTP/1.1\r\nHost: {}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}",
            s.addr
        )
        .as_bytes(),
    );
    assert_eq!(got, 415);
    assert_eq!(s.get("/api/view").0, 405);
    let (got, text) = s.get("/etc/passwd");
    assert_eq!(got, 404, "{text}");
    assert!(text.contains("\"error\""), "{text}");
    // Garbage instead of HTTP: the connection is dropped or answered 400, nothing more.
    let mut sock = TcpStream::connect(&s.addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    sock.write_all(b"\x16\x03\x01 hello\r\n\r\n").unwrap();
    let mut junk = Vec::new();
    let _ = sock.read_to_end(&mut junk);
    let junk = String::from_utf8_lossy(&junk);
    assert!(
        junk.is_empty() || junk.starts_with("HTTP/1.1 400"),
        "{junk}"
    );
    // A dice expression the language refuses: 422 with its column.
    let (got, v) = s.post_json("/api/roll", &json!({ "expr": "3d6 keep highst 2" }));
    assert_eq!(got, 422, "{v}");
    assert_eq!(v["column"], 9);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("did you mean `highest`"),
        "{v}"
    );
    s.serves();
}

/// The exact headline of the Slam with these sets, computed in the library.
fn slam_headline(sets: &[String]) -> f64 {
    let text = std::fs::read_to_string(shipped("rush.toml")).unwrap();
    let source = Source::parse(&text, Path::new("rush.toml"), sets).unwrap();
    let c = rollsim::balance::compile(&source.base, SLAM, &rollsim::Cancel::new()).unwrap();
    rollsim::results::tidy_probability(c.headline_exact().unwrap())
}

#[test]
fn two_hundred_requests_at_once_are_each_answered_right() {
    let dir = folder(&["rush.toml"]);
    let s = std::sync::Arc::new(Server::start(dir.path()));
    let sets = |i: usize| -> Vec<String> {
        vec![
            format!("units.orc.strength={}", 2 + i % 5),
            format!("scenarios.{SLAM}.extra_dice={}", i % 3),
        ]
    };
    let expected: Vec<f64> = (0..15).map(|i| slam_headline(&sets(i))).collect();
    // Different cells do differ: a wrong answer could not pass as a right one.
    assert!(expected.windows(2).all(|w| w[0] != w[1]), "{expected:?}");
    let workers: Vec<_> = (0..200)
        .map(|i| {
            let s = s.clone();
            let sets = sets(i);
            std::thread::spawn(move || {
                if i % 10 == 9 {
                    // Some hostile ones in the crowd.
                    s.post("/api/view", "{\"file\": ")
                } else {
                    s.post(
                        "/api/view",
                        &json!({ "file": "rush.toml", "scenario": SLAM, "sets": sets }).to_string(),
                    )
                }
            })
        })
        .collect();
    for (i, w) in workers.into_iter().enumerate() {
        let (status, text) = w.join().unwrap();
        if i % 10 == 9 {
            assert_eq!(status, 400, "{text}");
            continue;
        }
        assert_eq!(status, 200, "request {i}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let got = v["members"][0]["exact"]["headline"]["exact"]
            .as_f64()
            .unwrap();
        assert_eq!(got, expected[i % 15], "request {i}");
    }
    s.serves();
}

#[test]
fn the_view_is_the_numbers_run_exact_only_prints_even_after_a_swap() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    // --set swaps the attacker: the controls follow the Goblin, not the Orc.
    let sets = vec![
        format!("scenarios.{SLAM}.attacker=goblin"),
        "units.goblin.strength=3".to_string(),
    ];
    let (status, v) = s.post_json(
        "/api/view",
        &json!({ "file": "rush.toml", "scenario": SLAM, "sets": sets }),
    );
    assert_eq!(status, 200, "{v}");
    let keys: Vec<&str> = v["controls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"units.goblin.strength"), "{keys:?}");
    assert!(
        !keys.iter().any(|k| k.starts_with("units.orc.")),
        "{keys:?}"
    );
    let strength = v["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "units.goblin.strength")
        .unwrap();
    assert_eq!(strength["value"], 3);
    assert_eq!(strength["section"], "attacker: Goblin");
    let mut cmd = rollsim();
    cmd.arg("run").arg(dir.path().join("rush.toml")).args([
        "-s",
        SLAM,
        "--exact-only",
        "-o",
        "-",
        "--format",
        "csv",
    ]);
    for x in &sets {
        cmd.args(["--set", x]);
    }
    let csv = crate::util::text(&cmd.output().unwrap().stdout);
    let shown = &v["members"][0]["exact"];
    let mut n = 0;
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (metric, value, exact) = (f[1], f[2], f[8].parse::<f64>().unwrap());
        let m = shown["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == metric)
            .unwrap();
        let row = m["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["label"] == value)
            .unwrap_or_else(|| panic!("{metric}={value} not shown"));
        assert_eq!(row["exact"].as_f64().unwrap(), exact, "{metric}={value}");
        n += 1;
    }
    assert!(n >= 20, "{csv}");
    // Each fraction shown is the exact value it stands beside.
    let fr = shown["fractions"][0].as_array().unwrap();
    for (row, f) in shown["metrics"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(fr)
    {
        let p = row["exact"].as_f64().unwrap();
        if let Some(f) = f.as_str() {
            let (a, b) = f.split_once('/').unwrap();
            let q = a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap();
            assert!((p - q).abs() < 1e-12, "{f} vs {p}");
        }
    }
    assert_eq!(
        v["command"],
        format!(
            "rollsim run {}/rush.toml -s {SLAM} --exact-only --set scenarios.{SLAM}.attacker=goblin --set units.goblin.strength=3",
            dir.path().display()
        )
    );
}

#[test]
fn the_balance_views_agree_with_the_scenario_they_are_read_from() {
    let dir = folder(&["rush.toml", "dice-examples.toml"]);
    let s = Server::start(dir.path());
    let (status, v) = s.post_json(
        "/api/view",
        &json!({ "file": "rush.toml", "scenario": SLAM }),
    );
    assert_eq!(status, 200, "{v}");
    let headline = v["members"][0]["exact"]["headline"]["exact"]
        .as_f64()
        .unwrap();
    // The draw is 681 of 3,888 weighted counts = 227/1296 and the headline 2,802 of
    // them = 467/648, both added up by `util::orc_slams_guard`.
    let (wins, draws) = crate::util::orc_slams_guard();
    let ways = crate::util::ORC_SLAMS_GUARD_WAYS;
    let g = crate::util::gcd(draws, ways);
    assert_eq!(
        v["members"][0]["exact"]["fractions"][0][0],
        format!("{}/{}", draws / g, ways / g)
    );
    assert!(
        (headline - wins as f64 / ways as f64).abs() < 1e-12,
        "{headline}"
    );
    let at = |view: &str| json!({ "file": "rush.toml", "scenario": SLAM, "view": view });
    let (status, m) = s.streamed("/api/balance", &at("matrix"));
    assert_eq!(status, 200);
    let m = &m["result"]["matrices"][0];
    let row = m["rows"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e[0] == "orc")
        .unwrap();
    let col = m["cols"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e[0] == "human_guard")
        .unwrap();
    // The report's headline is the exact value to 13 digits.
    let same = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    same(m["cells"][row][col]["exact"].as_f64().unwrap(), headline);
    let (_, sens) = s.streamed("/api/balance", &at("sensitivity"));
    let rows = sens["result"]["rows"].as_array().unwrap();
    let plus = rows
        .iter()
        .find(|r| r["change"] == "attacker Orc: +1 die" && r["quantity"] == "P(slammer wins)")
        .unwrap();
    same(plus["before"].as_f64().unwrap(), headline);
    // +1 die is the Slam with extra_dice = 1, as the view computes it.
    let (_, one) = s.post_json(
        "/api/view",
        &json!({ "file": "rush.toml", "scenario": SLAM, "sets": [format!("scenarios.{SLAM}.extra_dice=1")] }),
    );
    same(
        plus["after"].as_f64().unwrap(),
        one["members"][0]["exact"]["headline"]["exact"]
            .as_f64()
            .unwrap(),
    );
    let (_, r) = s.streamed("/api/balance", &at("roster"));
    let units = r["result"]["units"].as_array().unwrap();
    assert_eq!(units.len(), 5);
    let total: f64 = units
        .iter()
        .map(|u| u["nash_weight"].as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    // Costs on a count stat: the reference keeps its cost, the other is priced to tie.
    let (status, r) = s.streamed(
        "/api/balance",
        &json!({ "file": "dice-examples.toml", "scenario": "fighter-duels-orc", "view": "roster", "count": "hp" }),
    );
    assert_eq!(status, 200, "{r}");
    let k = &r["result"]["costs"];
    assert_eq!(k["reference"], "fighter", "{k}");
    let orc = k["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["unit"] == "orc")
        .unwrap();
    // Priced to tie: at the suggested costs the orc wins half its field, by the
    // definition of a tie (to the 1% the pricing steps allow).
    let after = orc["field_after"].as_f64().unwrap();
    assert!((after - 0.5).abs() < 0.01, "{orc}");
}

#[test]
fn save_as_writes_a_new_file_that_runs_as_shown_and_never_replaces_unasked() {
    let dir = folder(&["rush.toml"]);
    let original = std::fs::read(dir.path().join("rush.toml")).unwrap();
    let s = Server::start(dir.path());
    let sets = vec![
        format!("scenarios.{SLAM}.attacker=goblin"),
        "units.goblin.strength=3".to_string(),
        "rules.double_rule=margin2".to_string(),
    ];
    let save = |name: &str, replace: bool| {
        s.post_json(
            "/api/save",
            &json!({ "file": "rush.toml", "scenario": SLAM, "sets": sets, "name": name, "replace": replace }),
        )
    };
    let (status, v) = save("rush-tuned.toml", false);
    assert_eq!(status, 200, "{v}");
    let saved = dir.path().join("rush-tuned.toml");
    let first = std::fs::read_to_string(&saved).unwrap();
    assert!(first.contains("--set units.goblin.strength=3"), "{first}");
    let run = |config: &Path, sets: &[String]| {
        let mut cmd = rollsim();
        cmd.arg("run")
            .arg(config)
            .args(["-s", SLAM, "--exact-only", "-o", "-", "--format", "csv"]);
        for x in sets {
            cmd.args(["--set", x]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", crate::util::text(&out.stderr));
        crate::util::text(&out.stdout)
    };
    let with_sets = run(&dir.path().join("rush.toml"), &sets);
    assert_eq!(run(&saved, &[]), with_sets);
    assert_ne!(run(&dir.path().join("rush.toml"), &[]), with_sets);
    // The new file is in the page's list.
    assert!(s.get("/api/configs").1.contains("rush-tuned.toml"));
    // Neither the new file nor the original is replaced without the page's confirmation.
    for name in ["rush-tuned.toml", "rush.toml"] {
        let before = std::fs::read(dir.path().join(name)).unwrap();
        let (status, v) = save(name, false);
        assert_eq!(status, 409, "{v}");
        assert!(v["error"].as_str().unwrap().contains("exists"), "{v}");
        assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), before);
    }
    assert_eq!(
        std::fs::read(dir.path().join("rush.toml")).unwrap(),
        original
    );
    let (status, v) = save("rush-tuned.toml", true);
    assert_eq!(status, 200, "{v}");
    // A bad state is refused before anything is written.
    let (status, _) = s.post_json(
        "/api/save",
        &json!({ "file": "rush.toml", "sets": ["units.orc.strength=99"], "name": "bad.toml" }),
    );
    assert_eq!(status, 400);
    assert!(!dir.path().join("bad.toml").exists());
    no_temporary_files(dir.path());
}

/// An expression with no exact distribution whose Monte Carlo takes a while.
const SLOW: &str = "pairs(100d100, 100d100) + pairs(100d100, 100d100) + pairs(100d100, 100d100)";

#[test]
fn the_dice_box_falls_back_to_a_streamed_monte_carlo() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let (status, v) = s.post_json("/api/roll", &json!({ "expr": "4d6 drop lowest" }));
    assert_eq!(status, 200, "{v}");
    // P(4d6 drop lowest = 18) = 21/1296: three 6s kept needs four 6s (1 roll) or three
    // and one of the 5 other faces in any of 4 places (20); 21/1296 = 7/432.
    let rows = v["exact"]["metrics"][0]["rows"].as_array().unwrap();
    let top = rows.iter().find(|r| r["label"] == "18").unwrap();
    assert!((top["exact"].as_f64().unwrap() - 21.0 / 1296.0).abs() < 1e-12);
    assert_eq!(
        v["exact"]["fractions"][0]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        "7/432"
    );
    // A record packed by what its fields take (their bounds multiply past what a law
    // spans), as `rollsim roll` takes it: each field's 20 values, 1/20 each.
    let (status, v) = s.post_json(
        "/api/roll",
        &json!({ "expr": "let x = d20 in {a = x * 1000, b = x * 1000}" }),
    );
    assert_eq!(status, 200, "{v}");
    let b = v["exact"]["fractions"][1].as_array().unwrap();
    assert_eq!(b.len(), 20, "{v}");
    assert!(b.iter().all(|f| f == "1/20"), "{v}");
    // What a limit cut comes in the command line's words: a turn ended by six 6s, at
    // most two rounds, is cut with chance (46655/46656)^2, not 1; a roll no limit cuts
    // has none.
    let (status, v) = s.post_json(
        "/api/roll",
        &json!({ "expr": "repeat t = 0 until t >= 1 do t = t + (6d6 == 36) limit 2 then rounds" }),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["exact"]["capped"],
        "exact probability that a `repeat` reached its limit of rounds unfinished (a roll of the dice stops there too): 9.9996e-1",
        "{v}"
    );
    let (_, v) = s.post_json("/api/roll", &json!({ "expr": "2d6" }));
    assert!(v["exact"]["capped"].is_null(), "{v}");
    let (status, v) = s.post_json("/api/roll", &json!({ "expr": "pairs(100d100, 100d100)" }));
    assert_eq!(status, 200);
    assert!(v["exact"].is_null(), "{v}");
    let (status, text) = s.post(
        "/api/simulate",
        &json!({ "expr": "pairs(100d100, 100d100)" }).to_string(),
    );
    assert_eq!(status, 200);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    let r = &last["result"][0];
    assert!(r["trials"].as_u64().unwrap() >= 100_000, "{last}");
    // 100 d100s against 100: the mean number of matched pairs is far from 0.
    assert!(r["metrics"][0]["mean"].as_f64().unwrap() > 1.0, "{last}");
}

#[test]
fn a_dropped_request_stops_its_monte_carlo() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    // Fill every turn of the turnstile with slow simulations, and walk away from them as
    // the page does when a control moves again.
    let before = cpu_seconds(s.pid());
    for _ in 0..6 {
        let mut sock = TcpStream::connect(&s.addr).unwrap();
        sock.write_all(
            post_request(
                &s.addr,
                &s.addr,
                "/api/simulate",
                &json!({ "expr": SLOW }).to_string(),
            )
            .as_bytes(),
        )
        .unwrap();
        let mut first = [0u8; 64];
        let _ = sock.read(&mut first);
        drop(sock);
    }
    // The server still answers, and then goes quiet: the abandoned work stopped.
    let (status, v) = s.post_json("/api/roll", &json!({ "expr": "2d6" }));
    assert_eq!(status, 200, "{v}");
    let abandoned = until_quiet(s.pid()) - before;
    // The same simulation, run to the end, for scale. CPU time, not the clock: a busy
    // machine slows both alike, and other processes' work is not counted.
    let before = cpu_seconds(s.pid());
    let (status, _) = s.streamed("/api/simulate", &json!({ "expr": SLOW }));
    assert_eq!(status, 200);
    let full = until_quiet(s.pid()) - before;
    eprintln!("six abandoned simulations: {abandoned:.2} CPU-s; one to the end: {full:.2} CPU-s");
    // Run to the end, the six would cost six times `full`. Stopped once their answers
    // can no longer be sent (a progress line every 250 ms), each costs the part it ran
    // (about a fifth of `full` here, measured: 2.25 CPU-s for the six against 1.97).
    assert!(
        abandoned < 3.0 * full,
        "six abandoned simulations cost {abandoned:.2} CPU-s, over half of what six run to \
         the end would ({full:.2} CPU-s each)"
    );
}

/// The CPU time process `pid` has used so far, user and system, in seconds.
fn cpu_seconds(pid: i32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which is in parentheses and may hold spaces):
    // state is the 3rd field, utime the 14th, stime the 15th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// The process's CPU time once it has stopped working: two readings 300 ms apart that
/// differ by under 30 ms. At most 100 readings: work that never stops fails the test
/// rather than hanging it.
fn until_quiet(pid: i32) -> f64 {
    let mut last = cpu_seconds(pid);
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(300));
        let now = cpu_seconds(pid);
        if now - last < 0.03 {
            return now;
        }
        last = now;
    }
    panic!("the server still works after 100 readings 300 ms apart once its requests were dropped")
}

/// The server's exit status once it has stopped: at most 3,000 looks 10 ms apart, so
/// a server that never stops fails the test rather than hanging it.
fn exit_after_ctrl_c(s: &mut Server) -> std::process::ExitStatus {
    (0..3000)
        .find_map(|_| {
            let st = s.child.try_wait().unwrap();
            if st.is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
            st
        })
        .expect("still serving after Ctrl-C")
}

#[test]
fn ctrl_c_stops_the_server_promptly_even_while_it_simulates() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let addr = s.addr.clone();
    let busy = std::thread::spawn(move || {
        let mut sock = TcpStream::connect(&addr).unwrap();
        sock.write_all(
            post_request(
                &addr,
                &addr,
                "/api/simulate",
                &json!({ "expr": SLOW }).to_string(),
            )
            .as_bytes(),
        )
        .unwrap();
        let mut b = Vec::new();
        let _ = sock.read_to_end(&mut b);
        String::from_utf8_lossy(&b).into_owned()
    });
    std::thread::sleep(Duration::from_millis(400));
    let mut s = s;
    let t = Instant::now();
    unsafe { libc::kill(s.pid(), libc::SIGINT) };
    let status = exit_after_ctrl_c(&mut s);
    eprintln!("Ctrl-C to exit: {:?}", t.elapsed());
    let answer = busy.join().unwrap();
    // It stopped, cleanly, while a simulation ran. Half a second is the promise,
    // measured on an idle machine by `cargo bench --bench promises`.
    assert!(status.success(), "{status:?}");
    // The page was told why its stream ended, in the stream's last line.
    assert!(answer.contains("{\"progress\":"), "{answer}");
    assert!(
        answer.contains("{\"error\":\"the server is stopping\"}\n"),
        "{answer}"
    );
    assert!(!answer.contains("\"result\""), "{answer}");
}

/// Ctrl-C while the configs list loads a config whose check takes seconds (a wide
/// roll's exact distribution, refused after about a second of work): the request is
/// answered 503 "the server is stopping" at once, the load stops at the server's token,
/// and the server exits cleanly. Before, the load ran on to its refusal with a token of
/// its own; and the answer waited for the load to unwind (0.15 s of freeing big
/// integers), past the server's wait for open answers on a loaded machine.
#[test]
fn ctrl_c_stops_a_configs_list_that_is_loading() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("wide.toml"),
        "system = \"dice\"\n[scenarios.stress]\nroll = \"repeat m = 1, r = -1 until r >= 0 do let x = d1000 + d1000 in r = if x == 2 then -1 else m * x, m = 2 * m then r\"\n",
    )
    .unwrap();
    let mut s = Server::start(dir.path());
    let addr = s.addr.clone();
    let listing = std::thread::spawn(move || {
        let mut sock = TcpStream::connect(&addr).unwrap();
        let ask = format!("GET /api/configs HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        sock.write_all(ask.as_bytes()).unwrap();
        let mut b = Vec::new();
        let _ = sock.read_to_end(&mut b);
        String::from_utf8_lossy(&b).into_owned()
    });
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(s.pid(), libc::SIGINT) };
    let status = exit_after_ctrl_c(&mut s);
    assert!(status.success(), "{status:?}");
    let answer = listing.join().unwrap();
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("the server is stopping"), "{answer}");
    assert!(!answer.contains("65536 values"), "{answer}");
}

/// The dice box's expression is checked before it loads (its caret's column), and the
/// check can work out how far a rolled dice count reaches: here about 1.5 s of work
/// before a refusal. That check stops at the request's token: Ctrl-C 300 ms in answers
/// "the server is stopping", not the refusal the check would have reached.
#[test]
fn ctrl_c_stops_the_dice_box_while_its_expression_is_checked() {
    let expr = "(repeat m = 1, r = -1 until r >= 0 do let x = d1000 + d1000 in r = if x == 2 then -1 else m * x, m = 2 * m then r)d6";
    let dir = folder(&["rush.toml"]);
    let mut s = Server::start(dir.path());
    let addr = s.addr.clone();
    let rolled = std::thread::spawn(move || {
        let mut sock = TcpStream::connect(&addr).unwrap();
        let body = json!({ "expr": expr }).to_string();
        sock.write_all(post_request(&addr, &addr, "/api/roll", &body).as_bytes())
            .unwrap();
        let mut b = Vec::new();
        let _ = sock.read_to_end(&mut b);
        String::from_utf8_lossy(&b).into_owned()
    });
    std::thread::sleep(Duration::from_millis(300));
    unsafe { libc::kill(s.pid(), libc::SIGINT) };
    let status = exit_after_ctrl_c(&mut s);
    assert!(status.success(), "{status:?}");
    let answer = rolled.join().unwrap();
    assert!(answer.contains("the server is stopping"), "{answer}");
    assert!(!answer.contains("dice count"), "{answer}");
}

/// A dice-box simulation whose expression takes seconds to check (how far a rolled dice
/// count reaches) is checked off the server's two threads: with two such requests in,
/// the page itself is still served, before either is answered. Before, both threads
/// waited for the checks, and the page after them.
#[test]
fn dice_box_simulations_being_checked_hold_none_of_the_servers_threads() {
    let expr = "(repeat m = 1, r = -1 until r >= 0 do let x = d1000 + d1000 in r = if x == 2 then -1 else m * x, m = 2 * m then r)d6";
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let slow: Vec<_> = (0..2)
        .map(|_| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let mut sock = TcpStream::connect(&addr).unwrap();
                let body = json!({ "expr": expr }).to_string();
                sock.write_all(post_request(&addr, &addr, "/api/simulate", &body).as_bytes())
                    .unwrap();
                let answer = read_answer(&mut sock);
                (answer, Instant::now())
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, page) = s.get("/");
    let page_at = Instant::now();
    assert_eq!(status, 200, "{page}");
    for t in slow {
        let ((status, body), at) = t.join().unwrap();
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("dice count"), "{body}");
        assert!(
            page_at < at,
            "the page was served after a simulation's check ended"
        );
    }
}

// ---- The controls in the core: every knob a balance command turns, and the rules ----

fn source(name: &str, sets: &[String]) -> Source {
    let text = std::fs::read_to_string(shipped(name)).unwrap();
    Source::parse(&text, &shipped(name), sets).unwrap()
}

#[test]
fn every_reading_is_what_its_reader_takes_and_its_default_is_the_absent_key() {
    let configs = ["rush.toml", "dozen.toml", "descent.toml", "skirmish.toml"];
    let mut seen = 0;
    for name in configs {
        let base = source(name, &[]);
        let text = std::fs::read_to_string(shipped(name)).unwrap();
        let readings = base.knobs().readings;
        assert!(!readings.is_empty(), "{name} has no rules readings");
        let first = base.base.scenario_names()[0].clone();
        let exact_with = |table: &toml::Table| {
            let cfg = rollsim::document::load_table(table, name).unwrap();
            let c = rollsim::balance::compile(&cfg, &first, &rollsim::Cancel::new()).unwrap();
            c.exact.unwrap()
        };
        for r in readings {
            let set = |v: String| {
                Source::parse(&text, Path::new(name), &[format!("rules.{}={v}", r.key)])
            };
            let (good, bad, default): (Vec<String>, Vec<String>, String) = match r.kind {
                ReadingKind::Choice { choices, default } => (
                    choices.iter().map(|c| c.to_string()).collect(),
                    vec!["nonsense".into()],
                    format!("\"{default}\""),
                ),
                ReadingKind::Entry { table, default } => (
                    base.ids(table),
                    vec!["nonsense".into()],
                    format!("\"{default}\""),
                ),
                ReadingKind::Int { lo, hi, default } => (
                    vec![lo.to_string(), hi.to_string()],
                    vec![(lo - 1).to_string(), (hi + 1).to_string()],
                    default.to_string(),
                ),
                ReadingKind::Flag { default } => (
                    vec!["true".into(), "false".into()],
                    vec!["3".into()],
                    default.to_string(),
                ),
            };
            for g in &good {
                // The reader takes it; another key may then be out of the new range (a
                // unit's defence 9 on a d2), which the page shows as that key's error.
                if let Err(e) = set(g.clone()) {
                    let e = e.to_string();
                    assert!(
                        !e.contains(&format!("rules.{}", r.key)),
                        "{name}: rules.{}={g} refused: {e}",
                        r.key
                    );
                }
            }
            assert!(
                set(default.clone()).is_ok(),
                "{name}: the default of rules.{}",
                r.key
            );
            for b in &bad {
                let e = set(b.clone()).expect_err(&format!("{name}: rules.{}={b} taken", r.key));
                let e = e.to_string();
                assert!(e.contains(&format!("rules.{}", r.key)), "{name}: {e}");
                if let ReadingKind::Choice { choices, .. } = r.kind {
                    for c in choices {
                        assert!(e.contains(c), "{name}: {e} does not offer {c}");
                    }
                }
            }
            // The default: the config without the key computes what it computes with it.
            let mut without = rollsim::document::parse(&text, name).unwrap();
            if let Some(rules) = without.get_mut("rules").and_then(|v| v.as_table_mut()) {
                rules.remove(r.key);
            }
            let mut with = without.clone();
            rollsim::document::apply_sets(&mut with, &[format!("rules.{}={default}", r.key)])
                .unwrap();
            assert_eq!(
                exact_with(&without),
                exact_with(&with),
                "{name}: rules.{} default",
                r.key
            );
            seen += 1;
        }
    }
    assert!(seen >= 19, "{seen}");
}

#[test]
fn every_name_of_every_shipped_config_has_controls_that_round_trip() {
    let mut names = 0;
    for entry in std::fs::read_dir(root().join("configs")).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let base = source(&file, &[]);
        let mut all = base.base.scenario_names();
        for i in base.base.scenarios().into_iter().filter(|i| i.member) {
            if !all.contains(&i.table) {
                all.push(i.table);
            }
        }
        for name in all {
            let target = base.target(&name).unwrap();
            let cs = controls(&base, &target).unwrap();
            names += 1;
            // One step of the first number a side owns: its `--set` loads, and the
            // controls read it back.
            let Some(c) = cs
                .iter()
                .find(|c| matches!(c.kind, ControlKind::Number { .. }))
            else {
                continue;
            };
            let ControlKind::Number { lo, hi, value, .. } = c.kind else {
                unreachable!()
            };
            let to = if value < hi {
                value + 1
            } else {
                lo.max(value - 1)
            };
            let set = c.set(&to.to_string());
            let moved = Source::parse(
                &std::fs::read_to_string(&path).unwrap(),
                &path,
                std::slice::from_ref(&set),
            );
            let Ok(moved) = moved else {
                // The rules may refuse a value the slider offers (a stat past another's
                // range): the page shows the reason.
                continue;
            };
            let back = controls(&moved, &moved.target(&name).unwrap()).unwrap();
            let again = back
                .iter()
                .find(|x| x.key == c.key)
                .unwrap_or_else(|| panic!("{file} {name}: {set} lost its control"));
            match again.kind {
                ControlKind::Number { value, .. } => assert_eq!(value, to, "{file} {name}: {set}"),
                _ => panic!("{file} {name}: {} changed kind", c.key),
            }
        }
    }
    assert!(names >= 251, "{names}");
}

#[test]
fn a_busy_port_or_a_missing_folder_is_refused_with_the_way_out() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    let out = rollsim()
        .arg("serve")
        .arg(dir.path())
        .args(["--port", &port])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = crate::util::text(&out.stderr);
    assert!(
        err.contains("cannot listen") && err.contains("--port 0"),
        "{err}"
    );
    let out = rollsim()
        .args(["serve", "no-such-folder", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = crate::util::text(&out.stderr);
    assert!(
        err.contains("no-such-folder") && err.contains("cannot serve"),
        "{err}"
    );
    s.serves();
}

#[test]
fn bound_to_every_address_it_answers_ip_literals_and_localhost_only() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start_with(dir.path(), &["--bind", "0.0.0.0"]);
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    for (host, status) in [
        (format!("127.0.0.1:{port}"), 200),
        (format!("localhost:{port}"), 200),
        (format!("192.168.1.20:{port}"), 200),
        (format!("evil.example:{port}"), 403),
        (
            format!("127.0.0.1:{}", port.parse::<u32>().unwrap() + 1),
            403,
        ),
    ] {
        let (got, body) = s.raw(
            format!("GET /api/configs HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        assert_eq!(got, status, "{host}: {body}");
    }
}

#[test]
fn a_change_with_a_line_break_is_refused_and_never_saved() {
    let dir = folder(&["rush.toml"]);
    let s = Server::start(dir.path());
    let sets = ["units.orc.strength=2\nrun.seed = 5"];
    let (status, v) = s.post_json("/api/view", &json!({ "file": "rush.toml", "sets": sets }));
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("control character"),
        "{v}"
    );
    let (status, _) = s.post_json(
        "/api/save",
        &json!({ "file": "rush.toml", "sets": sets, "name": "x.toml" }),
    );
    assert_eq!(status, 400);
    assert!(!dir.path().join("x.toml").exists());
}

#[test]
fn saves_at_once_to_one_name_leave_one_whole_file() {
    let dir = folder(&["rush.toml"]);
    let s = std::sync::Arc::new(Server::start(dir.path()));
    let workers: Vec<_> = (0..12)
        .map(|i| {
            let s = s.clone();
            std::thread::spawn(move || {
                s.post_json(
                    "/api/save",
                    &json!({ "file": "rush.toml", "name": "same.toml", "replace": true,
                             "sets": [format!("units.orc.strength={}", 2 + i % 5)] }),
                )
            })
        })
        .collect();
    for w in workers {
        let (status, v) = w.join().unwrap();
        assert_eq!(status, 200, "{v}");
    }
    let text = std::fs::read_to_string(dir.path().join("same.toml")).unwrap();
    // Whole: it loads, and its header names exactly one change.
    assert_eq!(text.matches("--set").count(), 1, "{text}");
    rollsim::document::load_str(&text, "same.toml", &[]).unwrap();
    no_temporary_files(dir.path());
}

/// Issue #38: a script that GETs a POST endpoint (or POSTs a page) is told which method
/// to use, with an `Allow` header, not an empty 405.
#[test]
fn a_wrong_method_is_told_the_method_to_use() {
    let dir = tempdir();
    std::fs::copy(shipped("rush.toml"), dir.path().join("rush.toml")).unwrap();
    let s = Server::start(dir.path());
    for path in [
        "/api/view",
        "/api/simulate",
        "/api/roll",
        "/api/balance",
        "/api/save",
    ] {
        let (status, body) = s.get(&format!("{path}?config=rush.toml"));
        assert_eq!(status, 405, "{path}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["error"], "GET is not served here: use POST with a JSON body",
            "{path}"
        );
    }
    for path in ["/api/configs", "/", "/app.js"] {
        let (status, body) = s.post(path, "{}");
        assert_eq!(status, 405, "{path}");
        assert!(
            body.contains("POST is not served here: use GET"),
            "{path}: {body}"
        );
    }
    // The answer names the allowed method in its headers too.
    let mut t = TcpStream::connect(&s.addr).unwrap();
    t.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        t,
        "GET /api/view HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        s.addr
    )
    .unwrap();
    let mut answer = String::new();
    let _ = t.read_to_string(&mut answer);
    let head = answer.split("\r\n\r\n").next().unwrap().to_lowercase();
    assert!(head.starts_with("http/1.1 405"), "{head}");
    assert!(head.contains("\r\nallow: post"), "{head}");
}

/// Issue #57: `their_pool` written in `vs` reads the unit's own pool there (in `vs` the
/// names are the other way round), so the Knight's 8 dice met themselves and the margin
/// was exactly 0, without a word. Such a scenario still loads, and is named: on stderr
/// and in the report by the command line, beside the headline by the live page. The
/// same duel written right says nothing.
#[test]
fn a_vs_that_reads_one_units_stat_on_both_sides_is_named() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("mix.toml"),
        "system = \"dice\"\n[units.a]\nname = \"Knight\"\npool = 8\n[units.b]\nname = \"Rogue\"\npool = 5\n\
         [scenarios.bad]\nunit = \"a\"\nopponent = \"b\"\nroll = \"(pool)d6 count >= 5\"\nvs = \"(their_pool)d6 count >= 5\"\n\
         [scenarios.good]\nunit = \"a\"\nopponent = \"b\"\nroll = \"(pool)d6 count >= 5\"\nvs = \"(pool)d6 count >= 5\"\n\
         [scenarios.flipped]\nunit = \"a\"\nopponent = \"b\"\nroll = \"(their_pool)d6 count >= 5\"\nvs = \"(pool)d6 count >= 5\"\n",
    )
    .unwrap();
    let said = "`roll` and `vs` both read Knight's `pool` and neither reads Rogue's: in `vs` a plain name is Rogue's, so write `pool` there";
    let a = rollsim()
        .args(["run"])
        .arg(dir.path().join("mix.toml"))
        .args(["--exact-only", "-o"])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let err = crate::util::text(&a.get_output().stderr);
    let out = crate::util::text(&a.get_output().stdout);
    assert!(err.contains(&format!("warning: bad: {said}")), "{err}");
    assert!(
        err.contains("warning: flipped: `roll` and `vs` both read Rogue's `pool` and neither reads Knight's: in `roll` a plain name is Knight's"),
        "{err}"
    );
    assert!(!err.contains("warning: good"), "{err}");
    assert!(out.contains(&format!("**Note:** {said}")), "{out}");
    // The mixed-up duel is the Knight against himself: a margin of exactly 0 on average.
    let s = Server::start(dir.path());
    let (got, body) = s.post_json(
        "/api/view",
        &json!({ "file": "mix.toml", "scenario": "bad" }),
    );
    assert_eq!(got, 200, "{body}");
    let exact = &body["members"][0]["exact"];
    assert!(
        exact["note"].as_str().is_some_and(|n| n.starts_with(said)),
        "{exact}"
    );
    let mean = exact["metrics"][0]["exact_mean"].as_f64().unwrap();
    assert!(mean.abs() < 1e-12, "{mean}");
    let (_, body) = s.post_json(
        "/api/view",
        &json!({ "file": "mix.toml", "scenario": "good" }),
    );
    assert!(body["members"][0]["exact"]["note"].is_null(), "{body}");
}
