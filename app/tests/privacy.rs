//! Privacy (issue #17), checked on the real window (egui_kittest, the real worker
//! threads and journal file) and the real `mindsage` binary:
//!
//! * the app opens no listening socket, whatever screen is in use;
//! * the data folder and every file in it are readable by the person only;
//! * logs at every level hold no entry text;
//! * journal text reaches a model host on another computer only with the person's
//!   explicit opt-in, and Settings says where text goes.
//!
//! Sockets and modes are read the Linux/Unix way (`/proc`, mode bits); on Windows the
//! data folder under `%APPDATA%` has the per-user ACL the system gives it.

#![cfg(unix)]

mod app_harness;
mod binary;
#[path = "../../core/tests/reliability_summary/mod.rs"]
mod reliability_summary;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use app_harness::{PATIENCE, keep_running, shows, type_into, wait_until};
use mindsage::app::{MindSageApp, Startup};
use mindsage::views::View;
use mindsage::views::settings::WHERE_TEXT_GOES;
use mindsage_core::ai::AiSettings;
use mindsage_core::paths;
use reliability_summary::Summary;

/// The tests that open a socket of their own in this process (a stand-in model host)
/// and the test that lists this process's sockets never run at the same time.
static OWN_SOCKETS: Mutex<()> = Mutex::new(());

fn own_sockets_lock() -> std::sync::MutexGuard<'static, ()> {
    OWN_SOCKETS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

// ---------------------------------------------------------------------------------------
// The window

/// The real app on `data_dir`, its model host a loopback port nobody listens on.
fn app(data_dir: &Path) -> Harness<'static, MindSageApp> {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let ai = AiSettings {
        host: format!("http://127.0.0.1:{port}"),
        ..AiSettings::default()
    };
    app_harness::app_from(Startup::on_view(data_dir.to_path_buf(), View::Journal), ai, 900.0)
}

/// Lets the screen's threads answer for a moment, as a person looks at it.
fn linger(harness: &mut Harness<'_, MindSageApp>) {
    keep_running(harness, Duration::from_millis(500));
}

/// Every log line of this process at trace level, from every thread, into memory.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || LogSink(sink.clone()))
            .init();
        logs
    })
    .clone()
}

struct LogSink(Arc<Mutex<Vec<u8>>>);

impl Write for LogSink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Uses every screen of the window (writing a marked entry, searching for it), lists
/// this process's sockets on each, and reads what was logged at trace level meanwhile:
/// no socket may listen, no log line may hold the entry's text, Settings must say where
/// text goes, and the data folder the window made must be private.
#[test]
fn the_window_listens_on_nothing_logs_no_entry_text_and_keeps_its_folder_private() {
    let mut summary = Summary::new(
        "privacy",
        "the_window_listens_on_nothing_logs_no_entry_text_and_keeps_its_folder_private",
    );
    let _own_sockets = own_sockets_lock();
    let logs = captured_logs();
    let root = tempfile::tempdir().unwrap();
    let data_dir = root.path().join("window");
    let mut harness = app(&data_dir);
    let mut listening = Vec::new();
    let mut screens = Vec::new();
    let mut look = |harness: &mut Harness<'_, MindSageApp>, screen: &str| {
        linger(harness);
        listening.extend(
            listening_sockets()
                .into_iter()
                .map(|s| format!("{s} on {screen}")),
        );
        screens.push(screen.to_owned());
    };
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    look(&mut harness, "Journal");

    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Title", "zqxwindowtitle");
    type_into(
        &mut harness,
        Role::MultilineTextInput,
        "Entry",
        "Only mine: zqxwindowbody.",
    );
    wait_until(&mut harness, "the new entry in the list", |h| {
        h.query_by_role_and_label(Role::Button, "zqxwindowtitle")
            .is_some()
    });
    look(&mut harness, "the editor");

    for screen in ["Dashboard", "Gallery", "Ask"] {
        harness.get_by_role_and_label(Role::Button, screen).click();
        look(&mut harness, screen);
    }
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    wait_until(&mut harness, "the model's status", |h| {
        shows(h, "Status: not ready")
    });
    let says_where_text_goes = shows(&harness, WHERE_TEXT_GOES);
    look(&mut harness, "Settings");

    harness.get_by_role_and_label(Role::Button, "Journal").click();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    harness.run_steps(2);
    type_into(&mut harness, Role::TextInput, "Search", "zqxwindowbody");
    wait_until(&mut harness, "the search hit", |h| {
        h.query_by_role_and_label(Role::Button, "zqxwindowtitle")
            .is_some()
    });
    look(&mut harness, "search");
    drop(harness);

    let logged = logs.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let leaks: Vec<&str> = ["zqxwindowtitle", "zqxwindowbody"]
        .into_iter()
        .filter(|m| contains(&logged, m.as_bytes()))
        .collect();
    let modes = mode_problems(&data_dir);
    summary.set("screens_used", &screens);
    summary.set("listening_sockets", &listening);
    summary.set("trace_log_lines", logged.iter().filter(|b| **b == b'\n').count());
    summary.set("entry_text_in_logs", &leaks);
    summary.set("settings_say_where_text_goes", says_where_text_goes);
    summary.set("mode_problems", &modes);
    assert!(listening.is_empty(), "listening sockets: {listening:?}");
    assert!(
        !logged.is_empty(),
        "the trace-level capture saw nothing, so it proves nothing"
    );
    assert!(leaks.is_empty(), "entry text in the logs: {leaks:?}");
    assert!(
        says_where_text_goes,
        "Settings does not say where entry text goes"
    );
    assert!(modes.is_empty(), "not private: {modes:?}");
}

