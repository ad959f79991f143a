//! Load (issue #17): eight processes' worth of writers saving at once, beside readers
//! listing and searching as the window does and the model's queue working through the
//! new entries. No write may be lost and no busy error may reach a caller: every
//! writer's transaction takes the write lock when it begins and waits out the others
//! (`db::open`'s busy timeout), and WAL readers never wait for writers.

mod common;
mod ollama_server;
#[path = "reliability_summary/mod.rs"]
mod reliability_summary;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::TempJournal;
use mindsage_core::ai::OllamaClient;
use mindsage_core::ai::runner::JobRunner;
use mindsage_core::db::entries::{self, ListFilter, NewEntry};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::search::SearchFilter;
use mindsage_core::search::keyword::{self, LastWord, Matching, QueryWords, RankingConnections};
use reliability_summary::Summary;

const WRITERS: usize = 8;
/// Entries each writer saves, unless `MINDSAGE_LOAD_SECONDS` asks for a soak: then each
/// writer saves until that many seconds have passed.
const ENTRIES_PER_WRITER: usize = 1_000;
const READERS: usize = 2;

/// How long the writers go on: a number of saves each, or (a soak) a time.
#[derive(Clone, Copy)]
enum Length {
    Saves(usize),
    Until(Instant),
}

impl Length {
    fn from_env() -> Length {
        match std::env::var("MINDSAGE_LOAD_SECONDS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            Some(seconds) => Length::Until(Instant::now() + Duration::from_secs(seconds)),
            None => Length::Saves(ENTRIES_PER_WRITER),
        }
    }

    fn goes_on(self, saved: usize) -> bool {
        match self {
            Length::Saves(n) => saved < n,
            Length::Until(end) => Instant::now() < end,
        }
    }
}

/// Quick scripted answers, so the queue writes results back all through the load.
const SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "loadtest", "response": "{\"title\": \"Busy day\", \"mood_score\": 6, \"mood_tags\": [\"busy\"], \"summary\": \"A day of many entries.\"}"}
]}"#;

fn body(writer: usize, n: usize) -> String {
    format!("loadtest writer {writer} entry {n}: the harbour at noon, gulls over the boats.")
}

/// One writer: its own connection, one transaction per save, as a second process would.
/// Returns how many saves it made and the errors they met (each one a person would have
/// seen).
fn write(path: &std::path::Path, writer: usize, length: Length) -> (usize, Vec<String>) {
    let mut conn = db::open(path, &StorageOptions::default()).expect("a writer opens the journal");
    let (mut saved, mut errors) = (0, Vec::new());
    while length.goes_on(saved) {
        let entry = NewEntry {
            title: format!("Writer {writer} number {saved}"),
            body: body(writer, saved),
            tags: vec![format!("writer{writer}")],
            mood_score: Some(5),
            created_at: None,
        };
        if let Err(e) = entries::create(&mut conn, DEFAULT_USER, &entry) {
            errors.push(format!("writer {writer}, save {saved}: {e}"));
        }
        saved += 1;
    }
    (saved, errors)
}

/// One reader: the list's first page and a keyword search, again and again, until
/// `stop`; returns how many reads it made and the errors they met. (Their times are the
/// bench's: `list.page1_under_load`.)
fn read(path: &std::path::Path, stop: &AtomicBool) -> (usize, Vec<String>) {
    let conn = db::open(path, &StorageOptions::default()).expect("a reader opens the journal");
    let words = QueryWords::parse("harbour gulls", LastWord::Whole).expect("two words");
    let (mut reads, mut errors) = (0, Vec::new());
    while !stop.load(Ordering::Relaxed) {
        let listed = entries::list(&conn, DEFAULT_USER, &ListFilter::default(), None, 50).map(drop);
        let searched = keyword::rank(
            &conn,
            &mut RankingConnections::none(),
            DEFAULT_USER,
            &words,
            &SearchFilter::default(),
            20,
            Matching::AllWordsFirst,
        )
        .map(drop);
        reads += 1;
        for e in [
            listed.err().map(|e| e.to_string()),
            searched.err().map(|e| e.to_string()),
        ]
        .into_iter()
        .flatten()
        {
            errors.push(e);
        }
    }
    (reads, errors)
}

#[test]
fn eight_writers_beside_readers_and_the_model_queue_lose_nothing_and_meet_no_busy_error() {
    let mut summary = Summary::new(
        "load",
        "eight_writers_beside_readers_and_the_model_queue_lose_nothing_and_meet_no_busy_error",
    );
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = TempJournal::new();
    drop(journal.open());
    let length = Length::from_env();

    // The model's queue, with the app's writer thread, working as the saves arrive.
    let writer = Arc::new(Writer::spawn(&journal.path, &StorageOptions::default()).unwrap());
    let runner = JobRunner::spawn(
        OllamaClient::new(&server.settings()).unwrap(),
        journal.path.clone(),
        StorageOptions::default(),
        writer.clone(),
        Box::new(|_| {}),
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let (saves, write_errors, reads, read_errors) = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..READERS)
            .map(|_| scope.spawn(|| read(&journal.path, &stop)))
            .collect();
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let path = &journal.path;
                let runner = &runner;
                scope.spawn(move || {
                    let written = write(path, w, length);
                    runner.wake();
                    written
                })
            })
            .collect();
        let (saves, write_errors): (Vec<usize>, Vec<Vec<String>>) =
            writers.into_iter().map(|w| w.join().unwrap()).unzip();
        let write_errors: Vec<String> = write_errors.into_iter().flatten().collect();
        stop.store(true, Ordering::Relaxed);
        let (mut reads, mut errors) = (0, Vec::new());
        for reader in readers {
            let (r, e) = reader.join().unwrap();
            reads += r;
            errors.extend(e);
        }
        (saves, write_errors, reads, errors)
    });
    let seconds = started.elapsed().as_secs_f64();
    drop(runner);
    drop(writer);

    let conn = journal.open();
    let count = |sql: &str| -> usize {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .unwrap()
    };
    let saved = count("SELECT count(*) FROM journal_entries WHERE body LIKE 'loadtest writer %'");
    let mut lost = Vec::new();
    for (w, &made) in saves.iter().enumerate() {
        let mut rows = conn
            .prepare("SELECT body FROM journal_entries WHERE body LIKE ?1")
            .unwrap();
        let bodies: std::collections::HashSet<String> = rows
            .query_map([format!("loadtest writer {w} entry %")], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        lost.extend((0..made).map(|n| body(w, n)).filter(|b| !bodies.contains(b)));
    }
    let enriched = count("SELECT count(*) FROM journal_entries WHERE summary IS NOT NULL");
    summary.set("writers", WRITERS);
    let total: usize = saves.iter().sum();
    summary.set("saves", total);
    summary.set("readers", READERS);
    summary.set("reads", reads);
    summary.set("seconds", seconds);
    summary.set("entries_enriched_meanwhile", enriched);
    summary.set("errors_reaching_a_writer", &write_errors);
    summary.set("errors_reaching_a_reader", &read_errors);
    summary.set("saves_lost", lost.len());

    assert!(write_errors.is_empty(), "saves failed: {write_errors:?}");
    assert!(read_errors.is_empty(), "reads failed: {read_errors:?}");
    assert!(
        lost.is_empty(),
        "{} saves lost, e.g. {:?}",
        lost.len(),
        lost.first()
    );
    assert_eq!(saved, total);
    assert!(reads > 0, "the readers ran");
}
