//! The encrypted copies the `db`, `vector` and `import` stages measure beside the plain
//! journal (issue #18): the same journal converted with `db::cipher::encrypt`, opened
//! with its key in `StorageOptions`, its scenarios named `encrypted.<name>` (the vector
//! stage's `<data>.encrypted.<name>`) with the field `storage: encrypted` and the
//! SQLCipher build in `cipher`, and the ratio of each encrypted figure to the plain one
//! measured in turn with it in the same run (`….vs_plain_p95`: lower is better, so it is
//! stored as a count, and a rise is a regression).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::db::{self, StorageOptions};
use rusqlite::Connection;

use super::Recorder;
use crate::run::{Measure, Scenario, Unit};

/// The passphrase of every encrypted copy. Any will do: what it costs is the key
/// derivation's fixed rounds, the same for every passphrase.
const PASSPHRASE: &str = "mindsage-bench: not a secret";

/// What an encrypted scenario's name starts with.
pub const PREFIX: &str = "encrypted.";

/// What the ratio of an encrypted scenario to its plain twin is called after its name.
pub const RATIO_SUFFIX: &str = ".vs_plain_p95";

pub fn passphrase() -> Passphrase {
    Passphrase::new(PASSPHRASE).expect("the bench's passphrase is not empty")
}

/// The options a journal encrypted with `key` opens with (the app's otherwise).
pub fn options(key: JournalKey) -> StorageOptions {
    StorageOptions {
        key: Some(key),
        ..StorageOptions::default()
    }
}

/// Copies the plain journal at `plain` (a file with no -wal beside it) to `copy` and
/// encrypts the copy as the app does (`cipher::encrypt`: `sqlcipher_export`, checked,
/// swapped in); returns the key it opens with. The copy is encrypted in a folder of its
/// own and then moved to `copy`: `cipher::encrypt` refuses while a plain copy of the
/// journal sits in the journal's folder (#30), as `plain` may sit beside `copy`.
pub fn encrypted_copy(plain: &Path, copy: &Path) -> anyhow::Result<JournalKey> {
    let dir = copy.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let alone = tempfile::tempdir_in(dir)?;
    let inside = alone.path().join("journal.db");
    std::fs::copy(plain, &inside).with_context(|| format!("copying {}", plain.display()))?;
    let key = cipher::encrypt(&inside, &StorageOptions::default(), &passphrase())
        .with_context(|| format!("encrypting {}", copy.display()))?;
    anyhow::ensure!(
        cipher::is_encrypted(&inside),
        "{} is not encrypted after cipher::encrypt",
        copy.display()
    );
    std::fs::rename(&inside, copy)
        .with_context(|| format!("moving the encrypted copy to {}", copy.display()))?;
    Ok(key)
}

/// The SQLCipher build on a keyed connection, as SQLCipher reports it ("4.6.1 community,
/// openssl OpenSSL 3.0.19 …").
pub fn describe(conn: &Connection) -> String {
    let pragma = |name: &str| {
        conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, String>(0))
            .unwrap_or_else(|_| "?".into())
    };
    format!(
        "SQLCipher {}, {} {}",
        pragma("cipher_version"),
        pragma("cipher_provider"),
        pragma("cipher_provider_version")
    )
}

/// The fields every encrypted scenario carries.
pub fn params(cipher: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("storage".to_owned(), "encrypted".to_owned()),
        ("cipher".to_owned(), cipher.to_owned()),
    ])
}

/// What the notes say about mapping: whatever `mmap_size` is set to, SQLCipher's pager
/// never fetches a page through the map when the connection has a codec
/// (`setGetterMethod` in its amalgamation).
pub const MMAP_NOTE: &str = "SQLCipher decrypts each page into the page cache as it is read, so the \
    encrypted copy is read through the page cache, never memory-mapped";

