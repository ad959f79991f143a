//! The stored run: one JSON file per run at `bench/runs/<label>.json`.
//!
//! Schema version 1 (bump [`SCHEMA_VERSION`] on any incompatible change and describe it
//! in docs/PERFORMANCE.md). Top level:
//!
//! * `schema_version`, `label`, `kind` (`run`, `noise` or `quick`), `created_at` (RFC 3339, UTC)
//! * `machine`: CPU model, logical cores, RAM bytes, OS, kernel ([`Machine`])
//! * `build`: git commit, dirty flag, build profile, rustc version ([`Build`])
//! * `sqlite_version`, `sqlite_vec_version` (null when no stage loaded sqlite-vec)
//! * `pragmas`: the settings read back from the reader connection (null if no db stage)
//! * `models`: every AI model a stage used (empty without AI stages): the name asked
//!   for, the digest `/api/tags` lists for it, what `/api/show` says it is (family,
//!   parameter size, quantisation level, the weights' own name) and the other names
//!   the server lists with the same digest; fields after `digest` default to empty in
//!   runs stored before they were recorded
//! * `settings`: stages, sizes, samples, warm-up, per-scenario budget
//! * `datasets`: every journal measured, with its entry count, seed and photo count
//! * `questions`: the retrieval stage's per-question ranks ([`QuestionRanks`]; absent
//!   in runs without that stage)
//! * `ab`: for runs of kind `ab`, both sides, every repeat's figures and the calls
//!   ([`AbResult`]); absent otherwise
//! * `scenarios`: one per measurement ([`Scenario`]): stage, size (entries, null when
//!   size-independent), name, a `measure` that is either `timing` (a [`Summary`] in ms,
//!   samples requested, whether the budget cut it short) or `value` (bytes or a count),
//!   or `failed` (the error), plus the payload returned (rows and bytes, smallest and
//!   largest answer), the full-scan counts from `EXPLAIN QUERY PLAN`, a note saying
//!   how it was measured, and `ran` ([`Ran`]): the seconds of the run it accounts for,
//!   whether its figure depends on the machine's speed, the load it was measured under
//!   (wall time, 1-minute load average, cores other processes used: [`Load`]) and, when
//!   the first measurement was busy and it was measured once more, the other one's load
//!   and which was kept (absent in runs stored before it was recorded)
//! * `stage_times`: each stage's wall time, our CPU time and the cores other processes
//!   used meanwhile, in the order run ([`StageTime`]; empty in runs stored before)
//!
//! Reports judge a run from this file alone, so the rules that flag a figure (too few
//! samples, suspiciously small answers, unexpected scans) live here in [`Scenario::flags`]
//! and apply to old runs as well as new ones.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use mindsage_core::db::EffectivePragmas;
use mindsage_core::timing::Summary;
use serde::{Deserialize, Serialize};

use crate::busy::Load;
use crate::machine::{Build, Machine};
use crate::stats::{Payload, Ran, Sampling};

pub const SCHEMA_VERSION: u32 = 1;

/// Scenarios renamed since runs were first stored: (stage, old name, new name). Stored
/// runs and the noise table are read with the new names, so the board and `compare`
/// find a figure under one name in old and new runs alike.
pub const LEGACY_NAMES: &[(&str, &str, &str)] = &[
    ("app", "first_frame", "headless_first_frame"),
    ("app", "first_rows", "headless_first_rows"),
    (
        "app",
        "rss_after_view_switches",
        "headless_rss_after_view_switches",
    ),
];

/// `name` under its current name (see [`LEGACY_NAMES`]).
pub fn current_name(stage: &str, name: &mut String) {
    if let Some((_, _, new)) = LEGACY_NAMES.iter().find(|(s, old, _)| *s == stage && old == name) {
        *name = (*new).to_owned();
    }
}

