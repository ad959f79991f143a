//! The real app, driven through its accessibility tree by egui_kittest, against a real
//! journal in a temporary folder: the same worker threads, writer and SQLite file as
//! when a person uses it. No display is needed.
//!
//! The test thread is the UI thread here, so the app's guard is armed on it: a query
//! that slipped onto the UI thread would fail these tests.

use std::path::Path;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use mindsage::app::{MindSageApp, Startup};
use mindsage::protocol::{Fault, Request};
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, audio, entries, jobs};
use mindsage_core::paths;
use mindsage_core::voice::capture::Input;

/// The shared local Ollama stand-in the core tests use (`shared/ollama-local`).
#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

/// The real Whisper model and the labelled recordings (`shared/whisper-model`).
#[path = "../../core/tests/whisper_model/mod.rs"]
mod whisper_model;

/// Other apps' exports, written as those apps write them.
#[path = "../../core/tests/exports/mod.rs"]
mod exports;

mod app_harness;

use app_harness::{
    PATIENCE, app_from, entries_in_journal, keep_running, request_close, shows, type_into, wait_at_most,
    wait_until,
};

/// The app with no model reachable: a port nobody listens on.
fn app(data_dir: &Path, view: View) -> Harness<'static, MindSageApp> {
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    app_with(data_dir, view, offline)
}

fn app_with(data_dir: &Path, view: View, ai: AiSettings) -> Harness<'static, MindSageApp> {
    app_from(Startup::on_view(data_dir.to_path_buf(), view), ai, 800.0)
}

/// Longest wait for a recording to be transcribed and saved: Whisper shares two cores
/// with the other tests' transcriptions.
const TRANSCRIPTION_PATIENCE: Duration = Duration::from_secs(120);

/// Clicks Save settings and waits until it says so. The button is at the foot of a long
/// screen, under the recorder's panel: scrolled to first, as a person scrolls to it.
fn save_settings(harness: &mut Harness<'_, MindSageApp>) {
    harness
        .get_by_role_and_label(Role::Button, "Save settings")
        .scroll_to_me();
    harness.run_steps(3);
    harness
        .get_by_role_and_label(Role::Button, "Save settings")
        .click();
    wait_until(harness, "the settings saved", |h| {
        shows(h, "Saved. Ollama settings")
    });
}

/// Opens Settings and waits until the answers it asks for are in (the model's status,
/// the backups, the pragmas): until then the screen grows as they arrive, and a click
/// aimed from the frame before lands elsewhere, for a person as for a test.
fn open_settings(harness: &mut Harness<'_, MindSageApp>) {
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    wait_until(harness, "the settings screen with its answers", |h| {
        !shows(h, "checking…")
            && shows(h, "page_size")
            && shows(h, "then one a month")
            && (h
                .query_all_by_role_and_label(Role::Button, "Restore…")
                .next()
                .is_some()
                || shows(h, "No backups yet."))
    });
}

/// Writes a new entry through the editor and waits until the list shows it.
fn write_entry(harness: &mut Harness<'_, MindSageApp>, title: &str, body: &str) {
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_into(harness, Role::TextInput, "Title", title);
    type_into(harness, Role::MultilineTextInput, "Entry", body);
    wait_until(harness, "the new entry in the list", |h| {
        h.query_by_role_and_label(Role::Button, title).is_some()
    });
}

#[test]
fn write_edit_trash_restore_and_purge_an_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));

    write_entry(&mut harness, "Evening walk", "A calm walk by the sea.");
    wait_until(&mut harness, "the entry count", |h| shows(h, "1 entry"));

    // Editing autosaves: the list row follows the new title.
    type_into(&mut harness, Role::TextInput, "Title", " at dusk");
    wait_until(&mut harness, "the edited title in the list", |h| {
        h.query_by_role_and_label(Role::Button, "Evening walk at dusk")
            .is_some()
    });

    harness.get_by_label("Move to trash").click();
    wait_until(&mut harness, "the entry to leave the list", |h| {
        shows(h, "No entries yet.")
    });

    harness.get_by_role_and_label(Role::Button, "Trash").click();
    wait_until(&mut harness, "the entry in the trash", |h| {
        h.query_by_role_and_label(Role::Button, "Evening walk at dusk")
            .is_some()
    });
    harness
        .get_by_role_and_label(Role::Button, "Evening walk at dusk")
        .click();
    wait_until(&mut harness, "the trashed entry", |h| shows(h, "In the trash"));
    harness.get_by_label("Restore").click();
    wait_until(&mut harness, "the trash to be empty", |h| {
        shows(h, "The trash is empty.")
    });

    harness.get_by_role_and_label(Role::Button, "Entries").click();
    wait_until(&mut harness, "the restored entry", |h| {
        h.query_by_role_and_label(Role::Button, "Evening walk at dusk")
            .is_some()
    });

    // Purge goes through the trash and a confirmation.
    harness
        .get_by_role_and_label(Role::Button, "Evening walk at dusk")
        .click();
    wait_until(&mut harness, "the entry in the editor", |h| {
        shows(h, "Move to trash")
    });
    harness.get_by_label("Move to trash").click();
    wait_until(&mut harness, "the entry to leave the list", |h| {
        shows(h, "No entries yet.")
    });
    harness.get_by_role_and_label(Role::Button, "Trash").click();
    wait_until(&mut harness, "the entry in the trash", |h| {
        h.query_by_role_and_label(Role::Button, "Evening walk at dusk")
            .is_some()
    });
    harness
        .get_by_role_and_label(Role::Button, "Evening walk at dusk")
        .click();
    wait_until(&mut harness, "the trashed entry", |h| shows(h, "Delete forever…"));
    harness.get_by_label("Delete forever…").click();
    harness.run_steps(2);
    harness.get_by_label("Delete forever").click();
    wait_until(&mut harness, "the trash to be empty", |h| {
        shows(h, "The trash is empty.")
    });
}

#[test]
fn a_new_entry_is_found_by_search_and_opens() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(
        &mut harness,
        "Harbour",
        "Watched the fishing boats come in at dawn.",
    );
    write_entry(&mut harness, "Office", "Long meeting about the budget.");

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Search", "fishing bo");
    wait_until(&mut harness, "the search hit", |h| {
        h.query_by_role_and_label(Role::Button, "Harbour").is_some()
    });
    assert!(harness.query_by_role_and_label(Role::Button, "Office").is_none());
    // No model in this test: search says it matched words only, and why.
    assert!(shows(&harness, "Matching words only"));

    harness.get_by_role_and_label(Role::Button, "Harbour").click();
    wait_until(&mut harness, "the entry in the editor", |h| {
        h.query_all_by_value("Watched the fishing boats come in at dawn.")
            .next()
            .is_some()
    });
}

/// A Japanese word inside a run of text, written in the window and typed into the
/// search box as an input method commits it, finds its entry, highlighted where it
/// stands.
#[test]
fn a_word_inside_a_run_of_japanese_is_found_by_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(&mut harness, "旅行", "今日は東京に行った。雨だった。");
    write_entry(&mut harness, "京都", "京都でお寺を見た。");

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Search", "東京");
    wait_until(&mut harness, "the search hit", |h| {
        h.query_by_role_and_label(Role::Button, "旅行").is_some()
    });
    assert!(harness.query_by_role_and_label(Role::Button, "京都").is_none());
    assert!(shows(&harness, "今日は東京に行った"), "its snippet");
}

#[test]
fn dashboard_counts_follow_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Dashboard);
    wait_until(&mut harness, "the dashboard", |h| shows(h, "Entries: 0"));

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num1);
    harness.run_steps(2);
    write_entry(&mut harness, "First", "one two three four");
    write_entry(&mut harness, "Second", "five six");

    harness.get_by_role_and_label(Role::Button, "Dashboard").click();
    wait_until(&mut harness, "the new totals", |h| {
        shows(h, "Entries: 2") && shows(h, "Words: 6")
    });
    assert!(shows(&harness, "Current streak: 1 day"));
}

