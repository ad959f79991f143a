//! How an entry's page is set: a column of about seventy characters in the reading face
//! ([`crate::fonts`]), centred in the window, with room between the lines, under its
//! date. Lines as wide as the window (egui's default) are hard to read: the eye loses
//! its place going back to the start of the next one. The text size and the line length
//! are the person's (Settings → Appearance).

use std::sync::Arc;

use chrono::NaiveDate;
use egui::{FontId, Galley, TextBuffer};

use mindsage_core::settings::Settings;

use super::markdown::{self, Looks};
use crate::fonts;

/// Text sizes Settings offers, in points.
pub const TEXT_SIZES: std::ops::RangeInclusive<u32> = 14..=28;
/// Line lengths Settings offers, in characters.
pub const LINE_LENGTHS: std::ops::RangeInclusive<u32> = 45..=100;

/// Line height as a multiple of the text size: typographers' 1.4 to 1.6 for body text.
const LEADING: f32 = 1.5;

/// Text whose width, divided by its length, is an average character of running prose
/// (spaces and narrow letters included): what "characters per line" counts.
const PROSE: &str = "The morning was grey, and then the sun came out over the hills.";

/// The page's text size and line length, from the settings (kept within what Settings
/// offers, whatever a hand-edited file says), its daily word goal, and whether it is
/// shown alone (focus mode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageStyle {
    text_size: f32,
    line_chars: f32,
    /// Words a day the person means to write; 0 for no goal.
    pub word_goal: u32,
    /// Focus mode: the page alone, its date, title and text; no list, bars or fields.
    pub focus: bool,
    /// The daily prompt in an empty page ([`super::prompts`]).
    pub prompts: bool,
}

impl Default for PageStyle {
    fn default() -> PageStyle {
        PageStyle::of(&Settings::default())
    }
}

impl PageStyle {
    pub fn of(settings: &Settings) -> PageStyle {
        let clamp = |value: u32, range: std::ops::RangeInclusive<u32>| {
            value.clamp(*range.start(), *range.end()) as f32
        };
        PageStyle {
            text_size: clamp(settings.page_text_size, TEXT_SIZES),
            line_chars: clamp(settings.page_line_length, LINE_LENGTHS),
            word_goal: settings.daily_word_goal,
            focus: false,
            prompts: settings.daily_prompt,
        }
    }

    /// The entry's text.
    pub fn body_font(&self) -> FontId {
        fonts::reading(self.text_size)
    }

    /// The title, the page's first line.
    pub fn title_font(&self) -> FontId {
        fonts::reading((self.text_size * 1.5).round())
    }

    /// The date above it.
    pub fn date_font(&self) -> FontId {
        fonts::reading((self.text_size * 1.15).round())
    }

    /// The column's width in points: the line length in average characters of the body
    /// font (measured once per size: egui caches the laid-out sample).
    fn column_width(&self, ui: &egui::Ui) -> f32 {
        let sample =
            ui.fonts_mut(|f| f.layout_no_wrap(PROSE.to_owned(), self.body_font(), egui::Color32::WHITE));
        sample.size().x / PROSE.chars().count() as f32 * self.line_chars
    }

    /// Lays out the entry's text for the text field's layouter: the body font at the
    /// page's line height, its Markdown styled ([`markdown`]).
    pub fn lay_out(&self, ui: &egui::Ui, text: &dyn TextBuffer, wrap_width: f32) -> Arc<Galley> {
        let visuals = ui.visuals();
        let size = self.text_size;
        let looks = Looks {
            body: self.body_font(),
            bold: fonts::reading_bold(size),
            code: FontId::monospace((size * 0.85).round()),
            headings: [1.45, 1.25, 1.1].map(|scale| fonts::reading_bold((size * scale).round())),
            line_height: size * LEADING,
            // Body text at full strength: egui's default text colour is dimmed for labels.
            text: visuals.strong_text_color(),
            dim: visuals.weak_text_color(),
            link: visuals.hyperlink_color,
            code_background: visuals.code_bg_color,
        };
        let mut job = markdown::layout_job(text.as_str(), &looks);
        job.wrap.max_width = wrap_width;
        ui.fonts_mut(|f| f.layout_job(job))
    }
}

/// The page's text as last laid out. A frame in which it did not change (the cursor
/// blinking, a repaint for a thread's answer) takes that galley as it is: styling the
/// whole text again and having egui hash it to find its cached galley is most of such a
/// frame in a long entry. What the galley depends on is its key; the text is compared
/// whole (a comparison of bytes, far cheaper than styling them).
#[derive(Default)]
pub struct LaidOut {
    key: Option<LayoutKey>,
    text: String,
    galley: Option<Arc<Galley>>,
}

