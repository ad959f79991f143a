//! Where and from what a run was made: the machine, and the build.
//!
//! A figure is only comparable with another made on the same hardware from a known
//! build, so every run records both, and `compare` warns loudly when they differ.
//! Everything is read, not assumed: `/proc/cpuinfo`, `/proc/meminfo` and `uname` on
//! Linux; elsewhere the fields that cannot be read stay empty rather than failing.

use std::process::Command;

use serde::{Deserialize, Serialize};

/// The hardware and operating system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu_model: Option<String>,
    pub logical_cores: usize,
    pub ram_bytes: Option<u64>,
    /// `std::env::consts::OS`, e.g. "linux" or "windows".
    pub os: String,
    /// `uname -sr` where there is one.
    pub kernel: Option<String>,
}

/// The code that was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub git_commit: Option<String>,
    /// Tracked files had uncommitted changes: the figures may not belong to `git_commit`.
    pub git_dirty: bool,
    /// Which files, so a reader can tell a README edit from a storage change.
    pub dirty_paths: Vec<String>,
    /// "release" or "debug"; debug figures are not worth comparing.
    pub profile: String,
    pub rustc: Option<String>,
}

impl Machine {
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        Machine {
            cpu_model: proc_field(&cpuinfo, "model name")
                .or_else(|| proc_field(&cpuinfo, "Hardware"))
                .or_else(|| std::env::var("PROCESSOR_IDENTIFIER").ok()),
            logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ram_bytes: proc_field(&meminfo, "MemTotal").and_then(|v| parse_kib(&v)),
            os: std::env::consts::OS.to_owned(),
            kernel: command_output("uname", &["-sr"]),
        }
    }
}

impl Build {
    pub fn detect() -> Build {
        let root = crate::paths::workspace_root();
        let root = root.to_string_lossy();
        let status = command_output(
            "git",
            &["-C", &root, "status", "--porcelain", "--untracked-files=no"],
        )
        .unwrap_or_default();
        let dirty_paths = changed_paths(&status);
        Build {
            git_commit: command_output("git", &["-C", &root, "rev-parse", "HEAD"]),
            git_dirty: !dirty_paths.is_empty(),
            dirty_paths,
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .to_owned(),
            rustc: command_output("rustc", &["--version"]),
        }
    }

    /// The commit's first 10 characters with `+dirty` when it had uncommitted changes,
    /// the way reports cite a run.
    pub fn short(&self) -> String {
        let commit = self
            .git_commit
            .as_deref()
            .map_or("unknown", |c| &c[..c.len().min(10)]);
        if self.git_dirty {
            format!("{commit}+dirty")
        } else {
            commit.to_owned()
        }
    }
}

/// The value of the first `key : value` line of a /proc file.
fn proc_field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

/// "16318412 kB" → bytes.
fn parse_kib(value: &str) -> Option<u64> {
    let kib: u64 = value.split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// A command's trimmed standard output, `None` when it cannot run or fails.
/// Changed code paths from `git status --porcelain` lines ("XY path"). The status code
/// is read as a word, not as three columns: the output arrives trimmed, and a first line
/// of " M README.md" would otherwise lose the path's first letter. Stored runs are left
/// out: they are the bench's own output, and `noise` writes its first run before making
/// the second, which must still count as the same code.
fn changed_paths(status: &str) -> Vec<String> {
    status
        .lines()
        .filter_map(|line| line.trim_start().split_once(char::is_whitespace))
        .map(|(_, path)| path.trim().to_owned())
        .filter(|path| !path.starts_with("bench/runs/"))
        .collect()
}

fn command_output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_paths_keep_their_first_letter() {
        let status = "M README.md\n M docs/a b.md\nA  bench/new.json\n M bench/runs/noise-a.json";
        assert_eq!(
            changed_paths(status),
            ["README.md", "docs/a b.md", "bench/new.json"]
        );
    }

    #[test]
    fn reads_proc_fields() {
        let cpuinfo = "processor\t: 0\nmodel name\t: Example CPU @ 3.00GHz\nflags\t: fpu\n";
        assert_eq!(
            proc_field(cpuinfo, "model name").as_deref(),
            Some("Example CPU @ 3.00GHz")
        );
        assert_eq!(parse_kib("16318412 kB"), Some(16_318_412 * 1024));
        assert_eq!(proc_field(cpuinfo, "missing"), None);
    }
}