/// Writes entries straight into the journal, before the window opens (and arms the
/// UI-thread guard): `(title, day)`, each at local noon.
fn journal_with(data_dir: &Path, written: &[(&str, chrono::NaiveDate)]) -> Vec<db::EntryId> {
    let mut conn = db::open(&paths::database_path(data_dir), &StorageOptions::default()).unwrap();
    written
        .iter()
        .map(|(title, day)| {
            let noon = day
                .and_hms_opt(12, 0, 0)
                .unwrap()
                .and_local_timezone(chrono::Local)
                .single()
                .unwrap();
            let entry = entries::NewEntry {
                title: (*title).to_owned(),
                body: format!("{title}."),
                created_at: Some(noon.fixed_offset()),
                ..Default::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap()
        })
        .collect()
}

#[test]
fn dashboard_streaks_and_on_this_day_follow_the_dates_written() {
    let today = chrono::Local::now().date_naive();
    let ago = |days: u64| today - chrono::Days::new(days);
    let years_ago = |years: u32| today.checked_sub_months(chrono::Months::new(12 * years)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    journal_with(
        dir.path(),
        &[
            // The current streak: today and the two days before.
            ("Today", today),
            ("Yesterday", ago(1)),
            ("Two days ago", ago(2)),
            // The longest: five days in a row, ended a week ago.
            ("Run 1", ago(14)),
            ("Run 2", ago(13)),
            ("Run 3", ago(12)),
            ("Run 4", ago(11)),
            ("Run 5", ago(10)),
            // Looking back: a month ago, the same date in an earlier year, and a near
            // miss.
            (
                "A month ago today",
                today.checked_sub_months(chrono::Months::new(1)).unwrap(),
            ),
            ("A year ago today", years_ago(1)),
            (
                "Two years ago, the day after",
                years_ago(2) + chrono::Days::new(1),
            ),
        ],
    );
    let mut harness = app(dir.path(), View::Dashboard);
    wait_until(&mut harness, "the dashboard", |h| shows(h, "Entries: 11"));
    assert!(shows(&harness, "Current streak: 3 days"));
    assert!(shows(&harness, "Longest streak: 5 days"));
    wait_until(&mut harness, "on this day", |h| {
        h.query_by_label("A year ago today").is_some()
    });
    assert!(!shows(&harness, "Two years ago, the day after"));
    assert!(!shows(&harness, "Nothing written on this date"));
    assert!(harness.query_by_label("A month ago today").is_some());

    harness.get_by_label("A year ago today").click();
    wait_until(&mut harness, "the entry in the journal", |h| {
        h.state().view() == View::Journal && h.query_all_by_value("A year ago today").next().is_some()
    });

    // An older entry at random: one lived over a month ago, opened in the journal.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Num2);
    harness.run_steps(2);
    harness.get_by_label("An older entry, at random").click();
    wait_until(&mut harness, "an older entry in the journal", |h| {
        h.state().view() == View::Journal
            && ["A year ago today", "Two years ago, the day after"]
                .iter()
                .any(|older| h.query_all_by_value(older).next().is_some())
    });
}

/// What keeps coming back shows on the dashboard as a theme, and a click on it lists its
/// entries in the journal through the search box.
#[test]
fn a_theme_on_the_dashboard_lists_its_entries() {
    let today = chrono::Local::now().date_naive();
    let ago = |days: u64| today - chrono::Days::new(days);
    let dir = tempfile::tempdir().unwrap();
    journal_with(
        dir.path(),
        &[
            ("Work", ago(1)),
            ("Knee sore", ago(2)),
            ("Reading", ago(5)),
            ("Knee better", ago(9)),
            ("Cooking", ago(12)),
            ("Knee fine again", ago(16)),
            ("Walk", ago(20)),
        ],
    );
    let mut harness = app(dir.path(), View::Dashboard);
    wait_until(&mut harness, "the knee as a theme", |h| {
        h.query_all_by_label("knee · 3 entries").next().is_some()
    });
    harness
        .get_all_by_label("knee · 3 entries")
        .next()
        .unwrap()
        .click();
    wait_until(&mut harness, "the knee's entries in the journal", |h| {
        h.state().view() == View::Journal
            && h.query_all_by_value("knee").next().is_some()
            && ["Knee sore", "Knee better", "Knee fine again"]
                .iter()
                .all(|title| h.query_all_by_label(title).next().is_some())
    });
    assert!(harness.query_all_by_label("Cooking").next().is_none());
}

/// The journal's write lock, held from another connection until released: saves the
/// app sends meanwhile wait in the writer (within its busy timeout), so "a save is on
/// its way" lasts exactly as long as the test wants.
struct WriteLock {
    release: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl WriteLock {
    fn take(data_dir: &Path) -> WriteLock {
        let path = paths::database_path(data_dir);
        let (taken_tx, taken) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let conn = db::open(&path, &StorageOptions::default()).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            taken_tx.send(()).unwrap();
            let _ = released.recv();
            conn.execute_batch("COMMIT").unwrap();
        });
        taken.recv().unwrap();
        WriteLock { release, thread }
    }

    fn release(self) {
        self.release.send(()).unwrap();
        self.thread.join().unwrap();
    }
}

#[test]
fn edits_typed_while_a_save_is_on_its_way_survive_opening_another_entry() {
    let dir = tempfile::tempdir().unwrap();
    let today = chrono::Local::now().date_naive();
    journal_with(dir.path(), &[("Alpha", today), ("Beta", today)]);
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the list", |h| {
        h.query_by_role_and_label(Role::Button, "Alpha").is_some()
    });
    harness.get_by_role_and_label(Role::Button, "Alpha").click();
    wait_until(&mut harness, "the entry in the editor", |h| shows(h, "Saved"));

    let lock = WriteLock::take(dir.path());
    type_into(&mut harness, Role::TextInput, "Title", " one");
    // The autosave goes and waits behind the lock.
    wait_until(&mut harness, "the save to be on its way", |h| shows(h, "Saving…"));
    type_into(&mut harness, Role::TextInput, "Title", " two");
    assert!(shows(&harness, "Saving…"), "the first save is still waiting");
    harness.get_by_role_and_label(Role::Button, "Beta").click();
    wait_until(&mut harness, "the other entry in the editor", |h| {
        h.query_all_by_value("Beta.").next().is_some()
    });
    lock.release();

    wait_until(&mut harness, "both edits in the list", |h| {
        h.query_by_role_and_label(Role::Button, "Alpha one two").is_some()
    });
    harness
        .get_by_role_and_label(Role::Button, "Alpha one two")
        .click();
    wait_until(&mut harness, "the edited entry in the editor", |h| {
        h.query_all_by_value("Alpha one two").next().is_some()
    });
}

/// Years of photos: the wheel takes the gallery to its oldest and back to its newest.
/// Pages far from the screen are forgotten with their textures on the way, and the
/// newest photos are read again and shown on the way back.
#[test]
fn a_long_gallery_wheeled_to_its_end_and_back_shows_its_newest_photos_again() {
    let dir = tempfile::tempdir().unwrap();
    let photos = 400;
    let newest = {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        let entry = entries::create(
            &mut conn,
            DEFAULT_USER,
            &entries::NewEntry {
                title: "Camera roll".into(),
                body: "Photos.".into(),
                ..Default::default()
            },
        )
        .unwrap();
        let now = chrono::Utc::now();
        for i in 0..photos {
            let mut png = Vec::new();
            let pixel = image::Rgb([(i % 256) as u8, (i / 256) as u8, 90]);
            image::RgbImage::from_pixel(8, 8, pixel)
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .unwrap();
            let prepared = mindsage_core::media::prepare_image(png).unwrap();
            let taken = mindsage_core::clock::format_utc(now - chrono::Duration::days(i as i64));
            db::gallery::attach_image(&conn, DEFAULT_USER, entry, &prepared, &taken, None).unwrap();
        }
        format!(
            "Photo added {}",
            mindsage::views::display_time(&mindsage_core::clock::format_utc(now))
        )
    };
    let mut harness = app(dir.path(), View::Gallery);
    wait_until(&mut harness, "the newest photo", |h| shows(h, &newest));
    let over_the_grid = harness.get_by_label(&newest).rect().center();
    let wheel = |harness: &mut Harness<'_, MindSageApp>, pages: f32| {
        harness.event(egui::Event::PointerMoved(over_the_grid));
        harness.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, pages),
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(1);
    };
    for _ in 0..200 {
        wheel(&mut harness, -5.0);
    }
    assert!(!shows(&harness, &newest), "at the oldest photos");
    for _ in 0..200 {
        if shows(&harness, &newest) {
            break;
        }
        wheel(&mut harness, 5.0);
    }
    wait_until(&mut harness, "the newest photo read again", |h| shows(h, &newest));
}

