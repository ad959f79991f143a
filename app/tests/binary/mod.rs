//! The real `mindsage` binary, run as a person runs it from a terminal, for the tests
//! that drive the command line.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::Path;
use std::process::{Command, Output};

/// The binary under test.
pub const BINARY: &str = env!("CARGO_BIN_EXE_mindsage");

/// Points `command` (the binary, or what runs it: a shell, `setpriv`) at the journal in
/// `data_dir` with `args`. The data folder comes from the argument only, the model host
/// is a loopback port nobody listens on unless the test sets another, and the test's
/// own environment gives no opt-in to a remote host.
pub fn on_journal<'a>(command: &'a mut Command, data_dir: &Path, args: &[&str]) -> &'a mut Command {
    command
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("MINDSAGE_DATA_DIR")
        .env_remove("MINDSAGE_PASSPHRASE_FILE")
        .env_remove(mindsage_core::ai::settings::ALLOW_REMOTE_ENV)
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
}

/// The binary on the journal in `data_dir` with `args`, not started yet.
pub fn command(data_dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BINARY);
    on_journal(&mut command, data_dir, args);
    command
}

/// The binary run to its end on the journal in `data_dir` with `args`.
pub fn mindsage(data_dir: &Path, args: &[&str]) -> Output {
    command(data_dir, args).output().expect("run mindsage")
}
