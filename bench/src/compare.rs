//! Comparing two runs, regressions first.
//!
//! The report opens with a box of everything that got worse beyond the noise
//! threshold, and closes that box with a sentence that is not negotiable: a win
//! elsewhere does not cancel a regression. Wins come next and the unchanged last, so
//! nobody reads a green summary and misses the one screen that got slower. Both runs'
//! machines, pragmas and models are shown, with a loud warning when they differ: a
//! figure from another machine is a different experiment, not a regression.

use std::fmt::Write as _;

use crate::noise::{self, NoiseTable};
use crate::run::{Measure, Run, format_value};

pub const CLOSING_LINE: &str = "A win elsewhere does not cancel these. Decide deliberately \
whether each is an acceptable trade, and record the decision in the optimisation log.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Worse,
    Better,
    NoDetectableEffect,
}

/// One stat of one scenario in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    pub scenario: String,
    pub stat: String,
    pub unit: &'static str,
    pub base: f64,
    pub head: f64,
    pub threshold: noise::Threshold,
    pub verdict: Verdict,
    pub samples: (Option<usize>, Option<usize>),
    pub flags: Vec<String>,
}

impl Delta {
    fn rel(&self) -> f64 {
        if self.base > 0.0 {
            (self.head - self.base) / self.base
        } else if self.head > self.base {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Worse, largest relative change first.
    pub worse: Vec<Delta>,
    /// Better, largest improvement first.
    pub better: Vec<Delta>,
    pub unchanged: Vec<Delta>,
    /// Scenarios that failed in head (whatever base did): worse than any slowdown.
    pub failed_in_head: Vec<String>,
    pub only_in_base: Vec<String>,
    pub only_in_head: Vec<String>,
    /// Flags either run raised, per scenario.
    pub flags: Vec<String>,
    /// Why the two runs are not like-for-like, if they are not.
    pub warnings: Vec<String>,
    /// Labelled questions whose relevant entries' ranks differ between the runs.
    pub moved_questions: Vec<String>,
}

pub fn compare(base: &Run, head: &Run, noise: Option<&NoiseTable>) -> Comparison {
    let mut deltas = Vec::new();
    let mut failed_in_head = Vec::new();
    let mut only_in_head = Vec::new();
    let mut flags = Vec::new();
    for h in &head.scenarios {
        for (run, s) in [
            (&base.label, base.scenario(&h.stage, h.size, &h.name)),
            (&head.label, Some(h)),
        ] {
            for flag in s.map(|s| s.flags()).unwrap_or_default() {
                flags.push(format!("`{run}` {}: {flag}", h.title()));
            }
        }
        if let Measure::Failed { error } = &h.measure {
            failed_in_head.push(format!("{}: {error}", h.title()));
            continue;
        }
        let Some(b) = base.scenario(&h.stage, h.size, &h.name) else {
            only_in_head.push(h.title());
            continue;
        };
        for stat in noise::compared_stats(&h.measure) {
            let (Some(bv), Some(hv)) = (b.stat(stat), h.stat(stat)) else {
                continue;
            };
            let unit = h.unit();
            let threshold = noise::threshold(noise, &h.stage, h.size, &h.name, stat, unit);
            let verdict = match noise::judge(bv, hv, unit, threshold) {
                Some(true) => Verdict::Worse,
                Some(false) => Verdict::Better,
                None => Verdict::NoDetectableEffect,
            };
            let mut row_flags = b.flags();
            row_flags.extend(h.flags());
            deltas.push(Delta {
                scenario: h.title(),
                stat: (*stat).to_owned(),
                unit,
                base: bv,
                head: hv,
                threshold,
                verdict,
                samples: (b.samples(), h.samples()),
                flags: row_flags,
            });
        }
    }
    let only_in_base = base
        .scenarios
        .iter()
        .filter(|b| head.scenario(&b.stage, b.size, &b.name).is_none())
        .map(|b| b.title())
        .collect();
    let pick = |v: Verdict| -> Vec<Delta> { deltas.iter().filter(|d| d.verdict == v).cloned().collect() };
    let mut worse = pick(Verdict::Worse);
    worse.sort_by(|a, b| b.rel().total_cmp(&a.rel()));
    let mut better = pick(Verdict::Better);
    better.sort_by(|a, b| a.rel().total_cmp(&b.rel()));
    Comparison {
        worse,
        better,
        unchanged: pick(Verdict::NoDetectableEffect),
        failed_in_head,
        only_in_base,
        only_in_head,
        flags,
        warnings: differences(base, head),
        moved_questions: moved_questions(base, head),
    }
}

/// "retrieval-v1.json/default/q08 (topic) hybrid: ranks [1] → [4]" for every question
/// and method whose ranks changed, so a moved score leads to the questions behind it.
pub fn moved_questions(base: &Run, head: &Run) -> Vec<String> {
    let show = |ranks: &[Option<usize>]| {
        let ranks: Vec<String> = ranks
            .iter()
            .map(|r| r.map_or("–".to_owned(), |r| r.to_string()))
            .collect();
        format!("[{}]", ranks.join(", "))
    };
    let mut moved = Vec::new();
    for h in &head.questions {
        let Some(b) = base.questions.iter().find(|b| b.key() == h.key()) else {
            continue;
        };
        for (method, head_ranks) in &h.ranks {
            let Some(base_ranks) = b.ranks.get(method).filter(|r| *r != head_ranks) else {
                continue;
            };
            let kind = h.kind.as_ref().map_or(String::new(), |k| format!(" ({k})"));
            moved.push(format!(
                "{}{kind} {method}: ranks {} → {}",
                h.key(),
                show(base_ranks),
                show(head_ranks)
            ));
        }
    }
    moved
}

/// Everything that makes the two runs different experiments.
fn differences(base: &Run, head: &Run) -> Vec<String> {
    let mut out = Vec::new();
    if base.machine != head.machine {
        out.push(
            "the runs were made on DIFFERENT MACHINES; differences may be the hardware's, not the code's"
                .into(),
        );
    }
    if base.pragmas != head.pragmas {
        out.push("the runs used DIFFERENT SQLITE SETTINGS (pragmas)".into());
    }
    if base.models != head.models {
        let list = |run: &Run| {
            let models: Vec<String> = run.models.iter().map(|m| m.describe()).collect();
            format!("`{}`: {}", run.label, models.join("; "))
        };
        out.push(format!(
            "the runs used DIFFERENT MODELS ({} vs {})",
            list(base),
            list(head)
        ));
    }
    if base.sqlite_version != head.sqlite_version {
        out.push(format!(
            "SQLite differs: {} vs {}",
            base.sqlite_version, head.sqlite_version
        ));
    }
    if base.settings.sampling != head.settings.sampling {
        out.push("the runs were sampled differently (samples, warm-up or budget)".into());
    }
    for run in [base, head] {
        if run.build.profile != "release" {
            out.push(format!(
                "`{}` is a {} build: its figures are not representative",
                run.label, run.build.profile
            ));
        }
        if run.build.git_dirty {
            out.push(format!(
                "`{}` was made with uncommitted changes to {}",
                run.label,
                run.build.dirty_paths.join(", ")
            ));
        }
    }
    out
}

/// The box of regressions that opens every comparison, closing line included.
pub fn render_box(c: &Comparison, base: &Run, head: &Run) -> String {
    let mut md = String::new();
    let n = c.worse.len() + c.failed_in_head.len();
    let _ = writeln!(
        md,
        "> ## ⚠ Worse beyond noise: {n} — {} → {}",
        base.citation(),
        head.citation()
    );
    md.push_str(">\n");
    if n == 0 {
        md.push_str("> Nothing got worse beyond the noise threshold.\n>\n");
    } else {
        for failed in &c.failed_in_head {
            let _ = writeln!(md, "> - **FAILED in head:** {failed}");
        }
        if !c.worse.is_empty() {
            if !c.failed_in_head.is_empty() {
                md.push_str(">\n");
            }
            for line in table(&c.worse).lines() {
                let _ = writeln!(md, "> {line}");
            }
        }
        md.push_str(">\n");
    }
    let _ = writeln!(md, "> {CLOSING_LINE}");
    md
}

/// The Markdown report. `chart` is the chart's file name, beside the report.
pub fn render(
    c: &Comparison,
    base: &Run,
    head: &Run,
    noise: Option<&NoiseTable>,
    chart: Option<&str>,
) -> String {
    let mut md = render_box(c, base, head);
    md.push('\n');
    let _ = writeln!(md, "# Comparison: {} → {}\n", base.citation(), head.citation());
    for warning in &c.warnings {
        let _ = writeln!(md, "> **⚠ WARNING: {warning}.**\n");
    }
    let _ = writeln!(
        md,
        "Busy machine: `{}`: {} `{}`: {}\n",
        base.label,
        base.busy_summary(),
        head.label,
        head.busy_summary()
    );
    match noise {
        Some(t) => {
            let _ = writeln!(
                md,
                "Noise: a change counts when it exceeds {}× the spread measured between runs `{}` and `{}` (bench/noise.json), at least 5 % for times and 1 % for bytes; changes under {} ms never count. Scenarios the noise runs did not cover use a default (marked \"default\").\n",
                noise::NOISE_MULTIPLIER,
                t.runs[0],
                t.runs[1],
                noise::ABS_FLOOR_MS
            );
        }
        None => {
            md.push_str("Noise: **no noise measurement** (bench/noise.json; run `noise`): default thresholds of 10 % for times and 1 % for bytes.\n\n");
        }
    }
    let _ = writeln!(md, "## Wins ({})\n", c.better.len());
    md.push_str(&if c.better.is_empty() {
        "None.\n".to_owned()
    } else {
        table(&c.better)
    });
    let _ = writeln!(md, "\n## No detectable effect ({})\n", c.unchanged.len());
    md.push_str(&if c.unchanged.is_empty() {
        "None.\n".to_owned()
    } else {
        table(&c.unchanged)
    });
    if !c.flags.is_empty() {
        md.push_str("\n## Flagged figures\n\n");
        for flag in &c.flags {
            let _ = writeln!(md, "- ⚑ {flag}");
        }
    }
    if !c.only_in_base.is_empty() || !c.only_in_head.is_empty() {
        md.push_str("\n## Not in both runs\n\n");
        for s in &c.only_in_base {
            let _ = writeln!(md, "- only in `{}`: {s}", base.label);
        }
        for s in &c.only_in_head {
            let _ = writeln!(md, "- only in `{}`: {s}", head.label);
        }
    }
    if !c.moved_questions.is_empty() {
        let _ = writeln!(
            md,
            "\n## Questions whose ranks moved ({})\n",
            c.moved_questions.len()
        );
        for q in &c.moved_questions {
            let _ = writeln!(md, "- {q}");
        }
    }
    if let Some(chart) = chart {
        let _ = writeln!(
            md,
            "\n## p95 per scenario (log scale)\n\n![p95 per scenario, base vs head]({chart})"
        );
    }
    md.push_str("\n## The runs\n\n");
    md.push_str(&runs_table(base, head));
    md
}

fn table(deltas: &[Delta]) -> String {
    let mut md = String::from(
        "| measurement | stat | base | head | change | threshold | samples (base / head) | flags |\n|---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for d in deltas {
        let change = if d.rel().is_finite() {
            format!("{:+.1} %", d.rel() * 100.0)
        } else {
            format!("{:+}", d.head - d.base)
        };
        let threshold = format!(
            "±{:.0} %{}",
            d.threshold.rel * 100.0,
            if d.threshold.measured { "" } else { " (default)" }
        );
        let n = |s: Option<usize>| s.map_or("–".to_owned(), |n| n.to_string());
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {change} | {threshold} | {} / {} | {} |",
            d.scenario,
            d.stat,
            format_value(d.base, d.unit),
            format_value(d.head, d.unit),
            n(d.samples.0),
            n(d.samples.1),
            d.flags
                .iter()
                .map(|f| format!("⚑ {f}"))
                .collect::<Vec<_>>()
                .join("<br>")
        );
    }
    md
}

/// Machines, builds, pragmas and models side by side.
fn runs_table(base: &Run, head: &Run) -> String {
    let rows: [(&str, String, String); 9] = [
        ("created", base.created_at.clone(), head.created_at.clone()),
        ("commit", base.build.short(), head.build.short()),
        ("profile", base.build.profile.clone(), head.build.profile.clone()),
        (
            "rustc",
            base.build.rustc.clone().unwrap_or_default(),
            head.build.rustc.clone().unwrap_or_default(),
        ),
        ("machine", json(&base.machine), json(&head.machine)),
        (
            "SQLite / sqlite-vec",
            format!("{} / {:?}", base.sqlite_version, base.sqlite_vec_version),
            format!("{} / {:?}", head.sqlite_version, head.sqlite_vec_version),
        ),
        ("pragmas", json(&base.pragmas), json(&head.pragmas)),
        ("models", models(base), models(head)),
        ("datasets", json(&base.datasets), json(&head.datasets)),
    ];
    let mut md = format!("| | `{}` | `{}` |\n|---|---|---|\n", base.label, head.label);
    for (name, b, h) in rows {
        let mark = if b == h { "" } else { " ⚠" };
        let _ = writeln!(md, "| {name}{mark} | {b} | {h} |");
    }
    md
}

/// Each model as the server described it, for the runs table.
fn models(run: &Run) -> String {
    let models: Vec<String> = run.models.iter().map(|m| m.describe()).collect();
    models.join("<br>").replace('|', "\\|")
}

/// Compact one-line JSON of a value, for the runs table.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_default()
        .replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::fixture;

