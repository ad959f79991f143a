//! The relevance floor: below it an entry is not a match, so the search box lists what
//! is close to its text and no more, and Ask answers "I found nothing" instead of
//! answering from entries that have nothing to do with the question.
//!
//! Each way of ranking has its own floor:
//! - **keywords**: an entry is a match when it holds a word of the query (what FTS5
//!   returns at all). BM25 scores get no floor: their scale moves with the journal's
//!   size and word counts, so no one number means "relevant" in every journal.
//! - **meaning**: an entry is a match when its cosine similarity to the query is at
//!   least [`MEANING_FLOOR`]. Vectors are normalised, so the similarity is on the same
//!   scale in every journal embedded with the same model.
//! - **hybrid, questions** (meaning first, [`super::fusion::Fusion::MeaningFirst`]): the
//!   fused score (similarity plus the keyword margin) must reach [`MEANING_FLOOR`]; a
//!   keyword match lifts an entry just below it, never one far below.
//! - **hybrid, search box** (rank fusion): what the typed words match, and what meaning
//!   alone finds at or above [`MEANING_FLOOR`]; the words a person typed are a match by
//!   themselves.
//! - **dates only** (a question that names a period and nothing else): every entry of
//!   the period is a match.

/// The lowest cosine similarity between a query and an entry at which the entry counts
/// as relevant, for the configured embedding model (all-MiniLM-L6-v2 and models of its
/// kind, whose unrelated texts sit near 0 and paraphrases of the same event well above).
///
/// Measured, not guessed. The committed labelled sets (`bench/data/retrieval-*.json`)
/// hold answerable questions, each with the entries that answer it, and questions their
/// journal does not answer (`"relevant": []`, written by hand about things the writer
/// never mentions, some near a subject the journal does have). Each question is asked
/// through the app's own search path with real embeddings, and gives one score: an
/// answerable question its best relevant entry's among the first five results (Ask's
/// sources), an unanswerable one its best result's. A floor is right about an
/// answerable question when that score reaches it (Ask keeps its source) and about an
/// unanswerable one when the score is below it (Ask finds nothing). [`best_floor`]
/// counts, at every candidate floor, the questions it gets right, over both sets
/// together so that the floor suits neither journal's wording alone; the count is flat
/// over a few hundredths around its top (small embedding models do not separate the two
/// kinds completely: every step up loses answers as it gains "I found nothing"s), so
/// the floor is the lowest that gets within one question of the most. Low on the flat
/// top, because an answer lost costs more than a source too many: the answer's prompt
/// tells the model to say when the entries do not answer, while an entry below the
/// floor is not shown at all. This constant is that floor, rounded to a hundredth;
/// `core/tests/relevance.rs` measures it again and fails when they part, and the
/// bench's `retrieval` stage reports, per set and method, the floor the set alone
/// would choose (`*.floor.best`) and what this constant does (`*.floor.answers_kept`,
/// answerable questions whose relevant entry stays among the first five;
/// `*.floor.nothing_found`, unanswerable ones left with no result). A change of
/// embedding model calls for measuring it again.
pub const MEANING_FLOOR: f64 = 0.30;

/// True when a similarity of meaning (cosine, or meaning first's fused score) is close
/// enough for the entry to be a match.
pub fn close_in_meaning(similarity: f64) -> bool {
    similarity >= MEANING_FLOOR
}

/// The floor measured as [`MEANING_FLOOR`] says: an answerable question is right when
/// its score (`answers`: its best relevant result's) is at or above the floor, an
/// unanswerable one when its score (`nothing`: its best result's) is below it; a
/// question with no score (`None`: no relevant result to keep, or no result at all) is
/// the same under every floor. The lowest floor within one question of the most right
/// is returned, in the middle of the gap under it, so that it sits between two measured
/// scores and not on one. `None` when there is no score at all.
pub fn best_floor(answers: &[Option<f64>], nothing: &[Option<f64>]) -> Option<f64> {
    let mut scores: Vec<f64> = answers.iter().chain(nothing).flatten().copied().collect();
    scores.sort_by(f64::total_cmp);
    scores.dedup();
    let right = |floor: f64| {
        answers.iter().flatten().filter(|s| **s >= floor).count()
            + nothing.iter().flatten().filter(|s| **s < floor).count()
    };
    // Every distinct score is a candidate, and so is a floor above them all.
    let above_all = scores.last()? + 1.0;
    let candidates: Vec<f64> = scores.iter().copied().chain([above_all]).collect();
    let most = candidates.iter().map(|floor| right(*floor)).max()?;
    let index = candidates.iter().position(|floor| right(*floor) + 1 >= most)?;
    Some(match index.checked_sub(1) {
        Some(below) => (candidates[below] + candidates[index]) / 2.0,
        None => candidates[index],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_floor_is_the_lowest_within_one_question_of_the_most_right() {
        // Answers at 0.5 to 0.8, nothing at 0.1 to 0.3: any floor in (0.3, 0.5] gets the
        // seven scored questions right, (0.2, 0.3] six; the middle of the gap under 0.3.
        let answers = [Some(0.5), Some(0.6), Some(0.7), Some(0.8)];
        let nothing = [Some(0.1), Some(0.2), Some(0.3), None];
        let floor = best_floor(&answers, &nothing).unwrap();
        assert!((floor - 0.25).abs() < 1e-12, "{floor}");
        // Questions without a score count under every floor, and none at all gives none.
        assert_eq!(best_floor(&[None], &[None]), None);
        // Only unanswerable questions: a floor above them.
        assert!(best_floor(&[None], &[Some(0.3), Some(0.4)]).unwrap() > 0.3);
    }
}
