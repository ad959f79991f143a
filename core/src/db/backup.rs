//! Backups made while the app runs, and restoring one without risking the journal.
//!
//! A backup is SQLite's online backup API copying the open journal page by page into a
//! temporary file beside the target (other connections keep reading and writing), then
//! checked and renamed, so a backup under its name is always whole. Restoring checks the
//! backup first (a MindSage journal, `integrity_check` ok, a schema this build knows), so
//! a bad backup changes nothing; then it sets the current journal aside, puts the backup
//! in its place and opens it (which upgrades an older schema), and only when that
//! succeeds erases the copy set aside. If the restored journal does not open, the
//! current one is put back.
//!
//! A backup of an encrypted journal is encrypted with the same key ([`super::cipher`]),
//! and opens with the passphrase the journal had when it was made.

use std::path::{Path, PathBuf};

use rusqlite::backup::StepResult;
use rusqlite::{Connection, MAIN_DB, OpenFlags};

use super::cipher::JournalKey;
use super::{DEFAULT_USER, DbError, Result, StorageOptions, cipher, entries};
use crate::files::{self, beside, with_suffix};

/// What a backup or a restore leaves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BackupReport {
    pub path: PathBuf,
    pub entries: u64,
    pub bytes: u64,
}

/// Copies the journal `conn` is open on (with `key`, if it is encrypted) into `dest`,
/// whole or not at all.
pub fn backup(conn: &Connection, dest: &Path, key: Option<&JournalKey>) -> Result<BackupReport> {
    // While the copy is made, no clean-up of `backups/` takes it for a killed one's.
    let _copying = conn.path().and_then(|p| Path::new(p).parent()).and_then(copying);
    let partial = beside(dest, "partial");
    erase_partial(&partial);
    // A backup is the journal: readable by the person only, as the journal is (SQLite
    // copies into the file there, and gives its rollback journal the same mode).
    if let Err(source) = crate::files::reserve_private_file(&partial) {
        return Err(DbError::Invalid(format!(
            "cannot write {}: {source}",
            partial.display()
        )));
    }
    let copied = copy_to(conn, &partial, key)
        .and_then(|()| self_contained(&partial, key))
        .and_then(|()| check(&partial, key))
        .and_then(|entries| {
            std::fs::rename(&partial, dest)
                .map_err(|e| DbError::Invalid(format!("cannot write {}: {e}", dest.display())))?;
            Ok(entries)
        });
    match copied {
        Ok(entries) => Ok(BackupReport {
            path: dest.to_path_buf(),
            entries,
            bytes: std::fs::metadata(dest).map(|m| m.len()).unwrap_or(0),
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(e)
        }
    }
}

/// Erases what a kill left of an earlier copy to the same file: the copy, and the files
/// SQLite keeps beside it while writing. They hold the journal's text, no list shows
/// them, and a copy must not start on top of them.
fn erase_partial(partial: &Path) {
    for leftover in ["", "-journal", "-wal", "-shm"].map(|suffix| with_suffix(partial, suffix)) {
        if leftover.exists()
            && let Err(error) = files::erase(&leftover)
        {
            tracing::warn!(%error, file = %leftover.display(), "cannot erase a half-made backup");
        }
    }
}

/// Copies the database `conn` is open on into a new file at `dest`, page by page,
/// encrypted with `key` as the source is (SQLCipher copies between files with the same key).
fn copy_to(conn: &Connection, dest: &Path, key: Option<&JournalKey>) -> Result<()> {
    let open_err = |source| DbError::Open {
        path: dest.to_path_buf(),
        source,
    };
    let mut copy = cipher::connect(dest, OpenFlags::default(), key)?;
    let steps =
        rusqlite::backup::Backup::new_with_names(conn, MAIN_DB, &mut copy, MAIN_DB).map_err(open_err)?;
    // Between steps, a look whether the process is ending.
    loop {
        if super::closing_down() {
            return Err(DbError::ClosingDown);
        }
        // Otherwise more to copy, or the source busy for a moment (the writer): step again.
        if steps.step(COPY_PAGES_PER_STEP).map_err(open_err)? == StepResult::Done {
            return Ok(());
        }
    }
}

/// Makes a copy one file with no -wal beside it (the copied header asks for WAL, and
/// every later open would leave -wal and -shm files next to the backup).
pub(crate) fn self_contained(path: &Path, key: Option<&JournalKey>) -> Result<()> {
    let conn = cipher::connect(path, OpenFlags::default(), key)?;
    let _mode: String = conn.query_row("PRAGMA journal_mode = DELETE", [], |row| row.get(0))?;
    Ok(())
}

/// Checks that `path` is a whole MindSage journal this build can open (with `key`, if
/// it is encrypted), without writing to it; returns how many entries it holds.
pub fn check(path: &Path, key: Option<&JournalKey>) -> Result<u64> {
    let conn = cipher::open_read_only(path, key)?;
    super::check_before_writing(&conn, path)?;
    let not_a_journal = |detail: String| DbError::NotAJournal {
        path: path.to_path_buf(),
        detail,
    };
    // Seconds on a large journal: the process's end interrupts it.
    let interruptible = super::Interruptible::of(&conn);
    if super::closing_down() {
        return Err(DbError::ClosingDown);
    }
    let verdict: String = conn
        .query_row("PRAGMA integrity_check(1)", [], |row| row.get(0))
        .map_err(|e| match super::closing_down() {
            true => DbError::ClosingDown,
            false => not_a_journal(e.to_string()),
        })?;
    drop(interruptible);
    if verdict != "ok" {
        return Err(not_a_journal(format!("its integrity check failed: {verdict}")));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version == 0 {
        return Err(not_a_journal("it holds no journal".into()));
    }
    entries::count(&conn, DEFAULT_USER)
}

/// Replaces the journal at `journal` with the backup at `from` (see the module
/// comment). The app must not have the journal open meanwhile. With `keep`, the
/// journal as it was is not erased once the backup opens but moved there whole (its
/// -wal and -shm beside it under the same name, so it opens as it was, with the same
/// key), so the person can go back.
pub fn restore(
    journal: &Path,
    from: &Path,
    options: &StorageOptions,
    keep: Option<&Path>,
) -> Result<BackupReport> {
    let key = options.key.as_ref();
    check(from, key)?;
    let staged = beside(journal, "restoring");
    let source = cipher::open_read_only(from, key)?;
    // What a restore killed before its swap left here is erased first (it holds the
    // text of a journal, and a leftover plain or under another key would be refused as
    // the copy's destination), and the copy starts on a new file readable by the person
    // only, as the journal it becomes.
    erase_partial(&staged);
    let reserved = crate::files::reserve_private_file(&staged)
        .map_err(|e| DbError::Invalid(format!("cannot write {}: {e}", staged.display())));
    if let Err(e) = reserved.and_then(|()| copy_to(&source, &staged, key)) {
        let _ = std::fs::remove_file(&staged);
        return Err(e);
    }
    drop(source);
    let aside: Vec<(&str, PathBuf, PathBuf)> = ["", "-wal", "-shm"]
        .into_iter()
        .map(|suffix| {
            (
                suffix,
                with_suffix(journal, suffix),
                with_suffix(&beside(journal, "before-restore"), suffix),
            )
        })
        .filter(|(_, current, _)| current.exists())
        .collect();
    let moved = aside
        .iter()
        .try_for_each(|(_, current, kept)| std::fs::rename(current, kept));
    let opened = moved
        .map_err(|e| DbError::Invalid(format!("cannot set the current journal aside: {e}")))
        .and_then(|()| {
            std::fs::rename(&staged, journal)
                .map_err(|e| DbError::Invalid(format!("cannot put the backup in place: {e}")))
        })
        .and_then(|()| super::open(journal, options).and_then(|conn| entries::count(&conn, DEFAULT_USER)));
    match opened {
        Ok(entries) => {
            for (suffix, _, aside) in &aside {
                let done = match keep {
                    Some(keep) => std::fs::rename(aside, with_suffix(keep, suffix))
                        .map_err(|e| format!("cannot keep the journal as it was in {}: {e}", keep.display())),
                    None => files::erase(aside).map_err(|e| format!("cannot erase {}: {e}", aside.display())),
                };
                done.map_err(DbError::Invalid)?;
            }
            Ok(BackupReport {
                path: journal.to_path_buf(),
                entries,
                bytes: std::fs::metadata(journal).map(|m| m.len()).unwrap_or(0),
            })
        }
        Err(e) => {
            // Put the current journal back as it was.
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(with_suffix(journal, suffix));
            }
            let _ = std::fs::remove_file(&staged);
            for (_, current, kept) in &aside {
                let _ = std::fs::rename(kept, current);
            }
            Err(e)
        }
    }
}

/// Replaces the journal `conn` is open on with the backup at `from` while the app runs:
/// SQLite's backup API copies the backup's pages into the open journal in one write
/// transaction, so the app's other connections stay open and read the restored journal
/// once it commits (a file swap would have to close them all first). Checked first as
/// [`restore`] checks. The journal as it was is first copied whole to `current_to` and
/// stays there, so the person can go back; if the restored journal does not open as a
/// journal of this version, that copy is put back. Caches built from the journal (the
/// vector copy, the dashboard's) are the caller's to drop: the app starts its threads
/// anew.
pub fn restore_into(
    conn: &mut Connection,
    journal: &Path,
    from: &Path,
    current_to: &Path,
    key: Option<&JournalKey>,
) -> Result<BackupReport> {
    check(from, key)?;
    backup(conn, current_to, key)?;
    let restored = copy_into(conn, from, key).and_then(|()| {
        super::migrate::migrate(conn, journal)?;
        entries::count(conn, DEFAULT_USER)
    });
    match restored {
        Ok(entries) => Ok(BackupReport {
            path: journal.to_path_buf(),
            entries,
            bytes: std::fs::metadata(journal).map(|m| m.len()).unwrap_or(0),
        }),
        Err(e) => {
            let put_back = copy_into(conn, current_to, key)
                .map(|()| "the journal is as it was".to_owned())
                .unwrap_or_else(|back| format!("putting the journal back failed too ({back})"));
            Err(DbError::Invalid(format!(
                "{e}; {put_back}, and a copy is in {}",
                current_to.display()
            )))
        }
    }
}

/// Where the app keeps the journal as it was before a restore: with the backups, under
/// a name the automatic backups' pruning leaves alone.
pub fn before_restore_path(data_dir: &Path, now: chrono::DateTime<chrono::Utc>) -> PathBuf {
    data_dir
        .join(BACKUPS_FOLDER)
        .join(format!("{BEFORE_RESTORE}{}.db", now.format(BACKUP_TIME)))
}

/// Copies the database at `from` over the one `conn` is open on, whole or not at all.
fn copy_into(conn: &mut Connection, from: &Path, key: Option<&JournalKey>) -> Result<()> {
    let source = cipher::open_read_only(from, key)?;
    rusqlite::backup::Backup::new(&source, conn)?.run_to_completion(
        COPY_PAGES_PER_STEP,
        std::time::Duration::ZERO,
        None,
    )?;
    Ok(())
}

/// Pages a restore copies per step: big steps, since the copy holds the writer anyway.
const COPY_PAGES_PER_STEP: std::ffi::c_int = 4096;

/// The folder of the automatic backups, inside the data folder.
pub const BACKUPS_FOLDER: &str = "backups";

/// The automatic backup: when the newest one in `backups/` is `every_days` old or more
/// (or there is none), a new one named by the time (`journal-2026-12-02T153000.250.db`), then
/// the oldest erased until `keep` are left. Nothing when `every_days` is 0, unless
/// `forced` (the person asked for one now). `key` is the journal's, if it is encrypted.
pub fn backup_if_due(
    conn: &Connection,
    data_dir: &Path,
    every_days: u32,
    keep: u32,
    now: chrono::DateTime<chrono::Utc>,
    forced: bool,
    key: Option<&JournalKey>,
) -> Result<Option<BackupReport>> {
    if every_days == 0 && !forced {
        return Ok(None);
    }
    let folder = data_dir.join(BACKUPS_FOLDER);
    crate::files::create_private_dir(&folder).map_err(|source| DbError::CreateFolder {
        path: folder.clone(),
        source,
    })?;
    // Oldest first.
    let mut kept: Vec<(chrono::NaiveDateTime, PathBuf)> = list(data_dir)
        .into_iter()
        .rev()
        .filter(|b| b.automatic)
        .map(|b| (b.taken, b.path))
        .collect();
    let due = forced
        || match kept.last() {
            Some((taken, _)) => now.naive_utc() - *taken >= chrono::Duration::days(i64::from(every_days)),
            None => true,
        };
    if !due {
        return Ok(None);
    }
    let path = folder.join(format!("{AUTOMATIC}{}.db", now.format(BACKUP_TIME)));
    erase_leftovers(data_dir);
    // Held through the pruning too: an old backup being erased is hidden meanwhile.
    let _copying = copying(data_dir);
    let report = backup(conn, &path, key)?;
    kept.push((now.naive_utc(), path));
    let excess = kept.len().saturating_sub(keep.max(1) as usize);
    for (_, old) in kept.drain(..excess) {
        erase_unlisted(&old)
            .map_err(|e| DbError::Invalid(format!("cannot erase the old backup {}: {e}", old.display())))?;
    }
    Ok(Some(report))
}

/// Erases an old backup after taking it out of the list (a hidden name): erasing
/// overwrites it in place, and a kill meanwhile must not leave a listed backup that is
/// no longer whole.
fn erase_unlisted(old: &Path) -> std::io::Result<()> {
    let hidden = beside(old, "erasing");
    std::fs::rename(old, &hidden)?;
    files::erase(&hidden)
}

/// The file in `backups/` that every copy into the data folder holds a shared lock on
/// while it is made, and that [`erase_leftovers`] takes whole: a clean-up never erases a
/// copy another process (the window's daily backup, a `mindsage backup`) or thread is
/// still making. It holds no text.
pub const COPYING_LOCK: &str = ".copying.lock";

/// A shared hold on `backups/`'s lock for as long as it is kept: `None` when the data
/// folder has no `backups/` (nothing there to clean up either) or the lock cannot be
/// had (then a clean-up cannot have it whole either).
fn copying(data_dir: &Path) -> Option<std::fs::File> {
    let folder = data_dir.join(BACKUPS_FOLDER);
    if !folder.is_dir() {
        return None;
    }
    let lock = open_lock(&folder).ok()?;
    // Waits only while a clean-up runs: a listing and a few erasures.
    lock.lock_shared().ok()?;
    Some(lock)
}

/// The lock file, made readable by the person only as everything in the data folder is.
fn open_lock(folder: &Path) -> std::io::Result<std::fs::File> {
    let path = folder.join(COPYING_LOCK);
    crate::files::reserve_private_file(&path)?;
    std::fs::OpenOptions::new().read(true).write(true).open(path)
}

/// Erases what a kill left in the data folder's `backups/`: a copy it was making
/// (`.NAME.partial`, whatever the backup's name, with the -journal, -wal or -shm beside
/// it) or an old backup it was erasing (`.NAME.erasing`). No list shows them, they hold
/// the journal's text through a purge and, plain, beside a journal encrypted since
/// (#30). Called whenever the journal is opened. Nothing is erased while any copy into
/// the folder is being made ([`COPYING_LOCK`]): the next open erases them.
pub(crate) fn erase_leftovers(data_dir: &Path) {
    let folder = data_dir.join(BACKUPS_FOLDER);
    if !folder.is_dir() {
        return;
    }
    let Ok(lock) = open_lock(&folder) else { return };
    if lock.try_lock().is_err() {
        return;
    }
    let leftovers = std::fs::read_dir(&folder)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| is_leftover(&e.file_name().to_string_lossy()));
    for leftover in leftovers {
        if let Err(error) = files::erase(&leftover.path()) {
            tracing::warn!(%error, file = %leftover.path().display(), "cannot erase a half-made backup");
        }
    }
}

