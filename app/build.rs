//! Windows builds carry the icon, a version resource (from Cargo.toml) and the
//! application manifest (`assets/mindsage.exe.manifest`: per-monitor DPI awareness,
//! common controls v6, no elevation), compiled by the resource compiler of the
//! toolchain (`x86_64-w64-mingw32-windres` when cross-building on Linux, see
//! scripts/windows.sh). With mingw (the GNU toolchain) the exe is also linked so that it
//! needs no DLL from the compiler (see `link_gnu_runtime_statically`). Other targets
//! have nothing to do here.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=../assets/icon.ico");
    println!("cargo::rerun-if-changed=../assets/mindsage.exe.manifest");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return;
    }
    let mut resource = winresource::WindowsResource::new();
    resource
        .set_icon("../assets/icon.ico")
        .set_manifest_file("../assets/mindsage.exe.manifest")
        .set("ProductName", "MindSage")
        .set("FileDescription", "MindSage")
        .set("LegalCopyright", "MindSage authors, MIT licence");
    // A Windows exe without its icon, version and manifest is not one we ship.
    if let Err(error) = resource.compile() {
        panic!("compiling the Windows resources (icon, version, manifest): {error}");
    }
    if std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu") {
        link_gnu_runtime_statically();
    }
}

/// whisper.cpp is C++: linked as whisper-rs-sys asks, the exe would need mingw's
/// libstdc++-6.dll, which no Windows PC has. rustc links it with `-Bdynamic -lstdc++`,
/// so a folder holding only the static `libstdc++.a`, searched first, makes that same
/// flag link it into the exe (libgcc and winpthread are static already). ggml also
/// reads the registry, and whisper-rs-sys adds advapi32 only when it is itself built
/// on Windows, so it is named here, after the static libraries.
fn link_gnu_runtime_statically() {
    println!("cargo::rerun-if-env-changed=CXX_x86_64_pc_windows_gnu");
    println!("cargo::rustc-link-arg=-ladvapi32");
    let cxx =
        std::env::var("CXX_x86_64_pc_windows_gnu").unwrap_or_else(|_| "x86_64-w64-mingw32-g++-posix".into());
    let archive = std::process::Command::new(&cxx)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .unwrap_or_else(|e| panic!("running {cxx} to find libstdc++.a: {e}"));
    if !archive.is_absolute() || !archive.is_file() {
        panic!(
            "{cxx} has no static libstdc++.a (it printed {})",
            archive.display()
        );
    }
    let folder = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("static-libstdcxx");
    std::fs::create_dir_all(&folder).expect("creating the static libstdc++ folder");
    std::fs::copy(&archive, folder.join("libstdc++.a")).expect("copying libstdc++.a");
    println!("cargo::rerun-if-changed={}", archive.display());
    println!("cargo::rustc-link-search=native={}", folder.display());
}
