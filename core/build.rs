//! Builds a second copy of sqlite-vec's C source with its AVX distance kernel.
//!
//! The `sqlite-vec` crate compiles its C file without any SIMD flags, so its L2 distance
//! is scalar. On x86_64 we compile the same file again, from the crate's own source, with
//! `-mavx -DSQLITE_VEC_ENABLE_AVX` (flags for this one file only; no other C library's
//! flags change). Both copies are linked into one binary, so every global symbol of ours
//! is renamed with a `mindsage_avx_` prefix: the list comes from the symbol table of an
//! unoptimised compile of the file, so nothing is guessed from the source text.
//! `db::vec_extension::register` uses this copy when the CPU has AVX and the stock copy
//! otherwise; the bench keeps the stock copy for comparison.
//!
//! Finding the source: the crate declares no `links` key, so Cargo passes its location
//! to nobody. We read the version Cargo resolved from the workspace's `Cargo.lock` and
//! look where Cargo unpacks that version: `$CARGO_HOME/registry/src/*/sqlite-vec-<v>/`,
//! or a `vendor/` folder beside the lock file (`cargo vendor`'s default, with or
//! without `--versioned-dirs`). This needs neither the network nor other platforms'
//! packages (`cargo metadata --offline` needed both on a fresh machine). When the source
//! or a step of this build is missing, a warning says why and the binary links the
//! stock copy alone: vector search still works, only without AVX.
//!
//! For the mingw Windows target (the exe we ship) it also builds SQLCipher's crypto
//! provider (`build/libtomcrypt.rs`).

#[path = "build/libtomcrypt.rs"]
mod libtomcrypt;

use std::env;
use std::path::{Path, PathBuf};

use object::{Object, ObjectSymbol};

const PREFIX: &str = "mindsage_avx_";
const CRATE: &str = "sqlite-vec";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CARGO_HOME");
    println!("cargo::rustc-check-cfg=cfg(sqlite_vec_avx)");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows")
        && env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
        && let Err(reason) = libtomcrypt::build()
    {
        // Without it the exe cannot link: stop here with the reason.
        panic!("{reason}");
    }
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        return;
    }
    match build_avx_copy() {
        Ok(true) => println!("cargo::rustc-cfg=sqlite_vec_avx"),
        Ok(false) => {}
        Err(reason) => {
            println!("cargo::warning=sqlite-vec's AVX copy is not built ({reason}); the stock copy is used")
        }
    }
}

/// Compiles the renamed AVX copy. `Ok(false)` where it is not wanted (MSVC).
fn build_avx_copy() -> Result<bool, String> {
    let dir = sqlite_vec_source()?;
    let source = dir.join("sqlite-vec.c");
    println!("cargo::rerun-if-changed={}", source.display());
    let base = || {
        let mut build = cc::Build::new();
        build
            .file(&source)
            .include(&dir)
            .define("SQLITE_CORE", None)
            .warnings(false);
        build
    };
    if base().get_compiler().is_like_msvc() {
        // sqlite-vec's AVX code uses GCC attributes for alignment; MSVC keeps the stock build.
        return Ok(false);
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?);
    let listing = base()
        .opt_level(0)
        .out_dir(out.join("symbols"))
        .cargo_metadata(false)
        .try_compile_intermediates()
        .map_err(|e| format!("compiling {} for its symbol list failed: {e}", source.display()))?;
    let mut build = base();
    build.define("SQLITE_VEC_ENABLE_AVX", None).flag("-mavx");
    for symbol in exported_symbols(&listing)? {
        build.define(&symbol, format!("{PREFIX}{symbol}").as_str());
    }
    build
        .try_compile("sqlite_vec_avx")
        .map_err(|e| format!("compiling {} with AVX failed: {e}", source.display()))?;
    Ok(true)
}

