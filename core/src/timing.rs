//! Timings of named operations, kept while the app runs.
//!
//! Every named query (`list.page1`, `write.create`, …) and every Ask stage reports its
//! duration here. The profiler overlay reads count, p50 and p95 per name. We keep
//! percentiles, not means: one 400 ms freeze among fifty 8 ms calls barely moves the
//! mean, yet it is the stall a person feels. The same summary code serves the benchmark.
//!
//! Recording is one short mutex hold and a ring-buffer write, cheap next to any query.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How many recent samples each name keeps. Old samples drop out so the overlay shows
/// how the app behaves now, not since launch.
const WINDOW: usize = 512;

/// Summary statistics of a set of samples, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub count: usize,
    pub min_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

impl Summary {
    /// Summarises samples given in milliseconds. `None` for an empty set.
    pub fn from_ms(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Summary {
            count: sorted.len(),
            min_ms: sorted[0],
            p50_ms: percentile_of_sorted(&sorted, 50.0),
            p95_ms: percentile_of_sorted(&sorted, 95.0),
            p99_ms: percentile_of_sorted(&sorted, 99.0),
            max_ms: sorted[sorted.len() - 1],
            mean_ms: sorted.iter().sum::<f64>() / sorted.len() as f64,
        })
    }
}

/// The `p`-th percentile (0–100) of already sorted samples, by linear interpolation
/// between closest ranks (the method numpy and most spreadsheets use by default), so
/// figures agree with what a reader would compute by hand.
pub fn percentile_of_sorted(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of no samples");
    let p = p.clamp(0.0, 100.0);
    let rank = p / 100.0 * (sorted.len() - 1) as f64;
    let lower = rank.floor() as usize;
    let upper = rank.ceil() as usize;
    let weight = rank - lower as f64;
    sorted[lower] + (sorted[upper] - sorted[lower]) * weight
}

#[derive(Default)]
struct Series {
    total_count: u64,
    recent_ms: Vec<f64>,
    next: usize,
}

impl Series {
    fn push(&mut self, ms: f64) {
        self.total_count += 1;
        if self.recent_ms.len() < WINDOW {
            self.recent_ms.push(ms);
        } else {
            self.recent_ms[self.next] = ms;
        }
        self.next = (self.next + 1) % WINDOW;
    }
}

/// One row of [`snapshot`]: a name, how often it ran since launch, and the percentiles
/// of its recent samples.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NamedSummary {
    pub name: String,
    pub total_count: u64,
    pub recent: Summary,
}

fn registry() -> &'static Mutex<BTreeMap<String, Series>> {
    static REGISTRY: OnceLock<Mutex<BTreeMap<String, Series>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Records one duration under `name`.
pub fn record(name: &str, elapsed: Duration) {
    let ms = elapsed.as_secs_f64() * 1000.0;
    let mut map = registry().lock().unwrap_or_else(|poison| poison.into_inner());
    match map.get_mut(name) {
        Some(series) => series.push(ms),
        None => map.entry(name.to_owned()).or_default().push(ms),
    }
}

/// Runs `f`, records how long it took under `name`, and returns its result.
///
/// Everything timed here blocks (a query, an Ask stage), so it is also where the
/// UI-thread guard sits, and where the profiler sees it as a puffin scope carrying the
/// name.
pub fn timed<T>(name: &str, f: impl FnOnce() -> T) -> T {
    assert_blocking_allowed(name);
    puffin::profile_scope!("timed", name);
    let start = Instant::now();
    let out = f();
    record(name, start.elapsed());
    out
}

thread_local! {
    static BLOCKING_FORBIDDEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Declares the calling thread one that must never block: the UI thread calls this,
/// and from then on any timed operation on it (every named query goes through
/// [`timed`]) fails a debug assertion naming the operation, so tests catch a database
/// call that slipped onto the UI thread.
pub fn forbid_blocking_on_this_thread() {
    BLOCKING_FORBIDDEN.with(|flag| flag.set(true));
}

fn assert_blocking_allowed(name: &str) {
    debug_assert!(
        !BLOCKING_FORBIDDEN.with(std::cell::Cell::get),
        "`{name}` ran on a thread that must not block (the UI thread)"
    );
}

/// Every name's current figures, sorted by name.
pub fn snapshot() -> Vec<NamedSummary> {
    let map = registry().lock().unwrap_or_else(|poison| poison.into_inner());
    map.iter()
        .filter_map(|(name, series)| {
            Some(NamedSummary {
                name: name.clone(),
                total_count: series.total_count,
                recent: Summary::from_ms(&series.recent_ms)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_uniform_ramp() {
        // 1..=101: the p-th percentile is exactly 1 + p.
        let samples: Vec<f64> = (1..=101).map(f64::from).collect();
        let s = Summary::from_ms(&samples).unwrap();
        assert_eq!(s.p50_ms, 51.0);
        assert_eq!(s.p95_ms, 96.0);
        assert_eq!(s.p99_ms, 100.0);
        assert_eq!((s.min_ms, s.max_ms, s.mean_ms), (1.0, 101.0, 51.0));
    }

    #[test]
    fn one_freeze_shows_in_p99_not_in_p50() {
        // Fifty 8 ms frames and one 400 ms freeze: the mean hides it, p99 does not.
        let mut samples = vec![8.0; 50];
        samples.push(400.0);
        let s = Summary::from_ms(&samples).unwrap();
        assert_eq!(s.p50_ms, 8.0);
        assert!(s.mean_ms < 16.0);
        assert!(s.p99_ms > 200.0);
    }

    #[test]
    fn interpolates_between_ranks_regardless_of_input_order() {
        let s = Summary::from_ms(&[40.0, 10.0, 30.0, 20.0]).unwrap();
        assert_eq!(s.p50_ms, 25.0);
        assert!((s.p95_ms - 38.5).abs() < 1e-9);
        assert!(Summary::from_ms(&[]).is_none());
    }

    #[test]
    #[cfg(debug_assertions)]
    fn timed_work_on_a_forbidden_thread_is_caught() {
        let caught = std::thread::spawn(|| {
            forbid_blocking_on_this_thread();
            timed("test.ui_thread", || ());
        })
        .join();
        assert!(caught.is_err(), "the guard let a timed call through");
        timed("test.other_thread", || ());
    }

    #[test]
    fn registry_keeps_a_window_and_a_total() {
        for i in 0..(WINDOW + 10) {
            record("test.window", Duration::from_micros(i as u64));
        }
        let row = snapshot().into_iter().find(|r| r.name == "test.window").unwrap();
        assert_eq!(row.total_count, (WINDOW + 10) as u64);
        assert_eq!(row.recent.count, WINDOW);
    }
}
