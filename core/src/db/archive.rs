//! Reads for an export: every live entry in id order, a page at a time, with its
//! photos' and recordings' bytes, what was heard in each recording, and what the
//! journal remembers of it.

use rusqlite::{Connection, params};

use super::entries::{self, Entry};
use super::queries::{ARCHIVE_MEDIA, ARCHIVE_PAGE};
use super::{EntryId, Result, UserId, audio, memory};
use crate::db::audio::Segment;
use crate::timing;

/// An entry as an export holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedEntry {
    pub entry: Entry,
    /// The day it counts for (`local_date`).
    pub day: String,
    pub media: Vec<ArchivedMedia>,
    /// The people, places and activities it mentions.
    pub memory: Vec<memory::Mention>,
    /// The text model that found them, if one has read the entry.
    pub memory_model: Option<String>,
}

/// A photo or a recording, with its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedMedia {
    /// `image` or `audio`.
    pub kind: String,
    pub mime: String,
    pub created_at: String,
    pub duration_ms: Option<u64>,
    pub language: Option<String>,
    pub data: Vec<u8>,
    /// A photo's name in the entry's text (`![](name)`), if it has one.
    pub name: Option<String>,
    /// What was heard, for a recording.
    pub segments: Vec<Segment>,
}

/// Up to `limit` live entries after `after` (an id; 0 for the first page), whole.
pub fn page(conn: &Connection, user: UserId, after: EntryId, limit: usize) -> Result<Vec<ArchivedEntry>> {
    let ids: Vec<(EntryId, String, Option<String>)> = timing::timed(ARCHIVE_PAGE.name, || {
        let mut stmt = conn.prepare_cached(ARCHIVE_PAGE.sql)?;
        let rows = stmt
            .query_map(params![user, after, limit as i64], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok::<_, super::DbError>(rows)
    })?;
    ids.into_iter()
        .map(|(id, day, memory_model)| {
            Ok(ArchivedEntry {
                entry: entries::get(conn, user, id)?,
                day,
                media: media_of(conn, id)?,
                memory: memory::of_entry(conn, user, id)?,
                memory_model,
            })
        })
        .collect()
}

fn media_of(conn: &Connection, entry: EntryId) -> Result<Vec<ArchivedMedia>> {
    let rows: Vec<(i64, ArchivedMedia)> = timing::timed(ARCHIVE_MEDIA.name, || {
        let mut stmt = conn.prepare_cached(ARCHIVE_MEDIA.sql)?;
        let rows = stmt
            .query_map(params![entry], |row| {
                Ok((
                    row.get(0)?,
                    ArchivedMedia {
                        kind: row.get(1)?,
                        mime: row.get(2)?,
                        created_at: row.get(3)?,
                        duration_ms: row.get::<_, Option<i64>>(4)?.map(|d| d.max(0) as u64),
                        language: row.get(5)?,
                        data: row.get(6)?,
                        name: row.get(7)?,
                        segments: Vec::new(),
                    },
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok::<_, super::DbError>(rows)
    })?;
    rows.into_iter()
        .map(|(media_id, mut media)| {
            if media.kind == "audio" {
                media.segments = audio::segments(conn, media_id)?;
            }
            Ok(media)
        })
        .collect()
}
