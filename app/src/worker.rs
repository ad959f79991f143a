//! The UI's database worker: the only place the window's data is read.
//!
//! The UI thread never touches SQLite. It sends a [`Request`] and carries on drawing;
//! this thread answers with a [`Response`] and asks egui to repaint. Writes go on to
//! the [`Writer`] thread, which replies straight to the UI, so a long save never holds
//! up a read. Photos are decoded on a short-lived import thread, never on either.
//!
//! A save's failure answers that save ([`Response::CreateFailed`], [`Response::UpdateFailed`]),
//! never a shared "something failed", so the editor only retries what it sent. A thread
//! that dies of a bug says so ([`Response::ThreadStopped`]) instead of leaving requests to
//! vanish, and [`Worker::restart`] starts the threads again on the same answer channel.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

use chrono::{Datelike, Local, NaiveDate};
use rusqlite::Connection;

use mindsage_core::ai::ask::{self, AskAnswer, AskEvent};
use mindsage_core::ai::jobs::{JobRunner, QueueStatus};
use mindsage_core::ai::{AiSettings, OllamaClient, health};
use mindsage_core::clock;
use mindsage_core::db::chats::{self, ChatMessage, ChatSummary};
use mindsage_core::db::entries::{self, Cursor, Entry, EntryEdit, EntryRow, ListFilter, NewEntry, Page};
use mindsage_core::db::gallery::{self, GalleryItem};
use mindsage_core::db::stats::{DashboardStats, StatsCache};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, EffectivePragmas, EntryId, StorageOptions, UserId};
use mindsage_core::demo::{self, DemoOptions, SeedReport};
use mindsage_core::media;
use mindsage_core::search::{SEARCH_BOX_RESULTS, SearchOutcome, Searcher};
use mindsage_core::settings::Settings;

use crate::assistant::{AiRequest, Assistant};

/// Demo entries `--demo` puts in an empty journal: enough to scroll and chart.
const DEMO_ENTRIES: usize = 2_000;

/// Chats listed in the Ask history.
const CHATS_LISTED: u32 = 100;

/// Entries shown per earlier year under "on this day".
const ON_THIS_DAY_PER_YEAR: u32 = 3;

/// What the UI asks for.
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
    Entry(EntryId),
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
    Update {
        id: EntryId,
        edit: EntryEdit,
    },
    Trash(EntryId),
    Restore(EntryId),
    Purge(EntryId),
    /// The dashboard's figures and "on this day".
    Dashboard,
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
    /// Read, check and attach photo files to an entry.
    AttachPhotos {
        entry: EntryId,
        paths: Vec<PathBuf>,
    },
    Pragmas,
    SaveSettings(Settings),
    /// Store an answered question in the chat history.
    SaveChat(Box<AskAnswer>),
    /// The most recent chats of the Ask history.
    Chats,
    /// One chat's messages.
    ChatMessages(i64),
    /// Fill the journal with demo entries if it has none.
    DemoIfEmpty,
    /// Pause (true) or resume the model's background work.
    PauseQueue(bool),
    /// Start the model's background work (the job runner and the model's pre-warm). The
    /// window sends it once the journal is on screen: on a two-core PC the backfill's
    /// scan and the pre-warm otherwise compete with the first frame for the processor.
    StartModelWork,
    /// Answered with [`Response::Flushed`] once every write sent before it is committed
    /// (the writer runs jobs in order): closing waits for it.
    Flush,
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

/// A gallery photo with its thumbnail decoded, ready to upload as a texture.
pub struct Thumbnail {
    pub media_id: i64,
    pub entry_id: EntryId,
    pub created_at: String,
    pub image: egui::ColorImage,
}

impl std::fmt::Debug for Thumbnail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Thumbnail({} of entry {})", self.media_id, self.entry_id)
    }
}

