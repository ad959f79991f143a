//! Bringing a journal in from another app: Day One's export, jrnl's JSON export and a
//! folder of Markdown files, one file per source (as atuin keeps its importers).
//!
//! An import is two steps, so nothing is written before the whole export has been read
//! and every item judged: [`open`] reads the export into [`Item`]s (each source's rules
//! for dates, titles and tags applied) and the [`Problem`]s of what could not be read;
//! [`run`] writes the items in batched transactions, or with `dry_run` only says what it
//! would do. Each item is judged whole before its first row is written (size, mood,
//! photos), so the only failure left while writing is the database's own, which ends
//! the import with its batch rolled back; each batch is one transaction, so an
//! interrupted import leaves whole entries only, and `imported_entries` (see
//! `db::imports`) makes a second run skip what the first one wrote and finish the rest.
//! (A savepoint per item once guarded this instead, and SQLite copied every page an
//! item touched into the savepoint's journal.)
//!
//! Nothing is written outside the journal: archives are read in memory, never
//! unpacked, and every read has a size limit (a decompression bomb is a per-item error).

pub mod dayone;
pub mod jrnl;
pub mod markdown;
pub mod mindsage;
mod text;

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use rusqlite::Connection;

use crate::clock;
use crate::db::checkpointer::Checkpointer;
use crate::db::entries::{self, NewEntry};
use crate::db::jobs;
use crate::db::{DbError, EntryId, UserId, audio, gallery, imports, memory, reflections};
use crate::media;

/// Entries written per transaction: large enough that commits are a small part of the
/// cost, small enough that a cancelled import stops within a moment.
pub const BATCH: usize = 1_000;

/// Largest entry imported, in bytes of text. Longer is not a journal entry (a book, a
/// log file, a mistake) and would make every search that finds it slow to show.
pub const MAX_ENTRY_BYTES: usize = 8 * 1024 * 1024;

/// Largest file read from an export (a journal's JSON, a Markdown file), whatever its
/// archive claims: the limit a decompression bomb runs into.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// The apps MindSage imports from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    DayOne,
    Jrnl,
    Markdown,
    MindSage,
}

impl Source {
    /// The name stored with each imported entry (`imported_entries.source`).
    pub fn as_str(self) -> &'static str {
        match self {
            Source::DayOne => "dayone",
            Source::Jrnl => "jrnl",
            Source::Markdown => "markdown",
            Source::MindSage => "mindsage",
        }
    }

    /// The name a person knows the app by.
    pub fn display_name(self) -> &'static str {
        match self {
            Source::DayOne => "Day One",
            Source::Jrnl => "jrnl",
            Source::Markdown => "Markdown files",
            Source::MindSage => "a MindSage export",
        }
    }
}

/// One entry read from an export, in MindSage's terms, before anything is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// How the report names it: the file, and the entry in it.
    pub label: String,
    /// The source's own id for it (Day One's uuid, a file's path in the folder).
    pub external_id: String,
    /// Title, body and tags; `created_at` (when and at what offset it was lived) is
    /// always set.
    pub entry: NewEntry,
    /// Photos to attach.
    pub photos: Vec<Photo>,
    /// What only MindSage's own export carries.
    pub carried: Option<Carried>,
}

/// A photo to attach: where it is in the export, and the name a Markdown image in the
/// entry's text gives it, which places it there on the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Photo {
    pub path: String,
    pub name: Option<String>,
}

impl Photo {
    /// A photo the text does not name.
    pub fn unnamed(path: String) -> Photo {
        Photo { path, name: None }
    }
}

/// What MindSage's own export carries beyond text, tags and photos: the model's work
/// (summary and memory), when each photo was added, and recordings with what was heard
/// in them.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    pub title_by_user: bool,
    pub summary: Option<String>,
    /// The people, places and activities the entry mentions, and the model that found
    /// them (`None`: this journal's model reads the entry).
    pub memory: Vec<memory::Restored>,
    pub memory_model: Option<String>,
    /// When each of [`Item::photos`] was added (stored timestamps), in order.
    pub photo_times: Vec<String>,
    pub recordings: Vec<CarriedRecording>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CarriedRecording {
    pub wav: Vec<u8>,
    pub duration_ms: u64,
    pub language: String,
    pub recorded_at: String,
    pub segments: Vec<crate::db::audio::Segment>,
}

