//! Entry embeddings, stored in the journal file with sqlite-vec.
//!
//! Each embedding model gets its own `vec0` table, `vec_entries_<id>`, registered in
//! `vector_models` with its dimension, so vectors of two models are never compared. The
//! tables are created here at run time, not by a migration: where the extension cannot
//! load, the journal still opens, keyword search works, and vector search says it is
//! unavailable.
//!
//! Vectors are L2-normalised before they are stored. For unit vectors L2 distance ranks
//! exactly as cosine similarity does, and L2 is the metric with a SIMD path in
//! sqlite-vec and the one our own scan ([`VectorCache`]) computes as a dot product.
//!
//! [`VectorCache`] is an in-memory copy of one user's active vector set for fast scans:
//! f32 for small sets, int8 with an exact rerank from the file for large ones. The file
//! stays the source of truth: the cache is filled from it and catches up through
//! `vector_changes`, a log of every vector write.

use std::collections::HashMap;
use std::os::raw::{c_char, c_int};

use half::f16;
use rusqlite::{Connection, OptionalExtension, ffi, params};

use super::SearchFilter;
use super::kernels::{self, Scored};
use super::quantize;
use crate::clock;
use crate::db::{EntryId, Result, UserId};
use crate::timing;

type Init =
    unsafe extern "C" fn(*mut ffi::sqlite3, *mut *mut c_char, *const ffi::sqlite3_api_routines) -> c_int;

#[cfg(sqlite_vec_avx)]
unsafe extern "C" {
    /// sqlite-vec's entry point in the copy `build.rs` compiles with AVX, its symbols
    /// renamed so it links beside the crate's copy.
    fn mindsage_avx_sqlite3_vec_init(
        db: *mut ffi::sqlite3,
        err: *mut *mut c_char,
        api: *const ffi::sqlite3_api_routines,
    ) -> c_int;
}

/// Which compiled copy of sqlite-vec to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionBuild {
    /// The `sqlite-vec` crate's build: no SIMD flags, scalar distances.
    Stock,
    /// Our build with `SQLITE_VEC_ENABLE_AVX` (x86_64 with AVX; L2 distance only, for
    /// dimensions divisible by 16). Where unavailable, the stock copy loads instead.
    Avx,
}

impl ExtensionBuild {
    /// The AVX copy when this binary has it and the CPU runs it.
    pub fn best() -> ExtensionBuild {
        if avx_available() {
            ExtensionBuild::Avx
        } else {
            ExtensionBuild::Stock
        }
    }
}

fn avx_available() -> bool {
    #[cfg(sqlite_vec_avx)]
    {
        // The whole AVX copy is compiled with -mavx, so none of it may run without AVX.
        std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(sqlite_vec_avx))]
    {
        false
    }
}

fn entry_point(build: ExtensionBuild) -> Init {
    #[cfg(sqlite_vec_avx)]
    {
        if build == ExtensionBuild::Avx && avx_available() {
            return mindsage_avx_sqlite3_vec_init;
        }
    }
    let _ = build;
    // SAFETY: sqlite3_vec_init has exactly the extension entry-point signature (the
    // crate declares it without arguments).
    unsafe { std::mem::transmute::<*const (), Init>(sqlite_vec::sqlite3_vec_init as *const ()) }
}

/// Loads sqlite-vec (the AVX build where it runs) into one connection. Returns false
/// (and logs why) when it fails: vector search is then unavailable on that connection
/// and nothing else changes.
pub fn register(conn: &Connection) -> bool {
    register_build(conn, ExtensionBuild::best())
}

/// Loads a chosen copy of sqlite-vec into one connection; see [`register`].
pub fn register_build(conn: &Connection, build: ExtensionBuild) -> bool {
    let init = entry_point(build);
    // SAFETY: built with SQLITE_CORE, the entry point does not use the api-routines
    // pointer, and the handle is a live connection.
    let rc = unsafe { init(conn.handle(), std::ptr::null_mut(), std::ptr::null()) };
    if rc != ffi::SQLITE_OK {
        tracing::warn!(
            rc,
            ?build,
            "sqlite-vec could not be loaded; vector search is unavailable"
        );
    }
    rc == ffi::SQLITE_OK
}

