//! The window: owns the view state, talks to the worker, never to the database.

use anyhow::Result;

use crate::cli::{self, Args};
use crate::views::journal::JournalView;
use crate::worker::{Request, Response, Worker};

pub fn run(args: &Args) -> Result<()> {
    let path = cli::database_path(args)?;
    let options = cli::storage_options(args);
    let demo = args.demo;
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
            let worker = Worker::spawn(path, options, cc.egui_ctx.clone());
            Ok(Box::new(MindSageApp::new(worker, demo)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("the window could not be opened: {e}"))
}

/// The window and taskbar icon, compiled in so the app needs no files beside it.
fn app_icon() -> egui::IconData {
    eframe::icon_data::from_png_bytes(include_bytes!("../../assets/icon.png")).unwrap_or_default()
}

pub struct MindSageApp {
    worker: Worker,
    journal: JournalView,
    /// Set when the journal could not be opened: the window explains instead of listing.
    open_error: Option<String>,
    /// The last failure of a request, shown until the next success.
    status: Option<String>,
}

impl MindSageApp {
    pub fn new(worker: Worker, demo: bool) -> MindSageApp {
        if demo {
            worker.send(Request::DemoIfEmpty);
        }
        let mut journal = JournalView::default();
        journal.reload(&worker);
        MindSageApp {
            worker,
            journal,
            open_error: None,
            status: None,
        }
    }

    fn handle_responses(&mut self) {
        let responses: Vec<Response> = self.worker.drain().collect();
        for response in responses {
            match response {
                Response::OpenFailed(message) => self.open_error = Some(message),
                Response::Failed(message) => self.status = Some(message),
                Response::Seeded(report) => {
                    self.status = Some(format!("Added {} demo entries.", report.entries));
                    self.journal.reload(&self.worker);
                }
                other => self.journal.on_response(other),
            }
        }
    }
}

impl eframe::App for MindSageApp {
    fn update(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.handle_responses();
        egui::TopBottomPanel::top("top_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.heading("MindSage");
                ui.separator();
                ui.label(self.journal.summary_line());
                if let Some(status) = &self.status {
                    ui.separator();
                    ui.label(status);
                }
            });
        });
        if let Some(message) = &self.open_error {
            egui::CentralPanel::default().show(ctx, |ui| {
                ui.heading("The journal could not be opened");
                ui.label(message);
                ui.label("Nothing was changed. Choose another data folder with --data-dir.");
            });
            return;
        }
        self.journal.show(ctx, &self.worker);
    }
}
