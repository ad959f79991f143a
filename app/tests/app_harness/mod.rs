//! The real window for the tests that drive it: the app with its real threads on a
//! journal in a folder, and the waits a person's eyes do (frames run until the screen
//! shows an answer).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{By, NodeT, Queryable};
use rand::Rng;

use mindsage::app::{MindSageApp, Startup};
use mindsage::backend::Backend;
use mindsage::shell::Shell;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use mindsage_core::paths;

/// Longest wait for the worker threads to answer (a slow CI machine, a cold cache).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The app as `startup` opens it, its model at `ai`, in a window `height` tall.
pub fn app_from(startup: Startup, ai: AiSettings, height: f32) -> Harness<'static, MindSageApp> {
    let database = paths::database_path(&startup.data_dir);
    Harness::builder()
        .with_size([1200.0, height])
        .build_eframe(move |cc| {
            let backend = Backend::spawn(
                database,
                StorageOptions::default(),
                ai,
                startup.voice_settings(),
                cc.egui_ctx.clone(),
            );
            MindSageApp::new(&cc.egui_ctx, backend, startup)
        })
}

/// The window as a person starts it ([`Shell`]: the unlock screen first when the
/// journal is encrypted), on the journal in `data_dir`; each opening starts on the
/// journal screen with the data folder's settings.
pub fn shell_from(data_dir: std::path::PathBuf, ai: AiSettings, height: f32) -> Harness<'static, Shell> {
    let database = paths::database_path(&data_dir);
    Harness::builder()
        .with_size([1200.0, height])
        .build_eframe(move |cc| {
            let starts = Box::new(move || {
                let mut startup = Startup::on_view(data_dir.clone(), mindsage::views::View::Journal);
                startup.settings.ollama_host = ai.host.clone();
                startup
            });
            Shell::new(&cc.egui_ctx, database, StorageOptions::default(), starts)
        })
}

/// Runs frames until `ready` holds, as the real event loop would while the worker
/// threads answer; fails naming `what` after [`PATIENCE`].
pub fn wait_until<S>(harness: &mut Harness<'_, S>, what: &str, ready: impl Fn(&Harness<'_, S>) -> bool) {
    wait_at_most(harness, what, PATIENCE, ready);
}

