//! Exact scores for a reduced copy's candidates, from the f32 vectors in the file: what
//! lets a [`super::VectorCache`] hold rounded vectors and still rank by exact scores.

use rusqlite::Connection;

use crate::db::vectors::{self, VectorModel};
use crate::db::{EntryId, Result};
use crate::search::kernels::{self, Scored};

/// Dot products of a unit `query` with the stored vectors of `entries`, in order
/// (`None` for an entry with no vector), scored by the kernel the scans use, so a
/// rerank agrees bit for bit with an exact scan.
pub fn stored_scores(
    conn: &Connection,
    model: &VectorModel,
    query: &[f32],
    entries: &[EntryId],
) -> Result<Vec<Option<f32>>> {
    vectors::score_stored(conn, model, entries, |stored| kernels::dot(stored, query))
}

/// Re-scores `candidates` (indices into `ids`) from the file and keeps the best `k`; a
/// candidate no longer in the file was removed since the cache's last refresh and is
/// dropped.
pub(super) fn rerank(
    conn: &Connection,
    model: &VectorModel,
    ids: &[EntryId],
    unit: &[f32],
    candidates: &[Scored],
    k: usize,
) -> Result<Vec<Scored>> {
    let entries: Vec<EntryId> = candidates.iter().map(|c| ids[c.index]).collect();
    let scores = stored_scores(conn, model, unit, &entries)?;
    let exact = candidates.iter().zip(scores).filter_map(|(c, score)| {
        Some(Scored {
            index: c.index,
            score: score?,
        })
    });
    Ok(kernels::top_k(exact, k))
}
