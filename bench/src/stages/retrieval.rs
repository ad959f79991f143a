//! The `retrieval` stage: does search put the right entry first?
//!
//! Scores keyword, vector and hybrid search, and the entries Ask gives the model with and
//! without what the journal remembers (`ask`, `ask_no_memory`), on hand-labelled sets
//! (the committed ones: the first two written independently so that a choice tuned to
//! one shows as a drop on the other, the third with what enrichment would have found
//! in each entry and questions about people, places, periods and themes; or any file
//! in the same format given with `--dataset`) with `mindsage_core::search::quality`,
//! which asks every question through the app's own search and Ask paths. Each option the project has considered is scored side by side: the
//! app's defaults; title and opening sentences instead of whole entries; task prefixes
//! (which models such as nomic-embed-text are trained with); meaning-first fusion at
//! half and at one and a half times its keyword margin, to show whether the default
//! sits on a plateau or a lucky peak; and reciprocal-rank fusion instead, with the
//! keyword ranking at a tenth of the vector ranking's weight (the questions' fusion
//! before meaning first) and at equal weight (the search box's). A set's figures carry
//! its entry count as their size. Figures are precision@1, recall@5 and MRR, stored as
//! scores (higher is better); two runs give identical numbers because every step is
//! deterministic. Beside the scores, the run keeps every question's relevant entries'
//! ranks per method and variant (`questions`), and a set whose questions have a `kind`
//! is also scored per kind, so a moved score can be traced to the questions that moved.
//! Questions a set labels as not answered by its journal measure the relevance floor
//! (`*.floor.answers_kept`, `*.floor.nothing_found`, and the floor the set itself would
//! choose, `*.floor.best`: see `mindsage_core::search::relevance`).
//!
//! Embeddings come from the configured Ollama (`OLLAMA_HOST`, `MINDSAGE_EMBED_MODEL`);
//! texts embedded once are reused across options and runs ([`super::embeddings`]).

use std::cell::RefCell;

use anyhow::Context;
use mindsage_core::ai::{self, AiSettings, OllamaClient};
use mindsage_core::db::{self, StorageOptions};
use mindsage_core::search::document::DocumentText;
use mindsage_core::search::fusion::{self, Fusion};
use mindsage_core::search::quality::{
    self, LabelledSet, METHODS, QualityOptions, QualityReport, Ranking, Scores,
};

use super::embeddings::EmbeddingCache;
use super::{Recorder, Stage, StageContext};
use crate::run::{Dataset, Measure, QuestionRanks, Scenario, Unit};

/// The first committed labelled set, relative to the workspace root: the one the
/// board's targets are set on, and the journal other stages borrow.
pub const DEFAULT_SET: &str = "bench/data/retrieval-v1.json";

/// Every committed labelled set; the second was written later, independently, to catch
/// choices that only suit the first; the third carries what the journal remembers of
/// each entry, for the questions that need it.
pub const DEFAULT_SETS: [&str; 3] = [
    DEFAULT_SET,
    "bench/data/retrieval-v2.json",
    "bench/data/retrieval-v3.json",
];

pub struct Retrieval;

impl Stage for Retrieval {
    fn name(&self) -> &'static str {
        "retrieval"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let paths = match &ctx.dataset {
            Some(path) => vec![path.clone()],
            None => DEFAULT_SETS
                .iter()
                .map(|p| crate::paths::workspace_root().join(p))
                .collect(),
        };
        let settings = AiSettings::from_env();
        let client = OllamaClient::new(&settings)?;
        ai::block_on(ai::health::check(&client)).context("the retrieval stage needs Ollama")?;
        out.add_models(super::served_models(&client, &[&settings.embed_model])?);
        let cache = RefCell::new(EmbeddingCache::open(&client, &settings.embed_model)?);
        let embed = |texts: &[String]| -> Result<Vec<Vec<f32>>, String> {
            cache
                .borrow_mut()
                .embed(&client, texts)
                .map_err(|e| format!("{e:#}"))
        };
        for path in paths {
            let set = LabelledSet::load(&path).with_context(|| format!("labelled set {}", path.display()))?;
            out.datasets.push(Dataset {
                stage: "retrieval".into(),
                entries: set.entries.len(),
                seed: 0,
                photos: 0,
                schema_version: mindsage_core::db::migrate::latest_version(),
            });
            let file = path
                .file_name()
                .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
            for (variant, options) in variants(&settings.embed_model) {
                let report = evaluate(&set, &options, &embed)?;
                let note = format!(
                    "{} on {file} ({} entries, {} questions, {} it does not answer); {}",
                    options.model,
                    report.entries,
                    report.questions,
                    report.unanswerable,
                    describe(&options)
                );
                for method in METHODS {
                    let scores = report.scores_of(method);
                    for (metric, value) in metric_values(&scores) {
                        let name = match variant {
                            "default" => format!("{}.{metric}", method.name()),
                            other => format!("{}.{metric}.{other}", method.name()),
                        };
                        out.push(score_scenario(&name, set.entries.len(), value, &note));
                    }
                }
                let ranks = question_ranks(&set, &report, &file, variant);
                if variant == "default" {
                    for scenario in kind_scores(&set, &ranks, &note) {
                        out.push(scenario);
                    }
                    for scenario in floor_scores(&report, &note) {
                        out.push(scenario);
                    }
                }
                out.questions.extend(ranks);
            }
        }
        Ok(())
    }
}