    fn set_p95(run: &mut Run, name: &str, size: usize, p95: f64) {
        let s = run
            .scenarios
            .iter_mut()
            .find(|s| s.name == name && s.size == Some(size))
            .unwrap();
        if let Measure::Timing { stats, .. } = &mut s.measure {
            stats.p95_ms = p95;
        }
    }

    #[test]
    fn regressions_come_first_and_end_with_the_closing_line() {
        let base = fixture();
        let mut head = fixture();
        head.label = "head".into();
        set_p95(&mut head, "list.page1", 150, 0.2); // +100 %: worse
        set_p95(&mut head, "list.page1", 5000, 0.15); // −50 %: better
        let c = compare(&base, &head, None);
        assert_eq!(c.worse.len(), 1);
        assert_eq!(
            (c.worse[0].scenario.as_str(), c.worse[0].stat.as_str()),
            ("list.page1 @ 150", "p95")
        );
        assert_eq!(c.better.len(), 1);
        assert!(
            c.failed_in_head
                .iter()
                .any(|f| f.starts_with("gallery.random @ 150"))
        );

        let md = render(&c, &base, &head, None, Some("chart.svg"));
        let worse_at = md.find("list.page1 @ 150").unwrap();
        let closing_at = md.find(CLOSING_LINE).unwrap();
        let wins_at = md.find("## Wins").unwrap();
        let unchanged_at = md.find("## No detectable effect").unwrap();
        assert!(md.starts_with("> ## ⚠ Worse beyond noise: 2"));
        assert!(worse_at < closing_at && closing_at < wins_at && wins_at < unchanged_at);
        // The box's last line is the closing line.
        let box_end = md.lines().take_while(|l| l.starts_with('>')).last().unwrap();
        assert_eq!(box_end, format!("> {CLOSING_LINE}"));
        // Flags of either run are in the report.
        assert!(md.contains("only 13 of 200 samples"));
        assert!(md.contains("suspiciously small answer"));
        assert!(md.contains("default thresholds"));
    }

