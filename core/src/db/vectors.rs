//! Entry embeddings in the journal file, in sqlite-vec's `vec0` tables.
//!
//! Storage owns these tables like any other: everything that reads or writes them is
//! here, every statement in the query catalogue ([`super::queries`]), so the query-plan
//! test sees them. Search keeps only its in-memory copy (`search::nearest`) and reads
//! the file through these functions.
//!
//! Each embedding model gets its own table, `vec_entries_<id>`, registered in
//! `vector_models` with its dimension, so vectors of two models are never compared. The
//! tables are created at run time, not by a migration: where the extension cannot load
//! ([`super::vec_extension`]), the journal still opens and keyword search works. A new
//! model's set is built beside the active one and replaces it once it covers every live
//! entry. Every write is logged in `vector_changes`, so an in-memory copy catches up by
//! reading only what changed.
//!
//! Vectors are stored L2-normalised ([`normalise`]). For unit vectors L2 distance ranks
//! exactly as cosine similarity does, and L2 is the metric with a SIMD path in sqlite-vec
//! and the one search's own scan computes as a dot product.

use chrono::NaiveDate;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, params};

use super::queries::*;
use super::vec_extension::extension_version;
use super::{DbError, EntryId, Result, UserId};
use crate::{clock, timing};

/// Whether search uses a model's vectors (`vector_models.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SetState {
    /// A new model's set, filled beside the active one until it covers every live entry.
    Building,
    /// The set search uses; a person has at most one.
    Active,
}

impl SetState {
    /// The name stored in `vector_models.state` (its CHECK constraint lists the same two).
    fn as_str(self) -> &'static str {
        match self {
            SetState::Building => "building",
            SetState::Active => "active",
        }
    }
}

impl ToSql for SetState {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for SetState {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        match value.as_str()? {
            "building" => Ok(SetState::Building),
            "active" => Ok(SetState::Active),
            other => Err(FromSqlError::Other(
                format!("unknown vector set state {other:?}").into(),
            )),
        }
    }
}

/// An embedding model with vectors in this journal.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VectorModel {
    pub id: i64,
    pub model: String,
    pub dim: usize,
    pub state: SetState,
}

impl VectorModel {
    /// True when search uses this set; false while a new model's set is being built.
    pub fn is_active(&self) -> bool {
        self.state == SetState::Active
    }

    /// The name of the `vec0` table holding this model's vectors.
    pub fn table(&self) -> String {
        format!("vec_entries_{}", self.id)
    }

    /// A catalogue statement over this model's table, as it runs.
    fn sql(&self, query: &NamedQuery) -> String {
        query.on_table(&self.table())
    }
}

fn model_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<VectorModel> {
    Ok(VectorModel {
        id: row.get(0)?,
        model: row.get(1)?,
        dim: row.get::<_, i64>(2)? as usize,
        state: row.get(3)?,
    })
}

/// Scales a vector to unit length (a zero vector stays zero): the form every stored
/// vector has, and so the form a query must have to be scored against them.
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// A vector as sqlite-vec stores it: little-endian f32s.
fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The vector set search uses for this user, if any.
pub fn active_model(conn: &Connection, user: UserId) -> Result<Option<VectorModel>> {
    Ok(conn
        .prepare_cached(VECTOR_MODEL_ACTIVE.sql)?
        .query_row(params![user, SetState::Active], model_from_row)
        .optional()?)
}

