//! Export and back: a journal with photos (one placed in its text by name), a recording,
//! the model's titles and summaries, exported and imported into an empty journal, is
//! the same journal.

mod common;

use common::TempJournal;
use mindsage_core::db::archive::{self, ArchivedEntry};
use mindsage_core::db::audio::Segment;
use mindsage_core::db::audio::{self, NewRecording};
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::memory::{self, Found, Kind};
use mindsage_core::db::{DEFAULT_USER, gallery, jobs};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::export::{self, ExportError, Format};
use mindsage_core::import::{self, Options, Source};
use mindsage_core::media;
use mindsage_core::voice::wav;
use rusqlite::Connection;

/// A demo journal with photos, one voice entry, summaries on some entries and one
/// entry in the trash (which an export leaves out).
fn seeded(journal: &TempJournal) -> Connection {
    let mut conn = journal.open();
    let options = DemoOptions {
        photo_every: 10,
        ..DemoOptions::fixed(60, 11)
    };
    demo::seed(&mut conn, DEFAULT_USER, &options).unwrap();
    let tone: Vec<f32> = (0..16_000).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    let segments = [Segment {
        start_ms: 0,
        end_ms: 1_000,
        text: "A one second hum.".into(),
    }];
    let voice = NewEntry {
        body: "A one second hum.".into(),
        tags: vec!["voice".into()],
        ..NewEntry::default()
    };
    let recording = NewRecording {
        wav: &wav::encode(&tone),
        duration_ms: 1_000,
        language: "en",
        segments: &segments,
    };
    audio::create_entry(&mut conn, DEFAULT_USER, &voice, &recording).unwrap();
    for id in [3, 7, 20] {
        entries::keep_model_work(
            &conn,
            DEFAULT_USER,
            id,
            false,
            Some(&format!("Summary of entry {id}.")),
        )
        .unwrap();
        // What the model found in them: the people and places they mention.
        let body = entries::get(&conn, DEFAULT_USER, id).unwrap().body;
        let found = [
            Found {
                kind: Kind::Person,
                name: format!("Friend {}", id % 2),
                relation: "friend".into(),
            },
            Found {
                kind: Kind::Place,
                name: format!("Place {id}"),
                relation: String::new(),
            },
        ];
        memory::remember(&conn, DEFAULT_USER, id, &body, &found, "a text model").unwrap();
    }
    entries::soft_delete(&mut conn, DEFAULT_USER, 5).unwrap();
    // A photo dropped into an entry's text: its Markdown image names it.
    let placed = NewEntry {
        body: format!("At the bay:\n{PLACED}\nHome by six."),
        ..NewEntry::default()
    };
    let id = entries::create(&mut conn, DEFAULT_USER, &placed).unwrap();
    let mut png = Vec::new();
    image::RgbImage::from_fn(30, 20, |x, y| image::Rgb([x as u8 * 8, y as u8 * 12, 90]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let photo = media::prepare_image(png).unwrap();
    gallery::attach_image(
        &conn,
        DEFAULT_USER,
        id,
        &photo,
        "2026-01-01T10:00:00.000Z",
        Some("the bay.png"),
    )
    .unwrap();
    conn
}

/// The placed photo's image in its entry's text.
const PLACED: &str = "![](<the bay.png>)";

/// Every live entry, whole, keyed by when it was written.
fn snapshot(conn: &Connection) -> Vec<ArchivedEntry> {
    let mut all = archive::page(conn, DEFAULT_USER, 0, 10_000).unwrap();
    all.sort_by(|a, b| a.entry.created_at.cmp(&b.entry.created_at));
    all
}

fn import_into(conn: &mut Connection, path: &std::path::Path) -> import::Report {
    let mut export = import::open(path).unwrap();
    import::run(conn, DEFAULT_USER, &mut export, &Options::default(), &mut |_| {}).unwrap()
}

#[test]
fn json_export_imported_into_an_empty_journal_is_the_same_journal() {
    let original = TempJournal::new();
    let conn = seeded(&original);
    let file = original.dir.path().join("journal export.json");
    let report = export::run(&conn, DEFAULT_USER, &file, Format::Json).unwrap();
    let before = snapshot(&conn);
    assert_eq!(report.entries, before.len());
    assert_eq!((report.photos, report.recordings), (7, 1));
    assert!(
        before.iter().all(|e| e.entry.id != 5),
        "the trash is not exported"
    );

    let copy = TempJournal::new();
    let mut copy_conn = copy.open();
    let imported = import_into(&mut copy_conn, &file);
    assert_eq!(
        (imported.source, imported.added, imported.rejected),
        (Source::MindSage, before.len(), 0)
    );
    let after = snapshot(&copy_conn);
    assert_eq!(after.len(), before.len());
    for (a, b) in before.iter().zip(&after) {
        let (x, y) = (&a.entry, &b.entry);
        assert_eq!(
            (
                &x.created_at,
                &x.title,
                x.title_by_user,
                &x.body,
                &x.tags,
                x.mood_score,
                &x.summary,
                &a.day
            ),
            (
                &y.created_at,
                &y.title,
                y.title_by_user,
                &y.body,
                &y.tags,
                y.mood_score,
                &y.summary,
                &b.day
            ),
        );
        assert_eq!(a.media, b.media, "media of {:?}", x.title);
    }
    // The model's reading came along (summaries, people, places), so only the
    // embedding is queued for those entries.
    let remembered = |conn: &Connection| -> Vec<(String, String, u64)> {
        let mut all: Vec<_> = memory::subjects(conn, DEFAULT_USER)
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.relation, s.entries))
            .collect();
        all.sort();
        all
    };
    assert_eq!(remembered(&copy_conn), remembered(&conn));
    assert_eq!(remembered(&conn).len(), 5);
    let queue = jobs::counts(&copy_conn).unwrap();
    assert_eq!(queue.embed_pending as usize, before.len());
    assert_eq!(queue.enrich_pending as usize, before.len() - 3);
    let placed: Vec<_> = after
        .iter()
        .flat_map(|e| &e.media)
        .filter(|m| m.name.is_some())
        .collect();
    assert_eq!(placed.len(), 1, "the placed photo keeps its name");
    assert_eq!(placed[0].name.as_deref(), Some("the bay.png"));
    // And a second import of the same file adds nothing.
    assert_eq!(import_into(&mut copy_conn, &file).duplicates, before.len());
}

