//! The journal file: opening, refusing bad files, migrations, CRUD, trash and purge,
//! and the writer thread next to readers. Every test uses real files on disk.

mod common;

use std::time::Duration;

use common::{TempJournal, contains, journal_files};
use mindsage_core::db::entries::{self, EntryEdit, ListFilter, NewEntry};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, DbError, StorageOptions, migrate};
use mindsage_core::demo::{self, DemoOptions};
use rand::SeedableRng;
use rusqlite::Connection;

const USER: i64 = DEFAULT_USER;

fn entry(title: &str, body: &str, tags: &[&str]) -> NewEntry {
    NewEntry {
        title: title.into(),
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        mood_score: Some(6),
        created_at: None,
    }
}

#[test]
fn new_journal_has_the_promised_settings() {
    let journal = TempJournal::new();
    let conn = journal.open();
    let pragmas = db::effective_pragmas(&conn).unwrap();
    assert_eq!(pragmas.journal_mode, "wal");
    assert_eq!(pragmas.synchronous, "normal");
    assert!(pragmas.foreign_keys && pragmas.secure_delete);
    assert_eq!(pragmas.mmap_size, 1 << 30);
    assert_eq!(pragmas.temp_store, "memory");
    assert_eq!(pragmas.schema_version, migrate::latest_version());
    assert!(pragmas.busy_timeout_ms > 0);

    let unmapped = StorageOptions {
        mmap_size: 0,
        ..Default::default()
    };
    let conn = db::open(&journal.path, &unmapped).unwrap();
    assert_eq!(db::effective_pragmas(&conn).unwrap().mmap_size, 0);

    // The writer's and the job runner's connections map nothing and keep a small cache.
    let conn = db::open(&journal.path, &StorageOptions::default().for_background()).unwrap();
    let background = db::effective_pragmas(&conn).unwrap();
    assert_eq!(background.mmap_size, 0);
    assert_eq!(background.cache_size, -8 * 1024);
}

#[test]
fn every_earlier_version_upgrades_and_keeps_its_entries() {
    for start in 0..migrate::latest_version() {
        let journal = TempJournal::new();
        {
            let conn = Connection::open(&journal.path).unwrap();
            conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
            migrate::migrate_to(&conn, &journal.path, start).unwrap();
            if start >= 1 {
                // Written as that version's code wrote it: plain rows, its own triggers.
                conn.execute_batch(
                    "INSERT INTO journal_entries (id, user_id, created_at, updated_at, local_date, title, body, \
                     preview, word_count) VALUES (1, 1, '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:00.000Z', \
                     '2026-01-01', 'Before the upgrade', 'otters in the canal 東京に', 'otters in the canal 東京に', 5);
                     INSERT INTO tags (id, user_id, name) VALUES (1, 1, 'nature');
                     INSERT INTO entry_tags (entry_id, tag_id, entry_created_at) \
                     VALUES (1, 1, '2026-01-01T10:00:00.000Z');",
                )
                .unwrap();
            }
            if start >= 4 {
                // From version 4 the saving code, not a trigger, writes the index row;
                // from version 17 with unspaced scripts in pairs.
                let body = "otters in the canal 東京に";
                let indexed = if start >= 17 {
                    mindsage_core::scripts::for_index(body)
                } else {
                    body.into()
                };
                conn.execute(
                    "INSERT INTO entries_fts (rowid, title, body, tags) \
                     VALUES (1, 'Before the upgrade', ?1, 'nature')",
                    [indexed.as_ref()],
                )
                .unwrap();
            }
            if start >= 6 {
                // From version 6 the saving code copies the tag names into the row.
                conn.execute_batch("UPDATE journal_entries SET tag_names = 'nature' WHERE id = 1")
                    .unwrap();
            }
        }
        let conn = journal.open();
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, migrate::latest_version(), "from version {start}");
        if start >= 1 {
            let page = entries::list(&conn, USER, &ListFilter::default(), None, 10).unwrap();
            assert_eq!(page.rows.len(), 1);
            assert_eq!(page.rows[0].tags, ["nature"]);
            // The full-text index added later covers entries written before it existed.
            let hits: i64 = conn
                .query_row(
                    "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'otters'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(hits, 1, "from version {start}");
            // Words in unspaced scripts, indexed whole before version 17, are found.
            let hits: i64 = conn
                .query_row(
                    "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '\"東京\"'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(hits, 1, "東京, from version {start}");
        }
    }
}

#[test]
fn newer_journal_is_refused_and_left_untouched() {
    let journal = TempJournal::new();
    drop(journal.open());
    {
        let conn = Connection::open(&journal.path).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA user_version = {}",
            migrate::latest_version() + 1
        ))
        .unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    }
    let before = journal_files(&journal.path);
    let err = db::open(&journal.path, &StorageOptions::default()).unwrap_err();
    assert!(matches!(err, DbError::TooNew { .. }), "{err}");
    assert!(
        err.to_string().contains("journal.db"),
        "error names the file: {err}"
    );
    assert_eq!(journal_files(&journal.path), before);
}

