//! `mindsage-bench`: every performance claim MindSage makes comes out of this harness.
//!
//! It is built to catch our own wrong conclusions: stalls hidden by averages (it
//! reports percentiles), noise celebrated as wins (deltas inside the measured noise
//! read "no detectable effect"), fast errors mistaken for fast answers (each figure
//! carries the rows and bytes it returned), and stale numbers in docs (the docs are
//! generated from stored runs, each figure cited with its run and commit).
//!
//! Modules: [`cli`] the verbs; [`stats`] sampling and percentiles; [`run`] the stored
//! run's schema; [`machine`] where and from what a run was made; [`stages`] the
//! plug-ins that measure; [`compare`], [`noise`] and [`chart`] judge two runs;
//! [`ab`] measures two builds or settings interleaved in one run; [`board`] and
//! [`report`] turn runs into docs; [`quick`] is the pre-commit check; [`busy`] tells a
//! busy machine from a slow program.

mod ab;
mod board;
mod busy;
mod chart;
mod cli;
mod compare;
mod machine;
mod noise;
mod paths;
mod quick;
mod report;
mod run;
mod stages;
mod stats;

use anyhow::Context;
use clap::Parser;

use cli::{Cli, Command};
use noise::NoiseTable;
use run::{Run, RunKind};

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Run { label, out, options } => {
            cli::check_label(&label)?;
            let run = stages::execute(&label, RunKind::Run, &options.stages, options.context())?;
            store(&run, out)?;
        }
        Command::Ab {
            base,
            head,
            label,
            base_env,
            head_env,
            repeats,
            out,
            options,
        } => {
            cli::check_label(&label)?;
            let plan = ab::AbPlan {
                label,
                base: (base, base_env),
                head: (head, head_env),
                repeats,
                options,
            };
            let run = ab::run(&plan)?;
            store(&run, out)?;
            println!("{}", ab::render(&run));
        }
        Command::Compare { base, head } => {
            let (base, head) = (Run::find(&base)?, Run::find(&head)?);
            let noise = NoiseTable::load(&paths::noise_file())?;
            let c = compare::compare(&base, &head, noise.as_ref());
            let dir = paths::reports_dir();
            std::fs::create_dir_all(&dir)?;
            let stem = format!("{}-vs-{}", base.label, head.label);
            let chart_name = format!("{stem}.svg");
            let chart =
                chart::p95_chart(&base, &head, &dir.join(&chart_name))?.then_some(chart_name.as_str());
            let md = compare::render(&c, &base, &head, noise.as_ref(), chart);
            let path = dir.join(format!("{stem}.md"));
            std::fs::write(&path, &md).with_context(|| format!("writing {}", path.display()))?;
            println!("{md}\nwritten to {}", path.display());
        }
        Command::Noise { options } => {
            let ctx = || options.context();
            let a = stages::execute("noise-a", RunKind::Noise, &options.stages, ctx())?;
            store(&a, None)?;
            let b = stages::execute("noise-b", RunKind::Noise, &options.stages, ctx())?;
            store(&b, None)?;
            let table = NoiseTable::measure(&a, &b)?;
            table.save(&paths::noise_file())?;
            let mut noisiest: Vec<_> = table.spreads.iter().filter(|s| s.stat == "p95").collect();
            noisiest.sort_by(|x, y| y.spread.total_cmp(&x.spread));
            println!("p95 spread between noise-a and noise-b, noisiest first:");
            for s in noisiest.iter().take(10) {
                let at = s.size.map_or(String::new(), |n| format!(" @ {n}"));
                println!("  {:>6.1} %  {}{at}", s.spread * 100.0, s.scenario);
            }
            println!("stored {}", paths::noise_file().display());
        }
        Command::Quick => quick::quick(),
        Command::Board { run } => {
            let board = board::Board::load(&board::Board::path())?;
            let run = match run {
                Some(label) => Run::find(&label)?,
                None => Run::latest_full(&board.stages())?,
            };
            let path = paths::bench_dir().join("BOARD.md");
            let currency = board::Currency::of(&paths::workspace_root(), &run);
            let md = board::render(&board, &run, &currency);
            std::fs::write(&path, &md)?;
            println!("{md}\nwritten to {}", path.display());
        }
        Command::Report => {
            let board = board::Board::load(&board::Board::path())?;
            let run = Run::latest_full(&board.stages())?;
            let noise = NoiseTable::load(&paths::noise_file())?;
            report::write(&paths::workspace_root(), &board, &run, noise.as_ref())?;
        }
        Command::AppRss { journal } => println!("{}", stages::app::rss_after_view_switches(&journal)?),
    }
    Ok(())
}

/// Stores a run at `out`, or at `bench/runs/<label>.json`.
fn store(run: &Run, out: Option<std::path::PathBuf>) -> anyhow::Result<()> {
    let path = out.unwrap_or_else(|| Run::path_for(&run.label));
    run.save(&path)?;
    println!("stored {}", path.display());
    Ok(())
}
