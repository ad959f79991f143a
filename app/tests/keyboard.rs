//! The keyboard as a person uses it, in the real window (egui_kittest) with its real
//! threads on a real journal: a dialog has the keyboard from the moment it shows, Esc
//! gives its safe answer, and no key reaches what is behind it; the journal's list moves
//! with the arrow keys, opens with Enter and trashes with Delete (undone from the status
//! bar), while a text field keeps its own keys; Esc clears the search; Ask opens with the
//! cursor in the question.

use std::path::Path;
use std::time::Duration;

use egui::accesskit::{Role, Toggled};
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

use mindsage::app::{MindSageApp, Startup};
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::entries::{self, PAGE_SIZE};
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions, cipher};
use mindsage_core::paths;

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use app_harness::{app_from, keep_running, on_screen, shows, type_into, wait_until};

/// The window on the journal in `data_dir`, no model reachable; `first_start` as on a
/// new journal, which opens on today's page with the offer to encrypt it above.
fn window(data_dir: &Path, first_start: bool) -> Harness<'static, MindSageApp> {
    let mut startup = Startup::on_view(data_dir.to_path_buf(), View::Journal);
    startup.offer_encryption = first_start;
    startup.today = first_start;
    window_from(startup)
}

fn window_from(startup: Startup) -> Harness<'static, MindSageApp> {
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
                created_at: Some(mindsage_core::clock::here(now - chrono::Days::new(i as u64))),
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

/// Whether the list's keyboard cursor is on the row titled `title`: the row is marked
/// selected, which egui tells assistive technology as a toggled button.
fn cursor_on(harness: &Harness<'_, MindSageApp>, title: &str) -> bool {
    harness
        .query_by_role_and_label(Role::Button, title)
        .is_some_and(|row| row.accesskit_node().toggled() == Some(Toggled::True))
}

fn focused(harness: &Harness<'_, MindSageApp>, role: Role, label: &str) -> bool {
    harness.get_by_role_and_label(role, label).is_focused()
}

/// Whether the editor shows the entry titled `title`.
fn open_in_editor(harness: &Harness<'_, MindSageApp>, title: &str) -> bool {
    harness
        .query_by_role_and_label(Role::TextInput, "Title")
        .is_some_and(|field| field.value().as_deref() == Some(title))
}

fn press(harness: &mut Harness<'_, MindSageApp>, key: Key, times: usize) {
    for _ in 0..times {
        harness.key_press(key);
    }
    harness.run_steps(2);
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
    let page = |h: &Harness<'_, MindSageApp>| {
        h.query_by_role_and_label(Role::MultilineTextInput, "Entry")
            .map(|text| text.value())
    };
    let behind = page(harness);
    keys_at_a_dialog(harness);
    assert!(shows(harness, question), "still asking");
    assert_eq!(harness.state().view(), view, "Ctrl+2 and Ctrl+N stayed unheard");
    assert_eq!(
        page(harness),
        behind,
        "Ctrl+N and the typing left the page behind the dialog as it was"
    );
}

/// Presses Esc and waits for the dialog asking `question` to go.
fn escape_from(harness: &mut Harness<'_, MindSageApp>, question: &str) {
    harness.key_press(Key::Escape);
    wait_until(harness, "the dialog gone", |h| !shows(h, question));
}

