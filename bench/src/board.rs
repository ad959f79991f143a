//! The performance board: tracked items and whether the latest run meets them.
//!
//! `bench/board.json` says, for each item, where its figure lives in a run (stage,
//! size, scenario, stat) and the target. It holds no measured numbers, only targets;
//! `board` reads the figures from a stored run and renders `bench/BOARD.md`, so the
//! board can never show a number nobody measured.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::run::{Run, format_value};

pub const BOARD_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub schema_version: u32,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    pub metric: MetricRef,
    pub target: Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    High,
    Medium,
    Low,
}

/// Where an item's figure lives in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRef {
    pub stage: String,
    pub size: Option<usize>,
    pub scenario: String,
    /// `p50`, `p95`, `p99`, `min`, `max`, `mean` or `value`.
    pub stat: String,
    /// `ms`, `bytes` or `count`, as the target is written.
    pub unit: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(clippy::enum_variant_names)] // the names are the board's JSON keys: at_most, at_least
pub enum Target {
    /// The figure must not exceed this.
    AtMost(f64),
    /// The figure must not exceed `factor` times the same stat at another journal
    /// size: "stays flat as the journal grows".
    AtMostTimes { factor: f64, of_size: usize },
    /// The figure must reach at least this (scores: quality, shares, rates).
    AtLeast(f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Met,
    Missed,
    NotMeasured,
}

/// One item judged against one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated<'a> {
    pub item: &'a Item,
    pub value: Option<f64>,
    /// The target in the item's unit (resolved for relative targets).
    pub limit: Option<f64>,
    pub status: Status,
    pub samples: Option<usize>,
    pub flags: Vec<String>,
}

impl Board {
    pub fn path() -> PathBuf {
        crate::paths::bench_dir().join("board.json")
    }

    pub fn load(path: &Path) -> anyhow::Result<Board> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let board: Board =
            serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
        anyhow::ensure!(
            board.schema_version == BOARD_SCHEMA_VERSION,
            "{}: board schema version {}, expected {BOARD_SCHEMA_VERSION}",
            path.display(),
            board.schema_version
        );
        Ok(board)
    }

    /// The stages the items read, each once.
    pub fn stages(&self) -> Vec<&str> {
        let stages: std::collections::BTreeSet<&str> =
            self.items.iter().map(|i| i.metric.stage.as_str()).collect();
        stages.into_iter().collect()
    }

    pub fn evaluate<'a>(&'a self, run: &Run) -> Vec<Evaluated<'a>> {
        self.items
            .iter()
            .map(|item| {
                let m = &item.metric;
                let scenario = run.scenario(&m.stage, m.size, &m.scenario);
                let value = scenario.and_then(|s| s.stat(&m.stat));
                let limit = match &item.target {
                    Target::AtMost(v) | Target::AtLeast(v) => Some(*v),
                    Target::AtMostTimes { factor, of_size } => run
                        .scenario(&m.stage, Some(*of_size), &m.scenario)
                        .and_then(|s| s.stat(&m.stat))
                        .map(|v| v * factor),
                };
                let status = match (value, limit) {
                    (Some(v), Some(l)) if matches!(item.target, Target::AtLeast(_)) && v >= l => Status::Met,
                    (Some(v), Some(l)) if !matches!(item.target, Target::AtLeast(_)) && v <= l => Status::Met,
                    (Some(_), Some(_)) => Status::Missed,
                    _ => Status::NotMeasured,
                };
                Evaluated {
                    item,
                    value,
                    limit,
                    status,
                    samples: scenario.and_then(|s| s.samples()),
                    flags: scenario.map(|s| s.flags()).unwrap_or_default(),
                }
            })
            .collect()
    }
}

/// The board as a Markdown table, each figure cited with its run.
pub fn table(rows: &[Evaluated<'_>], run: &Run) -> String {
    let mut md = String::from(
        "| id | item | severity | figure | value | target | status | samples | run |\n|---|---|---|---|---:|---|---|---:|---|\n",
    );
    for r in rows {
        let m = &r.item.metric;
        let at = m.size.map_or(String::new(), |s| format!(" @ {s}"));
        let target = match &r.item.target {
            Target::AtMost(v) => format!("≤ {}", format_value(*v, &m.unit)),
            Target::AtLeast(v) => format!("≥ {}", format_value(*v, &m.unit)),
            Target::AtMostTimes { factor, of_size } => format!(
                "≤ {factor}× its value @ {of_size}{}",
                r.limit
                    .map_or(String::new(), |l| format!(" ({})", format_value(l, &m.unit)))
            ),
        };
        let status = match r.status {
            Status::Met => "✅ met",
            Status::Missed => "❌ missed",
            Status::NotMeasured => "⚠ not measured",
        };
        let flags: String = r.flags.iter().map(|f| format!("<br>⚑ {f}")).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {:?} | {} {}{at} | {} | {target} | {status}{flags} | {} | {} |",
            r.item.id,
            r.item.title,
            r.item.severity,
            m.scenario,
            m.stat,
            r.value.map_or("–".to_owned(), |v| format_value(v, &m.unit)),
            r.samples.map_or("–".to_owned(), |n| n.to_string()),
            run.citation(),
        );
    }
    md
}

