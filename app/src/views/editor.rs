//! The entry editor: text, title, tags and mood, saved automatically.
//!
//! Nothing is saved on every keystroke: a save goes out once typing has paused for
//! [`AUTOSAVE_AFTER`], and when the person opens another entry. A new entry is only a
//! draft until its first save, so pressing Ctrl+N and walking away leaves no empty entry
//! behind. Only one save is in flight at a time; edits made meanwhile go out after it.
//! Where the text stands against the file is one [`Save`] state, and the words on screen
//! ("Saved", "Saving…") are read from it: "Saved" only once the journal has it.
//!
//! What is on screen in a field is the person's until they leave it. An entry read
//! again (a save's answer, the model's work, another program's edit) never rewrites what
//! was typed: each field remembers the value the journal last agreed with ([`Doc::agreed`]),
//! and only a field the person has not touched since, and is not in, takes a newer
//! value from the journal ([`Doc::reconcile`]). The journal's own tidying (a title
//! trimmed, tags split at commas) is the same value, not a change: comparing the two
//! texts as they would be stored is what keeps a trailing space or comma typed before a
//! pause from being taken away. The autosave's pause is measured on egui's clock, which
//! the tests can move.
//!
//! Each draft has a number its create request carries and its answer echoes, so a failure
//! elsewhere is never mistaken for this draft's (which would create it twice). When a
//! thread behind the editor dies, or closing cannot wait any longer, the text on screen
//! is also kept in a draft file in `drafts/` beside the journal, removed once the entry
//! is saved ([`mindsage_core::drafts`]). The editor writes no file: it hands the text to
//! keep ([`DraftToKeep`]) to the app, which has the backend write it
//! ([`crate::backend::Backend::keep_draft`]) and tells the editor where it went.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use egui::RichText;

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone};

use mindsage_core::clock;
use mindsage_core::db::EntryId;
use mindsage_core::db::audio::Segment;
use mindsage_core::db::entries::{Entry, EntryEdit, NewEntry, Suggestion, normalise_tags, word_count};
use mindsage_core::media::links;

use super::history::History;
use super::markdown;
use super::page::{self, PageStyle};
use super::photos::PagePhotos;
use super::player::RecordingPlayer;
use super::prompts::Prompt;
use super::templates::Templates;
use super::when::{Chosen, When};
use super::{Action, View, display_at};
use crate::protocol::{Around, KeptDraft, NewPhoto, PhotoFrom, Request};
use crate::sound::Playing;

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

/// Where the text on screen stands against the journal file. Times are egui's clock
/// (`InputState::time`, seconds).
#[derive(Debug, Clone, PartialEq)]
enum Save {
    /// As in the file; for a draft, nothing typed yet.
    Saved,
    /// Typed since `since`; saved once typing pauses. `problem` is why the last save
    /// failed, when it did (the save is then tried again).
    Edited { since: f64, problem: Option<String> },
    /// A save of `sent` is on its way; `edited` is when typing went on meanwhile, if it
    /// did.
    Saving { sent: Box<Fields>, edited: Option<f64> },
}

impl Save {
    /// The person typed at `now`.
    fn typed(&mut self, now: f64) {
        match self {
            Save::Saved => {
                *self = Save::Edited {
                    since: now,
                    problem: None,
                }
            }
            Save::Edited { .. } | Save::Saving { edited: Some(_), .. } => {}
            Save::Saving { edited, .. } => *edited = Some(now),
        }
    }

    /// The save on its way was written; returns what it wrote.
    fn answered(&mut self) -> Option<Fields> {
        let (next, sent) = match std::mem::replace(self, Save::Saved) {
            Save::Saving {
                sent,
                edited: Some(since),
            } => (Save::Edited { since, problem: None }, Some(*sent)),
            Save::Saving { sent, edited: None } => (Save::Saved, Some(*sent)),
            other => (other, None),
        };
        *self = next;
        sent
    }

    /// The save on its way failed at `now`: the text is edited again, to be retried.
    fn failed(&mut self, problem: String, now: f64) {
        let since = match self {
            Save::Saving {
                edited: Some(since), ..
            }
            | Save::Edited { since, .. } => *since,
            _ => now,
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

    /// The fields on their way to the file, if a save is.
    fn sent(&self) -> Option<&Fields> {
        match self {
            Save::Saving { sent, .. } => Some(sent),
            _ => None,
        }
    }
}

/// The text fields as typed.
#[derive(Debug, Clone, Default, PartialEq)]
struct Fields {
    /// The title the person typed; a title the model wrote is a suggestion, shown apart.
    title: String,
    body: String,
    /// Tags as typed, separated by commas.
    tags: String,
    mood: Option<u8>,
}

/// One of the fields a person types into (or sets, for the mood).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldName {
    Title,
    Body,
    Tags,
    Mood,
}

impl Fields {
    fn of(entry: &Entry) -> Fields {
        Fields {
            title: if entry.title_by_user {
                entry.title.clone()
            } else {
                String::new()
            },
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

    /// Whether nothing but white space was typed: such a draft is not saved.
    fn blank(&self) -> bool {
        self.title.trim().is_empty()
            && self.body.trim().is_empty()
            && self.tags.split(',').all(|t| t.trim().is_empty())
            && self.mood.is_none()
    }
}

/// Whether two values of a field are the same once stored: the journal trims titles
/// and splits, trims and de-duplicates tags, so `"red, "` and `"red"` are one value.
fn same(name: FieldName, a: &Fields, b: &Fields) -> bool {
    match name {
        FieldName::Title => a.title.trim() == b.title.trim(),
        FieldName::Body => a.body == b.body,
        FieldName::Tags => tag_set(&a.tags) == tag_set(&b.tags),
        FieldName::Mood => a.mood == b.mood,
    }
}

/// Tags typed with commas between, as the journal stores them, in any order.
fn tag_set(typed: &str) -> std::collections::BTreeSet<String> {
    let split: Vec<String> = typed.split(',').map(str::to_owned).collect();
    normalise_tags(&split)
        .into_iter()
        .map(|t| t.to_lowercase())
        .collect()
}

/// Copies field `name` from `from` into `to`.
fn copy_field(name: FieldName, from: &Fields, to: &mut Fields) {
    match name {
        FieldName::Title => to.title.clone_from(&from.title),
        FieldName::Body => to.body.clone_from(&from.body),
        FieldName::Tags => to.tags.clone_from(&from.tags),
        FieldName::Mood => to.mood = from.mood,
    }
}

/// What reconciling the fields with the journal did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reconciled {
    /// Nothing new in the journal, or nothing to do yet.
    Unchanged,
    /// The field took the journal's newer value (changed elsewhere, untouched here).
    Adopted,
    /// Changed both here and elsewhere: the person's text stays, to be saved over the
    /// other (which the entry's history keeps).
    Kept,
}

/// The entry or draft on screen.
struct Doc {
    which: Which,
    fields: Fields,
    /// For each field, the value on screen the journal last agreed with: as read when
    /// the entry opened, or as sent by the last save the journal answered. A field equal
    /// to it has not been touched since.
    agreed: Fields,
    /// The newest reading of the entry (dates, the model's summary and suggestions, and
    /// the fields as the journal holds them); `None` for a draft.
    stored: Option<Entry>,
    save: Save,
    /// The field with the keyboard focus in the last frame: the journal's newer value
    /// waits until the person leaves it.
    focused: Option<FieldName>,
    /// A reading came (or a field waits for the person to leave it) that the fields have
    /// not been brought in step with: [`Doc::reconcile`] has work, which it otherwise
    /// skips (it runs every frame, and comparing means copying the whole text).
    unreconciled: bool,
    /// The person's text was kept over another program's edit of the same field: their
    /// next save says so, so the other text is kept in the entry's history.
    over_other: bool,
    /// The save on its way says so ([`Doc::over_other`] is done with once it lands).
    sent_over_other: bool,
    /// The draft file holding this text, removed once it is saved.
    kept: Option<KeptDraft>,
    /// Give the text the keyboard on the next frame, the cursor where it goes.
    focus_body: Option<CursorTo>,
    /// The day the page was opened: a draft's heading (a saved entry's is its own day).
    opened_on: NaiveDate,
    /// Words in the text on screen, counted once after each change (`None`: changed).
    words: Option<u32>,
    /// When a draft is to be dated, when not now: a page opened on another day.
    dated: Option<DateTime<FixedOffset>>,
    /// Photo files dropped or pasted on a new page, added once it is created.
    held_photos: Vec<NewPhoto>,
    /// The text a template filled a new page with, while it is all the page holds.
    filled: Option<String>,
    /// Whether the day's template was looked for (a new page is filled once).
    day_template_tried: bool,
}

impl Doc {
    fn draft() -> Doc {
        Doc {
            which: Which::Draft(NEXT_DRAFT.fetch_add(1, Ordering::Relaxed)),
            fields: Fields::default(),
            agreed: Fields::default(),
            stored: None,
            save: Save::Saved,
            focused: None,
            unreconciled: false,
            over_other: false,
            sent_over_other: false,
            kept: None,
            focus_body: Some(CursorTo::End),
            opened_on: clock::now_here().date_naive(),
            words: None,
            dated: None,
            held_photos: Vec::new(),
            filled: None,
            day_template_tried: false,
        }
    }

