//! Encryption at rest (issue #18): an encrypted journal shows nothing of what it holds
//! in any file of the data folder (the journal, its -wal and -shm, its backups), yet
//! reads, lists and searches as a plain one; every refusal (a wrong passphrase, no key,
//! a key for a plain journal, a damaged, cut-short, newer or foreign file) leaves every
//! file byte for byte as it was; converting a journal either way keeps every row, its
//! full-text index and its vectors, and a conversion killed half way is finished or
//! undone by the next open; changing the passphrase leaves the old one useless; backups
//! stay encrypted and restore only with the key they were made with; what waits beside
//! an encrypted journal (a draft kept when a save could not reach it, a recording while
//! it is spoken) is sealed with its key and follows it through every conversion.
//!
//! Real files, real SQLCipher. A key derivation from a passphrase takes about a second
//! in a debug build (PBKDF2's 256,000 rounds, compiled unoptimised in mindsage-core),
//! so each test derives as few as it can: journals made encrypted share one key, and a
//! wrong key is made from random bytes.

mod common;
#[path = "marked_entry/mod.rs"]
mod marked_entry;
#[path = "reliability_summary/mod.rs"]
mod reliability_summary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::only_file;
use marked_entry::{Marker, data_folder_files, fully_marked_entry, missing, traces};
use mindsage_core::db::cipher::{self, FileKind, JournalKey, Passphrase};
use mindsage_core::db::entries::{self, ListFilter};
use mindsage_core::db::{
    self, DEFAULT_USER, DbError, EntryId, StorageOptions, audio, backup, chats, history, migrate, vectors,
};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::drafts::{self, Drafts};
use mindsage_core::search::Searcher;
use mindsage_core::voice::recordings;
use mindsage_core::voice::wav::RecordingFile;
use mindsage_core::{paths, sealed};
use rand::{Rng, SeedableRng};
use reliability_summary::Summary;
use rusqlite::Connection;

const USER: db::UserId = DEFAULT_USER;
const PASSPHRASE: &str = "a lighthouse at the end of the pier";
const OTHER_PASSPHRASE: &str = "the ferry leaves at nine";

fn passphrase(text: &str) -> Passphrase {
    Passphrase::new(text).unwrap()
}

/// The key of the journals made encrypted here, derived once for the whole binary (a
/// derivation takes about a second in a debug build): they share its salt, as no two
/// journals of one person would, which none of these tests minds.
fn new_key() -> JournalKey {
    static KEY: std::sync::OnceLock<JournalKey> = std::sync::OnceLock::new();
    KEY.get_or_init(|| JournalKey::for_new_file(&passphrase(PASSPHRASE)))
        .clone()
}

/// A data folder in a temporary folder, the journal inside it as the app keeps it.
struct Data {
    dir: tempfile::TempDir,
}

