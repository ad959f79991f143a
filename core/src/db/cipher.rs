//! Encryption at rest: the journal file, its -wal and its backups encrypted page by page
//! with SQLCipher, and the conversions between a plain and an encrypted journal.
//!
//! **The key.** A passphrase becomes the page key through SQLCipher 4's own key
//! derivation: PBKDF2-HMAC-SHA512, [`KDF_ITERATIONS`] rounds, the 16-byte salt SQLCipher
//! keeps at the start of the file. We derive it here, once per unlock, and give every
//! connection the raw key with its salt (`PRAGMA key = "x'…'"`), so the app's half-dozen
//! connections pay the derivation once instead of each. The file stays a standard
//! SQLCipher 4 database: `sqlcipher` opens it with the passphrase (a test checks that
//! both derivations agree).
//!
//! **Telling files apart** before SQLite reads them: a plain journal starts with "SQLite
//! format 3", an encrypted one with its salt. A wrong passphrase, a plain journal given a
//! passphrase and an encrypted one given none each get their own message, and nothing
//! is written to the file.
//!
//! **Converting** (encrypt, decrypt) needs the journal to itself: one connection takes
//! it in SQLite's exclusive locking mode (refused while another MindSage has it open),
//! copies it with `sqlcipher_export` into a new file beside it, checks the copy
//! (`integrity_check`, the same number of entries), then swaps the two and overwrites the
//! old file before removing it. A kill in between leaves either journal whole: the next
//! [`super::open`] finishes the swap or puts the old journal back, and erases the copy.
//! Changing the passphrase is SQLCipher's `PRAGMA rekey`, in place.

use std::path::{Path, PathBuf};

use rand::RngCore;
use rusqlite::{Connection, OpenFlags};
use sha2::Sha512;
use zeroize::Zeroizing;

use super::{DEFAULT_USER, DbError, Result, StorageOptions, entries};
use crate::files::{self, beside, erase_with_companions, with_suffix};

/// SQLCipher 4's default PBKDF2-HMAC-SHA512 rounds. A new encrypted journal uses them,
/// so any SQLCipher 4 opens it with the passphrase alone.
pub const KDF_ITERATIONS: u32 = 256_000;

const KEY_LEN: usize = 32;
const SALT_LEN: usize = 16;

/// SQLite's smallest page: every whole database file is a number of these.
const MIN_PAGE: u64 = 512;

/// What every plain SQLite file starts with.
pub(crate) const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// A passphrase as typed, wiped from memory when dropped, never printed.
#[derive(Clone)]
pub struct Passphrase(Zeroizing<String>);

impl Passphrase {
    /// Refuses an empty passphrase (SQLCipher would take it as "no encryption").
    pub fn new(text: impl Into<String>) -> Result<Passphrase> {
        let text = Zeroizing::new(text.into());
        if text.is_empty() {
            return Err(DbError::Invalid("the passphrase is empty".into()));
        }
        Ok(Passphrase(text))
    }

    /// A passphrase from the first line of a file (`--passphrase-file`), without its
    /// line ending.
    pub fn from_file(path: &Path) -> Result<Passphrase> {
        let text = Zeroizing::new(std::fs::read_to_string(path).map_err(|e| {
            DbError::Invalid(format!("cannot read the passphrase from {}: {e}", path.display()))
        })?);
        Passphrase::new(text.lines().next().unwrap_or_default())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Passphrase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Passphrase(hidden)")
    }
}

/// The page key of one encrypted journal and the salt it was derived with: what every
/// connection to the journal (and to its backups) is given. Wiped from memory when
/// dropped; locking the app drops every copy.
#[derive(Clone)]
pub struct JournalKey {
    key: Zeroizing<[u8; KEY_LEN]>,
    salt: [u8; SALT_LEN],
}

impl JournalKey {
    /// The key `passphrase` gives with `salt`, as SQLCipher 4 derives it. Takes a few
    /// hundred milliseconds by design: never on the UI thread.
    pub fn derive(passphrase: &Passphrase, salt: [u8; SALT_LEN]) -> JournalKey {
        let mut key = Zeroizing::new([0_u8; KEY_LEN]);
        pbkdf2::pbkdf2_hmac::<Sha512>(passphrase.as_str().as_bytes(), &salt, KDF_ITERATIONS, &mut *key);
        JournalKey { key, salt }
    }