impl Item {
    /// An item lived at `lived`: its instant, at the offset where it was written.
    fn new(label: String, external_id: String, entry: NewEntry, lived: DateTime<FixedOffset>) -> Item {
        Item {
            label,
            external_id,
            entry: NewEntry {
                created_at: Some(lived),
                ..entry
            },
            photos: Vec::new(),
            carried: None,
        }
    }

    /// When it was written and lived, at the offset where it was written.
    pub fn lived(&self) -> DateTime<FixedOffset> {
        self.entry.created_at.expect("importers set every item's time")
    }

    fn content_hash(&self) -> String {
        imports::content_hash(
            &clock::format_utc(self.lived().to_utc()),
            self.entry.title.trim(),
            &self.entry.body,
        )
    }
}

/// Something in an export that could not be brought in, or not wholly.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    /// The file and entry, as in [`Item::label`].
    pub item: String,
    pub reason: String,
    /// Whether the entry itself was left out (a photo that could not be read leaves the
    /// entry in, without it).
    pub rejected: bool,
}

impl Problem {
    fn rejected(item: impl Into<String>, reason: impl Into<String>) -> Problem {
        Problem {
            item: item.into(),
            reason: reason.into(),
            rejected: true,
        }
    }

    fn partial(item: impl Into<String>, reason: impl Into<String>) -> Problem {
        Problem {
            item: item.into(),
            reason: reason.into(),
            rejected: false,
        }
    }
}

/// Why an export could not be read at all (one entry that cannot is a [`Problem`]).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {error}")]
    Read { path: PathBuf, error: std::io::Error },
    #[error("{path} is not an export MindSage can import: {detail}")]
    Unknown { path: PathBuf, detail: String },
}

/// Where an export's photos are read from: the zip it came in, or the folder.
pub trait Files {
    /// The bytes of `path` inside the export, at most `limit` of them.
    fn read(&mut self, path: &str, limit: u64) -> Result<Vec<u8>, String>;
}

/// Files read from a folder, never outside it.
struct FolderFiles {
    root: PathBuf,
}

impl Files for FolderFiles {
    fn read(&mut self, path: &str, limit: u64) -> Result<Vec<u8>, String> {
        let relative = Path::new(path);
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err("its path leads outside the export".into());
        }
        let file = File::open(self.root.join(relative)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "it is not in the export".to_string(),
            _ => format!("cannot read it ({e})"),
        })?;
        read_limited(file.take(limit + 1), limit)
    }
}

/// An export read and judged, ready for [`run`].
pub struct Export {
    pub source: Source,
    pub items: Vec<Item>,
    /// What could not be read, found while reading (more are found while writing).
    pub problems: Vec<Problem>,
    files: Box<dyn Files>,
}

