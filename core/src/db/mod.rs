//! The journal's SQLite file.
//!
//! One function, [`open`], opens every connection the app, the CLI, the tests and the
//! bench use, so they all run with the same settings. It checks the file before it
//! changes anything: a damaged file, another program's database, or a journal from a
//! newer MindSage is refused with an error naming the file, and left byte-for-byte as
//! it was.
//!
//! The app runs two connections: a reader serving the screens and one [`writer::Writer`]
//! thread that applies every change. WAL mode lets readers proceed while the writer
//! commits.

pub mod archive;
pub mod audio;
pub mod backup;
pub mod chats;
pub mod checkpointer;
pub mod cipher;
pub mod entries;
pub mod gallery;
pub mod history;
pub mod imports;
pub mod jobs;
pub mod memory;
pub mod migrate;
pub mod queries;
pub mod query_plan;
pub mod reflections;
pub mod stats;
pub mod templates;
pub mod unchanged;
pub mod vec_extension;
pub mod vectors;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rusqlite::{Connection, InterruptHandle, OpenFlags};

/// Identifies a MindSage journal in the SQLite header (`PRAGMA application_id`), so we
/// never migrate some other program's database. ASCII "MSge".
pub const APPLICATION_ID: i32 = 0x4D53_6765;

/// The single local profile. Every query takes a user id; the app has one profile today.
pub const DEFAULT_USER: UserId = 1;

/// A profile's id. Every query filters by it.
pub type UserId = i64;

/// A journal entry's id.
pub type EntryId = i64;

/// Everything that can go wrong in storage, each with a message a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot open the journal file {path}: {source}")]
    Open { path: PathBuf, source: rusqlite::Error },
    #[error("cannot create the folder {path}: {source}")]
    CreateFolder { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a MindSage journal or is damaged ({detail}); it was left untouched")]
    NotAJournal { path: PathBuf, detail: String },
    #[error("{path} is encrypted (or damaged): it opens only with its passphrase; it was left untouched")]
    Encrypted { path: PathBuf },
    #[error("the passphrase does not open {path} (or the file is damaged); it was left untouched")]
    WrongPassphrase { path: PathBuf },
    #[error("{path} is not encrypted, so it opens without a passphrase; it was left untouched")]
    NotEncrypted { path: PathBuf },
    #[error(
        "{path} is open in another MindSage (the app or a command): close it, then try again; nothing was changed"
    )]
    InUse { path: PathBuf },
    #[error(
        "{path} cannot be written: the file or its folder is read-only (check their permissions, or whether the disk is mounted read-only); it was left untouched"
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "{path} was written by a newer MindSage (schema version {found}; this version knows up to {supported}); it was left untouched, update MindSage to open it"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("upgrading the journal to schema version {version} ({name}) failed: {source}")]
    Migration {
        version: i64,
        name: &'static str,
        source: rusqlite::Error,
    },
    #[error("entry {0} does not exist")]
    EntryNotFound(EntryId),
    #[error("{0}")]
    Invalid(String),
    #[error("the background writer has stopped")]
    WriterStopped,
    #[error("stopped because MindSage is closing; nothing was changed")]
    ClosingDown,
    #[error("{}", sqlite_message(.0))]
    Sqlite(#[from] rusqlite::Error),
}

/// SQLite's own words, with what a person can do when the disk refused a write (full,
/// or failing): "disk I/O error" alone does not say it.
fn sqlite_message(error: &rusqlite::Error) -> String {
    match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure) => format!(
            "the journal could not be written: the disk may be full or failing; free some space and try again ({error})"
        ),
        Some(rusqlite::ErrorCode::DatabaseBusy) => format!(
            "another MindSage (the app or a command) kept the journal busy for longer than {} s; try again when it has finished ({error})",
            BUSY_TIMEOUT.as_secs()
        ),
        _ => error.to_string(),
    }
}

pub type Result<T, E = DbError> = std::result::Result<T, E>;

