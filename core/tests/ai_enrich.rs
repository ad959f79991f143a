//! Enrichment end to end against a real server: the job queue, one model call per
//! entry, one transaction of results, the person's own title and mood kept, and work
//! that waits while Ollama is down and resumes when it is back.

mod ai_journals;
mod ollama_server;

use mindsage_core::ai::runner;
use mindsage_core::ai::{AiError, AiSettings, OllamaClient};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};

use ai_journals::{Journal, journal};

fn save(journal: &Journal, title: &str, body: &str, mood: Option<u8>) -> i64 {
    let entry = entries::NewEntry {
        title: title.to_owned(),
        body: body.to_owned(),
        mood_score: mood,
        ..Default::default()
    };
    journal
        .writer
        .call(move |conn| entries::create(conn, DEFAULT_USER, &entry))
        .unwrap()
}

/// Pending and failed jobs.
fn jobs_left(journal: &Journal) -> (u64, u64) {
    let counts = db::jobs::counts(&journal.reader).unwrap();
    (counts.pending(), counts.failed)
}

const SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "lighthouse-walk", "response": "{\"title\": \"Lighthouse walk\", \"mood_score\": 8, \"mood_tags\": [\"Calm\", \"grateful\"], \"summary\": \"Walked to the lighthouse and felt calm.\"}"},
  {"match": "broken-mood", "response": "{\"title\": \"Bad\", \"mood_score\": 42, \"mood_tags\": [], \"summary\": \"x\"}"}
]}"#;

/// An entry of white space alone (saved from elsewhere, or emptied) asks the model for
/// nothing: its jobs are cleared, and no title, mood or summary is made up for it.
#[test]
fn an_entry_of_white_space_gets_no_model_work() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let blank = save(&journal, " ", "   \n\t  ", None);
    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(
        (report.model_calls, report.embed_calls, report.enriched),
        (0, 0, 0),
        "{report:?}"
    );
    assert_eq!(jobs_left(&journal), (0, 0), "its jobs are cleared, not failed");
    let e = entries::get(&journal.reader, DEFAULT_USER, blank).unwrap();
    assert_eq!((e.title.as_str(), e.summary, e.suggested_mood), ("", None, None));
}

#[test]
fn one_call_per_entry_writes_everything_and_keeps_what_the_person_chose() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let plain = save(&journal, "", "A lighthouse-walk at dawn, cold wind.", None);
    let chosen = save(
        &journal,
        "My own title",
        "Another lighthouse-walk, with Sam.",
        Some(3),
    );

    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    // The saves queued both kinds: one batch of embeddings, then one call per entry.
    assert_eq!(
        (
            report.embedded,
            report.enriched,
            report.model_calls,
            report.embed_calls
        ),
        (2, 2, 2, 1),
        "{report:?}"
    );

    let e = entries::get(&journal.reader, DEFAULT_USER, plain).unwrap();
    assert_eq!(e.title, "Lighthouse walk");
    assert!(!e.title_by_user, "the model's title is not the person's");
    assert_eq!(
        e.summary.as_deref(),
        Some("Walked to the lighthouse and felt calm.")
    );
    // The model's mood and tags are suggestions, apart from the person's own.
    assert_eq!(e.mood_score, None);
    assert_eq!(e.suggested_mood, Some(8));
    assert!(e.tags.is_empty(), "{:?}", e.tags);
    assert_eq!(e.suggested_tags, ["calm", "grateful"]);
    // Keyword search sees the model's title, not only the stored row.
    let found = mindsage_core::search::hybrid_knn(
        &journal.reader,
        DEFAULT_USER,
        &mindsage_core::search::SearchQuery::new("lighthouse", 5),
        None,
    )
    .unwrap();
    assert!(found.hits.iter().any(|h| h.entry_id == plain), "not searchable");
    let e = entries::get(&journal.reader, DEFAULT_USER, chosen).unwrap();
    assert_eq!((e.title.as_str(), e.mood_score), ("My own title", Some(3)));
    assert!(e.title_by_user);
    assert_eq!(e.suggested_mood, Some(8), "suggested beside the person's mood");

    let vectors: i64 = journal
        .reader
        .query_row("SELECT count(DISTINCT entry_id) FROM vector_changes", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(vectors, 2, "both entries embedded");
    assert_eq!(jobs_left(&journal), (0, 0));
}