/// Which verb made a run. Only `run` runs feed the board and the docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Run,
    Noise,
    Quick,
    /// An A/B run (`ab`): its scenarios are the head side's, each stat the median of
    /// its repeats, and `ab` holds both sides and the calls.
    Ab,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub schema_version: u32,
    pub label: String,
    pub kind: RunKind,
    pub created_at: String,
    pub machine: Machine,
    pub build: Build,
    pub sqlite_version: String,
    pub sqlite_vec_version: Option<String>,
    pub pragmas: Option<EffectivePragmas>,
    pub models: Vec<Model>,
    pub settings: Settings,
    pub datasets: Vec<Dataset>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<QuestionRanks>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ab: Option<AbResult>,
    /// Each stage's wall time, in the order run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stage_times: Vec<StageTime>,
    pub scenarios: Vec<Scenario>,
}

/// Where a run's time went: one stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    pub stage: String,
    pub wall_s: f64,
    /// CPU seconds this process, its children and the model server used meanwhile
    /// (`None` where it cannot be read).
    pub cpu_s: Option<f64>,
    /// The stage's load: other processes' cores over its wall time.
    pub load: Load,
}

/// Where one labelled question's relevant entries landed, per ranking method, so a
/// moved score can be traced to the questions that moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionRanks {
    /// The labelled set's file name.
    pub set: String,
    /// `default` or the variant's name (`prefixed`, `rrf`, …).
    pub variant: String,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Per method (`keyword`, `vector`, `hybrid`): the 1-based rank of each relevant
    /// entry in the set's label order, `null` when it is not among the ranked results.
    pub ranks: std::collections::BTreeMap<String, Vec<Option<usize>>>,
}

impl QuestionRanks {
    /// "set/variant/question": how reports name it.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.set, self.variant, self.question)
    }
}

/// An AI model a stage ran, identified by content and by what the server says it is,
/// not just by the name asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// The name the run asked for (the app's setting).
    pub name: String,
    pub digest: String,
    #[serde(default)]
    pub family: String,
    #[serde(default)]
    pub parameter_size: String,
    #[serde(default)]
    pub quantization_level: String,
    /// The weights' own name (`general.basename`), when the server gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basename: Option<String>,
    /// Other names the server lists with this digest: the model really served.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub same_digest_as: Vec<String>,
}

impl Model {
    /// "nomic-embed-text (bert 23M F32, all-MiniLM-L6-v2; same digest as
    /// all-minilm:l6-v2) sha256 1a2b3c4d5e6f".
    pub fn describe(&self) -> String {
        let mut what: Vec<String> = [&self.family, &self.parameter_size, &self.quantization_level]
            .into_iter()
            .filter(|s| !s.is_empty())
            .cloned()
            .collect();
        if what.is_empty() {
            what.push("not described".into());
        }
        let mut text = format!("{} ({}", self.name, what.join(" "));
        if let Some(basename) = &self.basename {
            text.push_str(&format!(", {basename}"));
        }
        if !self.same_digest_as.is_empty() {
            text.push_str(&format!("; same digest as {}", self.same_digest_as.join(", ")));
        }
        let digest: String = self
            .digest
            .trim_start_matches("sha256:")
            .chars()
            .take(12)
            .collect();
        text + &format!(") {digest}")
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub stages: Vec<String>,
    pub sizes: Vec<usize>,
    pub sampling: Sampling,
}

/// A journal a stage measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub stage: String,
    pub entries: usize,
    pub seed: u64,
    pub photos: usize,
    pub schema_version: i64,
}

