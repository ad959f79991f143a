//! Settings → Templates: each template's name, text and the weekdays on which a new
//! page starts from it, saved one at a time; a new one; deleting one. Edits not saved
//! yet stay when the list is read again after another template's save.

use chrono::Weekday;
use egui::RichText;

use mindsage_core::db::templates::Template;

use super::Action;
use crate::protocol::Request;

const WEEKDAYS: [(Weekday, &str); 7] = [
    (Weekday::Mon, "Mo"),
    (Weekday::Tue, "Tu"),
    (Weekday::Wed, "We"),
    (Weekday::Thu, "Th"),
    (Weekday::Fri, "Fr"),
    (Weekday::Sat, "Sa"),
    (Weekday::Sun, "Su"),
];

#[derive(Default)]
pub struct TemplateEditor {
    /// As the journal holds them, once read.
    saved: Option<Vec<Template>>,
    /// As edited here: the saved ones, changed or not, and a new one (id 0) at the end.
    edits: Vec<Template>,
}

/// What the person asked of one template.
enum Asked {
    Save,
    Delete,
}

impl TemplateEditor {
    /// The templates were read (after a change, too): edits not saved stay.
    pub fn on_templates(&mut self, list: Vec<Template>) {
        let saved = self.saved.take().unwrap_or_default();
        let edited = |id: i64| {
            let old = saved.iter().find(|t| t.id == id)?;
            self.edits
                .iter()
                .find(|e| e.id == id)
                .filter(|e| *e != old)
                .cloned()
        };
        let mut edits: Vec<Template> = list
            .iter()
            .map(|t| edited(t.id).unwrap_or_else(|| t.clone()))
            .collect();
        edits.extend(self.edits.iter().filter(|e| e.id == 0).cloned());
        self.edits = edits;
        self.saved = Some(list);
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.label(RichText::new("Templates").strong());
        if self.saved.is_none() {
            ui.spinner();
            return;
        }
        ui.label(
            RichText::new(
                "A new page can start from a template: choose one on the page, or mark the days \
                 a new page starts from it by itself. {{date}}, {{weekday}}, {{time}} and \
                 {{prompt}} (the day's question) are filled in.",
            )
            .weak(),
        );
        let mut asked = None;
        for (n, template) in self.edits.iter_mut().enumerate() {
            let saved = self
                .saved
                .as_deref()
                .and_then(|s| s.iter().find(|t| t.id == template.id && template.id != 0));
            let title = if template.name.trim().is_empty() {
                "New template"
            } else {
                template.name.as_str()
            };
            let changed = saved != Some(&*template);
            egui::CollapsingHeader::new(if changed {
                format!("{title} (not saved)")
            } else {
                title.to_owned()
            })
            .id_salt(("template", n))
            .default_open(template.id == 0)
            .show(ui, |ui| {
                if let Some(ask) = template_ui(ui, template, changed) {
                    asked = Some((n, ask));
                }
            });
        }
        if let Some((n, ask)) = asked {
            let template = &self.edits[n];
            match ask {
                Asked::Save => {
                    actions.push(Action::Send(Request::SaveTemplate(template.clone())));
                    if template.id == 0 {
                        // It comes back with the list, under its id.
                        self.edits.remove(n);
                    }
                }
                Asked::Delete if template.id == 0 => {
                    self.edits.remove(n);
                }
                Asked::Delete => actions.push(Action::Send(Request::DeleteTemplate(template.id))),
            }
        }
        if !self.edits.iter().any(|t| t.id == 0) && ui.button("New template").clicked() {
            self.edits.push(Template::default());
        }
    }
}

/// One template's fields; returns Save or Delete when pressed.
fn template_ui(ui: &mut egui::Ui, template: &mut Template, changed: bool) -> Option<Asked> {
    let mut asked = None;
    ui.horizontal(|ui| {
        let label = ui.label("Name");
        ui.add(egui::TextEdit::singleline(&mut template.name).desired_width(240.0))
            .labelled_by(label.id);
    });
    let label = ui.label("Text");
    ui.add(
        egui::TextEdit::multiline(&mut template.body)
            .desired_rows(5)
            .desired_width(f32::INFINITY),
    )
    .labelled_by(label.id);
    ui.horizontal(|ui| {
        ui.label("New pages on");
        for (day, name) in WEEKDAYS {
            let mut on = template.on(day);
            if ui.checkbox(&mut on, name).changed() {
                template.set_on(day, on);
            }
        }
    });
    ui.horizontal(|ui| {
        let can_save = changed && !template.name.trim().is_empty();
        if ui
            .add_enabled(can_save, egui::Button::new("Save template"))
            .on_disabled_hover_text("Give it a name and change something first")
            .clicked()
        {
            asked = Some(Asked::Save);
        }
        if ui.button("Delete template").clicked() {
            asked = Some(Asked::Delete);
        }
    });
    asked
}