impl Data {
    fn new() -> Data {
        Data {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn journal(&self) -> PathBuf {
        self.path().join(paths::DATABASE_FILE)
    }

    /// A file beside the journal, `.journal.db.WHAT`, as the conversions name theirs.
    fn beside(&self, what: &str) -> PathBuf {
        self.path().join(format!(".{}.{what}", paths::DATABASE_FILE))
    }

    /// The names of the files in the data folder itself.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

/// A key no passphrase gave, for `salt` (or a random one): a wrong key, made without
/// the second a derivation takes.
fn random_key(salt: Option<[u8; 16]>) -> JournalKey {
    let mut rng = rand::rng();
    let salt = salt.unwrap_or_else(|| rng.random());
    let bytes: Vec<u8> = (0..32).map(|_| rng.random()).chain(salt).collect();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    JournalKey::from_raw_hex(&hex).unwrap()
}

fn keyed(key: &JournalKey) -> StorageOptions {
    StorageOptions {
        key: Some(key.clone()),
        ..StorageOptions::default()
    }
}

fn options(key: Option<&JournalKey>) -> StorageOptions {
    StorageOptions {
        key: key.cloned(),
        ..StorageOptions::default()
    }
}

fn open(path: &Path, key: Option<&JournalKey>) -> Connection {
    db::open(path, &options(key)).expect("the journal opens")
}

fn salt_of(path: &Path) -> [u8; 16] {
    match cipher::file_kind(path).unwrap() {
        FileKind::Encrypted { salt } => salt,
        other => panic!("{} is not encrypted: {other:?}", path.display()),
    }
}

fn truncate_checkpoint(conn: &Connection) {
    assert!(
        db::checkpoint(
            conn,
            db::Checkpoint::Truncate,
            Duration::from_secs(2),
            db::BUSY_TIMEOUT
        )
        .unwrap(),
        "the checkpoint completes"
    );
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

// ---------------------------------------------------------------------------------
// Journals with something to find.

/// Demo entries around the marked one, so it shares pages with entries that stay.
fn seed(conn: &mut Connection, entries: usize) {
    let options = DemoOptions {
        photo_every: 0,
        ..DemoOptions::fixed(entries, 17)
    };
    demo::seed(conn, USER, &options).unwrap();
}

/// A chat about the marked entry: the question, the answer and the source's title.
fn marked_chat(conn: &mut Connection, entry: EntryId) -> (i64, Vec<Marker>) {
    let sources = [chats::Source {
        entry_id: entry,
        created_at: entries::get(conn, USER, entry).unwrap().created_at,
        title: "zqxchatsource".into(),
    }];
    let exchange = chats::Exchange {
        question: "What did I write about zqxchatquestion?",
        answer: "You wrote zqxchatanswer, twice.",
        sources: &sources,
        timings: &[12, 34],
    };
    let chat = chats::save(conn, USER, None, &exchange).unwrap();
    let markers = vec![
        Marker::text("chat question", "zqxchatquestion"),
        Marker::text("chat answer", "zqxchatanswer"),
        Marker::text("chat source title", "zqxchatsource"),
    ];
    (chat, markers)
}

/// A journal's marked entry and chat, and every marker they carry.
struct Marked {
    entry: EntryId,
    chat: i64,
    markers: Vec<Marker>,
}

/// Seeds `conn`'s journal and writes the fully marked entry and chat into it.
fn mark(conn: &mut Connection) -> Marked {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1818);
    seed(conn, 120);
    let (entry, mut markers) = fully_marked_entry(conn, &mut rng);
    let (chat, chat_markers) = marked_chat(conn, entry);
    markers.extend(chat_markers);
    Marked { entry, chat, markers }
}

/// The ids the search box finds for `text`, as the window and `mindsage search` run it.
fn search(conn: &Connection, text: &str) -> Vec<EntryId> {
    Searcher::default()
        .search_box(conn, USER, text, chrono::Local::now(), 50, None)
        .unwrap()
        .hits
        .iter()
        .map(|h| h.entry_id)
        .collect()
}

/// What the app shows of the marked entry and chat: searches by each of its indexed
/// words, the list, the entry, its history, its recording's words and the chat.
fn check_reads(conn: &Connection, marked: &Marked, entries_expected: u64) {
    let id = marked.entry;
    for word in ["zqxerasetitle", "zqxerasebody", "zqxerasetag", "zqxerase"] {
        assert_eq!(search(conn, word), [id], "the search box finds {word:?}");
    }
    assert_eq!(entries::count(conn, USER).unwrap(), entries_expected);
    let page = entries::list(conn, USER, &ListFilter::default(), None, 200).unwrap();
    let row = page.rows.iter().find(|r| r.id == id).expect("listed");
    assert_eq!(row.title, "zqxerasetitle");
    assert!(row.tags.iter().any(|t| t == "zqxerasetag"), "{:?}", row.tags);
    let entry = entries::get(conn, USER, id).unwrap();
    assert!(entry.body.contains("zqxerasebody"));
    assert_eq!(entry.summary.as_deref(), Some("zqxerasesummary of the day"));
    assert!(
        history::versions(conn, id).unwrap()[0]
            .body
            .contains("zqxeraseversion")
    );
    let recording = &audio::of_entry(conn, USER, id).unwrap()[0];
    assert_eq!(
        audio::segments(conn, recording.media_id).unwrap()[0].text,
        "zqxerasesegment"
    );
    let messages = chats::messages(conn, USER, marked.chat).unwrap();
    assert!(messages[0].content.contains("zqxchatquestion"));
    assert!(messages[1].content.contains("zqxchatanswer"));
    assert_eq!(messages[1].sources[0].title, "zqxchatsource");
    let model = vectors::model_named(conn, USER, marked_entry::EMBED_MODEL)
        .unwrap()
        .expect("the model's vectors");
    assert!(vectors::vector_of(conn, USER, &model, id).unwrap().is_some());
}

// ---------------------------------------------------------------------------------
// 1. Nothing readable in any file, everything readable through the key.

#[test]
fn a_journal_made_encrypted_shows_nothing_of_it_in_any_file_and_reads_as_before() {
    let mut summary = Summary::new(
        "encryption",
        "a_journal_made_encrypted_shows_nothing_of_it_in_any_file_and_reads_as_before",
    );
    let data = Data::new();
    let key = new_key();
    let mut conn = db::open(&data.journal(), &keyed(&key)).unwrap();
    let marked = mark(&mut conn);
    let reader = open(&data.journal(), Some(&key));
    assert!(cipher::is_encrypted(&data.journal()));
    let wal = with_suffix(&data.journal(), "-wal");
    assert!(
        std::fs::metadata(&wal).unwrap().len() > 0,
        "the -wal holds the writes"
    );
    let mut scans: Vec<(&str, Vec<String>)> = Vec::new();
    let mut scan = |moment: &'static str| {
        let found = traces(data.dir.path(), &marked.markers, |_| true);
        scans.push((moment, found));
    };
    scan("the writes in the -wal");
    conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)").unwrap();
    scan("after a passive checkpoint");
    let automatic = backup::backup_if_due(&conn, &data.path(), 1, 7, chrono::Utc::now(), true, Some(&key))
        .unwrap()
        .expect("a forced backup");
    let chosen = data.dir.path().join("a copy I keep.db");
    backup::backup(&conn, &chosen, Some(&key)).unwrap();
    scan("with two backups");
    truncate_checkpoint(&conn);
    scan("after a truncating checkpoint");
    check_reads(&reader, &marked, 121);
    drop((conn, reader));
    scan("closed");

    // Unlocked again from the passphrase, as the app does at its next start.
    let unlocked = cipher::unlock(&data.journal(), &passphrase(PASSPHRASE)).unwrap();
    assert!(unlocked == key, "the passphrase gives the same key");
    check_reads(&open(&data.journal(), Some(&unlocked)), &marked, 121);
    for copy in [&automatic.path, &chosen] {
        assert_eq!(
            salt_of(copy),
            salt_of(&data.journal()),
            "the journal's salt, and key"
        );
        assert_eq!(backup::check(copy, Some(&key)).unwrap(), 121);
    }
    summary.set(
        "markers",
        marked.markers.iter().map(|m| m.what).collect::<Vec<_>>(),
    );
    summary.set(
        "files_scanned",
        data_folder_files(data.dir.path())
            .iter()
            .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
    );
    summary.set("scans", &scans);
    for (moment, found) in &scans {
        assert!(found.is_empty(), "{moment}: readable {found:?}");
    }
}

#[test]
fn a_plain_journal_once_encrypted_leaves_nothing_of_its_plain_self() {
    let mut summary = Summary::new(
        "encryption",
        "a_plain_journal_once_encrypted_leaves_nothing_of_its_plain_self",
    );
    let data = Data::new();
    let mut conn = open(&data.journal(), None);
    let marked = mark(&mut conn);
    conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)").unwrap();
    assert_eq!(
        missing(data.dir.path(), &marked.markers),
        Vec::<&str>::new(),
        "every marker is on disk first"
    );
    drop(conn);
    // The plain file as the conversion finds it, held open to read what is left of it
    // once it is gone from the folder.
    #[cfg(unix)]
    let old_file = std::fs::File::open(data.journal()).unwrap();

    let key = cipher::encrypt(
        &data.journal(),
        &StorageOptions::default(),
        &passphrase(PASSPHRASE),
    )
    .unwrap();
    assert_eq!(
        data.names(),
        [paths::DATABASE_FILE],
        "no copy, no replaced journal, no -wal left"
    );
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    #[cfg(unix)]
    {
        use std::io::Read;
        let mut left = Vec::new();
        (&old_file).read_to_end(&mut left).unwrap();
        summary.set(
            "old_file_bytes_left_nonzero",
            left.iter().filter(|b| **b != 0).count(),
        );
        assert!(
            left.iter().all(|b| *b == 0),
            "the plain file was overwritten before it was removed"
        );
    }
    let mut conn = open(&data.journal(), Some(&key));
    check_reads(&conn, &marked, 121);
    // Written after the conversion, into the encrypted -wal, then backed up.
    marked_chat(&mut conn, marked.entry);
    let backed_up = backup::backup_if_due(&conn, &data.path(), 1, 7, chrono::Utc::now(), true, Some(&key))
        .unwrap()
        .expect("a forced backup");
    assert_eq!(salt_of(&backed_up.path), salt_of(&data.journal()));
    let found_later = traces(data.dir.path(), &marked.markers, |_| true);
    summary.set("traces_after_encrypting", &found);
    summary.set("traces_after_writing_and_backing_up", &found_later);
    assert!(found.is_empty(), "readable after encrypting: {found:?}");
    assert!(
        found_later.is_empty(),
        "readable after writing more: {found_later:?}"
    );
}

