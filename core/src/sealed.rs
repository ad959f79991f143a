//! Sealed files: what MindSage writes beside an encrypted journal before the journal can
//! hold it (a draft whose save could not reach the journal, a recording while it is
//! spoken), encrypted with the journal's own key, so nothing decrypted reaches the disk.
//!
//! **Why a small SQLCipher database** rather than a cipher over a stream of bytes: the
//! journal's key is a SQLCipher page key, and SQLCipher is already linked and already
//! trusted with the journal. A database gives these files what they need without a
//! format of our own: every page encrypted and authenticated (a changed byte is refused,
//! never read back as noise), and appends that survive a kill: each part is committed
//! in a transaction of its own, so a kill leaves every part committed before it (the
//! rollback journal undoes the one in progress at the next open). No new crypto crate
//! and no key derivation per file: the connection is given the journal's raw key with
//! its salt ([`cipher::key_connection`]), so a sealed file starts with the journal's
//! salt, opens with the journal's passphrase, and is told apart from a plain file by
//! [`cipher::file_kind`] as the journal is.
//!
//! A sealed file holds numbered parts, `parts(n INTEGER PRIMARY KEY, bytes BLOB)`: a
//! recording appends one per second of sound, a draft is one part. Its header carries
//! its own application id, so a sealed file is never taken for a journal, nor a journal
//! for a sealed file. Files are readable by the person only (0600), as the journal is,
//! and erased (overwritten, then removed) with the journal SQLite may keep beside them.
//!
//! The statements here run on a sealed file, never on the journal: they are not in the
//! journal's catalogue (`db/queries`) or its query-plan test.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};

use crate::db::cipher::{self, JournalKey, io_error};
use crate::db::{DbError, Result};
use crate::files::{self, beside};

/// The extension of a sealed file (`recording-….sealed`, `entry-12.sealed`).
pub const EXTENSION: &str = "sealed";

/// "MSsl" in SQLite's header (`PRAGMA application_id`); the journal's is "MSge".
const APPLICATION_ID: i32 = 0x4D53_736C;

/// Whether `path` is named as a sealed file.
pub fn is_sealed(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(EXTENSION))
}

/// A sealed file open for appending parts.
pub struct SealedFile {
    path: PathBuf,
    conn: Connection,
    parts: i64,
}

