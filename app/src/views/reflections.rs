//! Reflections: the local model's short look back over each week and month that ended
//! (`db::reflections`), latest first. Each sentence is followed by the days of the
//! entries it came from, and a click on one opens that entry in the journal. They are
//! written in the background once the entries' own work is done, and again when an
//! entry of their period changes; meanwhile the last one written stays, marked as
//! being written again.

use std::collections::HashMap;

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::EntryRow;
use mindsage_core::db::reflections::{Reflection, State};

use super::{Action, Screen};
use crate::protocol::Request;
use crate::wording::{entry_title, plain};

#[derive(Default)]
pub struct ReflectionsView {
    /// The latest reflections, once read.
    reflections: Option<Vec<Reflection>>,
    /// The entries they cite, by id.
    cited: HashMap<EntryId, EntryRow>,
    /// Something was written since they were read.
    stale: bool,
    requested: bool,
    /// Reflections the model's runner had written when last heard from.
    reflected: u64,
}

impl ReflectionsView {
    /// The journal changed (or the screen is shown again): read again when next drawn.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// The runner's count of reflections written: a new one is read when next drawn.
    /// Returns whether one was written.
    pub fn on_reflected(&mut self, reflected: u64) -> bool {
        let written = reflected > self.reflected;
        self.reflected = reflected;
        self.stale |= written;
        written
    }

    pub fn on_reflections(&mut self, reflections: Vec<Reflection>, entries: Vec<EntryRow>) {
        self.requested = false;
        self.cited = entries.into_iter().map(|row| (row.id, row)).collect();
        self.reflections = Some(reflections);
    }

    fn reflection_ui(&self, ui: &mut egui::Ui, reflection: &Reflection, actions: &mut Vec<Action>) {
        let heading = reflection.period.named(reflection.first_day);
        ui.label(RichText::new(heading).strong());
        if let Some(note) = state_note(reflection) {
            ui.label(RichText::new(note).weak().small());
        }
        for sentence in &reflection.sentences {
            ui.horizontal_wrapped(|ui| {
                ui.label(&sentence.text);
                for id in &sentence.entries {
                    // An entry trashed since is not offered; the reflection is being
                    // written again without it.
                    if let Some(row) = self.cited.get(id)
                        && source_ui(ui, row).clicked()
                    {
                        actions.push(Action::OpenEntry(*id));
                    }
                }
            });
        }
    }
}

impl Screen for ReflectionsView {
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if (self.reflections.is_none() || self.stale) && !self.requested {
            actions.push(Action::Send(Request::Reflections));
            self.requested = true;
            self.stale = false;
        }
        egui::CentralPanel::default().show_inside(ui, |ui| {
            ui.heading("Reflections");
            ui.label(
                RichText::new(
                    "When a week or a month ends, the local model looks back on it from your entries. \
                     Each sentence names the entries it comes from.",
                )
                .weak(),
            );
            ui.add_space(8.0);
            let Some(reflections) = &self.reflections else {
                ui.label(RichText::new("Reading…").weak());
                return;
            };
            if reflections.is_empty() {
                ui.label(RichText::new(NONE_YET).weak());
                return;
            }
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    for reflection in reflections {
                        self.reflection_ui(ui, reflection, actions);
                        ui.add_space(10.0);
                    }
                });
        });
    }
}

/// What the screen says before any week or month has ended with entries in it.
const NONE_YET: &str = "Nothing to look back on yet: the first reflection comes when a week with \
entries ends.";

/// What is under way with a reflection, when something is.
fn state_note(reflection: &Reflection) -> Option<&'static str> {
    match (reflection.state, reflection.sentences.is_empty()) {
        (State::Done, true) => Some("Its entries have all gone to the trash."),
        (State::Done, false) => None,
        (State::Pending, true) => Some("To be written once the model has read its entries."),
        (State::Pending, false) => Some("An entry changed: being written again."),
        (State::Failed, _) => {
            Some("The model could not write this one; it tries again when an entry changes.")
        }
    }
}

/// A cited entry as a small link: its day, its title on hover.
fn source_ui(ui: &mut egui::Ui, row: &EntryRow) -> egui::Response {
    let day = row
        .lived()
        .map(|lived| lived.format("%a %-d %b").to_string())
        .unwrap_or_default();
    let words = RichText::new(day).small().color(ui.visuals().hyperlink_color);
    ui.add(egui::Button::new(words).frame(false))
        .on_hover_text(plain(&entry_title(&row.title, &row.preview)).into_owned())
}
