//! What changed between two versions of a text, word by word, for showing an earlier
//! version with its changes marked. Words are Unicode's (so Chinese and Japanese text,
//! written without spaces, compares by character), and the comparison of two long texts
//! gives up refining after [`PATIENCE`], marking a coarser change rather than stalling
//! the window that asked.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// The longest a comparison refines its answer: past it, a changed stretch is marked
/// whole (still correct, less precise).
const PATIENCE: Duration = Duration::from_millis(30);

/// A stretch of the older text, or of the newer, and which of them has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// In both texts.
    Same(String),
    /// Only in the older text: removed or replaced since.
    Removed(String),
    /// Only in the newer text: written since.
    Added(String),
}

/// The stretches of `older` and `newer` in reading order: the words both have, and
/// where they differ the older words before the newer. Consecutive words of one kind
/// are one stretch.
pub fn changes(older: &str, newer: &str) -> Vec<Part> {
    let diff = TextDiff::configure()
        .timeout(PATIENCE)
        .diff_unicode_words(older, newer);
    let mut parts: Vec<Part> = Vec::new();
    for change in diff.iter_all_changes() {
        let text = change.value();
        match (parts.last_mut(), change.tag()) {
            (Some(Part::Same(run)), ChangeTag::Equal)
            | (Some(Part::Removed(run)), ChangeTag::Delete)
            | (Some(Part::Added(run)), ChangeTag::Insert) => run.push_str(text),
            (_, ChangeTag::Equal) => parts.push(Part::Same(text.to_owned())),
            (_, ChangeTag::Delete) => parts.push(Part::Removed(text.to_owned())),
            (_, ChangeTag::Insert) => parts.push(Part::Added(text.to_owned())),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(parts: &[Part]) -> String {
        parts
            .iter()
            .map(|part| match part {
                Part::Same(text) => text.clone(),
                Part::Removed(text) => format!("[-{text}]"),
                Part::Added(text) => format!("[+{text}]"),
            })
            .collect()
    }

    #[test]
    fn a_changed_word_is_marked_and_the_rest_is_the_same() {
        let parts = changes(
            "We walked to the river at dawn.",
            "We ran to the river at dawn, again.",
        );
        assert_eq!(
            marked(&parts),
            "We [-walked][+ran] to the river at dawn[+, again]."
        );
    }

    #[test]
    fn text_without_spaces_compares_by_character() {
        let parts = changes("今日は雨でした", "今日は晴れでした");
        assert_eq!(marked(&parts), "今日は[-雨][+晴れ]でした");
    }

    #[test]
    fn both_texts_can_be_read_back_from_the_parts() {
        let (older, newer) = ("first line\nsecond line\n", "first line\nthird line\nfourth\n");
        let parts = changes(older, newer);
        let side = |keep_removed: bool| -> String {
            parts
                .iter()
                .filter_map(|part| match part {
                    Part::Same(text) => Some(text.as_str()),
                    Part::Removed(text) if keep_removed => Some(text.as_str()),
                    Part::Added(text) if !keep_removed => Some(text.as_str()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(side(true), older);
        assert_eq!(side(false), newer);
    }
}
