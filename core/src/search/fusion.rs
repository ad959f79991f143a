//! Fusing the keyword and vector rankings into one list.
//!
//! Two ways, chosen per use ([`Fusion`]):
//!
//! - **Reciprocal-rank fusion** for text typed into the search box. BM25 scores and
//!   vector similarities live on different scales, so it fuses ranks: an entry's score
//!   is the sum of `weight / (k + rank)` over the lists it appears in (rank counted
//!   from 1). A larger `k` flattens the advantage of the top places; 60 is the value
//!   from the original paper. Typed words weigh as much as meaning there, because people
//!   type the words they remember.
//! - **Meaning first** for questions (Ask, `mindsage ask`, the retrieval stage).
//!   Questions to a journal are paraphrases ("knee pain" for "my knee was throbbing"),
//!   where word matching is the weaker signal; rank fusion gives a keyword first place
//!   as much pull as a vector first place whatever the margins, and on both labelled
//!   sets it ranked worse than the vectors alone at every weight and `k` tried. Here the
//!   vector similarity orders the list and a keyword match adds at most
//!   [`KEYWORD_MARGIN`] of cosine similarity, in proportion to its BM25 score against
//!   the best match's: keyword matches decide between entries whose meaning the
//!   vectors cannot tell apart, and cannot lift a clearly less similar one.

use std::collections::{HashMap, HashSet};

use super::relevance::close_in_meaning;

/// The default `k` of reciprocal-rank fusion.
pub const DEFAULT_K: f64 = 60.0;

/// The keyword ranking's weight against the vector ranking's 1.0 in reciprocal-rank
/// fusion for text typed into the search box.
pub const TYPED_KEYWORD_WEIGHT: f64 = 1.0;

/// The most cosine similarity a keyword match adds to an entry when questions are fused
/// meaning first (the best BM25 match gets all of it). Similarities of an entry that
/// answers a question and one that does not are often a few hundredths apart with small
/// embedding models; a fiftieth lets keyword matches settle those near-ties without
/// overturning clear ones. On both labelled sets compare, in the `retrieval` stage,
/// `hybrid.*` with `hybrid.*.rrf` (rank fusion instead) and with `hybrid.*.half_margin`
/// and `hybrid.*.margin_and_a_half` (how much the margin's exact value matters).
pub const KEYWORD_MARGIN: f64 = 0.02;

/// How a keyword and a vector ranking become one list.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fusion {
    /// Weighted reciprocal-rank fusion: ranks only, the keyword list weighing
    /// `keyword_weight` against the vector list's 1.
    ReciprocalRank { k: f64, keyword_weight: f64 },
    /// Vector similarity first, a keyword match adding at most `keyword_margin`.
    MeaningFirst { keyword_margin: f64 },
}

impl Fusion {
    /// For questions: meaning first.
    pub const QUESTIONS: Fusion = Fusion::MeaningFirst {
        keyword_margin: KEYWORD_MARGIN,
    };

    /// For the search box: rank fusion, typed words weighing as much as meaning.
    pub const TYPED: Fusion = Fusion::ReciprocalRank {
        k: DEFAULT_K,
        keyword_weight: TYPED_KEYWORD_WEIGHT,
    };

    /// One list from the keyword ranking (id, score: higher is better, e.g. negated
    /// BM25) and the vector ranking (id, cosine similarity), both best first.
    pub fn fuse(self, keyword: &[(i64, f64)], vector: &[(i64, f64)]) -> Vec<(i64, f64)> {
        match self {
            Fusion::ReciprocalRank { k, keyword_weight } => {
                weighted_reciprocal_rank_fusion(&[(&ids(keyword), keyword_weight), (&ids(vector), 1.0)], k)
            }
            Fusion::MeaningFirst { keyword_margin } => meaning_first(keyword, vector, keyword_margin),
        }
    }

    /// [`Fusion::fuse`] keeping only what reaches the relevance floor
    /// ([`super::relevance`]): rank fusion fuses every keyword match with the vector
    /// matches close enough in meaning; meaning first keeps the fused scores that reach
    /// the floor, a keyword match counting for its margin.
    pub fn fuse_relevant(self, keyword: &[(i64, f64)], vector: &[(i64, f64)]) -> Vec<(i64, f64)> {
        match self {
            Fusion::ReciprocalRank { .. } => {
                // The vector list is best first: the close ones are its head, ranked as before.
                let close = vector
                    .iter()
                    .take_while(|(_, similarity)| close_in_meaning(*similarity))
                    .count();
                self.fuse(keyword, &vector[..close])
            }
            Fusion::MeaningFirst { .. } => {
                let mut fused = self.fuse(keyword, vector);
                fused.retain(|(_, score)| close_in_meaning(*score));
                fused
            }
        }
    }
}

