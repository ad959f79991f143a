//! Retrieval quality on a hand-labelled set: does search put the right entry first?
//!
//! A labelled set is a small journal plus questions whose relevant entries were marked
//! by hand. [`evaluate`] writes the journal into a real journal file the caller opened
//! for it (the bench and the tests make a temporary one), embeds it with the configured
//! model, and asks every question through exactly the paths the app uses: the search
//! box's (dates read out of the question, then keyword, vector and hybrid search) and
//! Ask's, which also reads a period named by an event ("since the move") and the people
//! and places the journal remembers ([`super::question`]). Ask's is scored twice, with
//! and without what the journal remembers, so the figures show what memory gains. The
//! scores are what a person would experience. Everything is deterministic: the same
//! set, model and options give the same numbers on every run.
//!
//! Format (JSON), documented in `bench/data/README.md`:
//! `{"name", "now", "entries":[{"id","created_at","title","body","tags","remembers"}],
//!   "questions":[{"id","text","relevant":[ids],"kind"}]}`. `now` (optional, RFC 3339) is
//! the instant relative dates in questions are read against; `tags` may be missing;
//! `remembers` (optional) is what enrichment would have found in the entry
//! (`[{"kind": "person"|"place"|"activity", "name", "relation"}]`), written to the
//! journal's memory as enrichment writes it;
//! `kind` (optional) groups questions so scores can be read per kind. A question whose
//! `relevant` is empty is one the journal does not answer: it takes no part in the
//! ranking figures, and measures the relevance floor ([`super::relevance`]) with the
//! answerable ones ([`FloorScores`]).

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, Local, Utc};
use rusqlite::Connection;

use super::document::{DocumentText, document_text};
use super::question;
use super::relevance::{self, close_in_meaning};
use super::{SearchMode, SearchQuery, Searcher};
use crate::clock;
use crate::db::entries::{self, NewEntry};
use crate::db::{self, DEFAULT_USER, memory, vectors};

/// How many results a question's ranking keeps; MRR counts a first relevant hit up to here.
const RANKED: usize = 10;

/// The first results that count as found: recall's depth, and as many as Ask gives the
/// model as sources (`ai::plan::CONTEXT_ENTRIES`).
const FIRST: usize = 5;

#[derive(Debug, Clone, serde::Deserialize)]
pub struct LabelledSet {
    #[serde(default)]
    pub name: String,
    /// When the questions are asked; defaults to just after the newest entry.
    pub now: Option<String>,
    pub entries: Vec<LabelledEntry>,
    pub questions: Vec<LabelledQuestion>,
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct LabelledEntry {
    pub id: String,
    pub created_at: String,
    #[serde(default)]
    pub title: String,
    pub body: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// What enrichment would have found in it: the people, places and activities.
    #[serde(default)]
    pub remembers: Vec<LabelledMemory>,
}

/// One person, place or activity an entry mentions, as the model would report it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct LabelledMemory {
    pub kind: memory::Kind,
    pub name: String,
    #[serde(default)]
    pub relation: String,
}

impl LabelledEntry {
    /// The entry as a journal entry, at its labelled date (`None` if the date does not
    /// parse; [`LabelledSet::load`] has checked the committed sets' dates).
    pub fn new_entry(&self) -> NewEntry {
        NewEntry {
            title: self.title.clone(),
            body: self.body.clone(),
            tags: self.tags.clone(),
            mood_score: None,
            created_at: clock::parse_utc(&self.created_at).map(clock::here),
        }
    }
}

impl LabelledQuestion {
    /// Whether an entry of the journal answers it.
    pub fn is_answerable(&self) -> bool {
        !self.relevant.is_empty()
    }
}

#[derive(Debug, Clone, serde::Deserialize)]
pub struct LabelledQuestion {
    pub id: String,
    pub text: String,
    /// The entries that answer it; empty when the journal does not.
    pub relevant: Vec<String>,
    /// What sort of question it is (`topic`, `date`, …), when the set says.
    #[serde(default)]
    pub kind: Option<String>,
}

/// Why a labelled set could not be scored.
#[derive(Debug, thiserror::Error)]
pub enum QualityError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("not a labelled set: {0}")]
    Format(String),
    #[error("journal: {0}")]
    Db(#[from] db::DbError),
    #[error("embedding failed: {0}")]
    Embed(String),
}