/// Units of a `value` measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Bytes,
    Count,
    /// A figure where higher is better: retrieval quality, a share, a rate.
    Score,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Measure {
    Timing {
        stats: Summary,
        requested: usize,
        budget_exhausted: bool,
    },
    Value {
        value: f64,
        unit: Unit,
    },
    /// The scenario returned an error: no figure, and every report says so.
    Failed {
        error: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub stage: String,
    /// Journal size in entries; `None` for measurements that do not depend on one.
    pub size: Option<usize>,
    pub name: String,
    pub measure: Measure,
    pub payload: Option<Payload>,
    /// Answers smaller than this many bytes (or with no rows) are flagged.
    pub expect_min_bytes: u64,
    /// Full table scans in the statement's plan, and those its allow-list does not accept.
    pub full_scans: Option<u32>,
    pub unexpected_scans: Vec<String>,
    pub note: Option<String>,
    /// What the scenario varied, as fields (K, precision, distance, data, …), so
    /// reports and scripts need not parse names.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub params: std::collections::BTreeMap<String, String>,
    /// How long it took and what it was measured under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<Ran>,
}

impl Scenario {
    /// A scenario with its figure and note; no payload, scans or parameters recorded
    /// (stages set those fields where they measure them).
    pub fn new(
        stage: &str,
        size: Option<usize>,
        name: &str,
        measure: Measure,
        note: Option<String>,
    ) -> Scenario {
        Scenario {
            stage: stage.into(),
            size,
            name: name.into(),
            measure,
            payload: None,
            expect_min_bytes: 0,
            full_scans: None,
            unexpected_scans: Vec::new(),
            note,
            params: Default::default(),
            ran: None,
        }
    }

    /// Marks a value as depending on the machine's speed (a rate, a ratio of timings),
    /// so a busy machine flags it as it flags a timing.
    pub fn timed(mut self) -> Scenario {
        let ran = self.ran.get_or_insert(Ran {
            wall_s: 0.0,
            timed: true,
            load: None,
            retry: None,
        });
        ran.timed = true;
        self
    }

    /// The scenario as made of `series`'s measurements: their combined load, and a note
    /// saying how many of them (`what`) were measured twice.
    pub fn measured_over(mut self, series: &crate::busy::Series, what: &str) -> Scenario {
        let timed = self.is_timed();
        self.ran = Some(Ran {
            wall_s: 0.0,
            timed,
            load: series.load(),
            retry: None,
        });
        if let Some(said) = series.remeasured(what) {
            self.note = Some(match self.note.take() {
                Some(note) => format!("{note}; {said}"),
                None => said,
            });
        }
        self
    }

    /// Whether the figure depends on the machine's speed.
    pub fn is_timed(&self) -> bool {
        matches!(self.measure, Measure::Timing { .. }) || self.ran.is_some_and(|r| r.timed)
    }

    /// The load it was measured under, when recorded.
    pub fn load(&self) -> Option<Load> {
        self.ran.and_then(|r| r.load)
    }

    /// Whether it is a timed figure measured while other processes used more than
    /// [`crate::busy::BUSY_CORES`].
    pub fn busy(&self) -> bool {
        self.is_timed() && self.load().is_some_and(|l| l.busy())
    }

    /// A stat by name: `p50`, `p95`, `p99`, `min`, `max`, `mean` (ms) of a timing, or
    /// `value` of a value measure.
    pub fn stat(&self, stat: &str) -> Option<f64> {
        match (&self.measure, stat) {
            (Measure::Timing { stats, .. }, _) => match stat {
                "p50" => Some(stats.p50_ms),
                "p95" => Some(stats.p95_ms),
                "p99" => Some(stats.p99_ms),
                "min" => Some(stats.min_ms),
                "max" => Some(stats.max_ms),
                "mean" => Some(stats.mean_ms),
                _ => None,
            },
            (Measure::Value { value, .. }, "value") => Some(*value),
            _ => None,
        }
    }

    /// Samples behind a timing.
    pub fn samples(&self) -> Option<usize> {
        match &self.measure {
            Measure::Timing { stats, .. } => Some(stats.count),
            _ => None,
        }
    }

    /// "ms", "bytes", "count" or "score".
    pub fn unit(&self) -> &'static str {
        match &self.measure {
            Measure::Value {
                unit: Unit::Bytes, ..
            } => "bytes",
            Measure::Value {
                unit: Unit::Count, ..
            } => "count",
            Measure::Value {
                unit: Unit::Score, ..
            } => "score",
            _ => "ms",
        }
    }

    /// Why a reader should distrust this figure, if anything. Every report prints these.
    pub fn flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        match &self.measure {
            Measure::Failed { error } => flags.push(format!("FAILED: {error}")),
            Measure::Timing {
                stats,
                requested,
                budget_exhausted,
            } if *budget_exhausted => flags.push(format!(
                "only {} of {requested} samples (time budget)",
                stats.count
            )),
            _ => {}
        }
        if let Some(p) = &self.payload
            && (p.rows_min == 0 || p.bytes_min < self.expect_min_bytes)
        {
            flags.push(format!(
                "suspiciously small answer: {} rows, {} bytes (expected ≥ 1 row, ≥ {} bytes)",
                p.rows_min, p.bytes_min, self.expect_min_bytes
            ));
        }
        if !self.unexpected_scans.is_empty() {
            flags.push(format!(
                "full scan outside the allow-list: {}",
                self.unexpected_scans.join("; ")
            ));
        }
        if let Some(load) = self.load().filter(|_| self.busy()) {
            let twice = match self.ran.and_then(|r| r.retry) {
                Some(_) => ", the quieter of two measurements",
                None => "",
            };
            flags.push(format!("measured on a busy machine: {}{twice}", load.describe()));
        }
        flags
    }

    /// "list.page1 @ 5000" or just the name when size-independent.
    pub fn title(&self) -> String {
        match self.size {
            Some(size) => format!("{} @ {size}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A figure as reports print it: ms with enough digits for sub-millisecond queries,
/// bytes with a binary unit, counts as integers unless they are averages (1.4 model calls
/// per entry must not print as 1).
pub fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "ms" if value < 1.0 => format!("{value:.4} ms"),
        "ms" => format!("{value:.2} ms"),
        "bytes" if value >= 1024.0 * 1024.0 => format!("{:.2} MiB", value / (1024.0 * 1024.0)),
        "bytes" if value >= 1024.0 => format!("{:.1} KiB", value / 1024.0),
        "bytes" => format!("{value:.0} B"),
        "score" => format!("{value:.3}"),
        _ if value.fract() != 0.0 => format!("{value:.2}"),
        _ => format!("{value:.0}"),
    }
}

/// One side of an A/B run ([`crate::ab`]): what was run, and the commit the child runs reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub binary: String,
    /// `KEY=VALUE` settings the side's children ran with.
    pub env: Vec<String>,
    pub commit: Option<String>,
    pub git_dirty: bool,
}

