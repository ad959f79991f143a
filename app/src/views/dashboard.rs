//! The dashboard: totals, streaks, two charts and "on this day".
//!
//! The figures come from the reader's cached [`DashboardStats`], recomputed only after
//! a write, so opening the dashboard costs nothing when nothing changed.

use std::sync::Arc;

use chrono::NaiveDate;
use egui::RichText;
use egui_plot::{Bar, BarChart, Line, Plot, PlotPoints};

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::EntryRow;
use mindsage_core::db::stats::DashboardStats;

use super::display_time;
use crate::worker::{Request, Response, Worker};

#[derive(Default)]
pub struct DashboardView {
    stats: Option<Arc<DashboardStats>>,
    on_this_day: Vec<EntryRow>,
    /// Something was written since the figures were read.
    stale: bool,
    requested: bool,
}

impl DashboardView {
    /// The journal changed: read the figures again when the dashboard is next shown.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    pub fn on_response(&mut self, response: Response) {
        if let Response::Dashboard { stats, on_this_day } = response {
            self.stats = Some(stats);
            self.on_this_day = on_this_day;
            self.requested = false;
        }
    }

    /// Draws the dashboard; returns the entry the person clicked under "on this day".
    pub fn show(&mut self, ctx: &egui::Context, worker: &Worker) -> Option<EntryId> {
        if (self.stats.is_none() || self.stale) && !self.requested {
            worker.send(Request::Dashboard);
            self.requested = true;
            self.stale = false;
        }
        egui::CentralPanel::default()
            .show(ctx, |ui| {
                let Some(stats) = self.stats.clone() else {
                    ui.label("Counting…");
                    return None;
                };
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        figures(ui, &stats);
                        ui.add_space(12.0);
                        charts(ui, &stats);
                        ui.add_space(12.0);
                        on_this_day(ui, &self.on_this_day)
                    })
                    .inner
            })
            .inner
    }
}

fn figures(ui: &mut egui::Ui, stats: &DashboardStats) {
    ui.horizontal_wrapped(|ui| {
        figure(ui, "Entries", &stats.total_entries.to_string());
        figure(ui, "Words", &stats.total_words.to_string());
        figure(ui, "Current streak", &days(stats.current_streak));
        figure(ui, "Longest streak", &days(stats.longest_streak));
    });
}

fn days(n: u32) -> String {
    if n == 1 {
        "1 day".to_owned()
    } else {
        format!("{n} days")
    }
}

/// One figure in a card: the label reads with its value to a screen reader.
fn figure(ui: &mut egui::Ui, label: &str, value: &str) {
    let response = egui::Frame::group(ui.style())
        .inner_margin(12.0)
        .show(ui, |ui| {
            ui.set_min_width(150.0);
            ui.vertical(|ui| {
                ui.label(RichText::new(label).weak());
                ui.label(RichText::new(value).size(26.0).strong());
            });
        })
        .response;
    let text = format!("{label}: {value}");
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Label, true, &text));
}

/// Days since the Unix epoch: the x axis of both charts, so they line up.
fn day_number(date: NaiveDate) -> f64 {
    (date - NaiveDate::default()).num_days() as f64
}

fn date_of(day: f64) -> String {
    (NaiveDate::default() + chrono::Duration::days(day.round() as i64))
        .format("%b %Y")
        .to_string()
}

fn charts(ui: &mut egui::Ui, stats: &DashboardStats) {
    if stats.entries_per_week.is_empty() {
        ui.label("Charts appear once you have written something.");
        return;
    }
    ui.label(RichText::new("Entries per week").strong());
    let bars: Vec<Bar> = stats
        .entries_per_week
        .iter()
        .map(|(week, n)| Bar::new(day_number(*week) + 3.5, f64::from(*n)).width(6.0))
        .collect();
    Plot::new("entries_per_week")
        .height(180.0)
        .allow_scroll(false)
        .include_y(0.0)
        .x_axis_formatter(|mark, _| date_of(mark.value))
        .show(ui, |plot| plot.bar_chart(BarChart::new("Entries", bars)));
    ui.add_space(8.0);
    ui.label(RichText::new("Mood over time (daily average, 1–10)").strong());
    let moods: PlotPoints = stats
        .mood_per_day
        .iter()
        .map(|(day, mood)| [day_number(*day), *mood])
        .collect();
    Plot::new("mood_over_time")
        .height(180.0)
        .allow_scroll(false)
        .include_y(1.0)
        .include_y(10.0)
        .x_axis_formatter(|mark, _| date_of(mark.value))
        .show(ui, |plot| plot.line(Line::new("Mood", moods)));
}

fn on_this_day(ui: &mut egui::Ui, rows: &[EntryRow]) -> Option<EntryId> {
    ui.label(RichText::new("On this day").strong());
    if rows.is_empty() {
        ui.label(RichText::new("Nothing written on this date in earlier years.").weak());
        return None;
    }
    let mut clicked = None;
    for row in rows {
        let title = if row.title.is_empty() {
            "(untitled)"
        } else {
            &row.title
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new(display_time(&row.created_at)).weak());
            if ui.link(title).clicked() {
                clicked = Some(row.id);
            }
        });
    }
    clicked
}
