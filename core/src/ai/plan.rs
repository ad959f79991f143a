//! Ask's first stage: does the question need the journal, and which dates does it mean?
//!
//! A generation call costs seconds and everything else here costs milliseconds, so a
//! local rule decides without a model whenever the question plainly needs the journal
//! ([`local`]):
//! * it speaks about the writer's life ("I", "my", "felt", …: [`JOURNAL_WORDS`]);
//! * it names explicit dates, which [`crate::search::dates`] reads, or a period from or
//!   to something the journal tells of ("since the move": [`crate::search::question`]);
//! * most of its content words are in the writer's journal ([`journal_uses_words`]):
//!   "Summarise the lighthouse walk." has no personal word, but a journal that talks
//!   about lighthouses and walks is what it is about.
//!
//! Only when none of these holds does one JSON call ([`with_model`]) decide,
//! `{needs_context, date_from, date_to, search_phrase}`. In the reference app planning
//! was 6.2 of 14 seconds, so every question the rule settles saves the largest stage.

use chrono::{DateTime, Local};
use rusqlite::Connection;
use serde::Deserialize;

use super::OllamaClient;
use super::client::Message;
use crate::clock;
use crate::db::{self, UserId};
use crate::search::keyword::{self, LastWord, QueryWords};
use crate::search::{SearchFilter, SearchQuery, question};

/// Entries given to the model as context: the most a plan's search asks for.
pub const CONTEXT_ENTRIES: usize = 5;

/// Words that mark a question about the writer's own life: such a question needs the
/// journal, and its own words are a fine search phrase. Only the writer's pronouns, the
/// journal itself and feelings: verbs any question uses ("did", "was", "wrote") would
/// send "Who wrote Hamlet?" to the journal without asking the planner.
const JOURNAL_WORDS: &[&str] = &[
    "i", "i'm", "i've", "i'd", "me", "my", "mine", "myself", "we", "our", "us", "journal", "entry",
    "entries", "felt", "feel", "feeling", "mood", "remember",
];

/// Shortest word that counts as evidence. A possessive's "s" or a lone letter or digit
/// is in every journal, so finding it says nothing about the question.
const MIN_EVIDENCE_CHARS: usize = 3;

const PLAN_PROMPT: &str = "You plan how to answer a question asked inside a personal journal app. \
Reply with JSON only: \"needs_context\": true if answering needs the person's journal entries; \
\"date_from\" and \"date_to\": the dates the question is about as YYYY-MM-DD, or empty strings; \
\"search_phrase\": a few words to search the journal with.";

/// How a question is answered: from the journal (`query`) or from the model alone.
pub(super) struct Plan {
    pub query: Option<SearchQuery>,
    /// The event the question's dates run from or to ("since the move"), when the
    /// journal told of it.
    pub event: Option<question::Event>,
    /// True when the local rule decided, without a model call.
    pub local: bool,
}

/// The planning call's reply.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct PlanReply {
    needs_context: bool,
    /// YYYY-MM-DD or empty.
    date_from: String,
    /// YYYY-MM-DD or empty.
    date_to: String,
    search_phrase: String,
}

/// The plan when no model is needed, or `None` when only the planning call can tell.
/// The cheap checks run first; the journal is only looked at when they find nothing.
pub(super) fn local(
    conn: &Connection,
    user: UserId,
    question: &str,
    now: DateTime<Local>,
) -> db::Result<Option<Plan>> {
    let dated = question::dated(conn, user, question, now, CONTEXT_ENTRIES)?;
    let needs_journal = dated.range.is_some()
        || dated.event.is_some()
        || is_personal(question)
        || journal_uses_words(conn, user, question)?;
    Ok(needs_journal.then_some(Plan {
        query: Some(dated.query),
        event: dated.event,
        local: true,
    }))
}

/// True when the question uses one of [`JOURNAL_WORDS`].
fn is_personal(question: &str) -> bool {
    question
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|word| JOURNAL_WORDS.contains(&word))
}

