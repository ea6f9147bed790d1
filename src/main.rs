//! Thin binary: parse flags, hand them to `rollsim::app`, map errors to exit codes
//! (0 ok, 2 bad input, 130 interrupted, 1 anything else).

use clap::Parser as _;
use rollsim::cli::Cli;
use rollsim::command::{run, terminal_safe};
use rollsim::Cancel;
use std::io::Write;

/// Print to stdout; a write error is an error (exit 1), except a closed pipe
/// (`rollsim list ... | head`), which ends quietly.
fn print(text: &str) {
    let text = terminal_safe(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: writing to standard output: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    // Ctrl-C and SIGTERM: the work stops at the next check and nothing is put in place.
    // The token is a value every command is handed, not a global.
    let cancel = Cancel::new();
    let stop = cancel.clone();
    let _ = ctrlc::set_handler(move || stop.cancel());
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version go to stdout (checked like any output), usage errors
            // to stderr with clap's exit code.
            let text = e.render().to_string();
            if e.use_stderr() {
                eprint!("{text}");
            } else {
                print(&text);
            }
            std::process::exit(e.exit_code());
        }
    };
    match run(cli, &cancel) {
        Ok(text) => print(&text),
        Err(e) => {
            eprintln!("error: {}", terminal_safe(&format!("{e:#}")));
            std::process::exit(e.exit_code());
        }
    }
}
