//! The entry editor: text, title, tags and mood, saved automatically.
//!
//! Nothing is saved on every keystroke: a save goes out once typing has paused for
//! [`AUTOSAVE_AFTER`], and when the person opens another entry. A new entry is only a
//! draft until its first save, so pressing Ctrl+N and walking away leaves no empty entry
//! behind. Only one save is in flight at a time; edits made meanwhile go out after it.
//! Where the text stands against the file is one [`Save`] state, and the words on screen
//! ("Saved", "Saving…") are read from it: "Saved" only once the journal has it.
//!
//! Each draft has a number its create request carries and its answer echoes, so a failure
//! elsewhere is never mistaken for this draft's (which would create it twice). When a
//! thread behind the editor dies, or closing cannot wait any longer, the text on screen
//! is also written to a draft file in `drafts/` beside the journal, removed once the
//! entry is saved: a text file beside a plain journal, a sealed one beside an encrypted
//! journal, which the next opening saves into the journal ([`mindsage_core::drafts`]).
//! That file is written on the UI thread: a few kilobytes into the local data folder
//! (a sealed one is a small database synced to disk), on those rare paths only, where a
//! write that might never happen on a helper thread would defeat its purpose.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::{Entry, EntryEdit, NewEntry};
use mindsage_core::drafts::Drafts;
use mindsage_core::voice::transcribe::Segment;

use super::history::History;
use super::player::RecordingPlayer;
use super::{Action, display_time};
use crate::protocol::Request;

/// Pause in typing after which the entry is saved.
const AUTOSAVE_AFTER: Duration = Duration::from_millis(700);

/// Numbers drafts uniquely for this run of the app.
static NEXT_DRAFT: AtomicU64 = AtomicU64::new(1);

/// When this run of the app started, in the names of its new entries' draft files, so a
/// draft kept now never replaces one an earlier run left (numbers start again at 1).
static RUN_STARTED: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| chrono::Local::now().format("%Y-%m-%d_%H-%M-%S").to_string());

/// The draft file name of the new entry numbered `draft` (see [`Create::draft`]).
fn new_draft_name(draft: u64) -> String {
    format!("new-{}-{draft}", *RUN_STARTED)
}

/// What is on screen: a draft not created yet, or a saved entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    /// A new entry, by its draft number (see [`Create::draft`]).
    Draft(u64),
    Entry(EntryId),
}

/// Where the text on screen stands against the journal file.
#[derive(Debug, Clone, PartialEq)]
enum Save {
    /// As in the file; for a draft, nothing typed yet.
    Saved,
    /// Typed since `since`; saved once typing pauses. `problem` is why the last save
    /// failed, when it did (the save is then tried again).
    Edited { since: Instant, problem: Option<String> },
    /// A save is on its way; `edited` is when typing went on meanwhile, if it did.
    Saving { edited: Option<Instant> },
}

impl Save {
    /// The person typed.
    fn typed(&mut self) {
        let now = Instant::now();
        match self {
            Save::Saved => {
                *self = Save::Edited {
                    since: now,
                    problem: None,
                }
            }
            Save::Edited { .. } | Save::Saving { edited: Some(_) } => {}
            Save::Saving { edited } => *edited = Some(now),
        }
    }

    /// The save on its way was written.
    fn answered(&mut self) {
        *self = match self {
            Save::Saving { edited: Some(since) } => Save::Edited {
                since: *since,
                problem: None,
            },
            _ => Save::Saved,
        };
    }

    /// The save on its way failed: the text is edited again, to be retried.
    fn failed(&mut self, problem: String) {
        let since = match self {
            Save::Saving { edited: Some(since) } | Save::Edited { since, .. } => *since,
            _ => Instant::now(),
        };
        *self = Save::Edited {
            since,
            problem: Some(problem),
        };
    }

    /// Whether something typed is not in the file yet.
    fn unsaved(&self) -> bool {
        !matches!(self, Save::Saved)
    }
}

