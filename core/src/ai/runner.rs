//! The job runner: works the model queue (`db::jobs`) that saves fill, off the UI thread.
//!
//! Saves queue their jobs in their own transaction; the runner finds the work entries
//! never had when it starts ([`backfill`]: older journals, seeded and imported entries,
//! a changed embedding model), and is woken after every write. Embeddings go first, in
//! batches (one `/api/embed` call takes a list) and newest entries first, so meaning
//! search covers a large journal quickly; enrichment (one generation call per entry)
//! follows. A result is written only if the entry is unchanged since the job read it
//! (its revision): an edit saved meanwhile has queued the job again, and the newer text
//! gets its own result.
//!
//! When Ollama is down or a model is not pulled, jobs stay pending (their attempts are
//! not spent) and the runner probes again with a growing pause until the model is back,
//! then resumes by itself. Output the model keeps getting wrong spends an attempt; after
//! [`MAX_JOB_ATTEMPTS`] the job is marked failed with the reason, never entry text.
//! Progress goes to whoever started the runner as a [`QueueStatus`] after every batch.
//!
//! Reflections on the weeks and months that ended (`db::reflections`) come last, one
//! model call each, once no entry waits for its own work: they are written from the
//! entries' summaries.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::{AiError, AiSettings, OllamaClient, block_on, enrich, health, reflect};
use crate::db::entries::{self, Entry};
use crate::db::jobs::{self, Job, JobKind, QueueCounts};
use crate::db::reflections::{self, Due};
use crate::db::writer::Writer;
use crate::db::{self, DbError, EntryId, StorageOptions, UserId};
use crate::timing;

pub use crate::db::jobs::MAX_JOB_ATTEMPTS;

/// Texts per embedding call. Batching is what makes a backfill fast (the server embeds
/// several texts a request far faster than one at a time), but every batch is also the
/// time a pause waits for and the time before its entries become searchable, and a
/// batch of long entries takes seconds; the bench's backfill scenario measures the
/// throughput this gives against the server's own.
pub const EMBED_BATCH: usize = 32;

/// The timing of one embedding batch, from its jobs read to its vectors written.
const EMBED_BATCH_TIMING: &str = "ai.job.embed_batch";

/// The timing of one entry's enrichment, from its text read to its result written.
const ENRICH_TIMING: &str = "ai.job.enrich";

/// The timing of one reflection, from its period's entries read to its sentences written.
const REFLECT_TIMING: &str = "ai.job.reflect";

/// How often an idle runner looks at the queue without being woken (jobs queued by
/// another process, such as the CLI).
const IDLE_POLL: Duration = Duration::from_secs(30);

/// How long dropping the runner waits for the job in hand before leaving it: a model
/// call can take minutes, and closing the app must not. A job left behind stays queued
/// and is done at the next start.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// What one pass over the queue did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RunReport {
    /// Jobs finished: vectors stored plus entries enriched.
    pub done: u32,
    pub embedded: u32,
    pub enriched: u32,
    /// Reflections on ended weeks and months written.
    pub reflected: u32,
    pub failed_attempts: u32,
    pub skipped: u32,
    /// Results not written because the entry was edited while the model worked.
    pub stale: u32,
    /// Generation calls made (the bench checks this is one per enriched entry, and one
    /// per reflection).
    pub model_calls: u32,
    /// Embedding requests made (each carries up to [`EMBED_BATCH`] texts).
    pub embed_calls: u32,
}

/// What the runner is doing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Activity {
    Idle,
    Working,
    /// Paused by the person; nothing is lost, work resumes when they say so.
    Paused,
    /// Holding back while Ask answers a question, so the question never waits behind
    /// the backlog; work resumes when the answer is written.
    Answering,
    /// The model is unavailable; the message says what to do. Work resumes by itself.
    Waiting(String),
}

/// The queue as the person sees it: how far the current backlog has come.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QueueStatus {
    pub activity: Activity,
    pub counts: QueueCounts,
    /// Embeddings, enrichments and reflections written since the queue was last empty.
    pub embedded: u64,
    pub enriched: u64,
    pub reflected: u64,
    /// The entry whose title, summary and mood the step just before this status wrote,
    /// so a screen showing it reads it again instead of polling.
    pub enriched_entry: Option<EntryId>,
}

