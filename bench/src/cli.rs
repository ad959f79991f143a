//! The command line: `run`, `compare`, `ab`, `noise`, `quick`, `board`, `report`.

use clap::{Args, Parser, Subcommand};

use crate::stages::{Copies, StageContext};
use crate::stats::Sampling;

#[derive(Debug, Parser)]
#[command(
    name = "mindsage-bench",
    version,
    about = "MindSage's benchmark harness: stored runs, percentiles, regressions first."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure the chosen stages and store the run at bench/runs/<LABEL>.json.
    Run {
        /// Name of the run (letters, digits, '.', '-', '_').
        #[arg(long)]
        label: String,
        /// Store the run at this path instead (what `ab` asks of its children).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
    /// A/B: measure two `mindsage-bench` binaries (two builds), or one binary under two
    /// settings, interleaved in one run, and call a change only when it exceeds the
    /// spread of the repeats. Stores bench/runs/<LABEL>.json (kind `ab`).
    Ab {
        /// The base side's `mindsage-bench` binary.
        base: std::path::PathBuf,
        /// The head side's `mindsage-bench` binary (the same path for an A/A, or for
        /// an A/B of settings).
        head: std::path::PathBuf,
        #[arg(long)]
        label: String,
        /// A KEY=VALUE setting for the base side's runs (repeatable).
        #[arg(long = "base-env")]
        base_env: Vec<String>,
        /// A KEY=VALUE setting for the head side's runs (repeatable).
        #[arg(long = "head-env")]
        head_env: Vec<String>,
        /// Runs per side of each stage at each size.
        #[arg(long, default_value_t = 7)]
        repeats: usize,
        /// Store the run at this path instead of bench/runs/<LABEL>.json.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Compare two stored runs: regressions first, then wins, then the unchanged.
    /// Writes bench/reports/<BASE>-vs-<HEAD>.md and a chart beside it.
    Compare {
        /// Label of the base run (or a path to a run's JSON file).
        base: String,
        /// Label of the head run (or a path to a run's JSON file).
        head: String,
    },
    /// Measure the same commit twice (runs noise-a and noise-b) and store each
    /// scenario's spread in bench/noise.json, which `compare` uses as its threshold.
    Noise {
        #[command(flatten)]
        options: RunOptions,
    },
    /// A fast check for the pre-commit hook: db stage at 150 and 5,000 entries,
    /// compared with the previous quick run. Prints regressions; always exits 0.
    Quick,
    /// Render bench/BOARD.md: each tracked item's value in a run against its target.
    Board {
        /// The run to read; when omitted, the newest stored run of kind `run` that ran
        /// every stage the board reads.
        #[arg(long)]
        run: Option<String>,
    },
    /// Regenerate the performance section of README.md and docs/PERFORMANCE.md from
    /// the stored runs.
    Report,
    /// Used by the `app` stage: opens the app on a journal in this fresh process,
    /// switches views 50 times and prints the process's resident bytes, so the figure
    /// holds the app alone and nothing earlier stages left allocated.
    #[command(hide = true)]
    AppRss { journal: std::path::PathBuf },
}

#[derive(Debug, Clone, Args)]
pub struct RunOptions {
    /// Stages to run, comma separated; `all` (the default) runs every stage, a full run.
    #[arg(long, value_delimiter = ',', default_value = "all")]
    pub stages: Vec<String>,
    /// Journal sizes in entries, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "150,5000,50000")]
    pub sizes: Vec<usize>,
    /// Samples per scenario after warm-up.
    #[arg(long, default_value_t = 200)]
    pub samples: usize,
    /// Calls per scenario discarded before sampling.
    #[arg(long, default_value_t = 5)]
    pub warmup: usize,
    /// Seconds one scenario may take; a slow one stops early and says so.
    #[arg(long = "budget-s", default_value_t = 20.0)]
    pub budget_s: f64,
    /// A labelled set (JSON, format in bench/data/README.md) for the retrieval and ai
    /// stages instead of the committed one.
    #[arg(long)]
    pub dataset: Option<std::path::PathBuf>,
    /// Measure the plain journal only: no encrypted copy in the db, vector and import
    /// stages (their `encrypted.*` scenarios and ratios).
    #[arg(long = "no-encrypted")]
    pub no_encrypted: bool,
    /// Measure the encrypted copies only: what a run asks of the child process that
    /// measures them (`stages::encryption::in_child`).
    #[arg(long = "encrypted-only", hide = true, conflicts_with = "no_encrypted")]
    pub encrypted_only: bool,
    /// Measure each scenario once only, even when other processes kept the machine
    /// busy meanwhile (it is still flagged).
    #[arg(long = "no-remeasure")]
    pub no_remeasure: bool,
}

impl RunOptions {
    pub fn context(&self) -> StageContext {
        StageContext {
            sizes: self.sizes.clone(),
            sampling: Sampling {
                samples: self.samples,
                warmup: self.warmup,
                budget_s: self.budget_s,
                remeasure: !self.no_remeasure,
            },
            dataset: self.dataset.clone(),
            copies: match (self.no_encrypted, self.encrypted_only) {
                (true, _) => Copies::Plain,
                (false, true) => Copies::Encrypted,
                (false, false) => Copies::Both,
            },
        }
    }
}

/// Labels become file names, so they stay plain.
pub fn check_label(label: &str) -> anyhow::Result<()> {
    let plain = !label.is_empty()
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    anyhow::ensure!(
        plain && !label.starts_with('.'),
        "label {label:?}: use letters, digits, '.', '-' and '_' only"
    );
    Ok(())
}
