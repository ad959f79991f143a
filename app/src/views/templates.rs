//! Templates on a new page: *Start from* offers each by name while the page is
//! untouched, and a template marked for the page's weekday fills it by itself. What a
//! template fills in is not saved until the person types, like an empty page (see
//! `mindsage_core::db::templates` for the placeholders).

use egui::RichText;

use mindsage_core::db::templates::{self, Template};

use super::Action;
use crate::protocol::Request;

/// The templates as last read: asked for once, read again after every change.
#[derive(Default)]
pub struct Templates {
    list: Option<Vec<Template>>,
    asked: bool,
}

impl Templates {
    /// Asks for them the first time they are wanted.
    pub fn ask(&mut self, actions: &mut Vec<Action>) {
        if !self.asked {
            self.asked = true;
            actions.push(Action::Send(Request::Templates));
        }
    }

    pub fn on_templates(&mut self, list: Vec<Template>) {
        self.list = Some(list);
    }

    /// The template a new page of `day` starts from by itself, once they are read.
    /// `None` until they are; then `Some(None)` when no template is for that day.
    pub fn for_day(&self, day: chrono::NaiveDate) -> Option<Option<&Template>> {
        self.list.as_deref().map(|list| templates::for_day(list, day))
    }

    /// *Start from* and a button per template; returns the one chosen.
    pub fn picker_ui(&self, ui: &mut egui::Ui) -> Option<&Template> {
        let list = self.list.as_deref().filter(|l| !l.is_empty())?;
        let mut chosen = None;
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Start from:").weak().small());
            for template in list {
                if ui
                    .small_button(&template.name)
                    .on_hover_text("Fill the page with this template; nothing is saved until you type")
                    .clicked()
                {
                    chosen = Some(template);
                }
            }
        });
        chosen
    }
}