impl LabelledSet {
    pub fn load(path: &Path) -> Result<LabelledSet, QualityError> {
        let text = std::fs::read_to_string(path).map_err(|source| QualityError::Read {
            path: path.display().to_string(),
            source,
        })?;
        LabelledSet::parse(&text)
    }

    /// Parses and checks a set: unique ids, parseable dates, every label pointing at an entry.
    pub fn parse(text: &str) -> Result<LabelledSet, QualityError> {
        let set: LabelledSet = serde_json::from_str(text).map_err(|e| QualityError::Format(e.to_string()))?;
        let mut ids = std::collections::HashSet::new();
        for entry in &set.entries {
            if !ids.insert(entry.id.as_str()) {
                return Err(QualityError::Format(format!(
                    "entry id {} appears twice",
                    entry.id
                )));
            }
            if clock::parse_utc(&entry.created_at).is_none() {
                return Err(QualityError::Format(format!(
                    "entry {}: created_at is not RFC 3339",
                    entry.id
                )));
            }
        }
        for q in &set.questions {
            if let Some(missing) = q.relevant.iter().find(|r| !ids.contains(r.as_str())) {
                return Err(QualityError::Format(format!(
                    "question {} labels unknown entry {missing}",
                    q.id
                )));
            }
        }
        if !set.questions.iter().any(LabelledQuestion::is_answerable) {
            return Err(QualityError::Format("no answerable questions".into()));
        }
        Ok(set)
    }

    fn now(&self) -> DateTime<Local> {
        self.now
            .as_deref()
            .and_then(clock::parse_utc)
            .or_else(|| {
                self.entries
                    .iter()
                    .filter_map(|e| clock::parse_utc(&e.created_at))
                    .max()
                    .map(|t| t + chrono::Duration::hours(1))
            })
            .unwrap_or_else(Utc::now)
            .with_timezone(&Local)
    }
}

/// How entries and questions are embedded and the rankings fused.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct QualityOptions {
    pub model: String,
    pub document_text: DocumentText,
    /// Prepended to entries and questions, for models trained with task prefixes
    /// (nomic-embed-text wants `search_document: ` and `search_query: `).
    pub document_prefix: String,
    pub query_prefix: String,
    /// How the keyword and vector rankings are fused.
    pub fusion: super::fusion::Fusion,
}

impl QualityOptions {
    /// The app's defaults for `model`: whole entries, no prefixes, questions' fusion.
    pub fn defaults(model: &str) -> QualityOptions {
        QualityOptions {
            model: model.to_owned(),
            document_text: DocumentText::WholeEntry,
            document_prefix: String::new(),
            query_prefix: String::new(),
            fusion: super::fusion::Fusion::QUESTIONS,
        }
    }
}

/// The ways of ranking that are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Keyword,
    Vector,
    Hybrid,
    /// The entries Ask gives the model, as Ask finds them ([`super::question`]).
    Ask,
    /// The same, without what the journal remembers: what memory gains is the
    /// difference.
    AskNoMemory,
}

pub const METHODS: [Method; 5] = [
    Method::Keyword,
    Method::Vector,
    Method::Hybrid,
    Method::Ask,
    Method::AskNoMemory,
];

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Keyword => "keyword",
            Method::Vector => "vector",
            Method::Hybrid => "hybrid",
            Method::Ask => "ask",
            Method::AskNoMemory => "ask_no_memory",
        }
    }
}

/// The standard figures of a ranking method over all questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Scores {
    /// Share of questions whose first result is relevant.
    pub precision_at_1: f64,
    /// Mean share of a question's relevant entries found in the first five results.
    pub recall_at_5: f64,
    /// Mean of 1 / rank of the first relevant result (0 when none in the first ten).
    pub mrr: f64,
}

/// A question's ranked entry labels (best first) and its relevant labels.
pub type Ranking<'a> = (Vec<String>, &'a [String]);