/// A photo dropped on the page is in the gallery, and the gallery opens its entry, whose
/// page shows it in its strip; a click shows it large, Esc closes it.
#[test]
fn a_dropped_photo_appears_in_the_gallery_and_opens_its_entry() {
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("sea.png");
    image::RgbImage::from_fn(64, 48, |x, y| image::Rgb([x as u8 * 4, y as u8 * 5, 200]))
        .save(&photo)
        .unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(&mut harness, "By the sea", "Took a photo of the waves.");

    harness.input_mut().dropped_files.push(egui::DroppedFile {
        path: Some(photo),
        ..Default::default()
    });
    wait_until(&mut harness, "the photo to be added", |h| {
        shows(h, "Added 1 photo.")
    });

    harness.get_by_role_and_label(Role::Button, "Gallery").click();
    wait_until(&mut harness, "the photo in the gallery", |h| {
        shows(h, "Photo added")
    });
    harness.get_by_label_contains("Photo added").click();
    wait_until(
        &mut harness,
        "its entry in the journal, its photo on the page",
        |h| {
            h.state().view() == View::Journal
                && shows(h, "Move to trash")
                && h.query_by_role_and_label(Role::Button, "Photo 1 of 1").is_some()
        },
    );
    app_harness::click(&mut harness, "Photo 1 of 1");
    wait_until(&mut harness, "the photo shown large", |h| {
        shows(h, "Esc to close") && h.query_by_role_and_label(Role::Image, "Photo 1 of 1").is_some()
    });
    harness.key_press(egui::Key::Escape);
    wait_until(&mut harness, "the large photo closed", |h| {
        !shows(h, "Esc to close")
    });
}

#[test]
fn a_dropped_day_one_export_is_previewed_then_imported_into_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("Day One export.zip");
    exports::write_dayone_zip(&zip);
    let mut harness = app(&dir.path().join("data"), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));

    harness.input_mut().dropped_files.push(egui::DroppedFile {
        path: Some(zip.clone()),
        ..Default::default()
    });
    let preview = format!("From Day One: {} entries to add", exports::DAYONE_ADDED);
    wait_until(&mut harness, "the import's preview", |h| shows(h, &preview));
    assert!(
        shows(&harness, "no creationDate"),
        "the preview lists what cannot be imported"
    );
    assert!(
        shows(&harness, "No entries yet."),
        "nothing is written before the person confirms"
    );

    let import = format!("Import {} entries", exports::DAYONE_ADDED);
    harness.get_by_role_and_label(Role::Button, &import).click();
    let done = format!("Imported {} entries from Day One", exports::DAYONE_ADDED);
    wait_until(&mut harness, "the import to finish", |h| shows(h, &done));
    harness.get_by_role_and_label(Role::Button, "Close").click();
    wait_until(&mut harness, "the imported entries in the list", |h| {
        shows(h, "Pastéis in Belém") && shows(h, "Quiet evening")
    });

    // The same export dropped again: nothing to add, nothing doubled.
    harness.input_mut().dropped_files.push(egui::DroppedFile {
        path: Some(zip),
        ..Default::default()
    });
    let again = format!(
        "0 entries to add, {} entries already in your journal",
        exports::DAYONE_ADDED
    );
    wait_until(&mut harness, "the second preview", |h| shows(h, &again));
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    harness.run_steps(2);
    assert!(!shows(&harness, "entries to add"), "Cancel closes the preview");
}

#[cfg(target_os = "linux")]
#[test]
fn where_no_file_dialog_can_open_the_window_says_so_and_takes_a_typed_path() {
    // No session bus (so no desktop portal) and no zenity on the PATH, in a process of
    // its own.
    let nowhere = tempfile::tempdir().unwrap();
    let bus = nowhere.path().join("no-bus");
    let address = std::ffi::OsString::from(format!("unix:path={}", bus.display()));
    in_own_process(
        "no_file_dialog_child",
        &[
            ("DBUS_SESSION_BUS_ADDRESS", &address),
            ("PATH", nowhere.path().as_os_str()),
        ],
    );
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by where_no_file_dialog_can_open_the_window_says_so_and_takes_a_typed_path"]
fn no_file_dialog_child() {
    let dir = tempfile::tempdir().unwrap();
    let zip = dir.path().join("Day One export.zip");
    exports::write_dayone_zip(&zip);
    let mut harness = app(&dir.path().join("data"), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));

    harness.get_by_role_and_label(Role::Button, "Menu").click();
    harness.run_steps(2);
    harness
        .get_by_role_and_label(Role::Button, "Import a journal…")
        .click();
    wait_until(&mut harness, "why no file dialog opened", |h| {
        shows(h, "The file dialog could not open") && shows(h, "zenity is not installed")
    });
    type_into(
        &mut harness,
        Role::TextInput,
        "Path",
        &format!("  \"{}\" ", zip.display()),
    );
    harness.get_by_role_and_label(Role::Button, "Open").click();
    let preview = format!("From Day One: {} entries to add", exports::DAYONE_ADDED);
    wait_until(&mut harness, "the typed export's preview", |h| shows(h, &preview));
    assert!(!shows(&harness, "The file dialog could not open"));
}

#[test]
fn the_journal_is_backed_up_when_the_window_opens_and_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let backups = dir.path().join("backups");
    let count = || {
        std::fs::read_dir(&backups).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.file_name() != mindsage_core::db::backup::COPYING_LOCK)
                .count()
        })
    };
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(&mut harness, "Worth keeping", "A day to remember.");
    let start = Instant::now();
    while count() == 0 {
        harness.step();
        assert!(
            start.elapsed() < PATIENCE,
            "no automatic backup in {}",
            backups.display()
        );
        std::thread::sleep(Duration::from_millis(15));
    }
    assert_eq!(count(), 1, "one backup a day, however often the window asks");

    open_settings(&mut harness);
    // On a busy machine the automatic backup may be made after the entry is saved, and
    // its file is there before its report reaches the window: its report first, so
    // that the one waited for below is the click's.
    let last_backup = |h: &Harness<'_, MindSageApp>| {
        // A label's text is its accessibility value.
        h.query_all_by_label_contains("Last backup:")
            .find_map(|n| n.accesskit_node().value())
    };
    wait_until(&mut harness, "the automatic backup's report", |h| {
        last_backup(h).is_some()
    });
    let automatic = last_backup(&harness);
    harness.get_by_role_and_label(Role::Button, "Back up now").click();
    wait_until(&mut harness, "the backup asked for", |h| {
        shows(h, "Last backup: 1 entry,") && last_backup(h) != automatic
    });
    assert_eq!(count(), 2);
}

#[test]
fn a_backup_is_restored_from_settings_and_the_journal_as_it_was_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(&mut harness, "Seaside", "Waves all afternoon.");
    open_settings(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Back up now").click();
    wait_until(&mut harness, "the backup listed", |h| {
        shows(h, "Last backup: 1 entry,") && h.query_by_role_and_label(Role::Button, "Restore…").is_some()
    });

    // Written after the backup: the restore takes it out of the journal.
    harness.get_by_role_and_label(Role::Button, "Journal").click();
    harness.run_steps(2);
    write_entry(&mut harness, "Mountains", "Snow on the pass.");
    open_settings(&mut harness);
    // The newest backup is listed first (the automatic one made at start is below it).
    harness
        .query_all_by_role_and_label(Role::Button, "Restore…")
        .next()
        .unwrap()
        .click();
    wait_until(&mut harness, "the backup checked", |h| {
        shows(h, "Replace the journal with this backup?") && shows(h, "holds 1 entry")
    });
    harness
        .get_by_role_and_label(Role::Button, "Replace the journal")
        .click();
    wait_until(&mut harness, "the backup restored", |h| {
        shows(h, "Restored the backup: 1 entry in the journal now")
    });
    harness.get_by_role_and_label(Role::Button, "Journal").click();
    wait_until(&mut harness, "the restored journal listed", |h| {
        h.query_by_role_and_label(Role::Button, "Seaside").is_some() && shows(h, "1 entry")
    });
    assert!(
        !shows(&harness, "Mountains"),
        "the entry written after the backup is gone"
    );

    // The journal as it was is kept with the backups, and listed to go back to.
    open_settings(&mut harness);
    wait_until(&mut harness, "the journal before the restore listed", |h| {
        shows(h, "the journal before a restore")
    });
    drop(harness);
    let before: Vec<_> = db::backup::list(dir.path())
        .into_iter()
        .filter(|b| !b.automatic)
        .collect();
    assert_eq!(before.len(), 1);
    let entries = std::thread::spawn(move || db::backup::check(&before[0].path, None).unwrap())
        .join()
        .unwrap();
    assert_eq!(entries, 2, "both entries are in the journal as it was");
}