    /// The key for a new encrypted file, with a new random salt.
    pub fn for_new_file(passphrase: &Passphrase) -> JournalKey {
        let mut salt = [0_u8; SALT_LEN];
        rand::rng().fill_bytes(&mut salt);
        JournalKey::derive(passphrase, salt)
    }

    /// The key in SQLCipher's raw-key form, 96 hex digits (the key, then the salt):
    /// what a process that must not derive the key again is handed (the crash tests'
    /// child processes), and what `sqlcipher` opens the journal with as
    /// `PRAGMA key = "x'…'"`. As secret as the passphrase.
    pub fn to_raw_hex(&self) -> Zeroizing<String> {
        let literal = self.literal();
        Zeroizing::new(literal[3..literal.len() - 2].to_owned())
    }

    /// A key from its raw-key form ([`JournalKey::to_raw_hex`]).
    ///
    /// Tests only (a key handed to a child process, or one made from known bytes).
    #[doc(hidden)]
    pub fn from_raw_hex(text: &str) -> Result<JournalKey> {
        let invalid = || DbError::Invalid("a raw key is 96 hex digits: the key, then the salt".into());
        let text = text.trim();
        if text.len() != 2 * (KEY_LEN + SALT_LEN) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid());
        }
        let mut bytes = Zeroizing::new([0_u8; KEY_LEN + SALT_LEN]);
        for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).map_err(|_| invalid())?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| invalid())?;
        }
        let mut key = Zeroizing::new([0_u8; KEY_LEN]);
        key.copy_from_slice(&bytes[..KEY_LEN]);
        let mut salt = [0_u8; SALT_LEN];
        salt.copy_from_slice(&bytes[KEY_LEN..]);
        Ok(JournalKey { key, salt })
    }

    /// SQLCipher's raw-key form, `x'<key><salt>'`, in memory wiped after use.
    fn literal(&self) -> Zeroizing<String> {
        let mut text = Zeroizing::new(String::with_capacity(4 + 2 * (KEY_LEN + SALT_LEN)));
        text.push_str("\"x'");
        for byte in self.key.iter().chain(&self.salt) {
            text.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
            text.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
        }
        text.push_str("'\"");
        text
    }

    /// Keys a connection: the first statement it runs.
    pub(crate) fn apply(&self, conn: &Connection) -> rusqlite::Result<()> {
        // SQLCipher writes its own lines to stderr when a page does not decrypt (a
        // wrong passphrase); the error we return says it once, in the person's words.
        conn.execute_batch("PRAGMA cipher_log_level = NONE")?;
        // What SQLite frees (pages read and decrypted, statements' rows) is wiped first,
        // in the whole process from here on: locking drops the connections, and their
        // pages must not stay readable in freed memory (issue #30). SQLCipher keeps it on
        // for the rest of the process; a plain journal never turns it on.
        conn.execute_batch("PRAGMA cipher_memory_security = ON")?;
        conn.execute_batch(&Zeroizing::new(format!("PRAGMA key = {};", *self.literal())))
    }
}

impl PartialEq for JournalKey {
    fn eq(&self, other: &JournalKey) -> bool {
        self.salt == other.salt && *self.key == *other.key
    }
}

impl std::fmt::Debug for JournalKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JournalKey(hidden)")
    }
}

/// What a journal file is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// No file, or an empty one: a new journal.
    New,
    /// A plain SQLite file, or anything that cannot be an encrypted one (text, a file
    /// whose length is no whole number of pages): SQLite then says what is wrong.
    Plain,
    /// An encrypted journal, whose first bytes are its salt: random bytes, in whole
    /// pages (or a damaged file of that shape, which no passphrase opens).
    Encrypted { salt: [u8; SALT_LEN] },
}

/// Reads the first bytes of `path` and says which [`FileKind`] it is. Where a
/// conversion was killed with the journal renamed and its copy not yet in its place,
/// the journal is the one the next [`super::open`] puts back ([`finish_swap`]).
pub fn file_kind(path: &Path) -> std::io::Result<FileKind> {
    match kind_of_file(path)? {
        FileKind::New if replaced(path).exists() => kind_of_file(&replaced(path)),
        kind => Ok(kind),
    }
}

