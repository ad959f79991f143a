//! Where the harness keeps things.
//!
//! Runs, the board and the noise table live in the repository (they are evidence and
//! are reviewed with the code); seeded journals and quick-check runs live in a cache
//! outside it, because they are large or change on every commit.

use std::path::PathBuf;

/// The `bench/` folder of the workspace this binary was built from.
pub fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (the folder above `bench/`).
pub fn workspace_root() -> PathBuf {
    bench_dir().parent().map(PathBuf::from).unwrap_or_else(bench_dir)
}

/// Stored runs: `bench/runs/<label>.json`.
pub fn runs_dir() -> PathBuf {
    bench_dir().join("runs")
}

/// Comparison reports and their charts.
pub fn reports_dir() -> PathBuf {
    bench_dir().join("reports")
}

/// Per-scenario spread measured by `noise`.
pub fn noise_file() -> PathBuf {
    bench_dir().join("noise.json")
}

/// `$HOME/.cache/mindsage-bench`, or the platform cache folder where there is no `$HOME`.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".cache"))
        .or_else(|| directories::BaseDirs::new().map(|b| b.cache_dir().to_path_buf()))
        .unwrap_or_else(std::env::temp_dir);
    base.join("mindsage-bench")
}
