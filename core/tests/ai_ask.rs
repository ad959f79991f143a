//! The Ask pipeline end to end against a real server: sources, streaming, one model
//! call for a personal question and for one in the journal's own words, retries with
//! `Reset`, and every failure ending in a correct answer or a clear error within a
//! bounded time, never duplicated text.

mod ai_journals;
mod ollama_server;

use std::time::{Duration, Instant};

use mindsage_core::ai::ask::{self, AskAnswer, AskEvent};
use mindsage_core::ai::{AiError, AiSettings, OllamaClient, runner};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries, memory};

use ai_journals::{ask_as_the_window, asked_journal, resets, shown};

const ANSWER: &str = "You walked to the \"lighthouse\" at dawn — then café ☕ with Sam.\nLovely.";

fn script(server: &ollama_server::LocalOllama, extra: &str) {
    let rules = format!(
        r#"{{"token_delay_ms": 2, "first_token_delay_ms": 0, "rules": [{extra}{{"match": "lighthouse", "response": {}}}]}}"#,
        serde_json::to_string(ANSWER).unwrap()
    );
    server.script(&rules);
}

/// Runs a question as the window's assistant thread does (see
/// [`ai_journals::ask_as_the_window`]).
fn ask(
    settings: &AiSettings,
    conn: &rusqlite::Connection,
    question: &str,
) -> (Vec<AskEvent>, Result<AskAnswer, AiError>) {
    ask_as_the_window(settings, conn, question, |_| {})
}

#[test]
fn answers_with_sources_in_one_model_call_and_saves_the_chat() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(server, "");
    let (_dir, conn) = asked_journal(&server.settings());
    let (events, result) = ask(&server.settings(), &conn, "What did I do at the lighthouse?");
    let answer = result.unwrap();
    assert_eq!(answer.text, ANSWER);
    assert_eq!(shown(&events), ANSWER);
    assert!(
        events.iter().filter(|e| matches!(e, AskEvent::Token(_))).count() > 3,
        "streamed"
    );
    assert_eq!((answer.cost.model_calls, answer.cost.planned_locally), (1, true));
    assert_eq!(answer.sources[0].title, "Lighthouse");
    assert!(answer.keyword_only.is_none(), "{:?}", answer.keyword_only);
    let stages: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AskEvent::Stage { name, .. } => Some(*name),
            _ => None,
        })
        .collect();
    assert_eq!(stages, ["plan", "embed", "search", "answer"]);
    assert!(matches!(events.last(), Some(AskEvent::Done(_))));
    assert!(answer.cost.timings.first_token.is_some());

    let mut conn = conn;
    let chat = ask::save_chat(&mut conn, DEFAULT_USER, None, &answer).unwrap();
    let (count, sources): (i64, String) = conn
        .query_row(
            "SELECT count(*), max(sources) FROM chat_messages WHERE chat_id = ?1",
            [chat],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(count, 2);
    assert!(sources.contains("Lighthouse"));
}

#[test]
fn a_question_in_the_journals_own_words_needs_no_planning_call() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(server, "");
    let (_dir, conn) = asked_journal(&server.settings());
    // No personal word and no date, but the journal talks about lighthouses and walks.
    let (_, result) = ask(&server.settings(), &conn, "Summarise the lighthouse walks.");
    let answer = result.unwrap();
    assert_eq!((answer.cost.model_calls, answer.cost.planned_locally), (1, true));
    assert_eq!(answer.sources[0].title, "Lighthouse");
    assert_eq!(answer.text, ANSWER);
}

#[test]
fn a_stream_cut_off_or_garbled_is_retried_after_a_reset() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(server, "");
    let (_dir, conn) = asked_journal(&server.settings());
    for fault in [
        r#"{"fault": "disconnect", "after": 6, "count": 1, "paths": ["/api/chat"]}"#,
        r#"{"fault": "malformed", "after": 6, "count": 1, "paths": ["/api/chat"]}"#,
    ] {
        server.fault(fault);
        let (events, result) = ask(&server.settings(), &conn, "What did I do at the lighthouse?");
        server.clear_faults();
        let answer = result.unwrap_or_else(|e| panic!("{fault}: {e}"));
        assert_eq!(resets(&events), 1, "{fault}");
        assert_eq!(shown(&events), ANSWER, "{fault}: no duplicated or lost text");
        assert_eq!((answer.text.as_str(), answer.cost.model_calls), (ANSWER, 2));
    }
}

