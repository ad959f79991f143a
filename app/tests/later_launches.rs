//! One window per journal (issue #36): launching MindSage again on a journal whose
//! window is open hands that window what the launch asked for, and opens no second
//! window. The window here is the real app with its threads (egui_kittest) holding the
//! journal's window lock as `mindsage` does; the later launches are the real binary,
//! started as the Start menu, a file opened with MindSage or the reminder's link start it.

use std::path::Path;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use mindsage::instance::{self, Asked, Claim, Window};
use mindsage::shell::Shell;
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::StorageOptions;
use mindsage_core::db::cipher::{self, Passphrase};
use mindsage_core::paths;

mod app_harness;
mod binary;

use app_harness::{shell_from, shows, unlock, wait_until};
use binary::mindsage;

const PASSPHRASE: &str = "a later launch";

/// The window on the journal in `data_dir`, as `mindsage` opens it: the window lock
/// taken first, later launches heard once the window is up.
fn the_window(data_dir: &Path) -> (Harness<'static, Shell>, Window) {
    let journal = paths::database_path(data_dir);
    let Claim::Window(window) = instance::claim(&journal, &Asked::default()).unwrap() else {
        panic!("another window already had the test's new journal");
    };
    let offline = AiSettings {
        host: "http://127.0.0.1:9".into(),
        ..AiSettings::default()
    };
    let mut harness = shell_from(data_dir.to_path_buf(), offline, 900.0);
    let asks = window
        .later_launches()
        .unwrap()
        .hear(harness.ctx.clone())
        .unwrap();
    harness.state_mut().hear(asks);
    (harness, window)
}

/// Launches the real binary on the journal with `args`, as a second start does; it
/// must end at once, saying the window has it.
fn launch_again(data_dir: &Path, args: &[&str]) {
    let started = Instant::now();
    let out = mindsage(data_dir, args);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("already open on this journal"),
        "the later launch did not hand over ({}): {said} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the later launch took {:?}",
        started.elapsed()
    );
}

/// Runs a command on the journal, which must succeed; what it printed.
fn succeeded(data_dir: &Path, args: &[&str]) -> String {
    let out = mindsage(data_dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn view_of(harness: &Harness<'_, Shell>) -> Option<View> {
    harness.state().app().map(|app| app.view())
}

#[test]
fn a_later_launch_brings_its_asks_to_the_open_window_instead_of_opening_another() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    succeeded(
        &data,
        &["add", "--title", "Already written", "--body", "The first page."],
    );
    let (mut harness, _window) = the_window(&data);
    wait_until(&mut harness, "the journal", |h| shows(h, "Already written"));

    // The Start menu's shortcut with a screen named: the window shows it.
    launch_again(&data, &["--view", "ask"]);
    wait_until(&mut harness, "the Ask screen", |h| view_of(h) == Some(View::Ask));

    // A file opened with MindSage: the import window previews it, here.
    let note = dir.path().join("2026-11-30.md");
    std::fs::write(&note, "# From the train\n\nWritten on the way home.\n").unwrap();
    launch_again(&data, &["--import", note.to_str().unwrap()]);
    wait_until(&mut harness, "the import's preview", |h| {
        shows(h, "1 entry to add")
    });

    // Subcommands still run beside the window.
    assert!(succeeded(&data, &["list"]).contains("Already written"));
}

/// The text in the editor's page, if one is open.
fn page_text(harness: &Harness<'_, Shell>) -> Option<String> {
    let page = harness.query_by_role_and_label(Role::MultilineTextInput, "Entry")?;
    page.value()
}

/// The jump list's tasks on the taskbar and the Start menu launch `mindsage --link`:
/// with the window open, each is done there.
#[test]
fn the_jump_lists_tasks_are_done_in_the_open_window() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    let added = succeeded(
        &data,
        &[
            "add",
            "--title",
            "Already written",
            "--body",
            "The first page.",
            "--json",
        ],
    );
    let id = serde_json::from_str::<serde_json::Value>(&added).unwrap()["id"].to_string();
    let (mut harness, _window) = the_window(&data);
    launch_again(&data, &["--entry", &id]);
    wait_until(&mut harness, "the entry open", |h| {
        page_text(h).as_deref() == Some("The first page.")
    });

    launch_again(&data, &["--link", "mindsage:ask"]);
    wait_until(&mut harness, "the Ask screen", |h| view_of(h) == Some(View::Ask));

    // New entry: the journal, on a new empty page, the cursor in it.
    launch_again(&data, &["--link", "mindsage:new"]);
    wait_until(&mut harness, "a new page", |h| {
        view_of(h) == Some(View::Journal) && page_text(h).as_deref() == Some("")
    });

    // New voice entry: the recorder starts (whatever the microphone then says).
    let recorder = |h: &Harness<'_, Shell>| {
        ["Opening the microphone…", "REC", "Speak for up to"]
            .iter()
            .any(|text| shows(h, text))
    };
    assert!(!recorder(&harness), "no recorder before the task");
    launch_again(&data, &["--link", "mindsage:voice"]);
    wait_until(&mut harness, "the recorder", recorder);
    assert_eq!(view_of(&harness), Some(View::Journal));
}

#[test]
fn asks_that_come_while_the_journal_is_locked_are_followed_once_it_is_unlocked() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    succeeded(
        &data,
        &["add", "--title", "Kept to myself", "--body", "Locked away."],
    );
    cipher::encrypt(
        &paths::database_path(&data),
        &StorageOptions::default(),
        &Passphrase::new(PASSPHRASE).unwrap(),
    )
    .unwrap();
    let (mut harness, _window) = the_window(&data);
    wait_until(&mut harness, "the unlock screen", |h| h.state().locked());

    // The reminder's click while the window is locked.
    launch_again(&data, &["--view", "people"]);
    harness.run_steps(5);
    assert!(
        harness.state().locked(),
        "a later launch must not open a locked journal"
    );

    unlock(&mut harness, PASSPHRASE);
    wait_until(&mut harness, "the People screen after unlocking", |h| {
        view_of(h) == Some(View::People)
    });
}

#[test]
fn once_the_window_lets_go_the_next_launch_is_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let journal = paths::database_path(dir.path());
    let first = instance::claim(&journal, &Asked::default()).unwrap();
    assert!(matches!(first, Claim::Window(_)));
    drop(first);
    let again = instance::claim(&journal, &Asked::default()).unwrap();
    assert!(matches!(again, Claim::Window(_)), "the lock outlived the window");
    // Another journal has a window of its own.
    let other = instance::claim(&dir.path().join("other").join("journal.db"), &Asked::default()).unwrap();
    assert!(matches!(other, Claim::Window(_)));
}
