//! Finding the right entry: keyword (FTS5, BM25), vector (sqlite-vec, exact SIMD scan)
//! and their fusion ([`fusion::Fusion`]), with dates in the question applied as a filter.
//!
//! Two entry points share everything but where vectors come from:
//! [`hybrid_knn`] asks sqlite-vec for nearest neighbours (no state, for callers that
//! search once or rarely: `mindsage ask`), [`Searcher::hybrid`] scans an in-memory copy
//! of the vectors that it keeps in step with the file (the search box in the app's
//! reader and the CLI, and the quality evaluation). [`hybrid_shared`] scans the same
//! copy from another thread's connection ([`SharedVectors`]: the app's Ask uses the
//! reader's copy, so an encrypted journal, whose vectors sqlite-vec would decrypt chunk
//! by chunk, keeps one copy and every search of it is a memory scan).
//!
//! Results stop at the relevance floor ([`relevance`]): what is not close to the query
//! is not listed, so an empty outcome means nothing in the journal is.
//!
//! Snippets mark matched words with [`keyword::HIGHLIGHT_START`] and
//! [`keyword::HIGHLIGHT_END`].

pub mod dates;
pub mod document;
pub mod fusion;
pub mod kernels;
pub mod keyword;
pub mod nearest;
pub mod quality;
pub mod quantize;
pub mod question;
pub mod relevance;
pub mod remembered;
pub mod snippet;
pub mod themes;

use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Local, NaiveDate};
use rusqlite::Connection;

use crate::db::vectors::VectorModel;
use crate::db::{EntryId, Result, UserId, vec_extension};
use keyword::{LastWord, Matching, QueryWords, RankingConnections};
use nearest::VectorCache;
use remembered::{AtNames, Within};

/// What is searched: entries lived from `from` to `to`, both inclusive, each on the
/// day it was lived where it was written (its `local_date`, [`crate::clock::lived`]),
/// as the journal's list filters them; and, with `within`, only the entries of the
/// people and places asked about.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchFilter {
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub within: Option<Arc<Within>>,
}

impl SearchFilter {
    pub fn is_empty(&self) -> bool {
        !self.dated() && self.within.is_none()
    }

    fn dated(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }

    /// Whether entry `id`, lived on `day`, is searched (one whose day could not be read
    /// is not, while a date is asked for).
    pub fn keeps(&self, id: EntryId, day: Option<NaiveDate>) -> bool {
        self.within.as_ref().is_none_or(|w| w.contains(id)) && self.keeps_day(day)
    }

    /// Whether an entry lived on `day` is in the dates searched.
    pub fn keeps_day(&self, day: Option<NaiveDate>) -> bool {
        match day {
            Some(day) => self.from.is_none_or(|f| day >= f) && self.to.is_none_or(|t| day <= t),
            None => !self.dated(),
        }
    }

    /// The first day as stored, or "" (before every day).
    fn lower(&self) -> String {
        self.from.map(crate::clock::format_date).unwrap_or_default()
    }

    /// The last day as stored, or after every day.
    fn upper(&self) -> String {
        self.to
            .map_or_else(|| "9999".to_owned(), crate::clock::format_date)
    }
}

/// What to search for.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    /// The words to match (dates already taken out by [`SearchQuery::from_text`]).
    pub text: String,
    pub filter: SearchFilter,
    pub limit: usize,
    /// How the keyword and vector rankings become one.
    pub fusion: fusion::Fusion,
    /// Whether the last word may be a prefix (search box) or is whole (questions).
    pub last_word: LastWord,
    /// Whether entries with every word come first (search box) or BM25 alone orders
    /// them (questions).
    pub matching: Matching,
    /// Whether entries below the relevance floor are left out ([`relevance`]). Every
    /// list a person sees leaves them out; the quality evaluation ranks without it, to
    /// measure the floor.
    pub floor: bool,
}

impl SearchQuery {
    /// A question for `text` with no date filter.
    pub fn new(text: &str, limit: usize) -> SearchQuery {
        SearchQuery {
            text: text.to_owned(),
            filter: SearchFilter::default(),
            limit,
            fusion: fusion::Fusion::QUESTIONS,
            last_word: LastWord::Whole,
            matching: Matching::AnyWord,
            floor: true,
        }
    }

    /// The same query as typed into the search box: the last word may be half typed,
    /// entries with every word come first, and the words typed weigh as much as the
    /// meaning.
    pub fn typed(self) -> SearchQuery {
        SearchQuery {
            last_word: LastWord::Prefix,
            matching: Matching::AllWordsFirst,
            fusion: fusion::Fusion::TYPED,
            ..self
        }
    }