impl QueueStatus {
    /// The phase of the backlog under way: what is being done, how many are done and of
    /// how many. Embeddings come first, so that is the phase while any are queued.
    pub fn phase(&self) -> Option<(&'static str, u64, u64)> {
        let c = &self.counts;
        if c.embed_pending > 0 {
            Some((
                "Indexing for search",
                self.embedded,
                self.embedded + c.embed_pending,
            ))
        } else if c.enrich_pending > 0 {
            Some((
                "Writing titles and summaries",
                self.enriched,
                self.enriched + c.enrich_pending,
            ))
        } else if c.reflect_pending > 0 {
            Some((
                "Looking back on weeks and months",
                self.reflected,
                self.reflected + c.reflect_pending,
            ))
        } else {
            None
        }
    }

    /// The line a status bar or the CLI shows, and the progress bar's fraction; `None`
    /// when no work is queued.
    pub fn summary(&self) -> Option<(String, f32)> {
        let (what, done, total) = self.phase()?;
        let fraction = done as f32 / total.max(1) as f32;
        let line = format!("{what}: {} of {}", thousands(done), thousands(total));
        let line = match &self.activity {
            Activity::Paused => format!("{line} (paused)"),
            Activity::Answering => format!("{line} (after the answer)"),
            Activity::Waiting(why) => format!("{line}, waiting: {why}"),
            Activity::Idle | Activity::Working => line,
        };
        Some((line, fraction))
    }
}

/// 50000 as "50,000".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Queues the work live entries are missing: enrichment for entries the configured text
/// model has not read, embeddings from the configured embedding model for entries
/// without one (all of them after a change of either model). Returns how many jobs were
/// queued.
pub fn backfill(writer: &Writer, user: UserId, settings: &AiSettings) -> db::Result<usize> {
    let (text_model, embed_model) = (settings.text_model.clone(), settings.embed_model.clone());
    writer.call(move |conn| {
        let tx = conn.transaction()?;
        let queued = jobs::queue_missing_enrichment(&tx, user, &text_model)?
            + jobs::queue_missing_embeddings(&tx, user, &embed_model)?;
        tx.commit()?;
        Ok(queued)
    })
}

/// Stop and pause switches shared between a runner's thread and its owner.
#[derive(Debug, Default)]
struct Control {
    stop: AtomicBool,
    paused: AtomicBool,
    /// Ask is answering a question: the model is its.
    asking: AtomicBool,
    rescan: AtomicBool,
}

impl Control {
    fn should_yield(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.held().is_some()
    }

    /// Why work is held back, if it is: the person paused it, or Ask has the model.
    fn held(&self) -> Option<Activity> {
        if self.paused.load(Ordering::Relaxed) {
            Some(Activity::Paused)
        } else if self.asking.load(Ordering::Relaxed) {
            Some(Activity::Answering)
        } else {
            None
        }
    }
}

/// Works the queue until it is empty. Reads through `reader`, writes through `writer`.
/// Returns early with the error when the AI is unavailable: the remaining jobs stay
/// pending for the next pass.
///
/// Tests only (a pass run to its end where a test waits for it); the app and `index --wait` run a [`JobRunner`].
#[doc(hidden)]
pub fn run_pending(
    client: &OllamaClient,
    reader: &Connection,
    writer: &Writer,
) -> Result<RunReport, AiError> {
    let control = Control::default();
    let mut pass = Pass::new(client, reader, writer, &control);
    pass.run(&mut |_, _| {})?;
    Ok(pass.report)
}

/// One pass over the queue, and what it has done so far.
struct Pass<'a> {
    client: &'a OllamaClient,
    reader: &'a Connection,
    writer: &'a Writer,
    control: &'a Control,
    report: RunReport,
    /// Jobs that failed (or went stale) in this pass: not taken again in it.
    tried: Vec<i64>,
    /// The entry the last step enriched, if it enriched one.
    enriched_entry: Option<EntryId>,
    /// Whether the periods that ended have been queued for reflection in this pass.
    periods_queued: bool,
    /// Reflections that failed (or went stale) in this pass: not taken again in it.
    tried_reflections: Vec<i64>,
}

