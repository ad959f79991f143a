//! Encryption at rest from the command line, run as a person would run it: the real
//! `mindsage` binary on a journal in a temporary folder, its passphrase in a file
//! (`--passphrase-file`, `MINDSAGE_PASSPHRASE_FILE`), standard input no terminal (so
//! nothing is ever prompted for and every refusal must say what to do instead).

mod binary;

#[path = "../../core/tests/common/mod.rs"]
mod common;
#[path = "../../core/tests/secret_service/mod.rs"]
mod secret_service;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::only_file;

use mindsage_core::db::cipher::{self, Passphrase};
use mindsage_core::db::{self, StorageOptions};
use mindsage_core::keystore;
use mindsage_core::voice::{recordings, wav};

/// Words only the test's entries hold: found in the files of a plain journal, never in
/// those of an encrypted one.
const MARKER_TITLE: &str = "Quokkamarker title";
const MARKER_BODY: &str = "zanzibarmarker lighthouse";

/// The binary on the journal in `dir`, with no passphrase file from the test's own
/// environment.
fn mindsage(dir: &Path, args: &[&str]) -> Output {
    mindsage_with(dir, args, &[])
}

/// The same with extra environment variables.
fn mindsage_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    binary::command(dir, args)
        .env_remove("MINDSAGE_PASSPHRASE_FILE")
        .envs(env.iter().copied())
        .output()
        .expect("run mindsage")
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("valid JSON on stdout")
}

/// A command that must fail: its standard error, checked to hold each of `says`.
fn refused(output: &Output, says: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected a refusal; stdout: {} stderr: {stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    for words in says {
        assert!(stderr.contains(words), "{words:?} not in: {stderr}");
    }
    stderr
}

/// A passphrase file in `dir` (outside the data folder).
fn passphrase_file(dir: &Path, name: &str, passphrase: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("{passphrase}\n")).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for item in std::fs::read_dir(&folder).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// The files under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    files(dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(path, _)| path)
        .collect()
}

/// A journal of a few demo entries and one entry of our own; its id.
fn journal_with_marker(data: &Path, demo_entries: &str) -> i64 {
    json(&mindsage(data, &["seed", "--entries", demo_entries, "--json"]));
    let added = json(&mindsage(
        data,
        &["add", "--title", MARKER_TITLE, "--body", MARKER_BODY, "--json"],
    ));
    added["id"].as_i64().expect("an id")
}

/// Neither standard output nor the log on standard error holds any of `passphrases`.
fn assert_no_passphrase(output: &Output, passphrases: &[&str]) {
    let printed = [&output.stdout[..], &output.stderr[..]].concat();
    let printed = String::from_utf8_lossy(&printed);
    for passphrase in passphrases {
        assert!(
            !printed.contains(passphrase),
            "the passphrase was printed: {printed}"
        );
    }
}

fn is_plain_sqlite(path: &Path) -> bool {
    std::fs::read(path).unwrap().starts_with(b"SQLite format 3\0")
}