#[test]
fn output_that_stays_invalid_spends_attempts_then_fails_without_entry_text() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let id = save(&journal, "", "secret-words broken-mood", None);
    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(
        (report.embedded, report.enriched, report.failed_attempts),
        (1, 0, 1)
    );
    let (attempts, error): (i64, String) = journal
        .reader
        .query_row(
            "SELECT attempts, last_error FROM ai_jobs WHERE entry_id = ?1 AND kind = 'enrich'",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(attempts, 1);
    assert!(
        error.contains("outside 1–10") && !error.contains("secret"),
        "{error}"
    );
    for _ in 1..runner::MAX_JOB_ATTEMPTS {
        runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    }
    assert_eq!(jobs_left(&journal), (0, 1), "failed for good");
}

#[test]
fn the_real_model_enriches_an_entry_in_one_call() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"rules": []}"#);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let id = save(
        &journal,
        "",
        "Went running by the river this morning. My knee hurt a bit but I felt proud to finish 10 km.",
        None,
    );
    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!((report.embedded, report.enriched), (1, 1), "{report:?}");
    assert!(report.model_calls <= 3);
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert!(
        !e.title.is_empty() && e.summary.is_some() && e.suggested_mood.is_some() && e.mood_score.is_none(),
        "{e:?}"
    );
}

#[test]
fn jobs_wait_while_ollama_is_down_and_resume_when_it_is_back() {
    let journal = journal();
    let down = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    let id = save(&journal, "", "A lighthouse-walk in the rain.", None);
    let err = runner::run_pending(
        &OllamaClient::new(&down).unwrap(),
        &journal.reader,
        &journal.writer,
    )
    .unwrap_err();
    assert!(matches!(err, AiError::NotRunning { .. }), "{err}");
    assert_eq!(jobs_left(&journal), (2, 0), "still pending, no attempt spent");

    // The runner thread notices the server coming back on its own.
    let server = ollama_server::LocalOllama::start();
    server.script(SCRIPT);
    let runner = runner::JobRunner::spawn(
        OllamaClient::new(&server.settings()).unwrap(),
        journal.path.clone(),
        StorageOptions::default(),
        journal.writer.clone(),
        Box::new(|_| {}),
    )
    .unwrap();
    runner.wake();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while jobs_left(&journal) != (0, 0) {
        assert!(
            std::time::Instant::now() < deadline,
            "runner did not finish: {:?}",
            jobs_left(&journal)
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        entries::get(&journal.reader, DEFAULT_USER, id).unwrap().title,
        "Lighthouse walk"
    );
}

const EDIT_SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "first-version", "response": "{\"title\": \"First\", \"mood_score\": 5, \"mood_tags\": [\"calm\"], \"summary\": \"About the first version.\"}"},
  {"match": "second-version", "response": "{\"title\": \"Second\", \"mood_score\": 6, \"mood_tags\": [\"calm\"], \"summary\": \"About the second version.\"}"}
]}"#;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (norm(a) * norm(b))
}

