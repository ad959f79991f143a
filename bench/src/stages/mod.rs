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
mod editor;
mod embeddings;
pub(crate) mod encryption;
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

use crate::busy::{self, Load, Probe};
use crate::machine::{Build, Machine};
use crate::run::{
    Dataset, Measure, Model, QuestionRanks, Run, RunKind, SCHEMA_VERSION, Scenario, Settings, StageTime,
};
use crate::stats::{Ran, Sampling};

/// What a stage is asked to measure.
pub struct StageContext {
    pub sizes: Vec<usize>,
    pub sampling: Sampling,
    /// The labelled set for the retrieval and ai stages (`--dataset`); the committed
    /// one when `None`.
    pub dataset: Option<std::path::PathBuf>,
    /// Which copies of their journal the `db`, `vector` and `import` stages measure.
    pub copies: Copies,
}

/// Which copies of their journal the `db`, `vector` and `import` stages measure: the
/// plain one, and the same journal encrypted with SQLCipher (`encrypted.*` scenarios).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copies {
    /// The plain journal only (`--no-encrypted`).
    Plain,
    /// The plain journal in this process, then the encrypted copy in a child process of
    /// its own ([`encryption::in_child`]), whose figures this run records beside the
    /// plain ones with their ratios.
    Both,
    /// The encrypted copy only: the child's part (`--encrypted-only`).
    Encrypted,
}

impl StageContext {
    /// The `run` options that ask another `mindsage-bench` process for this context.
    pub fn args(&self) -> Vec<std::ffi::OsString> {
        let s = &self.sampling;
        let mut args: Vec<std::ffi::OsString> = vec![
            format!(
                "--sizes={}",
                self.sizes
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            )
            .into(),
            format!("--samples={}", s.samples).into(),
            format!("--warmup={}", s.warmup).into(),
            format!("--budget-s={}", s.budget_s).into(),
        ];
        if let Some(dataset) = &self.dataset {
            args.extend(["--dataset".into(), dataset.into()]);
        }
        if !s.remeasure {
            args.push("--no-remeasure".into());
        }
        match self.copies {
            Copies::Plain => args.push("--no-encrypted".into()),
            Copies::Both => {}
            Copies::Encrypted => args.push("--encrypted-only".into()),
        }
        args
    }
}

/// Collects a stage's results; the run's own recorder also prints a progress line per
/// scenario as it lands, with the time it took and how busy the machine was, and times
/// each stage.
#[derive(Default)]
pub struct Recorder {
    pub scenarios: Vec<Scenario>,
    pub datasets: Vec<Dataset>,
    pub pragmas: Option<EffectivePragmas>,
    /// sqlite-vec's version as loaded on the measured connection.
    pub sqlite_vec_version: Option<String>,
    pub models: Vec<Model>,
    pub questions: Vec<QuestionRanks>,
    pub stage_times: Vec<StageTime>,
    /// Measure a unit once more when the machine was busy ([`Recorder::unit`]).
    pub remeasure: bool,
    /// The run's recorder: prints each scenario and times it from the previous one (a
    /// unit's recorder collects only; its scenarios are timed when they reach the
    /// run's).
    echo: bool,
    /// Since the previous scenario was recorded (or the stage started).
    since: Option<Probe>,
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

    /// The recorder of a run: prints and times what it records.
    fn for_run(remeasure: bool) -> Recorder {
        Recorder {
            remeasure,
            echo: true,
            ..Recorder::default()
        }
    }

    /// Records a scenario. On the run's recorder it is timed from the previous one and,
    /// unless it carries the load of its own measurement, judged by the load since then.
    pub fn push(&mut self, mut scenario: Scenario) {
        if let Some(since) = &self.since {
            let (window, next) = since.lap();
            self.since = Some(next);
            let ran = scenario.ran.get_or_insert(Ran {
                wall_s: 0.0,
                timed: false,
                load: None,
                retry: None,
            });
            ran.wall_s = window.wall_s;
            ran.timed |= matches!(scenario.measure, Measure::Timing { .. });
            let load = *ran.load.get_or_insert(window);
            if let Some(retry) = ran.retry {
                let said = retry.describe(&load);
                scenario.note = Some(match scenario.note.take() {
                    Some(note) => format!("{note}; {said}"),
                    None => said,
                });
            }
        }
        if self.echo {
            eprintln!("{}", progress_line(&scenario));
        }
        self.scenarios.push(scenario);
    }

    /// Records a value made of timings already recorded at `scenario`'s stage and size
    /// (a ratio, a speed-up): it depends on the machine's speed, and ran under their
    /// combined load.
    pub fn push_derived(&mut self, scenario: Scenario, from: &[&str]) {
        let loads: Vec<Load> = from
            .iter()
            .filter_map(|name| {
                self.scenarios
                    .iter()
                    .find(|s| s.stage == scenario.stage && s.size == scenario.size && s.name == *name)
                    .and_then(Scenario::load)
            })
            .collect();
        let mut scenario = scenario.timed();
        if let Some(ran) = &mut scenario.ran {
            ran.load = Load::combined(&loads);
        }
        self.push(scenario);
    }