/// The journal mode a backup is in, read without writing to it: "delete" for a backup
/// that is one file, as every backup must stay.
fn journal_mode(path: &Path, key: Option<&JournalKey>) -> String {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    if let Some(key) = key {
        conn.execute_batch(&format!("PRAGMA key = \"x'{}'\"", &*key.to_raw_hex()))
            .unwrap();
    }
    conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap()
}

/// Turning encryption on, changing the passphrase and turning it off as the app does
/// (the conversion, then `backup::follow`): the backups made before follow
/// the journal, each opening with the journal's key of the moment, none holding
/// anything in the clear while the journal is encrypted, each staying one file.
#[test]
fn backups_made_before_follow_the_journal_in_and_out_of_encryption() {
    let mut summary = Summary::new(
        "encryption",
        "backups_made_before_follow_the_journal_in_and_out_of_encryption",
    );
    let data = Data::new();
    let mut conn = open(&data.journal(), None);
    let marked = mark(&mut conn);
    let now = chrono::Utc::now();
    let backups: Vec<PathBuf> = [now - chrono::Duration::days(2), now]
        .into_iter()
        .map(|when| {
            let made = backup::backup_if_due(&conn, &data.path(), 1, 7, when, true, None);
            made.unwrap().expect("a forced backup").path
        })
        .collect();
    drop(conn);
    let in_backups = traces(data.dir.path(), &marked.markers, |p| {
        !marked_entry::journal_itself(p)
    });
    assert!(
        !in_backups.is_empty(),
        "the backups hold the text in the clear first"
    );
    let companions = || -> Vec<String> {
        std::fs::read_dir(data.path().join(backup::BACKUPS_FOLDER))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| !name.ends_with(".db") && name != backup::COPYING_LOCK)
            .collect()
    };
    let follow = |kind: &str, from: Option<&JournalKey>, to: Option<&JournalKey>| {
        let left = mindsage_core::db::backup::follow(&data.path(), from, to);
        assert!(left.is_empty(), "{kind}: backups left behind: {left:?}");
        for made in &backups {
            assert_eq!(backup::check(made, to).unwrap(), 121, "{kind}");
            assert_eq!(
                journal_mode(made, to),
                "delete",
                "{kind}: {} is one file",
                made.display()
            );
        }
        assert_eq!(
            companions(),
            Vec::<String>::new(),
            "{kind}: nothing beside the backups"
        );
    };

    let key = cipher::encrypt(
        &data.journal(),
        &StorageOptions::default(),
        &passphrase(PASSPHRASE),
    )
    .unwrap();
    follow("encrypting", None, Some(&key));
    for made in &backups {
        assert_eq!(salt_of(made), salt_of(&data.journal()));
    }
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    summary.set("traces_after_encrypting", &found);
    assert!(found.is_empty(), "readable after encrypting: {found:?}");

    let new = cipher::rekey(&data.journal(), &keyed(&key), &passphrase(OTHER_PASSPHRASE)).unwrap();
    follow("a new passphrase", Some(&key), Some(&new));
    for made in &backups {
        let err = backup::check(made, Some(&key)).unwrap_err();
        assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    }

    cipher::decrypt(&data.journal(), &keyed(&new)).unwrap();
    follow("decrypting", Some(&new), None);
    for made in &backups {
        assert_eq!(cipher::file_kind(made).unwrap(), FileKind::Plain);
    }
    summary.set("backups_followed", backups.len());
}

// ---------------------------------------------------------------------------------
// 2. Refusals that leave every file as it was.

/// Every file under a folder with its bytes and modification time, but the -shm files:
/// SQLite's shared index of the -wal, which every connection reading a journal in WAL
/// mode writes to, holding no content.
type Snapshot = BTreeMap<PathBuf, (Vec<u8>, SystemTime)>;

fn snapshot(dir: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    for (path, bytes) in data_folder_files(dir) {
        if path.to_string_lossy().ends_with("-shm") {
            continue;
        }
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        files.insert(path, (bytes, modified));
    }
    files
}

/// Fails naming each file added, removed, rewritten or touched since `before`. An empty
/// -wal may be added: a read-only connection (`cipher::unlock`, `backup::check`) that
/// reads a journal in WAL mode leaves one, empty, as it cannot remove it.
#[track_caller]
fn assert_unchanged(before: &Snapshot, dir: &Path, after_what: &str) {
    let after = snapshot(dir);
    let mut changes = Vec::new();
    for (path, (bytes, modified)) in before {
        match after.get(path) {
            None => changes.push(format!("{} removed", path.display())),
            Some((now, _)) if now != bytes => changes.push(format!("{} rewritten", path.display())),
            Some((_, when)) if when != modified => changes.push(format!("{} touched", path.display())),
            Some(_) => {}
        }
    }
    for (path, (bytes, _)) in after.iter().filter(|(p, _)| !before.contains_key(*p)) {
        if !(path.to_string_lossy().ends_with("-wal") && bytes.is_empty()) {
            changes.push(format!("{} added", path.display()));
        }
    }
    assert!(changes.is_empty(), "after {after_what}: {changes:?}");
}

/// An encrypted journal of `entries` demo entries, closed (no -wal), and its key.
fn closed_encrypted_journal(data: &Data, entries: usize) -> JournalKey {
    let key = new_key();
    let mut conn = open(&data.journal(), Some(&key));
    seed(&mut conn, entries);
    drop(conn);
    assert_eq!(data.names(), [paths::DATABASE_FILE]);
    key
}

