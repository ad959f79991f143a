//! The `ai_jobs` table: the model's work, queued with the saves that make it.
//!
//! Storage owns the queue so that a save can add its jobs in its own transaction
//! ([`enqueue`] inside `entries::create`/`update`): a crash can never keep an entry and
//! lose its job. The runner that works the queue (`ai::runner`) only reads and clears it
//! through these functions.
//!
//! Two kinds: [`JobKind::Embed`] (the entry's vector, cheap and batched, so meaning search
//! covers an entry within seconds) and [`JobKind::Enrich`] (title, mood, summary, mood
//! tags and a vector of the enriched text: one generation call each). Embeddings are
//! taken first and the newest entries first ([`next`]), which is what a backfill of
//! thousands of entries needs: the entries a person looks for first become searchable
//! first, and generation, the slow part, comes last.

use rusqlite::{Connection, params};

use super::queries::{
    AI_BACKFILL_EMBED, AI_BACKFILL_EMBED_ALL, AI_BACKFILL_ENRICH, AI_JOB_CLEAR_ENTRY, AI_JOB_COUNTS,
    AI_JOB_DONE, AI_JOB_FAILED, AI_JOB_NEXT, AI_JOB_QUEUE, AI_JOB_QUEUE_RANGE,
};
use super::{EntryId, Result, UserId, vectors};
use crate::{clock, timing};

/// Attempts a job gets when the model answers but its output is unusable.
pub const MAX_JOB_ATTEMPTS: i64 = 3;

/// What a job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    /// Title, mood, summary, mood tags, and the vector of the enriched entry.
    Enrich,
    /// The entry's vector only.
    Embed,
}