fn kind_of_file(path: &Path) -> std::io::Result<FileKind> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileKind::New),
        Err(e) => return Err(e),
    };
    let mut head = [0_u8; SALT_LEN];
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..])? {
            0 => break,
            n => read += n,
        }
    }
    let length = file.metadata()?.len();
    // Sixteen random bytes are all printable text about once in ten million files.
    let text = head
        .iter()
        .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace());
    Ok(match read {
        0 => FileKind::New,
        n if n < SALT_LEN || &head == SQLITE_HEADER || text || length % MIN_PAGE != 0 => FileKind::Plain,
        _ => FileKind::Encrypted { salt: head },
    })
}

/// Whether the journal at `path` is encrypted (and so needs unlocking before it opens).
pub fn is_encrypted(path: &Path) -> bool {
    matches!(file_kind(path), Ok(FileKind::Encrypted { .. }))
}

/// Derives the key of the encrypted journal at `path` from `passphrase` and checks that
/// it opens the journal, reading only. Slow on purpose (the key derivation): never on
/// the UI thread.
pub fn unlock(path: &Path, passphrase: &Passphrase) -> Result<JournalKey> {
    // The app unlocks before it opens: a journal a killed conversion left renamed is
    // put back first, as opening would.
    finish_swap(path);
    let salt = match file_kind(path).map_err(|e| io_error(path, e))? {
        FileKind::Encrypted { salt } => salt,
        FileKind::Plain => return Err(not_encrypted(path)),
        FileKind::New => {
            return Err(DbError::Invalid(format!(
                "there is no journal at {}",
                path.display()
            )));
        }
    };
    let key = JournalKey::derive(passphrase, salt);
    let conn = open_read_only(path, Some(&key))?;
    read_schema(&conn, path, true)?;
    Ok(key)
}

/// A connection to the file at `path`, opened with `flags` and given `key` once the file
/// is checked against it ([`key_connection`]): the one way storage connects to a
/// journal, a backup, a conversion's copy or a sealed file, so none is ever read
/// without its key or with a key it does not have.
pub(crate) fn connect(path: &Path, flags: OpenFlags, key: Option<&JournalKey>) -> Result<Connection> {
    keep_crypto_through_exit();
    let conn = Connection::open_with_flags(path, flags).map_err(|source| DbError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    key_connection(&conn, path, key)?;
    Ok(conn)
}

/// Keeps OpenSSL's state until the process is gone, where SQLCipher's crypto is
/// OpenSSL's libcrypto (Linux, and a native MSVC build; the mingw exe uses libtomcrypt).
/// By default libcrypto frees its state in an `atexit` handler, while a thread the exit
/// does not wait for (a test's app threads, still reading an encrypted journal) may be
/// decrypting a page with it: a crash at the very end, after everything was saved,
/// seen once in `encryption_ui`'s test binary. The system frees the memory at exit
/// anyway. It must come before libcrypto's first use, so before the first connection.
fn keep_crypto_through_exit() {
    #[cfg(any(target_os = "linux", all(windows, target_env = "msvc")))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        /// `OPENSSL_INIT_NO_ATEXIT` in `openssl/crypto.h` (OpenSSL 1.1.1b and later).
        const NO_ATEXIT: u64 = 0x0008_0000;
        unsafe extern "C" {
            fn OPENSSL_init_crypto(opts: u64, settings: *const std::ffi::c_void) -> std::ffi::c_int;
        }
        // SAFETY: libcrypto is linked wherever this is compiled (SQLCipher's crypto
        // provider needs it); the call takes no settings and is safe from any thread.
        ONCE.call_once(|| unsafe {
            OPENSSL_init_crypto(NO_ATEXIT, std::ptr::null());
        });
    }
}

/// Checks the file against the key a connection is about to be given, and gives it,
/// before anything else runs on the connection.
fn key_connection(conn: &Connection, path: &Path, key: Option<&JournalKey>) -> Result<()> {
    // The file SQLite is about to open, not one a killed conversion left beside it.
    let kind = kind_of_file(path).map_err(|e| io_error(path, e))?;
    match (kind, key) {
        (FileKind::Encrypted { .. }, None) => Err(DbError::Encrypted {
            path: path.to_path_buf(),
        }),
        (FileKind::Plain, Some(_)) => Err(not_encrypted(path)),
        (FileKind::Encrypted { salt }, Some(key)) if salt != key.salt => Err(DbError::WrongPassphrase {
            path: path.to_path_buf(),
        }),
        (_, Some(key)) => key.apply(conn).map_err(|source| DbError::Open {
            path: path.to_path_buf(),
            source,
        }),
        (_, None) => Ok(()),
    }
}