/// What the A/B run decided about one stat of one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Call {
    Worse,
    Better,
    NoChange,
}

/// One stat of one scenario, every repeat of both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    pub stage: String,
    pub size: Option<usize>,
    pub scenario: String,
    pub stat: String,
    pub unit: String,
    /// The stat in each repeat, in the order measured.
    pub base: Vec<f64>,
    pub head: Vec<f64>,
    /// (median head − median base) / median base.
    pub change: f64,
    /// Exact two-sided Mann–Whitney p-value of the two sets of repeats.
    pub p_value: f64,
    pub call: Call,
}

impl Judged {
    pub fn title(&self) -> String {
        match self.size {
            Some(size) => format!("{} @ {size}", self.scenario),
            None => self.scenario.clone(),
        }
    }
}

/// The `ab` field of a run of kind `ab`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbResult {
    pub base: Side,
    pub head: Side,
    pub repeats: usize,
    /// How the children were ordered, in words, for whoever reads the file.
    pub order: String,
    pub judged: Vec<Judged>,
    /// The chance that the rank test calls a stat that did not change ([`crate::ab::chance_level`]
    /// at these repeats): an A/A run of `judged.len()` stats calls about that many times
    /// this by chance alone. 0 in runs stored before it was recorded.
    #[serde(default)]
    pub chance_level: f64,
}

impl AbResult {
    pub fn calls(&self, call: Call) -> impl Iterator<Item = &Judged> {
        self.judged.iter().filter(move |j| j.call == call)
    }
}

