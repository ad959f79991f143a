//! How well a transcript matches what was said: word error rate and key words, for the
//! tests and the bench's `stt` stage, over labelled recordings (a folder of WAV files
//! with an `expected.tsv` naming each file's text and key words).

use std::path::{Path, PathBuf};

/// A recording and what was said in it.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledClip {
    pub path: PathBuf,
    pub text: String,
    /// Words or short phrases a usable transcript must hold.
    pub keywords: Vec<String>,
}

/// Reads `expected.tsv` in `folder`: a header, then `file <tab> … <tab> text <tab>
/// keywords` (keywords comma-separated); the text is the second-to-last column.
pub fn read_labels(folder: &Path) -> std::io::Result<Vec<LabelledClip>> {
    let table = std::fs::read_to_string(folder.join("expected.tsv"))?;
    let clips = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            let (file, text, keywords) = match columns.as_slice() {
                [file, .., text, keywords] if columns.len() >= 3 => (file, text, keywords),
                _ => return None,
            };
            Some(LabelledClip {
                path: folder.join(file),
                text: (*text).to_owned(),
                keywords: keywords
                    .split(',')
                    .map(|k| k.trim().to_owned())
                    .filter(|k| !k.is_empty())
                    .collect(),
            })
        })
        .collect();
    Ok(clips)
}

/// Lower-case words without punctuation.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Word error rate: (substitutions + deletions + insertions) / words said, by edit
/// distance over words, ignoring case and punctuation.
pub fn word_error_rate(reference: &str, hypothesis: &str) -> f64 {
    let (said, heard) = (words(reference), words(hypothesis));
    if said.is_empty() {
        return if heard.is_empty() { 0.0 } else { 1.0 };
    }
    let mut row: Vec<usize> = (0..=heard.len()).collect();
    for (i, s) in said.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, h) in heard.iter().enumerate() {
            let substitution = diagonal + usize::from(s != h);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[heard.len()] as f64 / said.len() as f64
}

/// The key words a transcript is missing (case and punctuation ignored).
pub fn missing_keywords<'a>(transcript: &str, keywords: &'a [String]) -> Vec<&'a str> {
    let heard = format!(" {} ", words(transcript).join(" "));
    keywords
        .iter()
        .filter(|k| !heard.contains(&format!(" {} ", words(k).join(" "))))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_error_rate_counts_edits_per_word_said() {
        assert_eq!(word_error_rate("I went for a run.", "i went for a run"), 0.0);
        assert_eq!(word_error_rate("I went for a run", "I went to a run"), 0.2);
        assert_eq!(word_error_rate("I went for a run", "I went for run"), 0.2);
        assert_eq!(word_error_rate("a b", "a x b y"), 1.0);
        assert_eq!(word_error_rate("", ""), 0.0);
    }

    #[test]
    fn keywords_match_whole_words_and_phrases() {
        let keywords = vec!["left knee".to_owned(), "run".to_owned(), "hurting".to_owned()];
        assert_eq!(
            missing_keywords("My Left knee, after a run!", &keywords),
            ["hurting"]
        );
        assert_eq!(missing_keywords("running", &keywords[1..2]), ["run"]);
    }
}
