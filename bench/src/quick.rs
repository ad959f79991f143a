//! `quick`: a ≤ 25 s check before a commit, not a measurement to publish.
//!
//! It runs the db stage at 150 and 5,000 entries with 20 samples, compares with the
//! previous quick run on this machine and prints any regression loudly. It always
//! exits 0: a pre-commit hook that blocks on a noisy 20-sample figure teaches people
//! to skip hooks. Its runs live in `$HOME/.cache/mindsage-bench/quick/`, not in the
//! repository, because they change with every commit.

use std::time::Instant;

use crate::compare;
use crate::noise::NoiseTable;
use crate::run::{Run, RunKind};
use crate::stages::{self, Copies, StageContext};
use crate::stats::Sampling;

/// Per-scenario budget: about forty scenarios must fit in 25 s with seeding cached, so a
/// busy scenario is flagged but not measured again.
const QUICK_SAMPLING: Sampling = Sampling {
    samples: 20,
    warmup: 5,
    budget_s: 0.4,
    remeasure: false,
};

/// Runs the check and reports; never fails.
pub fn quick() {
    if let Err(e) = check() {
        eprintln!("quick check could not run: {e:#}");
    }
}

fn check() -> anyhow::Result<()> {
    let started = Instant::now();
    let dir = crate::paths::cache_dir().join("quick");
    let ctx = StageContext {
        sizes: vec![150, 5000],
        sampling: QUICK_SAMPLING,
        dataset: None,
        // The encrypted copy would double the check's time; full runs measure it.
        copies: Copies::Plain,
    };
    let run = stages::execute("quick", RunKind::Quick, &["db".into()], ctx)?;
    let latest = dir.join("latest.json");
    let previous = dir.join("previous.json");
    if latest.exists() {
        std::fs::rename(&latest, &previous)?;
    }
    run.save(&latest)?;
    if !previous.exists() {
        println!(
            "quick check: no previous quick run; this one ({}) is the reference for the next",
            run.build.short()
        );
        return Ok(());
    }
    let base = Run::load(&previous)?;
    let noise = NoiseTable::load(&crate::paths::noise_file())?;
    let mut c = compare::compare(&base, &run, noise.as_ref());
    // The p99 of 20 samples is their maximum: one scheduler hiccup. Judge p50 and p95.
    c.worse.retain(|d| d.stat != "p99");
    if c.worse.is_empty() && c.failed_in_head.is_empty() {
        println!(
            "quick check: nothing got worse than the previous quick run ({}) in {:.0} s",
            base.build.short(),
            started.elapsed().as_secs_f64()
        );
    } else {
        println!("\n{}", "!".repeat(78));
        println!(
            "QUICK CHECK: {} REGRESSION(S) against the previous quick run",
            c.worse.len() + c.failed_in_head.len()
        );
        println!("{}\n", "!".repeat(78));
        println!("{}", compare::render_box(&c, &base, &run));
        println!("20 samples each: confirm with a full `run` and `compare` before acting.");
    }
    Ok(())
}