    fn entry(entry: Entry) -> Doc {
        Doc {
            which: Which::Entry(entry.id),
            fields: Fields::of(&entry),
            agreed: Fields::of(&entry),
            stored: Some(entry),
            save: Save::Saved,
            focused: None,
            unreconciled: false,
            over_other: false,
            sent_over_other: false,
            kept: None,
            focus_body: None,
            opened_on: clock::now_here().date_naive(),
            words: None,
            dated: None,
            held_photos: Vec::new(),
            filled: None,
            day_template_tried: true,
        }
    }

    /// Whether a new page holds nothing the person wrote: empty, or a template's text
    /// alone, untouched.
    fn untouched_draft(&self) -> bool {
        let only_filled = self.filled.as_ref() == Some(&self.fields.body)
            && Fields {
                body: String::new(),
                ..self.fields.clone()
            }
            .blank();
        matches!(self.which, Which::Draft(_)) && !self.save.unsaved() && (self.fields.blank() || only_filled)
    }

    /// Fills a new page with `template`, the cursor after its text.
    fn fill(&mut self, template: &mindsage_core::db::templates::Template, prompt: &str) {
        let text = template.fill(self.dated.unwrap_or_else(clock::now_here), prompt);
        self.fields.body.clone_from(&text);
        self.filled = Some(text);
        self.words = None;
        self.focus_body = Some(CursorTo::End);
    }

    /// Takes a new reading of the entry on screen. A reading older than the one held
    /// (read before a save committed, answered after it) is dropped: `updated_at` is
    /// written by every save, and fixed-width UTC text compares in time order.
    fn read_again(&mut self, entry: Entry) {
        if self
            .stored
            .as_ref()
            .is_some_and(|held| entry.updated_at < held.updated_at)
        {
            return;
        }
        self.stored = Some(entry);
        self.unreconciled = true;
    }

    /// Brings each field in step with the journal's newest reading, by the rule in the
    /// module's comment. Called every frame, so a field the person was in when a newer
    /// value came takes it once they leave (if they did not type).
    fn reconcile(&mut self, now: f64) -> Reconciled {
        let Some(stored) = self.stored.as_ref().filter(|_| self.unreconciled) else {
            return Reconciled::Unchanged;
        };
        let journal = Fields::of(stored);
        self.unreconciled = false;
        let mut outcome = Reconciled::Unchanged;
        for name in [
            FieldName::Title,
            FieldName::Body,
            FieldName::Tags,
            FieldName::Mood,
        ] {
            if same(name, &journal, &self.agreed) {
                continue; // nothing new
            }
            // The journal holds what is typed here, or what a save on its way sent.
            if same(name, &journal, &self.fields) {
                copy_field(name, &self.fields, &mut self.agreed);
                continue;
            }
            if let Some(sent) = self.save.sent().filter(|sent| same(name, &journal, sent)) {
                copy_field(name, sent, &mut self.agreed);
                continue;
            }
            if same(name, &self.fields, &self.agreed) {
                if self.focused == Some(name) {
                    // The person is in this field: theirs until they leave it.
                    self.unreconciled = true;
                    continue;
                }
                copy_field(name, &journal, &mut self.fields);
                copy_field(name, &journal, &mut self.agreed);
                self.words = None;
                outcome = outcome.max(Reconciled::Adopted);
            } else {
                copy_field(name, &journal, &mut self.agreed);
                self.over_other = true;
                self.save.typed(now);
                outcome = Reconciled::Kept;
            }
        }
        outcome
    }

    /// Applies the person's choice on a suggestion: accepting copies it into their own
    /// field (saved like typing: returns true); dismissing asks the journal to drop it.
    fn take_suggestion(&mut self, choice: Option<Choice>, actions: &mut Vec<Action>) -> bool {
        let (Some(choice), Some(stored), Some(id)) = (choice, &self.stored, self.id()) else {
            return false;
        };
        match choice {
            Choice::Accept(Suggestion::Title) => self.fields.title.clone_from(&stored.title),
            Choice::Accept(Suggestion::Mood) => self.fields.mood = stored.suggested_mood,
            Choice::Accept(Suggestion::Tag(tag)) => {
                let typed = self.fields.tags.trim_end().trim_end_matches(',').trim_end();
                self.fields.tags = if typed.is_empty() {
                    tag
                } else {
                    format!("{typed}, {tag}")
                };
            }
            Choice::Dismiss(which) => {
                actions.push(Action::Send(Request::DismissSuggestion { id, which }));
                return false;
            }
        }
        true
    }