/// `bench/BOARD.md`.
pub fn render(board: &Board, run: &Run) -> String {
    let rows = board.evaluate(run);
    let missed = rows.iter().filter(|r| r.status != Status::Met).count();
    let mut md = String::from(
        "# Performance board\n\n<!-- Generated by `cargo run --release -p mindsage-bench -- board`; edit bench/board.json, not this file. -->\n\n",
    );
    let _ = writeln!(
        md,
        "Figures from run {} made {} on {} ({} cores). {} of {} items met{}.\n",
        run.citation(),
        run.created_at,
        run.machine.cpu_model.as_deref().unwrap_or("an unknown CPU"),
        run.machine.logical_cores,
        rows.len() - missed,
        rows.len(),
        if missed > 0 {
            "; the rest need work or a recorded decision in docs/optimisation-log.md"
        } else {
            ""
        },
    );
    md.push_str(&table(&rows, run));
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::fixture;

    fn board() -> Board {
        serde_json::from_str(
            r#"{ "schema_version": 1, "items": [
              { "id": "list-fast", "title": "List opens fast", "severity": "high",
                "metric": { "stage": "db", "size": 5000, "scenario": "list.page1", "stat": "p95", "unit": "ms" },
                "target": { "at_most": 0.2 } },
              { "id": "list-flat", "title": "List stays flat", "severity": "medium",
                "metric": { "stage": "db", "size": 5000, "scenario": "list.page1", "stat": "p95", "unit": "ms" },
                "target": { "at_most_times": { "factor": 4.0, "of_size": 150 } } },
              { "id": "small-binary", "title": "Small download", "severity": "low",
                "metric": { "stage": "size", "size": null, "scenario": "binary", "stat": "value", "unit": "bytes" },
                "target": { "at_most": 20000000 } },
              { "id": "storm", "title": "List during writes", "severity": "high",
                "metric": { "stage": "db", "size": 50000, "scenario": "list.page1_during_writes", "stat": "p95", "unit": "ms" },
                "target": { "at_most": 1.0 } },
              { "id": "trash", "title": "Trash", "severity": "low",
                "metric": { "stage": "db", "size": 150, "scenario": "list.trash", "stat": "p95", "unit": "ms" },
                "target": { "at_most": 1.0 } }
            ] }"#,
        )
        .unwrap()
    }

    #[test]
    fn judges_each_item_against_the_run() {
        let board = board();
        let run = fixture();
        let rows = board.evaluate(&run);
        let status: Vec<Status> = rows.iter().map(|r| r.status).collect();
        assert_eq!(
            status,
            [
                Status::Missed,
                Status::Met,
                Status::Met,
                Status::NotMeasured,
                Status::Met
            ]
        );
        // 0.3 ms at 5000 against 4 × 0.1 ms at 150.
        assert!((rows[1].limit.unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn renders_board_md_from_a_fixture_run() {
        let md = render(&board(), &fixture());
        assert!(md.contains("Figures from run `fixture` @ 0123456789 made 2026-11-29T12:00:00Z"));
        assert!(md.contains("3 of 5 items met"));
        assert!(md.contains(
            "| list-fast | List opens fast | High | list.page1 p95 @ 5000 | 0.3000 ms | ≤ 0.2000 ms | ❌ missed | 200 | `fixture` @ 0123456789 |"
        ));
        assert!(md.contains("≤ 4× its value @ 150 (0.4000 ms)"));
        assert!(md.contains("| 9.54 MiB | ≤ 19.07 MiB | ✅ met |"));
        assert!(md.contains("⚠ not measured"));
        // A met target resting on a suspicious answer still carries its flag.
        assert!(md.contains("✅ met<br>⚑ suspiciously small answer"));
    }

    #[test]
    fn the_committed_board_is_valid_and_holds_only_targets() {
        let board = Board::load(&Board::path()).unwrap();
        assert!(board.items.len() >= 9);
        let ids: std::collections::BTreeSet<_> = board.items.iter().map(|i| &i.id).collect();
        assert_eq!(ids.len(), board.items.len(), "ids must be unique");
    }
}
