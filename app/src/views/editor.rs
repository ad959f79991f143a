//! The entry editor: title, body, tags and mood, saved automatically.
//!
//! Nothing is saved on every keystroke: a save goes out once typing has paused for
//! [`AUTOSAVE_AFTER`], and when the person opens another entry. A new entry is only a
//! draft until its first save, so pressing Ctrl+N and walking away leaves no empty entry
//! behind. Only one save is in flight at a time; edits made meanwhile go out after it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::{Entry, EntryEdit, NewEntry};

use super::display_time;
use crate::worker::{Request, Worker};

/// Pause in typing after which the entry is saved.
const AUTOSAVE_AFTER: Duration = Duration::from_millis(700);

/// How often an entry the local model has not summarised yet is read again, so its
/// title, summary and mood tags appear when the background enrichment has made them.
const AI_FIELDS_RECHECK: Duration = Duration::from_secs(5);

#[derive(Default)]
pub struct Editor {
    /// Whether an entry or a draft is on screen.
    open: bool,
    /// The entry being edited; `None` for a draft that has not been saved yet.
    id: Option<EntryId>,
    /// The entry as last read, for what the editor does not edit (dates, AI summary).
    stored: Option<Entry>,
    title: String,
    body: String,
    /// Tags as typed, separated by commas.
    tags: String,
    mood: Option<u8>,
    /// When the oldest unsaved edit was made.
    unsaved_since: Option<Instant>,
    in_flight: bool,
    /// Set to move keyboard focus to the title on the next frame.
    focus_title: bool,
    /// When the entry was last read, for [`AI_FIELDS_RECHECK`].
    read_at: Option<Instant>,
    /// One element per new entry sent to be created and not yet answered, oldest first
    /// (the writer answers in order). An element holds the edits typed into that draft
    /// after its first save left, when the editor moved on before the id came back:
    /// they are saved as soon as it does, so no typed text is lost. It outlives the
    /// editor's other state when another entry is opened.
    creates: VecDeque<Option<EntryEdit>>,
}

impl Editor {
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The saved entry on screen, if any (photos can be added to it).
    pub fn entry_id(&self) -> Option<EntryId> {
        self.id
    }

    /// Starts a new draft, saving the current entry first.
    pub fn new_draft(&mut self, worker: &Worker) {
        self.leave(worker);
        *self = Editor {
            open: true,
            focus_title: true,
            creates: std::mem::take(&mut self.creates),
            ..Editor::default()
        };
    }

    /// Shows an entry read from the database. The one being edited only has its stored
    /// fields refreshed, so an answer arriving mid-typing never overwrites the text.
    pub fn load(&mut self, entry: Entry, worker: &Worker) {
        if self.id == Some(entry.id) && (self.unsaved_since.is_some() || self.in_flight) {
            self.stored = Some(entry);
            self.read_at = Some(Instant::now());
            return;
        }
        if self.id != Some(entry.id) {
            self.leave(worker);
        }
        *self = Editor {
            open: true,
            creates: std::mem::take(&mut self.creates),
            id: Some(entry.id),
            title: entry.title.clone(),
            body: entry.body.clone(),
            tags: entry.tags.join(", "),
            mood: entry.mood_score,
            stored: Some(entry),
            read_at: Some(Instant::now()),
            ..Editor::default()
        };
    }

    /// Closes the editor (its entry left the list: trashed, restored or purged).
    pub fn close_if(&mut self, id: EntryId) {
        if self.id == Some(id) {
            *self = Editor {
                creates: std::mem::take(&mut self.creates),
                ..Editor::default()
            };
        }
    }

    /// A new entry was created (answers come in the order creates were sent).
    pub fn on_created(&mut self, id: EntryId, worker: &Worker) {
        if let Some(carried) = self.creates.pop_front().flatten() {
            // That draft was left while its first save was on its way.
            worker.send(Request::Update { id, edit: carried });
            return;
        }
        if self.id.is_none() && self.in_flight && self.creates.is_empty() {
            self.id = Some(id);
        }
        self.on_saved(id, worker);
    }

    /// A save finished: the next one may go.
    pub fn on_saved(&mut self, id: EntryId, worker: &Worker) {
        if self.id == Some(id) {
            self.in_flight = false;
            worker.send(Request::Entry(id));
        }
    }

    /// A save failed: keep the edits and try again after the next pause.
    pub fn on_failed(&mut self) {
        if self.in_flight {
            self.in_flight = false;
            if self.id.is_none() {
                // The draft's create failed: it will be sent again, as a new create.
                self.creates.pop_back();
            }
            self.unsaved_since.get_or_insert_with(Instant::now);
        }
    }

    /// The editor moves on to another entry: unsaved edits must not be lost. If a save is
    /// on its way, an existing entry's edits are sent behind it (the writer applies saves
    /// in order); a draft's are kept until its id comes back.
    fn leave(&mut self, worker: &Worker) {
        if self.unsaved_since.is_none() {
            return;
        }
        if !self.in_flight {
            return self.flush(worker);
        }
        let edit = self.pending_edit();
        match self.id {
            Some(id) => worker.send(Request::Update { id, edit }),
            None => {
                if let Some(slot) = self.creates.back_mut() {
                    *slot = Some(edit);
                }
            }
        }
    }

