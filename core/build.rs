//! Builds a second copy of sqlite-vec's C source with its AVX distance kernel.
//!
//! The `sqlite-vec` crate compiles its C file without any SIMD flags, so its L2 distance
//! is scalar. On x86_64 we compile the same file again, from the crate's own source, with
//! `-mavx -DSQLITE_VEC_ENABLE_AVX` (flags for this one file only; no other C library's
//! flags change). Both copies are linked into one binary, so every global symbol of ours
//! is renamed with a `mindsage_avx_` prefix: the list comes from the symbol table of an
//! unoptimised compile of the file, so nothing is guessed from the source text.
//! `search::vectors::register` uses this copy when the CPU has AVX and the stock copy
//! otherwise; the bench keeps the stock copy for comparison.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use object::{Object, ObjectSymbol};

const PREFIX: &str = "mindsage_avx_";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(sqlite_vec_avx)");
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        return;
    }
    let dir = sqlite_vec_source();
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
        return;
    }
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let listing = base()
        .opt_level(0)
        .out_dir(out.join("symbols"))
        .cargo_metadata(false)
        .compile_intermediates();
    let mut build = base();
    build.define("SQLITE_VEC_ENABLE_AVX", None).flag("-mavx");
    for symbol in exported_symbols(&listing) {
        build.define(&symbol, format!("{PREFIX}{symbol}").as_str());
    }
    build.compile("sqlite_vec_avx");
    println!("cargo::rustc-cfg=sqlite_vec_avx");
}

/// The directory of the `sqlite-vec` package this crate depends on, as Cargo resolved
/// it (registry, vendored or patched alike).
fn sqlite_vec_source() -> PathBuf {
    let cargo = env::var_os("CARGO").expect("cargo sets CARGO");
    let manifest = Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata gives JSON");
    let this = env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME");
    let packages = metadata["packages"].as_array().expect("packages listed");
    let id_of = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name && p["source"].is_null())
            .map(|p| p["id"].clone())
    };
    let our_id = id_of(&this).expect("this package is in its own metadata");
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .expect("dependencies resolved");
    let node = nodes
        .iter()
        .find(|n| n["id"] == our_id)
        .expect("this package resolved");
    let dep = node["deps"]
        .as_array()
        .and_then(|deps| deps.iter().find(|d| d["name"] == "sqlite_vec"))
        .expect("mindsage-core depends on sqlite-vec");
    let package = packages
        .iter()
        .find(|p| p["id"] == dep["pkg"])
        .expect("sqlite-vec's package listed");
    let manifest = PathBuf::from(package["manifest_path"].as_str().expect("manifest path"));
    manifest
        .parent()
        .expect("a manifest lives in a folder")
        .to_path_buf()
}

/// Names of the functions and data the objects define with external linkage, as C
/// spells them (Mach-O adds a leading underscore, which is taken off).
fn exported_symbols(objects: &[PathBuf]) -> Vec<String> {
    let apple = env::var("CARGO_CFG_TARGET_VENDOR").as_deref() == Ok("apple");
    let mut names = Vec::new();
    for path in objects {
        let data = std::fs::read(path).expect("object file readable");
        let file = object::File::parse(&*data).expect("object file parses");
        for symbol in file.symbols() {
            if !symbol.is_global() || symbol.is_undefined() || symbol.section_index().is_none() {
                continue;
            }
            let name = symbol.name().expect("symbol name is UTF-8");
            let name = if apple {
                name.strip_prefix('_').unwrap_or(name)
            } else {
                name
            };
            names.push(name.to_owned());
        }
    }
    names.sort();
    names.dedup();
    assert!(
        names.iter().any(|n| n == "sqlite3_vec_init"),
        "sqlite-vec's entry point not found among {names:?}"
    );
    names
}
