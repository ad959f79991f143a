//! Reading a journal after a kill as the app would, and checking it as a whole before
//! its entries are compared with what was acknowledged.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions, vectors};
use rusqlite::Connection;

use super::model::{Entries, EntryState, marker_of};

/// The embedding model the model write-backs store their vectors under.
pub const EMBED_MODEL: &str = "crash-embed";

/// A journal as found: its live entries by marker, and their ids.
#[derive(Debug, Default)]
pub struct Journal {
    pub entries: Entries,
    pub ids: BTreeMap<String, EntryId>,
}

/// Opens the journal with `db::open` (as the app does after a crash: WAL recovery, then
/// any migration a kill interrupted), checks it, and reads its entries. Ends with a
/// truncating checkpoint, so the journal file alone holds everything found: the next
/// process starts from a state no power cut can take back.
pub fn inspect(path: &Path) -> Result<Journal, String> {
    inspect_with(path, &StorageOptions::default())
}

/// [`inspect`] with the journal opened with `options` (an encrypted one's carry its key).
pub fn inspect_with(path: &Path, options: &StorageOptions) -> Result<Journal, String> {
    let conn =
        db::open(path, options).map_err(|e| format!("the journal does not open after the kill: {e}"))?;
    check_file(&conn)?;
    let journal = read_entries(&conn)?;
    check_totals(&conn, journal.entries.len())?;
    let emptied = db::checkpoint(
        &conn,
        db::Checkpoint::Truncate,
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .map_err(|e| e.to_string())?;
    if !emptied {
        return Err("the checkpoint after the check could not complete".into());
    }
    Ok(journal)
}

/// SQLite's integrity check, foreign keys, and FTS5's own check of the search index.
fn check_file(conn: &Connection) -> Result<(), String> {
    let verdicts: Vec<String> = strings(conn, "PRAGMA integrity_check")?;
    if verdicts != ["ok"] {
        return Err(format!("PRAGMA integrity_check: {verdicts:?}"));
    }
    let dangling = strings(conn, "SELECT \"table\" FROM pragma_foreign_key_check")?;
    if !dangling.is_empty() {
        return Err(format!("rows pointing at nothing in {dangling:?}"));
    }
    // `entries_fts` is a regular FTS5 table (migration 0003: it keeps its own copy of
    // the text), so the plain command compares the index with that copy; the
    // `rank = 1` form is for external-content tables, whose content lives elsewhere.
    conn.execute(
        "INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')",
        [],
    )
    .map_err(|e| format!("the full-text index fails its integrity-check: {e}"))?;
    Ok(())
}

fn strings(conn: &Connection, sql: &str) -> Result<Vec<String>, String> {
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map([], |row| row.get(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>());
    rows.map_err(|e| format!("{sql}: {e}"))
}

/// One entry's row and everything that copies it: its tag links, the tag names in its
/// list row, its full-text row, its queued model work, its vector.
struct Row {
    id: EntryId,
    state: EntryState,
    trashed: bool,
    list_tags: BTreeSet<String>,
    fts: Option<(String, String, BTreeSet<String>)>,
    jobs: i64,
    has_vector: bool,
}

const ROWS: &str = "SELECT e.id, e.title, e.title_by_user, e.body, e.mood_score, e.summary, e.is_deleted, \
     e.tag_names, \
     (SELECT group_concat(t.name, char(31)) FROM entry_tags AS et JOIN tags AS t ON t.id = et.tag_id \
      WHERE et.entry_id = e.id), \
     (SELECT count(*) FROM ai_jobs WHERE entry_id = e.id), \
     EXISTS (SELECT 1 FROM imported_entries WHERE entry_id = e.id), \
     f.rowid IS NOT NULL, f.title, f.body, f.tags \
     FROM journal_entries AS e LEFT JOIN entries_fts AS f ON f.rowid = e.id ORDER BY e.id";

fn read_entries(conn: &Connection) -> Result<Journal, String> {
    let model = vectors::model_named(conn, DEFAULT_USER, EMBED_MODEL).map_err(|e| e.to_string())?;
    let mut stmt = conn.prepare(ROWS).map_err(|e| e.to_string())?;
    let rows = stmt
        .query_map([], |row| {
            let split = |text: Option<String>, by: char| -> BTreeSet<String> {
                text.unwrap_or_default()
                    .split(by)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
                    .collect()
            };
            let fts = match row.get::<_, bool>(11)? {
                true => Some((row.get(12)?, row.get(13)?, split(row.get(14)?, ' '))),
                false => None,
            };
            Ok(Row {
                id: row.get(0)?,
                state: EntryState {
                    title: row.get(1)?,
                    title_by_user: row.get(2)?,
                    body: row.get(3)?,
                    mood: row.get(4)?,
                    summary: row.get(5)?,
                    tags: split(row.get(8)?, '\u{1f}'),
                    queued: false,
                    imported: row.get(10)?,
                },
                trashed: row.get(6)?,
                list_tags: split(row.get(7)?, '\u{1f}'),
                fts,
                jobs: row.get(9)?,
                has_vector: false,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<Row>>>())
        .map_err(|e| format!("reading the entries: {e}"))?;
    let mut journal = Journal::default();
    for mut row in rows {
        row.has_vector = match &model {
            Some(model) => vectors::vector_of(conn, DEFAULT_USER, model, row.id)
                .map_err(|e| e.to_string())?
                .is_some(),
            None => false,
        };
        row.state.queued = row.jobs > 0;
        check_row(&row)?;
        let marker = marker_of(&row.state.body).to_owned();
        if journal.ids.insert(marker.clone(), row.id).is_some() {
            return Err(format!(
                "two entries carry the marker {marker}: something was written twice"
            ));
        }
        journal.entries.insert(marker, row.state);
    }
    Ok(journal)
}

/// An entry is whole: what copies it agrees with it.
fn check_row(row: &Row) -> Result<(), String> {
    let e = &row.state;
    let problem = if row.trashed {
        Some("it is in the trash, and nothing trashed it".to_owned())
    } else if row.list_tags != e.tags {
        Some(format!("its list row says tags {:?}", row.list_tags))
    } else if row.fts != Some((e.title.clone(), e.body.clone(), e.tags.clone())) {
        Some(format!("its full-text row is {:?}", row.fts))
    } else if row.jobs != 0 && row.jobs != 2 {
        Some(format!("it has {} queued jobs, not both or none", row.jobs))
    } else if row.has_vector != e.summary.is_some() {
        // Only the model write-back stores vectors here, with the summary.
        Some(format!(
            "it has a vector: {}, a summary: {:?}",
            row.has_vector, e.summary
        ))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(format!(
            "entry {} is half-written: {problem}; the entry: {e:?}",
            row.id
        )),
        None => Ok(()),
    }
}

/// What triggers and the saving code keep beside the entries: one full-text row per
/// live entry, the dashboard's per-day totals, and no tag left without an entry.
fn check_totals(conn: &Connection, live: usize) -> Result<(), String> {
    let count = |sql: &str| -> Result<i64, String> {
        conn.query_row(sql, [], |row| row.get(0))
            .map_err(|e| format!("{sql}: {e}"))
    };
    let fts_rows = count("SELECT count(*) FROM entries_fts")?;
    if fts_rows != live as i64 {
        return Err(format!("{fts_rows} full-text rows for {live} entries"));
    }
    let stats_off = count(
        "SELECT count(*) FROM (SELECT local_date, count(*) AS n, sum(word_count) AS w, \
         sum(coalesce(mood_score, 0)) AS m, count(mood_score) AS c FROM journal_entries \
         WHERE is_deleted = 0 GROUP BY local_date) AS a FULL JOIN daily_stats AS d USING (local_date) \
         WHERE a.n IS NOT d.entries OR a.w IS NOT d.words OR a.m IS NOT d.mood_sum \
         OR a.c IS NOT d.mood_count",
    )?;
    if stats_off != 0 {
        return Err(format!(
            "{stats_off} days of the dashboard's totals disagree with the entries"
        ));
    }
    let orphans = count("SELECT count(*) FROM tags WHERE id NOT IN (SELECT tag_id FROM entry_tags)")?;
    if orphans != 0 {
        return Err(format!("{orphans} tags belong to no entry"));
    }
    Ok(())
}
