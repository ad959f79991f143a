//! The reminder to write, as a person meets it: set in Settings (the real window) or
//! with `mindsage reminder`, handed to the system's scheduler (a systemd user timer on
//! Linux; Task Scheduler is `make windows-check`'s, under Wine), and `mindsage remind`
//! as that scheduler runs it, showing its notification on a real D-Bus session bus.
//! Beside it, the other thing the system holds for MindSage: starting with it (an
//! autostart file here; the Run key is `make windows-check`'s).
//!
//! Two things here are the system's, not ours, and stand in for it: `systemctl` (no
//! systemd user manager runs in a test machine, so a script on `PATH` records what it is
//! asked) and the desktop's notification service (a small server on a private bus,
//! speaking `org.freedesktop.Notifications` as GNOME's and KDE's do).

#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT, Queryable};

use mindsage::app::Startup;
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::paths;
use mindsage_core::settings::Settings;

mod app_harness;
mod binary;

use app_harness::{app_from, click, pause_for, shows, wait_until};
use binary::{BINARY, command};

/// A `systemctl` that records each call in `calls` and answers as systemd does when it
/// works, or fails as it does when there is no user session (`fail`).
fn systemctl(dir: &Path, fail: bool) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("systemctl");
    let ending = if fail {
        "echo 'Failed to connect to bus: No medium found' >&2\nexit 1"
    } else {
        "exit 0"
    };
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\n{ending}\n",
            dir.join("calls").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// `PATH` with `bin` first.
fn path_with(bin: &Path) -> std::ffi::OsString {
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

fn calls(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("calls")).unwrap_or_default()
}

fn units(config: &Path) -> PathBuf {
    config.join("systemd").join("user")
}

fn output(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The command failed, and its error says `what`.
fn fails_saying(out: &std::process::Output, what: &str) {
    let (_, stderr) = output(out);
    assert!(!out.status.success() && stderr.contains(what), "{stderr}");
}

#[test]
fn the_command_line_sets_the_reminder_with_the_system_and_takes_it_away() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    let config = dir.path().join("config");
    let bin = systemctl(dir.path(), false);
    let run = |args: &[&str]| {
        command(&data, args)
            .env("PATH", path_with(&bin))
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .unwrap()
    };

    let out = run(&["reminder", "--at", "7.45", "--days", "weekdays"]);
    let (stdout, stderr) = output(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout.trim(), "Reminder set: Weekdays at 07:45.");
    let timer = std::fs::read_to_string(units(&config).join("mindsage-reminder.timer")).unwrap();
    assert!(
        timer.contains("\nOnCalendar=Mon,Tue,Wed,Thu,Fri *-*-* 07:45:00\n"),
        "{timer}"
    );
    let service = std::fs::read_to_string(units(&config).join("mindsage-reminder.service")).unwrap();
    let data = std::path::absolute(&data).unwrap();
    assert!(
        service.contains(&format!(
            "ExecStart=\"{BINARY}\" \"remind\" \"--data-dir\" \"{}\"",
            data.display()
        )),
        "{service}"
    );
    assert_eq!(
        calls(dir.path()),
        "--user daemon-reload\n--user enable mindsage-reminder.timer\n--user restart mindsage-reminder.timer\n"
    );
    let saved = Settings::load(&data).unwrap().reminder;
    assert!(
        saved.enabled && saved.describe() == "Weekdays at 07:45",
        "{saved:?}"
    );

    // Asked again, it says what it is and asks nothing of the system.
    let out = run(&["reminder"]);
    assert_eq!(output(&out).0.trim(), "Reminder: Weekdays at 07:45.");
    assert_eq!(calls(dir.path()).lines().count(), 3);

    let out = run(&["reminder", "--off"]);
    assert!(out.status.success(), "{}", output(&out).1);
    assert_eq!(output(&out).0.trim(), "Reminder off.");
    assert!(!units(&config).join("mindsage-reminder.timer").exists());
    assert!(!units(&config).join("mindsage-reminder.service").exists());
    assert!(
        calls(dir.path()).ends_with("--user disable --now mindsage-reminder.timer\n--user daemon-reload\n")
    );
    assert!(!Settings::load(&data).unwrap().reminder.enabled);

    // Bad input is told, and changes nothing.
    fails_saying(
        &run(&["reminder", "--at", "half past"]),
        "\"half past\" is not a time: write it as 20:00",
    );
    fails_saying(
        &run(&["reminder", "--days", "mon,funday"]),
        "\"funday\" is not a day",
    );
    assert!(!Settings::load(&data).unwrap().reminder.enabled);
}