    /// Reads an explicit date out of `text` ("last March", "yesterday", …), applies it
    /// as the filter and searches the remaining words.
    pub fn from_text(
        text: &str,
        now: DateTime<Local>,
        limit: usize,
    ) -> (SearchQuery, Option<dates::DateRange>) {
        let range = dates::parse_date_range(text, now);
        let mut query = SearchQuery::new(text, limit);
        if let Some(range) = &range {
            query.text = text.replacen(&range.matched, " ", 1);
            query.filter = SearchFilter {
                from: Some(range.start),
                to: range.end.pred_opt(),
                within: None,
            };
        }
        (query, range)
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchHit {
    pub entry_id: EntryId,
    pub created_at: String,
    /// Seconds east of UTC where it was written ([`SearchHit::lived`]).
    pub utc_offset: i32,
    pub title: String,
    /// Text around the match, highlights marked; the entry's opening for vector-only hits.
    pub snippet: String,
    /// Higher is better; comparable only within one result list.
    pub score: f64,
}

impl SearchHit {
    /// The local date and time it was lived where it was written ([`clock::lived`]).
    pub fn lived(&self) -> Option<chrono::DateTime<chrono::FixedOffset>> {
        crate::clock::lived(&self.created_at, self.utc_offset)
    }
}

/// Whether vectors took part.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum SearchMode {
    Hybrid,
    KeywordOnly {
        reason: String,
    },
    /// No words to match, only dates or `@name`s: their entries, newest first.
    DateOnly,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchOutcome {
    pub hits: Vec<SearchHit>,
    pub mode: SearchMode,
    /// The people and places the search box's `@name`s stand for, as a person reads
    /// them ("Maya, whom you call your sister"): the hits are their entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remembered: Vec<String>,
    /// The `@name`s that stand for nothing the journal remembers, as typed: nothing is
    /// listed for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_remembered: Vec<String>,
}

/// Results the search box lists, and `mindsage search` by default.
pub const SEARCH_BOX_RESULTS: usize = 50;

/// Candidates taken from each method before fusion for a list of `limit` results (the
/// bench times keyword search at this depth).
pub fn candidates(limit: usize) -> usize {
    limit.saturating_mul(4).max(50)
}

/// Hybrid search with sqlite-vec's KNN over the file for the vector half: no state to
/// keep, for one-off searches ([`Searcher::hybrid`] scans an in-memory copy instead).
pub fn hybrid_knn(
    conn: &Connection,
    user: UserId,
    query: &SearchQuery,
    embedding: Option<&[f32]>,
) -> Result<SearchOutcome> {
    let vector_half = vector_ranking(conn, user, embedding, |model, e| {
        let found = nearest::knn_sqlite_vec(conn, user, model, e, candidates(query.limit), &query.filter)?;
        // Unit vectors: squared L2 distance is 2 - 2 cos.
        Ok(found
            .into_iter()
            .map(|(id, distance)| (id, 1.0 - f64::from(distance * distance) / 2.0))
            .collect())
    })?;
    fuse(conn, &mut RankingConnections::none(), user, query, vector_half)
}

/// An in-memory vector copy shared by the threads that search it (the app's reader and
/// its Ask thread), each refreshing it from its own connection to the same journal.
pub type SharedVectors = Arc<Mutex<VectorCache>>;

/// The copy for a plain journal, or for an encrypted one when `encrypted`
/// ([`VectorCache::for_encrypted_journal`]).
pub fn shared_vectors(encrypted: bool) -> SharedVectors {
    Arc::new(Mutex::new(match encrypted {
        true => VectorCache::for_encrypted_journal(),
        false => VectorCache::default(),
    }))
}

/// The copy, whole: one a thread left in the middle of a change (it panicked) is
/// emptied, and the next refresh reads it again from the file.
fn lock(vectors: &Mutex<VectorCache>) -> MutexGuard<'_, VectorCache> {
    vectors.lock().unwrap_or_else(|poisoned| {
        let mut cache = poisoned.into_inner();
        cache.empty();
        cache
    })
}

/// Hybrid search whose vector half scans `vectors`, brought in step with the file
/// through `conn` first: [`Searcher::hybrid`] for a thread that shares the copy.
pub fn hybrid_shared(
    conn: &Connection,
    user: UserId,
    query: &SearchQuery,
    embedding: Option<&[f32]>,
    vectors: &Mutex<VectorCache>,
) -> Result<SearchOutcome> {
    hybrid_scanning(
        conn,
        &mut RankingConnections::none(),
        user,
        query,
        embedding,
        vectors,
    )
}

/// Hybrid search over the in-memory copy `vectors`, keyword parts ranked with `rankers`.
fn hybrid_scanning(
    conn: &Connection,
    rankers: &mut RankingConnections,
    user: UserId,
    query: &SearchQuery,
    embedding: Option<&[f32]>,
    vectors: &Mutex<VectorCache>,
) -> Result<SearchOutcome> {
    let vector_half = vector_ranking(conn, user, embedding, |_, e| {
        let mut cache = lock(vectors);
        cache.refresh(conn, user)?;
        let found = crate::timing::timed(VECTOR_SCAN_TIMING, || {
            cache.search(conn, e, candidates(query.limit), &query.filter)
        })?;
        Ok(found
            .into_iter()
            .map(|(id, similarity)| (id, f64::from(similarity)))
            .collect())
    })?;
    fuse(conn, rankers, user, query, vector_half)
}

/// The vector half of a search.
enum VectorHalf {
    /// Entries with their cosine similarity to the query, best first.
    Ranked(Vec<(EntryId, f64)>),
    /// No vector ranking, and why: the search ranks by keywords alone and says so.
    Missing(NoVectors),
}

/// Why a search has no vector ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NoVectors {
    /// The caller had no embedding of the query (no model, or it failed).
    NoEmbedding,
    /// sqlite-vec did not load on this connection.
    NoExtension,
    /// None of the person's entries has a vector yet.
    NothingEmbedded,
}