    fn id(&self) -> Option<EntryId> {
        match self.which {
            Which::Entry(id) => Some(id),
            Which::Draft(_) => None,
        }
    }

    /// The name of this text's draft file.
    fn draft_name(&self) -> String {
        match self.which {
            Which::Entry(id) => format!("entry-{id}"),
            Which::Draft(draft) => new_draft_name(draft),
        }
    }

    /// The text on screen, to be kept in its draft file.
    fn to_keep(&self) -> DraftToKeep {
        DraftToKeep {
            name: self.draft_name(),
            edit: self.fields.edit(),
        }
    }
}

/// Text the editor cannot save now, for a draft file named `name` beside the journal.
#[derive(Debug)]
pub struct DraftToKeep {
    pub name: String,
    pub edit: EntryEdit,
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
    /// Set while the threads behind the editor are stopped: unsaved text goes to draft
    /// files instead, nothing is sent, since it would be lost, and nothing claims to be
    /// saving.
    halted: bool,
    /// Save pending edits at once rather than after the typing pause (the window closes).
    urgent: bool,
    /// egui's clock at the last frame, for what happens between frames (answers).
    now: f64,
    /// Said once under the header: the person's text was kept over another program's
    /// edit of the same entry.
    notice: Option<String>,
    /// The open entry's recording, once read (voice entries).
    recording: Option<RecordingPlayer>,
    /// The open entry's earlier versions.
    history: History,
    /// The daily prompt, as the person left it.
    prompt: Prompt,
    /// The page's date and time being changed, while they are.
    when: Option<When>,
    /// What is around the page, by the day it was read for, and the day last asked
    /// about (`None`: to be asked again, the journal changed).
    around: Option<(NaiveDate, Around)>,
    around_asked: Option<NaiveDate>,
    /// The open entry's photos.
    photos: PagePhotos,
    /// The templates a new page can start from.
    templates: Templates,
    /// The page's text as last laid out.
    laid_out: page::LaidOut,
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
        self.prompt.new_page();
        self.photos.clear();
    }

    /// Shows an entry read from the database. The one on screen takes it as a new
    /// reading: its fields follow it only by [`Doc::reconcile`]'s rule, so an answer
    /// arriving mid-typing never changes what was typed.
    pub fn load(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        if let Some(doc) = &mut self.doc
            && doc.id() == Some(entry.id)
        {
            doc.read_again(entry);
            return;
        }
        self.leave(actions);
        actions.push(Action::Send(Request::Recording(entry.id)));
        self.photos.show_for(entry.id, actions);
        self.doc = Some(Doc::entry(entry));
    }

    /// Starts a new entry for `day` (the calendar's): dated that day at this time of
    /// day, where this computer is; now when `day` is today.
    pub fn new_draft_on(&mut self, day: NaiveDate, actions: &mut Vec<Action>) {
        self.new_draft(actions);
        let now = clock::now_here();
        if let Some(doc) = self.doc.as_mut().filter(|_| day != now.date_naive()) {
            doc.opened_on = day;
            doc.dated = Some(clock::local_instant(day.and_time(now.time())));
        }
    }

    /// The page's day: the open entry's, a new page's, or today's when none is open.
    pub fn page_day(&self) -> NaiveDate {
        self.doc.as_ref().map_or_else(
            || clock::now_here().date_naive(),
            |doc| {
                let lived = doc.stored.as_ref().and_then(Entry::lived);
                lived.map_or(doc.opened_on, |t| t.date_naive())
            },
        )
    }

    /// Shows `entry` to write in, the cursor at the end of its text (a day's page).
    pub fn load_to_write(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        self.load(entry, actions);
        if let Some(doc) = &mut self.doc {
            doc.focus_body = Some(CursorTo::End);
        }
    }

    /// Whether a new page is on screen with nothing typed in it yet.
    pub fn blank_draft(&self) -> bool {
        self.doc.as_ref().is_some_and(Doc::untouched_draft)
    }

    /// The model's question to start from arrived.
    pub fn on_model_prompt(&mut self, day: NaiveDate, attempt: u32, question: Option<String>) {
        self.prompt.on_model_prompt(day, attempt, question);
    }

    /// The templates, read again.
    pub fn on_templates(&mut self, list: Vec<mindsage_core::db::templates::Template>) {
        self.templates.on_templates(list);
    }

    /// Photo files dropped or pasted on the page: each goes where the cursor is, as a
    /// Markdown image on a line of its own naming it (`![](bay.jpg)`), which shows it
    /// there. A saved entry's are attached at once, a new page's once it is created
    /// (which they make it be, like typing). Returns false when no page is open.
    /// `wanted` are where each comes from and the name it would like.
    pub fn add_photos(
        &mut self,
        ctx: &egui::Context,
        wanted: Vec<(PhotoFrom, String)>,
        actions: &mut Vec<Action>,
    ) -> bool {
        let now = self.now;
        let Some(doc) = self.doc.as_mut() else {
            return false;
        };
        let mut photos: Vec<NewPhoto> = Vec::new();
        let mut images = String::new();
        let in_text: Vec<String> = links::image_links(&doc.fields.body)
            .into_iter()
            .map(|link| link.target.to_string())
            .collect();
        for (from, file_name) in wanted {
            let name = links::unique_name(&links::photo_name(&file_name), |name| {
                self.photos.has_name(name)
                    || in_text.iter().any(|taken| taken == name)
                    || photos.iter().any(|p| p.name.as_deref() == Some(name))
            });
            images.push_str(&links::image_markdown(&name));
            images.push('\n');
            photos.push(NewPhoto {
                from,
                name: Some(name),
            });
        }
        markdown::insert_lines_in(ctx, body_id(), &mut doc.fields.body, &images);
        // Back in the text, after the photos, to write on.
        doc.focus_body = Some(CursorTo::Kept);
        doc.words = None;
        match doc.which {
            Which::Entry(entry) => actions.push(Action::Send(Request::AttachPhotos { entry, photos })),
            Which::Draft(_) => doc.held_photos.extend(photos),
        }
        doc.save.typed(now);
        ctx.request_repaint_after(AUTOSAVE_AFTER);
        true
    }

    /// Whether a photo is shown large over the window (it takes the keyboard).
    pub fn showing_photo(&self) -> bool {
        self.photos.showing()
    }

    /// The page's photos: those of the entry open, and a large one asked for.
    pub fn photos(&mut self) -> &mut PagePhotos {
        &mut self.photos
    }

    /// What is around a day's page, as read.
    pub fn on_around(&mut self, day: NaiveDate, around: Around) {
        self.around = Some((day, around));
    }

