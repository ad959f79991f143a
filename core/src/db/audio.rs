//! Voice entries' recordings: the WAV bytes (in `media_blobs`, like a photo's) and what
//! Whisper heard, segment by segment, beside them.
//!
//! A voice entry is written in one transaction with its recording, its segments and its
//! queued model work, so a crash keeps all of it or none.

use rusqlite::{Connection, params};

use super::entries::{self, NewEntry};
use super::queries::*;
use super::{EntryId, Result, UserId, jobs};
use crate::clock;
use crate::media::sha256_hex;
use crate::timing;

/// One stretch of speech Whisper heard, and its place in the recording.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Segment {
    pub start_ms: u64,
    pub end_ms: u64,
    pub text: String,
}

/// A recording to keep with its entry.
#[derive(Debug, Clone, Copy)]
pub struct NewRecording<'a> {
    /// A WAV file's bytes (16 kHz mono, as `voice::wav::encode` writes).
    pub wav: &'a [u8],
    pub duration_ms: u64,
    /// The language Whisper heard, as its code.
    pub language: &'a str,
    pub segments: &'a [Segment],
}

/// A stored recording, without its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub media_id: i64,
    pub duration_ms: u64,
    pub bytes: u64,
    pub language: Option<String>,
    pub created_at: String,
}

/// Saves a new entry with its recording; returns the entry's id. The recording is dated
/// as the entry is (when it was spoken, for one that waited for its transcription).
pub fn create_entry(
    conn: &mut Connection,
    user: UserId,
    entry: &NewEntry,
    recording: &NewRecording<'_>,
) -> Result<EntryId> {
    timing::timed(AUDIO_INSERT.name, || {
        let tx = conn.transaction()?;
        let id = entries::insert_entry(&tx, user, entry)?;
        jobs::enqueue_all(&tx, user, id)?;
        let recorded_at = entry
            .created_at
            .map_or_else(clock::now_utc, |lived| clock::format_utc(lived.to_utc()));
        attach(&tx, user, id, recording, &recorded_at)?;
        tx.commit()?;
        Ok(id)
    })
}

/// Attaches a recording to an entry inside the caller's transaction; returns its media
/// id. `recorded_at` is a stored timestamp (now, or the original's in an import).
pub fn attach(
    conn: &Connection,
    user: UserId,
    entry: EntryId,
    recording: &NewRecording<'_>,
    recorded_at: &str,
) -> Result<i64> {
    conn.prepare_cached(AUDIO_INSERT.sql)?.execute(params![
        user,
        entry,
        sha256_hex(recording.wav),
        recording.wav.len() as i64,
        recording.duration_ms as i64,
        recording.language,
        recorded_at,
    ])?;
    let media_id = conn.last_insert_rowid();
    conn.prepare_cached(MEDIA_BLOB_INSERT.sql)?
        .execute(params![media_id, recording.wav])?;
    let mut insert = conn.prepare_cached(AUDIO_SEGMENT_INSERT.sql)?;
    for (seq, segment) in recording.segments.iter().enumerate() {
        insert.execute(params![
            media_id,
            seq as i64,
            segment.start_ms as i64,
            segment.end_ms as i64,
            segment.text
        ])?;
    }
    Ok(media_id)
}

/// An entry's recordings, oldest first.
pub fn of_entry(conn: &Connection, user: UserId, entry: EntryId) -> Result<Vec<Recording>> {
    timing::timed(AUDIO_OF_ENTRY.name, || {
        let mut stmt = conn.prepare_cached(AUDIO_OF_ENTRY.sql)?;
        let rows = stmt
            .query_map(params![user, entry], |row| {
                Ok(Recording {
                    media_id: row.get(0)?,
                    duration_ms: row.get::<_, Option<i64>>(1)?.unwrap_or(0).max(0) as u64,
                    bytes: row.get::<_, i64>(2)?.max(0) as u64,
                    language: row.get(3)?,
                    created_at: row.get(4)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })
}

/// A recording's WAV bytes.
pub fn wav(conn: &Connection, media_id: i64) -> Result<Vec<u8>> {
    timing::timed(AUDIO_DATA.name, || {
        Ok(conn
            .prepare_cached(AUDIO_DATA.sql)?
            .query_row(params![media_id], |row| row.get(0))?)
    })
}

/// What was heard in a recording, in order.
pub fn segments(conn: &Connection, media_id: i64) -> Result<Vec<Segment>> {
    timing::timed(AUDIO_SEGMENTS.name, || {
        let mut stmt = conn.prepare_cached(AUDIO_SEGMENTS.sql)?;
        let rows = stmt
            .query_map(params![media_id], |row| {
                Ok(Segment {
                    start_ms: row.get::<_, i64>(0)?.max(0) as u64,
                    end_ms: row.get::<_, i64>(1)?.max(0) as u64,
                    text: row.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })
}