impl SealedFile {
    /// Creates an empty sealed file at `path` (and its folder), keyed with `key`; a file
    /// already there is erased first.
    pub fn create(path: &Path, key: &JournalKey) -> Result<SealedFile> {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            crate::files::create_private_dir(folder).map_err(|source| DbError::CreateFolder {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        files::erase_with_companions(path).map_err(|e| io_error(path, e))?;
        // Private before SQLite creates it; SQLite gives its -journal the same mode.
        crate::files::reserve_private_file(path).map_err(|e| io_error(path, e))?;
        let conn = connect(path, key)?;
        conn.execute_batch(&format!(
            "BEGIN;
             PRAGMA application_id = {APPLICATION_ID};
             CREATE TABLE parts(n INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
             COMMIT;"
        ))?;
        Ok(SealedFile {
            path: path.to_path_buf(),
            conn,
            parts: 0,
        })
    }

    /// Writes `parts` into a new sealed file at `path` that replaces whatever is there
    /// only once it is complete: written beside it under another name, then renamed
    /// over it. A kill in between leaves the older file as it was.
    pub fn write_whole(path: &Path, key: &JournalKey, parts: &[&[u8]]) -> Result<()> {
        let writing = beside(path, "writing");
        let mut file = SealedFile::create(&writing, key)?;
        for part in parts {
            file.append(part)?;
        }
        file.close()?;
        std::fs::rename(&writing, path).map_err(|e| io_error(path, e))
    }

    /// Appends a part in a transaction of its own: when this returns, the part is on disk.
    pub fn append(&mut self, bytes: &[u8]) -> Result<()> {
        self.conn
            .prepare_cached("INSERT INTO parts(n, bytes) VALUES (?1, ?2)")?
            .execute(params![self.parts + 1, bytes])?;
        self.parts += 1;
        Ok(())
    }

    /// The parts written so far.
    pub fn parts(&self) -> i64 {
        self.parts
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes the file: nothing is left beside it.
    pub fn close(self) -> Result<()> {
        self.conn.close().map_err(|(_, e)| DbError::from(e))
    }
}

/// Opens the sealed file at `path` with `key` and reads every part, in order. A file a
/// kill left half made (created, its table not yet) holds no parts; a wrong key, a
/// damaged file and a file that is no sealed file are each refused with an error that
/// names it, and the file is left as it was.
pub fn read_all(path: &Path, key: &JournalKey) -> Result<Vec<Vec<u8>>> {
    if !path.exists() {
        return Err(io_error(path, std::io::Error::from(std::io::ErrorKind::NotFound)));
    }
    let conn = connect(path, key)?;
    if !has_parts_table(&conn, path)? {
        return Ok(Vec::new());
    }
    let mut statement = conn.prepare("SELECT bytes FROM parts ORDER BY n")?;
    let parts = statement
        .query_map([], |row| row.get::<_, Vec<u8>>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(|e| unreadable(path, &e))?;
    Ok(parts)
}

/// Changes the key of the sealed file at `path` from `from` to `to` in place (SQLCipher's
/// `PRAGMA rekey`, one transaction), and checks that it opens with `to`.
pub fn rekey(path: &Path, from: &JournalKey, to: &JournalKey) -> Result<()> {
    {
        let conn = connect(path, from)?;
        cipher::rekey_connection(&conn, to)?;
    }
    let conn = connect(path, to)?;
    has_parts_table(&conn, path).map(drop)
}

/// Whether `path` is a file written beside under a name nothing lists (a leading dot:
/// a conversion's or a whole write's file a kill left), never a waiting file itself.
pub(crate) fn is_written_beside(path: &Path) -> bool {
    path.file_name()
        .is_none_or(|n| n.to_string_lossy().starts_with('.'))
}

/// What a change of the journal's key does to one kind of waiting file: how a plain one
/// is read as parts, and how parts are written as a plain one.
pub(crate) struct Spooled {
    /// The plain kind's extension (`wav`, `txt`).
    pub plain: &'static str,
    /// A plain file's content as the parts of a sealed one.
    pub read_plain: fn(&Path) -> std::result::Result<Vec<Vec<u8>>, String>,
    /// Writes the parts of a sealed file as a plain file.
    pub write_plain: fn(&Path, &[Vec<u8>]) -> std::result::Result<(), String>,
}

/// Brings the files waiting in `folder` in line with a change of the journal's key
/// (`from` was its key, `to` is its key now; `None`: plain): on encrypting, plain files
/// are sealed and the plain copies erased; on decrypting, sealed files become plain
/// ones and are erased; a new passphrase rekeys sealed files in place. Each new file is
/// written beside under a name nothing lists, then renamed, then the old one erased.
/// Returns a line per file that could not follow (one sealed under an earlier key).
pub(crate) fn follow_in_folder(
    folder: &Path,
    kind: &Spooled,
    from: Option<&JournalKey>,
    to: Option<&JournalKey>,
) -> Vec<String> {
    let Ok(items) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = items.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let mut left = Vec::new();
    for file in files {
        if is_written_beside(&file) {
            // A conversion's or a whole write's file beside, left by a kill.
            let _ = files::erase_with_companions(&file);
            continue;
        }
        let plain = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(kind.plain));
        let outcome = match (is_sealed(&file), plain, from, to) {
            (true, _, Some(from), Some(to)) => rekey(&file, from, to).map_err(|e| e.to_string()),
            (true, _, Some(from), None) => unseal(&file, kind, from),
            (true, _, None, _) => Err("it was sealed under another passphrase".to_owned()),
            (false, true, _, Some(to)) => seal(&file, kind, to),
            _ => Ok(()),
        };
        if let Err(why) = outcome {
            left.push(format!("{}: {why}", file.display()));
        }
    }
    left
}

/// A sealed file in `kind`'s plain form, the sealed one erased.
fn unseal(file: &Path, kind: &Spooled, key: &JournalKey) -> std::result::Result<(), String> {
    let parts = read_all(file, key).map_err(|e| e.to_string())?;
    let target = free_name(file, kind.plain);
    let writing = beside(&target, "converting");
    (kind.write_plain)(&writing, &parts)?;
    std::fs::rename(&writing, &target).map_err(|e| e.to_string())?;
    files::erase_with_companions(file).map_err(|e| e.to_string())
}

/// A plain file sealed with `key`, the plain one erased.
fn seal(file: &Path, kind: &Spooled, key: &JournalKey) -> std::result::Result<(), String> {
    let parts = (kind.read_plain)(file)?;
    let target = free_name(file, EXTENSION);
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    SealedFile::write_whole(&target, key, &parts).map_err(|e| e.to_string())?;
    files::erase(file).map_err(|e| e.to_string())
}

/// `file` with `extension`, or with "-2", "-3"… added to its name when that is taken.
fn free_name(file: &Path, extension: &str) -> PathBuf {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut target = file.with_file_name(format!("{stem}.{extension}"));
    let mut n = 2;
    while target.exists() {
        target = file.with_file_name(format!("{stem}-{n}.{extension}"));
        n += 1;
    }
    target
}

/// A keyed connection to an existing (or just reserved) sealed file, checked: the key
/// is refused when the file's salt is not its salt, or when its first page does not
/// decrypt. Reads nothing else and writes nothing until asked.
fn connect(path: &Path, key: &JournalKey) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = cipher::connect(path, flags, Some(key)).map_err(|e| match e {
        DbError::NotAJournal { detail, .. } => not_sealed(path, &detail),
        DbError::NotEncrypted { .. } => not_sealed(path, "it is a plain SQLite database"),
        other => other,
    })?;
    // A read of a recording still being made waits for the part being committed, and
    // the other way round, instead of failing.
    conn.busy_timeout(crate::db::BUSY_TIMEOUT)?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
        row.get::<_, i64>(0)
    })
    .map_err(|e| unreadable(path, &e))?;
    // Each part's own transaction reaches the disk before `append` returns; a kill in
    // the middle of one is rolled back from the -journal at the next open.
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")?;
    Ok(conn)
}

/// Whether the file has its table: not yet when a kill came in the middle of making it.
/// A file of another program (or a journal) is refused.
fn has_parts_table(conn: &Connection, path: &Path) -> Result<bool> {
    let (objects, app_id): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM sqlite_schema), (SELECT application_id FROM pragma_application_id)",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .map_err(|e| unreadable(path, &e))?;
    match (objects, app_id == i64::from(APPLICATION_ID)) {
        (0, _) => Ok(false),
        (_, true) => Ok(true),
        (_, false) => Err(not_sealed(
            path,
            &format!("a SQLite database of another kind (application id {app_id:#x})"),
        )),
    }
}

