//! The window: owns the panels and the views, carries out the [`Action`]s the views
//! return, hands each [`Response`] to the view that asked, and handles shortcuts, dropped
//! files, the file dialog and the profiler overlay. Never touches the database or the
//! network: [`Backend`] carries requests to the threads that do.
//!
//! Closing, locking and changing encryption save first: see [`closing`].

mod closing;

pub(crate) use closing::CLOSE_PATIENCE;
use closing::Closing;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use egui::{Key, Modifiers, RichText};

use mindsage_core::db::entries::ListFilter;
use mindsage_core::db::{self, EntryId};
use mindsage_core::encryption::Change;
use mindsage_core::links::Link;
use mindsage_core::settings::Settings;
use mindsage_core::voice::{self, VoiceSettings, capture::Input};

use crate::backend::Backend;
use crate::file_dialog::{Chosen, FileChoice, FileDialogs};
use crate::fonts::{self, SystemFonts};
use crate::instance::Asked;
use crate::launch_report::{Drawn, LaunchReport, Seen, Step};
use crate::overlay::{FrameTimes, Overlay};
use crate::protocol::{NewPhoto, PhotoFrom, Request, Response, VoiceEvent, VoiceRequest};
use crate::queue::QueueBar;
use crate::taskbar::Progress;
use crate::views::ask::AskView;
use crate::views::commands::{self, Command};
use crate::views::dashboard::DashboardView;
use crate::views::dialog::{self, Shown};
use crate::views::editor;
use crate::views::gallery::GalleryView;
use crate::views::importing::Importer;
use crate::views::journal::JournalView;
use crate::views::palette::{self, Palette};
use crate::views::people::PeopleView;
use crate::views::recorder::RecorderView;
use crate::views::reflections::ReflectionsView;
use crate::views::settings::{SettingsView, apply_theme};
use crate::views::unlock::PassphraseForm;
use crate::views::{Action, Screen, View};

/// How the window starts.
pub struct Startup {
    /// Fill an empty journal with demo entries.
    pub demo: bool,
    pub view: View,
    /// An entry to open in the journal.
    pub entry: Option<EntryId>,
    /// Open the profiler overlay.
    pub profiler: bool,
    /// An export to import, previewed in the import window once the window is up (as
    /// if it had been dropped on it).
    pub import: Option<PathBuf>,
    pub settings: Settings,
    /// Why the settings file could not be used (defaults are in force), if it could not.
    pub settings_damaged: Option<String>,
    pub data_dir: PathBuf,
    /// Where recordings come from, when not the input Settings names: the tests' file
    /// input (`voice::capture::Input::File`).
    pub voice_input: Option<Input>,
    /// Offer to encrypt the journal (a first start on a new journal).
    pub offer_encryption: bool,
    /// Open on today's page (unless `entry` names another), the cursor in its text.
    pub today: bool,
    /// A `mindsage:` link the window was started with, done instead of `today`.
    pub link: Option<Link>,
}

impl Startup {
    /// A plain start on `view` with the data folder's settings (defaults when it has
    /// none): what tests and the bench open.
    pub fn on_view(data_dir: PathBuf, view: View) -> Startup {
        let (settings, settings_damaged) = match Settings::load(&data_dir) {
            Ok(settings) => (settings, None),
            Err(e) => (Settings::default(), Some(e.to_string())),
        };
        Startup {
            demo: false,
            view,
            entry: None,
            profiler: false,
            import: None,
            settings,
            settings_damaged,
            data_dir,
            voice_input: None,
            offer_encryption: false,
            today: false,
            link: None,
        }
    }

    /// The voice settings the threads start with.
    pub fn voice_settings(&self) -> VoiceSettings {
        let mut voice = VoiceSettings::from_settings(&self.settings, &self.data_dir);
        if let Some(input) = &self.voice_input {
            voice.input = input.clone();
        }
        voice
    }
}

/// The first start's offer to encrypt the new journal.
enum Offer {
    /// A bar over the page, until the person answers.
    Bar,
    /// They chose to: the passphrase dialog.
    Asking(PassphraseForm),
}

/// What the app hands over to [`crate::shell::Shell`] once everything is saved.
#[derive(Debug)]
pub enum Handover {
    /// Lock the encrypted journal.
    Lock,
    /// Change its encryption with the journal closed.
    Change(Change),
}

/// How often an open window asks whether the automatic backup is due.
const BACKUP_CHECK_EVERY: Duration = Duration::from_secs(3600);

/// What a pasted photo is called in the page's text (numbered when taken).
const PASTED_NAME: &str = "Pasted photo.png";

pub struct MindSageApp {
    ctx: egui::Context,
    backend: Backend,
    view: View,
    pub(crate) journal: JournalView,
    dashboard: DashboardView,
    people: PeopleView,
    reflections: ReflectionsView,
    gallery: GalleryView,
    ask: AskView,
    settings: SettingsView,
    recorder: RecorderView,
    /// Whether the recorder's input was fixed at start (tests) rather than by Settings.
    input_overridden: bool,
    overlay: Overlay,
    queue: QueueBar,
    frames: FrameTimes,
    /// The system's file dialog, or the path typed where it cannot open.
    files: FileDialogs,
    /// The import window (a dropped or chosen export, judged, confirmed, written).
    importer: Importer,
    /// Set when the journal could not be opened: the window explains instead of listing.
    open_error: Option<String>,
    /// The last outcome worth telling (a failure, photos added), until the next one.
    status: Option<String>,
    /// Set when a worker thread died: what stopped and where the unsaved text is.
    stopped: Option<String>,
    closing: Closing,
    /// Whether the model's background work was told to start (see [`Request::StartModelWork`]).
    model_work_started: bool,
    /// When the automatic backup was last looked at.
    backup_checked: Option<Instant>,
    /// `--report-startup`: times the first frames, then closes the window.
    pub(crate) launch_report: Option<LaunchReport>,
    /// Whether the journal is encrypted (it can be locked, exports ask first).
    encrypted: bool,
    /// Locks an encrypted journal after this long without input; `None`: never.
    lock_after_idle: Option<Duration>,
    /// The last key press, click or pointer move.
    last_input: Instant,
    /// What to hand to the shell once saved ([`Closing::Saving`]), then handed over.
    handover: Option<Handover>,
    /// The first-start offer to encrypt the new journal, while it shows.
    offer: Option<Offer>,
    /// An export waiting for "yes, plain" (the journal is encrypted, exports are not).
    confirm_export: Option<FileChoice>,
    /// The entry last moved to the trash, while the status bar offers to undo it.
    undo_trash: Option<EntryId>,
    /// Whether no widget had the keyboard when the last frame ended: a key that takes
    /// the focus from a field (Esc) is the field's, not the window's.
    keyboard_was_free: bool,
    /// The screen drawn in the last frame (`None` before the first).
    shown: Option<View>,
    /// Focus mode: the journal's page alone, full screen, no bars.
    focus_mode: bool,
    /// The command palette, while open.
    palette: Option<Palette>,
    /// Whether the shortcut sheet is open.
    shortcut_sheet: bool,
    /// This computer's fonts for other scripts, read once the journal is on screen and
    /// added when read (`None` until then).
    system_fonts: Option<SystemFonts>,
    /// The system's accent colour, followed while the settings say so.
    accent: crate::accent::Follower,
}

