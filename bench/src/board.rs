//! The performance board: tracked items and whether the latest run meets them.
//!
//! `bench/board.json` says, for each item, where its figure lives in a run (stage,
//! size, scenario, stat) and the target. It holds no measured numbers, only targets;
//! `board` reads the figures from a stored run and renders `bench/BOARD.md`, so the
//! board can never show a number nobody measured. It also says how current it is: the
//! run's commit against the last commit that changed the code ([`Currency`]), so a
//! board older than the code says so at its top.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

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
pub fn render(board: &Board, run: &Run, currency: &Currency) -> String {
    let rows = board.evaluate(run);
    let missed = rows.iter().filter(|r| r.status != Status::Met).count();
    let mut md = String::from(
        "# Performance board\n\n<!-- Generated by `cargo run --release -p mindsage-bench -- board`; edit bench/board.json, not this file. -->\n\n",
    );
    let _ = writeln!(md, "{}\n", currency.describe(run));
    let _ = writeln!(
        md,
        "Figures from run {} made {} on {} ({} cores). {} of {} items met{}. {}\n",
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
        run.busy_summary(),
    );
    md.push_str(&table(&rows, run));
    md
}

/// What counts as a code change for the board: a change to any of these (git
/// pathspecs) can move a figure; documents, stored runs and the tests cannot (no stage
/// runs a test, and the bench's own tests are not the bench).
pub const CODE_PATHS: &[&str] = &[
    "app",
    "core",
    "bench/src",
    "migrations",
    ":(glob)**/Cargo.toml",
    "Cargo.lock",
    ":(exclude)app/tests",
    ":(exclude)core/tests",
];

/// A commit as the board names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Commit {
    pub hash: String,
    /// Committer date, ISO 8601.
    pub date: String,
    pub subject: String,
}

impl Commit {
    fn describe(&self) -> String {
        format!(
            "{} ({}, \u{201c}{}\u{201d})",
            &self.hash[..self.hash.len().min(10)],
            self.date,
            self.subject
        )
    }
}

/// How a run's commit stands against the last commit that changed the code.
#[derive(Debug, Clone, PartialEq)]
pub enum Currency {
    /// The run's commit holds the last code change.
    Current { last_change: Commit },
    /// The code changed after the run's commit: `since` commits touching
    /// [`CODE_PATHS`], the last one `last_change`.
    Stale { last_change: Commit, since: usize },
    /// It cannot be told (no git, no commit recorded, or a commit not in this history).
    Unknown { why: String },
}

impl Currency {
    /// The run's commit against `HEAD`'s last code change in the repository at `root`.
    pub fn of(root: &Path, run: &Run) -> Currency {
        let Some(commit) = run.build.git_commit.as_deref() else {
            return Currency::Unknown {
                why: "the run recorded no commit".into(),
            };
        };
        let git = |args: &[&str]| Command::new("git").arg("-C").arg(root).args(args).output().ok();
        let mut log = vec!["log", "-1", "--format=%H%x09%cI%x09%s", "HEAD", "--"];
        log.extend(CODE_PATHS);
        let last_change = git(&log)
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .and_then(|line| {
                let mut parts = line.splitn(3, '\t');
                Some(Commit {
                    hash: parts.next().filter(|h| !h.is_empty())?.to_owned(),
                    date: parts.next()?.to_owned(),
                    subject: parts.next().unwrap_or_default().to_owned(),
                })
            });
        let Some(last_change) = last_change else {
            return Currency::Unknown {
                why: "git could not name the last code change".into(),
            };
        };
        match git(&["merge-base", "--is-ancestor", &last_change.hash, commit]).and_then(|o| o.status.code()) {
            Some(0) => Currency::Current { last_change },
            Some(1) => {
                let range = format!("{commit}..{}", last_change.hash);
                let mut count = vec!["rev-list", "--count", &range, "--"];
                count.extend(CODE_PATHS);
                let since = git(&count)
                    .filter(|o| o.status.success())
                    .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
                    .unwrap_or(1);
                Currency::Stale { last_change, since }
            }
            _ => Currency::Unknown {
                why: format!("commit {commit} is not in this repository's history"),
            },
        }
    }

