//! Importers on real files written as the other apps write them, into real journals:
//! what arrives, what is refused and why, and that a second import adds nothing.

mod common;
mod exports;

use std::sync::atomic::{AtomicBool, Ordering};

use common::TempJournal;
use mindsage_core::db::{DEFAULT_USER, entries, jobs};
use mindsage_core::import::{self, BATCH, Options, Report, Source};
use rusqlite::Connection;

fn import_path(conn: &mut Connection, path: &std::path::Path, dry_run: bool) -> Report {
    let mut export = import::open(path).expect("the export opens");
    import::run(
        conn,
        DEFAULT_USER,
        &mut export,
        &Options {
            dry_run,
            ..Options::default()
        },
        &mut |_| {},
    )
    .expect("the import runs")
}

fn all_entries(conn: &Connection) -> Vec<entries::Entry> {
    let page = entries::list(conn, DEFAULT_USER, &entries::ListFilter::default(), None, 500).unwrap();
    page.rows
        .iter()
        .map(|row| entries::get(conn, DEFAULT_USER, row.id).unwrap())
        .collect()
}

fn by_title<'a>(entries: &'a [entries::Entry], title: &str) -> &'a entries::Entry {
    entries
        .iter()
        .find(|e| e.title == title)
        .unwrap_or_else(|| panic!("no entry titled {title:?}"))
}

/// An entry of one line: Day One shows it as a title, MindSage keeps it as the text
/// (the model writes the title).
fn by_body<'a>(entries: &'a [entries::Entry], body: &str) -> &'a entries::Entry {
    entries
        .iter()
        .find(|e| e.title.is_empty() && e.body == body)
        .unwrap_or_else(|| panic!("no untitled entry {body:?}"))
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |row| row.get(0)).unwrap()
}