    /// The journal changed: what is around the page is read again (the old shown
    /// meanwhile).
    pub fn mark_around_stale(&mut self) {
        self.around_asked = None;
    }

    /// An entry's earlier versions, read when the person opened them.
    pub fn on_versions(&mut self, entry: EntryId, versions: Vec<mindsage_core::db::history::Version>) {
        self.history.on_versions(entry, versions);
    }

    /// An entry's recording, read after the entry: shown if that entry is still open.
    /// Returns whether it is, for the speaker to load its sound.
    pub fn on_recording(&mut self, entry: EntryId, segments: Vec<Segment>) -> bool {
        let open = self.entry_id() == Some(entry);
        if open {
            self.recording = Some(RecordingPlayer::new(entry, segments));
        }
        open
    }

    /// The entry whose recording the editor shows, if one.
    pub fn recording_entry(&self) -> Option<EntryId> {
        self.recording.as_ref().map(|r| r.entry)
    }

    /// The speaker's state this frame, for the recording's player.
    pub fn on_playing(&mut self, entry: EntryId, playing: Playing) {
        if let Some(recording) = self.recording.as_mut().filter(|r| r.entry == entry) {
            recording.on_playing(playing);
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
            self.notice = None;
        }
    }

    /// Takes the pending create of `draft` off the list.
    fn answered(&mut self, draft: u64) -> Option<Create> {
        let index = self.creates.iter().position(|c| c.draft == draft)?;
        Some(self.creates.remove(index))
    }

    /// Draft `draft` was created as entry `id`.
    pub fn on_created(&mut self, draft: u64, entry: Entry, actions: &mut Vec<Action>) {
        let id = entry.id;
        if let Some(carried) = self.answered(draft).and_then(|c| c.carried) {
            // That draft was left while its first save was on its way.
            actions.push(Action::Send(Request::Update {
                id,
                edit: carried,
                over_other: false,
            }));
            return;
        }
        if let Some(doc) = &mut self.doc
            && doc.which == Which::Draft(draft)
        {
            doc.which = Which::Entry(id);
            if let Some(dated) = doc.dated.filter(|dated| entry.lived() != Some(*dated)) {
                // Redated while its first save was on its way with the date before.
                actions.push(Action::Send(Request::Redate { id, lived: dated }));
            }
            let held = std::mem::take(&mut doc.held_photos);
            if !held.is_empty() {
                actions.push(Action::Send(Request::AttachPhotos {
                    entry: id,
                    photos: held,
                }));
            }
            self.photos.show_for(id, actions);
        }
        self.on_saved(entry, actions);
    }

    /// A save of `entry` was written: the next one may go; a draft file of its text goes.
    /// The entry as saved is the newest reading (older ones still on their way are
    /// dropped by [`Doc::read_again`]).
    pub fn on_saved(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        let Some(doc) = self.doc.as_mut().filter(|d| d.id() == Some(entry.id)) else {
            return;
        };
        if let Some(sent) = doc.save.answered() {
            // The journal holds what was sent: that is what the fields agree with now.
            doc.agreed = sent;
            doc.over_other &= !doc.sent_over_other;
        }
        doc.read_again(entry);
        if !doc.save.unsaved()
            && let Some(kept) = doc.kept.take()
        {
            // Everything the file holds is in the journal now.
            actions.push(Action::ForgetDraft(kept.file));
        }
    }

    /// Draft `draft` could not be created. On screen, its edits stay and go again after
    /// the next pause; left already, the answer is its text, to be kept in a draft file.
    pub fn on_create_failed(&mut self, draft: u64, message: String) -> Option<DraftToKeep> {
        let create = self.answered(draft)?;
        if let Some(doc) = self.doc.as_mut().filter(|d| d.which == Which::Draft(draft)) {
            doc.save.failed(message, self.now);
            return None;
        }
        Some(DraftToKeep {
            name: new_draft_name(draft),
            edit: create.carried.unwrap_or(create.sent),
        })
    }

    /// The text named `name` was kept in a draft file: the editor says so while it is
    /// on screen and unsaved.
    pub fn on_kept(&mut self, name: &str, kept: KeptDraft) {
        if let Some(doc) = self.doc.as_mut().filter(|d| d.draft_name() == name) {
            doc.kept = Some(kept);
        }
    }

    /// An edit of `id` could not be saved: if it is on screen, try again after the next pause.
    pub fn on_update_failed(&mut self, id: EntryId, message: String) {
        if let Some(doc) = self.doc.as_mut().filter(|d| d.id() == Some(id))
            && matches!(doc.save, Save::Saving { .. })
        {
            doc.save.failed(message, self.now);
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

    /// The threads behind the editor stopped: sends nothing more. Returns the text to
    /// keep in draft files: what is on screen, and any left draft whose create was
    /// unanswered.
    pub fn halt(&mut self) -> Vec<DraftToKeep> {
        self.halted = true;
        let on_screen = self.doc.as_ref().map(|d| d.which);
        let mut kept = Vec::new();
        for create in std::mem::take(&mut self.creates) {
            if on_screen == Some(Which::Draft(create.draft)) {
                continue; // on screen: kept below with its latest text
            }
            kept.push(DraftToKeep {
                name: new_draft_name(create.draft),
                edit: create.carried.unwrap_or(create.sent),
            });
        }
        if let Some(doc) = self.doc.as_mut().filter(|d| d.save.unsaved()) {
            if let Save::Saving { edited, .. } = doc.save {
                // Its answer will not come: the text is unsaved again.
                doc.save = Save::Edited {
                    since: edited.unwrap_or(self.now),
                    problem: None,
                };
            }
            kept.push(doc.to_keep());
        }
        kept
    }

    /// Saving is stopped (see [`Editor::halt`]).
    pub fn halted(&self) -> bool {
        self.halted
    }

    /// The threads run again: pending edits are saved after the next pause.
    pub fn resume(&mut self) {
        self.halted = false;
    }

    /// The editor moves on to another entry: unsaved edits must not be lost. If a save is
    /// on its way, an existing entry's edits are sent behind it (the writer applies saves
    /// in order); a draft's are kept until its id comes back.
    fn leave(&mut self, actions: &mut Vec<Action>) {
        // The recording, the notice and a date being changed belong to the entry left.
        self.recording = None;
        self.notice = None;
        self.when = None;
        let Some(doc) = self.doc.as_mut().filter(|d| d.save.unsaved()) else {
            return;
        };
        if self.halted {
            // Nothing can be saved now: the latest text goes to its draft file.
            actions.push(Action::KeepDraft(doc.to_keep()));
            return;
        }
        match (&doc.save, doc.which) {
            (Save::Edited { .. }, _) => {}
            (Save::Saving { edited: Some(_), .. }, Which::Entry(id)) => {
                let edit = doc.fields.edit();
                actions.push(Action::Send(Request::Update {
                    id,
                    edit,
                    over_other: doc.over_other,
                }));
            }
            (Save::Saving { edited: Some(_), .. }, Which::Draft(draft)) => {
                let edit = doc.fields.edit();
                if let Some(create) = self.creates.iter_mut().find(|c| c.draft == draft) {
                    create.carried = Some(edit);
                }
            }
            (Save::Saving { edited: None, .. } | Save::Saved, _) => {}
        }
        self.flush(actions);
    }

    /// Sends pending edits now, if a save can go.
    fn flush(&mut self, actions: &mut Vec<Action>) {
        if self.halted {
            return;
        }
        let Some(doc) = self
            .doc
            .as_mut()
            .filter(|d| matches!(d.save, Save::Edited { .. }))
        else {
            return;
        };
        if matches!(doc.which, Which::Draft(_)) && doc.fields.blank() && doc.held_photos.is_empty() {
            // Spaces alone are not an entry: nothing to save, and no model work.
            doc.save = Save::Saved;
            return;
        }
        let edit = doc.fields.edit();
        let request = match doc.which {
            Which::Entry(id) => Request::Update {
                id,
                edit,
                over_other: doc.over_other,
            },
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
                        created_at: doc.dated,
                    },
                }
            }
        };
        doc.save = Save::Saving {
            sent: Box::new(doc.fields.clone()),
            edited: None,
        };
        doc.sent_over_other = doc.over_other;
        actions.push(Action::Send(request));
    }

