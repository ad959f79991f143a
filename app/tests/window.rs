//! The real window, as the bench starts it: the `mindsage` binary with
//! `--report-startup` on an X server with Mesa's software GL. It must print its
//! startup line once the journal's rows are on screen and close by itself. Uses
//! `DISPLAY` when set, otherwise starts its own Xvfb (`scripts/install-deps.sh test`
//! installs it); without either the tests say so and pass.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mindsage::launch_report::{StartupLine, ViewsLine, VirtualDisplay};

/// Longest a launch may take in a debug build on a busy machine.
const PATIENCE: Duration = Duration::from_secs(120);

/// The X display to use and the server behind it when this test started one; `None`
/// (after saying why) when there is no way to show a window.
fn display() -> Option<(String, Option<VirtualDisplay>)> {
    if let Ok(display) = std::env::var("DISPLAY")
        && !display.is_empty()
    {
        return Some((display, None));
    }
    match VirtualDisplay::start() {
        Ok(server) => Some((server.name.clone(), Some(server))),
        Err(e) => {
            eprintln!("skipped: no DISPLAY and no Xvfb ({e:#})");
            None
        }
    }
}

fn seeded_journal(entries: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_mindsage"))
        .arg("--data-dir")
        .arg(dir.path())
        .args(["seed", "--entries", &entries.to_string()])
        .env_remove("MINDSAGE_DATA_DIR")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// Runs the window with `args` until it exits by itself; its standard output.
fn window(display: &str, data_dir: &Path, args: &[&str]) -> String {
    // Files, not pipes: nobody reads a pipe while the window runs, and a full one would
    // stop the app.
    let (stdout, stderr) = (tempfile::tempfile().unwrap(), tempfile::tempfile().unwrap());
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindsage"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("DISPLAY", display)
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .env("OLLAMA_HOST", "http://127.0.0.1:9")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("MINDSAGE_DATA_DIR")
        .stdout(stdout.try_clone().unwrap())
        .stderr(stderr.try_clone().unwrap())
        .spawn()
        .expect("start mindsage");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > PATIENCE {
            child.kill().unwrap();
            panic!("the window did not close by itself within {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "stderr: {}", read_back(stderr));
    read_back(stdout)
}

fn read_back(mut file: std::fs::File) -> String {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).unwrap();
    file.read_to_string(&mut text).unwrap();
    text
}

#[test]
fn report_startup_prints_one_timing_line_and_closes_the_window() {
    let Some((display, _server)) = display() else {
        return;
    };
    let journal = seeded_journal(20);
    let printed = window(&display, journal.path(), &["--report-startup"]);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 1, "{printed}");
    let line = StartupLine::parse(lines[0]).unwrap();
    assert_eq!(line.rows, 20, "{printed}");
    assert!(
        line.first_frame_ms > 0.0 && line.first_frame_ms <= line.first_rows_ms,
        "{printed}"
    );
    if cfg!(target_os = "linux") {
        assert!(line.exec_to_main_ms.is_some(), "{printed}");
    }
    assert!(!line.renderer.is_empty(), "{printed}");
}

#[test]
fn exercising_views_reports_the_switches_and_the_memory() {
    let Some((display, _server)) = display() else {
        return;
    };
    let journal = seeded_journal(20);
    let printed = window(
        &display,
        journal.path(),
        &["--report-startup", "--exercise-views", "5"],
    );
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "{printed}");
    StartupLine::parse(lines[0]).unwrap();
    let views = ViewsLine::parse(lines[1]).unwrap();
    assert_eq!(views.switches, 5);
    assert!(views.rss_bytes > 1024 * 1024, "{printed}");
}