/// sqlite-vec's version on this connection, or `None` if it is not loaded.
pub fn extension_version(conn: &Connection) -> Option<String> {
    conn.query_row("SELECT vec_version()", [], |row| row.get(0)).ok()
}

/// sqlite-vec's own build report (`vec_debug()`), including which SIMD paths it has.
pub fn extension_debug(conn: &Connection) -> Option<String> {
    conn.query_row("SELECT vec_debug()", [], |row| row.get(0)).ok()
}

/// An embedding model with vectors in this journal.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VectorModel {
    pub id: i64,
    pub model: String,
    pub dim: usize,
    /// True when search uses this set; false while a new model's set is being built.
    pub active: bool,
}

impl VectorModel {
    fn table(&self) -> String {
        format!("vec_entries_{}", self.id)
    }
}

fn model_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<VectorModel> {
    Ok(VectorModel {
        id: row.get(0)?,
        model: row.get(1)?,
        dim: row.get::<_, i64>(2)? as usize,
        active: row.get::<_, String>(3)? == "active",
    })
}

/// The vector set search uses for this user, if any.
pub fn active_model(conn: &Connection, user: UserId) -> Result<Option<VectorModel>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 AND state = 'active'",
        )?
        .query_row(params![user], model_from_row)
        .optional()?)
}

/// Every model with vectors for this user.
pub fn models(conn: &Connection, user: UserId) -> Result<Vec<VectorModel>> {
    let mut stmt = conn
        .prepare_cached("SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 ORDER BY id")?;
    let models = stmt
        .query_map(params![user], model_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(models)
}

/// Registers `model` (active if the user has no vectors yet, otherwise building) and
/// creates its table.
fn ensure_model(conn: &Connection, user: UserId, model: &str, dim: usize) -> Result<VectorModel> {
    let existing = conn
        .prepare_cached("SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 AND model = ?2")?
        .query_row(params![user, model], model_from_row)
        .optional()?;
    let found = match existing {
        Some(found) if found.dim == dim => found,
        Some(found) => {
            return Err(crate::db::DbError::Invalid(format!(
                "model {model} gave {dim}-dimensional vectors, but its stored vectors have {} dimensions",
                found.dim
            )));
        }
        None => {
            let state = if active_model(conn, user)?.is_some() {
                "building"
            } else {
                "active"
            };
            conn.execute(
                "INSERT INTO vector_models (user_id, model, dim, state, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![user, model, dim as i64, state, clock::now_utc()],
            )?;
            VectorModel {
                id: conn.last_insert_rowid(),
                model: model.to_owned(),
                dim,
                active: state == "active",
            }
        }
    };
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS {} USING vec0 (
             entry_id INTEGER PRIMARY KEY,
             user_id INTEGER PARTITION KEY,
             embedding FLOAT[{dim}] distance_metric=L2
         )",
        found.table()
    ))?;
    Ok(found)
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Stores (or replaces) an entry's embedding from `model`, normalised. When this
/// completes a building model's set, that set replaces the old one.
pub fn store_embedding(
    conn: &Connection,
    user: UserId,
    entry: EntryId,
    model: &str,
    vector: &[f32],
) -> Result<()> {
    store_embeddings(conn, user, model, &[(entry, vector)])
}