#[test]
fn corrupt_file_is_refused_with_its_name_and_left_untouched() {
    let journal = TempJournal::new();
    let garbage: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&journal.path, &garbage).unwrap();
    let err = db::open(&journal.path, &StorageOptions::default()).unwrap_err();
    // Random bytes in whole pages look like an encrypted journal, which is all
    // random bytes: without a key the two cannot be told apart, and the message says both.
    assert!(
        matches!(err, DbError::NotAJournal { .. } | DbError::Encrypted { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("journal.db"));
    assert!(err.to_string().contains("damaged"), "{err}");
    assert_eq!(std::fs::read(&journal.path).unwrap(), garbage);
    assert_eq!(journal_files(&journal.path).len(), 1, "no -wal or -shm created");
}

#[test]
fn a_truncated_journal_is_refused_with_its_name_and_left_untouched() {
    // A journal cut short (a copy that stopped half way, a full disk during a move).
    let journal = TempJournal::new();
    {
        let mut conn = journal.open();
        demo::seed(&mut conn, USER, &DemoOptions::fixed(300, 5)).unwrap();
        db::checkpoint(
            &conn,
            db::Checkpoint::Truncate,
            Duration::from_secs(1),
            Duration::from_secs(5),
        )
        .unwrap();
    }
    let whole = std::fs::read(&journal.path).unwrap();
    std::fs::write(&journal.path, &whole[..whole.len() / 2]).unwrap();
    for side in journal_files(&journal.path).into_iter().skip(1) {
        std::fs::remove_file(side.0).unwrap();
    }
    let cut = std::fs::read(&journal.path).unwrap();
    let err = db::open(&journal.path, &StorageOptions::default()).unwrap_err();
    assert!(matches!(err, DbError::NotAJournal { .. }), "{err}");
    assert!(err.to_string().contains("journal.db"), "{err}");
    assert_eq!(std::fs::read(&journal.path).unwrap(), cut);
}

#[test]
fn another_programs_database_is_refused() {
    let journal = TempJournal::new();
    {
        let conn = Connection::open(&journal.path).unwrap();
        conn.execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
            .unwrap();
    }
    let before = std::fs::read(&journal.path).unwrap();
    let err = db::open(&journal.path, &StorageOptions::default()).unwrap_err();
    assert!(matches!(err, DbError::NotAJournal { .. }), "{err}");
    assert_eq!(std::fs::read(&journal.path).unwrap(), before);
}

#[test]
fn create_read_update_and_list() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let id = entries::create(
        &mut conn,
        USER,
        &entry("  First  ", "one two three", &["Work", "work", " home "]),
    )
    .unwrap();
    let got = entries::get(&conn, USER, id).unwrap();
    assert_eq!(got.title, "First");
    assert!(got.title_by_user);
    assert_eq!(got.word_count, 3);
    assert_eq!(got.tags, ["home", "Work"]);
    assert_eq!(got.created_at, got.updated_at);
    // List rows carry their own copy of the tag names; it follows every edit.
    let list_tags = |conn: &rusqlite::Connection| {
        let page = entries::list(conn, USER, &ListFilter::default(), None, 10).unwrap();
        page.rows.into_iter().find(|r| r.id == id).unwrap().tags
    };
    assert_eq!(list_tags(&conn), ["home", "Work"]);

    entries::update(
        &mut conn,
        USER,
        id,
        &EntryEdit {
            title: String::new(),
            body: "just two".into(),
            tags: vec!["home".into()],
            mood_score: None,
        },
    )
    .unwrap();
    let got = entries::get(&conn, USER, id).unwrap();
    assert_eq!(
        (
            got.title.as_str(),
            got.title_by_user,
            got.word_count,
            got.mood_score
        ),
        ("", false, 2, None)
    );
    assert_eq!(got.tags, ["home"]);
    assert_eq!(list_tags(&conn), ["home"]);
    let retag = |conn: &mut rusqlite::Connection, tags: &[&str]| {
        let edit = EntryEdit {
            title: String::new(),
            body: "just two".into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            mood_score: None,
        };
        entries::update(conn, USER, id, &edit).unwrap();
    };
    retag(&mut conn, &[]);
    assert!(list_tags(&conn).is_empty());
    retag(&mut conn, &["home"]);
    // The tag nobody uses any more is gone with its name.
    assert_eq!(entries::all_tags(&conn, USER).unwrap(), ["home"]);

    assert!(matches!(
        entries::get(&conn, USER, id + 100),
        Err(DbError::EntryNotFound(_))
    ));
    assert!(
        matches!(entries::get(&conn, USER + 1, id), Err(DbError::EntryNotFound(_))),
        "other users' entries are invisible"
    );
    let bad = NewEntry {
        mood_score: Some(11),
        ..entry("x", "y", &[])
    };
    assert!(matches!(
        entries::create(&mut conn, USER, &bad),
        Err(DbError::Invalid(_))
    ));
}