impl<'a> Pass<'a> {
    fn new(
        client: &'a OllamaClient,
        reader: &'a Connection,
        writer: &'a Writer,
        control: &'a Control,
    ) -> Pass<'a> {
        Pass {
            client,
            reader,
            writer,
            control,
            report: RunReport::default(),
            tried: Vec::new(),
            enriched_entry: None,
            periods_queued: false,
            tried_reflections: Vec::new(),
        }
    }

    /// Embedding batches first, then one enrichment at a time, then one reflection at a
    /// time, until the queue is empty or the owner asks the runner to stop or pause.
    /// `progress` hears of every step, with the entry it enriched.
    fn run(&mut self, progress: &mut dyn FnMut(&RunReport, Option<EntryId>)) -> Result<(), AiError> {
        while !self.control.should_yield() {
            self.enriched_entry = None;
            let batch = jobs::next(self.reader, JobKind::Embed, EMBED_BATCH, &self.tried)?;
            if !batch.is_empty() {
                self.embed_batch(batch)?;
            } else if let Some(job) = jobs::next(self.reader, JobKind::Enrich, 1, &self.tried)?.pop() {
                self.enrich_one(&job)?;
            } else if let Some(due) = self.next_reflection()? {
                self.reflect_one(due)?;
            } else {
                return Ok(());
            }
            progress(&self.report, self.enriched_entry);
        }
        Ok(())
    }

    /// The entries of `batch` still live and with something written, each with its job;
    /// jobs of entries trashed or purged since, or holding nothing but white space (no
    /// model is asked to describe nothing), are cleared.
    fn live_entries(&mut self, batch: Vec<Job>) -> Result<Vec<(Job, Entry)>, AiError> {
        let mut live = Vec::with_capacity(batch.len());
        let mut gone = Vec::new();
        for job in batch {
            match entries::get(self.reader, job.user, job.entry_id) {
                Ok(entry) if !entry.is_deleted && !entry.is_blank() => live.push((job, entry)),
                Ok(_) | Err(DbError::EntryNotFound(_)) => gone.push(job.id),
                Err(e) => return Err(e.into()),
            }
        }
        if !gone.is_empty() {
            self.report.skipped += gone.len() as u32;
            self.writer.call(move |conn| {
                let tx = conn.transaction()?;
                for id in gone {
                    jobs::finish(&tx, id)?;
                }
                Ok(tx.commit()?)
            })?;
        }
        Ok(live)
    }

    fn embed_batch(&mut self, batch: Vec<Job>) -> Result<(), AiError> {
        let started = Instant::now();
        let live = self.live_entries(batch)?;
        if live.is_empty() {
            return Ok(());
        }
        let model = self.client.settings().embed_model.clone();
        let texts: Vec<String> = live.iter().map(|(_, e)| enrich::embedding_text(e)).collect();
        self.report.embed_calls += 1;
        match block_on(self.client.embed(&model, &texts)) {
            Ok(_) if self.stopped() => Ok(()),
            Ok(vectors) => {
                let results = live
                    .into_iter()
                    .zip(vectors)
                    .map(|((job, entry), vector)| Fresh {
                        job: job.id,
                        user: job.user,
                        entry: entry.id,
                        revision: entry.revision,
                        vector,
                    })
                    .collect();
                self.store_vectors(&model, results)?;
                timing::record(EMBED_BATCH_TIMING, started.elapsed());
                Ok(())
            }
            Err(e) if e.is_unavailable() => Err(e),
            // One text the model refused spoils the whole request: try them one by one, so
            // only that one spends an attempt.
            Err(_) if live.len() > 1 => {
                for (job, entry) in live {
                    self.embed_one(&model, job, entry)?;
                }
                Ok(())
            }
            Err(e) => {
                let (job, _) = live.into_iter().next().expect("one live entry");
                self.fail(Attempt::Job(job.id), &e)
            }
        }
    }

    fn embed_one(&mut self, model: &str, job: Job, entry: Entry) -> Result<(), AiError> {
        self.report.embed_calls += 1;
        match block_on(self.client.embed(model, &[enrich::embedding_text(&entry)])) {
            Ok(_) if self.stopped() => Ok(()),
            Ok(mut vectors) => {
                let result = Fresh {
                    job: job.id,
                    user: job.user,
                    entry: entry.id,
                    revision: entry.revision,
                    vector: vectors.pop().unwrap_or_default(),
                };
                self.store_vectors(model, vec![result])
            }
            Err(e) if e.is_unavailable() => Err(e),
            Err(e) => self.fail(Attempt::Job(job.id), &e),
        }
    }

    /// Writes the vectors of entries unchanged since they were read, in one transaction,
    /// and finishes their jobs; a changed entry's job stays queued for its new text.
    fn store_vectors(&mut self, model: &str, results: Vec<Fresh>) -> Result<(), AiError> {
        let model = model.to_owned();
        let (stored, stale) = self.writer.call(move |conn| {
            let tx = conn.transaction()?;
            let mut fresh: Vec<&Fresh> = Vec::with_capacity(results.len());
            let mut stale = Vec::new();
            for result in &results {
                match entries::live_state(&tx, result.user, result.entry)? {
                    Some(now) if now.revision == result.revision => fresh.push(result),
                    Some(_) => stale.push(result.job),
                    None => jobs::finish(&tx, result.job)?,
                }
            }
            let mut users: Vec<UserId> = fresh.iter().map(|r| r.user).collect();
            users.dedup();
            for user in users {
                let vectors: Vec<_> = fresh
                    .iter()
                    .filter(|r| r.user == user)
                    .map(|r| (r.entry, r.vector.as_slice()))
                    .collect();
                db::vectors::store_embeddings(&tx, user, &model, &vectors)?;
            }
            for result in &fresh {
                jobs::finish(&tx, result.job)?;
            }
            tx.commit()?;
            Ok((fresh.len() as u32, stale))
        })?;
        self.report.done += stored;
        self.report.embedded += stored;
        self.report.stale += stale.len() as u32;
        self.tried.extend(stale);
        Ok(())
    }

    fn enrich_one(&mut self, job: &Job) -> Result<(), AiError> {
        let (user, entry_id) = (job.user, job.entry_id);
        let Some((_, entry)) = self.live_entries(vec![job.clone()])?.pop() else {
            return Ok(());
        };
        let started = Instant::now();
        match block_on(enrich::enrich(self.client, &entry)) {
            Ok(_) if self.stopped() => Ok(()),
            Ok(enriched) => {
                self.report.model_calls += enriched.model_calls;
                let applied = self
                    .writer
                    .call(move |conn| enrich::apply(conn, user, entry_id, &enriched))?;
                if applied {
                    timing::record(ENRICH_TIMING, started.elapsed());
                    self.report.done += 1;
                    self.report.enriched += 1;
                    self.enriched_entry = Some(entry_id);
                } else {
                    self.report.stale += 1;
                    self.tried.push(job.id);
                }
                Ok(())
            }
            Err(e) if e.is_unavailable() => Err(e),
            Err(e) => self.fail(Attempt::Job(job.id), &e),
        }
    }

    /// The next reflection to write, once the weeks and months that ended before today
    /// are queued (the first time this pass asks).
    fn next_reflection(&mut self) -> Result<Option<Due>, AiError> {
        if !self.periods_queued {
            self.periods_queued = true;
            let today = crate::clock::now_here().date_naive();
            let queued = self
                .writer
                .call(move |conn| reflections::queue_ended(conn, db::DEFAULT_USER, today))?;
            if queued > 0 {
                tracing::info!(queued, "queued reflections on the weeks and months that ended");
            }
        }
        Ok(reflections::next(self.reader, &self.tried_reflections)?)
    }

    fn reflect_one(&mut self, due: Due) -> Result<(), AiError> {
        let started = Instant::now();
        let material = reflect::material(self.reader, &due)?;
        let id = due.id;
        if material.entries.is_empty() {
            // Its entries were trashed since: nothing to look back on.
            let wrote = self
                .writer
                .call(move |conn| reflections::write(conn, &due, &[], ""))?;
            if !wrote {
                self.tried_reflections.push(id);
            }
            return Ok(());
        }
        match block_on(reflect::reflect(self.client, &material)) {
            Ok(_) if self.stopped() => Ok(()),
            Ok(reflected) => {
                self.report.model_calls += reflected.model_calls;
                let wrote = self.writer.call(move |conn| {
                    reflections::write(conn, &due, &reflected.sentences, &reflected.text_model)
                })?;
                if wrote {
                    timing::record(REFLECT_TIMING, started.elapsed());
                    self.report.done += 1;
                    self.report.reflected += 1;
                } else {
                    self.report.stale += 1;
                    self.tried_reflections.push(id);
                }
                Ok(())
            }
            Err(e) if e.is_unavailable() => Err(e),
            Err(e) => self.fail(Attempt::Reflection(id), &e),
        }
    }

    /// True once the owner has stopped the runner: a result that arrives after that is
    /// not written (the owner may be long gone); its job stays queued for the next start.
    fn stopped(&self) -> bool {
        self.control.stop.load(Ordering::Relaxed)
    }

    /// Spends one attempt of a job or a reflection whose model call failed; it is not
    /// taken again in this pass.
    fn fail(&mut self, attempt: Attempt, error: &AiError) -> Result<(), AiError> {
        tracing::warn!(?attempt, %error, "AI work attempt failed");
        let reason = error.to_string();
        match attempt {
            Attempt::Job(id) => {
                self.writer
                    .call(move |conn| jobs::record_failure(conn, id, &reason))?;
                self.tried.push(id);
            }
            Attempt::Reflection(id) => {
                self.writer
                    .call(move |conn| reflections::record_failure(conn, id, &reason))?;
                self.tried_reflections.push(id);
            }
        }
        self.report.failed_attempts += 1;
        Ok(())
    }
}