impl Run {
    pub fn scenario(&self, stage: &str, size: Option<usize>, name: &str) -> Option<&Scenario> {
        self.scenarios
            .iter()
            .find(|s| s.stage == stage && s.size == size && s.name == name)
    }

    /// "3 of 412 timed figures were measured on a busy machine …", or what a run from
    /// before the load was recorded lacks: every report says it.
    pub fn busy_summary(&self) -> String {
        let timed: Vec<&Scenario> = self.scenarios.iter().filter(|s| s.is_timed()).collect();
        if !timed
            .iter()
            .any(|s| s.load().is_some_and(|l| l.others_cores.is_some()))
        {
            return "This run does not record how busy the machine was (made before it was \
                recorded, or where /proc cannot be read)."
                .to_owned();
        }
        let busy = timed.iter().filter(|s| s.busy()).count();
        let twice = timed
            .iter()
            .filter(|s| s.ran.is_some_and(|r| r.retry.is_some()))
            .count();
        format!(
            "{busy} of {} timed figures flagged as measured on a busy machine (other processes \
             using more than {} of a core meanwhile); {twice} measured twice for it, the \
             quieter measurement kept.",
            timed.len(),
            crate::busy::BUSY_CORES
        )
    }

    /// How reports cite a run: its label and commit.
    pub fn citation(&self) -> String {
        format!("`{}` @ {}", self.label, self.build.short())
    }