/// Every model with vectors for this user.
pub fn models(conn: &Connection, user: UserId) -> Result<Vec<VectorModel>> {
    let mut stmt = conn.prepare_cached(VECTOR_MODELS.sql)?;
    let models = stmt
        .query_map(params![user], model_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(models)
}

/// The user's vector set of `model`, if it has one.
pub fn model_named(conn: &Connection, user: UserId, model: &str) -> Result<Option<VectorModel>> {
    Ok(conn
        .prepare_cached(VECTOR_MODEL_NAMED.sql)?
        .query_row(params![user, model], model_from_row)
        .optional()?)
}

/// Registers `model` (active if the user has no vectors yet, otherwise building) and
/// creates its table.
fn ensure_model(conn: &Connection, user: UserId, model: &str, dim: usize) -> Result<VectorModel> {
    let found = match model_named(conn, user, model)? {
        Some(found) if found.dim == dim => found,
        Some(found) => {
            return Err(DbError::Invalid(format!(
                "model {model} gave {dim}-dimensional vectors, but its stored vectors have {} dimensions",
                found.dim
            )));
        }
        None => {
            let state = if active_model(conn, user)?.is_some() {
                SetState::Building
            } else {
                SetState::Active
            };
            conn.prepare_cached(VECTOR_MODEL_INSERT.sql)?.execute(params![
                user,
                model,
                dim as i64,
                state,
                clock::now_utc()
            ])?;
            VectorModel {
                id: conn.last_insert_rowid(),
                model: model.to_owned(),
                dim,
                state,
            }
        }
    };
    conn.execute_batch(&vector_table_create(&found.table(), dim))?;
    Ok(found)
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
        return Err(DbError::Invalid(format!(
            "model {model} returned an empty, non-finite or odd-sized embedding ({} values)",
            bad.len()
        )));
    }
    timing::timed(VECTOR_INSERT.name, || {
        let found = ensure_model(conn, user, model, dim)?;
        // An entry's vector is overwritten in place (see VECTOR_OVERWRITE): the vector of
        // its earlier text must not stay behind in the file.
        let mut overwrite = conn.prepare_cached(&found.sql(&VECTOR_OVERWRITE))?;
        let mut insert = conn.prepare_cached(&found.sql(&VECTOR_INSERT))?;
        let mut logged = conn.prepare_cached(VECTOR_CHANGE_LOG.sql)?;
        for (entry, vector) in vectors {
            let mut unit = vector.to_vec();
            normalise(&mut unit);
            let blob = to_blob(&unit);
            if overwrite.execute(params![entry, blob])? == 0 {
                insert.execute(params![entry, user, blob])?;
            }
            logged.execute(params![found.id, entry])?;
        }
        if !found.is_active() {
            activate_if_complete(conn, user, &found)?;
        }
        Ok(())
    })
}

/// Removes an entry's vectors from every set of its user; trash and purge call this in
/// their own transaction. A vector is overwritten with zeros first: sqlite-vec's delete
/// only unlinks it, and a vector says much about the text it was made from, so a purge
/// that left it would not have erased the entry. Where sqlite-vec is not loaded the
/// vector tables cannot be touched, so this does nothing; search cannot run there
/// either, and results are always joined with live entries, so a stale vector is never
/// shown.
pub fn delete_vectors_of(conn: &Connection, user: UserId, entry: EntryId) -> Result<()> {
    let sets = models(conn, user)?;
    if sets.is_empty() || extension_version(conn).is_none() {
        return Ok(());
    }
    for set in sets {
        let zeros = vec![0u8; set.dim * std::mem::size_of::<f32>()];
        conn.prepare_cached(&set.sql(&VECTOR_OVERWRITE))?
            .execute(params![entry, zeros])?;
        let removed = conn
            .prepare_cached(&set.sql(&VECTOR_DELETE))?
            .execute(params![entry])?;
        if removed > 0 {
            conn.prepare_cached(VECTOR_CHANGE_LOG.sql)?
                .execute(params![set.id, entry])?;
        }
    }
    Ok(())
}

/// How far a model's set covers the user's live entries: (with a vector, live entries).
pub fn coverage(conn: &Connection, user: UserId, model: &VectorModel) -> Result<(u64, u64)> {
    let done: i64 = conn
        .prepare_cached(&model.sql(&VECTOR_COUNT))?
        .query_row(params![user], |row| row.get(0))?;
    let total: i64 = conn
        .prepare_cached(LIST_COUNT.sql)?
        .query_row(params![user], |row| row.get(0))?;
    Ok((done.max(0) as u64, total.max(0) as u64))
}

/// Makes a building set the active one once it covers every live entry, and drops the
/// set it replaces.
fn activate_if_complete(conn: &Connection, user: UserId, model: &VectorModel) -> Result<()> {
    let (done, total) = coverage(conn, user, model)?;
    if done < total {
        return Ok(());
    }
    for old in models(conn, user)?.into_iter().filter(VectorModel::is_active) {
        conn.execute_batch(&vector_table_drop(&old.table()))?;
        conn.prepare_cached(VECTOR_MODEL_DELETE.sql)?
            .execute(params![old.id])?;
        conn.prepare_cached(VECTOR_CHANGES_DROP.sql)?
            .execute(params![old.id])?;
    }
    conn.prepare_cached(VECTOR_MODEL_STATE.sql)?
        .execute(params![model.id, SetState::Active])?;
    tracing::info!(model = %model.model, entries = done, "new embedding model's vectors are complete and active");
    Ok(())
}

/// A stored vector's neighbour by sqlite-vec's KNN: the entry, its L2 distance from the
/// query, and the day the entry was lived where it was written (for the caller's date
/// filter; `None` for a day that cannot be read).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub entry: EntryId,
    pub distance: f32,
    pub day: Option<NaiveDate>,
}