/// Scores ranked results (entry labels, best first) against the relevant labels;
/// questions with no relevant entry have nothing to rank and are left out.
pub fn score(rankings: &[Ranking<'_>]) -> Scores {
    let answerable: Vec<&Ranking> = rankings
        .iter()
        .filter(|(_, relevant)| !relevant.is_empty())
        .collect();
    if answerable.is_empty() {
        return Scores::default();
    }
    let n = answerable.len() as f64;
    let mut s = Scores::default();
    for (ranked, relevant) in answerable {
        let is_relevant = |id: &String| relevant.contains(id);
        if ranked.first().is_some_and(is_relevant) {
            s.precision_at_1 += 1.0;
        }
        let found = ranked.iter().take(FIRST).filter(|id| is_relevant(id)).count();
        s.recall_at_5 += found as f64 / relevant.len() as f64;
        if let Some(pos) = ranked.iter().take(RANKED).position(is_relevant) {
            s.mrr += 1.0 / (pos as f64 + 1.0);
        }
    }
    Scores {
        precision_at_1: s.precision_at_1 / n,
        recall_at_5: s.recall_at_5 / n,
        mrr: s.mrr / n,
    }
}

/// One question's results, for reading what went wrong.
#[derive(Debug, Clone, serde::Serialize)]
pub struct QuestionResult {
    pub id: String,
    pub date_filter: Option<String>,
    pub ranked: HashMap<&'static str, Vec<String>>,
}

/// What the relevance floor ([`super::relevance`]) does to a method's results.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct FloorScores {
    /// Share of answerable questions with a relevant entry still among the first five
    /// results once the floor applies.
    pub answers_kept: f64,
    /// Share of unanswerable questions left with no result at all.
    pub nothing_found: f64,
    /// The floor that would get the most questions of both kinds right on this set
    /// ([`relevance::best_floor`]); `None` for keywords, whose floor is the match itself.
    pub best: Option<f64>,
    /// Per answerable question, the score of its best relevant result among the first
    /// five (`None`: none there, or no score the floor applies to): what a floor keeps.
    pub answers: Vec<Option<f64>>,
    /// Per unanswerable question, its best result's score: what a floor must cut.
    pub nothing: Vec<Option<f64>>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct QualityReport {
    pub set: String,
    pub entries: usize,
    /// Answerable questions: those the ranking figures score.
    pub questions: usize,
    /// Questions the journal does not answer.
    pub unanswerable: usize,
    pub options: QualityOptions,
    pub scores: Vec<(Method, Scores)>,
    pub floors: Vec<(Method, FloorScores)>,
    pub per_question: Vec<QuestionResult>,
}

impl QualityReport {
    pub fn scores_of(&self, method: Method) -> Scores {
        self.scores
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, s)| *s)
            .unwrap_or_default()
    }

    pub fn floor_of(&self, method: Method) -> FloorScores {
        self.floors
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    }
}

/// Scores keyword, vector and hybrid search on a labelled set, written into `conn`: a
/// new journal of its own (entries already in it would compete in the rankings).
/// `embed` turns texts into vectors (in the app and bench: Ollama's `/api/embed`).
pub fn evaluate(
    conn: &mut Connection,
    set: &LabelledSet,
    options: &QualityOptions,
    mut embed: impl FnMut(&[String]) -> Result<Vec<Vec<f32>>, String>,
) -> Result<QualityReport, QualityError> {
    let ids = write_entries(conn, set)?;
    embed_entries(conn, set, options, &ids, &mut embed)?;
    let questions: Vec<String> = set
        .questions
        .iter()
        .map(|q| format!("{}{}", options.query_prefix, q.text))
        .collect();
    let question_vectors = embed(&questions).map_err(QualityError::Embed)?;
    let now = set.now();
    let asked = AskedQuestion::read_all(conn, set, options, now, &mut embed)?;

    let label_of: HashMap<i64, &str> = ids
        .iter()
        .copied()
        .zip(set.entries.iter().map(|e| e.id.as_str()))
        .collect();
    let labels = |hits: &[i64]| -> Vec<String> {
        hits.iter()
            .filter_map(|id| label_of.get(id).map(|l| l.to_string()))
            .collect()
    };
    let mut searcher = Searcher::default();
    let mut per_question = Vec::new();
    let mut rankings: HashMap<Method, Vec<Ranking>> = HashMap::new();
    let mut floors: HashMap<Method, FloorTally> = HashMap::new();
    for ((q, qv), asked) in set.questions.iter().zip(&question_vectors).zip(&asked) {
        let (mut query, range) = SearchQuery::from_text(&q.text, now, RANKED);
        query.fusion = options.fusion;
        let mut ranked = HashMap::new();
        let mut methods = Vec::from(rank(conn, &mut searcher, &query, qv)?);
        methods.push((Method::Ask, asked.with_memory.rank(conn, &mut searcher)?));
        methods.push((Method::AskNoMemory, asked.without.rank(conn, &mut searcher)?));
        for (method, hits) in methods {
            let ranked_labels = labels(&hits.ids);
            floors.entry(method).or_default().add(
                q,
                &ranked_labels,
                &labels(&hits.floored),
                hits.scores.as_deref(),
            );
            rankings
                .entry(method)
                .or_default()
                .push((ranked_labels.clone(), &q.relevant));
            ranked.insert(method.name(), ranked_labels);
        }
        per_question.push(QuestionResult {
            id: q.id.clone(),
            date_filter: range.map(|r| r.matched),
            ranked,
        });
    }
    let answerable = set.questions.iter().filter(|q| q.is_answerable()).count();
    Ok(QualityReport {
        set: set.name.clone(),
        entries: set.entries.len(),
        questions: answerable,
        unanswerable: set.questions.len() - answerable,
        options: options.clone(),
        scores: METHODS.iter().map(|m| (*m, score(&rankings[m]))).collect(),
        floors: METHODS.iter().map(|m| (*m, floors[m].scores(*m))).collect(),
        per_question,
    })
}