/// The ids of a scored ranking, in order.
pub fn ids(ranking: &[(i64, f64)]) -> Vec<i64> {
    ranking.iter().map(|(id, _)| *id).collect()
}

/// Vector similarity plus up to `margin` for a keyword match, in proportion to its
/// score against the best keyword score. An entry only the keyword list holds was not
/// among the vector list's nearest, so it is given the lowest similarity listed, an
/// upper bound on its own. Ties keep vector order, then keyword order.
pub fn meaning_first(keyword: &[(i64, f64)], vector: &[(i64, f64)], margin: f64) -> Vec<(i64, f64)> {
    let best_keyword = keyword.iter().map(|(_, s)| *s).fold(0.0, f64::max);
    let keyword_share: HashMap<i64, f64> = keyword
        .iter()
        .map(|(id, s)| {
            let share = if best_keyword > 0.0 {
                s.max(0.0) / best_keyword
            } else {
                0.0
            };
            (*id, share)
        })
        .collect();
    let floor = vector.last().map_or(0.0, |(_, similarity)| *similarity);
    let mut seen = HashSet::new();
    let mut fused: Vec<(i64, f64)> = vector
        .iter()
        .copied()
        .chain(keyword.iter().map(|(id, _)| (*id, floor)))
        .filter(|(id, _)| seen.insert(*id))
        .map(|(id, similarity)| {
            (
                id,
                similarity + margin * keyword_share.get(&id).copied().unwrap_or(0.0),
            )
        })
        .collect();
    // A stable sort keeps first-seen order among equal scores.
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    fused
}

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

    #[test]
    fn keyword_matches_settle_near_ties_only() {
        let keyword = [(2, 5.0)];
        let near = meaning_first(&keyword, &[(1, 0.50), (2, 0.49)], 0.02);
        assert_eq!(near.iter().map(|f| f.0).collect::<Vec<_>>(), [2, 1]);
        assert!((near[0].1 - 0.51).abs() < 1e-12);
        let clear = meaning_first(&keyword, &[(1, 0.60), (2, 0.49)], 0.02);
        assert_eq!(clear.iter().map(|f| f.0).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn keyword_share_follows_the_best_match_and_keyword_only_entries_get_the_floor() {
        // 3 is not among the vector list's nearest: it gets 0.3, the lowest listed.
        let fused = meaning_first(&[(3, 4.0), (1, 2.0)], &[(1, 0.5), (2, 0.3)], 0.02);
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [1, 3, 2]);
        assert!((fused[0].1 - 0.51).abs() < 1e-12);
        assert!((fused[1].1 - 0.32).abs() < 1e-12);
        // Without vectors the keyword order stands.
        let alone = meaning_first(&[(3, 4.0), (4, 2.0)], &[], 0.02);
        assert_eq!(alone.iter().map(|f| f.0).collect::<Vec<_>>(), [3, 4]);
        // Equal scores keep vector order.
        let tied = meaning_first(&[], &[(7, 0.4), (6, 0.4)], 0.02);
        assert_eq!(tied.iter().map(|f| f.0).collect::<Vec<_>>(), [7, 6]);
    }

    #[test]
    fn rank_fusion_ignores_the_scores() {
        let keyword = [(1, 9.0), (7, 0.1)];
        let vector = [(9, 0.9), (7, 0.8)];
        let fused = Fusion::TYPED.fuse(&keyword, &vector);
        let by_ids = weighted_reciprocal_rank_fusion(&[(&[1, 7], 1.0), (&[9, 7], 1.0)], DEFAULT_K);
        assert_eq!(fused, by_ids);
    }

    #[test]
    fn below_the_floor_only_typed_words_keep_an_entry_in_the_search_box() {
        let floor = crate::search::relevance::MEANING_FLOOR;
        let keyword = [(1, 3.0)];
        let vector = [(9, floor + 0.1), (7, floor - 0.1), (1, floor - 0.2)];
        let fused = Fusion::TYPED.fuse_relevant(&keyword, &vector);
        assert_eq!(ids(&fused), [1, 9]);
        // Questions: the fused score decides; a keyword match lifts a near miss only.
        let near = [(2, floor - 0.01), (3, floor - 0.1)];
        let fused = Fusion::QUESTIONS.fuse_relevant(&[(2, 5.0), (3, 5.0)], &near);
        assert_eq!(ids(&fused), [2]);
        assert!(
            Fusion::QUESTIONS
                .fuse_relevant(&[], &[(3, floor - 0.1)])
                .is_empty()
        );
    }
}
