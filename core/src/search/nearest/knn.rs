//! Nearest entries by sqlite-vec's own KNN over the stored vectors: the stateless path,
//! for one-off searches that would not repay loading a [`super::VectorCache`], and the
//! reference the cache's scans are checked against.

use rusqlite::Connection;

use crate::db::vectors::{self, VectorModel};
use crate::db::{EntryId, Result, UserId};
use crate::search::SearchFilter;

/// Candidates asked of sqlite-vec per result wanted when a date filter will drop some.
const FILTERED_WIDENING: usize = 8;

/// The most neighbours sqlite-vec's KNN returns: what is asked for when the search is
/// kept to some people's entries, which may stand anywhere in the whole ranking.
const KNN_MOST: usize = 4096;

/// The `k` stored vectors nearest to `query` within the filter: (entry, L2 distance of
/// the normalised vectors), nearest first. The filter is applied to a widened list.
pub fn knn_sqlite_vec(
    conn: &Connection,
    user: UserId,
    model: &VectorModel,
    query: &[f32],
    k: usize,
    filter: &SearchFilter,
) -> Result<Vec<(EntryId, f32)>> {
    let mut unit = query.to_vec();
    vectors::normalise(&mut unit);
    let widened = if filter.is_empty() {
        k
    } else if filter.within.is_some() {
        KNN_MOST
    } else {
        k * FILTERED_WIDENING
    };
    Ok(vectors::nearest(conn, user, model, &unit, widened)?
        .into_iter()
        .filter(|n| filter.keeps(n.entry, n.day))
        .take(k)
        .map(|n| (n.entry, n.distance))
        .collect())
}
