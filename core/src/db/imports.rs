//! Where imported entries came from: the keys that make importing the same export twice
//! add nothing (`imported_entries`, migration 10).
//!
//! Two keys, because neither is enough alone: the source's own id survives an edit in
//! the other app but not a change of export format, and a hash of the entry's time,
//! title and body survives a change of format but not an edit.

use std::collections::HashSet;

use foldhash::fast::RandomState;

use rusqlite::{Connection, params};

use super::queries::{IMPORT_KEYS_AFTER, IMPORT_LAST, IMPORT_RECORD};
use super::{EntryId, Result};
use crate::media;

/// The hash an entry is recognised by whatever export it arrives in.
pub fn content_hash(created_at: &str, title: &str, body: &str) -> String {
    let mut text = String::with_capacity(created_at.len() + title.len() + body.len() + 2);
    for part in [created_at, title, body] {
        text.push_str(part);
        text.push('\u{1f}');
    }
    media::sha256_hex(text.as_bytes())
}

/// The keys of every entry imported so far, for one source: what an import judges its
/// items by. Read whole when the import starts, then kept up to date with its own
/// entries and, checked at the start of each batch, with any another import wrote
/// meanwhile. Keys are read in entry id order, each once, so `imported_entries` needs
/// no index.
#[derive(Debug)]
pub struct Known {
    source: String,
    /// The newest entry whose keys are in the sets (ids only grow).
    last: Option<EntryId>,
    /// This source's ids.
    external_ids: HashSet<String, RandomState>,
    /// Every source's content hashes.
    hashes: HashSet<String, RandomState>,
}

impl Known {
    /// Every key in the journal, for importing from `source`.
    pub fn read(conn: &Connection, source: &str) -> Result<Known> {
        let mut known = Known {
            source: source.to_owned(),
            last: None,
            external_ids: HashSet::default(),
            hashes: HashSet::default(),
        };
        known.read_newer(conn)?;
        Ok(known)
    }

    /// Reads the keys added since the last read when the newest imported entry is not
    /// the newest known (another import wrote meanwhile); otherwise one lookup of the
    /// largest id.
    pub fn catch_up(&mut self, conn: &Connection) -> Result<()> {
        let newest: Option<EntryId> = conn
            .prepare_cached(IMPORT_LAST.sql)?
            .query_row([], |row| row.get(0))?;
        if newest != self.last {
            self.read_newer(conn)?;
        }
        Ok(())
    }

    fn read_newer(&mut self, conn: &Connection) -> Result<()> {
        let mut statement = conn.prepare_cached(IMPORT_KEYS_AFTER.sql)?;
        let mut rows = statement.query(params![self.last.unwrap_or(0)])?;
        while let Some(row) = rows.next()? {
            let source: String = row.get(1)?;
            if source == self.source {
                self.external_ids.insert(row.get(2)?);
            }
            self.hashes.insert(row.get(3)?);
            self.last = Some(row.get(0)?);
        }
        Ok(())
    }

    /// Whether an item with this id or this content was imported before, or counted in
    /// earlier in this run.
    pub fn contains(&self, external_id: &str, content_hash: &str) -> bool {
        self.external_ids.contains(external_id) || self.hashes.contains(content_hash)
    }

    /// Makes room for `items` more keys of each kind at once, rather than growing the
    /// sets (and hashing every key again) as an import counts its items in.
    pub fn reserve(&mut self, items: usize) {
        self.external_ids.reserve(items);
        self.hashes.reserve(items);
    }

    /// Counts an item in, so that a repeat of it later in the export is a duplicate.
    pub fn insert(&mut self, external_id: &str, content_hash: &str) {
        self.external_ids.insert(external_id.to_owned());
        self.hashes.insert(content_hash.to_owned());
    }

    /// Notes the entry whose keys were just recorded (see [`record`]) as the newest
    /// known.
    pub fn recorded(&mut self, entry: EntryId) {
        self.last = Some(entry);
    }
}

/// Remembers where an entry came from, in the caller's transaction; `imported_at` is
/// the batch's time (one clock reading for all of its entries).
pub fn record(
    conn: &Connection,
    entry: EntryId,
    source: &str,
    external_id: &str,
    content_hash: &str,
    imported_at: &str,
) -> Result<()> {
    conn.prepare_cached(IMPORT_RECORD.sql)?.execute(params![
        entry,
        source,
        external_id,
        content_hash,
        imported_at
    ])?;
    Ok(())
}