impl MindSageApp {
    pub fn new(ctx: &egui::Context, backend: Backend, startup: Startup) -> MindSageApp {
        // From here on a query on this thread fails a debug assertion.
        mindsage_core::timing::forbid_blocking_on_this_thread();
        apply_theme(ctx, startup.settings.theme);
        let accent_from_system = startup.settings.accent_from_system;
        fonts::install(ctx);
        let encrypted = backend.encrypted();
        let lock_after_idle = idle_lock_of(&startup.settings);
        let startup_offer = startup.offer_encryption && !encrypted;
        let mut overlay = Overlay::default();
        if startup.profiler {
            overlay.toggle();
        }
        let mut app = MindSageApp {
            ctx: ctx.clone(),
            backend,
            view: startup.view,
            journal: JournalView::default(),
            dashboard: DashboardView::default(),
            people: PeopleView::default(),
            reflections: ReflectionsView::default(),
            gallery: GalleryView::default(),
            ask: AskView::default(),
            status: startup.settings_damaged.clone(),
            input_overridden: startup.voice_input.is_some(),
            recorder: RecorderView::new(startup.data_dir.clone(), voice::max_length_of(&startup.settings)),
            settings: SettingsView::new(
                startup.settings,
                startup.data_dir,
                startup.settings_damaged,
                encrypted,
            ),
            overlay,
            queue: QueueBar::default(),
            frames: FrameTimes::default(),
            files: FileDialogs::default(),
            importer: Importer::default(),
            open_error: None,
            stopped: None,
            closing: Closing::Open,
            model_work_started: false,
            backup_checked: None,
            launch_report: None,
            encrypted,
            lock_after_idle,
            last_input: Instant::now(),
            handover: None,
            offer: startup_offer.then_some(Offer::Bar),
            confirm_export: None,
            undo_trash: None,
            keyboard_was_free: true,
            shown: None,
            focus_mode: false,
            palette: None,
            shortcut_sheet: false,
            system_fonts: None,
            accent: crate::accent::Follower::new(accent_from_system),
        };
        let mut actions = Vec::new();
        if startup.demo {
            actions.push(Action::Send(Request::DemoIfEmpty));
        }
        app.journal.reload(&mut actions);
        let asked = Asked {
            view: None,
            entry: startup.entry,
            import: startup.import,
            link: startup.link.or(startup.today.then_some(Link::Today)),
        };
        app.follow_asks(asked, &mut actions);
        app.act(actions);
        app
    }

    /// Follows what a later launch on this journal asked for (`crate::instance`): its
    /// screen, an entry, today's page, an export to import.
    pub fn follow(&mut self, asked: Asked) {
        tracing::info!(
            view = ?asked.view,
            entry = asked.entry,
            import = asked.import.is_some(),
            link = ?asked.link,
            "following a later launch"
        );
        let mut actions = Vec::new();
        self.follow_asks(asked, &mut actions);
        self.act(actions);
    }

    fn follow_asks(&mut self, asked: Asked, actions: &mut Vec<Action>) {
        if let Some(view) = asked.view {
            actions.push(Action::Show(view));
        }
        match (asked.entry, asked.link) {
            (Some(id), _) => actions.push(Action::OpenEntry(id)),
            (None, Some(Link::Today)) => self.journal.open_today(actions),
            (None, Some(Link::NewEntry)) => actions.push(Action::NewEntry),
            (None, Some(Link::VoiceEntry)) => {
                actions.push(Action::Show(View::Journal));
                if !self.recorder.is_recording() {
                    self.recorder.toggle(actions);
                }
            }
            (None, Some(Link::Ask)) => actions.push(Action::Show(View::Ask)),
            (None, None) => {}
        }
        if let Some(path) = asked.import {
            self.importer.start(path, actions);
        }
    }

    /// Shows `message` in the status bar (what the shell did before opening the app).
    pub fn tell(&mut self, message: Option<String>) {
        if message.is_some() {
            self.status = message;
        }
    }

    /// Adds `message` to what the status bar says (the shell's word on a change of
    /// encryption and the drafts recovered at the same opening both show).
    fn tell_also(&mut self, message: String) {
        self.status = Some(match self.status.take() {
            Some(told) => format!("{told} {message}"),
            None => message,
        });
    }

    /// Locks an encrypted journal nobody has touched for the chosen time.
    fn lock_when_idle(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if ctx.input(|i| !i.events.is_empty() || i.pointer.is_moving()) {
            self.last_input = Instant::now();
        }
        let Some(idle) = self.lock_after_idle.filter(|_| self.encrypted) else {
            return;
        };
        match idle.checked_sub(self.last_input.elapsed()) {
            Some(left) if !left.is_zero() => ctx.request_repaint_after(left),
            _ => self.hand_over(Handover::Lock, actions),
        }
    }

    /// The threads' handle, for tests that send them faults ([`crate::protocol::Fault`]).
    #[doc(hidden)]
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The screen on show.
    pub fn view(&self) -> View {
        self.view
    }

    /// Journal rows fetched so far (the bench waits for the first page).
    /// Whether the page's text has the keyboard.
    pub fn writing(&self) -> bool {
        self.ctx.memory(|m| m.has_focus(editor::body_id()))
    }

    /// The saved entry on the journal's page, if one.
    pub fn page_entry(&self) -> Option<EntryId> {
        self.journal.entry_id()
    }

    pub fn journal_rows(&self) -> usize {
        self.journal.rows_loaded()
    }

    pub fn overlay_open(&self) -> bool {
        self.overlay.is_open()
    }