/// How long a connection waits for another one's write lock before it gives up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Connection settings a user or the bench may change.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageOptions {
    /// Bytes of the file SQLite may memory-map; 0 turns mapping off. Mapping saves a
    /// copy per page read, which is most of the cost of scans and vector search.
    pub mmap_size: u64,
    /// Page cache per connection, in KiB.
    pub cache_size_kib: u32,
    /// How long a statement waits for a lock before failing with "database is busy".
    pub busy_timeout: Duration,
    /// Load sqlite-vec into the connection. Off only to test how the app behaves where
    /// the extension cannot load.
    pub vector_extension: bool,
    /// The key of an encrypted journal ([`cipher`]); `None` for a plain one.
    pub key: Option<cipher::JournalKey>,
}

impl Default for StorageOptions {
    fn default() -> Self {
        StorageOptions {
            mmap_size: 1 << 30,
            cache_size_kib: 32 * 1024,
            busy_timeout: BUSY_TIMEOUT,
            vector_extension: true,
            key: None,
        }
    }
}

impl StorageOptions {
    /// The settings for the connections that serve background work, the writer and the
    /// model's job runner: no mapping and a small page cache. Their reads reach pages
    /// all over the file (a backfill's walk, over hours every entry the runner reads,
    /// and, through the kernel's read-around, the pages beside each), and mapped pages
    /// stay in the window's memory. Mapping pays on the reads a person waits for, which
    /// the UI's reader serves; a save reads a handful of pages, cheap from the page
    /// cache.
    pub fn for_background(&self) -> StorageOptions {
        self.unmapped(8 * 1024)
    }

    /// The settings for the connection that reads the lists a person scrolls (the
    /// journal's entries, the gallery), a page at a time along one index: no mapping
    /// and a small page cache. A scroll from the newest entry to the oldest walks the
    /// whole list index, and every fault on a mapped page maps the cached pages around
    /// it too (the kernel's fault-around), so a mapped walk left most of the journal
    /// file in the window's memory. Read, an index page costs one copy, which a page of
    /// rows never notices.
    pub fn for_lists(&self) -> StorageOptions {
        self.unmapped(2 * 1024)
    }

    fn unmapped(&self, cache_size_kib: u32) -> StorageOptions {
        StorageOptions {
            mmap_size: 0,
            cache_size_kib,
            ..self.clone()
        }
    }
}

/// Set once the process is ending ([`close_down`]).
static CLOSING_DOWN: AtomicBool = AtomicBool::new(false);

/// The long reads running now ([`Interruptible`]), by number.
static INTERRUPTIBLE: Mutex<Vec<(u64, InterruptHandle)>> = Mutex::new(Vec::new());
static NEXT_INTERRUPTIBLE: AtomicU64 = AtomicU64::new(0);

/// Tells the long copies this process makes (backups) to stop between steps and erase
/// what they made, and interrupts their checks ([`Interruptible`]): the process is
/// ending, and SQLite must not be in use while it tears down. A backup of an encrypted
/// journal still copying when the window's process ended crashed it inside SQLCipher
/// (issue #30); a backup's check of a 50,000-entry journal held the close for seconds.
/// It stays set: the process is ending.
pub fn close_down() {
    CLOSING_DOWN.store(true, Ordering::SeqCst);
    for (_, handle) in interruptible_reads().iter() {
        handle.interrupt();
    }
}

fn interruptible_reads() -> std::sync::MutexGuard<'static, Vec<(u64, InterruptHandle)>> {
    INTERRUPTIBLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// While held, [`close_down`] interrupts the statement running on a connection: for
/// reads that take seconds in one statement (`PRAGMA integrity_check`), which the
/// close would otherwise wait for. The statement then fails; its caller reports
/// [`DbError::ClosingDown`] when [`closing_down`] says so.
pub(crate) struct Interruptible(u64);

impl Interruptible {
    pub(crate) fn of(conn: &Connection) -> Interruptible {
        let id = NEXT_INTERRUPTIBLE.fetch_add(1, Ordering::Relaxed);
        interruptible_reads().push((id, conn.get_interrupt_handle()));
        Interruptible(id)
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        interruptible_reads().retain(|(id, _)| *id != self.0);
    }
}