/// A stored `local_date` as a day.
fn day_of(row: &rusqlite::Row<'_>, column: usize) -> rusqlite::Result<Option<NaiveDate>> {
    Ok(clock::parse_date(&row.get::<_, String>(column)?))
}

/// The `k` stored vectors nearest to `unit` (a normalised query), nearest first, by
/// sqlite-vec's own KNN over the file.
pub fn nearest(
    conn: &Connection,
    user: UserId,
    model: &VectorModel,
    unit: &[f32],
    k: usize,
) -> Result<Vec<Neighbour>> {
    let mut stmt = conn.prepare_cached(&model.sql(&VECTOR_KNN))?;
    let rows = stmt
        .query_map(params![to_blob(unit), k as i64, user], |row| {
            Ok(Neighbour {
                entry: row.get(0)?,
                distance: row.get::<_, f64>(1)? as f32,
                day: day_of(row, 2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The last change logged for a model's set: where a copy loaded now starts catching up.
pub fn last_change(conn: &Connection, model: &VectorModel) -> Result<i64> {
    Ok(conn
        .prepare_cached(VECTOR_CHANGES_LAST.sql)?
        .query_row(params![model.id], |row| row.get(0))?)
}

/// Changes to a model's set after change `seq`, in order: (change, entry).
pub fn changes_since(conn: &Connection, model: &VectorModel, seq: i64) -> Result<Vec<(i64, EntryId)>> {
    let mut stmt = conn.prepare_cached(VECTOR_CHANGES_SINCE.sql)?;
    let changes = stmt
        .query_map(params![model.id, seq], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(changes)
}

/// One entry's stored vector with the day the entry was lived, or `None` when it has
/// none (it was removed since the change was logged).
pub fn vector_of(
    conn: &Connection,
    user: UserId,
    model: &VectorModel,
    entry: EntryId,
) -> Result<Option<(Vec<f32>, Option<NaiveDate>)>> {
    Ok(conn
        .prepare_cached(&model.sql(&VECTOR_OF_ENTRY))?
        .query_row(params![entry, user], |row| {
            Ok((from_blob(row.get_ref(0)?.as_blob()?), day_of(row, 1)?))
        })
        .optional()?)
}

/// Hands `each` every vector of a user's set with its entry and the day the entry was
/// lived, in the table's order: how an in-memory copy is filled.
pub fn for_each_vector(
    conn: &Connection,
    user: UserId,
    model: &VectorModel,
    mut each: impl FnMut(EntryId, Option<NaiveDate>, &[f32]),
) -> Result<()> {
    timing::timed(VECTOR_ALL.name, || {
        let mut stmt = conn.prepare(&model.sql(&VECTOR_ALL))?;
        let mut rows = stmt.query(params![user])?;
        while let Some(row) = rows.next()? {
            let blob: Vec<u8> = row.get(1)?;
            each(row.get(0)?, day_of(row, 2)?, &from_blob(&blob));
        }
        Ok(())
    })
}

/// `score` of the stored vector of each of `entries`, in order (`None` for an entry
/// with no vector). Each is one point lookup in the `vec0` table, about 5 to 30 µs by
/// how far into its 1,024-vector chunk the row lies (sqlite-vec reads the vector from
/// the chunk's blob, whose overflow pages SQLite walks from the start).
pub fn score_stored<T>(
    conn: &Connection,
    model: &VectorModel,
    entries: &[EntryId],
    mut score: impl FnMut(&[f32]) -> T,
) -> Result<Vec<Option<T>>> {
    timing::timed(VECTOR_EMBEDDING.name, || {
        let mut stmt = conn.prepare_cached(&model.sql(&VECTOR_EMBEDDING))?;
        let mut scores = Vec::with_capacity(entries.len());
        for entry in entries {
            let scored = stmt
                .query_row(params![entry], |row| {
                    Ok(score(&from_blob(row.get_ref(0)?.as_blob()?)))
                })
                .optional()?;
            scores.push(scored);
        }
        Ok(scores)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_vectors_have_unit_length() {
        let mut v = vec![3.0, 4.0];
        normalise(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = vec![0.0; 4];
        normalise(&mut zero);
        assert_eq!(zero, [0.0; 4]);
    }

    #[test]
    fn blobs_round_trip() {
        let v = [0.25f32, -1.5, 3.0];
        assert_eq!(from_blob(&to_blob(&v)), v);
    }
}