/// The text fields as typed.
#[derive(Debug, Clone, Default)]
struct Fields {
    title: String,
    body: String,
    /// Tags as typed, separated by commas.
    tags: String,
    mood: Option<u8>,
}

impl Fields {
    fn of(entry: &Entry) -> Fields {
        Fields {
            title: entry.title.clone(),
            body: entry.body.clone(),
            tags: entry.tags.join(", "),
            mood: entry.mood_score,
        }
    }

    fn edit(&self) -> EntryEdit {
        EntryEdit {
            title: self.title.clone(),
            body: self.body.clone(),
            tags: self.tags.split(',').map(str::to_owned).collect(),
            mood_score: self.mood,
        }
    }
}

/// The entry or draft on screen.
struct Doc {
    which: Which,
    fields: Fields,
    /// The entry as last read, for what the editor does not edit (dates, the model's
    /// summary); `None` for a draft.
    stored: Option<Entry>,
    save: Save,
    /// The draft file holding this text, removed once it is saved.
    kept: Option<PathBuf>,
    /// Move the keyboard focus to the text on the next frame.
    focus_body: bool,
}

impl Doc {
    fn draft() -> Doc {
        Doc {
            which: Which::Draft(NEXT_DRAFT.fetch_add(1, Ordering::Relaxed)),
            fields: Fields::default(),
            stored: None,
            save: Save::Saved,
            kept: None,
            focus_body: true,
        }
    }

    fn entry(entry: Entry) -> Doc {
        Doc {
            which: Which::Entry(entry.id),
            fields: Fields::of(&entry),
            stored: Some(entry),
            save: Save::Saved,
            kept: None,
            focus_body: false,
        }
    }

    fn id(&self) -> Option<EntryId> {
        match self.which {
            Which::Entry(id) => Some(id),
            Which::Draft(_) => None,
        }
    }

    /// Writes the text on screen to its draft file in `drafts`.
    fn keep(&mut self, drafts: &Drafts) -> std::io::Result<PathBuf> {
        let name = match self.which {
            Which::Entry(id) => format!("entry-{id}"),
            Which::Draft(draft) => new_draft_name(draft),
        };
        let file = drafts.keep(&name, &self.fields.edit())?;
        self.kept = Some(file.clone());
        Ok(file)
    }
}

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
    /// `None` when nothing is open.
    doc: Option<Doc>,
    /// New entries sent to be created and not yet answered, including drafts the editor
    /// has moved on from.
    creates: Vec<Create>,
    /// Set while the threads behind the editor are stopped, to where unsaved text goes
    /// instead: nothing is sent, since it would be lost, and nothing claims to be saving.
    halted: Option<Drafts>,
    /// Save pending edits at once rather than after the typing pause (the window closes).
    urgent: bool,
    /// The open entry's recording, once read (voice entries).
    recording: Option<RecordingPlayer>,
    /// The open entry's earlier versions.
    history: History,
}

impl Editor {
    pub fn is_open(&self) -> bool {
        self.doc.is_some()
    }

    /// The saved entry on screen, if any (photos can be added to it).
    pub fn entry_id(&self) -> Option<EntryId> {
        self.doc.as_ref().and_then(Doc::id)
    }

    /// Starts a new draft with the cursor in its text, saving the current entry first.
    pub fn new_draft(&mut self, actions: &mut Vec<Action>) {
        self.leave(actions);
        self.doc = Some(Doc::draft());
    }

    /// Shows an entry read from the database. The one on screen with edits not yet in
    /// the file only has its stored fields refreshed, so an answer arriving mid-typing
    /// never overwrites the text.
    pub fn load(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        if let Some(doc) = &mut self.doc
            && doc.id() == Some(entry.id)
        {
            if doc.save.unsaved() {
                doc.stored = Some(entry);
            } else {
                doc.fields = Fields::of(&entry);
                doc.stored = Some(entry);
            }
            return;
        }
        self.leave(actions);
        actions.push(Action::Send(Request::Recording(entry.id)));
        self.doc = Some(Doc::entry(entry));
    }

