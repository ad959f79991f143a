//! The `import` stage: the bulk-ingest path, measured step by step on identical input.
//!
//! 50,000 demo entries (titles, bodies, tags, moods) are written once as Day One's
//! export JSON (uuids, UTC dates, IANA time zones, `# Title` first lines, a location on
//! some). Parsing those bytes into items (`serde_json` and the Day One importer) is
//! timed on its own. Then each write path imports the same items through
//! `import::run` into a fresh journal, the way a careful PR changes one thing at a
//! time: SQLite's defaults, then a larger page cache, then a larger checkpoint
//! interval, then full-text rows written per batch, then checkpoints on a thread of
//! their own; the shipped path (`WritePath::default()`) with batches of 500, 1,000 and
//! 5,000; and plain `INSERT`s of the same rows (no tags, no search index, no import
//! keys, no queued work) in the same run, whose rate the others are divided by, so a
//! faster or slower machine leaves the ratios roughly where they are.
//!
//! Each path is imported [`ROUNDS`] times, the paths taking turns so that a machine
//! that warms up or slows down over the stage is charged to all of them alike. Per
//! path: entries/s (median of the rounds), the whole import's time, the commit's cost
//! per entry (p50/p95 over every batch of every round) and the -wal file's peak size
//! (the payload a checkpoint interval trades for speed). Every journal is opened with
//! `StorageOptions::default()`, as `mindsage import` and the app's import thread open
//! theirs.
//!
//! Unless `--no-encrypted`, the shipped path also imports the same items into a new
//! journal encrypted with SQLCipher (`shipped_encrypted`: opened with a key made by
//! `JournalKey::for_new_file` before the clock starts, as the app makes a new encrypted
//! journal), its rounds in a process of their own after the plain paths'
//! ([`super::encryption::in_child`] says why), and
//! `import.shipped_encrypted.vs_shipped` is its entries/s over the plain shipped path's.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use chrono::SecondsFormat;
use mindsage_core::db::cipher::JournalKey;
use mindsage_core::db::queries::WRITE_CREATE;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::import::{self, WritePath, dayone};
use rusqlite::params;

use super::{Copies, Recorder, Stage, StageContext, encryption};
use crate::busy::Series;
use crate::run::{Dataset, Measure, Scenario, Unit};

/// Entries in the export imported.
const ENTRIES: usize = 50_000;
const SEED: u64 = 42;
/// Imports of each path.
const ROUNDS: usize = 5;
/// The time zones the export's entries were written in, in turn.
const ZONES: &[&str] = &[
    "Europe/London",
    "America/New_York",
    "Asia/Tokyo",
    "Australia/Sydney",
];

/// Names the steps to measure (comma-separated, or `all`; plain `INSERT`s, the
/// baseline, always run). Unset, a run measures the shipped path (and its encrypted
/// twin): the board's figures. The steps that led to it are history, each decided by
/// an A/B run recorded in docs/optimisation-log.md; they took three quarters of the
/// stage's time, so they run only when asked for (`all`, or by name when the write path
/// is reconsidered).
const STEPS_VAR: &str = "MINDSAGE_BENCH_IMPORT_STEPS";

/// The steps a run measures when [`STEPS_VAR`] names none.
const DEFAULT_STEPS: &[&str] = &["shipped"];

/// One way of writing the items, by the name its scenarios carry.
struct Step {
    name: &'static str,
    /// `None`: plain `INSERT`s of the rows, the baseline.
    write: Option<WritePath>,
    what: &'static str,
    /// Into a new encrypted journal: the step named without `_encrypted`, on SQLCipher.
    encrypted: bool,
}

/// The baseline the write paths' rates are divided by.
const PLAIN_INSERTS: &str = "plain_inserts";

/// The encrypted twin of the shipped path.
const SHIPPED_ENCRYPTED: &str = "shipped_encrypted";

/// The steps [`STEPS_VAR`] names (every one for `all`), or [`DEFAULT_STEPS`], into
/// plain journals with the baseline; or, for the encrypted copies, the encrypted twin of
/// the shipped path when the shipped path runs.
fn chosen_steps(copies: Copies) -> Vec<Step> {
    let named = std::env::var(STEPS_VAR).unwrap_or_default();
    let mut wanted: Vec<&str> = named
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if wanted.is_empty() {
        wanted = DEFAULT_STEPS.to_vec();
    }
    let chosen = |name: &str| wanted.contains(&"all") || wanted.contains(&name);
    steps()
        .into_iter()
        .filter(|s| match (s.encrypted, copies) {
            (true, Copies::Encrypted) => chosen(s.name) || chosen("shipped"),
            (false, Copies::Plain | Copies::Both) => s.write.is_none() || chosen(s.name),
            _ => false,
        })
        .collect()
}