// ---------------------------------------------------------------------------------------
// Sockets

/// This process's sockets that accept connections or datagrams: TCP in LISTEN, bound
/// UDP, and listening Unix sockets. Only sockets behind this process's own file
/// descriptors count, not those of the child processes other tests start.
fn listening_sockets() -> Vec<String> {
    let ours = own_socket_inodes();
    let mut found = Vec::new();
    for table in ["tcp", "tcp6"] {
        for row in proc_net_rows(table) {
            // local address, state, inode: columns 1, 3 and 9.
            if row.get(3).map(String::as_str) == Some("0A") && is_ours(&ours, row.get(9)) {
                found.push(format!("{table} listening at {}", row[1]));
            }
        }
    }
    for table in ["udp", "udp6"] {
        for row in proc_net_rows(table) {
            if is_ours(&ours, row.get(9)) {
                found.push(format!("{table} bound at {}", row[1]));
            }
        }
    }
    for row in proc_net_rows("unix") {
        // Flags (column 3) carry __SO_ACCEPTCON (0x10000) on a listening socket.
        let accepts = row
            .get(3)
            .and_then(|f| u32::from_str_radix(f, 16).ok())
            .is_some_and(|f| f & 0x10000 != 0);
        if accepts && is_ours(&ours, row.get(6)) {
            found.push(format!(
                "unix socket listening at {}",
                row.get(7).map_or("(unnamed)", String::as_str)
            ));
        }
    }
    found
}

fn is_ours(ours: &HashSet<u64>, inode: Option<&String>) -> bool {
    inode
        .and_then(|i| i.parse().ok())
        .is_some_and(|i| ours.contains(&i))
}

/// The inodes behind this process's file descriptors that are sockets (`socket:[N]`).
fn own_socket_inodes() -> HashSet<u64> {
    std::fs::read_dir("/proc/self/fd")
        .expect("list /proc/self/fd")
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|target| {
            let target = target.to_string_lossy().into_owned();
            target.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
        })
        .collect()
}

/// The rows of `/proc/self/net/<table>` (header skipped), split on whitespace.
fn proc_net_rows(table: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/self/net/{table}")).unwrap_or_default();
    text.lines()
        .skip(1)
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Modes

/// Every folder under (and including) `dir` that is not 0700 and every file that is not
/// 0600, as "path: mode".
fn mode_problems(dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    if mode(dir) != 0o700 {
        problems.push(format!("{}: {:o}", dir.display(), mode(dir)));
    }
    for item in std::fs::read_dir(dir).unwrap().flatten() {
        let path = item.path();
        // A file the app's threads renamed or erased since the listing (a backup's
        // half-made copy and its rollback journal come and go) has no mode to check.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            problems.extend(mode_problems(&path));
        } else if meta.permissions().mode() & 0o777 != 0o600 {
            problems.push(format!(
                "{}: {:o}",
                path.display(),
                meta.permissions().mode() & 0o777
            ));
        }
    }
    problems
}

