//! Reflections: one model call looks back over a week or a month that has ended, from
//! its entries' summaries, and writes a few sentences, each naming the entries it came
//! from (`db::reflections` keeps them and queues them).
//!
//! The model sees each entry as a numbered line (its day, mood, the people the journal
//! remembers in it, and its summary, or its opening when it has none), and answers in a
//! JSON schema that bounds every sentence and lists each one's entry numbers. A number
//! that names no entry is dropped, and so is a sentence left with none: a reflection
//! says only what it can point to. A reply with nothing left is asked again with
//! another seed, as enrichment's is.

use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Deserialize;

use super::client::Message;
use super::enrich::{clip, one_line};
use super::{OllamaClient, Result};
use crate::db::entries::{self, ListFilter};
use crate::db::memory::{self, Kind};
use crate::db::reflections::{Due, Period, Sentence};
use crate::db::{self, EntryId};
use crate::search::question::has_words;

/// Entries one reflection reads: every one of a week; of a busy month, this many spread
/// evenly over it, so the call's cost stays bounded.
const MAX_ENTRIES: usize = 40;

/// Characters of each entry's summary (or opening) in the prompt.
const ENTRY_CHARS: usize = 300;

/// Sentences in a reflection, and the longest one, in characters.
const MAX_SENTENCES: usize = 5;
const MAX_SENTENCE_CHARS: usize = 280;

/// Entry numbers one sentence may give.
const MAX_SOURCES: usize = 6;

/// Tokens the call may generate: room for the longest reply the schema allows (see
/// enrichment's `MAX_REPLY_TOKENS` for why a cut reply must never happen).
const MAX_REPLY_TOKENS: i32 = 2 * (MAX_SENTENCES * (MAX_SENTENCE_CHARS + 8 * MAX_SOURCES)) as i32;

/// Model calls allowed for one reflection (the first and two retries).
const MAX_ATTEMPTS: u32 = 3;

const SYSTEM_PROMPT: &str = "You read short notes on a person's journal entries from one period \
and write them a short reflection on it. Reply with a JSON object only: \"sentences\": two to five \
sentences addressed to the writer as \"you\", saying what happened, how they felt, who was there and \
what came back again; each as \"text\" and \"entries\", the numbers of the entries it comes from. \
Say only what the entries say.";

/// The reply as it must be shaped (and the schema sent to Ollama).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Reply {
    #[schemars(length(min = 1, max = MAX_SENTENCES))]
    sentences: Vec<ReplySentence>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReplySentence {
    #[schemars(length(min = 1, max = MAX_SENTENCE_CHARS))]
    text: String,
    #[schemars(length(min = 1, max = MAX_SOURCES), inner(range(min = 1, max = MAX_ENTRIES)))]
    entries: Vec<i64>,
}

/// What one reflection is written from: the period's entries as numbered lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// "The week of 30 November 2026 (30 November to 6 December)".
    pub heading: String,
    /// Entry ids in the order of their numbers (number n is `entries[n - 1]`).
    pub entries: Vec<EntryId>,
    pub lines: Vec<String>,
}

/// A written reflection.
#[derive(Debug, Clone, PartialEq)]
pub struct Reflected {
    pub sentences: Vec<Sentence>,
    pub model_calls: u32,
    pub text_model: String,
}

/// Reads what reflection `due` is written from: its period's live entries, oldest first.
pub fn material(conn: &Connection, due: &Due) -> db::Result<Material> {
    let filter = ListFilter {
        from: Some(due.first_day),
        to: Some(due.last_day),
        ..ListFilter::default()
    };
    // A month holds a few hundred entries at most: one page takes them all.
    let mut rows = entries::list(conn, due.user, &filter, None, 1_000)?.rows;
    rows.reverse();
    let rows = spread(rows, MAX_ENTRIES);
    let mut material = Material {
        heading: heading(due.period, due.first_day, due.last_day),
        entries: Vec::with_capacity(rows.len()),
        lines: Vec::with_capacity(rows.len()),
    };
    for row in rows {
        let entry = entries::get(conn, due.user, row.id)?;
        let people: Vec<String> = memory::of_entry(conn, due.user, entry.id)?
            .into_iter()
            .filter(|m| m.kind == Kind::Person && !m.hidden)
            .map(|m| match m.relation.is_empty() {
                true => m.name,
                false => format!("{} ({})", m.name, m.relation),
            })
            .collect();
        let text = match entry.summary.as_deref().filter(|s| has_words(s)) {
            Some(summary) => summary.to_owned(),
            None => entry.body.clone(),
        };
        let mut line = format!("[{}] {}", material.entries.len() + 1, day_of(&entry));
        if let Some(mood) = entry.mood_score.or(entry.suggested_mood) {
            line.push_str(&format!(". Mood {mood}/10"));
        }
        if !people.is_empty() {
            line.push_str(&format!(". With {}", people.join(", ")));
        }
        line.push_str(&format!(". {}", clip(&one_line(&text), ENTRY_CHARS)));
        material.entries.push(entry.id);
        material.lines.push(line);
    }
    Ok(material)
}

