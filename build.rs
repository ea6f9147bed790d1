//! Embeds the shipped configs (`configs/*.toml`) in the binary, so an installed rollsim
//! runs the main job from an empty folder: `shipped.rs` lists (file name, text). Also
//! names the source revision the binary was built from (`ROLLSIM_SOURCE`), which a
//! part carries so that `merge` refuses parts of different builds.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("configs");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("configs/ is part of the package")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    let mut out = String::from("/// The shipped configs: (file name, text), by name.\npub const SHIPPED: &[(&str, &str)] = &[\n");
    for n in &names {
        let path = dir.join(n);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    ({n:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("a String takes writes");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join("shipped.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");

    let root =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).to_path_buf();
    for f in [".git/HEAD", ".git/index", ".git/logs/HEAD"] {
        if root.join(f).exists() {
            println!("cargo:rerun-if-changed={}", root.join(f).display());
        }
    }
    let source = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ROLLSIM_SOURCE={source}");

    // A position-independent executable is relocated at every start: 70,000 pointers in
    // 1.5 MB of tables (the table writers' and the chart fonts'), a copy-on-write fault per
    // page, 3 ms on this kind of machine, longer than most exact answers take. Linked at a
    // fixed address, the command starts in under a millisecond. Only the command: the
    // library and the Python extension stay position-independent.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