/// The floor's effect on one method, question by question.
#[derive(Default)]
struct FloorTally {
    answers: Vec<Option<f64>>,
    kept: usize,
    nothing: Vec<Option<f64>>,
    found_nothing: usize,
}

impl FloorTally {
    /// One question: its ranking without the floor (`ranked`, with `scores` when the
    /// floor applies to them) and with it (`floored`).
    fn add(&mut self, q: &LabelledQuestion, ranked: &[String], floored: &[String], scores: Option<&[f64]>) {
        let is_relevant = |id: &String| q.relevant.contains(id);
        if q.is_answerable() {
            self.kept += usize::from(floored.iter().take(FIRST).any(is_relevant));
            // The best relevant result among the first: what the floor must keep.
            let position = ranked.iter().take(FIRST).position(is_relevant);
            self.answers.push(position.and_then(|p| scores?.get(p).copied()));
        } else {
            self.found_nothing += usize::from(floored.is_empty());
            self.nothing.push(scores.and_then(|s| s.first().copied()));
        }
    }

    fn scores(&self, method: Method) -> FloorScores {
        let share = |n: usize, of: usize| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        FloorScores {
            answers_kept: share(self.kept, self.answers.len()),
            nothing_found: share(self.found_nothing, self.nothing.len()),
            best: match method {
                Method::Keyword | Method::Ask | Method::AskNoMemory => None,
                Method::Vector | Method::Hybrid => relevance::best_floor(&self.answers, &self.nothing),
            },
            answers: self.answers.clone(),
            nothing: self.nothing.clone(),
        }
    }
}

/// The model name the set's memory is stored under, as if enrichment had read it.
const LABELLED_MODEL: &str = "labelled";

/// The set's entries as journal entries, with what each remembers, in one transaction:
/// their ids, in the set's order.
fn write_entries(conn: &mut Connection, set: &LabelledSet) -> Result<Vec<i64>, QualityError> {
    let tx = conn.transaction().map_err(db::DbError::from)?;
    let mut ids = Vec::with_capacity(set.entries.len());
    for e in &set.entries {
        let id = entries::insert_entry(&tx, DEFAULT_USER, &e.new_entry())?;
        let found: Vec<memory::Found> = e
            .remembers
            .iter()
            .map(|m| memory::Found {
                kind: m.kind,
                name: m.name.clone(),
                relation: m.relation.clone(),
            })
            .collect();
        if !found.is_empty() {
            memory::remember(&tx, DEFAULT_USER, id, &e.body, &found, LABELLED_MODEL)?;
        }
        ids.push(id);
    }
    tx.commit().map_err(db::DbError::from)?;
    Ok(ids)
}

/// A question read as Ask reads it, with and without what the journal remembers.
struct AskedQuestion {
    with_memory: AskQuery,
    without: AskQuery,
}

