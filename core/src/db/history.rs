//! Entry history: the text a save replaced, kept so a person can see and bring back an
//! earlier version (migration 11).
//!
//! One version per editing session, not per autosave: a save within
//! [`SESSION_GAP`] of the last version kept adds none, so the version is the entry as it
//! was before the person sat down to change it. Bounded: every version of the last
//! [`days`] days (the person's setting, [`DEFAULT_DAYS`] unless they change it), then
//! the newest of each month of writing. Bringing a version back keeps the current text
//! as a version first, in the same transaction, so nothing is lost either way.

use chrono::{Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use super::queries::{
    HISTORY_DAYS, HISTORY_KEEP, HISTORY_LAST_KEPT, HISTORY_OF_ENTRY, HISTORY_SET_DAYS, HISTORY_THIN,
    HISTORY_THIN_ALL, HISTORY_VERSION,
};
use super::{DbError, EntryId, Result, UserId};
use crate::{clock, timing};

/// Saves closer together than this are one editing session.
pub const SESSION_GAP: Duration = Duration::minutes(10);

/// Days in which every version is kept unless the person sets another number (the
/// default of `profiles.history_days`, migration 12); before that, one a month.
pub const DEFAULT_DAYS: u32 = 90;

/// The longest the setting goes: a hundred years, which keeps every version.
pub const MAX_DAYS: u32 = 36_500;

/// A version of an entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Version {
    pub id: i64,
    /// When this text was saved.
    pub written_at: String,
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
}

/// The text a save is about to replace.
pub(crate) struct Kept<'a> {
    pub written_at: &'a str,
    pub title: &'a str,
    pub body: &'a str,
    pub tag_names: &'a str,
}

/// Keeps `text` as a version of entry `id` unless a version was kept within the
/// session gap (always with `forced`), then thins the old ones by `user`'s setting; in
/// the caller's transaction.
pub(crate) fn keep(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    text: &Kept<'_>,
    forced: bool,
) -> Result<()> {
    let now = Utc::now();
    if !forced {
        let last: Option<String> = conn
            .prepare_cached(HISTORY_LAST_KEPT.sql)?
            .query_row(params![id], |row| row.get(0))
            .optional()?;
        let recent = last
            .and_then(|t| clock::parse_utc(&t))
            .is_some_and(|t| now - t < SESSION_GAP);
        if recent {
            return Ok(());
        }
    }
    conn.prepare_cached(HISTORY_KEEP.sql)?.execute(params![
        id,
        text.written_at,
        clock::format_utc(now),
        text.title,
        text.body,
        text.tag_names
    ])?;
    let keep_all_from = keep_all_from(days(conn, user)?, now);
    conn.prepare_cached(HISTORY_THIN.sql)?
        .execute(params![id, keep_all_from])?;
    Ok(())
}

/// The time from which every version is kept, `days` before `now`.
fn keep_all_from(days: u32, now: chrono::DateTime<Utc>) -> String {
    clock::format_utc(now - Duration::days(i64::from(days)))
}

/// Days in which every version of `user`'s entries is kept; older ones are thinned to
/// one a month.
pub fn days(conn: &Connection, user: UserId) -> Result<u32> {
    Ok(conn
        .prepare_cached(HISTORY_DAYS.sql)?
        .query_row(params![user], |row| row.get(0))?)
}

/// Sets [`days`] and thins every entry's versions by it at once (fewer days erase the
/// versions the new rule does not keep); returns how many versions were erased.
pub fn set_days(conn: &mut Connection, user: UserId, days: u32) -> Result<usize> {
    if days > MAX_DAYS {
        return Err(DbError::Invalid(format!(
            "history is kept for at most {MAX_DAYS} days, not {days}"
        )));
    }
    let tx = conn.transaction()?;
    tx.prepare_cached(HISTORY_SET_DAYS.sql)?
        .execute(params![user, days])?;
    let erased = tx
        .prepare_cached(HISTORY_THIN_ALL.sql)?
        .execute(params![user, keep_all_from(days, Utc::now())])?;
    tx.commit()?;
    Ok(erased)
}

/// An entry's versions, newest first.
pub fn versions(conn: &Connection, id: EntryId) -> Result<Vec<Version>> {
    timing::timed(HISTORY_OF_ENTRY.name, || {
        let mut stmt = conn.prepare_cached(HISTORY_OF_ENTRY.sql)?;
        let rows = stmt
            .query_map(params![id], version_of_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })
}

/// Version `version` of entry `id`.
pub(crate) fn version(conn: &Connection, id: EntryId, version: i64) -> Result<Version> {
    conn.prepare_cached(HISTORY_VERSION.sql)?
        .query_row(params![id, version], version_of_row)
        .optional()?
        .ok_or_else(|| DbError::Invalid(format!("entry {id} has no version {version}")))
}

fn version_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Version> {
    let tag_names: String = row.get(4)?;
    Ok(Version {
        id: row.get(0)?,
        written_at: row.get(1)?,
        title: row.get(2)?,
        body: row.get(3)?,
        tags: tag_names
            .split('\u{1f}')
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
    })
}