#[test]
fn pages_walk_the_whole_journal_newest_first_with_filters() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(
        &mut conn,
        USER,
        &DemoOptions {
            photo_every: 0,
            ..DemoOptions::fixed(500, 3)
        },
    )
    .unwrap();
    assert_eq!(entries::count(&conn, USER).unwrap(), 500);

    let walk = |filter: &ListFilter| {
        let mut rows = Vec::new();
        let mut after = None;
        loop {
            let page = entries::list(&conn, USER, filter, after.as_ref(), 37).unwrap();
            rows.extend(page.rows);
            match page.next {
                Some(next) => after = Some(next),
                None => return rows,
            }
        }
    };
    let all = walk(&ListFilter::default());
    assert_eq!(all.len(), 500);
    assert!(
        all.windows(2)
            .all(|w| (&w[0].created_at, w[0].id) > (&w[1].created_at, w[1].id))
    );

    let running = walk(&ListFilter {
        tag: Some("RUNNING".into()),
        ..Default::default()
    });
    let expected: Vec<i64> = all
        .iter()
        .filter(|r| r.tags.iter().any(|t| t == "running"))
        .map(|r| r.id)
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(running.iter().map(|r| r.id).collect::<Vec<_>>(), expected);

    // Days are the days lived, where each entry was written.
    let day = |row: &entries::EntryRow| row.lived().unwrap().date_naive();
    let (from, to) = (day(&all[300]), day(&all[100]));
    let within = |row: &entries::EntryRow| (from..=to).contains(&day(row));
    let ranged = walk(&ListFilter {
        from: Some(from),
        to: Some(to),
        ..Default::default()
    });
    let expected: Vec<i64> = all.iter().filter(|r| within(r)).map(|r| r.id).collect();
    assert_eq!(ranged.iter().map(|r| r.id).collect::<Vec<_>>(), expected);

    let both = walk(&ListFilter {
        tag: Some("running".into()),
        from: Some(from),
        to: Some(to),
        trash: false,
    });
    let expected: Vec<i64> = all
        .iter()
        .filter(|r| within(r) && r.tags.iter().any(|t| t == "running"))
        .map(|r| r.id)
        .collect();
    assert_eq!(both.iter().map(|r| r.id).collect::<Vec<_>>(), expected);
}