#[test]
fn an_earlier_version_of_an_entry_is_brought_back_from_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    write_entry(&mut harness, "Harbour", "Boats at dawn.");
    type_into(&mut harness, Role::TextInput, "Title", " at noon");
    wait_until(&mut harness, "the edit saved", |h| {
        h.query_by_role_and_label(Role::Button, "Harbour at noon")
            .is_some()
            && h.query_by_label("Saved").is_some()
    });

    harness.get_by_label("Earlier versions").click();
    wait_until(&mut harness, "the versions", |h| {
        h.query_by_role_and_label(Role::Button, "Bring back").is_some()
    });
    assert!(
        shows(&harness, "Harbour"),
        "the version before the edit is listed by its title"
    );
    harness.get_by_role_and_label(Role::Button, "Bring back").click();
    wait_until(&mut harness, "the old title back in the list", |h| {
        h.query_by_role_and_label(Role::Button, "Harbour").is_some()
            && shows(h, "The earlier version is back")
    });
    harness.run_steps(2);
    assert_eq!(
        harness
            .get_by_role_and_label(Role::TextInput, "Title")
            .value()
            .as_deref(),
        Some("Harbour")
    );
    // The text it replaced is a version now, so it can come back in turn (read off the
    // UI thread, where the app forbids queries).
    let path = paths::database_path(dir.path());
    let kept = std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        let id = entries::list(&conn, DEFAULT_USER, &Default::default(), None, 5)
            .unwrap()
            .rows[0]
            .id;
        db::history::versions(&conn, id)
            .unwrap()
            .into_iter()
            .map(|v| v.title)
            .collect::<Vec<String>>()
    })
    .join()
    .unwrap();
    assert_eq!(kept, ["Harbour at noon", "Harbour"]);
}

/// Show on an earlier version reads what it said, compared with the page: a word
/// replaced since reads as the version's word then the new one (highlighted and struck
/// through on screen), and the preview follows what is typed meanwhile; Hide closes it.
#[test]
fn an_earlier_version_shows_what_it_said_against_the_page() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        let new = entries::NewEntry {
            title: "Harbour".into(),
            body: "Boats at dawn.".into(),
            ..Default::default()
        };
        entries::create(&mut conn, DEFAULT_USER, &new).unwrap();
    }
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the entry", |h| {
        h.query_by_role_and_label(Role::Button, "Harbour").is_some()
    });
    harness.get_by_role_and_label(Role::Button, "Harbour").click();
    wait_until(&mut harness, "the entry open", |h| {
        h.query_by_role_and_label(Role::MultilineTextInput, "Entry")
            .and_then(|e| e.value())
            .as_deref()
            == Some("Boats at dawn.")
    });
    harness
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .focus();
    harness.run_steps(2);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run_steps(1);
    harness.event(egui::Event::Text("Ships at dawn. Gulls overhead.".into()));
    harness.run_steps(1);
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the edit saved", |h| {
        h.query_by_label("Saved").is_some()
    });

    harness.get_by_label("Earlier versions").click();
    wait_until(&mut harness, "the versions", |h| {
        h.query_by_role_and_label(Role::Button, "Show").is_some()
    });
    harness.get_by_role_and_label(Role::Button, "Show").click();
    wait_until(&mut harness, "the version's text", |h| {
        shows(h, "struck-through words were written since")
    });
    let preview = |h: &Harness<'_, MindSageApp>| shows(h, "Boats\u{2009}Ships at dawn.");
    assert!(preview(&harness), "{}", app_harness::on_screen(&harness));

    // Typing goes on: the preview compares with the page as it is now.
    type_into(&mut harness, Role::MultilineTextInput, "Entry", " Rain later.");
    wait_until(&mut harness, "the preview compared again", |h| {
        shows(h, "Boats\u{2009}Ships at dawn. Gulls overhead. Rain later.")
    });
    harness.get_by_role_and_label(Role::Button, "Hide").click();
    wait_until(&mut harness, "the preview closed", |h| !preview(h));
}

#[test]
fn shortening_the_history_in_settings_erases_the_versions_it_no_longer_keeps() {
    let dir = tempfile::tempdir().unwrap();
    // A journal whose entry has two versions of one month, kept 40 and 35 days ago.
    let path = paths::database_path(dir.path());
    let id = {
        let mut conn = db::open(&path, &StorageOptions::default()).unwrap();
        let new = entries::NewEntry {
            title: "Garden".into(),
            body: "Tomatoes in.".into(),
            ..Default::default()
        };
        let id = entries::create(&mut conn, DEFAULT_USER, &new).unwrap();
        let now = chrono::Utc::now();
        for (written, days_ago) in [("2026-01-05", 40), ("2026-01-20", 35)] {
            conn.execute(
                "INSERT INTO entry_versions (entry_id, written_at, kept_at, title, body, tag_names) \
                 VALUES (?1, ?2, ?3, 'Garden', 'Seeds.', '')",
                rusqlite::params![
                    id,
                    format!("{written}T10:00:00.000Z"),
                    mindsage_core::clock::format_utc(now - chrono::Duration::days(days_ago))
                ],
            )
            .unwrap();
        }
        id
    };
    let mut harness = app(dir.path(), View::Settings);
    let field = "Keep every earlier version of an entry for (days)";
    wait_until(&mut harness, "the journal's history setting", |h| {
        h.query_by_role_and_label(Role::SpinButton, field)
            .is_some_and(|n| n.value().as_deref() == Some("90"))
    });
    // Clicked, a number field takes typing.
    harness.get_by_role_and_label(Role::SpinButton, field).click();
    harness.run_steps(2);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.event(egui::Event::Text("30".into()));
    harness.key_press(egui::Key::Enter);
    harness.run_steps(2);
    assert!(shows(&harness, "saving erases the versions this no longer keeps"));
    save_settings(&mut harness);
    drop(harness);
    // Read off the UI thread, where the app forbids queries.
    let (days, versions) = std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        (
            db::history::days(&conn, DEFAULT_USER).unwrap(),
            db::history::versions(&conn, id).unwrap().len(),
        )
    })
    .join()
    .unwrap();
    assert_eq!(days, 30);
    assert_eq!(versions, 1, "one version kept of the month older than 30 days");
}

#[test]
fn f12_opens_the_profiler_overlay_with_the_query_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    assert!(!harness.state().overlay_open());

    harness.key_press(egui::Key::F12);
    wait_until(&mut harness, "the overlay", |h| {
        shows(h, "Named queries and stages")
    });
    assert!(harness.state().overlay_open());
    assert!(puffin::are_scopes_on());
    // The reader's queries so far are in the table.
    assert!(shows(&harness, "list.count"));

    harness.key_press(egui::Key::F12);
    harness.run_steps(2);
    assert!(!harness.state().overlay_open());
    assert!(!shows(&harness, "Named queries and stages"));
    assert!(!puffin::are_scopes_on());
}

#[test]
fn settings_show_the_pragmas_in_effect() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Settings);
    wait_until(&mut harness, "the pragmas", |h| shows(h, "journal_mode"));
    assert!(shows(&harness, "wal"));
}

#[test]
fn without_a_model_settings_say_where_to_get_ollama_and_the_models() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Settings);
    wait_until(&mut harness, "the model's status", |h| {
        shows(h, "Status: not ready")
    });
    assert!(shows(&harness, "download Ollama"));
    let defaults = AiSettings::default();
    for model in [&defaults.text_model, &defaults.embed_model] {
        assert!(shows(&harness, &format!("ollama pull {model}")), "{model}");
    }
}