/// What a failed model call was for.
#[derive(Debug, Clone, Copy)]
enum Attempt {
    Job(i64),
    Reflection(i64),
}

/// A vector made for one job, with the revision of the text it was made from.
struct Fresh {
    job: i64,
    user: UserId,
    entry: db::EntryId,
    revision: i64,
    vector: Vec<f32>,
}

/// Hears every [`QueueStatus`] the runner publishes (on the runner's thread).
pub type StatusSink = Box<dyn Fn(QueueStatus) + Send>;

/// The background thread that works the queue. Wake it after queueing a job; drop it to
/// stop it (it finishes the job in hand first, or leaves it queued after [`STOP_WAIT`]).
/// Work queued on the writer holds a [`Nudge`], never the runner.
pub struct JobRunner {
    nudge: Nudge,
    /// Hears the thread end (in a mutex only so the runner can be shared: it is `Sync`).
    finished: Mutex<mpsc::Receiver<()>>,
    thread: Option<JoinHandle<()>>,
}

impl JobRunner {
    /// Starts the runner with its own reader connection to `db_path`; results are
    /// written through `writer`. It first queues whatever work live entries are missing
    /// ([`backfill`]), and tells `status` how the queue stands after every step.
    pub fn spawn(
        client: OllamaClient,
        db_path: PathBuf,
        options: StorageOptions,
        writer: Arc<Writer>,
        status: StatusSink,
    ) -> db::Result<JobRunner> {
        let reader = db::open(&db_path, &options.for_background())?;
        let (wake, woken) = mpsc::channel();
        let (done, finished) = mpsc::channel();
        let control = Arc::new(Control {
            rescan: AtomicBool::new(true),
            ..Control::default()
        });
        let thread = {
            let control = Arc::clone(&control);
            std::thread::Builder::new()
                .name("mindsage-ai-jobs".into())
                .spawn(move || {
                    let runner = Runner {
                        client: &client,
                        reader: &reader,
                        writer: &writer,
                        control: &control,
                        status: &status,
                        backlog: Cell::new((0, 0, 0)),
                    };
                    runner.serve(&woken);
                    let _ = done.send(());
                })
                .expect("spawning a thread")
        };
        Ok(JobRunner {
            nudge: Nudge { wake, control },
            finished: Mutex::new(finished),
            thread: Some(thread),
        })
    }