    /// An entry's earlier versions, read when the person opened them.
    pub fn on_versions(&mut self, entry: EntryId, versions: Vec<mindsage_core::db::history::Version>) {
        self.history.on_versions(entry, versions);
    }

    /// An entry's recording, read after the entry: kept if that entry is still open.
    pub fn on_recording(&mut self, entry: EntryId, samples: Vec<f32>, segments: Vec<Segment>) {
        if self.entry_id() == Some(entry) && !samples.is_empty() {
            self.recording = Some(RecordingPlayer::new(entry, samples, segments));
        }
    }

    /// The entry read again after a save or the model's work: shown if it is on screen.
    pub fn refresh(&mut self, entry: Entry) {
        if self.entry_id() == Some(entry.id) {
            self.load(entry, &mut Vec::new());
        }
    }

    /// Closes the editor if entry `id` is on screen (it left the list: trashed, restored
    /// or purged).
    pub fn close_if(&mut self, id: EntryId) {
        if self.entry_id() == Some(id) {
            self.doc = None;
            self.recording = None;
        }
    }

    /// Takes the pending create of `draft` off the list.
    fn answered(&mut self, draft: u64) -> Option<Create> {
        let index = self.creates.iter().position(|c| c.draft == draft)?;
        Some(self.creates.remove(index))
    }

    /// Draft `draft` was created as entry `id`.
    pub fn on_created(&mut self, draft: u64, id: EntryId, drafts: &Drafts, actions: &mut Vec<Action>) {
        if let Some(carried) = self.answered(draft).and_then(|c| c.carried) {
            // That draft was left while its first save was on its way.
            actions.push(Action::Send(Request::Update { id, edit: carried }));
            return;
        }
        if let Some(doc) = &mut self.doc
            && doc.which == Which::Draft(draft)
        {
            doc.which = Which::Entry(id);
        }
        self.on_saved(id, drafts, actions);
    }

    /// A save of `id` was written: the next one may go; a draft file of its text goes.
    pub fn on_saved(&mut self, id: EntryId, drafts: &Drafts, actions: &mut Vec<Action>) {
        let Some(doc) = self.doc.as_mut().filter(|d| d.id() == Some(id)) else {
            return;
        };
        doc.save.answered();
        if !doc.save.unsaved()
            && let Some(file) = doc.kept.take()
        {
            // Everything the file holds is in the journal now.
            drafts.remove(&file);
        }
        actions.push(Action::Send(Request::Refresh(id)));
    }

    /// Draft `draft` could not be created. On screen, its edits stay and go again after
    /// the next pause; left already, its text is kept as a draft file in `drafts`, and
    /// the answer is what to tell the person.
    pub fn on_create_failed(&mut self, draft: u64, message: String, drafts: &Drafts) -> Option<String> {
        let create = self.answered(draft)?;
        if let Some(doc) = self.doc.as_mut().filter(|d| d.which == Which::Draft(draft)) {
            doc.save.failed(message);
            return None;
        }
        let edit = create.carried.unwrap_or(create.sent);
        Some(match drafts.keep(&new_draft_name(draft), &edit) {
            Ok(file) => format!(
                "An entry could not be saved ({message}); its text is in {}.",
                Drafts::describe(&file)
            ),
            Err(e) => format!("An entry could not be saved ({message}), nor kept as a draft file: {e}."),
        })
    }

    /// An edit of `id` could not be saved: if it is on screen, try again after the next pause.
    pub fn on_update_failed(&mut self, id: EntryId, message: String) {
        if let Some(doc) = self.doc.as_mut().filter(|d| d.id() == Some(id))
            && matches!(doc.save, Save::Saving { .. })
        {
            doc.save.failed(message);
        }
    }