/// [`store_embedding`] for a batch of one model's vectors: the model is looked up and
/// the completeness of a building set checked once for the whole batch, not per vector.
pub fn store_embeddings(
    conn: &Connection,
    user: UserId,
    model: &str,
    vectors: &[(EntryId, &[f32])],
) -> Result<()> {
    let Some(dim) = vectors.first().map(|(_, v)| v.len()) else {
        return Ok(());
    };
    if let Some((_, bad)) = vectors
        .iter()
        .find(|(_, v)| v.len() != dim || v.is_empty() || v.iter().any(|x| !x.is_finite()))
    {
        return Err(crate::db::DbError::Invalid(format!(
            "model {model} returned an empty, non-finite or odd-sized embedding ({} values)",
            bad.len()
        )));
    }
    timing::timed("vectors.store", || {
        let found = ensure_model(conn, user, model, dim)?;
        let table = found.table();
        let mut delete = conn.prepare_cached(&format!("DELETE FROM {table} WHERE entry_id = ?1"))?;
        let mut insert = conn.prepare_cached(&format!(
            "INSERT INTO {table} (entry_id, user_id, embedding) VALUES (?1, ?2, ?3)"
        ))?;
        let mut logged =
            conn.prepare_cached("INSERT INTO vector_changes (model_id, entry_id) VALUES (?1, ?2)")?;
        for (entry, vector) in vectors {
            let mut unit = vector.to_vec();
            kernels::normalise(&mut unit);
            delete.execute(params![entry])?;
            insert.execute(params![entry, user, to_blob(&unit)])?;
            logged.execute(params![found.id, entry])?;
        }
        if !found.active {
            activate_if_complete(conn, user, &found)?;
        }
        Ok(())
    })
}

/// Removes an entry's vectors from every model's set; trash and purge call this in
/// their own transaction. Where sqlite-vec is not loaded the vector tables cannot be
/// touched, so this does nothing; search cannot run there either, and results are
/// always joined with live entries, so a stale vector is never shown.
pub fn delete_entry(conn: &Connection, entry: EntryId) -> Result<()> {
    let ids: Vec<i64> = {
        let mut stmt = conn.prepare_cached("SELECT id FROM vector_models")?;
        stmt.query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    if ids.is_empty() || extension_version(conn).is_none() {
        return Ok(());
    }
    for id in ids {
        let removed = conn.execute(
            &format!("DELETE FROM vec_entries_{id} WHERE entry_id = ?1"),
            params![entry],
        )?;
        if removed > 0 {
            conn.execute(
                "INSERT INTO vector_changes (model_id, entry_id) VALUES (?1, ?2)",
                params![id, entry],
            )?;
        }
    }
    Ok(())
}

/// How far a model's set covers the user's live entries: (with a vector, live entries).
pub fn coverage(conn: &Connection, user: UserId, model: &VectorModel) -> Result<(u64, u64)> {
    let done: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {} WHERE user_id = ?1", model.table()),
        params![user],
        |row| row.get(0),
    )?;
    let total = crate::db::entries::count(conn, user)?;
    Ok((done.max(0) as u64, total))
}

/// Queues an embedding job for every live entry that has no vector from `model` and no
/// embedding job yet: the work a journal from before saves queued it, seeded or
/// imported entries, or a new embedding model (whose set is built beside the active one
/// and replaces it once complete) still needs. Resumes wherever an earlier run stopped.
/// Returns how many jobs were queued.
pub fn queue_missing_embeddings(conn: &Connection, user: UserId, model: &str) -> Result<usize> {
    let registered = conn
        .prepare_cached("SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 AND model = ?2")?
        .query_row(params![user, model], model_from_row)
        .optional()?;
    let Some(found) = registered else {
        // No vector of this model yet: every live entry needs one.
        return crate::db::jobs::queue_all_embeddings(conn, user);
    };
    timing::timed("ai.backfill_embed", || {
        Ok(conn.execute(
            &format!(
                "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
                 SELECT e.user_id, e.id, 'embed', ?2, e.created_at FROM journal_entries AS e \
                 WHERE e.user_id = ?1 AND e.is_deleted = 0 \
                 AND NOT EXISTS (SELECT 1 FROM {} AS v WHERE v.entry_id = e.id) \
                 AND NOT EXISTS (SELECT 1 FROM ai_jobs AS j WHERE j.entry_id = e.id AND j.kind = 'embed') \
                 ON CONFLICT DO NOTHING",
                found.table()
            ),
            params![user, clock::now_utc()],
        )?)
    })
}