/// Pushes `<encrypted>.vs_plain_p95` for each pair (plain name, encrypted name) of
/// timings recorded in `out` at `stage` and `size`: the encrypted p95 over the plain p95.
pub fn push_ratios(
    out: &mut Recorder,
    stage: &str,
    size: Option<usize>,
    pairs: &[(String, String)],
    cipher: &str,
) {
    for (plain, encrypted) in pairs {
        let p95 = |name: &str| {
            out.scenarios
                .iter()
                .find(|s| s.stage == stage && s.size == size && s.name == *name)
                .filter(|s| matches!(s.measure, Measure::Timing { .. }))
                .and_then(|s| s.stat("p95"))
        };
        let (Some(base), Some(enc)) = (p95(plain), p95(encrypted)) else {
            continue;
        };
        if base <= 0.0 {
            continue;
        }
        let note = format!(
            "p95 of {encrypted} ÷ p95 of {plain}, the two copies of the same journal measured in turn in this run"
        );
        let ratio = Scenario {
            params: params(cipher),
            ..Scenario::new(
                stage,
                size,
                &format!("{encrypted}{RATIO_SUFFIX}"),
                Measure::Value {
                    value: enc / base,
                    unit: Unit::Count,
                },
                Some(note),
            )
        };
        out.push_derived(ratio, &[plain, encrypted]);
    }
}

/// Opens an encrypted journal as the app does after the passphrase is typed: derives
/// the key (`cipher::unlock`) and opens the connection with it.
pub fn unlock_and_open(path: &Path) -> anyhow::Result<(std::time::Duration, Connection)> {
    let started = std::time::Instant::now();
    let key = cipher::unlock(path, &passphrase())?;
    let derived = started.elapsed();
    Ok((derived, db::open(path, &options(key))?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mindsage_core::db::{DEFAULT_USER, entries};

    #[test]
    fn an_encrypted_copy_opens_with_its_key_and_holds_the_same_entries() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.db");
        {
            let mut conn = db::open(&plain, &StorageOptions::default()).unwrap();
            entries::create(
                &mut conn,
                DEFAULT_USER,
                &entries::NewEntry {
                    title: "kept".into(),
                    body: "a body".into(),
                    ..Default::default()
                },
            )
            .unwrap();
        }
        // Beside the plain journal, as the vector stage caches its copy.
        let copy = dir.path().join("plain.encrypted.db");
        let key = encrypted_copy(&plain, &copy).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(cipher::is_encrypted(&copy) && !cipher::is_encrypted(&plain));
        let conn = db::open(&copy, &options(key)).unwrap();
        assert_eq!(entries::count(&conn, DEFAULT_USER).unwrap(), 1);
        assert!(describe(&conn).starts_with("SQLCipher 4"), "{}", describe(&conn));
        let (_, reopened) = unlock_and_open(&copy).unwrap();
        assert_eq!(entries::count(&reopened, DEFAULT_USER).unwrap(), 1);
    }

    #[test]
    fn ratios_divide_the_encrypted_p95_by_the_plain_one() {
        let mut out = Recorder::default();
        let timing =
            |p95: f64| super::super::timing_measure(&[std::time::Duration::from_secs_f64(p95 / 1000.0)]);
        out.push(Scenario::new("db", Some(150), "list.page1", timing(2.0), None));
        out.push(Scenario::new(
            "db",
            Some(150),
            "encrypted.list.page1",
            timing(3.0),
            None,
        ));
        let pairs = [
            ("list.page1".to_owned(), "encrypted.list.page1".to_owned()),
            ("list.page_n".to_owned(), "encrypted.list.page_n".to_owned()),
        ];
        push_ratios(&mut out, "db", Some(150), &pairs, "SQLCipher test");
        let ratio = out
            .scenarios
            .iter()
            .find(|s| s.name == "encrypted.list.page1.vs_plain_p95")
            .unwrap();
        assert!((ratio.stat("value").unwrap() - 1.5).abs() < 1e-9);
        assert_eq!(ratio.unit(), "count");
        assert_eq!(ratio.params["storage"], "encrypted");
        // No ratio where a twin is missing.
        assert_eq!(out.scenarios.len(), 3);
    }
}