/// The stored vector of an entry (the journal's one model).
fn stored_vector(journal: &Journal, id: i64) -> Vec<f32> {
    let model = mindsage_core::db::vectors::active_model(&journal.reader, DEFAULT_USER)
        .unwrap()
        .expect("a vector set");
    let blob: Vec<u8> = journal
        .reader
        .query_row(
            &format!(
                "SELECT embedding FROM vec_entries_{} WHERE entry_id = ?1",
                model.id
            ),
            [id],
            |r| r.get(0),
        )
        .unwrap();
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// An entry saved, its enrichment call held at the model for `hold_ms`, and the entry
/// edited meanwhile. Returns the journal, the entry and the runner's report, or `None`
/// when the call came back before the edit could be made (a machine too busy to edit
/// within the hold): then the edit did not happen while the model worked.
fn edit_while_the_model_works(
    server: &ollama_server::LocalOllama,
    client: &OllamaClient,
    hold_ms: u64,
) -> Option<(Journal, i64, runner::RunReport)> {
    let journal = journal();
    let id = save(&journal, "", "The first-version of this entry.", None);
    server.fault(&format!(
        r#"{{"latency_ms": {hold_ms}, "paths": ["/api/chat"], "count": 1}}"#
    ));
    let working = {
        let (client, path, writer) = (client.clone(), journal.path.clone(), journal.writer.clone());
        std::thread::spawn(move || {
            let reader = db::open(&path, &StorageOptions::default()).unwrap();
            runner::run_pending(&client, &reader, &writer).unwrap()
        })
    };
    // Once the embedding is stored, the enrichment call is at the model: edit now.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while db::jobs::counts(&journal.reader).unwrap().embed_pending > 0 {
        assert!(std::time::Instant::now() < deadline, "the embedding never came");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let edit = entries::EntryEdit {
        body: "The second-version, rewritten.".into(),
        ..Default::default()
    };
    // The writer also writes the enrichment, so what it held before the edit says
    // whether the result had come back already.
    let enriched_before = journal
        .writer
        .call(move |conn| {
            let before = entries::get(conn, DEFAULT_USER, id)?.summary.is_some();
            entries::update(conn, DEFAULT_USER, id, &edit)?;
            Ok(before)
        })
        .unwrap();
    let report = working.join().unwrap();
    server.clear_faults();
    (!enriched_before).then_some((journal, id, report))
}

#[test]
fn an_edit_saved_while_the_model_works_gets_the_result_of_the_edited_text() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(EDIT_SCRIPT);
    let client = OllamaClient::new(&server.settings()).unwrap();
    // The call is held longer each time the machine was too busy to edit within it.
    let (journal, id, first) = [3_000, 10_000, 30_000]
        .into_iter()
        .find_map(|hold_ms| edit_while_the_model_works(server, &client, hold_ms))
        .expect("the entry could not be edited while the model worked, even in 30 s");
    assert!(
        first.stale >= 1,
        "the first result was written over the edit: {first:?}"
    );
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert_eq!(
        e.summary, None,
        "the old text's summary must not land on the new text"
    );

    // The edit queued its own work, which the next pass does.
    let second = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(second.enriched, 1, "{second:?}");
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert_eq!(e.summary.as_deref(), Some("About the second version."));
    // The vector is the edited text's (with the model's title): nearer to it than to the
    // first version's.
    let embed = |body: &str| {
        let text = format!("Second\n{body}");
        client
            .embed_blocking(&server.settings().embed_model, &[text])
            .unwrap()
            .pop()
            .unwrap()
    };
    let stored = stored_vector(&journal, id);
    let to_edit = cosine(&stored, &embed("The second-version, rewritten."));
    let to_first = cosine(&stored, &embed("The first-version of this entry."));
    assert!(
        to_edit > 0.99 && to_edit > to_first,
        "edited {to_edit}, first {to_first}"
    );
    assert_eq!(jobs_left(&journal), (0, 0));
}

#[test]
fn entries_that_never_had_the_work_are_found_and_a_model_change_reindexes() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = journal();
    // Bulk inserts (the demo, importers, a journal from before saves queued work) queue
    // nothing themselves.
    let ids: Vec<i64> = journal
        .writer
        .call(|conn| {
            let tx = conn.transaction()?;
            let ids = (0..40)
                .map(|i| {
                    let entry = entries::NewEntry {
                        body: format!("Old entry number {i} about a lighthouse-walk."),
                        ..Default::default()
                    };
                    entries::insert_entry(&tx, DEFAULT_USER, &entry)
                })
                .collect::<db::Result<Vec<_>>>()?;
            tx.commit()?;
            Ok(ids)
        })
        .unwrap();
    assert_eq!(jobs_left(&journal), (0, 0));
    let settings = server.settings();
    let queued = runner::backfill(&journal.writer, DEFAULT_USER, &settings).unwrap();
    assert_eq!(queued, 80, "an embedding and an enrichment each");
    assert_eq!(
        runner::backfill(&journal.writer, DEFAULT_USER, &settings).unwrap(),
        0
    );

    // Embeddings only, to see the batching: the enrichments are taken off the queue.
    journal
        .writer
        .call(|conn| Ok(conn.execute("DELETE FROM ai_jobs WHERE kind = 'enrich'", [])?))
        .unwrap();
    let client = OllamaClient::new(&settings).unwrap();
    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(report.embedded, 40);
    assert_eq!(
        report.embed_calls,
        40_u32.div_ceil(runner::EMBED_BATCH as u32),
        "{report:?}"
    );
    // Every entry has its vector now; only the enrichments the test removed are missing
    // (a job that failed for good stays in the queue as failed, so it is not retried by
    // every start).
    assert_eq!(
        runner::backfill(&journal.writer, DEFAULT_USER, &settings).unwrap(),
        40,
        "enrichment that was never done is queued again"
    );

    // Another embedding model: every live entry is embedded again, beside the old set,
    // which the new one replaces once it covers them all.
    let other = AiSettings {
        embed_model: "all-minilm:l6-v2".into(),
        ..settings.clone()
    };
    let queued = runner::backfill(&journal.writer, DEFAULT_USER, &other).unwrap();
    assert_eq!(queued, 40, "re-index on model change");
    journal
        .writer
        .call(|conn| Ok(conn.execute("DELETE FROM ai_jobs WHERE kind = 'enrich'", [])?))
        .unwrap();
    runner::run_pending(
        &OllamaClient::new(&other).unwrap(),
        &journal.reader,
        &journal.writer,
    )
    .unwrap();
    let models = mindsage_core::db::vectors::models(&journal.reader, DEFAULT_USER).unwrap();
    assert_eq!(models.len(), 1, "{models:?}");
    assert_eq!(
        (models[0].model.as_str(), models[0].is_active()),
        ("all-minilm:l6-v2", true)
    );
    assert!(!ids.is_empty());
}

