//! The `backfill` stage: how fast the app's model queue makes a large journal
//! searchable by meaning, against what the server itself can do.
//!
//! A 5,000-entry demo journal (the `db` stage's cached one: inserted in bulk, so no entry
//! has its work yet, like an import or a journal from before saves queued work) is
//! backfilled through the app's path (`backfill` queues the work, the `JobRunner` thread
//! works it through the writer, newest first) until its newest [`QUEUED`] entries have
//! their vectors, and the same texts are sent straight to the server in the queue's own
//! batch size, half in a pass before the queue and half after, so a server that warms
//! up or slows down over the stage is charged to both sides alike. The server is the
//! limit, so the figure is the ratio of the two rates (`backfill.queue_vs_server`),
//! which a slower or faster machine leaves roughly where it is. The queue works at the
//! same rate batch after batch, so [`QUEUED`] of the 5,000 give the ratio the whole
//! backfill gives in a tenth of the time (runs before `full-dec05` embedded all
//! 5,000 three times, most of an hour here).
//!
//! Also recorded: the time from the runner's start until the newest 100 entries all
//! have a vector (`backfill.newest_100_searchable`), which is what a person who opens
//! an imported journal and searches at once waits for; and the model calls the whole
//! backfill costs per entry (`backfill.model_calls_per_entry`): enrichment's one call
//! per entry, which also finds the people and places, plus one reflection per week and
//! month with entries, counted from the reflections the journal queues.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mindsage_core::ai::runner::{self, EMBED_BATCH, JobRunner, QueueStatus};
use mindsage_core::ai::{OllamaClient, enrich};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries, reflections};

use super::{Recorder, Stage, StageContext};
use crate::busy::{self, Load};
use crate::run::{Dataset, Measure, Scenario, Unit};
use crate::stats::Ran;

/// Entries in the journal backfilled.
const ENTRIES: usize = 5_000;
/// The newest entries whose searchability is timed.
const NEWEST: usize = 100;
/// The newest entries the queue is timed over: twelve of its batches.
const QUEUED: usize = 12 * EMBED_BATCH;
/// Longest the queue may take before the stage gives up (a stuck server).
const QUEUE_LIMIT: Duration = Duration::from_secs(1_800);

pub struct Backfill;

impl Stage for Backfill {
    fn name(&self) -> &'static str {
        "backfill"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let (settings, client) = super::ollama("backfill")?;
        out.add_models(super::served_models(&client, &[&settings.embed_model])?);
        let cached = super::db::cached_journal(ENTRIES)?;
        let options = StorageOptions::default();
        // The cached journal is never written to: its texts are read from a copy.
        let dir = tempfile::tempdir()?;
        let copy = |name: &str| -> anyhow::Result<std::path::PathBuf> {
            let path = dir.path().join(name);
            std::fs::copy(&cached, &path).with_context(|| format!("copying {}", cached.display()))?;
            Ok(path)
        };
        let conn = db::open(&copy("texts.db")?, &options)?;
        let texts = newest_first_texts(&conn, QUEUED)?;
        let photos: i64 = conn.query_row("SELECT count(*) FROM media", [], |r| r.get(0))?;
        let periods = reflections::queue_ended(&conn, DEFAULT_USER, chrono::Local::now().date_naive())?;
        drop(conn);
        out.datasets.push(Dataset {
            stage: "backfill".into(),
            entries: ENTRIES,
            seed: super::db::SEED,
            photos: photos as usize,
            schema_version: db::migrate::latest_version(),
        });
        // The model loaded before anything is timed.
        client.embed_blocking(&settings.embed_model, &texts[..EMBED_BATCH.min(texts.len())])?;

        let remeasure = ctx.sampling.remeasure;
        let (first_half, second_half) = texts.split_at(texts.len() / 2);
        let (before, before_load, _) = busy::quietest(remeasure, || {
            direct_rate(&client, &settings.embed_model, first_half)
        })?;
        let mut attempt = 0;
        let (queue, queue_load, retry) = busy::quietest(remeasure, || {
            // Each attempt on a fresh copy: the first one's vectors are stored.
            attempt += 1;
            queue_rate(&client, &copy(&format!("backfill-{attempt}.db"))?, &options)
        })?;
        let (after, after_load, _) = busy::quietest(remeasure, || {
            direct_rate(&client, &settings.embed_model, second_half)
        })?;
        let (queue_rate, newest) = (queue.rate, queue.newest);
        let server_rate = (before + after) / 2.0;
        let server_load = Load::combined(&[before_load, after_load]).unwrap_or(before_load);
        let batches = format!("the newest {QUEUED} entries' texts, {EMBED_BATCH} a request");
        // Every figure here depends on the machine's speed.
        let with = |s: Scenario, load: Load, retry| Scenario {
            ran: Some(Ran {
                timed: true,
                ..Ran::measured(load, retry)
            }),
            ..s
        };
        out.push(with(
            value(
                "backfill.server_texts_per_second",
                server_rate,
                format!(
                    "{batches}, sent straight to the server; mean of a pass over the first half \
                     before the queue's and one over the second half after it ({before:.1} and {after:.1})"
                ),
            ),
            server_load,
            None,
        ));
        out.push(with(
            value(
                "backfill.queue_texts_per_second",
                queue_rate,
                format!(
                    "{batches}, through backfill of all {ENTRIES}, the job runner thread and the \
                     writer, from the runner's start until they had their vectors: the first \
                     batch's after {:.1} s (the queue's start-up in it), then {:.1} s a batch",
                    queue.first_batch.as_secs_f64(),
                    queue.per_batch.as_secs_f64()
                ),
            ),
            queue_load,
            retry,
        ));
        out.push(with(
            value(
                "backfill.queue_vs_server",
                queue_rate / server_rate,
                "the queue's rate over the server's own in the same run".into(),
            ),
            Load::combined(&[server_load, queue_load]).unwrap_or(queue_load),
            retry,
        ));
        out.push(with(
            Scenario::new(
                "backfill",
                Some(ENTRIES),
                "backfill.newest_100_searchable",
                super::timing_measure(&[newest]),
                Some(format!(
                    "from the runner's start until the newest {NEWEST} entries all have a vector"
                )),
            ),
            queue_load,
            retry,
        ));
        out.push(Scenario::new(
            "backfill",
            Some(ENTRIES),
            "backfill.model_calls_per_entry",
            Measure::Value {
                value: 1.0 + periods as f64 / ENTRIES as f64,
                unit: Unit::Count,
            },
            Some(format!(
                "enrichment's one generation call per entry (people, places and activities ride \
                 on it) and one per reflection: {periods} weeks and months with entries for \
                 {ENTRIES} entries (a call more only when the model's reply is invalid)"
            )),
        ));
        Ok(())
    }
}