fn steps() -> Vec<Step> {
    let defaults = WritePath::defaults(import::BATCH);
    let cache = WritePath {
        cache_kib: Some(64 * 1024),
        ..defaults
    };
    let checkpoint = WritePath {
        wal_autocheckpoint: Some(20_000),
        ..cache
    };
    let fts = WritePath {
        fts_per_batch: true,
        ..checkpoint
    };
    let beside = WritePath {
        checkpoint_beside: true,
        ..fts
    };
    let shipped = WritePath::default();
    vec![
        Step {
            name: PLAIN_INSERTS,
            write: None,
            what: "plain INSERTs of the same rows, 1,000 a transaction, SQLite's defaults",
            encrypted: false,
        },
        Step {
            name: "defaults",
            write: Some(defaults),
            what: "SQLite's defaults (the connection's page cache, wal_autocheckpoint 1000), full-text row with each entry",
            encrypted: false,
        },
        Step {
            name: "cache",
            write: Some(cache),
            what: "defaults + a 64 MiB page cache",
            encrypted: false,
        },
        Step {
            name: "checkpoint",
            write: Some(checkpoint),
            what: "+ wal_autocheckpoint 20,000 pages",
            encrypted: false,
        },
        Step {
            name: "fts_per_batch",
            write: Some(fts),
            what: "+ the batch's full-text rows written together at its end",
            encrypted: false,
        },
        Step {
            name: "checkpoint_beside",
            write: Some(beside),
            what: "+ checkpoints on a thread of their own, beside the import",
            encrypted: false,
        },
        Step {
            name: "shipped_batch_500",
            write: Some(WritePath {
                batch: 500,
                ..shipped
            }),
            what: "the shipped path, 500 entries a transaction",
            encrypted: false,
        },
        Step {
            name: "shipped",
            write: Some(shipped),
            what: "the shipped path (WritePath::default())",
            encrypted: false,
        },
        Step {
            name: "shipped_batch_5000",
            write: Some(WritePath {
                batch: 5_000,
                ..shipped
            }),
            what: "the shipped path, 5,000 entries a transaction",
            encrypted: false,
        },
        Step {
            name: SHIPPED_ENCRYPTED,
            write: Some(shipped),
            what: "the shipped path (WritePath::default()) into a new journal encrypted with SQLCipher",
            encrypted: true,
        },
    ]
}

/// What one import of one path measured.
struct Round {
    elapsed: Duration,
    /// Each batch's commit time over its entries.
    commit_per_entry: Vec<Duration>,
    wal_peak: u64,
}

pub struct Import;

impl Stage for Import {
    fn name(&self) -> &'static str {
        "import"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let export = day_one_export()?;
        out.datasets.push(Dataset {
            stage: "import".into(),
            entries: ENTRIES,
            seed: SEED,
            photos: 0,
            schema_version: db::migrate::latest_version(),
        });
        // Each round (a parse, an import) is measured once more when the machine was
        // busy during it, the quieter kept.
        let remeasure = ctx.sampling.remeasure;
        if ctx.copies != Copies::Encrypted {
            time_parsing(out, &export, remeasure)?;
        }
        let chosen = chosen_steps(ctx.copies);
        let mut rounds: Vec<Vec<Round>> = chosen.iter().map(|_| Vec::new()).collect();
        let mut series: Vec<Series> = chosen.iter().map(|_| Series::default()).collect();
        for _ in 0..ROUNDS {
            for ((step, done), series) in chosen.iter().zip(&mut rounds).zip(&mut series) {
                let mut attempt = || -> anyhow::Result<Round> {
                    let dir = tempfile::tempdir()?;
                    let journal = dir.path().join("import.db");
                    // Parsed again, untimed: an import consumes its items.
                    let items = parse(&export)?;
                    // A new encrypted journal's key is made before the clock starts, as
                    // the app makes it when the person chooses the passphrase.
                    let options = match step.encrypted {
                        true => encryption::options(JournalKey::for_new_file(&encryption::passphrase())),
                        false => StorageOptions::default(),
                    };
                    match step.write {
                        Some(write) => import_round(&journal, items, write, &options),
                        None => plain_round(&journal, &items, import::BATCH),
                    }
                    .with_context(|| format!("importing through the {} path", step.name))
                };
                done.push(series.measure(remeasure, &mut attempt)?);
            }
        }

