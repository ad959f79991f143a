//! Journal entries: the list pages, one entry, and every write.
//!
//! Each function runs one catalogue statement (or one transaction of them) and records
//! its time under the catalogue name. Writes take `&mut Connection` because they run in
//! a transaction; in the app they run on the writer thread.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveTime};
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::jobs::{self, JobKind};
use super::queries::*;
use super::{Checkpoint, DbError, EntryId, Result, UserId};
use super::{history, reflections};
use crate::clock;
use crate::timing;

/// Rows per list page. A screenful is about twenty rows; fifty leaves room to scroll
/// while the next page loads.
pub const PAGE_SIZE: u32 = 50;

/// Characters of the body kept in `preview` for list rows.
const PREVIEW_CHARS: usize = 160;

/// Longest tag name kept; longer ones are cut.
const MAX_TAG_CHARS: usize = 48;

/// One row of a list: what a list shows without reading the body.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EntryRow {
    pub id: EntryId,
    pub created_at: String,
    /// Seconds east of UTC where it was written; with `created_at`, its lived date and
    /// time ([`EntryRow::lived`]).
    #[serde(default)]
    pub utc_offset: i32,
    pub title: String,
    pub preview: String,
    pub mood_score: Option<u8>,
    pub word_count: u32,
    pub is_deleted: bool,
    pub deleted_at: Option<String>,
    pub tags: Vec<String>,
}

/// A whole entry.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub id: EntryId,
    pub created_at: String,
    /// Seconds east of UTC where it was written ([`Entry::lived`]).
    #[serde(default)]
    pub utc_offset: i32,
    pub updated_at: String,
    pub title: String,
    /// True when a person typed the title (AI enrichment never replaces it).
    pub title_by_user: bool,
    pub body: String,
    pub mood_score: Option<u8>,
    pub summary: Option<String>,
    pub word_count: u32,
    pub is_deleted: bool,
    pub deleted_at: Option<String>,
    pub tags: Vec<String>,
    /// Counts the saves that changed the title, body or tags. The model's work is
    /// written back only if it is unchanged since the work read the entry.
    pub revision: i64,
    /// The local model's mood for the entry, a suggestion until the person accepts it
    /// (into `mood_score`) or dismisses it.
    #[serde(default)]
    pub suggested_mood: Option<u8>,
    /// The local model's tags for the entry, suggestions likewise (accepted into `tags`).
    #[serde(default)]
    pub suggested_tags: Vec<String>,
}

impl EntryRow {
    /// The local date and time it was lived where it was written ([`clock::lived`]).
    pub fn lived(&self) -> Option<DateTime<FixedOffset>> {
        clock::lived(&self.created_at, self.utc_offset)
    }
}

impl Entry {
    /// The local date and time it was lived where it was written ([`clock::lived`]).
    pub fn lived(&self) -> Option<DateTime<FixedOffset>> {
        clock::lived(&self.created_at, self.utc_offset)
    }

    /// Whether the entry holds nothing but white space: it gets no model work.
    pub fn is_blank(&self) -> bool {
        self.title.trim().is_empty() && self.body.trim().is_empty()
    }
}

/// One of the local model's suggestions for an entry, which the person can dismiss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suggestion {
    /// The model's title (while the person has typed none).
    Title,
    Mood,
    /// One suggested tag, by name.
    Tag(String),
}

impl Suggestion {
    /// How a dismissal is remembered (`dismissed_suggestions`): tags by lower-case name,
    /// as tag names compare.
    fn key(&self) -> String {
        match self {
            Suggestion::Title => "title".to_owned(),
            Suggestion::Mood => "mood".to_owned(),
            Suggestion::Tag(name) => format!("tag:{}", name.to_lowercase()),
        }
    }
}

/// The keys of the suggestions the person dismissed for entry `id` ([`Suggestion::key`]).
fn dismissed(conn: &Connection, user: UserId, id: EntryId) -> Result<std::collections::HashSet<String>> {
    let joined: Option<String> = conn
        .prepare_cached(SUGGESTION_DISMISSED.sql)?
        .query_row(params![user, id], |row| row.get(0))
        .optional()?;
    Ok(split_tags(joined).into_iter().collect())
}

/// What a person writes. Fields left empty are simply empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewEntry {
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub mood_score: Option<u8>,
    /// When the entry was written, at the UTC offset where it was written (the day and
    /// time it was lived); now on this computer if `None`. Importers, the demo and a
    /// recording that waited for its transcription set it.
    pub created_at: Option<DateTime<FixedOffset>>,
}

/// The editable parts of an entry after an edit (the editor always sends them all).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntryEdit {
    pub title: String,
    pub body: String,
    pub tags: Vec<String>,
    pub mood_score: Option<u8>,
}

