//! Backups of a journal in use, and restores that never lose the journal they replace.

mod common;

use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, DbError, StorageOptions, backup};
use mindsage_core::demo::{self, DemoOptions};

fn entry_count(journal: &TempJournal) -> u64 {
    entries::count(&journal.open(), DEFAULT_USER).unwrap()
}

#[test]
fn a_backup_taken_while_the_writer_saves_is_whole() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(300, 4)).unwrap();
    let writer = Writer::spawn(&journal.path, &StorageOptions::default()).unwrap();
    let saving = std::thread::spawn(move || {
        for i in 0..200 {
            let entry = NewEntry {
                body: format!("saved during the backup {i}"),
                ..NewEntry::default()
            };
            writer
                .call(move |c| entries::create(c, DEFAULT_USER, &entry))
                .unwrap();
        }
    });
    let file = journal.dir.path().join("backup.db");
    let report = backup::backup(&conn, &file, None).unwrap();
    saving.join().unwrap();
    assert!((300..=500).contains(&report.entries), "{report:?}");
    assert_eq!(backup::check(&file, None).unwrap(), report.entries);
    assert!(!journal.dir.path().join(".backup.db.partial").exists());
    for beside in ["backup.db-wal", "backup.db-shm"] {
        assert!(
            !journal.dir.path().join(beside).exists(),
            "{beside} left beside the backup"
        );
    }
}

#[test]
fn restore_replaces_the_journal_and_leaves_no_copy_behind() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(50, 5)).unwrap();
    let file = journal.dir.path().join("monday.db");
    backup::backup(&conn, &file, None).unwrap();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(25, 6)).unwrap();
    drop(conn);
    assert_eq!(entry_count(&journal), 75);

    let report = backup::restore(&journal.path, &file, &StorageOptions::default(), None).unwrap();
    assert_eq!(report.entries, 50);
    assert_eq!(entry_count(&journal), 50);
    let left: Vec<_> = std::fs::read_dir(journal.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("restor"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    assert!(file.exists(), "the backup itself is kept");
}

#[test]
fn a_bad_backup_changes_nothing() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(30, 7)).unwrap();
    db::checkpoint(
        &conn,
        db::Checkpoint::Truncate,
        std::time::Duration::from_secs(1),
        std::time::Duration::from_secs(1),
    )
    .unwrap();
    drop(conn);
    let before = std::fs::read(&journal.path).unwrap();

    let good = journal.dir.path().join("good.db");
    backup::backup(&journal.open(), &good, None).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let truncated = journal.dir.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let garbage = journal.dir.path().join("garbage.db");
    std::fs::write(&garbage, "not a database at all, just words").unwrap();
    let newer = journal.dir.path().join("newer.db");
    std::fs::copy(&good, &newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch("PRAGMA user_version = 999")
        .unwrap();
    let other = journal.dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();

    for bad in [
        &truncated,
        &garbage,
        &newer,
        &other,
        &journal.dir.path().join("missing.db"),
    ] {
        let error = backup::restore(&journal.path, bad, &StorageOptions::default(), None).unwrap_err();
        assert!(
            matches!(
                error,
                DbError::NotAJournal { .. } | DbError::TooNew { .. } | DbError::Open { .. }
            ),
            "{}: {error}",
            bad.display()
        );
        assert!(error.to_string().contains(&bad.display().to_string()), "{error}");
        assert_eq!(
            std::fs::read(&journal.path).unwrap(),
            before,
            "{} changed the journal",
            bad.display()
        );
    }
    assert_eq!(entry_count(&journal), 30);
}

#[test]
fn automatic_backups_come_when_due_and_the_oldest_go() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(10, 8)).unwrap();
    let data = journal.dir.path();
    let day = |n: i64| {
        chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
            .unwrap()
            .to_utc()
            + chrono::Duration::days(n)
    };
    let hours = chrono::Duration::hours;

    assert!(
        backup::backup_if_due(&conn, data, 1, 3, day(0), false, None)
            .unwrap()
            .is_some(),
        "the first one is due"
    );
    assert!(
        backup::backup_if_due(&conn, data, 1, 3, day(0) + hours(5), false, None)
            .unwrap()
            .is_none(),
        "not again the same day"
    );
    for n in 1..=4 {
        let report = backup::backup_if_due(&conn, data, 1, 3, day(n), false, None)
            .unwrap()
            .expect("a day later, due");
        assert_eq!(backup::check(&report.path, None).unwrap(), 10);
    }
    assert_eq!(
        files_in(&data.join(backup::BACKUPS_FOLDER)),
        [
            "journal-2026-12-03T090000.000.db",
            "journal-2026-12-04T090000.000.db",
            "journal-2026-12-05T090000.000.db"
        ]
    );
    assert!(
        backup::backup_if_due(&conn, data, 0, 3, day(30), false, None)
            .unwrap()
            .is_none(),
        "0 days: never"
    );
}

#[test]
fn what_a_kill_left_of_a_backup_is_never_listed_and_is_erased_at_the_next() {
    // What a kill leaves under the hidden names (core/tests/crash.rs kills there): a
    // copy being made, with its rollback journal, and a pruned backup being erased.
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(5, 9)).unwrap();
    let data = journal.dir.path();
    let folder = data.join(backup::BACKUPS_FOLDER);
    std::fs::create_dir_all(&folder).unwrap();
    for leftover in [
        ".journal-2026-11-30T090000.000.db.partial",
        ".journal-2026-11-30T090000.000.db.partial-journal",
        ".journal-2026-11-29T090000.000.db.erasing",
    ] {
        std::fs::write(folder.join(leftover), b"half of a journal").unwrap();
    }
    assert!(backup::list(data).is_empty());

    let at = |time: &str| chrono::DateTime::parse_from_rfc3339(time).unwrap().to_utc();
    backup::backup_if_due(&conn, data, 1, 1, at("2026-12-01T09:00:00Z"), true, None).unwrap();
    // Keeping one, this prunes the first (renamed out of the list, then erased).
    backup::backup_if_due(&conn, data, 1, 1, at("2026-12-02T09:00:00Z"), true, None).unwrap();
    assert_eq!(files_in(&folder), ["journal-2026-12-02T090000.000.db"]);
}

