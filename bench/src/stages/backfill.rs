//! The `backfill` stage: how fast the app's model queue makes a large journal
//! searchable by meaning, against what the server itself can do.
//!
//! A 5,000-entry demo journal (inserted in bulk, so no entry has its work yet, like an
//! import or a journal from before saves queued work) is embedded twice in the same run
//! on the configured Ollama: once by sending the entries' texts straight to the server
//! in the queue's own batch size, and once through the app's path (`backfill` queues
//! the work, the `JobRunner` thread works it through the writer). The server is the
//! limit, so the figure is the ratio of the two rates (`backfill.queue_vs_server`),
//! which a slower or faster machine leaves roughly where it is. The direct pass runs
//! before and after the queue, and its rate is the mean of the two, so a server that
//! warms up or slows down over the run is not charged to either side.
//!
//! Also recorded: the time from the runner's start until the newest 100 entries all
//! have a vector (`backfill.newest_100_searchable`), which is what a person who opens
//! an imported journal and searches at once waits for.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mindsage_core::ai::jobs::{self, EMBED_BATCH, JobRunner, QueueStatus};
use mindsage_core::ai::{OllamaClient, enrich};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use mindsage_core::demo::{self, DemoOptions};

use super::{Recorder, Stage, StageContext};
use crate::run::{Dataset, Measure, Scenario, Unit};

/// Entries in the journal backfilled.
const ENTRIES: usize = 5_000;
/// The newest entries whose searchability is timed.
const NEWEST: usize = 100;
/// Longest the queue may take before the stage gives up (a stuck server).
const QUEUE_LIMIT: Duration = Duration::from_secs(1_800);

pub struct Backfill;

impl Stage for Backfill {
    fn name(&self) -> &'static str {
        "backfill"
    }

    fn run(&self, _ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let (settings, client) = super::ollama("backfill")?;
        out.add_models(super::served_models(&client, &[&settings.embed_model])?);
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("backfill.db");
        let options = StorageOptions::default();
        let mut conn = db::open(&path, &options)?;
        demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(ENTRIES, 42))?;
        out.datasets.push(Dataset {
            stage: "backfill".into(),
            entries: ENTRIES,
            seed: 42,
            photos: 0,
            schema_version: db::migrate::latest_version(),
        });
        let texts = newest_first_texts(&conn)?;
        // Both models loaded before anything is timed.
        client.embed_blocking(&settings.embed_model, &texts[..EMBED_BATCH.min(texts.len())])?;

        let before = direct_rate(&client, &settings.embed_model, &texts)?;
        let (queue_rate, newest) = queue_rate(&client, &path, &options, &conn)?;
        let after = direct_rate(&client, &settings.embed_model, &texts)?;
        let server_rate = (before + after) / 2.0;
        let batches = format!("{} texts, {EMBED_BATCH} a request", texts.len());
        out.push(value(
            "backfill.server_texts_per_second",
            server_rate,
            format!("{batches}, sent straight to the server; mean of a pass before and after the queue's ({before:.1} and {after:.1})"),
        ));
        out.push(value(
            "backfill.queue_texts_per_second",
            queue_rate,
            format!("{batches}, through backfill, the job runner thread and the writer"),
        ));
        out.push(value(
            "backfill.queue_vs_server",
            queue_rate / server_rate,
            "the queue's rate over the server's own in the same run".into(),
        ));
        out.push(Scenario::new(
            "backfill",
            Some(ENTRIES),
            "backfill.newest_100_searchable",
            super::timing_measure(&[newest]),
            Some(format!(
                "from the runner's start until the newest {NEWEST} entries all have a vector"
            )),
        ));
        Ok(())
    }
}

/// Every entry's embedding text, newest first (the order the queue works in).
fn newest_first_texts(conn: &rusqlite::Connection) -> anyhow::Result<Vec<String>> {
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM journal_entries ORDER BY created_at DESC, id DESC")?
        .query_map([], |row| row.get(0))?
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

/// The app's path: backfill, then the runner until every embedding is stored. Returns
/// the texts per second and the time until the newest [`NEWEST`] had vectors.
fn queue_rate(
    client: &OllamaClient,
    path: &std::path::Path,
    options: &StorageOptions,
    conn: &rusqlite::Connection,
) -> anyhow::Result<(f64, Duration)> {
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
    let mut newest = None;
    loop {
        let status = statuses
            .recv_timeout(QUEUE_LIMIT.saturating_sub(started.elapsed()))
            .context("the queue did not finish in time")?;
        if let jobs::Activity::Waiting(reason) = &status.activity {
            bail!("the queue waited: {reason}");
        }
        if newest.is_none() && status.embedded >= NEWEST as u64 && newest_have_vectors(conn)? {
            newest = Some(started.elapsed());
        }
        if status.counts.embed_pending == 0 && status.embedded > 0 {
            break;
        }
    }
    let elapsed = started.elapsed();
    // The enrichment that follows is not this stage's business.
    drop(runner);
    let newest = match newest {
        Some(newest) => newest,
        None if newest_have_vectors(conn)? => elapsed,
        None => bail!("the queue finished without the newest entries' vectors"),
    };
    Ok((ENTRIES as f64 / elapsed.as_secs_f64(), newest))
}

/// Whether the newest [`NEWEST`] entries all have a vector.
fn newest_have_vectors(conn: &rusqlite::Connection) -> anyhow::Result<bool> {
    let missing: i64 = conn.query_row(
        "SELECT count(*) FROM (SELECT id FROM journal_entries ORDER BY created_at DESC, id DESC LIMIT ?1) AS e \
         WHERE NOT EXISTS (SELECT 1 FROM vector_changes AS v WHERE v.entry_id = e.id)",
        [NEWEST as i64],
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
