//! The encrypted copies the `db`, `vector` and `import` stages measure beside the plain
//! journal (issue #18): the same journal converted with `db::cipher::encrypt`, opened
//! with its key in `StorageOptions`, its scenarios named `encrypted.<name>` (the vector
//! stage's `<data>.encrypted.<name>`) with the field `storage: encrypted` and the
//! SQLCipher build in `cipher`; the import stage's are `import.shipped_encrypted.*`, the
//! shipped path into a new encrypted journal.
//!
//! They are measured in a child process of their own ([`in_child`]), after the plain
//! journal's figures: every keyed connection turns on SQLCipher's memory wiping
//! (`PRAGMA cipher_memory_security`, `JournalKey::apply` in core), which is
//! process-wide and cannot be turned off again. From then on SQLCipher wipes every block
//! SQLite frees in that process, on plain journals too, and a plain figure measured
//! after it pays a cost no person with a plain journal pays (the same searches took
//! about twice as long: docs/optimisation-log.md). The run records the child's figures
//! beside the plain ones and the ratio of each timing to its plain twin
//! (`….vs_plain_p95`: lower is better, so it is stored as a count, and a rise is a
//! regression; the import stage divides rates itself, `import.shipped_encrypted.vs_shipped`).
//! A stage that keys a journal in the measuring process fails the run.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::db::{self, StorageOptions};
use rusqlite::Connection;

use super::{Copies, Recorder, StageContext};
use crate::run::{Measure, Run, Scenario, Unit};

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

/// Measures `stage`'s encrypted copies in a child process (`mindsage-bench run
/// --encrypted-only` with this run's sizes and sampling, its progress shown as it goes),
/// records its scenarios in `out`, then the ratio of each to the plain figure
/// `plain_twin` names for it, if `out` holds that figure.
pub fn in_child(
    stage: &str,
    ctx: &StageContext,
    out: &mut Recorder,
    plain_twin: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<()> {
    let child = StageContext {
        sizes: ctx.sizes.clone(),
        sampling: ctx.sampling,
        dataset: ctx.dataset.clone(),
        copies: Copies::Encrypted,
    };
    let stored = tempfile::NamedTempFile::new()?;
    let me = std::env::current_exe()?;
    eprintln!("[{stage}] the encrypted copies, in a process of their own");
    let status = std::process::Command::new(&me)
        .args(["run", "--label", "encrypted-copies", "--stages", stage])
        .args(child.args())
        .arg("--out")
        .arg(stored.path())
        .status()
        .with_context(|| format!("starting {}", me.display()))?;
    anyhow::ensure!(
        status.success(),
        "measuring the {stage} stage's encrypted copies failed ({status})"
    );
    let measured: Vec<Scenario> = Run::load(stored.path())?
        .scenarios
        .into_iter()
        .filter(|s| s.stage == stage)
        .collect();
    let pairs: Vec<(String, &Scenario)> = measured
        .iter()
        .filter_map(|s| plain_twin(&s.name).map(|plain| (plain, s)))
        .collect();
    let ratios: Vec<(Scenario, [String; 2])> = pairs
        .into_iter()
        .filter_map(|(plain, encrypted)| {
            Some((ratio(out, &plain, encrypted)?, [plain, encrypted.name.clone()]))
        })
        .collect();
    out.adopt(measured);
    for (ratio, [plain, encrypted]) in ratios {
        out.push_derived(ratio, &[&plain, &encrypted]);
    }
    Ok(())
}

/// `<encrypted>.vs_plain_p95`: the p95 of `encrypted` over that of the plain figure named
/// `plain` at the same stage and size in `out`; `None` when either is not a timing.
fn ratio(out: &Recorder, plain: &str, encrypted: &Scenario) -> Option<Scenario> {
    let base = out
        .scenarios
        .iter()
        .find(|s| s.stage == encrypted.stage && s.size == encrypted.size && s.name == plain)
        .filter(|s| matches!(s.measure, Measure::Timing { .. }))?
        .stat("p95")
        .filter(|p95| *p95 > 0.0)?;
    let enc = encrypted
        .stat("p95")
        .filter(|_| matches!(encrypted.measure, Measure::Timing { .. }))?;
    let note = format!(
        "p95 of {} ÷ p95 of {plain}, in this run: the encrypted copy of the same journal measured after the plain one, in a process of its own",
        encrypted.name
    );
    Some(Scenario {
        params: params(encrypted.params.get("cipher").map_or("", String::as_str)),
        ..Scenario::new(
            &encrypted.stage,
            encrypted.size,
            &format!("{}{RATIO_SUFFIX}", encrypted.name),
            Measure::Value {
                value: enc / base,
                unit: Unit::Count,
            },
            Some(note),
        )
    })
}

/// Whether SQLCipher wipes the memory SQLite frees in this process: on once any
/// connection in it has been keyed, and never off again.
pub fn memory_wiping_on() -> anyhow::Result<bool> {
    let conn = Connection::open_in_memory()?;
    let on: String = conn.query_row("PRAGMA cipher_memory_security", [], |r| r.get(0))?;
    Ok(on == "1")
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
        let encrypted = Scenario {
            params: params("SQLCipher test"),
            ..Scenario::new("db", Some(150), "encrypted.list.page1", timing(3.0), None)
        };
        let r = ratio(&out, "list.page1", &encrypted).unwrap();
        assert_eq!(r.name, "encrypted.list.page1.vs_plain_p95");
        assert!((r.stat("value").unwrap() - 1.5).abs() < 1e-9);
        assert_eq!(r.unit(), "count");
        assert_eq!(r.params["storage"], "encrypted");
        assert_eq!(r.params["cipher"], "SQLCipher test");
        // No ratio where the plain twin is missing, or at another size.
        assert!(ratio(&out, "list.page_n", &encrypted).is_none());
        let elsewhere = Scenario {
            size: Some(5000),
            ..encrypted
        };
        assert!(ratio(&out, "list.page1", &elsewhere).is_none());
    }

    #[test]
    fn memory_wiping_is_on_in_a_process_once_a_connection_is_keyed() {
        // This test process opens keyed connections in other tests, so only the
        // direction that holds whatever ran first is asserted.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.db");
        let key = JournalKey::for_new_file(&passphrase());
        drop(db::open(&path, &options(key)).unwrap());
        assert!(memory_wiping_on().unwrap());
    }
}