impl std::fmt::Display for NoVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoVectors::NoEmbedding => "no embedding for this query",
            NoVectors::NoExtension => {
                "vector search is unavailable: the sqlite-vec extension could not be loaded"
            }
            NoVectors::NothingEmbedded => "no entry has been embedded yet",
        })
    }
}

/// The vector half's ranking from `find`, given the active vector set and the query's
/// embedding, or why there is none.
fn vector_ranking(
    conn: &Connection,
    user: UserId,
    embedding: Option<&[f32]>,
    find: impl FnOnce(&VectorModel, &[f32]) -> Result<Vec<(EntryId, f64)>>,
) -> Result<VectorHalf> {
    let Some(embedding) = embedding else {
        return Ok(VectorHalf::Missing(NoVectors::NoEmbedding));
    };
    if vec_extension::extension_version(conn).is_none() {
        return Ok(VectorHalf::Missing(NoVectors::NoExtension));
    }
    Ok(match crate::db::vectors::active_model(conn, user)? {
        Some(model) => VectorHalf::Ranked(find(&model, embedding)?),
        None => VectorHalf::Missing(NoVectors::NothingEmbedded),
    })
}

/// The timing of the vector half's scan of the in-memory copy.
const VECTOR_SCAN_TIMING: &str = "search.vector";

/// Search with an in-memory vector copy and, for keyword ranking, connections of its
/// own to rank parts of a large journal in parallel; keep one per reader connection.
#[derive(Default)]
pub struct Searcher {
    cache: SharedVectors,
    rankers: RankingConnections,
}

impl Searcher {
    /// A searcher for an encrypted journal: its ranking connections are opened with
    /// `key`, and its vector copy re-scores from memory, not the file
    /// ([`VectorCache::for_encrypted_journal`]). `None`, as [`Searcher::default`], for
    /// a plain journal.
    pub fn with_key(key: Option<crate::db::cipher::JournalKey>) -> Searcher {
        Searcher::sharing(shared_vectors(key.is_some()), key)
    }

    /// [`Searcher::with_key`] scanning `vectors`, a copy other threads search too
    /// ([`hybrid_shared`]).
    pub fn sharing(vectors: SharedVectors, key: Option<crate::db::cipher::JournalKey>) -> Searcher {
        Searcher {
            cache: vectors,
            rankers: RankingConnections::with_key(key),
        }
    }