    /// Asks a question as the Ask screen's Send button does (the bench times the frames
    /// drawn while its answer streams).
    pub fn ask(&mut self, question: &str) {
        self.view = View::Ask;
        let mut actions = Vec::new();
        self.ask.ask(question, &mut actions);
        self.act(actions);
    }

    /// The last Ask answer as shown so far (or why it failed), and whether it is still
    /// streaming.
    pub fn last_answer(&self) -> Option<(Result<&str, &str>, bool)> {
        self.ask.last_answer()
    }

    /// CPU time per frame, recorded whether or not the overlay shows it (the bench reads it).
    pub fn frame_times(&mut self) -> &mut FrameTimes {
        &mut self.frames
    }

    /// Carries out what the person asked for, and what that leads to.
    fn act(&mut self, actions: Vec<Action>) {
        let mut queue = VecDeque::from(actions);
        while let Some(action) = queue.pop_front() {
            let mut more = Vec::new();
            match action {
                Action::Send(request) => self.backend.send(request),
                Action::SendAi(request) => self.backend.send_ai(request),
                Action::OpenEntry(id) => {
                    self.view = View::Journal;
                    self.backend.send(Request::Entry(id));
                }
                Action::Show(view) => self.view = view,
                Action::OpenOlderEntry => {
                    self.view = View::Journal;
                    self.backend.send(Request::OlderEntry);
                }
                Action::OpenDay(day) => {
                    self.view = View::Journal;
                    self.journal.open_day(day, &mut more);
                }
                Action::Search(text) => {
                    self.show_search_box();
                    self.journal.search_for(text, &mut more);
                }
                Action::ShowTag(tag) => {
                    self.view = View::Journal;
                    let filter = ListFilter {
                        tag: Some(tag),
                        ..ListFilter::default()
                    };
                    self.journal.show_list(filter, &mut more);
                }
                Action::NewEntry => {
                    self.view = View::Journal;
                    self.journal.new_entry(&mut more);
                }
                Action::PickPhotos(entry) => self.pick_files(FileChoice::Photos(entry)),
                Action::PickBackup => self.pick_files(FileChoice::Backup),
                Action::RestoreBackup(path) => {
                    // The writer saves what the editor holds first, in order.
                    self.journal.save_now(&mut more);
                    more.push(Action::Send(Request::RestoreBackup(path)));
                }
                Action::Voice(request) => self.backend.send_voice(request),
                Action::CancelTranscription => self.backend.cancel_transcription(),
                Action::KeepDraft(draft) => {
                    if let Err(error) = self.keep_draft(draft) {
                        tracing::warn!(%error, "unsaved text could not be kept as a draft file");
                    }
                }
                Action::ForgetDraft(file) => self.backend.forget_draft(&file),
                Action::Microphone(command) => self.backend.microphone().command(command),
                Action::Speaker(command) => self.backend.speaker().command(command),
                Action::Lock => self.hand_over(Handover::Lock, &mut more),
                Action::Encryption(change) => self.hand_over(Handover::Change(change), &mut more),
            }
            queue.extend(more);
        }
    }

    /// Hands each answer that has arrived to what asked for it.
    /// The sound devices behind the views: the recording's level and events for the
    /// recorder, the playing recording's position for the editor (whose entry alone
    /// keeps the speaker open).
    fn follow_sound(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if let Some(heard) = self.backend.microphone().heard() {
            ctx.request_repaint_after(METER_REFRESH);
            self.recorder.on_heard(heard);
        }
        while let Some(event) = self.backend.microphone().next_event() {
            self.recorder.on_recording(event, actions);
        }
        let speaker = self.backend.speaker();
        speaker.keep_only(self.journal.recording_entry());
        if let Some((entry, playing)) = speaker.playing() {
            self.journal.on_playing(entry, playing);
        }
    }

    fn handle_responses(&mut self, actions: &mut Vec<Action>) {
        let responses: Vec<Response> = self.backend.drain().collect();
        for response in responses {
            self.on_response(response, actions);
        }
    }

