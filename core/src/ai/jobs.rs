//! The `ai_jobs` queue: model work that survives restarts and outages.
//!
//! Saving an entry queues an `enrich` job in the same write (see [`enqueue`]); the
//! [`JobRunner`] thread works the queue off the UI thread. When Ollama is down or a
//! model is not pulled, the job stays `pending` (its attempts are not spent) and the
//! runner probes again with a growing pause until the model is back, then resumes by
//! itself. Output the model keeps getting wrong spends an attempt; after
//! [`MAX_JOB_ATTEMPTS`] the job is marked `failed` with the reason, never entry text.
//!
//! Kinds: `enrich` = title, mood, summary, tags and embedding (one generation + one
//! embedding call); `embed` = the embedding only (restored entries, a new embedding
//! model).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::{Connection, params};

use super::{AiError, OllamaClient, block_on, enrich, health};
use crate::db::entries;
use crate::db::queries::AI_JOB_QUEUE;
use crate::db::writer::Writer;
use crate::db::{self, DbError, EntryId, StorageOptions, UserId};
use crate::{clock, timing};

/// Attempts a job gets when the model answers but its output is unusable.
pub const MAX_JOB_ATTEMPTS: i64 = 3;

/// How often an idle runner looks at the queue without being woken (jobs queued by
/// another process, such as the CLI).
const IDLE_POLL: Duration = Duration::from_secs(30);

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Enrich,
    Embed,
}

impl JobKind {
    fn as_str(self) -> &'static str {
        match self {
            JobKind::Enrich => "enrich",
            JobKind::Embed => "embed",
        }
    }

    fn parse(text: &str) -> Option<JobKind> {
        match text {
            "enrich" => Some(JobKind::Enrich),
            "embed" => Some(JobKind::Embed),
            _ => None,
        }
    }
}

/// A queued job.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: i64,
    pub user: UserId,
    pub entry_id: EntryId,
    pub kind: JobKind,
    pub attempts: i64,
}

/// Queues `kind` for an entry; queuing it again resets it to pending. Call it in the
/// same transaction as the save, so no saved entry is ever missing its job.
pub fn enqueue(conn: &Connection, user: UserId, entry: EntryId, kind: JobKind) -> db::Result<()> {
    conn.prepare_cached(AI_JOB_QUEUE.sql)?
        .execute(params![user, entry, kind.as_str(), clock::now_utc()])?;
    Ok(())
}

/// Up to `limit` pending jobs, oldest first.
pub fn pending(conn: &Connection, limit: usize) -> db::Result<Vec<Job>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, user_id, entry_id, kind, attempts FROM ai_jobs WHERE state = 'pending' ORDER BY id LIMIT ?1",
    )?;
    let jobs = stmt
        .query_map(params![limit as i64], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get::<_, String>(3)?,
                row.get(4)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<(i64, i64, i64, String, i64)>>>()?;
    Ok(jobs
        .into_iter()
        .filter_map(|(id, user, entry_id, kind, attempts)| {
            Some(Job {
                id,
                user,
                entry_id,
                kind: JobKind::parse(&kind)?,
                attempts,
            })
        })
        .collect())
}

/// Counts of pending and failed jobs, for a status line.
pub fn counts(conn: &Connection) -> db::Result<(u64, u64)> {
    Ok(conn.query_row(
        "SELECT count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'failed') FROM ai_jobs",
        [],
        |row| Ok((row.get::<_, i64>(0)?.max(0) as u64, row.get::<_, i64>(1)?.max(0) as u64)),
    )?)
}

/// Spends one attempt of a job whose output was unusable; marks it failed when none are
/// left. `reason` is an error message, which never contains entry text.
fn record_failure(conn: &Connection, job_id: i64, reason: &str) -> db::Result<()> {
    conn.execute(
        "UPDATE ai_jobs SET attempts = attempts + 1, last_error = ?2, \
         state = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE 'pending' END WHERE id = ?1",
        params![job_id, reason, MAX_JOB_ATTEMPTS],
    )?;
    Ok(())
}

/// What one pass over the queue did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RunReport {
    pub done: u32,
    pub failed_attempts: u32,
    pub skipped: u32,
    /// Generation calls made (the bench checks this is one per enriched entry).
    pub model_calls: u32,
}

/// Works the queue until it is empty. Reads through `reader`, writes through `writer`.
/// Returns early with the error when the AI is unavailable: the remaining jobs stay
/// pending for the next pass.
pub fn run_pending(
    client: &OllamaClient,
    reader: &Connection,
    writer: &Writer,
) -> Result<RunReport, AiError> {
    let mut report = RunReport::default();
    // Jobs that failed in this pass are not retried in it.
    let mut tried = std::collections::HashSet::new();
    loop {
        let batch: Vec<Job> = pending(reader, 16)?
            .into_iter()
            .filter(|j| !tried.contains(&j.id))
            .collect();
        if batch.is_empty() {
            return Ok(report);
        }
        for job in batch {
            tried.insert(job.id);
            run_one(client, reader, writer, &job, &mut report)?;
        }
    }
}

