//! The `size` stage: what a user downloads and what fills it.
//!
//! Records the release binary's bytes, the bytes of its function symbols attributed to
//! each crate (the way cargo-bloat does: demangle each symbol and take the crate its
//! path starts with), and the installer's bytes when an MSI has been built. A crate
//! that suddenly doubles shows up here before anyone wonders why the download grew.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use object::{Object, ObjectSymbol, SymbolKind};

use super::{Recorder, Stage, StageContext};
use crate::run::{Measure, Scenario, Unit};

/// Crates listed by name; the rest are summed into `crate.(others)`.
const TOP_CRATES: usize = 25;

pub struct Size;

impl Stage for Size {
    fn name(&self) -> &'static str {
        "size"
    }

    fn run(&self, _ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let binary = release_binary()?;
        let data = std::fs::read(&binary).with_context(|| format!("reading {}", binary.display()))?;
        let note = format!("{}", binary.display());
        out.push(value("binary", data.len() as u64, Some(note)));

        let mut crates: Vec<(String, u64)> = bytes_by_crate(&data)?.into_iter().collect();
        crates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let others: u64 = crates.iter().skip(TOP_CRATES).map(|(_, b)| b).sum();
        let note = "function symbol bytes attributed by demangled crate prefix (cargo-bloat style)";
        for (name, bytes) in crates.iter().take(TOP_CRATES) {
            out.push(value(&format!("crate.{name}"), *bytes, Some(note.into())));
        }
        if others > 0 {
            let rest = format!("{note}; every crate after the largest {TOP_CRATES}");
            out.push(value("crate.(others)", others, Some(rest)));
        }

        match newest_msi() {
            Some(msi) => {
                let bytes = std::fs::metadata(&msi)?.len();
                out.push(value("installer.msi", bytes, Some(msi.display().to_string())));
            }
            None => eprintln!("[size] no MSI under target/wix or wix/: installer size not recorded"),
        }
        Ok(())
    }
}

fn value(name: &str, bytes: u64, note: Option<String>) -> Scenario {
    let measure = Measure::Value {
        value: bytes as f64,
        unit: Unit::Bytes,
    };
    Scenario::new("size", None, name, measure, note)
}

/// `target/release/mindsage`, brought up to date first (the `app` stage launches it too).
pub(super) fn release_binary() -> anyhow::Result<PathBuf> {
    let root = crate::paths::workspace_root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let binary = target
        .join("release")
        .join(format!("mindsage{}", std::env::consts::EXE_SUFFIX));
    // Always ask cargo: it is a no-op when the binary is current, and a stale binary
    // would measure an older commit under this run's label.
    eprintln!("[size] cargo build --release -p mindsage (a no-op when current)");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--locked", "-p", "mindsage"])
        .current_dir(&root)
        .status()
        .context("running cargo to build the release binary")?;
    if !status.success() || !binary.exists() {
        bail!(
            "could not build {}; build it with `cargo build --release -p mindsage` and rerun",
            binary.display()
        );
    }
    Ok(binary)
}

/// Bytes of function symbols per crate.
fn bytes_by_crate(data: &[u8]) -> anyhow::Result<BTreeMap<String, u64>> {
    let file = object::File::parse(data).context("parsing the binary")?;
    let mut crates = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        *crates.entry(crate_of(name)).or_insert(0) += symbol.size();
    }
    if crates.is_empty() {
        bail!("the binary has no symbol table (stripped?): per-crate sizes need one");
    }
    Ok(crates)
}

/// The crate a (mangled) symbol belongs to. Rust symbols are demangled and named by
/// their first path segment; for `<T as Trait>::f` that is `T`'s crate, or the
/// trait's when `T` is not a path (`[u8]`, `&str`). C symbols go to `sqlite3 (C)` when
/// they are SQLite's and `(C and other)` otherwise.
fn crate_of(mangled: &str) -> String {
    let Ok(demangled) = rustc_demangle::try_demangle(mangled) else {
        return if mangled.starts_with("sqlite3") {
            "sqlite3 (C)".into()
        } else {
            "(C and other)".into()
        };
    };
    let text = format!("{demangled:#}");
    let inner = text.trim_start_matches('<');
    let first = |s: &str| {
        let s = s.trim_start_matches(['&', '*']).trim_start_matches("mut ");
        let s = s.trim_start_matches("dyn ").trim_start_matches("const ");
        let segment = s.split("::").next().unwrap_or("");
        let is_path = !segment.is_empty()
            && segment.chars().all(|c| c.is_alphanumeric() || c == '_')
            && segment.contains(|c: char| c.is_alphabetic());
        is_path.then(|| segment.to_owned())
    };
    first(inner)
        .or_else(|| inner.split_once(" as ").and_then(|(_, t)| first(t)))
        .unwrap_or_else(|| "(unknown)".into())
}

/// The newest `.msi` under `target/wix` or `wix/`.
fn newest_msi() -> Option<PathBuf> {
    let root = crate::paths::workspace_root();
    let in_dir = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("msi")))
            .collect()
    };
    let mut found = in_dir(&root.join("target").join("wix"));
    found.extend(in_dir(&root.join("wix")));
    found
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_are_attributed_to_their_crate() {
        assert_eq!(crate_of("_ZN4core3fmt5write17h0123456789abcdefE"), "core");
        assert_eq!(
            crate_of("_ZN13mindsage_core2db4open17h0123456789abcdefE"),
            "mindsage_core"
        );
        assert_eq!(
            crate_of(
                "_ZN60_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE"
            ),
            "alloc"
        );
        assert_eq!(
            crate_of("_ZN48_$LT$$u5b$T$u5d$$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE"),
            "core"
        );
        assert_eq!(crate_of("sqlite3VdbeExec"), "sqlite3 (C)");
        assert_eq!(crate_of("memcpy"), "(C and other)");
    }

    #[test]
    fn reads_the_symbols_of_this_test_binary() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let crates = bytes_by_crate(&me).unwrap();
        assert!(crates.get("mindsage_bench").is_some_and(|&b| b > 0), "{crates:?}");
    }
}
