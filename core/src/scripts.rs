//! Words in scripts written without spaces between them (Chinese, Japanese, Thai, and
//! Korean, whose spaced words carry their particles), which the full-text index's
//! tokenizer would take whole: "今日は東京に行った" is one token to `unicode61`, so
//! searching 東京 would find nothing.
//!
//! Such a run of characters is indexed as the overlapping pairs of characters in it,
//! and its last character alone ("東京 京に に行 行っ った た": the bigrams of Lucene's
//! CJK analyzer). A word searched for is the phrase of its own pairs, which matches
//! exactly where the word stands in a run; a single character searched for is a prefix,
//! which matches the pairs it begins and the last character of a run. The index keeps
//! only these terms; snippets and everything shown are cut from the stored text.

use std::borrow::Cow;

/// Whether `c` is of a script written without spaces between its words.
pub fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x1100..=0x11FF // Hangul Jamo
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3130..=0x318F // Hangul compatibility Jamo
        | 0x31F0..=0x31FF // Katakana phonetic extensions
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0xFF66..=0xFF9F // half-width Katakana
        | 0x20000..=0x3134F // CJK extensions B to G
    )
}

/// Whether `text` holds any character of an unspaced script.
pub fn has_unspaced(text: &str) -> bool {
    text.chars().any(unspaced)
}

/// `text` as the index takes it: every unspaced run as its pairs and its last
/// character, apart from the words around it; other text unchanged.
pub fn for_index(text: &str) -> Cow<'_, str> {
    split_runs(text, true)
}

/// A word searched for, as the words of its FTS5 phrase: unspaced runs as their pairs
/// (a run of one character as itself).
pub fn for_query(word: &str) -> Cow<'_, str> {
    split_runs(word, false)
}

fn split_runs(text: &str, last_alone: bool) -> Cow<'_, str> {
    if !has_unspaced(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() * 3);
    let mut run: Vec<char> = Vec::new();
    let flush = |run: &mut Vec<char>, out: &mut String| {
        if run.is_empty() {
            return;
        }
        out.push(' ');
        if run.len() == 1 {
            out.push(run[0]);
        } else {
            for pair in run.windows(2) {
                out.extend(pair);
                out.push(' ');
            }
            if last_alone {
                out.push(run[run.len() - 1]);
            } else {
                out.pop();
            }
        }
        out.push(' ');
        run.clear();
    };
    for c in text.chars() {
        if unspaced(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    Cow::Owned(out.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_indexed_as_its_pairs_and_its_last_character() {
        assert_eq!(
            for_index("今日は東京に行った。"),
            "今日 日は は東 東京 京に に行 行っ った た 。"
        );
        assert_eq!(
            for_index("Bought an iPhone買った"),
            "Bought an iPhone 買っ った た"
        );
        assert_eq!(for_index("walked to the river"), "walked to the river");
        assert!(matches!(for_index("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_word_searched_for_is_its_pairs() {
        assert_eq!(for_query("東京"), "東京");
        assert_eq!(for_query("東京に"), "東京 京に");
        assert_eq!(for_query("東"), "東");
        assert_eq!(for_query("서울에서"), "서울 울에 에서");
    }
}
