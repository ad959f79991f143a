//! The `app` stage: the desktop app's frames and startup, measured on the real window
//! code, headless in this process and as a real window in its own ([`super::window`]).
//!
//! Headless, the app runs its real views, worker threads and journal, driven frame by
//! frame on an `egui::Context` with the window's size, each frame laid out and
//! tessellated (everything the CPU does for a frame; the GPU upload, the window system
//! and the process start are not in these figures). Each measurement runs on a thread
//! of its own, because the app marks its UI thread as one that must never query.
//!
//! * `headless_first_frame`: from starting the worker to the end of the first frame,
//!   and `headless_first_rows`: to the end of the first frame that shows journal rows.
//!   Runs stored before the rename call them `first_frame` and `first_rows`
//!   ([`crate::run::LEGACY_NAMES`]).
//! * `scroll_frame`: CPU time per frame while the journal is scrolled with the wheel,
//!   three screens per second, rows paging in as they come into view.
//! * `stream_frame`: CPU time per frame on the Ask screen while an answer streams in
//!   from the configured model server (`OLLAMA_HOST`), from the first answer text on
//!   screen to the last. The journal's queue of AI work is emptied first, as on a
//!   journal whose entries are all enriched: otherwise the job runner keeps the model
//!   busy and the answer waits behind it. Fails, saying why, without a model server.
//! * `headless_rss_after_view_switches` (formerly `rss_after_view_switches`): resident
//!   memory after 50 switches between all the screens, in a fresh bench process
//!   (Linux; the figure includes the bench's own few MB).
//! * `window_…`: the real window's startup, cold and warm, and its memory after the
//!   same switches; see [`super::window`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use egui::{Event, Key, Modifiers, MouseWheelUnit, Pos2, RawInput, Rect, vec2};

use mindsage::app::{MindSageApp, Startup};
use mindsage::backend::Backend;
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::{self, StorageOptions};

use super::window::{bytes, timing};
use super::{Recorder, Stage, StageContext};

/// The window's default size.
const WINDOW: [f32; 2] = [1100.0, 720.0];
/// Startups measured per size.
const STARTUPS: usize = 5;
/// Frames measured while scrolling.
const SCROLL_FRAMES: usize = 300;
/// Longest wait for the worker's first page.
const PATIENCE: Duration = Duration::from_secs(30);
/// Questions whose answers stream while frames are measured: about the writer's life,
/// so the only model call is the streamed answer itself. Every bench journal answers
/// them from its entries: no relative dates, since the journals are seeded on fixed
/// dates, and a question about "last week" finds nothing there, which Ask answers
/// plainly in one piece without the model (`full-dec01` failed so).
const STREAM_QUESTIONS: &[&str] = &[
    "How have I been feeling lately?",
    "What did I write about my work?",
];
/// Longest wait for one answer to finish streaming (a small model on a busy CPU).
const ANSWER_PATIENCE: Duration = Duration::from_secs(120);
/// Frames in which new answer text must have arrived for the figure to be one of
/// streaming, not of an answer that came in one piece.
const MIN_GROWING_FRAMES: usize = 10;
/// What the stream questions are answered with when the server is ollama-local: an
/// answer of the length a real model gives, streamed word by word. The stand-in model's
/// own answers run from a few words to paragraphs depending on the entries retrieved,
/// so a figure over them would measure what it chose to say (`full-nov30-c` failed at
/// 50,000 entries on a seven-frame answer). The `ai` stage measures the model itself.
const STREAMED_ANSWER: &str = "Looking back over the last week, your entries move between tired and \
    hopeful. Early in the week you wrote that work felt relentless: the release slipped twice, a \
    migration needed rolling back, and you stayed late to write up what went wrong so the team would not \
    repeat it. You mentioned sleeping badly on two of those nights and feeling short with people you \
    care about. By Thursday the tone changes. The fix went out cleanly, your manager thanked you in the \
    team meeting, and you took the long way home along the river, which you said cleared your head. At \
    the weekend you saw friends, cooked something new, and wrote that you felt more like yourself than \
    you had in a while. If there is a thread running through it, it is that rest and time outside made \
    the hard days easier to carry, and that you noticed it when you gave yourself the chance.";