    /// Saves once typing has paused, and asks for a repaint at that moment otherwise.
    /// Called every frame whichever screen is on show, so edits left on another screen
    /// are saved too.
    pub fn autosave(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        self.now = ctx.input(|i| i.time);
        if let Some(doc) = &mut self.doc
            && doc.reconcile(self.now) == Reconciled::Kept
        {
            self.notice = Some(
                "This entry was also changed elsewhere. Your text here is kept; the other \
                 version is in Earlier versions."
                    .to_owned(),
            );
        }
        let Some(Save::Edited { since, .. }) = self.doc.as_ref().map(|d| &d.save) else {
            return;
        };
        if self.halted {
            return;
        }
        let waited = Duration::from_secs_f64((self.now - since).max(0.0));
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
        if self.halted && doc.save.unsaved() {
            return match &doc.kept {
                Some(kept) => format!("Not saved: kept in {}", kept.described),
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

    /// The page: its date, the title as its first line, tags and mood with the model's
    /// suggestions for them, the model's summary, the text, in the page's column; the
    /// whole page scrolls as one.
    pub fn ui(&mut self, ui: &mut egui::Ui, style: &PageStyle, actions: &mut Vec<Action>) {
        let Some(doc) = &self.doc else {
            return;
        };
        let status = self.status(doc);
        egui::ScrollArea::vertical()
            .id_salt("page")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.add_space(12.0);
                page::column(ui, style, |ui| self.page_ui(ui, style, &status, actions));
            });
    }

    fn page_ui(&mut self, ui: &mut egui::Ui, style: &PageStyle, status: &str, actions: &mut Vec<Action>) {
        let Some(doc) = &mut self.doc else {
            return;
        };
        let words = *doc.words.get_or_insert_with(|| word_count(&doc.fields.body));
        let day = self.page_day();
        if self.around_asked != Some(day) {
            self.around_asked = Some(day);
            actions.push(Action::Send(Request::Around(day)));
        }
        match self.header_ui(ui, style, status, words) {
            Some(HeaderAsk::Trash(id)) => self.trash(id, actions),
            Some(HeaderAsk::ChangeWhen) => self.change_when(),
            Some(HeaderAsk::OpenDay(day)) => actions.push(Action::OpenDay(day)),
            Some(HeaderAsk::Reflections) => actions.push(Action::Show(View::Reflections)),
            None => {}
        }
        let now = self.now_where_written();
        if let Some(when) = &mut self.when
            && let Some(chosen) = when.ui(ui, now)
        {
            self.when = None;
            if let Chosen::At(at) = chosen {
                self.redate(at, actions);
            }
        }
        if let Some(notice) = &self.notice {
            ui.label(RichText::new(notice).small());
        }
        let Some(doc) = &mut self.doc else {
            return;
        };
        let mut focused = None;
        let suggested_title = doc
            .stored
            .as_ref()
            .filter(|stored| !stored.title_by_user)
            .map(|stored| stored.title.as_str())
            .filter(|title| !title.is_empty());
        let mut changed = title_ui(ui, style, &mut doc.fields.title, suggested_title, &mut focused);
        // Focus mode: the page alone, its date, title and text.
        if !style.focus {
            changed |= tags_and_mood_ui(ui, &mut doc.fields, &mut focused);
            let choice = doc
                .stored
                .as_ref()
                .and_then(|stored| suggestions_ui(ui, &doc.fields, stored));
            changed |= doc.take_suggestion(choice, actions);
            if let Some(summary) = doc.stored.as_ref().and_then(|s| s.summary.as_ref()) {
                summary_ui(ui, summary);
            }
            if let Some(recording) = self.recording.as_mut().filter(|r| doc.id() == Some(r.entry)) {
                recording.ui(ui, actions);
            }
            if let Some(id) = doc.id() {
                self.history
                    .ui(ui, id, &doc.fields.body, !doc.save.unsaved(), actions);
            }
        }
        ui.add_space(8.0);
        let empty_page = matches!(doc.which, Which::Draft(_)) && doc.fields.body.is_empty();
        let hint = if style.prompts && empty_page && !style.focus {
            self.prompt.ui(ui, doc.opened_on, actions)
        } else {
            None
        };
        if doc.untouched_draft() && !style.focus {
            self.templates.ask(actions);
            let prompt = self.prompt.text(doc.opened_on);
            if !doc.day_template_tried
                && let Some(for_day) = self.templates.for_day(doc.opened_on)
            {
                doc.day_template_tried = true;
                if let Some(template) = for_day {
                    doc.fill(template, prompt);
                }
            }
            if let Some(template) = self.templates.picker_ui(ui) {
                doc.fill(template, prompt);
            }
        }
        let (laid_out, photos) = (&mut self.laid_out, &self.photos);
        let mut layouter = |ui: &egui::Ui, text: &dyn egui::TextBuffer, wrap_width: f32| {
            laid_out.get(ui, style, photos, text, wrap_width)
        };
        let (typed, field) = body_ui(
            ui,
            style,
            &mut layouter,
            &mut doc.fields.body,
            hint.unwrap_or("What happened today?"),
            std::mem::take(&mut doc.focus_body),
            &mut focused,
        );
        let placed = self.photos.in_text_ui(ui, &doc.fields.body, &field, actions);
        if typed {
            doc.words = None;
        }
        changed |= typed;
        doc.focused = focused;
        if changed {
            doc.save.typed(ui.input(|i| i.time));
            ui.ctx().request_repaint_after(AUTOSAVE_AFTER);
        }
        if !style.focus {
            self.photos.ui(ui, &placed, actions);
        }
    }

    /// Opens the page's date and time to be changed, the keyboard in the date.
    pub fn change_when(&mut self) {
        if let Some(lived) = self.lived() {
            self.when = Some(When::of(lived.naive_local()));
        }
    }

    /// When the page's text was lived: a saved entry's date and time where it was
    /// written, a new page's date, else now here.
    fn lived(&self) -> Option<DateTime<FixedOffset>> {
        let doc = self.doc.as_ref()?;
        match &doc.stored {
            Some(stored) => stored.lived(),
            None => Some(doc.dated.unwrap_or_else(clock::now_here)),
        }
    }

    /// Now, on the clock of the place the page's entry was written (a new page's: here).
    fn now_where_written(&self) -> chrono::NaiveDateTime {
        let now = clock::now_here();
        self.lived()
            .map_or(now, |lived| now.with_timezone(lived.offset()))
            .naive_local()
    }

    /// Dates the page at `at`, local time where it was written: a saved entry is moved
    /// by the journal, a new page is dated so when it is saved.
    fn redate(&mut self, at: chrono::NaiveDateTime, actions: &mut Vec<Action>) {
        let Some(lived) = self.lived() else {
            return;
        };
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        match doc.which {
            Which::Entry(id) => {
                let Some(moved) = lived.offset().from_local_datetime(&at).single() else {
                    return;
                };
                actions.push(Action::Send(Request::Redate { id, lived: moved }));
            }
            Which::Draft(_) => {
                doc.dated = Some(clock::local_instant(at));
                doc.opened_on = at.date();
            }
        }
    }

    /// The page's day as its heading; under it, the date and time (a click changes
    /// them), the length (against the day's goal on today's page) and the save status,
    /// and Move to trash. Returns what the person asked for.
    fn header_ui(&self, ui: &mut egui::Ui, style: &PageStyle, status: &str, words: u32) -> Option<HeaderAsk> {
        let doc = self.doc.as_ref()?;
        let today = clock::now_here().date_naive();
        let day = self.page_day();
        ui.label(
            RichText::new(page::day_heading(day, today))
                .font(style.date_font())
                .strong(),
        );
        let mut asked = None;
        if let Some((_, around)) = self
            .around
            .as_ref()
            .filter(|(shown, _)| *shown == day && !style.focus)
        {
            asked = around_ui(ui, around, day == today);
        }
        ui.horizontal(|ui| {
            if let Some(lived) = self.lived().filter(|_| !style.focus && self.when.is_none()) {
                let change = ui
                    .add(egui::Button::new(RichText::new(display_at(&lived)).weak().small()).frame(false))
                    .on_hover_text("Change the date and time");
                if change.clicked() {
                    asked = Some(HeaderAsk::ChangeWhen);
                }
            }
            let goal = (day == today).then_some(style.word_goal);
            ui.label(RichText::new(page::length(words, goal)).weak().small());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(id) = doc.id().filter(|_| !style.focus)
                    && ui
                        .small_button("Move to trash")
                        .on_hover_text("You can restore it from the trash")
                        .clicked()
                {
                    asked = Some(HeaderAsk::Trash(id));
                }
                ui.label(RichText::new(status).weak().small());
            });
        });
        asked
    }
}

