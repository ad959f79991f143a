//! The window: owns the views, routes the worker's answers, handles shortcuts and the
//! profiler overlay. Never touches the database (see [`crate::worker`]).
//!
//! Closing saves first. A close request (the window's close button, Alt+F4, a window
//! manager's close) or SIGINT/SIGTERM/SIGHUP is answered by cancelling the close, saving
//! the editor's pending edits at once, and a [`Request::Flush`] through the writer; the
//! window shows "Saving before closing…" and closes when both have answered, or after
//! [`CLOSE_PATIENCE`] with the unsaved text kept as a draft file. The UI thread waits on
//! none of it. Windows' end-of-session messages (`WM_QUERYENDSESSION`, `WM_ENDSESSION`)
//! are not covered: winit 0.30 handles neither and forwards no event for them, so at a
//! log-off the last edits since the typing pause can still be lost there.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use egui::{Key, KeyboardShortcut, Modifiers, RichText};

use mindsage_core::db::EntryId;
use mindsage_core::settings::Settings;

use crate::assistant::ai_settings;
use crate::cli::{self, Args};
use crate::launch_report::{Drawn, LaunchReport};
use crate::overlay::{FrameTimes, Overlay};
use crate::queue::QueueBar;
use crate::views::View;
use crate::views::ask::AskView;
use crate::views::dashboard::DashboardView;
use crate::views::gallery::GalleryView;
use crate::views::journal::JournalView;
use crate::views::settings::{SettingsView, apply_theme};
use crate::worker::{Request, Response, Worker};

/// How the window starts.
pub struct Startup {
    /// Fill an empty journal with demo entries.
    pub demo: bool,
    pub view: View,
    /// An entry to open in the journal.
    pub entry: Option<EntryId>,
    /// Open the profiler overlay.
    pub profiler: bool,
    pub settings: Settings,
    /// Why the settings file could not be used (defaults are in force), if it could not.
    pub settings_damaged: Option<String>,
    pub data_dir: PathBuf,
}

impl Startup {
    /// A plain start on `view` with the data folder's settings (defaults when it has
    /// none): what tests and the bench open.
    pub fn on_view(data_dir: PathBuf, view: View) -> Startup {
        let (settings, settings_damaged) = match Settings::load(&data_dir) {
            Ok(settings) => (settings, None),
            Err(e) => (Settings::default(), Some(e.to_string())),
        };
        Startup {
            demo: false,
            view,
            entry: None,
            profiler: false,
            settings,
            settings_damaged,
            data_dir,
        }
    }
}

/// Set by SIGINT, SIGTERM or SIGHUP (Ctrl+C in the terminal that started the app, a
/// shutdown): the window then saves and closes as on a close request.
static STOP_SIGNALLED: AtomicBool = AtomicBool::new(false);

