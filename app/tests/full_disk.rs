//! A full disk (issue #17): a save that cannot be written says so and loses nothing
//! saved before. The disk is filled for one process with the shell's `ulimit -f` (the
//! largest file it may write), with SIGXFSZ ignored so that a write past the limit fails
//! as it does on a full disk (an error from `write`) instead of killing the process.
#![cfg(unix)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

#[path = "../../core/tests/reliability_summary/mod.rs"]
mod reliability_summary;

mod binary;

use reliability_summary::Summary;

/// `mindsage --data-dir DIR ARGS…` given `stdin`, with no model server and, when
/// `limit_bytes` is given, no file larger than that.
fn mindsage_with(data_dir: &Path, args: &[&str], stdin: &str, limit_bytes: Option<u64>) -> Output {
    let mut command = match limit_bytes {
        Some(bytes) => {
            // POSIX sh counts `ulimit -f` in blocks of 512 bytes.
            let mut shell = Command::new("sh");
            shell
                .arg("-c")
                .arg(format!(
                    "ulimit -f {}; trap '' XFSZ; exec \"$0\" \"$@\"",
                    bytes.div_ceil(512)
                ))
                .arg(binary::BINARY);
            shell
        }
        None => Command::new(binary::BINARY),
    };
    let mut child = binary::on_journal(&mut command, data_dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mindsage");
    let mut input = child.stdin.take().expect("piped");
    let text = stdin.to_owned();
    let writing = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("mindsage ends");
    // A process that stopped reading early closes the pipe; what it said is the answer.
    let _ = writing.join();
    out
}

fn mindsage(data_dir: &Path, args: &[&str], limit_bytes: Option<u64>) -> Output {
    mindsage_with(data_dir, args, "", limit_bytes)
}

fn listed(data_dir: &Path) -> Vec<serde_json::Value> {
    let out = mindsage(data_dir, &["--json", "list", "--limit", "1000"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("list --json is JSON")
}

#[test]
fn a_save_on_a_full_disk_says_so_and_loses_nothing_saved_before() {
    let mut summary = Summary::new(
        "full_disk",
        "a_save_on_a_full_disk_says_so_and_loses_nothing_saved_before",
    );
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("journal");
    for n in 0..20 {
        let body = format!("Saved before the disk filled, number {n}.");
        let out = mindsage(&data, &["add", "--body", &body], None);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let before = listed(&data);
    let largest = std::fs::read_dir(&data)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .max()
        .unwrap();

    // An entry far larger than the room left: its pages cannot all be written.
    let big = "The disk is full now. ".repeat(200_000);
    let out = mindsage_with(&data, &["add"], &big, Some(largest + 64 * 1024));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    summary.set("exit_code", out.status.code());
    summary.set("message", stderr.trim());

    assert!(
        !out.status.success(),
        "the save claimed to succeed on a full disk"
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "it ends with an error, not a signal or a panic: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.contains("the disk may be full"),
        "the message says what happened and what to do: {stderr}"
    );
    let after = listed(&data);
    summary.set("entries_before", before.len());
    summary.set("entries_after", after.len());
    assert_eq!(
        after, before,
        "the entries saved before are all there, as they were"
    );
    let check = mindsage(&data, &["info"], None);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