/// What the person asked for in the page's header.
enum HeaderAsk {
    Trash(EntryId),
    ChangeWhen,
    OpenDay(NaiveDate),
    Reflections,
}

/// Quiet words beside the page's date: on today's page the streak and last week's
/// reflection (a click shows the reflections), on every page the entries of a month and
/// a year before (a click opens its day). Returns what the person asked for.
fn around_ui(ui: &mut egui::Ui, around: &Around, today: bool) -> Option<HeaderAsk> {
    let streak = if today {
        page::streak(around.streak, around.written_today)
    } else {
        None
    };
    let earlier = [
        ("A month ago", &around.month_before),
        ("A year ago", &around.year_before),
    ];
    if streak.is_none() && earlier.iter().all(|(_, entry)| entry.is_none()) && around.last_week.is_none() {
        return None;
    }
    let mut asked = None;
    ui.horizontal_wrapped(|ui| {
        if let Some(streak) = streak {
            ui.label(RichText::new(streak).weak().small());
        }
        for (when, entry) in earlier {
            if let Some((then, name)) = entry
                && earlier_link_ui(ui, when, *then, name)
            {
                asked = Some(HeaderAsk::OpenDay(*then));
            }
        }
    });
    if let Some(opening) = &around.last_week
        && quiet_link_ui(
            ui,
            &format!("Last week, in short: {opening}"),
            "Show the reflections",
        )
    {
        asked = Some(HeaderAsk::Reflections);
    }
    asked
}

/// "A year ago: {name}" as a link to its day; whether it was clicked.
fn earlier_link_ui(ui: &mut egui::Ui, when: &str, then: NaiveDate, name: &str) -> bool {
    let day = page::day_heading(then, clock::now_here().date_naive());
    quiet_link_ui(ui, &format!("{when}: {name}"), &day)
}

/// Small words in the link colour beside the page's date; whether they were clicked.
fn quiet_link_ui(ui: &mut egui::Ui, words: &str, hover: &str) -> bool {
    let words = RichText::new(words).small().color(ui.visuals().hyperlink_color);
    ui.add(egui::Button::new(words).frame(false))
        .on_hover_text(hover)
        .clicked()
}

/// Notes the field whose widget has the keyboard focus.
fn note_focus(response: &egui::Response, name: FieldName, focused: &mut Option<FieldName>) {
    if response.has_focus() || response.dragged() {
        *focused = Some(name);
    }
}

/// Names a field for screen readers (and the tests) with no label on screen: the page
/// shows its fields as the page's own lines, not as a form.
fn name_field(ui: &egui::Ui, field: &egui::Response, name: &str) {
    ui.ctx()
        .accesskit_node_builder(field.id, |node| node.set_label(name));
}

/// The title the person types, as the page's first line. The model's title is never
/// put in the field: it shows greyed in the empty field (`suggested`), and is taken
/// with Use ([`suggestions_ui`]).
fn title_ui(
    ui: &mut egui::Ui,
    style: &PageStyle,
    title: &mut String,
    suggested: Option<&str>,
    focused: &mut Option<FieldName>,
) -> bool {
    let field = ui.add(
        egui::TextEdit::singleline(title)
            .id_salt("entry_title")
            .hint_text(suggested.unwrap_or("Title"))
            .font(style.title_font())
            .text_color(ui.visuals().strong_text_color())
            .frame(false)
            .margin(egui::Margin::ZERO)
            .desired_width(f32::INFINITY),
    );
    name_field(ui, &field, "Title");
    note_focus(&field, FieldName::Title, focused);
    field.changed()
}

