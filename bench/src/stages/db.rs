//! The `db` stage: the journal's storage at 150, 5,000 and 50,000 entries.
//!
//! It times every screen's named query, the writes (through `db::writer::Writer`, the
//! way the app's worker writes, so the writer's checkpoint policy is part of the
//! figure), reads while a background thread keeps the writer busy, the dashboard
//! warm and right after an invalidating write, and counts full scans in the plan of
//! every catalogue statement.
//!
//! Journals come from the deterministic demo generator and are cached under
//! `$HOME/.cache/mindsage-bench/journals/`, keyed by size, seed and schema version, so
//! a second run does not reseed 50,000 entries. Each run measures a fresh copy: the
//! cached file is never written to.
//!
//! Unless `--no-encrypted`, the same journals are also measured encrypted with SQLCipher
//! (`db::cipher::encrypt`, as the app converts a journal), opened with its key, every
//! scenario as on the plain copy, in a process of their own after the plain ones
//! ([`super::encryption::in_child`] says why). The encrypted figures are
//! `encrypted.<name>`, and `encrypted.<name>.vs_plain_p95` their p95 over the plain
//! one's. Then, with every connection closed, opening: `open_to_first_page`
//! (`db::open` and the first list page) on the plain copy, and
//! `encrypted.open_to_first_page` (the key derived from the passphrase by
//! `cipher::unlock`, then the same) on the encrypted one, with its key derivation's
//! share as `encrypted.open.key_derivation`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use mindsage_core::db::entries::{self, Cursor, EntryEdit, ListFilter, NewEntry, PAGE_SIZE};
use mindsage_core::db::gallery::{self, GalleryItem};
use mindsage_core::db::queries::CATALOGUE;
use mindsage_core::db::stats::{self as dashboard, StatsCache};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{
    self, Checkpoint, DEFAULT_USER, EntryId, StorageOptions, UserId, migrate, query_plan,
};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::search::{self, SearchQuery, Searcher, themes};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};
use serde::Serialize;

use super::{Copies, Recorder, Stage, StageContext, encryption};
use crate::run::{Dataset, Measure, Scenario, Unit};
use crate::stats::{self, Measured, Payload, Sampling};

/// The demo seed every db figure is measured on.
pub(super) const SEED: u64 = 42;
const USER: UserId = DEFAULT_USER;
/// Photos one shuffle of the gallery picks.
const GALLERY_SHUFFLE: usize = 12;
/// One entry in this many is in the trash while measuring, so `list.trash` has a page.
const TRASH_EVERY: i64 = 97;
/// Smallest believable answer of a read that returns text.
const MIN_READ_BYTES: u64 = 64;

/// Search box texts for `search.keyword`, all present in the demo journal.
const KEYWORD_QUERIES: &[&str] = &["knee", "glaze", "Priya", "deployment rollback", "river run"];

/// Results the search box shows; its keyword search fetches `search::candidates` of that.
const SEARCH_RESULTS: usize = 50;

const WRITER_NOTE: &str = "through db::writer::Writer (wal_autocheckpoint=0; checkpoints \
    when idle or every 256 commits), timed from submit to reply";

pub struct Db;

impl Stage for Db {
    fn name(&self) -> &'static str {
        "db"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        for &size in &ctx.sizes {
            let cached = cached_journal(size)?;
            let work = tempfile::tempdir()?;
            let path = work.path().join("journal.db");
            let journal = match ctx.copies {
                // Converted as the app converts a journal.
                Copies::Encrypted => {
                    let key = encryption::encrypted_copy(&cached, &path)?;
                    Journal::open(&path, size, encryption::options(key))?
                }
                Copies::Plain | Copies::Both => {
                    std::fs::copy(&cached, &path).with_context(|| format!("copying {}", cached.display()))?;
                    Journal::open(&path, size, StorageOptions::default())?
                }
            };
            out.datasets.push(Dataset {
                stage: "db".into(),
                entries: size,
                seed: SEED,
                photos: journal.photos,
                schema_version: migrate::latest_version(),
            });
            if out.pragmas.is_none() {
                out.pragmas = Some(db::effective_pragmas(&journal.reader)?);
                out.sqlite_vec_version = db::vec_extension::extension_version(&journal.reader);
            }
            let cipher = journal.storage.cipher().map(str::to_owned);
            bench(&journal, ctx.sampling, out)?;
            // Every connection closed, as when the app starts.
            drop(journal);
            let open_sampling = Sampling {
                samples: ctx.sampling.samples.min(OPEN_SAMPLES),
                warmup: ctx.sampling.warmup.min(1),
                ..ctx.sampling
            };
            time_opening(&path, cipher.as_deref(), size, &open_sampling, out);
        }
        if ctx.copies == Copies::Both {
            encryption::in_child("db", ctx, out, |name| {
                name.strip_prefix(encryption::PREFIX).map(str::to_owned)
            })?;
        }
        Ok(())
    }
}