    fn on_response(&mut self, response: Response, actions: &mut Vec<Action>) {
        match response {
            Response::Page { generation, page } => self.journal.on_page(generation, page),
            Response::Count(total) => self.journal.on_count(total),
            Response::Entry(entry) => self.journal.on_entry(*entry, actions),
            Response::History { entry, versions } => self.journal.on_versions(entry, versions),
            Response::BroughtBack { entry, versions } => self.on_brought_back(*entry, versions),
            Response::Refreshed(entry) => self.journal.on_refreshed(*entry),
            Response::Redated(entry) => {
                self.journal_changed();
                self.journal.on_redated(*entry, actions);
            }
            Response::Around { day, around } => self.journal.on_around(day, around),
            Response::Day { day, entry } => self.journal.on_day(day, entry.map(|e| *e), actions),
            Response::Days { first, last, days } => {
                self.journal.on_days(first, last, &days);
                self.dashboard.on_days(first, last, days);
            }
            Response::Search { generation, outcome } => self.journal.on_search(generation, outcome),
            Response::MeaningUnavailable { generation, reason } => {
                self.journal.on_meaning_unavailable(generation, reason)
            }
            Response::Created { draft, entry } => {
                self.journal_changed();
                self.journal.on_created(draft, *entry, actions);
            }
            Response::CreateFailed { draft, message } => {
                let told = match self.journal.on_create_failed(draft, message.clone()) {
                    None => message,
                    Some(left) => match self.keep_draft(left) {
                        Ok(kept) => {
                            format!("An entry could not be saved ({message}); its text is in {kept}.")
                        }
                        Err(e) => {
                            format!("An entry could not be saved ({message}), nor kept as a draft file: {e}.")
                        }
                    },
                };
                self.status = Some(told);
            }
            Response::Saved(entry) => {
                self.entry_edited();
                self.journal.on_saved(*entry, actions);
            }
            Response::UpdateFailed { id, message } => {
                self.status = Some(message.clone());
                self.journal.on_update_failed(id, message);
            }
            Response::Trashed(id) => self.on_moved(id, true, actions),
            Response::Restored(id) | Response::Purged(id) => self.on_moved(id, false, actions),
            Response::Dashboard {
                stats,
                month_ago,
                on_this_day,
            } => self.dashboard.on_dashboard(stats, month_ago, on_this_day),
            Response::Themes(themes) => self.dashboard.on_themes(themes),
            Response::Thumbnails {
                generation,
                thumbnails,
                next,
            } => self
                .gallery
                .on_thumbnails(&self.ctx, generation, thumbnails, next),
            Response::PhotosAdded {
                entry,
                added,
                failures,
            } => {
                self.journal.photos().on_added(entry, actions);
                self.on_photos_added(added, failures);
            }
            Response::ModelPrompt {
                day,
                attempt,
                question,
            } => self.journal.on_model_prompt(day, attempt, question),
            Response::Memory(subjects) => self.people.on_memory(subjects),
            Response::Reflections { reflections, entries } => {
                self.reflections.on_reflections(reflections, entries)
            }
            Response::MemoryEntries { subject, rows } => self.people.on_entries(subject, rows),
            Response::MemoryCorrected {
                subjects,
                subject,
                rows,
            } => self.people.on_corrected(subjects, subject, rows),
            Response::Templates(list) => {
                self.settings.on_templates(list.clone());
                self.journal.on_templates(list);
            }
            Response::ClipboardPhoto(pasted) => self.paste_photo(pasted, actions),
            Response::Photos { entry, thumbnails } => {
                self.journal.photos().on_photos(&self.ctx, entry, thumbnails)
            }
            Response::Photo { media_id, image } => self.journal.photos().on_photo(&self.ctx, media_id, image),
            Response::Recording {
                entry,
                samples,
                segments,
            } => {
                if !samples.is_empty() && self.journal.on_recording(entry, segments) {
                    self.backend.speaker().load(entry, samples);
                }
            }
            Response::Voice(event) => self.on_voice(event, actions),
            Response::Pragmas(pragmas) => self.settings.on_pragmas(*pragmas),
            Response::HistoryDays(days) => self.settings.on_history_days(days),
            Response::SettingsSaved(answers) => self.on_settings_saved(answers, actions),
            Response::Health(status) => {
                self.settings.on_health(status.clone());
                self.ask.on_health(status);
            }
            Response::Ask(event) => self.ask.on_event(event),
            Response::Chats(chats) => self.ask.on_chats(chats),
            Response::ChatMessages(messages) => self.ask.on_chat_messages(messages),
            Response::ChatSaved => self.ask.on_chat_saved(actions),
            Response::ImportProgress { done, total, elapsed } => {
                self.importer.on_progress(done, total, elapsed)
            }
            Response::Imported(outcome) => {
                if self.importer.on_finished(outcome) {
                    self.journal_changed();
                    self.journal.reload(actions);
                }
            }
            Response::BackedUp(outcome) => self.on_backed_up(outcome, actions),
            Response::Backups(backups) => self.settings.on_backups(backups),
            Response::BackupChecked { path, outcome } => self.settings.on_backup_checked(path, outcome),
            Response::BackupRestored(outcome) => self.on_backup_restored(outcome, actions),
            Response::Exported(outcome) => self.on_exported(outcome),
            Response::Seeded(report) => {
                self.status = Some(format!("Added {} demo entries.", report.entries));
                self.journal_changed();
                self.journal.reload(actions);
            }
            Response::Queue(status) => self.on_queue(status, actions),
            Response::Told(message) => self.status = Some(message),
            Response::DraftsRecovered { saved, problems } => {
                self.on_drafts_recovered(saved, &problems, actions)
            }
            Response::ChangedElsewhere => {
                self.journal_changed();
                self.journal.on_changed_elsewhere(actions);
            }
            Response::Flushed => {
                if let Closing::Saving { flushed, .. } = &mut self.closing {
                    *flushed = true;
                }
            }
            Response::ThreadStopped { what, saving } => self.thread_stopped(what, saving),
            Response::OpenFailed(message) => self.open_error = Some(message),
            Response::Failed(message) => self.status = Some(message),
        }
    }

    fn on_brought_back(&mut self, entry: db::entries::Entry, versions: Vec<db::history::Version>) {
        let id = entry.id;
        self.journal.on_refreshed(entry);
        self.journal.on_versions(id, versions);
        self.status = Some("The earlier version is back; the text it replaced is kept as a version.".into());
    }

    /// An entry moved to the trash (`trashed`), out of it, or purged.
    fn on_moved(&mut self, id: EntryId, trashed: bool, actions: &mut Vec<Action>) {
        // The status bar offers to undo the latest trashing while it is in the trash.
        if trashed || self.undo_trash == Some(id) {
            self.undo_trash = trashed.then_some(id);
        }
        self.journal_changed();
        self.journal.on_moved(id, actions);
    }

    fn on_photos_added(&mut self, added: usize, failures: Vec<String>) {
        let mut message = format!("Added {added} photo{}.", if added == 1 { "" } else { "s" });
        for failure in failures {
            message.push_str(&format!(" Not added: {failure}."));
        }
        self.status = Some(message);
        self.gallery.mark_stale();
    }

    fn on_voice(&mut self, event: VoiceEvent, actions: &mut Vec<Action>) {
        if let VoiceEvent::Saved { .. } = &event {
            self.journal_changed();
            self.journal.reload(actions);
        }
        self.settings.on_voice_event(&event);
        self.recorder.on_event(event, actions);
    }

    /// The settings file saved: what the app itself reads from it follows.
    fn on_settings_saved(&mut self, answers: crate::protocol::SystemAnswers, actions: &mut Vec<Action>) {
        self.settings.on_saved(answers);
        let settings = &self.settings.settings;
        self.lock_after_idle = idle_lock_of(settings);
        if !self.input_overridden {
            let max_length = voice::max_length_of(settings);
            self.recorder.set_max_length(max_length);
            self.backend
                .microphone()
                .set_input(voice::input_of(settings), max_length);
        }
        actions.push(Action::Voice(VoiceRequest::Settings(Box::new(settings.clone()))));
    }

    /// The automatic backup's answer (`None`: none was due).
    fn on_backed_up(
        &mut self,
        outcome: Result<Option<db::backup::BackupReport>, String>,
        actions: &mut Vec<Action>,
    ) {
        match outcome {
            Ok(Some(report)) => {
                self.settings.on_backed_up(&report);
                actions.push(Action::Send(Request::Backups));
            }
            Ok(None) => {}
            Err(e) => self.status = Some(format!("The backup failed: {e}")),
        }
    }

    fn on_backup_restored(
        &mut self,
        outcome: Result<(db::backup::BackupReport, PathBuf), String>,
        actions: &mut Vec<Action>,
    ) {
        self.settings.on_restored(actions);
        match outcome {
            Ok((report, kept)) => {
                self.status = Some(format!(
                    "Restored the backup: {} in the journal now. The journal as it was is kept in {}.",
                    crate::wording::entries(report.entries as usize),
                    kept.display()
                ));
                // Threads anew: every cache of the old journal goes with them.
                self.journal.forget();
                self.restart(actions);
                self.ask = AskView::default();
            }
            Err(e) => self.status = Some(format!("The backup was not restored: {e}")),
        }
    }

