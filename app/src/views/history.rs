//! An entry's earlier versions under the editor: when each was written, its title and
//! the start of its text, and Bring back (the text on screen is kept as a version
//! first, see `mindsage_core::db::history`).

use egui::{CollapsingHeader, RichText};
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
    pub fn ui(&mut self, ui: &mut egui::Ui, entry: EntryId, can_bring_back: bool, actions: &mut Vec<Action>) {
        let header = CollapsingHeader::new("Earlier versions")
            .id_salt(("history", entry))
            .show(ui, |ui| match &self.loaded {
                Some((shown, Some(versions))) if *shown == entry => {
                    versions_ui(ui, entry, versions, can_bring_back, actions)
                }
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
        }
    }
}

fn versions_ui(
    ui: &mut egui::Ui,
    entry: EntryId,
    versions: &[Version],
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
        ui.horizontal(|ui| {
            ui.label(RichText::new(display_time(&version.written_at)).weak());
            let shown = if version.title.is_empty() {
                preview_of(&version.body)
            } else {
                version.title.clone()
            };
            ui.label(shown);
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
    }
}
