//! `ab`: two builds or two settings measured in one run, interleaved, and a change
//! called only when it is larger than the spread of the repeats.
//!
//! Two runs taken hours apart on a shared 2-core machine differ by more than any noise
//! floor measured once, so `compare` of two separate runs calls noise a regression.
//! Here both sides are measured side by side: for each stage and size, the driver runs
//! one side's `mindsage-bench run` as a child process, then the other's, and again,
//! `repeats` times each, which goes first in each pair drawn at random, so both sides
//! meet the same load. Not a fixed ABBA: a host whose load comes and goes with a period
//! near two children's length hit one side in every pair of an A/A on CI and called
//! seven stats of one build changed; a random order cannot stay in step with any period. A stat (min, p50 and p95 of timings, the value of values) counts as changed
//! only when the two sides' repeats differ by a rank test, the exact two-sided
//! Mann–Whitney U test at p ≤ [`ALPHA`], **and** the medians differ by more than the
//! unit's floor (`noise`: 5 % and 5 µs for times). Ranks, not means, because one
//! repeat that met a neighbour's compile is an outlier, not a shift. With 7 repeats a
//! side, p ≤ [`ALPHA`] means at most 3 of the 49 base/head pairs out of order; fewer than
//! 6 repeats can never reach it, so `ab` refuses them.
//!
//! A side is a `mindsage-bench` binary (build each revision with `cargo build
//! --release -p mindsage-bench` in its own worktree) plus environment settings
//! (`--base-env`/`--head-env KEY=VALUE`), so the same binary twice with different
//! settings is an A/B of settings, and with the same settings an A/A. Both binaries
//! must know `run --out`. The result is stored as a run of kind `ab`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail, ensure};
use mindsage_core::timing::Summary;
use rand::Rng;

use crate::cli::RunOptions;
use crate::machine::Machine;
use crate::noise::{self, Threshold};
use crate::run::{AbResult, Call, Judged, Measure, Run, RunKind, Scenario, Settings, Side};
use crate::stages::StageContext;

/// The rank test's level per stat. A stage judges a few dozen stats, so an A/A run
/// calls a change by chance in a minority of runs; the level is a trade between that
/// and seeing a quarter's slowdown on this shared machine (`bench/tests/ab.rs`).
pub const ALPHA: f64 = 0.005;

/// Fewest repeats a side at which the rank test can reach [`ALPHA`].
pub const MIN_REPEATS: usize = 6;

/// The sides and settings of an `ab` invocation.
pub struct AbPlan {
    pub label: String,
    pub base: (PathBuf, Vec<String>),
    pub head: (PathBuf, Vec<String>),
    pub repeats: usize,
    pub options: RunOptions,
}

/// Runs both sides interleaved and judges every stat; the run to store.
pub fn run(plan: &AbPlan) -> anyhow::Result<Run> {
    ensure!(
        plan.repeats >= MIN_REPEATS,
        "ab needs at least {MIN_REPEATS} repeats a side: fewer can never show a change at p ≤ {ALPHA}"
    );
    for (binary, env) in [&plan.base, &plan.head] {
        ensure!(binary.exists(), "{}: no such binary", binary.display());
        for pair in env {
            ensure!(pair.contains('='), "{pair:?}: settings are KEY=VALUE");
        }
    }
    let work = tempfile::tempdir()?;
    let o = &plan.options;
    // repeats[side][r] holds repeat r's scenarios of every unit, in unit order.
    let mut repeats: [Vec<Vec<Run>>; 2] = [vec![Vec::new(); plan.repeats], vec![Vec::new(); plan.repeats]];
    // `all` runs each stage in turn, as `run` would.
    let stages: Vec<String> = crate::stages::resolve(&o.stages)?
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    let units: Vec<(&String, usize)> = stages
        .iter()
        .flat_map(|stage| o.sizes.iter().map(move |&size| (stage, size)))
        .collect();
    let mut coin = rand::rng();
    let mut sequence = String::new();
    for (stage, size) in &units {
        for r in 0..plan.repeats {
            let order = if coin.random::<bool>() { [0, 1] } else { [1, 0] };
            sequence.push_str(if order[0] == 0 { "AB " } else { "BA " });
            for side in order {
                let (binary, env) = if side == 0 { &plan.base } else { &plan.head };
                let name = ["base", "head"][side];
                let out = work.path().join(format!("{name}-{stage}-{size}-{r}.json"));
                let started = Instant::now();
                let child = side_run(binary, env, stage, *size, o, &out)?;
                eprintln!(
                    "[ab] {stage} @ {size} repeat {}/{} {name}: {:.1} s",
                    r + 1,
                    plan.repeats,
                    started.elapsed().as_secs_f64()
                );
                repeats[side][r].push(child);
            }
        }
    }
    let [base, head] = repeats.map(|side| side.into_iter().map(merge).collect::<Vec<Run>>());
    let judged = judge_all(&base, &head);
    let first = head[0].clone();
    let side = |runs: &[Run], (binary, env): &(PathBuf, Vec<String>)| Side {
        binary: binary.display().to_string(),
        env: env.clone(),
        commit: runs[0].build.git_commit.clone(),
        git_dirty: runs[0].build.git_dirty,
    };
    let result = AbResult {
        base: side(&base, &plan.base),
        head: side(&head, &plan.head),
        repeats: plan.repeats,
        order: format!(
            "per stage and size, pairs of base (A) and head (B) in a random order, each a fresh process: {}",
            sequence.trim_end()
        ),
        judged,
        chance_level: chance_level(plan.repeats, plan.repeats),
    };
    Ok(Run {
        label: plan.label.clone(),
        kind: RunKind::Ab,
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        machine: Machine::detect(),
        settings: Settings {
            stages,
            sizes: o.sizes.clone(),
            sampling: o.context().sampling,
        },
        scenarios: median_scenarios(&head),
        ab: Some(result),
        ..first
    })
}