/// Reads the export at `path`, whichever of the known kinds it is: a Day One zip or
/// JSON, a jrnl JSON export, a Markdown file or a folder of them. Decides by content
/// (a zip is a zip whatever its name), so a file that is not what its extension says
/// gets a message saying what it is.
pub fn open(path: &Path) -> Result<Export, ImportError> {
    puffin::profile_function!();
    let read_error = |error| ImportError::Read {
        path: path.to_path_buf(),
        error,
    };
    let unknown = |detail: String| ImportError::Unknown {
        path: path.to_path_buf(),
        detail,
    };
    let meta = std::fs::metadata(path).map_err(read_error)?;
    if meta.is_dir() {
        return markdown::read_folder(path).map_err(read_error);
    }
    let mut head = [0u8; 4];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(read_error)?;
    if head[..n].starts_with(b"PK\x03\x04") || head[..n].starts_with(b"PK\x05\x06") {
        return dayone::read_zip(path).map_err(unknown);
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if extension == "zip" {
        return Err(unknown("the file is not a zip archive".into()));
    }
    let bytes = read_limited(File::open(path).map_err(read_error)?, MAX_FILE_BYTES).map_err(unknown)?;
    if matches!(extension.as_str(), "md" | "markdown" | "txt") {
        return markdown::read_file(path, bytes).map_err(unknown);
    }
    let json: serde_json::Value = serde_json::from_slice(text::strip_bom(&bytes))
        .map_err(|e| unknown(format!("it is not JSON ({e})")))?;
    let name = file_stem(path);
    if mindsage::looks_like(&json) {
        mindsage::read(&name, json).map_err(unknown)
    } else if dayone::looks_like(&json) {
        Ok(dayone::read_json(
            &name,
            json,
            path.parent().unwrap_or(Path::new(".")),
        ))
    } else if jrnl::looks_like(&json) {
        Ok(jrnl::read(&name, json))
    } else {
        Err(unknown(
            "a JSON file that is not a MindSage, Day One or jrnl export (expected an \"entries\" list)"
                .into(),
        ))
    }
}

impl Export {
    fn new(source: Source, files: Box<dyn Files>) -> Export {
        Export {
            source,
            items: Vec::new(),
            problems: Vec::new(),
            files,
        }
    }
}

/// How to run an import.
#[derive(Debug, Default)]
pub struct Options<'a> {
    /// Judge every item against the journal, write nothing.
    pub dry_run: bool,
    /// Set from another thread to stop after the batch being written (as is
    /// [`crate::db::close_down`]).
    pub cancel: Option<&'a AtomicBool>,
    /// How the entries are written; the default is what `mindsage import` and the app use.
    pub write: WritePath,
    /// The journal's key when it is encrypted: the checkpointing thread's connection
    /// needs it too.
    pub key: Option<&'a crate::db::cipher::JournalKey>,
}

/// The bulk-ingest path: how many entries go in one transaction and which of the
/// connection's settings are raised while an import writes (each one is put back when
/// it ends, however it ends). The default is what won in the bench's `import` stage,
/// step by step on the same input (`docs/optimisation-log.md` says what lost); the
/// stage measures the other settings through this same type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WritePath {
    /// Entries per transaction.
    pub batch: usize,
    /// The page cache while importing, in KiB; `None` keeps the connection's.
    pub cache_kib: Option<u32>,
    /// Pages the -wal file may grow by before a commit copies them into the journal
    /// (`PRAGMA wal_autocheckpoint`); `None` keeps the connection's.
    pub wal_autocheckpoint: Option<u32>,
    /// Write the full-text rows of a batch together at its end instead of each with
    /// its entry (still in the batch's transaction, so an entry is never without one).
    pub fts_per_batch: bool,
    /// Copy committed pages into the journal on a thread of its own, beside the
    /// import, rather than in the commits ([`Checkpointer`]).
    pub checkpoint_beside: bool,
}

impl Default for WritePath {
    fn default() -> WritePath {
        WritePath {
            batch: BATCH,
            // A 64 MiB page cache measured no faster than the connection's (run
            // `import-dec03`, step `cache`), so it is left as it is.
            cache_kib: None,
            wal_autocheckpoint: Some(20_000),
            fts_per_batch: true,
            checkpoint_beside: true,
        }
    }
}

impl WritePath {
    /// SQLite's own settings and a row at a time: what the stage measures first.
    pub fn defaults(batch: usize) -> WritePath {
        WritePath {
            batch,
            cache_kib: None,
            wal_autocheckpoint: None,
            fts_per_batch: false,
            checkpoint_beside: false,
        }
    }
}

/// The connection's settings as they were before an import raised them, and the
/// import's checkpointing thread.
struct Raised {
    cache_size: i64,
    wal_autocheckpoint: i64,
    foreign_keys: i64,
    busy_timeout: Duration,
    checkpointer: Option<Checkpointer>,
}