/// Everything a laid-out page depends on beside its text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LayoutKey {
    style: PageStyle,
    wrap_width: f32,
    dark: bool,
    pixels_per_point: f32,
    fonts_since: u64,
}

impl LaidOut {
    /// `text` laid out by `style` ([`PageStyle::lay_out`]), or the galley of the last
    /// frame when nothing it depends on changed.
    pub fn get(
        &mut self,
        ui: &egui::Ui,
        style: &PageStyle,
        text: &dyn TextBuffer,
        wrap_width: f32,
    ) -> Arc<Galley> {
        let ctx = ui.ctx();
        let fonts_since = fonts::in_use_since(ctx);
        let key = LayoutKey {
            style: *style,
            wrap_width,
            dark: ui.visuals().dark_mode,
            pixels_per_point: ctx.pixels_per_point(),
            fonts_since,
        };
        if let Some(galley) = self
            .galley
            .as_ref()
            .filter(|_| self.key == Some(key) && self.text == text.as_str())
        {
            return Arc::clone(galley);
        }
        let galley = style.lay_out(ui, text, wrap_width);
        if ctx.cumulative_pass_nr() >= fonts_since {
            // Not laid out in fonts about to be replaced.
            self.key = Some(key);
            self.text.clear();
            self.text.push_str(text.as_str());
            self.galley = Some(Arc::clone(&galley));
        }
        galley
    }
}

/// Runs `add` in the page's column, centred in the space `ui` has (all of it when that
/// is narrower).
pub fn column<R>(ui: &mut egui::Ui, style: &PageStyle, add: impl FnOnce(&mut egui::Ui) -> R) -> R {
    let width = style.column_width(ui).min(ui.available_width());
    let margin = ((ui.available_width() - width) / 2.0).max(0.0);
    ui.horizontal_top(|ui| {
        ui.add_space(margin);
        ui.vertical(|ui| {
            ui.set_width(width);
            add(ui)
        })
        .inner
    })
    .inner
}

/// The page's length, quietly: "312 words", or against the day's goal on today's page
/// ("312 of 750 words").
pub fn length(words: u32, goal: Option<u32>) -> String {
    match goal.filter(|&goal| goal > 0) {
        Some(goal) => format!("{words} of {goal} words"),
        None => crate::wording::words(words),
    }
}

/// Today's place in the streak of days written, when there is one to speak of: a day
/// in it once today is written, else the streak today would keep going.
pub fn streak(days: u32, written_today: bool) -> Option<String> {
    match (days, written_today) {
        (0, _) | (1, true) => None,
        (days, true) => Some(format!("Day {days} of your streak")),
        (days, false) => Some(format!("Write today to make it {} days in a row", days + 1)),
    }
}

/// A day as a page's heading: "Sunday, 6 December", with the year when it is not this
/// year's.
pub fn day_heading(day: NaiveDate, today: NaiveDate) -> String {
    use chrono::Datelike;
    if day.year() == today.year() {
        day.format("%A, %-d %B").to_string()
    } else {
        day.format("%A, %-d %B %Y").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_names_the_day_and_the_year_only_when_it_is_another() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let today = day(2026, 12, 6);
        assert_eq!(day_heading(today, today), "Sunday, 6 December");
        assert_eq!(day_heading(day(2026, 1, 1), today), "Thursday, 1 January");
        assert_eq!(day_heading(day(2025, 12, 6), today), "Saturday, 6 December 2025");
    }

    #[test]
    fn the_streak_is_spoken_of_from_two_days() {
        assert_eq!(streak(0, false), None);
        assert_eq!(streak(1, true), None);
        assert_eq!(
            streak(1, false).as_deref(),
            Some("Write today to make it 2 days in a row")
        );
        assert_eq!(streak(12, true).as_deref(), Some("Day 12 of your streak"));
    }

    #[test]
    fn the_length_counts_against_a_goal_only_when_there_is_one() {
        assert_eq!(length(1, None), "1 word");
        assert_eq!(length(312, Some(0)), "312 words");
        assert_eq!(length(312, Some(750)), "312 of 750 words");
    }

    #[test]
    fn a_hand_edited_size_stays_within_what_settings_offers() {
        let settings = Settings {
            page_text_size: 400,
            page_line_length: 0,
            ..Settings::default()
        };
        let style = PageStyle::of(&settings);
        assert_eq!(style.text_size, *TEXT_SIZES.end() as f32);
        assert_eq!(style.line_chars, *LINE_LENGTHS.start() as f32);
    }
}