/// The newest `n` entries' embedding texts, newest first (the order the queue works in).
fn newest_first_texts(conn: &rusqlite::Connection, n: usize) -> anyhow::Result<Vec<String>> {
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM journal_entries ORDER BY created_at DESC, id DESC LIMIT ?1")?
        .query_map([n as i64], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    ids.iter()
        .map(|id| Ok(enrich::embedding_text(&entries::get(conn, DEFAULT_USER, *id)?)))
        .collect()
}

/// Texts per second sent straight to the server in the queue's batch size.
fn direct_rate(client: &OllamaClient, model: &str, texts: &[String]) -> anyhow::Result<f64> {
    let started = Instant::now();
    for batch in texts.chunks(EMBED_BATCH) {
        client.embed_blocking(model, batch)?;
    }
    Ok(texts.len() as f64 / started.elapsed().as_secs_f64())
}

/// What the queue did.
struct Queue {
    /// Texts per second, from the runner's start.
    rate: f64,
    /// Until the newest [`NEWEST`] had vectors.
    newest: Duration,
    /// Until the first batch's vectors were stored: the queue's start-up (queueing the
    /// backfill's jobs) is in it, so the note shows it against the batches after it.
    first_batch: Duration,
    /// The mean time of each batch after the first.
    per_batch: Duration,
}

/// The app's path on the journal at `path`: backfill, then the runner until the newest
/// [`QUEUED`] entries have their vectors.
fn queue_rate(
    client: &OllamaClient,
    path: &std::path::Path,
    options: &StorageOptions,
) -> anyhow::Result<Queue> {
    let conn = db::open(path, options)?;
    let writer = Arc::new(Writer::spawn(path, options)?);
    let (tx, statuses) = mpsc::channel::<QueueStatus>();
    let started = Instant::now();
    let runner = JobRunner::spawn(
        client.clone(),
        path.to_path_buf(),
        options.clone(),
        Arc::clone(&writer),
        Box::new(move |status| drop(tx.send(status))),
    )?;
    let (mut newest, mut first_batch) = (None, None);
    let embedded = loop {
        let status = statuses
            .recv_timeout(QUEUE_LIMIT.saturating_sub(started.elapsed()))
            .context("the queue did not finish in time")?;
        if let runner::Activity::Waiting(reason) = &status.activity {
            bail!("the queue waited: {reason}");
        }
        if first_batch.is_none() && status.embedded > 0 {
            first_batch = Some((started.elapsed(), status.embedded));
        }
        if newest.is_none() && status.embedded >= NEWEST as u64 && have_vectors(&conn, NEWEST)? {
            newest = Some(started.elapsed());
        }
        if status.embedded >= QUEUED as u64 || (status.counts.embed_pending == 0 && status.embedded > 0) {
            break status.embedded;
        }
    };
    let elapsed = started.elapsed();
    // The rest of the backfill, and the enrichment after it, are not this figure's.
    drop(runner);
    anyhow::ensure!(
        have_vectors(&conn, QUEUED.min(ENTRIES))?,
        "the queue reported {embedded} embeddings without the newest {QUEUED} entries' vectors"
    );
    let newest = match newest {
        Some(newest) => newest,
        None if have_vectors(&conn, NEWEST)? => elapsed,
        None => bail!("the queue finished without the newest entries' vectors"),
    };
    let (first_batch, first_count) = first_batch.unwrap_or((elapsed, embedded));
    let later_batches = (embedded.saturating_sub(first_count) as f64 / EMBED_BATCH as f64).max(1.0);
    Ok(Queue {
        rate: embedded as f64 / elapsed.as_secs_f64(),
        newest,
        first_batch,
        per_batch: (elapsed - first_batch).div_f64(later_batches),
    })
}

/// Whether the newest `n` entries all have a vector.
fn have_vectors(conn: &rusqlite::Connection, n: usize) -> anyhow::Result<bool> {
    let missing: i64 = conn.query_row(
        "SELECT count(*) FROM (SELECT id FROM journal_entries ORDER BY created_at DESC, id DESC LIMIT ?1) AS e \
         WHERE NOT EXISTS (SELECT 1 FROM vector_changes AS v WHERE v.entry_id = e.id)",
        [n as i64],
        |row| row.get(0),
    )?;
    Ok(missing == 0)
}

fn value(name: &str, value: f64, note: String) -> Scenario {
    Scenario::new(
        "backfill",
        Some(ENTRIES),
        name,
        Measure::Value {
            value,
            unit: Unit::Score,
        },
        Some(note),
    )
}
