//! The window: owns the views, routes the worker's answers, handles shortcuts and the
//! profiler overlay. Never touches the database (see [`crate::worker`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use egui::{Key, KeyboardShortcut, Modifiers, RichText};

use mindsage_core::db::EntryId;
use mindsage_core::settings::Settings;

use crate::assistant::ai_settings;
use crate::cli::{self, Args};
use crate::launch_report::{Drawn, LaunchReport};
use crate::overlay::{FrameTimes, Overlay};
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
    pub data_dir: PathBuf,
}

impl Startup {
    /// A plain start on `view` with default settings: what tests and the bench open.
    pub fn on_view(data_dir: PathBuf, view: View) -> Startup {
        Startup {
            demo: false,
            view,
            entry: None,
            profiler: false,
            settings: Settings::default(),
            data_dir,
        }
    }
}

pub fn run(args: &Args) -> Result<()> {
    let path = cli::database_path(args)?;
    let data_dir = path.parent().map(PathBuf::from).unwrap_or_default();
    let settings = Settings::load(&data_dir);
    let mut options = cli::storage_options(args);
    if args.mmap_size.is_none() {
        options.mmap_size = settings.mmap_size;
    }
    let report = args.report_startup.then_some(args.exercise_views.unwrap_or(0));
    let startup = Startup {
        demo: args.demo,
        view: args.view.unwrap_or_default(),
        entry: args.entry,
        profiler: args.profiler,
        settings,
        data_dir,
    };
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

pub struct MindSageApp {
    worker: Worker,
    view: View,
    journal: JournalView,
    dashboard: DashboardView,
    gallery: GalleryView,
    ask: AskView,
    settings: SettingsView,
    overlay: Overlay,
    frames: FrameTimes,
    /// Set when the journal could not be opened: the window explains instead of listing.
    open_error: Option<String>,
    /// The last outcome worth telling (a failure, photos added), until the next one.
    status: Option<String>,
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
        let mut journal = JournalView::default();
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
            settings: SettingsView::new(startup.settings, startup.data_dir),
            overlay,
            frames: FrameTimes::default(),
            open_error: None,
            status: None,
            launch_report: None,
        }
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
                Response::Failed(message) => {
                    self.status = Some(message);
                    self.journal
                        .on_response(Response::Failed(String::new()), &self.worker);
                }
                Response::Seeded(report) => {
                    self.status = Some(format!("Added {} demo entries.", report.entries));
                    self.journal.reload(&self.worker);
                    self.dashboard.mark_stale();
                    self.gallery.mark_stale();
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
                Response::Created(_)
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
        self.shortcuts(ctx);
        self.dropped_photos(ctx);
        self.top_bar(ctx);
        self.status_bar(ctx);
        self.central(ctx);
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