/// Samples of opening a journal: each derives the key again (a few hundred
/// milliseconds by design), so far fewer than a query's.
const OPEN_SAMPLES: usize = 20;

/// Which copy of the journal a connection reads, and what its scenarios are called.
enum Storage {
    Plain,
    /// Encrypted with SQLCipher; `cipher` says which build.
    Encrypted {
        cipher: String,
    },
}

impl Storage {
    /// The name a scenario measured on this copy is recorded under.
    fn name(&self, scenario: &str) -> String {
        match self {
            Storage::Plain => scenario.to_owned(),
            Storage::Encrypted { .. } => format!("{}{scenario}", encryption::PREFIX),
        }
    }

    fn cipher(&self) -> Option<&str> {
        match self {
            Storage::Plain => None,
            Storage::Encrypted { cipher } => Some(cipher),
        }
    }

    fn params(&self) -> BTreeMap<String, String> {
        self.cipher().map(encryption::params).unwrap_or_default()
    }

    /// What a note adds for this copy: nothing for the plain one.
    fn note(&self) -> String {
        match self {
            Storage::Plain => String::new(),
            Storage::Encrypted { cipher } => format!(" ({cipher}; {})", encryption::MMAP_NOTE),
        }
    }
}

/// `open_to_first_page`: from nothing open to the journal's first list page, as the app
/// starts; on an encrypted copy (`cipher` given) from the passphrase, so the key
/// derivation is in it, and its share is recorded as `encrypted.open.key_derivation`.
fn time_opening(path: &Path, cipher: Option<&str>, size: usize, sampling: &Sampling, out: &mut Recorder) {
    let storage = match cipher {
        Some(cipher) => Storage::Encrypted {
            cipher: cipher.to_owned(),
        },
        None => Storage::Plain,
    };
    let mut derivations = Vec::new();
    let measured = stats::measure(
        sampling,
        |_| {
            let conn = match cipher {
                Some(_) => {
                    let (derived, conn) = encryption::unlock_and_open(path)?;
                    derivations.push(derived);
                    conn
                }
                None => db::open(path, &StorageOptions::default())?,
            };
            Ok(entries::list(
                &conn,
                USER,
                &ListFilter::default(),
                None,
                PAGE_SIZE,
            )?)
        },
        page_payload,
    );
    let what = match cipher {
        Some(_) => format!(
            "cipher::unlock (PBKDF2-HMAC-SHA512, {} rounds, and a read to check the key), db::open with the key, the first list page; nothing else open on the file",
            mindsage_core::db::cipher::KDF_ITERATIONS
        ),
        None => "db::open and the first list page; nothing else open on the file".to_owned(),
    };
    // The derivations of the sampled calls (the measurement kept, after its warm-up).
    let sampled = measured
        .as_ref()
        .map_or(0..0, |m| m.first_call..m.first_call + m.stats.count);
    let ran = measured.as_ref().ok().map(Measured::ran);
    let mut rec = SizeRecorder {
        size,
        storage: &storage,
        plans: &BTreeMap::new(),
        out,
    };
    rec.timing(
        "open_to_first_page",
        "list.page1",
        MIN_READ_BYTES,
        Some(&what),
        measured,
    );
    if cipher.is_some() && !sampled.is_empty() {
        let sampled = &derivations[sampled];
        let note = format!(
            "the key derivation's share of each encrypted.open_to_first_page call (cipher::unlock), {} rounds",
            mindsage_core::db::cipher::KDF_ITERATIONS
        );
        let name = storage.name("open.key_derivation");
        rec.out.push(Scenario {
            params: storage.params(),
            ran,
            ..Scenario::new(
                "db",
                Some(size),
                &name,
                super::timing_measure(sampled),
                Some(note),
            )
        });
    }
}

