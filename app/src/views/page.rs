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
use super::photos::PagePhotos;
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

    /// How the page's Markdown is set ([`markdown`]): the body font at the page's line
    /// height, in the theme's colours.
    fn looks(&self, ui: &egui::Ui) -> Looks {
        let visuals = ui.visuals();
        let size = self.text_size;
        Looks {
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
            photos: Vec::new(),
        }
    }
}

/// The page's text as last laid out, line by line, for the text field's layouter.
///
/// egui lays out a text of several lines one line at a time and keeps each line's
/// galley in its cache, so typing lays out only the line typed in; but to find them it
/// hashes the whole text every frame, and it drops every line not asked for in a frame.
/// Here the page keeps its lines' galleys itself. A frame in which the text, its width,
/// its style, the theme and the fonts did not change (the cursor blinking, a repaint for
/// a thread's answer) takes the last galley as it is; a keystroke lays out again only
/// the lines that changed (those between the unchanged lines at the start and at the
/// end) and joins all of them as egui does ([`Galley::concat`]). Texts are compared as
/// bytes, far cheaper than styling or hashing them.
#[derive(Default)]
pub struct LaidOut {
    key: Option<LayoutKey>,
    text: String,
    galley: Option<Arc<Galley>>,
    /// The last text's paragraphs ([`Paragraph`]), each with its galley.
    lines: Vec<(Paragraph<String>, Arc<Galley>)>,
}

/// Everything a laid-out page depends on beside its text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LayoutKey {
    style: PageStyle,
    wrap_width: f32,
    dark: bool,
    pixels_per_point: f32,
    fonts_since: u64,
    /// Which photos the text can place ([`PagePhotos::generation`]).
    photos: u64,
}

impl LaidOut {
    /// `text` laid out by `style`, Markdown styled, with room for the photos it places,
    /// reusing what did not change.
    pub fn get(
        &mut self,
        ui: &egui::Ui,
        style: &PageStyle,
        photos: &PagePhotos,
        text: &dyn TextBuffer,
        wrap_width: f32,
    ) -> Arc<Galley> {
        let ctx = ui.ctx();
        let fonts_since = fonts::in_use_since(ctx);
        let key = LayoutKey {
            style: *style,
            // As egui rounds it before laying out.
            wrap_width: if wrap_width.is_finite() {
                wrap_width.round()
            } else {
                wrap_width
            },
            dark: ui.visuals().dark_mode,
            pixels_per_point: ctx.pixels_per_point(),
            fonts_since,
            photos: photos.generation(),
        };
        let text = text.as_str();
        if self.key != Some(key) {
            self.lines.clear();
        } else if let Some(galley) = self.galley.as_ref().filter(|_| self.text == text) {
            return Arc::clone(galley);
        }
        let looks = Looks {
            photos: photos.heights(key.wrap_width),
            ..style.looks(ui)
        };
        let mut job = markdown::layout_job(text, &looks);
        job.wrap.max_width = key.wrap_width;
        let galley = if text.contains('\n') {
            let lines = self.lay_out_lines(ui, text, &looks, key.wrap_width);
            let galleys: Vec<Arc<Galley>> = lines.iter().map(|(_, g)| Arc::clone(g)).collect();
            let galley = Arc::new(Galley::concat(Arc::new(job), &galleys, key.pixels_per_point));
            self.lines = lines;
            galley
        } else {
            self.lines.clear();
            ui.fonts_mut(|f| f.layout_job(job))
        };
        if ctx.cumulative_pass_nr() >= fonts_since {
            // Not laid out in fonts about to be replaced.
            self.key = Some(key);
            self.text.clear();
            self.text.push_str(text);
            self.galley = Some(Arc::clone(&galley));
        } else {
            self.key = None;
        }
        galley
    }

    /// `text`'s lines with their galleys: the last text's where the lines at the start
    /// and at the end are the same, the others laid out now.
    fn lay_out_lines(
        &mut self,
        ui: &egui::Ui,
        text: &str,
        looks: &Looks,
        wrap_width: f32,
    ) -> Vec<(Paragraph<String>, Arc<Galley>)> {
        let lines = paragraphs(text);
        let old = std::mem::take(&mut self.lines);
        let same = |(kept, _): &(Paragraph<String>, Arc<Galley>), new: &Paragraph<&str>| kept.same_as(new);
        let same_start = old.iter().zip(&lines).take_while(|(a, b)| same(a, b)).count();
        let same_end = old[same_start..]
            .iter()
            .rev()
            .zip(lines[same_start..].iter().rev())
            .take_while(|(a, b)| same(a, b))
            .count();
        let mut old = old.into_iter();
        let mut laid_out: Vec<(Paragraph<String>, Arc<Galley>)> = old.by_ref().take(same_start).collect();
        let kept_end: Vec<(Paragraph<String>, Arc<Galley>)> = old.rev().take(same_end).collect();
        for line in &lines[same_start..lines.len() - same_end] {
            let job = line.job(looks, wrap_width);
            laid_out.push((line.owned(), ui.fonts_mut(|f| f.layout_job(job))));
        }
        laid_out.extend(kept_end.into_iter().rev());
        laid_out
    }
}

