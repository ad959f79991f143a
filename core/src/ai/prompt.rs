//! A question to start from, asked by the local model about the last days' entries
//! ("You wrote about your knee three times this week: how is it now?"), beside the
//! day's fixed prompt on an empty page. One structured call; what it is given is the
//! titles and openings of the last week's entries, to the configured model host only.

use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Deserialize;

use super::client::Message;
use super::{AiError, OllamaClient, Result};
use crate::db::UserId;
use crate::db::entries::{self, ListFilter};

/// How far back the entries the question is about go.
const RECENT_DAYS: u64 = 7;
/// Entries given to the model at most, newest first.
const MAX_ENTRIES: u32 = 8;
/// Longest question, in characters.
const MAX_QUESTION_CHARS: usize = 160;
const MAX_ATTEMPTS: u32 = 2;

const SYSTEM_PROMPT: &str = "You help someone keep a private journal. You are given the \
titles and openings of their entries of the last days. Ask them one short, warm, specific \
question to start today's entry, about something that recurs or was left open in those \
entries. Reply with a JSON object only: \"question\": the question, one sentence ending \
with a question mark.";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Reply {
    #[schemars(length(min = 8, max = MAX_QUESTION_CHARS))]
    question: String,
}

/// The last days' entries up to `today`, as the model is given them: a line each,
/// title and opening. Empty when nothing was written then.
pub fn recent(conn: &Connection, user: UserId, today: NaiveDate) -> crate::db::Result<Vec<String>> {
    let filter = ListFilter {
        from: today.checked_sub_days(chrono::Days::new(RECENT_DAYS)),
        to: Some(today),
        ..ListFilter::default()
    };
    let page = entries::list(conn, user, &filter, None, MAX_ENTRIES)?;
    Ok(page
        .rows
        .into_iter()
        .map(|row| format!("- {}: {}", row.title.trim(), row.preview.trim()))
        .collect())
}

/// The model's question about `recent` (from [`recent`]); `attempt` varies it when the
/// person asks for another.
pub async fn ask(client: &OllamaClient, recent: &[String], attempt: u32) -> Result<String> {
    let messages = [Message::system(SYSTEM_PROMPT), Message::user(recent.join("\n"))];
    let mut problem = String::new();
    for tries in 1..=MAX_ATTEMPTS {
        let options = ollama_rs::models::ModelOptions::default()
            .temperature(0.8)
            .seed((attempt * MAX_ATTEMPTS + tries) as i32)
            .num_predict(2 * MAX_QUESTION_CHARS as i32);
        let (text, _) = client
            .chat_json::<Reply>(&client.settings().text_model, &messages, options)
            .await?;
        match validate(&text) {
            Ok(question) => return Ok(question),
            Err(why) => problem = why,
        }
    }
    Err(AiError::InvalidOutput {
        what: "a question to start from",
        attempts: MAX_ATTEMPTS,
        detail: problem,
    })
}

/// The question, on one line, if the reply is one. The error does not quote the reply
/// (it may repeat journal text, and errors reach logs).
fn validate(text: &str) -> std::result::Result<String, String> {
    let reply: Reply = super::json_reply::parse(text).map_err(|e| format!("not the JSON asked for ({e})"))?;
    let question = reply.question.split_whitespace().collect::<Vec<_>>().join(" ");
    if question.chars().count() < 8 || question.chars().count() > MAX_QUESTION_CHARS {
        return Err("the question is too short or too long".to_owned());
    }
    if !question.ends_with('?') {
        return Err("not a question".to_owned());
    }
    Ok(question)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_line_ending_in_a_question_mark_is_a_question() {
        assert_eq!(
            validate(r#"{"question": "How is the knee\n now?"}"#).as_deref(),
            Ok("How is the knee now?")
        );
        assert!(validate(r#"{"question": "Write about your day."}"#).is_err());
        assert!(validate(r#"{"question": "Why?"}"#).is_err());
        assert!(validate("not json").is_err());
    }
}
