//! The entry editor: title, body, tags and mood, saved automatically.
//!
//! Nothing is saved on every keystroke: a save goes out once typing has paused for
//! [`AUTOSAVE_AFTER`], and when the person opens another entry. A new entry is only a
//! draft until its first save, so pressing Ctrl+N and walking away leaves no empty entry
//! behind. Only one save is in flight at a time; edits made meanwhile go out after it.
//!
//! Each draft has a number its create request carries and its answer echoes, so a failure
//! elsewhere is never mistaken for this draft's (which would create it twice). When a
//! thread behind the editor dies, or closing cannot wait any longer, the text on screen
//! is also written to a draft file in `drafts/` beside the journal, removed once the
//! entry is saved. That file is written on the UI thread: a few kilobytes into the local
//! data folder, on those rare paths only, where a write that might never happen on a
//! helper thread would defeat its purpose.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::{Entry, EntryEdit, NewEntry};

use super::display_time;
use crate::worker::{Request, Worker};

/// Pause in typing after which the entry is saved.
const AUTOSAVE_AFTER: Duration = Duration::from_millis(700);

/// The folder inside the data folder where unsaved text is kept as files.
pub const DRAFTS_DIR: &str = "drafts";

/// Numbers drafts uniquely for this run of the app.
static NEXT_DRAFT: AtomicU64 = AtomicU64::new(1);

/// A new entry sent to be created and not yet answered.
struct Create {
    /// The draft's number, echoed by the answer.
    draft: u64,
    /// What was sent, in case it must be kept as a file.
    sent: EntryEdit,
    /// Edits typed into the draft after its first save left, when the editor moved on
    /// before the id came back: they are saved as soon as it does.
    carried: Option<EntryEdit>,
}