/// The error of a read on a keyed connection: a page that does not decrypt is a wrong
/// key or damage (SQLCipher cannot tell them apart), anything else is damage.
fn unreadable(path: &Path, error: &rusqlite::Error) -> DbError {
    match cipher::wrong_key(error) {
        true => DbError::WrongPassphrase {
            path: path.to_path_buf(),
        },
        false => not_sealed(path, &error.to_string()),
    }
}

fn not_sealed(path: &Path, detail: &str) -> DbError {
    DbError::Invalid(format!(
        "{} is not a sealed file MindSage can read, or it is damaged ({detail}); it was left untouched",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::SystemTime;

    use super::*;
    use crate::files::with_suffix;

    /// A key without the second a derivation takes: random bytes with `salt`.
    fn key(salt: [u8; 16]) -> JournalKey {
        let bytes: Vec<u8> = (0..32).map(|_| rand::random::<u8>()).chain(salt).collect();
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        JournalKey::from_raw_hex(&hex).unwrap()
    }

    fn part(n: usize) -> Vec<u8> {
        format!("part {n}: zqxsealedmarker ").repeat(200 + n).into_bytes()
    }

    /// Every file in `dir` with its bytes and modification time.
    fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                (path.clone(), (std::fs::read(&path).unwrap(), modified))
            })
            .collect()
    }

    #[test]
    fn parts_read_back_in_order_and_nothing_of_them_is_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spool/one.sealed");
        let key = key([3; 16]);
        let mut file = SealedFile::create(&path, &key).unwrap();
        for n in 0..5 {
            file.append(&part(n)).unwrap();
        }
        assert_eq!(file.parts(), 5);
        assert_eq!(
            read_all(&path, &key).unwrap(),
            (0..5).map(part).collect::<Vec<_>>(),
            "read while still open"
        );
        file.close().unwrap();
        assert_eq!(read_all(&path, &key).unwrap().len(), 5);
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["one.sealed"], "no -journal beside a closed file");
        let bytes = std::fs::read(&path).unwrap();
        assert!(!bytes.windows(15).any(|w| w == b"zqxsealedmarker"));
        assert_eq!(
            cipher::file_kind(&path).unwrap(),
            cipher::FileKind::Encrypted { salt: [3; 16] },
            "the journal's salt"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }

        // Replaced whole, then erased with whatever is beside it.
        SealedFile::write_whole(&path, &key, &[b"only this".as_slice()]).unwrap();
        assert_eq!(read_all(&path, &key).unwrap(), [b"only this".to_vec()]);
        std::fs::write(with_suffix(&path, "-journal"), b"left by a kill").unwrap();
        files::erase_with_companions(&path).unwrap();
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 0);
        files::erase_with_companions(&path).unwrap();
    }

    #[test]
    fn a_wrong_key_or_damage_is_refused_and_the_file_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("draft.sealed");
        let right = key([0x99; 16]);
        SealedFile::write_whole(&path, &right, &[b"private words".as_slice()]).unwrap();
        let before = snapshot(dir.path());
        std::thread::sleep(std::time::Duration::from_millis(20));

        // Another salt: refused before anything is read. The same salt, another key
        // (a journal whose passphrase changed): refused at the first page.
        for wrong in [key([1; 16]), key([0x99; 16])] {
            let error = read_all(&path, &wrong).unwrap_err();
            assert!(matches!(error, DbError::WrongPassphrase { .. }), "{error}");
            assert!(error.to_string().contains("draft.sealed"), "{error}");
            assert!(rekey(&path, &wrong, &right).is_err());
        }
        assert_eq!(snapshot(dir.path()), before, "refusals change nothing");
        assert_eq!(read_all(&path, &right).unwrap(), [b"private words".to_vec()]);

        // A damaged page, a file cut short, text, a journal: errors, never a panic.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[5000] ^= 0xff;
        std::fs::write(&path, &bytes).unwrap();
        // SQLCipher refuses the page (its HMAC), which reads as a wrong key or damage.
        let damaged = read_all(&path, &right).unwrap_err();
        assert!(damaged.to_string().contains("damaged"), "{damaged}");
        std::fs::write(&path, &bytes[..3000]).unwrap();
        let cut = read_all(&path, &right).unwrap_err();
        assert!(cut.to_string().contains("not a sealed file"), "{cut}");
        std::fs::write(&path, "Title: plain words\n".repeat(100)).unwrap();
        assert!(read_all(&path, &right).is_err());
        std::fs::remove_file(&path).unwrap();
        let journal = dir.path().join("journal.db");
        let conn = crate::db::open(
            &journal,
            &crate::db::StorageOptions {
                key: Some(right.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        drop(conn);
        let error = read_all(&journal, &right).unwrap_err();
        assert!(error.to_string().contains("another kind"), "{error}");
        assert!(read_all(&dir.path().join("missing.sealed"), &right).is_err());
    }

    #[test]
    fn a_new_key_opens_it_and_the_old_one_no_longer_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.sealed");
        let (old, new) = (key([4; 16]), key([4; 16]));
        SealedFile::write_whole(&path, &old, &[b"one".as_slice(), b"two".as_slice()]).unwrap();
        rekey(&path, &old, &new).unwrap();
        assert_eq!(read_all(&path, &new).unwrap(), [b"one".to_vec(), b"two".to_vec()]);
        assert!(matches!(
            read_all(&path, &old),
            Err(DbError::WrongPassphrase { .. })
        ));
    }

    /// The child of [`a_kill_keeps_every_part_committed_before_it`]: appends parts,
    /// says so after each, then starts one more whose pages reach the file and the
    /// -journal, and waits to be killed in the middle of it.
    #[test]
    #[ignore = "run by a_kill_keeps_every_part_committed_before_it"]
    fn sealed_kill_child() {
        let Ok(task) = std::env::var("MINDSAGE_SEALED_CHILD") else {
            return;
        };
        let (path, hex, parts) = {
            let mut fields = task.split('\n');
            let mut next = || fields.next().unwrap().to_owned();
            (PathBuf::from(next()), next(), next().parse::<usize>().unwrap())
        };
        let key = JournalKey::from_raw_hex(&hex).unwrap();
        let mut file = SealedFile::create(&path, &key).unwrap();
        for n in 0..parts {
            file.append(&part(n)).unwrap();
            println!("committed {}", n + 1);
        }
        // A page cache of a few pages: the uncommitted part spills into the file.
        file.conn.execute_batch("PRAGMA cache_size = 2; BEGIN").unwrap();
        file.conn
            .execute(
                "INSERT INTO parts(n, bytes) VALUES (?1, ?2)",
                params![parts as i64 + 1, vec![7_u8; 256 * 1024]],
            )
            .unwrap();
        println!("in the middle");
        std::thread::sleep(std::time::Duration::from_secs(60));
    }

    #[test]
    fn a_kill_keeps_every_part_committed_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recording.sealed");
        let key = key([5; 16]);
        let task = format!("{}\n{}\n{}", path.display(), &*key.to_raw_hex(), 3);
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "sealed::tests::sealed_kill_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("MINDSAGE_SEALED_CHILD", task)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut committed = 0;
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("committed ") {
                committed = n.parse().unwrap();
            }
            if line == "in the middle" {
                break;
            }
        }
        assert_eq!(committed, 3);
        assert!(
            with_suffix(&path, "-journal").exists(),
            "killed in the middle of a transaction"
        );
        child.kill().unwrap();
        child.wait().unwrap();

        assert_eq!(
            read_all(&path, &key).unwrap(),
            (0..3).map(part).collect::<Vec<_>>(),
            "the parts committed, not the one in the middle"
        );
        assert!(
            !with_suffix(&path, "-journal").exists(),
            "the open rolled the -journal back"
        );
        // Carried on after the crash: a sealed file made again from scratch is empty.
        let mut again = SealedFile::create(&path, &key).unwrap();
        again.append(b"new").unwrap();
        drop(again);
        assert_eq!(read_all(&path, &key).unwrap(), [b"new".to_vec()]);
    }
}
