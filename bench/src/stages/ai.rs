//! The `ai` stage: where an Ask answer's time goes, and what enrichment costs.
//!
//! In the reference app two sequential model calls were the whole cost of an answer, so
//! this stage counts model calls as carefully as it times them. Over a fixed question
//! list it records every stage of the Ask pipeline (plan, embed, search, answer), time
//! to first token, the pipeline's own overhead outside model time, and model calls per
//! question; then one-call enrichment per entry, embedding throughput, and the text
//! model's first call cold (just loaded) against warm. The models' names and digests go
//! into the run.
//!
//! The questions are a mix, so the planning skip is measured rather than assumed:
//! every third question of the labelled set (questions about the writer's life, dated
//! ones included), and a few that the local rule must leave to the planning call
//! ([`UNPLANNED`]). A question whose answer fails is still measured: its stages,
//! model calls and overhead count like any other's, and the failures are recorded
//! beside the figures (`ask.failed_questions`), not dropped.
//!
//! It talks to the configured Ollama (`OLLAMA_HOST`, `MINDSAGE_TEXT_MODEL`,
//! `MINDSAGE_EMBED_MODEL`); answers are timed as they stream, end to end.

use std::time::{Duration, Instant};

use mindsage_core::ai::{self, AiSettings, OllamaClient, ask, enrich};
use mindsage_core::db::entries;
use mindsage_core::db::vectors;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::search::quality::LabelledSet;

use super::retrieval::DEFAULT_SET;
use super::{Recorder, Stage, StageContext};
use crate::busy::Series;
use crate::run::{Dataset, Measure, Scenario, Unit};
use crate::stats::Payload;

/// Every how-many-th labelled question is asked: a spread over the set's topics and
/// its dated questions, few enough for a small model.
const QUESTION_STRIDE: usize = 3;
/// Questions with nothing that marks them as the writer's own: one that needs no
/// journal at all, and journal questions phrased impersonally.
const UNPLANNED: &[(&str, &str)] = &[
    ("g1", "Which colours are in a rainbow?"),
    ("g2", "Summarise the Portugal trip."),
    ("g3", "What happened with the dog's emergency treatment?"),
    ("g4", "How is the vegetable patch doing?"),
];
/// Entries enriched per run.
const ENRICHED: usize = 5;
/// Cold and warm first calls measured.
const LOAD_SAMPLES: usize = 3;

pub struct Ai;

impl Stage for Ai {
    fn name(&self) -> &'static str {
        "ai"
    }

    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let (settings, client) = super::ollama("ai")?;
        out.add_models(super::served_models(
            &client,
            &[&settings.text_model, &settings.embed_model],
        )?);
        let path = ctx
            .dataset
            .clone()
            .unwrap_or_else(|| crate::paths::workspace_root().join(DEFAULT_SET));
        let set = LabelledSet::load(&path)?;
        let dir = tempfile::tempdir()?;
        let mut conn = db::open(&dir.path().join("ai-bench.db"), &StorageOptions::default())?;
        let user = DEFAULT_USER;
        let mut ids = Vec::new();
        for e in &set.entries {
            ids.push(entries::create(&mut conn, user, &e.new_entry())?);
        }
        out.datasets.push(Dataset {
            stage: "ai".into(),
            entries: set.entries.len(),
            seed: 0,
            photos: 0,
            schema_version: db::migrate::latest_version(),
        });

        // Embedding throughput, on the journal itself (which search then uses).
        let texts: Vec<String> = ids
            .iter()
            .map(|id| entries::get(&conn, user, *id).map(|e| enrich::embedding_text(&e)))
            .collect::<Result<_, _>>()?;
        let mut series = Series::default();
        let (vectors_out, per_second) = series.measure(out.remeasure, || {
            let started = Instant::now();
            let vectors_out = client.embed_blocking(&settings.embed_model, &texts)?;
            Ok((vectors_out, texts.len() as f64 / started.elapsed().as_secs_f64()))
        })?;
        out.push(
            value(
                "embed.texts_per_second",
                per_second,
                Unit::Score,
                format!("{} texts in one request", texts.len()),
            )
            .timed()
            .measured_over(&series, "requests"),
        );
        for (id, v) in ids.iter().zip(&vectors_out) {
            vectors::store_embedding(&conn, user, *id, &settings.embed_model, v)?;
        }

        // A part that fails is recorded as failed, with its error, and the rest still
        // runs: one bad model reply must not cost the whole run. Each load, question
        // and enrichment is measured once more when the machine was busy during it.
        let parts: [(&str, anyhow::Result<()>); 3] = [
            ("model.load", self.cold_and_warm(&settings, &client, out)),
            ("ask", self.ask_questions(&set, &client, &conn, out)),
            ("enrich", self.enrichment(&client, &conn, &ids, out)),
        ];
        for (name, result) in parts {
            if let Err(e) = result {
                out.push(failed(name, &e));
            }
        }
        Ok(())
    }
}