/// Every scenario on the journal, each step starting with the writer's pending
/// checkpoint done, so no earlier step's background checkpoint runs in its timings.
fn bench(journal: &Journal, sampling: Sampling, out: &mut Recorder) -> anyhow::Result<()> {
    let work = Workload::new(journal, &sampling, &mut ChaCha8Rng::seed_from_u64(SEED));
    type Step<'s> = &'s dyn Fn(&Journal, &Workload, &mut SizeRecorder<'_>) -> anyhow::Result<()>;
    let mut step = |step: Step<'_>| -> anyhow::Result<()> {
        journal.settle_writes()?;
        step(journal, &work, &mut journal.recorder(out))
    };
    step(&|j, _, _| j.trash_some())?;
    step(&|j, w, rec| j.time_lists(&sampling, w, rec))?;
    step(&|j, w, rec| {
        j.time_dashboard(&sampling, w, rec);
        Ok(())
    })?;
    step(&|j, _, rec| j.time_search_box(&sampling, rec))?;
    step(&|j, _, rec| {
        j.time_gallery(&sampling, rec);
        Ok(())
    })?;
    step(&|j, w, rec| {
        j.time_writes(&sampling, w, rec);
        Ok(())
    })?;
    step(&|j, w, rec| {
        j.time_list_during_writes(&sampling, w, rec, Storm::TheWriter);
        Ok(())
    })?;
    step(&|j, w, rec| {
        j.time_list_during_writes(&sampling, w, rec, Storm::Connections(LOAD_WRITERS));
        Ok(())
    })?;
    // The plans are the statements', whichever copy they read: recorded with the plain.
    if journal.storage.cipher().is_none() {
        journal.recorder(out).plan_summary();
    }
    Ok(())
}

/// The cached seeded journal for `size`, seeding it first if needed.
pub(super) fn cached_journal(size: usize) -> anyhow::Result<PathBuf> {
    let schema = migrate::latest_version();
    let dir = crate::paths::cache_dir().join("journals");
    let path = dir.join(format!("journal-{size}-seed{SEED}-schema{schema}.db"));
    if path.exists() {
        return Ok(path);
    }
    eprintln!(
        "seeding a {size}-entry demo journal (seed {SEED}) into {}",
        path.display()
    );
    let started = Instant::now();
    // Seed under another name and rename when complete, so an interrupted seeding
    // never leaves a half journal under the cached name.
    let partial = dir.join(format!("journal-{size}-seed{SEED}-schema{schema}.partial"));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", partial.display()));
    }
    {
        let options = StorageOptions::default();
        let mut conn = db::open(&partial, &options)?;
        demo::seed(&mut conn, USER, &DemoOptions::fixed(size, SEED))?;
        db::checkpoint(
            &conn,
            Checkpoint::Truncate,
            options.busy_timeout,
            options.busy_timeout,
        )?;
    }
    std::fs::rename(&partial, &path)?;
    eprintln!("seeded in {:.1} s", started.elapsed().as_secs_f64());
    Ok(path)
}

/// A working copy of a journal, with the app's two connections: a reader and the writer.
struct Journal {
    size: usize,
    path: PathBuf,
    /// What every connection to this copy opens with (the key of an encrypted one).
    options: StorageOptions,
    storage: Storage,
    reader: Connection,
    writer: Writer,
    photos: usize,
    first_id: EntryId,
    last_id: EntryId,
    plans: BTreeMap<&'static str, (u32, Vec<String>)>,
}