#[test]
fn an_ask_question_streams_an_answer_with_sources_and_timings() {
    const ANSWER: &str = "You walked to the lighthouse at dawn with Sam.";
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    // The question's rule comes first (Ask's prompt also holds the entries' text).
    script_lighthouse_and_pottery(
        server,
        20,
        &format!(
            r#"{{"match": "When did I walk", "response": {}}},"#,
            serde_json::to_string(ANSWER).unwrap()
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    lighthouse_and_pottery(dir.path());
    let mut harness = app_with(dir.path(), View::Ask, server.settings());
    wait_until(&mut harness, "the model's status", |h| {
        shows(h, "is running with")
    });

    type_into(
        &mut harness,
        Role::TextInput,
        "Question",
        "When did I walk to the lighthouse?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    // Streaming: part of the answer shows before all of it.
    wait_until(&mut harness, "the first words", |h| shows(h, "You walked"));
    assert!(
        !shows(&harness, "total "),
        "the answer finished before any of it streamed"
    );
    wait_until(&mut harness, "the whole answer", |h| {
        shows(h, ANSWER) && shows(h, "total ")
    });
    assert!(shows(&harness, "search "), "per-stage timings under the answer");
    wait_until(&mut harness, "the source link", |h| {
        h.query_by_label("Lighthouse").is_some()
    });

    // The answered question is saved and listed in the history.
    wait_until(&mut harness, "the question in the history", |h| {
        h.query_by_role_and_label(Role::Button, "When did I walk to the lighthouse?")
            .is_some()
    });

    harness.get_by_label("Lighthouse").click();
    wait_until(&mut harness, "the source entry in the journal", |h| {
        h.state().view() == View::Journal && h.query_all_by_value("Lighthouse").next().is_some()
    });
}

/// Scripted enrichment for [`lighthouse_and_pottery`]'s entries (no tags, titles kept),
/// so no real generation runs before what a test asks on a busy machine; `extra` rules
/// come first, and replies stream a token every `token_delay_ms`.
fn script_lighthouse_and_pottery(server: &ollama_server::LocalOllama, token_delay_ms: u32, extra: &str) {
    const ENRICHED: &str = r#"{"title": "A day", "mood_score": 6, "mood_tags": [], "summary": "A day."}"#;
    server.script(&format!(
        r#"{{"token_delay_ms": {token_delay_ms}, "first_token_delay_ms": 0, "rules": [{extra}
            {{"match": "then coffee", "response": {enriched}}},
            {{"match": "collapsed twice", "response": {enriched}}}]}}"#,
        enriched = serde_json::to_string(ENRICHED).unwrap(),
    ));
}

/// A journal of two entries, written before the window opens (and arms the UI-thread
/// guard); the window's own model work embeds them with the real embedding model.
fn lighthouse_and_pottery(data_dir: &Path) {
    let mut conn = db::open(&paths::database_path(data_dir), &StorageOptions::default()).unwrap();
    for (title, body) in [
        (
            "Lighthouse",
            "Walked to the lighthouse at dawn with Sam, then coffee.",
        ),
        ("Pottery", "First pottery class, the bowl collapsed twice."),
    ] {
        let entry = entries::NewEntry {
            title: title.to_owned(),
            body: body.to_owned(),
            ..Default::default()
        };
        entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
    }
}

/// Waits until the window's model work has embedded `count` entries (read on a
/// connection of the test's own), so what follows searches by meaning too.
fn wait_until_embedded(harness: &mut Harness<'_, MindSageApp>, data_dir: &Path, count: i64) {
    let embedded = || {
        let conn = rusqlite::Connection::open(paths::database_path(data_dir)).ok()?;
        conn.query_row("SELECT count(DISTINCT entry_id) FROM vector_changes", [], |r| {
            r.get::<_, i64>(0)
        })
        .ok()
    };
    wait_until(harness, "the entries embedded", |_| {
        embedded().is_some_and(|n| n >= count)
    });
}

#[test]
fn ask_says_it_found_nothing_about_what_the_journal_never_mentions() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    // What a model would invent if it were asked.
    script_lighthouse_and_pottery(
        server,
        0,
        r#"{"match": "holiday in Japan", "response": "You loved the temples of Kyoto."},"#,
    );
    let dir = tempfile::tempdir().unwrap();
    lighthouse_and_pottery(dir.path());
    // The journal on screen starts the model's work, which embeds the entries.
    let mut harness = app_with(dir.path(), View::Journal, server.settings());
    wait_until_embedded(&mut harness, dir.path(), 2);
    harness.get_by_role_and_label(Role::Button, "Ask").click();
    harness.run();

    type_into(
        &mut harness,
        Role::TextInput,
        "Question",
        "What did I do on my holiday in Japan?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    wait_until(&mut harness, "the whole answer", |h| {
        matches!(h.state().last_answer(), Some((Ok(_), false)))
    });
    assert!(
        shows(&harness, "I found nothing in your journal about that."),
        "{:?}",
        harness.state().last_answer()
    );
    assert!(!shows(&harness, "Kyoto"), "no model answered");
    assert!(!shows(&harness, "Sources:"), "no entry shown as a source");
    for title in ["Lighthouse", "Pottery"] {
        assert!(harness.query_by_label(title).is_none(), "{title} shown");
    }
}

/// The search box's answer by meaning has arrived (the words-only answer says so).
fn searched_by_meaning(harness: &Harness<'_, MindSageApp>) -> bool {
    !shows(harness, "Searching") && !shows(harness, "Matching words only")
}

#[test]
fn the_search_box_lists_close_matches_and_not_the_rest_of_the_journal() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script_lighthouse_and_pottery(server, 0, "");
    let dir = tempfile::tempdir().unwrap();
    lighthouse_and_pottery(dir.path());
    let mut harness = app_with(dir.path(), View::Journal, server.settings());
    wait_until_embedded(&mut harness, dir.path(), 2);

    // A word in no entry, near none in meaning: it says so, and lists nothing.
    type_into(&mut harness, Role::TextInput, "Search", "xylophone");
    wait_until(&mut harness, "nothing close to the word", |h| {
        searched_by_meaning(h) && shows(h, "No close matches.")
    });
    for title in ["Lighthouse", "Pottery"] {
        assert!(
            harness.query_by_role_and_label(Role::Button, title).is_none(),
            "{title} listed"
        );
    }

    // A word close in meaning to one entry finds it, and only it.
    for _ in "xylophone".chars() {
        harness.key_press(egui::Key::Backspace);
    }
    type_into(&mut harness, Role::TextInput, "Search", "ceramics");
    wait_until(&mut harness, "the entry close in meaning", |h| {
        searched_by_meaning(h) && h.query_by_role_and_label(Role::Button, "Pottery").is_some()
    });
    assert!(shows(&harness, "No other close matches."));
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Lighthouse")
            .is_none()
    );
}

/// Replies for the model's work on the sore-knee entry: the enrichment (matched by the
/// entry's own words) and Ask's answer (matched by the question).
const KNEE_SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "Which joint", "response": "Your knee has been sore since the run."},
  {"match": "knee ached", "response": "{\"title\": \"Sore knee after the run\", \"mood_score\": 4, \"mood_tags\": [\"tired\"], \"summary\": \"A run by the river left an aching knee.\"}"}
]}"#;

/// Shares no word with [`QUESTION`], so only meaning can connect them.
const KNEE_BODY: &str = "Went running by the river; my knee ached all evening.";
const QUESTION: &str = "Which joint has been giving me trouble";

/// What the journal file holds for its one entry: title, summary, the model's suggested
/// mood, and whether it has a vector. Read on a connection of the test's own (no catalogue query, so the
/// UI-thread guard the app armed on this thread is not involved).
fn stored_work(data_dir: &Path) -> Option<(String, Option<String>, Option<u8>, bool)> {
    let conn = rusqlite::Connection::open(paths::database_path(data_dir)).ok()?;
    conn.query_row(
        "SELECT title, summary, suggested_mood, \
         EXISTS (SELECT 1 FROM vector_changes AS v WHERE v.entry_id = e.id) FROM journal_entries AS e",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .ok()
}

/// Starts a new entry as a person does and types `body` into its text, unsaved.
fn type_new_entry(harness: &mut Harness<'_, MindSageApp>, body: &str) {
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_into(harness, Role::MultilineTextInput, "Entry", body);
}

/// The window on a new journal in `data_dir`, its model scripted for the sore-knee
/// entry, which a person has just typed (call it holding [`ollama_server::exclusive`]).
fn typed_knee_entry(server: &ollama_server::LocalOllama, data_dir: &Path) -> Harness<'static, MindSageApp> {
    server.script(KNEE_SCRIPT);
    let mut harness = app_with(data_dir, View::Journal, server.settings());
    type_new_entry(&mut harness, KNEE_BODY);
    harness
}