/// One child: `BINARY run` for one stage at one size, stored at `out`.
fn side_run(
    binary: &Path,
    env: &[String],
    stage: &str,
    size: usize,
    o: &RunOptions,
    out: &Path,
) -> anyhow::Result<Run> {
    let ctx = StageContext {
        sizes: vec![size],
        ..o.context()
    };
    let mut cmd = Command::new(binary);
    cmd.args(["run", "--label", "ab-side", "--stages", stage])
        .args(ctx.args())
        .arg("--out")
        .arg(out);
    for pair in env {
        let (key, value) = pair.split_once('=').expect("checked by run");
        cmd.env(key, value);
    }
    let output = cmd
        .output()
        .with_context(|| format!("starting {}", binary.display()))?;
    if !output.status.success() {
        bail!(
            "{} run --stages {stage} --sizes {size} failed ({}):\n{}",
            binary.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Run::load(out)
}

/// One repeat's units as one run: the first unit's run with every unit's scenarios.
fn merge(units: Vec<Run>) -> Run {
    let mut units = units.into_iter();
    let mut run = units.next().expect("at least one unit");
    for unit in units {
        for s in unit.scenarios {
            if run.scenario(&s.stage, s.size, &s.name).is_none() {
                run.scenarios.push(s);
            }
        }
        run.datasets.extend(unit.datasets);
        run.questions.extend(unit.questions);
        for m in unit.models {
            if !run.models.contains(&m) {
                run.models.push(m);
            }
        }
    }
    run
}

/// The stats judged per scenario: the min, p50 and p95 of a timing (p99 of a few dozen
/// samples is one scheduler hiccup; the min is the repeat's least disturbed call, so it
/// shows a shift that neighbours' load hides in the p50), the value of a value.
fn judged_stats(measure: &Measure) -> &'static [&'static str] {
    match measure {
        Measure::Timing { .. } => &["min", "p50", "p95"],
        Measure::Value { .. } => &["value"],
        Measure::Failed { .. } => &[],
    }
}

/// Every judged stat of every scenario but the encrypted-over-plain ratios: a ratio of
/// two p95s judged on their own would only add a chance call.
fn judge_all(base: &[Run], head: &[Run]) -> Vec<Judged> {
    let mut out = Vec::new();
    let judged = head[0]
        .scenarios
        .iter()
        .filter(|s| !s.name.ends_with(crate::stages::encryption::RATIO_SUFFIX));
    for s in judged {
        for stat in judged_stats(&s.measure) {
            let values = |runs: &[Run]| -> Option<Vec<f64>> {
                runs.iter()
                    .map(|r| r.scenario(&s.stage, s.size, &s.name)?.stat(stat))
                    .collect()
            };
            let (Some(b), Some(h)) = (values(base), values(head)) else {
                continue;
            };
            let (call, change, p_value) = judge(&b, &h, s.unit());
            out.push(Judged {
                stage: s.stage.clone(),
                size: s.size,
                scenario: s.name.clone(),
                stat: (*stat).to_owned(),
                unit: s.unit().to_owned(),
                base: b,
                head: h,
                change,
                p_value,
                call,
            });
        }
    }
    out
}

/// The call on one stat: a change only when the rank test puts the two sides' repeats
/// apart at p ≤ [`ALPHA`] and the medians differ by more than the unit's floor. Returns
/// the call, the medians' relative change and the Mann–Whitney p-value.
pub fn judge(base: &[f64], head: &[f64], unit: &str) -> (Call, f64, f64) {
    let (mb, mh) = (median(base), median(head));
    let change = if mb > 0.0 { (mh - mb) / mb } else { 0.0 };
    let p_value = mann_whitney_p(base, head);
    let floor = Threshold {
        rel: noise::floor_rel(unit),
        measured: true,
    };
    let call = match (p_value <= ALPHA, noise::judge(mb, mh, unit, floor)) {
        (true, Some(true)) => Call::Worse,
        (true, Some(false)) => Call::Better,
        _ => Call::NoChange,
    };
    (call, change, p_value)
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The exact two-sided p-value of the Mann–Whitney U test (ties count a half), from
/// the distribution of U over all arrangements of the two samples; exact for samples
/// without ties, close with a few.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return 1.0;
    }
    let u: f64 = a
        .iter()
        .map(|x| {
            b.iter()
                .map(|y| match x.total_cmp(y) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                })
                .sum::<f64>()
        })
        .sum();
    let dist = u_distribution(n, m);
    let tail = u.min((n * m) as f64 - u);
    let below: f64 = dist
        .iter()
        .enumerate()
        .filter(|(k, _)| *k as f64 <= tail + 1e-9)
        .map(|(_, share)| share)
        .sum();
    (2.0 * below).min(1.0)
}