    fn on_exported(&mut self, outcome: Result<mindsage_core::export::ExportReport, String>) {
        self.status = Some(match outcome {
            Ok(report) => format!(
                "Exported {} entries ({} photos, {} recordings) to {}.",
                report.entries,
                report.photos,
                report.recordings,
                report.path.display()
            ),
            Err(e) => format!("The export failed: {e}"),
        })
    }

    /// The model's background work: the top bar's status, and an entry it just enriched
    /// read again where it shows.
    fn on_queue(&mut self, status: mindsage_core::ai::runner::QueueStatus, actions: &mut Vec<Action>) {
        if let Some(id) = status.enriched_entry {
            // A new mood reaches the dashboard's chart too, and who and what the entry
            // mentions People & places.
            self.dashboard.mark_stale();
            self.people.mark_stale();
            self.journal.on_enriched(id, actions);
        }
        if self.reflections.on_reflected(status.reflected) {
            // Today's page shows last week's.
            self.journal.mark_stale();
        }
        self.queue.on_status(status);
    }

    fn on_drafts_recovered(&mut self, saved: usize, problems: &[String], actions: &mut Vec<Action>) {
        if saved > 0 {
            self.journal_changed();
            self.journal.reload(actions);
        }
        let told = recovered_drafts(saved, problems);
        if !told.is_empty() {
            self.tell_also(told);
        }
    }

    /// The journal with its list, where the search box is.
    fn show_search_box(&mut self) {
        self.view = View::Journal;
        if self.journal.list_hidden() {
            self.journal.toggle_list();
        }
    }

    /// The journal was written: the screens that summarise it read it again when shown.
    fn journal_changed(&mut self) {
        self.dashboard.mark_stale();
        self.people.mark_stale();
        self.reflections.mark_stale();
        self.gallery.mark_stale();
        self.journal.mark_stale();
    }

    /// An entry's edit was saved: as [`Self::journal_changed`], except that the days with
    /// entries are the same, so what is around the page (the streak, the entry of a year
    /// before) is not read again after every pause in typing.
    fn entry_edited(&mut self) {
        self.dashboard.mark_stale();
        self.people.mark_stale();
        self.gallery.mark_stale();
        self.journal.mark_calendar_stale();
    }

    /// A worker thread died: say so, once per death, and if saves went through it, keep
    /// the unsaved text as files and stop the editor saving into the void.
    fn thread_stopped(&mut self, what: &str, saving: bool) {
        if self.stopped.is_some() {
            return;
        }
        let kept = if saving { self.halt_and_keep() } else { Vec::new() };
        let mut message = format!("Something went wrong inside MindSage: {what} stopped. ");
        if !saving {
            message.push_str("Your entries are still saved as you type.");
        } else if kept.is_empty() {
            message.push_str("Nothing you typed was waiting to be saved.");
        } else {
            message.push_str(&format!(
                "Your unsaved text stays in the editor and is kept in {}.",
                kept.join(", ")
            ));
        }
        self.stopped = Some(message);
    }

    /// Starts the worker threads again after one died; the editor saves what is pending.
    fn restart(&mut self, actions: &mut Vec<Action>) {
        self.backend.restart();
        self.model_work_started = false;
        self.stopped = None;
        self.journal.resume(actions);
        self.journal_changed();
    }

    /// Lets the model's background work start once the screen has drawn what the person
    /// opened the app for (the journal's first rows), not before.
    fn start_model_work(&mut self) {
        let waiting_for_rows = self.view == View::Journal && self.journal.page_pending();
        if !self.model_work_started && !waiting_for_rows {
            self.backend.send(Request::StartModelWork);
            self.model_work_started = true;
            self.backup_checked = None;
            // Reading them starts processes and files: after the first rows, not before.
            self.system_fonts = Some(SystemFonts::read(&self.ctx));
        }
        // The automatic backup: once the journal is on screen, then hourly while the
        // window stays open (the reader decides whether one is due).
        if self.model_work_started
            && self
                .backup_checked
                .is_none_or(|t| t.elapsed() >= BACKUP_CHECK_EVERY)
        {
            let (every_days, keep) = self.settings.backup_schedule();
            self.backend.send(Request::Backup {
                every_days,
                keep,
                now: false,
            });
            self.backup_checked = Some(Instant::now());
        }
    }