/// The note of the stream figure when [`STREAMED_ANSWER`] was streamed.
const SCRIPTED_NOTE: &str = "headless: layout and tessellation on the CPU; no GPU upload or \
    window system; answers scripted on ollama-local (a real model's length, word by word)";
/// The note of every other figure, and of the stream figure over a model's own answers.
const HEADLESS_NOTE: &str = "headless: layout and tessellation on the CPU; no GPU upload or window system";

pub struct App;

impl Stage for App {
    fn name(&self) -> &'static str {
        "app"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let window = super::window::Window::open();
        for &size in &ctx.sizes {
            let cached = super::db::cached_journal(size)?;
            let work = tempfile::tempdir()?;
            let path = work.path().join("journal.db");
            std::fs::copy(&cached, &path).with_context(|| format!("copying {}", cached.display()))?;
            // Each figure is measured once more when the machine was busy during it.
            out.unit(|out| {
                let startups = on_own_thread(path.clone(), |path| startups(&path));
                let (first_frame, first_rows) = match startups {
                    Ok((frame, rows)) => (Ok(frame), Ok(rows)),
                    Err(e) => (Err(anyhow::anyhow!("{e:#}")), Err(e)),
                };
                out.push(timing(
                    size,
                    "headless_first_frame",
                    first_frame,
                    STARTUPS,
                    HEADLESS_NOTE,
                ));
                out.push(timing(
                    size,
                    "headless_first_rows",
                    first_rows,
                    STARTUPS,
                    HEADLESS_NOTE,
                ));
                Ok(())
            })?;
            out.unit(|out| {
                let scroll = on_own_thread(path.clone(), |path| scroll_frames(&path));
                out.push(timing(size, "scroll_frame", scroll, SCROLL_FRAMES, HEADLESS_NOTE));
                Ok(())
            })?;
            let rss_note =
                "resident memory after 50 switches between all the screens, in a fresh bench process";
            let rss = rss_in_fresh_process(&path);
            out.push(bytes(size, "headless_rss_after_view_switches", rss, rss_note));
            super::window::record(&window, size, &cached, out)?;
            let settings = AiSettings::from_env();
            let scripted = ScriptedAnswers::set(&settings.host);
            let note = if scripted.is_some() {
                SCRIPTED_NOTE
            } else {
                HEADLESS_NOTE
            };
            out.unit(|out| {
                let settings = settings.clone();
                let streamed = without_queued_ai_work(&path)
                    .and_then(|()| on_own_thread(path.clone(), move |path| stream_frames(&path, settings)));
                let frames = streamed.as_ref().map_or(0, Vec::len);
                out.push(timing(size, "stream_frame", streamed, frames, note));
                Ok(())
            })?;
            drop(scripted);
        }
        Ok(())
    }
}

/// Runs `f` on a fresh thread (it becomes the app's UI thread) and returns its result.
pub(super) fn on_own_thread<T: Send + 'static>(
    path: PathBuf,
    f: impl FnOnce(PathBuf) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    std::thread::spawn(move || f(path))
        .join()
        .map_err(|_| anyhow::anyhow!("the app panicked"))?
}

/// The app on a headless context.
pub(super) struct Headless {
    ctx: egui::Context,
    pub(super) app: MindSageApp,
    /// Simulated time, advanced by a 60 Hz frame each frame.
    time: f64,
}

impl Headless {
    /// The app with no model: a port nobody listens on, so the AI thread answers at once.
    fn open(path: &Path, view: View) -> Headless {
        let ai = AiSettings {
            host: "http://127.0.0.1:9".to_owned(),
            ..AiSettings::default()
        };
        Headless::open_with(path, view, ai)
    }

