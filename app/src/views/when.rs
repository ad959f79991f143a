//! Changing when an entry was lived, from the page: its date and time as typed, where
//! it was written. An entry written after midnight about the evening before belongs to
//! that evening, so *Yesterday* moves it to the day before, and from the small hours to
//! late that evening. The times are those of the entry's own place (its UTC offset): a
//! person changes the clock they lived by, not this computer's.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use egui::RichText;

/// Before this hour, *Yesterday* means the evening before: the entry was written late.
const SMALL_HOURS_END: u32 = 5;

/// The date and time fields as typed, opened on the entry's date and time.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    date: String,
    time: String,
    /// Why the last Done did not apply, shown under the fields.
    problem: Option<String>,
    /// The keyboard goes to the date on the next frame (just opened).
    focus_date: bool,
}

/// What the person chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// Date the entry at this local date and time.
    At(NaiveDateTime),
    Cancel,
}

impl When {
    /// The fields, showing `lived` (the entry's local date and time).
    pub fn of(lived: NaiveDateTime) -> When {
        When {
            date: lived.date().format("%Y-%m-%d").to_string(),
            time: lived.time().format("%H:%M").to_string(),
            problem: None,
            focus_date: true,
        }
    }

    /// The date and time typed, or why they are not one.
    fn typed(&self) -> Result<NaiveDateTime, String> {
        let date = NaiveDate::parse_from_str(self.date.trim(), "%Y-%m-%d")
            .map_err(|_| format!("\"{}\" is not a date: write it as 2026-12-05", self.date.trim()))?;
        let time = mindsage_core::clock::parse_time(&self.time)
            .ok_or_else(|| format!("\"{}\" is not a time: write it as 23:15", self.time.trim()))?;
        Ok(date.and_time(time))
    }

    /// The day before the date typed; from the small hours, late that evening.
    fn yesterday(&mut self) {
        let Ok(at) = self.typed() else {
            return;
        };
        let evening = NaiveTime::from_hms_opt(23, 59, 0).expect("a valid time");
        let time = if at.hour() < SMALL_HOURS_END {
            evening
        } else {
            at.time()
        };
        *self = When::of((at.date() - Duration::days(1)).and_time(time));
    }

    /// The fields in a row, with *Yesterday*, *Done* and *Cancel*. `now` is the entry's
    /// place's local time now: a later date and time is refused, as the journal refuses
    /// it. Enter in a field is Done, Esc is Cancel.
    pub fn ui(&mut self, ui: &mut egui::Ui, now: NaiveDateTime) -> Option<Chosen> {
        let mut chosen = None;
        let mut done = false;
        ui.horizontal(|ui| {
            let date = field_ui(ui, "Date", &mut self.date, 90.0, "2026-12-05");
            if std::mem::take(&mut self.focus_date) {
                date.request_focus();
            }
            let time = field_ui(ui, "Time", &mut self.time, 50.0, "23:15");
            let entered =
                (date.lost_focus() || time.lost_focus()) && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui
                .small_button("Yesterday")
                .on_hover_text("The day before; from the small hours, late that evening")
                .clicked()
            {
                self.yesterday();
            }
            done = ui.small_button("Done").clicked() || entered;
            if ui.small_button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                chosen = Some(Chosen::Cancel);
            }
        });
        if done && chosen.is_none() {
            match self.typed() {
                Ok(at) if at > now => {
                    self.problem =
                        Some("That is still to come: an entry can be dated now or earlier.".to_owned())
                }
                Ok(at) => chosen = Some(Chosen::At(at)),
                Err(problem) => self.problem = Some(problem),
            }
        }
        if let Some(problem) = &self.problem {
            ui.label(RichText::new(problem).small().color(ui.visuals().warn_fg_color));
        }
        chosen
    }
}

/// A small text field after its name, which names it for screen readers too.
fn field_ui(ui: &mut egui::Ui, name: &str, text: &mut String, width: f32, hint: &str) -> egui::Response {
    let label = ui.label(RichText::new(name).small());
    ui.add(
        egui::TextEdit::singleline(text)
            .desired_width(width)
            .hint_text(hint),
    )
    .labelled_by(label.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").unwrap()
    }

    #[test]
    fn yesterday_from_the_small_hours_is_the_evening_before() {
        let mut when = When::of(at("2026-12-06 00:40"));
        when.yesterday();
        assert_eq!(when.typed(), Ok(at("2026-12-05 23:59")));
        let mut when = When::of(at("2026-12-06 18:20"));
        when.yesterday();
        assert_eq!(when.typed(), Ok(at("2026-12-05 18:20")));
    }

    #[test]
    fn what_is_not_a_date_or_a_time_says_how_to_write_it() {
        let mut when = When::of(at("2026-12-06 00:40"));
        when.date = "5/12".into();
        assert!(when.typed().unwrap_err().contains("2026-12-05"));
        when.date = "2026-12-05".into();
        when.time = "late".into();
        assert!(when.typed().unwrap_err().contains("23:15"));
        when.time = " 9.05 ".into();
        assert_eq!(when.typed(), Ok(at("2026-12-05 09:05")));
    }
}