    /// The banner that says a thread died, with the way to start it again.
    fn stopped_banner_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(message) = &self.stopped else {
            return;
        };
        let mut restart = false;
        egui::TopBottomPanel::top("stopped").show(ctx, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(message).strong().color(ui.visuals().error_fg_color));
                restart = ui.button("Restart").clicked();
            });
        });
        if restart {
            self.restart(actions);
        }
    }

    /// Whether a dialog is asking: it has the keyboard, and the window reads no keys of
    /// its own until it is answered (see [`dialog`]).
    fn dialog_open(&self) -> bool {
        let on_screen = match self.view {
            View::Journal => self.journal.dialog_open(),
            View::Settings => self.settings.dialog_open(),
            View::Dashboard | View::Gallery | View::Ask | View::People | View::Reflections => false,
        };
        on_screen
            || matches!(self.offer, Some(Offer::Asking(_)))
            || self.confirm_export.is_some()
            || self.palette.is_some()
            || self.shortcut_sheet
            || self.files.dialog_open()
            || self.closing != Closing::Open
    }

    /// Whether the keyboard is the window's: no dialog asks, no menu is open (Esc closes
    /// it), and no widget (a field the person types in, a button moved to with Tab) has
    /// it or had it a frame ago.
    fn keyboard_free(&self, ctx: &egui::Context) -> bool {
        !self.dialog_open()
            && !egui::Popup::is_any_open(ctx)
            && self.keyboard_was_free
            && ctx.memory(|m| m.focused().is_none())
    }

    /// The window's keys: the shortcuts (unless a dialog asks), and while no widget has
    /// the keyboard, Esc for the import window (it is on top) and the list's keys on the
    /// journal screen.
    fn shortcuts(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if self.dialog_open() {
            return;
        }
        if self.keyboard_free(ctx) {
            let escape = |i: &mut egui::InputState| i.consume_key(Modifiers::NONE, Key::Escape);
            if self.importer.closable() && ctx.input_mut(escape) {
                self.importer.close();
            }
            if self.focus_mode && ctx.input_mut(escape) {
                self.set_focus_mode(false);
            }
            if self.view == View::Journal {
                self.journal.list_keys(ctx, actions);
            }
        }
        let pressed = |shortcut| ctx.input_mut(|i| i.consume_shortcut(&shortcut));
        for (command, shortcut) in commands::ALSO {
            if pressed(shortcut) {
                self.run(command, ctx, actions);
            }
        }
        // In the page's text, Ctrl+K makes a link (Ctrl+Shift+P opens the palette there).
        let writing = ctx.memory(|m| m.has_focus(editor::body_id()));
        for named in commands::COMMANDS {
            if let Some(shortcut) = named.shortcut
                && self.available(named.command)
                && !(writing && named.command == Command::Palette)
                && pressed(shortcut)
            {
                self.run(named.command, ctx, actions);
            }
        }
        if self.view != View::Journal {
            // Another screen has no page to focus on.
            self.set_focus_mode(false);
        }
    }

    /// Whether `command` can run now (Lock: only an encrypted journal locks).
    fn available(&self, command: Command) -> bool {
        match command {
            Command::Lock => self.encrypted,
            _ => true,
        }
    }

    /// Does what the person asked by shortcut, menu or palette.
    fn run(&mut self, command: Command, ctx: &egui::Context, actions: &mut Vec<Action>) {
        match command {
            Command::NewEntry => actions.push(Action::NewEntry),
            Command::OlderEntry => actions.push(Action::OpenOlderEntry),
            Command::Record => self.recorder.toggle(actions),
            Command::Today => {
                self.view = View::Journal;
                self.journal
                    .open_day(mindsage_core::clock::now_here().date_naive(), actions);
            }
            Command::Search => {
                self.show_search_box();
                self.journal.focus_search();
            }
            Command::ToggleList => {
                self.view = View::Journal;
                self.journal.toggle_list();
            }
            Command::FocusMode => self.set_focus_mode(!self.focus_mode),
            Command::ChangeDate => {
                self.view = View::Journal;
                self.journal.change_date();
            }
            Command::PastePhoto => actions.push(Action::Send(Request::ClipboardPhoto)),
            Command::Show(view) => self.view = view,
            Command::ImportFile => self.pick_files(FileChoice::ImportFile),
            Command::ImportFolder => self.pick_files(FileChoice::ImportFolder),
            Command::ExportJson | Command::ExportMarkdown => {
                let choice = if command == Command::ExportJson {
                    FileChoice::ExportJson
                } else {
                    FileChoice::ExportMarkdown
                };
                if self.encrypted {
                    self.confirm_export = Some(choice);
                } else {
                    self.pick_files(choice);
                }
            }
            Command::Lock => actions.push(Action::Lock),
            Command::ToggleTheme => self.settings.toggle_theme(ctx, actions),
            Command::Profiler => self.overlay.toggle(),
            Command::Palette => self.palette = Some(Palette::default()),
            Command::Shortcuts => self.shortcut_sheet = true,
            Command::DayBefore => self.step_page(-1, 0, actions),
            Command::DayAfter => self.step_page(1, 0, actions),
            Command::MonthBefore => self.step_page(0, -1, actions),
            Command::MonthAfter => self.step_page(0, 1, actions),
        }
    }

    /// Ctrl+V in the page's text with no text on the clipboard (egui pasted nothing):
    /// the clipboard's image, if it holds one, goes in the page ([`crate::paste_key`]).
    #[cfg(windows)]
    fn photo_pasted_by_key(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let in_text = ctx.memory(|m| m.has_focus(crate::views::editor::body_id()));
        let text_pasted = ctx.input(|i| i.events.iter().any(|e| matches!(e, egui::Event::Paste(_))));
        if crate::paste_key::take() && in_text && !text_pasted {
            actions.push(Action::Send(Request::ClipboardPhoto));
        }
    }

    /// The clipboard's image, asked for by *Paste photo*: placed in the page where its
    /// cursor is, like a dropped photo.
    fn paste_photo(&mut self, pasted: Result<Vec<u8>, String>, actions: &mut Vec<Action>) {
        let photo = match pasted {
            Ok(png) => vec![(PhotoFrom::Pasted(png), PASTED_NAME.to_owned())],
            Err(why) => return self.status = Some(why),
        };
        let ctx = self.ctx.clone();
        if !self.journal.add_photos(&ctx, photo, actions) {
            self.status = Some("Open a page first: a pasted photo goes in the page open.".to_owned());
        }
    }

    /// Opens the page of the day `days` days and `months` months from the page's.
    fn step_page(&mut self, days: i64, months: i32, actions: &mut Vec<Action>) {
        self.view = View::Journal;
        self.journal.step_page(days, months, actions);
    }

    /// Enters or leaves focus mode: the page alone on the journal screen, the window
    /// full screen.
    fn set_focus_mode(&mut self, on: bool) {
        if self.focus_mode == on {
            return;
        }
        self.focus_mode = on;
        if on {
            self.view = View::Journal;
        }
        self.ctx.send_viewport_cmd(egui::ViewportCommand::Fullscreen(on));
    }

    /// Files dropped on the window, or chosen in a file dialog: an export (a zip, a JSON
    /// file, a Markdown file or a folder) goes to the import window, photos to the entry
    /// they were meant for.
    fn arriving_files(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if let Some(chosen) = self.files.ui(ctx) {
            match chosen {
                Chosen::Photos(entry, paths) => actions.push(Action::Send(Request::AttachPhotos {
                    entry,
                    photos: NewPhoto::unnamed(paths),
                })),
                Chosen::Import(path) => self.importer.start(path, actions),
                Chosen::Export(path, format) => {
                    actions.push(Action::Send(Request::ExportJournal { path, format }))
                }
                Chosen::Backup(path) => self.settings.check_backup(path, actions),
            }
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .filter_map(|f| f.path.clone())
                .collect()
        });
        let (exports, photos): (Vec<PathBuf>, Vec<PathBuf>) = dropped.into_iter().partition(|p| is_export(p));
        if let Some(path) = exports.into_iter().next() {
            self.importer.start(path, actions);
        }
        if photos.is_empty() {
            return;
        }
        let photos = photos
            .into_iter()
            .map(|path| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                (PhotoFrom::File(path), name.unwrap_or_default())
            })
            .collect();
        if !self.journal.add_photos(ctx, photos, actions) {
            self.status = Some("Open a page first: dropped photos are added to the page open.".to_owned());
        }
    }

    /// Opens the system's file dialog (or asks for a path where it cannot open); what
    /// was chosen arrives in [`MindSageApp::arriving_files`].
    fn pick_files(&mut self, choice: FileChoice) {
        self.files.open(&self.ctx, choice);
    }

    fn top_bar_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        egui::TopBottomPanel::top("top_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.heading("MindSage");
                ui.separator();
                for (index, view) in View::ALL.into_iter().enumerate() {
                    let tab = ui.selectable_label(self.view == view, view.title());
                    if tab.on_hover_text(format!("Ctrl+{}", index + 1)).clicked() {
                        self.view = view;
                    }
                }
                ui.separator();
                self.menu_ui(ui, actions);
                self.recorder.indicator_ui(ui);
                // The model's background work shows here, in the bar's spare room, so its
                // coming and going never moves what the person is about to click.
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(RichText::new(self.journal.summary_line()).weak());
                    if self.queue.visible() {
                        ui.separator();
                        self.queue.ui(ui, actions);
                    }
                });
            });
        });
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        const GROUPS: [&[Command]; 3] = [
            &[
                Command::NewEntry,
                Command::Record,
                Command::Today,
                Command::ToggleList,
                Command::FocusMode,
                Command::PastePhoto,
            ],
            &[
                Command::ImportFile,
                Command::ImportFolder,
                Command::ExportJson,
                Command::ExportMarkdown,
                Command::Lock,
            ],
            &[
                Command::ToggleTheme,
                Command::Profiler,
                Command::Palette,
                Command::Shortcuts,
            ],
        ];
        ui.menu_button("Menu", |ui| {
            for (index, group) in GROUPS.into_iter().enumerate() {
                if index > 0 {
                    ui.separator();
                }
                for &command in group {
                    if !self.available(command) {
                        continue;
                    }
                    let label = match command {
                        Command::Record if self.recorder.is_recording() => {
                            format!("Stop recording ({})", command.keys())
                        }
                        _ => command.label(),
                    };
                    if ui.button(label).clicked() {
                        self.run(command, ui.ctx(), actions);
                    }
                }
            }
        });
    }

    /// The command palette and the shortcut sheet, while open.
    fn keyboard_help_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if let Some(palette) = &mut self.palette {
            let encrypted = self.encrypted;
            let answer = palette.ui(ctx, |command| command != Command::Lock || encrypted);
            if let Some(chosen) = answer {
                self.palette = None;
                if let Some(command) = chosen {
                    self.run(command, ctx, actions);
                }
            }
        }
        if self.shortcut_sheet && palette::shortcut_sheet_ui(ctx) {
            self.shortcut_sheet = false;
        }
    }

    fn status_bar_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let hovering = ctx.input(|i| !i.raw.hovered_files.is_empty());
        if self.status.is_none() && self.undo_trash.is_none() && !hovering {
            return;
        }
        egui::TopBottomPanel::bottom("status_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                if hovering {
                    ui.label(
                        RichText::new("Drop photos to add them to the open entry, or an export (Day One zip, JSON, Markdown) to import it.")
                            .strong(),
                    );
                } else {
                    if let Some(id) = self.undo_trash {
                        ui.label("Moved the entry to the trash.");
                        if ui.small_button("Undo").clicked() {
                            actions.push(Action::Send(Request::Restore(id)));
                            self.undo_trash = None;
                        }
                    }
                    if let Some(status) = &self.status {
                        ui.label(status);
                    }
                    if ui.small_button("Dismiss").clicked() {
                        self.status = None;
                        self.undo_trash = None;
                    }
                }
            });
        });
    }

    /// The recorder, above the status bar, while it has something to show.
    fn recorder_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if !self.recorder.visible() {
            return;
        }
        egui::TopBottomPanel::bottom("recorder").show(ctx, |ui| self.recorder.ui(ui, actions));
    }

    /// The screen on show, in the space the bars leave.
    fn central_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        if let Some(message) = &self.open_error {
            egui::CentralPanel::default().show(ctx, |ui| {
                ui.heading("The journal could not be opened");
                ui.label(message);
                ui.label("Nothing was changed. Choose another data folder with --data-dir.");
            });
            return;
        }
        if self.shown.replace(self.view) != Some(self.view) {
            match self.view {
                View::Ask => self.ask.focus_question(),
                // The model may have read entries since: what it found shows.
                View::People => self.people.mark_stale(),
                View::Reflections => self.reflections.mark_stale(),
                _ => {}
            }
        }
        // Each view lays out its own panels inside this one, which has no frame of its own.
        self.gallery.set_open_entry(self.journal.entry_id());
        let screen: &mut dyn Screen = match self.view {
            View::Journal => &mut self.journal,
            View::Dashboard => &mut self.dashboard,
            View::Gallery => &mut self.gallery,
            View::Ask => &mut self.ask,
            View::People => &mut self.people,
            View::Reflections => &mut self.reflections,
            View::Settings => &mut self.settings,
        };
        egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ctx, |ui| screen.ui(ui, actions));
    }
}

