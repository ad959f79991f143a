//! Stages: the plug-ins a run is made of.
//!
//! A stage measures one part of the app (the database, bulk import, vector search,
//! retrieval, AI, the model queue, speech to text, the app's frames, the binary's size) and
//! records scenarios through a [`Recorder`]. Stages are looked up by name in
//! [`registry`]; asking for one that is not there is an error naming those that are,
//! never a silent skip, so a run can't quietly measure less than it claims.

mod ai;
pub mod app;
mod backfill;
mod db;
mod encryption;
mod import;
mod retrieval;
mod size;
mod stt;
mod vector;
mod window;

use anyhow::{Context, bail};
use mindsage_core::ai::health::same_model;
use mindsage_core::ai::{AiSettings, OllamaClient, block_on};
use mindsage_core::db::EffectivePragmas;

use crate::machine::{Build, Machine};
use crate::run::{Dataset, Measure, Model, QuestionRanks, Run, RunKind, SCHEMA_VERSION, Scenario, Settings};
use crate::stats::Sampling;

/// What a stage is asked to measure.
pub struct StageContext {
    pub sizes: Vec<usize>,
    pub sampling: Sampling,
    /// The labelled set for the retrieval and ai stages (`--dataset`); the committed
    /// one when `None`.
    pub dataset: Option<std::path::PathBuf>,
    /// Whether the `db`, `vector` and `import` stages also measure an encrypted copy
    /// of their journal (`encrypted.*` scenarios; off with `--no-encrypted`).
    pub encrypted: bool,
}

/// Collects a stage's results and prints a progress line per scenario as it lands.
#[derive(Default)]
pub struct Recorder {
    pub scenarios: Vec<Scenario>,
    pub datasets: Vec<Dataset>,
    pub pragmas: Option<EffectivePragmas>,
    /// sqlite-vec's version as loaded on the measured connection.
    pub sqlite_vec_version: Option<String>,
    pub models: Vec<Model>,
    pub questions: Vec<QuestionRanks>,
}

/// The configured Ollama (`OLLAMA_HOST`, `MINDSAGE_TEXT_MODEL`, `MINDSAGE_EMBED_MODEL`)
/// and a client for it, once it answers with both models pulled: the stages that talk
/// to a model start here.
pub fn ollama(stage: &str) -> anyhow::Result<(AiSettings, OllamaClient)> {
    let settings = AiSettings::from_env();
    let client = OllamaClient::new(&settings)?;
    block_on(mindsage_core::ai::health::check(&client))
        .with_context(|| format!("the {stage} stage needs Ollama"))?;
    Ok((settings, client))
}

/// Timing samples as a measure (failed when there are none).
pub fn timing_measure(samples: &[std::time::Duration]) -> Measure {
    let ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    match mindsage_core::timing::Summary::from_ms(&ms) {
        Some(stats) => Measure::Timing {
            stats,
            requested: samples.len(),
            budget_exhausted: false,
        },
        None => Measure::Failed {
            error: "no samples".into(),
        },
    }
}

/// The models named, as the server describes them: each one's digest from `/api/tags`,
/// its family, size and quantisation from `/api/show`, and the other listed names that
/// share its digest (ollama-local's aliases, `ollama cp`), so a run "on
/// nomic-embed-text" served by other weights says so.
pub fn served_models(client: &OllamaClient, names: &[&str]) -> anyhow::Result<Vec<Model>> {
    let listed = block_on(client.local_models())?;
    names
        .iter()
        .map(|&name| {
            let digest = listed
                .iter()
                .find(|m| same_model(&m.name, name))
                .map(|m| m.digest.clone())
                .unwrap_or_default();
            let served =
                block_on(client.describe(name)).with_context(|| format!("describing the model {name}"))?;
            let same_digest_as = listed
                .iter()
                .filter(|m| !digest.is_empty() && m.digest == digest && !same_model(&m.name, name))
                .map(|m| m.name.clone())
                .collect();
            Ok(Model {
                name: name.to_owned(),
                digest,
                family: served.family,
                parameter_size: served.parameter_size,
                quantization_level: served.quantization_level,
                basename: served.basename,
                same_digest_as,
            })
        })
        .collect()
}