#[test]
fn day_one_zip_arrives_whole_with_photos_tags_and_days_and_only_once() {
    let journal = TempJournal::new();
    let zip = journal.dir.path().join("Day One export.zip");
    exports::write_dayone_zip(&zip);
    let mut conn = journal.open();

    let report = import_path(&mut conn, &zip, false);
    assert_eq!(report.source, Source::DayOne);
    assert_eq!(
        (report.added, report.rejected, report.duplicates),
        (exports::DAYONE_ADDED, exports::DAYONE_REJECTED, 0),
        "{report:#?}"
    );
    let stored = all_entries(&conn);
    assert_eq!(stored.len(), exports::DAYONE_ADDED);

    let lisbon = by_title(&stored, "Pastéis in Belém");
    assert_eq!(
        lisbon.body,
        "Queued 20 min. Worth it - every bite!\n\nBack by tram."
    );
    assert_eq!(lisbon.tags, ["food", "Lisbon", "starred", "Travel"]);
    assert_eq!(lisbon.created_at, "2023-01-06T03:30:00.000Z");
    // 03:30 UTC was still the evening of the 5th in New York.
    let day: String = conn
        .query_row(
            "SELECT local_date FROM journal_entries WHERE id = ?1",
            [lisbon.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(day, "2023-01-05");
    // Two entries of the same second are two entries.
    by_title(&stored, "First note of the minute");
    by_title(&stored, "Second note of the minute");
    assert_eq!(by_title(&stored, "Quiet evening").tags, ["Home"]);
    // The photo is attached (twice: the Lisbon entry and the entry that is only a photo),
    // placed in the gallery at the entry's time.
    assert_eq!(count(&conn, "SELECT count(*) FROM media WHERE kind = 'image'"), 2);
    let photo_time: String = conn
        .query_row(
            "SELECT created_at FROM media WHERE entry_id = ?1",
            [lisbon.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(photo_time, lisbon.created_at);
    // The entry whose photo is missing is in, and the report says what is missing.
    by_body(&stored, "Sintra in the fog");
    let missing = report
        .problems
        .iter()
        .find(|p| p.item.contains("MISSINGPHOTO"))
        .expect("the missing photo is reported");
    assert!(
        !missing.rejected && missing.reason.contains("not in the export"),
        "{missing:?}"
    );
    for (marker, reason) in [
        ("NODATE", "no creationDate"),
        ("BADDATE", "not a date"),
        ("entry 8", "no uuid"),
        ("escaped.json", "outside the export"),
    ] {
        let problem = report.problems.iter().find(|p| p.item.contains(marker)).unwrap();
        assert!(problem.rejected && problem.reason.contains(reason), "{problem:?}");
    }
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.reason.contains("location and weather"))
    );
    // The model's work is queued for every new entry, as for a save.
    let queue = jobs::counts(&conn).unwrap();
    assert_eq!(queue.embed_pending, exports::DAYONE_ADDED as u64);
    assert_eq!(queue.enrich_pending, exports::DAYONE_ADDED as u64);

    let again = import_path(&mut conn, &zip, false);
    assert_eq!((again.added, again.duplicates), (0, exports::DAYONE_ADDED));
    assert!(
        again.problems.iter().all(|p| p.rejected),
        "notes on entries already in: {:#?}",
        again.problems
    );
    assert_eq!(all_entries(&conn).len(), exports::DAYONE_ADDED);
    assert_eq!(count(&conn, "SELECT count(*) FROM media"), 2);
}

#[test]
fn an_unzipped_day_one_journal_finds_its_photos_beside_it() {
    let journal = TempJournal::new();
    let folder = journal.dir.path().join("export");
    std::fs::create_dir_all(folder.join("photos")).unwrap();
    std::fs::write(folder.join("Travel.json"), exports::dayone_travel().to_string()).unwrap();
    std::fs::write(
        folder.join(format!("photos/{}.png", exports::PHOTO_MD5)),
        exports::png(32, 9),
    )
    .unwrap();
    let mut conn = journal.open();
    let report = import_path(&mut conn, &folder.join("Travel.json"), false);
    assert_eq!(report.added, exports::DAYONE_ADDED - 1);
    assert_eq!(count(&conn, "SELECT count(*) FROM media"), 2);
    assert!(
        by_title(&all_entries(&conn), "Pastéis in Belém")
            .tags
            .contains(&"Travel".to_string())
    );
}

#[test]
fn a_dry_run_says_what_would_happen_and_writes_nothing() {
    let journal = TempJournal::new();
    let zip = journal.dir.path().join("export.zip");
    exports::write_dayone_zip(&zip);
    let mut conn = journal.open();
    let before = std::fs::metadata(&journal.path).unwrap().len();

    let dry = import_path(&mut conn, &zip, true);
    assert!(dry.dry_run);
    assert_eq!(
        (dry.added, dry.rejected, dry.photos),
        (exports::DAYONE_ADDED, exports::DAYONE_REJECTED, 2)
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM journal_entries"), 0);
    assert_eq!(count(&conn, "SELECT count(*) FROM imported_entries"), 0);
    assert_eq!(std::fs::metadata(&journal.path).unwrap().len(), before);

    let real = import_path(&mut conn, &zip, false);
    assert_eq!((real.added, real.photos), (dry.added, dry.photos));
    let dry_again = import_path(&mut conn, &zip, true);
    assert_eq!(
        (dry_again.added, dry_again.duplicates),
        (0, exports::DAYONE_ADDED)
    );
}

#[test]
fn jrnl_export_keeps_titles_tags_stars_and_local_times() {
    let journal = TempJournal::new();
    let file = journal.dir.path().join("jrnl.json");
    std::fs::write(&file, exports::jrnl_export(4).to_string()).unwrap();
    let mut conn = journal.open();
    let report = import_path(&mut conn, &file, false);
    assert_eq!(
        (report.source, report.added, report.rejected),
        (Source::Jrnl, 4, 0)
    );
    let stored = all_entries(&conn);
    let first = by_title(&stored, "Morning pages 0.");
    assert_eq!(first.body, "Wrote about @work and the garden, entry number 0.");
    assert_eq!(first.tags, ["starred", "work"]);
    let day: String = conn
        .query_row(
            "SELECT local_date FROM journal_entries WHERE id = ?1",
            [first.id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(day, "2022-03-01");
    assert_eq!(by_title(&stored, "Morning pages 1.").tags, ["work"]);
    assert_eq!(import_path(&mut conn, &file, false).duplicates, 4);
}

#[test]
fn markdown_folder_reads_front_matter_file_names_and_photos() {
    let journal = TempJournal::new();
    let folder = exports::write_markdown_folder(journal.dir.path());
    let mut conn = journal.open();
    let report = import_path(&mut conn, &folder, false);
    assert_eq!(
        (report.source, report.added, report.rejected),
        (
            Source::Markdown,
            exports::MARKDOWN_ADDED,
            exports::MARKDOWN_REJECTED
        ),
        "{report:#?}"
    );
    let stored = all_entries(&conn);
    let walk = by_title(&stored, "Walk by the river");
    assert_eq!(
        (walk.tags.clone(), walk.mood_score),
        (vec!["dog".to_string(), "outside".to_string()], Some(7))
    );
    assert!(walk.body.starts_with("Herons again."));
    assert_eq!(count(&conn, "SELECT count(*) FROM media"), 1);
    let rainy = by_title(&stored, "Rainy Sunday");
    assert_eq!(rainy.body, "Stayed in.\nBaked bread.");
    assert_eq!(by_title(&stored, "Market day").body, "Cherries!");
    let reasons: Vec<_> = report
        .problems
        .iter()
        .map(|p| (p.item.as_str(), p.reason.as_str()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|(i, r)| *i == "ideas.md" && r.contains("no date")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(i, r)| *i == "2024-06-04.md" && r.contains("UTF-8")),
        "{reasons:?}"
    );
    assert_eq!(
        import_path(&mut conn, &folder, false).duplicates,
        exports::MARKDOWN_ADDED
    );
}

#[test]
fn files_that_are_not_exports_are_refused_with_what_they_are() {
    let journal = TempJournal::new();
    let dir = journal.dir.path();
    let cases: [(&str, &[u8], &str); 4] = [
        ("photos.zip", b"this is not a zip", "not a zip archive"),
        ("notes.json", b"{\"entries\": [", "not JSON"),
        (
            "other.json",
            b"{\"items\": []}",
            "not a MindSage, Day One or jrnl export",
        ),
        (
            "empty.zip",
            b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            "no Day One journal",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let error = import::open(&path)
            .err()
            .unwrap_or_else(|| panic!("{name} was accepted"));
        assert!(error.to_string().contains(expected), "{name}: {error}");
    }
    // A Day One zip cut short (a download that stopped): refused whole, nothing written.
    let zip = dir.join("export.zip");
    exports::write_dayone_zip(&zip);
    let bytes = std::fs::read(&zip).unwrap();
    let cut = dir.join("cut.zip");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let error = import::open(&cut).err().expect("a truncated zip is refused");
    assert!(error.to_string().contains("damaged"), "{error}");
    assert_eq!(count(&journal.open(), "SELECT count(*) FROM journal_entries"), 0);
}

#[test]
fn bad_items_are_reported_and_every_good_one_imported() {
    let journal = TempJournal::new();
    let dir = journal.dir.path();
    // A photo declaring enormous dimensions (a decompression bomb), a 9 MB entry, and a
    // duplicate id, between good entries.
    let mut bomb = exports::png(8, 1);
    bomb[16..20].copy_from_slice(&200_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&200_000u32.to_be_bytes());
    std::fs::create_dir_all(dir.join("photos")).unwrap();
    std::fs::write(dir.join(format!("photos/{}.png", exports::PHOTO_MD5)), bomb).unwrap();
    let huge = "word ".repeat(9 * 1024 * 1024 / 5 + 1);
    let json = serde_json::json!({ "metadata": {}, "entries": [
        { "uuid": "GOOD1", "creationDate": "2021-05-01T10:00:00Z", "text": "Good one\nfine" },
        { "uuid": "BOMB", "creationDate": "2021-05-02T10:00:00Z", "text": "Bomb photo\n![](dayone-moment://B)",
          "photos": [{ "identifier": "B", "md5": exports::PHOTO_MD5, "type": "png" }] },
        { "uuid": "HUGE", "creationDate": "2021-05-03T10:00:00Z", "text": huge },
        { "uuid": "GOOD1", "creationDate": "2021-05-04T10:00:00Z", "text": "Same id\nagain" },
        { "uuid": "GOOD2", "creationDate": "2021-05-05T10:00:00Z", "text": "Good two\nfine" },
    ]});
    let file = dir.join("Journal.json");
    std::fs::write(&file, json.to_string()).unwrap();
    let mut conn = journal.open();
    let report = import_path(&mut conn, &file, false);
    assert_eq!(
        (report.added, report.duplicates, report.rejected),
        (3, 1, 1),
        "{report:#?}"
    );
    let huge_problem = report.problems.iter().find(|p| p.item.contains("HUGE")).unwrap();
    assert!(
        huge_problem.rejected && huge_problem.reason.contains("MB"),
        "{huge_problem:?}"
    );
    let bomb_problem = report.problems.iter().find(|p| p.item.contains("BOMB")).unwrap();
    assert!(!bomb_problem.rejected, "{bomb_problem:?}");
    let stored = all_entries(&conn);
    by_body(&stored, "Bomb photo");
    by_title(&stored, "Good two");
    assert_eq!(count(&conn, "SELECT count(*) FROM media"), 0);
}

#[test]
fn an_interrupted_import_leaves_whole_entries_and_a_second_run_finishes_it() {
    let journal = TempJournal::new();
    let file = journal.dir.path().join("jrnl.json");
    let total = BATCH * 2 + 500;
    std::fs::write(&file, exports::jrnl_export(total).to_string()).unwrap();
    let mut conn = journal.open();
    let cancel = AtomicBool::new(false);
    let mut export = import::open(&file).unwrap();
    let report = import::run(
        &mut conn,
        DEFAULT_USER,
        &mut export,
        &Options {
            cancel: Some(&cancel),
            ..Options::default()
        },
        &mut |_| cancel.store(true, Ordering::Relaxed),
    )
    .unwrap();
    assert!(report.cancelled);
    assert_eq!(report.added, BATCH);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM journal_entries") as usize,
        BATCH
    );
    // Every entry written is whole: its text, its tags and its place in the search index.
    assert_eq!(count(&conn, "SELECT count(*) FROM entries_fts") as usize, BATCH);
    assert_eq!(
        count(&conn, "SELECT count(*) FROM entry_tags") as usize,
        BATCH + BATCH.div_ceil(3)
    );

    let rest = import_path(&mut conn, &file, false);
    assert_eq!((rest.added, rest.duplicates), (total - BATCH, BATCH));
    assert_eq!(
        count(&conn, "SELECT count(*) FROM journal_entries") as usize,
        total
    );
}

#[test]
fn an_import_sees_what_another_import_wrote_between_its_batches() {
    // The same export imported twice at once (the app and `mindsage import`): the
    // second writes between the first one's batches, and every entry arrives once.
    let journal = TempJournal::new();
    let file = journal.dir.path().join("jrnl.json");
    let total = BATCH * 3;
    std::fs::write(&file, exports::jrnl_export(total).to_string()).unwrap();
    let mut conn = journal.open();
    let mut other = journal.open();
    let mut export = import::open(&file).unwrap();
    let mut others_report = None;
    let report = import::run(
        &mut conn,
        DEFAULT_USER,
        &mut export,
        &Options::default(),
        &mut |progress| {
            if progress.done == BATCH {
                others_report = Some(import_path(&mut other, &file, false));
            }
        },
    )
    .unwrap();
    let others_report = others_report.expect("the other import ran after the first batch");
    assert_eq!(
        (others_report.added, others_report.duplicates),
        (total - BATCH, BATCH)
    );
    assert_eq!((report.added, report.duplicates), (BATCH, total - BATCH));
    assert_eq!(
        count(&conn, "SELECT count(*) FROM journal_entries") as usize,
        total
    );
}

#[test]
fn every_write_path_gives_the_same_journal_and_puts_the_settings_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jrnl.json");
    std::fs::write(&file, exports::jrnl_export(1_200).to_string()).unwrap();
    let paths = [
        import::WritePath::defaults(500),
        import::WritePath {
            fts_per_batch: false,
            ..import::WritePath::default()
        },
        import::WritePath {
            checkpoint_beside: false,
            ..import::WritePath::default()
        },
        import::WritePath::default(),
    ];
    let mut journals = Vec::new();
    for write in paths {
        let journal = TempJournal::new();
        let mut conn = journal.open();
        let pragma = |conn: &Connection, name: &str| count(conn, &format!("PRAGMA {name}"));
        let settings = |conn: &Connection| {
            ["cache_size", "wal_autocheckpoint", "foreign_keys"].map(|name| pragma(conn, name))
        };
        let before = settings(&conn);
        let mut export = import::open(&file).unwrap();
        let options = Options {
            write,
            ..Options::default()
        };
        let report = import::run(&mut conn, DEFAULT_USER, &mut export, &options, &mut |_| {}).unwrap();
        assert_eq!(report.added, 1_200, "{write:?}");
        assert_eq!(
            settings(&conn),
            before,
            "{write:?} left the connection's settings changed"
        );
        // The dashboard's per-day totals count every entry the import wrote.
        let miscounted_days = count(
            &conn,
            "SELECT count(*) FROM (SELECT user_id, local_date, count(*) AS n, sum(word_count) AS w \
             FROM journal_entries WHERE is_deleted = 0 GROUP BY 1, 2) AS e \
             FULL JOIN daily_stats AS d USING (user_id, local_date) \
             WHERE e.n IS NOT d.entries OR e.w IS NOT d.words",
        );
        assert_eq!(miscounted_days, 0, "{write:?}");
        // The export is oldest first; entries are written newest first, so each index
        // ordered newest first is appended to.
        let out_of_order = count(
            &conn,
            "SELECT count(*) FROM journal_entries AS a JOIN journal_entries AS b ON b.id = a.id + 1 \
             WHERE b.created_at > a.created_at",
        );
        assert_eq!(out_of_order, 0, "{write:?}");
        // The -wal file a raised checkpoint interval let grow is emptied at the end.
        let wal = format!("{}-wal", journal.path.display());
        assert_eq!(std::fs::metadata(&wal).map_or(0, |m| m.len()), 0, "{write:?}");
        let searched: Vec<i64> = conn
            .prepare("SELECT rowid FROM entries_fts WHERE entries_fts MATCH 'tags:work' ORDER BY rowid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let fts_rows = count(&conn, "SELECT count(*) FROM entries_fts");
        let jobs = count(&conn, "SELECT count(*) FROM ai_jobs");
        journals.push((all_entries(&conn), searched, fts_rows, jobs));
    }
    assert_eq!(journals[0].2, 1_200);
    assert_eq!(journals[0].1.len(), 1_200, "every entry is found by its tag");
    assert!(journals.windows(2).all(|w| w[0] == w[1]));
}

/// The state and revision of every reflection, by period and first day.
fn reflection_states(conn: &Connection) -> Vec<(String, String, String, i64)> {
    let mut stmt = conn
        .prepare("SELECT period, first_day, state, revision FROM reflections ORDER BY period, first_day")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn an_import_marks_the_weeks_and_months_it_writes_into_for_a_new_reflection() {
    use mindsage_core::db::reflections;
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let day = |m, d| chrono::NaiveDate::from_ymd_opt(2026, m, d).unwrap();
    let noon = |d: chrono::NaiveDate| {
        d.and_hms_opt(12, 0, 0)
            .unwrap()
            .and_local_timezone(chrono::Local)
            .unwrap()
            .fixed_offset()
    };
    // Two weeks of March with an entry each, looked back on: written, nothing pending.
    for d in [day(3, 3), day(3, 24)] {
        let entry = entries::NewEntry {
            body: "A walk.".into(),
            created_at: Some(noon(d)),
            ..Default::default()
        };
        entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
    }
    reflections::queue_ended(&conn, DEFAULT_USER, day(6, 1)).unwrap();
    conn.execute("UPDATE reflections SET state = 'done'", []).unwrap();
    let before = reflection_states(&conn);
    assert_eq!(before.len(), 3, "two weeks and March: {before:?}");

    // An import with an entry in the first week: that week and March are marked, the
    // other week is not.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.json");
    let export = serde_json::json!({"tags": {}, "entries": [{"title": "Lunch", "body": "Lunch with Sam.",
        "date": "2026-03-05", "time": "13:00", "tags": [], "starred": false}]});
    std::fs::write(&path, export.to_string()).unwrap();
    assert_eq!(import_path(&mut conn, &path, false).added, 1);
    let after = reflection_states(&conn);
    let marked: Vec<(&str, &str)> = after
        .iter()
        .filter(|(_, _, state, _)| state == "pending")
        .map(|(period, first, _, _)| (period.as_str(), first.as_str()))
        .collect();
    assert_eq!(marked, [("month", "2026-03-01"), ("week", "2026-03-02")]);
    assert!(after.iter().zip(&before).all(|(a, b)| a.3 >= b.3));
}