/// Scores a set on a temporary journal of its own, removed afterwards.
fn evaluate(
    set: &LabelledSet,
    options: &QualityOptions,
    embed: impl FnMut(&[String]) -> Result<Vec<Vec<f32>>, String>,
) -> anyhow::Result<QualityReport> {
    let dir = tempfile::tempdir()?;
    let mut conn = db::open(&dir.path().join("labelled.db"), &StorageOptions::default())?;
    Ok(quality::evaluate(&mut conn, set, options, embed)?)
}

/// The options scored, the app's defaults first.
fn variants(model: &str) -> Vec<(&'static str, QualityOptions)> {
    let defaults = QualityOptions::defaults(model);
    vec![
        ("default", defaults.clone()),
        (
            "title_opening",
            QualityOptions {
                document_text: DocumentText::TitleAndOpening,
                ..defaults.clone()
            },
        ),
        (
            "prefixed",
            QualityOptions {
                document_prefix: "search_document: ".into(),
                query_prefix: "search_query: ".into(),
                ..defaults.clone()
            },
        ),
        (
            "half_margin",
            QualityOptions {
                fusion: Fusion::MeaningFirst {
                    keyword_margin: fusion::KEYWORD_MARGIN / 2.0,
                },
                ..defaults.clone()
            },
        ),
        (
            "margin_and_a_half",
            QualityOptions {
                fusion: Fusion::MeaningFirst {
                    keyword_margin: fusion::KEYWORD_MARGIN * 1.5,
                },
                ..defaults.clone()
            },
        ),
        (
            "rrf",
            QualityOptions {
                fusion: Fusion::ReciprocalRank {
                    k: fusion::DEFAULT_K,
                    keyword_weight: 0.1,
                },
                ..defaults.clone()
            },
        ),
        (
            "rrf_equal_weight",
            QualityOptions {
                fusion: Fusion::TYPED,
                ..defaults
            },
        ),
    ]
}

fn describe(o: &QualityOptions) -> String {
    format!(
        "embeds {:?}, prefixes {:?}/{:?}, fusion {:?}",
        o.document_text, o.document_prefix, o.query_prefix, o.fusion
    )
}

