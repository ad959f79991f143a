//! Sampling a scenario and summarising its timings.
//!
//! Every figure is a set of percentiles (p50, p95, p99) with min, max, mean and the
//! sample count, never a mean alone: one 400 ms freeze among fifty 8 ms calls moves the
//! mean by less than 8 ms, yet it is the stall a person feels, and p99 shows it. The
//! percentile arithmetic is `mindsage_core::timing`'s, the same code behind the app's
//! profiler overlay, so the bench and the app can never disagree on what "p95" means.
//!
//! The first calls are discarded as warm-up (the first call of a prepared statement
//! pays for planning, the first page read for the cache). A time budget stops slow
//! scenarios early; the count actually taken is stored next to the count asked for, so
//! a figure resting on 13 samples says so in every report. A scenario measured while
//! other processes kept the machine busy is measured once more and the quieter
//! measurement kept ([`crate::busy::quietest`]).

use std::time::{Duration, Instant};

use mindsage_core::timing::Summary;
use serde::{Deserialize, Serialize};

use crate::busy::{self, Load, Retry};

/// How a scenario is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Samples wanted after warm-up.
    pub samples: usize,
    /// Calls made first and thrown away.
    pub warmup: usize,
    /// Wall-clock limit for one scenario, warm-up included.
    pub budget_s: f64,
    /// Measure a scenario once more when other processes were busy during it (runs
    /// stored before it existed did not).
    #[serde(default)]
    pub remeasure: bool,
}

/// What calls returned: the smallest and largest answer seen, in rows and bytes. A
/// fast call that returned nothing (an error body, an empty page) is not a fast answer,
/// so reports flag scenarios whose smallest answer is suspiciously small.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Payload {
    pub rows_min: u64,
    pub rows_max: u64,
    pub bytes_min: u64,
    pub bytes_max: u64,
}

impl Payload {
    /// The payload of a single answer.
    pub fn of(rows: u64, bytes: u64) -> Payload {
        Payload {
            rows_min: rows,
            rows_max: rows,
            bytes_min: bytes,
            bytes_max: bytes,
        }
    }

    fn widen(self, other: Payload) -> Payload {
        Payload {
            rows_min: self.rows_min.min(other.rows_min),
            rows_max: self.rows_max.max(other.rows_max),
            bytes_min: self.bytes_min.min(other.bytes_min),
            bytes_max: self.bytes_max.max(other.bytes_max),
        }
    }
}

/// A sampled scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub stats: Summary,
    /// Samples asked for; `stats.count` is how many were taken.
    pub requested: usize,
    pub budget_exhausted: bool,
    pub payload: Payload,
    /// The number of the first sampled call (counting from 0, warm-up and any earlier
    /// measurement included), so a caller can tell which of its calls the figure holds.
    pub first_call: usize,
    /// What the kept measurement ran under, and the other one when there were two.
    pub load: Load,
    pub retry: Option<Retry>,
}

impl Measured {
    /// The scenario's [`Ran`], to be completed by the recorder.
    pub fn ran(&self) -> Ran {
        Ran::measured(self.load, self.retry)
    }
}

/// Samples `call`, timing the whole call. `payload` sizes each answer outside the timed
/// part.
pub fn measure<T>(
    sampling: &Sampling,
    mut call: impl FnMut(usize) -> anyhow::Result<T>,
    payload: impl Fn(&T) -> Payload,
) -> anyhow::Result<Measured> {
    measure_timed(
        sampling,
        |i| {
            let start = Instant::now();
            let out = call(i)?;
            Ok((start.elapsed(), out))
        },
        payload,
    )
}

/// The test switch that proves the A/B mode can see a change: with
/// `MINDSAGE_BENCH_SLOWDOWN=list.page1:1.25`, the bench's timing of that scenario (and
/// only that one) waits after each call until the sample has taken 1.25 times as long
/// as the call did. The app never reads it; a run made with it says so in the
/// scenario's note.
pub const SLOWDOWN_VAR: &str = "MINDSAGE_BENCH_SLOWDOWN";

/// The factor the switch sets for `scenario`, if it names that scenario.
pub fn slowdown(scenario: &str) -> anyhow::Result<Option<f64>> {
    match std::env::var_os(SLOWDOWN_VAR).filter(|v| !v.is_empty()) {
        Some(value) => parse_slowdown(&value.to_string_lossy(), scenario),
        None => Ok(None),
    }
}