    pub fn path_for(label: &str) -> PathBuf {
        crate::paths::runs_dir().join(format!("{label}.json"))
    }

    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let json = serde_json::to_string_pretty(self)? + "\n";
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))
    }

    pub fn load(path: &Path) -> anyhow::Result<Run> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Run::parse(&text).with_context(|| format!("reading the run {}", path.display()))
    }

    pub fn parse(text: &str) -> anyhow::Result<Run> {
        let version = serde_json::from_str::<serde_json::Value>(text)?
            .get("schema_version")
            .and_then(serde_json::Value::as_u64);
        if version != Some(u64::from(SCHEMA_VERSION)) {
            bail!(
                "schema version {version:?}; this harness reads version {SCHEMA_VERSION} (see docs/PERFORMANCE.md)"
            );
        }
        let mut run: Run = serde_json::from_str(text)?;
        for s in &mut run.scenarios {
            current_name(&s.stage, &mut s.name);
        }
        Ok(run)
    }

    /// A run by label (`bench/runs/<label>.json`) or by path to a JSON file.
    pub fn find(label_or_path: &str) -> anyhow::Result<Run> {
        let as_path = Path::new(label_or_path);
        if label_or_path.ends_with(".json") && as_path.exists() {
            return Run::load(as_path);
        }
        Run::load(&Run::path_for(label_or_path))
    }

    /// The stored run of kind `run` that ran the most of the stages in `stages` (the
    /// board's), the newest of those: what the board and the docs report. A run of one
    /// stage, newer than the last full run, would otherwise leave every other item
    /// unmeasured; a stage newer than every full run leaves only its own items so.
    pub fn latest_full(stages: &[&str]) -> anyhow::Result<Run> {
        let dir = crate::paths::runs_dir();
        let mut runs = Vec::new();
        for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                let run = Run::load(&path)?;
                let covered = stages
                    .iter()
                    .filter(|s| run.settings.stages.iter().any(|r| r == *s))
                    .count();
                if run.kind == RunKind::Run && covered > 0 {
                    runs.push((covered, run));
                }
            }
        }
        runs.into_iter()
            .max_by(|(a_covered, a), (b_covered, b)| {
                a_covered.cmp(b_covered).then(a.created_at.cmp(&b.created_at))
            })
            .map(|(_, run)| run)
            .with_context(|| {
                format!(
                    "no stored run of kind `run` with any of the stages {} in {}",
                    stages.join(", "),
                    dir.display()
                )
            })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::busy::Retry;

    /// The committed fixture: a small run with a timing, a value, a failed scenario and
    /// a flagged payload.
    pub(crate) fn fixture() -> Run {
        Run::parse(include_str!("../tests/fixtures/run-small.json")).unwrap()
    }

    #[test]
    fn old_runs_are_read_under_the_current_names() {
        let mut stored = fixture();
        stored.scenarios[0].stage = "app".into();
        stored.scenarios[0].name = "rss_after_view_switches".into();
        stored.scenarios[1].stage = "db".into();
        stored.scenarios[1].name = "first_frame".into();
        let read = Run::parse(&serde_json::to_string(&stored).unwrap()).unwrap();
        assert_eq!(read.scenarios[0].name, "headless_rss_after_view_switches");
        // Only the app stage's scenarios were renamed.
        assert_eq!(read.scenarios[1].name, "first_frame");
    }

    #[test]
    fn averaged_counts_keep_their_fraction() {
        assert_eq!(format_value(1.4, "count"), "1.40");
        assert_eq!(format_value(3.0, "count"), "3");
        assert_eq!(format_value(0.5, "ms"), "0.5000 ms");
    }

    #[test]
    fn json_round_trip_keeps_everything() {
        let run = fixture();
        let json = serde_json::to_string_pretty(&run).unwrap();
        assert_eq!(Run::parse(&json).unwrap(), run);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        run.save(&path).unwrap();
        assert_eq!(Run::load(&path).unwrap(), run);
    }

    #[test]
    fn runs_from_before_the_load_was_recorded_still_load_and_say_so() {
        let old = fixture();
        assert!(old.stage_times.is_empty() && old.scenarios.iter().all(|s| s.ran.is_none()));
        assert!(
            old.busy_summary()
                .starts_with("This run does not record how busy")
        );
        assert!(!old.settings.sampling.remeasure);
        // What a new run stores comes back as it was.
        let mut new = old.clone();
        let load = Load {
            wall_s: 1.5,
            load_1m: Some(2.5),
            others_cores: Some(0.1),
        };
        new.scenarios[0].ran = Some(Ran {
            wall_s: 3.0,
            timed: true,
            load: Some(load),
            retry: Some(Retry {
                discarded: Load {
                    others_cores: Some(0.8),
                    ..load
                },
                kept_second: true,
            }),
        });
        new.stage_times.push(StageTime {
            stage: "db".into(),
            wall_s: 60.0,
            cpu_s: Some(55.0),
            load,
        });
        assert_eq!(Run::parse(&serde_json::to_string(&new).unwrap()).unwrap(), new);
        assert!(new.busy_summary().starts_with("0 of "), "{}", new.busy_summary());
        assert!(new.busy_summary().contains("; 1 measured twice for it"));
    }

    #[test]
    fn refuses_other_schema_versions() {
        let json = serde_json::to_string(&fixture())
            .unwrap()
            .replace("\"schema_version\":1", "\"schema_version\":99");
        let err = Run::parse(&json).unwrap_err().to_string();
        assert!(err.contains("schema version Some(99)"), "{err}");
    }

    #[test]
    fn stats_and_flags_are_read_from_the_stored_run() {
        let run = fixture();
        let page = run.scenario("db", Some(150), "list.page1").unwrap();
        assert_eq!(page.stat("p95"), Some(0.1));
        assert_eq!(page.samples(), Some(200));
        assert!(page.flags().is_empty());
        let trash = run.scenario("db", Some(150), "list.trash").unwrap();
        assert!(trash.flags()[0].starts_with("suspiciously small answer"));
        let slow = run.scenario("db", Some(5000), "write.purge").unwrap();
        assert_eq!(slow.flags(), ["only 13 of 200 samples (time budget)"]);
        let binary = run.scenario("size", None, "binary").unwrap();
        assert_eq!((binary.stat("value"), binary.unit()), (Some(1.0e7), "bytes"));
        let failed = run.scenario("db", Some(150), "gallery.random").unwrap();
        assert!(failed.flags()[0].starts_with("FAILED"));
    }
}