    /// Measures a unit of work that records scenarios (into the recorder it is given),
    /// and once more when other processes were busy meanwhile; records the quieter
    /// attempt's scenarios, datasets and models, each with that attempt's load unless it
    /// measured its own. For figures that cannot be re-measured one at a time: a series
    /// of transcriptions, an app's startups.
    pub fn unit(
        &mut self,
        mut measure: impl FnMut(&mut Recorder) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let remeasure = self.remeasure;
        let (unit, load, retry) = busy::quietest(remeasure, || {
            let mut unit = Recorder {
                remeasure,
                ..Recorder::default()
            };
            measure(&mut unit)?;
            Ok(unit)
        })?;
        for mut scenario in unit.scenarios {
            let ran = scenario.ran.get_or_insert(Ran::measured(load, retry));
            if ran.load.is_none() {
                ran.load = Some(load);
                ran.retry = retry;
            }
            self.push(scenario);
        }
        self.datasets.extend(unit.datasets);
        self.add_models(unit.models);
        self.questions.extend(unit.questions);
        if self.pragmas.is_none() {
            self.pragmas = unit.pragmas;
        }
        if self.sqlite_vec_version.is_none() {
            self.sqlite_vec_version = unit.sqlite_vec_version;
        }
        Ok(())
    }

    /// Records scenarios another process measured (and printed), each with the time and
    /// load it was measured with; the next one recorded here is timed from now.
    pub fn adopt(&mut self, scenarios: impl IntoIterator<Item = Scenario>) {
        self.scenarios.extend(scenarios);
        if self.since.is_some() {
            self.since = Some(Probe::start());
        }
    }

    /// Runs one stage, timing it.
    fn stage(&mut self, stage: &dyn Stage, ctx: &StageContext) -> anyhow::Result<()> {
        let probe = Probe::start();
        self.since = Some(probe.clone());
        eprintln!("[{}] started", stage.name());
        let ran = stage.run(ctx, self).and_then(|()| {
            // A plain figure measured after a keyed connection would pay for memory
            // wiping that no plain journal pays ([`encryption::in_child`]).
            anyhow::ensure!(
                ctx.copies == Copies::Encrypted || !encryption::memory_wiping_on()?,
                "the {} stage keyed a journal in the process that measures plain journals: \
                 measure encrypted copies with encryption::in_child",
                stage.name()
            );
            Ok(())
        });
        self.since = None;
        let (load, cpu_s) = probe.finish();
        let time = StageTime {
            stage: stage.name().to_owned(),
            wall_s: load.wall_s,
            cpu_s,
            load,
        };
        eprintln!("[{}] {}", stage.name(), describe_time(&time));
        self.stage_times.push(time);
        ran
    }
}

/// "83.0 s (CPU 60.1 s; other processes used 0.85 cores (load average 2.90))".
fn describe_time(t: &StageTime) -> String {
    let cpu = t.cpu_s.map_or(String::new(), |c| format!("CPU {c:.1} s; "));
    format!("{:.1} s ({cpu}{})", t.wall_s, t.load.describe())
}

/// Where the run's time went, stage by stage, and how many figures were busy.
fn time_summary(run: &Run) -> String {
    let mut text = String::from("where the time went:\n");
    for t in &run.stage_times {
        text.push_str(&format!("  {:<10} {}\n", t.stage, describe_time(t)));
    }
    let total: f64 = run.stage_times.iter().map(|t| t.wall_s).sum();
    text.push_str(&format!(
        "  {:<10} {:.1} s ({:.1} min)\n{}",
        "total",
        total,
        total / 60.0,
        run.busy_summary()
    ));
    text
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
    let took = s.ran.map_or(String::new(), |r| format!("  [{:.1} s]", r.wall_s));
    format!("[{:<4}] {:<40} {figure}{took}{flags}", s.stage, s.title())
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
        Box::new(editor::Editor),
        Box::new(size::Size),
    ]
}