impl Raised {
    fn apply(
        conn: &Connection,
        write: &WritePath,
        key: Option<&crate::db::cipher::JournalKey>,
    ) -> Result<Raised, DbError> {
        let read = |name: &str| conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0));
        let busy_timeout = Duration::from_millis(read("busy_timeout")?.max(0) as u64);
        let checkpointer = match conn.path().filter(|p| write.checkpoint_beside && !p.is_empty()) {
            Some(path) => Some(Checkpointer::spawn(Path::new(path), busy_timeout, key)?),
            None => None,
        };
        let before = Raised {
            cache_size: read("cache_size")?,
            wal_autocheckpoint: read("wal_autocheckpoint")?,
            foreign_keys: read("foreign_keys")?,
            busy_timeout,
            checkpointer,
        };
        if let Some(kib) = write.cache_kib {
            conn.execute_batch(&format!("PRAGMA cache_size = -{kib}"))?;
        }
        // Every row an import writes refers to a row it wrote or found in the same
        // transaction, so the foreign keys' checks can only pass; with them on, SQLite
        // keeps a statement journal for each INSERT in case a check fails (run
        // `ab-import-dec05c`). The import's connection is its own.
        conn.execute_batch("PRAGMA foreign_keys = OFF")?;
        if let Some(pages) = write.wal_autocheckpoint {
            conn.execute_batch(&format!("PRAGMA wal_autocheckpoint = {pages}"))?;
        }
        Ok(before)
    }

    /// Stops the checkpointing thread and puts the settings back, then empties the -wal
    /// file a raised checkpoint interval let grow, if no reader is in the middle of a
    /// read (never waiting for one).
    fn restore(mut self, conn: &Connection) -> Result<(), DbError> {
        self.checkpointer.take();
        conn.execute_batch(&format!(
            "PRAGMA cache_size = {}; PRAGMA wal_autocheckpoint = {}; PRAGMA foreign_keys = {};",
            self.cache_size, self.wal_autocheckpoint, self.foreign_keys
        ))?;
        crate::db::checkpoint(
            conn,
            crate::db::Checkpoint::Truncate,
            Duration::ZERO,
            self.busy_timeout,
        )?;
        Ok(())
    }
}

/// Where an import is, after each batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub elapsed: Duration,
    /// Of `elapsed`, the time spent in the batches' commits.
    pub committing: Duration,
}

/// What an import did (or, in a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub source: Source,
    pub dry_run: bool,
    /// Entries written (would be written).
    pub added: usize,
    /// Photos attached to them.
    pub photos: usize,
    /// Entries already in the journal from an earlier import, or twice in the export.
    pub duplicates: usize,
    /// Entries left out, each with a problem saying why.
    pub rejected: usize,
    /// Every problem, per item.
    pub problems: Vec<Problem>,
    /// Stopped by the person before the end (what was written is whole and kept).
    pub cancelled: bool,
}

/// Writes an export's items into the journal (see the module comment), calling
/// `progress` after each batch. The model's work for every new entry is queued in the
/// same transaction, as a save queues it.
pub fn run(
    conn: &mut Connection,
    user: UserId,
    export: &mut Export,
    options: &Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, DbError> {
    puffin::profile_function!();
    let mut report = Report {
        source: export.source,
        dry_run: options.dry_run,
        added: 0,
        photos: 0,
        duplicates: 0,
        rejected: export.problems.iter().filter(|p| p.rejected).count(),
        problems: std::mem::take(&mut export.problems),
        cancelled: false,
    };
    if options.dry_run {
        write_items(conn, user, export, options, None, progress, &mut report)?;
    } else {
        let raised = Raised::apply(conn, &options.write, options.key)?;
        let written = write_items(
            conn,
            user,
            export,
            options,
            raised.checkpointer.as_ref(),
            progress,
            &mut report,
        );
        let restored = raised.restore(conn);
        written?;
        restored?;
    }
    Ok(report)
}

/// An entry written whose full-text row waits for the end of its batch.
struct Unindexed<'a> {
    id: EntryId,
    item: &'a Item,
    tags: Vec<String>,
}