/// What comes back.
#[derive(Debug)]
pub enum Response {
    Page {
        generation: u64,
        page: Page,
    },
    Count(u64),
    Entry(Box<Entry>),
    Search {
        generation: u64,
        outcome: SearchOutcome,
    },
    Created {
        draft: u64,
        id: EntryId,
    },
    /// The draft `draft` could not be created; nothing was written.
    CreateFailed {
        draft: u64,
        message: String,
    },
    Saved(EntryId),
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
        /// Entries written on today's date in earlier years, newest year first.
        on_this_day: Vec<EntryRow>,
    },
    Thumbnails {
        generation: u64,
        thumbnails: Vec<Thumbnail>,
        /// Where the next page starts; `None` at the end and for a shuffle.
        next: Option<Cursor>,
    },
    PhotosAdded {
        entry: EntryId,
        added: usize,
        /// One line per file that could not be attached, naming it and why.
        failures: Vec<String>,
    },
    Pragmas(Box<EffectivePragmas>),
    SettingsSaved,
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
    /// The search box's text could not be embedded: results match words only, for this reason.
    MeaningUnavailable {
        generation: u64,
        reason: String,
    },
    /// Every write sent before [`Request::Flush`] is in the file.
    Flushed,
    /// A thread died of a bug: what it did, in the person's words, and whether saves are
    /// lost with it (the reader and the writer). Requests to it are lost until
    /// [`Worker::restart`].
    ThreadStopped {
        what: &'static str,
        saving: bool,
    },
    /// The journal could not be opened; nothing else will arrive.
    OpenFailed(String),
    /// A request that no editor state waits on failed; shown, never retried.
    Failed(String),
}

/// The UI's end of the worker.
pub struct Worker {
    requests: Sender<Request>,
    ai: Sender<AiRequest>,
    responses: Receiver<Response>,
    /// What the threads were started with, to start them again.
    start: Start,
}

/// The journal, options and model settings the threads open, and the answer channel they
/// share (kept across a restart, so answers of the old threads still arrive).
#[derive(Clone)]
struct Start {
    path: PathBuf,
    options: StorageOptions,
    ai: AiSettings,
    reply: Reply,
}

/// Sends answers to the UI and wakes it up; shared by the reader, writer jobs, imports
/// and the AI thread.
#[derive(Clone)]
pub(crate) struct Reply {
    outbox: Sender<Response>,
    repaint: egui::Context,
}

impl Reply {
    pub(crate) fn send(&self, response: Response) {
        let _ = self.outbox.send(response);
        self.repaint.request_repaint();
    }

    fn result(&self, result: db::Result<Response>) {
        self.send(result.unwrap_or_else(|e| Response::Failed(e.to_string())));
    }
}

/// Lives on a thread and tells the UI if that thread dies of a panic (it is dropped
/// while unwinding); a thread that ends normally says nothing.
pub(crate) struct Watch {
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

/// What the reader thread does, as the app tells the person when it stops.
const READER: &str = "reading the journal";
/// What the writer thread does.
const WRITER: &str = "saving";
/// What the AI job runner does.
const JOBS: &str = "writing titles and summaries";

impl Worker {
    /// Starts the reader and the AI thread; each opens the journal on its own thread.
    pub fn spawn(path: PathBuf, options: StorageOptions, ai: AiSettings, repaint: egui::Context) -> Worker {
        let (outbox, responses) = mpsc::channel();
        let start = Start {
            path,
            options,
            ai,
            reply: Reply { outbox, repaint },
        };
        let (requests, ai) = start.threads();
        Worker {
            requests,
            ai,
            responses,
            start,
        }
    }

    /// Starts new reader, writer and AI threads after one died. The old ones that still
    /// run finish what they were given and end (their writer commits its queue first).
    pub fn restart(&mut self) {
        (self.requests, self.ai) = self.start.threads();
    }

    /// Sends a request to the AI thread.
    pub fn send_ai(&self, request: AiRequest) {
        let _ = self.ai.send(request);
    }

    /// Sends a request to the reader. If the reader has died the request is lost; its
    /// [`Watch`] has told the UI, which keeps the person's text and offers a restart.
    pub fn send(&self, request: Request) {
        let _ = self.requests.send(request);
    }

    /// Answers that have arrived, without waiting.
    pub fn drain(&self) -> impl Iterator<Item = Response> + '_ {
        self.responses.try_iter()
    }
}

