//! [`VectorCache`]: an in-memory copy of one user's active vector set, because scanning
//! memory with SIMD is what makes meaning search fast at 50,000 entries. The journal
//! file stays the source of truth: the copy is filled from it and catches up through
//! its change log (`db::vectors`).

use std::collections::HashMap;

use chrono::NaiveDate;
use rusqlite::Connection;

use super::precision::Precision;
use super::rerank::rerank;
use super::rows::Rows;
use crate::db::vectors::{self, VectorModel};
use crate::db::{EntryId, Result, UserId};
use crate::search::{SearchFilter, kernels, quantize};

/// An in-memory copy of one user's active vectors, scanned with SIMD. Below
/// [`super::REDUCED_FROM`] vectors it holds them in f32 and scans exactly; from there
/// on it holds only an int8 copy, scans that for a few more candidates than asked for,
/// and re-scores those from the f32 vectors in the journal file (or, for an encrypted
/// journal, from an f32 copy it keeps too: [`Precision::Int8RerankInMemory`]).
#[derive(Default)]
pub struct VectorCache {
    model: Option<VectorModel>,
    user: UserId,
    /// Last `vector_changes.seq` applied.
    seq: i64,
    ids: Vec<EntryId>,
    /// The day each entry was lived where it was written, for date filters.
    days: Vec<Option<NaiveDate>>,
    /// Set by [`VectorCache::with_precision`]; otherwise the copy follows the size.
    fixed: Option<Precision>,
    /// Filled from an encrypted journal ([`VectorCache::for_encrypted_journal`]).
    encrypted: bool,
    rows: Rows,
    position: HashMap<EntryId, usize>,
}

impl VectorCache {
    /// A cache that always keeps `precision`'s copy, whatever its size: for the bench
    /// and tests, which compare the copies on the same file.
    pub fn with_precision(precision: Precision) -> VectorCache {
        VectorCache {
            fixed: Some(precision),
            rows: Rows::new(precision, 0),
            ..Default::default()
        }
    }

    /// A cache for an encrypted journal: past [`super::REDUCED_FROM`] vectors it keeps
    /// the f32 copy beside the int8 one instead of reading candidates back from the file.
    pub fn for_encrypted_journal() -> VectorCache {
        VectorCache {
            encrypted: true,
            ..Default::default()
        }
    }

    /// Forgets every vector, keeping what kind of cache it is: the next refresh reads
    /// the whole set from the file again.
    pub fn empty(&mut self) {
        *self = VectorCache {
            fixed: self.fixed,
            encrypted: self.encrypted,
            rows: Rows::new(self.fixed.unwrap_or(Precision::Exact), 0),
            ..Default::default()
        };
    }

    /// Bytes the cache holds, for the memory figures in runs and the overlay.
    pub fn memory_bytes(&self) -> usize {
        self.rows.memory_bytes()
            + self.ids.len() * 8
            + self.days.len() * std::mem::size_of::<Option<NaiveDate>>()
            + self.position.len() * 24
    }

    /// Bytes of the vector copy alone.
    pub fn vector_bytes(&self) -> usize {
        self.rows.memory_bytes()
    }

