//! Keyword search: FTS5 with BM25 ranking and highlighted snippets.
//!
//! User text never reaches FTS5's query syntax. It is split into words exactly as the
//! index splits text (runs of letters and digits), each word becomes a quoted string,
//! and the words are joined with OR so that BM25 ranks entries matching more of them
//! higher instead of requiring all of them. No input can therefore produce an FTS
//! syntax error (quotes, `NEAR(`, `*`, `-`, column filters are all just text).

use rusqlite::{Connection, params};

use super::{SearchFilter, SearchHit};
use crate::db::queries::SEARCH_KEYWORD;
use crate::db::{Result, UserId};
use crate::timing;

/// Marks the start of a matched term in a snippet (STX). Chosen because no journal text
/// contains it, so the UI can split on it safely.
pub const HIGHLIGHT_START: char = '\u{2}';
/// Marks the end of a matched term in a snippet (ETX).
pub const HIGHLIGHT_END: char = '\u{3}';

/// Words so common they only add noise to a ranked OR query. A query of nothing but
/// these ("what did I write?") has no words to match: search then goes by date or by
/// meaning alone.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "for",
    "from",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "me",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "our",
    "she",
    "so",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "too",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "ever",
    "last",
    "write",
    "wrote",
    "tell",
    "journal",
    "entry",
    "entries",
    // Verbs and fillers that carry the shape of a question, not its subject.
    "get",
    "got",
    "go",
    "going",
    "went",
    "gone",
    "happen",
    "happened",
    "happening",
    "feel",
    "felt",
    "thing",
    "things",
    "something",
    "anything",
    "much",
    "many",
    "some",
    "really",
    "actually",
    "out",
    "over",
    "first",
    "time",
    "times",
    "way",
    "like",
    "just",
    "also",
    "still",
    "say",
    "said",
];

/// Whether the last word may be a prefix of a longer word (search as you type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastWord {
    Whole,
    Prefix,
}

/// Turns free text into a safe FTS5 query, or `None` when it has no words worth matching.
pub fn fts_query(text: &str, last: LastWord) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let ends_mid_word = text.chars().last().is_some_and(char::is_alphanumeric);
    let last_index = words.len().saturating_sub(1);
    let mut seen = std::collections::HashSet::new();
    let terms: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| !STOPWORDS.contains(&w.as_str()))
        .filter(|(_, w)| seen.insert(w.as_str()))
        .map(|(i, w)| {
            // Only letters and digits remain, so quoting cannot be escaped out of.
            let prefix = last == LastWord::Prefix && i == last_index && ends_mid_word;
            format!("\"{w}\"{}", if prefix { "*" } else { "" })
        })
        .collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

/// The best keyword matches, best first, with snippets.
pub fn search(
    conn: &Connection,
    user: UserId,
    text: &str,
    last: LastWord,
    filter: &SearchFilter,
    limit: usize,
) -> Result<Vec<SearchHit>> {
    let Some(query) = fts_query(text, last) else {
        return Ok(Vec::new());
    };
    timing::timed(SEARCH_KEYWORD.name, || {
        let mut stmt = conn.prepare_cached(SEARCH_KEYWORD.sql)?;
        let hits = stmt
            .query_map(
                params![user, query, filter.lower(), filter.upper(), limit as i64],
                |row| {
                    Ok(SearchHit {
                        entry_id: row.get(0)?,
                        // BM25 is lower-is-better; flip it so every score is higher-is-better.
                        score: -row.get::<_, f64>(1)?,
                        snippet: row.get(2)?,
                        created_at: row.get(3)?,
                        title: row.get(4)?,
                    })
                },
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(hits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_and_ored() {
        assert_eq!(
            fts_query("When did my knee start hurting?", LastWord::Whole).unwrap(),
            "\"knee\" OR \"start\" OR \"hurting\""
        );
        assert_eq!(fts_query("pott", LastWord::Prefix).unwrap(), "\"pott\"*");
        assert_eq!(fts_query("pott ", LastWord::Prefix).unwrap(), "\"pott\"");
        assert_eq!(fts_query("What did I write?", LastWord::Whole), None);
        assert_eq!(fts_query(" \"*-:() ", LastWord::Whole), None);
    }

    #[test]
    fn syntax_characters_are_only_separators() {
        let q = fts_query("NEAR(\"a\" b) title:x OR -y AND z*", LastWord::Whole).unwrap();
        assert_eq!(q, "\"near\" OR \"b\" OR \"title\" OR \"x\" OR \"y\" OR \"z\"");
    }
}
