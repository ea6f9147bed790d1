//! The builds a fresh clone makes one after another (`cargo test --release`, then
//! `pip install ./python`, a release build of python/) ask for the same features of every
//! dependency they share, so the second reuses the first's: a feature that only a
//! dev-dependency switches on (regex-automata's `dfa-search`, under every polars crate)
//! would make the Python package build polars a second time, minutes of a first build.

use crate::util::root;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each library unit cargo would build for `args`, by package, with its features.
fn units(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let scratch = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO"))
        .args(args)
        // (Not `--offline`: the Python package's own crates, pyo3, may not be fetched yet.)
        .args(["--unit-graph", "-Z", "unstable-options"])
        // `--unit-graph` is unstable: a stable cargo prints it when told it may.
        .env("RUSTC_BOOTSTRAP", "1")
        // Its own target dir: the graph writes nothing, and no lock is shared with the
        // build running these tests.
        .env("CARGO_TARGET_DIR", scratch.path())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let graph: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut units = BTreeMap::new();
    for u in graph["units"].as_array().unwrap() {
        let lib = u["target"]["kind"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "lib" || k == "rlib");
        if u["mode"] != "build" || !lib {
            continue;
        }
        let features: BTreeSet<String> = u["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        let id = u["pkg_id"].as_str().unwrap().to_string();
        units.insert(format!("{id} {}", u["platform"]), features);
    }
    units
}

#[test]
fn the_python_build_reuses_every_dependency_of_the_test_build() {
    let test = units(&["test", "--release", "--no-run"]);
    let python = units(&[
        "build",
        "--release",
        "-p",
        "rollsim-python",
        "--features",
        "pyo3/extension-module",
    ]);
    let polars = python
        .keys()
        .filter(|k| k.contains("#polars-core@"))
        .count();
    assert_eq!(polars, 1, "the Python build has polars-core once");
    let differ: Vec<String> = python
        .iter()
        .filter_map(|(k, f)| {
            let t = test.get(k)?;
            (t != f).then(|| {
                format!(
                    "{k}: test only {:?}, python only {:?}",
                    t.difference(f).collect::<Vec<_>>(),
                    f.difference(t).collect::<Vec<_>>()
                )
            })
        })
        .collect();
    assert!(
        differ.is_empty(),
        "these would be built twice; ask for the test build's features in Cargo.toml's \
         [dependencies] too:\n{}",
        differ.join("\n")
    );
}