#[test]
fn a_server_error_is_retried_and_a_second_one_is_reported() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(server, "");
    let (_dir, conn) = asked_journal(&server.settings());
    server.fault(r#"{"fault": "http500", "count": 1, "paths": ["/api/chat"]}"#);
    let (events, result) = ask(&server.settings(), &conn, "What did I do at the lighthouse?");
    assert_eq!(result.unwrap().text, ANSWER);
    assert_eq!(resets(&events), 0, "nothing was shown before the error");

    server.fault(r#"{"fault": "http500", "count": 2, "paths": ["/api/chat"]}"#);
    let (events, result) = ask(&server.settings(), &conn, "What did I do at the lighthouse?");
    server.clear_faults();
    let err = result.unwrap_err();
    assert!(
        matches!(
            err,
            AiError::Server {
                status: Some(500),
                ..
            }
        ),
        "{err}"
    );
    assert!(matches!(events.last(), Some(AskEvent::Error(_))));
}

#[test]
fn a_slow_first_token_is_waited_for_within_the_limit_and_not_beyond() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(
        server,
        r#"{"match": "slowly", "response": "Late but here.", "first_token_delay_ms": 1500},"#,
    );
    let (_dir, conn) = asked_journal(&server.settings());
    let (_, result) = ask(
        &server.settings(),
        &conn,
        "Tell me slowly about my walk to the lighthouse",
    );
    let answer = result.unwrap();
    assert_eq!(answer.text, "Late but here.");
    assert!(answer.cost.timings.first_token.unwrap() >= Duration::from_millis(1500));

    let impatient = AiSettings {
        first_token_timeout: Duration::from_millis(700),
        ..server.settings()
    };
    let started = Instant::now();
    let (events, result) = ask(
        &impatient,
        &conn,
        "Tell me slowly about my walk to the lighthouse",
    );
    let err = result.unwrap_err();
    assert!(matches!(err, AiError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(matches!(events.last(), Some(AskEvent::Error(_))));
}

#[test]
fn a_missing_model_or_a_stopped_server_says_what_to_do() {
    let server = ollama_server::shared();
    let (_dir, conn) = {
        let _guard = ollama_server::exclusive();
        asked_journal(&server.settings())
    };
    let missing = AiSettings {
        text_model: "not-pulled:1b".into(),
        ..server.settings()
    };
    let (events, result) = ask(&missing, &conn, "How did I feel this week?");
    assert!(
        result
            .unwrap_err()
            .to_string()
            .contains("`ollama pull not-pulled:1b`")
    );
    assert!(matches!(events.last(), Some(AskEvent::Error(m)) if m.contains("ollama pull")));

    let down = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..server.settings()
    };
    let started = Instant::now();
    let (_, result) = ask(&down, &conn, "How did I feel this week?");
    let err = result.unwrap_err();
    assert!(err.to_string().contains("start Ollama"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn the_real_model_answers_a_general_question_after_planning() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"rules": []}"#);
    let (_dir, conn) = asked_journal(&server.settings());
    let (events, result) = ask(&server.settings(), &conn, "Which colours are in a rainbow?");
    let answer = result.unwrap();
    assert!(!answer.cost.planned_locally);
    // Planning, then the answer; unless the small model planned a journal search that
    // found nothing, which is then said without a model call.
    assert!(
        (1..=3).contains(&answer.cost.model_calls),
        "{}",
        answer.cost.model_calls
    );
    if answer.cost.model_calls == 1 {
        assert_found_nothing(&answer, &events);
    }
    assert_eq!(shown(&events), answer.text);
}

/// The plain answer when no entry is close enough to the question: said as streamed,
/// with no source, shown or kept.
fn assert_found_nothing(answer: &AskAnswer, events: &[AskEvent]) {
    assert!(
        answer
            .text
            .starts_with("I found nothing in your journal about that."),
        "{}",
        answer.text
    );
    assert!(answer.sources.is_empty(), "{:?}", answer.sources);
    assert!(
        events
            .iter()
            .all(|e| !matches!(e, AskEvent::Sources(s) if !s.is_empty())),
        "a source was shown"
    );
    assert_eq!(shown(events), answer.text);
}

#[test]
fn a_question_about_what_the_journal_never_mentions_finds_nothing_without_a_model_call() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"rules": []}"#);
    // Its entries are embedded: every one is ranked by meaning, and none is close.
    let (_dir, conn) = asked_journal(&server.settings());
    let (events, result) = ask(&server.settings(), &conn, "What did I do on my holiday in Japan?");
    let answer = result.unwrap();
    assert_found_nothing(&answer, &events);
    assert!(answer.text.contains("by words and by meaning"), "{}", answer.text);
    assert_eq!(answer.cost.model_calls, 0);
}

#[test]
fn a_question_nothing_in_the_journal_matches_is_answered_plainly_without_the_model() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"rules": []}"#);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    let writer = Writer::spawn(&path, &StorageOptions::default()).unwrap();
    let entry = entries::NewEntry {
        body: "My knee hurts after running ten kilometres.".into(),
        ..Default::default()
    };
    writer
        .call(move |conn| entries::create(conn, DEFAULT_USER, &entry))
        .unwrap();
    let conn = db::open(&path, &StorageOptions::default()).unwrap();
    // Nothing embedded, no shared word: keyword search finds nothing.
    let (events, result) = ask(
        &server.settings(),
        &conn,
        "Which joint has been giving me trouble?",
    );
    let answer = result.unwrap();
    assert_found_nothing(&answer, &events);
    assert!(answer.text.contains("keywords only"), "{}", answer.text);
    assert!(
        answer.cost.model_calls <= 1,
        "no answer call: {}",
        answer.cost.model_calls
    );
}