/// A day's page opens on the newest entry lived that day where it was written (a late
/// entry from another zone counts for its own day), never a trashed one.
#[test]
fn the_newest_entry_of_a_day_is_the_one_lived_last_that_day() {
    use chrono::{FixedOffset, TimeZone};
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let at = |hours: i32, text: &str| {
        let zone = FixedOffset::east_opt(hours * 3600).unwrap();
        NewEntry {
            created_at: Some(zone.with_ymd_and_hms(2026, 3, 14, 23, 30, 0).unwrap()),
            ..entry(text, text, &[])
        }
    };
    let day = chrono::NaiveDate::from_ymd_opt(2026, 3, 14).unwrap();
    assert_eq!(entries::newest_on(&conn, USER, day).unwrap(), None);
    // 23:30 in Tokyo is earlier in time than 23:30 in London, but both are the 14th.
    let tokyo = entries::create(&mut conn, USER, &at(9, "Tokyo")).unwrap();
    assert_eq!(entries::newest_on(&conn, USER, day).unwrap().unwrap().id, tokyo);
    let london = entries::create(&mut conn, USER, &at(0, "London")).unwrap();
    assert_eq!(entries::newest_on(&conn, USER, day).unwrap().unwrap().id, london);
    // 23:30 on the 14th in New York is the 15th in UTC: still the 14th's.
    let new_york = entries::create(&mut conn, USER, &at(-5, "New York")).unwrap();
    let newest = entries::newest_on(&conn, USER, day).unwrap().unwrap();
    assert_eq!((newest.id, newest.body.as_str()), (new_york, "New York"));
    entries::soft_delete(&mut conn, USER, new_york).unwrap();
    assert_eq!(entries::newest_on(&conn, USER, day).unwrap().unwrap().id, london);
    assert_eq!(
        entries::newest_on(&conn, USER, day.succ_opt().unwrap()).unwrap(),
        None
    );
}

/// An entry written after midnight about the day before is moved to that day: its
/// lived date and time, its day's totals, its tag's list and the day's page follow, its
/// text and history do not; a time still to come and a missing entry are refused.
#[test]
fn an_entry_moved_to_another_day_counts_for_that_day_everywhere() {
    use chrono::{FixedOffset, NaiveDate, TimeZone};
    use mindsage_core::db::stats;
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let tokyo = FixedOffset::east_opt(9 * 3600).unwrap();
    let late = NewEntry {
        created_at: Some(tokyo.with_ymd_and_hms(2026, 3, 15, 0, 40, 0).unwrap()),
        ..entry("The gig", "We stayed until the very end", &["music"])
    };
    let id = entries::create(&mut conn, USER, &late).unwrap();
    let before = entries::get(&conn, USER, id).unwrap();
    let (the_14th, the_15th) = (
        NaiveDate::from_ymd_opt(2026, 3, 14).unwrap(),
        NaiveDate::from_ymd_opt(2026, 3, 15).unwrap(),
    );

    let evening = tokyo.with_ymd_and_hms(2026, 3, 14, 23, 15, 0).unwrap();
    entries::redate(&conn, USER, id, evening).unwrap();

    let after = entries::get(&conn, USER, id).unwrap();
    assert_eq!(after.lived(), Some(evening));
    assert_eq!(
        (after.body.as_str(), after.revision),
        (before.body.as_str(), before.revision)
    );
    assert!(after.updated_at >= before.updated_at);
    assert_eq!(entries::newest_on(&conn, USER, the_14th).unwrap().unwrap().id, id);
    assert_eq!(entries::newest_on(&conn, USER, the_15th).unwrap(), None);
    let days = stats::days_between(&conn, USER, the_14th, the_15th).unwrap();
    assert_eq!(
        days.iter()
            .map(|d| (d.date, d.entries, d.words))
            .collect::<Vec<_>>(),
        [(the_14th, 1, u64::from(before.word_count))]
    );
    let on_the_14th = ListFilter {
        tag: Some("music".into()),
        from: Some(the_14th),
        to: Some(the_14th),
        ..Default::default()
    };
    let rows = entries::list(&conn, USER, &on_the_14th, None, 10).unwrap().rows;
    assert_eq!(rows.iter().map(|r| r.id).collect::<Vec<_>>(), [id]);
    assert!(db::history::versions(&conn, id).unwrap().is_empty());

    let tomorrow = chrono::Local::now().fixed_offset() + chrono::Duration::days(1);
    let refused = entries::redate(&conn, USER, id, tomorrow).unwrap_err();
    assert!(refused.to_string().contains("still to come"), "{refused}");
    assert_eq!(entries::get(&conn, USER, id).unwrap().lived(), Some(evening));
    assert!(matches!(
        entries::redate(&conn, USER, id + 1, evening),
        Err(DbError::EntryNotFound(_))
    ));
}

