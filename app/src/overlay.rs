//! The profiler overlay (F12): where the milliseconds go, live.
//!
//! Frame times, every named query's count and percentiles from core's timing registry,
//! and puffin's flamegraph of the scopes in core's hot paths. Off by default; puffin
//! records nothing while it is off.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use egui::RichText;
use egui_plot::{HLine, Line, Plot, PlotPoints};

use mindsage_core::timing::{self, NamedSummary, Summary};

/// Frames kept for the frame-time plot.
const FRAMES_KEPT: usize = 300;

/// How often the query table is re-read: often enough to look live, rarely enough that
/// the overlay does not measure itself.
const TABLE_REFRESH: Duration = Duration::from_millis(250);

/// CPU time of the most recent frames, in milliseconds.
#[derive(Default)]
pub struct FrameTimes {
    recent: VecDeque<f64>,
}

impl FrameTimes {
    pub fn record(&mut self, elapsed: Duration) {
        if self.recent.len() == FRAMES_KEPT {
            self.recent.pop_front();
        }
        self.recent.push_back(elapsed.as_secs_f64() * 1000.0);
    }

    pub fn summary(&mut self) -> Option<Summary> {
        Summary::from_ms(self.recent.make_contiguous())
    }
}

#[derive(Default)]
pub struct Overlay {
    open: bool,
    table: Vec<NamedSummary>,
    refreshed: Option<Instant>,
}

impl Overlay {
    pub fn is_open(&self) -> bool {
        self.open
    }

    pub fn toggle(&mut self) {
        self.open = !self.open;
        puffin::set_scopes_on(self.open);
        self.refreshed = None;
    }

    /// Marks a new frame for puffin; call first thing in each frame.
    pub fn begin_frame(&self) {
        if self.open {
            puffin::GlobalProfiler::lock().new_frame();
        }
    }

    /// `last_ask`: the stages of the last answered question.
    pub fn show(
        &mut self,
        ctx: &egui::Context,
        frames: &mut FrameTimes,
        last_ask: Option<&[(&'static str, Duration)]>,
    ) {
        if !self.open {
            return;
        }
        if self.refreshed.is_none_or(|t| t.elapsed() >= TABLE_REFRESH) {
            self.table = timing::snapshot();
            self.refreshed = Some(Instant::now());
        }
        ctx.request_repaint_after(TABLE_REFRESH);
        let mut open = true;
        egui::Window::new("Profiler")
            .open(&mut open)
            .default_size([560.0, 520.0])
            .show(ctx, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    frame_plot(ui, frames);
                    ui.separator();
                    query_table(ui, &self.table);
                    ui.separator();
                    ui.label(RichText::new("Last Ask").strong());
                    match last_ask {
                        Some(stages) => ui.monospace(crate::views::ask::stage_line(stages, None)),
                        None => ui.label(RichText::new("No question answered yet.").weak()),
                    };
                    ui.separator();
                    egui::CollapsingHeader::new("Flamegraph (puffin)")
                        .default_open(true)
                        .show(ui, puffin_egui::profiler_ui);
                });
            });
        if !open {
            self.toggle();
        }
    }
}

fn frame_plot(ui: &mut egui::Ui, frames: &mut FrameTimes) {
    let points: PlotPoints = frames
        .recent
        .make_contiguous()
        .iter()
        .enumerate()
        .map(|(i, ms)| [i as f64, *ms])
        .collect();
    let Some(summary) = frames.summary() else {
        ui.label("No frames yet.");
        return;
    };
    ui.label(
        RichText::new(format!(
            "Frame time (CPU), last {} frames: p50 {:.2} ms · p95 {:.2} ms · max {:.2} ms",
            summary.count, summary.p50_ms, summary.p95_ms, summary.max_ms
        ))
        .strong(),
    );
    Plot::new("frame_times")
        .height(120.0)
        .include_y(0.0)
        .allow_scroll(false)
        .allow_drag(false)
        .allow_zoom(false)
        .show(ui, |plot| {
            plot.line(Line::new("frame ms", points));
            plot.hline(HLine::new("p95", summary.p95_ms));
        });
}

fn query_table(ui: &mut egui::Ui, table: &[NamedSummary]) {
    ui.label(RichText::new("Named queries and stages").strong());
    if table.is_empty() {
        ui.label(RichText::new("Nothing timed yet.").weak());
        return;
    }
    egui::Grid::new("timings")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            for heading in ["name", "count", "p50 ms", "p95 ms"] {
                ui.label(RichText::new(heading).weak());
            }
            ui.end_row();
            for row in table {
                ui.monospace(&row.name);
                ui.monospace(row.total_count.to_string());
                ui.monospace(format!("{:.3}", row.recent.p50_ms));
                ui.monospace(format!("{:.3}", row.recent.p95_ms));
                ui.end_row();
            }
        });
}
