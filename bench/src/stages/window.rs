//! The `app` stage's real window: the release `mindsage` started as a person starts it,
//! a process with a window and a GL context, on an X server with Mesa's software GL.
//!
//! Each launch opens a copy of the journal with `--report-startup`: the app prints one
//! line once the first frame showing the journal's first page has been drawn, and
//! closes (`mindsage::launch_report`). Startup is timed here, from just before the
//! process is started to the arrival of that line on its standard output: a blocking
//! read of a pipe, so nothing polls the display (a tool that waits for a window in
//! half-second steps would put its own steps into the figure). The first frame's time
//! is that minus the gap the app measured between its first frame and its first rows.
//!
//! * `window_first_rows_cold`, `window_first_frame_cold`: each launch right after
//!   dropping the page cache (journal, binary, libraries and Mesa read from disk), when
//!   the system lets us (root on Linux); otherwise the one launch right after copying
//!   the journal, with the binary and libraries probably still cached. The `cache`
//!   parameter says which.
//! * `window_first_rows_warm`, `window_first_frame_warm`: launches after those, with
//!   everything cached.
//! * `window_close_warm`: in the same warm launches, from the startup line, after which
//!   the app closes its window as its close button would, to the end of the process
//!   (its standard output closing): the last saves, the window's teardown and the
//!   threads' end ([`mindsage::threads::finish`]), all of which Windows waits for at
//!   the end of a session.
//! * `window_close_model_busy`: the same, with the app pointed at the configured model
//!   server (`OLLAMA_HOST`), whose calls are in flight when the window closes (the
//!   model's pre-warming, the day's question, the queue's enrichment): closing must not
//!   wait for their answers. Failed, saying why, when no model server answers.
//! * `window_rss_after_view_switches`: one more launch with `--exercise-views 50`,
//!   which switches screens 50 times as Ctrl+1…Ctrl+7 do (the headless scenario's
//!   switches), and the resident memory the app reads from its own /proc before it
//!   exits.
//! * `window_resident_after_sequence`, `window_private_after_sequence`,
//!   `window_file_mapped_after_sequence`: one more launch, against the model server,
//!   through a person's heavy session: the list scrolled with the wheel from the first
//!   entry to the last (every entry read on the way), 50 view switches and a question
//!   asked and answered on the Ask screen (`--exercise-scroll --exercise-views 50
//!   --exercise-ask`). Then the memory the app reads from its own /proc, split as the
//!   system shows it ([`mindsage::launch_report::Memory`]): resident, private
//!   (anonymous: heaps, stacks, the software renderer's buffers) and mapped file pages
//!   (the binary, its libraries, the journal SQLite maps, which the system can drop and
//!   read back; Windows' Task Manager leaves them out). Failed, saying why, when no
//!   model server answers or the sequence did not go through.
//!
//! The X server is `DISPLAY` when set, otherwise an Xvfb the stage starts on a free
//! display. The GL renderer string the app reports is stored with each figure. The app
//! is pointed at a model server port nobody listens on, as in the headless scenarios,
//! so its AI threads give up at once instead of working the journal's queue.