#[test]
fn trash_restore_and_errors() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let keep = entries::create(&mut conn, USER, &entry("Keep", "stays", &[])).unwrap();
    let trash = entries::create(&mut conn, USER, &entry("Trash", "goes", &["t"])).unwrap();
    entries::soft_delete(&mut conn, USER, trash).unwrap();
    entries::soft_delete(&mut conn, USER, trash).unwrap(); // twice is fine

    let live = entries::list(&conn, USER, &ListFilter::default(), None, 10).unwrap();
    assert_eq!(live.rows.iter().map(|r| r.id).collect::<Vec<_>>(), [keep]);
    let in_trash = entries::list(
        &conn,
        USER,
        &ListFilter {
            trash: true,
            ..Default::default()
        },
        None,
        10,
    )
    .unwrap();
    assert_eq!(in_trash.rows.iter().map(|r| r.id).collect::<Vec<_>>(), [trash]);
    assert!(in_trash.rows[0].deleted_at.is_some());
    assert_eq!(entries::count(&conn, USER).unwrap(), 1);

    entries::restore(&mut conn, USER, trash).unwrap();
    assert_eq!(entries::count(&conn, USER).unwrap(), 2);
    assert!(!entries::get(&conn, USER, trash).unwrap().is_deleted);
    assert!(matches!(
        entries::soft_delete(&mut conn, USER, 9_999),
        Err(DbError::EntryNotFound(9_999))
    ));
    assert!(matches!(
        entries::purge(&mut conn, USER, 9_999, Duration::from_secs(1)),
        Err(DbError::EntryNotFound(_))
    ));
}

#[test]
fn purge_leaves_no_trace_of_the_text_in_any_file() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(
        &mut conn,
        USER,
        &DemoOptions {
            photo_every: 0,
            ..DemoOptions::fixed(200, 9)
        },
    )
    .unwrap();
    let marker = "zqxsecretmarker4711";
    let body = format!("Nobody may ever read this: {marker}. ").repeat(40);
    let secret = entries::create(
        &mut conn,
        USER,
        &entry(&format!("Title {marker}"), &body, &["zqxprivatetag"]),
    )
    .unwrap();
    // An edit keeps the marked text in the entry's history, which purge must erase too.
    let edit = entries::EntryEdit {
        title: "Edited".into(),
        body: "Nothing to see.".into(),
        tags: vec!["zqxprivatetag".into()],
        mood_score: None,
    };
    entries::update(&mut conn, USER, secret, &edit).unwrap();
    assert_eq!(db::history::versions(&conn, secret).unwrap().len(), 1);
    // A second connection, as the app's reader holds one open.
    let reader = journal.open();
    assert_eq!(
        entries::get(&reader, USER, secret).unwrap().tags,
        ["zqxprivatetag"]
    );
    // Move it into the main file too, where a careless delete would leave it behind.
    conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)").unwrap();
    let before: Vec<u8> = journal_files(&journal.path)
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect();
    assert!(
        contains(&before, marker.as_bytes()),
        "the marker is on disk before the purge"
    );

    entries::soft_delete(&mut conn, USER, secret).unwrap();
    let report = entries::purge(&mut conn, USER, secret, Duration::from_secs(5)).unwrap();
    assert!(report.wal_cleared);
    for (file, bytes) in journal_files(&journal.path) {
        assert!(
            !contains(&bytes, marker.as_bytes()),
            "marker survives in {}",
            file.display()
        );
        assert!(
            !contains(&bytes, b"zqxprivatetag"),
            "tag survives in {}",
            file.display()
        );
    }
    assert!(matches!(
        entries::get(&reader, USER, secret),
        Err(DbError::EntryNotFound(_))
    ));
    // The rest of the journal is intact and still searchable.
    assert_eq!(entries::count(&reader, USER).unwrap(), 200);
    let fts: i64 = reader
        .query_row(
            "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'knee'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(fts > 0);
}