#[derive(Default)]
pub struct Editor {
    /// Whether an entry or a draft is on screen.
    open: bool,
    /// The entry being edited; `None` for a draft that has not been saved yet.
    id: Option<EntryId>,
    /// This draft's number (see [`Create::draft`]).
    draft: u64,
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
    /// Save pending edits at once rather than after the typing pause (the window closes).
    urgent: bool,
    /// Why the last save failed, until one succeeds.
    problem: Option<String>,
    /// Set while the threads behind the editor are stopped, to the folder where unsaved
    /// text goes instead: nothing is sent, since it would be lost, and nothing claims to
    /// be saving.
    halted: Option<PathBuf>,
    /// The draft file holding this text, removed once it is saved.
    kept: Option<PathBuf>,
    /// New entries sent to be created and not yet answered. Outlives the editor's other
    /// state when another entry is opened.
    creates: Vec<Create>,
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
            draft: NEXT_DRAFT.fetch_add(1, Ordering::Relaxed),
            halted: self.halted.take(),
            creates: std::mem::take(&mut self.creates),
            ..Editor::default()
        };
    }

    /// Shows an entry read from the database. The one being edited only has its stored
    /// fields refreshed, so an answer arriving mid-typing never overwrites the text.
    pub fn load(&mut self, entry: Entry, worker: &Worker) {
        if self.id == Some(entry.id) && (self.unsaved_since.is_some() || self.in_flight) {
            self.stored = Some(entry);
            return;
        }
        if self.id != Some(entry.id) {
            self.leave(worker);
        }
        *self = Editor {
            open: true,
            halted: self.halted.take(),
            creates: std::mem::take(&mut self.creates),
            id: Some(entry.id),
            title: entry.title.clone(),
            body: entry.body.clone(),
            tags: entry.tags.join(", "),
            mood: entry.mood_score,
            stored: Some(entry),
            ..Editor::default()
        };
    }

    /// Closes the editor (its entry left the list: trashed, restored or purged).
    pub fn close_if(&mut self, id: EntryId) {
        if self.id == Some(id) {
            *self = Editor {
                halted: self.halted.take(),
                creates: std::mem::take(&mut self.creates),
                ..Editor::default()
            };
        }
    }

    /// Takes the pending create of `draft` off the list.
    fn answered(&mut self, draft: u64) -> Option<Create> {
        let index = self.creates.iter().position(|c| c.draft == draft)?;
        Some(self.creates.remove(index))
    }

    /// Draft `draft` was created as entry `id`.
    pub fn on_created(&mut self, draft: u64, id: EntryId, worker: &Worker) {
        if let Some(carried) = self.answered(draft).and_then(|c| c.carried) {
            // That draft was left while its first save was on its way.
            worker.send(Request::Update { id, edit: carried });
            return;
        }
        if self.id.is_none() && self.draft == draft {
            self.id = Some(id);
        }
        self.on_saved(id, worker);
    }

    /// A save finished: the next one may go.
    pub fn on_saved(&mut self, id: EntryId, worker: &Worker) {
        if self.id == Some(id) {
            self.in_flight = false;
            self.problem = None;
            if self.unsaved_since.is_none()
                && let Some(file) = self.kept.take()
            {
                // Everything the file holds is in the journal now.
                let _ = std::fs::remove_file(file);
            }
            worker.send(Request::Entry(id));
        }
    }

    /// Draft `draft` could not be created. On screen, its edits stay and go again after
    /// the next pause; left already, its text is kept as a draft file in `drafts`.
    pub fn on_create_failed(&mut self, draft: u64, message: String, drafts: &Path) -> Option<String> {
        let create = self.answered(draft)?;
        if self.draft == draft && self.id.is_none() {
            self.retry_later(message);
            return None;
        }
        let edit = create.carried.unwrap_or(create.sent);
        Some(match keep_as_file(drafts, &format!("new-{draft}"), &edit) {
            Ok(file) => format!(
                "An entry could not be saved ({message}); its text is in {}.",
                file.display()
            ),
            Err(e) => format!("An entry could not be saved ({message}), nor kept as a draft file: {e}."),
        })
    }

    /// An edit of `id` could not be saved: if it is on screen, try again after the next pause.
    pub fn on_update_failed(&mut self, id: EntryId, message: String) {
        if self.id == Some(id) && self.in_flight {
            self.retry_later(message);
        }
    }

    fn retry_later(&mut self, message: String) {
        self.in_flight = false;
        self.problem = Some(message);
        self.unsaved_since.get_or_insert_with(Instant::now);
    }

    /// Nothing typed is waiting to be saved or on its way: all of it is in the journal.
    pub fn all_saved(&self) -> bool {
        self.unsaved_since.is_none() && !self.in_flight && self.creates.is_empty()
    }

    /// Saves pending edits now instead of after the pause, and goes on doing so.
    pub fn save_now(&mut self, worker: &Worker) {
        self.urgent = true;
        self.flush(worker);
    }

    /// The threads behind the editor stopped: sends nothing more, and writes what is on
    /// screen (and any left draft whose create was unanswered) to draft files in
    /// `drafts`. Returns where the text is, or why it could not be kept.
    pub fn halt_and_keep(&mut self, drafts: &Path) -> Vec<String> {
        self.halted = Some(drafts.to_path_buf());
        let mut kept = Vec::new();
        for create in std::mem::take(&mut self.creates) {
            if create.draft == self.draft {
                continue; // on screen: kept below with its latest text
            }
            let edit = create.carried.unwrap_or(create.sent);
            kept.push(keep_as_file(drafts, &format!("new-{}", create.draft), &edit));
        }
        if self.open && (self.unsaved_since.is_some() || self.in_flight) {
            self.in_flight = false;
            self.unsaved_since.get_or_insert_with(Instant::now);
            kept.push(self.keep_on_screen(drafts));
        }
        kept.into_iter()
            .map(|file| match file {
                Ok(file) => file.display().to_string(),
                Err(e) => format!("(a draft file could not be written: {e})"),
            })
            .collect()
    }

    /// Writes the text on screen to its draft file in `drafts`.
    fn keep_on_screen(&mut self, drafts: &Path) -> std::io::Result<PathBuf> {
        let name = match self.id {
            Some(id) => format!("entry-{id}"),
            None => format!("new-{}", self.draft),
        };
        let file = keep_as_file(drafts, &name, &self.pending_edit())?;
        self.kept = Some(file.clone());
        Ok(file)
    }

    /// Saving is stopped (see [`Editor::halt_and_keep`]).
    pub fn halted(&self) -> bool {
        self.halted.is_some()
    }

    /// The threads run again: pending edits are saved after the next pause.
    pub fn resume(&mut self) {
        self.halted = None;
    }

    /// The editor moves on to another entry: unsaved edits must not be lost. If a save is
    /// on its way, an existing entry's edits are sent behind it (the writer applies saves
    /// in order); a draft's are kept until its id comes back.
    fn leave(&mut self, worker: &Worker) {
        if self.unsaved_since.is_none() {
            return;
        }
        if let Some(drafts) = self.halted.clone() {
            // Nothing can be saved now: the latest text goes to its draft file.
            if let Err(error) = self.keep_on_screen(&drafts) {
                tracing::warn!(%error, "unsaved text could not be kept as a draft file");
            }
            return;
        }
        if !self.in_flight {
            return self.flush(worker);
        }
        let edit = self.pending_edit();
        match self.id {
            Some(id) => worker.send(Request::Update { id, edit }),
            None => {
                let draft = self.draft;
                if let Some(create) = self.creates.iter_mut().find(|c| c.draft == draft) {
                    create.carried = Some(edit);
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
        if self.unsaved_since.is_none() || self.in_flight || self.halted.is_some() {
            return;
        }
        let edit = self.pending_edit();
        worker.send(match self.id {
            Some(id) => Request::Update { id, edit },
            None => {
                self.creates.push(Create {
                    draft: self.draft,
                    sent: edit.clone(),
                    carried: None,
                });
                Request::Create {
                    draft: self.draft,
                    entry: NewEntry {
                        title: edit.title,
                        body: edit.body,
                        tags: edit.tags,
                        mood_score: edit.mood_score,
                        created_at: None,
                    },
                }
            }
        });
        self.unsaved_since = None;
        self.in_flight = true;
    }

    /// Saves once typing has paused, and asks for a repaint at that moment otherwise.
    /// Called every frame whichever screen is on show, so edits left on another screen
    /// are saved too.
    pub fn autosave(&mut self, ctx: &egui::Context, worker: &Worker) {
        let Some(since) = self.unsaved_since else {
            return;
        };
        if self.halted.is_some() {
            return;
        }
        let waited = since.elapsed();
        if (waited >= AUTOSAVE_AFTER || self.urgent) && !self.in_flight {
            self.flush(worker);
        } else {
            ctx.request_repaint_after(
                AUTOSAVE_AFTER
                    .saturating_sub(waited)
                    .max(Duration::from_millis(50)),
            );
        }
    }

    /// What the editor says about its text; "Saved" only once the journal has it.
    fn status(&self) -> String {
        if self.halted.is_some() && self.unsaved_since.is_some() {
            return match &self.kept {
                Some(file) => format!("Not saved: kept in {}", file.display()),
                None => "Not saved".to_owned(),
            };
        }
        match (self.unsaved_since.is_some(), self.in_flight, &self.problem) {
            (false, false, _) if self.id.is_some() => "Saved".to_owned(),
            (false, false, _) => "New entry, not saved yet".to_owned(),
            (_, true, _) => "Saving…".to_owned(),
            (true, false, Some(problem)) => format!("Not saved ({problem}); trying again"),
            (true, false, None) => "Edited".to_owned(),
        }
    }

    pub fn show(&mut self, ui: &mut egui::Ui, worker: &Worker) {
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

/// Writes `edit` to `<drafts>/<name>.txt` (title, tags, then the text), replacing an older
/// copy of the same draft.
fn keep_as_file(drafts: &Path, name: &str, edit: &EntryEdit) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(drafts)?;
    let file = drafts.join(format!("{name}.txt"));
    let tags: Vec<&str> = edit
        .tags
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect();
    let text = format!(
        "Title: {}\nTags: {}\n\n{}\n",
        edit.title,
        tags.join(", "),
        edit.body
    );
    std::fs::write(&file, text)?;
    Ok(file)
}