impl eframe::App for MindSageApp {
    fn update(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.ui(ctx);
    }
}

impl MindSageApp {
    /// One frame of the whole window. eframe calls it through `update`; the bench calls
    /// it directly on a headless context to measure frames without a GPU.
    pub fn ui(&mut self, ctx: &egui::Context) {
        let started = Instant::now();
        self.overlay.begin_frame();
        puffin::profile_function!();
        if let Some(fonts) = &mut self.system_fonts {
            fonts.install_when_read(ctx);
        }
        // Appearance applies before it is saved, as the theme does.
        let accent_from_system = self.settings.settings.accent_from_system;
        if accent_from_system != self.accent.enabled {
            self.accent.set_enabled(accent_from_system);
        }
        self.accent.follow(ctx);
        let mut actions = Vec::new();
        self.handle_responses(&mut actions);
        self.follow_sound(ctx, &mut actions);
        self.closing(ctx, &mut actions);
        self.lock_when_idle(ctx, &mut actions);
        self.shortcuts(ctx, &mut actions);
        self.arriving_files(ctx, &mut actions);
        #[cfg(windows)]
        self.photo_pasted_by_key(ctx, &mut actions);
        if !self.focus_mode {
            self.top_bar_ui(ctx, &mut actions);
        }
        self.stopped_banner_ui(ctx, &mut actions);
        self.status_bar_ui(ctx, &mut actions);
        self.recorder_ui(ctx, &mut actions);
        if !self.focus_mode {
            self.offer_bar_ui(ctx);
        }
        let mut style = self.settings.page_style();
        style.focus = self.focus_mode;
        self.journal.set_style(style);
        self.central_ui(ctx, &mut actions);
        self.importer.ui(ctx, &mut actions);
        self.offer_ui(ctx, &mut actions);
        self.confirm_export_ui(ctx);
        self.keyboard_help_ui(ctx, &mut actions);
        self.journal.tick(ctx, &mut actions);
        self.act(actions);
        self.start_model_work();
        self.closing_notice_ui(ctx);
        self.overlay.show(ctx, &mut self.frames, self.ask.last_stages());
        self.keyboard_was_free = ctx.memory(|m| m.focused().is_none());
        self.frames.record(started.elapsed());
        self.report_launch(ctx, started);
    }
}