#[test]
fn a_reminder_the_system_refuses_is_said_and_not_saved() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    let bin = systemctl(dir.path(), true);
    let out = command(&data, &["reminder", "--at", "21:00"])
        .env("PATH", path_with(&bin))
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .output()
        .unwrap();
    fails_saying(
        &out,
        "The reminder could not be set: systemctl --user daemon-reload said: Failed to connect to bus: No medium found",
    );
    assert!(!Settings::load(&data).unwrap().reminder.enabled);
}

/// A notification the desktop was asked to show.
#[derive(Debug, Clone)]
struct Shown {
    app: String,
    summary: String,
    body: String,
    actions: Vec<String>,
}

/// The desktop's notification service on a private session bus: it records what it is
/// asked to show, and the person answers each at once (`answer`: the action clicked, or
/// `None` for closing it).
struct Desktop {
    shown: Arc<Mutex<Vec<Shown>>>,
    answer: Option<&'static str>,
}

const NOTIFICATION_ID: u32 = 7;

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Desktop {
    #[allow(clippy::too_many_arguments)] // the method's D-Bus signature
    async fn notify(
        &self,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
        #[zbus(signal_emitter)] emitter: zbus::object_server::SignalEmitter<'_>,
    ) -> u32 {
        self.shown.lock().unwrap().push(Shown {
            app: app_name,
            summary,
            body,
            actions,
        });
        let answered = match self.answer {
            Some(action) => Desktop::action_invoked(&emitter, NOTIFICATION_ID, action).await,
            None => Desktop::notification_closed(&emitter, NOTIFICATION_ID, 2).await,
        };
        answered.unwrap();
        NOTIFICATION_ID
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &zbus::object_server::SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &zbus::object_server::SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

/// A private session bus with [`Desktop`] on it; both end with the value.
struct SessionBus {
    address: String,
    pid: u32,
    shown: Arc<Mutex<Vec<Shown>>>,
    _desktop: zbus::Connection,
}

impl SessionBus {
    fn start(answer: Option<&'static str>) -> SessionBus {
        let bus = Command::new("dbus-daemon")
            .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
            .output()
            .expect("dbus-daemon (scripts/install-deps.sh test installs it)");
        let printed = String::from_utf8_lossy(&bus.stdout).into_owned();
        let mut lines = printed.lines();
        let address = lines.next().unwrap().trim().to_owned();
        let pid = lines.next().unwrap().trim().parse().unwrap();
        let shown = Arc::new(Mutex::new(Vec::new()));
        let desktop = Desktop {
            shown: shown.clone(),
            answer,
        };
        let connection = zbus::block_on(async {
            zbus::connection::Builder::address(address.as_str())?
                .name("org.freedesktop.Notifications")?
                .serve_at("/org/freedesktop/Notifications", desktop)?
                .build()
                .await
        })
        .unwrap();
        SessionBus {
            address,
            pid,
            shown,
            _desktop: connection,
        }
    }

    fn shown(&self) -> Vec<Shown> {
        self.shown.lock().unwrap().clone()
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

/// An entry lived `days_ago` days before today, at noon here.
fn entry_days_ago(data: &Path, days_ago: i64) {
    let mut conn = db::open(&paths::database_path(data), &StorageOptions::default()).unwrap();
    let noon = chrono::Local::now().date_naive() - chrono::Duration::days(days_ago);
    let lived = noon
        .and_hms_opt(12, 0, 0)
        .unwrap()
        .and_local_timezone(chrono::Local)
        .earliest()
        .unwrap()
        .fixed_offset();
    let entry = NewEntry {
        body: format!("Written {days_ago} days ago."),
        created_at: Some(lived),
        ..NewEntry::default()
    };
    entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
}

/// `mindsage remind` on `data`, as the scheduler runs it, with the desktop on `bus` (and
/// no display: what a click opens cannot open a window here, and must not stay).
fn remind(data: &Path, bus: &SessionBus) -> std::process::Output {
    command(data, &["remind"])
        .env("DBUS_SESSION_BUS_ADDRESS", &bus.address)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap()
}

#[test]
fn the_reminder_counts_the_streak_and_a_click_opens_today() {
    let dir = tempfile::tempdir().unwrap();
    entry_days_ago(dir.path(), 1);
    entry_days_ago(dir.path(), 2);
    let bus = SessionBus::start(Some("default"));
    let out = remind(dir.path(), &bus);
    let (stdout, stderr) = output(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stdout.trim(),
        "Reminded: Time to write. 2-day streak: write today to make it 3 days in a row. Opened today's page."
    );
    let shown = bus.shown();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0].app, "MindSage");
    assert_eq!(shown[0].summary, "Time to write");
    assert_eq!(
        shown[0].body,
        "2-day streak: write today to make it 3 days in a row."
    );
    assert_eq!(shown[0].actions, ["default", "Write now"]);
}

#[test]
fn the_reminder_is_quiet_once_today_is_written_and_ends_when_dismissed() {
    let dir = tempfile::tempdir().unwrap();
    let bus = SessionBus::start(None);
    // A new journal: nothing written yet, so no streak.
    let out = remind(dir.path(), &bus);
    assert_eq!(
        output(&out).0.trim(),
        "Reminded: Time to write. Today's page is waiting. Dismissed."
    );
    entry_days_ago(dir.path(), 0);
    let out = remind(dir.path(), &bus);
    assert!(out.status.success(), "{}", output(&out).1);
    assert_eq!(output(&out).0.trim(), "Today's page is written: no reminder.");
    assert_eq!(bus.shown().len(), 1);
}

#[test]
fn without_a_notification_service_the_reminder_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = command(dir.path(), &["remind"])
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}/no-bus", dir.path().display()),
        )
        .output()
        .unwrap();
    fails_saying(&out, "error: the desktop did not show the notification");
}

