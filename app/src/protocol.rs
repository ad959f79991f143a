//! The messages between the window and its threads, and the channel answers come back on.
//!
//! The UI thread sends a [`Request`] to the reader ([`crate::reader`]) or an [`AiRequest`]
//! to the AI thread ([`crate::assistant`]) and carries on drawing; every answer is a
//! [`Response`] on one channel, drained once per frame by [`crate::app`], which hands it
//! to the view that asked. [`crate::backend`] starts the threads and owns the channels.
//!
//! A save's failure answers that save ([`Response::CreateFailed`], [`Response::UpdateFailed`]),
//! never a shared "something failed", so the editor only retries what it sent. A thread
//! that dies of a bug says so ([`Response::ThreadStopped`], sent by its [`Watch`]) instead
//! of leaving requests to vanish.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;

use chrono::{DateTime, FixedOffset, NaiveDate};

use mindsage_core::ai::ask::{AskAnswer, AskEvent, Turn};
use mindsage_core::ai::runner::QueueStatus;
use mindsage_core::db::audio::Segment;
use mindsage_core::db::chats::{ChatMessage, ChatSummary};
use mindsage_core::db::entries::{
    Cursor, Entry, EntryEdit, EntryRow, ListFilter, NewEntry, Page, Suggestion,
};
use mindsage_core::db::memory::{Correction, Subject, SubjectId};
use mindsage_core::db::reflections::Reflection;
use mindsage_core::db::stats::{DashboardStats, DayTotals};
use mindsage_core::db::{self, EffectivePragmas, EntryId};
use mindsage_core::demo::SeedReport;
use mindsage_core::search::SearchOutcome;
use mindsage_core::search::themes::Lately;
use mindsage_core::settings::Settings;
use mindsage_core::voice::transcribe::Transcript;
use mindsage_core::{export, import};

