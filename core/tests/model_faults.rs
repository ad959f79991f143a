//! Model faults (issue #17): the faults ollama-local can switch on (status codes, a
//! model that is not pulled, garbled and cut streams, a slow first token, a server that
//! goes away mid-answer), each driven through the real Ask pipeline and the real job
//! runner, with what must happen written beside it.
//!
//! The faults are tables ([`ASK_FAULTS`], [`JOB_FAULTS`]) so that a new fault is one
//! row, and so that the reliability summary (`model_faults.json`) lists every fault with
//! how it ended, from a run rather than from memory.
//!
//! What must happen:
//! * **Ask** ends in the scripted answer, exactly once (a retried call's `Reset`
//!   discards the broken attempt's text, so it is never shown or saved twice) and saved
//!   as a chat once; or in an error whose message says what went wrong in a person's
//!   words (the status, the model to pull, the host, the wait) with nothing saved.
//! * **Enrichment** jobs are done, or still pending (an attempt counted, or none spent
//!   while the model is unavailable: the runner backs off and probes again), or failed
//!   with the reason; never lost. The title the person typed, the body and the tags are
//!   byte-for-byte what they were, and once the fault is cleared the job completes and
//!   writes its results once.
//!
//! Faults are set on `/api/chat` only: the embeddings Ask's search and the jobs need
//! keep working, so each row tests the one call it names. Every fault has a `count`, so
//! none outlives its row. Replies are scripted with no token delay and the waits are
//! short, so the whole file runs in well under a minute.

mod ai_journals;
mod ollama_server;
#[path = "reliability_summary/mod.rs"]
mod reliability_summary;

use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use ai_journals::{Journal, ask_as_the_window, asked_journal, journal, resets, shown};
use mindsage_core::ai::ask::{self, AskAnswer, AskEvent};
use mindsage_core::ai::runner::{self, Activity};
use mindsage_core::ai::{AiError, AiSettings, OllamaClient, enrich};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries};
use ollama_server::LocalOllama;
use reliability_summary::Summary;

/// The scripted answer to [`QUESTION`]: quotes, a dash, accents, an emoji and a line
/// break, so a chunk split or joined wrongly shows.
const ANSWER: &str = "You walked to the \"lighthouse\" at dawn — then café ☕ with Sam.\nLovely.";

/// A personal question: planned locally, so the answer call is the only model call
/// and a fault on `/api/chat` hits it and nothing else.
const QUESTION: &str = "What did I do at the lighthouse?";

/// The same question, answered by a rule whose first token comes after
/// [`SLOW_FIRST_TOKEN_MS`].
const SLOW_QUESTION: &str = "What did I do at the lighthouse, slowly?";

/// How long the slow rule and the latency switch hold the first token or the reply.
const SLOW_FIRST_TOKEN_MS: u64 = 2500;

/// The client's wait in the rows that test a slow first token: well under the delay.
const SHORT_WAIT: Duration = Duration::from_secs(1);

/// The summary file this test file writes.
const SUMMARY_FILE: &str = "model_faults";

/// The Ask script: the slow rule first (its question also says "lighthouse").
fn ask_script(token_delay_ms: u64) -> String {
    format!(
        r#"{{"token_delay_ms": {token_delay_ms}, "first_token_delay_ms": 0, "rules": [
  {{"match": "slowly", "response": {answer}, "first_token_delay_ms": {SLOW_FIRST_TOKEN_MS}}},
  {{"match": "lighthouse", "response": {answer}}}]}}"#,
        answer = serde_json::to_string(ANSWER).unwrap()
    )
}

/// The enrichment script: one reply for the entry's body.
const ENRICH_SCRIPT: &str = r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
  {"match": "harbour-swim", "response": "{\"title\": \"Harbour swim\", \"mood_score\": 8, \"mood_tags\": [\"Calm\", \"grateful\"], \"summary\": \"Swam in the harbour and felt calm.\"}"}
]}"#;