/// `SCENARIO:FACTOR`'s factor when it names `scenario`.
fn parse_slowdown(value: &str, scenario: &str) -> anyhow::Result<Option<f64>> {
    let parsed = value
        .rsplit_once(':')
        .and_then(|(name, factor)| Some((name, factor.parse::<f64>().ok()?)))
        .filter(|(_, f)| f.is_finite() && *f >= 1.0);
    let Some((name, factor)) = parsed else {
        anyhow::bail!("{SLOWDOWN_VAR}={value:?}: expected SCENARIO:FACTOR, a factor of at least 1");
    };
    Ok((name == scenario).then_some(factor))
}

/// [`measure`] for a scenario the slowdown switch may name.
pub fn measure_as<T>(
    scenario: &str,
    sampling: &Sampling,
    mut call: impl FnMut(usize) -> anyhow::Result<T>,
    payload: impl Fn(&T) -> Payload,
) -> anyhow::Result<Measured> {
    let factor = slowdown(scenario)?;
    measure_timed(
        sampling,
        |i| {
            let start = Instant::now();
            let out = call(i)?;
            if let Some(factor) = factor {
                // A busy wait: sleeping would round sub-millisecond calls up to the
                // scheduler's tick.
                let until = start + start.elapsed().mul_f64(factor);
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
            Ok((start.elapsed(), out))
        },
        payload,
    )
}

/// Samples `call`, which times itself: for scenarios with untimed preparation in each
/// sample (an invalidating write before a cache read, say). The argument counts calls
/// from 0, warm-up included, so a scenario can walk through distinct rows.
pub fn measure_timed<T>(
    sampling: &Sampling,
    mut call: impl FnMut(usize) -> anyhow::Result<(Duration, T)>,
    payload: impl Fn(&T) -> Payload,
) -> anyhow::Result<Measured> {
    let mut calls = 0;
    let (mut measured, load, retry) = busy::quietest(sampling.remeasure, || {
        sample(sampling, &mut call, &payload, &mut calls)
    })?;
    measured.load = load;
    measured.retry = retry;
    Ok(measured)
}

/// One measurement: the warm-up, then the samples, numbering calls on from `calls`.
fn sample<T>(
    sampling: &Sampling,
    call: &mut impl FnMut(usize) -> anyhow::Result<(Duration, T)>,
    payload: &impl Fn(&T) -> Payload,
    calls: &mut usize,
) -> anyhow::Result<Measured> {
    let budget = Duration::from_secs_f64(sampling.budget_s.max(0.0));
    let started = Instant::now();
    let warmed = *calls + sampling.warmup;
    while *calls < warmed && started.elapsed() < budget {
        call(*calls)?;
        *calls += 1;
    }
    let first_call = *calls;
    let mut samples_ms = Vec::with_capacity(sampling.samples);
    let mut seen: Option<Payload> = None;
    // At least one sample even past the budget: a scenario never reports nothing.
    while samples_ms.len() < sampling.samples.max(1) && (samples_ms.is_empty() || started.elapsed() < budget)
    {
        let (elapsed, out) = call(*calls)?;
        *calls += 1;
        samples_ms.push(elapsed.as_secs_f64() * 1000.0);
        let p = payload(&out);
        seen = Some(seen.map_or(p, |s| s.widen(p)));
    }
    let stats = Summary::from_ms(&samples_ms).expect("at least one sample is always taken");
    Ok(Measured {
        budget_exhausted: stats.count < sampling.samples,
        requested: sampling.samples,
        stats,
        payload: seen.unwrap_or_default(),
        first_call,
        load: Load {
            wall_s: started.elapsed().as_secs_f64(),
            load_1m: None,
            others_cores: None,
        },
        retry: None,
    })
}

/// How long a scenario took and how busy the machine was while it was measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ran {
    /// Seconds of the run it accounts for: from the stage's previous scenario (or the
    /// stage's start) until it was recorded, its preparation and any second
    /// measurement included.
    pub wall_s: f64,
    /// Whether its figure depends on how fast the machine ran: timings, and the rates
    /// and ratios made of them. Only these are flagged on a busy machine; a recall or a
    /// byte count is the same however busy it was.
    pub timed: bool,
    /// What the measurement kept ran under; `None` until the recorder reads it.
    pub load: Option<Load>,
    /// Set when it was measured twice because the first measurement was busy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Retry>,
}