/// What the UI asks the reader thread (which passes writes on to the writer thread).
#[derive(Debug)]
pub enum Request {
    /// A page of the list; `generation` lets the UI drop answers to stale requests.
    Page {
        generation: u64,
        filter: ListFilter,
        after: Option<Cursor>,
        limit: u32,
    },
    Count,
    /// An entry to open in the journal.
    Entry(EntryId),
    /// An entry read again because the local model wrote its title, summary and mood, or
    /// another program wrote to the journal ([`Response::ChangedElsewhere`]): answered
    /// with [`Response::Refreshed`], which updates what shows it and opens nothing.
    Refresh(EntryId),
    /// The newest entry lived on a day, for that day's page: answered with
    /// [`Response::Day`].
    Day(NaiveDate),
    /// What is shown around a day's page: the streak, the entry of a year before;
    /// answered with [`Response::Around`].
    Around(NaiveDate),
    /// The days with entries from `first` to `last`, for the calendar's month and the
    /// year in pixels: answered with [`Response::Days`].
    Days {
        first: NaiveDate,
        last: NaiveDate,
    },
    /// Hybrid search for the search box; keyword-only when `embedding` is `None`.
    Search {
        generation: u64,
        text: String,
        embedding: Option<Vec<f32>>,
    },
    /// A new entry; `draft` is the editor's name for it, echoed in the answer.
    Create {
        draft: u64,
        entry: NewEntry,
    },
    /// An edit of a saved entry. `over_other`: another program changed the entry while
    /// the person edited it here, and their text is saved over that change, which the
    /// entry's history keeps.
    Update {
        id: EntryId,
        edit: EntryEdit,
        over_other: bool,
    },
    /// The person dismissed one of the local model's suggestions for an entry; answered
    /// with [`Response::Refreshed`].
    DismissSuggestion {
        id: EntryId,
        which: Suggestion,
    },
    /// The person moved an entry to another date and time (where it was written);
    /// answered with [`Response::Redated`].
    Redate {
        id: EntryId,
        lived: DateTime<FixedOffset>,
    },
    Trash(EntryId),
    Restore(EntryId),
    Purge(EntryId),
    /// The dashboard's figures, "a month ago" and "on this day".
    Dashboard,
    /// The themes of the last weeks and months: answered with [`Response::Themes`].
    Themes,
    /// The latest reflections on weeks and months, with the entries they cite:
    /// answered with [`Response::Reflections`].
    Reflections,
    /// An entry lived over a month ago, at random: answered with [`Response::Entry`], or
    /// [`Response::Told`] when there is none.
    OlderEntry,
    /// A page of gallery thumbnails, newest first.
    GalleryPage {
        generation: u64,
        after: Option<Cursor>,
        limit: u32,
    },
    /// Random photos for the shuffle.
    GalleryShuffle {
        generation: u64,
        count: usize,
    },
    /// Bring in another app's journal (`mindsage_core::import`), or with `dry_run` only
    /// say what would happen. `cancel` stops it after the batch being written.
    ImportJournal {
        path: PathBuf,
        dry_run: bool,
        cancel: Arc<AtomicBool>,
    },
    /// The automatic backup into the data folder's `backups/` when one is due (every
    /// `every_days`, keeping `keep`), or with `now` at once.
    Backup {
        every_days: u32,
        keep: u32,
        now: bool,
    },
    /// The backups in the data folder's `backups/`, newest first.
    Backups,
    /// Check a backup file before the person confirms restoring it (on a thread of its
    /// own: the integrity check of a large journal takes a while).
    CheckBackup(PathBuf),
    /// Replace the journal with a checked backup, through the writer, keeping the
    /// journal as it was with the backups (`db::backup::restore_into`).
    RestoreBackup(PathBuf),
    /// Take the journal out as MindSage's JSON or a Markdown folder.
    ExportJournal {
        path: PathBuf,
        format: export::Format,
    },
    /// An entry's earlier versions.
    History(EntryId),
    /// Bring an earlier version of an entry back (the current text is kept as one).
    BringBack {
        entry: EntryId,
        version: i64,
    },
    /// Read, check and attach photo files to an entry.
    AttachPhotos {
        entry: EntryId,
        photos: Vec<NewPhoto>,
    },
    /// The clipboard's image, to paste into the page: answered with
    /// [`Response::ClipboardPhoto`].
    ClipboardPhoto,
    /// A finished recording and what was heard in it: the writer saves it as a new
    /// entry with the recording, then erases the file (see `voice::save_entry`).
    /// `samples` are the recording's as the transcriber read them (16 kHz mono), so the
    /// writer does not read, or decrypt, the file a second time.
    SaveRecording {
        recording: PathBuf,
        samples: Vec<f32>,
        transcript: Transcript,
    },
    /// An entry's recording, to play.
    Recording(EntryId),
    /// The templates: answered with [`Response::Templates`], as are the two below.
    Templates,
    /// Saves a template (a new one when its id is 0).
    SaveTemplate(db::templates::Template),
    DeleteTemplate(i64),
    /// The people, places and activities the journal remembers: answered with
    /// [`Response::Memory`].
    Memory,
    /// The newest entries that mention one of them: answered with
    /// [`Response::MemoryEntries`].
    MemoryEntries(SubjectId),
    /// The person's correction of one of them; answered with
    /// [`Response::MemoryCorrected`].
    CorrectMemory {
        subject: SubjectId,
        correction: Correction,
    },
    /// An entry's photos, for its page: answered with [`Response::Photos`].
    Photos(EntryId),
    /// One photo decoded to be shown large: answered with [`Response::Photo`].
    Photo(i64),
    Pragmas,
    SaveSettings(Settings),
    /// Read (`None`) or set the days in which entry history keeps every version (a
    /// journal setting, see `db::history::days`); answered with [`Response::HistoryDays`].
    HistoryDays(Option<u32>),
    /// Store an answered question in the chat history.
    SaveChat(Box<AskAnswer>),
    /// The most recent chats of the Ask history.
    Chats,
    /// One chat's messages.
    ChatMessages(i64),
    /// Fill the journal with demo entries if it has none.
    DemoIfEmpty,
    /// Start the model's background work (the job runner and the model's pre-warm). The
    /// window sends it once the journal is on screen: on a two-core PC the backfill's
    /// scan and the pre-warm otherwise compete with the first frame for the processor.
    StartModelWork,
    /// Pause (true) or resume the model's background work.
    PauseQueue(bool),
    /// Ask has the model (true) or is done with it: the background work holds back
    /// meanwhile.
    Asking(bool),
    /// Answered with [`Response::Flushed`] once every write sent before it is committed
    /// (the writer runs jobs in order): closing waits for it.
    Flush,
    /// Forget the passphrase the credential store keeps for this journal; answered with
    /// [`Response::Told`].
    ForgetPassphrase,
    /// Faults only tests send, to check that failures and dead threads are noticed.
    #[doc(hidden)]
    Fault(Fault),
}