#[test]
fn writer_thread_and_readers_interleave_without_waiting_or_tearing() {
    let journal = TempJournal::new();
    {
        let mut conn = journal.open();
        demo::seed(
            &mut conn,
            USER,
            &DemoOptions {
                photo_every: 0,
                ..DemoOptions::fixed(300, 5)
            },
        )
        .unwrap();
    }
    let writer = Writer::spawn(&journal.path, &StorageOptions::default()).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let path = journal.path.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let conn = db::open(&path, &StorageOptions::default()).unwrap();
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    // One snapshot: the count and the rows must agree however the writer moves.
                    conn.execute_batch("BEGIN").unwrap();
                    let count = entries::count(&conn, USER).unwrap();
                    let page = entries::list(&conn, USER, &ListFilter::default(), None, 5_000).unwrap();
                    conn.execute_batch("COMMIT").unwrap();
                    assert_eq!(page.rows.len() as u64, count);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    let mut pending = Vec::new();
    for i in 0..300 {
        let new = entry(&format!("Written {i}"), "from the writer thread", &["storm"]);
        pending.push(writer.submit(move |conn| entries::create(conn, USER, &new)));
        if i % 3 == 0 {
            let victim = (i / 3 + 1) as i64;
            pending.push(writer.submit(move |conn| entries::soft_delete(conn, USER, victim).map(|_| 0)));
        }
    }
    for reply in pending {
        reply.recv().unwrap().unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for reader in readers {
        assert!(reader.join().unwrap() > 0);
    }
    let conn = journal.open();
    assert_eq!(entries::count(&conn, USER).unwrap(), 300 + 300 - 100);
    drop(writer);
    // Dropping the writer checkpointed: the -wal file is empty.
    let wal = std::fs::metadata(format!("{}-wal", journal.path.display()))
        .map(|m| m.len())
        .unwrap_or(0);
    assert_eq!(wal, 0);
}

/// A look at the writer's connection leaves nothing to checkpoint, so the other
/// connections' `PRAGMA data_version` stays where it is (the app's reader polls it to
/// notice other writers; a truncating checkpoint after each look would move it for
/// ever). A write is seen, and so is the writer's own idle checkpoint after it.
#[test]
fn a_look_at_the_writer_moves_no_other_connections_data_version() {
    let journal = TempJournal::new();
    let writer = Writer::spawn(&journal.path, &StorageOptions::default()).unwrap();
    let reader = journal.open();
    let data_version =
        |conn: &Connection| -> i64 { conn.query_row("PRAGMA data_version", [], |r| r.get(0)).unwrap() };
    // Past the writer's idle wait, so its checkpoint after a job has run.
    let settle = || std::thread::sleep(Duration::from_millis(600));

    let new = entry("Seen", "by the reader", &[]);
    writer
        .call(move |conn| entries::create(conn, USER, &new))
        .unwrap();
    settle();
    let before = data_version(&reader);
    for _ in 0..3 {
        let writers_view =
            writer.look(|conn| Ok(conn.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0))?));
        writers_view.recv().unwrap().unwrap();
        settle();
    }
    assert_eq!(data_version(&reader), before, "looks brought on no checkpoint");

    writer.call(|_| Ok(())).unwrap();
    settle();
    assert_ne!(
        data_version(&reader),
        before,
        "a job that may write is checkpointed after"
    );
}