/// Whether a file name in `backups/` is one a backup gives its copy while making it, or
/// an old backup while erasing it ([`beside`]), or a file SQLite keeps beside those.
fn is_leftover(name: &str) -> bool {
    let Some(hidden) = name.strip_prefix('.') else {
        return false;
    };
    let main = ["-journal", "-wal", "-shm"]
        .iter()
        .find_map(|suffix| hidden.strip_suffix(suffix))
        .unwrap_or(hidden);
    main.ends_with(".partial") || main.ends_with(".erasing")
}

/// How an automatic backup's name gives its time.
const BACKUP_TIME: &str = "%Y-%m-%dT%H%M%S%.3f";

/// How the automatic backups are named, before their time.
const AUTOMATIC: &str = "journal-";
/// How the copies kept before a restore are named, before their time.
const BEFORE_RESTORE: &str = "before-restore-";

/// A backup in the data folder's `backups/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFile {
    pub path: PathBuf,
    /// When it was made (UTC), from its name.
    pub taken: chrono::NaiveDateTime,
    pub bytes: u64,
    /// Made by the schedule (and pruned by it), not kept before a restore.
    pub automatic: bool,
}

/// The backups in the data folder's `backups/`, newest first: the automatic ones and the
/// copies kept before a restore. Files named otherwise are not listed.
pub fn list(data_dir: &Path) -> Vec<BackupFile> {
    let mut found: Vec<BackupFile> = std::fs::read_dir(data_dir.join(BACKUPS_FOLDER))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".db")?;
            let (automatic, time) = match stem.strip_prefix(AUTOMATIC) {
                Some(time) => (true, time),
                None => (false, stem.strip_prefix(BEFORE_RESTORE)?),
            };
            let taken = chrono::NaiveDateTime::parse_from_str(time, BACKUP_TIME).ok()?;
            Some(BackupFile {
                bytes: e.metadata().map(|m| m.len()).unwrap_or(0),
                path: e.path(),
                taken,
                automatic,
            })
        })
        .collect();
    found.sort_by_key(|b| std::cmp::Reverse(b.taken));
    found
}

