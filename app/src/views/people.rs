//! People & places: everyone and everywhere the journal mentions, and what the writer
//! does, as the local model found them (`db::memory`). A list on the left (people, then
//! places, then activities, most mentioned first, with a box to find one); the chosen
//! one on the right with how often and when (a bar per month), its entries, and what the
//! person can correct: the name, how they are related to the writer, hidden or shown,
//! "same as" another (merged), and "someone else" for an entry that means another of
//! the same name (split off). Corrections are the person's: the model's later readings
//! never undo them.

use std::collections::BTreeMap;

use egui::{Color32, RichText, Sense, vec2};

use mindsage_core::db::entries::EntryRow;
use mindsage_core::db::memory::{Correction, Kind, Subject, SubjectId};

use super::{Action, Screen, display_lived};
use crate::protocol::Request;
use crate::wording::{self, entry_title};

/// Months the timeline shows at most: the latest ones.
const TIMELINE_MONTHS: usize = 24;

#[derive(Default)]
pub struct PeopleView {
    /// Everyone and everything remembered, once read.
    subjects: Option<Vec<Subject>>,
    /// Something was written since they were read.
    stale: bool,
    requested: bool,
    /// Typed into the find box.
    find: String,
    show_hidden: bool,
    selected: Option<SubjectId>,
    /// The selected one's newest entries, once read.
    rows: Option<(SubjectId, Vec<EntryRow>)>,
    /// The name and relation fields of the selected one, as the person is typing them.
    name: String,
    relation: String,
    /// What the journal held when the fields were last filled: a field still equal to it
    /// is untouched, and follows the journal; one the person changed stays theirs.
    filled: (String, String),
    /// Another of the same kind chosen under "Same as".
    same_as: Option<SubjectId>,
}