#[test]
fn writer_reports_open_failures() {
    let journal = TempJournal::new();
    std::fs::write(&journal.path, b"not a database at all, not even close........").unwrap();
    assert!(matches!(
        Writer::spawn(&journal.path, &StorageOptions::default()),
        Err(DbError::NotAJournal { .. })
    ));
}

#[test]
fn gallery_pages_and_random_picks_skip_trashed_entries() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let report = demo::seed(
        &mut conn,
        USER,
        &DemoOptions {
            photo_every: 5,
            ..DemoOptions::fixed(100, 21)
        },
    )
    .unwrap();
    assert_eq!(report.photos, 20);
    let (first, next) = mindsage_core::db::gallery::page(&conn, USER, None, 15).unwrap();
    let (rest, end) = mindsage_core::db::gallery::page(&conn, USER, next.as_ref(), 15).unwrap();
    assert_eq!((first.len(), rest.len(), end), (15, 5, None));
    let thumb = image::load_from_memory(&first[0].thumbnail_jpeg).unwrap();
    assert!(thumb.width() <= 256 && thumb.height() <= 256);

    let trashed = first[0].entry_id;
    entries::soft_delete(&mut conn, USER, trashed).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let picks = mindsage_core::db::gallery::random(&conn, USER, 8, &mut rng).unwrap();
    assert_eq!(picks.len(), 8);
    let mut ids: Vec<i64> = picks.iter().map(|p| p.media_id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 8, "no photo twice");
    assert!(picks.iter().all(|p| p.entry_id != trashed));
    // More than there are: every photo of a live entry, once.
    let all = mindsage_core::db::gallery::random(&conn, USER, 50, &mut rng).unwrap();
    assert!(all.len() <= 19 && all.len() >= 15, "got {}", all.len());
    let (data_mime, data): (String, Vec<u8>) = conn
        .query_row(
            "SELECT m.mime, b.data FROM media AS m JOIN media_blobs AS b ON b.media_id = m.id \
             WHERE m.id = ?1",
            [picks[0].media_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(data_mime, "image/png");
    assert_eq!(mindsage_core::media::sha256_hex(&data).len(), 64);
}

#[test]
fn a_save_waits_for_another_connections_write_lock_instead_of_failing() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let id = entries::create(&mut conn, USER, &entry("Held", "body", &[])).unwrap();
    let holder = journal.open();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        holder.execute_batch("COMMIT").unwrap();
    });
    // An update reads the entry before writing it: as a deferred transaction it would
    // get SQLITE_BUSY at once here, without waiting for the lock.
    let edit = EntryEdit {
        title: "Held".into(),
        body: "changed while locked".into(),
        tags: vec![],
        mood_score: None,
    };
    entries::update(&mut conn, USER, id, &edit).unwrap();
    release.join().unwrap();
    assert_eq!(
        entries::get(&conn, USER, id).unwrap().body,
        "changed while locked"
    );
}

#[test]
fn connections_opening_a_new_journal_at_once_all_open_it() {
    // The app's first start: the UI's reader, the writer, the model's job runner and Ask
    // open the journal on their own threads at the same moment, before it exists.
    for round in 0..40 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.db");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
        let opened: Vec<_> = (0..4)
            .map(|_| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    db::open(&path, &StorageOptions::default()).map(drop)
                })
            })
            .collect();
        for thread in opened {
            let outcome = thread.join().unwrap();
            assert!(outcome.is_ok(), "round {round}: {outcome:?}");
        }
    }
}