        let elapsed_of = |done: &[Round]| -> Vec<Duration> { done.iter().map(|r| r.elapsed).collect() };
        for ((step, done), series) in chosen.iter().zip(&rounds).zip(&series) {
            record_rate(out, step.name, &elapsed_of(done), series, step.what);
            let commits: Vec<Duration> = done
                .iter()
                .flat_map(|r| r.commit_per_entry.iter().copied())
                .collect();
            out.push(
                Scenario::new(
                    "import",
                    Some(ENTRIES),
                    &format!("import.{}.commit_ms_per_entry", step.name),
                    super::timing_measure(&commits),
                    Some("each batch's COMMIT over the entries in it".into()),
                )
                .measured_over(series, "rounds"),
            );
            out.push(value(
                &format!("import.{}.wal_peak_bytes", step.name),
                done.iter().map(|r| r.wal_peak).max().unwrap_or(0) as f64,
                Unit::Bytes,
                "the -wal file's largest size after a commit, over every round".into(),
            ));
        }
        match ctx.copies {
            Copies::Encrypted => return Ok(()),
            Copies::Both => encryption::in_child("import", ctx, out, |_| None)?,
            Copies::Plain => {}
        }
        for step in steps().iter().filter(|s| s.write.is_some()) {
            push_rate_ratio(
                out,
                (step.name, PLAIN_INSERTS),
                "its entries/s over plain INSERTs' in the same run",
            );
        }
        push_rate_ratio(
            out,
            (SHIPPED_ENCRYPTED, "shipped"),
            "entries/s into a new encrypted journal over entries/s into a new plain one, the shipped path on the same items in this run",
        );
        Ok(())
    }
}

/// `export_bytes`, and parsing the export into items, timed.
fn time_parsing(out: &mut Recorder, export: &[u8], remeasure: bool) -> anyhow::Result<()> {
    out.push(value(
        "import.export_bytes",
        export.len() as f64,
        Unit::Bytes,
        "the Day One-shaped JSON imported".into(),
    ));
    let mut parse_series = Series::default();
    let parses: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            parse_series.measure(remeasure, || {
                let started = Instant::now();
                parse(export).map(|_| started.elapsed())
            })
        })
        .collect::<anyhow::Result<_>>()?;
    record_rate(
        out,
        "parse",
        &parses,
        &parse_series,
        "serde_json and the Day One importer, bytes to items",
    );

    Ok(())
}

/// `import.<a>.vs_<b>`: path `a`'s entries/s over path `b`'s, when both were imported.
fn push_rate_ratio(out: &mut Recorder, (a, b): (&str, &str), note: &str) {
    let rate = |step: &str| {
        let name = format!("import.{step}.entries_per_second");
        out.scenarios
            .iter()
            .find(|s| s.stage == "import" && s.name == name)
            .and_then(|s| s.stat("value"))
    };
    let (Some(rate_a), Some(rate_b)) = (rate(a), rate(b)) else {
        return;
    };
    let ratio = value(
        &format!("import.{a}.vs_{b}"),
        rate_a / rate_b,
        Unit::Score,
        note.into(),
    );
    out.push_derived(
        ratio,
        &[&format!("import.{a}.seconds"), &format!("import.{b}.seconds")],
    );
}

/// The demo journal as Day One exports it: one journal's JSON.
fn day_one_export() -> anyhow::Result<Vec<u8>> {
    let options = DemoOptions {
        photo_every: 0,
        ..DemoOptions::fixed(ENTRIES, SEED)
    };
    let entries: Vec<serde_json::Value> = demo::generate(&options)
        .enumerate()
        .map(|(n, demo)| {
            let e = demo.entry;
            let created = e
                .created_at
                .expect("the demo dates every entry")
                .to_utc()
                .to_rfc3339_opts(SecondsFormat::Secs, true);
            let mut entry = serde_json::json!({
                "uuid": format!("{:032X}", (n as u128 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835)),
                "creationDate": created,
                "modifiedDate": created,
                "timeZone": ZONES[n % ZONES.len()],
                "starred": n % 23 == 0,
                "tags": e.tags,
                "text": format!("# {}\n\n{}", e.title, e.body),
            });
            if n % 4 == 0 {
                entry["location"] = serde_json::json!({"localityName": "Leeds", "latitude": 53.8, "longitude": -1.55});
            }
            entry
        })
        .collect();
    Ok(serde_json::to_vec(&serde_json::json!({
        "metadata": { "version": "1.0" },
        "entries": entries,
    }))?)
}

fn parse(export: &[u8]) -> anyhow::Result<import::Export> {
    let json = serde_json::from_slice(export)?;
    // No photos in it, so the folder its files would be read from is never read.
    let parsed = dayone::read_json("Journal", json, Path::new("."));
    if parsed.items.len() != ENTRIES {
        bail!("the importer read {} of {ENTRIES} entries", parsed.items.len());
    }
    Ok(parsed)
}