/// True when more than half of the question's content words occur in the writer's live
/// entries: the question is about what the journal holds ("How is the allotment
/// doing?"), even when phrased impersonally.
///
/// Most, not any: one word in common is chance ("Which colours are in a rainbow?" in a
/// journal that once mentioned autumn colours), and a question whose subject the
/// journal never names ("rainbow") is left to the planner. Words anywhere in the
/// journal, not all in one entry: the writer describes one event across entries and in
/// words of their own, so requiring them together would miss most such questions.
///
/// Each word is one keyword lookup that stops at its first match (the same FTS index,
/// tokenizer and stemming search uses, so "walks" finds "walked"), and the lookups
/// stop as soon as the outcome is certain.
fn journal_uses_words(conn: &Connection, user: UserId, question: &str) -> db::Result<bool> {
    let words = content_words(question);
    let needed = words.len() / 2 + 1;
    let mut found = 0;
    for (checked, word) in words.iter().enumerate() {
        if found + (words.len() - checked) < needed {
            break;
        }
        let one_word = QueryWords {
            words: vec![word.clone()],
            last_is_prefix: false,
        };
        found += usize::from(keyword::occurs(conn, user, &one_word)?);
        if found >= needed {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The question's words that say what it is about: the words keyword search would
/// match (split as the index splits text, without stop words such as "what", "did",
/// "happened"), less those too short to be evidence.
fn content_words(question: &str) -> Vec<String> {
    QueryWords::parse(question, LastWord::Whole)
        .map(|q| q.words)
        .unwrap_or_default()
        .into_iter()
        .filter(|w| w.chars().count() >= MIN_EVIDENCE_CHARS)
        .collect()
}

/// The planning call. An unusable reply is not retried (that would cost a second
/// call): the question is then searched as written.
pub(super) async fn with_model(
    client: &OllamaClient,
    question: &str,
    now: DateTime<Local>,
) -> super::Result<Plan> {
    let messages = [
        Message::system(format!("{PLAN_PROMPT} Today is {}.", now.format("%Y-%m-%d"))),
        Message::user(question),
    ];
    let options = ollama_rs::models::ModelOptions::default()
        .temperature(0.0)
        .num_predict(120);
    let (raw, _) = client
        .chat_json::<PlanReply>(&client.settings().text_model, &messages, options)
        .await?;
    let reply = match super::json_reply::parse::<PlanReply>(&raw) {
        Ok(reply) => reply,
        Err(error) => {
            // The question is searched as typed. The log says where the reply broke, not
            // the error's text: serde quotes the offending value, which may be the journal's.
            tracing::warn!(
                kind = ?error.classify(),
                line = error.line(),
                column = error.column(),
                reply_bytes = raw.len(),
                "planner reply not understood; searching the question as typed"
            );
            return Ok(Plan {
                query: Some(SearchQuery::new(question, CONTEXT_ENTRIES)),
                event: None,
                local: false,
            });
        }
    };
    if !reply.needs_context {
        return Ok(Plan {
            query: None,
            event: None,
            local: false,
        });
    }
    let phrase = Some(reply.search_phrase.trim())
        .filter(|p| !p.is_empty())
        .unwrap_or(question);
    let mut query = SearchQuery::new(phrase, CONTEXT_ENTRIES);
    query.filter = SearchFilter {
        from: clock::parse_date(reply.date_from.trim()),
        to: clock::parse_date(reply.date_to.trim()),
        within: None,
    };
    Ok(Plan {
        query: Some(query),
        event: None,
        local: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::entries::{self, NewEntry};
    use crate::db::{DEFAULT_USER, StorageOptions};

    /// A journal file on disk holding `bodies`, one entry each, and the entries' ids.
    fn journal(bodies: &[&str]) -> (tempfile::TempDir, Connection, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = db::open(&dir.path().join("journal.db"), &StorageOptions::default()).unwrap();
        let ids = bodies
            .iter()
            .map(|body| {
                let entry = NewEntry {
                    body: (*body).to_owned(),
                    ..Default::default()
                };
                entries::create(&mut conn, DEFAULT_USER, &entry).unwrap()
            })
            .collect();
        (dir, conn, ids)
    }

    fn planned_locally(conn: &Connection, question: &str) -> bool {
        local(conn, DEFAULT_USER, question, Local::now())
            .unwrap()
            .is_some()
    }

    #[test]
    fn personal_or_dated_questions_skip_the_planning_call() {
        let (_dir, conn, _) = journal(&[]);
        // Personal or dated questions skip it; questions with no such mark do not, even
        // with the verbs every question uses.
        for (question, local) in [
            ("How did I feel last week?", true),
            ("What did I write about my knee?", true),
            ("What happened in April 2026?", true),
            ("when was I happiest", true),
            ("What is the capital of France?", false),
            ("Who wrote Hamlet?", false),
            ("When was the Eiffel Tower built?", false),
            ("What did the Romans eat?", false),
        ] {
            assert_eq!(planned_locally(&conn, question), local, "{question}");
        }
        let plan = local(&conn, DEFAULT_USER, "What did I do yesterday?", Local::now())
            .unwrap()
            .unwrap();
        assert!(plan.query.unwrap().filter.from.is_some());
    }

    #[test]
    fn questions_in_the_journals_own_words_skip_the_planning_call() {
        let (_dir, mut conn, ids) = journal(&[
            "Walked to the lighthouse at dawn with Sam, then coffee.",
            "The allotment is finally weeded; the beans are climbing.",
            "Autumn colours along the canal.",
        ]);
        for (question, local) in [
            // Most content words are in the journal, stemmed as search stems them.
            ("Summarise the lighthouse walks.", true),
            ("How are the beans on the allotment?", true),
            // One word in common is not enough, and nor is none.
            ("Which colours are in a rainbow?", false),
            ("What is the capital of France?", false),
            // A question of stop words alone has nothing to find.
            ("What was it about?", false),
        ] {
            assert_eq!(planned_locally(&conn, question), local, "{question}");
        }
        // Only live entries are the journal.
        entries::soft_delete(&mut conn, DEFAULT_USER, ids[0]).unwrap();
        assert!(!planned_locally(&conn, "Summarise the lighthouse walks."));
    }

    #[test]
    fn content_words_are_the_words_search_would_match() {
        assert_eq!(
            content_words("What happened with the dog's emergency treatment? The DOG!"),
            ["dog", "emergency", "treatment"]
        );
        assert!(content_words("What did I write?").is_empty());
    }
}