    /// Asks the runner to look at the queue now (after a save, or "retry now").
    pub fn wake(&self) {
        self.nudge.wake();
    }

    /// What a job queued on the writer wakes the runner with.
    pub fn nudge(&self) -> Nudge {
        self.nudge.clone()
    }

    /// Pauses or resumes the work; a pause takes effect after the job in hand.
    pub fn set_paused(&self, paused: bool) {
        self.nudge.control.paused.store(paused, Ordering::Relaxed);
        self.wake();
    }

    /// Holds the work back while Ask answers (true), or lets it go on (false); the job
    /// in hand is finished first. Apart from the person's pause, which stays as it was.
    pub fn set_asking(&self, asking: bool) {
        self.nudge.control.asking.store(asking, Ordering::Relaxed);
        self.wake();
    }
}

/// Wakes a [`JobRunner`] without owning it: what a save queued on the writer holds. The
/// last owner of a runner waits for its thread, whose hold on the writer waits for the
/// writer's thread when it is the last; a runner dropped on the writer's thread (by a
/// save's job that outlived the app's reader) so waited for itself, both threads keeping
/// the journal open for ever, and a change of encryption found it "open in another
/// MindSage". A `Nudge` owns no thread, so it may be dropped anywhere.
#[derive(Clone)]
pub struct Nudge {
    wake: mpsc::Sender<()>,
    control: Arc<Control>,
}