/// The first start opens on today's page with the cursor in it and the offer to
/// encrypt in a bar above: what the person types before reading the offer is their
/// entry, not a passphrase. Once they choose to encrypt, the passphrase dialog has the
/// keyboard, and Esc is "Not now".
#[test]
fn the_first_start_keeps_what_is_typed_before_the_offer_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = window(dir.path(), true);
    let offer = "Encrypt your journal?";
    wait_until(&mut harness, "the page with the offer above", |h| {
        shows(h, offer) && focused(h, Role::MultilineTextInput, "Entry")
    });
    harness.event(Event::Text("Typed before reading the offer.".to_owned()));
    wait_until(&mut harness, "the entry written", |h| {
        row_shown(h, "Typed before reading the offer.")
    });
    assert!(shows(&harness, offer), "the offer waits");

    app_harness::click(&mut harness, "Encrypt with a passphrase…");
    let passphrase = (Role::PasswordInput, "New passphrase");
    dialog_keeps_the_keyboard(&mut harness, offer, passphrase, View::Journal);
    // What was typed went into the dialog's field, which now holds enough characters.
    assert!(shows(&harness, "The two do not match yet."));

    // Esc is "Not now": the journal stays plain, the offer is gone, and the keyboard is
    // the window's again.
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
        (vec![String::new(), String::new()], 0),
        "the entries typed before and after it, and nothing else"
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
    assert_eq!(journal_state(dir.path()), (Vec::new(), 1), "nothing erased");

    // In the trash, Delete on the list's row asks the same question.
    press(&mut harness, Key::ArrowDown, 1);
    press(&mut harness, Key::Delete, 1);
    wait_until(&mut harness, question, |h| shows(h, question));
    harness
        .get_by_role_and_label(Role::Button, "Delete forever")
        .click();
    wait_until(&mut harness, "the trash empty", |h| {
        shows(h, "The trash is empty.")
    });
    drop(harness);
    assert_eq!(journal_state(dir.path()), (Vec::new(), 0), "erased");
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

#[test]
fn arrow_keys_walk_the_list_past_its_first_page_and_enter_opens_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let far = PAGE_SIZE as usize + 8;
    days(dir.path(), far + 4);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(0)));

    // The first Down lands on the first row; Down and Up move from there.
    press(&mut harness, Key::ArrowDown, 1);
    assert!(cursor_on(&harness, &day(0)));
    press(&mut harness, Key::ArrowDown, 2);
    press(&mut harness, Key::ArrowUp, 1);
    assert!(cursor_on(&harness, &day(1)) && !cursor_on(&harness, &day(0)));
    press(&mut harness, Key::Enter, 1);
    wait_until(&mut harness, "the entry opened", |h| open_in_editor(h, &day(1)));

    // Past the rows loaded at first: the next page is read and the row scrolled to.
    press(&mut harness, Key::ArrowDown, far - 1);
    wait_until(&mut harness, "the far row loaded and shown", |h| {
        cursor_on(h, &day(far))
    });
    press(&mut harness, Key::Enter, 1);
    wait_until(&mut harness, "the far entry opened", |h| {
        open_in_editor(h, &day(far))
    });

    // In the entry's text the keys are the text's: Left moves its cursor, Delete erases
    // the character after it, Up and Down stay in the text; the list stays as it was.
    harness
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .focus();
    harness.run_steps(2);
    press(&mut harness, Key::ArrowLeft, 1);
    press(&mut harness, Key::Delete, 1);
    press(&mut harness, Key::ArrowUp, 2);
    press(&mut harness, Key::ArrowDown, 1);
    let text = harness
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .value();
    assert_eq!(text.as_deref(), Some(day(far).as_str()), "the full stop erased");
    // The edit is saved after the typing pause (the harness's frames are a quarter of a
    // second of the app's clock) and the list read again: the cursor comes back to its row.
    wait_until(&mut harness, "the list's cursor where it was", |h| {
        cursor_on(h, &day(far))
    });
    keep_running(&mut harness, Duration::from_secs(1));
    assert!(row_shown(&harness, &day(far)), "not trashed");
}

/// A person flings the mouse wheel down a long list to its last entry and back up to
/// the first. On the way down the rows far behind are forgotten (the list keeps only
/// the pages near the screen), and on the way up they are read again and shown.
#[test]
fn a_long_list_wheeled_to_its_end_and_back_shows_its_first_rows_again() {
    let dir = tempfile::tempdir().unwrap();
    let count = 2_400;
    days(dir.path(), count);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(0)));
    let over_the_list = harness
        .get_by_role_and_label(Role::Button, &day(0))
        .rect()
        .center();
    wheel_until(&mut harness, over_the_list, -10.0, &day(count - 1));
    assert!(!row_shown(&harness, &day(0)));
    wheel_until(&mut harness, over_the_list, 10.0, &day(0));
    // Its neighbours came back with it, and the list still ends where it did.
    wait_until(&mut harness, "the first rows read again", |h| {
        row_shown(h, &day(1)) && row_shown(h, &day(2))
    });
    press(&mut harness, Key::ArrowDown, 1);
    press(&mut harness, Key::Enter, 1);
    wait_until(&mut harness, "the first entry opened", |h| {
        open_in_editor(h, &day(0))
    });
}