    /// Nothing typed is waiting to be saved or on its way: all of it is in the journal.
    pub fn all_saved(&self) -> bool {
        self.doc.as_ref().is_none_or(|d| !d.save.unsaved()) && self.creates.is_empty()
    }

    /// Saves pending edits now instead of after the pause, and goes on doing so.
    pub fn save_now(&mut self, actions: &mut Vec<Action>) {
        self.urgent = true;
        self.flush(actions);
    }

    /// The threads behind the editor stopped: sends nothing more, and writes what is on
    /// screen (and any left draft whose create was unanswered) to draft files in
    /// `drafts`. Returns where the text is, or why it could not be kept.
    pub fn halt_and_keep(&mut self, drafts: &Drafts) -> Vec<String> {
        self.halted = Some(drafts.clone());
        let on_screen = self.doc.as_ref().map(|d| d.which);
        let mut kept = Vec::new();
        for create in std::mem::take(&mut self.creates) {
            if on_screen == Some(Which::Draft(create.draft)) {
                continue; // on screen: kept below with its latest text
            }
            let edit = create.carried.unwrap_or(create.sent);
            kept.push(drafts.keep(&new_draft_name(create.draft), &edit));
        }
        if let Some(doc) = self.doc.as_mut().filter(|d| d.save.unsaved()) {
            if let Save::Saving { edited } = doc.save {
                // Its answer will not come: the text is unsaved again.
                doc.save = Save::Edited {
                    since: edited.unwrap_or_else(Instant::now),
                    problem: None,
                };
            }
            kept.push(doc.keep(drafts));
        }
        kept.into_iter()
            .map(|file| match file {
                Ok(file) => Drafts::describe(&file),
                Err(e) => format!("(a draft file could not be written: {e})"),
            })
            .collect()
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
    fn leave(&mut self, actions: &mut Vec<Action>) {
        // The recording belongs to the entry being left; its output closes.
        self.recording = None;
        let Some(doc) = self.doc.as_mut().filter(|d| d.save.unsaved()) else {
            return;
        };
        if let Some(drafts) = &self.halted {
            // Nothing can be saved now: the latest text goes to its draft file.
            if let Err(error) = doc.keep(drafts) {
                tracing::warn!(%error, "unsaved text could not be kept as a draft file");
            }
            return;
        }
        match (&doc.save, doc.which) {
            (Save::Edited { .. }, _) => {}
            (Save::Saving { edited: Some(_) }, Which::Entry(id)) => {
                let edit = doc.fields.edit();
                actions.push(Action::Send(Request::Update { id, edit }));
            }
            (Save::Saving { edited: Some(_) }, Which::Draft(draft)) => {
                let edit = doc.fields.edit();
                if let Some(create) = self.creates.iter_mut().find(|c| c.draft == draft) {
                    create.carried = Some(edit);
                }
            }
            (Save::Saving { edited: None } | Save::Saved, _) => {}
        }
        self.flush(actions);
    }

    /// Sends pending edits now, if a save can go.
    fn flush(&mut self, actions: &mut Vec<Action>) {
        if self.halted.is_some() {
            return;
        }
        let Some(doc) = self
            .doc
            .as_mut()
            .filter(|d| matches!(d.save, Save::Edited { .. }))
        else {
            return;
        };
        let edit = doc.fields.edit();
        let request = match doc.which {
            Which::Entry(id) => Request::Update { id, edit },
            Which::Draft(draft) => {
                self.creates.push(Create {
                    draft,
                    sent: edit.clone(),
                    carried: None,
                });
                Request::Create {
                    draft,
                    entry: NewEntry {
                        title: edit.title,
                        body: edit.body,
                        tags: edit.tags,
                        mood_score: edit.mood_score,
                        created_at: None,
                    },
                }
            }
        };
        doc.save = Save::Saving { edited: None };
        actions.push(Action::Send(request));
    }

    /// Saves once typing has paused, and asks for a repaint at that moment otherwise.
    /// Called every frame whichever screen is on show, so edits left on another screen
    /// are saved too.
    pub fn autosave(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(Save::Edited { since, .. }) = self.doc.as_ref().map(|d| &d.save) else {
            return;
        };
        if self.halted.is_some() {
            return;
        }
        let waited = since.elapsed();
        if waited >= AUTOSAVE_AFTER || self.urgent {
            self.flush(actions);
        } else {
            ctx.request_repaint_after(
                AUTOSAVE_AFTER
                    .saturating_sub(waited)
                    .max(Duration::from_millis(50)),
            );
        }
    }

    /// What the editor says about its text.
    fn status(&self, doc: &Doc) -> String {
        if self.halted.is_some() && doc.save.unsaved() {
            return match &doc.kept {
                Some(file) => format!("Not saved: kept in {}", Drafts::describe(file)),
                None => "Not saved".to_owned(),
            };
        }
        match (&doc.save, doc.which) {
            (Save::Saved, Which::Entry(_)) => "Saved".to_owned(),
            (Save::Saved, Which::Draft(_)) => "New entry, not saved yet".to_owned(),
            (Save::Saving { .. }, _) => "Saving…".to_owned(),
            (
                Save::Edited {
                    problem: Some(problem),
                    ..
                },
                _,
            ) => {
                format!("Not saved ({problem}); trying again")
            }
            (Save::Edited { problem: None, .. }, _) => "Edited".to_owned(),
        }
    }

    /// Moves entry `id` to the trash, its edits on screen saved first, so the trash (and
    /// an undo) keeps them.
    pub fn trash(&mut self, id: EntryId, actions: &mut Vec<Action>) {
        if self.entry_id() == Some(id) {
            self.flush(actions);
        }
        actions.push(Action::Send(Request::Trash(id)));
    }

    /// The editor: a header, the title, tags and mood, the model's summary, the text.
    pub fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let Some(doc) = &self.doc else {
            return;
        };
        let status = self.status(doc);
        if let Some(id) = self.header_ui(ui, &status) {
            self.trash(id, actions);
        }
        let Some(doc) = &mut self.doc else {
            return;
        };
        let mut changed = title_ui(ui, &mut doc.fields, doc.stored.as_ref());
        changed |= tags_and_mood_ui(ui, &mut doc.fields);
        if let Some(summary) = doc.stored.as_ref().and_then(|s| s.summary.as_ref()) {
            summary_ui(ui, summary);
        }
        if let Some(recording) = self.recording.as_mut().filter(|r| doc.id() == Some(r.entry)) {
            recording.ui(ui);
        }
        if let Some(id) = doc.id() {
            self.history.ui(ui, id, !doc.save.unsaved(), actions);
        }
        ui.separator();
        changed |= body_ui(ui, &mut doc.fields.body, std::mem::take(&mut doc.focus_body));
        if changed {
            doc.save.typed();
            ui.ctx().request_repaint_after(AUTOSAVE_AFTER);
        }
    }

