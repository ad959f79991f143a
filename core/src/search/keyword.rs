//! Keyword ranking: FTS5 with BM25 (snippets for the hits shown are made by [`super::snippet`]).
//!
//! User text never reaches FTS5's query syntax. It is split into words exactly as the
//! index splits text (runs of letters and digits), each word becomes a quoted string,
//! and the words are joined with OR so that BM25 ranks entries matching more of them
//! higher instead of requiring all of them. No input can therefore produce an FTS
//! syntax error (quotes, `NEAR(`, `*`, `-`, column filters are all just text).
//!
//! A word in a script written without spaces is matched as the index holds it
//! ([`crate::scripts`]): typed into the search box, as the phrase of its pairs of
//! characters (where it stands in the text, as Find does); in a question, whose words
//! run together, as each of its pairs, so entries sharing more of them rank higher.

use std::ops::RangeInclusive;

use rusqlite::{Connection, params};

use super::SearchFilter;
use crate::db::queries::{
    ENTRY_ID_RANGE, SEARCH_KEYWORD, SEARCH_KEYWORD_DOCS, SEARCH_KEYWORD_OCCURS, SEARCH_KEYWORD_TOP,
};
use crate::db::{EntryId, Result, UserId};
use crate::scripts;
use crate::timing;

/// Marks the start of a matched term in a snippet (STX). Chosen because no journal text
/// contains it, so the UI can split on it safely.
pub const HIGHLIGHT_START: char = '\u{2}';
/// Marks the end of a matched term in a snippet (ETX).
pub const HIGHLIGHT_END: char = '\u{3}';

/// Words so common they only add noise to a ranked OR query. A query of nothing but
/// these ("what did I write?") has no words to match: search then goes by date or by
/// meaning alone. Sorted, so a word is looked up by halves ([`is_stopword`]): themes
/// split every entry of half a year into words.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "actually",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
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
    "entries",
    "entry",
    "ever",
    "feel",
    "felt",
    "first",
    "for",
    "from",
    "get",
    "go",
    "going",
    "gone",
    "got",
    "had",
    "happen",
    "happened",
    "happening",
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
    "journal",
    "just",
    "last",
    "like",
    "many",
    "me",
    "much",
    "my",
    "myself",
    "of",
    "on",
    "or",
    "our",
    "out",
    "over",
    "really",
    "said",
    "say",
    "she",
    "so",
    "some",
    "something",
    "still",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "time",
    "times",
    "to",
    "too",
    "up",
    "us",
    "very",
    "was",
    "way",
    "we",
    "went",
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
    "write",
    "wrote",
    "you",
    "your",
];

pub(crate) fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// Whether the last word may be a prefix of a longer word (search as you type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastWord {
    Whole,
    Prefix,
}

/// The words of a query that are worth matching: lowercased, stopwords removed, each
/// once, in the order typed. Both the FTS5 query and the snippet's highlighting are
/// made from them, so they agree on what matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWords {
    pub words: Vec<String>,
    /// Whether the last word is half typed and matches any word it begins.
    pub last_is_prefix: bool,
}

impl QueryWords {
    /// The words of `text`, or `None` when it has none worth matching. In a question
    /// (`LastWord::Whole`) a lone letter or digit (the "s" of "what's", the "t" of
    /// "don't") says nothing of its subject and is left out, so "What's happened this
    /// week?" lists the week; typed into the search box it may be a word's beginning.
    pub fn parse(text: &str, last: LastWord) -> Option<QueryWords> {
        let all: Vec<String> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .flat_map(|w| match last {
                // A question's unspaced words run together: each pair is a word.
                LastWord::Whole if scripts::has_unspaced(&w) => {
                    scripts::for_query(&w).split(' ').map(str::to_owned).collect()
                }
                _ => vec![w],
            })
            .collect();
        let ends_mid_word = text.chars().last().is_some_and(char::is_alphanumeric);
        let last_kept = all.last().is_some_and(|w| !is_stopword(w));
        let mut seen = std::collections::HashSet::new();
        let words: Vec<String> = all
            .iter()
            .filter(|w| !is_stopword(w))
            .filter(|w| last == LastWord::Prefix || w.len() > 1)
            .filter(|w| seen.insert(w.as_str()))
            .cloned()
            .collect();
        // A repeated last word was kept at its first place, where it is whole.
        let last_is_prefix = last == LastWord::Prefix
            && ends_mid_word
            && last_kept
            && all.iter().filter(|w| Some(*w) == all.last()).count() == 1;
        (!words.is_empty()).then_some(QueryWords {
            words,
            last_is_prefix,
        })
    }

