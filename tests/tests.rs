//! One integration test binary with a module per area (ripgrep's layout).

mod agreement;
mod bad_configs;
mod balance;
mod bounded;
mod cancel;
mod charts;
mod cli;
mod descent_rules;
mod determinism;
mod dice_lang;
mod dozen_rules;
mod fuzz;
mod gallery;
mod hostile;
mod kill;
mod layers;
mod nothing_lost;
mod outputs;
mod readme;
mod reliability;
mod rush_rules;
mod skirmish_rules;
mod snapshots;
mod swap;
mod util;
mod walk;