    #[test]
    fn different_machines_raise_a_loud_warning() {
        let mut base = fixture();
        base.scenarios.retain(|s| s.name != "gallery.random");
        let mut head = base.clone();
        head.machine.cpu_model = Some("Another CPU".into());
        let c = compare(&base, &head, None);
        let md = render(&c, &base, &head, None, None);
        assert!(md.contains("WARNING: the runs were made on DIFFERENT MACHINES"));
        assert!(md.contains("Nothing got worse beyond the noise threshold."));
        assert!(md.contains(CLOSING_LINE));
    }

    #[test]
    fn moved_questions_and_other_models_are_named() {
        use crate::run::{Model, QuestionRanks};
        let mut base = fixture();
        base.scenarios.retain(|s| s.name != "gallery.random");
        let question = |hybrid: Vec<Option<usize>>| QuestionRanks {
            set: "retrieval-v1.json".into(),
            variant: "default".into(),
            question: "q08".into(),
            kind: Some("topic".into()),
            ranks: [("hybrid".to_owned(), hybrid), ("keyword".to_owned(), vec![None])].into(),
        };
        let minilm = Model {
            name: "nomic-embed-text".into(),
            digest: "sha256:aaaa".into(),
            family: "bert".into(),
            parameter_size: "23M".into(),
            quantization_level: "F32".into(),
            basename: Some("all-MiniLM-L6-v2".into()),
            same_digest_as: vec!["all-minilm:l6-v2".into()],
        };
        base.questions = vec![question(vec![Some(1)])];
        base.models = vec![minilm.clone()];
        let mut head = base.clone();
        head.label = "head".into();
        head.questions = vec![question(vec![Some(4)])];
        head.models = vec![Model {
            digest: "sha256:bbbb".into(),
            family: "nomic-bert".into(),
            parameter_size: "137M".into(),
            quantization_level: "F16".into(),
            basename: None,
            same_digest_as: Vec::new(),
            ..minilm
        }];
        let c = compare(&base, &head, None);
        assert_eq!(
            c.moved_questions,
            ["retrieval-v1.json/default/q08 (topic) hybrid: ranks [1] → [4]"]
        );
        let md = render(&c, &base, &head, None, None);
        assert!(md.contains("## Questions whose ranks moved (1)"), "{md}");
        assert!(md.contains("WARNING: the runs used DIFFERENT MODELS"), "{md}");
        assert!(
            md.contains(
                "nomic-embed-text (bert 23M F32, all-MiniLM-L6-v2; same digest as all-minilm:l6-v2) aaaa"
            ),
            "{md}"
        );
        assert!(md.contains("nomic-embed-text (nomic-bert 137M F16) bbbb"), "{md}");
    }
}
