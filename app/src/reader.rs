//! The reader thread: the only place the window's data is read.
//!
//! The UI thread never touches SQLite. It sends a [`Request`] and carries on drawing;
//! this thread answers with a [`Response`] and asks egui to repaint. Writes go on to
//! the [`Writer`] thread, which replies straight to the UI, so a long save never holds
//! up a read. Photos are decoded on a short-lived import thread, never on either. The
//! reader also starts the model's job runner, once the window asks
//! ([`Request::StartModelWork`]), and looks about once a second whether another
//! program wrote to the journal ([`OtherWriters`]), so the window follows it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use chrono::{Datelike, Local, NaiveDate};
use rusqlite::Connection;

use mindsage_core::ai::ask::{self, AskAnswer};
use mindsage_core::ai::runner::JobRunner;
use mindsage_core::ai::{AiSettings, OllamaClient, health};
use mindsage_core::clock;
use mindsage_core::db::audio;
use mindsage_core::db::chats;
use mindsage_core::db::entries::{self, ListFilter, NewEntry};
use mindsage_core::db::gallery::{self, GalleryItem};
use mindsage_core::db::memory;
use mindsage_core::db::reflections;
use mindsage_core::db::stats::{self, StatsCache};
use mindsage_core::db::unchanged::{UntilChanged, data_version};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions, UserId};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::media;
use mindsage_core::search::themes::{self, Lately};
use mindsage_core::search::{SEARCH_BOX_RESULTS, Searcher, SharedVectors};
use mindsage_core::voice::{self, transcribe::Transcript};
use mindsage_core::{export, import};

use crate::protocol::{
    Around, Fault, LargePhoto, NewPhoto, PhotoFrom, Reply, Request, Response, Thumbnail, VoiceEvent, Watch,
};

/// Demo entries `--demo` puts in an empty journal: enough to scroll and chart.
const DEMO_ENTRIES: usize = 2_000;

/// Chats listed in the Ask history.
const CHATS_LISTED: u32 = 100;

/// Reflections the Reflections screen lists: a year of weeks and months.
const REFLECTIONS_SHOWN: u32 = 70;

/// Entries shown per earlier year under "on this day".
const ON_THIS_DAY_PER_YEAR: u32 = 3;

/// Entries listed under a person, place or activity: the newest, as many as a person
/// looks through; the count beside the name says how many there are.
const MEMORY_ENTRIES_SHOWN: u32 = 200;

/// How often the reader looks whether another program wrote to the journal: the window
/// shows another program's entry about this long after it is saved.
const LOOK_FOR_OTHER_WRITERS: Duration = Duration::from_secs(1);

/// What the reader thread does, as the app tells the person when it stops.
const READER: &str = "reading the journal";
/// What the writer thread does.
const WRITER: &str = "saving";
/// What the AI job runner does.
const JOBS: &str = "writing titles and summaries";

/// The reader thread's state: its connection, the writer, and the dashboard cache.
struct Reader {
    conn: Connection,
    /// Reads the pages of the lists a person scrolls, unmapped
    /// ([`StorageOptions::for_lists`]).
    lists: Connection,
    writer: Arc<Writer>,
    /// Works the AI queue (titles, summaries, moods, embeddings) that saving fills;
    /// `None` until [`Request::StartModelWork`], and when the model settings are unusable
    /// (the reason was reported).
    enrichment: Option<JobRunner>,
    /// What the job runner is started with, until it is.
    model_work: Option<(AiSettings, PathBuf, StorageOptions)>,
    stats: StatsCache,
    /// The dashboard's themes, worked out again only after a write or on a new day.
    themes: UntilChanged<NaiveDate, Lately>,
    /// Keeps the in-memory vector copy the search box scans.
    searcher: Searcher,
    reply: Reply,
    data_dir: PathBuf,
    busy_timeout: std::time::Duration,
    /// The journal and its settings, for the threads that open their own connection
    /// (imports and exports, so a long one never holds up the writer's queue).
    journal: PathBuf,
    options: StorageOptions,
    /// Notices the commits of other programs.
    others: OtherWriters,
}

const USER: UserId = DEFAULT_USER;