impl PeopleView {
    /// The journal changed (or the screen is shown again): read again when next drawn.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    pub fn on_memory(&mut self, subjects: Vec<Subject>) {
        self.requested = false;
        if let Some(selected) = self.selected {
            match subjects.iter().find(|s| s.id == selected) {
                Some(subject) => self.take_fields(subject),
                None => self.selected = None,
            }
        }
        self.subjects = Some(subjects);
    }

    pub fn on_entries(&mut self, subject: SubjectId, rows: Vec<EntryRow>) {
        if self.selected == Some(subject) {
            self.rows = Some((subject, rows));
        }
    }

    /// A correction was written: show what it left (the new one of a split).
    pub fn on_corrected(&mut self, subjects: Vec<Subject>, subject: SubjectId, rows: Vec<EntryRow>) {
        if self.selected != Some(subject)
            && let Some(new) = subjects.iter().find(|s| s.id == subject)
        {
            self.fill_fields(new);
        }
        self.selected = Some(subject);
        self.rows = Some((subject, rows));
        self.same_as = None;
        self.on_memory(subjects);
    }

    /// The journal's name and relation for the fields the person has not changed since
    /// they were filled: a read while they type (the model's work goes on) never
    /// rewrites what they typed.
    fn take_fields(&mut self, subject: &Subject) {
        if self.name == self.filled.0 {
            self.name = subject.name.clone();
        }
        if self.relation == self.filled.1 {
            self.relation = subject.relation.clone();
        }
        self.filled = (subject.name.clone(), subject.relation.clone());
    }

    /// The fields filled afresh, for a subject just chosen.
    fn fill_fields(&mut self, subject: &Subject) {
        self.name = subject.name.clone();
        self.relation = subject.relation.clone();
        self.filled = (subject.name.clone(), subject.relation.clone());
    }

    fn select(&mut self, subject: &Subject, actions: &mut Vec<Action>) {
        self.selected = Some(subject.id);
        self.rows = None;
        self.same_as = None;
        self.fill_fields(subject);
        actions.push(Action::Send(Request::MemoryEntries(subject.id)));
    }

    fn correct(&self, subject: SubjectId, correction: Correction, actions: &mut Vec<Action>) {
        actions.push(Action::Send(Request::CorrectMemory { subject, correction }));
    }

    /// The list: the find box, "Show hidden", and a section per kind.
    fn list_ui(&mut self, ui: &mut egui::Ui, subjects: &[Subject], actions: &mut Vec<Action>) {
        ui.add(
            egui::TextEdit::singleline(&mut self.find)
                .hint_text("Find a person or place")
                .desired_width(f32::INFINITY),
        )
        .widget_info(|| {
            egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Find a person or place")
        });
        ui.checkbox(&mut self.show_hidden, "Show hidden");
        let find = self.find.trim().to_lowercase();
        let shown: Vec<&Subject> = subjects
            .iter()
            .filter(|s| self.show_hidden || !s.hidden)
            .filter(|s| {
                find.is_empty() || s.name.to_lowercase().contains(&find) || s.relation.contains(&find)
            })
            .collect();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if shown.is_empty() {
                    ui.label(RichText::new(empty_list(subjects.is_empty())).weak());
                }
                for kind in Kind::ALL {
                    let of_kind: Vec<&&Subject> = shown.iter().filter(|s| s.kind == kind).collect();
                    if of_kind.is_empty() {
                        continue;
                    }
                    ui.add_space(6.0);
                    ui.label(RichText::new(kind_heading(kind)).strong());
                    for subject in of_kind {
                        ui.horizontal(|ui| {
                            let chosen = self.selected == Some(subject.id);
                            if ui.selectable_label(chosen, list_name(subject)).clicked() {
                                self.select(subject, actions);
                            }
                            ui.label(RichText::new(subject.entries.to_string()).weak());
                        });
                    }
                }
            });
    }

    /// The chosen one: its name, figures, timeline, corrections and entries.
    fn subject_ui(
        &mut self,
        ui: &mut egui::Ui,
        subject: &Subject,
        others: &[&Subject],
        actions: &mut Vec<Action>,
    ) {
        ui.heading(&subject.name);
        if wording::subject_name(subject) != subject.name {
            ui.label(RichText::new(format!("Your {}", subject.relation)).weak());
        }
        ui.label(figures(subject));
        let read = self.rows.take();
        let rows = read
            .as_ref()
            .filter(|(id, _)| *id == subject.id)
            .map(|(_, rows)| rows.as_slice());
        if let Some(rows) = rows {
            timeline_ui(ui, rows);
        }
        ui.add_space(8.0);
        self.corrections_ui(ui, subject, others, actions);
        ui.add_space(8.0);
        ui.separator();
        match rows {
            None => {
                ui.label(RichText::new("Reading its entries…").weak());
            }
            Some(rows) => self.entries_ui(ui, subject, rows, actions),
        }
        // Answers arrive between frames: nothing replaced them while drawing.
        self.rows = read;
    }

    /// Rename, relate, hide or show, and "same as".
    fn corrections_ui(
        &mut self,
        ui: &mut egui::Ui,
        subject: &Subject,
        others: &[&Subject],
        actions: &mut Vec<Action>,
    ) {
        egui::Grid::new("memory_corrections")
            .num_columns(3)
            .spacing([8.0, 6.0])
            .show(ui, |ui| {
                ui.label("Name");
                let field = ui.add(egui::TextEdit::singleline(&mut self.name).desired_width(220.0));
                field.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Name"));
                let changed = self.name.trim() != subject.name && !self.name.trim().is_empty();
                let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.add_enabled(changed, egui::Button::new("Rename")).clicked() || (changed && entered) {
                    self.correct(
                        subject.id,
                        Correction::Rename(self.name.trim().to_owned()),
                        actions,
                    );
                }
                ui.end_row();

                if subject.kind == Kind::Person {
                    ui.label("Who they are to you");
                    let field = ui.add(
                        egui::TextEdit::singleline(&mut self.relation)
                            .hint_text("sister, friend, colleague…")
                            .desired_width(220.0),
                    );
                    field.widget_info(|| {
                        egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Who they are to you")
                    });
                    let changed = self.relation.trim() != subject.relation;
                    let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if ui.add_enabled(changed, egui::Button::new("Save")).clicked() || (changed && entered) {
                        let relation = self.relation.trim().to_lowercase();
                        self.correct(subject.id, Correction::Relate(relation), actions);
                    }
                    ui.end_row();
                }

                if others.is_empty() {
                    return;
                }
                ui.label("Same as");
                let chosen = self
                    .same_as
                    .and_then(|id| others.iter().find(|o| o.id == id))
                    .map_or_else(|| "Choose…".to_owned(), |o| list_name(o));
                egui::ComboBox::from_id_salt("memory_same_as")
                    .selected_text(chosen)
                    .width(220.0)
                    .show_ui(ui, |ui| {
                        for other in others {
                            ui.selectable_value(&mut self.same_as, Some(other.id), list_name(other));
                        }
                    });
                let merge = ui.add_enabled(self.same_as.is_some(), egui::Button::new("Merge"));
                if merge
                    .on_hover_text(format!("Their entries and names become {}'s", subject.name))
                    .clicked()
                    && let Some(other) = self.same_as.take()
                {
                    self.correct(subject.id, Correction::Absorb(other), actions);
                }
                ui.end_row();
            });
        let (label, hide) = if subject.hidden {
            ("Show again", false)
        } else {
            ("Hide", true)
        };
        if ui
            .button(label)
            .on_hover_text("Hidden ones stay in the journal, out of this list")
            .clicked()
        {
            self.correct(subject.id, Correction::Hide(hide), actions);
        }
    }

    /// The entries that mention it, newest first; each opens in the journal, and
    /// "Someone else" moves it to another of the same name.
    fn entries_ui(&self, ui: &mut egui::Ui, subject: &Subject, rows: &[EntryRow], actions: &mut Vec<Action>) {
        ui.label(RichText::new(wording::entries(subject.entries as usize)).strong());
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for row in rows {
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(display_lived(&row.created_at, row.utc_offset)).weak());
                        if ui.link(entry_title(&row.title, &row.preview)).clicked() {
                            actions.push(Action::OpenEntry(row.id));
                        }
                        if subject.entries > 1
                            && ui
                                .small_button("Someone else")
                                .on_hover_text(format!("This entry means another {}", subject.name))
                                .clicked()
                        {
                            let split = Correction::Split {
                                entries: vec![row.id],
                                name: format!("{} (another)", subject.name),
                            };
                            self.correct(subject.id, split, actions);
                        }
                    });
                }
            });
    }
}