    /// The FTS5 query matching any of the words: each word quoted (only letters and
    /// digits remain, and the spaces between an unspaced word's pairs, so quoting
    /// cannot be escaped out of), joined with OR. A lone unspaced character is a prefix:
    /// it is indexed as the pairs it begins.
    pub fn fts_query(&self) -> String {
        self.joined(" OR ")
    }

    /// The FTS5 query matching entries that contain every word.
    fn fts_query_all(&self) -> String {
        self.joined(" AND ")
    }

    fn joined(&self, operator: &str) -> String {
        let last = self.words.len().saturating_sub(1);
        self.words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let lone = scripts::has_unspaced(w) && w.chars().count() == 1;
                let prefix = (self.last_is_prefix && i == last) || lone;
                format!("\"{}\"{}", scripts::for_query(w), if prefix { "*" } else { "" })
            })
            .collect::<Vec<_>>()
            .join(operator)
    }
}

/// How entries matching only some of the words are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// By BM25 alone: for questions, whose words are rarely all in one entry.
    AnyWord,
    /// Entries with every word first, then the others, each by BM25: for words typed
    /// into the search box, where each word added should narrow what comes first.
    AllWordsFirst,
}

/// Journals with fewer entries than this rank on one connection: their matches take
/// well under a millisecond to score, less than handing half to a thread is worth.
const SPLIT_FROM_ENTRIES: i64 = 4096;

/// `user`'s live entries matching `words` in `filter`, best first, at most `limit`,
/// each with its keyword score (BM25 negated: higher is better). No text is read:
/// snippets are made only for the hits a list shows ([`super::snippet::load_hit`]).
///
/// BM25 costs about a microsecond per matching entry, so a common word in a large
/// journal is the slow case. Without a date filter the matches are split by id range
/// between `conn` and the `helpers` (other connections to the same file), each ranked
/// on its own thread, and the best of all parts kept. With
/// [`Matching::AllWordsFirst`], entries with every word usually fill the list, and
/// those with only some are not scored at all.
pub fn rank(
    conn: &Connection,
    helpers: &mut RankingConnections,
    user: UserId,
    words: &QueryWords,
    filter: &SearchFilter,
    limit: usize,
    matching: Matching,
) -> Result<Vec<(EntryId, f64)>> {
    timing::timed(SEARCH_KEYWORD.name, || {
        // Read once for both queries of an all-words-first ranking.
        let (first, last): (Option<EntryId>, Option<EntryId>) =
            conn.query_row(ENTRY_ID_RANGE.sql, [], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(Vec::new());
        };
        let ids = first..=last;
        let mut ranked = Vec::new();
        if matching == Matching::AllWordsFirst && words.words.len() > 1 {
            let query = words.fts_query_all();
            ranked = rank_query(conn, helpers, user, &query, &ids, filter, limit)?;
            if ranked.len() == limit {
                return Ok(ranked);
            }
        }
        for (id, score) in rank_query(conn, helpers, user, &words.fts_query(), &ids, filter, limit)? {
            if ranked.len() == limit {
                break;
            }
            if !ranked.iter().any(|(known, _)| *known == id) {
                ranked.push((id, score));
            }
        }
        Ok(ranked)
    })
}

