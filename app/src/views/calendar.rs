//! The month calendar above the journal's list: the days with entries shaded by the
//! words written, today outlined, the page's day filled. A click on a day opens its
//! page (its newest entry, or a new one dated that day); the arrows change the month.
//! The month's figures come from `daily_stats` (one small row per day with entries),
//! read again when the journal changes.

use chrono::{Datelike, Duration, Months, NaiveDate};
use egui::{Color32, RichText, Stroke};

use mindsage_core::db::stats::DayTotals;

use super::Action;
use crate::protocol::Request;

/// Side of a day's square, in points.
const CELL: f32 = 30.0;

/// Words above which a day is shaded fullest: a long entry.
const FULL_DAY_WORDS: f64 = 1_000.0;

/// How much of a full day `words` words are, for shading a day by what was written
/// (here and in the year in pixels): a few words still show, a long day is full.
pub fn share_of_a_full_day(words: u64) -> f32 {
    (words as f64 / FULL_DAY_WORDS).clamp(0.15, 1.0) as f32
}

#[derive(Default)]
pub struct Calendar {
    /// The first day of the month shown; `None` until the page's day sets it.
    month: Option<NaiveDate>,
    /// The days with entries of the month shown, once read.
    days: Option<Vec<DayTotals>>,
    /// The month whose days were asked for last: an older answer is dropped.
    asked: Option<NaiveDate>,
}

impl Calendar {
    /// Shows the month of `day` (the page's), reading its days when it is another.
    pub fn follow(&mut self, day: NaiveDate) {
        let month = first_of_month(day);
        if self.month != Some(month) {
            self.month = Some(month);
            self.days = None;
        }
    }

    /// The journal changed: the month's days are read again when next drawn.
    pub fn mark_stale(&mut self) {
        self.days = None;
        self.asked = None;
    }

    /// Days with entries arrived: the month's, if they are the days asked for last.
    pub fn on_days(&mut self, first: NaiveDate, last: NaiveDate, days: &[DayTotals]) {
        if self.asked == Some(first) && self.month == Some(first) && last == last_of_month(first) {
            self.days = Some(days.to_vec());
        }
    }

    /// The month and its days; `page_day` is filled, today outlined, days after today
    /// cannot be chosen. Returns the day the person chose.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        page_day: NaiveDate,
        today: NaiveDate,
        actions: &mut Vec<Action>,
    ) -> Option<NaiveDate> {
        let month = *self.month.get_or_insert_with(|| first_of_month(page_day));
        if self.days.is_none() && self.asked != Some(month) {
            self.asked = Some(month);
            actions.push(Action::Send(Request::Days {
                first: month,
                last: last_of_month(month),
            }));
        }
        self.month_header_ui(ui, month);
        let days = self.days.as_deref().unwrap_or_default();
        let mut chosen = None;
        egui::Grid::new("calendar_days")
            .spacing([2.0, 2.0])
            .min_col_width(CELL)
            .show(ui, |ui| {
                for name in ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"] {
                    ui.vertical_centered(|ui| ui.label(RichText::new(name).small().weak()));
                }
                ui.end_row();
                let start = month - Duration::days(i64::from(month.weekday().num_days_from_monday()));
                for week in 0..6 {
                    for weekday in 0..7 {
                        let day = start + Duration::days(week * 7 + weekday);
                        if day.month() != month.month() {
                            ui.label("");
                            continue;
                        }
                        // The days come oldest first.
                        let totals = days.binary_search_by_key(&day, |d| d.date).ok().map(|i| &days[i]);
                        let look = DayLook {
                            totals,
                            page: day == page_day,
                            today: day == today,
                            future: day > today,
                        };
                        if day_ui(ui, day, &look).clicked() {
                            chosen = Some(day);
                        }
                    }
                    ui.end_row();
                }
            });
        chosen
    }

    /// "December 2026" between the buttons to the month before and after.
    fn month_header_ui(&mut self, ui: &mut egui::Ui, month: NaiveDate) {
        ui.horizontal(|ui| {
            let before = ui.small_button("‹").on_hover_text("The month before");
            before.widget_info(|| {
                egui::WidgetInfo::labeled(egui::WidgetType::Button, true, "The month before")
            });
            if before.clicked() {
                self.show_month(month - Months::new(1));
            }
            ui.label(RichText::new(month.format("%B %Y").to_string()).strong());
            let after = ui.small_button("›").on_hover_text("The month after");
            after
                .widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, "The month after"));
            if after.clicked() {
                self.show_month(month + Months::new(1));
            }
        });
    }

    fn show_month(&mut self, month: NaiveDate) {
        self.month = Some(month);
        self.days = None;
    }
}

/// How one day's square looks.
struct DayLook<'a> {
    totals: Option<&'a DayTotals>,
    /// The page's day.
    page: bool,
    today: bool,
    future: bool,
}

/// One day's square, named in full for a screen reader ("6 December: 2 entries, 540
/// words").
fn day_ui(ui: &mut egui::Ui, day: NaiveDate, look: &DayLook) -> egui::Response {
    let visuals = ui.visuals();
    let fill = if look.page {
        visuals.selection.bg_fill
    } else if let Some(totals) = look.totals {
        // Shaded by words: a few words show, a long day is full.
        let share = share_of_a_full_day(totals.words);
        visuals.selection.bg_fill.gamma_multiply(0.25 + 0.6 * share)
    } else {
        Color32::TRANSPARENT
    };
    let stroke = if look.today {
        Stroke::new(1.5, visuals.strong_text_color())
    } else {
        Stroke::NONE
    };
    let number = RichText::new(day.day().to_string());
    let number = if look.future { number.weak() } else { number };
    let button = egui::Button::new(number)
        .fill(fill)
        .stroke(stroke)
        .min_size(egui::vec2(CELL, CELL * 0.8));
    let response = ui.add_enabled(!look.future, button);
    let name = match look.totals {
        Some(t) => format!(
            "{}: {}, {}",
            day.format("%-d %B"),
            crate::wording::entries(t.entries as usize),
            crate::wording::words(t.words.min(u64::from(u32::MAX)) as u32)
        ),
        None => day.format("%-d %B").to_string(),
    };
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, !look.future, &name));
    response
}

/// The first day of `day`'s month.
pub fn first_of_month(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

/// The last day of the month starting on `first`.
fn last_of_month(first: NaiveDate) -> NaiveDate {
    (first + Months::new(1)).pred_opt().unwrap_or(first)
}
