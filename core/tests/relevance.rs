//! The relevance floor on real all-MiniLM embeddings from the local model server: the
//! search box lists what is close to its text and nothing else (Ask's side is in
//! `ai_ask.rs`), and on the committed labelled sets the constant is the floor measured there, which keeps the
//! answers of most questions the journal answers and gives many it does not answer no
//! result at all.

mod ai_journals;
mod common;
mod ollama_server;

use std::path::PathBuf;

use chrono::Local;
use mindsage_core::ai::{OllamaClient, search_box};
use mindsage_core::db::DEFAULT_USER;
use mindsage_core::search::quality::{self, LabelledSet, Method, QualityOptions};
use mindsage_core::search::relevance::{self, MEANING_FLOOR};
use mindsage_core::search::{SEARCH_BOX_RESULTS, Searcher};

use ai_journals::asked_journal;
use common::TempJournal;

/// The titles the search box lists for `text`, searched by words and meaning as the
/// window and `mindsage search` do.
fn search_box_titles(conn: &rusqlite::Connection, client: &OllamaClient, text: &str) -> Vec<String> {
    let mut searcher = Searcher::default();
    let outcome = search_box::search(
        &Ok(client.clone()),
        &mut searcher,
        conn,
        DEFAULT_USER,
        text,
        Local::now(),
        SEARCH_BOX_RESULTS,
    )
    .unwrap();
    assert!(
        matches!(outcome.mode, mindsage_core::search::SearchMode::Hybrid),
        "{:?}",
        outcome.mode
    );
    outcome.hits.into_iter().map(|hit| hit.title).collect()
}

#[test]
fn the_search_box_lists_close_entries_only() {
    let server = ollama_server::shared();
    let (_dir, conn) = asked_journal(&server.settings());
    let client = OllamaClient::new(&server.settings()).unwrap();
    // Words in no entry, near none in meaning: nothing, not the whole journal.
    for text in ["holiday in Japan", "xylophone"] {
        assert_eq!(
            search_box_titles(&conn, &client, text),
            Vec::<String>::new(),
            "{text}"
        );
    }
    // A typed word finds its entry, and only it.
    assert_eq!(search_box_titles(&conn, &client, "pottery"), ["Pottery"]);
    // Meaning alone finds the entry a paraphrase is about.
    assert_eq!(
        search_box_titles(&conn, &client, "a walk at dawn"),
        ["Lighthouse"]
    );
}

/// The committed sets, embedded by the real model and scored through the app's search.
fn committed_reports() -> Vec<quality::QualityReport> {
    let server = ollama_server::shared();
    let settings = server.settings();
    let client = OllamaClient::new(&settings).unwrap();
    let options = QualityOptions::defaults(&settings.embed_model);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bench/data");
    ["retrieval-v1.json", "retrieval-v2.json"]
        .iter()
        .map(|name| {
            let set = LabelledSet::load(&dir.join(name)).unwrap();
            let journal = TempJournal::new();
            let embed = |texts: &[String]| {
                client
                    .embed_blocking(&options.model, texts)
                    .map_err(|e| e.to_string())
            };
            quality::evaluate(&mut journal.open(), &set, &options, embed).unwrap()
        })
        .collect()
}

#[test]
fn on_the_labelled_sets_the_floor_is_the_measured_one_and_keeps_most_answers() {
    let reports = committed_reports();
    for report in &reports {
        assert!(report.unanswerable > 0, "{}", report.set);
        for method in [Method::Vector, Method::Hybrid] {
            let floor = report.floor_of(method);
            let shares = (floor.answers_kept, floor.nothing_found);
            eprintln!("{} {method:?}: kept, nothing found {shares:?}", report.set);
            assert!(floor.answers_kept >= 0.8, "{} {method:?}: {shares:?}", report.set);
            assert!(
                floor.nothing_found >= 0.4,
                "{} {method:?}: {shares:?}",
                report.set
            );
        }
        // Keywords' floor is the match itself: nothing to measure.
        assert_eq!(report.floor_of(Method::Keyword).best, None);
    }
    // The constant is the floor measured over both sets, as its comment says.
    let (mut answers, mut nothing) = (Vec::new(), Vec::new());
    for report in &reports {
        let hybrid = report.floor_of(Method::Hybrid);
        answers.extend(hybrid.answers);
        nothing.extend(hybrid.nothing);
    }
    let measured = relevance::best_floor(&answers, &nothing).unwrap();
    assert!(
        (measured - MEANING_FLOOR).abs() <= 0.005,
        "measured {measured}, the constant is {MEANING_FLOOR}"
    );
}