/// The best `limit` matches of one FTS5 query with their scores, best first; `ids`
/// spans every entry id in the file.
fn rank_query(
    conn: &Connection,
    helpers: &mut RankingConnections,
    user: UserId,
    query: &str,
    ids: &RangeInclusive<EntryId>,
    filter: &SearchFilter,
    limit: usize,
) -> Result<Vec<(EntryId, f64)>> {
    if filter.is_empty()
        && let Some(ranked) = rank_all(conn, helpers, user, query, ids, limit)?
    {
        return Ok(ranked);
    }
    // Kept to some people's entries, every match in the dates is ranked and theirs
    // taken: they may stand anywhere in the whole journal's ranking.
    let asked = match filter.within {
        Some(_) => -1,
        None => limit as i64,
    };
    let mut stmt = conn.prepare_cached(SEARCH_KEYWORD.sql)?;
    let ranked = stmt
        .query_map(
            params![user, query, filter.lower(), filter.upper(), asked],
            |row| Ok((row.get(0)?, -row.get::<_, f64>(1)?)),
        )?
        .filter(|found| {
            found.as_ref().map_or(true, |(id, _)| {
                filter.within.as_ref().is_none_or(|w| w.contains(*id))
            })
        })
        .take(limit)
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ranked)
}

/// Threads one keyword ranking uses at most; past a few, merging costs what splitting saves.
const MAX_RANKING_THREADS: usize = 4;

/// Other connections to the caller's file that a large ranking is split over: one per
/// core beyond the first, up to `MAX_RANKING_THREADS` in all. They are opened the
/// first time a ranking is large enough to split, so a small journal never pays for
/// them; an in-memory database or a failure to open leaves ranking on the caller's
/// connection alone.
#[derive(Default)]
pub struct RankingConnections {
    opened: Option<Vec<Connection>>,
    /// The journal's key, when it is encrypted.
    key: Option<crate::db::cipher::JournalKey>,
}

impl RankingConnections {
    /// Connections to an encrypted journal, opened with its key.
    pub fn with_key(key: Option<crate::db::cipher::JournalKey>) -> RankingConnections {
        RankingConnections { opened: None, key }
    }

    /// None at all: every ranking stays on the caller's connection (one-off searches).
    pub fn none() -> RankingConnections {
        RankingConnections {
            opened: Some(Vec::new()),
            key: None,
        }
    }

    /// How many are open.
    pub fn opened(&self) -> usize {
        self.opened.as_ref().map_or(0, Vec::len)
    }

    fn open(&mut self, conn: &Connection) -> &mut [Connection] {
        let key = &self.key;
        self.opened.get_or_insert_with(|| open_helpers(conn, key.clone()))
    }
}

fn open_helpers(conn: &Connection, key: Option<crate::db::cipher::JournalKey>) -> Vec<Connection> {
    let Some(path) = conn.path().filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let options = crate::db::StorageOptions {
        vector_extension: false,
        key,
        ..Default::default()
    };
    let opened: Result<Vec<Connection>> = (1..threads.min(MAX_RANKING_THREADS))
        .map(|_| crate::db::open(std::path::Path::new(path), &options))
        .collect();
    opened.unwrap_or_else(|error| {
        tracing::warn!(%error, "keyword ranking stays on one connection");
        Vec::new()
    })
}

/// How many entries of the whole file contain `word` (trashed ones and every profile's
/// included), from the full-text index without reading them: how common it is.
pub fn documents_with(conn: &Connection, word: &str) -> Result<u64> {
    let Some(words) = QueryWords::parse(word, LastWord::Whole) else {
        return Ok(0);
    };
    let n: i64 = conn
        .prepare_cached(SEARCH_KEYWORD_DOCS.sql)?
        .query_row(params![words.fts_query()], |row| row.get(0))?;
    Ok(n.max(0) as u64)
}

