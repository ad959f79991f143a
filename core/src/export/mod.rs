//! Taking the journal out: MindSage's own JSON (everything, media included, read back by
//! `import` into the same journal) or a folder of Markdown files with front matter and
//! the media beside them, readable by any editor and by `import` too.
//!
//! Live entries only (the trash is not part of the journal a person takes away). A
//! JSON export is written to a temporary file beside the target and renamed over it
//! when complete, so a failed export never leaves half a file under the name asked
//! for; a Markdown export goes into a new or empty folder only.

pub mod json;
pub mod markdown;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::clock;
use crate::db::archive::{self, ArchivedEntry};
use crate::db::{DbError, UserId};

/// Entries read from the journal at a time.
const PAGE: usize = 200;

/// The two forms an export takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Markdown,
}

impl Format {
    /// The form a path asks for: a `.json` file is JSON, anything else a Markdown folder.
    pub fn for_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Markdown,
        }
    }
}

/// Why an export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot write {path}: {error}")]
    Write { path: PathBuf, error: std::io::Error },
    #[error("{0} is a folder that already holds files; export Markdown into a new or empty folder")]
    FolderNotEmpty(PathBuf),
    #[error(transparent)]
    Db(#[from] DbError),
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportReport {
    pub format: Format,
    pub path: PathBuf,
    pub entries: usize,
    pub photos: usize,
    pub recordings: usize,
    /// Bytes written, media included.
    pub bytes: u64,
}

/// Exports `user`'s journal to `path` in `format`.
pub fn run(
    conn: &Connection,
    user: UserId,
    path: &Path,
    format: Format,
) -> Result<ExportReport, ExportError> {
    puffin::profile_function!();
    let mut report = ExportReport {
        format,
        path: path.to_path_buf(),
        entries: 0,
        photos: 0,
        recordings: 0,
        bytes: 0,
    };
    let write_error = |error| ExportError::Write {
        path: path.to_path_buf(),
        error,
    };
    match format {
        Format::Json => {
            let temporary = temporary_beside(path);
            let file = File::create(&temporary).map_err(write_error)?;
            let written = (|| {
                let mut writer =
                    json::JsonWriter::start(BufWriter::new(file), &clock::now_utc()).map_err(write_error)?;
                each_entry(conn, user, |entry| {
                    count(&mut report, entry);
                    writer
                        .entry(&json::ExportedEntry::from_archived(entry))
                        .map_err(write_error)
                })?;
                writer
                    .finish()
                    .and_then(|out| out.into_inner().map_err(|e| e.into_error()))
                    .and_then(|file| file.sync_all())
                    .map_err(write_error)
            })();
            if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, path).map_err(write_error)) {
                let _ = std::fs::remove_file(&temporary);
                return Err(e);
            }
            report.bytes = std::fs::metadata(path).map_err(write_error)?.len();
        }
        Format::Markdown => {
            let mut folder = markdown::Folder::create(path)?;
            each_entry(conn, user, |entry| {
                count(&mut report, entry);
                folder.write(entry)
            })?;
            report.bytes = folder.bytes();
        }
    }
    Ok(report)
}

fn count(report: &mut ExportReport, entry: &ArchivedEntry) {
    report.entries += 1;
    for media in &entry.media {
        match media.kind.as_str() {
            "audio" => report.recordings += 1,
            _ => report.photos += 1,
        }
    }
}

/// Calls `f` with every live entry, oldest first, a page at a time.
fn each_entry(
    conn: &Connection,
    user: UserId,
    mut f: impl FnMut(&ArchivedEntry) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut after = 0;
    loop {
        let page = archive::page(conn, user, after, PAGE)?;
        let Some(last) = page.last() else {
            return Ok(());
        };
        after = last.entry.id;
        for entry in &page {
            f(entry)?;
        }
    }
}

/// `name.json` → `.name.json.partial` in the same folder (so the rename stays on one disk).
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.partial"))
}