/// The error for a file given a key that is not encrypted: a plain SQLite file is told
/// it opens without a passphrase, anything else (an encrypted journal cut short in the
/// middle of a page, text) that it is damaged or no journal, not that it is plain.
fn not_encrypted(path: &Path) -> DbError {
    let mut head = [0_u8; SQLITE_HEADER.len()];
    let plain = std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut head))
        .is_ok_and(|()| &head == SQLITE_HEADER);
    match plain {
        true => DbError::NotEncrypted {
            path: path.to_path_buf(),
        },
        false => DbError::NotAJournal {
            path: path.to_path_buf(),
            detail: "it is neither a SQLite database nor a whole encrypted journal: damaged, or cut short"
                .into(),
        },
    }
}

/// The error a first read gives on a keyed connection whose key does not fit: SQLCipher
/// cannot tell a wrong key from a damaged page, and says "file is not a database".
pub(crate) fn wrong_key(error: &rusqlite::Error) -> bool {
    error.sqlite_error_code() == Some(rusqlite::ErrorCode::NotADatabase)
}

fn read_schema(conn: &Connection, path: &Path, keyed: bool) -> Result<()> {
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |row| {
        row.get::<_, i64>(0)
    })
    .map(drop)
    .map_err(|e| match keyed && wrong_key(&e) {
        true => DbError::WrongPassphrase {
            path: path.to_path_buf(),
        },
        false => DbError::NotAJournal {
            path: path.to_path_buf(),
            detail: e.to_string(),
        },
    })
}

/// A journal (or a backup) opened to read, never to write, with its key if it has one.
pub(crate) fn open_read_only(path: &Path, key: Option<&JournalKey>) -> Result<Connection> {
    connect(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        key,
    )
}

/// Encrypts the plain journal at `path` with `passphrase`; returns the key it opens
/// with now. `options` are the journal's (without a key).
pub fn encrypt(path: &Path, options: &StorageOptions, passphrase: &Passphrase) -> Result<JournalKey> {
    let key = JournalKey::for_new_file(passphrase);
    convert(path, options, Some(&key))?;
    Ok(key)
}

/// Turns the encrypted journal at `path` (opened with `options`, which carry its key)
/// back into a plain one.
pub fn decrypt(path: &Path, options: &StorageOptions) -> Result<()> {
    convert(path, options, None)
}

/// Changes the passphrase of the encrypted journal at `path` (`options` carry its key)
/// with SQLCipher's `PRAGMA rekey`, which rewrites every page in one transaction.
/// Returns the key it opens with now. Backups made before keep the old passphrase.
pub fn rekey(path: &Path, options: &StorageOptions, passphrase: &Passphrase) -> Result<JournalKey> {
    let Some(old) = &options.key else {
        return Err(DbError::NotEncrypted {
            path: path.to_path_buf(),
        });
    };
    let key = JournalKey::derive(passphrase, old.salt);
    rekey_to(path, options, &key)?;
    Ok(key)
}

/// [`rekey`] with the new key already derived.
pub(crate) fn rekey_to(path: &Path, options: &StorageOptions, key: &JournalKey) -> Result<()> {
    let conn = take_whole(path, options)?;
    rekey_connection(&conn, key)?;
    // The -wal still holds pages under the old key until they are copied back.
    empty_wal(&conn, options)?;
    drop(conn);
    let check = open_read_only(path, Some(key))?;
    read_schema(&check, path, true)
}

/// Gives the file a connection has open the key `key` in place (`PRAGMA rekey`, one
/// transaction): the journal's own change of passphrase and a sealed file's
/// ([`crate::sealed`]).
pub(crate) fn rekey_connection(conn: &Connection, key: &JournalKey) -> rusqlite::Result<()> {
    conn.execute_batch(&Zeroizing::new(format!("PRAGMA rekey = {};", *key.literal())))
}