pub(crate) fn serve(
    path: PathBuf,
    options: StorageOptions,
    ai: AiSettings,
    vectors: SharedVectors,
    recover_drafts: bool,
    inbox: Receiver<Request>,
    reply: Reply,
) {
    // Declared first, so it is dropped last: a dying reader's writer has committed its
    // queue (and answered it) before the UI hears that the reader stopped.
    let _watch = Watch {
        what: READER,
        saving: true,
        reply: reply.clone(),
    };
    let opened = db::open(&path, &options).and_then(|conn| {
        let lists = db::open(&path, &options.for_lists())?;
        Ok((conn, lists, Writer::spawn(&path, &options)?))
    });
    let (conn, lists, writer) = match opened {
        Ok(opened) => opened,
        Err(e) => return reply.send(Response::OpenFailed(e.to_string())),
    };
    let writer = Arc::new(writer);
    let others = OtherWriters::start(&conn, &writer, &reply);
    let mut reader = Reader {
        others,
        conn,
        lists,
        enrichment: None,
        model_work: Some((ai, path.clone(), options.clone())),
        writer,
        stats: StatsCache::default(),
        themes: UntilChanged::default(),
        searcher: Searcher::sharing(vectors, options.key.clone()),
        reply,
        data_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        busy_timeout: options.busy_timeout,
        journal: path,
        options,
    };
    if recover_drafts {
        reader.recover_drafts();
    }
    loop {
        match inbox.recv_timeout(reader.others.until_next_look()) {
            Ok(request) => {
                puffin::profile_scope!("reader.request");
                reader.handle(request);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        // The process is ending ([`crate::threads::finish`]): the window has saved.
        if db::closing_down() {
            return;
        }
        reader
            .others
            .look_if_due(&reader.conn, &reader.writer, &reader.reply);
    }
}

/// Notices what other programs commit to the journal (`mindsage add` in a terminal,
/// another window) and what this app commits through connections other than its
/// writer's (a journal import), and tells the window ([`Response::ChangedElsewhere`]).
///
/// `PRAGMA data_version` on a connection moves when another connection commits. The
/// reader's, looked at once a second, moves for every commit, the app's own saves and
/// the model's results included (and for the writer's checkpoints, which rewrite the
/// WAL's header); nothing more is done while it stays put. When it has moved, the
/// writer's connection is asked in turn ([`Writer::look`], a read that brings on no
/// checkpoint): the writer's `data_version` moves only for commits it did not make, so
/// the window hears of other writers only, and the person's own typing, whose saves
/// already refresh what shows them, sets off no refresh.
struct OtherWriters {
    /// The reader connection's `data_version` at the last look.
    seen: i64,
    /// The writer connection's `data_version` at its last look ([`UNSEEN`] before the
    /// first), kept by the looks that run on the writer.
    writer_seen: Arc<AtomicI64>,
    next_look: Instant,
}

/// The writer's `data_version` before its first look.
const UNSEEN: i64 = i64::MIN;

impl OtherWriters {
    /// Takes both connections' `data_version` as they are now.
    fn start(conn: &Connection, writer: &Writer, reply: &Reply) -> OtherWriters {
        let others = OtherWriters {
            seen: data_version(conn).unwrap_or_default(),
            writer_seen: Arc::new(AtomicI64::new(UNSEEN)),
            next_look: Instant::now() + LOOK_FOR_OTHER_WRITERS,
        };
        others.ask_writer(writer, reply);
        others
    }

    /// How long the reader may wait for a request before the next look is due.
    fn until_next_look(&self) -> Duration {
        self.next_look.saturating_duration_since(Instant::now())
    }

    /// Looks at the reader's `data_version` if a second has passed since the last look,
    /// and asks the writer whether the commits behind a change were its own.
    fn look_if_due(&mut self, conn: &Connection, writer: &Writer, reply: &Reply) {
        let now = Instant::now();
        if now < self.next_look {
            return;
        }
        self.next_look = now + LOOK_FOR_OTHER_WRITERS;
        match data_version(conn) {
            Ok(version) if version != self.seen => {
                self.seen = version;
                self.ask_writer(writer, reply);
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "could not look for other writers"),
        }
    }

    /// Queues a look at the writer's `data_version`, which tells the window when it has
    /// moved since the writer's last look.
    fn ask_writer(&self, writer: &Writer, reply: &Reply) {
        let (writer_seen, reply) = (Arc::clone(&self.writer_seen), reply.clone());
        drop(writer.look(move |conn| {
            let version = data_version(conn)?;
            let before = writer_seen.swap(version, Ordering::Relaxed);
            if before != UNSEEN && before != version {
                reply.send(Response::ChangedElsewhere);
            }
            Ok(())
        }));
    }
}

impl Reader {
    fn handle(&mut self, request: Request) {
        let conn = &self.conn;
        let response = match request {
            // Reads: answered at once, on the reader's own connection.
            Request::Page {
                generation,
                filter,
                after,
                limit,
            } => entries::list(&self.lists, USER, &filter, after.as_ref(), limit)
                .map(|page| Response::Page { generation, page }),
            Request::Count => entries::count(conn, USER).map(Response::Count),
            Request::Entry(id) => entries::get(conn, USER, id).map(|e| Response::Entry(Box::new(e))),
            Request::Refresh(id) => entries::get(conn, USER, id).map(|e| Response::Refreshed(Box::new(e))),
            Request::Day(day) => entries::newest_on(conn, USER, day).map(|entry| Response::Day {
                day,
                entry: entry.map(Box::new),
            }),
            Request::Around(day) => self.around(day),
            Request::Days { first, last } => {
                stats::days_between(conn, USER, first, last).map(|days| Response::Days { first, last, days })
            }
            Request::Search {
                generation,
                text,
                embedding,
            } => self.search(generation, &text, embedding.as_deref()),
            Request::Dashboard => self.dashboard(),
            Request::Themes => self.themes(),
            Request::OlderEntry => self.older_entry(),
            Request::Chats => chats::recent(conn, USER, CHATS_LISTED).map(Response::Chats),
            Request::ChatMessages(chat) => chats::messages(conn, USER, chat).map(Response::ChatMessages),
            Request::GalleryPage {
                generation,
                after,
                limit,
            } => gallery::page(&self.lists, USER, after.as_ref(), limit).map(|(items, next)| {
                Response::Thumbnails {
                    generation,
                    thumbnails: decode_thumbnails(items),
                    next,
                }
            }),
            Request::GalleryShuffle { generation, count } => {
                gallery::random(conn, USER, count, &mut rand::rng()).map(|items| Response::Thumbnails {
                    generation,
                    thumbnails: decode_thumbnails(items),
                    next: None,
                })
            }
            Request::Recording(id) => recording_of(conn, id),
            Request::Photos(entry) => gallery::of_entry(conn, USER, entry).map(|items| Response::Photos {
                entry,
                thumbnails: decode_thumbnails(items),
            }),
            Request::Photo(media_id) => return self.photo(media_id),
            Request::Templates => db::templates::list(conn, USER).map(Response::Templates),
            Request::SaveTemplate(template) => {
                return self.write(move |conn| {
                    db::templates::save(conn, USER, &template)?;
                    db::templates::list(conn, USER).map(Response::Templates)
                });
            }
            Request::DeleteTemplate(id) => {
                return self.write(move |conn| {
                    db::templates::delete(conn, USER, id)?;
                    db::templates::list(conn, USER).map(Response::Templates)
                });
            }
            Request::Memory => memory::subjects(conn, USER).map(Response::Memory),
            Request::Reflections => self.reflections(),
            Request::MemoryEntries(subject) => memory::entries_of(conn, USER, subject, MEMORY_ENTRIES_SHOWN)
                .map(|rows| Response::MemoryEntries { subject, rows }),
            Request::CorrectMemory { subject, correction } => {
                return self.write(move |conn| {
                    let left = memory::correct(conn, USER, subject, &correction)?;
                    Ok(Response::MemoryCorrected {
                        subjects: memory::subjects(conn, USER)?,
                        subject: left,
                        rows: memory::entries_of(conn, USER, left, MEMORY_ENTRIES_SHOWN)?,
                    })
                });
            }
            Request::Pragmas => db::effective_pragmas(conn).map(|p| Response::Pragmas(Box::new(p))),
            Request::HistoryDays(None) => db::history::days(conn, USER).map(Response::HistoryDays),
            Request::History(entry) => {
                db::history::versions(conn, entry).map(|versions| Response::History { entry, versions })
            }
            Request::Backups => Ok(Response::Backups(db::backup::list(&self.data_dir))),
            Request::SaveSettings(settings) => Ok(self.save_settings(settings)),
            // Writes: handed to the writer thread, which answers the window itself.
            Request::Create { draft, entry } => return self.create(draft, entry),
            Request::Update { id, edit, over_other } => return self.update(id, edit, over_other),
            Request::DismissSuggestion { id, which } => return self.dismiss_suggestion(id, which),
            Request::Flush => return self.write_or(|_| Ok(Response::Flushed), |_| Response::Flushed),
            Request::HistoryDays(Some(days)) => return self.set_history_days(days),
            Request::Redate { id, lived } => {
                return self.write(move |conn| {
                    entries::redate(conn, USER, id, lived)?;
                    entries::get(conn, USER, id).map(|e| Response::Redated(Box::new(e)))
                });
            }
            Request::Trash(id) => {
                return self
                    .write(move |conn| entries::soft_delete(conn, USER, id).map(|()| Response::Trashed(id)));
            }
            Request::Restore(id) => {
                return self
                    .write(move |conn| entries::restore(conn, USER, id).map(|()| Response::Restored(id)));
            }
            Request::Purge(id) => {
                let busy = self.busy_timeout;
                return self
                    .write(move |conn| entries::purge(conn, USER, id, busy).map(|_| Response::Purged(id)));
            }
            Request::BringBack { entry, version } => return self.bring_back(entry, version),
            Request::SaveRecording {
                recording,
                samples,
                transcript,
            } => return self.save_recording(recording, samples, transcript),
            Request::SaveChat(answer) => return self.save_chat(*answer),
            Request::DemoIfEmpty => return self.demo_if_empty(),
            Request::Fault(fault) => return self.fault(fault),
            // Long work on threads of its own, so the reader goes on answering.
            Request::AttachPhotos { entry, photos } => return self.attach_photos(entry, photos),
            Request::ClipboardPhoto => {
                let reply = self.reply.clone();
                return self.spawn_file_thread("clipboard", move || {
                    reply.send(Response::ClipboardPhoto(clipboard_photo()));
                });
            }
            Request::ImportJournal {
                path,
                dry_run,
                cancel,
            } => return self.import_journal(path, dry_run, cancel),
            Request::ExportJournal { path, format } => return self.export_journal(path, format),
            Request::Backup {
                every_days,
                keep,
                now,
            } => return self.backup(every_days, keep, now),
            Request::CheckBackup(path) => return self.check_backup(path),
            Request::RestoreBackup(path) => return self.restore_backup(path),
            Request::ForgetPassphrase => return self.forget_passphrase(),
            // The model's background work.
            Request::StartModelWork => return self.start_model_work(),
            Request::PauseQueue(paused) => return self.pause_queue(paused),
            Request::Asking(asking) => return self.hold_queue_for_ask(asking),
        };
        self.reply.result(response);
    }

    /// The search box's search: the words at once, and again with the meaning when the
    /// assistant has embedded the query.
    fn search(&mut self, generation: u64, text: &str, embedding: Option<&[f32]>) -> db::Result<Response> {
        self.searcher
            .search_box(
                &self.conn,
                USER,
                text,
                Local::now(),
                SEARCH_BOX_RESULTS,
                embedding,
            )
            .map(|outcome| Response::Search { generation, outcome })
    }

    fn create(&self, draft: u64, entry: entries::NewEntry) {
        self.write_or(
            move |conn| {
                let id = entries::create(conn, USER, &entry)?;
                let entry = Box::new(entries::get(conn, USER, id)?);
                Ok(Response::Created { draft, entry })
            },
            move |message| Response::CreateFailed { draft, message },
        )
    }

    /// A save of the editor's edits; `over_other` when the person chose to keep theirs
    /// over another program's change.
    fn update(&self, id: EntryId, edit: entries::EntryEdit, over_other: bool) {
        let update = if over_other {
            entries::update_over_other
        } else {
            entries::update
        };
        self.write_or(
            move |conn| {
                update(conn, USER, id, &edit)?;
                Ok(Response::Saved(Box::new(entries::get(conn, USER, id)?)))
            },
            move |message| Response::UpdateFailed { id, message },
        )
    }

    fn dismiss_suggestion(&self, id: EntryId, which: entries::Suggestion) {
        self.write_or(
            move |conn| {
                entries::dismiss_suggestion(conn, USER, id, &which)?;
                entries::get(conn, USER, id).map(|e| Response::Refreshed(Box::new(e)))
            },
            Response::Failed,
        )
    }

    /// Writes the settings file; a reminder or a start with the system that changed is
    /// first handed to the system (the scheduler is a program run for a moment, which is
    /// why it happens here and not on the UI thread). The file says what the system
    /// has: a change it refused is not saved.
    fn save_settings(&self, mut settings: mindsage_core::settings::Settings) -> Response {
        let before = mindsage_core::settings::Settings::load(&self.data_dir).unwrap_or_default();
        let answers = crate::protocol::SystemAnswers {
            reminder: crate::reminders::schedule(&before.reminder, &settings.reminder, &self.data_dir),
            start_with_system: crate::autostart::apply(
                before.start_with_system,
                settings.start_with_system,
                &self.data_dir,
            ),
        };
        if let Some(Err(_)) = answers.reminder {
            settings.reminder = before.reminder;
        }
        if let Some(Err(_)) = answers.start_with_system {
            settings.start_with_system = before.start_with_system;
        }
        match settings.save(&self.data_dir) {
            Ok(()) => Response::SettingsSaved(answers),
            Err(e) => Response::Failed(format!("saving the settings failed: {e}")),
        }
    }

    fn set_history_days(&self, days: u32) {
        self.write(move |conn| {
            db::history::set_days(conn, USER, days)?;
            Ok(Response::HistoryDays(db::history::days(conn, USER)?))
        })
    }

    fn bring_back(&self, entry: EntryId, version: i64) {
        self.write(move |conn| {
            db::entries::bring_back(conn, USER, entry, version)?;
            Ok(Response::BroughtBack {
                entry: Box::new(entries::get(conn, USER, entry)?),
                versions: db::history::versions(conn, entry)?,
            })
        })
    }

    /// The demo journal (`--demo`), only into an empty one.
    fn demo_if_empty(&self) {
        match entries::count(&self.conn, USER) {
            Ok(0) => {
                let nudge = self.enrichment.as_ref().map(JobRunner::nudge);
                self.write(move |conn| {
                    let seeded = demo::seed(conn, USER, &demo_options())?;
                    // Bulk inserts queue no work per entry: the runner looks for them.
                    if let Some(nudge) = nudge {
                        nudge.rescan();
                    }
                    Ok(Response::Seeded(seeded))
                });
            }
            Ok(_) => {}
            Err(e) => self.reply.result(Err(e)),
        }
    }

    /// A backup chosen to restore, checked before the window asks the person.
    fn check_backup(&self, path: PathBuf) {
        let (reply, key) = (self.reply.clone(), self.options.key.clone());
        self.spawn_file_thread("backup check", move || {
            let outcome = db::backup::check(&path, key.as_ref()).map_err(|e| e.to_string());
            reply.send(Response::BackupChecked { path, outcome });
        });
    }

    /// Forgets the passphrase this computer remembers, which can wait on the system's
    /// credential store.
    fn forget_passphrase(&self) {
        let (journal, reply) = (self.journal.clone(), self.reply.clone());
        self.spawn_file_thread("credential store", move || {
            reply.send(match mindsage_core::keystore::forget(&journal) {
                Ok(()) => Response::Told("The passphrase is no longer remembered on this computer.".into()),
                Err(e) => Response::Failed(e.to_string()),
            });
        });
    }

    /// Starts the model's background work, once: the window asks when the journal's
    /// first rows are on screen.
    fn start_model_work(&mut self) {
        if let Some((ai, path, options)) = self.model_work.take() {
            self.enrichment = start_enrichment(&ai, &path, &options, &self.writer, &self.reply);
        }
    }

    fn pause_queue(&self, paused: bool) {
        if let Some(runner) = &self.enrichment {
            runner.set_paused(paused);
        }
    }

    /// Ask has the model (true) or is done with it: the background work holds back
    /// meanwhile, apart from the person's pause.
    fn hold_queue_for_ask(&self, asking: bool) {
        if let Some(runner) = &self.enrichment {
            runner.set_asking(asking);
        }
    }

    /// Queues a write whose failure is a plain [`Response::Failed`].
    fn write(&self, job: impl FnOnce(&mut Connection) -> db::Result<Response> + Send + 'static) {
        self.write_or(job, Response::Failed);
    }

    /// Queues a write; the writer thread sends its answer to the UI itself, and a failure
    /// as `failed` makes it, so it reaches the request's sender. A job that never runs or
    /// dies running (the writer stopped) still answers, through [`Owed`].
    fn write_or(
        &self,
        job: impl FnOnce(&mut Connection) -> db::Result<Response> + Send + 'static,
        failed: impl FnOnce(String) -> Response + Send + 'static,
    ) {
        let owed = Owed {
            reply: self.reply.clone(),
            failed: Some(Box::new(failed)),
        };
        let nudge = self.enrichment.as_ref().map(JobRunner::nudge);
        let reply = self.reply.clone();
        drop(self.writer.submit(move |conn| {
            owed.answer(job(conn));
            // A save may have queued AI work: look at the queue now, not at the next poll.
            if let Some(nudge) = nudge
                && !nudge.wake()
            {
                reply.send(Response::ThreadStopped {
                    what: JOBS,
                    saving: false,
                });
            }
            Ok(())
        }));
    }

    /// Saves the sealed drafts the last session left (an encrypted journal's: a person
    /// cannot open them) into the journal on the writer, before anything typed now, and
    /// tells the window what was recovered. Plain journals' drafts are text files the
    /// person opens; nothing is done with them.
    fn recover_drafts(&self) {
        let Some(key) = self.options.key.clone() else {
            return;
        };
        if mindsage_core::drafts::sealed_drafts(&self.data_dir).is_empty() {
            return;
        }
        let data_dir = self.data_dir.clone();
        self.write(move |conn| {
            let recovered = mindsage_core::drafts::recover(conn, USER, &data_dir, &key);
            Ok(Response::DraftsRecovered {
                saved: recovered.saved.len(),
                problems: recovered.problems,
            })
        });
    }

    /// Saves a transcribed recording (`samples`, as the transcriber read them) as an
    /// entry on the writer, dated when and where it was spoken (however long it waited
    /// for a model), then erases its file. Failures answer as [`VoiceEvent::Failed`] and
    /// leave the file for the next start.
    fn save_recording(&self, recording: PathBuf, samples: Vec<f32>, transcript: Transcript) {
        let failed_recording = recording.clone();
        let entry = NewEntry {
            created_at: voice::recordings::started_at(&recording),
            ..NewEntry::default()
        };
        self.write_or(
            move |conn| {
                let id = voice::save_entry(conn, USER, entry, &samples, &transcript)?;
                if let Err(e) = voice::wav::discard(&recording) {
                    // The entry holds the recording; a copy left behind is only named.
                    tracing::warn!("could not erase {} after saving it: {e}", recording.display());
                }
                Ok(Response::Voice(VoiceEvent::Saved { recording, id }))
            },
            move |message| {
                Response::Voice(VoiceEvent::Failed {
                    recording: failed_recording,
                    message,
                })
            },
        );
    }

    fn fault(&self, fault: Fault) {
        match fault {
            Fault::Fail => self
                .reply
                .send(Response::Failed("a test asked for this failure".to_owned())),
            Fault::PanicReader => panic!("a test stopped the reader"),
            Fault::PanicWriter => drop(
                self.writer
                    .submit(|_| -> db::Result<()> { panic!("a test stopped the writer") }),
            ),
        }
    }

    /// Saves an answered question to the history.
    fn save_chat(&self, answer: AskAnswer) {
        self.write(move |conn| ask::save_chat(conn, USER, None, &answer).map(|_| Response::ChatSaved));
    }

    fn dashboard(&mut self) -> db::Result<Response> {
        let today = Local::now().date_naive();
        let stats = self.stats.get(&self.conn, USER, today)?;
        let first_year = stats.first_day.map_or(today.year(), |d| d.year());
        let month_ago = match today.checked_sub_months(chrono::Months::new(1)) {
            Some(day) => {
                entries::list(&self.conn, USER, &ListFilter::on(day), None, ON_THIS_DAY_PER_YEAR)?.rows
            }
            None => Vec::new(),
        };
        let mut on_this_day = Vec::new();
        for year in (first_year..today.year()).rev() {
            // 29 February has no date in most years; those years have nothing to show.
            let Some(day) = NaiveDate::from_ymd_opt(year, today.month(), today.day()) else {
                continue;
            };
            on_this_day.extend(
                entries::list(&self.conn, USER, &ListFilter::on(day), None, ON_THIS_DAY_PER_YEAR)?.rows,
            );
        }
        Ok(Response::Dashboard {
            stats,
            month_ago,
            on_this_day,
        })
    }

    /// The themes of the last four weeks and of the last six months.
    fn themes(&mut self) -> db::Result<Response> {
        let today = Local::now().date_naive();
        let conn = &self.conn;
        let lately = self
            .themes
            .get(conn, today, || themes::lately(conn, USER, today))?;
        Ok(Response::Themes(Lately::clone(&lately)))
    }

    /// The latest reflections, with the rows of the entries they cite.
    fn reflections(&self) -> db::Result<Response> {
        let reflections = reflections::recent(&self.conn, USER, REFLECTIONS_SHOWN)?;
        let mut cited: Vec<EntryId> = reflections
            .iter()
            .flat_map(|r| r.sentences.iter().flat_map(|s| s.entries.iter().copied()))
            .collect();
        cited.sort_unstable();
        cited.dedup();
        let entries = entries::rows_of(&self.conn, USER, &cited)?;
        Ok(Response::Reflections { reflections, entries })
    }

    /// An entry lived over a month ago, at random, opened as any entry is.
    fn older_entry(&self) -> db::Result<Response> {
        let today = Local::now().date_naive();
        let before = today.checked_sub_months(chrono::Months::new(1)).unwrap_or(today);
        match entries::random_older(&self.conn, USER, before)? {
            Some(id) => entries::get(&self.conn, USER, id).map(|e| Response::Entry(Box::new(e))),
            None => Ok(Response::Told(
                "Nothing is older than a month yet: older entries come back here once there are some.".into(),
            )),
        }
    }

    /// The streak as of today and the entries of `day` a month and a year before (the
    /// month's last day when it is shorter: 28 February for 30 March).
    fn around(&mut self, day: NaiveDate) -> db::Result<Response> {
        let today = Local::now().date_naive();
        let stats = self.stats.get(&self.conn, USER, today)?;
        Ok(Response::Around {
            day,
            around: Around {
                streak: stats.current_streak,
                written_today: stats.last_day == Some(today),
                last_week: match day == today {
                    true => reflections::last_week(&self.conn, USER, today)?
                        .and_then(|r| r.sentences.into_iter().next())
                        .map(|s| s.text),
                    false => None,
                },
                month_before: self.months_before(day, 1)?,
                year_before: self.months_before(day, 12)?,
            },
        })
    }

    /// The newest entry of `day` so many months before, by its day and name.
    fn months_before(&self, day: NaiveDate, months: u32) -> db::Result<Option<(NaiveDate, String)>> {
        let Some(then) = day.checked_sub_months(chrono::Months::new(months)) else {
            return Ok(None);
        };
        Ok(entries::newest_on(&self.conn, USER, then)?.map(|e| {
            (
                then,
                crate::wording::plain(&crate::wording::entry_title(&e.title, &e.body)).into_owned(),
            )
        }))
    }

    /// Runs an import on a thread of its own with its own connection: batches of
    /// entries take the write lock in turn with the app's saves, progress goes to the UI
    /// after each, and the model's queue is looked at when it is done.
    fn import_journal(&self, path: PathBuf, dry_run: bool, cancel: Arc<AtomicBool>) {
        let (journal, options) = (self.journal.clone(), self.options.clone());
        let (reply, nudge) = (self.reply.clone(), self.enrichment.as_ref().map(JobRunner::nudge));
        self.spawn_file_thread("import", move || {
            let outcome = import::open(&path)
                .map_err(|e| e.to_string())
                .and_then(|mut export| {
                    let mut conn = db::open(&journal, &options).map_err(|e| e.to_string())?;
                    let options = import::Options {
                        dry_run,
                        cancel: Some(&cancel),
                        key: options.key.as_ref(),
                        ..import::Options::default()
                    };
                    let progress = &mut |p: import::Progress| {
                        reply.send(Response::ImportProgress {
                            done: p.done,
                            total: p.total,
                            elapsed: p.elapsed,
                        })
                    };
                    import::run(&mut conn, USER, &mut export, &options, progress).map_err(|e| e.to_string())
                });
            if let Some(nudge) = nudge.filter(|_| !dry_run) {
                nudge.wake();
            }
            reply.send(Response::Imported(outcome));
        });
    }

    /// Writes an export on a thread of its own, reading through its own connection.
    fn export_journal(&self, path: PathBuf, format: export::Format) {
        let (journal, options, reply) = (self.journal.clone(), self.options.clone(), self.reply.clone());
        self.spawn_file_thread("export", move || {
            let outcome = db::open(&journal, &options)
                .map_err(|e| e.to_string())
                .and_then(|conn| export::run(&conn, USER, &path, format).map_err(|e| e.to_string()));
            reply.send(Response::Exported(outcome));
        });
    }

    /// The automatic backup (or one asked for now), on a thread of its own: SQLite's
    /// online backup reads while the writer goes on writing.
    fn backup(&self, every_days: u32, keep: u32, now: bool) {
        let (journal, options, reply) = (self.journal.clone(), self.options.clone(), self.reply.clone());
        let data_dir = self.data_dir.clone();
        self.spawn_file_thread("backup", move || {
            let outcome = db::open(&journal, &options)
                .and_then(|conn| {
                    let key = options.key.as_ref();
                    db::backup::backup_if_due(
                        &conn,
                        &data_dir,
                        every_days,
                        keep,
                        chrono::Utc::now(),
                        now,
                        key,
                    )
                })
                .map_err(|e| e.to_string());
            reply.send(Response::BackedUp(outcome));
        });
    }

    /// Restores a backup through the writer, after the saves queued before it; the
    /// journal as it was goes with the backups first.
    fn restore_backup(&self, from: PathBuf) {
        let (journal, data_dir) = (self.journal.clone(), self.data_dir.clone());
        let key = self.options.key.clone();
        self.write_or(
            move |conn| {
                let kept = db::backup::before_restore_path(&data_dir, chrono::Utc::now());
                mindsage_core::files::create_private_dir(kept.parent().unwrap_or(&data_dir)).map_err(
                    |source| db::DbError::CreateFolder {
                        path: data_dir.join(db::backup::BACKUPS_FOLDER),
                        source,
                    },
                )?;
                let report = db::backup::restore_into(conn, &journal, &from, &kept, key.as_ref())?;
                Ok(Response::BackupRestored(Ok((report, kept))))
            },
            |message| Response::BackupRestored(Err(message)),
        );
    }

    fn spawn_file_thread(&self, what: &str, work: impl FnOnce() + Send + 'static) {
        if let Err(e) = crate::threads::spawn(what, work) {
            self.reply
                .send(Response::Failed(format!("could not start the {what}: {e}")));
        }
    }

    /// Reads photo `media_id`'s bytes here and decodes them on a thread of its own (a
    /// large photo takes a while, and must not hold up the reads behind it).
    fn photo(&self, media_id: i64) {
        let image = match gallery::photo_data(&self.conn, USER, media_id) {
            Ok(Some(data)) => data,
            Ok(None) => {
                let image = Err("this photo is no longer in the journal".to_owned());
                return self.reply.send(Response::Photo { media_id, image });
            }
            Err(e) => return self.reply.result(Err(e)),
        };
        let reply = self.reply.clone();
        self.spawn_file_thread("photo viewer", move || {
            reply.send(Response::Photo {
                media_id,
                image: decode_large(&image),
            });
        });
    }

    /// Reads and thumbnails the files on an import thread (decoding a large photo takes
    /// a while and must hold up neither reads nor other writes), then attaches them all
    /// in one transaction on the writer.
    fn attach_photos(&self, entry: EntryId, photos: Vec<NewPhoto>) {
        let writer = Arc::clone(&self.writer);
        let reply = self.reply.clone();
        self.spawn_file_thread("photo import", move || {
            let mut failures = Vec::new();
            let mut prepared = Vec::new();
            for NewPhoto { from, name: in_text } in photos {
                let (name, data) = match from {
                    PhotoFrom::File(path) => (
                        path.file_name().map_or_else(
                            || path.display().to_string(),
                            |n| n.to_string_lossy().into_owned(),
                        ),
                        std::fs::read(&path).map_err(|e| e.to_string()),
                    ),
                    PhotoFrom::Pasted(png) => ("the pasted photo".to_owned(), Ok(png)),
                };
                match data.and_then(|data| media::prepare_image(data).map_err(|e| e.to_string())) {
                    Ok(image) => prepared.push((image, in_text)),
                    Err(e) => failures.push(format!("{name}: {e}")),
                }
            }
            let result = writer.call(move |conn| {
                let tx = conn.transaction()?;
                for (image, in_text) in &prepared {
                    gallery::attach_image(&tx, USER, entry, image, &clock::now_utc(), in_text.as_deref())?;
                }
                tx.commit()?;
                Ok(prepared.len())
            });
            reply.result(result.map(|added| Response::PhotosAdded {
                entry,
                added,
                failures,
            }));
        });
    }
}

/// The clipboard's image (a screenshot, a photo copied in another program) as a PNG.
fn clipboard_photo() -> Result<Vec<u8>, String> {
    let image = arboard::Clipboard::new()
        .and_then(|mut clipboard| clipboard.get_image())
        .map_err(|e| match e {
            arboard::Error::ContentNotAvailable => "The clipboard holds no photo.".to_owned(),
            other => format!("The clipboard could not be read: {other}"),
        })?;
    let (width, height) = (image.width as u32, image.height as u32);
    let rgba = image::RgbaImage::from_raw(width, height, image.bytes.into_owned())
        .ok_or("The clipboard's image is not whole.")?;
    let mut png = Vec::new();
    rgba.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| format!("The clipboard's image could not be kept: {e}"))?;
    Ok(png)
}

/// An entry's first recording, decoded for playing; nothing when it has none.
fn recording_of(conn: &Connection, entry: EntryId) -> db::Result<Response> {
    let Some(stored) = audio::of_entry(conn, USER, entry)?.into_iter().next() else {
        return Ok(Response::Recording {
            entry,
            samples: Vec::new(),
            segments: Vec::new(),
        });
    };
    let samples = voice::wav::decode_bytes(&audio::wav(conn, stored.media_id)?)
        .map_err(|e| db::DbError::Invalid(format!("the recording of entry {entry} cannot be read: {e}")))?;
    Ok(Response::Recording {
        entry,
        samples,
        segments: audio::segments(conn, stored.media_id)?,
    })
}

/// The answer a queued write owes the UI. Dropped without answering, the job never ran
/// or panicked: the writer has stopped, and both the request's sender and the app hear it.
struct Owed {
    reply: Reply,
    failed: Option<Box<dyn FnOnce(String) -> Response + Send>>,
}

impl Owed {
    fn answer(mut self, result: db::Result<Response>) {
        let failed = self.failed.take();
        self.reply.send(match (result, failed) {
            (Ok(response), _) => response,
            (Err(e), Some(failed)) => failed(e.to_string()),
            (Err(e), None) => Response::Failed(e.to_string()),
        });
    }
}

impl Drop for Owed {
    fn drop(&mut self) {
        if let Some(failed) = self.failed.take() {
            self.reply
                .send(failed(format!("not saved: {}", db::DbError::WriterStopped)));
            self.reply.send(Response::ThreadStopped {
                what: WRITER,
                saving: true,
            });
        }
    }
}

/// Starts the AI job runner, which reports the queue to the UI, and pre-warms the text
/// model so the first question does not pay for loading it; without a usable client the
/// UI hears why once.
fn start_enrichment(
    ai: &AiSettings,
    path: &Path,
    options: &StorageOptions,
    writer: &Arc<Writer>,
    reply: &Reply,
) -> Option<JobRunner> {
    let status = {
        let reply = reply.clone();
        Box::new(move |status| reply.send(Response::Queue(status)))
    };
    let started = OllamaClient::new(ai)
        .map_err(|e| e.to_string())
        .and_then(|client| {
            drop(health::prewarm_in_background(client.clone()));
            JobRunner::spawn(
                client,
                path.to_path_buf(),
                options.clone(),
                Arc::clone(writer),
                status,
            )
            .map_err(|e| e.to_string())
        });
    match started {
        Ok(runner) => Some(runner),
        Err(message) => {
            reply.send(Response::Failed(format!(
                "titles and summaries are off: {message}"
            )));
            None
        }
    }
}

fn demo_options() -> DemoOptions {
    DemoOptions {
        end: chrono::Utc::now(),
        ..DemoOptions::fixed(DEMO_ENTRIES, 42)
    }
}

/// Decodes stored JPEG thumbnails into pixels here, on the reader, so the UI thread
/// only uploads ready textures. A thumbnail that fails to decode is left out.
/// A photo's bytes decoded for showing large: at most [`LargePhoto::SIDE`] a side.
fn decode_large(data: &[u8]) -> Result<LargePhoto, String> {
    puffin::profile_function!();
    let mut decoded = image::load_from_memory(data).map_err(|e| format!("this photo cannot be read: {e}"))?;
    if decoded.width().max(decoded.height()) > LargePhoto::SIDE {
        decoded = decoded.thumbnail(LargePhoto::SIDE, LargePhoto::SIDE);
    }
    let rgba = decoded.to_rgba8();
    let size = [rgba.width() as usize, rgba.height() as usize];
    Ok(LargePhoto(egui::ColorImage::from_rgba_unmultiplied(
        size,
        rgba.as_raw(),
    )))
}

fn decode_thumbnails(items: Vec<GalleryItem>) -> Vec<Thumbnail> {
    puffin::profile_function!();
    items
        .into_iter()
        .filter_map(|item| {
            let rgba = image::load_from_memory(&item.thumbnail_jpeg).ok()?.to_rgba8();
            let size = [rgba.width() as usize, rgba.height() as usize];
            Some(Thumbnail {
                media_id: item.media_id,
                entry_id: item.entry_id,
                created_at: item.created_at,
                image: egui::ColorImage::from_rgba_unmultiplied(size, rgba.as_raw()),
                name: item.name,
            })
        })
        .collect()
}