/// How often the rank test calls a stat that did not change, with `n` and `m` repeats:
/// the chance of p ≤ [`ALPHA`] when every arrangement is equally likely. U only takes
/// whole values, so this is below [`ALPHA`] (0.0041 at 7 a side).
pub fn chance_level(n: usize, m: usize) -> f64 {
    let mut below = 0.0;
    let mut level = 0.0;
    for share in u_distribution(n, m).into_iter().take(n * m / 2 + 1) {
        below += share;
        if 2.0 * below > ALPHA {
            break;
        }
        level = 2.0 * below;
    }
    level
}

/// The share of arrangements of `n` a's and `m` b's with each U (the count of (a, b)
/// pairs with the a first), 0 ..= n·m, by dynamic programming.
fn u_distribution(n: usize, m: usize) -> Vec<f64> {
    // counts[i][j][u]: arrangements of i a's and j b's with statistic u.
    let max_u = n * m;
    let mut counts = vec![vec![vec![0f64; max_u + 1]; m + 1]; n + 1];
    for i in 0..=n {
        for j in 0..=m {
            if i == 0 || j == 0 {
                counts[i][j][0] = 1.0;
                continue;
            }
            for k in 0..=i * j {
                // The largest element is a b (adds i to U: it beats every a) or an a.
                let with_b = if k >= i { counts[i][j - 1][k - i] } else { 0.0 };
                counts[i][j][k] = with_b + counts[i - 1][j][k];
            }
        }
    }
    let dist = std::mem::take(&mut counts[n][m]);
    let total: f64 = dist.iter().sum();
    dist.into_iter().map(|c| c / total).collect()
}

/// The head side's scenarios, each timing stat the median over its repeats, so the
/// stored run reads like any other (board, compare).
fn median_scenarios(head: &[Run]) -> Vec<Scenario> {
    head[0]
        .scenarios
        .iter()
        .map(|s| {
            let all: Vec<&Scenario> = head
                .iter()
                .filter_map(|r| r.scenario(&s.stage, s.size, &s.name))
                .collect();
            let measure = match &s.measure {
                Measure::Timing {
                    stats,
                    requested,
                    budget_exhausted,
                } => {
                    let of =
                        |stat: &str| median(&all.iter().filter_map(|x| x.stat(stat)).collect::<Vec<_>>());
                    Measure::Timing {
                        stats: Summary {
                            count: stats.count,
                            min_ms: of("min"),
                            p50_ms: of("p50"),
                            p95_ms: of("p95"),
                            p99_ms: of("p99"),
                            max_ms: of("max"),
                            mean_ms: of("mean"),
                        },
                        requested: *requested,
                        budget_exhausted: *budget_exhausted,
                    }
                }
                Measure::Value { unit, .. } => Measure::Value {
                    value: median(&all.iter().filter_map(|x| x.stat("value")).collect::<Vec<_>>()),
                    unit: *unit,
                },
                failed => failed.clone(),
            };
            Scenario {
                measure,
                note: Some(format!(
                    "median over {} repeats of the head side; {}",
                    all.len(),
                    s.note.as_deref().unwrap_or("")
                )),
                ..s.clone()
            }
        })
        .collect()
}