/// [`wait_until`] with a patience of its own.
pub fn wait_at_most<S>(
    harness: &mut Harness<'_, S>,
    what: &str,
    patience: Duration,
    ready: impl Fn(&Harness<'_, S>) -> bool,
) {
    let start = Instant::now();
    loop {
        harness.step();
        if ready(harness) {
            // Let the answer settle into a frame (layouts that depend on it).
            harness.run_steps(2);
            return;
        }
        assert!(
            start.elapsed() < patience,
            "timed out waiting for {what}; the window shows:\n{}",
            on_screen(harness)
        );
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// The words on screen, a line each in the order the window lays them out (a
/// timeout's message: the whole accessibility tree is too long for a CI log to keep
/// the line that says what went wrong).
pub fn on_screen<S>(harness: &Harness<'_, S>) -> String {
    let mut lines: Vec<String> = Vec::new();
    for node in harness.query_all(By::new()) {
        let node = node.accesskit_node();
        let words = [node.label(), node.value()]
            .into_iter()
            .flatten()
            .find(|w| !w.is_empty());
        if let Some(words) = words
            && lines.last() != Some(&words)
        {
            lines.push(words);
        }
    }
    lines.join("\n")
}

pub fn shows<S>(harness: &Harness<'_, S>, text: &str) -> bool {
    harness.query_all_by_label_contains(text).next().is_some()
}

/// Types into a text field: focus moves one frame after it is asked for, so the typing
/// goes in the frame after that.
pub fn type_into<S>(harness: &mut Harness<'_, S>, role: Role, label: &str, text: &str) {
    harness.get_by_role_and_label(role, label).focus();
    harness.run_steps(1);
    harness.get_by_role_and_label(role, label).type_text(text);
    harness.run_steps(1);
}

/// Clicks a button as a screen reader does (its accessibility action): a pointer click
/// at where the button was lands elsewhere when an answer arriving meanwhile moves the
/// page (the Settings page's model status and backups), which a busy machine made
/// happen often enough to fail a test.
pub fn click<S>(harness: &mut Harness<'_, S>, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).scroll_to_me();
    harness.run_steps(2);
    harness
        .get_by_role_and_label(Role::Button, label)
        .click_accesskit();
    harness.run_steps(2);
}

/// Types `passphrase` on the unlock screen and presses Unlock.
pub fn unlock<S>(harness: &mut Harness<'_, S>, passphrase: &str) {
    wait_until(harness, "the passphrase field", |h| {
        h.query_by_role(Role::PasswordInput).is_some()
    });
    harness.get_by_role(Role::PasswordInput).focus();
    harness.run_steps(1);
    harness.get_by_role(Role::PasswordInput).type_text(passphrase);
    harness.run_steps(1);
    click(harness, "Unlock");
}

/// Longest pause between two keys, in seconds of the app's clock.
pub const LONGEST_PAUSE: f64 = 2.0;

/// Longest real wait between two keys, for the threads' answers to land in.
pub const LONGEST_REAL_WAIT: Duration = Duration::from_millis(120);

/// Types `text` into the field `label` one character at a time, with a random pause of
/// the app's clock and a random real wait after each.
pub fn type_slowly<S>(harness: &mut Harness<'_, S>, rng: &mut impl Rng, role: Role, label: &str, text: &str) {
    harness.get_by_role_and_label(role, label).focus();
    harness.run_steps(2);
    type_where_the_cursor_is(harness, rng, text);
}

/// Types `text` wherever the keyboard is, as [`type_slowly`] does, without choosing a
/// field first: what a person does who starts typing as soon as the window opens.
pub fn type_where_the_cursor_is<S>(harness: &mut Harness<'_, S>, rng: &mut impl Rng, text: &str) {
    for ch in text.chars() {
        harness.event(egui::Event::Text(ch.to_string()));
        harness.step();
        let pause = if rng.random_bool(0.3) {
            rng.random_range(0.7..=LONGEST_PAUSE) // past the autosave's wait
        } else {
            rng.random_range(0.0..0.7)
        };
        pause_for(harness, pause);
        let real = rng.random_range(0..=LONGEST_REAL_WAIT.as_millis() as u64);
        let until = std::time::Instant::now() + Duration::from_millis(real);
        while std::time::Instant::now() < until {
            harness.step();
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Moves the app's clock on by `seconds`, as a pause in typing, and holds it there: the
/// real waits that follow let the threads answer without the app's clock moving, so the
/// pauses are exactly those drawn.
pub fn pause_for<S>(harness: &mut Harness<'_, S>, seconds: f64) {
    let now = harness.ctx.input(|i| i.time);
    harness.input_mut().time = Some(now + seconds);
    harness.step();
}

/// Runs frames for `how_long`, as an idle window would (a person looking at it).
pub fn keep_running<S>(harness: &mut Harness<'_, S>, how_long: Duration) {
    let start = Instant::now();
    while start.elapsed() < how_long {
        harness.step();
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// A close request, as the window manager's close button sends, handled in one frame.
pub fn request_close<S>(harness: &mut Harness<'_, S>) {
    harness
        .input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    harness.step();
}

/// Every entry in the journal file, newest first, read on a connection and a thread of
/// the test's own (the test thread is the UI thread, where queries are forbidden).
pub fn entries_in_journal(data_dir: &std::path::Path) -> Vec<entries::Entry> {
    let path = paths::database_path(data_dir);
    std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        let page = entries::list(&conn, DEFAULT_USER, &entries::ListFilter::default(), None, 100).unwrap();
        page.rows
            .iter()
            .map(|row| entries::get(&conn, DEFAULT_USER, row.id).unwrap())
            .collect()
    })
    .join()
    .unwrap()
}