    fn open_with(path: &Path, view: View, ai: AiSettings) -> Headless {
        let data_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Headless::open_as(path, Startup::on_view(data_dir, view), ai)
    }

    /// The app as `startup` opens it, with no model.
    pub(super) fn open_startup(path: &Path, startup: Startup) -> Headless {
        let ai = AiSettings {
            host: "http://127.0.0.1:9".to_owned(),
            ..AiSettings::default()
        };
        Headless::open_as(path, startup, ai)
    }

    fn open_as(path: &Path, startup: Startup, ai: AiSettings) -> Headless {
        let ctx = egui::Context::default();
        let backend = Backend::spawn(
            path.to_path_buf(),
            StorageOptions::default(),
            ai,
            startup.voice_settings(),
            ctx.clone(),
        );
        let app = MindSageApp::new(&ctx, backend, startup);
        Headless { ctx, app, time: 0.0 }
    }

    /// One frame with `events`, laid out and tessellated; returns its CPU time.
    pub(super) fn frame(&mut self, events: Vec<Event>) -> Duration {
        self.time += 1.0 / 60.0;
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, WINDOW.into())),
            time: Some(self.time),
            events,
            ..RawInput::default()
        };
        let started = Instant::now();
        let output = self.ctx.run(input, |ctx| self.app.ui(ctx));
        let primitives = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(primitives);
        started.elapsed()
    }

    /// Frames until the journal shows rows.
    pub(super) fn until_rows(&mut self) -> anyhow::Result<()> {
        let started = Instant::now();
        while self.app.journal_rows() == 0 {
            anyhow::ensure!(started.elapsed() < PATIENCE, "no journal rows after {PATIENCE:?}");
            std::thread::sleep(Duration::from_millis(1));
            self.frame(Vec::new());
        }
        self.frame(Vec::new());
        Ok(())
    }
}

fn startups(path: &Path) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let mut first_frame = Vec::new();
    let mut first_rows = Vec::new();
    for _ in 0..STARTUPS {
        let started = Instant::now();
        let mut app = Headless::open(path, View::Journal);
        app.frame(Vec::new());
        first_frame.push(ms(started.elapsed()));
        app.until_rows()?;
        first_rows.push(ms(started.elapsed()));
    }
    Ok((first_frame, first_rows))
}

fn scroll_frames(path: &Path) -> anyhow::Result<Vec<f64>> {
    let mut app = Headless::open(path, View::Journal);
    app.until_rows()?;
    // The pointer over the list, then the wheel, one notch a frame.
    app.frame(vec![Event::PointerMoved(Pos2::new(180.0, 400.0))]);
    let mut samples = Vec::with_capacity(SCROLL_FRAMES);
    for _ in 0..SCROLL_FRAMES {
        let wheel = Event::MouseWheel {
            unit: MouseWheelUnit::Point,
            delta: vec2(0.0, -36.0),
            modifiers: Modifiers::NONE,
        };
        samples.push(ms(app.frame(vec![wheel])));
        // The rest of a 60 Hz frame, in which the reader answers.
        std::thread::sleep(Duration::from_millis(4));
    }
    // Frames of a list that never moved would flatter the figure.
    anyhow::ensure!(
        app.app.journal_rows() > mindsage_core::db::entries::PAGE_SIZE as usize,
        "the list did not scroll: no page past the first was fetched"
    );
    Ok(samples)
}

/// Empties the journal copy's queue of AI jobs (before the app opens it, so not on its
/// UI thread).
fn without_queued_ai_work(path: &Path) -> anyhow::Result<()> {
    let conn = db::open(path, &StorageOptions::default())?;
    conn.execute("DELETE FROM ai_jobs", [])?;
    Ok(())
}