    fn pending_edit(&self) -> EntryEdit {
        EntryEdit {
            title: self.title.clone(),
            body: self.body.clone(),
            tags: self.tags.split(',').map(str::to_owned).collect(),
            mood_score: self.mood,
        }
    }

    /// Sends pending edits now, if a save can go.
    fn flush(&mut self, worker: &Worker) {
        if self.unsaved_since.is_none() || self.in_flight {
            return;
        }
        let edit = self.pending_edit();
        if self.id.is_none() {
            self.creates.push_back(None);
        }
        worker.send(match self.id {
            Some(id) => Request::Update { id, edit },
            None => Request::Create(NewEntry {
                title: edit.title,
                body: edit.body,
                tags: edit.tags,
                mood_score: edit.mood_score,
                created_at: None,
            }),
        });
        self.unsaved_since = None;
        self.in_flight = true;
    }

    /// Saves once typing has paused, and asks for a repaint at that moment otherwise.
    fn autosave(&mut self, ctx: &egui::Context, worker: &Worker) {
        let Some(since) = self.unsaved_since else {
            return;
        };
        let waited = since.elapsed();
        if waited >= AUTOSAVE_AFTER && !self.in_flight {
            self.flush(worker);
        } else {
            ctx.request_repaint_after(
                AUTOSAVE_AFTER
                    .saturating_sub(waited)
                    .max(Duration::from_millis(50)),
            );
        }
    }

    fn status(&self) -> &'static str {
        match (self.unsaved_since.is_some(), self.in_flight) {
            (false, false) if self.id.is_some() => "Saved",
            (false, false) => "New entry, not saved yet",
            (_, true) => "Saving…",
            (true, false) => "Edited",
        }
    }

    /// Reads the entry again while the model's summary is still to come.
    fn recheck_ai_fields(&mut self, ctx: &egui::Context, worker: &Worker) {
        let (Some(id), Some(stored)) = (self.id, &self.stored) else {
            return;
        };
        if stored.summary.is_some() {
            return;
        }
        if self.read_at.is_none_or(|t| t.elapsed() >= AI_FIELDS_RECHECK) {
            worker.send(Request::Entry(id));
            self.read_at = Some(Instant::now());
        }
        ctx.request_repaint_after(AI_FIELDS_RECHECK);
    }

    pub fn show(&mut self, ui: &mut egui::Ui, worker: &Worker) {
        self.autosave(ui.ctx(), worker);
        self.recheck_ai_fields(ui.ctx(), worker);
        let mut changed = false;
        ui.horizontal(|ui| {
            if let Some(stored) = &self.stored {
                ui.label(RichText::new(display_time(&stored.created_at)).weak());
                ui.label(RichText::new(format!("{} words", stored.word_count)).weak());
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(id) = self.id
                    && ui
                        .button("Move to trash")
                        .on_hover_text("You can restore it from the trash")
                        .clicked()
                {
                    self.flush(worker);
                    worker.send(Request::Trash(id));
                }
                ui.label(RichText::new(self.status()).weak().small());
            });
        });
        let title_label = ui.label("Title");
        let title = ui.add(
            egui::TextEdit::singleline(&mut self.title)
                .hint_text("Untitled")
                .font(egui::TextStyle::Heading)
                .desired_width(f32::INFINITY),
        );
        let title = title.labelled_by(title_label.id);
        if std::mem::take(&mut self.focus_title) {
            title.request_focus();
        }
        changed |= title.changed();
        if let Some(stored) = &self.stored
            && !stored.title_by_user
            && !stored.title.is_empty()
        {
            ui.label(RichText::new("Title suggested by the local model").weak().small());
        }
        ui.horizontal(|ui| {
            let tags_label = ui.label("Tags");
            changed |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.tags)
                        .hint_text("walks, family")
                        .desired_width(220.0),
                )
                .labelled_by(tags_label.id)
                .changed();
            let mut has_mood = self.mood.is_some();
            if ui.checkbox(&mut has_mood, "Mood").changed() {
                self.mood = has_mood.then_some(5);
                changed = true;
            }
            if let Some(mood) = &mut self.mood {
                changed |= ui.add(egui::Slider::new(mood, 1..=10).text("of 10")).changed();
            }
        });
        if let Some(summary) = self.stored.as_ref().and_then(|s| s.summary.as_ref()) {
            ui.group(|ui| {
                ui.label(RichText::new("Summary by the local model").small().strong());
                ui.label(RichText::new(summary).italics());
            });
        }
        ui.separator();
        let body_label = ui.label(RichText::new("Entry").small().weak());
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                changed |= ui
                    .add_sized(
                        ui.available_size(),
                        egui::TextEdit::multiline(&mut self.body).hint_text("What happened today?"),
                    )
                    .labelled_by(body_label.id)
                    .changed();
            });
        if changed {
            self.unsaved_since.get_or_insert_with(Instant::now);
            ui.ctx().request_repaint_after(AUTOSAVE_AFTER);
        }
    }
}