impl Ai {
    fn cold_and_warm(
        &self,
        settings: &AiSettings,
        client: &OllamaClient,
        out: &mut Recorder,
    ) -> anyhow::Result<()> {
        // A client whose keep_alive is zero unloads the model after each call.
        let unloading = OllamaClient::new(&AiSettings {
            keep_alive: Duration::ZERO,
            ..settings.clone()
        })?;
        let (mut cold, mut warm, mut series) = (Vec::new(), Vec::new(), Series::default());
        for _ in 0..LOAD_SAMPLES {
            let (c, w) = series.measure(out.remeasure, || {
                ai::block_on(unloading.warm(&settings.text_model))?;
                let c = ai::block_on(client.warm(&settings.text_model))?.elapsed;
                Ok((c, ai::block_on(client.warm(&settings.text_model))?.elapsed))
            })?;
            cold.push(c);
            warm.push(w);
        }
        let note = "an empty generate request: the model load alone, without generating";
        let loads = "pairs of loads";
        out.push(timing("model.first_call_cold", &cold, None, note).measured_over(&series, loads));
        out.push(timing("model.first_call_warm", &warm, None, note).measured_over(&series, loads));
        Ok(())
    }

    fn ask_questions(
        &self,
        set: &LabelledSet,
        client: &OllamaClient,
        conn: &rusqlite::Connection,
        out: &mut Recorder,
    ) -> anyhow::Result<()> {
        let now = set
            .now
            .as_deref()
            .and_then(mindsage_core::clock::parse_utc)
            .map(|t| t.with_timezone(&chrono::Local))
            .unwrap_or_else(chrono::Local::now);
        use ask::timing_names as names;
        let mut stages: [(&str, Vec<Duration>); 7] = [
            (names::PLAN, vec![]),
            (names::EMBED, vec![]),
            (names::SEARCH, vec![]),
            (names::ANSWER, vec![]),
            (names::FIRST_TOKEN, vec![]),
            (names::TOTAL, vec![]),
            (names::OVERHEAD, vec![]),
        ];
        // The questions the journal answers: those it does not answer measure the
        // relevance floor in the retrieval stage.
        let questions: Vec<(&str, &str)> = set
            .questions
            .iter()
            .filter(|q| q.is_answerable())
            .step_by(QUESTION_STRIDE)
            .map(|q| (q.id.as_str(), q.text.as_str()))
            .chain(UNPLANNED.iter().copied())
            .collect();
        let (mut calls, mut one_call, mut planned_locally) = (0u32, 0usize, 0usize);
        let (mut per_question, mut failures) = (Vec::new(), Vec::new());
        // Of the answers that passed: an empty one would be no answer at all.
        let mut smallest_answer = None::<u64>;
        // The app's path: Ask scans the reader's vector copy, already in memory once the
        // journal has been searched.
        let vectors = mindsage_core::search::shared_vectors(false);
        vectors
            .lock()
            .expect("a new vector copy")
            .refresh(conn, DEFAULT_USER)?;
        let mut series = Series::default();
        for (id, question) in &questions {
            let (result, cost) = series.measure(out.remeasure, || {
                let mut cost = ask::AskCost::default();
                let result = ai::block_on(ask::ask_measured(
                    client,
                    conn,
                    Some(&vectors),
                    DEFAULT_USER,
                    (*question).into(),
                    now,
                    &mut |_| {},
                    &mut cost,
                ));
                Ok((result, cost))
            })?;
            match result {
                Ok(answer) => {
                    let bytes = answer.text.len() as u64;
                    smallest_answer = Some(smallest_answer.map_or(bytes, |s| s.min(bytes)));
                }
                Err(e) => failures.push(format!("{id}: {e}")),
            }
            let t = &cost.timings;
            let figures = [
                Some(t.plan),
                Some(t.embed),
                Some(t.search),
                Some(t.answer),
                t.first_token,
                Some(t.total),
                Some(t.overhead),
            ];
            for ((_, samples), d) in stages.iter_mut().zip(figures) {
                samples.extend(d);
            }
            calls += cost.model_calls;
            one_call += usize::from(cost.model_calls == 1);
            planned_locally += usize::from(cost.planned_locally);
            per_question.push(format!("{id}={}", cost.model_calls));
        }
        let n = questions.len();
        let note = format!(
            "per question, {n} questions ({} of the labelled set's, {} phrased impersonally), \
             answered or not",
            n - UNPLANNED.len(),
            UNPLANNED.len()
        );
        for (name, samples) in &stages {
            let note = if *name == names::FIRST_TOKEN {
                format!("{note}; {} of {n} showed any answer text", samples.len())
            } else {
                note.clone()
            };
            out.push(
                timing(
                    name,
                    samples,
                    smallest_answer.map(|bytes| Payload::of(1, bytes)),
                    &note,
                )
                .measured_over(&series, "questions"),
            );
        }
        out.push(value(
            "ask.model_calls_per_question",
            f64::from(calls) / n as f64,
            Unit::Count,
            format!("mean; per question: {}", per_question.join(", ")),
        ));
        out.push(value(
            "ask.one_call_share",
            one_call as f64 / n as f64,
            Unit::Score,
            format!(
                "share of questions answered with a single model call; planning skipped for \
                 {planned_locally} of {n}"
            ),
        ));
        out.push(value(
            "ask.failed_questions",
            failures.len() as f64,
            Unit::Count,
            if failures.is_empty() {
                format!("of {n}: every answer passed validation")
            } else {
                format!("of {n}: {}", failures.join("; "))
            },
        ));
        Ok(())
    }