impl Start {
    fn threads(&self) -> (Sender<Request>, Sender<AiRequest>) {
        let (requests, inbox) = mpsc::channel();
        let (ai_requests, ai_inbox) = mpsc::channel();
        let assistant = Assistant {
            path: self.path.clone(),
            options: self.options.clone(),
            settings: self.ai.clone(),
            reader: requests.clone(),
            reply: self.reply.clone(),
        };
        let start = self.clone();
        std::thread::Builder::new()
            .name("mindsage-reader".into())
            .spawn(move || serve(start.path, start.options, start.ai, inbox, start.reply))
            .expect("spawning a thread");
        std::thread::Builder::new()
            .name("mindsage-assistant".into())
            .spawn(move || assistant.serve(ai_inbox))
            .expect("spawning a thread");
        (requests, ai_requests)
    }
}

/// The reader thread's state: its connection, the writer, and the dashboard cache.
struct Reader {
    conn: Connection,
    writer: Arc<Writer>,
    /// Works the AI queue (titles, summaries, moods, embeddings) that saving fills;
    /// `None` until [`Request::StartModelWork`], and when the model settings are unusable
    /// (the reason was reported).
    enrichment: Option<Arc<JobRunner>>,
    /// What the job runner is started with, until it is.
    model_work: Option<(AiSettings, PathBuf, StorageOptions)>,
    stats: StatsCache,
    /// Keeps the in-memory vector copy the search box scans.
    searcher: Searcher,
    reply: Reply,
    data_dir: PathBuf,
    busy_timeout: std::time::Duration,
}

const USER: UserId = DEFAULT_USER;

fn serve(path: PathBuf, options: StorageOptions, ai: AiSettings, inbox: Receiver<Request>, reply: Reply) {
    // Declared first, so it is dropped last: a dying reader's writer has committed its
    // queue (and answered it) before the UI hears that the reader stopped.
    let _watch = Watch {
        what: READER,
        saving: true,
        reply: reply.clone(),
    };
    let opened = db::open(&path, &options).and_then(|conn| Ok((conn, Writer::spawn(&path, &options)?)));
    let (conn, writer) = match opened {
        Ok(pair) => pair,
        Err(e) => return reply.send(Response::OpenFailed(e.to_string())),
    };
    let writer = Arc::new(writer);
    let mut reader = Reader {
        conn,
        enrichment: None,
        model_work: Some((ai, path.clone(), options.clone())),
        writer,
        stats: StatsCache::default(),
        searcher: Searcher::default(),
        reply,
        data_dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        busy_timeout: options.busy_timeout,
    };
    for request in inbox {
        puffin::profile_scope!("worker.request");
        reader.handle(request);
    }
}