pub fn run(args: &Args) -> Result<()> {
    let path = cli::database_path(args)?;
    let data_dir = path.parent().map(PathBuf::from).unwrap_or_default();
    let mut startup = Startup::on_view(data_dir, args.view.unwrap_or_default());
    startup.demo = args.demo;
    startup.entry = args.entry;
    startup.profiler = args.profiler;
    let mut options = cli::storage_options(args);
    if args.mmap_size.is_none() {
        options.mmap_size = startup.settings.mmap_size;
    }
    let exit_after = args.exit_after;
    let report = args.report_startup.then_some(args.exercise_views.unwrap_or(0));
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("MindSage")
            .with_inner_size([1100.0, 720.0])
            .with_min_inner_size([640.0, 420.0])
            .with_icon(app_icon()),
        ..Default::default()
    };
    eframe::run_native(
        "MindSage",
        native,
        Box::new(move |cc| {
            if let Some(seconds) = exit_after {
                close_after(cc.egui_ctx.clone(), seconds);
            }
            let repaint = cc.egui_ctx.clone();
            let handler = ctrlc::set_handler(move || {
                STOP_SIGNALLED.store(true, Ordering::SeqCst);
                repaint.request_repaint();
            });
            if let Err(error) = handler {
                tracing::warn!(%error, "no signal handler: Ctrl+C ends the app without saving first");
            }
            let ai = ai_settings(&startup.settings);
            let worker = Worker::spawn(path, options, ai, cc.egui_ctx.clone());
            let mut app = MindSageApp::new(&cc.egui_ctx, worker, startup);
            if let Some(exercise_views) = report {
                let renderer = cc
                    .gl
                    .as_deref()
                    .map_or_else(String::new, crate::launch_report::renderer_of);
                app.launch_report = Some(LaunchReport::new(renderer, exercise_views));
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("the window could not be opened: {e}"))
}

/// Sends the window a close request after `seconds` (`--exit-after`), from a thread of
/// its own so the UI thread never waits; the app then closes as on its close button.
fn close_after(ctx: egui::Context, seconds: f64) {
    let wait = std::time::Duration::try_from_secs_f64(seconds).unwrap_or_default();
    std::thread::spawn(move || {
        std::thread::sleep(wait);
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        ctx.request_repaint();
    });
}

/// The window and taskbar icon, compiled in so the app needs no files beside it.
fn app_icon() -> egui::IconData {
    eframe::icon_data::from_png_bytes(include_bytes!("../../assets/icon.png")).unwrap_or_default()
}

const NEW_ENTRY: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::N);
const FIND: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::F);
const TOGGLE_THEME: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::L);
const OVERLAY: KeyboardShortcut = KeyboardShortcut::new(Modifiers::NONE, Key::F12);
const VIEW_KEYS: [Key; 5] = [Key::Num1, Key::Num2, Key::Num3, Key::Num4, Key::Num5];

/// Longest a close waits for the last saves before the window closes anyway (their text
/// then kept as a draft file): a stuck disk must not keep the window open for ever.
const CLOSE_PATIENCE: Duration = Duration::from_secs(10);

/// Where the window is on its way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    Open,
    /// A close was asked for; the last saves are on their way.
    Saving {
        since: Instant,
        flushed: bool,
    },
    /// The close was sent to the window.
    Closed,
}

pub struct MindSageApp {
    worker: Worker,
    view: View,
    journal: JournalView,
    dashboard: DashboardView,
    gallery: GalleryView,
    ask: AskView,
    settings: SettingsView,
    overlay: Overlay,
    queue: QueueBar,
    frames: FrameTimes,
    /// Set when the journal could not be opened: the window explains instead of listing.
    open_error: Option<String>,
    /// The last outcome worth telling (a failure, photos added), until the next one.
    status: Option<String>,
    /// Set when a worker thread died: what stopped and where the unsaved text is.
    stopped: Option<String>,
    closing: Closing,
    /// Whether the model's background work was told to start (see [`Request::StartModelWork`]).
    model_work_started: bool,
    /// `--report-startup`: times the first frames, then closes the window.
    launch_report: Option<LaunchReport>,
}

impl MindSageApp {
    pub fn new(ctx: &egui::Context, worker: Worker, startup: Startup) -> MindSageApp {
        // From here on a query on this thread fails a debug assertion.
        mindsage_core::timing::forbid_blocking_on_this_thread();
        apply_theme(ctx, startup.settings.theme);
        if startup.demo {
            worker.send(Request::DemoIfEmpty);
        }
        let mut journal = JournalView::new(startup.data_dir.join(crate::views::editor::DRAFTS_DIR));
        journal.reload(&worker);
        if let Some(id) = startup.entry {
            journal.open(id, &worker);
        }
        let mut overlay = Overlay::default();
        if startup.profiler {
            overlay.toggle();
        }
        MindSageApp {
            worker,
            view: startup.view,
            journal,
            dashboard: DashboardView::default(),
            gallery: GalleryView::default(),
            ask: AskView::default(),
            status: startup.settings_damaged.clone(),
            settings: SettingsView::new(startup.settings, startup.data_dir, startup.settings_damaged),
            overlay,
            queue: QueueBar::default(),
            frames: FrameTimes::default(),
            open_error: None,
            stopped: None,
            closing: Closing::Open,
            model_work_started: false,
            launch_report: None,
        }
    }