use std::io::{BufRead, BufReader, Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use mindsage::launch_report::{StartupLine, ViewsLine};
use mindsage::virtual_display::VirtualDisplay;
use mindsage_core::timing::Summary;

use super::Recorder;
use crate::run::{Measure, Scenario, Unit};

/// Cold launches (each after dropping the page cache) and warm launches per size.
const COLD_LAUNCHES: usize = 5;
const WARM_LAUNCHES: usize = 5;
/// View switches before the memory figure, as in the headless scenario.
const VIEW_SWITCHES: usize = 50;
/// Longest a launch may take, view switches included.
const PATIENCE: Duration = Duration::from_secs(60);
/// Longest the heavy session's launch may take: the scroll, the switches and a small
/// model's answer.
const SEQUENCE_PATIENCE: Duration = Duration::from_secs(300);
/// The question of the heavy session.
const SEQUENCE_QUESTION: &str = "How have I been sleeping lately?";
/// Where the launched app looks for a model server: nobody listens there.
const NO_MODEL: &str = "http://127.0.0.1:9";

const NAMES: [&str; 10] = [
    "window_first_rows_cold",
    "window_first_frame_cold",
    "window_first_rows_warm",
    "window_first_frame_warm",
    "window_close_warm",
    "window_close_model_busy",
    "window_rss_after_view_switches",
    "window_resident_after_sequence",
    "window_private_after_sequence",
    "window_file_mapped_after_sequence",
];

/// The binary and the X server every launch uses.
pub(super) struct Window {
    binary: PathBuf,
    display: String,
    /// The Xvfb started for this run, stopped when the stage ends.
    _server: Option<VirtualDisplay>,
}

impl Window {
    /// The release binary (built when missing) and an X server.
    pub(super) fn open() -> anyhow::Result<Window> {
        let binary = super::size::release_binary()?;
        let (display, server) = match std::env::var("DISPLAY") {
            Ok(display) if !display.is_empty() => (display, None),
            _ => {
                let server = VirtualDisplay::start()?;
                eprintln!("[app ] started Xvfb on {}", server.name);
                (server.name.clone(), Some(server))
            }
        };
        Ok(Window {
            binary,
            display,
            _server: server,
        })
    }
}

/// The window's scenarios at one size, or each of them failed with the reason the
/// window could not be set up; measured once more when the machine was busy.
pub(super) fn record(
    window: &anyhow::Result<Window>,
    size: usize,
    journal: &Path,
    out: &mut Recorder,
) -> anyhow::Result<()> {
    out.unit(|out| {
        let measured = window
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e:#}"))
            .and_then(|w| w.measure(size, journal));
        match measured {
            Ok(scenarios) => scenarios.into_iter().for_each(|s| out.push(s)),
            Err(e) => {
                for name in NAMES {
                    let error = anyhow::anyhow!("{e:#}");
                    out.push(timing(size, name, Err(error), 0, "real window"));
                }
            }
        }
        Ok(())
    })
}

/// What one launch printed, when its startup line arrived, and how long the process
/// took to end after its last line.
struct Launch {
    since_start: Duration,
    startup: StartupLine,
    views: Option<ViewsLine>,
    closing: Duration,
}

impl Launch {
    fn first_rows_ms(&self) -> f64 {
        self.since_start.as_secs_f64() * 1000.0
    }

    fn first_frame_ms(&self) -> f64 {
        self.first_rows_ms() - (self.startup.first_rows_ms - self.startup.first_frame_ms)
    }

    fn close_ms(&self) -> f64 {
        self.closing.as_secs_f64() * 1000.0
    }
}

impl Window {
    fn measure(&self, size: usize, journal: &Path) -> anyhow::Result<Vec<Scenario>> {
        let work = tempfile::tempdir()?;
        let copy = mindsage_core::paths::database_path(work.path());
        std::fs::copy(journal, &copy).with_context(|| format!("copying {}", journal.display()))?;

        let dropped = drop_page_cache(&copy);
        let cold_count = if dropped { COLD_LAUNCHES } else { 1 };
        let mut cold = Vec::new();
        for i in 0..cold_count {
            if i > 0 {
                drop_page_cache(&copy);
            }
            cold.push(self.launch(work.path(), &[], NO_MODEL)?);
        }
        let warm = (0..WARM_LAUNCHES)
            .map(|_| self.launch(work.path(), &[], NO_MODEL))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let model_busy = super::ollama("app").and_then(|(settings, _)| {
            (0..WARM_LAUNCHES)
                .map(|_| self.launch(work.path(), &[], &settings.host))
                .collect::<anyhow::Result<Vec<_>>>()
        });
        let switches = VIEW_SWITCHES.to_string();
        let exercised = self.launch(work.path(), &["--exercise-views", &switches], NO_MODEL)?;
        let views = exercised.views.context("the app printed no views line")?;
        anyhow::ensure!(
            views.switches == VIEW_SWITCHES,
            "the app switched views {} times, not {VIEW_SWITCHES}",
            views.switches
        );

        let sequence = super::ollama("app").and_then(|(settings, _)| {
            let args = [
                "--exercise-scroll",
                "--exercise-views",
                &switches,
                "--exercise-ask",
                SEQUENCE_QUESTION,
            ];
            let launch = self.launch(work.path(), &args, &settings.host)?;
            let line = launch.views.context("the app printed no views line")?;
            anyhow::ensure!(
                line.scrolled_rows == Some(size) && line.switches == VIEW_SWITCHES,
                "the sequence stopped short: {line}"
            );
            anyhow::ensure!(line.answered == Some(true), "the Ask was not answered: {line}");
            Ok(line.memory)
        });

        let renderer = warm[0].startup.renderer.clone();
        let cache = if dropped {
            "dropped before each launch"
        } else {
            "not dropped (not permitted): the first launch after copying the journal"
        };
        let note = format!(
            "real window: the release binary under X ({}) with LIBGL_ALWAYS_SOFTWARE=1, \
             timed from starting the process to its --report-startup line",
            self.display
        );
        let with_params = |mut s: Scenario, cache: &str| {
            s.params.insert("renderer".into(), renderer.clone());
            s.params.insert("display".into(), self.display.clone());
            s.params.insert("page_cache".into(), cache.into());
            s
        };
        let series = |launches: &[Launch], name: &str, pick: fn(&Launch) -> f64, cache: &str| {
            let samples = launches.iter().map(pick).collect();
            with_params(timing(size, name, Ok(samples), launches.len(), &note), cache)
        };
        let rss_note = format!(
            "real window: resident memory of the mindsage process after {VIEW_SWITCHES} view switches \
             (--exercise-views), read from its own /proc before exit"
        );
        let mut scenarios = vec![
            series(&cold, NAMES[0], Launch::first_rows_ms, cache),
            series(&cold, NAMES[1], Launch::first_frame_ms, cache),
            series(&warm, NAMES[2], Launch::first_rows_ms, "warm"),
            series(&warm, NAMES[3], Launch::first_frame_ms, "warm"),
            series(&warm, NAMES[4], Launch::close_ms, "warm"),
            match model_busy {
                Ok(launches) => series(&launches, NAMES[5], Launch::close_ms, "warm"),
                Err(e) => timing(size, NAMES[5], Err(e), WARM_LAUNCHES, &note),
            },
            with_params(
                bytes(size, NAMES[6], Ok(views.memory.resident), &rss_note),
                "warm",
            ),
        ];
        let sequence_note = |part: &str| {
            format!(
                "real window, {part}: after scrolling the list from the first entry to the last, \
                 {VIEW_SWITCHES} view switches and an answered Ask, read from its own /proc"
            )
        };
        let parts = [
            "resident memory",
            "private (anonymous) memory",
            "mapped file pages",
        ];
        for (i, (part, name)) in parts.into_iter().zip(&NAMES[7..]).enumerate() {
            let value = match &sequence {
                Ok(memory) => [Some(memory.resident), Some(memory.private), memory.file][i]
                    .context("this system does not tell"),
                Err(e) => Err(anyhow::anyhow!("{e:#}")),
            };
            scenarios.push(with_params(
                bytes(size, name, value, &sequence_note(part)),
                "warm",
            ));
        }
        Ok(scenarios)
    }

    /// Starts the app on `data_dir`'s journal, its model server at `model_host`, and
    /// reads what it prints until it exits.
    fn launch(&self, data_dir: &Path, exercise: &[&str], model_host: &str) -> anyhow::Result<Launch> {
        let stderr = tempfile::tempfile()?;
        let mut command = Command::new(&self.binary);
        command
            .arg("--data-dir")
            .arg(data_dir)
            .arg("--report-startup")
            .env("DISPLAY", &self.display)
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("OLLAMA_HOST", model_host)
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("MINDSAGE_DATA_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr.try_clone()?);
        command.args(exercise);
        let patience = if exercise.is_empty() {
            PATIENCE
        } else {
            SEQUENCE_PATIENCE
        };
        let started = Instant::now();
        let mut child = command
            .spawn()
            .with_context(|| format!("starting {}", self.binary.display()))?;
        let stdout = child.stdout.take().context("the app's standard output")?;
        let (lines, arrivals) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let deadline = started + patience;
        let mut printed = Vec::new();
        // The output closes when the process ends.
        let ended = loop {
            match arrivals.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => printed.push(line),
                Err(RecvTimeoutError::Disconnected) => break Some(Instant::now()),
                Err(RecvTimeoutError::Timeout) => break None,
            }
        };
        let finished = ended.is_some();
        if !finished {
            child.kill().context("stopping the app")?;
        }
        let status = child.wait()?;
        let why = || read_back(&stderr);
        anyhow::ensure!(finished, "the app had not exited after {patience:?}");
        anyhow::ensure!(status.success(), "the app failed ({status}): {}", why().trim());
        let (arrived, line) = printed
            .iter()
            .find(|(_, line)| line.starts_with("startup "))
            .with_context(|| format!("the app printed no startup line: {}", why().trim()))?;
        let views = printed
            .iter()
            .find(|(_, line)| line.starts_with("views "))
            .map(|(_, line)| ViewsLine::parse(line))
            .transpose()?;
        let last_line = printed.last().map_or(*arrived, |(at, _)| *at);
        Ok(Launch {
            since_start: arrived.saturating_duration_since(started),
            startup: StartupLine::parse(line)?,
            views,
            closing: ended.unwrap_or(last_line).saturating_duration_since(last_line),
        })
    }
}

/// What the app wrote to its standard error, for an error message.
fn read_back(mut file: &std::fs::File) -> String {
    let mut text = String::new();
    let _ = file
        .seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_string(&mut text));
    text
}

