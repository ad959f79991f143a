//! Bringing another app's journal in, in the window: a dropped or chosen export is first
//! judged (a dry run: what would be added, what is already here, what cannot be read),
//! the person confirms, then it is written with a progress bar and a Stop button, and
//! the report lists every problem, per entry.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use egui::{RichText, Ui};
use mindsage_core::import::Report;

use super::Action;
use super::recorder::format_duration;
use crate::protocol::Request;
use crate::wording::entries;

/// Where an import is.
#[derive(Debug, Default)]
enum Stage {
    #[default]
    Idle,
    /// The dry run is reading the export.
    Judging {
        path: PathBuf,
    },
    /// The dry run's verdict, waiting for the person.
    Preview {
        path: PathBuf,
        report: Report,
    },
    Writing {
        done: usize,
        total: usize,
        /// Since the import began writing, as of `done`.
        elapsed: Duration,
        cancel: Arc<AtomicBool>,
    },
    Done {
        report: Report,
    },
    Failed {
        message: String,
    },
}

/// The import window's state.
#[derive(Debug, Default)]
pub struct Importer {
    stage: Stage,
}

impl Importer {
    /// The share of the entries written so far, while an import writes.
    pub fn progress(&self) -> Option<f32> {
        match &self.stage {
            Stage::Writing { done, total, .. } => Some(*done as f32 / (*total).max(1) as f32),
            _ => None,
        }
    }

    /// Judges the export at `path` (nothing is written until the person confirms).
    pub fn start(&mut self, path: PathBuf, actions: &mut Vec<Action>) {
        if matches!(self.stage, Stage::Writing { .. }) {
            return;
        }
        actions.push(Action::Send(Request::ImportJournal {
            path: path.clone(),
            dry_run: true,
            cancel: Arc::new(AtomicBool::new(false)),
        }));
        self.stage = Stage::Judging { path };
    }

    pub fn on_progress(&mut self, done_now: usize, total_now: usize, elapsed_now: Duration) {
        if let Stage::Writing {
            done, total, elapsed, ..
        } = &mut self.stage
        {
            (*done, *total, *elapsed) = (done_now, total_now, elapsed_now);
        }
    }

    /// The end of the dry run or of the import; true when entries were written. An
    /// answer for a window the person has closed meanwhile is dropped.
    pub fn on_finished(&mut self, outcome: Result<Report, String>) -> bool {
        let wrote =
            matches!((&self.stage, &outcome), (Stage::Writing { .. }, Ok(report)) if report.added > 0);
        self.stage = match (std::mem::take(&mut self.stage), outcome) {
            (Stage::Judging { path }, Ok(report)) => Stage::Preview { path, report },
            (Stage::Writing { .. }, Ok(report)) => Stage::Done { report },
            (Stage::Judging { .. } | Stage::Writing { .. }, Err(message)) => Stage::Failed { message },
            (other, _) => other,
        };
        wrote
    }

    /// Whether the window shows and may be closed: not while writing, which Stop ends.
    pub fn closable(&self) -> bool {
        !matches!(self.stage, Stage::Idle | Stage::Writing { .. })
    }

    /// Closes the window (its ×, Esc), unless it is writing.
    pub fn close(&mut self) {
        if self.closable() {
            self.stage = Stage::Idle;
        }
    }