    /// Whether the window has saved everything and told the window system to close.
    pub fn closed(&self) -> bool {
        self.closing == Closing::Closed
    }

    /// The worker, for tests that send it faults ([`crate::worker::Fault`]).
    #[doc(hidden)]
    pub fn worker(&self) -> &Worker {
        &self.worker
    }

    /// The screen on show.
    pub fn view(&self) -> View {
        self.view
    }

    /// Journal rows fetched so far (the bench waits for the first page).
    pub fn journal_rows(&self) -> usize {
        self.journal.rows_loaded()
    }

    pub fn overlay_open(&self) -> bool {
        self.overlay.is_open()
    }

    /// Asks a question as the Ask screen's Send button does (the bench times the frames
    /// drawn while its answer streams).
    pub fn ask(&mut self, question: &str) {
        self.view = View::Ask;
        self.ask.ask(question, &self.worker);
    }

    /// The last Ask answer as shown so far (or why it failed), and whether it is still
    /// streaming.
    pub fn last_answer(&self) -> Option<(Result<&str, &str>, bool)> {
        self.ask.last_answer()
    }

    /// CPU time per frame, recorded whether or not the overlay shows it (the bench reads it).
    pub fn frame_times(&mut self) -> &mut FrameTimes {
        &mut self.frames
    }

    fn handle_responses(&mut self, ctx: &egui::Context) {
        let responses: Vec<Response> = self.worker.drain().collect();
        for response in responses {
            match response {
                Response::OpenFailed(message) => self.open_error = Some(message),
                Response::Failed(message) => self.status = Some(message),
                Response::CreateFailed { draft, message } => {
                    self.status = Some(
                        self.journal
                            .on_create_failed(draft, message.clone())
                            .unwrap_or(message),
                    );
                }
                Response::UpdateFailed { ref message, .. } => {
                    self.status = Some(message.clone());
                    self.journal.on_response(response, &self.worker);
                }
                Response::Flushed => {
                    if let Closing::Saving { flushed, .. } = &mut self.closing {
                        *flushed = true;
                    }
                }
                Response::ThreadStopped { what, saving } => self.thread_stopped(what, saving),
                Response::Seeded(report) => {
                    self.status = Some(format!("Added {} demo entries.", report.entries));
                    self.journal.reload(&self.worker);
                    self.dashboard.mark_stale();
                    self.gallery.mark_stale();
                }
                Response::Queue(status) => {
                    if let Some(id) = status.enriched_entry {
                        self.journal.on_enriched(id, &self.worker);
                    }
                    self.queue.on_status(status);
                }
                Response::Dashboard { .. } => self.dashboard.on_response(response),
                Response::Thumbnails { .. } => self.gallery.on_response(ctx, response),
                Response::PhotosAdded { added, failures, .. } => {
                    let mut message = format!("Added {added} photo{}.", if added == 1 { "" } else { "s" });
                    for failure in failures {
                        message.push_str(&format!(" Not added: {failure}."));
                    }
                    self.status = Some(message);
                    self.gallery.mark_stale();
                }
                Response::Pragmas(_) | Response::SettingsSaved => self.settings.on_response(response),
                Response::Health(status) => {
                    self.settings.on_response(Response::Health(status.clone()));
                    self.ask.on_response(Response::Health(status), &self.worker);
                }
                Response::Ask(_) | Response::Chats(_) | Response::ChatMessages(_) | Response::ChatSaved => {
                    self.ask.on_response(response, &self.worker)
                }
                Response::Created { .. }
                | Response::Saved(_)
                | Response::Trashed(_)
                | Response::Restored(_)
                | Response::Purged(_) => {
                    self.dashboard.mark_stale();
                    self.gallery.mark_stale();
                    self.journal.on_response(response, &self.worker);
                }
                other => self.journal.on_response(other, &self.worker),
            }
        }
    }