/// What a test asks a thread to do wrong.
#[doc(hidden)]
#[derive(Debug)]
pub enum Fault {
    /// The reader answers with a failure that belongs to no save.
    Fail,
    /// The reader panics, as a bug in a query would.
    PanicReader,
    /// A job on the writer panics, which ends the writer thread.
    PanicWriter,
}

/// What the UI asks the AI thread.
/// Work for the transcriber thread ([`crate::transcriber`]).
#[derive(Debug)]
pub enum VoiceRequest {
    /// Transcribe this recording (finished, in the recordings folder) and save it.
    Transcribe(PathBuf),
    /// The settings were saved: a new model may now be there for waiting recordings.
    Settings(Box<Settings>),
    /// List the input devices again.
    Devices,
}

/// What the transcriber thread reports; each names the recording it is about.
#[derive(Debug, Clone, PartialEq)]
pub enum VoiceEvent {
    /// The input devices, default first.
    Devices(Vec<String>),
    /// Whether a usable Whisper model is set up, and which; or what to do about it.
    Model(Result<PathBuf, String>),
    /// Recordings that wait for a model, and why.
    Waiting {
        recordings: Vec<PathBuf>,
        reason: String,
    },
    Started {
        recording: PathBuf,
    },
    Percent {
        recording: PathBuf,
        percent: u8,
    },
    Segment {
        recording: PathBuf,
        segment: Segment,
    },
    /// Saved as entry `id`; the file is gone.
    Saved {
        recording: PathBuf,
        id: EntryId,
    },
    /// Not transcribed or not saved; the file stays, to be tried at the next start.
    Failed {
        recording: PathBuf,
        message: String,
    },
}

#[derive(Debug)]
pub enum AiRequest {
    /// Is Ollama running with both models pulled?
    Health,
    /// Embed the search box's text, then search again with meaning as well as words.
    Embed { generation: u64, text: String },
    /// Answer a question from the journal, streaming.
    Ask {
        question: String,
        /// The chat's earlier questions and answers, the latest last: the question
        /// may follow them ("and after that?").
        earlier: Vec<Turn>,
    },
    /// The model's question to start from about the last days before `day`; answered
    /// with [`Response::ModelPrompt`]. `attempt` varies it.
    Prompt { day: NaiveDate, attempt: u32 },
}

/// A gallery photo with its thumbnail decoded, ready to upload as a texture.
pub struct Thumbnail {
    pub media_id: i64,
    pub entry_id: EntryId,
    pub created_at: String,
    pub image: egui::ColorImage,
    /// Its name in the entry's text, which places it there.
    pub name: Option<String>,
}

/// A photo to attach, and the name the entry's text gives it if it was placed there
/// (dropped or pasted into the page).
#[derive(Debug, Clone, PartialEq)]
pub struct NewPhoto {
    pub from: PhotoFrom,
    pub name: Option<String>,
}

/// Where a photo to attach comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum PhotoFrom {
    File(PathBuf),
    /// A PNG made from the clipboard's image.
    Pasted(Vec<u8>),
}

impl NewPhoto {
    /// Photo files for the strip: no name in the text.
    pub fn unnamed(paths: Vec<PathBuf>) -> Vec<NewPhoto> {
        paths
            .into_iter()
            .map(|path| NewPhoto {
                from: PhotoFrom::File(path),
                name: None,
            })
            .collect()
    }
}

/// A photo decoded to be shown large (at most [`LargePhoto::SIDE`] pixels a side).
pub struct LargePhoto(pub egui::ColorImage);

impl LargePhoto {
    /// The longest side a photo is shown at: sharper than any window, and a texture
    /// every graphics card takes.
    pub const SIDE: u32 = 2048;
}

impl std::fmt::Debug for LargePhoto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LargePhoto({}x{})", self.0.size[0], self.0.size[1])
    }
}

impl std::fmt::Debug for Thumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Thumbnail({} of entry {})", self.media_id, self.entry_id)
    }
}