/// Makes a building set the active one once it covers every live entry, and drops the
/// set it replaces.
fn activate_if_complete(conn: &Connection, user: UserId, model: &VectorModel) -> Result<()> {
    let (done, total) = coverage(conn, user, model)?;
    if done < total {
        return Ok(());
    }
    for old in models(conn, user)?.into_iter().filter(|m| m.active) {
        conn.execute_batch(&format!("DROP TABLE IF EXISTS {}", old.table()))?;
        conn.execute("DELETE FROM vector_models WHERE id = ?1", params![old.id])?;
        conn.execute("DELETE FROM vector_changes WHERE model_id = ?1", params![old.id])?;
    }
    conn.execute(
        "UPDATE vector_models SET state = 'active' WHERE id = ?1",
        params![model.id],
    )?;
    tracing::info!(model = %model.model, entries = done, "new embedding model's vectors are complete and active");
    Ok(())
}

/// Nearest entries by sqlite-vec's own KNN over the stored vectors: (entry, L2 distance).
/// The date filter is applied to a widened candidate list.
pub fn knn_sqlite_vec(
    conn: &Connection,
    user: UserId,
    model: &VectorModel,
    query: &[f32],
    k: usize,
    filter: &SearchFilter,
) -> Result<Vec<(EntryId, f32)>> {
    let mut unit = query.to_vec();
    kernels::normalise(&mut unit);
    let widened = if filter.is_empty() { k } else { k * 8 };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT v.entry_id, v.distance, e.created_at FROM {} AS v JOIN journal_entries AS e ON e.id = v.entry_id \
         WHERE v.embedding MATCH ?1 AND v.k = ?2 AND v.user_id = ?3 ORDER BY v.distance",
        model.table()
    ))?;
    let rows = stmt
        .query_map(params![to_blob(&unit), widened as i64, user], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, f64>(1)? as f32,
                row.get::<_, String>(2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows
        .into_iter()
        .filter(|(_, _, created)| filter.contains(created))
        .take(k)
        .map(|(id, d, _)| (id, d))
        .collect())
}

/// Which copy of the vectors a [`VectorCache`] keeps in memory and scans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// The f32 vectors: every one is compared exactly.
    Exact,
    /// Half-precision vectors are scanned for a widened candidate list, whose f32
    /// vectors are then read from the journal file and re-scored: final scores are
    /// exact, and only a candidate whose rounded score fell outside the list could be
    /// missed.
    HalfRerank,
    /// As [`Precision::HalfRerank`], from int8 vectors with one scale each: half the
    /// bytes of f16.
    Int8Rerank,
}

impl Precision {
    /// The copy a cache of `vectors` vectors keeps unless told otherwise.
    pub fn for_size(vectors: usize) -> Precision {
        if vectors >= REDUCED_FROM {
            Precision::Int8Rerank
        } else {
            Precision::Exact
        }
    }
}

/// Vectors from which a [`VectorCache`] keeps the int8 copy instead of f32. An exact
/// scan of 5,000 vectors took about 1 ms, so small journals keep f32 and read nothing
/// back from the file; at 50,000 × 768 the int8 copy is a quarter of f32's 154 MB and
/// its scan read a quarter of the bytes. On real embeddings (1,040 texts, 38 questions)
/// and on synthetic ones its recall@10 after the rerank was 1.0 (bench `vector` stage,
/// `*.int8_rerank.raw.recall_at_10`).
pub const REDUCED_FROM: usize = 20_000;

/// The cache's copy of the vectors, row for row with its ids.
enum Rows {
    Exact(Vec<f32>),
    Half(Vec<f16>),
    Int8(quantize::Int8Vectors),
}

impl Rows {
    fn new(precision: Precision, dim: usize) -> Rows {
        match precision {
            Precision::Exact => Rows::Exact(Vec::new()),
            Precision::HalfRerank => Rows::Half(Vec::new()),
            Precision::Int8Rerank => Rows::Int8(quantize::Int8Vectors {
                dim,
                ..Default::default()
            }),
        }
    }