    /// A worker thread died: say so, once per death, and if saves went through it, keep
    /// the unsaved text as files and stop the editor saving into the void.
    fn thread_stopped(&mut self, what: &str, saving: bool) {
        if self.stopped.is_some() {
            return;
        }
        let kept = if saving {
            self.journal.halt_and_keep()
        } else {
            Vec::new()
        };
        let mut message = format!("Something went wrong inside MindSage: {what} stopped. ");
        if !saving {
            message.push_str("Your entries are still saved as you type.");
        } else if kept.is_empty() {
            message.push_str("Nothing you typed was waiting to be saved.");
        } else {
            message.push_str(&format!(
                "Your unsaved text stays in the editor and is kept in {}.",
                kept.join(", ")
            ));
        }
        self.stopped = Some(message);
    }

    /// Starts the worker threads again after one died; the editor saves what is pending.
    fn restart(&mut self) {
        self.worker.restart();
        self.model_work_started = false;
        self.stopped = None;
        self.journal.resume(&self.worker);
        self.dashboard.mark_stale();
        self.gallery.mark_stale();
    }

    /// Lets the model's background work start once the screen has drawn what the person
    /// opened the app for (the journal's first rows), not before.
    fn start_model_work(&mut self) {
        let waiting_for_rows = self.view == View::Journal && self.journal.page_pending();
        if !self.model_work_started && !waiting_for_rows {
            self.worker.send(Request::StartModelWork);
            self.model_work_started = true;
        }
    }

    /// Follows a close request or a stop signal through saving to closing.
    fn closing(&mut self, ctx: &egui::Context) {
        let requested =
            ctx.input(|i| i.viewport().close_requested()) || STOP_SIGNALLED.load(Ordering::SeqCst);
        match self.closing {
            Closing::Closed => return,
            Closing::Open if !requested => return,
            Closing::Open => {
                self.journal.save_now(&self.worker);
                self.worker.send(Request::Flush);
                self.closing = Closing::Saving {
                    since: Instant::now(),
                    flushed: false,
                };
            }
            Closing::Saving { since, flushed } => {
                let saved = flushed && self.journal.all_saved();
                let give_up = since.elapsed() >= CLOSE_PATIENCE || self.journal.saving_halted();
                if saved || give_up {
                    if !saved {
                        // The threads are stuck or gone: the text leaves as a draft file.
                        let kept = self.journal.halt_and_keep();
                        tracing::warn!(?kept, "closed before the last saves were answered");
                    }
                    self.closing = Closing::Closed;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    return;
                }
            }
        }
        if requested {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
        ctx.request_repaint_after(Duration::from_millis(20));
    }

    fn closing_notice(&self, ctx: &egui::Context) {
        if let Closing::Saving { .. } = self.closing {
            egui::Modal::new(egui::Id::new("closing")).show(ctx, |ui| {
                ui.label("Saving before closing…");
            });
        }
    }

    /// The banner that says a thread died, with the way to start it again.
    fn stopped_banner(&mut self, ctx: &egui::Context) {
        let Some(message) = &self.stopped else {
            return;
        };
        let mut restart = false;
        egui::TopBottomPanel::top("stopped").show(ctx, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(message).strong().color(ui.visuals().error_fg_color));
                restart = ui.button("Restart").clicked();
            });
        });
        if restart {
            self.restart();
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        let pressed = |shortcut| ctx.input_mut(|i| i.consume_shortcut(&shortcut));
        if pressed(OVERLAY) {
            self.overlay.toggle();
        }
        if pressed(NEW_ENTRY) {
            self.view = View::Journal;
            self.journal.new_entry(&self.worker);
        }
        if pressed(FIND) {
            self.view = View::Journal;
            self.journal.focus_search();
        }
        if pressed(TOGGLE_THEME) {
            self.settings.toggle_theme(ctx, &self.worker);
        }
        for (view, key) in View::ALL.into_iter().zip(VIEW_KEYS) {
            if pressed(KeyboardShortcut::new(Modifiers::COMMAND, key)) {
                self.view = view;
            }
        }
    }

    /// Photos dropped on the window go to the entry open in the journal.
    fn dropped_photos(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .filter_map(|f| f.path.clone())
                .collect()
        });
        if dropped.is_empty() {
            return;
        }
        match self.journal.entry_id() {
            Some(entry) => self.worker.send(Request::AttachPhotos {
                entry,
                paths: dropped,
            }),
            None => {
                self.status =
                    Some("Open an entry first: dropped photos are added to the open entry.".to_owned())
            }
        }
    }

    fn top_bar(&mut self, ctx: &egui::Context) {
        egui::TopBottomPanel::top("top_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.heading("MindSage");
                ui.separator();
                for (index, view) in View::ALL.into_iter().enumerate() {
                    let tab = ui.selectable_label(self.view == view, view.title());
                    if tab.on_hover_text(format!("Ctrl+{}", index + 1)).clicked() {
                        self.view = view;
                    }
                }
                ui.separator();
                ui.menu_button("Menu", |ui| {
                    if ui.button("New entry (Ctrl+N)").clicked() {
                        self.view = View::Journal;
                        self.journal.new_entry(&self.worker);
                    }
                    if ui.button("Light or dark theme (Ctrl+Shift+L)").clicked() {
                        self.settings.toggle_theme(ctx, &self.worker);
                    }
                    let label = if self.overlay.is_open() {
                        "Hide profiler (F12)"
                    } else {
                        "Show profiler (F12)"
                    };
                    if ui.button(label).clicked() {
                        self.overlay.toggle();
                    }
                });
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(RichText::new(self.journal.summary_line()).weak());
                });
            });
        });
    }

    fn status_bar(&mut self, ctx: &egui::Context) {
        let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
        if self.status.is_none() && !hovering {
            return;
        }
        egui::TopBottomPanel::bottom("status_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                if hovering {
                    ui.label(RichText::new("Drop photos to add them to the open entry.").strong());
                } else if let Some(status) = &self.status {
                    ui.label(status);
                    if ui.small_button("Dismiss").clicked() {
                        self.status = None;
                    }
                }
            });
        });
    }

    fn central(&mut self, ctx: &egui::Context) {
        if let Some(message) = &self.open_error {
            egui::CentralPanel::default().show(ctx, |ui| {
                ui.heading("The journal could not be opened");
                ui.label(message);
                ui.label("Nothing was changed. Choose another data folder with --data-dir.");
            });
            return;
        }
        let open = match self.view {
            View::Journal => {
                self.journal.show(ctx, &self.worker);
                None
            }
            View::Dashboard => self.dashboard.show(ctx, &self.worker),
            View::Gallery => self.gallery.show(ctx, &self.worker, self.journal.entry_id()),
            View::Ask => self.ask.show(ctx, &self.worker),
            View::Settings => {
                self.settings.show(ctx, &self.worker);
                None
            }
        };
        if let Some(id) = open {
            self.view = View::Journal;
            self.journal.open(id, &self.worker);
        }
    }
}