/// Copies the -wal into the journal and empties it, on the connection that has the
/// journal whole.
fn empty_wal(conn: &Connection, options: &StorageOptions) -> Result<()> {
    super::checkpoint(
        conn,
        super::Checkpoint::Truncate,
        options.busy_timeout,
        options.busy_timeout,
    )
    .map(drop)
}

/// Opens the journal as the only connection to it: refused (with a message saying why)
/// while the app or a command has it open, and nobody else can open it until this
/// connection closes.
fn take_whole(path: &Path, options: &StorageOptions) -> Result<Connection> {
    let conn = super::open(path, &options.for_background())?;
    conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE")?;
    conn.execute_batch("BEGIN EXCLUSIVE; COMMIT;")
        .map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => DbError::InUse {
                path: path.to_path_buf(),
            },
            _ => DbError::Sqlite(e),
        })?;
    Ok(conn)
}

/// The copy a conversion writes beside the journal, and the name the old journal has
/// while it is erased.
fn converting(path: &Path) -> PathBuf {
    beside(path, "converting")
}
fn replaced(path: &Path) -> PathBuf {
    beside(path, "replaced")
}

/// Copies the journal at `path` into a new file encrypted with `to` (or plain when
/// `None`), checks the copy, swaps it in and erases the old file (module comment).
pub(crate) fn convert(path: &Path, options: &StorageOptions, to: Option<&JournalKey>) -> Result<()> {
    let conn = take_whole(path, options)?;
    empty_wal(&conn, options)?;
    let entries = entries::count(&conn, DEFAULT_USER)?;
    let copy = converting(path);
    erase_copy(&copy);
    crate::files::reserve_private_file(&copy).map_err(|e| io_error(&copy, e))?;
    let key = to
        .map(|k| k.literal())
        .unwrap_or_else(|| Zeroizing::new("''".into()));
    let exported = conn
        .execute(
            &Zeroizing::new(format!("ATTACH DATABASE ?1 AS converted KEY {}", *key)),
            [copy.to_string_lossy()],
        )
        .and_then(|_| {
            // sqlcipher_export copies tables, indexes, triggers and the FTS5 and vector
            // tables' rows, not the header fields that mark the file as our journal.
            let (app_id, version): (i64, i64) = conn.query_row(
                "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version)",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            conn.query_row("SELECT sqlcipher_export('converted')", [], |_| Ok(()))?;
            conn.execute_batch(&format!(
                "PRAGMA converted.application_id = {app_id}; PRAGMA converted.user_version = {version};"
            ))?;
            conn.execute_batch("DETACH DATABASE converted")
        });
    drop(conn);
    let checked = exported
        .map_err(DbError::from)
        .and_then(|()| check_copy(&copy, to, entries));
    if let Err(e) = checked {
        erase_copy(&copy);
        return Err(e);
    }
    swap_in(path, &copy).map_err(|e| io_error(path, e))?;
    finish_swap(path);
    Ok(())
}

/// The copy opens with its key, passes `integrity_check` and holds every entry.
fn check_copy(copy: &Path, key: Option<&JournalKey>, entries: u64) -> Result<()> {
    let conn = open_read_only(copy, key)?;
    let verdict: String = conn.query_row("PRAGMA integrity_check(1)", [], |row| row.get(0))?;
    let copied = entries::count(&conn, DEFAULT_USER)?;
    if verdict != "ok" || copied != entries {
        return Err(DbError::Invalid(format!(
            "the converted copy did not check out ({verdict}, {copied} of {entries} entries); the journal was left as it was"
        )));
    }
    Ok(())
}

/// Puts `copy` in the journal's place, keeping the old journal under [`replaced`] until
/// [`finish_swap`] erases it.
fn swap_in(path: &Path, copy: &Path) -> std::io::Result<()> {
    for suffix in ["-wal", "-shm"] {
        let companion = with_suffix(path, suffix);
        if companion.exists() {
            // Emptied by the checkpoint; a -wal left beside the new file would be read
            // into it.
            files::erase(&companion)?;
        }
    }
    std::fs::rename(path, replaced(path))?;
    std::fs::rename(copy, path)
}

/// Finishes or undoes a swap a kill interrupted: called before every open. The old
/// journal under [`replaced`] goes back if the new one never arrived, and is overwritten
/// otherwise. An empty file in the journal's place is not the new one (a checked copy
/// never is empty) but a file made since, as `db::open` reserves the journal's name
/// before SQLite opens it: the old journal goes back over it.
pub(crate) fn finish_swap(path: &Path) {
    let old = replaced(path);
    if old.exists() {
        let arrived = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        let outcome = match arrived {
            true => files::erase(&old),
            false => std::fs::rename(&old, path),
        };
        if let Err(error) = outcome {
            tracing::warn!(%error, file = %old.display(), "cannot tidy up after an interrupted conversion");
        }
    }
}

/// Overwrites the copy a killed conversion left (a plain one holds the journal's text).
/// Called once the journal has been read, which no conversion in progress allows.
pub(crate) fn erase_leftover_copy(path: &Path) {
    erase_copy(&converting(path));
}

/// [`erase_with_companions`] of a conversion's copy, a failure only logged: the copy
/// is never the journal, and the next open tries again.
fn erase_copy(path: &Path) {
    if let Err(error) = erase_with_companions(path) {
        tracing::warn!(%error, file = %path.display(), "cannot erase a leftover copy of the journal");
    }
}

/// An I/O failure on `path`, as the error storage reports.
pub(crate) fn io_error(path: &Path, e: std::io::Error) -> DbError {
    DbError::Invalid(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_key_derivation_is_sqlciphers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("made-by-sqlcipher.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "PRAGMA key = 'correct horse'; CREATE TABLE t(x); INSERT INTO t VALUES ('kept');",
            )
            .unwrap();
        }
        let key = unlock(&path, &Passphrase::new("correct horse").unwrap()).unwrap();
        let conn = open_read_only(&path, Some(&key)).unwrap();
        let x: String = conn.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(x, "kept");
        assert!(matches!(
            unlock(&path, &Passphrase::new("wrong horse").unwrap()),
            Err(DbError::WrongPassphrase { .. })
        ));
    }

    #[test]
    fn files_are_told_apart_by_their_first_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.db");
        assert_eq!(file_kind(&path).unwrap(), FileKind::New);
        std::fs::write(&path, b"").unwrap();
        assert_eq!(file_kind(&path).unwrap(), FileKind::New);
        std::fs::write(&path, b"short").unwrap();
        assert_eq!(file_kind(&path).unwrap(), FileKind::Plain);
        Connection::open(dir.path().join("p.db"))
            .unwrap()
            .execute_batch("CREATE TABLE t(x)")
            .unwrap();
        assert_eq!(file_kind(&dir.path().join("p.db")).unwrap(), FileKind::Plain);
        std::fs::write(
            &path,
            "not a database at all, just words, a page of them ".repeat(64),
        )
        .unwrap();
        assert_eq!(file_kind(&path).unwrap(), FileKind::Plain);
        std::fs::write(&path, [7_u8; 1024]).unwrap();
        assert_eq!(file_kind(&path).unwrap(), FileKind::Encrypted { salt: [7; 16] });
        std::fs::write(&path, [7_u8; 1000]).unwrap();
        assert_eq!(file_kind(&path).unwrap(), FileKind::Plain, "not whole pages");
    }

    #[test]
    fn a_key_goes_to_its_raw_form_and_back() {
        let key = JournalKey::derive(&Passphrase::new("hunter2").unwrap(), [0xa5; 16]);
        let hex = key.to_raw_hex();
        assert_eq!(hex.len(), 96);
        assert!(hex.ends_with(&"a5".repeat(16)));
        assert!(JournalKey::from_raw_hex(&hex).unwrap() == key);
        assert!(JournalKey::from_raw_hex(&hex[1..]).is_err());
        assert!(JournalKey::from_raw_hex(&format!("{}g", &hex[1..])).is_err());
        assert!(JournalKey::from_raw_hex(&"é".repeat(48)).is_err());
        assert!(JournalKey::from_raw_hex(&format!("+a{}", &hex[2..])).is_err());
    }

    #[test]
    fn passphrases_never_print() {
        let p = Passphrase::new("hunter2").unwrap();
        assert!(!format!("{p:?}").contains("hunter2"));
        let key = JournalKey::derive(&p, [1; 16]);
        assert!(!format!("{key:?}").contains('1'));
        assert!(Passphrase::new("").is_err());
    }
}
