//! Retrieval quality on the committed hand-labelled set, with real all-MiniLM-L6-v2
//! embeddings from the local server: the figures are reproducible run to run. The
//! targets themselves are tracked by the bench (`retrieval` stage, bench/BOARD.md).

mod common;
mod ollama_server;

use std::path::PathBuf;

use common::TempJournal;
use mindsage_core::ai::OllamaClient;
use mindsage_core::search::quality::{self, LabelledSet, Method, QualityOptions};

fn committed_set() -> LabelledSet {
    committed("retrieval-v1.json")
}

fn committed(name: &str) -> LabelledSet {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/data")
        .join(name);
    LabelledSet::load(&path).unwrap()
}

#[test]
fn quality_figures_are_identical_across_runs_and_fusion_helps() {
    let server = ollama_server::shared();
    let settings = server.settings();
    let client = OllamaClient::new(&settings).unwrap();
    let set = committed_set();
    let options = QualityOptions::defaults(&settings.embed_model);
    let embed = |texts: &[String]| {
        client
            .embed_blocking(&options.model, texts)
            .map_err(|e| e.to_string())
    };
    let evaluate = || {
        let journal = TempJournal::new();
        quality::evaluate(&mut journal.open(), &set, &options, embed).unwrap()
    };
    let (first, second) = (evaluate(), evaluate());
    assert_eq!(first.scores, second.scores);
    for (method, scores) in &first.scores {
        eprintln!("{method:?}: {scores:?}");
    }
    let hybrid = first.scores_of(Method::Hybrid);
    // Sanity, not the target: fusion must not be worse than the weaker method.
    let weaker = first
        .scores_of(Method::Keyword)
        .mrr
        .min(first.scores_of(Method::Vector).mrr);
    assert!(hybrid.mrr >= weaker, "{:?}", first.scores);
    assert_eq!(first.questions + first.unanswerable, set.questions.len());
}

#[test]
fn every_committed_set_is_well_formed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/data");
    for name in ["retrieval-v1.json", "retrieval-v2.json", "retrieval-v3.json"] {
        let set = LabelledSet::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            set.entries.len() >= 30 && set.questions.len() >= 25,
            "{name} is too small"
        );
    }
}

/// The set whose entries carry what enrichment would have found in them: Ask finds more
/// of a person's entries when asked by relation ("my sister", named in most entries
/// only by her name) with what the journal remembers than without it, and does no
/// worse on any other kind of question.
#[test]
fn what_the_journal_remembers_finds_people_asked_about_by_relation() {
    let server = ollama_server::shared();
    let settings = server.settings();
    let client = OllamaClient::new(&settings).unwrap();
    let set = committed("retrieval-v3.json");
    let options = QualityOptions::defaults(&settings.embed_model);
    let embed = |texts: &[String]| {
        client
            .embed_blocking(&options.model, texts)
            .map_err(|e| e.to_string())
    };
    let journal = TempJournal::new();
    let report = quality::evaluate(&mut journal.open(), &set, &options, embed).unwrap();
    let of_kind = |kind: &str, method: Method| {
        let rankings: Vec<quality::Ranking> = set
            .questions
            .iter()
            .zip(&report.per_question)
            .filter(|(q, _)| q.kind.as_deref() == Some(kind))
            .map(|(q, result)| (result.ranked[method.name()].clone(), q.relevant.as_slice()))
            .collect();
        quality::score(&rankings)
    };
    let (with, without) = (
        of_kind("person", Method::Ask),
        of_kind("person", Method::AskNoMemory),
    );
    eprintln!("person questions: with memory {with:?}, without {without:?}");
    assert!(
        with.recall_at_5 > without.recall_at_5,
        "{with:?} against {without:?}"
    );
    for kind in ["place", "period", "theme", "topic"] {
        let (with, without) = (of_kind(kind, Method::Ask), of_kind(kind, Method::AskNoMemory));
        eprintln!("{kind}: with memory {with:?}, without {without:?}");
        assert!(
            with.recall_at_5 >= without.recall_at_5,
            "{kind}: {with:?} against {without:?}"
        );
        assert!(with.mrr >= without.mrr, "{kind}: {with:?} against {without:?}");
    }
}