/// Whether any of `user`'s live entries matches `words`, without ranking the matches.
pub fn occurs(conn: &Connection, user: UserId, words: &QueryWords) -> Result<bool> {
    timing::timed(SEARCH_KEYWORD_OCCURS.name, || {
        let mut stmt = conn.prepare_cached(SEARCH_KEYWORD_OCCURS.sql)?;
        Ok(stmt.query_row(params![user, words.fts_query()], |row| row.get(0))?)
    })
}

/// The ranking over every entry in the file, or `None` when a top place belongs to
/// another profile (then only a ranking that filters first is right).
fn rank_all(
    conn: &Connection,
    helpers: &mut RankingConnections,
    user: UserId,
    query: &str,
    ids: &RangeInclusive<EntryId>,
    limit: usize,
) -> Result<Option<Vec<(EntryId, f64)>>> {
    let (first, last) = (*ids.start(), *ids.end());
    let helpers: &mut [Connection] = if last - first < SPLIT_FROM_ENTRIES {
        &mut []
    } else {
        helpers.open(conn)
    };
    let parts = helpers.len() + 1;
    let span = (last - first) / parts as i64 + 1;
    let bounds = |part: usize| (first + span * part as i64, first + span * (part as i64 + 1) - 1);
    let mut rows = std::thread::scope(|scope| -> Result<Vec<TopRow>> {
        let threads: Vec<_> = helpers
            .iter_mut()
            .take(parts - 1)
            .enumerate()
            .map(|(i, helper)| scope.spawn(move || top_rows(helper, user, query, bounds(i + 1), limit)))
            .collect();
        let mut rows = top_rows(conn, user, query, bounds(0), limit)?;
        for thread in threads {
            rows.extend(
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
            );
        }
        Ok(rows)
    })?;
    if !rows.iter().all(|row| row.mine) {
        return Ok(None);
    }
    // BM25 is lower-is-better; equal scores go by id, as within one part.
    rows.sort_by(|a, b| a.bm25.total_cmp(&b.bm25).then(a.id.cmp(&b.id)));
    rows.truncate(limit);
    Ok(Some(rows.into_iter().map(|row| (row.id, -row.bm25)).collect()))
}

/// One ranked match from [`SEARCH_KEYWORD_TOP`].
struct TopRow {
    id: EntryId,
    bm25: f64,
    /// A live entry of the user searching.
    mine: bool,
}

fn top_rows(
    conn: &Connection,
    user: UserId,
    query: &str,
    ids: (i64, i64),
    limit: usize,
) -> Result<Vec<TopRow>> {
    let mut stmt = conn.prepare_cached(SEARCH_KEYWORD_TOP.sql)?;
    let rows = stmt
        .query_map(params![user, query, limit as i64, ids.0, ids.1], |row| {
            Ok(TopRow {
                id: row.get(0)?,
                bm25: row.get(1)?,
                mine: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_sorted_for_their_lookup() {
        assert!(STOPWORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(is_stopword("a") && is_stopword("the") && is_stopword("what") && !is_stopword("knee"));
    }

    /// The FTS5 query for free text, as ranking builds it.
    fn fts_query(text: &str, last: LastWord) -> Option<String> {
        QueryWords::parse(text, last).map(|w| w.fts_query())
    }

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
        // A lone letter is no subject in a question, and may begin a word being typed.
        assert_eq!(fts_query("What's it about?", LastWord::Whole), None);
        assert_eq!(
            fts_query("Dad's fall", LastWord::Whole).unwrap(),
            "\"dad\" OR \"fall\""
        );
        assert_eq!(fts_query("w", LastWord::Prefix).unwrap(), "\"w\"*");
    }

    #[test]
    fn syntax_characters_are_only_separators() {
        let q = fts_query("NEAR(\"a\" b) title:x OR -y AND z*", LastWord::Prefix).unwrap();
        assert_eq!(q, "\"near\" OR \"b\" OR \"title\" OR \"x\" OR \"y\" OR \"z\"");
    }
}