/// One way Ask would search for a question, and the embedding of its words.
struct AskQuery {
    query: SearchQuery,
    /// What its dates run from or to, when an event the journal tells of set them.
    event: Option<question::Event>,
    /// Whether words are left to search for (a question naming only people is their
    /// entries).
    searched: bool,
    embedding: Option<Vec<f32>>,
}

impl AskedQuestion {
    /// Every question of `set` read as Ask reads it, its remaining words embedded (in
    /// one call) as Ask embeds them.
    fn read_all(
        conn: &Connection,
        set: &LabelledSet,
        options: &QualityOptions,
        now: DateTime<Local>,
        embed: &mut impl FnMut(&[String]) -> Result<Vec<Vec<f32>>, String>,
    ) -> Result<Vec<AskedQuestion>, QualityError> {
        let mut queries = Vec::new();
        for q in &set.questions {
            let dated = question::dated(conn, DEFAULT_USER, &q.text, now, FIRST)?;
            let mut without = dated.query;
            without.fusion = options.fusion;
            let mut with_memory = without.clone();
            let named = question::remember(conn, DEFAULT_USER, &mut with_memory)?;
            let searched = named.is_empty() || question::has_words(&with_memory.text);
            queries.push((with_memory, dated.event.clone(), searched));
            queries.push((without, dated.event, true));
        }
        let phrases: Vec<String> = queries
            .iter()
            .filter(|(query, _, searched)| *searched && !query.text.trim().is_empty())
            .map(|(query, _, _)| format!("{}{}", options.query_prefix, query.text.trim()))
            .collect();
        let mut vectors = embed(&phrases).map_err(QualityError::Embed)?.into_iter();
        let mut asked = queries.into_iter().map(|(query, event, searched)| {
            let embedded = searched && !query.text.trim().is_empty();
            AskQuery {
                embedding: if embedded { vectors.next() } else { None },
                query,
                event,
                searched,
            }
        });
        let mut read = Vec::new();
        while let (Some(with_memory), Some(without)) = (asked.next(), asked.next()) {
            read.push(AskedQuestion { with_memory, without });
        }
        Ok(read)
    }
}

impl AskQuery {
    /// The entries Ask would give the model, best first.
    fn rank(&self, conn: &Connection, searcher: &mut Searcher) -> Result<Ranked, QualityError> {
        let (mut query, mut event) = (self.query.clone(), self.event.clone());
        let embedding = self.embedding.as_deref();
        let (sources, _) = question::answer_sources(&mut query, &mut event, self.searched, |query| {
            searcher.hybrid(conn, DEFAULT_USER, query, embedding)
        })?;
        let ids: Vec<i64> = sources
            .into_iter()
            .take(FIRST)
            .map(|source| source.entry_id)
            .collect();
        Ok(Ranked {
            floored: ids.clone(),
            ids,
            scores: None,
        })
    }
}

/// Embeds every entry's text as the options say and stores the vectors under `ids`.
fn embed_entries(
    conn: &Connection,
    set: &LabelledSet,
    options: &QualityOptions,
    ids: &[i64],
    embed: &mut impl FnMut(&[String]) -> Result<Vec<Vec<f32>>, String>,
) -> Result<(), QualityError> {
    let docs: Vec<String> = set
        .entries
        .iter()
        .map(|e| {
            let text = document_text(&e.title, &e.tags, &e.body, options.document_text);
            format!("{}{text}", options.document_prefix)
        })
        .collect();
    let doc_vectors = embed(&docs).map_err(QualityError::Embed)?;
    for (id, vector) in ids.iter().zip(&doc_vectors) {
        vectors::store_embedding(conn, DEFAULT_USER, *id, &options.model, vector)?;
    }
    Ok(())
}

/// One method's ranking of a question: entry ids best first, without the floor and
/// with it, and the scores the floor is applied to (`None` when none is: keywords, or
/// a question of dates only).
struct Ranked {
    ids: Vec<i64>,
    scores: Option<Vec<f64>>,
    floored: Vec<i64>,
}