#[test]
fn a_journal_encrypted_read_rekeyed_and_decrypted_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let journal = data.join("journal.db");
    let first = passphrase_file(dir.path(), "first.txt", "correct horse battery");
    let second = passphrase_file(dir.path(), "second.txt", "a wholly new staple");
    let wrong = passphrase_file(dir.path(), "wrong.txt", "not the passphrase");

    let id = journal_with_marker(&data, "12");
    let id_text = id.to_string();
    assert!(
        !files_holding(&data, MARKER_BODY).is_empty(),
        "a plain journal holds its text as it is"
    );

    // Logged at the finest level, and nothing printed holds the passphrase.
    let trace = [("RUST_LOG", "trace")];
    let output = mindsage_with(
        &data,
        &["encrypt", "--passphrase-file", arg(&first), "--json"],
        &trace,
    );
    assert_no_passphrase(&output, &["correct horse battery"]);
    let encrypted = json(&output);
    assert_eq!(encrypted["encrypted"], true);
    assert_eq!(encrypted["entries"], 13);
    for marker in [MARKER_TITLE, MARKER_BODY] {
        assert_eq!(
            files_holding(&data, marker),
            Vec::<PathBuf>::new(),
            "{marker} is readable in the encrypted journal's files"
        );
    }
    assert!(!is_plain_sqlite(&journal));
    assert!(cipher::is_encrypted(&journal));

    // Read with the passphrase from the option, and from the environment.
    let listed = json(&mindsage(
        &data,
        &[
            "list",
            "--limit",
            "100",
            "--json",
            "--passphrase-file",
            arg(&first),
        ],
    ));
    assert_eq!(listed.as_array().unwrap().len(), 13);
    assert!(listed.to_string().contains(MARKER_TITLE));
    let env = [("MINDSAGE_PASSPHRASE_FILE", arg(&first))];
    let shown = json(&mindsage_with(&data, &["show", &id_text, "--json"], &env));
    assert_eq!(shown["body"], MARKER_BODY);
    let found = json(&mindsage_with(
        &data,
        &["search", "zanzibarmarker", "--json"],
        &env,
    ));
    assert_eq!(found["hits"][0]["id"], id, "{found}");
    // The option wins over the environment.
    let both = mindsage_with(
        &data,
        &["show", &id_text, "--passphrase-file", arg(&first)],
        &[("MINDSAGE_PASSPHRASE_FILE", arg(&wrong))],
    );
    assert!(both.status.success(), "{}", String::from_utf8_lossy(&both.stderr));

    // Without a passphrase, and with a wrong one: refused, the files as they were.
    let before = files(&data);
    refused(
        &mindsage(&data, &["list"]),
        &["is encrypted", "--passphrase-file", "MINDSAGE_PASSPHRASE_FILE"],
    );
    refused(
        &mindsage(
            &data,
            &[
                "add",
                "--title",
                "t",
                "--body",
                "b",
                "--passphrase-file",
                arg(&wrong),
            ],
        ),
        &["passphrase does not open", "left untouched"],
    );
    refused(
        &mindsage_with(
            &data,
            &["show", &id_text],
            &[("MINDSAGE_PASSPHRASE_FILE", arg(&wrong))],
        ),
        &["passphrase does not open"],
    );
    refused(
        &mindsage(
            &data,
            &["list", "--passphrase-file", arg(&dir.path().join("missing.txt"))],
        ),
        &["cannot read the passphrase from", "missing.txt"],
    );
    assert!(
        files(&data) == before,
        "a refused command changed the journal's files"
    );
    refused(
        &mindsage(&data, &["encrypt", "--passphrase-file", arg(&second)]),
        &["already encrypted", "rekey"],
    );

    // A new passphrase: the old one no longer opens the journal.
    refused(
        &mindsage(&data, &["rekey", "--passphrase-file", arg(&first)]),
        &["--new-passphrase-file", "nothing was changed"],
    );
    let output = mindsage_with(
        &data,
        &[
            "rekey",
            "--passphrase-file",
            arg(&first),
            "--new-passphrase-file",
            arg(&second),
            "--json",
        ],
        &trace,
    );
    assert_no_passphrase(&output, &["correct horse battery", "a wholly new staple"]);
    let rekeyed = json(&output);
    assert_eq!(rekeyed["encrypted"], true);
    assert_eq!(rekeyed["entries"], 13);
    refused(
        &mindsage(&data, &["list", "--passphrase-file", arg(&first)]),
        &["passphrase does not open"],
    );
    let shown = json(&mindsage(
        &data,
        &["show", &id_text, "--json", "--passphrase-file", arg(&second)],
    ));
    assert_eq!(shown["title"], MARKER_TITLE);
    assert!(files_holding(&data, MARKER_BODY).is_empty());

    // Back to plain: every entry survived the round trip, readable without a passphrase.
    refused(
        &mindsage(&data, &["decrypt", "--passphrase-file", arg(&first)]),
        &["passphrase does not open"],
    );
    let decrypted = json(&mindsage(
        &data,
        &["decrypt", "--passphrase-file", arg(&second), "--json"],
    ));
    assert_eq!(decrypted["encrypted"], false);
    assert_eq!(decrypted["entries"], 13);
    assert!(is_plain_sqlite(&journal));
    assert!(files_holding(&data, MARKER_BODY).contains(&journal));
    let shown = json(&mindsage(&data, &["show", &id_text, "--json"]));
    assert_eq!(shown["body"], MARKER_BODY);
    refused(
        &mindsage(&data, &["decrypt", "--passphrase-file", arg(&second)]),
        &["is not encrypted"],
    );
    refused(&mindsage(&data, &["rekey"]), &["is not encrypted"]);
}