impl Recorder {
    /// Records the models a stage used, once each however many stages used them.
    pub fn add_models(&mut self, models: Vec<Model>) {
        for model in models {
            if !self.models.contains(&model) {
                self.models.push(model);
            }
        }
    }

    pub fn push(&mut self, scenario: Scenario) {
        eprintln!("{}", progress_line(&scenario));
        self.scenarios.push(scenario);
    }
}

fn progress_line(s: &Scenario) -> String {
    let figure = match &s.measure {
        Measure::Timing { stats, .. } => format!(
            "p50 {:>9.4} ms  p95 {:>9.4} ms  p99 {:>9.4} ms  n={}",
            stats.p50_ms, stats.p95_ms, stats.p99_ms, stats.count
        ),
        Measure::Value { value, .. } => format!("{value} {}", s.unit()),
        Measure::Failed { .. } => String::new(),
    };
    let flags = s.flags();
    let flags = if flags.is_empty() {
        String::new()
    } else {
        format!("  ⚑ {}", flags.join("; "))
    };
    format!("[{:<4}] {:<40} {figure}{flags}", s.stage, s.title())
}

/// One measurable part of the app.
pub trait Stage {
    fn name(&self) -> &'static str;
    fn run(&self, ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()>;
}

/// Every implemented stage, in the order a run executes them.
pub fn registry() -> Vec<Box<dyn Stage>> {
    vec![
        Box::new(db::Db),
        Box::new(import::Import),
        Box::new(vector::Vector),
        Box::new(retrieval::Retrieval),
        Box::new(ai::Ai),
        Box::new(backfill::Backfill),
        Box::new(stt::Stt),
        Box::new(app::App),
        Box::new(size::Size),
    ]
}

/// The stages named, in registry order; an unknown name is an error listing the
/// available ones.
pub fn resolve(names: &[String]) -> anyhow::Result<Vec<Box<dyn Stage>>> {
    let available: Vec<&str> = registry().iter().map(|s| s.name()).collect();
    let unknown: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !available.contains(n))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "stage {} not implemented; available stages: {}",
            unknown.join(", "),
            available.join(", ")
        );
    }
    Ok(registry()
        .into_iter()
        .filter(|s| names.iter().any(|n| n == s.name()))
        .collect())
}

/// Runs the named stages and returns the complete run, ready to store.
pub fn execute(label: &str, kind: RunKind, stage_names: &[String], ctx: StageContext) -> anyhow::Result<Run> {
    let stages = resolve(stage_names)?;
    let build = Build::detect();
    if build.profile != "release" {
        eprintln!("warning: a debug build measures the compiler's worst code; use --release");
    }
    let mut out = Recorder::default();
    for stage in &stages {
        stage.run(&ctx, &mut out)?;
    }
    Ok(Run {
        schema_version: SCHEMA_VERSION,
        label: label.to_owned(),
        kind,
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        machine: Machine::detect(),
        build,
        sqlite_version: rusqlite::version().to_owned(),
        sqlite_vec_version: out.sqlite_vec_version,
        pragmas: out.pragmas,
        models: out.models,
        settings: Settings {
            stages: stages.iter().map(|s| s.name().to_owned()).collect(),
            sizes: ctx.sizes,
            sampling: ctx.sampling,
        },
        datasets: out.datasets,
        questions: out.questions,
        ab: None,
        scenarios: out.scenarios,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_stage_is_an_error_listing_the_available_ones() {
        let err = resolve(&["db".into(), "export".into()])
            .err()
            .unwrap()
            .to_string();
        let available: Vec<&str> = registry().iter().map(|s| s.name()).collect();
        assert!(available.contains(&"db") && available.contains(&"size") && available.contains(&"stt"));
        assert_eq!(
            err,
            format!(
                "stage export not implemented; available stages: {}",
                available.join(", ")
            )
        );
        let names: Vec<_> = resolve(&["size".into(), "db".into()])
            .unwrap()
            .iter()
            .map(|s| s.name())
            .collect();
        assert_eq!(names, ["db", "size"]);
    }
}
