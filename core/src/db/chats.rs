//! The Ask history as the app lists it: recent chats and one chat's messages.
//! (Saving an answered question is `ai::ask::save_chat`, run on the writer.)

use rusqlite::{Connection, params};

use super::queries::{CHAT_MESSAGES, CHATS_RECENT};
use super::{Result, UserId};
use crate::timing;

/// A chat in the history list.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChatSummary {
    pub id: i64,
    /// The first question, cut to a line.
    pub title: String,
    pub updated_at: String,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChatMessage {
    /// `user` or `assistant`.
    pub role: String,
    pub content: String,
    /// The answer's sources as stored (JSON), for assistant messages.
    pub sources_json: Option<String>,
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
                    sources_json: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(messages)
    })
}