/// The files in `folder` but the lock every copy into `backups/` holds (no text).
fn files_in(folder: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != backup::COPYING_LOCK)
        .collect();
    names.sort();
    names
}

#[test]
fn what_a_killed_backup_of_any_name_left_in_backups_is_erased_when_the_journal_next_opens() {
    // `mindsage backup backups/manual.db` killed mid-copy left `.manual.db.partial`:
    // it held the text of entries purged since, and stayed plain once the journal was
    // encrypted (#30). The next open of the journal (any command, the window) erases
    // it, unless a copy into the folder is being made meanwhile.
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(5, 9)).unwrap();
    let folder = journal.dir.path().join(backup::BACKUPS_FOLDER);
    std::fs::create_dir_all(&folder).unwrap();
    backup::backup(&conn, &folder.join("manual.db"), None).unwrap();
    let leftovers = [
        ".manual 2.db.partial",
        ".manual 2.db.partial-journal",
        ".old.db.erasing",
    ];
    for leftover in leftovers {
        std::fs::write(folder.join(leftover), b"half of a journal").unwrap();
    }
    // Another process making a copy into backups/ holds the lock shared: nothing of
    // what might be its copy is touched.
    let copying = std::fs::File::open(folder.join(backup::COPYING_LOCK)).unwrap();
    copying.lock_shared().unwrap();
    drop(journal.open());
    assert_eq!(files_in(&folder).len(), 4);
    drop(copying);

    drop(journal.open());
    assert_eq!(files_in(&folder), ["manual.db"]);
    assert_eq!(backup::check(&folder.join("manual.db"), None).unwrap(), 5);
}

#[test]
fn a_backup_to_a_chosen_file_erases_what_a_killed_one_left_there() {
    // `mindsage backup FILE` killed mid-copy leaves `.FILE.partial` and its rollback
    // journal beside FILE; the next backup to FILE erases them before copying.
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(5, 9)).unwrap();
    let chosen = tempfile::tempdir().unwrap();
    for leftover in [".kept.db.partial", ".kept.db.partial-journal"] {
        std::fs::write(chosen.path().join(leftover), b"half of a journal").unwrap();
    }
    let report = backup::backup(&conn, &chosen.path().join("kept.db"), None).unwrap();
    assert_eq!(report.entries, 5);
    let names: Vec<_> = std::fs::read_dir(chosen.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["kept.db"]);
}

#[test]
fn a_backup_restored_into_the_open_journal_is_what_its_other_connections_read() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(40, 8)).unwrap();
    let write = |conn: &mut rusqlite::Connection, body: &str| {
        let entry = NewEntry {
            body: body.into(),
            ..NewEntry::default()
        };
        entries::create(conn, DEFAULT_USER, &entry).unwrap();
    };
    write(&mut conn, "A walrus on the beach before the backup.");
    let file = journal.dir.path().join("tuesday.db");
    backup::backup(&conn, &file, None).unwrap();
    write(&mut conn, "A zebra written after the backup.");
    // The app's reader, open all the while.
    let reader = journal.open();
    assert_eq!(entries::count(&reader, DEFAULT_USER).unwrap(), 42);
    let matches = |conn: &rusqlite::Connection, word: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1",
            [word],
            |r| r.get(0),
        )
        .unwrap()
    };

    let kept = journal.dir.path().join("as it was.db");
    let report = backup::restore_into(&mut conn, &journal.path, &file, &kept, None).unwrap();
    assert_eq!(report.entries, 41);
    assert_eq!(
        backup::check(&kept, None).unwrap(),
        42,
        "the journal as it was is kept"
    );
    assert_eq!(entries::count(&reader, DEFAULT_USER).unwrap(), 41);
    assert_eq!((matches(&reader, "walrus"), matches(&reader, "zebra")), (1, 0));
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal", "the journal stays in WAL mode");
    let left: Vec<_> = std::fs::read_dir(journal.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial") || n.starts_with("as it was.db-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    // A bad backup: refused, the journal as it was.
    let garbage = journal.dir.path().join("garbage.db");
    std::fs::write(&garbage, "not a database at all, just words").unwrap();
    let error = backup::restore_into(&mut conn, &journal.path, &garbage, &kept, None).unwrap_err();
    assert!(
        matches!(error, DbError::NotAJournal { .. } | DbError::Open { .. }),
        "{error}"
    );
    assert_eq!(entries::count(&reader, DEFAULT_USER).unwrap(), 41);

    // A backup from an older version comes in upgraded.
    let older = journal.dir.path().join("older.db");
    {
        let old = rusqlite::Connection::open(&older).unwrap();
        db::migrate::migrate_to(&old, &older, db::migrate::latest_version() - 1).unwrap();
    }
    let report = backup::restore_into(&mut conn, &journal.path, &older, &kept, None).unwrap();
    assert_eq!(report.entries, 0);
    let version: i64 = reader.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, db::migrate::latest_version());
    assert_eq!(
        db::history::days(&reader, DEFAULT_USER).unwrap(),
        db::history::DEFAULT_DAYS
    );
}