impl Journal {
    fn open(path: &Path, size: usize, options: StorageOptions) -> anyhow::Result<Journal> {
        let reader = db::open(path, &options)?;
        let writer = Writer::spawn(path, &options)?;
        let (first_id, last_id, photos): (EntryId, EntryId, i64) = reader.query_row(
            "SELECT min(id), max(id), (SELECT count(*) FROM media) FROM journal_entries",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let storage = match options.key {
            Some(_) => Storage::Encrypted {
                cipher: encryption::describe(&reader),
            },
            None => Storage::Plain,
        };
        Ok(Journal {
            size,
            path: path.to_path_buf(),
            plans: plans(&reader)?,
            options,
            storage,
            reader,
            writer,
            photos: photos as usize,
            first_id,
            last_id,
        })
    }

    /// Records this copy's scenarios at its size.
    fn recorder<'a>(&'a self, out: &'a mut Recorder) -> SizeRecorder<'a> {
        SizeRecorder {
            size: self.size,
            storage: &self.storage,
            plans: &self.plans,
            out,
        }
    }

    /// The live entry `depth` rows from the newest, as a list cursor.
    fn cursor_at(&self, depth: usize) -> anyhow::Result<Cursor> {
        Ok(self.reader.query_row(
            "SELECT created_at, id FROM journal_entries WHERE user_id = ?1 AND is_deleted = 0 \
             ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?2",
            params![USER, depth as i64],
            |r| {
                Ok(Cursor {
                    key: r.get(0)?,
                    id: r.get(1)?,
                })
            },
        )?)
    }

    fn most_used_tag(&self) -> anyhow::Result<String> {
        Ok(self.reader.query_row(
            "SELECT t.name FROM tags AS t JOIN entry_tags AS et ON et.tag_id = t.id \
             WHERE t.user_id = ?1 GROUP BY t.id ORDER BY count(*) DESC, t.name LIMIT 1",
            params![USER],
            |r| r.get(0),
        )?)
    }

    /// Has the writer copy every committed change into the journal file and empty the
    /// write-ahead log, as its idle checkpoint would a moment later. A read scenario
    /// that follows writes calls it first, so that checkpoint (hundreds of edits' pages,
    /// on one of the machine's two cores) is not timed as part of the reads.
    fn settle_writes(&self) -> anyhow::Result<()> {
        let wait = StorageOptions::default().busy_timeout;
        let done = self
            .writer
            .call(move |c| db::checkpoint(c, Checkpoint::Truncate, wait, wait))?;
        anyhow::ensure!(done, "the writer's checkpoint could not complete");
        Ok(())
    }

    /// Live ids (outside the trashed ones), shuffled deterministically.
    fn live_ids(&self, rng: &mut ChaCha8Rng) -> Vec<EntryId> {
        let mut ids: Vec<EntryId> = (self.first_id..=self.last_id)
            .filter(|id| (id - self.first_id) % TRASH_EVERY != 0)
            .collect();
        ids.shuffle(rng);
        ids
    }

    /// Moves one entry in [`TRASH_EVERY`] to the trash, so `list.trash` has a page.
    fn trash_some(&self) -> anyhow::Result<()> {
        let trashed: Vec<EntryId> = (self.first_id..=self.last_id)
            .step_by(TRASH_EVERY as usize)
            .collect();
        self.writer.call(move |c| {
            for id in trashed {
                entries::soft_delete(c, USER, id)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// The journal's pages, each as its screen asks for it, its count, and one entry.
    fn time_lists(
        &self,
        sampling: &Sampling,
        work: &Workload,
        rec: &mut SizeRecorder<'_>,
    ) -> anyhow::Result<()> {
        let reader = &self.reader;
        let m = stats::measure_as(
            "list.page1",
            sampling,
            list_page(reader, ListFilter::default(), None),
            page_payload,
        );
        rec.timing("list.page1", "list.page1", MIN_READ_BYTES, None, m);

        let middle = self.cursor_at(self.size / 2)?;
        let m = stats::measure_as(
            "list.page_n",
            sampling,
            list_page(reader, ListFilter::default(), Some(middle.clone())),
            page_payload,
        );
        let note = "the page after the middle of the journal";
        rec.timing("list.page_n", "list.page_n", MIN_READ_BYTES, Some(note), m);

        let tag = self.most_used_tag()?;
        let filter = ListFilter {
            tag: Some(tag.clone()),
            ..ListFilter::default()
        };
        let m = stats::measure(sampling, list_page(reader, filter, None), page_payload);
        let note = format!("first page of the most used tag ({tag})");
        rec.timing("list.by_tag", "list.by_tag", MIN_READ_BYTES, Some(&note), m);

        // The days of those rows (their UTC days: a range of days is all it needs).
        let day = |cursor: &Cursor| cursor.key.get(..10).and_then(mindsage_core::clock::parse_date);
        let filter = ListFilter {
            from: day(&middle),
            to: day(&self.cursor_at(self.size / 4)?),
            ..ListFilter::default()
        };
        let m = stats::measure(sampling, list_page(reader, filter, None), page_payload);
        let note = "first page of the range between a quarter and half way back";
        let q = "list.by_date_range";
        rec.timing(q, q, MIN_READ_BYTES, Some(note), m);

        let filter = ListFilter {
            trash: true,
            ..ListFilter::default()
        };
        let m = stats::measure(sampling, list_page(reader, filter, None), page_payload);
        let note = format!("one entry in {TRASH_EVERY} is in the trash");
        rec.timing("list.trash", "list.trash", MIN_READ_BYTES, Some(&note), m);

        let m = stats::measure(
            sampling,
            |_| Ok(entries::count(reader, USER)?),
            |&n| Payload::of(u64::from(n > 0), 8),
        );
        rec.timing("list.count", "list.count", 8, None, m);

        let m = stats::measure(
            sampling,
            |i| Ok(entries::get(reader, USER, work.id(i))?),
            |e| json_payload(1, e),
        );
        rec.timing("entry.get", "entry.get", MIN_READ_BYTES, None, m);
        Ok(())
    }

    /// The dashboard's rows, and its figures warm and right after an edit.
    fn time_dashboard(&self, sampling: &Sampling, work: &Workload, rec: &mut SizeRecorder<'_>) {
        let reader = &self.reader;
        let m = stats::measure(
            sampling,
            |_| Ok(dashboard::daily_totals(reader, USER)?),
            |days| json_payload(days.len(), days),
        );
        let q = "dashboard.data";
        rec.timing(q, q, MIN_READ_BYTES, None, m);

        let today = chrono::Utc::now().date_naive();
        let mut cache = StatsCache::default();
        let m = stats::measure(
            sampling,
            |_| Ok(cache.get(reader, USER, today)?),
            |s| json_payload(1, &**s),
        );
        let note = "StatsCache::get with nothing written since the last call";
        rec.timing("dashboard.stats", q, MIN_READ_BYTES, Some(note), m);

        let writer = &self.writer;
        let m = stats::measure_timed(
            sampling,
            |i| {
                let (target, change) = (work.id(i), work.edit(i));
                writer.call(move |c| entries::update(c, USER, target, &change))?;
                let start = Instant::now();
                let s = cache.get(reader, USER, today)?;
                Ok((start.elapsed(), s))
            },
            |s| json_payload(1, &**s),
        );
        let note = "StatsCache::get right after an edit committed by the writer (untimed)";
        rec.timing("dashboard.stats_after_write", q, MIN_READ_BYTES, Some(note), m);

        // Worked out, as the reader does the first time the dashboard is shown after a
        // write (shown again with nothing written, they are kept). On the journal's last
        // day written, as for a person who writes every day: the seeded journal ends
        // before the real today.
        let last_day = dashboard::daily_totals(reader, USER)
            .ok()
            .and_then(|days| days.last().map(|d| d.date))
            .unwrap_or(today);
        let m = stats::measure(
            sampling,
            |_| Ok(themes::lately(reader, USER, last_day)?),
            |lately| json_payload(lately.weeks.len() + lately.months.len(), lately),
        );
        let note = "themes::lately on the journal's last day written: the four weeks' and six \
                    months' themes, worked out as on the dashboard's first show after a write";
        rec.timing(
            "dashboard.themes",
            "dashboard.themes",
            MIN_READ_BYTES,
            Some(note),
            m,
        );
    }

    /// What people type into the search box: a common word, a rarer one, a name and
    /// two-word phrases, in turn, so one cached plan or posting list cannot carry it.
    /// Timed as the app's search box runs it with no vectors: the keyword ranking at
    /// `search::candidates` depth (split over the Searcher's connections), then the
    /// shown results' text and snippets. The edits timed before are checkpointed first.
    fn time_search_box(&self, sampling: &Sampling, rec: &mut SizeRecorder<'_>) -> anyhow::Result<()> {
        self.settle_writes()?;
        let typed = KEYWORD_QUERIES;
        // As the app's reader makes it: its ranking connections keyed like the journal.
        let mut searcher = Searcher::with_key(self.options.key.clone());
        let m = stats::measure(
            sampling,
            |i| {
                let query = SearchQuery::new(typed[i % typed.len()], SEARCH_RESULTS).typed();
                Ok(searcher.hybrid(&self.reader, USER, &query, None)?.hits)
            },
            |hits| json_payload(hits.len(), hits),
        );
        let depth = search::candidates(SEARCH_RESULTS);
        let note = format!(
            "FTS5 BM25 top {depth} ({} ranking threads), then text and snippets of the \
             {SEARCH_RESULTS} shown, over {typed:?} in turn, once the writer has \
             checkpointed the edits before it",
            searcher.ranking_threads()
        );
        rec.timing("search.keyword", "search.keyword", MIN_READ_BYTES, Some(&note), m);
        Ok(())
    }

    /// A page of photos and a shuffle.
    fn time_gallery(&self, sampling: &Sampling, rec: &mut SizeRecorder<'_>) {
        let reader = &self.reader;
        let m = stats::measure(
            sampling,
            |_| Ok(gallery::page(reader, USER, None, PAGE_SIZE)?.0),
            |items| gallery_payload(items),
        );
        rec.timing("gallery.page", "gallery.page", MIN_READ_BYTES, None, m);

        let mut shuffle_rng = ChaCha8Rng::seed_from_u64(SEED);
        let m = stats::measure(
            sampling,
            |_| Ok(gallery::random(reader, USER, GALLERY_SHUFFLE, &mut shuffle_rng)?),
            |items| gallery_payload(items),
        );
        let note = format!("{GALLERY_SHUFFLE} random photos");
        let q = "gallery.random";
        rec.timing(q, q, MIN_READ_BYTES, Some(&note), m);
    }

    /// Every write, as the app's worker makes it.
    fn time_writes(&self, sampling: &Sampling, work: &Workload, rec: &mut SizeRecorder<'_>) {
        let writer = &self.writer;
        let one_row = |_: &()| Payload::of(1, 0);
        let m = stats::measure(
            sampling,
            |i| {
                let entry = work.text(i);
                writer.call(move |c| entries::create(c, USER, &entry).map(drop))?;
                Ok(())
            },
            one_row,
        );
        rec.timing("write.create", "write.create", 0, Some(WRITER_NOTE), m);

        let m = stats::measure(
            sampling,
            |i| {
                let (target, change) = (work.id(i), work.edit(i));
                Ok(writer.call(move |c| entries::update(c, USER, target, &change))?)
            },
            one_row,
        );
        rec.timing("write.update", "write.update", 0, Some(WRITER_NOTE), m);

        // Trash and restore in pairs, only one of them timed, so any journal size has
        // enough live entries for any sample count.
        let trash = |target| writer.call(move |c| entries::soft_delete(c, USER, target));
        let restore = |target| writer.call(move |c| entries::restore(c, USER, target));
        let m = stats::measure_timed(
            sampling,
            |i| {
                let start = Instant::now();
                trash(work.id(i))?;
                let elapsed = start.elapsed();
                restore(work.id(i))?;
                Ok((elapsed, ()))
            },
            one_row,
        );
        let note = format!("{WRITER_NOTE}; each followed by an untimed restore");
        let q = "write.soft_delete";
        rec.timing(q, q, 0, Some(&note), m);

        let m = stats::measure_timed(
            sampling,
            |i| {
                trash(work.id(i))?;
                let start = Instant::now();
                restore(work.id(i))?;
                Ok((start.elapsed(), ()))
            },
            one_row,
        );
        let note = format!("{WRITER_NOTE}; each after an untimed soft delete");
        rec.timing("write.restore", "write.restore", 0, Some(&note), m);

        let busy = StorageOptions::default().busy_timeout;
        let m = stats::measure_timed(
            sampling,
            |i| {
                let entry = work.text(i);
                let target = writer.call(move |c| entries::create(c, USER, &entry))?;
                let start = Instant::now();
                writer.call(move |c| entries::purge(c, USER, target, busy))?;
                Ok((start.elapsed(), ()))
            },
            one_row,
        );
        let note = format!(
            "{WRITER_NOTE}; purges an entry created just before (untimed), including the \
             purge's own truncating checkpoint"
        );
        rec.timing("write.purge", "write.purge", 0, Some(&note), m);
    }

    /// The list while `storm` saves as fast as it can.
    fn time_list_during_writes(
        &self,
        sampling: &Sampling,
        work: &Workload,
        rec: &mut SizeRecorder<'_>,
        storm: Storm,
    ) {
        let (path, writer, options) = (&self.path, &self.writer, &self.options);
        let stop = AtomicBool::new(false);
        let storm_writes = AtomicUsize::new(0);
        let storm_started = Instant::now();
        let m = std::thread::scope(|scope| {
            let savers: Vec<_> = (0..storm.threads())
                .map(|t| {
                    let (stop, storm_writes) = (&stop, &storm_writes);
                    scope.spawn(move || -> anyhow::Result<()> {
                        let mut own = match storm {
                            Storm::TheWriter => None,
                            Storm::Connections(_) => Some(db::open(path, options)?),
                        };
                        let mut i = t;
                        while !stop.load(Ordering::Relaxed) {
                            let entry = work.text(i);
                            match &mut own {
                                None => writer.call(move |c| entries::create(c, USER, &entry).map(drop))?,
                                Some(conn) => entries::create(conn, USER, &entry).map(drop)?,
                            }
                            storm_writes.fetch_add(1, Ordering::Relaxed);
                            i += storm.threads();
                        }
                        Ok(())
                    })
                })
                .collect();
            // Let the storm get going before the first sample.
            while storm_writes.load(Ordering::Relaxed) < 5 && !savers.iter().any(|s| s.is_finished()) {
                std::thread::sleep(Duration::from_millis(1));
            }
            let m = stats::measure(
                sampling,
                list_page(&self.reader, ListFilter::default(), None),
                page_payload,
            );
            stop.store(true, Ordering::Relaxed);
            for saver in savers {
                saver.join().expect("a write storm thread panicked")?;
            }
            m
        });
        let rate = storm_writes.load(Ordering::Relaxed) as f64 / storm_started.elapsed().as_secs_f64();
        let (name, who) = match storm {
            Storm::TheWriter => (
                "list.page1_during_writes",
                "another thread saves new entries back to back through the Writer".to_owned(),
            ),
            Storm::Connections(n) => (
                "list.page1_under_load",
                format!(
                    "{n} threads, each with its own connection as another process would have, save new entries back to back"
                ),
            ),
        };
        let note = format!("list.page1 on the reader while {who} ({rate:.0} commits/s)");
        rec.timing(name, "list.page1", MIN_READ_BYTES, Some(&note), m);
    }
}

/// Who saves while `list.page1_during_writes` / `list.page1_under_load` read.
#[derive(Clone, Copy)]
enum Storm {
    /// The app's writer thread, as the app saves.
    TheWriter,
    /// Threads with connections of their own, as other processes writing at once (the
    /// reliability suite's load, issue #17).
    Connections(usize),
}

impl Storm {
    fn threads(self) -> usize {
        match self {
            Storm::TheWriter => 1,
            Storm::Connections(n) => n,
        }
    }
}

/// Writers of `list.page1_under_load`, as in core/tests/load.rs.
const LOAD_WRITERS: usize = 8;

/// What the timed writes write and the reads read: texts for new entries and edits from
/// the demo generator under another seed, and the live entries in a fixed shuffled order.
struct Workload {
    texts: Vec<NewEntry>,
    ids: Vec<EntryId>,
}

impl Workload {
    fn new(journal: &Journal, sampling: &Sampling, rng: &mut ChaCha8Rng) -> Workload {
        let calls = sampling.samples + sampling.warmup;
        let texts = demo::generate(&DemoOptions::fixed(calls.max(64), SEED + 1))
            .map(|d| NewEntry {
                created_at: None,
                ..d.entry
            })
            .collect();
        Workload {
            texts,
            ids: journal.live_ids(rng),
        }
    }

    /// The `i`th new entry.
    fn text(&self, i: usize) -> NewEntry {
        self.texts[i % self.texts.len()].clone()
    }

    /// The `i`th edit: the next text's title, body, tags and mood.
    fn edit(&self, i: usize) -> EntryEdit {
        let t = self.text(i + 1);
        EntryEdit {
            title: t.title,
            body: t.body,
            tags: t.tags,
            mood_score: t.mood_score,
        }
    }

    /// The `i`th live entry.
    fn id(&self, i: usize) -> EntryId {
        self.ids[i % self.ids.len()]
    }
}

/// A call that reads one page of the journal, as the list screen asks for it.
fn list_page(
    reader: &Connection,
    filter: ListFilter,
    after: Option<Cursor>,
) -> impl FnMut(usize) -> anyhow::Result<entries::Page> + '_ {
    move |_| Ok(entries::list(reader, USER, &filter, after.as_ref(), PAGE_SIZE)?)
}

/// A page's rows and their JSON size.
fn page_payload(page: &entries::Page) -> Payload {
    json_payload(page.rows.len(), &page.rows)
}

/// Full scans in each catalogue statement's plan: (all table scans, those outside the
/// statement's allow-list). Statements over a model's vector table are left out where
/// the journal has no vectors, as the demo journal has none.
fn plans(conn: &Connection) -> anyhow::Result<BTreeMap<&'static str, (u32, Vec<String>)>> {
    let model = db::vectors::active_model(conn, USER)?;
    let mut plans = BTreeMap::new();
    for q in CATALOGUE {
        let Some(lines) = query_plan::explain_query(conn, q, model.as_ref())? else {
            continue;
        };
        let scans = lines
            .iter()
            .filter(|line| query_plan::is_table_scan(line))
            .count() as u32;
        plans.insert(q.name, (scans, query_plan::unexpected_scans(q, &lines)));
    }
    Ok(plans)
}

/// Adds one size's scenarios of one copy of the journal to the run, with the plan of
/// the statement behind each.
struct SizeRecorder<'a> {
    size: usize,
    storage: &'a Storage,
    plans: &'a BTreeMap<&'static str, (u32, Vec<String>)>,
    out: &'a mut Recorder,
}

impl SizeRecorder<'_> {
    fn timing(
        &mut self,
        name: &str,
        query: &str,
        expect_min_bytes: u64,
        note: Option<&str>,
        measured: anyhow::Result<Measured>,
    ) {
        let (measure, payload, ran) = match measured {
            Ok(m) => (
                Measure::Timing {
                    stats: m.stats,
                    requested: m.requested,
                    budget_exhausted: m.budget_exhausted,
                },
                Some(m.payload),
                Some(m.ran()),
            ),
            Err(e) => (
                Measure::Failed {
                    error: format!("{e:#}"),
                },
                None,
                None,
            ),
        };
        let note = match stats::slowdown(name) {
            Ok(Some(factor)) => Some(format!(
                "{}SLOWED ×{factor} by {} (a test switch)",
                note.map_or(String::new(), |n| format!("{n}; ")),
                stats::SLOWDOWN_VAR
            )),
            _ => note.map(str::to_owned),
        };
        let note = match self.storage {
            Storage::Plain => note,
            Storage::Encrypted { .. } => Some(format!(
                "{}the encrypted copy of the same journal{}",
                note.map_or(String::new(), |n| format!("{n}; ")),
                self.storage.note()
            )),
        };
        let (full_scans, unexpected) = self
            .plans
            .get(query)
            .map_or((None, Vec::new()), |(n, u)| (Some(*n), u.clone()));
        self.out.push(Scenario {
            payload,
            expect_min_bytes,
            full_scans,
            unexpected_scans: unexpected,
            params: self.storage.params(),
            ran,
            ..Scenario::new("db", Some(self.size), &self.storage.name(name), measure, note)
        });
    }

    /// One figure for the whole catalogue: full scans nobody accepted.
    fn plan_summary(&mut self) {
        let offenders: Vec<String> = self
            .plans
            .iter()
            .filter(|(_, (_, unexpected))| !unexpected.is_empty())
            .map(|(name, (_, unexpected))| format!("{name}: {}", unexpected.join(", ")))
            .collect();
        let total: usize = self.plans.values().map(|(_, u)| u.len()).sum();
        let allowed: u32 = self.plans.values().map(|(n, _)| n).sum::<u32>() - total as u32;
        let note = if offenders.is_empty() {
            format!(
                "{} catalogue statements checked; {allowed} allow-listed scans",
                self.plans.len()
            )
        } else {
            offenders.join("; ")
        };
        self.out.push(Scenario::new(
            "db",
            Some(self.size),
            "plans.unexpected_full_scans",
            Measure::Value {
                value: total as f64,
                unit: Unit::Count,
            },
            Some(note),
        ));
    }
}

/// Rows and the size of their JSON encoding: what a screen receives, in comparable bytes.
fn json_payload<T: Serialize + ?Sized>(rows: usize, value: &T) -> Payload {
    let bytes = serde_json::to_vec(value).map_or(0, |v| v.len());
    Payload::of(rows as u64, bytes as u64)
}

/// Photos returned and the thumbnail bytes that came with them.
fn gallery_payload(items: &[GalleryItem]) -> Payload {
    let bytes: usize = items.iter().map(|i| i.thumbnail_jpeg.len()).sum();
    Payload::of(items.len() as u64, bytes as u64)
}
