//! `mindsage import PATH [--dry-run]`: another app's journal brought in from the command
//! line, with a progress bar and the report of every problem, per item.
//!
//! Ctrl+C ends the process at once, as for every command: each batch is one
//! transaction, so what was written is whole entries, and running the same import
//! again skips them and finishes the rest.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use rusqlite::Connection;

use mindsage_core::db::DEFAULT_USER;
use mindsage_core::import::{self, Options, Report};

use crate::wording::entries;

pub fn run(
    conn: &mut Connection,
    path: &Path,
    dry_run: bool,
    json: bool,
    key: Option<&mindsage_core::db::cipher::JournalKey>,
) -> Result<()> {
    let mut export = import::open(path)?;
    let bar = ProgressBar::new(export.items.len() as u64).with_style(
        ProgressStyle::with_template("importing {bar:30} {pos}/{len} entries · {per_sec} · {eta} left")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(Duration::from_millis(250));
    let options = Options {
        dry_run,
        key,
        ..Options::default()
    };
    let report = import::run(conn, DEFAULT_USER, &mut export, &options, &mut |p| {
        bar.set_position(p.done as u64)
    })?;
    bar.finish_and_clear();
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", describe(&report));
    }
    if nothing_could_be_read(&report) {
        let would = if report.dry_run { "would be" } else { "was" };
        anyhow::bail!(
            "nothing {would} imported from {}: none of its entries could be read or brought in (the report says why for each)",
            path.display()
        );
    }
    Ok(())
}

/// Whether an import came to nothing because nothing in the export could be brought in
/// (its only journal is not JSON, every file is unreadable): a script must not take that
/// for success. An export already imported, or one with no entries, is not this.
fn nothing_could_be_read(report: &Report) -> bool {
    !report.cancelled && report.added == 0 && report.duplicates == 0 && report.rejected > 0
}

/// The report as a person reads it: the totals, then every problem.
pub fn describe(report: &Report) -> String {
    let source = report.source.display_name();
    let photos = match report.photos {
        0 => String::new(),
        1 => " with 1 photo".to_string(),
        n => format!(" with {n} photos"),
    };
    let (added, duplicates, rejected) = (
        entries(report.added),
        entries(report.duplicates),
        entries(report.rejected),
    );
    let mut text = if report.dry_run {
        format!(
            "Dry run of an import from {source}, nothing written: {added} would be added{photos}, {duplicates} already in the journal, {rejected} could not be imported."
        )
    } else {
        format!(
            "Imported from {source}: {added} added{photos}, {duplicates} already in the journal, {rejected} could not be imported."
        )
    };
    if report.cancelled {
        text.push_str(" Stopped before the end: importing again finishes it.");
    }
    if !report.problems.is_empty() {
        text.push_str("\nProblems:");
        for problem in &report.problems {
            let outcome = if problem.rejected {
                "not imported"
            } else {
                "the entry was imported"
            };
            text.push_str(&format!("\n  {}: {} ({outcome})", problem.item, problem.reason));
        }
    }
    if !report.dry_run && report.added > 0 {
        text.push_str(
            "\nTitles, summaries and search by meaning for the new entries are queued: the app makes them in the background, `mindsage index --wait` makes them now.",
        );
    }
    text
}
