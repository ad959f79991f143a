//! The search box's search with meaning, for callers that can wait on the model.
//!
//! The window runs it in two steps on two threads (words at once on the reader, meaning
//! when the assistant thread has the embedding); the CLI runs both in one call. Both use
//! [`embed_query`] and [`Searcher::search_box`], so `mindsage search` answers exactly
//! what the search box shows.

use chrono::{DateTime, Local};
use rusqlite::Connection;

use super::{AiError, OllamaClient};
use crate::db::{self, UserId};
use crate::search::remembered::AtNames;
use crate::search::{SearchMode, SearchOutcome, Searcher};

/// `text` as the configured embedding model embeds it, to search by meaning: its words
/// without the `@name`s, which choose whose entries are searched and mean nothing to
/// the model.
pub fn embed_query(client: &OllamaClient, text: &str) -> Result<Vec<f32>, AiError> {
    let model = &client.settings().embed_model;
    let words = AtNames::split(text).rest;
    client
        .embed_blocking(model, std::slice::from_ref(&words))?
        .pop()
        .ok_or_else(|| AiError::Server {
            status: None,
            message: format!("{model} returned no embedding"),
        })
}

/// The search box's search of `text`, by words and by meaning. When the query could not
/// be embedded (no client, the model not running or not pulled), it searches by words
/// only and the outcome's reason says why, as the search box does.
pub fn search(
    client: &super::Result<OllamaClient>,
    searcher: &mut Searcher,
    conn: &Connection,
    user: UserId,
    text: &str,
    now: DateTime<Local>,
    limit: usize,
) -> db::Result<SearchOutcome> {
    let embedding = client
        .as_ref()
        .map_err(AiError::to_string)
        .and_then(|client| embed_query(client, text).map_err(|error| error.to_string()));
    let mut outcome = searcher.search_box(conn, user, text, now, limit, embedding.as_deref().ok())?;
    if let (Err(error), SearchMode::KeywordOnly { reason }) = (&embedding, &mut outcome.mode) {
        *reason = format!("the query could not be embedded: {error}");
    }
    Ok(outcome)
}
