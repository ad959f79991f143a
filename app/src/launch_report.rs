//! `--report-startup`: how long the real window took to show the journal, printed by
//! the app itself, so the bench (and anyone at a terminal) can time a launch as the
//! person feels it, with a window, a GL context and a process start.
//!
//! The app prints one line once the first frame showing the journal's first page has
//! been drawn, then closes the window:
//!
//! ```text
//! startup exec_to_main_ms=10.00 first_frame_ms=96.41 first_rows_ms=118.02 rows=50 renderer="llvmpipe (LLVM 15.0.7, 256 bits)"
//! ```
//!
//! * `exec_to_main_ms`: from the kernel starting the process (`exec`) to the first line
//!   of `main`, on Linux read from `/proc/self/stat` (the start time, in clock ticks
//!   since boot) against `/proc/uptime`. Both count in hundredths of a second, so this
//!   part is only good to about 10 ms; everything after `main` is timed with
//!   [`Instant`] taken as the first thing `main` does. Off Linux the field is left out
//!   and the other figures count from `main`.
//! * `first_frame_ms`: from `exec` to the moment the first frame had been drawn (taken
//!   when the next frame starts, which eframe begins only after painting and swapping
//!   the previous one; the report keeps frames coming until it has printed).
//! * `first_rows_ms`: likewise for the first frame drawn on the journal screen after
//!   its first page arrived; `rows` is that page's length (0 on an empty journal).
//! * `renderer`: the GL renderer string of the window's context (`llvmpipe` under Mesa's
//!   software GL), so a figure says what drew it.
//!
//! With `--exercise-views N` the window stays open after that line and switches screens
//! N times in the order Ctrl+1…Ctrl+7 would (each screen kept at least 10 frames and
//! 50 ms, time for its data to arrive and be drawn), then prints the process's resident
//! memory before closing:
//!
//! ```text
//! views switches=50 rss_bytes=148897792
//! ```
//!
//! The bench times `exec` from outside as well (it starts the process and stamps the
//! line's arrival), which is exact; [`StartupLine::parse`] and [`ViewsLine::parse`]
//! read the lines back.

use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::views::View;

/// `main`'s first instant and, where the system says, how long after `exec` it came.
static MAIN: OnceLock<(Instant, Option<Duration>)> = OnceLock::new();

/// Least frames and time each screen is shown while exercising views.
const FRAMES_PER_VIEW: u32 = 10;
const TIME_PER_VIEW: Duration = Duration::from_millis(50);

/// Marks the start of `main`; call it first thing there.
pub fn mark_main() {
    MAIN.get_or_init(|| (Instant::now(), exec_to_now()));
}

/// `main`'s instant and the `exec`→`main` gap (zero where unknown, and when
/// [`mark_main`] was never called: then the figures count from the first frame's report).
fn main_mark() -> (Instant, Option<Duration>) {
    *MAIN.get_or_init(|| (Instant::now(), None))
}

/// Time since the kernel started this process, from /proc (Linux; `None` elsewhere or
/// when /proc cannot be read).
fn exec_to_now() -> Option<Duration> {
    // Field 22 of /proc/self/stat is the start time in clock ticks since boot; the
    // fields after the command name (which may hold spaces, so split after its ')')
    // start at field 3. USER_HZ, the unit, is 100 on every Linux architecture.
    const TICKS_PER_SECOND: f64 = 100.0;
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let ticks: f64 = after_name
        .split_whitespace()
        .nth(22 - 3)
        .and_then(|t| t.parse().ok())?;
    let uptime = std::fs::read_to_string("/proc/uptime").ok()?;
    let uptime: f64 = uptime.split_whitespace().next().and_then(|u| u.parse().ok())?;
    Some(Duration::from_secs_f64(
        (uptime - ticks / TICKS_PER_SECOND).max(0.0),
    ))
}

/// The GL renderer string of the window's context.
pub fn renderer_of(gl: &eframe::glow::Context) -> String {
    use eframe::glow::HasContext as _;
    // SAFETY: eframe calls the app's creator with its GL context current, and RENDERER
    // is a string every GL version answers.
    unsafe { gl.get_parameter_string(eframe::glow::RENDERER) }
}

/// This process's resident memory, from /proc (Linux).
pub fn resident_bytes() -> anyhow::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")
        .context("resident memory is read from /proc/self/status, which this system lacks")?;
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .context("no VmRSS line in /proc/self/status")?;
    Ok(kib * 1024)
}

/// What a frame drew, as far as the report cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawn {
    /// The journal screen with its first page: that many rows.
    JournalRows(usize),
    Other,
}

/// The report's state across frames, owned by the app when `--report-startup` is given.
pub struct LaunchReport {
    renderer: String,
    /// View switches still asked for after the startup line.
    switches_left: usize,
    switches_done: usize,
    frames: u64,
    first_frame: Option<Duration>,
    previous: Option<Drawn>,
    printed: bool,
    /// When the current screen of the exercise came up, and frames drawn on it since.
    on_view: Option<(Instant, u32)>,
    closing: bool,
}

impl LaunchReport {
    pub fn new(renderer: String, exercise_views: usize) -> LaunchReport {
        LaunchReport {
            renderer,
            switches_left: exercise_views,
            switches_done: 0,
            frames: 0,
            first_frame: None,
            previous: None,
            printed: false,
            on_view: None,
            closing: false,
        }
    }

