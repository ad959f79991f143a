//! Reciprocal-rank fusion: one ranking from several.
//!
//! BM25 scores and vector distances live on different scales, so we fuse ranks, not
//! scores: an entry's fused score is the sum of 1 / (k + rank) over the lists it
//! appears in (rank counted from 1). A larger `k` flattens the advantage of the top
//! places; 60 is the value from the original paper and works well without tuning.

use std::collections::HashMap;

/// The default `k`.
pub const DEFAULT_K: f64 = 60.0;

/// The keyword ranking's weight against the vector ranking's 1.0 for questions (Ask,
/// `mindsage ask`). Questions to a journal are paraphrases ("knee pain" for "my knee
/// was throbbing"), where word matching is the weaker signal, and rank fusion gives a
/// keyword first place as much pull as a vector first place whatever the margins: on
/// both labelled sets every weight from 1 down to 0.1 traded vector first places for
/// keyword near-misses, less so the lower it went (compare `hybrid.*` with
/// `hybrid.*.half_weight` and `hybrid.*.equal_weight` in the `retrieval` stage). At a
/// tenth, keyword matches still order what the vectors leave undecided and bring in
/// entries the vectors missed (names, rare words).
pub const QUESTION_KEYWORD_WEIGHT: f64 = 0.1;

/// The keyword ranking's weight for text typed into the search box: there people type
/// the words they remember, so an entry containing them should come first.
pub const TYPED_KEYWORD_WEIGHT: f64 = 1.0;

/// Fuses ranked lists of ids (best first) into one list of (id, fused score), best first.
/// Ties keep the order in which ids were first seen, so results are deterministic.
pub fn reciprocal_rank_fusion(lists: &[&[i64]], k: f64) -> Vec<(i64, f64)> {
    let weighted: Vec<(&[i64], f64)> = lists.iter().map(|l| (*l, 1.0)).collect();
    weighted_reciprocal_rank_fusion(&weighted, k)
}

/// Reciprocal-rank fusion where each list's contributions are scaled by its weight.
pub fn weighted_reciprocal_rank_fusion(lists: &[(&[i64], f64)], k: f64) -> Vec<(i64, f64)> {
    let mut scores: HashMap<i64, (f64, usize)> = HashMap::new();
    let mut order = 0usize;
    for (list, weight) in lists {
        for (rank, id) in list.iter().enumerate() {
            let entry = scores.entry(*id).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            entry.0 += weight / (k + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(i64, f64, usize)> = scores.into_iter().map(|(id, (s, o))| (id, s, o)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused.into_iter().map(|(id, s, _)| (id, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_beats_a_single_first_place() {
        // 7 is second in both lists; 1 and 9 are first in one list only.
        let fused = reciprocal_rank_fusion(&[&[1, 7, 3], &[9, 7, 1]], 60.0);
        let ids: Vec<i64> = fused.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids[0], 1); // 1/61 + 1/63
        assert_eq!(ids[1], 7); // 2/62, a hair less
        assert_eq!(ids.len(), 4);
        assert!((fused[0].1 - (1.0 / 61.0 + 1.0 / 63.0)).abs() < 1e-12);
    }

    #[test]
    fn one_list_keeps_its_order_and_empty_is_empty() {
        let fused = reciprocal_rank_fusion(&[&[5, 4, 3], &[]], 60.0);
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [5, 4, 3]);
        assert!(reciprocal_rank_fusion(&[], 60.0).is_empty());
    }

    #[test]
    fn small_k_rewards_top_places_more() {
        let lists: [&[i64]; 2] = [&[1, 2], &[2, 3]];
        let sharp = reciprocal_rank_fusion(&lists, 1.0);
        assert_eq!(sharp[0].0, 2); // 1/3 + 1/2 vs 1/2
    }
}