    fn precision(&self) -> Precision {
        match self {
            Rows::Exact(_) => Precision::Exact,
            Rows::Half(_) => Precision::HalfRerank,
            Rows::Int8(_) => Precision::Int8Rerank,
        }
    }

    fn push(&mut self, vector: &[f32]) {
        match self {
            Rows::Exact(rows) => rows.extend_from_slice(vector),
            Rows::Half(rows) => rows.extend(quantize::to_halves(vector)),
            Rows::Int8(rows) => rows.push(vector),
        }
    }

    fn swap_remove(&mut self, index: usize, dim: usize) {
        match self {
            Rows::Exact(rows) => quantize::swap_remove_row(rows, index, dim),
            Rows::Half(rows) => quantize::swap_remove_row(rows, index, dim),
            Rows::Int8(rows) => rows.swap_remove(index),
        }
    }

    fn memory_bytes(&self) -> usize {
        match self {
            Rows::Exact(rows) => rows.len() * 4,
            Rows::Half(rows) => rows.len() * 2,
            Rows::Int8(rows) => rows.memory_bytes(),
        }
    }
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::Exact(Vec::new())
    }
}

/// An in-memory copy of one user's active vectors, scanned with SIMD. Below
/// [`REDUCED_FROM`] vectors it holds them in f32 and scans exactly; from there on it
/// holds only an int8 copy, scans that for a few more candidates than asked for, and
/// re-scores those from the f32 vectors in the journal file. The file stays the source
/// of truth: the cache is filled from it and catches up through `vector_changes`.
#[derive(Default)]
pub struct VectorCache {
    model: Option<VectorModel>,
    user: UserId,
    /// Last `vector_changes.seq` applied.
    seq: i64,
    ids: Vec<EntryId>,
    created_at: Vec<String>,
    /// Set by [`VectorCache::with_precision`]; otherwise the copy follows the size.
    fixed: Option<Precision>,
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

