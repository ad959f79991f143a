//! The window follows the journal (issue #29): with the window open, what another
//! program writes (the real `mindsage` binary in a terminal, another connection) shows
//! in the list, its count and the open entry within a few seconds, with nothing done in
//! the window; and the count is right after trash, restore and purge whichever list is
//! on screen. The window is the real app with its real threads (egui_kittest), on a real
//! journal in a temporary folder.
//!
//! The test thread is the UI thread, whose guard forbids queries: what these tests read
//! or write themselves runs on a thread of its own.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use mindsage::app::{MindSageApp, Startup};
use mindsage::backend::Backend;
use mindsage::protocol::{Request, Response};
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::entries::{self, EntryEdit, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions};
use mindsage_core::paths;

mod app_harness;
mod binary;

use app_harness::{app_from, shows, wait_at_most, wait_until};

/// How soon the window shows what another program wrote: the reader looks once a
/// second, and a loaded machine gets some slack.
const FOLLOWS_WITHIN: Duration = Duration::from_secs(5);

/// No model: a host nobody listens on (the binary's tests use the same).
fn offline() -> AiSettings {
    AiSettings {
        host: "http://127.0.0.1:9".to_owned(),
        ..AiSettings::default()
    }
}

/// The window on the journal in `data_dir`, on the journal screen, with no model.
fn window(data_dir: &Path) -> Harness<'static, MindSageApp> {
    app_from(
        Startup::on_view(data_dir.to_path_buf(), View::Journal),
        offline(),
        800.0,
    )
}