#[test]
fn markdown_export_is_readable_notes_that_import_back() {
    let original = TempJournal::new();
    let conn = seeded(&original);
    let folder = original.dir.path().join("notes");
    let report = export::run(&conn, DEFAULT_USER, &folder, Format::Markdown).unwrap();
    let before = snapshot(&conn);
    assert_eq!(report.entries, before.len());
    let notes: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(notes.len(), before.len());
    assert!(folder.join("media").read_dir().unwrap().count() >= 2);

    let copy = TempJournal::new();
    let mut copy_conn = copy.open();
    let imported = import_into(&mut copy_conn, &folder);
    assert_eq!(
        (imported.added, imported.rejected),
        (before.len(), 0),
        "{imported:#?}"
    );
    assert_eq!(
        imported.problems.len(),
        1,
        "only the recording is left behind: {imported:#?}"
    );
    let after = snapshot(&copy_conn);
    for (a, b) in before.iter().zip(&after) {
        let (x, y) = (&a.entry, &b.entry);
        // The placed photo's image points at its file in the export, and keeps it as
        // its name once imported again.
        let file = a.media.iter().find(|m| m.name.is_some()).map(|m| {
            let file = format!("media/{}.png", &media::sha256_hex(&m.data)[..16]);
            assert!(folder.join(&file).is_file());
            file
        });
        let body = match &file {
            Some(file) => x.body.replace(PLACED, &format!("![](<{file}>)")),
            None => x.body.clone(),
        };
        let names = |e: &ArchivedEntry| -> Vec<Option<String>> {
            e.media
                .iter()
                .filter(|m| m.kind == "image")
                .map(|m| m.name.clone())
                .collect()
        };
        if let Some(file) = &file {
            assert_eq!(names(b), [Some(file.clone())]);
        } else {
            assert_eq!(names(b), names(a));
        }
        assert_eq!(
            (
                &x.created_at,
                &x.title,
                &body.trim(),
                &x.tags,
                x.mood_score,
                &a.day
            ),
            (
                &y.created_at,
                &y.title,
                &y.body.trim(),
                &y.tags,
                y.mood_score,
                &b.day
            ),
        );
        let photos = |e: &ArchivedEntry| -> Vec<Vec<u8>> {
            e.media
                .iter()
                .filter(|m| m.kind == "image")
                .map(|m| m.data.clone())
                .collect()
        };
        assert_eq!(photos(a), photos(b));
    }
}

#[test]
fn exports_never_mix_with_other_files_or_leave_half_a_file() {
    let journal = TempJournal::new();
    let conn = seeded(&journal);
    let folder = journal.dir.path().join("busy");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("mine.txt"), "keep me").unwrap();
    let refused = export::run(&conn, DEFAULT_USER, &folder, Format::Markdown).unwrap_err();
    assert!(matches!(refused, ExportError::FolderNotEmpty(_)), "{refused}");
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);

    // A JSON export into a folder that does not exist: an error naming it, nothing left.
    let nowhere = journal.dir.path().join("missing/export.json");
    let error = export::run(&conn, DEFAULT_USER, &nowhere, Format::Json).unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");

    // A file from a newer MindSage: refused whole.
    let newer = journal.dir.path().join("newer.json");
    std::fs::write(
        &newer,
        r#"{"format":"mindsage-journal","version":99,"entries":[]}"#,
    )
    .unwrap();
    let error = import::open(&newer).err().expect("a newer export is refused");
    assert!(error.to_string().contains("version 99"), "{error}");
}
