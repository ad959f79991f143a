//! The noise table: how much each figure moves when nothing changed.
//!
//! `noise` measures the same commit twice and stores, per scenario and stat, the
//! relative spread between the two runs. `compare` then calls a change real only when
//! it exceeds twice that spread (and never less than a floor per unit); anything
//! smaller reads "no detectable effect", so noise is not celebrated as a win or chased
//! as a regression.

use std::path::Path;

use anyhow::{Context, ensure};
use serde::{Deserialize, Serialize};

use crate::machine::Machine;
use crate::run::{Measure, Run};

pub const NOISE_SCHEMA_VERSION: u32 = 1;

/// A change must exceed this many times the measured spread to count.
pub const NOISE_MULTIPLIER: f64 = 2.0;

/// Smallest relative threshold per unit, even when the two noise runs agreed closely:
/// timings on a shared machine wander by a few percent; binary sizes are exact, but a
/// few hundred bytes are not worth a decision; a new full scan always is.
pub fn floor_rel(unit: &str) -> f64 {
    match unit {
        "ms" => 0.05,
        "bytes" => 0.01,
        _ => 0.0,
    }
}

/// Relative threshold when no noise measurement covers a scenario.
fn default_rel(unit: &str) -> f64 {
    match unit {
        "ms" => 0.10,
        "bytes" => 0.01,
        _ => 0.0,
    }
}

/// Below this absolute change a timing is unchanged whatever the ratio: a few
/// microseconds are below what the timer and the scheduler resolve.
pub const ABS_FLOOR_MS: f64 = 0.005;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseTable {
    pub schema_version: u32,
    pub created_at: String,
    /// Labels of the two runs measured.
    pub runs: [String; 2],
    pub commit: Option<String>,
    pub machine: Machine,
    pub spreads: Vec<Spread>,
}

/// |a − b| / min(a, b) of one stat of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub stage: String,
    pub size: Option<usize>,
    pub scenario: String,
    pub stat: String,
    pub spread: f64,
}

/// The threshold a change is judged against, and where it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    pub rel: f64,
    pub measured: bool,
}

/// The stats `compare` and `noise` look at: the percentiles of timings, the value of
/// values.
pub fn compared_stats(measure: &Measure) -> &'static [&'static str] {
    match measure {
        Measure::Timing { .. } => &["p50", "p95", "p99"],
        Measure::Value { .. } => &["value"],
        Measure::Failed { .. } => &[],
    }
}

impl NoiseTable {
    /// The spread between two runs of the same commit.
    pub fn measure(a: &Run, b: &Run) -> anyhow::Result<NoiseTable> {
        ensure!(
            a.build.git_commit == b.build.git_commit && a.build.dirty_paths == b.build.dirty_paths,
            "noise runs must be of the same code ({} vs {})",
            a.build.short(),
            b.build.short()
        );
        let mut spreads = Vec::new();
        for sa in &a.scenarios {
            let Some(sb) = b.scenario(&sa.stage, sa.size, &sa.name) else {
                continue;
            };
            for stat in compared_stats(&sa.measure) {
                let (Some(x), Some(y)) = (sa.stat(stat), sb.stat(stat)) else {
                    continue;
                };
                let low = x.min(y);
                let spread = if low > 0.0 { (x - y).abs() / low } else { 0.0 };
                spreads.push(Spread {
                    stage: sa.stage.clone(),
                    size: sa.size,
                    scenario: sa.name.clone(),
                    stat: (*stat).to_owned(),
                    spread,
                });
            }
        }
        Ok(NoiseTable {
            schema_version: NOISE_SCHEMA_VERSION,
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            runs: [a.label.clone(), b.label.clone()],
            commit: a.build.git_commit.clone(),
            machine: a.machine.clone(),
            spreads,
        })
    }

    pub fn load(path: &Path) -> anyhow::Result<Option<NoiseTable>> {
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(path)?;
        let mut table: NoiseTable = serde_json::from_str(&text)
            .with_context(|| format!("reading the noise table {}", path.display()))?;
        for s in &mut table.spreads {
            crate::run::current_name(&s.stage, &mut s.scenario);
        }
        ensure!(
            table.schema_version == NOISE_SCHEMA_VERSION,
            "{}: noise schema version {}, expected {NOISE_SCHEMA_VERSION}",
            path.display(),
            table.schema_version
        );
        Ok(Some(table))
    }

    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        std::fs::write(path, serde_json::to_string_pretty(self)? + "\n")
            .with_context(|| format!("writing {}", path.display()))
    }

    fn spread(&self, stage: &str, size: Option<usize>, scenario: &str, stat: &str) -> Option<f64> {
        self.spreads
            .iter()
            .find(|s| s.stage == stage && s.size == size && s.scenario == scenario && s.stat == stat)
            .map(|s| s.spread)
    }
}

