#!/usr/bin/env bash
# The reliability and security probe of issue #58, as far as a script repeats it: every
# defect it found has a test in tests/hardening.rs, and the probe's other checks live in
# the suites run here (interrupts at 54 moments of the main job, disk-full, read-only and
# inode-starved folders, hostile inputs, the grammar fuzz's fixed slice, bounded work,
# Ctrl-C and SIGTERM), then the promises bench times every stop and refusal, a killed
# run's whole report planted beside the main job included. Loopback only.
#
#   bash benches/probe.sh            # from the repository's root
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --test tests -- hardening kill nothing_lost hostile fuzz bounded cancel reliability serve_bounds
cargo bench --bench promises