/// The stages named (`all`: every one), in registry order; an unknown name is an error
/// listing the available ones.
pub fn resolve(names: &[String]) -> anyhow::Result<Vec<Box<dyn Stage>>> {
    if names.iter().any(|n| n == "all") {
        return Ok(registry());
    }
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
    // The model server's work is what the AI stages measure: its CPU time is ours.
    if let Some(pid) = busy::server_pid(&AiSettings::from_env().host) {
        busy::count_as_ours(pid);
    }
    let mut out = Recorder::for_run(ctx.sampling.remeasure);
    for stage in &stages {
        out.stage(stage.as_ref(), &ctx)?;
    }
    let run = Run {
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
        stage_times: out.stage_times,
        scenarios: out.scenarios,
    };
    eprintln!("{}", time_summary(&run));
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{self, Payload, Sampling};

    /// A process that is not this one's descendant, keeping a core busy until dropped:
    /// started through a shell that exits at once, so the loop is left to init.
    #[cfg(target_os = "linux")]
    struct Neighbour(u32);

    #[cfg(target_os = "linux")]
    impl Neighbour {
        fn start() -> Neighbour {
            let out = std::process::Command::new("sh")
                .args(["-c", "while :; do :; done </dev/null >/dev/null 2>&1 & echo $!"])
                .output()
                .unwrap();
            Neighbour(String::from_utf8_lossy(&out.stdout).trim().parse().unwrap())
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for Neighbour {
        fn drop(&mut self) {
            let _ = std::process::Command::new("kill")
                .arg(self.0.to_string())
                .status();
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_scenario_measured_while_another_process_burns_a_core_is_flagged_and_measured_again() {
        let neighbour = Neighbour::start();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut out = Recorder::for_run(true);
        out.since = Some(Probe::start());
        // 25 samples of 40 ms: a second per measurement, long enough to be judged alone.
        let sampling = Sampling {
            samples: 25,
            warmup: 0,
            budget_s: 60.0,
            remeasure: true,
        };
        let m = stats::measure(
            &sampling,
            |_| {
                std::thread::sleep(std::time::Duration::from_millis(40));
                Ok(())
            },
            |_| Payload::of(1, 1),
        )
        .unwrap();
        drop(neighbour);
        let measure = Measure::Timing {
            stats: m.stats,
            requested: m.requested,
            budget_exhausted: m.budget_exhausted,
        };
        out.push(Scenario {
            ran: Some(m.ran()),
            ..Scenario::new("db", Some(150), "list.page1", measure, None)
        });
        let scenario = &out.scenarios[0];
        let load = scenario.load().unwrap();
        assert!(load.others_cores.unwrap() > 0.5, "{load:?}");
        let flags = scenario.flags();
        assert!(
            flags.iter().any(
                |f| f.starts_with("measured on a busy machine: other processes used")
                    && f.ends_with("the quieter of two measurements")
            ),
            "{flags:?}"
        );
        let note = scenario.note.as_deref().unwrap();
        assert!(
            note.starts_with("measured twice, the machine being busy: during the first other processes used"),
            "{note}"
        );
        let run = Run {
            stage_times: Vec::new(),
            scenarios: out.scenarios.clone(),
            ..crate::run::tests::fixture()
        };
        assert!(
            run.busy_summary().starts_with("1 of 1 timed figures"),
            "{}",
            run.busy_summary()
        );
    }

    #[test]
    fn a_busy_figure_flags_only_what_depends_on_speed() {
        let busy = Load {
            wall_s: 2.0,
            load_1m: Some(3.0),
            others_cores: Some(0.9),
        };
        let value = |unit| Measure::Value { value: 1.0, unit };
        let recall = Scenario {
            ran: Some(Ran::measured(busy, None)),
            ..Scenario::new(
                "vector",
                Some(5000),
                "random.int8.recall_at_10",
                value(crate::run::Unit::Score),
                None,
            )
        };
        assert!(recall.flags().is_empty());
        let rate = recall.clone().timed();
        assert_eq!(
            rate.flags(),
            ["measured on a busy machine: other processes used 0.90 cores (load average 3.00)"]
        );
        // A ratio takes the load of the timings it is made of.
        let mut out = Recorder::for_run(true);
        out.since = Some(Probe::start());
        let timing = |ms: f64, load| Scenario {
            ran: Some(Ran::measured(load, None)),
            ..Scenario::new(
                "db",
                Some(150),
                if ms > 1.0 {
                    "encrypted.list.page1"
                } else {
                    "list.page1"
                },
                timing_measure(&[std::time::Duration::from_secs_f64(ms / 1000.0)]),
                None,
            )
        };
        let quiet = Load {
            others_cores: Some(0.0),
            ..busy
        };
        out.push(timing(0.5, quiet));
        out.push(timing(2.0, busy));
        out.push_derived(
            Scenario::new(
                "db",
                Some(150),
                "encrypted.list.page1.vs_plain_p95",
                value(crate::run::Unit::Count),
                None,
            ),
            &["list.page1", "encrypted.list.page1"],
        );
        let ratio = out.scenarios[2].load().unwrap();
        assert_eq!((ratio.wall_s, ratio.others_cores), (4.0, Some(0.45)));
        assert!(out.scenarios[2].busy());
    }

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
        assert_eq!(resolve(&["all".into()]).unwrap().len(), registry().len());
    }
}