    /// The entry's date and length, the save status, and Move to trash; returns the entry
    /// to trash when the person asked.
    fn header_ui(&self, ui: &mut egui::Ui, status: &str) -> Option<EntryId> {
        let doc = self.doc.as_ref()?;
        let mut trash = None;
        ui.horizontal(|ui| {
            if let Some(stored) = &doc.stored {
                ui.label(RichText::new(display_time(&stored.created_at)).weak());
                ui.label(RichText::new(format!("{} words", stored.word_count)).weak());
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(id) = doc.id()
                    && ui
                        .button("Move to trash")
                        .on_hover_text("You can restore it from the trash")
                        .clicked()
                {
                    trash = Some(id);
                }
                ui.label(RichText::new(status).weak().small());
            });
        });
        trash
    }
}

/// The title field; says when the title on show is the local model's.
fn title_ui(ui: &mut egui::Ui, fields: &mut Fields, stored: Option<&Entry>) -> bool {
    let label = ui.label("Title");
    let title = ui.add(
        egui::TextEdit::singleline(&mut fields.title)
            .id_salt("entry_title")
            .hint_text("Optional: the local model suggests one")
            .font(egui::TextStyle::Heading)
            .desired_width(f32::INFINITY),
    );
    let changed = title.labelled_by(label.id).changed();
    if let Some(stored) = stored
        && !stored.title_by_user
        && !stored.title.is_empty()
    {
        ui.label(RichText::new("Title suggested by the local model").weak().small());
    }
    changed
}

