//! The `size` stage: what a user downloads and what fills it.
//!
//! Records the release binary's bytes and the bytes of its function symbols attributed
//! to each crate (the way cargo-bloat does: demangle each symbol and take the crate its
//! path starts with). Where the Windows cross toolchain is installed it builds the
//! Windows exe and installer (`scripts/msi.sh`) and records the same for them: the
//! shipped (stripped) exe's bytes, the attribution from the unstripped build, and the
//! .msi's bytes. A crate that suddenly doubles shows up here before anyone wonders why
//! the download grew.
//!
//! The C libraries have lines of their own whatever their rank: `sqlite3 (C)` (SQLite
//! as SQLCipher builds it), `sqlcipher (C)` (SQLCipher's own functions, by the names
//! its source defines: the codec, its key handling and its crypto providers' glue) and,
//! in the Windows exe, `libtomcrypt (C)`: SQLCipher's crypto there, the functions whose
//! names the `libcrypto.a` that `core/build/libtomcrypt.rs` builds defines (until
//! December 2026 the exe held OpenSSL, `openssl (C)` in the runs of then). On Linux
//! libcrypto is the system's shared library, so none of its bytes are in the binary; `linked.<library>` records the size of the one it loads (from the
//! binary's `DT_NEEDED` and `ldd`), which the system provides, outside the download.
//! `asset.fonts` is the embedded fonts' bytes, which no function holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, bail};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

use super::{Recorder, Stage, StageContext};
use crate::run::{Measure, Scenario, Unit};

/// Crates listed by name; the rest are summed into `crate.(others)`.
const TOP_CRATES: usize = 25;

/// C libraries listed whatever their rank (when the binary holds any of their bytes).
const ALWAYS_LISTED: &[&str] = &[SQLITE, SQLCIPHER, LIBTOMCRYPT];
const SQLITE: &str = "sqlite3 (C)";
const SQLCIPHER: &str = "sqlcipher (C)";
const LIBTOMCRYPT: &str = "libtomcrypt (C)";

/// The functions SQLCipher adds to SQLite (its `sqlcipher.c`, `crypto_*.c`): names that
/// start with `sqlcipher`, and these (a GCC clone of one, `name.part.0`, too).
const SQLCIPHER_FUNCTIONS: &[&str] = &[
    "sqlite3Codec",
    "sqlite3CodecQueryParameters",
    "sqlite3FreeCodecArg",
    "sqlite3_key",
    "sqlite3_key_v2",
    "sqlite3_rekey",
    "sqlite3_rekey_v2",
    "sqlite3_activate_see",
    "sqlite3pager_error",
    "sqlite3pager_is_sj_pgno",
    "sqlite3pager_reset",
    "codec_set_btree_to_codec_pagesize",
    "codec_set_pass_key",
    "cipher_bin2hex",
    "cipher_hex2bin",
    "cipher_hex2int",
    "cipher_isHex",
    "splitmix64",
    "xoshiro_next",
    "xoshiro_randomness",
    "xoshiro_rotl",
];

/// The cipher provider's shared libraries, recorded as `linked.<name>` where the binary
/// loads them rather than holding them.
const CRYPTO_LIBRARIES: &[&str] = &["libcrypto", "libssl"];

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

        push_crates(out, "crate", &data, &BTreeSet::new())?;
        push_linked_crypto(out, &binary, &data);
        push_fonts(out)?;

        match windows_build()? {
            Some(windows) => {
                let shipped = std::fs::metadata(&windows.exe)?.len();
                out.push(value(
                    "windows.exe",
                    shipped,
                    Some(format!("{} (stripped)", windows.exe.display())),
                ));
                let unstripped = std::fs::read(&windows.unstripped)
                    .with_context(|| format!("reading {}", windows.unstripped.display()))?;
                let crypto = libtomcrypt_functions(&target_dir().join(WINDOWS_TARGET).join("dist"))?;
                push_crates(out, "windows.crate", &unstripped, &crypto)?;
                let msi = std::fs::metadata(&windows.msi)?.len();
                out.push(value(
                    "installer.msi",
                    msi,
                    Some(windows.msi.display().to_string()),
                ));
            }
            None => eprintln!(
                "[size] the Windows cross toolchain is not installed (scripts/install-deps.sh msi, \
                 rustup target add {WINDOWS_TARGET}): the Windows exe and installer are not recorded"
            ),
        }
        Ok(())
    }
}