/// While Ask answers, the backlog holds back after the job in hand, says so, and goes on
/// when the answer is written: a question never waits behind hundreds of entries.
#[test]
fn the_backlog_holds_back_while_ask_answers() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(
        r#"{"token_delay_ms": 0, "first_token_delay_ms": 300, "rules": [
          {"match": "slow-entry", "response": "{\"title\": \"Slow\", \"mood_score\": 5, \"mood_tags\": [], \"summary\": \"Slow.\", \"people\": [], \"places\": [], \"activities\": []}"}]}"#,
    );
    let journal = journal();
    for n in 0..6 {
        save(&journal, "", &format!("slow-entry number {n}"), None);
    }
    let activities = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = std::sync::Arc::clone(&activities);
    let runner = runner::JobRunner::spawn(
        OllamaClient::new(&server.settings()).unwrap(),
        journal.path.clone(),
        StorageOptions::default(),
        journal.writer.clone(),
        Box::new(move |status| seen.lock().unwrap().push(status.activity)),
    )
    .unwrap();
    runner.set_asking(true);
    let enriched = || -> i64 {
        journal
            .reader
            .query_row(
                "SELECT count(*) FROM journal_entries WHERE summary IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(enriched() <= 1, "{} enriched while Ask had the model", enriched());
    assert!(activities.lock().unwrap().contains(&runner::Activity::Answering));
    runner.set_asking(false);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while enriched() < 6 {
        assert!(std::time::Instant::now() < deadline, "the backlog did not go on");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The app's reader owns the runner and a hold on the writer; the saves it queues wake
/// the runner when they are done. When the reader ends (the journal closed to change its
/// encryption) while a save still runs on the writer, the runner and the writer end as
/// soon as it is done and let the journal go: the save held a [`runner::Nudge`], not
/// the runner, so the runner is never dropped on the writer's thread, which waited for
/// itself and kept the journal open for ever.
#[test]
fn a_save_that_outlives_the_runners_owner_lets_the_journal_go() {
    let Journal {
        _dir,
        path,
        reader,
        writer,
    } = journal();
    drop(reader);
    let down = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    let (status, statuses) = std::sync::mpsc::channel();
    let runner = runner::JobRunner::spawn(
        OllamaClient::new(&down).unwrap(),
        path.clone(),
        StorageOptions::default(),
        writer.clone(),
        Box::new(move |queue| drop(status.send(queue.activity))),
    )
    .unwrap();
    // Between passes, as the app's runner is most of the time: it stops at once.
    while statuses.recv().unwrap() == runner::Activity::Working {}

    // A save in hand on the writer when its owner goes.
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let nudge = runner.nudge();
    drop(writer.submit(move |_| {
        wait.recv().unwrap();
        nudge.wake();
        Ok(())
    }));
    // Dropped as the reader drops them (the writer's hold first), on a thread of their
    // own: the last one waits for the save.
    let owner = std::thread::spawn(move || {
        drop(writer);
        drop(runner);
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    go.send(()).unwrap();

    owner.join().unwrap();
    // Nobody has the journal open: a connection can take it whole.
    let whole = rusqlite::Connection::open(&path).unwrap();
    whole
        .execute_batch(
            "PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT;",
        )
        .unwrap();
}