/// One import of `export` through `import::run` into a new journal at `journal`,
/// opened with `storage` (the default, or a new encrypted journal's key).
fn import_round(
    journal: &Path,
    mut export: import::Export,
    write: WritePath,
    storage: &StorageOptions,
) -> anyhow::Result<Round> {
    let mut conn = db::open(journal, storage)?;
    let options = import::Options {
        write,
        key: storage.key.as_ref(),
        ..import::Options::default()
    };
    let mut last = (0, Duration::ZERO);
    let mut commit_per_entry = Vec::new();
    let mut wal_peak = 0;
    let started = Instant::now();
    let report = import::run(&mut conn, DEFAULT_USER, &mut export, &options, &mut |p| {
        let entries = (p.done - last.0).max(1) as u32;
        commit_per_entry.push((p.committing - last.1) / entries);
        last = (p.done, p.committing);
        wal_peak = wal_peak.max(wal_size(journal));
    })?;
    let elapsed = started.elapsed();
    let indexed: i64 = conn.query_row("SELECT count(*) FROM entries_fts", [], |r| r.get(0))?;
    if report.added != ENTRIES || indexed != ENTRIES as i64 {
        bail!(
            "{} entries added and {indexed} indexed of {ENTRIES}",
            report.added
        );
    }
    Ok(Round {
        elapsed,
        commit_per_entry,
        wal_peak,
    })
}

/// The baseline: the same rows as bare `INSERT`s, `batch` a transaction.
fn plain_round(journal: &Path, export: &import::Export, batch: usize) -> anyhow::Result<Round> {
    let mut conn = db::open(journal, &StorageOptions::default())?;
    let mut commit_per_entry = Vec::new();
    let mut wal_peak = 0;
    let started = Instant::now();
    for chunk in export.items.chunks(batch) {
        let tx = conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(WRITE_CREATE.sql)?;
            for item in chunk {
                let e = &item.entry;
                let lived = item.lived();
                insert.execute(params![
                    DEFAULT_USER,
                    mindsage_core::clock::format_utc(lived.to_utc()),
                    mindsage_core::clock::format_date(lived.date_naive()),
                    e.title.trim(),
                    !e.title.trim().is_empty(),
                    e.mood_score,
                    entries::word_count(&e.body),
                    entries::preview_of(&e.body),
                    e.body,
                    "",
                    mindsage_core::clock::utc_offset_of(&lived),
                ])?;
            }
        }
        let commit = Instant::now();
        tx.commit()?;
        commit_per_entry.push(commit.elapsed() / chunk.len() as u32);
        wal_peak = wal_peak.max(wal_size(journal));
    }
    let elapsed = started.elapsed();
    let rows: i64 = conn.query_row("SELECT count(*) FROM journal_entries", [], |r| r.get(0))?;
    if rows != ENTRIES as i64 {
        bail!("{rows} rows written of {ENTRIES}");
    }
    Ok(Round {
        elapsed,
        commit_per_entry,
        wal_peak,
    })
}

fn wal_size(journal: &Path) -> u64 {
    std::fs::metadata(format!("{}-wal", journal.display())).map_or(0, |m| m.len())
}

/// Entries per second of each round, slowest first.
fn rates(elapsed: &[Duration]) -> Vec<f64> {
    let mut rates: Vec<f64> = elapsed.iter().map(|d| ENTRIES as f64 / d.as_secs_f64()).collect();
    rates.sort_by(f64::total_cmp);
    rates
}

/// A step's entries/s (median of its rounds) and the rounds' times, with the load the
/// rounds ran under.
fn record_rate(out: &mut Recorder, name: &str, elapsed: &[Duration], series: &Series, what: &str) {
    let rates = rates(elapsed);
    out.push(
        value(
            &format!("import.{name}.entries_per_second"),
            rates[rates.len() / 2],
            Unit::Score,
            format!(
                "{what}; median of {} rounds ({:.0} to {:.0})",
                rates.len(),
                rates[0],
                rates[rates.len() - 1]
            ),
        )
        .timed()
        .measured_over(series, "rounds"),
    );
    out.push(
        Scenario::new(
            "import",
            Some(ENTRIES),
            &format!("import.{name}.seconds"),
            super::timing_measure(elapsed),
            Some(format!("{what}; each round's whole time")),
        )
        .measured_over(series, "rounds"),
    );
}

fn value(name: &str, value: f64, unit: Unit, note: String) -> Scenario {
    Scenario::new(
        "import",
        Some(ENTRIES),
        name,
        Measure::Value { value, unit },
        Some(note),
    )
}