impl Reader {
    fn handle(&mut self, request: Request) {
        let conn = &self.conn;
        let response = match request {
            Request::Page {
                generation,
                filter,
                after,
                limit,
            } => entries::list(conn, USER, &filter, after.as_ref(), limit)
                .map(|page| Response::Page { generation, page }),
            Request::Count => entries::count(conn, USER).map(Response::Count),
            Request::Entry(id) => entries::get(conn, USER, id).map(|e| Response::Entry(Box::new(e))),
            Request::Search {
                generation,
                text,
                embedding,
            } => self
                .searcher
                .search_box(
                    conn,
                    USER,
                    &text,
                    Local::now(),
                    SEARCH_BOX_RESULTS,
                    embedding.as_deref(),
                )
                .map(|outcome| Response::Search { generation, outcome }),
            Request::Dashboard => self.dashboard(),
            Request::Chats => chats::recent(conn, USER, CHATS_LISTED).map(Response::Chats),
            Request::ChatMessages(chat) => chats::messages(conn, USER, chat).map(Response::ChatMessages),
            Request::GalleryPage {
                generation,
                after,
                limit,
            } => gallery::page(conn, USER, after.as_ref(), limit).map(|(items, next)| Response::Thumbnails {
                generation,
                thumbnails: decode_thumbnails(items),
                next,
            }),
            Request::GalleryShuffle { generation, count } => {
                gallery::random(conn, USER, count, &mut rand::rng()).map(|items| Response::Thumbnails {
                    generation,
                    thumbnails: decode_thumbnails(items),
                    next: None,
                })
            }
            Request::Pragmas => db::effective_pragmas(conn).map(|p| Response::Pragmas(Box::new(p))),
            Request::SaveSettings(settings) => Ok(match settings.save(&self.data_dir) {
                Ok(()) => Response::SettingsSaved,
                Err(e) => Response::Failed(format!("saving the settings failed: {e}")),
            }),
            Request::Create { draft, entry } => {
                return self.write_or(
                    move |conn| entries::create(conn, USER, &entry).map(|id| Response::Created { draft, id }),
                    move |message| Response::CreateFailed { draft, message },
                );
            }
            Request::Update { id, edit } => {
                return self.write_or(
                    move |conn| entries::update(conn, USER, id, &edit).map(|()| Response::Saved(id)),
                    move |message| Response::UpdateFailed { id, message },
                );
            }
            Request::Flush => return self.write_or(|_| Ok(Response::Flushed), |_| Response::Flushed),
            Request::Fault(fault) => return self.fault(fault),
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
            Request::AttachPhotos { entry, paths } => return self.attach_photos(entry, paths),
            Request::SaveChat(answer) => return self.save_chat(*answer),
            Request::DemoIfEmpty => match entries::count(conn, USER) {
                Ok(0) => {
                    let enrichment = self.enrichment.clone();
                    return self.write(move |conn| {
                        let seeded = demo::seed(conn, USER, &demo_options())?;
                        // Bulk inserts queue no work per entry: the runner looks for them.
                        if let Some(runner) = enrichment {
                            runner.rescan();
                        }
                        Ok(Response::Seeded(seeded))
                    });
                }
                Ok(_) => return,
                Err(e) => Err(e),
            },
            Request::StartModelWork => {
                if let Some((ai, path, options)) = self.model_work.take() {
                    self.enrichment = start_enrichment(&ai, &path, &options, &self.writer, &self.reply);
                }
                return;
            }
            Request::PauseQueue(paused) => {
                if let Some(runner) = &self.enrichment {
                    runner.set_paused(paused);
                }
                return;
            }
        };
        self.reply.result(response);
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
        let enrichment = self.enrichment.clone();
        let reply = self.reply.clone();
        drop(self.writer.submit(move |conn| {
            owed.answer(job(conn));
            // A save may have queued AI work: look at the queue now, not at the next poll.
            if let Some(runner) = enrichment {
                runner.wake();
                if !runner.is_running() {
                    reply.send(Response::ThreadStopped {
                        what: JOBS,
                        saving: false,
                    });
                }
            }
            Ok(())
        }));
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
        let mut on_this_day = Vec::new();
        for year in (first_year..today.year()).rev() {
            // 29 February has no date in most years; those years have nothing to show.
            let Some(day) = NaiveDate::from_ymd_opt(year, today.month(), today.day()) else {
                continue;
            };
            let filter = ListFilter {
                from: Some(clock::local_day_start_utc(day)),
                to: Some(clock::local_day_start_utc(day + chrono::Duration::days(1))),
                ..ListFilter::default()
            };
            on_this_day.extend(entries::list(&self.conn, USER, &filter, None, ON_THIS_DAY_PER_YEAR)?.rows);
        }
        Ok(Response::Dashboard { stats, on_this_day })
    }

    /// Reads and thumbnails the files on an import thread (decoding a large photo takes
    /// a while and must hold up neither reads nor other writes), then attaches them all
    /// in one transaction on the writer.
    fn attach_photos(&self, entry: EntryId, paths: Vec<PathBuf>) {
        let writer = Arc::clone(&self.writer);
        let reply = self.reply.clone();
        let spawned = std::thread::Builder::new()
            .name("mindsage-import".into())
            .spawn(move || {
                let mut failures = Vec::new();
                let mut prepared = Vec::new();
                for path in paths {
                    let name = path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    );
                    match std::fs::read(&path)
                        .map_err(|e| e.to_string())
                        .and_then(|data| media::prepare_image(data).map_err(|e| e.to_string()))
                    {
                        Ok(image) => prepared.push(image),
                        Err(e) => failures.push(format!("{name}: {e}")),
                    }
                }
                let result = writer.call(move |conn| {
                    let tx = conn.transaction()?;
                    for image in &prepared {
                        gallery::attach_image(&tx, USER, entry, image)?;
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
        if let Err(e) = spawned {
            self.reply
                .send(Response::Failed(format!("could not start the photo import: {e}")));
        }
    }
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
) -> Option<Arc<JobRunner>> {
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
        Ok(runner) => Some(Arc::new(runner)),
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
            })
        })
        .collect()
}