/// Which entries a list shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListFilter {
    /// Only entries with this tag.
    pub tag: Option<String>,
    /// Only entries lived on or after this day (where each was written).
    pub from: Option<NaiveDate>,
    /// Only entries lived on or before this day (where each was written).
    pub to: Option<NaiveDate>,
    /// The trash instead of the journal (tag and date filters do not apply).
    pub trash: bool,
}

impl ListFilter {
    /// The live entries lived on `day`.
    pub fn on(day: NaiveDate) -> ListFilter {
        ListFilter {
            from: Some(day),
            to: Some(day),
            ..ListFilter::default()
        }
    }
}

/// Where the next page starts: the sort key and id of the last row shown.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cursor {
    pub key: String,
    pub id: EntryId,
}

/// A page of rows and the cursor for the next one (`None` at the end).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Page {
    pub rows: Vec<EntryRow>,
    pub next: Option<Cursor>,
}

/// Upper bound above every stored timestamp: an "after" cursor that starts at the top.
const TOP: &str = "9999";

/// One page of entries, newest first.
pub fn list(
    conn: &Connection,
    user: UserId,
    filter: &ListFilter,
    after: Option<&Cursor>,
    limit: u32,
) -> Result<Page> {
    let limit = limit.max(1);
    if filter.trash {
        return list_trash(conn, user, after, limit);
    }
    let days = LivedDays::of(filter);
    let from = days.earliest.as_deref().unwrap_or("");
    // The "to" bound and the cursor are both "before this row": use whichever is lower.
    let to_cursor = days.latest.as_ref().map(|to| Cursor {
        key: to.clone(),
        id: 0,
    });
    let upper = match (after, to_cursor.as_ref()) {
        (Some(a), Some(t)) => Some(if (a.key.as_str(), a.id) < (t.key.as_str(), t.id) {
            a
        } else {
            t
        }),
        (a, t) => a.or(t),
    };
    let (upper_key, upper_id) = upper.map_or((TOP, i64::MAX), |c| (c.key.as_str(), c.id));
    let rows = if let Some(tag) = &filter.tag {
        run_list(
            conn,
            &LIST_BY_TAG,
            params![user, tag, from, upper_key, upper_id, limit, days.first, days.last],
        )?
    } else if filter.from.is_some() || filter.to.is_some() {
        run_list(
            conn,
            &LIST_BY_DATE_RANGE,
            params![user, from, upper_key, upper_id, limit, days.first, days.last],
        )?
    } else if upper.is_none() {
        run_list(conn, &LIST_PAGE1, params![user, limit])?
    } else {
        run_list(conn, &LIST_PAGE_N, params![user, upper_key, upper_id, limit])?
    };
    Ok(page_of(rows, limit, |row| row.created_at.clone()))
}

/// A filter's days as a list statement takes them: the days themselves, compared with
/// each entry's `local_date` (the day it was lived where it was written), and the
/// `created_at` range that holds every instant lived on them anywhere, which keeps the
/// walk along the list index short. No UTC offset reaches a day, so a day either side
/// of the days in UTC holds them all.
struct LivedDays {
    /// The first day, `YYYY-MM-DD`, or "" for none.
    first: String,
    /// The last day, or one after every stored day for none.
    last: String,
    /// The earliest `created_at` lived on the first day anywhere (inclusive).
    earliest: Option<String>,
    /// The latest `created_at` lived on the last day anywhere (exclusive).
    latest: Option<String>,
}

impl LivedDays {
    fn of(filter: &ListFilter) -> LivedDays {
        let bound = |day: NaiveDate, days: i64| {
            day.checked_add_signed(Duration::days(days))
                .map(|d| clock::format_utc(d.and_time(NaiveTime::MIN).and_utc()))
        };
        LivedDays {
            first: filter.from.map(clock::format_date).unwrap_or_default(),
            last: filter.to.map_or_else(|| TOP.to_owned(), clock::format_date),
            earliest: filter.from.and_then(|d| bound(d, -1)),
            latest: filter.to.and_then(|d| bound(d, 2)),
        }
    }
}

fn list_trash(conn: &Connection, user: UserId, after: Option<&Cursor>, limit: u32) -> Result<Page> {
    let (key, id) = after.map_or((TOP, i64::MAX), |c| (c.key.as_str(), c.id));
    let rows = run_list(conn, &LIST_TRASH, params![user, key, id, limit])?;
    // The trash is ordered by deletion time, so its cursor carries that.
    Ok(page_of(rows, limit, |row| {
        row.deleted_at.clone().unwrap_or_default()
    }))
}