/// Runs the ignored test `name` of this binary in a process of its own, with the
/// desktop's folders (and `path`) under `dir`, and asserts that it passed: the system's
/// environment differs per test, and this binary's other tests share its variables.
fn child_passes(name: &str, dir: &Path, path: Option<std::ffi::OsString>) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", name, "--nocapture", "--ignored"])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("MINDSAGE_TEST_DIR", dir);
    if let Some(path) = path {
        child.env("PATH", path);
    }
    let out = child.output().unwrap();
    let (stdout, stderr) = output(&out);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn settings_set_the_reminder_as_a_person_does() {
    let dir = tempfile::tempdir().unwrap();
    let bin = systemctl(dir.path(), false);
    child_passes("settings_reminder_child", dir.path(), Some(path_with(&bin)));
    let timer =
        std::fs::read_to_string(units(&dir.path().join("config")).join("mindsage-reminder.timer")).unwrap();
    assert!(
        timer.contains("\nOnCalendar=Mon,Tue,Wed,Thu,Fri *-*-* 21:30:00\n"),
        "{timer}"
    );
    assert!(calls(dir.path()).contains("--user enable mindsage-reminder.timer\n"));
}

#[test]
#[ignore = "run by settings_set_the_reminder_as_a_person_does"]
fn settings_reminder_child() {
    let data = PathBuf::from(std::env::var_os("MINDSAGE_TEST_DIR").unwrap()).join("journal");
    let startup = Startup::on_view(data.clone(), View::Settings);
    let mut harness = app_from(startup, AiSettings::default(), 800.0);
    wait_until(&mut harness, "the settings", |h| shows(h, "Remind me to write"));

    harness
        .get_by_role_and_label(Role::CheckBox, "Remind me to write")
        .click_accesskit();
    harness.run_steps(2);
    // The time typed as a person types it, with a pause mid-way: half a time is said to
    // be none, and Save waits for a whole one.
    harness.get_by_role_and_label(Role::TextInput, "At").focus();
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run_steps(1);
    harness
        .get_by_role_and_label(Role::TextInput, "At")
        .type_text("21");
    pause_for(&mut harness, 1.0);
    assert!(shows(&harness, "\"21\" is not a time: write it as 20:00"));
    assert!(
        harness
            .get_by_role_and_label(Role::Button, "Save settings")
            .accesskit_node()
            .is_disabled()
    );
    harness
        .get_by_role_and_label(Role::TextInput, "At")
        .type_text(":30");
    harness.run_steps(2);
    assert!(!shows(&harness, "is not a time"));
    for weekend in ["Sat", "Sun"] {
        harness
            .get_by_role_and_label(Role::Button, weekend)
            .click_accesskit();
        harness.run_steps(1);
    }
    click(&mut harness, "Save settings");
    wait_until(&mut harness, "the reminder set", |h| {
        shows(h, "Reminder set: Weekdays at 21:30.")
    });
    let saved = Settings::load(&data).unwrap().reminder;
    assert_eq!(saved.describe(), "Weekdays at 21:30");
    assert!(saved.enabled);
}

