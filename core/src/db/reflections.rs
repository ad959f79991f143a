//! Reflections: the model's short look back over each week and month that has ended,
//! each sentence with the entries it came from (migration 21).
//!
//! The table is its own queue. [`queue_ended`] adds a pending row for every ended period
//! with entries; triggers make a row pending again when an entry of its period is added,
//! trashed, restored, moved to another day or summarised anew, and a purge empties it
//! (what the purged entry said goes with it). The job runner (`ai::runner`) takes them
//! with [`next`] once the entries' own work is done, and [`write`] keeps the result only
//! if the period is unchanged since it was read (its `revision`), as enrichment does.

use chrono::{Datelike, NaiveDate};
use rusqlite::{Connection, params};

use super::queries::{
    REFLECTIONS_DAYS_WRITTEN, REFLECTIONS_FAILED, REFLECTIONS_NEXT, REFLECTIONS_QUEUE_ENDED,
    REFLECTIONS_RECENT, REFLECTIONS_WITHIN, REFLECTIONS_WRITE,
};
use super::{EntryId, Result, UserId};
use crate::clock;

/// Attempts a reflection gets when the model answers but its output is unusable.
pub const MAX_REFLECTION_ATTEMPTS: i64 = 3;

/// What a reflection looks back over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
}

impl Period {
    fn parse(text: &str) -> rusqlite::Result<Period> {
        match text {
            "week" => Ok(Period::Week),
            "month" => Ok(Period::Month),
            other => Err(rusqlite::Error::InvalidColumnType(
                0,
                format!("period {other:?}"),
                rusqlite::types::Type::Text,
            )),
        }
    }

    /// The period as a heading names it: "The week of 30 November 2026", "November 2026".
    pub fn named(self, first_day: NaiveDate) -> String {
        match self {
            Period::Week => format!("The week of {}", first_day.format("%-d %B %Y")),
            Period::Month => first_day.format("%B %Y").to_string(),
        }
    }
}

/// One sentence and the entries it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sentence {
    pub text: String,
    pub entries: Vec<EntryId>,
}

/// Where a reflection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// To be written (again): its period ended or changed.
    Pending,
    Done,
    /// The model's output stayed unusable; it is written again when the period changes.
    Failed,
}

/// A reflection as the screens show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Reflection {
    pub id: i64,
    pub period: Period,
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    pub state: State,
    /// Empty until written; a pending reflection keeps its last sentences meanwhile.
    pub sentences: Vec<Sentence>,
    /// When it was written (UTC, as stored).
    pub made_at: Option<String>,
}

/// A reflection to write, as the runner reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Due {
    pub id: i64,
    pub user: UserId,
    pub period: Period,
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
    /// The period's revision when read: the result is written only if it still is.
    pub revision: i64,
}

/// Queues a reflection for every week and month with entries that ended before `today`
/// and has none yet; returns how many were queued. Cheap enough for every pass: it reads
/// the person's day totals, one row per day written.
pub fn queue_ended(conn: &Connection, user: UserId, today: NaiveDate) -> Result<usize> {
    Ok(conn
        .prepare_cached(REFLECTIONS_QUEUE_ENDED.sql)?
        .execute(params![user, clock::format_date(today)])?)
}

/// Marks the reflections of the weeks and months touching `from` to `to` (days as
/// stored, `YYYY-MM-DD`) to be written again: entries were added on those days. The
/// writer of new entries calls it in their transaction, once for a save and once per
/// batch for an import; changes and deletions are marked by triggers (migration 21).
pub fn days_written(conn: &Connection, user: UserId, from: &str, to: &str) -> Result<()> {
    conn.prepare_cached(REFLECTIONS_DAYS_WRITTEN.sql)?
        .execute(params![user, from, to])?;
    Ok(())
}

/// The next reflection to write, the latest period first, leaving out those `tried` in
/// this pass already.
pub fn next(conn: &Connection, tried: &[i64]) -> Result<Option<Due>> {
    let mut stmt = conn.prepare_cached(REFLECTIONS_NEXT.sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        if tried.contains(&id) {
            continue;
        }
        return Ok(Some(Due {
            id,
            user: row.get(1)?,
            period: Period::parse(&row.get::<_, String>(2)?)?,
            first_day: day(row, 3)?,
            last_day: day(row, 4)?,
            revision: row.get(5)?,
        }));
    }
    Ok(None)
}

/// Writes a reflection's sentences by `model`; false (nothing written) when its period
/// changed since it was read, and it stays queued for the period as it is now.
pub fn write(conn: &Connection, due: &Due, sentences: &[Sentence], model: &str) -> Result<bool> {
    let json = serde_json::to_string(sentences).expect("sentences serialise");
    let changed = conn.prepare_cached(REFLECTIONS_WRITE.sql)?.execute(params![
        due.id,
        due.revision,
        json,
        model,
        clock::now_utc()
    ])?;
    Ok(changed == 1)
}

/// Spends an attempt of reflection `id`; `reason` says why, never with entry text.
pub fn record_failure(conn: &Connection, id: i64, reason: &str) -> Result<()> {
    conn.prepare_cached(REFLECTIONS_FAILED.sql)?
        .execute(params![id, reason, MAX_REFLECTION_ATTEMPTS])?;
    Ok(())
}

/// The latest `limit` reflections, written or not, latest period first.
pub fn recent(conn: &Connection, user: UserId, limit: u32) -> Result<Vec<Reflection>> {
    let mut stmt = conn.prepare_cached(REFLECTIONS_RECENT.sql)?;
    let rows = stmt
        .query_map(params![user, limit], reflection)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The written reflections on weeks and months that lie from `from` to `to` (either
/// open), latest first: what a question about a period reads besides its entries.
pub fn within(
    conn: &Connection,
    user: UserId,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    limit: u32,
) -> Result<Vec<Reflection>> {
    let from = from.map(clock::format_date).unwrap_or_default();
    let to = to.map_or_else(|| "9999".to_owned(), clock::format_date);
    let mut stmt = conn.prepare_cached(REFLECTIONS_WITHIN.sql)?;
    let rows = stmt
        .query_map(params![user, from, to, limit], reflection)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

fn reflection(row: &rusqlite::Row<'_>) -> rusqlite::Result<Reflection> {
    let sentences: String = row.get(5)?;
    Ok(Reflection {
        id: row.get(0)?,
        period: Period::parse(&row.get::<_, String>(1)?)?,
        first_day: day(row, 2)?,
        last_day: day(row, 3)?,
        state: match row.get::<_, String>(4)?.as_str() {
            "done" => State::Done,
            "failed" => State::Failed,
            _ => State::Pending,
        },
        // Written by `write` alone; unreadable JSON would be a bug, shown as none.
        sentences: serde_json::from_str(&sentences).unwrap_or_default(),
        made_at: row.get(6)?,
    })
}

/// The reflection of the last week that ended before `today`, once written: "Last
/// week, in short" on today's page.
pub fn last_week(conn: &Connection, user: UserId, today: NaiveDate) -> Result<Option<Reflection>> {
    let sunday = today - chrono::Days::new(u64::from(today.weekday().number_from_monday()));
    Ok(recent(conn, user, 2)?
        .into_iter()
        .find(|r| r.period == Period::Week && r.last_day == sunday && !r.sentences.is_empty()))
}

fn day(row: &rusqlite::Row<'_>, column: usize) -> rusqlite::Result<NaiveDate> {
    let text: String = row.get(column)?;
    clock::parse_date(&text).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(column, format!("day {text:?}"), rusqlite::types::Type::Text)
    })
}
