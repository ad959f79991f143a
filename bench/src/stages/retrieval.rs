//! The `retrieval` stage: does search put the right entry first?
//!
//! Scores keyword, vector and hybrid search on hand-labelled sets (the two committed
//! ones, written independently so that a choice tuned to one shows as a drop on the
//! other, or any file in the same format given with `--dataset`) with
//! `mindsage_core::search::quality`, which asks every question through the app's own
//! search path. Each option the project has considered is scored side by side: the
//! app's defaults; title and opening sentences instead of whole entries; task prefixes
//! (which models such as nomic-embed-text are trained with); meaning-first fusion at
//! half and at one and a half times its keyword margin, to show whether the default
//! sits on a plateau or a lucky peak; and reciprocal-rank fusion instead, with the
//! keyword ranking at a tenth of the vector ranking's weight (the questions' fusion
//! before meaning first) and at equal weight (the search box's). A set's figures carry
//! its entry count as their size. Figures are precision@1, recall@5 and MRR, stored as
//! scores (higher is better); two runs give identical numbers because every step is
//! deterministic.
//!
//! Embeddings come from the configured Ollama (`OLLAMA_HOST`, `MINDSAGE_EMBED_MODEL`);
//! texts embedded once are reused across options.

use std::cell::RefCell;
use std::collections::HashMap;

use anyhow::Context;
use mindsage_core::ai::{self, AiSettings, OllamaClient};
use mindsage_core::search::fusion::{self, Fusion};
use mindsage_core::search::quality::{self, DocumentText, LabelledSet, METHODS, QualityOptions, Scores};

use super::{Recorder, Stage, StageContext};
use crate::run::{Dataset, Measure, Model, Scenario, Unit};

/// The first committed labelled set, relative to the workspace root: the one the
/// board's targets are set on, and the journal other stages borrow.
pub const DEFAULT_SET: &str = "bench/data/retrieval-v1.json";

/// Every committed labelled set; the second was written later, independently, to catch
/// choices that only suit the first.
pub const DEFAULT_SETS: [&str; 2] = [DEFAULT_SET, "bench/data/retrieval-v2.json"];

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
        let ready = ai::block_on(ai::health::check(&client)).context("the retrieval stage needs Ollama")?;
        out.models.push(Model {
            name: ready.embed_model.name.clone(),
            digest: ready.embed_model.digest.clone(),
        });
        let cache: RefCell<HashMap<String, Vec<f32>>> = RefCell::default();
        let embed = |texts: &[String]| -> Result<Vec<Vec<f32>>, String> {
            let missing: Vec<String> = texts
                .iter()
                .filter(|t| !cache.borrow().contains_key(*t))
                .cloned()
                .collect();
            if !missing.is_empty() {
                let vectors = client
                    .embed_blocking(&settings.embed_model, &missing)
                    .map_err(|e| e.to_string())?;
                cache.borrow_mut().extend(missing.into_iter().zip(vectors));
            }
            Ok(texts.iter().map(|t| cache.borrow()[t].clone()).collect())
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
                let report = quality::evaluate(&set, &options, &embed)?;
                let note = format!(
                    "{} on {file} ({} entries, {} questions); {}",
                    options.model,
                    report.entries,
                    report.questions,
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
            }
        }
        Ok(())
    }
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

fn score_scenario(name: &str, entries: usize, value: f64, note: &str) -> Scenario {
    let measure = Measure::Value {
        value,
        unit: Unit::Score,
    };
    Scenario::new("retrieval", Some(entries), name, measure, Some(note.into()))
}