    /// Called at the end of every frame with the instant the frame began (so after the
    /// previous one was painted) and what it drew; returns a screen to switch to.
    pub fn after_frame(&mut self, ctx: &egui::Context, began: Instant, drawn: Drawn) -> Option<View> {
        if self.closing {
            return None;
        }
        ctx.request_repaint();
        self.frames += 1;
        let (main, exec_to_main) = main_mark();
        let since_exec = began.saturating_duration_since(main) + exec_to_main.unwrap_or_default();
        if self.frames == 2 {
            self.first_frame = Some(since_exec);
        }
        let previous = self.previous.replace(drawn);
        if !self.printed {
            if let (Some(Drawn::JournalRows(rows)), Some(first_frame)) = (previous, self.first_frame) {
                let line = StartupLine {
                    exec_to_main_ms: exec_to_main.map(ms),
                    first_frame_ms: ms(first_frame),
                    first_rows_ms: ms(since_exec),
                    rows,
                    renderer: self.renderer.clone(),
                };
                println!("{line}");
                self.printed = true;
            }
            return self.close_if_done(ctx);
        }
        if let Some((since, frames)) = &mut self.on_view {
            *frames += 1;
            if *frames < FRAMES_PER_VIEW || since.elapsed() < TIME_PER_VIEW {
                return None;
            }
        }
        if self.switches_left == 0 {
            match resident_bytes() {
                Ok(rss_bytes) => {
                    let switches = self.switches_done;
                    println!("{}", ViewsLine { switches, rss_bytes });
                }
                Err(e) => eprintln!("error: no resident memory to report: {e:#}"),
            }
            self.on_view = None;
            return self.close_if_done(ctx);
        }
        let view = View::ALL[self.switches_done % View::ALL.len()];
        self.switches_left -= 1;
        self.switches_done += 1;
        self.on_view = Some((Instant::now(), 0));
        Some(view)
    }

    /// Closes the window once everything asked for is printed.
    fn close_if_done(&mut self, ctx: &egui::Context) -> Option<View> {
        if self.printed && self.switches_left == 0 && self.on_view.is_none() {
            self.closing = true;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        None
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `startup …` line.
#[derive(Debug, Clone, PartialEq)]
pub struct StartupLine {
    pub exec_to_main_ms: Option<f64>,
    pub first_frame_ms: f64,
    pub first_rows_ms: f64,
    pub rows: usize,
    pub renderer: String,
}

impl fmt::Display for StartupLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("startup")?;
        if let Some(gap) = self.exec_to_main_ms {
            write!(f, " exec_to_main_ms={gap:.2}")?;
        }
        write!(
            f,
            " first_frame_ms={:.2} first_rows_ms={:.2} rows={} renderer={:?}",
            self.first_frame_ms, self.first_rows_ms, self.rows, self.renderer
        )
    }
}

impl StartupLine {
    /// Reads a line [`Display`](fmt::Display) wrote.
    pub fn parse(line: &str) -> anyhow::Result<StartupLine> {
        let fields = line
            .strip_prefix("startup ")
            .with_context(|| format!("not a startup line: {line:?}"))?;
        // The renderer is last and quoted: it may hold spaces.
        let (numbers, renderer) = fields
            .split_once(" renderer=")
            .with_context(|| format!("no renderer in {line:?}"))?;
        let renderer = renderer.trim().trim_matches('"').to_owned();
        let number = |name: &str| field(numbers, name, line);
        Ok(StartupLine {
            exec_to_main_ms: number("exec_to_main_ms").ok(),
            first_frame_ms: number("first_frame_ms")?,
            first_rows_ms: number("first_rows_ms")?,
            rows: number("rows")? as usize,
            renderer,
        })
    }
}

/// The `views …` line.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewsLine {
    pub switches: usize,
    pub rss_bytes: u64,
}

impl fmt::Display for ViewsLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "views switches={} rss_bytes={}", self.switches, self.rss_bytes)
    }
}

impl ViewsLine {
    pub fn parse(line: &str) -> anyhow::Result<ViewsLine> {
        let fields = line
            .strip_prefix("views ")
            .with_context(|| format!("not a views line: {line:?}"))?;
        Ok(ViewsLine {
            switches: field(fields, "switches", line)? as usize,
            rss_bytes: field(fields, "rss_bytes", line)? as u64,
        })
    }
}

/// The number after `name=` among space-separated fields.
fn field(fields: &str, name: &str, line: &str) -> anyhow::Result<f64> {
    fields
        .split_whitespace()
        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("no number {name}= in {line:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_read_back_as_written() {
        let startup = StartupLine {
            exec_to_main_ms: Some(10.0),
            first_frame_ms: 96.41,
            first_rows_ms: 118.02,
            rows: 50,
            renderer: "llvmpipe (LLVM 15.0.7, 256 bits)".to_owned(),
        };
        assert_eq!(StartupLine::parse(&startup.to_string()).unwrap(), startup);
        let off_linux = StartupLine {
            exec_to_main_ms: None,
            ..startup
        };
        assert_eq!(StartupLine::parse(&off_linux.to_string()).unwrap(), off_linux);
        let views = ViewsLine {
            switches: 50,
            rss_bytes: 148_897_792,
        };
        assert_eq!(ViewsLine::parse(&views.to_string()).unwrap(), views);
        assert!(StartupLine::parse("startup first_frame_ms=1").is_err());
        assert!(ViewsLine::parse("views switches=50").is_err());
    }

    #[test]
    fn this_process_started_before_main_asked() {
        if cfg!(target_os = "linux") {
            let gap = exec_to_now().expect("/proc says when this process started");
            assert!(gap < Duration::from_secs(3600), "{gap:?}");
        }
    }
}