impl Ran {
    /// A measurement's load, to be completed by the recorder.
    pub fn measured(load: Load, retry: Option<Retry>) -> Ran {
        Ran {
            wall_s: 0.0,
            timed: false,
            load: Some(load),
            retry,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sampling(samples: usize, warmup: usize) -> Sampling {
        Sampling {
            samples,
            warmup,
            budget_s: 60.0,
            remeasure: false,
        }
    }

    /// Replays given durations (ms) as if each call had taken that long.
    fn replay(durations_ms: Vec<f64>, s: Sampling) -> Measured {
        measure_timed(
            &s,
            |i| Ok((Duration::from_secs_f64(durations_ms[i] / 1000.0), i as u64)),
            |&i| Payload::of(i, 10),
        )
        .unwrap()
    }

    #[test]
    fn exponential_distribution_quantiles() {
        // Inverse-CDF samples of Exp(1): the p-quantile is -ln(1-p).
        let n = 20_000;
        let ms: Vec<f64> = (0..n)
            .map(|i| -(1.0 - (i as f64 + 0.5) / n as f64).ln())
            .collect();
        let m = replay(ms, sampling(n, 0));
        assert!((m.stats.p50_ms - 2f64.ln()).abs() < 1e-3);
        assert!((m.stats.p95_ms - 20f64.ln()).abs() < 1e-2);
        assert!((m.stats.p99_ms - 100f64.ln()).abs() < 5e-2);
        assert!((m.stats.mean_ms - 1.0).abs() < 1e-2);
    }

    #[test]
    fn uniform_distribution_quantiles() {
        // 0, 1, ..., 1000 ms: the p-th percentile is 10·p exactly.
        let ms: Vec<f64> = (0..=1000).map(f64::from).collect();
        let m = replay(ms, sampling(1001, 0));
        assert_eq!(
            (m.stats.p50_ms, m.stats.p95_ms, m.stats.p99_ms),
            (500.0, 950.0, 990.0)
        );
        assert_eq!((m.stats.min_ms, m.stats.max_ms), (0.0, 1000.0));
    }

    #[test]
    fn a_freeze_hides_in_the_mean_and_shows_in_p99() {
        let mut ms = vec![8.0; 99];
        ms.push(400.0);
        let m = replay(ms, sampling(100, 0));
        assert_eq!(m.stats.p50_ms, 8.0);
        assert!(m.stats.mean_ms < 12.0);
        assert!(m.stats.p99_ms > 10.0 && m.stats.max_ms == 400.0);
    }

    #[test]
    fn warm_up_samples_are_discarded() {
        let mut ms = vec![1000.0; 5];
        ms.extend(std::iter::repeat_n(1.0, 50));
        let m = replay(ms, sampling(50, 5));
        assert_eq!((m.stats.count, m.stats.max_ms), (50, 1.0));
        // Calls are numbered from the first warm-up call.
        assert_eq!((m.payload.rows_min, m.payload.rows_max), (5, 54));
        assert!(!m.budget_exhausted);
    }

    #[test]
    fn the_slowdown_switch_names_one_scenario_and_refuses_nonsense() {
        assert_eq!(
            parse_slowdown("list.page1:1.25", "list.page1").unwrap(),
            Some(1.25)
        );
        assert_eq!(parse_slowdown("list.page1:1.25", "list.page_n").unwrap(), None);
        let err = parse_slowdown("list.page1", "list.page1")
            .unwrap_err()
            .to_string();
        assert!(err.contains("SCENARIO:FACTOR"), "{err}");
        assert!(parse_slowdown("list.page1:0.5", "list.page1").is_err());
    }

    #[test]
    fn the_budget_stops_a_slow_scenario_and_the_count_says_so() {
        let s = Sampling {
            samples: 1000,
            warmup: 2,
            budget_s: 0.05,
            remeasure: false,
        };
        let m = measure(
            &s,
            |_| {
                std::thread::sleep(Duration::from_millis(10));
                Ok(())
            },
            |_| Payload::default(),
        )
        .unwrap();
        assert!(m.budget_exhausted);
        assert!(m.stats.count >= 1 && m.stats.count < 10, "{}", m.stats.count);
        assert_eq!(m.requested, 1000);
    }
}
