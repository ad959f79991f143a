//! `mindsage`: the desktop app, and headless subcommands on the same binary.
//!
//! With no subcommand it opens the window; `mindsage list`, `add`, `show`, … work on the
//! same journal without a display, which is what scripts, tests and CI use.

// On Windows no console opens behind the window; the subcommands join the console they
// were started from (`console::attach_to_parent`).
#![cfg_attr(windows, windows_subsystem = "windows")]

use std::process::ExitCode;

use clap::Parser;
use mindsage::{cli, console, start};

/// Every heap block is wiped when it is freed: locking drops everything read from the
/// journal, and a freed block would otherwise keep its text readable in the process's
/// memory until it happened to be reused (issue #30: 40 copies of a typed word after
/// locking). SQLite's own memory is wiped by SQLCipher (`cipher_memory_security`).
#[global_allocator]
static ALLOCATOR: zeroizing_alloc::ZeroAlloc<std::alloc::System> =
    zeroizing_alloc::ZeroAlloc(std::alloc::System);

fn main() -> ExitCode {
    // First, so --report-startup counts from here.
    mindsage::launch_report::mark_main();
    console::attach_to_parent();
    let args = cli::Args::parse();
    init_logging();
    let result = match args.command.clone() {
        Some(command) => cli::run(&args, command),
        None => start::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Nobody reads the output any more (`mindsage list | head -1`): nothing to say.
        Err(error) if cli::is_closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: warnings). Nothing we log
/// contains entry text: ids, counts and timings only.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
