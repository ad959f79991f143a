//! An entry's earlier versions under the editor: when each was written, its title and
//! the start of its text, Show (what it said, its changes against the text on the page
//! marked) and Bring back (the text on screen is kept as a version first, see
//! `mindsage_core::db::history`).

use egui::text::{LayoutJob, TextFormat};
use egui::{CollapsingHeader, RichText, Stroke};
use mindsage_core::compare::{self, Part};
use mindsage_core::db::EntryId;
use mindsage_core::db::entries::preview_of;
use mindsage_core::db::history::Version;

use super::{Action, display_time};
use crate::protocol::Request;

/// The versions read for the entry on screen.
#[derive(Debug, Default)]
pub struct History {
    /// The entry they belong to, once asked for, and the answer once it came.
    loaded: Option<(EntryId, Option<Vec<Version>>)>,
    /// The version shown in full, compared once with the text it was compared with.
    shown: Option<Shown>,
}

/// A version shown in full: its text with the changes against the page's text marked.
#[derive(Debug)]
struct Shown {
    version: i64,
    /// The page's text it was compared with: compared again when that changes.
    against: String,
    parts: Vec<Part>,
}

impl History {
    /// The versions of `entry`, as read; kept only if that entry is still the one shown.
    pub fn on_versions(&mut self, entry: EntryId, versions: Vec<Version>) {
        if matches!(self.loaded, Some((shown, _)) if shown == entry) {
            self.loaded = Some((entry, Some(versions)));
        }
    }

    /// The collapsed "Earlier versions" section of entry `entry`; reads them when first
    /// opened. `can_bring_back` is false while edits are unsaved (they would race).
    /// `text` is the text on the page, which a version shown is compared with.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        entry: EntryId,
        text: &str,
        can_bring_back: bool,
        actions: &mut Vec<Action>,
    ) {
        let header = CollapsingHeader::new("Earlier versions")
            .id_salt(("history", entry))
            .show(ui, |ui| match &self.loaded {
                Some((shown, Some(versions))) if *shown == entry => versions_ui(
                    ui,
                    entry,
                    versions,
                    text,
                    &mut self.shown,
                    can_bring_back,
                    actions,
                ),
                _ => {
                    ui.spinner();
                }
            });
        let open = header.body_returned.is_some();
        let asked = matches!(self.loaded, Some((shown, _)) if shown == entry);
        if open && !asked {
            self.loaded = Some((entry, None));
            actions.push(Action::Send(Request::History(entry)));
        }
        if !open && asked {
            // Read again when opened again: saves since then made new versions.
            self.loaded = None;
            self.shown = None;
        }
    }
}

fn versions_ui(
    ui: &mut egui::Ui,
    entry: EntryId,
    versions: &[Version],
    text: &str,
    shown: &mut Option<Shown>,
    can_bring_back: bool,
    actions: &mut Vec<Action>,
) {
    if versions.is_empty() {
        ui.label(
            RichText::new("No earlier versions: the text has not been changed since it was written.").weak(),
        );
        return;
    }
    for version in versions {
        let open = shown.as_ref().is_some_and(|s| s.version == version.id);
        ui.horizontal(|ui| {
            ui.label(RichText::new(display_time(&version.written_at)).weak());
            let first_line = if version.title.is_empty() {
                preview_of(&version.body)
            } else {
                version.title.clone()
            };
            ui.label(first_line);
            let show = ui
                .small_button(if open { "Hide" } else { "Show" })
                .on_hover_text("What this version said, its changes since marked");
            if show.clicked() {
                *shown = (!open).then(|| Shown::compared(version, text));
            }
            let bring_back = ui
                .add_enabled(can_bring_back, egui::Button::new("Bring back"))
                .on_hover_text("The text on screen is kept as a version first")
                .on_disabled_hover_text("Wait until your edits are saved");
            if bring_back.clicked() {
                actions.push(Action::Send(Request::BringBack {
                    entry,
                    version: version.id,
                }));
            }
        });
        if let Some(preview) = shown.as_mut().filter(|s| s.version == version.id) {
            if preview.against != text {
                *preview = Shown::compared(version, text);
            }
            preview_ui(ui, version, &preview.parts);
        }
    }
}

impl Shown {
    /// `version` compared with `text`, the text on the page.
    fn compared(version: &Version, text: &str) -> Shown {
        Shown {
            version: version.id,
            against: text.to_owned(),
            parts: compare::changes(&version.body, text),
        }
    }
}

/// What a version said: its title, then its text with what is only in it highlighted
/// and what was written since struck through, under a line that says so.
fn preview_ui(ui: &mut egui::Ui, version: &Version, parts: &[Part]) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        let changed = parts.iter().any(|p| !matches!(p, Part::Same(_)));
        let key = if changed {
            "Compared with the page now: highlighted words are only in this version, struck-through words were written since."
        } else {
            "The same text as the page now."
        };
        ui.label(RichText::new(key).weak().small());
        if !version.title.is_empty() {
            ui.label(RichText::new(&version.title).strong());
        }
        ui.label(marked(ui, parts));
    });
}

/// The parts as one text: a version's words plain, the words only in it highlighted,
/// the words written since struck through and dimmed.
fn marked(ui: &egui::Ui, parts: &[Part]) -> LayoutJob {
    let visuals = ui.visuals();
    let plain = TextFormat {
        font_id: egui::TextStyle::Body.resolve(ui.style()),
        color: visuals.text_color(),
        ..TextFormat::default()
    };
    let mut job = LayoutJob::default();
    let mut after_removed = false;
    for part in parts {
        if after_removed && matches!(part, Part::Added(_)) {
            // A word replaced: the version's and the new one read apart.
            job.append("\u{2009}", 0.0, plain.clone());
        }
        after_removed = matches!(part, Part::Removed(_));
        let (text, format) = match part {
            Part::Same(text) => (text, plain.clone()),
            Part::Removed(text) => (
                text,
                TextFormat {
                    background: visuals.selection.bg_fill.gamma_multiply(0.6),
                    ..plain.clone()
                },
            ),
            Part::Added(text) => (
                text,
                TextFormat {
                    color: visuals.weak_text_color(),
                    strikethrough: Stroke::new(1.0, visuals.weak_text_color()),
                    ..plain.clone()
                },
            ),
        };
        job.append(text, 0.0, format);
    }
    job.wrap.max_width = ui.available_width();
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is only in the version is highlighted, what was written since is struck
    /// through, the rest is plain.
    #[test]
    fn the_marks_follow_the_parts() {
        let ctx = egui::Context::default();
        let mut formats = Vec::new();
        let _ = ctx.run(egui::RawInput::default(), |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                let parts = compare::changes("Boats at dawn.", "Ships at dawn.");
                let job = marked(ui, &parts);
                formats = job
                    .sections
                    .iter()
                    .map(|s| {
                        let text = &job.text[s.byte_range.clone()];
                        let kind = match (s.format.background.a() > 0, s.format.strikethrough.width > 0.0) {
                            (true, false) => "only in the version",
                            (false, true) => "written since",
                            (false, false) => "plain",
                            (true, true) => "both",
                        };
                        (text.to_owned(), kind)
                    })
                    .collect();
            });
        });
        assert_eq!(
            formats,
            [
                ("Boats".to_owned(), "only in the version"),
                ("\u{2009}".to_owned(), "plain"),
                ("Ships".to_owned(), "written since"),
                (" at dawn.".to_owned(), "plain"),
            ]
        );
    }
}
