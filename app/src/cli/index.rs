//! `mindsage index`: the model's queue from the command line. It queues the work entries
//! are missing (as the app does when it opens the journal) and says what is left;
//! `--wait` works the queue in this process, with a progress bar, until it is empty.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use mindsage_core::ai::runner::{self, Activity, JobRunner, QueueStatus};
use mindsage_core::ai::{AiSettings, OllamaClient};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};

/// How often the progress bar redraws while no status arrives (its rate and ETA move).
const TICK: Duration = Duration::from_millis(250);

/// What `--json` prints.
#[derive(serde::Serialize)]
struct Report {
    /// Jobs this run found missing and queued.
    queued: usize,
    counts: db::jobs::QueueCounts,
}

pub fn run(
    path: &Path,
    options: &StorageOptions,
    settings: &AiSettings,
    wait: bool,
    json: bool,
) -> Result<()> {
    let writer = Arc::new(Writer::spawn(path, options)?);
    let queued = runner::backfill(&writer, DEFAULT_USER, settings)?;
    if wait {
        work(path, options, settings, Arc::clone(&writer), json)?;
    }
    let counts = db::jobs::counts(&db::open(path, options)?)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&Report { queued, counts })?);
    } else if !wait || counts.failed > 0 {
        println!(
            "{} to index for search, {} to describe, {} weeks and months to look back on, {} failed \
             ({queued} newly queued).",
            counts.embed_pending, counts.enrich_pending, counts.reflect_pending, counts.failed
        );
        if !wait && counts.pending() > 0 {
            println!("The app works these in the background; `mindsage index --wait` does them now.");
        }
    }
    Ok(())
}

/// Works the queue until it is empty, drawing the runner's progress.
fn work(
    path: &Path,
    options: &StorageOptions,
    settings: &AiSettings,
    writer: Arc<Writer>,
    json: bool,
) -> Result<()> {
    let (tx, statuses) = mpsc::channel::<QueueStatus>();
    let runner = JobRunner::spawn(
        OllamaClient::new(settings)?,
        path.to_path_buf(),
        options.clone(),
        writer,
        Box::new(move |status| drop(tx.send(status))),
    )?;
    let bar = if json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:32} [{bar:30}] {pos}/{len} {per_sec} ETA {eta}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let mut phase = "";
    loop {
        let status = match statuses.recv_timeout(TICK) {
            Ok(status) => status,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                bar.tick();
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => bail!("the model's queue stopped unexpectedly"),
        };
        if let Activity::Waiting(reason) = &status.activity {
            bar.abandon();
            bail!("the local model is not available, so the queue waits: {reason}");
        }
        match status.phase() {
            Some((what, done, total)) => {
                if what != phase {
                    // A new phase: its own rate and ETA.
                    phase = what;
                    bar.reset();
                    bar.set_message(what);
                }
                bar.set_length(total);
                bar.set_position(done);
            }
            None if status.activity == Activity::Idle => break,
            None => {}
        }
    }
    bar.finish_and_clear();
    drop(runner);
    Ok(())
}