/// Turns the mouse wheel over `at` by `pages` a frame until the row titled `title` shows.
fn wheel_until(harness: &mut Harness<'_, MindSageApp>, at: egui::Pos2, pages: f32, title: &str) {
    for _ in 0..400 {
        if row_shown(harness, title) {
            return;
        }
        harness.event(Event::PointerMoved(at));
        harness.event(Event::MouseWheel {
            unit: egui::MouseWheelUnit::Page,
            delta: egui::vec2(0.0, pages),
            modifiers: Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    panic!("{title} never came into view: {}", on_screen(harness));
}

#[test]
fn delete_moves_the_selected_entry_to_the_trash_and_undo_brings_it_back() {
    let dir = tempfile::tempdir().unwrap();
    days(dir.path(), 3);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(0)));
    press(&mut harness, Key::ArrowDown, 2);
    assert!(cursor_on(&harness, &day(1)));

    press(&mut harness, Key::Delete, 1);
    wait_until(&mut harness, "the entry gone to the trash", |h| {
        !row_shown(h, &day(1)) && shows(h, "Moved the entry to the trash.")
    });
    // The cursor is on the entry that took its place.
    wait_until(&mut harness, "the cursor on the next entry", |h| {
        cursor_on(h, &day(2))
    });
    assert_eq!(journal_state(dir.path()), (vec![day(0), day(2)], 1));

    harness.get_by_role_and_label(Role::Button, "Undo").click();
    wait_until(&mut harness, "the entry back", |h| {
        row_shown(h, &day(1)) && !shows(h, "Moved the entry to the trash.")
    });
    assert!(cursor_on(&harness, &day(1)), "the cursor is back on it");
    drop(harness);
    assert_eq!(journal_state(dir.path()), ((0..3).map(day).collect(), 0));
}

#[test]
fn esc_clears_the_search() {
    let dir = tempfile::tempdir().unwrap();
    days(dir.path(), 3);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(2)));
    let searching = |h: &Harness<'_, MindSageApp>| !row_shown(h, &day(0)) && row_shown(h, &day(2));

    // Esc in the search box.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Search", "002");
    wait_until(&mut harness, "the search's one hit", searching);
    press(&mut harness, Key::Escape, 1);
    wait_until(&mut harness, "the whole list again", |h| {
        row_shown(h, &day(0)) && row_shown(h, &day(2))
    });
    let search = harness.get_by_role_and_label(Role::TextInput, "Search");
    assert_eq!(search.value().as_deref(), Some(""));

    // Esc after a hit was opened: the search box no longer has the keyboard.
    type_into(&mut harness, Role::TextInput, "Search", "002");
    wait_until(&mut harness, "the search's one hit", searching);
    harness.get_by_role_and_label(Role::Button, &day(2)).click();
    wait_until(&mut harness, "the hit opened", |h| open_in_editor(h, &day(2)));
    press(&mut harness, Key::Escape, 1);
    wait_until(&mut harness, "the whole list again", |h| {
        row_shown(h, &day(0)) && row_shown(h, &day(2))
    });
}

#[test]
fn opening_ask_puts_the_cursor_in_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    harness.get_by_role_and_label(Role::Button, "Ask").click();
    harness.run_steps(3);
    assert!(focused(&harness, Role::TextInput, "Question"));
    harness.event(Event::Text("What did I do".to_owned()));
    harness.run_steps(2);
    let question = harness.get_by_role_and_label(Role::TextInput, "Question");
    assert_eq!(question.value().as_deref(), Some("What did I do"));

    // Again from the keyboard, after another screen.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num1);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    harness.run_steps(3);
    assert!(focused(&harness, Role::TextInput, "Question"));
}