    /// The copy held now.
    pub fn precision(&self) -> Precision {
        self.rows.precision()
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn model(&self) -> Option<&VectorModel> {
        self.model.as_ref()
    }

    fn dim(&self) -> usize {
        self.model.as_ref().map_or(0, |m| m.dim)
    }

    /// Brings the cache in step with the file: a full load when the active model
    /// changed, otherwise only the entries written since the last look.
    pub fn refresh(&mut self, conn: &Connection, user: UserId) -> Result<()> {
        let active = vectors::active_model(conn, user)?;
        if active != self.model || user != self.user {
            return self.reload(conn, user, active);
        }
        let Some(model) = self.model.clone() else {
            return Ok(());
        };
        for (seq, entry) in vectors::changes_since(conn, &model, self.seq)? {
            self.remove(entry);
            if let Some((vector, day)) = vectors::vector_of(conn, user, &model, entry)? {
                self.push(entry, day, &vector);
            }
            self.seq = seq;
        }
        Ok(())
    }

    fn reload(&mut self, conn: &Connection, user: UserId, model: Option<VectorModel>) -> Result<()> {
        let start = self.fixed.unwrap_or(Precision::Exact);
        *self = VectorCache {
            user,
            fixed: self.fixed,
            encrypted: self.encrypted,
            rows: Rows::new(start, model.as_ref().map_or(0, |m| m.dim)),
            model: model.clone(),
            ..Default::default()
        };
        let Some(model) = model else {
            return Ok(());
        };
        self.seq = vectors::last_change(conn, &model)?;
        vectors::for_each_vector(conn, user, &model, |entry, day, vector| {
            self.push(entry, day, vector)
        })
    }

    fn push(&mut self, entry: EntryId, day: Option<NaiveDate>, vector: &[f32]) {
        self.position.insert(entry, self.ids.len());
        self.ids.push(entry);
        self.days.push(day);
        self.rows.push(vector);
        let wanted = Precision::for_file(self.ids.len(), self.encrypted);
        let dim = self.dim();
        if self.fixed.is_none()
            && self.rows.precision() != wanted
            && let Rows::Exact(exact) = &mut self.rows
        {
            // The set grew past REDUCED_FROM: the int8 copy replaces the f32 one (or
            // joins it, for an encrypted journal). A set that shrinks again keeps int8
            // until its next full load.
            let int8 = quantize::Int8Vectors::encode(exact, dim);
            self.rows = match wanted {
                Precision::Int8RerankInMemory => Rows::Int8InMemory {
                    int8,
                    exact: std::mem::take(exact),
                },
                _ => Rows::Int8(int8),
            };
        }
    }

    /// Removes an entry by moving the last one into its place.
    fn remove(&mut self, entry: EntryId) {
        let Some(index) = self.position.remove(&entry) else {
            return;
        };
        self.ids.swap_remove(index);
        self.days.swap_remove(index);
        self.rows.swap_remove(index, self.dim());
        if let Some(moved) = self.ids.get(index) {
            self.position.insert(*moved, index);
        }
    }

    /// The `k` nearest entries to `query` within the filter: (entry, cosine similarity),
    /// best first. Scores are exact: with a reduced copy, the candidates' f32 vectors
    /// are read from `conn`'s journal file, which should be the file the cache was
    /// last refreshed from.
    pub fn search(
        &self,
        conn: &Connection,
        query: &[f32],
        k: usize,
        filter: &SearchFilter,
    ) -> Result<Vec<(EntryId, f32)>> {
        let Some(model) = &self.model else {
            return Ok(Vec::new());
        };
        if query.len() != model.dim || self.ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut unit = query.to_vec();
        vectors::normalise(&mut unit);
        let keep = |i: usize| filter.is_empty() || filter.keeps(self.ids[i], self.days[i]);
        let pool = quantize::rerank_pool(k);
        let best = match &self.rows {
            Rows::Exact(rows) => kernels::scan(rows, &unit, k, keep),
            Rows::Half(rows) => {
                let candidates = kernels::scan_f16(rows, &unit, pool, keep);
                rerank(conn, model, &self.ids, &unit, &candidates, k)?
            }
            Rows::Int8(rows) => {
                let candidates = rows.scan(&unit, pool, keep);
                rerank(conn, model, &self.ids, &unit, &candidates, k)?
            }
            Rows::Int8InMemory { int8, exact } => {
                let candidates: Vec<usize> = int8.scan(&unit, pool, keep).iter().map(|c| c.index).collect();
                quantize::rerank(exact, model.dim, &unit, &candidates, k)
            }
        };
        Ok(best.into_iter().map(|s| (self.ids[s.index], s.score)).collect())
    }
}