/// A draft and a recording waiting beside the journal (left by a crash, or for a
/// Whisper model) go with it through `encrypt`, `rekey` and `decrypt`: sealed with the
/// journal's key while it is encrypted, nothing of them readable; plain again after.
#[test]
fn waiting_drafts_and_recordings_follow_the_command_lines_conversions() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let first = passphrase_file(dir.path(), "first.txt", "correct horse battery");
    let second = passphrase_file(dir.path(), "second.txt", "a wholly new staple");
    journal_with_marker(&data, "3");
    let drafts = data.join("drafts");
    std::fs::create_dir_all(&drafts).unwrap();
    let draft = "Title: zqxclidraft\nTags: \n\nKept when a save failed.\n";
    std::fs::write(drafts.join("new-1.txt"), draft).unwrap();
    let samples: Vec<f32> = (0..40_000)
        .map(|i| ((i * 7919 % 2000) as f32 / 1000.0 - 1.0) * 0.5)
        .collect();
    let sound = wav::encode(&samples);
    let recording = recordings::folder(&data).join("recording-2026-01-02_03-04-05.wav");
    std::fs::create_dir_all(recording.parent().unwrap()).unwrap();
    std::fs::write(&recording, &sound).unwrap();
    let pcm = &sound[sound.len() / 2..sound.len() / 2 + 24];
    let before = wav::read_file(&recording).unwrap();

    let encrypted = json(&mindsage(
        &data,
        &["encrypt", "--passphrase-file", arg(&first), "--json"],
    ));
    assert_eq!(encrypted["spool_left"], serde_json::json!([]));
    for (folder, stem) in [
        (&drafts, "new-1"),
        (&recordings::folder(&data), "recording-2026-01-02_03-04-05"),
    ] {
        let sealed = only_file(folder);
        assert_eq!(sealed, folder.join(format!("{stem}.sealed")));
        assert!(cipher::is_encrypted(&sealed));
    }
    assert!(files_holding(&data, "zqxclidraft").is_empty());
    assert!(
        files(&data)
            .values()
            .all(|bytes| !bytes.windows(24).any(|w| w == pcm))
    );

    let rekeyed = json(&mindsage(
        &data,
        &[
            "rekey",
            "--passphrase-file",
            arg(&first),
            "--new-passphrase-file",
            arg(&second),
            "--json",
        ],
    ));
    assert_eq!(rekeyed["spool_left"], serde_json::json!([]));
    let decrypted = json(&mindsage(
        &data,
        &["decrypt", "--passphrase-file", arg(&second), "--json"],
    ));
    assert_eq!(decrypted["spool_left"], serde_json::json!([]));
    assert_eq!(std::fs::read_to_string(drafts.join("new-1.txt")).unwrap(), draft);
    assert_eq!(only_file(&drafts), drafts.join("new-1.txt"));
    assert_eq!(only_file(&recordings::folder(&data)), recording);
    assert_eq!(wav::read_file(&recording).unwrap(), before, "the same sound");
}

#[test]
fn info_says_whether_the_journal_is_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let passphrase = passphrase_file(dir.path(), "p.txt", "correct horse battery");
    json(&mindsage(&data, &["seed", "--entries", "3", "--json"]));
    let plain = json(&mindsage(&data, &["info", "--json"]));
    assert_eq!(plain["encrypted"], false);

    json(&mindsage(
        &data,
        &["encrypt", "--passphrase-file", arg(&passphrase), "--json"],
    ));
    let info = json(&mindsage(
        &data,
        &["info", "--json", "--passphrase-file", arg(&passphrase)],
    ));
    assert_eq!(info["encrypted"], true);
    assert!(
        info["cipher_version"]
            .as_str()
            .is_some_and(|v| v.starts_with('4')),
        "{info}"
    );
    assert_eq!(info["pragmas"]["journal_mode"], "wal");
}

