//! Enrichment end to end against a real server: the job queue, one model call per
//! entry, one transaction of results, the person's own title and mood kept, and work
//! that waits while Ollama is down and resumes when it is back.

mod ollama_server;

use std::sync::Arc;

use mindsage_core::ai::jobs::{self, JobKind};
use mindsage_core::ai::{AiError, AiSettings, OllamaClient};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};

struct Journal {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    reader: rusqlite::Connection,
    writer: Arc<Writer>,
}

fn journal() -> Journal {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    let reader = db::open(&path, &StorageOptions::default()).unwrap();
    let writer = Arc::new(Writer::spawn(&path, &StorageOptions::default()).unwrap());
    Journal {
        _dir: dir,
        path,
        reader,
        writer,
    }
}

fn save(journal: &Journal, title: &str, body: &str, mood: Option<u8>) -> i64 {
    let entry = entries::NewEntry {
        title: title.to_owned(),
        body: body.to_owned(),
        mood_score: mood,
        ..Default::default()
    };
    journal
        .writer
        .call(move |conn| {
            let id = entries::create(conn, DEFAULT_USER, &entry)?;
            jobs::enqueue(conn, DEFAULT_USER, id, JobKind::Enrich)?;
            Ok(id)
        })
        .unwrap()
}

const SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "lighthouse-walk", "response": "{\"title\": \"Lighthouse walk\", \"mood_score\": 8, \"mood_tags\": [\"Calm\", \"grateful\"], \"summary\": \"Walked to the lighthouse and felt calm.\"}"},
  {"match": "broken-mood", "response": "{\"title\": \"Bad\", \"mood_score\": 42, \"mood_tags\": [], \"summary\": \"x\"}"}
]}"#;

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

    let report = jobs::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!((report.done, report.model_calls), (2, 2), "{report:?}");

    let e = entries::get(&journal.reader, DEFAULT_USER, plain).unwrap();
    assert_eq!(e.title, "Lighthouse walk");
    assert_eq!(e.mood_score, Some(8));
    assert_eq!(
        e.summary.as_deref(),
        Some("Walked to the lighthouse and felt calm.")
    );
    assert_eq!(e.tags, ["calm", "grateful"]);
    // Keyword search sees the model's title and mood tags, not only the stored row.
    for word in ["lighthouse", "grateful"] {
        let found = mindsage_core::search::hybrid(
            &journal.reader,
            DEFAULT_USER,
            &mindsage_core::search::SearchQuery::new(word, 5),
            None,
        )
        .unwrap();
        assert!(
            found.hits.iter().any(|h| h.entry_id == plain),
            "{word} not searchable"
        );
    }
    let e = entries::get(&journal.reader, DEFAULT_USER, chosen).unwrap();
    assert_eq!((e.title.as_str(), e.mood_score), ("My own title", Some(3)));
    assert!(e.title_by_user);

    let vectors: i64 = journal
        .reader
        .query_row("SELECT count(*) FROM vector_changes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(vectors, 2, "both entries embedded");
    assert_eq!(jobs::counts(&journal.reader).unwrap(), (0, 0));
}

#[test]
fn output_that_stays_invalid_spends_attempts_then_fails_without_entry_text() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(SCRIPT);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let id = save(&journal, "", "secret-words broken-mood", None);
    let report = jobs::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!((report.done, report.failed_attempts), (0, 1));
    let (attempts, error): (i64, String) = journal
        .reader
        .query_row(
            "SELECT attempts, last_error FROM ai_jobs WHERE entry_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(attempts, 1);
    assert!(
        error.contains("outside 1–10") && !error.contains("secret"),
        "{error}"
    );
    for _ in 1..jobs::MAX_JOB_ATTEMPTS {
        jobs::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    }
    assert_eq!(jobs::counts(&journal.reader).unwrap(), (0, 1), "failed for good");
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
    let report = jobs::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(report.done, 1, "{report:?}");
    assert!(report.model_calls <= 3);
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert!(
        !e.title.is_empty() && e.summary.is_some() && e.mood_score.is_some(),
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
    let err = jobs::run_pending(
        &OllamaClient::new(&down).unwrap(),
        &journal.reader,
        &journal.writer,
    )
    .unwrap_err();
    assert!(matches!(err, AiError::NotRunning { .. }), "{err}");
    assert_eq!(
        jobs::counts(&journal.reader).unwrap(),
        (1, 0),
        "still pending, no attempt spent"
    );

    // The runner thread notices the server coming back on its own.
    let server = ollama_server::LocalOllama::start();
    server.script(SCRIPT);
    let runner = jobs::JobRunner::spawn(
        OllamaClient::new(&server.settings()).unwrap(),
        journal.path.clone(),
        StorageOptions::default(),
        journal.writer.clone(),
    )
    .unwrap();
    runner.wake();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while jobs::counts(&journal.reader).unwrap() != (0, 0) {
        assert!(
            std::time::Instant::now() < deadline,
            "runner did not finish: {:?}",
            runner.status()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        entries::get(&journal.reader, DEFAULT_USER, id).unwrap().title,
        "Lighthouse walk"
    );
}