#[test]
fn a_wrong_passphrase_or_a_missing_or_needless_key_is_refused_and_changes_nothing() {
    let data = Data::new();
    let key = closed_encrypted_journal(&data, 40);
    let before = snapshot(data.dir.path());
    let journal = data.journal();

    let wrong = passphrase(OTHER_PASSPHRASE);
    let err = cipher::unlock(&journal, &wrong).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert!(err.to_string().contains("journal.db"), "names the file: {err}");
    assert_unchanged(&before, data.dir.path(), "unlocking with a wrong passphrase");

    let wrong_key = random_key(Some(salt_of(&journal)));
    let err = db::open(&journal, &keyed(&wrong_key)).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert_unchanged(&before, data.dir.path(), "opening with a wrong key");
    // A key for another journal (another salt) is refused before SQLite reads a page.
    let err = db::open(&journal, &keyed(&random_key(None))).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert_unchanged(&before, data.dir.path(), "opening with another journal's key");
    let err = backup::check(&journal, Some(&wrong_key)).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");

    let err = db::open(&journal, &StorageOptions::default()).unwrap_err();
    assert!(matches!(err, DbError::Encrypted { .. }), "{err}");
    assert!(err.to_string().contains("passphrase"), "{err}");
    let err = backup::check(&journal, None).unwrap_err();
    assert!(matches!(err, DbError::Encrypted { .. }), "{err}");
    assert_unchanged(&before, data.dir.path(), "opening without a key");

    // A plain journal given a key, or a passphrase.
    let plain = data.dir.path().join("plain").join(paths::DATABASE_FILE);
    seed(&mut open(&plain, None), 5);
    let before = snapshot(data.dir.path());
    let err = db::open(&plain, &keyed(&key)).unwrap_err();
    assert!(matches!(err, DbError::NotEncrypted { .. }), "{err}");
    let err = cipher::unlock(&plain, &passphrase(PASSPHRASE)).unwrap_err();
    assert!(matches!(err, DbError::NotEncrypted { .. }), "{err}");
    let err = backup::check(&plain, Some(&key)).unwrap_err();
    assert!(matches!(err, DbError::NotEncrypted { .. }), "{err}");
    assert_unchanged(&before, data.dir.path(), "giving a plain journal a key");

    // And the right key still opens it all.
    assert_eq!(entries::count(&open(&journal, Some(&key)), USER).unwrap(), 40);
}

/// Flips 16 bytes of page `page` (4096-byte pages) in place.
fn damage_page(path: &Path, page: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let at = page * 4096 + 1000;
    let flipped: Vec<u8> = bytes[at as usize..at as usize + 16].iter().map(|b| !b).collect();
    file.seek(SeekFrom::Start(at)).unwrap();
    file.write_all(&flipped).unwrap();
}

/// Everything the app may do with a journal file it is given: unlock it, open it, check
/// it as a backup, and once open read every page of it (a full integrity check). Each
/// use that fails says how; none may panic.
fn every_use(path: &Path, key: &JournalKey) -> BTreeMap<&'static str, String> {
    let mut errors = BTreeMap::new();
    if let Err(e) = cipher::unlock(path, &passphrase(PASSPHRASE)) {
        errors.insert("unlock", e.to_string());
    }
    match db::open(path, &keyed(key)) {
        Ok(conn) => {
            let verdict: rusqlite::Result<String> =
                conn.query_row("PRAGMA integrity_check(1)", [], |r| r.get(0));
            match verdict {
                Ok(v) if v == "ok" => {}
                Ok(v) => drop(errors.insert("integrity_check once open", v)),
                Err(e) => drop(errors.insert("integrity_check once open", e.to_string())),
            }
        }
        Err(e) => drop(errors.insert("open", e.to_string())),
    }
    if let Err(e) = backup::check(path, Some(key)) {
        errors.insert("check", e.to_string());
    }
    errors
}

#[test]
fn a_damaged_or_cut_short_encrypted_journal_is_refused_and_left_untouched() {
    let mut summary = Summary::new(
        "encryption",
        "a_damaged_or_cut_short_encrypted_journal_is_refused_and_left_untouched",
    );
    let data = Data::new();
    let key = closed_encrypted_journal(&data, 300);
    let whole = std::fs::read(data.journal()).unwrap();
    let pages = whole.len() as u64 / 4096;
    assert!(pages > 8, "{pages} pages");
    let journal = data.journal();
    let mut outcomes = BTreeMap::new();
    type Damage<'a> = Box<dyn Fn() + 'a>;
    let cases: [(&str, Damage); 4] = [
        ("first page damaged", Box::new(|| damage_page(&journal, 0))),
        (
            "middle page damaged",
            Box::new(|| damage_page(&journal, pages / 2)),
        ),
        (
            "cut to whole pages",
            Box::new(|| std::fs::write(&journal, &whole[..(pages / 2 * 4096) as usize]).unwrap()),
        ),
        (
            "cut mid-page",
            Box::new(|| std::fs::write(&journal, &whole[..whole.len() / 2 + 1000]).unwrap()),
        ),
    ];
    for (case, damage) in &cases {
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(with_suffix(&journal, suffix));
        }
        std::fs::write(&journal, &whole).unwrap();
        damage();
        let before = snapshot(data.dir.path());
        let errors = every_use(&journal, &key);
        assert_unchanged(&before, data.dir.path(), case);
        assert!(
            errors.contains_key("check"),
            "{case}: checking it as a backup finds the damage: {errors:?}"
        );
        for (what, error) in errors.iter().filter(|(what, _)| !what.starts_with("integrity")) {
            assert!(
                error.contains("journal.db"),
                "{case}: {what} names the file: {error}"
            );
            assert!(
                !error.contains("not encrypted"),
                "{case}: {what} calls a damaged encrypted journal plain: {error}"
            );
        }
        outcomes.insert(*case, errors);
    }
    summary.set("errors", &outcomes);
}

