//! The Ask history: chats and their messages, saved after each answered question and
//! listed on the Ask screen.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use super::queries::{CHAT_CREATE, CHAT_MESSAGE_INSERT, CHAT_MESSAGES, CHAT_TOUCH, CHATS_RECENT};
use super::{EntryId, Result, UserId};
use crate::{clock, timing};

/// Characters of the first question kept as a chat's title.
const TITLE_CHARS: usize = 80;

/// Who speaks in a chat. Chats store the person's and the assistant's messages; a
/// system message is only ever sent to the model, and storing one is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        match self {
            Role::User => Ok(ToSqlOutput::from("user")),
            Role::Assistant => Ok(ToSqlOutput::from("assistant")),
            Role::System => Err(rusqlite::Error::ToSqlConversionFailure(
                "a system message is never stored in a chat".into(),
            )),
        }
    }
}

impl FromSql for Role {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value.as_str()? {
            "user" => Ok(Role::User),
            "assistant" => Ok(Role::Assistant),
            other => Err(FromSqlError::Other(format!("unknown chat role {other:?}").into())),
        }
    }
}

/// An entry an answer rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub entry_id: EntryId,
    pub created_at: String,
    pub title: String,
}

/// A chat in the history list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatSummary {
    pub id: i64,
    /// The first question, cut to a line.
    pub title: String,
    pub updated_at: String,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// The entries an assistant message rests on; empty for the person's questions.
    pub sources: Vec<Source>,
}

/// A question and its answer, as a chat stores them.
pub struct Exchange<'a, T> {
    pub question: &'a str,
    pub answer: &'a str,
    pub sources: &'a [Source],
    /// Where the answer's time went, kept with it as JSON.
    pub timings: &'a T,
}

/// The `limit` most recently used chats, newest first.
pub fn recent(conn: &Connection, user: UserId, limit: u32) -> Result<Vec<ChatSummary>> {
    timing::timed(CHATS_RECENT.name, || {
        let mut stmt = conn.prepare_cached(CHATS_RECENT.sql)?;
        let chats = stmt
            .query_map(params![user, limit], |row| {
                Ok(ChatSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    updated_at: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(chats)
    })
}

/// A chat's messages, oldest first; empty for another user's chat.
pub fn messages(conn: &Connection, user: UserId, chat: i64) -> Result<Vec<ChatMessage>> {
    timing::timed(CHAT_MESSAGES.name, || {
        let mut stmt = conn.prepare_cached(CHAT_MESSAGES.sql)?;
        let messages = stmt
            .query_map(params![chat, user], |row| {
                Ok(ChatMessage {
                    role: row.get(0)?,
                    content: row.get(1)?,
                    sources: sources_of(row.get::<_, Option<String>>(2)?.as_deref()),
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(messages)
    })
}

/// Sources as stored (JSON). A damaged list costs the answer its sources, not the chat.
fn sources_of(json: Option<&str>) -> Vec<Source> {
    let Some(json) = json else {
        return Vec::new();
    };
    serde_json::from_str(json).unwrap_or_else(|error| {
        tracing::warn!(%error, "a saved answer's sources could not be read");
        Vec::new()
    })
}

/// Saves a question and its answer (with sources and timings) to a chat, creating the
/// chat when `chat` is `None`. Returns the chat's id. One transaction.
pub fn save<T: Serialize>(
    conn: &mut Connection,
    user: UserId,
    chat: Option<i64>,
    exchange: &Exchange<'_, T>,
) -> Result<i64> {
    let tx = conn.transaction()?;
    let now = clock::now_utc();
    let chat_id = match chat {
        Some(id) => {
            tx.prepare_cached(CHAT_TOUCH.sql)?
                .execute(params![id, user, now])?;
            id
        }
        None => {
            let title: String = exchange.question.chars().take(TITLE_CHARS).collect();
            tx.prepare_cached(CHAT_CREATE.sql)?
                .execute(params![user, title, now])?;
            tx.last_insert_rowid()
        }
    };
    {
        let mut insert = tx.prepare_cached(CHAT_MESSAGE_INSERT.sql)?;
        let nothing = None::<String>;
        insert.execute(params![
            chat_id,
            Role::User,
            exchange.question,
            nothing,
            nothing,
            now
        ])?;
        insert.execute(params![
            chat_id,
            Role::Assistant,
            exchange.answer,
            serde_json::to_string(exchange.sources).ok(),
            serde_json::to_string(exchange.timings).ok(),
            now
        ])?;
    }
    tx.commit()?;
    Ok(chat_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{DEFAULT_USER, StorageOptions};

    #[test]
    fn a_saved_exchange_reads_back_typed() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = crate::db::open(&dir.path().join("journal.db"), &StorageOptions::default()).unwrap();
        let sources = [Source {
            entry_id: 7,
            created_at: "2026-01-02T03:04:05.000Z".into(),
            title: "Lighthouse".into(),
        }];
        let exchange = Exchange {
            question: "Where did I walk?",
            answer: "To the lighthouse.",
            sources: &sources,
            timings: &[1, 2],
        };
        let chat = save(&mut conn, DEFAULT_USER, None, &exchange).unwrap();
        let read = messages(&conn, DEFAULT_USER, chat).unwrap();
        assert_eq!(
            read.iter()
                .map(|m| (m.role, m.content.as_str()))
                .collect::<Vec<_>>(),
            [
                (Role::User, "Where did I walk?"),
                (Role::Assistant, "To the lighthouse.")
            ]
        );
        assert!(read[0].sources.is_empty());
        assert_eq!(read[1].sources, sources);
        assert_eq!(sources_of(Some("not json")), []);
    }

    #[test]
    fn a_system_message_is_never_stored() {
        assert!(Role::System.to_sql().is_err());
    }
}