/// A backup the person made into `backups/` under a name of their own is encrypted with
/// the journal, as the automatic ones are: after `encrypt`, no file in the data folder
/// holds the entries' text (issue #30, finding 3). A file there that is not a journal
/// is named as left as it was.
#[test]
fn encrypting_converts_every_backup_in_the_backups_folder_whatever_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let passphrase = passphrase_file(dir.path(), "p.txt", "correct horse battery");
    let with = ["--passphrase-file", arg(&passphrase)];
    journal_with_marker(&data, "4");
    let manual = data.join("backups").join("manual.db");
    std::fs::create_dir_all(manual.parent().unwrap()).unwrap();
    json(&mindsage(&data, &["backup", arg(&manual), "--json"]));
    std::fs::write(data.join("backups").join("notes.txt"), "not a journal").unwrap();
    assert!(
        !files_holding(&data, MARKER_BODY).is_empty(),
        "the test's marker is on disk"
    );

    let encrypted = mindsage(&data, &["encrypt", with[0], with[1]]);
    let said = String::from_utf8_lossy(&encrypted.stdout);
    assert!(encrypted.status.success(), "{said}");
    assert_eq!(
        files_holding(&data, MARKER_BODY),
        Vec::<PathBuf>::new(),
        "plain text left beside the encrypted journal: {said}"
    );
    assert!(!is_plain_sqlite(&manual));
    assert!(
        said.contains("notes.txt"),
        "the file left as it was is named: {said}"
    );
    // The converted backup opens with the journal's passphrase.
    let other = dir.path().join("other");
    let restored = json(&mindsage(
        &other,
        &["restore", arg(&manual), "--yes", "--json", with[0], with[1]],
    ));
    assert_eq!(restored["entries"], 5);
}

/// A copy of the journal elsewhere in its folder (a backup under another name, an
/// export) would stay readable beside the encrypted journal: `encrypt` refuses, names
/// each, and changes nothing; once they are moved out it encrypts, and no file in the
/// folder holds the text (issue #30, finding 3).
#[test]
fn encrypting_refuses_while_a_readable_copy_sits_in_the_journals_folder() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let passphrase = passphrase_file(dir.path(), "p.txt", "correct horse battery");
    let with = ["--passphrase-file", arg(&passphrase)];
    journal_with_marker(&data, "2");
    let manual = data.join("manual.db");
    json(&mindsage(&data, &["backup", arg(&manual), "--json"]));
    let export = data.join("old").join("journal export.json");
    std::fs::create_dir_all(export.parent().unwrap()).unwrap();
    let exported = mindsage(&data, &["export", arg(&export)]);
    assert!(exported.status.success());

    refused(
        &mindsage(&data, &["encrypt", with[0], with[1]]),
        &["would stay readable", "manual.db", "journal export.json"],
    );
    assert_eq!(json(&mindsage(&data, &["info", "--json"]))["encrypted"], false);

    for file in [&manual, &export] {
        std::fs::rename(file, dir.path().join(file.file_name().unwrap())).unwrap();
    }
    let encrypted = mindsage(&data, &["encrypt", with[0], with[1]]);
    assert!(
        encrypted.status.success(),
        "{}",
        String::from_utf8_lossy(&encrypted.stderr)
    );
    assert_eq!(files_holding(&data, MARKER_BODY), Vec::<PathBuf>::new());
}