#[test]
fn a_newer_or_foreign_encrypted_database_is_refused_and_left_untouched() {
    let data = Data::new();
    let key = closed_encrypted_journal(&data, 20);
    {
        // Another build of MindSage (or sqlcipher itself) wrote a newer schema version.
        let conn = Connection::open(data.journal()).unwrap();
        conn.pragma_update(None, "key", PASSPHRASE).unwrap();
        conn.pragma_update(None, "user_version", migrate::latest_version() + 1)
            .unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    }
    let before = snapshot(data.dir.path());
    let err = db::open(&data.journal(), &keyed(&key)).unwrap_err();
    assert!(matches!(err, DbError::TooNew { .. }), "{err}");
    assert!(err.to_string().contains("journal.db"), "{err}");
    let err = backup::check(&data.journal(), Some(&key)).unwrap_err();
    assert!(matches!(err, DbError::TooNew { .. }), "{err}");
    assert_unchanged(&before, data.dir.path(), "opening a newer journal");

    // Another program's SQLCipher database, with the same key.
    let foreign = data.dir.path().join("invoices.db");
    {
        let conn = Connection::open(&foreign).unwrap();
        conn.execute_batch(&format!("PRAGMA key = \"x'{}'\"", &*key.to_raw_hex()))
            .unwrap();
        conn.execute_batch("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
            .unwrap();
    }
    let before = snapshot(data.dir.path());
    let err = db::open(&foreign, &keyed(&key)).unwrap_err();
    assert!(matches!(err, DbError::NotAJournal { .. }), "{err}");
    assert!(err.to_string().contains("invoices.db"), "{err}");
    assert_unchanged(&before, data.dir.path(), "opening another program's database");
}

// ---------------------------------------------------------------------------------
// 3. Conversions.

/// Everything a journal holds, to compare before and after a conversion: every row of
/// every table with storage (the FTS5 and vec0 shadow tables included, with their real
/// rowids), the schema, the header fields that make it a journal, and what the
/// full-text index and sqlite-vec answer.
#[derive(Debug, PartialEq)]
struct Contents {
    tables: BTreeMap<String, Vec<String>>,
    schema: Vec<String>,
    header: (i64, i64),
    searches: Vec<(String, Vec<EntryId>)>,
    nearest: Vec<EntryId>,
    coverage: (u64, u64),
    tags: Vec<String>,
}

fn contents(conn: &Connection) -> Contents {
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut tables = BTreeMap::new();
    for name in names {
        let rows = |sql: &str| -> rusqlite::Result<Vec<String>> {
            let mut stmt = conn.prepare(sql)?;
            let columns = stmt.column_count();
            let mut rows: Vec<String> = stmt
                .query_map([], |row| {
                    (0..columns)
                        .map(|i| row.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                        .collect::<rusqlite::Result<Vec<_>>>()
                        .map(|v| v.join("|"))
                })?
                .collect::<rusqlite::Result<_>>()?;
            rows.sort();
            Ok(rows)
        };
        // WITHOUT ROWID tables have no rowid to read.
        let found = rows(&format!("SELECT _rowid_, * FROM \"{name}\""))
            .or_else(|_| rows(&format!("SELECT * FROM \"{name}\"")))
            .unwrap();
        tables.insert(name, found);
    }
    let schema = conn
        .prepare("SELECT type || ' ' || name || ' ' || tbl_name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let header = (
        conn.query_row("PRAGMA application_id", [], |r| r.get(0)).unwrap(),
        conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap(),
    );
    let searches = ["walk", "coffee", "zqxerasebody", "rain garden", "zqxerasetag"]
        .iter()
        .map(|w| (w.to_string(), search(conn, w)))
        .collect();
    let model = vectors::active_model(conn, USER)
        .unwrap()
        .expect("an active model");
    let mut query: Vec<f32> = (0..model.dim).map(|i| (i as f32 * 0.37).sin()).collect();
    vectors::normalise(&mut query);
    let nearest = vectors::nearest(conn, USER, &model, &query, 10)
        .unwrap()
        .iter()
        .map(|n| n.entry)
        .collect();
    Contents {
        tables,
        schema,
        header,
        searches,
        nearest,
        coverage: vectors::coverage(conn, USER, &model).unwrap(),
        tags: entries::all_tags(conn, USER).unwrap(),
    }
}

/// SQLite's and FTS5's own checks, and no row pointing at nothing.
fn check_integrity(conn: &Connection) {
    let verdict: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
    let dangling: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(dangling, 0);
    conn.execute(
        "INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')",
        [],
    )
    .expect("the full-text index passes its integrity-check");
}

/// A plain journal with photos, a marked entry and vectors for every live entry.
fn rich_plain_journal(data: &Data) -> Contents {
    let mut conn = open(&data.journal(), None);
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    demo::seed(&mut conn, USER, &DemoOptions::fixed(200, 3)).unwrap();
    let (_, _) = fully_marked_entry(&mut conn, &mut rng);
    let ids: Vec<EntryId> = conn
        .prepare("SELECT id FROM journal_entries")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let embeddings: Vec<(EntryId, Vec<f32>)> = ids
        .iter()
        .map(|&id| (id, (0..64).map(|_| rng.random_range(-1.0..1.0)).collect()))
        .collect();
    let batch: Vec<(EntryId, &[f32])> = embeddings.iter().map(|(id, v)| (*id, v.as_slice())).collect();
    vectors::store_embeddings(&conn, USER, marked_entry::EMBED_MODEL, &batch).unwrap();
    check_integrity(&conn);
    contents(&conn)
}

#[test]
fn encrypting_then_decrypting_keeps_every_row_search_and_vector() {
    let mut summary = Summary::new(
        "encryption",
        "encrypting_then_decrypting_keeps_every_row_search_and_vector",
    );
    let data = Data::new();
    let plain = rich_plain_journal(&data);
    assert!(plain.tables.keys().any(|t| t.starts_with("entries_fts_")));
    assert!(plain.tables.keys().any(|t| t.starts_with("vec_entries_")));
    assert!(plain.nearest.len() == 10 && plain.coverage.0 == plain.coverage.1);

    let key = cipher::encrypt(
        &data.journal(),
        &StorageOptions::default(),
        &passphrase(PASSPHRASE),
    )
    .unwrap();
    assert!(cipher::is_encrypted(&data.journal()));
    let conn = open(&data.journal(), Some(&key));
    check_integrity(&conn);
    let encrypted = contents(&conn);
    drop(conn);
    assert!(encrypted == plain, "encrypting changed the journal");

    cipher::decrypt(&data.journal(), &keyed(&key)).unwrap();
    assert_eq!(cipher::file_kind(&data.journal()).unwrap(), FileKind::Plain);
    assert_eq!(data.names(), [paths::DATABASE_FILE]);
    let conn = open(&data.journal(), None);
    check_integrity(&conn);
    let decrypted = contents(&conn);
    assert!(decrypted == plain, "decrypting changed the journal");
    summary.set("tables_compared", plain.tables.len());
    summary.set(
        "rows_compared",
        plain.tables.values().map(Vec::len).sum::<usize>(),
    );
}

#[test]
fn a_new_passphrase_opens_the_journal_and_the_old_one_no_longer_does_even_with_pages_in_the_wal() {
    let data = Data::new();
    let key = new_key();
    let mut conn = open(&data.journal(), Some(&key));
    seed(&mut conn, 150);
    truncate_checkpoint(&conn);
    // Written after the checkpoint: in the -wal only.
    let late = entries::create(
        &mut conn,
        USER,
        &marked_entry::new_entry("Late", "Only in the wal for now.", &["late"]),
    )
    .unwrap();
    // The files as a kill would leave them, with no connection open: a copy.
    let copy = data.dir.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    let journal = copy.join(paths::DATABASE_FILE);
    std::fs::copy(data.journal(), &journal).unwrap();
    std::fs::copy(
        with_suffix(&data.journal(), "-wal"),
        with_suffix(&journal, "-wal"),
    )
    .unwrap();
    drop(conn);
    assert!(std::fs::metadata(with_suffix(&journal, "-wal")).unwrap().len() > 0);

    let new = cipher::rekey(&journal, &keyed(&key), &passphrase(OTHER_PASSPHRASE)).unwrap();
    assert!(new != key);
    assert_eq!(salt_of(&journal), salt_of(&data.journal()), "the salt stays");
    let wal = std::fs::metadata(with_suffix(&journal, "-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0, "no page is left in the -wal under the old key");

    let before = snapshot(&copy);
    let err = cipher::unlock(&journal, &passphrase(PASSPHRASE)).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    let err = db::open(&journal, &keyed(&key)).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert_unchanged(&before, &copy, "trying the old passphrase");

    let conn = open(&journal, Some(&new));
    check_integrity(&conn);
    assert_eq!(entries::count(&conn, USER).unwrap(), 151);
    assert_eq!(entries::get(&conn, USER, late).unwrap().tags, ["late"]);
}

#[test]
fn converting_is_refused_while_another_connection_has_the_journal_open() {
    let data = Data::new();
    let impatient = |key: Option<&JournalKey>| StorageOptions {
        busy_timeout: Duration::from_millis(200),
        ..options(key)
    };
    // A plain journal open elsewhere cannot be encrypted…
    let conn = open(&data.journal(), None);
    seed(&mut open(&data.journal(), None), 10);
    let before = snapshot(data.dir.path());
    let err = cipher::encrypt(&data.journal(), &impatient(None), &passphrase(PASSPHRASE)).unwrap_err();
    assert!(err.to_string().contains("open in another MindSage"), "{err}");
    assert!(err.to_string().contains("nothing was changed"), "{err}");
    assert_unchanged(&before, data.dir.path(), "a refused encryption");
    assert_eq!(
        entries::count(&conn, USER).unwrap(),
        10,
        "the other connection reads on"
    );
    drop(conn);

    // …and an encrypted one open elsewhere cannot be decrypted or given a new passphrase.
    let data = Data::new();
    let key = closed_encrypted_journal(&data, 10);
    let conn = open(&data.journal(), Some(&key));
    let before = snapshot(data.dir.path());
    let err = cipher::decrypt(&data.journal(), &impatient(Some(&key))).unwrap_err();
    assert!(err.to_string().contains("open in another MindSage"), "{err}");
    assert_unchanged(&before, data.dir.path(), "a refused decryption");
    let err = cipher::rekey(
        &data.journal(),
        &impatient(Some(&key)),
        &passphrase(OTHER_PASSPHRASE),
    )
    .unwrap_err();
    assert!(err.to_string().contains("open in another MindSage"), "{err}");
    assert_unchanged(&before, data.dir.path(), "a refused new passphrase");
    assert_eq!(
        entries::count(&conn, USER).unwrap(),
        10,
        "the other connection reads on"
    );
    drop(conn);
    assert_eq!(
        entries::count(&open(&data.journal(), Some(&key)), USER).unwrap(),
        10
    );
}

/// A conversion's swap (`cipher::swap_in`) renames the journal to `.journal.db.replaced`
/// and the checked copy from `.journal.db.converting` into its place. A kill between the
/// two leaves no journal: the next open must put the old one back (and erase the copy).
/// A kill after both leaves the old one beside the new: the next open must erase it.
/// Each state is made by hand from the files a real conversion made.
#[test]
fn a_conversion_killed_between_its_renames_is_undone_or_finished_at_the_next_open() {
    let mut summary = Summary::new(
        "encryption",
        "a_conversion_killed_between_its_renames_is_undone_or_finished_at_the_next_open",
    );
    let data = Data::new();
    let journal = data.journal();
    let marked = mark(&mut open(&journal, None));
    let plain = std::fs::read(&journal).unwrap();
    let key = cipher::encrypt(&journal, &StorageOptions::default(), &passphrase(PASSPHRASE)).unwrap();
    let encrypted = std::fs::read(&journal).unwrap();
    let (replaced, converting) = (data.beside("replaced"), data.beside("converting"));
    let lay_out = |journal_bytes: Option<&[u8]>, replaced_bytes: &[u8], converting_bytes: Option<&[u8]>| {
        match journal_bytes {
            Some(bytes) => std::fs::write(&journal, bytes).unwrap(),
            None => std::fs::remove_file(&journal).unwrap(),
        }
        std::fs::write(&replaced, replaced_bytes).unwrap();
        if let Some(bytes) = converting_bytes {
            std::fs::write(&converting, bytes).unwrap();
        }
    };
    #[cfg(unix)]
    let overwritten = |held: std::fs::File| {
        use std::io::Read;
        let mut left = Vec::new();
        (&held).read_to_end(&mut left).unwrap();
        left.iter().all(|b| *b == 0)
    };

    // Encrypting, killed after the first rename: the plain journal under its replaced
    // name, the encrypted copy under its converting name.
    lay_out(None, &plain, Some(&encrypted));
    assert_eq!(
        cipher::file_kind(&journal).unwrap(),
        FileKind::Plain,
        "the journal is the one the next open puts back"
    );
    check_reads(&open(&journal, None), &marked, 121);
    assert_eq!(data.names(), [paths::DATABASE_FILE], "the copy is erased");
    summary.set(
        "encrypting_killed_between_renames",
        "the plain journal is back, the copy erased",
    );

    // Decrypting, killed after the first rename: the encrypted journal under its
    // replaced name, the plain copy (the whole text in the clear) under its converting
    // name. Unlocking comes first, as the app unlocks before it opens.
    lay_out(None, &encrypted, Some(&plain));
    assert_eq!(
        missing(data.dir.path(), &marked.markers),
        Vec::<&str>::new(),
        "the plain copy holds every marker"
    );
    assert!(
        cipher::is_encrypted(&journal),
        "the journal is the one the next open puts back"
    );
    let unlocked = cipher::unlock(&journal, &passphrase(PASSPHRASE)).unwrap();
    assert!(unlocked == key);
    check_reads(&open(&journal, Some(&unlocked)), &marked, 121);
    assert_eq!(data.names(), [paths::DATABASE_FILE], "the plain copy is erased");
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    assert!(found.is_empty(), "the plain copy left {found:?}");
    summary.set(
        "decrypting_killed_between_renames",
        "the encrypted journal is back, the plain copy erased",
    );

    // Decrypting, killed after both renames: the new plain journal in place, the old
    // encrypted one beside it.
    lay_out(Some(&plain), &encrypted, None);
    #[cfg(unix)]
    let held = std::fs::File::open(&replaced).unwrap();
    check_reads(&open(&journal, None), &marked, 121);
    assert_eq!(
        data.names(),
        [paths::DATABASE_FILE],
        "the replaced journal is erased"
    );
    #[cfg(unix)]
    assert!(overwritten(held), "it was overwritten before it was removed");

    // Encrypting, killed after both renames: the new encrypted journal in place, the
    // old plain one (the whole text in the clear) beside it.
    lay_out(Some(&encrypted), &plain, None);
    #[cfg(unix)]
    let held = std::fs::File::open(&replaced).unwrap();
    assert!(cipher::is_encrypted(&journal));
    check_reads(&open(&journal, Some(&key)), &marked, 121);
    assert_eq!(
        data.names(),
        [paths::DATABASE_FILE],
        "the replaced journal is erased"
    );
    #[cfg(unix)]
    assert!(overwritten(held), "it was overwritten before it was removed");
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    assert!(found.is_empty(), "the plain journal left {found:?}");
    summary.set(
        "killed_after_both_renames",
        "the old journal is overwritten and removed",
    );
}

// ---------------------------------------------------------------------------------
// 4. Backups.

#[test]
fn backups_of_an_encrypted_journal_are_encrypted_and_restore_only_with_its_key() {
    let data = Data::new();
    let key = new_key();
    let mut conn = open(&data.journal(), Some(&key));
    let marked = mark(&mut conn);
    let monday = backup::backup_if_due(&conn, &data.path(), 1, 7, chrono::Utc::now(), true, Some(&key))
        .unwrap()
        .expect("a forced backup")
        .path;
    assert_eq!(salt_of(&monday), salt_of(&data.journal()));
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(backup::check(&monday, Some(&key)).unwrap(), 121);
    let err = backup::check(&monday, None).unwrap_err();
    assert!(matches!(err, DbError::Encrypted { .. }), "{err}");

    // An encrypted journal is never backed up in the clear, whatever key is given.
    let clear = data.dir.path().join("clear.db");
    assert!(backup::backup(&conn, &clear, None).is_err());
    let leaked = traces(data.dir.path(), &marked.markers, |_| true);
    assert!(leaked.is_empty(), "a backup without the key left {leaked:?}");

    // Restored while the app runs…
    seed(&mut conn, 30);
    assert_eq!(entries::count(&conn, USER).unwrap(), 151);
    let before_restore = backup::before_restore_path(&data.path(), chrono::Utc::now());
    let report =
        backup::restore_into(&mut conn, &data.journal(), &monday, &before_restore, Some(&key)).unwrap();
    assert_eq!(report.entries, 121);
    assert_eq!(salt_of(&before_restore), salt_of(&data.journal()));
    drop(conn);
    // …and with the app closed.
    let report = backup::restore(&data.journal(), &before_restore, &keyed(&key), None).unwrap();
    assert_eq!(report.entries, 151);
    assert!(cipher::is_encrypted(&data.journal()));
    check_reads(&open(&data.journal(), Some(&key)), &marked, 151);
    let found = traces(data.dir.path(), &marked.markers, |_| true);
    assert!(found.is_empty(), "{found:?}");

    // After a new passphrase, the old backups keep the old one: restoring them with the
    // new key is refused, and changes nothing.
    let new = cipher::rekey(&data.journal(), &keyed(&key), &passphrase(OTHER_PASSPHRASE)).unwrap();
    let before = snapshot(data.dir.path());
    let err = backup::restore(&data.journal(), &monday, &keyed(&new), None).unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert!(
        err.to_string().contains(&*monday.to_string_lossy()),
        "names the backup: {err}"
    );
    assert_unchanged(
        &before,
        data.dir.path(),
        "restoring an old backup with the new key",
    );
    let mut conn = open(&data.journal(), Some(&new));
    let err = backup::restore_into(
        &mut conn,
        &data.journal(),
        &monday,
        &data.path().join("backups").join("not-made.db"),
        Some(&new),
    )
    .unwrap_err();
    assert!(matches!(err, DbError::WrongPassphrase { .. }), "{err}");
    assert_eq!(entries::count(&conn, USER).unwrap(), 151);
    drop(conn);
    // The old key still opens the old backup.
    assert_eq!(backup::check(&monday, Some(&key)).unwrap(), 121);
}

/// A restore killed after staging the backup leaves `.journal.db.restoring`: the next
/// restore starts afresh, whatever was left there (a plain file, or one encrypted with
/// another key), and the journal it puts in place is the person's only, as every
/// journal is.
#[test]
fn a_restore_after_a_killed_one_starts_afresh() {
    let data = Data::new();
    let key = new_key();
    let mut conn = open(&data.journal(), Some(&key));
    seed(&mut conn, 20);
    let monday = data.dir.path().join("monday.db");
    backup::backup(&conn, &monday, Some(&key)).unwrap();
    drop(conn);
    // Left by an earlier restore: a plain file, or an encrypted one of another salt.
    let leftover = data.beside("restoring");
    seed(&mut open(&leftover, None), 3);
    let report = backup::restore(&data.journal(), &monday, &keyed(&key), None).unwrap();
    assert_eq!(report.entries, 20);
    let other = random_key(None);
    seed(&mut open(&leftover, Some(&other)), 3);
    let report = backup::restore(&data.journal(), &monday, &keyed(&key), None).unwrap();
    assert_eq!(report.entries, 20);
    assert_eq!(data.names(), [paths::DATABASE_FILE]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.journal()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the restored journal is readable by the person only");
    }
}

// ---------------------------------------------------------------------------------
// 5. What waits beside the journal: drafts and recordings in progress.

/// A draft kept because a save could not reach the journal, carrying its own markers.
fn marked_draft() -> (entries::EntryEdit, Vec<Marker>) {
    let edit = entries::EntryEdit {
        title: "zqxdrafttitle".into(),
        body: "Typed when the save could not reach the journal: zqxdraftbody.".into(),
        tags: vec!["zqxdrafttag".into()],
        mood_score: None,
    };
    let markers = vec![
        Marker::text("draft's title", "zqxdrafttitle"),
        Marker::text("draft's text", "zqxdraftbody"),
        Marker::text("draft's tag", "zqxdrafttag"),
    ];
    (edit, markers)
}

/// Noise as 16-bit samples, and as the recorder is given them (exactly those samples
/// once rounded to 16 bits).
fn noise(seconds: f32) -> (Vec<i16>, Vec<f32>) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1819);
    let pcm: Vec<i16> = (0..(16_000.0 * seconds) as usize)
        .map(|_| rng.random_range(-16_000..16_000))
        .collect();
    let samples = pcm.iter().map(|&s| f32::from(s) / 32_767.0).collect();
    (pcm, samples)
}

fn pcm_bytes(pcm: &[i16]) -> Vec<u8> {
    pcm.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// A recording read back with `key`, as 16-bit samples.
fn recording_pcm(path: &Path, key: Option<&JournalKey>) -> Vec<i16> {
    recordings::read(path, key)
        .unwrap()
        .iter()
        .map(|s| (s * 32_768.0).round() as i16)
        .collect()
}

/// A draft and a recording in progress beside an encrypted journal are sealed with its
/// key: a byte scan of the data folder finds none of the draft's words and none of the
/// recording's samples, while the recording is being made, after a kill in the middle
/// of it, and once it is finished. Turning encryption off writes them back as a text
/// draft and a WAV file with the same samples; turning it on again seals both (the text
/// draft a person wrote beside the plain journal too) and leaves nothing plain; a new
/// passphrase rekeys them; and the next opening saves the sealed draft into the journal.
#[test]
fn drafts_and_recordings_beside_an_encrypted_journal_are_sealed_and_follow_its_conversions() {
    let mut summary = Summary::new(
        "encryption",
        "drafts_and_recordings_beside_an_encrypted_journal_are_sealed_and_follow_its_conversions",
    );
    let data = Data::new();
    let key = new_key();
    let mut conn = open(&data.journal(), Some(&key));
    let mut marked = mark(&mut conn);
    drop(conn);

    let (draft, draft_markers) = marked_draft();
    let kept = Drafts::new(&data.path(), Some(key.clone()))
        .keep("new-1", &draft)
        .unwrap();
    assert_eq!(kept.extension().unwrap(), "sealed");
    let (pcm, samples) = noise(3.5);
    let sound = pcm_bytes(&pcm);
    let recording = recordings::new_path(&data.path(), Some(&key));
    let mut file = RecordingFile::create(&recording, Some(&key)).unwrap();
    file.append(&samples[..40_000]).unwrap();
    marked.markers.extend(draft_markers);
    marked.markers.extend([
        Marker::slice("recording's first seconds", &sound[..64_000]),
        Marker::slice("recording's sound", &sound),
        // Written below, beside the journal while it is plain.
        Marker::text("a plain journal's draft", "zqxplaindraft"),
    ]);

    let mut scans: Vec<(&str, Vec<String>)> = Vec::new();
    let mut scan = |moment: &'static str| {
        scans.push((moment, traces(data.dir.path(), &marked.markers, |_| true)));
    };
    scan("a draft kept, a recording being made");
    // Killed in the middle of the recording: what was committed stays, sealed.
    std::mem::forget(file);
    scan("killed while recording");
    assert_eq!(
        recording_pcm(&recording, Some(&key)),
        pcm[..32_000],
        "every whole second before the kill"
    );
    let mut file = RecordingFile::create(&recording, Some(&key)).unwrap();
    file.append(&samples).unwrap();
    file.finish().unwrap();
    scan("the recording finished");
    for spooled in [&kept, &recording] {
        assert!(cipher::is_encrypted(spooled), "{}", spooled.display());
        assert_eq!(salt_of(spooled), salt_of(&data.journal()));
    }
    assert_eq!(
        recordings::waiting(&data.path()),
        std::slice::from_ref(&recording)
    );
    assert_eq!(recording_pcm(&recording, Some(&key)), pcm);
    assert!(recordings::read(&recording, None).is_err(), "no key, no sound");

    // Encryption off: a text draft the person can open, a WAV file any player plays.
    cipher::decrypt(&data.journal(), &keyed(&key)).unwrap();
    assert!(mindsage_core::db::backup::follow(&data.path(), Some(&key), None).is_empty());
    let left = mindsage_core::encryption::follow_in_spool(&data.path(), Some(&key), None);
    assert!(left.is_empty(), "{left:?}");
    let text_draft = only_file(&data.path().join(drafts::FOLDER));
    assert_eq!(text_draft.extension().unwrap(), "txt");
    assert_eq!(
        std::fs::read_to_string(&text_draft).unwrap(),
        drafts::text_of(&draft)
    );
    let wav = only_file(&recordings::folder(&data.path()));
    assert_eq!(wav.extension().unwrap(), "wav");
    assert_eq!(
        wav.file_stem(),
        recording.file_stem(),
        "still the time it was made"
    );
    assert_eq!(recording_pcm(&wav, None), pcm);
    let plain_forms = [
        Marker::text("draft's text", "zqxdraftbody"),
        Marker::slice("recording's sound", &sound),
    ];
    assert_eq!(
        missing(data.dir.path(), &plain_forms),
        Vec::<&str>::new(),
        "the scan finds the draft's words and the sound once they are plain"
    );

    // Encryption on again, with a text draft written beside the plain journal.
    let plain_draft = Drafts::new(&data.path(), None)
        .keep(
            "new-2",
            &entries::EntryEdit {
                body: "Written while it was plain: zqxplaindraft.".into(),
                ..entries::EntryEdit::default()
            },
        )
        .unwrap();
    let key = cipher::encrypt(
        &data.journal(),
        &StorageOptions::default(),
        &passphrase(PASSPHRASE),
    )
    .unwrap();
    assert!(mindsage_core::db::backup::follow(&data.path(), None, Some(&key)).is_empty());
    let left = mindsage_core::encryption::follow_in_spool(&data.path(), None, Some(&key));
    assert!(left.is_empty(), "{left:?}");
    scan("encrypted again");
    let sealed_drafts = drafts::sealed_drafts(&data.path());
    assert_eq!(sealed_drafts.len(), 2, "both drafts sealed");
    assert!(!text_draft.exists() && !plain_draft.exists() && !wav.exists());
    let resealed = only_file(&recordings::folder(&data.path()));
    assert!(cipher::is_encrypted(&resealed));
    assert_eq!(recording_pcm(&resealed, Some(&key)), pcm);

    // A new passphrase: the old key opens neither any more.
    let new = cipher::rekey(&data.journal(), &keyed(&key), &passphrase(OTHER_PASSPHRASE)).unwrap();
    let left = mindsage_core::encryption::follow_in_spool(&data.path(), Some(&key), Some(&new));
    assert!(left.is_empty(), "{left:?}");
    assert_eq!(recording_pcm(&resealed, Some(&new)), pcm);
    for spooled in sealed_drafts.iter().chain([&resealed]) {
        let refused = sealed::read_all(spooled, &key).unwrap_err();
        assert!(matches!(refused, DbError::WrongPassphrase { .. }), "{refused}");
    }
    scan("a new passphrase");

    // The next opening saves the sealed drafts into the journal, and erases them.
    let mut conn = open(&data.journal(), Some(&new));
    let recovered = drafts::recover(&mut conn, USER, &data.path(), &new);
    assert_eq!(recovered.saved.len(), 2, "{recovered:?}");
    assert!(recovered.problems.is_empty(), "{recovered:?}");
    assert!(drafts::sealed_drafts(&data.path()).is_empty());
    assert_eq!(search(&conn, "zqxdraftbody"), [recovered.saved[0]]);
    let saved = entries::get(&conn, USER, recovered.saved[0]).unwrap();
    assert_eq!(
        (saved.title.as_str(), saved.tags.clone()),
        ("zqxdrafttitle", vec!["zqxdrafttag".to_owned()])
    );
    assert_eq!(search(&conn, "zqxplaindraft"), [recovered.saved[1]]);
    truncate_checkpoint(&conn);
    drop(conn);
    scan("the drafts saved into the journal");

    summary.set(
        "markers",
        marked.markers.iter().map(|m| m.what).collect::<Vec<_>>(),
    );
    summary.set("scans", &scans);
    for (moment, found) in &scans {
        assert!(found.is_empty(), "{moment}: readable {found:?}");
    }
}