/// [`run`]'s batches, adding to `report`.
fn write_items(
    conn: &mut Connection,
    user: UserId,
    export: &mut Export,
    options: &Options,
    checkpointer: Option<&Checkpointer>,
    progress: &mut dyn FnMut(Progress),
    report: &mut Report,
) -> Result<(), DbError> {
    let start = Instant::now();
    let mut committing = Duration::ZERO;
    let source = export.source.as_str();
    let total = export.items.len();
    // Items imported before, and items twice in the same export: by the source's id
    // and by content.
    let mut known = imports::Known::read(conn, source)?;
    let mut items = std::mem::take(&mut export.items);
    // Newest first, whatever the export's order. The list, queue and tag indexes are
    // ordered newest first, so entries written in that order are appended to them;
    // oldest first, each one went in at the front of each index and left its pages
    // half full (run `ab-import-dec05c`). An import stopped half way has brought the
    // most recent entries, which the model's queue also works first.
    items.sort_by_key(|item| std::cmp::Reverse(item.lived()));
    known.reserve(items.len());
    // What reading noted about an entry already in the journal is no news.
    let mut duplicate_labels = HashSet::new();
    let batch_size = options.write.batch.max(1);
    std::thread::scope(|scope| -> Result<(), DbError> {
        // Each batch's hashes and rows, worked out a batch ahead on the other core.
        let (ready, prepared) = mpsc::sync_channel(1);
        let batches = &items;
        std::thread::Builder::new()
            .name("mindsage-import-prepare".into())
            .spawn_scoped(scope, move || {
                for batch in batches.chunks(batch_size) {
                    if ready.send(prepare(batch)).is_err() {
                        break;
                    }
                }
            })
            .expect("spawning a thread");
        for ((batch_no, batch), prepared) in items.chunks(batch_size).enumerate().zip(prepared) {
            // Cancelled by the person, or the process is ending ([`crate::db::close_down`]).
            if options.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) || crate::db::closing_down() {
                report.cancelled = true;
                break;
            }
            let tx = conn.transaction()?;
            known.catch_up(&tx)?;
            let imported_at = clock::now_utc();
            let mut tags = entries::TagIds::default();
            let mut unindexed = Vec::new();
            // The first and last entry this batch wrote, and the first and last day.
            let mut written: Option<(EntryId, EntryId)> = None;
            let mut days: Option<(String, String)> = None;
            for (item, Prepared { hash, row }) in batch.iter().zip(prepared) {
                if known.contains(&item.external_id, &hash) {
                    report.duplicates += 1;
                    duplicate_labels.insert(item.label.as_str());
                    continue;
                }
                known.insert(&item.external_id, &hash);
                if let Some(reason) = cannot_write(item) {
                    report.rejected += 1;
                    report.problems.push(Problem::rejected(&item.label, reason));
                    continue;
                }
                let photos = read_photos(export.files.as_mut(), item, &mut report.problems);
                report.added += 1;
                report.photos += photos.len();
                if options.dry_run {
                    continue;
                }
                let id = entries::insert_unindexed(&tx, user, &item.entry, &row, &mut tags)?;
                let day = &row.local_date;
                match &mut days {
                    Some((first, _)) if day < first => first.clone_from(day),
                    Some((_, last)) if day > last => last.clone_from(day),
                    Some(_) => {}
                    None => days = Some((day.clone(), day.clone())),
                }
                if !options.write.fts_per_batch {
                    entries::index_for_search(&tx, id, item.entry.title.trim(), &item.entry.body, &row.tags)?;
                }
                let carried = item.carried.as_ref();
                if !photos.is_empty() {
                    let entry_time = clock::format_utc(item.lived().to_utc());
                    for (n, photo) in photos.iter().enumerate() {
                        let taken_at = carried.and_then(|c| c.photo_times.get(n)).unwrap_or(&entry_time);
                        gallery::attach_image(&tx, user, id, &photo.image, taken_at, photo.name)?;
                    }
                }
                imports::record(&tx, id, source, &item.external_id, &hash, &imported_at)?;
                known.recorded(id);
                if let Some(carried) = carried {
                    write_carried(&tx, user, id, &item.entry.body, carried)?;
                }
                written = Some((written.map_or(id, |(first, _)| first), id));
                if options.write.fts_per_batch {
                    unindexed.push(Unindexed {
                        id,
                        item,
                        tags: row.tags,
                    });
                }
            }
            // The model's work for the whole batch, as a save queues it: with the entries.
            if let Some((first, last)) = written {
                jobs::enqueue_range(&tx, user, first, last)?;
            }
            // Their weeks' and months' reflections, once for the batch.
            if let Some((first, last)) = &days {
                reflections::days_written(&tx, user, first, last)?;
            }
            for u in &unindexed {
                entries::index_for_search(&tx, u.id, u.item.entry.title.trim(), &u.item.entry.body, &u.tags)?;
            }
            let commit_started = Instant::now();
            tx.commit()?;
            committing += commit_started.elapsed();
            if let Some(checkpointer) = checkpointer {
                checkpointer.committed();
            }
            progress(Progress {
                done: (batch_no * batch_size + batch.len()).min(total),
                total,
                elapsed: start.elapsed(),
                committing,
            });
        }
        Ok(())
    })?;
    report
        .problems
        .retain(|p| p.rejected || !duplicate_labels.contains(p.item.as_str()));
    Ok(())
}