/// What `ab` prints: the calls, worse first, and how many stats showed no change.
pub fn render(run: &Run) -> String {
    let Some(ab) = &run.ab else {
        return format!("`{}` is not an A/B run\n", run.label);
    };
    let side = |s: &Side| {
        let commit = s
            .commit
            .as_deref()
            .map_or("?".to_owned(), |c| c.chars().take(10).collect());
        let dirty = if s.git_dirty { "+dirty" } else { "" };
        let env = if s.env.is_empty() {
            String::new()
        } else {
            format!(" with {}", s.env.join(" "))
        };
        format!("{} @ {commit}{dirty}{env}", s.binary)
    };
    let mut md = format!(
        "# A/B `{}`: base {} → head {}\n\n{} repeats a side, {}. A change is called only when the Mann–Whitney U test puts the sides' repeats apart at p ≤ {ALPHA} and the medians differ by more than the unit's floor.\n\n",
        run.label,
        side(&ab.base),
        side(&ab.head),
        ab.repeats,
        ab.order
    );
    for (call, title) in [(Call::Worse, "Worse"), (Call::Better, "Better")] {
        let rows: Vec<&Judged> = ab.calls(call).collect();
        let _ = writeln!(md, "## {title} ({})\n", rows.len());
        if rows.is_empty() {
            md.push_str("None.\n\n");
            continue;
        }
        md.push_str("| measurement | stat | base repeats | head repeats | change | p (Mann–Whitney) |\n|---|---|---|---|---:|---:|\n");
        for j in rows {
            let list = |v: &[f64]| {
                v.iter()
                    .map(|x| crate::run::format_value(*x, &j.unit))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {:+.1} % | {:.4} |",
                j.title(),
                j.stat,
                list(&j.base),
                list(&j.head),
                j.change * 100.0,
                j.p_value
            );
        }
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "No change called: {} of {} stats.",
        ab.calls(Call::NoChange).count(),
        ab.judged.len()
    );
    if ab.chance_level > 0.0 {
        let _ = writeln!(
            md,
            "\nThe rank test calls a stat that did not change with a chance of {:.4}: an A/A run of these {} stats calls about {:.1} by chance alone.",
            ab.chance_level,
            ab.judged.len(),
            ab.chance_level * ab.judged.len() as f64
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mann_whitney_matches_its_exact_distribution() {
        // Fully separated samples of 5: 2 of the C(10, 5) = 252 arrangements.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [6.0, 7.0, 8.0, 9.0, 10.0];
        assert!((mann_whitney_p(&a, &b) - 2.0 / 252.0).abs() < 1e-12);
        assert!((mann_whitney_p(&b, &a) - 2.0 / 252.0).abs() < 1e-12);
        // Perfectly interleaved: no evidence at all.
        assert!(mann_whitney_p(&[1.0, 3.0, 5.0], &[2.0, 4.0, 6.0]) > 0.5);
        // 3 vs 3, one swap (U = 1): P(U ≤ 1) = 2/20, two-sided 0.2.
        assert!((mann_whitney_p(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn the_chance_level_is_the_largest_reachable_level_within_alpha() {
        // 7 a side: U ≤ 3 in 1 + 1 + 2 + 3 of the C(14, 7) = 3432 arrangements.
        assert!((chance_level(7, 7) - 2.0 * 7.0 / 3432.0).abs() < 1e-12);
        // 5 a side can never reach it: its best p is 2/252.
        assert_eq!(chance_level(5, 5), 0.0);
    }

    #[test]
    fn a_change_is_called_only_beyond_the_spread_and_the_floor() {
        let base = [1.00, 1.04, 0.98, 1.02, 1.01, 0.99, 1.03];
        // Every head repeat slower by a quarter: worse.
        let slow: Vec<f64> = base.iter().map(|x| x * 1.25).collect();
        assert_eq!(judge(&base, &slow, "ms").0, Call::Worse);
        assert_eq!(judge(&slow, &base, "ms").0, Call::Better);
        // Three of 49 pairs out of order still counts; overlapping spreads do not.
        let mostly = [1.035, 1.2, 1.25, 1.3, 1.22, 1.27, 1.24];
        assert_eq!(judge(&base, &mostly, "ms").0, Call::Worse);
        let overlapping = [1.03, 0.97, 1.25, 1.30, 1.22, 1.0, 1.2];
        assert_eq!(judge(&base, &overlapping, "ms").0, Call::NoChange);
        // Apart but by less than 5 %: below the floor.
        let close: Vec<f64> = base.iter().map(|x| x + 0.045).collect();
        assert_eq!(judge(&base, &close, "ms").0, Call::NoChange);
        // A falling score is the regression.
        assert_eq!(judge(&[0.9; 7], &[0.8; 7], "score").0, Call::Worse);
        // Identical deterministic values: nothing.
        assert_eq!(judge(&[3.0; 7], &[3.0; 7], "count").0, Call::NoChange);
    }
}