fn run_one(
    client: &OllamaClient,
    reader: &Connection,
    writer: &Writer,
    job: &Job,
    report: &mut RunReport,
) -> Result<(), AiError> {
    let (user, entry_id, job_id) = (job.user, job.entry_id, job.id);
    let entry = match entries::get(reader, user, entry_id) {
        Ok(entry) if !entry.is_deleted => entry,
        // Trashed or purged since it was queued: nothing to do.
        Ok(_) | Err(DbError::EntryNotFound(_)) => {
            writer
                .call(move |conn| Ok(conn.execute("DELETE FROM ai_jobs WHERE id = ?1", params![job_id])?))?;
            report.skipped += 1;
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let started = Instant::now();
    let result = match job.kind {
        JobKind::Enrich => block_on(enrich::enrich(client, &entry)).map(|enriched| {
            report.model_calls += enriched.model_calls;
            writer.call(move |conn| enrich::apply(conn, user, entry_id, &enriched))
        }),
        JobKind::Embed => {
            let model = client.settings().embed_model.clone();
            block_on(client.embed(&model, &[enrich::embedding_text(&entry)])).map(|mut vectors| {
                let vector = vectors.pop().unwrap_or_default();
                writer.call(move |conn| {
                    let tx = conn.transaction()?;
                    crate::search::vectors::store_embedding(&tx, user, entry_id, &model, &vector)?;
                    tx.execute("DELETE FROM ai_jobs WHERE id = ?1", params![job_id])?;
                    Ok(tx.commit()?)
                })
            })
        }
    };
    match result {
        Ok(written) => {
            written?;
            timing::record(&format!("ai.job.{}", job.kind.as_str()), started.elapsed());
            report.done += 1;
            Ok(())
        }
        Err(e) if e.is_unavailable() => Err(e),
        Err(e) => {
            tracing::warn!(job = job_id, entry = entry_id, error = %e, "AI job attempt failed");
            let reason = e.to_string();
            writer.call(move |conn| record_failure(conn, job_id, &reason))?;
            report.failed_attempts += 1;
            Ok(())
        }
    }
}

/// What the runner is doing, for the UI's status line.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum RunnerStatus {
    Idle,
    Working,
    /// The AI is unavailable; the message says what to do. Work resumes by itself.
    Waiting(String),
}

/// The background thread that works the queue. Wake it after queueing a job; drop it to
/// stop it (it finishes the job in hand first).
pub struct JobRunner {
    wake: mpsc::Sender<()>,
    stop: Arc<AtomicBool>,
    status: Arc<Mutex<RunnerStatus>>,
    thread: Option<JoinHandle<()>>,
}

impl JobRunner {
    /// Starts the runner with its own reader connection to `db_path`; results are
    /// written through `writer`.
    pub fn spawn(
        client: OllamaClient,
        db_path: PathBuf,
        options: StorageOptions,
        writer: Arc<Writer>,
    ) -> db::Result<JobRunner> {
        let reader = db::open(&db_path, &options)?;
        let (wake, woken) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let status = Arc::new(Mutex::new(RunnerStatus::Idle));
        let thread = {
            let (stop, status) = (stop.clone(), status.clone());
            std::thread::Builder::new()
                .name("mindsage-ai-jobs".into())
                .spawn(move || runner_loop(&client, &reader, &writer, &woken, &stop, &status))
                .expect("spawning a thread")
        };
        Ok(JobRunner {
            wake,
            stop,
            status,
            thread: Some(thread),
        })
    }

    /// Asks the runner to look at the queue now (after a save, or "retry now").
    pub fn wake(&self) {
        let _ = self.wake.send(());
    }

    pub fn status(&self) -> RunnerStatus {
        self.status.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the runner's thread is still there: it ends only when dropped, or by a bug.
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for JobRunner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.wake();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn runner_loop(
    client: &OllamaClient,
    reader: &Connection,
    writer: &Writer,
    woken: &mpsc::Receiver<()>,
    stop: &AtomicBool,
    status: &Mutex<RunnerStatus>,
) {
    let set = |s: RunnerStatus| *status.lock().unwrap_or_else(|p| p.into_inner()) = s;
    let mut outages = 0u32;
    while !stop.load(Ordering::Relaxed) {
        set(RunnerStatus::Working);
        let pause = match run_pending(client, reader, writer) {
            Ok(_) => {
                outages = 0;
                set(RunnerStatus::Idle);
                IDLE_POLL
            }
            Err(e) if e.is_unavailable() => {
                set(RunnerStatus::Waiting(e.to_string()));
                outages += 1;
                health::backoff(outages)
            }
            Err(e) => {
                tracing::warn!(error = %e, "AI job queue pass failed");
                set(RunnerStatus::Waiting(e.to_string()));
                outages += 1;
                health::backoff(outages)
            }
        };
        match woken.recv_timeout(pause) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