/// The command line makes a data folder where none was, two levels deep: every folder
/// it makes is 0700 and the journal, its -wal and -shm, 0600, whatever the umask.
#[test]
fn a_data_folder_the_command_line_makes_is_private() {
    let mut summary = Summary::new("privacy", "a_data_folder_the_command_line_makes_is_private");
    let root = tempfile::tempdir().unwrap();
    let made = root.path().join("made");
    let data_dir = made.join("mindsage");
    let added = mindsage(&data_dir, &["add", "--title", "Modes", "--body", "Private."], &[]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let listed = mindsage(&data_dir, &["list"], &[]);
    assert!(listed.status.success());
    let files: Vec<String> = std::fs::read_dir(&data_dir)
        .unwrap()
        .flatten()
        .map(|f| f.file_name().to_string_lossy().into_owned())
        .collect();
    let problems = mode_problems(&made);
    summary.set("files", &files);
    summary.set("mode_problems", &problems);
    assert!(files.iter().any(|f| f == paths::DATABASE_FILE), "{files:?}");
    assert!(problems.is_empty(), "not private: {problems:?}");
}

// ---------------------------------------------------------------------------------------
// The binary

/// The binary on `data_dir` with `env` over [`binary::on_journal`]'s (another model host,
/// an opt-in).
fn command(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = binary::command(data_dir, args);
    command.envs(env.iter().copied());
    command
}

fn mindsage(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    command(data_dir, args, env).output().expect("run mindsage")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every headless command that reads or writes entry text, at `RUST_LOG=trace`: what
/// they log (standard error: the binary writes no log file) holds none of the marked
/// entry's title, text or tag. `show` and `list` print the entry on standard output by
/// design; only the log stream counts.
#[test]
fn the_command_line_logs_no_entry_text_at_trace_level() {
    let mut summary = Summary::new("privacy", "the_command_line_logs_no_entry_text_at_trace_level");
    let root = tempfile::tempdir().unwrap();
    let (data_dir, copy_dir) = (root.path().join("journal"), root.path().join("copy"));
    let export = root.path().join("export.json");
    let export_text = export.to_string_lossy().into_owned();
    let trace = [("RUST_LOG", "trace")];
    let markers = ["zqxlogtitle", "zqxlogbody", "zqxlogtag"];
    let add = [
        "add",
        "--title",
        "zqxlogtitle",
        "--body",
        "Nobody reads zqxlogbody.",
        "--tag",
        "zqxlogtag",
        "--json",
    ];
    let added = mindsage(&data_dir, &add, &trace);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let id = serde_json::from_slice::<serde_json::Value>(&added.stdout).unwrap()["id"]
        .as_i64()
        .expect("an id")
        .to_string();
    let runs: Vec<(String, Output)> = [
        (&data_dir, vec!["list"]),
        (&data_dir, vec!["show", &id]),
        (&data_dir, vec!["search", "zqxlogbody"]),
        (&data_dir, vec!["ask", "what did zqxlogbody mean?"]),
        (&data_dir, vec!["index"]),
        (&data_dir, vec!["stats"]),
        (&data_dir, vec!["export", &export_text]),
        (&copy_dir, vec!["import", &export_text]),
        (&data_dir, vec!["delete", &id]),
        (&data_dir, vec!["purge", &id]),
    ]
    .into_iter()
    .map(|(dir, args)| (args.join(" "), mindsage(dir, &args, &trace)))
    .collect();
    let mut leaks = Vec::new();
    for (name, output) in std::iter::once(("add".to_owned(), added)).chain(runs.iter().cloned()) {
        for marker in markers {
            if contains(&output.stderr, marker.as_bytes()) {
                leaks.push(format!("{marker} in the log of `{name}`"));
            }
        }
    }
    let log_bytes: usize = runs.iter().map(|(_, o)| o.stderr.len()).sum();
    summary.set(
        "commands",
        runs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
    );
    summary.set("log_bytes", log_bytes);
    summary.set("entry_text_in_logs", &leaks);
    for (name, output) in &runs {
        let failed_as_expected = name.starts_with("ask") || name.starts_with("index");
        assert!(
            output.status.success() || failed_as_expected,
            "`{name}` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(
        log_bytes > 0,
        "nothing was logged at trace level, so this proves nothing"
    );
    assert!(leaks.is_empty(), "{leaks:?}");
}

// ---------------------------------------------------------------------------------------
// A model host on another computer

/// This machine's first IPv4 address that is not loopback (`hostname -I`), standing in
/// for another computer on the network.
fn non_loopback_address() -> Option<IpAddr> {
    let output = Command::new("hostname").arg("-I").output().ok()?;
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .filter_map(|word| word.parse::<IpAddr>().ok())
        .find(|ip| ip.is_ipv4() && !ip.is_loopback())
}

/// Runs `command`, accepting on `listener` meanwhile; returns what connections sent
/// (each is read for a moment, then closed, so the client sees the host fail) and
/// whether the command finished within `patience` (it is killed otherwise).
fn run_watching(mut command: Command, listener: &TcpListener, patience: Duration) -> (Vec<Vec<u8>>, bool) {
    listener.set_nonblocking(true).unwrap();
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut received = Vec::new();
    let finished = loop {
        if let Ok((mut stream, _)) = listener.accept() {
            stream.set_nonblocking(false).unwrap();
            stream.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
            let mut bytes = vec![0; 64 * 1024];
            let n = stream.read(&mut bytes).unwrap_or(0);
            bytes.truncate(n);
            received.push(bytes);
        }
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        if start.elapsed() > patience {
            child.kill().unwrap();
            child.wait().unwrap();
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (received, finished)
}

/// A host that is not this computer gets no connection at all from the commands that
/// send text to the model (search by meaning, Ask, the model's work), unless the person
/// opts in (the environment, or the box in Settings); with the opt-in the same search
/// does reach it, which shows the listener was
/// reachable and the refusal is the app's.
#[test]
fn a_host_on_another_computer_gets_nothing_without_the_opt_in() {
    let mut summary = Summary::new(
        "privacy",
        "a_host_on_another_computer_gets_nothing_without_the_opt_in",
    );
    let Some(address) = non_loopback_address() else {
        eprintln!("skipped: this machine has no non-loopback IPv4 address (`hostname -I`)");
        summary.set("skipped", "no non-loopback IPv4 address");
        return;
    };
    let _own_sockets = own_sockets_lock();
    let listener = TcpListener::bind((address, 0)).unwrap();
    let host = format!("http://{}", listener.local_addr().unwrap());
    let root = tempfile::tempdir().unwrap();
    let data_dir: PathBuf = root.path().join("journal");
    let env = [("OLLAMA_HOST", host.as_str())];
    let added = mindsage(
        &data_dir,
        &["add", "--body", "Sent nowhere: zqxremotebody."],
        &env,
    );
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );

    let tries: [&[&str]; 3] = [
        &["search", "zqxremotebody"],
        &["ask", "what is zqxremotebody?"],
        &["index", "--wait"],
    ];
    let mut refused = Vec::new();
    for args in tries {
        let (received, finished) = run_watching(command(&data_dir, args, &env), &listener, PATIENCE);
        assert!(finished, "`{}` did not finish", args.join(" "));
        refused.push((args.join(" "), received.len()));
    }
    let opted_in = [
        ("OLLAMA_HOST", host.as_str()),
        (mindsage_core::ai::settings::ALLOW_REMOTE_ENV, "1"),
    ];
    let (with_opt_in, _) = run_watching(
        command(&data_dir, &["search", "zqxremotebody"], &opted_in),
        &listener,
        PATIENCE,
    );
    // The same opt-in ticked in Settings ("Allow a host on another computer"), as the
    // settings file keeps it.
    let settings = mindsage_core::settings::Settings {
        allow_remote_model_host: true,
        ..Default::default()
    };
    settings.save(&data_dir).unwrap();
    let (with_setting, _) = run_watching(
        command(&data_dir, &["search", "zqxremotebody"], &env),
        &listener,
        PATIENCE,
    );
    summary.set("host", &host);
    summary.set("connections_without_opt_in", &refused);
    summary.set("connections_with_opt_in", with_opt_in.len());
    summary.set("connections_with_the_setting_ticked", with_setting.len());
    assert!(
        refused.iter().all(|(_, n)| *n == 0),
        "the remote host was reached: {refused:?}"
    );
    assert!(
        !with_opt_in.is_empty(),
        "with the opt-in the search never reached the host"
    );
    assert!(
        !with_setting.is_empty(),
        "with the setting ticked the search never reached the host"
    );
}
