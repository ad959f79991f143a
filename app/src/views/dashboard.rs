//! The dashboard: totals, streaks, looking back (a month ago, on this day in earlier
//! years, an older entry at random), the themes of the last weeks and months, the year
//! in pixels ([`YearInPixels`]) and two charts.
//!
//! The figures come from the reader's cached [`DashboardStats`], recomputed only after
//! a write, so opening the dashboard costs nothing when nothing changed.

use std::sync::Arc;

use chrono::{Datelike, NaiveDate};
use egui::RichText;
use egui_plot::{Bar, BarChart, Line, Plot, PlotPoints};

use mindsage_core::db::entries::EntryRow;
use mindsage_core::db::stats::{DashboardStats, DayTotals};
use mindsage_core::search::themes::Source;

use super::year::YearInPixels;
use super::{Action, Screen, display_lived};
use crate::protocol::Request;
use crate::wording::{self, entry_title};
use mindsage_core::search::themes::Lately;

#[derive(Default)]
pub struct DashboardView {
    stats: Option<Arc<DashboardStats>>,
    /// Average mood per week, as plot points: daily moods are too noisy to read.
    mood_per_week: Vec<[f64; 2]>,
    month_ago: Vec<EntryRow>,
    on_this_day: Vec<EntryRow>,
    /// Read apart from the figures, which come first.
    themes: Option<Lately>,
    /// Something was written since the figures were read.
    stale: bool,
    requested: bool,
    year: YearInPixels,
}

impl DashboardView {
    /// The journal changed: read the figures again when the dashboard is next shown.
    pub fn mark_stale(&mut self) {
        self.stale = true;
        self.year.mark_stale();
    }

    /// Days with entries arrived: the year in pixels', if it asked.
    pub fn on_days(&mut self, first: NaiveDate, last: NaiveDate, days: Vec<DayTotals>) {
        self.year.on_days(first, last, days);
    }

    pub fn on_dashboard(
        &mut self,
        stats: Arc<DashboardStats>,
        month_ago: Vec<EntryRow>,
        on_this_day: Vec<EntryRow>,
    ) {
        self.mood_per_week = weekly_mood(&stats);
        self.stats = Some(stats);
        self.month_ago = month_ago;
        self.on_this_day = on_this_day;
        self.themes = None;
        self.requested = false;
    }
}

impl DashboardView {
    pub fn on_themes(&mut self, themes: Lately) {
        self.themes = Some(themes);
    }
}

impl Screen for DashboardView {
    /// The figures, the charts and looking back.
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if (self.stats.is_none() || self.stale) && !self.requested {
            actions.push(Action::Send(Request::Dashboard));
            actions.push(Action::Send(Request::Themes));
            self.requested = true;
            self.stale = false;
        }
        egui::CentralPanel::default().show_inside(ui, |ui| {
            let Some(stats) = self.stats.clone() else {
                ui.label("Counting…");
                return;
            };
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    figures(ui, &stats);
                    ui.add_space(12.0);
                    looking_back_ui(ui, &self.month_ago, &self.on_this_day, actions);
                    ui.add_space(12.0);
                    themes_ui(ui, self.themes.as_ref(), actions);
                    ui.add_space(12.0);
                    let today = mindsage_core::clock::now_here().date_naive();
                    self.year.ui(ui, today, actions);
                    ui.add_space(12.0);
                    charts(ui, &stats, &self.mood_per_week);
                });
        });
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

/// Averages the days' moods per week (weeks start on Monday), x at the week's middle.
fn weekly_mood(stats: &DashboardStats) -> Vec<[f64; 2]> {
    let mut weeks: Vec<(f64, f64, u32)> = Vec::new();
    for (day, mood) in &stats.mood_per_day {
        let monday = *day - chrono::Duration::days(i64::from(day.weekday().num_days_from_monday()));
        let x = day_number(monday) + 3.5;
        match weeks.last_mut() {
            Some((week, sum, n)) if *week == x => {
                *sum += mood;
                *n += 1;
            }
            _ => weeks.push((x, *mood, 1)),
        }
    }
    weeks
        .into_iter()
        .map(|(x, sum, n)| [x, sum / f64::from(n)])
        .collect()
}