/// What comes back, from any thread.
#[derive(Debug)]
pub enum Response {
    Page {
        generation: u64,
        page: Page,
    },
    Count(u64),
    Entry(Box<Entry>),
    /// The answer to [`Request::Refresh`].
    Refreshed(Box<Entry>),
    /// The answer to [`Request::Redate`]: the entry at its new date.
    Redated(Box<Entry>),
    /// The answer to [`Request::Around`].
    Around {
        day: NaiveDate,
        around: Around,
    },
    /// The answer to [`Request::Day`]: that day's newest entry, if it has one.
    Day {
        day: NaiveDate,
        entry: Option<Box<Entry>>,
    },
    /// The answer to [`Request::Days`].
    Days {
        first: NaiveDate,
        last: NaiveDate,
        days: Vec<DayTotals>,
    },
    Search {
        generation: u64,
        outcome: SearchOutcome,
    },
    /// The search box's text could not be embedded: results match words only, for this reason.
    MeaningUnavailable {
        generation: u64,
        reason: String,
    },
    /// The draft `draft` was created; the entry as the journal now holds it (its
    /// `updated_at` tells the editor which later readings are older than this save).
    Created {
        draft: u64,
        entry: Box<Entry>,
    },
    /// The draft `draft` could not be created; nothing was written.
    CreateFailed {
        draft: u64,
        message: String,
    },
    /// An edit was saved; the entry as the journal now holds it.
    Saved(Box<Entry>),
    /// An edit of `id` could not be saved; the entry is as it was.
    UpdateFailed {
        id: EntryId,
        message: String,
    },
    Trashed(EntryId),
    Restored(EntryId),
    Purged(EntryId),
    Dashboard {
        stats: Arc<DashboardStats>,
        /// Entries of the same day a month ago, newest first.
        month_ago: Vec<EntryRow>,
        /// Entries written on today's date in earlier years, newest year first.
        on_this_day: Vec<EntryRow>,
    },
    Thumbnails {
        generation: u64,
        thumbnails: Vec<Thumbnail>,
        /// Where the next page starts; `None` at the end and for a shuffle.
        next: Option<Cursor>,
    },
    /// An entry's earlier versions, newest first.
    History {
        entry: EntryId,
        versions: Vec<db::history::Version>,
    },
    /// A version was brought back: the entry as it now is, and its versions.
    BroughtBack {
        entry: Box<Entry>,
        versions: Vec<db::history::Version>,
    },
    /// An import has written (or judged) `done` of `total` entries in `elapsed`.
    ImportProgress {
        done: usize,
        total: usize,
        elapsed: std::time::Duration,
    },
    /// An import (or its dry run) ended: its report, or why the export could not be read.
    Imported(Result<import::Report, String>),
    /// A backup was made (`Some`), was not due (`None`), or failed.
    BackedUp(Result<Option<db::backup::BackupReport>, String>),
    Backups(Vec<db::backup::BackupFile>),
    /// A backup file checked: how many entries it holds, or why it cannot be restored.
    BackupChecked {
        path: PathBuf,
        outcome: Result<u64, String>,
    },
    /// A backup was restored: the journal as it now is, and where the journal as it
    /// was is kept; or why not (the journal is then as it was).
    BackupRestored(Result<(db::backup::BackupReport, PathBuf), String>),
    /// An export ended: what it wrote, or why it could not.
    Exported(Result<export::ExportReport, String>),
    /// The answer to [`AiRequest::Prompt`]: the question, or nothing to show (no
    /// model, nothing written lately, or an unusable reply).
    ModelPrompt {
        day: NaiveDate,
        attempt: u32,
        question: Option<String>,
    },
    /// The templates, after [`Request::Templates`] or a change to them.
    Templates(Vec<db::templates::Template>),
    /// What the journal remembers, after [`Request::Memory`] or a correction.
    Memory(Vec<Subject>),
    Themes(Lately),
    Reflections {
        reflections: Vec<Reflection>,
        /// The entries their sentences cite, each once.
        entries: Vec<EntryRow>,
    },
    /// The newest entries that mention `subject`.
    MemoryEntries {
        subject: SubjectId,
        rows: Vec<EntryRow>,
    },
    /// A correction was written: what the journal remembers now, and the subject it
    /// leaves (the new one of a split) with its newest entries.
    MemoryCorrected {
        subjects: Vec<Subject>,
        subject: SubjectId,
        rows: Vec<EntryRow>,
    },
    /// The clipboard's image as a PNG, or why there is none.
    ClipboardPhoto(Result<Vec<u8>, String>),
    /// The answer to [`Request::Photos`].
    Photos {
        entry: EntryId,
        thumbnails: Vec<Thumbnail>,
    },
    /// The answer to [`Request::Photo`], or why it cannot be shown.
    Photo {
        media_id: i64,
        image: Result<LargePhoto, String>,
    },
    PhotosAdded {
        entry: EntryId,
        added: usize,
        /// One line per file that could not be attached, naming it and why.
        failures: Vec<String>,
    },
    /// An entry's recording: its sound (16 kHz mono) and what was heard in it.
    Recording {
        entry: EntryId,
        samples: Vec<f32>,
        segments: Vec<Segment>,
    },
    Voice(VoiceEvent),
    Pragmas(Box<EffectivePragmas>),
    /// The settings are in their file; and what the system said to the parts of them it
    /// holds a copy of (on failure the file keeps what the system has).
    SettingsSaved(SystemAnswers),
    /// The days in which entry history keeps every version, as the journal now holds.
    HistoryDays(u32),
    /// Whether the local model is usable, or what to do about it.
    Health(Result<String, String>),
    /// A step of the answer being streamed.
    Ask(AskEvent),
    Chats(Vec<ChatSummary>),
    ChatMessages(Vec<ChatMessage>),
    /// An answered question was added to the history.
    ChatSaved,
    Seeded(SeedReport),
    /// How the model's queue stands (sent by the job runner after every step).
    Queue(QueueStatus),
    /// Every write sent before [`Request::Flush`] is in the file.
    Flushed,
    /// Another program (or this app's import, on a connection of its own) has written
    /// to the journal since the reader last looked: what shows the journal reads it
    /// again. The app's own saves never send it.
    ChangedElsewhere,
    /// A thread died of a bug: what it did, in the person's words, and whether saves are
    /// lost with it (the reader and the writer). Requests to it are lost until
    /// [`crate::backend::Backend::restart`].
    ThreadStopped {
        what: &'static str,
        saving: bool,
    },
    /// The journal could not be opened; nothing else will arrive.
    OpenFailed(String),
    /// A request that no editor state waits on failed; shown, never retried.
    Failed(String),
    /// Something done that the status bar tells.
    Told(String),
    /// The sealed drafts a last session left were saved into the journal at its opening
    /// (`saved` of them); `problems` names those left in `drafts/`, and why.
    DraftsRecovered {
        saved: usize,
        problems: Vec<String>,
    },
}