#[test]
fn esc_closes_the_import_window() {
    let dir = tempfile::tempdir().unwrap();
    let mut startup = Startup::on_view(dir.path().to_path_buf(), View::Journal);
    startup.import = Some(dir.path().join("no such export.json"));
    let mut harness = window_from(startup);
    wait_until(&mut harness, "the import window", |h| {
        shows(h, "This could not be imported")
    });
    press(&mut harness, Key::Escape, 1);
    assert!(!shows(&harness, "This could not be imported"));
}

/// Ctrl+K (Ctrl+Shift+P in the page's text) opens the command palette with the keyboard
/// in it: a few letters of any action and Enter run it, Up and Down choose among the
/// matches, Esc closes it having done nothing. F1 (or Ctrl+/) shows every shortcut,
/// from the same table.
#[test]
fn the_command_palette_runs_an_action_by_name_and_f1_lists_the_shortcuts() {
    let dir = tempfile::tempdir().unwrap();
    days(dir.path(), 3);
    let mut harness = window(dir.path(), false);
    wait_until(&mut harness, "the list", |h| row_shown(h, &day(0)));
    let palette_open = |h: &Harness<'_, MindSageApp>| {
        h.query_by_role_and_label(Role::TextInput, "Command")
            .is_some_and(|field| field.is_focused())
    };
    let choose = |harness: &mut Harness<'_, MindSageApp>, typed: &str, downs: usize| {
        harness.key_press_modifiers(Modifiers::COMMAND, Key::K);
        wait_until(harness, "the palette", palette_open);
        harness.event(Event::Text(typed.to_owned()));
        harness.run_steps(1);
        press(harness, Key::ArrowDown, downs);
        harness.key_press(Key::Enter);
        harness.run_steps(3);
    };

    choose(&mut harness, "dash", 0);
    assert_eq!(harness.state().view(), View::Dashboard, "\"dash\" and Enter");
    assert!(!palette_open(&harness), "the palette closed");

    // "go day" matches today, the day before and the day after: the second is chosen.
    choose(&mut harness, "go day", 1);
    assert_eq!(harness.state().view(), View::Journal);
    wait_until(&mut harness, "yesterday's entry on the page", |h| {
        h.query_by_role_and_label(Role::MultilineTextInput, "Entry")
            .is_some_and(|text| text.value().as_deref() == Some(&*format!("{}.", day(1))))
    });

    // The cursor is in that entry's text, where Ctrl+K makes a link: Ctrl+Shift+P
    // opens the palette there.
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    wait_until(&mut harness, "the palette", palette_open);
    harness.event(Event::Text("xyzzy".to_owned()));
    harness.run_steps(2);
    assert!(shows(&harness, "No command has those words."));
    harness.key_press(Key::Escape);
    harness.run_steps(3);
    assert!(
        !palette_open(&harness) && harness.state().view() == View::Journal,
        "Esc did nothing else"
    );

    for opens in [
        |h: &mut Harness<'_, MindSageApp>| h.key_press(Key::F1),
        |h: &mut Harness<'_, MindSageApp>| h.key_press_modifiers(Modifiers::COMMAND, Key::Slash),
    ] {
        opens(&mut harness);
        wait_until(&mut harness, "the shortcut sheet", |h| {
            shows(h, "Keyboard shortcuts")
        });
        for words in [
            "Ctrl+N",
            "New entry",
            "Alt+Left",
            "Go to the day before",
            "F11",
            "Focus mode",
        ] {
            assert!(shows(&harness, words), "the sheet lists {words}");
        }
        harness.key_press(Key::Escape);
        wait_until(&mut harness, "the sheet closed", |h| {
            !shows(h, "Keyboard shortcuts")
        });
    }
}
