//! `export`: the journal out as MindSage's JSON or a folder of Markdown files; an
//! encrypted journal's only with `--allow-plain` or a yes on the terminal.

use std::path::Path;

use anyhow::Result;

use mindsage_core::db::cipher;
use mindsage_core::db::{DEFAULT_USER, StorageOptions};
use mindsage_core::export;

use super::{Args, ExportFormat, print, yes_on_a_terminal};

/// `mindsage export PATH`.
pub(super) fn run(
    args: &Args,
    journal: &Path,
    options: StorageOptions,
    to: &Path,
    format: Option<ExportFormat>,
    allow_plain: bool,
) -> Result<()> {
    if cipher::is_encrypted(journal) {
        allow_plain_export(journal, allow_plain)?;
    }
    let (conn, _) = super::open(args, journal, options)?;
    export(args, &conn, to, format)
}

fn export(
    args: &Args,
    conn: &rusqlite::Connection,
    path: &std::path::Path,
    format: Option<ExportFormat>,
) -> Result<()> {
    let format = match format {
        Some(ExportFormat::Json) => export::Format::Json,
        Some(ExportFormat::Markdown) => export::Format::Markdown,
        None => export::Format::for_path(path),
    };
    let report = export::run(conn, DEFAULT_USER, path, format)?;
    print(args, &report, || {
        format!(
            "Exported {} entries ({} photos, {} recordings, {:.1} MB) to {}",
            report.entries,
            report.photos,
            report.recordings,
            report.bytes as f64 / 1e6,
            report.path.display()
        )
    })
}

/// `mindsage export` from an encrypted journal: the export is plain, so a terminal is
/// asked first, and anywhere else `--allow-plain` must say so.
fn allow_plain_export(journal: &Path, allowed: bool) -> Result<()> {
    if allowed {
        return Ok(());
    }
    let warning = format!(
        "{} is encrypted, but an export is not: anyone who has the exported files can read every entry in them.",
        journal.display()
    );
    yes_on_a_terminal(
        &warning,
        "Export all the same?",
        "Add --allow-plain to export all the same; nothing was written",
        "nothing was exported",
    )
}