/// One call (retried on unusable output) for `material`'s reflection.
pub async fn reflect(client: &OllamaClient, material: &Material) -> Result<Reflected> {
    let prompt = format!("{}\n\n{}", material.heading, material.lines.join("\n"));
    let messages = [Message::system(SYSTEM_PROMPT), Message::user(prompt)];
    let options = ollama_rs::models::ModelOptions::default()
        .temperature(0.4)
        .num_predict(MAX_REPLY_TOKENS);
    let (sentences, model_calls, _) = client
        .chat_validated::<Reply, _>(&messages, options, MAX_ATTEMPTS, "the reflection", |text| {
            validate(text, &material.entries)
        })
        .await?;
    Ok(Reflected {
        sentences,
        model_calls,
        text_model: client.settings().text_model.clone(),
    })
}

/// The reply's sentences, each with the entries its numbers name (numbers that name
/// none dropped, each entry once); sentences with no entry left are dropped. The error
/// says what was wrong without quoting the reply.
pub fn validate(text: &str, entries: &[EntryId]) -> std::result::Result<Vec<Sentence>, String> {
    let reply: Reply = super::json_reply::parse_described(text)?;
    let mut sentences = Vec::new();
    for sentence in reply.sentences.into_iter().take(MAX_SENTENCES) {
        let text = clip(&one_line(&sentence.text), MAX_SENTENCE_CHARS);
        let mut sources: Vec<EntryId> = Vec::new();
        for n in sentence.entries {
            let id = usize::try_from(n - 1).ok().and_then(|i| entries.get(i));
            if let Some(&id) = id
                && !sources.contains(&id)
            {
                sources.push(id);
            }
        }
        if reads_as_a_sentence(&text) && !sources.is_empty() {
            sentences.push(Sentence {
                text,
                entries: sources,
            });
        }
    }
    if sentences.is_empty() {
        return Err("no sentence names an entry it comes from".to_owned());
    }
    Ok(sentences)
}

/// Whether `text` reads as a sentence, not a date, a number or a fragment the model
/// wrote instead ("2019-14-30", "21.7", "23 Nov."): four words of letters at least, or
/// in a script written without spaces, six letters.
fn reads_as_a_sentence(text: &str) -> bool {
    if crate::scripts::has_unspaced(text) {
        return text.chars().filter(|c| c.is_alphabetic()).count() >= 6;
    }
    text.split_whitespace()
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count()
        >= 4
}

/// At most `most` of `rows`, spread evenly from the first to the last.
fn spread<T>(rows: Vec<T>, most: usize) -> Vec<T> {
    let len = rows.len();
    if len <= most || most < 2 {
        return rows.into_iter().take(most).collect();
    }
    let picked: Vec<usize> = (0..most).map(|k| k * (len - 1) / (most - 1)).collect();
    rows.into_iter()
        .enumerate()
        .filter(|(i, _)| picked.binary_search(i).is_ok())
        .map(|(_, row)| row)
        .collect()
}

/// "The week of 30 November 2026 (30 November to 6 December)", "November 2026".
fn heading(period: Period, first_day: NaiveDate, last_day: NaiveDate) -> String {
    let named = period.named(first_day);
    match period {
        Period::Week => format!(
            "{named} ({} to {})",
            first_day.format("%-d %B"),
            last_day.format("%-d %B")
        ),
        Period::Month => named,
    }
}

/// "Monday 30 November", where the entry was lived.
fn day_of(entry: &entries::Entry) -> String {
    entry
        .lived()
        .map(|lived| lived.format("%A %-d %B").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_only_the_entries_their_numbers_name() {
        let entries = [10, 20, 30];
        let reply = r#"{"sentences": [
            {"text": " You saw Maya twice. ", "entries": [1, 3, 3, 9]},
            {"text": "An invented sentence.", "entries": [0, 4]},
            {"text": "...", "entries": [2]}
        ]}"#;
        assert_eq!(
            validate(reply, &entries).unwrap(),
            [Sentence {
                text: "You saw Maya twice.".into(),
                entries: vec![10, 30]
            }]
        );
        assert!(validate(r#"{"sentences": [{"text": "x", "entries": [7]}]}"#, &entries).is_err());
        // What the small model writes instead of a sentence is not one.
        for fragment in [
            "2019-14-30",
            "21.7",
            "23 Nov.",
            "24 Nov. (2026) (25 November), Mood 8/10.",
        ] {
            let reply = serde_json::json!({"sentences": [{"text": fragment, "entries": [1]}]});
            assert!(validate(&reply.to_string(), &entries).is_err(), "{fragment}");
        }
        let reply = serde_json::json!({"sentences": [{"text": "你和玛雅一起烤了面包。", "entries": [1]}]});
        assert!(validate(&reply.to_string(), &entries).is_ok());
        assert!(validate("not json", &entries).is_err());
        assert!(validate(r#"{"sentences": []}"#, &entries).is_err());
    }

    #[test]
    fn a_busy_month_is_read_evenly_from_first_to_last() {
        let kept = spread((0..100).collect(), 40);
        assert_eq!(kept.len(), 40);
        assert_eq!((kept[0], kept[39]), (0, 99));
        assert_eq!(spread((0..5).collect::<Vec<_>>(), 40).len(), 5);
    }
}