/// Writes the journal copy to disk and drops the page cache (Linux, as root); whether
/// the cache was dropped.
fn drop_page_cache(journal: &Path) -> bool {
    let synced = std::fs::File::open(journal).and_then(|f| f.sync_all()).is_ok();
    synced && std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

/// A scenario of the `app` stage (this module's and `app.rs`'s).
fn scenario(size: usize, name: &str, measure: Measure, note: &str) -> Scenario {
    Scenario::new("app", Some(size), name, measure, Some(note.to_owned()))
}

pub(super) fn timing(
    size: usize,
    name: &str,
    samples: anyhow::Result<Vec<f64>>,
    requested: usize,
    note: &str,
) -> Scenario {
    let measure = match samples.map(|s| Summary::from_ms(&s)) {
        Ok(Some(stats)) => Measure::Timing {
            stats,
            requested,
            budget_exhausted: false,
        },
        Ok(None) => Measure::Failed {
            error: "no samples".to_owned(),
        },
        Err(e) => Measure::Failed {
            error: format!("{e:#}"),
        },
    };
    scenario(size, name, measure, note)
}

pub(super) fn bytes(size: usize, name: &str, bytes: anyhow::Result<u64>, note: &str) -> Scenario {
    let measure = match bytes {
        Ok(bytes) => Measure::Value {
            value: bytes as f64,
            unit: Unit::Bytes,
        },
        Err(e) => Measure::Failed {
            error: format!("{e:#}"),
        },
    };
    scenario(size, name, measure, note)
}