/// The three figures under the names the run JSON uses.
pub fn metric_values(s: &Scores) -> [(&'static str, f64); 3] {
    [
        ("precision_at_1", s.precision_at_1),
        ("recall_at_5", s.recall_at_5),
        ("mrr", s.mrr),
    ]
}

/// What the relevance floor does, per method (`hybrid.floor.answers_kept`,
/// `hybrid.floor.nothing_found`), and the floor this set would choose
/// (`hybrid.floor.best`), when the set has questions it does not answer.
fn floor_scores(report: &QualityReport, note: &str) -> Vec<Scenario> {
    if report.unanswerable == 0 {
        return Vec::new();
    }
    let mut scenarios = Vec::new();
    for method in METHODS {
        let floor = report.floor_of(method);
        let figures = [
            ("answers_kept", Some(floor.answers_kept)),
            ("nothing_found", Some(floor.nothing_found)),
            ("best", floor.best),
        ];
        for (figure, value) in figures {
            if let Some(value) = value {
                let name = format!("{}.floor.{figure}", method.name());
                scenarios.push(score_scenario(&name, report.entries, value, note));
            }
        }
    }
    scenarios
}

/// Each question's relevant entries' ranks under every method, in the set's order.
fn question_ranks(
    set: &LabelledSet,
    report: &QualityReport,
    file: &str,
    variant: &str,
) -> Vec<QuestionRanks> {
    set.questions
        .iter()
        .zip(&report.per_question)
        .map(|(q, result)| QuestionRanks {
            set: file.to_owned(),
            variant: variant.to_owned(),
            question: q.id.clone(),
            kind: q.kind.clone(),
            ranks: METHODS
                .iter()
                .map(|m| {
                    let ranked = result.ranked.get(m.name()).map_or(&[][..], Vec::as_slice);
                    let rank_of = |id: &String| ranked.iter().position(|r| r == id).map(|p| p + 1);
                    (m.name().to_owned(), q.relevant.iter().map(rank_of).collect())
                })
                .collect(),
        })
        .collect()
}

/// The figures per question kind (`hybrid.mrr.kind-date`, …), when the set has kinds,
/// scored from the stored ranks with the same definitions as the whole set's.
fn kind_scores(set: &LabelledSet, ranks: &[QuestionRanks], note: &str) -> Vec<Scenario> {
    let mut kinds: Vec<&str> = ranks.iter().filter_map(|r| r.kind.as_deref()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut scenarios = Vec::new();
    for kind in kinds {
        // Questions the journal does not answer have no ranks to score.
        let answerable = |r: &QuestionRanks| {
            set.questions
                .iter()
                .any(|q| q.id == r.question && q.is_answerable())
        };
        let asked: Vec<&QuestionRanks> = ranks
            .iter()
            .filter(|r| r.kind.as_deref() == Some(kind) && answerable(r))
            .collect();
        if asked.is_empty() {
            continue;
        }
        for method in METHODS {
            let rankings: Vec<Ranking> = asked
                .iter()
                .map(|r| {
                    let relevant = &set
                        .questions
                        .iter()
                        .find(|q| q.id == r.question)
                        .expect("from the set")
                        .relevant;
                    (
                        ranked_relevant(&r.ranks[method.name()], relevant),
                        relevant.as_slice(),
                    )
                })
                .collect();
            for (metric, value) in metric_values(&quality::score(&rankings)) {
                let name = format!("{}.{metric}.kind-{kind}", method.name());
                let note = format!("{} {kind} questions; {note}", asked.len());
                let mut scenario = score_scenario(&name, set.entries.len(), value, &note);
                scenario.params.insert("kind".into(), kind.to_owned());
                scenarios.push(scenario);
            }
        }
    }
    scenarios
}

/// A ranking rebuilt from the relevant entries' ranks alone (the rest as blanks), which
/// scores the same as the full ranking: every figure counts only relevant hits.
fn ranked_relevant(ranks: &[Option<usize>], relevant: &[String]) -> Vec<String> {
    let depth = ranks.iter().flatten().max().copied().unwrap_or(0);
    let mut ranked = vec![String::new(); depth];
    for (rank, id) in ranks.iter().zip(relevant) {
        if let Some(rank) = rank {
            ranked[rank - 1] = id.clone();
        }
    }
    ranked
}

fn score_scenario(name: &str, entries: usize, value: f64, note: &str) -> Scenario {
    let measure = Measure::Value {
        value,
        unit: Unit::Score,
    };
    Scenario::new("retrieval", Some(entries), name, measure, Some(note.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_kind_scores_from_stored_ranks_equal_the_full_rankings_scores() {
        let set = LabelledSet::parse(
            r#"{"entries": [
                {"id": "a", "created_at": "2025-01-01T00:00:00Z", "body": "x"},
                {"id": "b", "created_at": "2025-01-02T00:00:00Z", "body": "y"},
                {"id": "c", "created_at": "2025-01-03T00:00:00Z", "body": "z"}],
              "questions": [
                {"id": "q1", "text": "x?", "relevant": ["a"], "kind": "date"},
                {"id": "q2", "text": "y?", "relevant": ["b", "c"], "kind": "date"},
                {"id": "q3", "text": "z?", "relevant": ["c"]}]}"#,
        )
        .unwrap();
        let full = |ranked: &[&str]| ranked.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let rankings = [full(&["b", "a", "c"]), full(&["c", "a", "b"]), full(&["c"])];
        let ranks: Vec<QuestionRanks> = set
            .questions
            .iter()
            .zip(&rankings)
            .map(|(q, ranked)| QuestionRanks {
                set: "s.json".into(),
                variant: "default".into(),
                question: q.id.clone(),
                kind: q.kind.clone(),
                ranks: METHODS
                    .iter()
                    .map(|m| {
                        let rank = |id: &String| ranked.iter().position(|r| r == id).map(|p| p + 1);
                        (m.name().to_owned(), q.relevant.iter().map(rank).collect())
                    })
                    .collect(),
            })
            .collect();
        assert_eq!(ranks[1].ranks["hybrid"], [Some(3), Some(1)]);
        let scenarios = kind_scores(&set, &ranks, "note");
        // Only the kind the set names, for each method and metric.
        assert_eq!(scenarios.len(), METHODS.len() * 3);
        let expected = quality::score(&[
            (rankings[0].clone(), set.questions[0].relevant.as_slice()),
            (rankings[1].clone(), set.questions[1].relevant.as_slice()),
        ]);
        let mrr = scenarios
            .iter()
            .find(|s| s.name == "hybrid.mrr.kind-date")
            .unwrap();
        assert_eq!(mrr.stat("value"), Some(expected.mrr));
        assert_eq!(mrr.params["kind"], "date");
        let recall = scenarios
            .iter()
            .find(|s| s.name == "vector.recall_at_5.kind-date")
            .unwrap();
        assert_eq!(recall.stat("value"), Some(expected.recall_at_5));
    }
}