/// One question's ranking by each method: keywords alone and hybrid through the app's
/// search, vectors alone from the copy the hybrid search has just brought up to date.
/// `query` is ranked without the floor and, for the floored list, with it.
fn rank(
    conn: &Connection,
    searcher: &mut Searcher,
    query: &SearchQuery,
    embedding: &[f32],
) -> Result<[(Method, Ranked); 3], QualityError> {
    let ids =
        |outcome: &super::SearchOutcome| -> Vec<i64> { outcome.hits.iter().map(|h| h.entry_id).collect() };
    let unfloored = SearchQuery {
        floor: false,
        ..query.clone()
    };
    let floored = SearchQuery {
        floor: true,
        ..query.clone()
    };
    let keyword = ids(&searcher.hybrid(conn, DEFAULT_USER, &unfloored, None)?);
    let hybrid = searcher.hybrid(conn, DEFAULT_USER, &unfloored, Some(embedding))?;
    let hybrid_floored = searcher.hybrid(conn, DEFAULT_USER, &floored, Some(embedding))?;
    let vector = searcher.cache().search(conn, embedding, RANKED, &query.filter)?;
    let close = vector.iter().take_while(|(_, s)| close_in_meaning(f64::from(*s)));
    Ok([
        (
            Method::Keyword,
            Ranked {
                floored: keyword.clone(),
                ids: keyword,
                scores: None,
            },
        ),
        (
            Method::Vector,
            Ranked {
                floored: close.map(|(id, _)| *id).collect(),
                ids: vector.iter().map(|(id, _)| *id).collect(),
                scores: Some(vector.iter().map(|(_, s)| f64::from(*s)).collect()),
            },
        ),
        (
            Method::Hybrid,
            Ranked {
                ids: ids(&hybrid),
                scores: (hybrid.mode == SearchMode::Hybrid)
                    .then(|| hybrid.hits.iter().map(|h| h.score).collect()),
                floored: ids(&hybrid_floored),
            },
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn scores_follow_their_definitions() {
        let rel_a = s(&["a"]);
        let rel_bc = s(&["b", "c"]);
        let rankings = vec![
            (s(&["a", "x", "y"]), rel_a.as_slice()), // p@1 1, r@5 1, rr 1
            (s(&["x", "y", "c", "z", "q", "b"]), rel_bc.as_slice()), // p@1 0, r@5 0.5, rr 1/3
        ];
        let sc = score(&rankings);
        assert_eq!(sc.precision_at_1, 0.5);
        assert_eq!(sc.recall_at_5, 0.75);
        assert!((sc.mrr - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-12);
        assert_eq!(score(&[]), Scores::default());
        // Unanswerable questions have nothing to rank and do not count.
        let with_unanswerable = [rankings.clone(), vec![(s(&["a"]), &[][..])]].concat();
        assert_eq!(score(&with_unanswerable), sc);
    }

    #[test]
    fn sets_with_broken_labels_are_refused() {
        let ok = r#"{"entries":[{"id":"e1","created_at":"2026-01-01T10:00:00Z","body":"x"}],
                    "questions":[{"id":"q1","text":"x?","relevant":["e1"]}]}"#;
        assert!(LabelledSet::parse(ok).is_ok());
        let unknown = ok.replace(r#""relevant":["e1"]"#, r#""relevant":["e9"]"#);
        assert!(matches!(
            LabelledSet::parse(&unknown),
            Err(QualityError::Format(_))
        ));
        // A question the journal does not answer is labelled with no entry, beside
        // answerable ones only.
        let unanswered = ok.replace(
            r#""relevant":["e1"]}"#,
            r#""relevant":["e1"]},{"id":"q2","text":"Japan?","relevant":[]}"#,
        );
        assert!(LabelledSet::parse(&unanswered).is_ok());
        let only_unanswered = ok.replace(r#""relevant":["e1"]"#, r#""relevant":[]"#);
        assert!(LabelledSet::parse(&only_unanswered).is_err());
        let bad_date = ok.replace("2026-01-01T10:00:00Z", "yesterday");
        assert!(LabelledSet::parse(&bad_date).is_err());
        assert!(LabelledSet::parse("[]").is_err());
    }

    #[test]
    fn opening_keeps_two_sentences() {
        let text = document_text(
            "T",
            &s(&["x"]),
            "One. Two! Three? Four.",
            DocumentText::TitleAndOpening,
        );
        assert_eq!(text, "T\nx\nOne. Two!");
    }
}