/// The autostart file in `config` (`$XDG_CONFIG_HOME`).
fn autostart_file(config: &Path) -> PathBuf {
    config.join("autostart").join("mindsage.desktop")
}

#[test]
fn the_command_line_starts_mindsage_with_the_system_and_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("journal");
    let config = dir.path().join("config");
    let run = |args: &[&str]| {
        let out = command(&data, args)
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .unwrap();
        let (stdout, stderr) = output(&out);
        assert!(out.status.success(), "{args:?}: {stderr}");
        stdout
    };
    assert_eq!(run(&["autostart"]).trim(), "Start when I log in: off.");
    assert_eq!(
        run(&["autostart", "--on"]).trim(),
        "Start when I log in: on. MindSage opens minimised when you log in."
    );
    let entry = std::fs::read_to_string(autostart_file(&config)).unwrap();
    let data = std::path::absolute(&data).unwrap();
    let exec = format!("\"{BINARY}\" --minimized --data-dir \"{}\"", data.display());
    assert!(entry.contains(&format!("\nExec={exec}\n")), "{entry}");
    assert!(Settings::load(&data).unwrap().start_with_system);
    let said: serde_json::Value = serde_json::from_str(&run(&["autostart", "--json"])).unwrap();
    assert_eq!(said["on"], true, "{said}");
    assert_eq!(said["command"], exec.as_str());
    // What the desktop runs at log-in is a command this binary understands, on this
    // journal: the same line with a command after it lists the journal's entries.
    run(&["add", "--title", "Started with the system", "--body", "."]);
    let listed = Command::new("sh")
        .arg("-c")
        .arg(format!("{exec} list"))
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("Started with the system"),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );

    assert_eq!(run(&["autostart", "--off"]).trim(), "Start when I log in: off.");
    assert!(!autostart_file(&config).exists());
    assert!(!Settings::load(&data).unwrap().start_with_system);
    // As the uninstaller runs it: nothing to take away is fine.
    assert_eq!(run(&["autostart", "--off"]).trim(), "Start when I log in: off.");
}

#[test]
fn settings_start_mindsage_with_the_system_as_a_person_does() {
    let dir = tempfile::tempdir().unwrap();
    child_passes("settings_autostart_child", dir.path(), None);
    assert!(!autostart_file(&dir.path().join("config")).exists());
}

#[test]
#[ignore = "run by settings_start_mindsage_with_the_system_as_a_person_does"]
fn settings_autostart_child() {
    let dir = PathBuf::from(std::env::var_os("MINDSAGE_TEST_DIR").unwrap());
    let data = dir.join("journal");
    let file = autostart_file(&dir.join("config"));
    let startup = Startup::on_view(data.clone(), View::Settings);
    let mut harness = app_from(startup, AiSettings::default(), 800.0);
    wait_until(&mut harness, "the settings", |h| shows(h, "Start when I log in"));

    harness
        .get_by_role_and_label(Role::CheckBox, "Start when I log in")
        .click_accesskit();
    harness.run_steps(2);
    click(&mut harness, "Save settings");
    wait_until(&mut harness, "starting with the system set", |h| {
        shows(
            h,
            "Start when I log in: on. MindSage opens minimised when you log in.",
        )
    });
    let entry = std::fs::read_to_string(&file).unwrap();
    assert!(entry.contains(" --minimized --data-dir "), "{entry}");
    assert!(Settings::load(&data).unwrap().start_with_system);

    harness
        .get_by_role_and_label(Role::CheckBox, "Start when I log in")
        .click_accesskit();
    harness.run_steps(2);
    click(&mut harness, "Save settings");
    wait_until(&mut harness, "starting with the system off", |h| {
        shows(h, "Start when I log in: off.")
    });
    assert!(!file.exists());
    assert!(!Settings::load(&data).unwrap().start_with_system);
}