#[test]
fn a_typed_entry_gets_the_models_work_and_is_found_by_meaning() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let mut harness = typed_knee_entry(server, dir.path());

    // Saving queued the work; the running app's job runner does it.
    wait_until(
        &mut harness,
        "the model's title, summary, mood and vector in the file",
        |_| {
            stored_work(dir.path()).is_some_and(|(title, summary, mood, vector)| {
                title == "Sore knee after the run" && summary.is_some() && mood == Some(4) && vector
            })
        },
    );

    // The search box finds it by meaning alone.
    type_into(&mut harness, Role::TextInput, "Search", QUESTION);
    wait_until(
        &mut harness,
        "the entry found by meaning in the search box",
        |h| {
            h.query_by_role_and_label(Role::Button, "Sore knee after the run")
                .is_some()
                && !shows(h, "keywords only")
        },
    );

    // So does Ask, and it says it used meaning as well as words.
    harness.get_by_role_and_label(Role::Button, "Ask").click();
    harness.run();
    type_into(&mut harness, Role::TextInput, "Question", QUESTION);
    harness.get_by_role_and_label(Role::Button, "Send").click();
    wait_until(&mut harness, "Ask's answer with the entry as its source", |h| {
        matches!(h.state().last_answer(), Some((Ok(_), false)))
            && h.query_by_label("Sore knee after the run").is_some()
    });
    let (answer, _) = harness.state().last_answer().unwrap();
    assert!(!answer.unwrap().contains("keywords only"), "{answer:?}");
}

/// The model's title, mood and tags are offered beside the person's fields, never put
/// in them: a tag the person set stays alone, Use makes a suggestion the person's, and
/// Dismiss drops one for good.
#[test]
fn the_models_title_mood_and_tags_are_suggestions_the_person_takes_or_dismisses() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let mut harness = typed_knee_entry(server, dir.path());
    type_into(&mut harness, Role::TextInput, "Tags", "running");
    wait_until(&mut harness, "the model's suggestions", |h| {
        shows(h, "Suggested by the local model") && shows(h, "tag “tired”") && shows(h, "mood 4 of 10")
    });
    let field = |h: &Harness<'_, MindSageApp>, label: &str| {
        h.get_by_role_and_label(Role::TextInput, label)
            .value()
            .unwrap_or_default()
    };
    assert_eq!(
        field(&harness, "Title"),
        "",
        "the model's title is not typed text"
    );
    assert_eq!(
        field(&harness, "Tags"),
        "running",
        "nothing added to the person's tags"
    );
    // The list names the entry by the model's title until the person types one.
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Sore knee after the run")
            .is_some()
    );

    harness
        .get_by_role_and_label(Role::Button, "Use the model's tag “tired”")
        .click();
    harness.run_steps(2);
    harness
        .get_by_role_and_label(Role::Button, "Dismiss the model's mood 4 of 10")
        .click();
    harness.run_steps(2);
    assert_eq!(field(&harness, "Tags"), "running, tired");
    wait_until(&mut harness, "the accepted tag saved, the mood dismissed", |_| {
        entries_in_journal(dir.path())
            .first()
            .is_some_and(|e| e.tags == ["running", "tired"] && e.suggested_mood.is_none())
    });
    let entry = entries_in_journal(dir.path()).remove(0);
    assert_eq!(entry.mood_score, None, "a dismissed mood is not the person's");
    assert!(!entry.title_by_user);

    harness
        .get_by_role_and_label(Role::Button, "Use the model's title “Sore knee after the run”")
        .click();
    wait_until(&mut harness, "the accepted title saved as the person's", |_| {
        entries_in_journal(dir.path())
            .first()
            .is_some_and(|e| e.title_by_user && e.title == "Sore knee after the run")
    });
    assert!(!shows(&harness, "Suggested by the local model"));
}

#[test]
fn the_models_work_resumes_after_the_app_is_closed_mid_way() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(KNEE_SCRIPT);
    // The enrichment call is held at the model while the app closes.
    server.fault(r#"{"latency_ms": 8000, "paths": ["/api/chat"], "count": 1}"#);
    let dir = tempfile::tempdir().unwrap();
    {
        let mut harness = app_with(dir.path(), View::Journal, server.settings());
        type_new_entry(&mut harness, KNEE_BODY);
        wait_until(&mut harness, "the entry saved and embedded", |_| {
            stored_work(dir.path()).is_some_and(|(_, _, _, vector)| vector)
        });
        wait_until(&mut harness, "the queue bar", |h| {
            shows(h, "Writing titles and summaries")
        });
        assert_eq!(
            stored_work(dir.path()).unwrap().1,
            None,
            "closed before the work was done"
        );
    }
    let mut harness = app_with(dir.path(), View::Journal, server.settings());
    wait_until(&mut harness, "the work finished after the restart", |_| {
        stored_work(dir.path())
            .is_some_and(|(title, summary, ..)| title == "Sore knee after the run" && summary.is_some())
    });
    server.clear_faults();
}

/// Every entry's body in the journal file.
fn bodies_in_journal(data_dir: &Path) -> Vec<String> {
    entries_in_journal(data_dir).into_iter().map(|e| e.body).collect()
}

/// The app on an empty journal with `body` typed into a new entry, not saved yet.
fn typed_into_a_new_entry(data_dir: &Path, body: &str) -> Harness<'static, MindSageApp> {
    let mut harness = app(data_dir, View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    type_new_entry(&mut harness, body);
    harness
}

/// Spaces and line breaks alone are not an entry: nothing is saved after the typing
/// pause nor at closing, and the editor says so.
#[test]
fn an_entry_of_white_space_alone_is_not_saved() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = typed_into_a_new_entry(dir.path(), "   \n\t  ");
    keep_running(&mut harness, Duration::from_millis(1500));
    assert!(shows(&harness, "New entry, not saved yet"));
    request_close(&mut harness);
    wait_until(&mut harness, "the window to close", |h| h.state().closed());
    drop(harness);
    assert!(bodies_in_journal(dir.path()).is_empty());
}

#[test]
fn closing_right_after_typing_saves_the_text_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = typed_into_a_new_entry(dir.path(), "Typed a moment before closing.");

    // Closed at once, well inside the autosave's typing pause.
    request_close(&mut harness);
    let commands = &harness.output().viewport_output[&egui::ViewportId::ROOT].commands;
    assert!(
        commands.contains(&egui::ViewportCommand::CancelClose),
        "the close waits for the save: {commands:?}"
    );
    assert!(shows(&harness, "Saving before closing…"));
    wait_until(&mut harness, "the window to close", |h| h.state().closed());
    drop(harness);

    assert_eq!(bodies_in_journal(dir.path()), ["Typed a moment before closing."]);
}

#[test]
fn a_failure_elsewhere_during_a_drafts_first_save_saves_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));

    // The draft's first save waits behind another connection's write lock…
    let lock = WriteLock::take(dir.path());
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Title", "Only once");
    wait_until(&mut harness, "the first save to be on its way", |h| {
        shows(h, "Saving…")
    });
    // …while a request that has nothing to do with it fails.
    harness.state().backend().send(Request::Fault(Fault::Fail));
    wait_until(&mut harness, "the unrelated failure", |h| {
        shows(h, "a test asked for this failure")
    });
    lock.release();

    wait_until(&mut harness, "the entry in the list", |h| {
        h.query_by_role_and_label(Role::Button, "Only once").is_some()
    });
    // Longer than the typing pause, so a wrongly retried create would have gone out.
    keep_running(&mut harness, Duration::from_millis(1500));
    assert!(shows(&harness, "Saved"));
    assert_eq!(bodies_in_journal(dir.path()).len(), 1, "one entry, not two");
}