/// A journal whose model has read who its entries mention: Maya, the writer's sister, in
/// two of them (one says only "my sister"), and bread in another without her.
fn journal_that_remembers(settings: &AiSettings) -> (tempfile::TempDir, rusqlite::Connection, Vec<i64>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.db");
    let writer = Writer::spawn(&path, &StorageOptions::default()).unwrap();
    let mut ids = Vec::new();
    for (body, people) in [
        (
            "Maya and I baked bread at the lake house.",
            vec![("Maya", "sister")],
        ),
        (
            "My sister called; we planned the trip to Lisbon.",
            vec![("my sister", "sister")],
        ),
        ("Worked late on the quarterly report.", vec![]),
        ("Baked bread again, alone this time.", vec![]),
    ] {
        let found: Vec<memory::Found> = people
            .into_iter()
            .map(|(name, relation)| memory::Found {
                kind: memory::Kind::Person,
                name: name.into(),
                relation: relation.into(),
            })
            .collect();
        let entry = entries::NewEntry {
            body: body.into(),
            ..Default::default()
        };
        ids.push(
            writer
                .call(move |conn| {
                    let id = entries::create(conn, DEFAULT_USER, &entry)?;
                    conn.execute("DELETE FROM ai_jobs WHERE kind = 'enrich'", [])?;
                    // What enrichment's model call found in it, written as enrichment does.
                    memory::remember(conn, DEFAULT_USER, id, &entry.body, &found, "a text model")?;
                    Ok(id)
                })
                .unwrap(),
        );
    }
    let reader = db::open(&path, &StorageOptions::default()).unwrap();
    runner::run_pending(&OllamaClient::new(settings).unwrap(), &reader, &writer).unwrap();
    (dir, reader, ids)
}

#[test]
fn a_person_named_by_relation_is_found_through_what_the_journal_remembers() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [{"match": ".", "regex": true, "response": "You baked bread and planned Lisbon."}]}"#);
    let (_dir, conn, ids) = journal_that_remembers(&server.settings());

    // "my sister" is Maya: only her entries are sources, the one that names her and the
    // one that says only "my sister"; bread without her is not.
    let (events, result) = ask(&server.settings(), &conn, "What did my sister and I do together?");
    let answer = result.unwrap();
    let mut sources: Vec<i64> = answer.sources.iter().map(|s| s.entry_id).collect();
    sources.sort();
    assert_eq!(sources, [ids[0], ids[1]]);
    assert_eq!(answer.remembered, ["Maya, whom you call your sister"]);
    assert!(events.contains(&AskEvent::Remembered(answer.remembered.clone())));
    assert!(answer.keyword_only.is_none(), "{:?}", answer.keyword_only);

    // A question that is only a name reads her entries, newest first.
    let (_, result) = ask(&server.settings(), &conn, "Maya?");
    let answer = result.unwrap();
    let sources: Vec<i64> = answer.sources.iter().map(|s| s.entry_id).collect();
    assert_eq!(sources, [ids[1], ids[0]]);

    // Without a name the journal knows, Ask searches the whole journal as before.
    let (_, result) = ask(&server.settings(), &conn, "When did I bake bread?");
    let answer = result.unwrap();
    assert!(answer.remembered.is_empty());
    assert!(
        answer.sources.iter().any(|s| s.entry_id == ids[3]),
        "{:?}",
        answer.sources
    );
}

#[test]
fn a_follow_up_keeps_the_chats_context() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    // The follow-up's answer is given only when the earlier answer is in the conversation.
    server.script(
        r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
          {"match": "planned Lisbon", "response": "After that, the trip to Lisbon."},
          {"match": "together", "response": "You baked bread and planned Lisbon."}]}"#,
    );
    let (_dir, conn, ids) = journal_that_remembers(&server.settings());
    let (_, first) = ask(&server.settings(), &conn, "What did my sister and I do together?");
    let first = first.unwrap();
    let earlier = [ask::Turn {
        question: first.question.clone(),
        answer: first.text.clone(),
    }];
    let client = OllamaClient::new(&server.settings()).unwrap();
    let question = ask::Question {
        text: "And after that?",
        earlier: &earlier,
    };
    let follow_up = mindsage_core::ai::block_on(ask::ask(
        &client,
        &conn,
        None,
        DEFAULT_USER,
        question,
        chrono::Local::now(),
        &mut |_| {},
    ))
    .unwrap();
    assert_eq!(follow_up.text, "After that, the trip to Lisbon.");
    assert_eq!(follow_up.question, "And after that?");
    // It is still about her: the earlier question's words are searched with it.
    assert_eq!(follow_up.remembered, ["Maya, whom you call your sister"]);
    let mut sources: Vec<i64> = follow_up.sources.iter().map(|s| s.entry_id).collect();
    sources.sort();
    assert_eq!(sources, [ids[0], ids[1]]);
}
