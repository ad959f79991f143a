//! The year in pixels, on the dashboard: one square per day of a year, a row per month,
//! coloured by the day's average mood or by the words written (a toggle); a click opens
//! that day's page. The arrows go to the years before. The days come from `daily_stats`
//! (`Request::Days`), read again when the journal changes.

use chrono::{Datelike, NaiveDate};
use egui::{Color32, RichText, Sense, Stroke, vec2};

use mindsage_core::db::stats::DayTotals;

use super::Action;
use super::calendar::share_of_a_full_day;
use crate::protocol::Request;

/// Side of a day's square, in points.
const SQUARE: f32 = 15.0;
const GAP: f32 = 3.0;

/// What the squares are coloured by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum ColourBy {
    #[default]
    Mood,
    Words,
}

#[derive(Default)]
pub struct YearInPixels {
    /// The year shown; `None` until first drawn (then this year).
    year: Option<i32>,
    by: ColourBy,
    /// The year's days with entries, once read.
    days: Option<Vec<DayTotals>>,
    /// The year whose days were asked for last.
    asked: Option<i32>,
}

impl YearInPixels {
    /// The journal changed: the days are read again when next drawn.
    pub fn mark_stale(&mut self) {
        self.days = None;
        self.asked = None;
    }

    /// Days with entries arrived: the year's, if they are the days asked for last.
    pub fn on_days(&mut self, first: NaiveDate, last: NaiveDate, days: Vec<DayTotals>) {
        let asked = self.asked.filter(|&year| Some(year) == self.year);
        if asked.is_some_and(|year| (first, last) == year_bounds(year)) {
            self.days = Some(days);
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, today: NaiveDate, actions: &mut Vec<Action>) {
        let year = *self.year.get_or_insert(today.year());
        if self.days.is_none() && self.asked != Some(year) {
            self.asked = Some(year);
            let (first, last) = year_bounds(year);
            actions.push(Action::Send(Request::Days { first, last }));
        }
        self.header_ui(ui, year, today);
        let days = self.days.as_deref().unwrap_or_default();
        for month in 1..=12 {
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = GAP;
                let first = NaiveDate::from_ymd_opt(year, month, 1).unwrap_or(today);
                ui.add_sized(
                    [34.0, SQUARE],
                    egui::Label::new(RichText::new(first.format("%b").to_string()).small().weak()),
                );
                for day in first.iter_days().take_while(|d| d.month() == month) {
                    // The days come oldest first.
                    let totals = days.binary_search_by_key(&day, |d| d.date).ok().map(|i| &days[i]);
                    if self.day_ui(ui, day, totals, today).clicked() {
                        actions.push(Action::OpenDay(day));
                    }
                }
            });
        }
    }

    /// "Year in pixels" and the year between its arrows, and the toggle.
    fn header_ui(&mut self, ui: &mut egui::Ui, year: i32, today: NaiveDate) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Year in pixels").strong());
            let before = ui.small_button("‹");
            before
                .widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, "The year before"));
            if before.clicked() {
                self.show_year(year - 1);
            }
            ui.label(year.to_string());
            let after = ui.add_enabled(year < today.year(), egui::Button::new("›").small());
            after.widget_info(|| {
                egui::WidgetInfo::labeled(egui::WidgetType::Button, year < today.year(), "The year after")
            });
            if after.clicked() {
                self.show_year(year + 1);
            }
            ui.separator();
            ui.selectable_value(&mut self.by, ColourBy::Mood, "By mood");
            ui.selectable_value(&mut self.by, ColourBy::Words, "By words");
        });
    }

    fn show_year(&mut self, year: i32) {
        self.year = Some(year);
        self.days = None;
    }

    /// One day's square, named in full for a screen reader ("6 December: mood 7, 1
    /// entry, 540 words").
    fn day_ui(
        &self,
        ui: &mut egui::Ui,
        day: NaiveDate,
        totals: Option<&DayTotals>,
        today: NaiveDate,
    ) -> egui::Response {
        let future = day > today;
        let sense = if future { Sense::hover() } else { Sense::click() };
        let (rect, response) = ui.allocate_exact_size(vec2(SQUARE, SQUARE), sense);
        let visuals = ui.visuals();
        let fill = match totals {
            Some(t) => self.colour_of(t, visuals.selection.bg_fill),
            None => Color32::TRANSPARENT,
        };
        let stroke = if day == today {
            Stroke::new(1.5, visuals.strong_text_color())
        } else if future {
            Stroke::NONE
        } else {
            Stroke::new(1.0, visuals.widgets.noninteractive.bg_stroke.color)
        };
        ui.painter()
            .rect(rect, 2.0, fill, stroke, egui::StrokeKind::Inside);
        let name = day_name(day, totals);
        let response = response.on_hover_text(&name);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, !future, &name));
        response
    }

    fn colour_of(&self, totals: &DayTotals, accent: Color32) -> Color32 {
        match (self.by, totals.mood_avg) {
            (ColourBy::Mood, Some(mood)) => mood_colour(mood),
            // A day with entries but no mood: present, in the theme's grey.
            (ColourBy::Mood, None) => Color32::from_gray(128),
            (ColourBy::Words, _) => accent.gamma_multiply(0.25 + 0.75 * share_of_a_full_day(totals.words)),
        }
    }
}

/// A mood from 1 to 10 as a colour from red through amber to green.
fn mood_colour(mood: f64) -> Color32 {
    let t = ((mood - 1.0) / 9.0).clamp(0.0, 1.0) as f32;
    let (red, amber, green) = (
        Color32::from_rgb(205, 72, 72),
        Color32::from_rgb(226, 178, 60),
        Color32::from_rgb(76, 168, 96),
    );
    if t < 0.5 {
        red.lerp_to_gamma(amber, t * 2.0)
    } else {
        amber.lerp_to_gamma(green, (t - 0.5) * 2.0)
    }
}

fn day_name(day: NaiveDate, totals: Option<&DayTotals>) -> String {
    let date = day.format("%-d %B %Y");
    let Some(t) = totals else {
        return date.to_string();
    };
    let entries = crate::wording::entries(t.entries as usize);
    let words = crate::wording::words(t.words.min(u64::from(u32::MAX)) as u32);
    match t.mood_avg {
        Some(mood) => format!("{date}: mood {mood:.0}, {entries}, {words}"),
        None => format!("{date}: {entries}, {words}"),
    }
}

/// The first and last day of `year`.
fn year_bounds(year: i32) -> (NaiveDate, NaiveDate) {
    let first = NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or_default();
    let last = NaiveDate::from_ymd_opt(year, 12, 31).unwrap_or_default();
    (first, last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moods_run_from_red_to_green() {
        assert_eq!(mood_colour(1.0), Color32::from_rgb(205, 72, 72));
        assert_eq!(mood_colour(10.0), Color32::from_rgb(76, 168, 96));
        assert_eq!(mood_colour(0.0), mood_colour(1.0), "out of range is clamped");
    }

    #[test]
    fn a_day_is_named_with_what_was_written() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 14).unwrap();
        let totals = DayTotals {
            date: day,
            entries: 2,
            words: 540,
            mood_avg: Some(6.4),
        };
        assert_eq!(
            day_name(day, Some(&totals)),
            "14 March 2026: mood 6, 2 entries, 540 words"
        );
        assert_eq!(day_name(day, None), "14 March 2026");
    }
}