#[test]
fn a_reader_that_dies_is_reported_keeps_the_text_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = typed_into_a_new_entry(dir.path(), "Words that must survive.");

    // A bug on the reader: the panic ends the thread, as a real one would.
    harness.state().backend().send(Request::Fault(Fault::PanicReader));
    wait_until(&mut harness, "the stopped thread to be reported", |h| {
        shows(h, "reading the journal stopped")
    });
    let draft = dir.path().join("drafts");
    let files: Vec<_> = std::fs::read_dir(&draft)
        .unwrap()
        .map(|f| f.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one draft file: {files:?}");
    let kept = std::fs::read_to_string(&files[0]).unwrap();
    assert!(kept.contains("Words that must survive."), "{kept}");
    assert!(
        harness
            .query_all_by_value("Words that must survive.")
            .next()
            .is_some()
    );
    // Nothing claims the text is saved; the typing pause passes and still nothing does.
    keep_running(&mut harness, Duration::from_millis(1000));
    assert!(shows(&harness, "Not saved: kept in"));
    assert!(harness.query_by_label("Saved").is_none());
    assert!(bodies_in_journal(dir.path()).is_empty());

    harness.get_by_role_and_label(Role::Button, "Restart").click();
    wait_until(&mut harness, "the text saved after the restart", |h| {
        h.query_by_label("Saved").is_some() && h.query_by_label("1 entry").is_some()
    });
    assert_eq!(bodies_in_journal(dir.path()), ["Words that must survive."]);
    assert!(!files[0].exists(), "the draft file goes once the text is saved");
}

#[test]
fn a_writer_that_dies_is_reported_and_nothing_claims_saved() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    harness.state().backend().send(Request::Fault(Fault::PanicWriter));
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Title", "After the writer");
    wait_until(&mut harness, "the stopped writer to be reported", |h| {
        shows(h, "saving stopped")
    });
    assert!(shows(&harness, "Not saved"));
    assert!(harness.query_by_label("Saved").is_none());

    harness.get_by_role_and_label(Role::Button, "Restart").click();
    wait_until(&mut harness, "the entry saved after the restart", |h| {
        h.query_by_role_and_label(Role::Button, "After the writer")
            .is_some()
    });
    wait_until(&mut harness, "the editor to say so", |h| {
        h.query_by_label("Saved").is_some()
    });
    assert_eq!(bodies_in_journal(dir.path()).len(), 1);
}

#[test]
fn a_damaged_settings_file_is_named_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    std::fs::write(&file, b"{ \"theme\": \"dark\", oops").unwrap();
    let mut harness = app(dir.path(), View::Settings);
    wait_until(&mut harness, "the damaged file named", |h| {
        h.query_all_by_label_contains("settings.json could not be read")
            .next()
            .is_some()
    });
    // Switching the theme would save the settings: it must not write over the file.
    harness.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::L);
    keep_running(&mut harness, Duration::from_millis(500));
    assert_eq!(std::fs::read(&file).unwrap(), b"{ \"theme\": \"dark\", oops");

    // Only the person's say-so replaces it.
    harness
        .get_by_role_and_label(Role::Button, "Replace the settings file with these settings")
        .click();
    wait_until(&mut harness, "the settings written", |_| {
        mindsage_core::settings::Settings::load(dir.path()).is_ok()
    });
}

#[test]
fn a_failed_query_embedding_says_why_in_the_search_box() {
    let dir = tempfile::tempdir().unwrap();
    journal_with(dir.path(), &[("Harbour walk", chrono::Local::now().date_naive())]);
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the list", |h| {
        h.query_by_role_and_label(Role::Button, "Harbour walk").is_some()
    });
    type_into(&mut harness, Role::TextInput, "Search", "harbour");
    wait_until(&mut harness, "the reason meaning is missing", |h| {
        shows(h, "Matching words only: Ollama is not running at")
    });
}

#[test]
fn ctrl_n_puts_the_cursor_in_the_text_and_its_start_names_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Dashboard);
    wait_until(&mut harness, "the empty journal counted", |h| {
        shows(h, "0 entries")
    });

    // From another screen, as a person does: Ctrl+N, then start writing at once.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    harness.run_steps(2);
    harness.event(egui::Event::Text("Rain all day.\nThen sun.".to_owned()));
    wait_until(
        &mut harness,
        "the entry in the list under the start of its text",
        |h| h.query_by_role_and_label(Role::Button, "Rain all day.").is_some(),
    );
    assert_eq!(harness.state().view(), View::Journal);
    drop(harness);

    // The words went into the text, not into a one-line title.
    assert_eq!(bodies_in_journal(dir.path()), ["Rain all day.\nThen sun."]);
    let title = entries_in_journal(dir.path())[0].title.clone();
    assert_eq!(title, "", "the title is left for the model to suggest");
}

#[test]
fn a_tag_in_the_list_shows_the_entries_carrying_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = paths::database_path(dir.path());
    std::thread::spawn(move || {
        let mut conn = db::open(&path, &StorageOptions::default()).unwrap();
        for (title, tags) in [("By the river", vec!["walks"]), ("Tax forms", vec!["admin"])] {
            let entry = entries::NewEntry {
                title: title.to_owned(),
                body: "text".to_owned(),
                tags: tags.into_iter().map(str::to_owned).collect(),
                ..entries::NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    })
    .join()
    .unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "both entries", |h| {
        h.query_by_role_and_label(Role::Button, "Tax forms").is_some()
    });

    harness.get_by_label("#walks").click();
    wait_until(&mut harness, "only the walks", |h| {
        h.query_by_role_and_label(Role::Button, "Tax forms").is_none()
    });
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "By the river")
            .is_some()
    );

    // The chip takes the filter off again.
    harness.get_by_label("#walks ×").click();
    wait_until(&mut harness, "every entry again", |h| {
        h.query_by_role_and_label(Role::Button, "Tax forms").is_some()
    });
}

/// The app recording from the test input (a WAV file played in at a microphone's pace,
/// through the same recorder as a device), with no model reachable.
/// The app recording from `sample`, and the sound output's turn: a voice entry opened in
/// the editor opens the output for its player, and a second test's player meanwhile finds
/// the device busy ("not available"). Hold the guard until the harness is dropped
/// (declare it first).
fn app_recording(
    data_dir: &Path,
    sample: &Path,
    view: View,
) -> (std::sync::MutexGuard<'static, ()>, Harness<'static, MindSageApp>) {
    static SOUND_OUTPUT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let turn = SOUND_OUTPUT.lock().unwrap_or_else(|poison| poison.into_inner());
    let mut startup = Startup::on_view(data_dir.to_path_buf(), view);
    startup.voice_input = Some(Input::File(sample.to_path_buf()));
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    // Tall enough that Settings' voice fields show above the recorder's panel.
    (turn, app_from(startup, offline, 1400.0))
}

/// The data folder's `models/` with the real tiny.en model in it, as a person puts it.
fn put_model_in(data_dir: &Path) {
    let models = data_dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::copy(whisper_model::tiny_en(), models.join("ggml-tiny.en.bin")).unwrap();
}

/// Records until the recorder's clock shows `seconds`, then clicks Stop.
fn record_for(harness: &mut Harness<'_, MindSageApp>, seconds: u64) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    wait_until(harness, "the recorder running", |h| shows(h, "Recording"));
    let clock = format!("0:{seconds:02} /");
    wait_until(harness, "the recording's clock", |h| shows(h, &clock));
    assert!(
        shows(harness, "REC 0:"),
        "the top bar shows the recording light and its time"
    );
    harness.get_by_role_and_label(Role::Button, "Stop").click();
    harness.run_steps(2);
}