#[test]
fn backups_stay_encrypted_and_exports_ask_first() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let journal = data.join("journal.db");
    let passphrase = passphrase_file(dir.path(), "p.txt", "correct horse battery");
    let wrong = passphrase_file(dir.path(), "wrong.txt", "not the passphrase");
    let with = ["--passphrase-file", arg(&passphrase)];
    journal_with_marker(&data, "4");
    json(&mindsage(&data, &["encrypt", "--json", with[0], with[1]]));

    // A backup: encrypted with the journal's key, and it says so.
    let backup = dir.path().join("backup.db");
    let made = json(&mindsage(
        &data,
        &["backup", arg(&backup), "--json", with[0], with[1]],
    ));
    assert_eq!(made["encrypted"], true);
    assert_eq!(made["entries"], 5);
    let bytes = std::fs::read(&backup).unwrap();
    assert!(!bytes.starts_with(b"SQLite format 3\0"));
    assert!(
        !bytes
            .windows(MARKER_BODY.len())
            .any(|w| w == MARKER_BODY.as_bytes())
    );
    let text = mindsage(
        &data,
        &["backup", arg(&dir.path().join("b2.db")), with[0], with[1]],
    );
    assert!(String::from_utf8_lossy(&text.stdout).contains("encrypted"));

    // Restoring it needs its passphrase; then the journal is as it was at the backup.
    json(&mindsage(
        &data,
        &[
            "add",
            "--title",
            "After the backup",
            "--body",
            "x",
            "--json",
            with[0],
            with[1],
        ],
    ));
    refused(
        &mindsage(&data, &["restore", arg(&backup), "--yes"]),
        &["backup.db is encrypted", "--passphrase-file"],
    );
    refused(
        &mindsage(
            &data,
            &["restore", arg(&backup), "--yes", "--passphrase-file", arg(&wrong)],
        ),
        &["passphrase does not open"],
    );
    let restored = json(&mindsage(
        &data,
        &["restore", arg(&backup), "--yes", "--json", with[0], with[1]],
    ));
    assert_eq!(restored["entries"], 5);
    assert_eq!(restored["encrypted"], true);
    assert!(cipher::is_encrypted(&journal));
    let listed = json(&mindsage(&data, &["list", "--json", with[0], with[1]]));
    assert_eq!(listed.as_array().unwrap().len(), 5);
    assert!(!listed.to_string().contains("After the backup"));
    assert!(files_holding(&data, MARKER_BODY).is_empty());

    // An export is plain: refused unless asked for, with or without the passphrase.
    let export = dir.path().join("export.json");
    for args in [
        &["export", arg(&export)][..],
        &["export", arg(&export), with[0], with[1]],
        &["export", arg(&export), "--format", "markdown", with[0], with[1]],
    ] {
        refused(
            &mindsage(&data, args),
            &[
                "is encrypted, but an export is not",
                "--allow-plain",
                "nothing was written",
            ],
        );
        assert!(!export.exists());
    }
    let exported = json(&mindsage(
        &data,
        &[
            "export",
            arg(&export),
            "--allow-plain",
            "--json",
            with[0],
            with[1],
        ],
    ));
    assert_eq!(exported["entries"], 5);
    assert!(std::fs::read_to_string(&export).unwrap().contains(MARKER_BODY));
}

#[test]
fn conversions_wait_for_the_journal_to_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let journal = data.join("journal.db");
    let passphrase = passphrase_file(dir.path(), "p.txt", "correct horse battery");
    json(&mindsage(&data, &["seed", "--entries", "3", "--json"]));

    // Another program has the plain journal open, as the app would (WAL, a read done).
    let other = rusqlite::Connection::open(&journal).unwrap();
    let mode: String = other.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let count = |conn: &rusqlite::Connection| -> i64 {
        conn.query_row("SELECT count(*) FROM journal_entries", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(count(&other), 3);
    refused(
        &mindsage(&data, &["encrypt", "--passphrase-file", arg(&passphrase)]),
        &["is open in another MindSage", "nothing was changed"],
    );
    assert!(is_plain_sqlite(&journal));
    assert_eq!(count(&other), 3, "the other connection still reads");
    drop(other);
    json(&mindsage(
        &data,
        &["encrypt", "--passphrase-file", arg(&passphrase), "--json"],
    ));

    // And the other way: the app has the encrypted journal open.
    let key = cipher::unlock(&journal, &Passphrase::new("correct horse battery").unwrap()).unwrap();
    let app = db::open(
        &journal,
        &StorageOptions {
            key: Some(key),
            ..StorageOptions::default()
        },
    )
    .unwrap();
    assert_eq!(count(&app), 3);
    refused(
        &mindsage(&data, &["decrypt", "--passphrase-file", arg(&passphrase)]),
        &["is open in another MindSage", "nothing was changed"],
    );
    assert!(cipher::is_encrypted(&journal));
    assert_eq!(count(&app), 3);
}

#[test]
fn a_passphrase_remembered_on_this_computer_opens_the_journal() {
    // The credential store is found through DBUS_SESSION_BUS_ADDRESS, which the private
    // Secret Service sets for its whole process: so in a process of its own, where no
    // other test's environment changes under it.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "remembered_passphrase_child",
            "--nocapture",
            "--ignored",
        ])
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.contains("1 passed"), "{printed}");
}