/// Whether [`close_down`] was called: threads that wait or loop end at their next look.
pub fn closing_down() -> bool {
    CLOSING_DOWN.load(Ordering::SeqCst)
}

/// Opens (creating if needed) the journal at `path`, checks it, applies the standard
/// settings and brings its schema up to date.
pub fn open(path: &Path, options: &StorageOptions) -> Result<Connection> {
    let open_err = |source| DbError::Open {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        crate::files::create_private_dir(parent).map_err(|source| DbError::CreateFolder {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    // A new journal is made readable by the person only, and SQLite gives its -wal and
    // -shm files the same mode. When this fails, SQLite's open below fails the same way
    // and names the file.
    let _ = crate::files::reserve_private_file(path);
    cipher::finish_swap(path);
    let mut conn = cipher::connect(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI,
        options.key.as_ref(),
    )?;
    // Waits out another connection's lock from the first read on (it changes nothing in
    // the file).
    conn.busy_timeout(options.busy_timeout).map_err(open_err)?;
    // Reads only, before any setting that writes: a file we must not touch stays as it was.
    check_before_writing(&conn, path)?;
    cipher::erase_leftover_copy(path);
    if let Some(data_dir) = path.parent() {
        backup::erase_leftovers(data_dir);
    }
    if options.vector_extension {
        vec_extension::register(&conn);
    }
    apply_pragmas(&conn, options).map_err(open_err)?;
    // Every transaction this code opens writes, so it takes the write lock when it
    // begins. A deferred one that reads first and then writes cannot wait for a lock
    // another connection holds (SQLite answers BUSY at once to avoid a deadlock), so a
    // save would fail instead of waiting out busy_timeout.
    conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    migrate::migrate(&conn, path)?;
    Ok(conn)
}

pub(crate) fn check_before_writing(conn: &Connection, path: &Path) -> Result<()> {
    // A journal that cannot be read because nothing may be written beside it (a WAL
    // journal needs its -shm) is a journal all the same: say what is wrong.
    let not_a_journal = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ReadOnly) => DbError::ReadOnly {
            path: path.to_path_buf(),
        },
        // Only a keyed connection reads a page it cannot decrypt as "not a database"
        // past the header check in `cipher::key_connection`.
        _ if cipher::wrong_key(&e) && cipher::is_encrypted(path) => DbError::WrongPassphrase {
            path: path.to_path_buf(),
        },
        _ => DbError::NotAJournal {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
    };
    let read = |sql: &str| conn.query_row(sql, [], |row| row.get::<_, i64>(0));
    let objects = read(queries::OPEN_SCHEMA_OBJECTS.sql).map_err(not_a_journal)?;
    let app_id = read("PRAGMA application_id").map_err(not_a_journal)?;
    let version = read("PRAGMA user_version").map_err(not_a_journal)?;
    if objects > 0 && app_id != i64::from(APPLICATION_ID) {
        return Err(DbError::NotAJournal {
            path: path.to_path_buf(),
            detail: format!("it is a SQLite database of another program (application id {app_id:#x})"),
        });
    }
    if version > migrate::latest_version() {
        return Err(DbError::TooNew {
            path: path.to_path_buf(),
            found: version,
            supported: migrate::latest_version(),
        });
    }
    Ok(())
}

fn apply_pragmas(conn: &Connection, options: &StorageOptions) -> rusqlite::Result<()> {
    // Plans from the statement's text alone. Without this, SQLite 3.54 compiles a
    // statement again at every run whose `LIMIT ?` or `column = ?` it planned from the
    // value bound (a list page, every save's tag statements): a parse each time, which
    // was a seventh of an import's time. Our plans come from indexes chosen for them,
    // and the query-plan test checks them with no values bound: now they are the plans
    // that run.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    // journal_mode answers with the mode it ended up in; a file system without shared
    // memory would silently stay in "delete" mode, which effective_pragmas() reveals.
    let _mode = switch_to_wal(conn, options.busy_timeout)?;
    conn.execute_batch(&format!(
        "PRAGMA synchronous = NORMAL;
         PRAGMA foreign_keys = ON;
         PRAGMA secure_delete = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -{cache};
         PRAGMA mmap_size = {mmap};",
        cache = options.cache_size_kib,
        mmap = options.mmap_size,
    ))
}

/// Puts the journal in WAL mode, answering the mode it ended up in. The switch needs the
/// file to itself for a moment, and when another connection is switching it too (the
/// app's threads opening a new journal at its first start) SQLite answers BUSY at once
/// rather than call the busy handler, so the switch is tried again for as long as the
/// busy timeout would have waited.
fn switch_to_wal(conn: &Connection, wait: Duration) -> rusqlite::Result<String> {
    let start = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)) {
            Err(e)
                if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                    && start.elapsed() < wait =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            outcome => return outcome,
        }
    }
}