    /// Bytes the cache holds, for the memory figures in runs and the overlay.
    pub fn memory_bytes(&self) -> usize {
        self.rows.memory_bytes()
            + self.ids.len() * 8
            + self.created_at.iter().map(|s| s.len() + 24).sum::<usize>()
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
        let active = active_model(conn, user)?;
        if active != self.model || user != self.user {
            return self.reload(conn, user, active);
        }
        let Some(model) = self.model.clone() else {
            return Ok(());
        };
        let changed: Vec<(i64, EntryId)> = {
            let mut stmt = conn.prepare_cached(
                "SELECT seq, entry_id FROM vector_changes WHERE model_id = ?1 AND seq > ?2 ORDER BY seq",
            )?;
            stmt.query_map(params![model.id, self.seq], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        for (seq, entry) in changed {
            self.remove(entry);
            let row: Option<(Vec<u8>, String)> = conn
                .prepare_cached(&format!(
                    "SELECT v.embedding, e.created_at FROM {} AS v JOIN journal_entries AS e ON e.id = v.entry_id \
                     WHERE v.entry_id = ?1 AND v.user_id = ?2",
                    model.table()
                ))?
                .query_row(params![entry, user], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            if let Some((blob, created)) = row {
                self.push(entry, created, &from_blob(&blob));
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
            rows: Rows::new(start, model.as_ref().map_or(0, |m| m.dim)),
            model: model.clone(),
            ..Default::default()
        };
        let Some(model) = model else {
            return Ok(());
        };
        timing::timed("vectors.cache_load", || {
            self.seq = conn.query_row(
                "SELECT coalesce(max(seq), 0) FROM vector_changes WHERE model_id = ?1",
                params![model.id],
                |row| row.get(0),
            )?;
            let mut stmt = conn.prepare(&format!(
                "SELECT v.entry_id, v.embedding, e.created_at FROM {} AS v \
                 JOIN journal_entries AS e ON e.id = v.entry_id WHERE v.user_id = ?1",
                model.table()
            ))?;
            let mut rows = stmt.query(params![user])?;
            while let Some(row) = rows.next()? {
                let blob: Vec<u8> = row.get(1)?;
                self.push(row.get(0)?, row.get(2)?, &from_blob(&blob));
            }
            Ok::<_, crate::db::DbError>(())
        })
    }

    fn push(&mut self, entry: EntryId, created_at: String, vector: &[f32]) {
        self.position.insert(entry, self.ids.len());
        self.ids.push(entry);
        self.created_at.push(created_at);
        self.rows.push(vector);
        if self.fixed.is_none()
            && self.rows.precision() != Precision::for_size(self.ids.len())
            && let Rows::Exact(exact) = &self.rows
        {
            // The set grew past REDUCED_FROM: the int8 copy replaces the f32 one. A set
            // that shrinks again keeps int8 until its next full load.
            self.rows = Rows::Int8(quantize::Int8Vectors::encode(exact, self.dim()));
        }
    }

    /// Removes an entry by moving the last one into its place.
    fn remove(&mut self, entry: EntryId) {
        let Some(index) = self.position.remove(&entry) else {
            return;
        };
        self.ids.swap_remove(index);
        self.created_at.swap_remove(index);
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
        kernels::normalise(&mut unit);
        let keep = |i: usize| filter.is_empty() || filter.contains(&self.created_at[i]);
        let pool = quantize::rerank_pool(k);
        let best = match &self.rows {
            Rows::Exact(rows) => kernels::scan(rows, &unit, k, keep),
            Rows::Half(rows) => {
                let candidates = kernels::scan_f16(rows, &unit, pool, keep);
                self.rerank_from_file(conn, model, &unit, &candidates, k)?
            }
            Rows::Int8(rows) => {
                let candidates = rows.scan(&unit, pool, keep);
                self.rerank_from_file(conn, model, &unit, &candidates, k)?
            }
        };
        Ok(best.into_iter().map(|s| (self.ids[s.index], s.score)).collect())
    }

    /// Re-scores `candidates` from the f32 vectors stored in the file and keeps the
    /// best `k`; a candidate no longer in the file was removed since the last refresh
    /// and is dropped.
    fn rerank_from_file(
        &self,
        conn: &Connection,
        model: &VectorModel,
        unit: &[f32],
        candidates: &[Scored],
        k: usize,
    ) -> Result<Vec<Scored>> {
        let entries: Vec<EntryId> = candidates.iter().map(|c| self.ids[c.index]).collect();
        let scores = stored_scores(conn, model, unit, &entries)?;
        let exact = candidates.iter().zip(scores).filter_map(|(c, score)| {
            Some(Scored {
                index: c.index,
                score: score?,
            })
        });
        Ok(kernels::top_k(exact, k))
    }
}

/// Dot products of a unit `query` with the stored vectors of `entries`, in order
/// (`None` for an entry with no vector), scored by the kernel the scans use. Each is one
/// point lookup in the `vec0` table, about 5 to 30 µs by how far into its 1,024-vector
/// chunk the row lies (sqlite-vec reads the vector from the chunk's blob, whose
/// overflow pages SQLite walks from the start).
pub fn stored_scores(
    conn: &Connection,
    model: &VectorModel,
    query: &[f32],
    entries: &[EntryId],
) -> Result<Vec<Option<f32>>> {
    timing::timed("vectors.rerank_read", || {
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT embedding FROM {} WHERE entry_id = ?1",
            model.table()
        ))?;
        let mut scores = Vec::with_capacity(entries.len());
        for entry in entries {
            let score = stmt
                .query_row(params![entry], |row| {
                    Ok(kernels::dot(&from_blob(row.get_ref(0)?.as_blob()?), query))
                })
                .optional()?;
            scores.push(score);
        }
        Ok(scores)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_sets_keep_int8_and_small_ones_f32() {
        assert_eq!(Precision::for_size(0), Precision::Exact);
        assert_eq!(Precision::for_size(REDUCED_FROM - 1), Precision::Exact);
        assert_eq!(Precision::for_size(REDUCED_FROM), Precision::Int8Rerank);
    }
}
