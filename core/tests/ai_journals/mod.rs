//! Journals for the tests that talk to the model server (one written by the app's
//! writer thread and read by a connection of its own, one with three entries embedded
//! by the real embedding model for questions to be asked about), and what an answer's
//! events add up to.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::sync::Arc;

use mindsage_core::ai::ask::{self, AskAnswer, AskEvent};
use mindsage_core::ai::runner;
use mindsage_core::ai::{AiError, AiSettings, OllamaClient, block_on};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};

/// A journal written by the app's writer thread, read by its own connection.
pub struct Journal {
    pub _dir: tempfile::TempDir,
    pub path: std::path::PathBuf,
    pub reader: rusqlite::Connection,
    pub writer: Arc<Writer>,
}

pub fn journal() -> Journal {
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

/// A journal with three entries, embedded by the real embedding model.
pub fn asked_journal(settings: &AiSettings) -> (tempfile::TempDir, rusqlite::Connection) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    let writer = Writer::spawn(&path, &StorageOptions::default()).unwrap();
    for (title, body) in [
        (
            "Lighthouse",
            "Walked to the lighthouse at dawn with Sam, then coffee.",
        ),
        ("Pottery", "First pottery class, the bowl collapsed twice."),
        ("Knee", "My knee hurts after running ten kilometres."),
    ] {
        let entry = entries::NewEntry {
            title: title.into(),
            body: body.into(),
            ..Default::default()
        };
        writer
            .call(move |conn| {
                entries::create(conn, DEFAULT_USER, &entry)?;
                // The save queued its embedding and its enrichment. These tests ask about
                // the entries as written: the model's titles would change what they assert.
                conn.execute("DELETE FROM ai_jobs WHERE kind = 'enrich'", [])?;
                Ok(())
            })
            .unwrap();
    }
    let reader = db::open(&path, &StorageOptions::default()).unwrap();
    let report = runner::run_pending(&OllamaClient::new(settings).unwrap(), &reader, &writer).unwrap();
    assert_eq!(report.done, 3);
    (dir, reader)
}

/// The answer's text as streamed: tokens appended, `Reset` clears.
pub fn shown(events: &[AskEvent]) -> String {
    let mut text = String::new();
    for event in events {
        match event {
            AskEvent::Token(t) => text.push_str(t),
            AskEvent::Reset => text.clear(),
            _ => {}
        }
    }
    text
}

/// How often the answer was started again.
pub fn resets(events: &[AskEvent]) -> usize {
    events.iter().filter(|e| matches!(e, AskEvent::Reset)).count()
}

/// Runs a question as the window's assistant thread does: every event as streamed (each
/// also handed to `on_event` as it comes), a failure shown as the last event; every
/// event, and the result.
pub fn ask_as_the_window(
    settings: &AiSettings,
    conn: &rusqlite::Connection,
    question: &str,
    mut on_event: impl FnMut(&AskEvent),
) -> (Vec<AskEvent>, Result<AskAnswer, AiError>) {
    let client = OllamaClient::new(settings).unwrap();
    let mut events = Vec::new();
    let result = block_on(ask::ask(
        &client,
        conn,
        None,
        DEFAULT_USER,
        question.into(),
        chrono::Local::now(),
        &mut |event| {
            on_event(&event);
            events.push(event);
        },
    ));
    if let Err(error) = &result {
        events.push(AskEvent::Error(error.to_string()));
    }
    (events, result)
}
