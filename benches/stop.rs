//! How long Ctrl-C takes to stop the main job (plain `rollsim`, the shipped configs at
//! their own trial counts), from the signal to the process's exit: SIGINT at 40 moments
//! spread over a whole run, and at its slowest points (while charts are encoded, while
//! the gallery is written, just after the commit's exchange), 5 times each. Prints the
//! median, the 95th percentile and the slowest, with where it was; exits 1 if any stop
//! took a second or more (the promise).
//!
//! `cargo bench --bench stop`; `STOP_MOMENTS=N` for N spread moments.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
enum Moment {
    After(Duration),
    Charting,
    Gallery,
    Exchanged,
}

fn job(work: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_rollsim"))
        .current_dir(work)
        .arg("-q")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn staging(work: &Path, pid: u32) -> PathBuf {
    work.join(format!(".reports.staging-{pid}"))
}

fn encoding(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        e.file_name().to_string_lossy().contains(".partial.png")
            || (e.file_type().is_ok_and(|t| t.is_dir()) && encoding(&e.path()))
    })
}

/// Wait for the moment; false if the job ended first.
fn reach(child: &mut Child, work: &Path, m: Moment, start: Instant) -> bool {
    let ino = std::fs::metadata(work.join("reports")).map_or(0, |m| m.ino());
    let dir = staging(work, child.id());
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let due = match m {
            Moment::After(d) => start.elapsed() >= d,
            Moment::Charting => encoding(&dir),
            Moment::Gallery => dir.join("index.md").exists(),
            Moment::Exchanged => {
                std::fs::metadata(work.join("reports")).is_ok_and(|x| x.ino() != ino)
            }
        };
        if due {
            return true;
        }
        if matches!(m, Moment::After(_)) {
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter this bench ignores.
    let work = std::env::temp_dir().join(format!("rollsim-stop-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let copied = Command::new("cp")
        .arg("-r")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs"))
        .arg(&work)
        .status()
        .unwrap();
    assert!(copied.success());
    let t = Instant::now();
    assert!(job(&work).wait().unwrap().success());
    let full = t.elapsed();
    let spread: u32 = std::env::var("STOP_MOMENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let mut moments: Vec<Moment> = (0..spread)
        .map(|i| Moment::After(full.mul_f64((f64::from(i) + 0.5) / f64::from(spread))))
        .collect();
    for _ in 0..5 {
        moments.extend([Moment::Charting, Moment::Gallery, Moment::Exchanged]);
    }
    let mut stops: Vec<(Duration, Moment)> = Vec::new();
    for m in moments {
        let start = Instant::now();
        let mut child = job(&work);
        if !reach(&mut child, &work, m, start) {
            continue;
        }
        let sent = Instant::now();
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        child.wait().unwrap();
        stops.push((sent.elapsed(), m));
    }
    let _ = std::fs::remove_dir_all(&work);
    stops.sort_by_key(|s| s.0);
    let at = |q: f64| stops[((stops.len() as f64 - 1.0) * q).round() as usize].0;
    let (slowest, where_) = *stops.last().expect("no stop reached the job");
    println!(
        "main job ({full:.2?} a run): {} stops by SIGINT, median {:.0?}, p95 {:.0?}, slowest {slowest:.0?} ({where_:?})",
        stops.len(),
        at(0.5),
        at(0.95),
    );
    if slowest >= Duration::from_secs(1) {
        eprintln!("a stop took over a second");
        std::process::exit(1);
    }
}