fn tags_and_mood_ui(ui: &mut egui::Ui, fields: &mut Fields, focused: &mut Option<FieldName>) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let tags = ui.add(
            egui::TextEdit::singleline(&mut fields.tags)
                .id_salt("entry_tags")
                .hint_text("Add tags, with commas between")
                .frame(false)
                .margin(egui::Margin::ZERO)
                .text_color(ui.visuals().weak_text_color())
                .desired_width(240.0),
        );
        name_field(ui, &tags, "Tags");
        note_focus(&tags, FieldName::Tags, focused);
        changed |= tags.changed();
        let mut has_mood = fields.mood.is_some();
        let checkbox = ui.checkbox(&mut has_mood, "Mood");
        note_focus(&checkbox, FieldName::Mood, focused);
        if checkbox.changed() {
            fields.mood = has_mood.then_some(5);
            changed = true;
        }
        if let Some(mood) = &mut fields.mood {
            let slider = ui.add(egui::Slider::new(mood, 1..=10).text("of 10"));
            note_focus(&slider, FieldName::Mood, focused);
            changed |= slider.changed();
        }
    });
    changed
}

/// What the person did with one of the model's suggestions.
enum Choice {
    Accept(Suggestion),
    Dismiss(Suggestion),
}

/// The local model's title, mood and tags for the entry, each offered where the person
/// has not set their own, with Use and Dismiss (buttons, so Tab and Enter reach them).
fn suggestions_ui(ui: &mut egui::Ui, fields: &Fields, stored: &Entry) -> Option<Choice> {
    let title = (fields.title.trim().is_empty() && !stored.title_by_user && !stored.title.is_empty())
        .then(|| (Suggestion::Title, format!("title “{}”", stored.title)));
    let mood = stored
        .suggested_mood
        .filter(|_| fields.mood.is_none())
        .map(|mood| (Suggestion::Mood, format!("mood {mood} of 10")));
    let own_tags = tag_set(&fields.tags);
    let tags = stored
        .suggested_tags
        .iter()
        .filter(|tag| !own_tags.contains(&tag.to_lowercase()))
        .map(|tag| (Suggestion::Tag(tag.clone()), format!("tag “{tag}”")));
    let offered: Vec<(Suggestion, String)> = title.into_iter().chain(mood).chain(tags).collect();
    if offered.is_empty() {
        return None;
    }
    let mut choice = None;
    ui.label(RichText::new("Suggested by the local model:").weak().small());
    // One row each, so a suggestion and its buttons always stand together.
    for (suggestion, text) in offered {
        ui.horizontal(|ui| {
            ui.label(RichText::new(&text).weak().italics());
            if suggestion_button(ui, "Use", &text).clicked() {
                choice = Some(Choice::Accept(suggestion.clone()));
            }
            if suggestion_button(ui, "Dismiss", &text).clicked() {
                choice = Some(Choice::Dismiss(suggestion));
            }
        });
    }
    choice
}

fn summary_ui(ui: &mut egui::Ui, summary: &str) {
    ui.group(|ui| {
        ui.label(RichText::new("Summary by the local model").small().strong());
        ui.label(RichText::new(summary).italics());
    });
}

/// A small button `verb` for one suggestion, named in full for a screen reader ("Use
/// the model's tag “calm”"), since several stand side by side.
fn suggestion_button(ui: &mut egui::Ui, verb: &str, text: &str) -> egui::Response {
    let name = format!("{verb} the model's {text}");
    let button = ui.small_button(verb).on_hover_text(&name);
    button.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &name));
    button
}

/// The page's text field, one per window.
/// Where the cursor goes when the page's text is given the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CursorTo {
    /// The end of the text: a page opened to write.
    End,
    /// Where it is: after photos put in the text.
    Kept,
}

pub fn body_id() -> egui::Id {
    egui::Id::new("entry_body")
}

