//! The time promises the tests keep as behaviour only: how long a stop, a refusal and a
//! hopeless computation's fallback take, each from a fresh process as a designer meets
//! it. The tests check that the run stops, the file is refused, the answer comes (with
//! a 30 s guard against a hang); this measures how fast, on an idle machine, where a
//! busy CI machine's timing says nothing.
//!
//! Prints a Markdown table (case, promise, median and slowest of `PROMISE_RUNS` runs,
//! default 5) and exits 1 if any run broke its promise. `cargo bench --bench promises`.
//! The figures are quoted in docs/commands.md ("What is guaranteed").

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rollsim"))
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name)
}

/// A signal to a child, then how long it took to exit (and its exit code).
fn stop(child: &mut Child, signal: i32) -> (Duration, Option<i32>) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let sent = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (sent.elapsed(), s.code());
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            return (sent.elapsed(), None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn quiet(mut c: Command) -> Child {
    c.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A whole command: how long it took, and whether it ended with `code`.
fn timed(mut c: Command, code: i32) -> Duration {
    let start = Instant::now();
    let out = c
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let took = start.elapsed();
    assert_eq!(out.code(), Some(code), "{c:?}");
    took
}

/// SIGTERM to a run of 2^64 trials half a second in: the stop.
fn stop_a_huge_run(work: &Path) -> Duration {
    let mut c = bin();
    c.args(["run", shipped("rush.toml").to_str().unwrap()])
        .args(["-s", "stand-up-striker", "-n", "18446744073709551615", "-q"])
        .arg("--no-trial-cap")
        .arg("-o")
        .arg(work.join("huge"));
    let mut child = quiet(c);
    std::thread::sleep(Duration::from_millis(500));
    let (took, code) = stop(&mut child, libc::SIGTERM);
    assert_eq!(code, Some(130));
    took
}

/// SIGTERM to a roll whose single trials take milliseconds (a `repeat` of up to 10,000
/// rounds), a second and a half in.
fn stop_slow_trials(work: &Path) -> Duration {
    let mut c = bin();
    c.args([
        "roll",
        "repeat hp = 0 until hp < 0 do hp = hp + d6 limit 10000 then hp",
        "-n",
        "70000",
        "-q",
        "--no-plots",
        "--threads",
        "1",
        "-o",
    ])
    .arg(work.join("slow"));
    let mut child = quiet(c);
    std::thread::sleep(Duration::from_millis(1500));
    let (took, code) = stop(&mut child, libc::SIGTERM);
    assert_eq!(code, Some(130));
    took
}

/// Ctrl-C to the live page's server while it simulates.
fn stop_the_server(work: &Path) -> Duration {
    std::fs::create_dir_all(work.join("page")).unwrap();
    std::fs::copy(shipped("rush.toml"), work.join("page/rush.toml")).unwrap();
    let mut child = bin()
        .arg("serve")
        .arg(work.join("page"))
        .args(["--port", "0"])
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
        .expect("the server prints its address")
        .to_string();
    let body = r#"{"expr":"pairs(100d100, 100d100) + pairs(100d100, 100d100)"}"#;
    let mut sock = TcpStream::connect(&addr).unwrap();
    write!(
        sock,
        "POST /api/simulate HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let (took, code) = stop(&mut child, libc::SIGINT);
    assert_eq!(code, Some(0));
    took
}

/// An exact pass cancelled mid-way (two pool variables read several ways, about a second
/// of work): from the cancel to the answer "interrupted".
fn cancel_an_exact_pass() -> Duration {
    let text = "system = \"dice\"\n[scenarios.heavy]\nroll = \"let a = 8d10 in let b = 7d10 in a sum - b sum + a highest * b lowest\"\n";
    let cfg = rollsim::config::load_str(text, "heavy.toml", &[]).unwrap();
    let cancel = rollsim::Cancel::new();
    let stop = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.cancel();
        Instant::now()
    });
    let r = rollsim::balance::compile(&cfg, "heavy", &cancel);
    let done = Instant::now();
    let sent = stopper.join().unwrap();
    assert!(matches!(r, Err(rollsim::Error::Interrupted)));
    done.saturating_duration_since(sent)
}

/// Inputs that are not config files: refused before any is read.
fn refuse_devices(work: &Path) -> Duration {
    let fifo = work.join("fifo.toml");
    if !fifo.exists() {
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a path in our own temporary folder.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let big = std::fs::File::create(work.join("big.toml")).unwrap();
        big.set_len(17 << 20).unwrap();
    }
    let mut slowest = Duration::ZERO;
    for (cmd, path) in [
        ("check", PathBuf::from("/dev/zero")),
        ("check", fifo.clone()),
        ("list", work.join("big.toml")),
    ] {
        let mut c = bin();
        c.arg(cmd).arg(path);
        slowest = slowest.max(timed(c, 2));
    }
    slowest
}

/// A unit of 100,000 stats, checked.
fn load_a_huge_unit(work: &Path) -> Duration {
    let cfg = work.join("many.toml");
    if !cfg.exists() {
        let mut text = String::from("system = \"dice\"\n[units.big]\n");
        for i in 0..100_000 {
            text.push_str(&format!("s{i} = {}\n", i % 7));
        }
        text.push_str("[scenarios.x]\nunit = \"big\"\nroll = \"d6 + s99999\"\n");
        std::fs::write(&cfg, text).unwrap();
    }
    let mut c = bin();
    c.arg("check").arg(&cfg);
    timed(c, 0)
}

/// Expressions with no exact answer in the budget: the exact attempt given up and 70,000
/// trials rolled, the slowest of six.
fn fall_back_to_monte_carlo(work: &Path) -> Duration {
    slowest_fallback(
        work,
        &[
            "let a = d1000 in let b = d1000 in let c = d1000 in a+b+c",
            "let a = d6 in let b = d6 in let c = d6 in let d = d6 in let e = d6 in let f = d6 in let g = d6 in let h = d6 in let i = d6 in let j = d6 in a+b+c+d+e+f+g+h+i+j",
            "let a = 9d10 in let b = 9d10 in a sum - b sum + a highest * b lowest",
            "let a = 12d20 in let b = 12d20 in a sum * b sum + a count 20",
            "([5d10, 10d20])d1000 > 3",
            "50d1000 again >= 5 == 0",
        ],
    )
}

/// Two big pools set against each other, the slowest to give up (docs/commands.md says
/// so): their float operations cost several times what the floats' budget reckons.
fn fall_back_from_pools_met(work: &Path) -> Duration {
    slowest_fallback(work, &["pairs(100d100, 100d100)", "pairs(60d60, 60d60)"])
}

/// The slowest of `exprs` rolled for 70,000 trials, each with no exact answer.
fn slowest_fallback(work: &Path, exprs: &[&str]) -> Duration {
    let mut slowest = Duration::ZERO;
    for e in exprs {
        let out = work.join("fallback");
        let _ = std::fs::remove_dir_all(&out);
        let mut c = bin();
        c.args(["roll", e, "-n", "70000", "-q", "--no-plots", "-o"])
            .arg(&out);
        slowest = slowest.max(timed(c, 0));
    }
    slowest
}

/// Parentheses 40 deep, and 70 deep refused.
fn parse_deep_nesting() -> Duration {
    let deep = "(".repeat(40) + "d6" + &")".repeat(40);
    let mut c = bin();
    c.args(["roll", &deep, "--exact-only"]);
    let a = timed(c, 0);
    let deeper = "(".repeat(70) + "d6" + &")".repeat(70);
    let mut c = bin();
    c.args(["roll", &deeper]);
    a.max(timed(c, 2))
}

struct Case {
    name: &'static str,
    promise: Duration,
    run: Box<dyn Fn(&Path) -> Duration>,
}

/// A folder where the main job has run once, and how long that took.
fn main_job_folder(work: &Path) -> (PathBuf, Duration) {
    static DONE: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    let dir = work.join("main-job");
    let took = *DONE.get_or_init(|| {
        std::fs::create_dir_all(&dir).unwrap();
        let mut c = bin();
        c.current_dir(&dir);
        timed(c, 0)
    });
    (dir, took)
}

/// Issue #58, item 3: a whole report planted as the staging folder a SIGKILL of the
/// main job leaves, then Ctrl-C `at` into the next main job (a fraction of its time).
fn stop_the_main_job_beside_leftovers(work: &Path, at: f64) -> Duration {
    let (dir, took) = main_job_folder(work);
    let planted = Command::new("cp")
        .args(["-r", "reports", ".reports.staging-99999"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(planted.success());
    let mut c = bin();
    c.current_dir(&dir);
    let mut child = quiet(c);
    std::thread::sleep(Duration::from_secs_f64((took.as_secs_f64() * at).max(0.03)));
    let (stopped, code) = stop(&mut child, libc::SIGINT);
    assert!(code == Some(130) || code == Some(0), "{code:?}");
    let _ = std::fs::remove_dir_all(dir.join(".reports.staging-99999"));
    stopped
}

fn main() {
    let runs: usize = std::env::var("PROMISE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let work = std::env::temp_dir().join(format!("rollsim-promises-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let ms = Duration::from_millis;
    let cases = [
        Case {
            name: "SIGTERM stops a run of 2^64 trials",
            promise: ms(500),
            run: Box::new(stop_a_huge_run),
        },
        Case {
            name: "SIGTERM stops a run whose trials take milliseconds",
            promise: ms(500),
            run: Box::new(stop_slow_trials),
        },
        Case {
            name: "Ctrl-C 30 ms into the main job, a killed run's whole report planted",
            promise: ms(500),
            run: Box::new(|w| stop_the_main_job_beside_leftovers(w, 0.0)),
        },
        Case {
            name: "Ctrl-C at 90% of the main job, a killed run's whole report planted",
            promise: ms(500),
            run: Box::new(|w| stop_the_main_job_beside_leftovers(w, 0.9)),
        },
        Case {
            name: "Ctrl-C stops the live page's server while it simulates",
            promise: ms(500),
            run: Box::new(stop_the_server),
        },
        Case {
            name: "a cancelled exact pass answers (from the cancel)",
            promise: ms(500),
            run: Box::new(|_| cancel_an_exact_pass()),
        },
        Case {
            name: "/dev/zero, a pipe, a 17 MB file refused (slowest, whole process)",
            promise: ms(500),
            run: Box::new(refuse_devices),
        },
        Case {
            name: "a unit of 100,000 stats checked (whole process)",
            promise: ms(1000),
            run: Box::new(load_a_huge_unit),
        },
        Case {
            name: "parentheses 40 deep answered, 70 deep refused (whole processes)",
            promise: ms(500),
            run: Box::new(|_| parse_deep_nesting()),
        },
        Case {
            name: "no exact answer: Monte Carlo instead, 70,000 trials (slowest of six)",
            promise: ms(2000),
            run: Box::new(fall_back_to_monte_carlo),
        },
        Case {
            name: "two big pools met: Monte Carlo instead, 70,000 trials (slowest of two)",
            promise: ms(6000),
            run: Box::new(fall_back_from_pools_met),
        },
    ];
    println!("| case | promise | median | slowest |\n|---|---:|---:|---:|");
    let mut broken = Vec::new();
    for case in &cases {
        let mut times: Vec<Duration> = (0..runs).map(|_| (case.run)(&work)).collect();
        times.sort();
        let (median, slowest) = (times[times.len() / 2], times[times.len() - 1]);
        println!(
            "| {} | {} ms | {:.0} ms | {:.0} ms |",
            case.name,
            case.promise.as_millis(),
            median.as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3
        );
        if slowest > case.promise {
            broken.push(case.name);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    if !broken.is_empty() {
        eprintln!("promise broken: {}", broken.join("; "));
        std::process::exit(1);
    }
}