/// The largest crates of a binary by function bytes, as `<prefix>.<crate>`, the C
/// libraries of [`ALWAYS_LISTED`] whatever their rank, and the rest as
/// `<prefix>.(others)`. `crypto`: the names of libtomcrypt's functions, where it is linked
/// in.
fn push_crates(
    out: &mut Recorder,
    prefix: &str,
    binary: &[u8],
    crypto: &BTreeSet<String>,
) -> anyhow::Result<()> {
    let mut crates: Vec<(String, u64)> = bytes_by_crate(binary, crypto)?.into_iter().collect();
    crates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let (listed, rest): (Vec<_>, Vec<_>) = crates
        .into_iter()
        .enumerate()
        .partition(|(rank, (name, _))| *rank < TOP_CRATES || ALWAYS_LISTED.contains(&name.as_str()));
    let note = "function symbol bytes attributed by demangled crate prefix (cargo-bloat style)";
    for (_, (name, bytes)) in &listed {
        let note = match name.as_str() {
            SQLCIPHER => format!("{note}; SQLCipher's own functions, by the names its source defines"),
            LIBTOMCRYPT => {
                format!("{note}; functions whose names core's libtomcrypt build (libcrypto.a) defines")
            }
            _ => note.to_owned(),
        };
        out.push(value(&format!("{prefix}.{name}"), *bytes, Some(note)));
    }
    let others: u64 = rest.iter().map(|(_, (_, bytes))| bytes).sum();
    if others > 0 {
        let rest = format!("{note}; every crate after the largest {TOP_CRATES}");
        out.push(value(&format!("{prefix}.(others)"), others, Some(rest)));
    }
    Ok(())
}

/// `asset.fonts`: the fonts embedded in the exe (the page's reading face, `assets/fonts/`),
/// whose bytes are in the binary's, the exe's and the installer's, but in no function's.
fn push_fonts(out: &mut Recorder) -> anyhow::Result<()> {
    let dir = crate::paths::workspace_root().join("assets").join("fonts");
    let mut bytes = 0;
    for file in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = file?.path();
        if path.extension().is_some_and(|e| e == "ttf" || e == "otf") {
            bytes += std::fs::metadata(&path)?.len();
        }
    }
    out.push(value(
        "asset.fonts",
        bytes,
        Some("embedded font files (assets/fonts)".to_owned()),
    ));
    Ok(())
}

/// `linked.<library>`: the bytes of each cipher library the binary loads at run time
/// (Linux: the system's libcrypto), which its own bytes do not include.
fn push_linked_crypto(out: &mut Recorder, binary: &std::path::Path, data: &[u8]) {
    let needed: Vec<String> = needed_libraries(data)
        .into_iter()
        .filter(|name| {
            CRYPTO_LIBRARIES
                .iter()
                .any(|c| name.starts_with(&format!("{c}.")))
        })
        .collect();
    if needed.is_empty() {
        return;
    }
    let resolved = Command::new("ldd")
        .arg(binary)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    for name in needed {
        // "\tlibcrypto.so.3 => /lib/x86_64-linux-gnu/libcrypto.so.3 (0x…)"
        let path = resolved.lines().find_map(|line| {
            let (lib, rest) = line.trim().split_once(" => ")?;
            (lib == name).then(|| rest.split(" (").next().unwrap_or(rest).trim().to_owned())
        });
        match path.and_then(|p| Some((std::fs::metadata(&p).ok()?.len(), p))) {
            Some((bytes, path)) => out.push(value(
                &format!("linked.{name}"),
                bytes,
                Some(format!(
                    "{path}: SQLCipher's cipher provider, loaded at run time from the system (a package dependency), not part of the binary or the download"
                )),
            )),
            None => eprintln!("[size] {} needs {name}, which ldd could not resolve here: not recorded", binary.display()),
        }
    }
}

/// The shared libraries an ELF binary names in its dynamic section (`DT_NEEDED`);
/// none for other formats.
fn needed_libraries(data: &[u8]) -> Vec<String> {
    use object::read::elf::{Dyn, ElfFile64};
    let Ok(elf) = ElfFile64::<object::Endianness>::parse(data) else {
        return Vec::new();
    };
    let endian = elf.endian();
    let sections = elf.elf_section_table();
    let Ok(Some((dynamic, link))) = sections.dynamic(endian, data) else {
        return Vec::new();
    };
    let Ok(strings) = sections.strings(endian, data, link) else {
        return Vec::new();
    };
    dynamic
        .iter()
        .filter(|d| d.tag32(endian) == Some(object::elf::DT_NEEDED))
        .filter_map(|d| d.string(endian, strings).ok())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect()
}

