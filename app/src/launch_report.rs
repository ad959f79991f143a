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
//! After that line the window can go through a person's heavy session before it
//! closes (the bench's memory sequence), each step in this order and each shown at
//! least 10 frames and 50 ms, time for its data to arrive and be drawn:
//!
//! * `--exercise-scroll`: the journal's list is scrolled with the mouse wheel from its
//!   top to its last entry, fast, as a person flinging the wheel does (every page of
//!   entries is read on the way down);
//! * `--exercise-views N`: N switches of screen in the order Ctrl+1…Ctrl+7 would;
//! * `--exercise-ask QUESTION`: the question asked on the Ask screen, as typing it and
//!   pressing Send does, and its answer (or its failure) awaited and drawn.
//!
//! Then it prints what was done and the process's memory, split the way the system's
//! own tools show it ([`Memory`]), and closes:
//!
//! ```text
//! views switches=50 scrolled_rows=50000 answered=yes rss_bytes=148897792 private_bytes=61046784 file_bytes=87851008
//! ```
//!
//! The bench times `exec` from outside as well (it starts the process and stamps the
//! line's arrival), which is exact; [`StartupLine::parse`] and [`ViewsLine::parse`]
//! read the lines back.

use std::collections::VecDeque;
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

/// This process's memory as the system's own tools show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    /// Resident memory: on Linux `VmRSS` (what `top` calls RES), on Windows the working
    /// set.
    pub resident: u64,
    /// Memory only this process holds, which the system must find room for: on Linux
    /// the resident anonymous pages (`RssAnon`: heaps, stacks, the software renderer's
    /// buffers), on Windows the private bytes (`PrivateUsage`, Task Manager's "commit
    /// size"; its "memory" column is the private part of the working set, at most this).
    pub private: u64,
    /// Resident pages of mapped files and shared memory (`RssFile` + `RssShmem`): the
    /// binary, its libraries and the journal file SQLite maps. The system can drop them
    /// and read them back. Windows gives no such figure for a whole process.
    pub file: Option<u64>,
}

impl Memory {
    /// This process's memory now.
    #[cfg(not(windows))]
    pub fn now() -> anyhow::Result<Memory> {
        let status = std::fs::read_to_string("/proc/self/status")
            .context("memory is read from /proc/self/status, which this system lacks")?;
        let kib = |name: &str| -> anyhow::Result<u64> {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
                .map(|kib| kib * 1024)
                .with_context(|| format!("no {name} line in /proc/self/status"))
        };
        Ok(Memory {
            resident: kib("VmRSS")?,
            private: kib("RssAnon")?,
            file: Some(kib("RssFile")? + kib("RssShmem")?),
        })
    }

    /// This process's memory now.
    #[cfg(windows)]
    pub fn now() -> anyhow::Result<Memory> {
        use windows_sys::Win32::System::ProcessStatus::{
            GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS, PROCESS_MEMORY_COUNTERS_EX,
        };
        use windows_sys::Win32::System::Threading::GetCurrentProcess;
        // SAFETY: all-zero is a valid PROCESS_MEMORY_COUNTERS_EX (plain integers).
        let mut counters: PROCESS_MEMORY_COUNTERS_EX = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS_EX>() as u32;
        counters.cb = size;
        // SAFETY: the pseudo-handle of this process needs no closing, and the call
        // writes at most `size` bytes into `counters`, which the _EX form extends.
        let ok = unsafe {
            GetProcessMemoryInfo(
                GetCurrentProcess(),
                (&raw mut counters).cast::<PROCESS_MEMORY_COUNTERS>(),
                size,
            )
        };
        anyhow::ensure!(
            ok != 0,
            "GetProcessMemoryInfo failed: {}",
            std::io::Error::last_os_error()
        );
        Ok(Memory {
            resident: counters.WorkingSetSize as u64,
            private: counters.PrivateUsage as u64,
            file: None,
        })
    }
}

/// This process's resident memory ([`Memory::resident`]).
pub fn resident_bytes() -> anyhow::Result<u64> {
    Memory::now().map(|m| m.resident)
}

/// What a frame drew, as far as the report cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawn {
    /// The journal screen with its first page: that many rows.
    JournalRows(usize),
    Other,
}

/// What the app tells the report after each frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub drawn: Drawn,
    /// Entries loaded into the journal's list so far.
    pub rows_loaded: usize,
    /// The journal's list was last drawn with its last entry in view, every entry loaded.
    pub list_at_end: bool,
    /// The last question asked has its answer, or its failure: whether it was answered.
    pub answered: Option<bool>,
}