impl Nudge {
    /// Asks the runner to look at the queue now; false when its thread has ended
    /// (stopped, or by a bug).
    pub fn wake(&self) -> bool {
        self.wake.send(()).is_ok()
    }

    /// Asks the runner to look for entries missing their work (after a bulk insert such
    /// as the demo journal, whose entries are not queued one by one).
    pub fn rescan(&self) -> bool {
        self.control.rescan.store(true, Ordering::Relaxed);
        self.wake()
    }
}

impl Drop for JobRunner {
    fn drop(&mut self) {
        self.nudge.control.stop.store(true, Ordering::Relaxed);
        self.wake();
        let Some(thread) = self.thread.take() else {
            return;
        };
        let finished = self.finished.get_mut().unwrap_or_else(|p| p.into_inner());
        match finished.recv_timeout(STOP_WAIT) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                let _ = thread.join();
            }
            // Still in a model call: leave it; its job stays queued for the next start.
            Err(RecvTimeoutError::Timeout) => {
                tracing::info!("the AI job in hand was left for the next start");
            }
        }
    }
}

/// The runner thread's state.
struct Runner<'a> {
    client: &'a OllamaClient,
    reader: &'a Connection,
    writer: &'a Writer,
    control: &'a Control,
    status: &'a StatusSink,
    /// Embeddings, enrichments and reflections written since the queue was last empty.
    backlog: Cell<(u64, u64, u64)>,
}

impl Runner<'_> {
    fn serve(&self, woken: &mpsc::Receiver<()>) {
        let mut outages = 0u32;
        while !self.control.stop.load(Ordering::Relaxed) {
            if self.control.rescan.swap(false, Ordering::Relaxed) {
                match backfill(self.writer, db::DEFAULT_USER, self.client.settings()) {
                    Ok(0) => {}
                    Ok(queued) => tracing::info!(queued, "queued the model's work for entries missing it"),
                    Err(error) => {
                        tracing::warn!(%error, "looking for entries missing the model's work failed")
                    }
                }
            }
            let pause = if let Some(held) = self.control.held() {
                self.publish(held);
                IDLE_POLL
            } else {
                self.publish(Activity::Working);
                match self.pass() {
                    Ok(()) => {
                        outages = 0;
                        self.publish(self.control.held().unwrap_or(Activity::Idle));
                        IDLE_POLL
                    }
                    Err(e) => {
                        if !e.is_unavailable() {
                            tracing::warn!(error = %e, "AI job queue pass failed");
                        }
                        self.publish(Activity::Waiting(e.to_string()));
                        outages += 1;
                        health::backoff(outages)
                    }
                }
            };
            match woken.recv_timeout(pause) {
                Ok(()) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn pass(&self) -> Result<(), AiError> {
        let mut pass = Pass::new(self.client, self.reader, self.writer, self.control);
        let mut seen = RunReport::default();
        pass.run(&mut |report, enriched_entry| {
            self.count_done(&seen, report);
            seen = report.clone();
            self.publish_step(Activity::Working, enriched_entry);
        })
    }

    /// Adds what the pass wrote since `before` to the backlog's progress.
    fn count_done(&self, before: &RunReport, now: &RunReport) {
        let (embedded, enriched, reflected) = self.backlog.get();
        self.backlog.set((
            embedded + u64::from(now.embedded - before.embedded),
            enriched + u64::from(now.enriched - before.enriched),
            reflected + u64::from(now.reflected - before.reflected),
        ));
    }

    fn publish(&self, activity: Activity) {
        self.publish_step(activity, None);
    }

    /// Sends the queue's status, after the step that enriched `enriched_entry` if one did.
    fn publish_step(&self, activity: Activity, enriched_entry: Option<EntryId>) {
        let counts = match jobs::counts(self.reader) {
            Ok(counts) => counts,
            Err(error) => return tracing::warn!(%error, "reading the AI queue's counts failed"),
        };
        if counts.pending() == 0 {
            self.backlog.set((0, 0, 0));
        }
        let (embedded, enriched, reflected) = self.backlog.get();
        (self.status)(QueueStatus {
            activity,
            counts,
            embedded,
            enriched,
            reflected,
            enriched_entry,
        });
    }
}