fn run_list(conn: &Connection, query: &NamedQuery, params: impl rusqlite::Params) -> Result<Vec<EntryRow>> {
    timing::timed(query.name, || {
        let mut stmt = conn.prepare_cached(query.sql)?;
        let rows = stmt
            .query_map(params, entry_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })
}

fn page_of(rows: Vec<EntryRow>, limit: u32, key: impl Fn(&EntryRow) -> String) -> Page {
    let next = (rows.len() as u32 == limit)
        .then(|| rows.last())
        .flatten()
        .map(|last| Cursor {
            key: key(last),
            id: last.id,
        });
    Page { rows, next }
}

pub(crate) fn entry_row(row: &Row<'_>) -> rusqlite::Result<EntryRow> {
    Ok(EntryRow {
        id: row.get(0)?,
        created_at: row.get(1)?,
        title: row.get(2)?,
        preview: row.get(3)?,
        mood_score: row.get(4)?,
        word_count: row.get(5)?,
        is_deleted: row.get(6)?,
        deleted_at: row.get(7)?,
        tags: split_tags(row.get(8)?),
        utc_offset: row.get(9)?,
    })
}

/// Tags arrive joined by the unit separator (which no tag can contain); sorted for
/// display case-insensitively, comparing lowercase characters without allocating (this
/// runs for every row of every page).
fn split_tags(joined: Option<String>) -> Vec<String> {
    let mut tags: Vec<String> = joined
        .map(|j| {
            j.split('\u{1f}')
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    tags.sort_by(|a, b| {
        a.chars()
            .flat_map(char::to_lowercase)
            .cmp(b.chars().flat_map(char::to_lowercase))
    });
    tags
}

/// How many live entries the user has.
pub fn count(conn: &Connection, user: UserId) -> Result<u64> {
    timing::timed(LIST_COUNT.name, || {
        let n: i64 = conn
            .prepare_cached(LIST_COUNT.sql)?
            .query_row(params![user], |row| row.get(0))?;
        Ok(n.max(0) as u64)
    })
}

/// The newest live entry lived on `day` (where it was written), whole: the entry a
/// day's page opens on. One row of the date-range list, so it costs what that costs.
pub fn newest_on(conn: &Connection, user: UserId, day: NaiveDate) -> Result<Option<Entry>> {
    match list(conn, user, &ListFilter::on(day), None, 1)?.rows.first() {
        Some(row) => get(conn, user, row.id).map(Some),
        None => Ok(None),
    }
}

/// A live entry lived before `day`, chosen at random ("show me an older entry"); `None`
/// when there is none. Ids are drawn evenly and the next such entry taken, so entries
/// after a long gap in the ids come up more often: a person cannot tell, and it costs
/// two lookups by the key instead of counting the journal.
pub fn random_older(conn: &Connection, user: UserId, day: NaiveDate) -> Result<Option<EntryId>> {
    let (low, high): (Option<EntryId>, Option<EntryId>) =
        conn.query_row(ENTRY_ID_RANGE.sql, [], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let (Some(low), Some(high)) = (low, high) else {
        return Ok(None);
    };
    let from = rand::Rng::random_range(&mut rand::rng(), low..=high);
    let day = clock::format_date(day);
    for query in [&ENTRY_OLDER_FROM, &ENTRY_OLDER_BELOW] {
        let found = conn
            .prepare_cached(query.sql)?
            .query_row(params![user, day, from], |row| row.get(0))
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// The list rows of the live entries among `ids`, in their order (trashed and purged
/// ones left out).
pub fn rows_of(conn: &Connection, user: UserId, ids: &[EntryId]) -> Result<Vec<EntryRow>> {
    let mut stmt = conn.prepare_cached(ENTRY_ROW.sql)?;
    let mut rows = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Some(row) = stmt.query_row(params![user, id], entry_row).optional()? {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// One whole entry, trashed or not.
pub fn get(conn: &Connection, user: UserId, id: EntryId) -> Result<Entry> {
    timing::timed(ENTRY_GET.name, || {
        conn.prepare_cached(ENTRY_GET.sql)?
            .query_row(params![user, id], |row| {
                Ok(Entry {
                    id: row.get(0)?,
                    created_at: row.get(1)?,
                    updated_at: row.get(2)?,
                    title: row.get(3)?,
                    title_by_user: row.get(4)?,
                    body: row.get(5)?,
                    mood_score: row.get(6)?,
                    summary: row.get(7)?,
                    word_count: row.get(8)?,
                    is_deleted: row.get(9)?,
                    deleted_at: row.get(10)?,
                    tags: split_tags(row.get(11)?),
                    revision: row.get(12)?,
                    suggested_mood: row.get(13)?,
                    suggested_tags: split_tags(row.get(14)?),
                    utc_offset: row.get(15)?,
                })
            })
            .optional()?
            .ok_or(DbError::EntryNotFound(id))
    })
}

/// What the model's work on a live entry is checked against before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveState {
    pub created_at: String,
    /// Counts the saves that changed the entry's text ([`Entry::revision`]).
    pub revision: i64,
}

/// A live entry's creation time and revision; `None` when it is trashed or gone.
pub fn live_state(conn: &Connection, user: UserId, id: EntryId) -> Result<Option<LiveState>> {
    Ok(conn
        .prepare_cached(ENTRY_LIVE_STATE.sql)?
        .query_row(params![user, id], |row| {
            Ok(LiveState {
                created_at: row.get(0)?,
                revision: row.get(1)?,
            })
        })
        .optional()?)
}

/// Writes the model's title (unless the person typed one), summary, and its mood and
/// tags as suggestions beside the person's own, leaving out what the person dismissed
/// for this entry before; the caller reindexes it for search.
pub(crate) fn write_enrichment(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    title: &str,
    mood_score: u8,
    tags: &[String],
    summary: &str,
) -> Result<()> {
    let dismissed = dismissed(conn, user, id)?;
    let offered = |s: &Suggestion| !dismissed.contains(&s.key());
    let title = if offered(&Suggestion::Title) { title } else { "" };
    let mood = offered(&Suggestion::Mood).then_some(mood_score);
    let tags: Vec<String> = normalise_tags(tags)
        .into_iter()
        .filter(|tag| offered(&Suggestion::Tag(tag.clone())))
        .collect();
    conn.prepare_cached(ENRICH_WRITE.sql)?.execute(params![
        id,
        user,
        title,
        mood,
        summary,
        tags.join("\u{1f}")
    ])?;
    Ok(())
}

/// Drops one of the model's suggestions for an entry, as the person asked, and remembers
/// it: the model's later passes over the entry (after an edit) do not offer it again. A
/// dismissed title leaves the entry untitled (and is taken out of its search row).
pub fn dismiss_suggestion(
    conn: &mut Connection,
    user: UserId,
    id: EntryId,
    which: &Suggestion,
) -> Result<()> {
    let tx = conn.transaction()?;
    if !dismissed(&tx, user, id)?.contains(&which.key()) {
        tx.prepare_cached(SUGGESTION_REMEMBER_DISMISSED.sql)?
            .execute(params![user, id, which.key()])?;
    }
    match which {
        Suggestion::Title => {
            let changed = tx
                .prepare_cached(SUGGESTION_DISMISS_TITLE.sql)?
                .execute(params![user, id])?;
            if changed > 0 && entry_state(&tx, user, id)?.is_some_and(|(_, trashed)| !trashed) {
                reindex_for_search(&tx, id)?;
            }
        }
        Suggestion::Mood => {
            tx.prepare_cached(SUGGESTION_DISMISS_MOOD.sql)?
                .execute(params![user, id])?;
        }
        Suggestion::Tag(name) => {
            let kept: Option<String> = tx
                .prepare_cached(SUGGESTION_TAGS.sql)?
                .query_row(params![user, id], |row| row.get(0))
                .optional()?;
            let kept: Vec<String> = split_tags(kept)
                .into_iter()
                .filter(|tag| !tag.eq_ignore_ascii_case(name))
                .collect();
            tx.prepare_cached(SUGGESTION_SET_TAGS.sql)?
                .execute(params![user, id, kept.join("\u{1f}")])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Carries over what the model wrote about an entry (and whether its title was typed)
/// from MindSage's own export, inside the importer's transaction.
pub fn keep_model_work(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    title_by_user: bool,
    summary: Option<&str>,
) -> Result<()> {
    conn.prepare_cached(IMPORT_MODEL_WORK.sql)?
        .execute(params![user, id, title_by_user, summary])?;
    Ok(())
}

/// Every tag name the user has, alphabetically.
///
/// Tests only (the tags the file holds, read back).
#[doc(hidden)]
pub fn all_tags(conn: &Connection, user: UserId) -> Result<Vec<String>> {
    timing::timed(TAGS_ALL.name, || {
        let mut stmt = conn.prepare_cached(TAGS_ALL.sql)?;
        let names = stmt
            .query_map(params![user], |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(names)
    })
}

/// Saves a new entry and queues the model's work for it in the same transaction;
/// returns its id.
pub fn create(conn: &mut Connection, user: UserId, entry: &NewEntry) -> Result<EntryId> {
    validate_mood(entry.mood_score)?;
    timing::timed(WRITE_CREATE.name, || {
        let tx = conn.transaction()?;
        let id = insert_entry(&tx, user, entry)?;
        jobs::enqueue_all(&tx, user, id)?;
        tx.commit()?;
        Ok(id)
    })
}

/// Inserts without its own transaction and without queuing the model's work: for
/// callers that batch many entries into one (the demo generator, importers). The job
/// runner finds such entries when it starts (`ai::runner`), so their work is queued in one
/// statement instead of two inserts per entry.
pub fn insert_entry(conn: &Connection, user: UserId, entry: &NewEntry) -> Result<EntryId> {
    let row = NewRow::of(entry);
    let id = insert_unindexed(conn, user, entry, &row, &mut TagIds::default())?;
    index_for_search(conn, id, entry.title.trim(), &entry.body, &row.tags)?;
    reflections::days_written(conn, user, &row.local_date, &row.local_date)?;
    Ok(id)
}

/// What an entry's row holds beside its text, worked out from the entry alone (no
/// database): an importer works it out on another thread while the last batch is
/// written.
#[derive(Debug, Clone)]
pub struct NewRow {
    created_at: String,
    utc_offset: i32,
    /// The day it was lived, as stored (`YYYY-MM-DD`).
    pub local_date: String,
    /// The tags as stored (see [`normalise_tags`]), for [`index_for_search`] too.
    pub tags: Vec<String>,
    word_count: u32,
    preview: String,
}

impl NewRow {
    /// The row of `entry`: its instant, offset and day from the one lived date and time
    /// it was written at (now on this computer when it has none).
    pub fn of(entry: &NewEntry) -> NewRow {
        let lived = entry.created_at.unwrap_or_else(clock::now_here);
        NewRow {
            created_at: clock::format_utc(lived.to_utc()),
            utc_offset: clock::utc_offset_of(&lived),
            local_date: clock::format_date(lived.date_naive()),
            tags: normalise_tags(&entry.tags),
            word_count: word_count(&entry.body),
            preview: preview_of(&entry.body),
        }
    }
}

/// [`insert_entry`] without the entry's full-text row, for [`index_for_search`], and
/// without marking its week's and month's reflections ([`reflections::days_written`]),
/// both of which the caller must do before its transaction ends (the importer does them
/// for a whole batch together). `tags` are the tags this transaction has already found or
/// made.
pub fn insert_unindexed(
    conn: &Connection,
    user: UserId,
    entry: &NewEntry,
    row: &NewRow,
    tags: &mut TagIds,
) -> Result<EntryId> {
    validate_mood(entry.mood_score)?;
    let title = entry.title.trim();
    // The row is written once, with its list row's tag names (in tag id order, as
    // `WRITE_TAG_NAMES` stores them), rather than written and then updated.
    let mut found = tags.find_or_make(conn, user, &row.tags)?;
    found.sort_unstable();
    found.dedup_by_key(|(id, _)| *id);
    let tag_names: Vec<&str> = found.iter().map(|(_, name)| name.as_str()).collect();
    conn.prepare_cached(WRITE_CREATE.sql)?.execute(params![
        user,
        row.created_at,
        row.local_date,
        title,
        !title.is_empty(),
        entry.mood_score,
        row.word_count,
        row.preview,
        entry.body,
        tag_names.join("\u{1f}"),
        row.utc_offset,
    ])?;
    let id = conn.last_insert_rowid();
    for (tag_id, _) in &found {
        conn.prepare_cached(WRITE_TAG_LINK.sql)?
            .execute(params![id, tag_id, row.created_at])?;
    }
    Ok(id)
}

/// Tags found or made in the caller's transaction, by name as the tags table compares
/// names (ASCII case folded, `COLLATE NOCASE`): a writer that saves many entries in one
/// transaction (an import's batch) looks each tag up once, not once per entry. Keep one
/// no longer than its transaction: a rollback takes back the tags it made.
#[derive(Debug, Default)]
pub struct TagIds(std::collections::HashMap<String, (i64, String)>);

impl TagIds {
    /// Each name's tag id and stored spelling (the first one saved), making missing tags.
    fn find_or_make(
        &mut self,
        conn: &Connection,
        user: UserId,
        names: &[String],
    ) -> Result<Vec<(i64, String)>> {
        let mut found = Vec::with_capacity(names.len());
        for name in names {
            let key = name.to_ascii_lowercase();
            if let Some(tag) = self.0.get(&key) {
                found.push(tag.clone());
                continue;
            }
            conn.prepare_cached(WRITE_TAG_UPSERT.sql)?
                .execute(params![user, name])?;
            let tag: (i64, String) = conn
                .prepare_cached(WRITE_TAG_ID.sql)?
                .query_row(params![user, name], |row| Ok((row.get(0)?, row.get(1)?)))?;
            self.0.insert(key, tag.clone());
            found.push(tag);
        }
        Ok(found)
    }
}

/// Writes an entry's full-text row: once per save, after its tags are known (version 3
/// of the schema rewrote the row per tag link by trigger, which made saves slow).
pub fn index_for_search(
    conn: &Connection,
    id: EntryId,
    title: &str,
    body: &str,
    tags: &[String],
) -> Result<()> {
    index_text(conn, id, title, body, &tags.join(" "))
}

/// Writes an entry's full-text row, unspaced scripts as the index takes them
/// ([`crate::scripts`]).
fn index_text(conn: &Connection, id: EntryId, title: &str, body: &str, tags: &str) -> Result<()> {
    use crate::scripts::for_index;
    conn.prepare_cached(SEARCH_INDEX_INSERT.sql)?.execute(params![
        id,
        for_index(title),
        for_index(body),
        for_index(tags)
    ])?;
    Ok(())
}

/// Replaces an entry's title, body, tags and mood. An empty title leaves a title the
/// model wrote in place (the editor shows it as a suggestion, not as typed text). A save
/// that changes the title, body or tags of a live entry bumps its revision and queues
/// the model's work again in the same transaction; a mood change alone does not.
pub fn update(conn: &mut Connection, user: UserId, id: EntryId, edit: &EntryEdit) -> Result<()> {
    update_keeping(conn, user, id, edit, false)
}

/// [`update`] of an entry that another program changed while the person edited it here:
/// the text replaced is kept as a version however recently one was kept, so the other
/// program's edit stays in the entry's history.
pub fn update_over_other(conn: &mut Connection, user: UserId, id: EntryId, edit: &EntryEdit) -> Result<()> {
    update_keeping(conn, user, id, edit, true)
}

fn update_keeping(
    conn: &mut Connection,
    user: UserId,
    id: EntryId,
    edit: &EntryEdit,
    keep: bool,
) -> Result<()> {
    timing::timed(WRITE_UPDATE.name, || {
        let tx = conn.transaction()?;
        update_in(&tx, user, id, edit, keep)?;
        tx.commit()?;
        Ok(())
    })
}

/// Brings version `version` of entry `id` back: the current text is kept as a version
/// first, then the entry is saved with the version's title, body and tags (its mood
/// stays), as the editor saves it.
pub fn bring_back(conn: &mut Connection, user: UserId, id: EntryId, version: i64) -> Result<()> {
    let tx = conn.transaction()?;
    let old = history::version(&tx, id, version)?;
    let current = get(&tx, user, id)?;
    let current_tags = current.tags.join("\u{1f}");
    let kept = history::Kept {
        written_at: &current.updated_at,
        title: &current.title,
        body: &current.body,
        tag_names: &current_tags,
    };
    history::keep(&tx, user, id, &kept, true)?;
    let edit = EntryEdit {
        title: old.title,
        body: old.body,
        tags: old.tags,
        mood_score: current.mood_score,
    };
    update_in(&tx, user, id, &edit, false)?;
    tx.commit()?;
    Ok(())
}

/// [`update`] in the caller's transaction; `keep` keeps the replaced text as a version
/// even within the history's session gap.
pub(crate) fn update_in(
    tx: &Connection,
    user: UserId,
    id: EntryId,
    edit: &EntryEdit,
    keep: bool,
) -> Result<()> {
    validate_mood(edit.mood_score)?;
    let (created_at, trashed) = entry_state(tx, user, id)?.ok_or(DbError::EntryNotFound(id))?;
    let old = stored_text(tx, id)?;
    // A title typed (or the model's accepted: the editor then sends it as typed) is the
    // person's; an empty one leaves the model's in place, or clears the person's.
    let typed = edit.title.trim();
    let (title, title_by_user) = if typed.is_empty() && !old.title_by_user {
        (old.title.as_str(), false)
    } else {
        (typed, !typed.is_empty())
    };
    let tags_changed =
        tag_set(&normalise_tags(&edit.tags)) != tag_set(&split_tags(Some(old.tag_names.clone())));
    let text_changed = title != old.title || edit.body != old.body || tags_changed;
    if text_changed {
        let kept = history::Kept {
            written_at: &old.updated_at,
            title: &old.title,
            body: &old.body,
            tag_names: &old.tag_names,
        };
        history::keep(tx, user, id, &kept, keep)?;
    }
    tx.prepare_cached(WRITE_UPDATE.sql)?.execute(params![
        user,
        id,
        clock::now_utc(),
        title,
        title_by_user,
        edit.mood_score,
        word_count(&edit.body),
        preview_of(&edit.body),
        edit.body,
        i64::from(text_changed),
    ])?;
    let dropped = unlink_tags(tx, id)?;
    let tags = link_tags(tx, user, id, &created_at, &edit.tags)?;
    drop_unused_tags(tx, &dropped)?;
    // A trashed entry has no full-text row; restoring writes it again.
    if !trashed {
        tx.prepare_cached(SEARCH_INDEX_DELETE.sql)?.execute(params![id])?;
        index_for_search(tx, id, title, &edit.body, &tags)?;
        if text_changed {
            jobs::enqueue_all(tx, user, id)?;
        }
    }
    Ok(())
}

/// Dates entry `id` at `lived`: the date and time it belongs to, at the offset of the
/// place it was written (an entry written after midnight about the day before belongs to
/// that day). Its day's totals, its tags' order and the lists follow; its text and
/// history do not change. A time still to come is refused: the journal is of days lived.
pub fn redate(conn: &Connection, user: UserId, id: EntryId, lived: DateTime<FixedOffset>) -> Result<()> {
    if lived.to_utc() > chrono::Utc::now() {
        return Err(DbError::Invalid(
            "that date and time are still to come: an entry can be dated now or earlier".to_owned(),
        ));
    }
    // One statement: its triggers (the day's totals, the tags' copy) are part of it.
    let changed = conn.prepare_cached(WRITE_REDATE.sql)?.execute(params![
        user,
        id,
        clock::format_utc(lived.to_utc()),
        clock::utc_offset_of(&lived),
        clock::format_date(lived.date_naive()),
        clock::now_utc(),
    ])?;
    if changed == 0 {
        return Err(DbError::EntryNotFound(id));
    }
    Ok(())
}

/// An entry's text as stored, before an edit replaces it.
struct StoredText {
    title: String,
    title_by_user: bool,
    body: String,
    tag_names: String,
    updated_at: String,
}

fn stored_text(conn: &Connection, id: EntryId) -> Result<StoredText> {
    Ok(conn
        .prepare_cached(ENTRY_TEXT.sql)?
        .query_row(params![id], |row| {
            Ok(StoredText {
                title: row.get(0)?,
                title_by_user: row.get(1)?,
                body: row.get(2)?,
                tag_names: row.get(3)?,
                updated_at: row.get(4)?,
            })
        })?)
}

/// Tags as compared for "did the text change": case-insensitive, order-free.
fn tag_set(tags: &[String]) -> std::collections::BTreeSet<String> {
    tags.iter().map(|t| t.to_lowercase()).collect()
}

/// Moves an entry to the trash. Trashing an entry already in the trash is a no-op.
/// Its vectors go in the same transaction (the full-text row goes by trigger), so
/// search never finds trashed entries.
pub fn soft_delete(conn: &mut Connection, user: UserId, id: EntryId) -> Result<()> {
    set_trashed(conn, user, id, &WRITE_SOFT_DELETE, |tx| {
        super::vectors::delete_vectors_of(tx, user, id)
    })
}

/// Brings an entry back from the trash, with its full-text row, and queues its
/// embedding again (trashing removed both).
pub fn restore(conn: &mut Connection, user: UserId, id: EntryId) -> Result<()> {
    set_trashed(conn, user, id, &WRITE_RESTORE, |tx| {
        reindex_for_search(tx, id)?;
        jobs::enqueue(tx, user, id, JobKind::Embed)
    })
}

fn set_trashed(
    conn: &mut Connection,
    user: UserId,
    id: EntryId,
    query: &NamedQuery,
    also: impl FnOnce(&Connection) -> Result<()>,
) -> Result<()> {
    timing::timed(query.name, || {
        let tx = conn.transaction()?;
        let changed = tx
            .prepare_cached(query.sql)?
            .execute(params![user, id, clock::now_utc()])?;
        if changed == 0 {
            if entry_state(&tx, user, id)?.is_none() {
                return Err(DbError::EntryNotFound(id));
            }
            return Ok(());
        }
        also(&tx)?;
        tx.commit()?;
        Ok(())
    })
}

/// The entry's creation time and whether it is trashed, or `None` when the user has
/// no such entry.
fn entry_state(conn: &Connection, user: UserId, id: EntryId) -> Result<Option<(String, bool)>> {
    Ok(conn
        .prepare_cached(ENTRY_EXISTS.sql)?
        .query_row(params![user, id], |row| Ok((row.get(0)?, row.get(1)?)))
        .optional()?)
}

/// What a purge achieved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PurgeReport {
    /// True when the -wal file was emptied too, so no copy of the text is left in any
    /// file. False when a reader held it back; the writer retries when idle.
    pub wal_cleared: bool,
}

/// How long a purge waits for readers before leaving the WAL for the idle checkpoint.
const PURGE_CHECKPOINT_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

/// Erases an entry for good: its row, FTS terms, tags nobody else uses, media and AI
/// jobs, with secure_delete zeroing the freed bytes, then a truncating checkpoint so the
/// text leaves the -wal file as well.
pub fn purge(
    conn: &mut Connection,
    user: UserId,
    id: EntryId,
    busy_timeout: std::time::Duration,
) -> Result<PurgeReport> {
    timing::timed(WRITE_PURGE.name, || {
        let tx = conn.transaction()?;
        if entry_state(&tx, user, id)?.is_none() {
            return Err(DbError::EntryNotFound(id));
        }
        let tags = unlink_tags(&tx, id)?;
        super::vectors::delete_vectors_of(&tx, user, id)?;
        tx.prepare_cached(WRITE_PURGE.sql)?.execute(params![user, id])?;
        drop_unused_tags(&tx, &tags)?;
        tx.commit()?;
        let wal_cleared = super::checkpoint(conn, Checkpoint::Truncate, PURGE_CHECKPOINT_WAIT, busy_timeout)?;
        Ok(PurgeReport { wal_cleared })
    })
}

/// Rewrites an entry's full-text row from what is stored: for writers outside this
/// module (enrichment's title and mood tags) that change an entry's text or tags.
pub(crate) fn reindex_for_search(conn: &Connection, id: EntryId) -> Result<()> {
    conn.prepare_cached(SEARCH_INDEX_DELETE.sql)?
        .execute(params![id])?;
    let source: Option<(String, String, String)> = conn
        .prepare_cached(SEARCH_INDEX_SOURCE.sql)?
        .query_row(params![id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .optional()?;
    if let Some((title, body, tags)) = source {
        index_text(conn, id, &title, &body, &tags)?;
    }
    Ok(())
}

/// Links the entry to its tags (creating new ones), copies the entry's tag names into its
/// row for list pages, and returns the names linked.
pub(crate) fn link_tags(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    created_at: &str,
    tags: &[String],
) -> Result<Vec<String>> {
    let names = normalise_tags(tags);
    for (tag_id, _) in TagIds::default().find_or_make(conn, user, &names)? {
        conn.prepare_cached(WRITE_TAG_LINK.sql)?
            .execute(params![id, tag_id, created_at])?;
    }
    conn.prepare_cached(WRITE_TAG_NAMES.sql)?.execute(params![id])?;
    Ok(names)
}

fn unlink_tags(conn: &Connection, id: EntryId) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached(WRITE_TAGS_CLEAR.sql)?;
    let ids = stmt
        .query_map(params![id], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

fn drop_unused_tags(conn: &Connection, tag_ids: &[i64]) -> Result<()> {
    for tag_id in tag_ids {
        conn.prepare_cached(WRITE_TAG_DROP_UNUSED.sql)?
            .execute(params![tag_id])?;
    }
    Ok(())
}

/// Trims, drops empty ones, cuts overlong ones, and keeps the first spelling of names
/// that differ only in case (tags compare case-insensitively).
pub fn normalise_tags(tags: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    tags.iter()
        .map(|t| t.trim().trim_start_matches('#').trim())
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.chars()
                .filter(|c| !c.is_control())
                .take(MAX_TAG_CHARS)
                .collect::<String>()
        })
        .filter(|t| seen.insert(t.to_lowercase()))
        .collect()
}

pub(crate) fn validate_mood(mood: Option<u8>) -> Result<()> {
    match mood {
        Some(m) if !(1..=10).contains(&m) => Err(DbError::Invalid(format!(
            "mood must be between 1 and 10, got {m}"
        ))),
        _ => Ok(()),
    }
}

/// Words as a person would count them: runs of non-space characters.
pub fn word_count(body: &str) -> u32 {
    body.split_whitespace().count().min(u32::MAX as usize) as u32
}

/// Between a text's lines in its one-line preview.
pub const LINE_BREAK: &str = " · ";

/// The start of the body on one line, for list rows: its words as written, its lines
/// apart with [`LINE_BREAK`], so a heading and the list under it do not run together.
pub fn preview_of(body: &str) -> String {
    let mut out = String::with_capacity(PREVIEW_CHARS + 4);
    // Characters in `out` so far, counted once rather than again for every word.
    let mut chars = 0;
    for line in body.lines() {
        for (i, word) in line.split_whitespace().enumerate() {
            let gap = match (chars, i) {
                (0, _) => "",
                (_, 0) => LINE_BREAK,
                _ => " ",
            };
            let gap_chars = gap.chars().count();
            let word_chars = word.chars().count();
            if chars + gap_chars + word_chars > PREVIEW_CHARS {
                if chars == 0 {
                    out.extend(word.chars().take(PREVIEW_CHARS));
                }
                out.push('…');
                return out;
            }
            out.push_str(gap);
            out.push_str(word);
            chars += gap_chars + word_chars;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_is_one_line_and_bounded() {
        assert_eq!(preview_of("  hello\n\nworld  "), "hello · world");
        assert_eq!(
            preview_of("# Three good things\n\n1. Tea\n2. A long  walk\r\n"),
            "# Three good things · 1. Tea · 2. A long walk"
        );
        let long = "word ".repeat(200);
        let p = preview_of(&long);
        assert!(p.chars().count() <= PREVIEW_CHARS + 1);
        assert!(p.ends_with('…'));
        assert_eq!(preview_of(&"x".repeat(500)).chars().count(), PREVIEW_CHARS + 1);
    }

    #[test]
    fn tags_are_trimmed_deduplicated_case_insensitively() {
        let tags = ["  Running ", "#running", "", "work", "WORK", "a\u{1f}b"].map(String::from);
        assert_eq!(normalise_tags(&tags), ["Running", "work", "ab"]);
    }

    #[test]
    fn word_count_counts_runs_of_non_space() {
        assert_eq!(word_count("one two\tthree\n\nfour"), 4);
        assert_eq!(word_count("   "), 0);
    }
}