/// What an item's rows need that the database does not: its import key's hash and its
/// entry row.
struct Prepared {
    hash: String,
    row: entries::NewRow,
}

fn prepare(batch: &[Item]) -> Vec<Prepared> {
    batch
        .iter()
        .map(|item| Prepared {
            hash: item.content_hash(),
            row: entries::NewRow::of(&item.entry),
        })
        .collect()
}

/// Why an item cannot be written as it is, judged before any of its rows are.
fn cannot_write(item: &Item) -> Option<String> {
    if item.entry.body.len() > MAX_ENTRY_BYTES {
        return Some(format!(
            "the entry is {:.1} MB of text; entries up to {} MB are imported",
            item.entry.body.len() as f64 / 1e6,
            MAX_ENTRY_BYTES / (1024 * 1024)
        ));
    }
    entries::validate_mood(item.entry.mood_score)
        .err()
        .map(|e| e.to_string())
}

/// The model's work and the recordings of an entry from MindSage's own export (the
/// batch's queuing then skips the enrichment it carries).
fn write_carried(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    body: &str,
    carried: &Carried,
) -> Result<(), DbError> {
    entries::keep_model_work(conn, user, id, carried.title_by_user, carried.summary.as_deref())?;
    memory::restore(
        conn,
        user,
        id,
        body,
        &carried.memory,
        carried.memory_model.as_deref(),
    )?;
    for r in &carried.recordings {
        let recording = audio::NewRecording {
            wav: &r.wav,
            duration_ms: r.duration_ms,
            language: &r.language,
            segments: &r.segments,
        };
        audio::attach(conn, user, id, &recording, &r.recorded_at)?;
    }
    Ok(())
}

/// A photo of an item, decoded and thumbnailed, with its name in the text.
struct ReadPhoto<'a> {
    image: media::PreparedImage,
    name: Option<&'a str>,
}

/// An item's photos decoded and thumbnailed; each one that cannot be is a problem, and
/// the entry goes in without it.
fn read_photos<'a>(files: &mut dyn Files, item: &'a Item, problems: &mut Vec<Problem>) -> Vec<ReadPhoto<'a>> {
    let mut photos = Vec::new();
    for Photo { path, name } in &item.photos {
        let prepared = files
            .read(path, media::MAX_IMAGE_BYTES as u64)
            .and_then(|data| media::prepare_image(data).map_err(|e| e.to_string()));
        match prepared {
            Ok(image) => photos.push(ReadPhoto {
                image,
                name: name.as_deref(),
            }),
            Err(reason) => problems.push(Problem::partial(
                &item.label,
                format!("photo {path} was not imported: {reason}"),
            )),
        }
    }
    photos
}

/// Reads at most `limit` bytes; more is an error rather than memory spent.
fn read_limited(reader: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut data = Vec::new();
    reader
        .take(limit + 1)
        .read_to_end(&mut data)
        .map_err(|e| format!("reading failed: {e}"))?;
    if data.len() as u64 > limit {
        return Err(format!("it is larger than {} MB", limit / (1024 * 1024)));
    }
    Ok(data)
}

/// The `entries` list of an export's JSON, taken out of it (empty when there is none).
fn entries_of(json: serde_json::Value) -> Vec<serde_json::Value> {
    match json {
        serde_json::Value::Object(mut map) => match map.remove("entries") {
            Some(serde_json::Value::Array(entries)) => entries,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