/// The folder holding the source of the `sqlite-vec` version in `Cargo.lock`.
fn sqlite_vec_source() -> Result<PathBuf, String> {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").ok_or("cargo did not set CARGO_MANIFEST_DIR")?);
    let lock = manifest_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|lock| lock.is_file())
        .ok_or("no Cargo.lock above this crate")?;
    println!("cargo::rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).map_err(|e| format!("reading {}: {e}", lock.display()))?;
    let version =
        locked_version(&text, CRATE).ok_or_else(|| format!("{} lists no {CRATE} package", lock.display()))?;
    let folder = format!("{CRATE}-{version}");
    let vendor = lock.parent().unwrap_or(Path::new(".")).join("vendor");
    let mut candidates = vec![vendor.join(&folder)];
    // `cargo vendor` without `--versioned-dirs` drops the version from the folder name.
    if locked_version(
        &std::fs::read_to_string(vendor.join(CRATE).join("Cargo.toml")).unwrap_or_default(),
        CRATE,
    )
    .is_some_and(|v| v == version)
    {
        candidates.push(vendor.join(CRATE));
    }
    let registry = cargo_home()?.join("registry").join("src");
    let mut unpacked: Vec<PathBuf> = std::fs::read_dir(&registry)
        .map(|dirs| {
            dirs.filter_map(|d| d.ok())
                .map(|d| d.path().join(&folder))
                .collect()
        })
        .unwrap_or_default();
    unpacked.sort();
    candidates.extend(unpacked);
    candidates
        .into_iter()
        .find(|dir| dir.join("sqlite-vec.c").is_file())
        .ok_or_else(|| {
            format!(
                "{folder}/sqlite-vec.c is neither in {} nor in {}",
                vendor.display(),
                registry.display()
            )
        })
}

/// The version of package `name` in a `Cargo.lock` (or the `[package]` version of a
/// `Cargo.toml`): the `version` line of the first table whose `name` line is `name`.
fn locked_version(text: &str, name: &str) -> Option<String> {
    let value = |line: &str, key: &str| {
        let rest = line.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?;
        Some(rest.trim().trim_matches('"').to_owned())
    };
    let mut in_package = false;
    for line in text.lines() {
        if line.trim_start().starts_with('[') {
            in_package = false;
        } else if value(line, "name").as_deref() == Some(name) {
            in_package = true;
        } else if in_package && let Some(version) = value(line, "version") {
            return Some(version);
        }
    }
    None
}

/// Cargo's home: `CARGO_HOME`, else `.cargo` in the home folder.
fn cargo_home() -> Result<PathBuf, String> {
    if let Some(home) = env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    ["HOME", "USERPROFILE"]
        .iter()
        .find_map(|var| env::var_os(var).filter(|h| !h.is_empty()))
        .map(|home| PathBuf::from(home).join(".cargo"))
        .ok_or_else(|| "neither CARGO_HOME nor a home folder is set".to_owned())
}

/// Names of the functions and data the objects define with external linkage, as C
/// spells them (Mach-O adds a leading underscore, which is taken off). Names that are
/// not C identifiers are the toolchain's own (COFF's `.refptr.sqlite3_free` stubs):
/// they are not ours to rename and could not be `-D` macros.
fn exported_symbols(objects: &[PathBuf]) -> Result<Vec<String>, String> {
    let apple = env::var("CARGO_CFG_TARGET_VENDOR").as_deref() == Ok("apple");
    let mut names = Vec::new();
    for path in objects {
        let data = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let file = object::File::parse(&*data).map_err(|e| format!("parsing {}: {e}", path.display()))?;
        for symbol in file.symbols() {
            if !symbol.is_global() || symbol.is_undefined() || symbol.section_index().is_none() {
                continue;
            }
            let Ok(name) = symbol.name() else { continue };
            let name = if apple {
                name.strip_prefix('_').unwrap_or(name)
            } else {
                name
            };
            if is_c_identifier(name) {
                names.push(name.to_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    if !names.iter().any(|n| n == "sqlite3_vec_init") {
        return Err(format!("sqlite-vec's entry point not found among {names:?}"));
    }
    Ok(names)
}

fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