/// `mindsage add` in a terminal: a new entry with `title` and `body`; its id.
fn add_in_a_terminal(data_dir: &Path, title: &str, body: &str) -> EntryId {
    let out = binary::mindsage(data_dir, &["--json", "add", "--title", title, "--body", body]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let added: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    added["id"].as_i64().expect("the new entry's id")
}

/// `mindsage ARGS` in a terminal, which must succeed.
fn in_a_terminal(data_dir: &Path, args: &[&str]) {
    let out = binary::mindsage(data_dir, args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Another program's connection changes entry `id`'s title, keeping the rest (read on
/// a thread of its own: the test thread is the window's UI thread).
fn retitle_elsewhere(data_dir: &Path, id: EntryId, title: &str) {
    let (path, title) = (paths::database_path(data_dir), title.to_owned());
    std::thread::spawn(move || {
        let mut conn = db::open(&path, &StorageOptions::default()).unwrap();
        let entry = entries::get(&conn, DEFAULT_USER, id).unwrap();
        let edit = EntryEdit {
            title,
            body: entry.body,
            tags: entry.tags,
            mood_score: entry.mood_score,
        };
        entries::update(&mut conn, DEFAULT_USER, id, &edit).unwrap();
    })
    .join()
    .unwrap();
}

fn listed<S>(harness: &Harness<'_, S>, title: &str) -> bool {
    harness.query_by_role_and_label(Role::Button, title).is_some()
}

fn title_field<S>(harness: &Harness<'_, S>) -> Option<String> {
    harness
        .query_by_role_and_label(Role::TextInput, "Title")
        .and_then(|field| field.value())
}

#[test]
fn an_entry_added_in_a_terminal_shows_in_the_open_window() {
    let dir = tempfile::tempdir().unwrap();
    add_in_a_terminal(dir.path(), "Before the window", "Written first.");
    let mut window = window(dir.path());
    wait_until(&mut window, "the journal", |h| {
        listed(h, "Before the window") && shows(h, "1 entry")
    });

    add_in_a_terminal(
        dir.path(),
        "From the terminal",
        "Typed while the window was open.",
    );
    wait_at_most(
        &mut window,
        "the terminal's entry in the list and the count, nothing done in the window",
        FOLLOWS_WITHIN,
        |h| listed(h, "From the terminal") && shows(h, "2 entries"),
    );
}

#[test]
fn an_entry_trashed_or_retitled_elsewhere_changes_in_the_open_window() {
    let dir = tempfile::tempdir().unwrap();
    let morning = add_in_a_terminal(dir.path(), "Morning pages", "Coffee, then the list.");
    let evening = add_in_a_terminal(dir.path(), "Evening notes", "A quiet walk home.");
    let mut window = window(dir.path());
    wait_until(&mut window, "both entries", |h| {
        listed(h, "Morning pages") && listed(h, "Evening notes") && shows(h, "2 entries")
    });
    window
        .get_by_role_and_label(Role::Button, "Evening notes")
        .click();
    wait_until(&mut window, "the entry open in the editor", |h| {
        title_field(h).as_deref() == Some("Evening notes")
    });

    // Retitled by another program while it is open here, untouched: the list and the
    // editor show the new title.
    retitle_elsewhere(dir.path(), evening, "Evening notes, read again");
    wait_at_most(
        &mut window,
        "the new title in the list and in the open entry",
        FOLLOWS_WITHIN,
        |h| {
            listed(h, "Evening notes, read again")
                && title_field(h).as_deref() == Some("Evening notes, read again")
        },
    );

    in_a_terminal(dir.path(), &["delete", &morning.to_string()]);
    wait_at_most(
        &mut window,
        "the entry trashed in the terminal gone from the list, the count down",
        FOLLOWS_WITHIN,
        |h| !listed(h, "Morning pages") && shows(h, "1 entry"),
    );
}

/// Another program's connection replaces entry `id`'s title and text.
fn rewrite_elsewhere(data_dir: &Path, id: EntryId, title: &str, body: &str) {
    let (path, title, body) = (paths::database_path(data_dir), title.to_owned(), body.to_owned());
    std::thread::spawn(move || {
        let mut conn = db::open(&path, &StorageOptions::default()).unwrap();
        let edit = EntryEdit {
            title,
            body,
            ..EntryEdit::default()
        };
        entries::update(&mut conn, DEFAULT_USER, id, &edit).unwrap();
    })
    .join()
    .unwrap();
}

/// Runs frames with the app's clock held still (the autosave's pause does not pass)
/// until `ready`, or fails after [`FOLLOWS_WITHIN`]; the clock then runs on.
fn hold_the_clock_until(
    window: &mut Harness<'_, MindSageApp>,
    what: &str,
    ready: impl Fn(&Harness<'_, MindSageApp>) -> bool,
) {
    let now = window.ctx.input(|i| i.time);
    let started = Instant::now();
    while !ready(window) {
        assert!(started.elapsed() < FOLLOWS_WITHIN, "timed out waiting for {what}");
        window.input_mut().time = Some(now);
        window.step();
        std::thread::sleep(Duration::from_millis(15));
    }
    window.input_mut().time = None;
}

/// The person is typing in an entry when another program rewrites it: the field they
/// typed in keeps their text (saved over the other, which the entry's history keeps),
/// the field they did not touch shows the other program's, and the window says so.
#[test]
fn an_entry_rewritten_elsewhere_while_typed_in_here_keeps_both_texts() {
    let dir = tempfile::tempdir().unwrap();
    let id = add_in_a_terminal(dir.path(), "Shared", "Morning.");
    let mut window = window(dir.path());
    wait_until(&mut window, "the entry", |h| listed(h, "Shared"));
    window.get_by_role_and_label(Role::Button, "Shared").click();
    wait_until(&mut window, "the entry open", |h| {
        title_field(h).as_deref() == Some("Shared")
    });
    app_harness::type_into(
        &mut window,
        Role::MultilineTextInput,
        "Entry",
        " Then more, typed here.",
    );
    // Another program rewrites it before the typing pause is over.
    rewrite_elsewhere(dir.path(), id, "Rewritten", "Words from elsewhere.");
    hold_the_clock_until(&mut window, "the other program's title in the open entry", |h| {
        title_field(h).as_deref() == Some("Rewritten")
    });
    let body = window
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .value();
    assert_eq!(body.as_deref(), Some("Morning. Then more, typed here."));
    assert!(shows(&window, "also changed elsewhere"));
    // Once the typing pause passes, the person's text is saved over the other's.
    wait_until(&mut window, "the person's text saved", |h| shows(h, "Saved"));
    let path = paths::database_path(dir.path());
    let (entry, versions) = std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        let entry = entries::get(&conn, DEFAULT_USER, id).unwrap();
        (entry, db::history::versions(&conn, id).unwrap())
    })
    .join()
    .unwrap();
    assert_eq!(
        (entry.title.as_str(), entry.body.as_str()),
        ("Rewritten", "Morning. Then more, typed here.")
    );
    assert!(
        versions.iter().any(|v| v.body == "Words from elsewhere."),
        "the other program's text is kept in the history: {versions:?}"
    );
}

#[test]
fn the_count_is_right_after_trash_purge_and_restore_in_the_trash() {
    let dir = tempfile::tempdir().unwrap();
    add_in_a_terminal(dir.path(), "Kept after all", "Nearly thrown away.");
    add_in_a_terminal(dir.path(), "Gone for good", "Not wanted.");
    let mut window = window(dir.path());
    // The count can come before the rows do.
    wait_until(&mut window, "both entries", |h| {
        shows(h, "2 entries") && listed(h, "Gone for good") && listed(h, "Kept after all")
    });
    // Each trashed from the journal's list: the other stays listed, and counted.
    let trash = [
        ("Gone for good", "Kept after all", "1 entry"),
        ("Kept after all", "No entries yet.", "0 entries"),
    ];
    for (title, then_shown, counted) in trash {
        window.get_by_role_and_label(Role::Button, title).click();
        wait_until(&mut window, "the entry in the editor", |h| {
            shows(h, "Move to trash")
        });
        window.get_by_label("Move to trash").click();
        wait_until(&mut window, "the entry out of the list, counted", |h| {
            !listed(h, title) && shows(h, then_shown) && shows(h, counted)
        });
    }

    window.get_by_role_and_label(Role::Button, "Trash").click();
    wait_until(&mut window, "both in the trash", |h| {
        listed(h, "Gone for good") && listed(h, "Kept after all")
    });
    window
        .get_by_role_and_label(Role::Button, "Gone for good")
        .click();
    wait_until(&mut window, "the trashed entry", |h| shows(h, "Delete forever…"));
    window.get_by_label("Delete forever…").click();
    window.run_steps(2);
    window.get_by_label("Delete forever").click();
    wait_until(&mut window, "the purged entry out of the trash", |h| {
        !listed(h, "Gone for good") && listed(h, "Kept after all") && shows(h, "0 entries")
    });

    window
        .get_by_role_and_label(Role::Button, "Kept after all")
        .click();
    wait_until(&mut window, "the trashed entry", |h| shows(h, "In the trash"));
    window.get_by_label("Restore").click();
    wait_at_most(
        &mut window,
        "the restored entry counted, the trash still on screen",
        FOLLOWS_WITHIN,
        |h| shows(h, "The trash is empty.") && shows(h, "1 entry"),
    );
}

/// The threads without a window: what the reader tells the UI.
struct Threads {
    backend: Backend,
    answers: Vec<Response>,
}

impl Threads {
    fn start(data_dir: &Path) -> Threads {
        let startup = Startup::on_view(data_dir.to_path_buf(), View::Journal);
        let backend = Backend::spawn(
            paths::database_path(data_dir),
            StorageOptions::default(),
            offline(),
            startup.voice_settings(),
            egui::Context::default(),
        );
        Threads {
            backend,
            answers: Vec::new(),
        }
    }

    /// Collects answers for `how_long`.
    fn listen(&mut self, how_long: Duration) {
        let start = Instant::now();
        while start.elapsed() < how_long {
            self.answers.extend(self.backend.drain());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Collects answers until `wanted` holds for one, for at most `patience`.
    fn listen_for(&mut self, patience: Duration, wanted: impl Fn(&Response) -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < patience {
            self.answers.extend(self.backend.drain());
            if self.answers.iter().any(&wanted) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    fn changed_elsewhere(&self) -> usize {
        self.answers
            .iter()
            .filter(|a| matches!(a, Response::ChangedElsewhere))
            .count()
    }
}

/// A person typing saves every moment: those saves, and the checkpoints after them, are
/// the app's own and set off no refresh; another connection's one save sets off one.
#[test]
fn the_apps_own_saves_are_not_taken_for_another_writer() {
    let dir = tempfile::tempdir().unwrap();
    let journal: PathBuf = paths::database_path(dir.path());
    let mut threads = Threads::start(dir.path());
    let draft = NewEntry {
        body: "The first words.".into(),
        ..NewEntry::default()
    };
    threads.backend.send(Request::Create {
        draft: 1,
        entry: draft,
    });
    assert!(threads.listen_for(Duration::from_secs(10), |a| matches!(a, Response::Created { .. })));
    let id = threads
        .answers
        .iter()
        .find_map(|a| match a {
            Response::Created { entry, .. } => Some(entry.id),
            _ => None,
        })
        .unwrap();
    // Saves over three seconds, as autosave sends them while the person types.
    for n in 0..12 {
        let edit = EntryEdit {
            body: format!("The first words, and {n} more."),
            ..EntryEdit::default()
        };
        threads.backend.send(Request::Update {
            id,
            edit,
            over_other: false,
        });
        threads.listen(Duration::from_millis(250));
    }
    threads.listen(Duration::from_secs(3));
    let saved = threads
        .answers
        .iter()
        .filter(|a| matches!(a, Response::Saved(_)))
        .count();
    assert_eq!(saved, 12, "every save answered");
    assert_eq!(threads.changed_elsewhere(), 0, "the app's own saves are its own");

    let elsewhere = std::thread::spawn(move || {
        let mut conn = db::open(&journal, &StorageOptions::default()).unwrap();
        let entry = NewEntry {
            body: "Another program's words.".into(),
            ..NewEntry::default()
        };
        entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
    });
    elsewhere.join().unwrap();
    assert!(
        threads.listen_for(FOLLOWS_WITHIN, |a| matches!(a, Response::ChangedElsewhere)),
        "another connection's save is noticed"
    );
    threads.listen(Duration::from_secs(3));
    assert_eq!(threads.changed_elsewhere(), 1, "and told once");
}