/// Sends answers to the UI and wakes it up; shared by the reader, writer jobs, imports
/// and the AI thread.
#[derive(Clone)]
pub struct Reply {
    pub(crate) outbox: Sender<Response>,
    pub(crate) repaint: egui::Context,
}

impl Reply {
    pub fn send(&self, response: Response) {
        let _ = self.outbox.send(response);
        self.repaint.request_repaint();
    }

    /// Sends `result`'s answer, or its error as [`Response::Failed`].
    pub fn result(&self, result: db::Result<Response>) {
        self.send(result.unwrap_or_else(|e| Response::Failed(e.to_string())));
    }
}

/// Lives on a thread and tells the UI if that thread dies of a panic (it is dropped
/// while unwinding); a thread that ends normally says nothing.
pub struct Watch {
    pub what: &'static str,
    /// Whether saves go through this thread.
    pub saving: bool,
    pub reply: Reply,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.reply.send(Response::ThreadStopped {
                what: self.what,
                saving: self.saving,
            });
        }
    }
}

/// A draft file unsaved text was kept in ([`crate::backend::Backend::keep_draft`]).
#[derive(Debug, Clone)]
pub struct KeptDraft {
    pub file: PathBuf,
    /// Where it is, in the person's words.
    pub described: String,
}

/// What is shown around a day's page, beside its date.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Around {
    /// Consecutive days written, ending today (or yesterday, until today is over).
    pub streak: u32,
    /// Whether today has an entry.
    pub written_today: bool,
    /// On today's page, the opening of last week's reflection, once written.
    pub last_week: Option<String>,
    /// The newest entry of the same day a month before, by its name and day.
    pub month_before: Option<(NaiveDate, String)>,
    /// The newest entry of the same day a year before, by its name and day.
    pub year_before: Option<(NaiveDate, String)>,
}

/// What the system said, on a save, to the settings it keeps a copy of: `None` for one
/// that did not change.
#[derive(Debug, Default)]
pub struct SystemAnswers {
    /// The reminder, from the system's scheduler.
    pub reminder: Option<crate::reminders::Scheduled>,
    /// Starting with the system, from the Run key or the autostart folder.
    pub start_with_system: Option<crate::autostart::Applied>,
}