impl Screen for PeopleView {
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if (self.subjects.is_none() || self.stale) && !self.requested {
            actions.push(Action::Send(Request::Memory));
            if let Some(selected) = self.selected {
                actions.push(Action::Send(Request::MemoryEntries(selected)));
            }
            self.requested = true;
            self.stale = false;
        }
        let Some(subjects) = self.subjects.take() else {
            egui::CentralPanel::default().show_inside(ui, |ui| {
                ui.label("Reading…");
            });
            return;
        };
        egui::SidePanel::left("people_list")
            .resizable(true)
            .default_width(300.0)
            .show_inside(ui, |ui| self.list_ui(ui, &subjects, actions));
        egui::CentralPanel::default().show_inside(ui, |ui| {
            match self.selected.and_then(|id| subjects.iter().find(|s| s.id == id)) {
                Some(subject) => {
                    let others: Vec<&Subject> = subjects
                        .iter()
                        .filter(|s| s.kind == subject.kind && s.id != subject.id)
                        .collect();
                    self.subject_ui(ui, subject, &others, actions);
                }
                None => {
                    ui.label(RichText::new(choose_one(subjects.is_empty())).weak());
                }
            }
        });
        // Answers arrive between frames: nothing replaced them while drawing.
        self.subjects = Some(subjects);
    }
}

fn kind_heading(kind: Kind) -> &'static str {
    match kind {
        Kind::Person => "People",
        Kind::Place => "Places",
        Kind::Activity => "Activities",
    }
}

/// The list's name, and "(hidden)" after one the list shows only on request.
fn list_name(subject: &Subject) -> String {
    let name = wording::subject_name(subject);
    match subject.hidden {
        true => format!("{name} (hidden)"),
        false => name,
    }
}