/// The settings SQLite is really using on a connection, read back rather than assumed:
/// a claim about WAL is only valid if this says "wal".
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EffectivePragmas {
    pub sqlite_version: String,
    pub journal_mode: String,
    pub synchronous: String,
    pub foreign_keys: bool,
    pub busy_timeout_ms: i64,
    pub secure_delete: bool,
    pub mmap_size: i64,
    pub cache_size: i64,
    pub temp_store: String,
    pub wal_autocheckpoint: i64,
    pub page_size: i64,
    pub schema_version: i64,
}

/// Reads [`EffectivePragmas`] from a connection.
pub fn effective_pragmas(conn: &Connection) -> Result<EffectivePragmas> {
    let int = |name: &str| conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0));
    let synchronous = match int("synchronous")? {
        0 => "off",
        1 => "normal",
        2 => "full",
        3 => "extra",
        _ => "unknown",
    };
    let temp_store = match int("temp_store")? {
        1 => "file",
        2 => "memory",
        _ => "default",
    };
    Ok(EffectivePragmas {
        sqlite_version: rusqlite::version().to_owned(),
        journal_mode: conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?,
        synchronous: synchronous.to_owned(),
        foreign_keys: int("foreign_keys")? == 1,
        busy_timeout_ms: int("busy_timeout")?,
        secure_delete: int("secure_delete")? == 1,
        mmap_size: int("mmap_size")?,
        cache_size: int("cache_size")?,
        temp_store: temp_store.to_owned(),
        wal_autocheckpoint: int("wal_autocheckpoint")?,
        // SQLCipher answers this one for an encrypted journal, as text.
        page_size: conn.query_row("PRAGMA page_size", [], |r| match r.get_ref(0)? {
            rusqlite::types::ValueRef::Text(text) => Ok(String::from_utf8_lossy(text).parse().unwrap_or(0)),
            _ => r.get(0),
        })?,
        schema_version: int("user_version")?,
    })
}

/// How much a checkpoint does (SQLite's modes of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Copies what it can without blocking anyone.
    Passive,
    /// Copies everything and empties the -wal file, so no old page (or deleted text)
    /// is left in it.
    Truncate,
}

/// Runs a checkpoint, waiting at most `wait` for other connections, then puts the
/// connection's normal busy timeout back. Returns whether it completed: a reader in the
/// middle of a read can hold it back.
pub fn checkpoint(
    conn: &Connection,
    mode: Checkpoint,
    wait: Duration,
    normal_wait: Duration,
) -> Result<bool> {
    let sql = match mode {
        Checkpoint::Passive => "PRAGMA wal_checkpoint(PASSIVE)",
        Checkpoint::Truncate => "PRAGMA wal_checkpoint(TRUNCATE)",
    };
    conn.busy_timeout(wait)?;
    let result = conn.query_row(sql, [], |row| row.get::<_, i64>(0));
    conn.busy_timeout(normal_wait)?;
    // The first column is 1 when a lock could not be had in time.
    Ok(result? == 0)
}