/// What the app is to do for the report: a step of the exercise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Show this screen.
    Show(View),
    /// Show the journal; its list gets the mouse wheel ([`LaunchReport::wheel`]) until
    /// the report has seen its end.
    Scroll,
    /// Ask this on the Ask screen.
    Ask(String),
}

/// What `--report-startup` does after its startup line ([the module](self)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exercise {
    pub scroll: bool,
    pub views: usize,
    pub ask: Option<String>,
}

impl Exercise {
    /// The steps in their order.
    fn steps(&self) -> VecDeque<Step> {
        let scroll = self.scroll.then_some(Step::Scroll);
        let views = (0..self.views).map(|i| Step::Show(View::ALL[i % View::ALL.len()]));
        let ask = self.ask.clone().map(Step::Ask);
        scroll.into_iter().chain(views).chain(ask).collect()
    }

    fn is_empty(&self) -> bool {
        *self == Exercise::default()
    }
}

/// Longest a step may take before the report gives up on it and says so (a list that
/// never reaches its end, an answer that never comes).
const STEP_PATIENCE: Duration = Duration::from_secs(120);
/// Pages the mouse wheel is turned by in each frame of the scroll.
const WHEEL_PAGES_PER_FRAME: f32 = 40.0;

/// The report's state across frames, owned by the app when `--report-startup` is given.
pub struct LaunchReport {
    renderer: String,
    exercise: Exercise,
    /// Steps not started yet.
    todo: VecDeque<Step>,
    /// The step under way: when it started and the frames drawn since.
    current: Option<(Step, Instant, u32)>,
    switches_done: usize,
    scrolled_rows: Option<usize>,
    answered: Option<bool>,
    frames: u64,
    first_frame: Option<Duration>,
    previous: Option<Drawn>,
    printed: bool,
    closing: bool,
}

impl LaunchReport {
    pub fn new(renderer: String, exercise: Exercise) -> LaunchReport {
        LaunchReport {
            renderer,
            todo: exercise.steps(),
            exercise,
            current: None,
            switches_done: 0,
            scrolled_rows: None,
            answered: None,
            frames: 0,
            first_frame: None,
            previous: None,
            printed: false,
            closing: false,
        }
    }

    /// Called at the end of every frame with the instant the frame began (so after the
    /// previous one was painted) and what it showed; returns a step for the app to take.
    pub fn after_frame(&mut self, ctx: &egui::Context, began: Instant, seen: Seen) -> Option<Step> {
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
        let previous = self.previous.replace(seen.drawn);
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
            if !self.printed || !self.exercise.is_empty() {
                return None;
            }
        } else if !self.current_step_done(seen) {
            return None;
        }
        if let Some(step) = self.todo.pop_front() {
            self.current = Some((step.clone(), Instant::now(), 0));
            return Some(step);
        }
        if !self.exercise.is_empty() {
            self.print_exercised();
        }
        self.closing = true;
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        None
    }

    /// Whether the step under way (if any) has been shown long enough and done what it
    /// was for; a step past [`STEP_PATIENCE`] is given up on.
    fn current_step_done(&mut self, seen: Seen) -> bool {
        let Some((step, since, frames)) = &mut self.current else {
            return true;
        };
        *frames += 1;
        let shown = *frames >= FRAMES_PER_VIEW && since.elapsed() >= TIME_PER_VIEW;
        let given_up = since.elapsed() > STEP_PATIENCE;
        let done = match step {
            Step::Show(_) => shown,
            Step::Scroll => shown && seen.list_at_end,
            Step::Ask(_) => shown && seen.answered.is_some(),
        };
        if !done && !given_up {
            return false;
        }
        match step {
            Step::Show(_) => self.switches_done += 1,
            Step::Scroll => {
                if !done {
                    eprintln!("error: the list's end was not reached in {STEP_PATIENCE:?}");
                }
                self.scrolled_rows = Some(seen.rows_loaded);
            }
            Step::Ask(_) => self.answered = Some(seen.answered == Some(true)),
        }
        self.current = None;
        true
    }

    /// The mouse wheel's turn for this frame while the list is being scrolled: where the
    /// pointer rests and the events to give egui.
    pub fn wheel(&self, list: egui::Rect) -> Option<[egui::Event; 2]> {
        let scrolling = matches!(self.current, Some((Step::Scroll, ..)));
        scrolling.then(|| {
            [
                egui::Event::PointerMoved(list.center()),
                egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Page,
                    delta: egui::vec2(0.0, -WHEEL_PAGES_PER_FRAME),
                    modifiers: egui::Modifiers::NONE,
                },
            ]
        })
    }

    fn print_exercised(&self) {
        match Memory::now() {
            Ok(memory) => println!(
                "{}",
                ViewsLine {
                    switches: self.switches_done,
                    scrolled_rows: self.scrolled_rows,
                    answered: self.answered,
                    memory,
                }
            ),
            Err(e) => eprintln!("error: no memory to report: {e:#}"),
        }
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

/// The `views …` line: what the exercise did, and the memory after it.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewsLine {
    pub switches: usize,
    /// Entries loaded when the scroll ended (`--exercise-scroll`).
    pub scrolled_rows: Option<usize>,
    /// Whether the question was answered (`--exercise-ask`); `false` when it failed.
    pub answered: Option<bool>,
    pub memory: Memory,
}