    fn enrichment(
        &self,
        client: &OllamaClient,
        conn: &rusqlite::Connection,
        ids: &[i64],
        out: &mut Recorder,
    ) -> anyhow::Result<()> {
        let (mut times, mut calls, mut series) = (Vec::new(), 0u32, Series::default());
        for id in ids.iter().take(ENRICHED) {
            let entry = entries::get(conn, DEFAULT_USER, *id)?;
            let (elapsed, enriched) = series.measure(out.remeasure, || {
                let started = Instant::now();
                let enriched = ai::block_on(enrich::enrich(client, &entry))?;
                Ok((started.elapsed(), enriched))
            })?;
            times.push(elapsed);
            calls += enriched.model_calls;
        }
        let note = "one generation call (plus retries on invalid output) and the embedding";
        out.push(timing("enrich.entry", &times, None, note).measured_over(&series, "entries"));
        out.push(value(
            "enrich.model_calls_per_entry",
            f64::from(calls) / times.len().max(1) as f64,
            Unit::Count,
            "mean generation calls per enriched entry".into(),
        ));
        Ok(())
    }
}

fn timing(name: &str, samples: &[Duration], payload: Option<Payload>, note: &str) -> Scenario {
    let measure = super::timing_measure(samples);
    Scenario {
        payload,
        expect_min_bytes: if payload.is_some() { 2 } else { 0 },
        ..Scenario::new("ai", None, name, measure, Some(note.into()))
    }
}

fn failed(name: &str, error: &anyhow::Error) -> Scenario {
    let mut s = value(name, 0.0, Unit::Count, String::new());
    s.measure = Measure::Failed {
        error: format!("{error:#}"),
    };
    s.note = None;
    s
}

fn value(name: &str, value: f64, unit: Unit, note: String) -> Scenario {
    Scenario::new("ai", None, name, Measure::Value { value, unit }, Some(note))
}