    /// The vector copy, for memory figures and the bench.
    pub fn cache(&self) -> MutexGuard<'_, VectorCache> {
        lock(&self.cache)
    }

    /// Threads a keyword ranking of a large journal runs on (1 until one needed more).
    pub fn ranking_threads(&self) -> usize {
        1 + self.rankers.opened()
    }

    /// The search box's search of `text`: a date in it ("in March") becomes the filter,
    /// the last word may be half typed, entries with every word come first, and meaning
    /// joins the words when `embedding` (of the whole `text`) is given. The window and
    /// `mindsage search` both run it ([`crate::ai::search_box`]).
    pub fn search_box(
        &mut self,
        conn: &Connection,
        user: UserId,
        text: &str,
        now: DateTime<Local>,
        limit: usize,
        embedding: Option<&[f32]>,
    ) -> Result<SearchOutcome> {
        let at = AtNames::split(text);
        let (mut query, _) = SearchQuery::from_text(&at.rest, now, limit);
        let resolved = remembered::resolve(conn, user, &at)?;
        if !resolved.unknown.is_empty() {
            return Ok(SearchOutcome {
                hits: Vec::new(),
                mode: SearchMode::DateOnly,
                remembered: resolved.described,
                not_remembered: resolved.unknown,
            });
        }
        if !resolved.subjects.is_empty() {
            query.filter.within = Some(Arc::new(Within::of(conn, user, &resolved.subjects)?));
        }
        let mut outcome = self.hybrid(conn, user, &query.typed(), embedding)?;
        outcome.remembered = resolved.described;
        Ok(outcome)
    }

    /// Hybrid search; the vector half scans every stored vector exactly.
    pub fn hybrid(
        &mut self,
        conn: &Connection,
        user: UserId,
        query: &SearchQuery,
        embedding: Option<&[f32]>,
    ) -> Result<SearchOutcome> {
        hybrid_scanning(conn, &mut self.rankers, user, query, embedding, &self.cache)
    }
}

/// Keyword ranking, fused with the vector ranking when there is one, less what is below
/// the relevance floor when the query asks for it; then the shown hits' text, and only
/// theirs. Keyword matches alone are all kept: the floor of keywords is the match.
fn fuse(
    conn: &Connection,
    rankers: &mut RankingConnections,
    user: UserId,
    query: &SearchQuery,
    vector_half: VectorHalf,
) -> Result<SearchOutcome> {
    let words = QueryWords::parse(&query.text, query.last_word);
    let keyword_hits = match &words {
        Some(words) => {
            let depth = candidates(query.limit);
            keyword::rank(conn, rankers, user, words, &query.filter, depth, query.matching)?
        }
        None if !query.filter.is_empty() => return filter_only(conn, user, query),
        None => Vec::new(),
    };
    let (ranked, mode) = match &vector_half {
        // Alone, the keyword list keeps its order, and scores from its ranks go down it
        // even where entries with every word come before higher BM25 scores.
        VectorHalf::Missing(reason) => (
            fusion::reciprocal_rank_fusion(&[&fusion::ids(&keyword_hits)], fusion::DEFAULT_K),
            SearchMode::KeywordOnly {
                reason: reason.to_string(),
            },
        ),
        VectorHalf::Ranked(vector_hits) if query.floor => (
            query.fusion.fuse_relevant(&keyword_hits, vector_hits),
            SearchMode::Hybrid,
        ),
        VectorHalf::Ranked(vector_hits) => {
            (query.fusion.fuse(&keyword_hits, vector_hits), SearchMode::Hybrid)
        }
    };
    let matcher = words.as_ref().map(snippet::Matcher::new);
    let mut hits = Vec::new();
    for (id, score) in ranked {
        if hits.len() == query.limit {
            break;
        }
        // Entries trashed or purged since the vector copy was refreshed have no text
        // and are skipped.
        if let Some(hit) = snippet::load_hit(conn, user, id, score, matcher.as_ref())? {
            hits.push(hit);
        }
    }
    Ok(SearchOutcome {
        hits,
        mode,
        remembered: Vec::new(),
        not_remembered: Vec::new(),
    })
}

/// No words to match, only a filter: its entries, newest first.
fn filter_only(conn: &Connection, user: UserId, query: &SearchQuery) -> Result<SearchOutcome> {
    let rows = match &query.filter.within {
        Some(within) => within
            .rows()
            .iter()
            .filter(|row| {
                let day = crate::clock::lived(&row.created_at, row.utc_offset).map(|l| l.date_naive());
                query.filter.keeps_day(day)
            })
            .take(query.limit)
            .cloned()
            .collect(),
        None => {
            let filter = crate::db::entries::ListFilter {
                from: query.filter.from,
                to: query.filter.to,
                ..Default::default()
            };
            crate::db::entries::list(conn, user, &filter, None, query.limit as u32)?.rows
        }
    };
    let count = rows.len();
    let hits = rows
        .into_iter()
        .enumerate()
        .map(|(i, row)| SearchHit {
            entry_id: row.id,
            created_at: row.created_at,
            utc_offset: row.utc_offset,
            title: row.title,
            snippet: row.preview,
            score: (count - i) as f64,
        })
        .collect();
    Ok(SearchOutcome {
        hits,
        mode: SearchMode::DateOnly,
        remembered: Vec::new(),
        not_remembered: Vec::new(),
    })
}
