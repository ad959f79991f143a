//! Where imported entries came from: the keys that make importing the same export twice
//! add nothing (`imported_entries`, migration 10).
//!
//! Two keys, because neither is enough alone: the source's own id survives an edit in
//! the other app but not a change of export format, and a hash of the entry's time,
//! title and body survives a change of format but not an edit.

use rusqlite::{Connection, OptionalExtension, params};

use super::queries::{IMPORT_RECORD, IMPORT_SEEN_EXTERNAL, IMPORT_SEEN_HASH};
use super::{EntryId, Result};
use crate::{clock, media, timing};

/// The hash an entry is recognised by whatever export it arrives in.
pub fn content_hash(created_at: &str, title: &str, body: &str) -> String {
    let mut text = String::with_capacity(created_at.len() + title.len() + body.len() + 2);
    for part in [created_at, title, body] {
        text.push_str(part);
        text.push('\u{1f}');
    }
    media::sha256_hex(text.as_bytes())
}

/// The entry an earlier import made of this item, if any: by the source's id, else by
/// the content hash.
pub fn already_imported(
    conn: &Connection,
    source: &str,
    external_id: &str,
    content_hash: &str,
) -> Result<Option<EntryId>> {
    timing::timed(IMPORT_SEEN_EXTERNAL.name, || {
        let by_id = conn
            .prepare_cached(IMPORT_SEEN_EXTERNAL.sql)?
            .query_row(params![source, external_id], |row| row.get(0))
            .optional()?;
        if by_id.is_some() {
            return Ok(by_id);
        }
        Ok(conn
            .prepare_cached(IMPORT_SEEN_HASH.sql)?
            .query_row(params![content_hash], |row| row.get(0))
            .optional()?)
    })
}

/// Remembers where an entry came from, in the caller's transaction.
pub fn record(
    conn: &Connection,
    entry: EntryId,
    source: &str,
    external_id: &str,
    content_hash: &str,
) -> Result<()> {
    conn.prepare_cached(IMPORT_RECORD.sql)?.execute(params![
        entry,
        source,
        external_id,
        content_hash,
        clock::now_utc()
    ])?;
    Ok(())
}