fn tags_and_mood_ui(ui: &mut egui::Ui, fields: &mut Fields) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let tags_label = ui.label("Tags");
        changed |= ui
            .add(
                egui::TextEdit::singleline(&mut fields.tags)
                    .id_salt("entry_tags")
                    .hint_text("walks, family")
                    .desired_width(220.0),
            )
            .labelled_by(tags_label.id)
            .changed();
        let mut has_mood = fields.mood.is_some();
        if ui.checkbox(&mut has_mood, "Mood").changed() {
            fields.mood = has_mood.then_some(5);
            changed = true;
        }
        if let Some(mood) = &mut fields.mood {
            changed |= ui.add(egui::Slider::new(mood, 1..=10).text("of 10")).changed();
        }
    });
    changed
}

fn summary_ui(ui: &mut egui::Ui, summary: &str) {
    ui.group(|ui| {
        ui.label(RichText::new("Summary by the local model").small().strong());
        ui.label(RichText::new(summary).italics());
    });
}

/// The entry's text, filling the rest of the editor; `focus` puts the cursor in it.
fn body_ui(ui: &mut egui::Ui, body: &mut String, focus: bool) -> bool {
    let label = ui.label(RichText::new("Entry").small().weak());
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let text = ui
                .add_sized(
                    ui.available_size(),
                    egui::TextEdit::multiline(body)
                        .id_salt("entry_body")
                        .hint_text("What happened today?"),
                )
                .labelled_by(label.id);
            if focus {
                text.request_focus();
            }
            text.changed()
        })
        .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_during_a_save_is_saved_after_it() {
        let mut save = Save::Saved;
        save.typed();
        assert!(matches!(save, Save::Edited { problem: None, .. }));
        save = Save::Saving { edited: None };
        save.typed();
        assert!(matches!(save, Save::Saving { edited: Some(_) }));
        save.answered();
        assert!(
            matches!(save, Save::Edited { .. }),
            "the later typing is still unsaved"
        );
        save = Save::Saving { edited: None };
        save.answered();
        assert_eq!(save, Save::Saved);
    }

    #[test]
    fn a_failed_save_is_edited_again_with_its_reason() {
        let mut save = Save::Saving { edited: None };
        save.failed("disk full".into());
        assert!(matches!(save, Save::Edited { problem: Some(ref p), .. } if p == "disk full"));
        assert!(save.unsaved());
    }

    #[test]
    fn a_new_draft_sends_one_create_after_typing_and_says_saved_when_answered() {
        let mut editor = Editor::default();
        let mut actions = Vec::new();
        editor.new_draft(&mut actions);
        assert!(actions.is_empty(), "an empty draft saves nothing");
        let doc = editor.doc.as_mut().unwrap();
        let Which::Draft(draft) = doc.which else {
            panic!("a new entry starts as a draft")
        };
        assert!(doc.focus_body, "the cursor starts in the text");
        doc.fields.body = "Rain all day.".into();
        doc.save.typed();
        editor.save_now(&mut actions);
        assert!(
            matches!(actions.as_slice(), [Action::Send(Request::Create { draft: d, .. })] if *d == draft)
        );
        assert!(!editor.all_saved());
        editor.on_created(draft, 7, &Drafts::default(), &mut actions);
        assert_eq!(editor.entry_id(), Some(7));
        assert!(editor.all_saved());
        assert_eq!(editor.status(editor.doc.as_ref().unwrap()), "Saved");
    }
}