impl MindSageApp {
    /// The work the taskbar's button shows the progress of: an import or a
    /// transcription the person started, else the model's work.
    pub fn progress(&self) -> Option<Progress> {
        let started = self.importer.progress().or_else(|| self.recorder.progress());
        started.map(Progress::Working).or_else(|| self.queue.progress())
    }

    /// `--report-startup`: tells the report what this frame showed, and takes the step
    /// of its exercise it asks for.
    fn report_launch(&mut self, ctx: &egui::Context, started: Instant) {
        let Some(report) = &mut self.launch_report else {
            return;
        };
        let drawn = match self.view {
            View::Journal if !self.journal.page_pending() => Drawn::JournalRows(self.journal.rows_loaded()),
            _ => Drawn::Other,
        };
        let seen = Seen {
            drawn,
            rows_loaded: self.journal.rows_loaded(),
            list_at_end: self.journal.list_at_end(),
            answered: match self.ask.last_answer() {
                Some((answer, false)) => Some(answer.is_ok()),
                _ => None,
            },
        };
        match report.after_frame(ctx, started, seen) {
            Some(Step::Show(view)) => self.view = view,
            Some(Step::Scroll) => self.view = View::Journal,
            Some(Step::Ask(question)) => {
                self.view = View::Ask;
                let mut actions = Vec::new();
                self.ask.ask(&question, &mut actions);
                self.act(actions);
            }
            None => {}
        }
    }

    /// The first start's offer to encrypt the new journal, as a bar over the page: the
    /// window opens on today's page with the cursor in it, and what the person types
    /// before reading the offer goes into the page, not into a passphrase field.
    fn offer_bar_ui(&mut self, ctx: &egui::Context) {
        if !matches!(self.offer, Some(Offer::Bar)) {
            return;
        }
        egui::TopBottomPanel::top("offer_encryption_bar").show(ctx, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    "Encrypt your journal? With a passphrase, the journal, its search index and its \
                     backups can only be read by someone who knows it.",
                );
                if ui.button("Encrypt with a passphrase…").clicked() {
                    self.offer = Some(Offer::Asking(PassphraseForm::default()));
                }
                if ui.button("Not now").clicked() {
                    self.offer = None;
                }
            });
        });
    }

    /// The passphrase for the offer, once the person chose to encrypt ("Cancel", Esc:
    /// not now). The keyboard starts in the passphrase field.
    fn offer_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(Offer::Asking(form)) = &mut self.offer else {
            return;
        };
        // `Some(passphrase)`: encrypt; `None`: not now.
        let answer = dialog::show(ctx, "offer_encryption", None, |ui| {
            ui.heading("Encrypt your journal?");
            ui.label(
                "With a passphrase, the journal file, its search index and its backups can only be \
                 read by someone who knows it. Search stays as fast. You can change this later in Settings.",
            );
            ui.add_space(6.0);
            let mut answer = form.ui(ui, "Encrypt").map(Some);
            if ui.button("Not now").clicked() {
                answer = Some(None);
            }
            Shown {
                answer,
                focus: form.first_field(),
            }
        });
        let Some(answer) = answer else {
            return;
        };
        if let Some(passphrase) = answer {
            let remember = form.remembering();
            actions.push(Action::Encryption(Change::Encrypt { passphrase, remember }));
        }
        self.offer = None;
    }

    /// "Exports are plain": asked before an export of an encrypted journal. The keyboard
    /// starts on Cancel; Esc cancels.
    fn confirm_export_ui(&mut self, ctx: &egui::Context) {
        let Some(choice) = self.confirm_export else {
            return;
        };
        let answer = dialog::show(ctx, "confirm_export", false, |ui| {
            ui.heading("Export as plain files?");
            ui.label(
                "Your journal is encrypted, but an export is not: anyone who can read the exported \
                 files can read every entry in them. Keep them somewhere safe, and delete them when done.",
            );
            dialog::yes_or_no(ui, "Export anyway", "Cancel")
        });
        if let Some(yes) = answer {
            self.confirm_export = None;
            if yes {
                self.pick_files(choice);
            }
        }
    }
}

/// Redraws while recording, for the recorder's level meter and clock.
const METER_REFRESH: Duration = Duration::from_millis(50);

/// What the status bar says of the sealed drafts saved at the opening.
fn recovered_drafts(saved: usize, problems: &[String]) -> String {
    let mut told = match saved {
        0 => String::new(),
        1 => "Recovered 1 unsaved draft from the last session.".to_owned(),
        n => format!("Recovered {n} unsaved drafts from the last session."),
    };
    if !problems.is_empty() {
        if !told.is_empty() {
            told.push(' ');
        }
        told.push_str(&format!(
            "Unsaved drafts that could not be recovered stay where they are: {}.",
            problems.join("; ")
        ));
    }
    told
}

/// The idle time after which an encrypted journal locks, from the settings.
fn idle_lock_of(settings: &Settings) -> Option<Duration> {
    let minutes = settings.lock_after_idle_minutes;
    (minutes > 0).then(|| Duration::from_secs(u64::from(minutes) * 60))
}

/// Whether a dropped path is an export to import rather than a photo: a file named like
/// one of the exports `mindsage_core::import` reads, or a name with no extension, which
/// is how folders are named. Judged by the name alone, since the UI thread does not wait
/// on the disk; the import window reads what it is.
fn is_export(path: &std::path::Path) -> bool {
    let Some(extension) = path.extension() else {
        return true;
    };
    let extension = extension.to_string_lossy().to_ascii_lowercase();
    matches!(extension.as_str(), "zip" | "json" | "md" | "markdown")
}