/// "12 entries, from 3 March 2025 to 28 November 2026".
fn figures(subject: &Subject) -> String {
    let count = wording::entries(subject.entries as usize);
    match wording::subject_days(subject, "%-d %B %Y") {
        Some((first, Some(last))) => format!("{count}, from {first} to {last}"),
        Some((first, None)) => format!("{count}, on {first}"),
        None => format!("{count} now (all of them are in the trash)"),
    }
}

fn empty_list(nothing_remembered: bool) -> &'static str {
    if nothing_remembered {
        "No one yet. The local model notes the people, places and activities your entries \
         mention as it reads them."
    } else {
        "No one by that name."
    }
}

fn choose_one(nothing_remembered: bool) -> &'static str {
    if nothing_remembered {
        "Write about the people in your life and the places you go: they appear here."
    } else {
        "Choose someone or somewhere on the left to see when you wrote about them."
    }
}

/// A bar per month from the first entry shown to the last (the latest
/// [`TIMELINE_MONTHS`]), as tall as the month's entries.
fn timeline_ui(ui: &mut egui::Ui, rows: &[EntryRow]) {
    let mut months: BTreeMap<(i32, u32), usize> = BTreeMap::new();
    for row in rows {
        if let Some(lived) = mindsage_core::clock::lived(&row.created_at, row.utc_offset) {
            use chrono::Datelike;
            *months.entry((lived.year(), lived.month())).or_default() += 1;
        }
    }
    let (Some(&first), Some(&last)) = (months.keys().next(), months.keys().next_back()) else {
        return;
    };
    let mut span = Vec::new();
    let mut month = first;
    while month <= last {
        span.push((month, months.get(&month).copied().unwrap_or(0)));
        month = if month.1 == 12 {
            (month.0 + 1, 1)
        } else {
            (month.0, month.1 + 1)
        };
    }
    let span = &span[span.len().saturating_sub(TIMELINE_MONTHS)..];
    let most = span.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let (bar, gap, height) = (10.0, 3.0, 36.0);
    let width = span.len() as f32 * (bar + gap);
    let (rect, response) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let colour: Color32 = ui.visuals().selection.bg_fill;
    for (i, (_, count)) in span.iter().enumerate() {
        let tall = height * (*count as f32 / most as f32);
        let left = rect.left() + i as f32 * (bar + gap);
        let bar_rect = egui::Rect::from_min_max(
            egui::pos2(left, rect.bottom() - tall.max(1.0)),
            egui::pos2(left + bar, rect.bottom()),
        );
        ui.painter().rect_filled(bar_rect, 1.0, colour);
    }
    let month_name = |(year, month): (i32, u32)| {
        chrono::NaiveDate::from_ymd_opt(year, month, 1)
            .map_or_else(String::new, |d| d.format("%b %Y").to_string())
    };
    let (from, to) = (month_name(span[0].0), month_name(span[span.len() - 1].0));
    let shown = if from == to {
        from
    } else {
        format!("{from} to {to}")
    };
    let described = format!("Entries per month, {shown}");
    response
        .on_hover_text(&described)
        .widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, &described));
    ui.label(RichText::new(shown).small().weak());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(name: &str, relation: &str) -> Subject {
        Subject {
            id: 1,
            kind: Kind::Person,
            name: name.into(),
            relation: relation.into(),
            hidden: false,
            corrected: false,
            entries: 1,
            first: None,
            last: None,
        }
    }

    /// The model reads entries while People & places is open: a read that arrives
    /// while the person types a new name leaves what they typed, and a field they have
    /// not touched follows the journal.
    #[test]
    fn a_read_while_the_person_types_keeps_what_they_typed() {
        let mut view = PeopleView::default();
        let maya = subject("Maya", "");
        view.on_memory(vec![maya.clone()]);
        view.select(&maya, &mut Vec::new());
        view.name = "Maya Li".into();
        view.on_memory(vec![subject("Maya", "sister")]);
        assert_eq!(
            (view.name.as_str(), view.relation.as_str()),
            ("Maya Li", "sister")
        );
    }
}
