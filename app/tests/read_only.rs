//! A read-only journal (issue #17): a folder or a disk a person cannot write to. Every
//! command says so in words that name the file and what to check, and the journal is
//! left exactly as it was. Tests often run as root, whom file modes do not stop, so
//! there the commands run as `nobody` (util-linux `setpriv`).
#![cfg(unix)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

#[path = "../../core/tests/reliability_summary/mod.rs"]
mod reliability_summary;

mod binary;

use reliability_summary::Summary;

/// The user the read-only commands run as when the tests run as root.
const NOBODY: u32 = 65_534;

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `exe --data-dir DIR ARGS…`, as `nobody` or as the test's own user.
fn run(exe: &Path, data_dir: &Path, args: &[&str], as_nobody: bool) -> Output {
    let mut command = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
        ])
        .arg(exe);
        c
    } else {
        Command::new(exe)
    };
    binary::on_journal(&mut command, data_dir, args)
        .output()
        .expect("run mindsage")
}

#[test]
fn a_journal_in_a_read_only_folder_is_named_and_left_as_it_was() {
    let mut summary = Summary::new(
        "read_only",
        "a_journal_in_a_read_only_folder_is_named_and_left_as_it_was",
    );
    let root = tempfile::tempdir().unwrap();
    set_mode(root.path(), 0o755);
    // The binary where `nobody` may run it (the build folder is usually the owner's).
    let exe = root.path().join("mindsage");
    std::fs::copy(binary::BINARY, &exe).unwrap();
    set_mode(&exe, 0o755);
    let data = root.path().join("journal");
    for body in ["Written while the folder was writable.", "And a second one."] {
        let out = run(&exe, &data, &["add", "--body", body], false);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let as_root = std::fs::metadata(&data).unwrap().uid() == 0;
    if as_root {
        for entry in std::fs::read_dir(&data).unwrap() {
            std::os::unix::fs::chown(entry.unwrap().path(), Some(NOBODY), Some(NOBODY)).unwrap();
        }
        std::os::unix::fs::chown(&data, Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let journal = data.join("journal.db");
    set_mode(&journal, 0o400);
    set_mode(&data, 0o500);
    let before = std::fs::read(&journal).unwrap();

    let mut said = Vec::new();
    for args in [&["list"][..], &["add", "--body", "Not written."], &["stats"]] {
        let out = run(&exe, &data, args, as_root);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "`{}`: {stderr}", args.join(" "));
        assert!(
            stderr.contains("journal.db") && stderr.contains("read-only") && !stderr.contains("panicked"),
            "`{}` names the file and the problem: {stderr}",
            args.join(" ")
        );
        said.push(format!("{}: {}", args.join(" "), stderr.trim()));
    }
    let after = std::fs::read(&journal).unwrap();
    set_mode(&data, 0o700);
    summary.set(
        "ran_as",
        if as_root {
            "nobody (setpriv)"
        } else {
            "the folder's owner"
        },
    );
    summary.set("messages", &said);
    summary.set("journal_unchanged", after == before);
    assert!(after == before, "the journal was changed");
}