/// [`STREAMED_ANSWER`] for the stream questions on ollama-local, through its scripted
/// mode, for as long as this lives; the server's other replies are unchanged.
struct ScriptedAnswers {
    host: String,
}

impl ScriptedAnswers {
    /// `None` when the server has no scripted mode (a real Ollama): the model's own
    /// answers are then measured.
    fn set(host: &str) -> Option<ScriptedAnswers> {
        let rules: Vec<_> = STREAM_QUESTIONS
            .iter()
            .map(|q| serde_json::json!({"match": q, "response": STREAMED_ANSWER}))
            .collect();
        post_script(host, &serde_json::json!({ "rules": rules })).then(|| ScriptedAnswers {
            host: host.to_owned(),
        })
    }
}

impl Drop for ScriptedAnswers {
    fn drop(&mut self) {
        post_script(&self.host, &serde_json::json!({ "rules": [] }));
    }
}

/// Replaces ollama-local's script; whether the server took it.
fn post_script(host: &str, script: &serde_json::Value) -> bool {
    let url = format!("{}/__ollama_local/script", host.trim_end_matches('/'));
    let sent = mindsage_core::ai::block_on(async {
        let sent = reqwest::Client::new().post(url).json(script).send().await;
        sent.map_err(|e| mindsage_core::ai::AiError::Http(e.to_string()))
    });
    sent.is_ok_and(|response| response.status().is_success())
}

fn stream_frames(path: &Path, settings: AiSettings) -> anyhow::Result<Vec<f64>> {
    let mut app = Headless::open_with(path, View::Ask, settings);
    app.until_rows()?;
    let mut samples = Vec::new();
    for question in STREAM_QUESTIONS {
        app.app.ask(question);
        let started = Instant::now();
        let (mut shown, mut growing_frames) = (0, 0);
        loop {
            let frame = app.frame(Vec::new());
            let (answer, streaming) = app.app.last_answer().context("the question was not asked")?;
            let text = answer.map_err(|e| anyhow::anyhow!("{question:?}: {e}"))?;
            if !text.is_empty() {
                samples.push(ms(frame));
                if text.len() > shown {
                    shown = text.len();
                    growing_frames += 1;
                }
            }
            if !streaming {
                break;
            }
            anyhow::ensure!(
                started.elapsed() < ANSWER_PATIENCE,
                "{question:?}: no complete answer after {ANSWER_PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(4));
        }
        anyhow::ensure!(
            growing_frames >= MIN_GROWING_FRAMES,
            "{question:?}: the answer arrived in {growing_frames} frames, too few to call it streaming"
        );
    }
    Ok(samples)
}

/// [`rss_after_view_switches`] in a new `mindsage-bench app-rss` process: in this one
/// the figure would include whatever earlier stages left allocated (two runs of the
/// same code differed by tens of MiB that way).
fn rss_in_fresh_process(path: &Path) -> anyhow::Result<u64> {
    let output = std::process::Command::new(std::env::current_exe()?)
        .arg("app-rss")
        .arg(path)
        .output()
        .context("starting mindsage-bench app-rss")?;
    anyhow::ensure!(
        output.status.success(),
        "app-rss failed: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    printed
        .trim()
        .parse()
        .with_context(|| format!("app-rss printed {printed:?}, not a byte count"))
}

pub fn rss_after_view_switches(path: &Path) -> anyhow::Result<u64> {
    let mut app = Headless::open(path, View::Journal);
    app.until_rows()?;
    let keys = [
        Key::Num1,
        Key::Num2,
        Key::Num3,
        Key::Num4,
        Key::Num5,
        Key::Num6,
        Key::Num7,
    ];
    for switch in 0..50 {
        let key = Event::Key {
            key: keys[switch % keys.len()],
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: Modifiers::COMMAND,
        };
        app.frame(vec![key]);
        // A few frames for the screen's data to arrive and be drawn.
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(5));
            app.frame(Vec::new());
        }
    }
    mindsage::launch_report::resident_bytes()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