/// The function names the static `libcrypto.a` (libtomcrypt) that mindsage-core's build
/// script built for a profile's directory (`<target>/<profile>/build/mindsage-core-*/out/`)
/// defines; empty, with a message, where there is none (libtomcrypt then counts as
/// `(C and other)`).
fn libtomcrypt_functions(profile_dir: &std::path::Path) -> anyhow::Result<BTreeSet<String>> {
    let newest = std::fs::read_dir(profile_dir.join("build"))
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|dir| {
            dir.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("mindsage-core-"))
        })
        .map(|dir| dir.join("out/libcrypto.a"))
        .filter(|archive| archive.exists())
        .max_by_key(|archive| std::fs::metadata(archive).and_then(|m| m.modified()).ok());
    let Some(archive) = newest else {
        eprintln!(
            "[size] no libcrypto.a under {}: libtomcrypt's functions in the Windows exe are counted in (C and other)",
            profile_dir.join("build").display()
        );
        return Ok(BTreeSet::new());
    };
    let data = std::fs::read(&archive).with_context(|| format!("reading {}", archive.display()))?;
    archive_functions(&data).with_context(|| format!("reading {}", archive.display()))
}

/// Names of the functions the members of a static library define.
fn archive_functions(data: &[u8]) -> anyhow::Result<BTreeSet<String>> {
    let archive = object::read::archive::ArchiveFile::parse(data)?;
    let mut names = BTreeSet::new();
    for member in archive.members() {
        let Ok(object) = object::File::parse(member?.data(data)?) else {
            continue;
        };
        names.extend(
            object
                .symbols()
                .filter(|s| s.is_definition() && s.kind() == SymbolKind::Text)
                .filter_map(|s| s.name().ok().map(str::to_owned)),
        );
    }
    Ok(names)
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
    let binary = target_dir()
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

/// Bytes of function symbols per crate. COFF (the Windows exe) records no symbol
/// sizes, so there a function runs to the next one's address, the last to the end of
/// its code section.
fn bytes_by_crate(data: &[u8], crypto: &BTreeSet<String>) -> anyhow::Result<BTreeMap<String, u64>> {
    let file = object::File::parse(data).context("parsing the binary")?;
    let mut functions: Vec<(u64, u64, String)> = file
        .symbols()
        .filter(|symbol| symbol.kind() == SymbolKind::Text)
        .filter_map(|symbol| Some((symbol.address(), symbol.size(), symbol.name().ok()?.to_owned())))
        .collect();
    if matches!(
        file.format(),
        object::BinaryFormat::Coff | object::BinaryFormat::Pe
    ) {
        let mut sized = Vec::with_capacity(functions.len());
        for section in file.sections().filter(|s| s.kind() == object::SectionKind::Text) {
            let (start, end) = (section.address(), section.address() + section.size());
            let mut inside: Vec<_> = functions
                .iter()
                .filter(|(address, _, _)| (start..end).contains(address))
                .cloned()
                .collect();
            sizes_from_addresses(&mut inside, end);
            sized.append(&mut inside);
        }
        functions = sized;
    }
    let mut crates = BTreeMap::new();
    for (_, size, name) in functions.iter().filter(|(_, size, _)| *size > 0) {
        let owner = match crate_of(name) {
            other if other == "(C and other)" && crypto.contains(name) => LIBTOMCRYPT.to_owned(),
            owner => owner,
        };
        *crates.entry(owner).or_insert(0) += size;
    }
    if crates.is_empty() {
        bail!("the binary has no symbol table (stripped?): per-crate sizes need one");
    }
    Ok(crates)
}

/// Gives each function (address, size, name) the bytes up to the next one's address,
/// the last up to `end`: for formats that record no sizes.
fn sizes_from_addresses(functions: &mut [(u64, u64, String)], end: u64) {
    functions.sort_unstable();
    let next_starts: Vec<u64> = functions.iter().skip(1).map(|f| f.0).chain([end]).collect();
    for (function, next) in functions.iter_mut().zip(next_starts) {
        function.1 = next.saturating_sub(function.0);
    }
}

/// The crate a (mangled) symbol belongs to. Rust symbols are demangled and named by
/// their first path segment; for `<T as Trait>::f` that is `T`'s crate, or the
/// trait's when `T` is not a path (`[u8]`, `&str`). C symbols go to `sqlcipher (C)`
/// when SQLCipher defines them, `sqlite3 (C)` when they are SQLite's and
/// `(C and other)` otherwise.
fn crate_of(mangled: &str) -> String {
    let Ok(demangled) = rustc_demangle::try_demangle(mangled) else {
        // A GCC clone (`f.part.0`, `f.isra.0`) is its function's.
        let function = mangled.split('.').next().unwrap_or(mangled);
        return if function.starts_with("sqlcipher") || SQLCIPHER_FUNCTIONS.contains(&function) {
            SQLCIPHER.into()
        } else if mangled.starts_with("sqlite3") {
            SQLITE.into()
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

const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";

/// What `scripts/msi.sh` builds: the exe we ship, the build it was stripped from, and
/// the installer.
struct WindowsBuild {
    exe: PathBuf,
    unstripped: PathBuf,
    msi: PathBuf,
}

/// Builds the Windows exe and installer with `scripts/msi.sh` (cargo makes it a no-op
/// when current), or `None` when the cross toolchain is not installed. A failing build
/// where the toolchain is installed is an error: it is a Windows-only break.
fn windows_build() -> anyhow::Result<Option<WindowsBuild>> {
    let installed = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let target_installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.trim() == WINDOWS_TARGET)
        });
    if !(target_installed
        && installed("x86_64-w64-mingw32-gcc-posix", "--version")
        && installed("wixl", "--version"))
    {
        return Ok(None);
    }
    let root = crate::paths::workspace_root();
    eprintln!("[size] scripts/msi.sh (the Windows exe and installer; a no-op build when current)");
    let status = Command::new(root.join("scripts").join("msi.sh"))
        .current_dir(&root)
        .status()
        .context("running scripts/msi.sh")?;
    anyhow::ensure!(
        status.success(),
        "scripts/msi.sh failed: the Windows build is broken"
    );
    let target = target_dir();
    let out = target.join("windows");
    let msi = std::fs::read_dir(&out)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e.eq_ignore_ascii_case("msi")))
        .max_by_key(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok())
        .with_context(|| format!("scripts/msi.sh left no .msi in {}", out.display()))?;
    Ok(Some(WindowsBuild {
        exe: out.join("mindsage.exe"),
        unstripped: target.join(WINDOWS_TARGET).join("dist").join("mindsage.exe"),
        msi,
    }))
}