/// A paragraph as egui splits a text to lay out each alone: its line with the newline
/// after it, if one is (the line is styled with it), and whether that newline is cut
/// off (it is, except the newline ending the text, which the last paragraph holds).
#[derive(Debug, Clone, PartialEq)]
struct Paragraph<S> {
    styled: S,
    cut_newline: bool,
}

impl Paragraph<&str> {
    fn owned(&self) -> Paragraph<String> {
        Paragraph {
            styled: self.styled.to_owned(),
            cut_newline: self.cut_newline,
        }
    }

    /// Its job as egui makes it from the whole text's: the line styled with its newline,
    /// the newline then cut off and each style cut to what is left, even to nothing (an
    /// empty line keeps its style's height).
    fn job(&self, looks: &Looks, wrap_width: f32) -> egui::text::LayoutJob {
        let mut job = markdown::layout_job(self.styled, looks);
        if self.cut_newline {
            let len = self.styled.len() - 1;
            job.text.truncate(len);
            for section in &mut job.sections {
                section.byte_range = section.byte_range.start.min(len)..section.byte_range.end.min(len);
            }
        }
        job.wrap.max_width = wrap_width;
        job
    }
}

impl Paragraph<String> {
    fn same_as(&self, other: &Paragraph<&str>) -> bool {
        self.cut_newline == other.cut_newline && self.styled == other.styled
    }
}

/// `text`'s paragraphs, as egui splits it: at each newline but one ending the text.
fn paragraphs(text: &str) -> Vec<Paragraph<&str>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let holds_newline = end == text.len() - 1 && text.ends_with('\n');
        if holds_newline {
            end += 1;
        }
        let cut_newline = end < text.len();
        out.push(Paragraph {
            styled: &text[start..(end + 1).min(text.len())],
            cut_newline,
        });
        start = end + 1;
    }
    out
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

    /// What the page's galley must be: the whole text laid out by egui at once.
    fn as_egui_lays_it_out(ui: &egui::Ui, style: &PageStyle, text: &str, width: f32) -> Arc<Galley> {
        let mut job = markdown::layout_job(text, &style.looks(ui));
        job.wrap.max_width = width;
        ui.fonts_mut(|f| f.layout_job(job))
    }

    /// Rows as their text, position and size: what the field draws and places the cursor by.
    fn rows_of(galley: &Galley) -> Vec<(String, [i32; 4])> {
        galley
            .rows
            .iter()
            .map(|row| {
                let rect = row.rect();
                let text: String = row.glyphs.iter().map(|g| g.chr).collect();
                (
                    text,
                    [rect.min.x, rect.min.y, rect.max.x, rect.max.y].map(|v| (v * 100.0) as i32),
                )
            })
            .collect()
    }

    #[test]
    fn a_page_laid_out_line_by_line_is_the_page_egui_lays_out() {
        let ctx = egui::Context::default();
        let style = PageStyle::default();
        let texts = [
            "# A day\n\nWalked to the **river** and back, a long way round through the fields and the woods behind the farm.\n- one\n- [x] two\n",
            "# A day\n\nWalked to the **river** and back, a long way round through the fields and the woods behind the old farm.\n- one\n- [x] two\n",
            "# A day\n\nWalked to the **river** and back, a long way round through the fields and the woods behind the old farm.\n- one\n- [x] two\nthree",
            "no newline at all",
            "",
        ];
        let mut laid_out = LaidOut::default();
        fonts::install(&ctx);
        let _ = ctx.run(egui::RawInput::default(), |_| {}); // the reading faces in use
        let _ = ctx.run(egui::RawInput::default(), |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                for text in texts {
                    for _ in 0..2 {
                        let galley = laid_out.get(ui, &style, &PagePhotos::default(), &text, 300.0);
                        let expected = as_egui_lays_it_out(ui, &style, text, 300.0);
                        assert_eq!(galley.text(), text);
                        assert_eq!(rows_of(&galley), rows_of(&expected), "{text:?}");
                        assert_eq!(galley.size(), expected.size());
                    }
                }
            });
        });
    }

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