/// The entry's text in the reading face, laid out by `layouter` (its Markdown styled as
/// typed, room made for its photos), filling at least the rest of the window, `hint`
/// greyed in it while empty; `focus` gives it the keyboard, the cursor where it says.
/// Returns whether the text changed, and the field as shown.
///
/// The focus is asked for after the field is drawn, as a click gives it: asked for
/// before it was drawn, in the frame of a thread's answer, the real window took no
/// typing afterwards (egui_kittest did); the Windows check types after a paste.
fn body_ui(
    ui: &mut egui::Ui,
    style: &PageStyle,
    layouter: &mut dyn FnMut(&egui::Ui, &dyn egui::TextBuffer, f32) -> std::sync::Arc<egui::Galley>,
    body: &mut String,
    hint: &str,
    focus: Option<CursorTo>,
    focused: &mut Option<FieldName>,
) -> (bool, egui::text_edit::TextEditOutput) {
    // The page scrolls as one: the space left on its first screen, measured from the
    // page's top, which scrolls with it.
    let above = ui.cursor().top() - ui.min_rect().top();
    let rest = (ui.clip_rect().height() - above - 24.0).max(120.0);
    let id = body_id();
    let ctx = ui.ctx().clone();
    let mut changed = markdown::keys_before(&ctx, id, body);
    let enter = ctx.memory(|m| m.has_focus(id))
        && ui.input(|i| i.modifiers.is_none() && i.key_pressed(egui::Key::Enter));
    // Tab stays in the text on a list item (it indents there), and moves on elsewhere.
    let cursor = egui::TextEdit::load_state(&ctx, id)
        .and_then(|state| state.cursor.char_range())
        .map(|range| range.primary.index);
    let in_list = cursor.is_some_and(|at| markdown::in_list(body, at));
    let output = egui::TextEdit::multiline(body)
        .id(id)
        .hint_text(hint)
        .font(style.body_font())
        .layouter(layouter)
        .frame(false)
        .margin(egui::Margin::ZERO)
        .lock_focus(in_list)
        .desired_width(f32::INFINITY)
        .min_size(egui::vec2(0.0, rest))
        .show(ui);
    let text = &output.response;
    name_field(ui, text, "Entry");
    changed |= text.changed();
    if enter
        && text.changed()
        && let Some(range) = output.cursor_range
    {
        markdown::after_enter_in(&ctx, id, body, range.primary.index);
    }
    if let Some(to) = focus {
        text.request_focus();
        if to == CursorTo::End {
            let end = egui::text::CCursor::new(body.chars().count());
            let mut state = egui::TextEdit::load_state(&ctx, id).unwrap_or_default();
            state
                .cursor
                .set_char_range(Some(egui::text::CCursorRange::one(end)));
            state.store(&ctx, id);
        }
    }
    note_focus(text, FieldName::Body, focused);
    (changed, output)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saving() -> Save {
        Save::Saving {
            sent: Box::default(),
            edited: None,
        }
    }

    #[test]
    fn typing_during_a_save_is_saved_after_it() {
        let mut save = Save::Saved;
        save.typed(1.0);
        assert!(matches!(save, Save::Edited { problem: None, .. }));
        save = saving();
        save.typed(2.0);
        assert!(matches!(save, Save::Saving { edited: Some(_), .. }));
        assert!(save.answered().is_some(), "the answer names what was written");
        assert!(
            matches!(save, Save::Edited { since, .. } if since == 2.0),
            "the later typing is still unsaved"
        );
        save = saving();
        save.answered();
        assert_eq!(save, Save::Saved);
    }

    #[test]
    fn a_failed_save_is_edited_again_with_its_reason() {
        let mut save = saving();
        save.failed("disk full".into(), 3.0);
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
        assert_eq!(
            doc.focus_body,
            Some(CursorTo::End),
            "the cursor starts in the text"
        );
        doc.fields.body = "Rain all day.".into();
        doc.save.typed(0.0);
        editor.save_now(&mut actions);
        assert!(
            matches!(actions.as_slice(), [Action::Send(Request::Create { draft: d, .. })] if *d == draft)
        );
        assert!(!editor.all_saved());
        let entry = entry("", false, "Rain all day.", &[], "2026-12-05T10:00:00.000Z");
        editor.on_created(draft, entry, &mut actions);
        assert_eq!(editor.entry_id(), Some(7));
        assert!(editor.all_saved());
        assert_eq!(editor.status(editor.doc.as_ref().unwrap()), "Saved");
    }

    #[test]
    fn a_draft_of_white_space_alone_is_not_saved() {
        let mut editor = Editor::default();
        let mut actions = Vec::new();
        editor.new_draft(&mut actions);
        let doc = editor.doc.as_mut().unwrap();
        doc.fields.body = "  \n\t ".into();
        doc.fields.tags = " , ".into();
        doc.save.typed(0.0);
        editor.save_now(&mut actions);
        assert!(actions.is_empty(), "nothing sent: {}", actions.len());
        assert!(editor.all_saved());
    }

    fn entry(title: &str, by_user: bool, body: &str, tags: &[&str], updated_at: &str) -> Entry {
        Entry {
            id: 7,
            created_at: "2026-12-05T10:00:00.000Z".into(),
            utc_offset: 0,
            updated_at: updated_at.into(),
            title: title.into(),
            title_by_user: by_user,
            body: body.into(),
            mood_score: None,
            summary: None,
            word_count: 1,
            is_deleted: false,
            deleted_at: None,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            revision: 1,
            suggested_mood: None,
            suggested_tags: Vec::new(),
        }
    }

    /// The journal's tidy form of what was typed is the same value: a trailing space or
    /// comma typed before a pause stays on screen when the save's answer comes.
    #[test]
    fn a_saves_answer_never_changes_what_is_on_screen() {
        let mut doc = Doc::entry(entry("Walk", true, "Sea", &["red"], "2026-12-05T10:00:00.000Z"));
        doc.fields.title = "Walk ".into();
        doc.fields.tags = "red, ".into();
        doc.save = Save::Saving {
            sent: Box::new(doc.fields.clone()),
            edited: None,
        };
        doc.agreed = doc.save.answered().unwrap();
        doc.read_again(entry("Walk", true, "Sea", &["red"], "2026-12-05T10:00:01.000Z"));
        assert_eq!(doc.reconcile(5.0), Reconciled::Unchanged);
        assert_eq!(
            (doc.fields.title.as_str(), doc.fields.tags.as_str()),
            ("Walk ", "red, ")
        );
    }

    #[test]
    fn another_programs_edit_shows_unless_the_person_typed_in_that_field() {
        let mut doc = Doc::entry(entry("Walk", true, "Sea", &[], "2026-12-05T10:00:00.000Z"));
        doc.fields.body = "Sea and sand".into();
        doc.save.typed(1.0);
        doc.read_again(entry("Run", true, "Lake", &[], "2026-12-05T10:05:00.000Z"));
        assert_eq!(doc.reconcile(2.0), Reconciled::Kept);
        assert_eq!(doc.fields.title, "Run", "an untouched field follows the journal");
        assert_eq!(doc.fields.body, "Sea and sand", "typed text stays");
        assert!(doc.over_other, "its save keeps the other text in history");
    }

    #[test]
    fn a_field_the_person_is_in_waits_until_they_leave_it() {
        let mut doc = Doc::entry(entry("Walk", true, "Sea", &[], "2026-12-05T10:00:00.000Z"));
        doc.focused = Some(FieldName::Title);
        doc.read_again(entry("Run", true, "Sea", &[], "2026-12-05T10:05:00.000Z"));
        assert_eq!(doc.reconcile(1.0), Reconciled::Unchanged);
        assert_eq!(doc.fields.title, "Walk");
        doc.focused = None;
        assert_eq!(doc.reconcile(2.0), Reconciled::Adopted);
        assert_eq!(doc.fields.title, "Run");
    }

    #[test]
    fn typing_in_a_field_changed_elsewhere_keeps_the_typing_and_marks_its_save() {
        let mut doc = Doc::entry(entry("Walk", true, "Sea", &[], "2026-12-05T10:00:00.000Z"));
        doc.focused = Some(FieldName::Body);
        doc.fields.body = "Sea and sand".into();
        doc.save.typed(1.0);
        doc.read_again(entry("Walk", true, "Lake", &[], "2026-12-05T10:05:00.000Z"));
        assert_eq!(
            doc.reconcile(2.0),
            Reconciled::Kept,
            "at once, not when they leave"
        );
        assert_eq!(doc.fields.body, "Sea and sand");
        let mut actions = Vec::new();
        let mut editor = Editor {
            doc: Some(doc),
            ..Editor::default()
        };
        editor.save_now(&mut actions);
        assert!(matches!(
            actions.as_slice(),
            [Action::Send(Request::Update { over_other: true, .. })]
        ));
    }

    #[test]
    fn an_older_reading_is_dropped() {
        let mut doc = Doc::entry(entry("Walk", true, "Sea", &[], "2026-12-05T10:05:00.000Z"));
        doc.read_again(entry("Old", true, "Old", &[], "2026-12-05T10:00:00.000Z"));
        assert_eq!(doc.reconcile(1.0), Reconciled::Unchanged);
        assert_eq!(doc.fields.title, "Walk");
    }

    #[test]
    fn the_models_title_is_a_suggestion_not_the_fields_text() {
        let doc = Doc::entry(entry(
            "The model's title",
            false,
            "Sea",
            &[],
            "2026-12-05T10:00:00.000Z",
        ));
        assert_eq!(doc.fields.title, "");
    }
}
