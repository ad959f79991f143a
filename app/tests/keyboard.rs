//! The keyboard as a person uses it, in the real window (egui_kittest) with its real
//! threads on a real journal: a dialog has the keyboard from the moment it shows, Esc
//! gives its safe answer, and no key reaches what is behind it.

use std::path::Path;
use std::time::Duration;

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use mindsage::app::{MindSageApp, Startup};
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::entries;
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions, cipher};
use mindsage_core::paths;

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use app_harness::{app_from, keep_running, shows, wait_until};

/// The window on the journal in `data_dir`, no model reachable; `first_start` as on a
/// new journal, which opens on the offer to encrypt it.
fn window(data_dir: &Path, first_start: bool) -> Harness<'static, MindSageApp> {
    let mut startup = Startup::on_view(data_dir.to_path_buf(), View::Journal);
    startup.offer_encryption = first_start;
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    app_from(startup, offline, 800.0)
}

/// Entries titled "Day 000", "Day 001", … written a day apart, newest first: row `i` of
/// the list is "Day i". Written before the window opens (and arms the UI-thread guard).
fn days(data_dir: &Path, count: usize) -> Vec<EntryId> {
    let mut conn = db::open(&paths::database_path(data_dir), &StorageOptions::default()).unwrap();
    let now = chrono::Utc::now();
    (0..count)
        .map(|i| {
            let entry = entries::NewEntry {
                title: day(i),
                body: format!("{}.", day(i)),
                created_at: Some(now - chrono::Days::new(i as u64)),
                ..Default::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap()
        })
        .collect()
}

fn day(i: usize) -> String {
    format!("Day {i:03}")
}

/// The live entries' titles and the trashed ones' count, read on a thread of the test's
/// own (the test thread is the UI thread, where queries are forbidden).
fn journal_state(data_dir: &Path) -> (Vec<String>, usize) {
    let path = paths::database_path(data_dir);
    std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        let titles = |trash| {
            let filter = entries::ListFilter {
                trash,
                ..Default::default()
            };
            let page = entries::list(&conn, DEFAULT_USER, &filter, None, 1000).unwrap();
            page.rows.into_iter().map(|row| row.title).collect::<Vec<_>>()
        };
        (titles(false), titles(true).len())
    })
    .join()
    .unwrap()
}

fn row_shown(harness: &Harness<'_, MindSageApp>, title: &str) -> bool {
    harness.query_by_role_and_label(Role::Button, title).is_some()
}

fn focused(harness: &Harness<'_, MindSageApp>, role: Role, label: &str) -> bool {
    harness.get_by_role_and_label(role, label).is_focused()
}

/// What a person does who has not read a dialog: Ctrl+N and a sentence, the list's keys
/// (not Enter, which a dialog's focused button takes as a click), Ctrl+2 (Dashboard),
/// Ctrl+F. Runs past the editor's autosave pause.
fn keys_at_a_dialog(harness: &mut Harness<'_, MindSageApp>) {
    harness.key_press_modifiers(Modifiers::COMMAND, Key::N);
    harness.run_steps(2);
    harness.event(Event::Text("Dear diary, today".to_owned()));
    for key in [Key::ArrowDown, Key::Delete] {
        harness.key_press(key);
    }
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    keep_running(harness, Duration::from_secs(2));
}

/// Waits for the dialog asking `question` on screen `view`, checks that the keyboard is
/// on its widget `focus` (role and label), types at it ([`keys_at_a_dialog`]), and
/// checks that it still asks and that nothing behind it heard a key.
fn dialog_keeps_the_keyboard(
    harness: &mut Harness<'_, MindSageApp>,
    question: &str,
    focus: (Role, &str),
    view: View,
) {
    wait_until(harness, question, |h| shows(h, question));
    harness.run_steps(2);
    assert!(
        focused(harness, focus.0, focus.1),
        "the keyboard starts on {focus:?}"
    );
    keys_at_a_dialog(harness);
    assert!(shows(harness, question), "still asking");
    assert_eq!(harness.state().view(), view, "Ctrl+2 and Ctrl+N stayed unheard");
    assert!(
        harness
            .query_by_role_and_label(Role::MultilineTextInput, "Entry")
            .is_none(),
        "Ctrl+N opened no editor behind the dialog"
    );
}

/// Presses Esc and waits for the dialog asking `question` to go.
fn escape_from(harness: &mut Harness<'_, MindSageApp>, question: &str) {
    harness.key_press(Key::Escape);
    wait_until(harness, "the dialog gone", |h| !shows(h, question));
}

#[test]
fn the_first_start_asks_before_anything_else_can_be_typed() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = window(dir.path(), true);
    let offer = "Encrypt your journal?";
    let passphrase = (Role::PasswordInput, "New passphrase");
    dialog_keeps_the_keyboard(&mut harness, offer, passphrase, View::Journal);
    // What was typed went into the dialog's field, which now holds enough characters.
    assert!(shows(&harness, "The two do not match yet."));

    // Esc is "Not now": the journal stays plain, and the keyboard is the window's again.
    escape_from(&mut harness, offer);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::N);
    harness.run_steps(2);
    harness.event(Event::Text("Written after the offer.".to_owned()));
    wait_until(&mut harness, "the entry written", |h| {
        row_shown(h, "Written after the offer.")
    });
    drop(harness);
    assert!(!cipher::is_encrypted(&paths::database_path(dir.path())));
    assert_eq!(
        journal_state(dir.path()),
        (vec![String::new()], 0),
        "only the entry typed after it"
    );
}

#[test]
fn the_purge_confirmation_has_the_keyboard_and_esc_keeps_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let id = days(dir.path(), 1)[0];
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        entries::soft_delete(&mut conn, DEFAULT_USER, id).unwrap();
    }
    let mut harness = window(dir.path(), false);
    harness.get_by_role_and_label(Role::Button, "Trash").click();
    wait_until(&mut harness, "the trashed entry listed", |h| {
        row_shown(h, &day(0))
    });
    harness.get_by_role_and_label(Role::Button, &day(0)).click();
    wait_until(&mut harness, "the trashed entry", |h| shows(h, "Delete forever…"));
    harness.get_by_label("Delete forever…").click();
    let question = "Delete this entry forever?";
    dialog_keeps_the_keyboard(&mut harness, question, (Role::Button, "Cancel"), View::Journal);

    escape_from(&mut harness, question);
    keep_running(&mut harness, Duration::from_millis(500));
    assert!(shows(&harness, "In the trash"), "still in the trash");
    drop(harness);
    assert_eq!(journal_state(dir.path()), (Vec::new(), 1), "nothing erased");
}

#[test]
fn the_restore_confirmation_has_the_keyboard_and_esc_keeps_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    days(dir.path(), 1);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(0)));
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    // The backup made when the window opened.
    wait_until(&mut harness, "a backup listed", |h| {
        h.query_by_role_and_label(Role::Button, "Restore…").is_some()
    });
    harness.get_by_role_and_label(Role::Button, "Restore…").click();
    let question = "Replace the journal with this backup?";
    dialog_keeps_the_keyboard(&mut harness, question, (Role::Button, "Cancel"), View::Settings);

    escape_from(&mut harness, question);
    harness.run_steps(2);
    assert!(!shows(&harness, "Restoring"), "nothing restored");
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Restore…")
            .is_some()
    );
}