/// The hover label of both charts: the date, then the value.
fn point_label(_: &str, point: &egui_plot::PlotPoint) -> String {
    let day = NaiveDate::default() + chrono::Duration::days(point.x.round() as i64);
    format!("week of {}: {:.1}", day.format("%e %b %Y"), point.y)
}

fn charts(ui: &mut egui::Ui, stats: &DashboardStats, mood_per_week: &[[f64; 2]]) {
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
        .label_formatter(point_label)
        .show(ui, |plot| plot.bar_chart(BarChart::new("Entries", bars)));
    ui.add_space(8.0);
    ui.label(RichText::new("Mood over time (weekly average, 1–10)").strong());
    let moods = PlotPoints::from(mood_per_week.to_vec());
    Plot::new("mood_over_time")
        .height(180.0)
        .allow_scroll(false)
        .include_y(1.0)
        .include_y(10.0)
        .x_axis_formatter(|mark, _| date_of(mark.value))
        .label_formatter(point_label)
        .show(ui, |plot| plot.line(Line::new("Mood", moods)));
}

/// What was written a month ago and on this date in earlier years, and an older entry
/// at random on request.
fn looking_back_ui(
    ui: &mut egui::Ui,
    month_ago: &[EntryRow],
    on_this_day: &[EntryRow],
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Looking back").strong());
        if ui
            .button("An older entry, at random")
            .on_hover_text("Opens an entry written over a month ago")
            .clicked()
        {
            actions.push(Action::OpenOlderEntry);
        }
    });
    if !month_ago.is_empty() {
        ui.label(RichText::new("A month ago").weak());
        entry_links_ui(ui, month_ago, actions);
    }
    ui.label(RichText::new("On this day").weak());
    if on_this_day.is_empty() {
        ui.label(RichText::new("Nothing written on this date in earlier years.").weak());
    }
    entry_links_ui(ui, on_this_day, actions);
}

/// What keeps coming back in the last four weeks and six months; a click lists a
/// theme's entries in the journal (a tag's through the tag filter, the rest through the
/// search box).
fn themes_ui(ui: &mut egui::Ui, themes: Option<&Lately>, actions: &mut Vec<Action>) {
    ui.label(RichText::new("Themes").strong());
    let Some(themes) = themes else {
        ui.label(RichText::new("Reading…").weak());
        return;
    };
    if themes.weeks.is_empty() && themes.months.is_empty() {
        ui.label(
            RichText::new(
                "Nothing keeps coming back yet: a theme is something in three entries or more, over two \
                 weeks or more.",
            )
            .weak(),
        );
        return;
    }
    for (span, list) in [
        ("The last four weeks", &themes.weeks),
        ("The last six months", &themes.months),
    ] {
        if list.is_empty() {
            continue;
        }
        ui.label(RichText::new(span).weak());
        ui.horizontal_wrapped(|ui| {
            for theme in list {
                let words = format!("{} · {}", theme.name, wording::entries(theme.entries.len()));
                if ui.button(words).clicked() {
                    actions.push(match theme.source {
                        Source::Tag => Action::ShowTag(theme.name.clone()),
                        Source::Remembered(_) | Source::Word => Action::Search(theme.search_text()),
                    });
                }
            }
        });
    }
}

/// Each entry's day and a link that opens it.
fn entry_links_ui(ui: &mut egui::Ui, rows: &[EntryRow], actions: &mut Vec<Action>) {
    for row in rows {
        ui.horizontal(|ui| {
            ui.label(RichText::new(display_lived(&row.created_at, row.utc_offset)).weak());
            if ui.link(entry_title(&row.title, &row.preview)).clicked() {
                actions.push(Action::OpenEntry(row.id));
            }
        });
    }
}