/// The threshold for one stat of one scenario: twice its measured spread, never below
/// the unit's floor; the unit's default when no noise run covers it.
pub fn threshold(
    noise: Option<&NoiseTable>,
    stage: &str,
    size: Option<usize>,
    scenario: &str,
    stat: &str,
    unit: &str,
) -> Threshold {
    match noise.and_then(|n| n.spread(stage, size, scenario, stat)) {
        Some(spread) => Threshold {
            rel: (NOISE_MULTIPLIER * spread).max(floor_rel(unit)),
            measured: true,
        },
        None => Threshold {
            rel: default_rel(unit),
            measured: false,
        },
    }
}

/// Whether a change from `base` to `head` is beyond the threshold: `Some(true)` worse,
/// `Some(false)` better, `None` no detectable effect. Larger is worse for every unit
/// the harness records (time, bytes, scans).
pub fn judge(base: f64, head: f64, unit: &str, t: Threshold) -> Option<bool> {
    let change = head - base;
    if unit == "ms" && change.abs() < ABS_FLOOR_MS {
        return None;
    }
    if change == 0.0 {
        return None;
    }
    let rel = if base > 0.0 {
        change / base
    } else {
        change.signum() * f64::INFINITY
    };
    // For scores (quality, shares, rates) a fall is the regression.
    let rel = if unit == "score" { -rel } else { rel };
    if rel > t.rel {
        Some(true)
    } else if rel < -t.rel {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::fixture;

    #[test]
    fn a_delta_inside_the_noise_is_no_detectable_effect() {
        let mut a = fixture();
        let mut b = fixture();
        a.label = "noise-a".into();
        b.label = "noise-b".into();
        // list.page1 @ 150 p95: 0.100 vs 0.115 ms, a 15 % spread.
        let s = b.scenarios.iter_mut().find(|s| s.name == "list.page1").unwrap();
        if let Measure::Timing { stats, .. } = &mut s.measure {
            stats.p95_ms = 0.115;
        }
        let table = NoiseTable::measure(&a, &b).unwrap();
        let t = threshold(Some(&table), "db", Some(150), "list.page1", "p95", "ms");
        assert!(t.measured && (t.rel - 0.30).abs() < 1e-9);
        // +25 %: inside twice the spread.
        assert_eq!(judge(0.100, 0.125, "ms", t), None);
        // +40 %: beyond it, worse; −40 %: better.
        assert_eq!(judge(0.100, 0.140, "ms", t), Some(true));
        assert_eq!(judge(0.100, 0.060, "ms", t), Some(false));
        // Stats the noise runs agreed on still get the unit's floor (5 % for time).
        let p50 = threshold(Some(&table), "db", Some(150), "list.page1", "p50", "ms");
        assert_eq!(p50.rel, 0.05);
        // No noise measurement: the default, and the report says it was not measured.
        let none = threshold(None, "db", Some(150), "list.page1", "p95", "ms");
        assert_eq!((none.rel, none.measured), (0.10, false));
    }

    #[test]
    fn microsecond_jitter_and_new_scans_are_judged_by_their_units() {
        let t = threshold(None, "db", Some(150), "x", "p95", "ms");
        assert_eq!(judge(0.001, 0.004, "ms", t), None, "3 µs is below the floor");
        let scans = threshold(
            None,
            "db",
            Some(150),
            "plans.unexpected_full_scans",
            "value",
            "count",
        );
        assert_eq!(judge(0.0, 1.0, "count", scans), Some(true));
        assert_eq!(judge(1.0, 1.0, "count", scans), None);
    }

    #[test]
    fn noise_needs_the_same_code() {
        let a = fixture();
        let mut b = fixture();
        b.build.git_commit = Some("fedcba".into());
        assert!(NoiseTable::measure(&a, &b).is_err());
    }

    #[test]
    fn a_falling_score_is_the_regression() {
        let t = Threshold {
            rel: 0.0,
            measured: false,
        };
        assert_eq!(judge(0.9, 0.8, "score", t), Some(true));
        assert_eq!(judge(0.8, 0.9, "score", t), Some(false));
        assert_eq!(judge(0.8, 0.8, "score", t), None);
    }
}