impl eframe::App for MindSageApp {
    fn update(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.ui(ctx);
    }
}

impl MindSageApp {
    /// One frame of the whole window. eframe calls it through `update`; the bench calls
    /// it directly on a headless context to measure frames without a GPU.
    pub fn ui(&mut self, ctx: &egui::Context) {
        let started = Instant::now();
        self.overlay.begin_frame();
        puffin::profile_function!();
        self.handle_responses(ctx);
        self.closing(ctx);
        self.shortcuts(ctx);
        self.dropped_photos(ctx);
        self.top_bar(ctx);
        if let Some(paused) = self.queue.ui(ctx) {
            self.worker.send(Request::PauseQueue(paused));
        }
        self.stopped_banner(ctx);
        self.status_bar(ctx);
        self.central(ctx);
        self.start_model_work();
        self.journal.tick(ctx, &self.worker);
        self.closing_notice(ctx);
        self.overlay.show(ctx, &mut self.frames, self.ask.last_stages());
        self.frames.record(started.elapsed());
        if let Some(report) = &mut self.launch_report {
            let drawn = match self.view {
                View::Journal if !self.journal.page_pending() => {
                    Drawn::JournalRows(self.journal.rows_loaded())
                }
                _ => Drawn::Other,
            };
            if let Some(view) = report.after_frame(ctx, started, drawn) {
                self.view = view;
            }
        }
    }
}