/// The summary the script's reply becomes.
const SUMMARY_TEXT: &str = "Swam in the harbour and felt calm.";

/// How a fault is switched on.
#[derive(Debug, Clone, Copy)]
enum Switch {
    /// `POST /__ollama_local/faults` with this JSON (always with a `count`).
    Control(&'static str),
    /// The settings name a text model the server does not have.
    UnknownModel,
    /// The script's slow rule: headers at once, the first token after
    /// [`SLOW_FIRST_TOKEN_MS`], beyond the client's first-token wait.
    SlowScript,
}

/// How an Ask must end.
#[derive(Debug, Clone, Copy)]
enum AskEnds {
    /// The scripted answer, after this many `Reset`s and answer calls, followed by
    /// `then` (a note the pipeline adds, or nothing).
    Answer {
        resets: usize,
        calls: u32,
        then: &'static str,
    },
    /// An error whose message holds each of these words.
    Error(&'static [&'static str]),
}

/// One Ask fault: its name, how it is switched on, how the question must end.
struct AskFault {
    name: &'static str,
    switch: Switch,
    /// The client's first-token wait, when the row needs a short one.
    first_token_timeout: Option<Duration>,
    ends: AskEnds,
}

/// Ask's faults. Ask retries a broken or refused answer call once (`ANSWER_ATTEMPTS`),
/// so a fault that happens once is answered and one that happens twice is an error;
/// a missing model and a wait that ran out are not retried (the same call would fail
/// again, and the person should not wait twice).
const ASK_FAULTS: &[AskFault] = &[
    AskFault {
        name: "http 500 on both answer calls",
        switch: Switch::Control(r#"{"fault": "http500", "count": 2, "paths": ["/api/chat"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Error(&["HTTP 500"]),
    },
    AskFault {
        name: "http 404, model not pulled",
        switch: Switch::Control(r#"{"fault": "notfound", "count": 1, "paths": ["/api/chat"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Error(&["not installed", "ollama pull llama3.2:3b"]),
    },
    AskFault {
        name: "malformed chunk on both answer calls",
        switch: Switch::Control(r#"{"fault": "malformed", "after": 4, "count": 2, "paths": ["/api/chat"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Error(&["broke off", "garbled"]),
    },
    AskFault {
        name: "stream cut once after 6 chunks",
        switch: Switch::Control(r#"{"fault": "disconnect", "after": 6, "count": 1, "paths": ["/api/chat"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Answer {
            resets: 1,
            calls: 2,
            then: "",
        },
    },
    AskFault {
        name: "stream cut on both answer calls",
        switch: Switch::Control(r#"{"fault": "disconnect", "after": 6, "count": 2, "paths": ["/api/chat"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Error(&["broke off", "the connection failed mid-reply"]),
    },
    AskFault {
        name: "latency before the reply beyond the first-token wait",
        switch: Switch::Control(r#"{"latency_ms": 2500, "count": 1, "paths": ["/api/chat"]}"#),
        first_token_timeout: Some(SHORT_WAIT),
        ends: AskEnds::Error(&["did not answer", "within 1s"]),
    },
    AskFault {
        name: "http 500 on the question's embedding (searched by keywords, and said)",
        switch: Switch::Control(r#"{"fault": "http500", "count": 1, "paths": ["/api/embed"]}"#),
        first_token_timeout: None,
        ends: AskEnds::Answer {
            resets: 0,
            calls: 1,
            then: "\n\n(Found by keywords only: no embedding for this query.)",
        },
    },
    AskFault {
        name: "slow first token beyond the first-token wait",
        switch: Switch::SlowScript,
        first_token_timeout: Some(SHORT_WAIT),
        ends: AskEnds::Error(&["did not answer the first part of the answer", "within 1s"]),
    },
];

/// How an enrichment job must stand after its fault.
#[derive(Debug, Clone, Copy)]
enum JobEnds {
    /// Done in the same pass: the failed call was retried inside the job, after this many
    /// generation calls.
    Done { calls: u32 },
    /// Pending with one attempt spent, its `last_error` holding these words.
    Pending(&'static [&'static str]),
    /// Pending with no attempt spent: the model is unavailable, the pass stops with an
    /// error holding these words, and the runner backs off.
    Waiting(&'static [&'static str]),
    /// Failed for good after `MAX_JOB_ATTEMPTS` passes, the reason holding these words.
    Failed(&'static [&'static str]),
}

/// One enrichment fault.
struct JobFault {
    name: &'static str,
    switch: Switch,
    /// The client's wait for a whole reply, when the row needs a short one.
    request_timeout: Option<Duration>,
    ends: JobEnds,
}

/// Enrichment's faults. One job makes up to `enrich::MAX_ATTEMPTS` generation calls
/// (a server error or a broken reply is retried inside it), so a fault with that count
/// spends one attempt of the job, and three times that fails it for good.
const JOB_FAULTS: &[JobFault] = &[
    JobFault {
        name: "http 500 once",
        switch: Switch::Control(r#"{"fault": "http500", "count": 1, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Done { calls: 2 },
    },
    JobFault {
        name: "http 500 for a whole job",
        switch: Switch::Control(r#"{"fault": "http500", "count": 3, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Pending(&["HTTP 500"]),
    },
    JobFault {
        name: "http 500 on every attempt",
        switch: Switch::Control(r#"{"fault": "http500", "count": 9, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Failed(&["HTTP 500"]),
    },
    JobFault {
        name: "http 404, model not pulled",
        switch: Switch::Control(r#"{"fault": "notfound", "count": 1, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Waiting(&["not installed", "ollama pull llama3.2:3b"]),
    },
    JobFault {
        name: "a model name the server does not have",
        switch: Switch::UnknownModel,
        request_timeout: None,
        ends: JobEnds::Waiting(&["not installed", "ollama pull not-pulled:1b"]),
    },
    JobFault {
        name: "malformed reply for a whole job",
        switch: Switch::Control(r#"{"fault": "malformed", "count": 3, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Pending(&["broke off"]),
    },
    JobFault {
        name: "reply cut once",
        switch: Switch::Control(r#"{"fault": "disconnect", "count": 1, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Done { calls: 2 },
    },
    JobFault {
        name: "reply cut for a whole job",
        switch: Switch::Control(r#"{"fault": "disconnect", "count": 3, "paths": ["/api/chat"]}"#),
        request_timeout: None,
        ends: JobEnds::Pending(&["broke off"]),
    },
    JobFault {
        name: "slow reply beyond the request wait",
        switch: Switch::Control(r#"{"latency_ms": 2500, "count": 1, "paths": ["/api/chat"]}"#),
        request_timeout: Some(SHORT_WAIT),
        ends: JobEnds::Pending(&["did not answer", "within 1s"]),
    },
];

/// Switches `switch` on for the next requests; returns the settings to call with.
fn switch_on(server: &LocalOllama, switch: Switch, settings: AiSettings) -> AiSettings {
    match switch {
        Switch::Control(json) => {
            server.fault(json);
            settings
        }
        Switch::UnknownModel => AiSettings {
            text_model: "not-pulled:1b".into(),
            ..settings
        },
        Switch::SlowScript => settings,
    }
}

/// Asserts `message` says what went wrong: not empty, and holding each of `words`.
fn assert_says(message: &str, words: &[&str], what: &str) {
    assert!(!message.trim().is_empty(), "{what}: an empty error");
    for word in words {
        assert!(
            message.contains(word),
            "{what}: {message:?} does not say {word:?}"
        );
    }
}

// ---- Ask ------------------------------------------------------------------------------

/// A question asked as the app's assistant thread asks it: every event as streamed, an
/// error shown as the last event, and the exchange saved as a chat only when the
/// question was answered (the app and the CLI save only `Ok` answers).
fn ask_and_save(
    settings: &AiSettings,
    conn: &mut rusqlite::Connection,
    question: &str,
    on_event: impl FnMut(&AskEvent),
) -> (Vec<AskEvent>, Result<AskAnswer, AiError>) {
    let (events, result) = ask_as_the_window(settings, conn, question, on_event);
    if let Ok(answer) = &result {
        ask::save_chat(conn, DEFAULT_USER, None, answer).unwrap();
    }
    (events, result)
}

/// The saved chat messages: how many, and the last answer's text.
fn saved_chats(conn: &rusqlite::Connection) -> (i64, Option<String>) {
    let count = conn
        .query_row("SELECT count(*) FROM chat_messages", [], |r| r.get(0))
        .unwrap();
    let last = conn
        .query_row(
            "SELECT content FROM chat_messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .ok();
    (count, last)
}

/// Checks how a question ended against `ends` and returns it for the summary. What a
/// failed question showed is only ever a prefix of the answer (never text twice), and
/// nothing of it is saved; an answered one is the whole answer, saved once.
fn check_ask(
    name: &str,
    conn: &rusqlite::Connection,
    chats_before: i64,
    events: &[AskEvent],
    result: Result<AskAnswer, AiError>,
    ends: AskEnds,
) -> String {
    let (chats_after, last_saved) = saved_chats(conn);
    match (ends, result) {
        (
            AskEnds::Answer {
                resets: want,
                calls,
                then,
            },
            Ok(answer),
        ) => {
            let whole = format!("{ANSWER}{then}");
            assert_eq!(answer.text, whole, "{name}: the answer, exactly once");
            assert!(
                shown(events).starts_with(ANSWER),
                "{name}: the screen shows it once"
            );
            assert!(
                !shown(events)[ANSWER.len()..].contains(ANSWER),
                "{name}: shown once"
            );
            assert_eq!(resets(events), want, "{name}: resets");
            assert_eq!(answer.cost.model_calls, calls, "{name}: answer calls");
            assert!(matches!(events.last(), Some(AskEvent::Done(_))), "{name}");
            assert_eq!(chats_after - chats_before, 2, "{name}: saved once");
            assert_eq!(last_saved.as_deref(), Some(whole.as_str()), "{name}: saved whole");
            format!("answer after {calls} calls, {want} reset(s), saved once")
        }
        (AskEnds::Error(words), Err(error)) => {
            let message = error.to_string();
            assert_says(&message, words, name);
            assert!(
                matches!(events.last(), Some(AskEvent::Error(m)) if *m == message),
                "{name}: the error is the last event"
            );
            let partial = shown(events);
            assert!(
                ANSWER.starts_with(&partial),
                "{name}: the screen shows {partial:?}, not a prefix of the answer"
            );
            assert_eq!(chats_after, chats_before, "{name}: nothing saved");
            if partial.is_empty() {
                format!("error: {message}")
            } else {
                format!(
                    "error: {message} ({} chars had arrived: dropped with the error, nothing saved)",
                    partial.chars().count()
                )
            }
        }
        (ends, Ok(answer)) => panic!("{name}: expected {ends:?}, got the answer {:?}", answer.text),
        (ends, Err(error)) => panic!("{name}: expected {ends:?}, got the error {error}"),
    }
}

#[test]
fn every_ask_ends_in_one_whole_answer_or_a_clear_error() {
    let mut summary = Summary::new(
        SUMMARY_FILE,
        "every_ask_ends_in_one_whole_answer_or_a_clear_error",
    );
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    // The "once" and "both answer calls" rows count on this limit.
    assert_eq!(ask::ANSWER_ATTEMPTS, 2);
    server.clear_faults();
    server.script(&ask_script(0));
    let (_dir, mut conn) = asked_journal(&server.settings());
    for fault in ASK_FAULTS {
        let settings = AiSettings {
            first_token_timeout: fault
                .first_token_timeout
                .unwrap_or(server.settings().first_token_timeout),
            ..server.settings()
        };
        let question = match fault.switch {
            Switch::SlowScript => SLOW_QUESTION,
            _ => QUESTION,
        };
        let settings = switch_on(server, fault.switch, settings);
        let chats_before = saved_chats(&conn).0;
        let started = Instant::now();
        let (events, result) = ask_and_save(&settings, &mut conn, question, |_| {});
        let took = started.elapsed();
        server.clear_faults();
        assert!(took < Duration::from_secs(10), "{}: took {took:?}", fault.name);
        let outcome = check_ask(fault.name, &conn, chats_before, &events, result, fault.ends);
        summary.set(fault.name, outcome);
    }
    // After every fault, the same question is answered normally: nothing stayed broken.
    let chats_before = saved_chats(&conn).0;
    let (events, result) = ask_and_save(&server.settings(), &mut conn, QUESTION, |_| {});
    let outcome = check_ask(
        "after the faults",
        &conn,
        chats_before,
        &events,
        result,
        AskEnds::Answer {
            resets: 0,
            calls: 1,
            then: "",
        },
    );
    summary.set("after the faults", outcome);
}

/// The server is stopped (killed, as when Ollama quits or crashes) once the first part
/// of the answer has arrived: the broken call is retried (after a `Reset` that discards
/// the partial text), the retry finds the server gone, and the question ends in an
/// error naming the host, with nothing saved.
#[test]
fn ask_when_the_server_goes_away_mid_answer() {
    let mut summary = Summary::new(SUMMARY_FILE, "ask_when_the_server_goes_away_mid_answer");
    let shared = ollama_server::shared();
    let (_dir, mut conn) = {
        let _guard = ollama_server::exclusive();
        asked_journal(&shared.settings())
    };
    let own = LocalOllama::start();
    // Slow enough tokens that the answer is still streaming when the server dies.
    own.script(&ask_script(150));
    let settings = own.settings();
    let host = own.url();
    let (first_token, stop) = mpsc::channel::<()>();
    let stopper = std::thread::spawn(move || {
        if stop.recv().is_ok() {
            drop(own);
        }
    });
    let chats_before = saved_chats(&conn).0;
    let started = Instant::now();
    let mut first_token = Some(first_token);
    let (events, result) = ask_and_save(&settings, &mut conn, QUESTION, |event| {
        if matches!(event, AskEvent::Token(_))
            && let Some(signal) = first_token.take()
        {
            let _ = signal.send(());
        }
    });
    drop(first_token);
    stopper.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let tokens = events.iter().filter(|e| matches!(e, AskEvent::Token(_))).count();
    assert!(tokens >= 1, "the answer had started");
    assert_eq!(
        resets(&events),
        1,
        "the partial text is discarded before the retry"
    );
    // The retry either finds nothing listening ("not running … start Ollama") or, when
    // it races the server's exit, is reset while sending ("broke off"); either way the
    // message names the host.
    if let Err(error) = &result {
        let message = error.to_string();
        assert_says(&message, &[&host], "server gone: names the host");
        assert!(
            message.contains("start Ollama") || message.contains("broke off"),
            "server gone: {message}"
        );
    }
    let outcome = check_ask(
        "server gone",
        &conn,
        chats_before,
        &events,
        result,
        AskEnds::Error(&[]),
    );
    summary.set("server stopped after the first token", outcome);
}

// ---- Enrichment -------------------------------------------------------------------------

/// What the person wrote, which no job may change.
#[derive(Debug, Clone, PartialEq)]
struct Written {
    title: String,
    title_by_user: bool,
    body: String,
    tags: Vec<String>,
}

/// Saves an entry with a typed title, tags and a body of quotes, accents, an emoji and
/// line breaks; returns its id and what was written, as read back.
fn save_entry(journal: &Journal) -> (i64, Written) {
    let entry = entries::NewEntry {
        title: "Morning — «harbour» ☀".into(),
        body: "A harbour-swim at 6:40.\nCold, \"bracing\", café after ☕.\n\n  Indented line.".into(),
        tags: vec!["sea".into(), "calm".into()],
        ..Default::default()
    };
    let id = journal
        .writer
        .call(move |conn| entries::create(conn, DEFAULT_USER, &entry))
        .unwrap();
    (id, written(journal, id))
}

fn written(journal: &Journal, id: i64) -> Written {
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    Written {
        title: e.title,
        title_by_user: e.title_by_user,
        body: e.body,
        tags: e.tags,
    }
}

/// The entry's enrichment job: state, attempts, last error; `None` once it is done.
fn enrich_job(journal: &Journal, id: i64) -> Option<(String, i64, Option<String>)> {
    journal
        .reader
        .query_row(
            "SELECT state, attempts, last_error FROM ai_jobs WHERE entry_id = ?1 AND kind = 'enrich'",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .ok()
}

/// Checks an entry whose enrichment has not been written: what the person wrote is
/// unchanged and no result is there.
fn assert_untouched(journal: &Journal, id: i64, before: &Written, name: &str) {
    assert_eq!(
        &written(journal, id),
        before,
        "{name}: the entry's own text changed"
    );
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert_eq!(
        (e.summary, e.mood_score, e.suggested_mood),
        (None, None, None),
        "{name}: half a result written"
    );
}

/// Checks an enriched entry: the typed title, body and the person's tags kept, the
/// scripted summary, the mood and each mood tag suggested once, one vector, no job left.
fn assert_enriched_once(journal: &Journal, id: i64, before: &Written, name: &str) {
    let e = entries::get(&journal.reader, DEFAULT_USER, id).unwrap();
    assert_eq!(
        (e.title.as_str(), e.title_by_user, e.body.as_str()),
        (before.title.as_str(), true, before.body.as_str()),
        "{name}: the typed title and the body are the person's"
    );
    assert_eq!(e.summary.as_deref(), Some(SUMMARY_TEXT), "{name}");
    assert_eq!((e.mood_score, e.suggested_mood), (None, Some(8)), "{name}");
    assert_eq!(e.tags, before.tags, "{name}: the person's tags are theirs alone");
    assert!(
        e.suggested_tags.iter().any(|t| t == "grateful"),
        "{name}: {:?}",
        e.suggested_tags
    );
    let mut lower: Vec<String> = e.suggested_tags.iter().map(|t| t.to_lowercase()).collect();
    lower.sort();
    lower.dedup();
    assert_eq!(
        lower.len(),
        e.suggested_tags.len(),
        "{name}: a tag suggested twice: {:?}",
        e.suggested_tags
    );
    let model = db::vectors::active_model(&journal.reader, DEFAULT_USER)
        .unwrap()
        .expect("a vector set");
    let vectors: i64 = journal
        .reader
        .query_row(
            &format!("SELECT count(*) FROM {} WHERE entry_id = ?1", model.table()),
            [id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(vectors, 1, "{name}: one vector");
    assert_eq!(enrich_job(journal, id), None, "{name}: the job is done");
    let counts = db::jobs::counts(&journal.reader).unwrap();
    assert_eq!((counts.pending(), counts.failed), (0, 0), "{name}");
}

/// Runs one job fault: the entry saved, its embedding and enrichment worked by
/// `runner::run_pending` under the fault, the job's state and the entry checked; then the
/// fault cleared and the queue worked again. Returns what happened, for the summary.
fn job_fault(server: &LocalOllama, fault: &JobFault) -> String {
    let name = fault.name;
    let journal = journal();
    let (id, before) = save_entry(&journal);
    let base = AiSettings {
        request_timeout: fault.request_timeout.unwrap_or(server.settings().request_timeout),
        ..server.settings()
    };
    let settings = switch_on(server, fault.switch, base.clone());
    let client = OllamaClient::new(&settings).unwrap();
    let run = || runner::run_pending(&client, &journal.reader, &journal.writer);
    let outcome = match fault.ends {
        JobEnds::Done { calls } => {
            let report = run().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                (report.enriched, report.model_calls),
                (1, calls),
                "{name}: {report:?}"
            );
            assert_eq!(report.failed_attempts, 0, "{name}");
            format!("done in the same pass after {calls} calls")
        }
        JobEnds::Pending(words) => {
            let report = run().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                (report.enriched, report.failed_attempts),
                (0, 1),
                "{name}: {report:?}"
            );
            let (state, attempts, error) = enrich_job(&journal, id).expect("the job is kept");
            assert_eq!((state.as_str(), attempts), ("pending", 1), "{name}");
            let error = error.expect("the reason is kept");
            assert_says(&error, words, name);
            format!("pending, attempts 1: {error}")
        }
        JobEnds::Waiting(words) => {
            let error = run().expect_err("the pass stops while the model is unavailable");
            assert!(error.is_unavailable(), "{name}: {error}");
            assert_says(&error.to_string(), words, name);
            let (state, attempts, last) = enrich_job(&journal, id).expect("the job is kept");
            assert_eq!((state.as_str(), attempts, last), ("pending", 0, None), "{name}");
            format!("pending, attempts 0, the runner backs off: {error}")
        }
        JobEnds::Failed(words) => {
            for _ in 0..runner::MAX_JOB_ATTEMPTS {
                run().unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            let (state, attempts, error) = enrich_job(&journal, id).expect("the job is kept");
            assert_eq!(
                (state.as_str(), attempts),
                ("failed", runner::MAX_JOB_ATTEMPTS),
                "{name}"
            );
            let error = error.expect("the reason is kept");
            assert_says(&error, words, name);
            format!("failed after {attempts} attempts: {error}")
        }
    };
    if !matches!(fault.ends, JobEnds::Done { .. }) {
        assert_untouched(&journal, id, &before, name);
    }
    server.clear_faults();
    let report = runner::run_pending(
        &OllamaClient::new(&base).unwrap(),
        &journal.reader,
        &journal.writer,
    )
    .unwrap_or_else(|e| panic!("{name}, cleared: {e}"));
    if let JobEnds::Failed(_) = fault.ends {
        // Failed for good: not retried by every pass (an edit queues it afresh), and
        // still there with its reason.
        assert_eq!(report.enriched, 0, "{name}: {report:?}");
        assert_eq!(enrich_job(&journal, id).map(|j| j.0).as_deref(), Some("failed"));
        assert_untouched(&journal, id, &before, name);
        return outcome;
    }
    assert!(report.enriched <= 1, "{name}: {report:?}");
    assert_enriched_once(&journal, id, &before, name);
    outcome
}

#[test]
fn every_enrichment_job_is_retried_or_failed_with_its_reason_and_the_entry_kept() {
    let mut summary = Summary::new(
        SUMMARY_FILE,
        "every_enrichment_job_is_retried_or_failed_with_its_reason_and_the_entry_kept",
    );
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    // The "whole job" and "every attempt" rows count on these limits.
    assert_eq!((enrich::MAX_ATTEMPTS, runner::MAX_JOB_ATTEMPTS), (3, 3));
    server.clear_faults();
    server.script(ENRICH_SCRIPT);
    for fault in JOB_FAULTS {
        let outcome = job_fault(server, fault);
        summary.set(fault.name, outcome);
    }
}

/// The runner thread itself under a model that is not pulled: it says why it waits
/// (the queue bar's text), backs off, and finishes the job by itself once the model is
/// there, without an attempt spent.
#[test]
fn the_runner_waits_with_the_reason_and_backs_off_while_the_model_is_missing() {
    let mut summary = Summary::new(
        SUMMARY_FILE,
        "the_runner_waits_with_the_reason_and_backs_off_while_the_model_is_missing",
    );
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.clear_faults();
    server.script(ENRICH_SCRIPT);
    let journal = journal();
    let (id, before) = save_entry(&journal);
    server.fault(r#"{"fault": "notfound", "count": 1, "paths": ["/api/chat"]}"#);
    let seen: Arc<Mutex<Vec<(Instant, Activity)>>> = Arc::default();
    let runner = {
        let seen = Arc::clone(&seen);
        runner::JobRunner::spawn(
            OllamaClient::new(&server.settings()).unwrap(),
            journal.path.clone(),
            StorageOptions::default(),
            journal.writer.clone(),
            Box::new(move |status| seen.lock().unwrap().push((Instant::now(), status.activity))),
        )
        .unwrap()
    };
    // Not woken: a wake (a save, "retry now") ends a backoff early by design, and this
    // test measures the backoff. The runner starts its first pass by itself.
    let deadline = Instant::now() + Duration::from_secs(30);
    while enrich_job(&journal, id).is_some() {
        assert!(
            Instant::now() < deadline,
            "the runner did not resume: {:?}",
            enrich_job(&journal, id)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(runner);
    server.clear_faults();
    let seen = seen.lock().unwrap().clone();
    let (waited_at, why) = seen
        .iter()
        .find_map(|(at, activity)| match activity {
            Activity::Waiting(why) => Some((*at, why.clone())),
            _ => None,
        })
        .expect("the runner said it was waiting");
    assert_says(&why, &["ollama pull llama3.2:3b"], "waiting");
    let resumed_at = seen
        .iter()
        .find(|(at, activity)| *at > waited_at && *activity == Activity::Working)
        .map(|(at, _)| *at)
        .expect("the runner resumed");
    let pause = resumed_at - waited_at;
    assert!(pause >= Duration::from_millis(1900), "no backoff: {pause:?}");
    assert_enriched_once(&journal, id, &before, "runner");
    summary.set(
        "http 404, model not pulled (runner)",
        format!(
            "waiting: {why}; resumed by itself after {:.1} s; done once",
            pause.as_secs_f64()
        ),
    );
}

/// The server is killed while the enrichment call is at the model (held there by a
/// latency switch): the job stays pending with no attempt spent (the model is
/// unavailable, not wrong), the entry is untouched, and a server that is back finishes
/// it once.
#[test]
fn enrichment_when_the_server_goes_away_mid_call() {
    let mut summary = Summary::new(SUMMARY_FILE, "enrichment_when_the_server_goes_away_mid_call");
    let own = LocalOllama::start();
    own.script(ENRICH_SCRIPT);
    let journal = journal();
    let (id, before) = save_entry(&journal);
    own.fault(r#"{"latency_ms": 5000, "count": 1, "paths": ["/api/chat"]}"#);
    let working = {
        let (client, path, writer) = (
            OllamaClient::new(&own.settings()).unwrap(),
            journal.path.clone(),
            journal.writer.clone(),
        );
        std::thread::spawn(move || {
            let reader = db::open(&path, &StorageOptions::default()).unwrap();
            runner::run_pending(&client, &reader, &writer)
        })
    };
    // Once the embedding is stored, the enrichment call is on its way to the model.
    let deadline = Instant::now() + Duration::from_secs(30);
    while db::jobs::counts(&journal.reader).unwrap().embed_pending > 0 {
        assert!(Instant::now() < deadline, "the embedding never came");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let host = own.url();
    drop(own);
    let error = working.join().unwrap().expect_err("the pass stops");
    assert!(error.is_unavailable(), "{error}");
    assert_says(&error.to_string(), &["not running", &host], "server gone");
    let (state, attempts, last) = enrich_job(&journal, id).expect("the job is kept");
    assert_eq!((state.as_str(), attempts, last), ("pending", 0, None));
    assert_untouched(&journal, id, &before, "server gone");

    let shared = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    shared.clear_faults();
    shared.script(ENRICH_SCRIPT);
    let report = runner::run_pending(
        &OllamaClient::new(&shared.settings()).unwrap(),
        &journal.reader,
        &journal.writer,
    )
    .unwrap();
    assert_eq!(report.enriched, 1, "{report:?}");
    assert_enriched_once(&journal, id, &before, "server back");
    summary.set(
        "server stopped during the enrichment call",
        format!("pending, attempts 0: {error}; done once when a server is back"),
    );
}