    /// The window, while there is an import to show.
    pub fn ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if matches!(self.stage, Stage::Idle) {
            return;
        }
        let mut open = true;
        egui::Window::new("Import")
            .collapsible(false)
            .resizable(true)
            .default_width(520.0)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .open(&mut open)
            .show(ctx, |ui| self.stage_ui(ui, actions));
        if !open {
            self.close();
        }
    }

    fn stage_ui(&mut self, ui: &mut Ui, actions: &mut Vec<Action>) {
        let mut next = None;
        match &self.stage {
            Stage::Idle => {}
            Stage::Judging { path } => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Reading {}…", path.display()));
                });
            }
            Stage::Preview { path, report } => {
                ui.label(RichText::new(preview_line(report)).strong());
                problems_ui(ui, report);
                ui.horizontal(|ui| {
                    let import = ui.add_enabled(
                        report.added > 0,
                        egui::Button::new(format!("Import {}", entries(report.added))),
                    );
                    if import.clicked() {
                        let cancel = Arc::new(AtomicBool::new(false));
                        actions.push(Action::Send(Request::ImportJournal {
                            path: path.clone(),
                            dry_run: false,
                            cancel: Arc::clone(&cancel),
                        }));
                        next = Some(Stage::Writing {
                            done: 0,
                            total: report.added + report.duplicates,
                            elapsed: Duration::ZERO,
                            cancel,
                        });
                    }
                    if ui.button("Cancel").clicked() {
                        next = Some(Stage::Idle);
                    }
                });
            }
            Stage::Writing {
                done,
                total,
                elapsed,
                cancel,
            } => {
                let fraction = if *total == 0 {
                    0.0
                } else {
                    *done as f32 / *total as f32
                };
                ui.add(egui::ProgressBar::new(fraction).text(progress_text(*done, *total, *elapsed)));
                let stopping = cancel.load(Ordering::Relaxed);
                if ui.add_enabled(!stopping, egui::Button::new("Stop")).clicked() {
                    cancel.store(true, Ordering::Relaxed);
                }
                if stopping {
                    ui.label("Stopping after the entries being written; importing again finishes it.");
                }
            }
            Stage::Done { report } => {
                ui.label(RichText::new(done_line(report)).strong());
                problems_ui(ui, report);
                if report.added > 0 {
                    ui.label(
                        "Titles, summaries and search by meaning for them are being made in the background.",
                    );
                }
                if ui.button("Close").clicked() {
                    next = Some(Stage::Idle);
                }
            }
            Stage::Failed { message } => {
                ui.label(RichText::new("This could not be imported").strong());
                ui.label(message);
                if ui.button("Close").clicked() {
                    next = Some(Stage::Idle);
                }
            }
        }
        if let Some(stage) = next {
            self.stage = stage;
        }
    }
}

fn preview_line(report: &Report) -> String {
    format!(
        "From {}: {} to add, {} already in your journal, {} that cannot be imported.",
        report.source.display_name(),
        entries(report.added),
        entries(report.duplicates),
        entries(report.rejected)
    )
}

/// "Importing: 3000 of 50000 · 4100 entries/s · 0:12 left": the rate and time left
/// appear once a batch is written (before that there is nothing to go on).
fn progress_text(done: usize, total: usize, elapsed: Duration) -> String {
    let counts = format!("Importing: {done} of {total}");
    if done == 0 || elapsed.is_zero() {
        return counts;
    }
    let rate = done as f64 / elapsed.as_secs_f64();
    let left = Duration::from_secs_f64(total.saturating_sub(done) as f64 / rate);
    format!("{counts} · {rate:.0} entries/s · {} left", format_duration(left))
}

fn done_line(report: &Report) -> String {
    let stopped = if report.cancelled {
        " Stopped before the end."
    } else {
        ""
    };
    format!(
        "Imported {} from {} ({} already there, {} not imported).{stopped}",
        entries(report.added),
        report.source.display_name(),
        report.duplicates,
        report.rejected
    )
}

fn problems_ui(ui: &mut Ui, report: &Report) {
    if report.problems.is_empty() {
        return;
    }
    ui.label(format!("Problems ({}):", report.problems.len()));
    egui::ScrollArea::vertical().max_height(220.0).show(ui, |ui| {
        for problem in &report.problems {
            let outcome = if problem.rejected {
                "not imported"
            } else {
                "entry imported"
            };
            ui.label(format!("{}: {} ({outcome})", problem.item, problem.reason));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_the_rate_and_time_left_once_there_is_one() {
        assert_eq!(progress_text(0, 50_000, Duration::ZERO), "Importing: 0 of 50000");
        assert_eq!(
            progress_text(10_000, 50_000, Duration::from_secs(2)),
            "Importing: 10000 of 50000 · 5000 entries/s · 0:08 left"
        );
        assert_eq!(
            progress_text(50_000, 50_000, Duration::from_secs(10)),
            "Importing: 50000 of 50000 · 5000 entries/s · 0:00 left"
        );
    }
}