#[test]
fn ctrl_r_records_a_voice_entry_that_is_transcribed_saved_and_plays_back() {
    let dir = tempfile::tempdir().unwrap();
    put_model_in(dir.path());
    let clip = whisper_model::samples().remove(0);
    let (_sound, mut harness) = app_recording(dir.path(), &clip.path, View::Dashboard);
    wait_until(&mut harness, "the empty journal counted", |h| {
        shows(h, "0 entries")
    });

    record_for(&mut harness, 6);
    wait_at_most(
        &mut harness,
        "the new entry open in the journal",
        TRANSCRIPTION_PATIENCE,
        |h| {
            h.query_by_role_and_label(Role::Button, "▶ Play recording")
                .is_some()
        },
    );
    assert_eq!(harness.state().view(), View::Journal);
    let first_words = clip.text.split(' ').take(4).collect::<Vec<_>>().join(" ");
    assert!(
        shows(&harness, &first_words),
        "the transcript is the entry's text"
    );
    drop(harness);

    let stored = entries_in_journal(dir.path());
    assert_eq!(stored.len(), 1);
    let missing = mindsage_core::voice::score::missing_keywords(&stored[0].body, &clip.keywords);
    assert!(missing.is_empty(), "{missing:?} not in {:?}", stored[0].body);
    let path = paths::database_path(dir.path());
    let id = stored[0].id;
    let (recordings, pending) = std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        (
            audio::of_entry(&conn, DEFAULT_USER, id).unwrap(),
            jobs::counts(&conn).unwrap().pending(),
        )
    })
    .join()
    .unwrap();
    assert_eq!(recordings.len(), 1, "the recording is kept with the entry");
    assert!(recordings[0].duration_ms >= 6_000, "{:?}", recordings[0]);
    assert_eq!(pending, 2, "enrichment and embedding are queued like any save's");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("recordings"))
        .unwrap()
        .collect();
    assert!(
        left.is_empty(),
        "the recording file is erased once the journal holds it"
    );
}

#[test]
fn without_a_whisper_model_the_recording_waits_and_is_done_once_one_is_set_up() {
    let dir = tempfile::tempdir().unwrap();
    let clip = whisper_model::samples().remove(1);
    let (_sound, mut harness) = app_recording(dir.path(), &clip.path, View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    record_for(&mut harness, 5);
    wait_until(&mut harness, "the recording waiting, with what to do", |h| {
        shows(h, "1 recording is waiting to be transcribed") && shows(h, "no Whisper model is set up")
    });
    assert!(bodies_in_journal(dir.path()).is_empty());

    // The person fetches a model and names it in Settings.
    let model = dir.path().join("downloaded/ggml-tiny.en.bin");
    std::fs::create_dir_all(model.parent().unwrap()).unwrap();
    std::fs::copy(whisper_model::tiny_en(), &model).unwrap();
    open_settings(&mut harness);
    type_into(
        &mut harness,
        Role::TextInput,
        "Whisper model file",
        &model.display().to_string(),
    );
    save_settings(&mut harness);
    wait_at_most(
        &mut harness,
        "the waiting recording saved as an entry",
        TRANSCRIPTION_PATIENCE,
        |h| {
            h.query_by_role_and_label(Role::Button, "▶ Play recording")
                .is_some()
        },
    );
    drop(harness);
    let bodies = bodies_in_journal(dir.path());
    assert_eq!(bodies.len(), 1);
    assert!(
        mindsage_core::voice::score::missing_keywords(&bodies[0], &clip.keywords).is_empty(),
        "{bodies:?}"
    );
}

#[test]
fn a_model_copied_into_the_models_folder_as_told_is_taken_up_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let clip = whisper_model::samples().remove(1);
    let (_sound, mut harness) = app_recording(dir.path(), &clip.path, View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    record_for(&mut harness, 5);
    let models = dir.path().join("models").display().to_string();
    wait_until(
        &mut harness,
        "the recording waiting, with where to put a model",
        |h| shows(h, "1 recording is waiting to be transcribed") && shows(h, &models),
    );

    // The person copies a model into that folder and goes back to the window, which
    // stays open.
    put_model_in(dir.path());
    wait_at_most(
        &mut harness,
        "the waiting recording saved as an entry",
        TRANSCRIPTION_PATIENCE,
        |h| {
            h.query_by_role_and_label(Role::Button, "▶ Play recording")
                .is_some()
        },
    );
    drop(harness);
    let bodies = bodies_in_journal(dir.path());
    assert_eq!(bodies.len(), 1);
    assert!(
        mindsage_core::voice::score::missing_keywords(&bodies[0], &clip.keywords).is_empty(),
        "{bodies:?}"
    );
}

/// Runs the ignored test `child` in a process of its own with `env` (what a library reads
/// once per process, such as ALSA's configuration from `HOME`), and fails as it fails.
#[cfg(target_os = "linux")]
fn in_own_process(child: &str, env: &[(&str, &std::ffi::OsStr)]) {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child, "--nocapture", "--ignored"])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && printed.contains("1 passed"),
        "{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_recording_whose_output_fails_keeps_its_player_and_says_why_within_the_editor() {
    // A sound output that cannot open: ALSA's default is a card that is not there.
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".asoundrc"),
        "pcm.!default { type hw; card 97 }\nctl.!default { type hw; card 97 }\n",
    )
    .unwrap();
    in_own_process("output_fails_child", &[("HOME", home.path().as_os_str())]);
}

#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by a_recording_whose_output_fails_keeps_its_player_and_says_why_within_the_editor"]
fn output_fails_child() {
    let dir = tempfile::tempdir().unwrap();
    let clip = whisper_model::samples().remove(0);
    let samples = mindsage_core::voice::wav::read_file(&clip.path).unwrap();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        let entry = entries::NewEntry {
            title: "Spoken on the pier".into(),
            body: clip.text.clone(),
            ..entries::NewEntry::default()
        };
        let recording = audio::NewRecording {
            wav: &mindsage_core::voice::wav::encode(&samples),
            duration_ms: mindsage_core::voice::duration_ms(samples.len()),
            language: "en",
            segments: &[],
        };
        audio::create_entry(&mut conn, DEFAULT_USER, &entry, &recording).unwrap();
    }
    let mut harness = app(dir.path(), View::Journal);
    // A window as narrow as half a laptop's screen: the list and the editor side by
    // side, the editor as wide as what is left.
    harness.set_size(egui::vec2(800.0, 800.0));
    wait_until(&mut harness, "the voice entry in the list", |h| {
        h.query_by_role_and_label(Role::Button, "Spoken on the pier")
            .is_some()
    });
    harness
        .get_by_role_and_label(Role::Button, "Spoken on the pier")
        .click();
    wait_until(&mut harness, "its player", |h| {
        h.query_by_role_and_label(Role::Button, "▶ Play recording")
            .is_some()
    });
    // A message wider than the editor once pushed it past the window's right edge.
    let right = harness.ctx.content_rect().max.x;
    harness
        .get_by_role_and_label(Role::Button, "▶ Play recording")
        .click();
    wait_until(&mut harness, "why it cannot play", |h| {
        shows(h, "The recording cannot play")
    });
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "▶ Play recording")
            .is_some(),
        "the player stays, to try again"
    );
    let told = harness.get_by_label_contains("The recording cannot play").rect();
    assert!(
        told.max.x <= right,
        "the message wraps inside the window (right edge {right}): {told:?}"
    );
    let editor = harness
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .rect();
    assert!(
        editor.max.x <= right,
        "the editor stays inside the window (right edge {right}): {editor:?}"
    );
}

#[test]
fn a_cancelled_recording_leaves_no_entry_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    put_model_in(dir.path());
    let clip = whisper_model::samples().remove(2);
    let (_sound, mut harness) = app_recording(dir.path(), &clip.path, View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    wait_until(&mut harness, "the recorder running", |h| shows(h, "0:01 /"));
    harness.get_by_role_and_label(Role::Button, "Pause").click();
    wait_until(&mut harness, "paused", |h| shows(h, "Paused"));
    harness.get_by_role_and_label(Role::Button, "Resume").click();
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    wait_until(&mut harness, "the recorder closed", |h| !shows(h, "Recording"));
    keep_running(&mut harness, Duration::from_millis(500));
    drop(harness);
    assert!(bodies_in_journal(dir.path()).is_empty());
    let left: Vec<_> = std::fs::read_dir(dir.path().join("recordings"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "a cancelled recording leaves no file");
}

#[test]
fn typing_goes_on_into_a_new_entry_across_its_first_save() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = app(dir.path(), View::Journal);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    harness.run_steps(2);
    harness.event(egui::Event::Text("First words.".to_owned()));
    wait_until(&mut harness, "the first save", |h| {
        h.query_by_role_and_label(Role::Button, "First words.").is_some()
    });
    // The saved entry's editor grows (its history appears above the text); the cursor
    // stays where the person is typing.
    keep_running(&mut harness, Duration::from_millis(300));
    harness.event(egui::Event::Text(" More words.".to_owned()));
    keep_running(&mut harness, Duration::from_millis(1500));
    drop(harness);
    assert_eq!(bodies_in_journal(dir.path()), ["First words. More words."]);
}