#[test]
#[ignore = "run by a_passphrase_remembered_on_this_computer_opens_the_journal"]
fn remembered_passphrase_child() {
    let Some(_service) = secret_service::SecretService::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let journal = data.join("journal.db");
    let first = passphrase_file(dir.path(), "first.txt", "correct horse battery");
    let second = passphrase_file(dir.path(), "second.txt", "a wholly new staple");
    let id = journal_with_marker(&data, "3").to_string();
    json(&mindsage(
        &data,
        &["encrypt", "--passphrase-file", arg(&first), "--json"],
    ));

    // `mindsage remember` keeps only a passphrase that opens the journal.
    refused(
        &mindsage(&data, &["remember", "--passphrase-file", arg(&second)]),
        &["passphrase does not open"],
    );
    assert!(keystore::remembered(&journal).unwrap().is_none());
    let remembered = json(&mindsage(
        &data,
        &["remember", "--passphrase-file", arg(&first), "--json"],
    ));
    assert_eq!(remembered["remembered"], true);

    // No passphrase given: the remembered one opens the journal, and the finest log of
    // the credential store's traffic does not show it.
    let output = mindsage_with(&data, &["show", &id, "--json"], &[("RUST_LOG", "trace")]);
    assert_no_passphrase(&output, &["correct horse battery"]);
    let shown = json(&output);
    assert_eq!(shown["body"], MARKER_BODY);

    // A new passphrase replaces the remembered one.
    let rekeyed = json(&mindsage(
        &data,
        &["rekey", "--new-passphrase-file", arg(&second), "--json"],
    ));
    assert_eq!(rekeyed["remembered_passphrase"], "updated");
    let remembered = keystore::remembered(&journal).unwrap().unwrap();
    assert_eq!(remembered.as_str(), "a wholly new staple");
    json(&mindsage(&data, &["list", "--json"]));

    // `mindsage forget` forgets it: the passphrase is asked for again.
    let forgotten = json(&mindsage(&data, &["forget", "--json"]));
    assert_eq!(forgotten["remembered"], false);
    assert!(keystore::remembered(&journal).unwrap().is_none());
    refused(
        &mindsage(&data, &["list"]),
        &["is encrypted", "--passphrase-file"],
    );

    // One that no longer fits is named, and the command asks for the passphrase instead.
    keystore::remember(&journal, &Passphrase::new("correct horse battery").unwrap()).unwrap();
    refused(
        &mindsage(&data, &["list"]),
        &[
            "remembered on this computer does not open",
            "is encrypted",
            "--passphrase-file",
        ],
    );
    json(&mindsage(
        &data,
        &["list", "--json", "--passphrase-file", arg(&second)],
    ));

    // Decrypting forgets it: a plain journal has no passphrase to remember.
    keystore::remember(&journal, &Passphrase::new("a wholly new staple").unwrap()).unwrap();
    let decrypted = json(&mindsage(&data, &["decrypt", "--json"]));
    assert_eq!(decrypted["remembered_passphrase"], "forgotten");
    assert!(keystore::remembered(&journal).unwrap().is_none());
    json(&mindsage(&data, &["show", &id, "--json"]));
}