impl JobKind {
    /// The name stored in `ai_jobs.kind` (its CHECK constraint lists the same two).
    pub fn as_str(self) -> &'static str {
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

/// Queues `kind` for an entry; queuing it again resets it to pending (a new save of the
/// entry deserves a fresh set of attempts). Call it in the same transaction as the save.
pub fn enqueue(conn: &Connection, user: UserId, entry: EntryId, kind: JobKind) -> Result<()> {
    conn.prepare_cached(AI_JOB_QUEUE.sql)?
        .execute(params![user, entry, kind.as_str(), clock::now_utc()])?;
    Ok(())
}

/// Queues both kinds: what every save of new text needs.
pub fn enqueue_all(conn: &Connection, user: UserId, entry: EntryId) -> Result<()> {
    enqueue(conn, user, entry, JobKind::Embed)?;
    enqueue(conn, user, entry, JobKind::Enrich)
}

/// Queues the model's work for the live entries with ids `first..=last`, in one
/// statement: for a writer that has just written them all in the caller's transaction
/// (an import's batch, whose ids follow one another because the transaction holds the
/// write lock). Entries that carry a summary get no enrichment. Returns the jobs queued.
pub fn enqueue_range(conn: &Connection, user: UserId, first: EntryId, last: EntryId) -> Result<usize> {
    Ok(conn
        .prepare_cached(AI_JOB_QUEUE_RANGE.sql)?
        .execute(params![user, first, last, clock::now_utc()])?)
}

/// Up to `limit` pending jobs of `kind`, newest entry first, leaving out `skip` (jobs
/// that already failed in this pass of the runner).
pub fn next(conn: &Connection, kind: JobKind, limit: usize, skip: &[i64]) -> Result<Vec<Job>> {
    timing::timed(AI_JOB_NEXT.name, || {
        let mut stmt = conn.prepare_cached(AI_JOB_NEXT.sql)?;
        let wanted = (limit + skip.len()) as i64;
        let jobs = stmt
            .query_map(params![kind.as_str(), wanted], |row| {
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
            .filter(|(id, ..)| !skip.contains(id))
            .filter_map(|(id, user, entry_id, kind, attempts)| {
                Some(Job {
                    id,
                    user,
                    entry_id,
                    kind: JobKind::parse(&kind)?,
                    attempts,
                })
            })
            .take(limit)
            .collect())
    })
}

/// How much work is queued.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct QueueCounts {
    pub embed_pending: u64,
    pub enrich_pending: u64,
    /// Jobs that used up their attempts; they keep the reason in `last_error`.
    pub failed: u64,
    /// Reflections to write (`db::reflections`), done after the entries' own work.
    pub reflect_pending: u64,
}

impl QueueCounts {
    pub fn pending(&self) -> u64 {
        self.embed_pending + self.enrich_pending + self.reflect_pending
    }
}

/// Pending and failed job counts, and reflections to write (four index range counts,
/// no table scan).
pub fn counts(conn: &Connection) -> Result<QueueCounts> {
    timing::timed(AI_JOB_COUNTS.name, || {
        let count = |row: &rusqlite::Row<'_>, i| row.get::<_, i64>(i).map(|n| n.max(0) as u64);
        Ok(conn.prepare_cached(AI_JOB_COUNTS.sql)?.query_row([], |row| {
            Ok(QueueCounts {
                embed_pending: count(row, 0)?,
                enrich_pending: count(row, 1)?,
                failed: count(row, 2)?,
                reflect_pending: count(row, 3)?,
            })
        })?)
    })
}

/// A job is done (or has nothing left to do).
pub fn finish(conn: &Connection, job_id: i64) -> Result<()> {
    conn.prepare_cached(AI_JOB_DONE.sql)?.execute(params![job_id])?;
    Ok(())
}

/// Every queued job of an entry is done: enrichment wrote the vector as well.
pub fn finish_entry(conn: &Connection, entry: EntryId) -> Result<()> {
    conn.prepare_cached(AI_JOB_CLEAR_ENTRY.sql)?
        .execute(params![entry])?;
    Ok(())
}

/// Spends one attempt of a job whose output was unusable; marks it failed when none are
/// left. `reason` is an error message, which never contains entry text.
pub fn record_failure(conn: &Connection, job_id: i64, reason: &str) -> Result<()> {
    conn.prepare_cached(AI_JOB_FAILED.sql)?
        .execute(params![job_id, reason, MAX_JOB_ATTEMPTS])?;
    Ok(())
}

/// Queues enrichment for every live entry that `text_model` has not read and that has
/// no enrichment job: entries from before saves queued their work, seeded and imported
/// ones, entries from before the journal remembered people and places (migration 20),
/// and every entry after a change of text model, whose memory is rebuilt. Returns how
/// many were queued. It walks a narrow partial index of live entries, so a journal whose
/// work is done pays little at open.
pub fn queue_missing_enrichment(conn: &Connection, user: UserId, text_model: &str) -> Result<usize> {
    timing::timed(AI_BACKFILL_ENRICH.name, || {
        Ok(conn.prepare_cached(AI_BACKFILL_ENRICH.sql)?.execute(params![
            user,
            clock::now_utc(),
            text_model
        ])?)
    })
}

/// Queues an embedding job for every live entry that has no vector from `model` and no
/// embedding job yet: the work a journal from before saves queued it, seeded or
/// imported entries, or a new embedding model (whose set is built beside the active one
/// and replaces it once complete) still needs. Resumes wherever an earlier run stopped.
/// Returns how many jobs were queued.
pub fn queue_missing_embeddings(conn: &Connection, user: UserId, model: &str) -> Result<usize> {
    let Some(set) = vectors::model_named(conn, user, model)? else {
        // No vector of this model yet: every live entry needs one.
        return queue_all_embeddings(conn, user);
    };
    timing::timed(AI_BACKFILL_EMBED.name, || {
        Ok(conn
            .prepare_cached(&AI_BACKFILL_EMBED.on_table(&set.table()))?
            .execute(params![user, clock::now_utc()])?)
    })
}

/// Queues an embedding for every live entry that has no embedding job: for a model that
/// has no vectors in this journal yet (a new journal's first model, or a model change,
/// which re-indexes every entry).
fn queue_all_embeddings(conn: &Connection, user: UserId) -> Result<usize> {
    timing::timed(AI_BACKFILL_EMBED_ALL.name, || {
        Ok(conn
            .prepare_cached(AI_BACKFILL_EMBED_ALL.sql)?
            .execute(params![user, clock::now_utc()])?)
    })
}