impl fmt::Display for ViewsLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "views switches={}", self.switches)?;
        if let Some(rows) = self.scrolled_rows {
            write!(f, " scrolled_rows={rows}")?;
        }
        if let Some(answered) = self.answered {
            write!(f, " answered={}", if answered { "yes" } else { "no" })?;
        }
        let Memory {
            resident,
            private,
            file,
        } = self.memory;
        write!(f, " rss_bytes={resident} private_bytes={private}")?;
        if let Some(file) = file {
            write!(f, " file_bytes={file}")?;
        }
        Ok(())
    }
}

impl ViewsLine {
    pub fn parse(line: &str) -> anyhow::Result<ViewsLine> {
        let fields = line
            .strip_prefix("views ")
            .with_context(|| format!("not a views line: {line:?}"))?;
        let number = |name: &str| field(fields, name, line);
        let answered = fields
            .split_whitespace()
            .find_map(|f| f.strip_prefix("answered="))
            .map(|a| a == "yes");
        Ok(ViewsLine {
            switches: number("switches")? as usize,
            scrolled_rows: number("scrolled_rows").ok().map(|n| n as usize),
            answered,
            memory: Memory {
                resident: number("rss_bytes")? as u64,
                private: number("private_bytes")? as u64,
                file: number("file_bytes").ok().map(|n| n as u64),
            },
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
        let memory = Memory {
            resident: 148_897_792,
            private: 61_046_784,
            file: Some(87_851_008),
        };
        let views = ViewsLine {
            switches: 50,
            scrolled_rows: Some(50_000),
            answered: Some(true),
            memory,
        };
        assert_eq!(ViewsLine::parse(&views.to_string()).unwrap(), views);
        let on_windows = ViewsLine {
            scrolled_rows: None,
            answered: Some(false),
            memory: Memory { file: None, ..memory },
            ..views
        };
        assert_eq!(ViewsLine::parse(&on_windows.to_string()).unwrap(), on_windows);
        assert!(StartupLine::parse("startup first_frame_ms=1").is_err());
        assert!(ViewsLine::parse("views switches=50 rss_bytes=1").is_err());
    }

    #[test]
    fn this_process_memory_is_split_as_the_system_shows_it() {
        let memory = Memory::now().unwrap();
        assert!(
            memory.private > 0 && memory.private <= memory.resident,
            "{memory:?}"
        );
        if let Some(file) = memory.file {
            assert!(file > 0 && memory.private + file <= memory.resident, "{memory:?}");
        }
    }

    #[test]
    fn the_exercise_scrolls_then_switches_then_asks() {
        let exercise = Exercise {
            scroll: true,
            views: 9,
            ask: Some("How did I sleep?".to_owned()),
        };
        let steps: Vec<Step> = exercise.steps().into();
        assert_eq!(steps.len(), 11);
        assert_eq!(steps[0], Step::Scroll);
        assert_eq!(steps[1], Step::Show(View::ALL[0]));
        assert_eq!(steps[1 + View::ALL.len()], Step::Show(View::ALL[0]));
        assert_eq!(steps[10], Step::Ask("How did I sleep?".to_owned()));
        assert!(Exercise::default().steps().is_empty());
    }

    #[test]
    fn this_process_started_before_main_asked() {
        if cfg!(target_os = "linux") {
            let gap = exec_to_now().expect("/proc says when this process started");
            assert!(gap < Duration::from_secs(3600), "{gap:?}");
        }
    }
}
