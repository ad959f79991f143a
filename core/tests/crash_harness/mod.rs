//! The crash-safety harness: processes that write a journal are killed with SIGKILL at
//! random moments, then the journal is checked as the app would find it (see
//! `inspect`), against what the processes acknowledged (see `model`), and a copy of it
//! as a power cut would have left it (see `power_cut`).
//!
//! Shared by `core/tests/crash.rs` (a child saving through the writer thread) and
//! `app/tests/crash_cli.rs` (the `mindsage` binary).

#![allow(dead_code)] // each test binary uses a different part of this module

pub mod inspect;
pub mod model;
pub mod power_cut;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdout};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mindsage_core::db::backup;
use mindsage_core::db::cipher::JournalKey;
use model::{Ack, History, Line};

/// Kills a run makes unless `MINDSAGE_CRASH_KILLS` says otherwise (`make soak`: 1,000).
pub const DEFAULT_KILLS: usize = 100;

/// How many kills this run makes.
pub fn kills() -> usize {
    std::env::var("MINDSAGE_CRASH_KILLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_KILLS)
}

/// The run's seed: `MINDSAGE_CRASH_SEED`, else a new one, printed either way. The seed
/// replays the operations chosen and the moments chosen for the kills; where exactly
/// a kill lands inside an operation still depends on timing.
pub fn seed(test: &str) -> u64 {
    let seed = std::env::var("MINDSAGE_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("{test}: seed {seed} (MINDSAGE_CRASH_SEED={seed} replays it)");
    seed
}

/// A child's protocol lines, read on a thread so the parent can wait for one with a
/// deadline. Other lines (the test harness's own) are skipped, and so is a last line
/// cut short by the kill: a line not printed whole was not acknowledged.
pub struct Lines {
    lines: mpsc::Receiver<Line>,
}

impl Lines {
    pub fn of(stdout: ChildStdout) -> Lines {
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let whole = line.ends_with(b"\n");
                let parsed = whole
                    .then(|| serde_json::from_slice::<Line>(&line).ok())
                    .flatten();
                if let Some(parsed) = parsed
                    && send.send(parsed).is_err()
                {
                    return;
                }
                line.clear();
            }
        });
        Lines { lines }
    }

    /// The next line, if one arrives before `until`.
    pub fn next_before(&self, until: Instant) -> Option<Line> {
        self.lines
            .recv_timeout(until.saturating_duration_since(Instant::now()))
            .ok()
    }

    /// Every line left, once the child is dead.
    pub fn rest(self) -> Vec<Line> {
        self.lines.iter().collect()
    }
}

/// Kills `child` with SIGKILL; false when it had already ended by itself.
pub fn kill(child: &mut Child) -> Result<bool, String> {
    use std::os::unix::process::ExitStatusExt;
    child.kill().map_err(|e| format!("cannot kill the child: {e}"))?;
    let status = child.wait().map_err(|e| e.to_string())?;
    Ok(status.signal() == Some(9))
}

/// Every backup the app would offer (`backup::list`) is whole, and the last one
/// acknowledged is there holding what it said.
pub fn check_backups(data_dir: &Path, history: &History) -> Result<(), String> {
    check_backups_with(data_dir, history, None)
}

/// [`check_backups`] of an encrypted journal's backups, opened with its `key`.
pub fn check_backups_with(
    data_dir: &Path,
    history: &History,
    key: Option<&JournalKey>,
) -> Result<(), String> {
    for listed in backup::list(data_dir) {
        backup::check(&listed.path, key).map_err(|e| format!("a listed backup is not whole: {e}"))?;
    }
    let last = history.steps.iter().rev().find_map(|s| match &s.ack {
        Ack::BackedUp { path, entries } => Some((path, *entries)),
        _ => None,
    });
    if let Some((path, entries)) = last {
        let held =
            backup::check(path, key).map_err(|e| format!("an acknowledged backup is not whole: {e}"))?;
        if held != entries {
            return Err(format!(
                "the backup {} holds {held} entries, acknowledged with {entries}",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Files of backups a kill left half-made under hidden names in `backups/` (a copy
/// being made and the files beside it, or an old backup being erased).
pub fn partial_backups(data_dir: &Path) -> usize {
    std::fs::read_dir(data_dir.join(backup::BACKUPS_FOLDER))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.') && e.file_name() != backup::COPYING_LOCK)
        .count()
}

/// A random pause up to `most`.
pub fn pause(rng: &mut impl rand::Rng, most: Duration) -> Duration {
    Duration::from_micros(rng.random_range(0..=most.as_micros() as u64))
}

/// What a run tried and how it ended, written as `<test>.json` into
/// `MINDSAGE_RELIABILITY_DIR` when it is set, for the reliability docs.
#[derive(Debug, Default, serde::Serialize)]
pub struct Summary {
    pub test: String,
    pub seed: u64,
    pub kills: usize,
    pub seconds: f64,
    /// What each kill interrupted, by scenario (the operation begun and not
    /// acknowledged; "starting" before the first, "between operations" after an
    /// acknowledgement).
    pub interrupted: BTreeMap<String, usize>,
    /// Operations acknowledged, by scenario: what the checks held the journal to.
    pub acknowledged: BTreeMap<String, usize>,
    /// Fresh journals the kills were spread over.
    pub journals: usize,
    /// Power-cut copies checked, and of those how many kept the synced -wal frames of an
    /// interrupted checkpoint.
    pub power_cuts: usize,
    pub power_cuts_mid_checkpoint: usize,
    /// Imports a kill interrupted that the next process ran again to the end.
    pub imports_finished_by_a_second_run: usize,
    /// Files of half-made backups a kill left under hidden names, never listed, counted
    /// when each journal was done with.
    pub partial_backups_left: usize,
    pub outcome: String,
}

impl Summary {
    pub fn new(test: &str, seed: u64) -> Summary {
        Summary {
            test: test.to_owned(),
            seed,
            ..Summary::default()
        }
    }

    pub fn count_interrupted(&mut self, history: &model::History) {
        let what = match (&history.in_flight, history.steps.is_empty()) {
            (Some(op), _) => op.scenario(),
            (None, true) => "starting",
            (None, false) => "between operations",
        };
        *self.interrupted.entry(what.to_owned()).or_default() += 1;
        for step in &history.steps {
            *self
                .acknowledged
                .entry(step.op.scenario().to_owned())
                .or_default() += 1;
        }
    }

    /// Records the outcome, writes the file if asked, and fails the test on an error.
    pub fn finish(mut self, started: Instant, result: Result<(), String>) {
        self.seconds = started.elapsed().as_secs_f64();
        self.outcome = match &result {
            Ok(()) => "passed".to_owned(),
            Err(e) => format!("failed: {e}"),
        };
        if let Some(dir) = std::env::var_os("MINDSAGE_RELIABILITY_DIR") {
            let dir = std::path::PathBuf::from(dir);
            std::fs::create_dir_all(&dir).expect("create MINDSAGE_RELIABILITY_DIR");
            let json = serde_json::to_string_pretty(&self).expect("a summary serialises");
            std::fs::write(dir.join(format!("{}.json", self.test)), json).expect("write the summary");
        }
        eprintln!(
            "{}: {} kills in {:.1} s, interrupted {:?}",
            self.test, self.kills, self.seconds, self.interrupted
        );
        if let Err(e) = result {
            panic!("{} (seed {}): {e}", self.test, self.seed);
        }
    }
}