    /// The sentence at the top of the board.
    pub fn describe(&self, run: &Run) -> String {
        let dirty = if run.build.git_dirty {
            format!(
                " (with uncommitted changes to {})",
                run.build.dirty_paths.join(", ")
            )
        } else {
            String::new()
        };
        let at = run.build.short();
        match self {
            Currency::Current { last_change } => format!(
                "Run `{}` was made at commit {at}{dirty}, which holds the last code change, {}: the figures are the code as it is.",
                run.label,
                last_change.describe()
            ),
            Currency::Stale { last_change, since } => format!(
                "**Older than the code:** run `{}` was made at commit {at}{dirty}, and {since} commit{} changed the code since (app/, core/, bench/src, migrations/ or Cargo.*), the last {}. Its figures do not describe the code as it is until a full run is made at `HEAD`.",
                run.label,
                if *since == 1 { "" } else { "s" },
                last_change.describe()
            ),
            Currency::Unknown { why } => format!(
                "Run `{}` was made at commit {at}{dirty}; whether the code changed since cannot be told: {why}.",
                run.label
            ),
        }
    }
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
        let currency = Currency::Unknown {
            why: "a fixture".into(),
        };
        let md = render(&board(), &fixture(), &currency);
        assert!(md.contains(
            "Run `fixture` was made at commit 0123456789; whether the code changed since cannot be told: a fixture."
        ));
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
    fn the_board_says_when_its_run_is_older_than_the_code() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| -> String {
            let out = Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(["-c", "user.name=bench", "-c", "user.email=bench@example.org"])
                .args(["-c", "commit.gpgsign=false"])
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        let commit = |path: &str, subject: &str| {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, subject).unwrap();
            git(&["add", path]);
            git(&["commit", "-q", "-m", subject]);
            git(&["rev-parse", "HEAD"])
        };
        git(&["init", "-q"]);
        let measured = commit("core/src/lib.rs", "Core: faster lists");
        commit("docs/PERFORMANCE.md", "Docs only");
        commit("bench/runs/full.json", "A stored run");
        commit("app/tests/window.rs", "Tests: a new window test");
        let mut run = fixture();
        run.build.git_commit = Some(measured.clone());
        let currency = Currency::of(dir.path(), &run);
        assert!(
            matches!(&currency, Currency::Current { last_change } if last_change.hash == measured),
            "{currency:?}"
        );
        assert!(currency.describe(&run).contains("holds the last code change"));

        commit("app/src/main.rs", "App: a new view");
        let last = commit("Cargo.lock", "Update a dependency");
        let currency = Currency::of(dir.path(), &run);
        assert!(
            matches!(&currency, Currency::Stale { last_change, since: 2 } if last_change.hash == last),
            "{currency:?}"
        );
        let said = currency.describe(&run);
        assert!(
            said.starts_with("**Older than the code:** run `fixture` was made at commit")
                && said.contains("2 commits changed the code since")
                && said.contains("\u{201c}Update a dependency\u{201d}"),
            "{said}"
        );
        let md = render(&board(), &run, &currency);
        assert!(md.contains("**Older than the code:**"), "{md}");

        run.build.git_commit = Some("0".repeat(40));
        assert!(matches!(Currency::of(dir.path(), &run), Currency::Unknown { .. }));
    }

    #[test]
    fn the_committed_board_is_valid_and_holds_only_targets() {
        let board = Board::load(&Board::path()).unwrap();
        assert!(board.items.len() >= 9);
        let ids: std::collections::BTreeSet<_> = board.items.iter().map(|i| &i.id).collect();
        assert_eq!(ids.len(), board.items.len(), "ids must be unique");
    }
}