/// Every file in the data folder's `backups/`, whatever its name (a backup the person made
/// there with `mindsage backup backups/manual.db` too), but for SQLite's companions of a
/// file (`-wal`, `-shm`, `-journal`) and the hidden files of a backup being made: what a
/// change of encryption must convert, so that no plain copy of the journal stays beside
/// an encrypted one.
pub fn every_file(data_dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(data_dir.join(BACKUPS_FOLDER))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && !["-wal", "-shm", "-journal"].iter().any(|s| name.ends_with(s))
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Brings the backups in `data_dir` in line with a change of the journal's key (`from`
/// was its key, `to` is its key now; `None`: plain), so turning encryption on covers
/// the backups made before, and a backup opens with the journal's passphrase. Every
/// file in `backups/` is tried, whatever its name ([`every_file`]). A
/// backup that does not open with `from` (made under an earlier passphrase), or a file
/// that is not a journal, is left as it is. Returns a line per file that could not be
/// changed, naming it.
pub fn follow(data_dir: &Path, from: Option<&JournalKey>, to: Option<&JournalKey>) -> Vec<String> {
    let options = StorageOptions {
        key: from.cloned(),
        ..StorageOptions::default()
    }
    .for_background();
    every_file(data_dir)
        .into_iter()
        .filter_map(|backup| {
            let changed = match (from, to) {
                // Rekeyed in place, the backup is left in WAL mode by the open that
                // took it: put back in rollback mode, one file, as every backup is.
                (Some(_), Some(to)) => {
                    cipher::rekey_to(&backup, &options, to).and_then(|()| self_contained(&backup, Some(to)))
                }
                _ => cipher::convert(&backup, &options, to),
            };
            changed.err().map(|e| format!("{}: {e}", backup.display()))
        })
        .collect()
}