/// `$CARGO_TARGET_DIR`, or the workspace's `target/`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::paths::workspace_root().join("target"))
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
        assert_eq!(crate_of("sqlcipher_codec_ctx_init"), "sqlcipher (C)");
        assert_eq!(crate_of("sqlite3_key_v2"), "sqlcipher (C)");
        assert_eq!(crate_of("sqlcipher_set_default_use_hmac.part.0"), "sqlcipher (C)");
        // SQLite's own, though it starts like SQLCipher's sqlite3_key.
        assert_eq!(crate_of("sqlite3_keyword_check"), "sqlite3 (C)");
    }

    #[test]
    fn this_test_binary_has_sqlcipher_and_loads_or_holds_its_crypto() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let crates = bytes_by_crate(&me, &BTreeSet::new()).unwrap();
        assert!(crates.get(SQLCIPHER).is_some_and(|&b| b > 0), "{crates:?}");
        if cfg!(target_os = "linux") {
            let needed = needed_libraries(&me);
            assert!(needed.iter().any(|n| n.starts_with("libcrypto.")), "{needed:?}");
            let mut out = Recorder::default();
            push_linked_crypto(&mut out, &std::env::current_exe().unwrap(), &me);
            let linked = out
                .scenarios
                .iter()
                .find(|s| s.name.starts_with("linked.libcrypto."));
            assert!(
                linked.is_some_and(|s| s.stat("value").is_some_and(|b| b > 0.0)),
                "{:?}",
                out.scenarios
            );
        }
    }

    #[test]
    fn every_c_library_gets_its_line_whatever_its_rank() {
        let mut out = Recorder::default();
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        push_crates(&mut out, "crate", &me, &BTreeSet::new()).unwrap();
        let names: Vec<&str> = out.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"crate.sqlcipher (C)"), "{names:?}");
        assert!(names.contains(&"crate.sqlite3 (C)"), "{names:?}");
    }

    #[test]
    fn a_function_without_a_recorded_size_runs_to_the_next() {
        let mut functions = vec![
            (400, 0, "c".to_owned()),
            (100, 0, "a".into()),
            (150, 0, "b".into()),
        ];
        sizes_from_addresses(&mut functions, 500);
        let sizes: Vec<_> = functions
            .iter()
            .map(|(_, size, name)| (name.as_str(), *size))
            .collect();
        assert_eq!(sizes, [("a", 50), ("b", 250), ("c", 100)]);
    }

    #[test]
    fn reads_the_symbols_of_this_test_binary() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let crates = bytes_by_crate(&me, &BTreeSet::new()).unwrap();
        assert!(crates.get("mindsage_bench").is_some_and(|&b| b > 0), "{crates:?}");
    }
}
