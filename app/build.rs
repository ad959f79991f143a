//! Windows builds carry the icon, a version resource (from Cargo.toml) and the
//! application manifest (`assets/mindsage.exe.manifest`: per-monitor DPI awareness,
//! common controls v6, no elevation), compiled by the resource compiler of the
//! toolchain (`x86_64-w64-mingw32-windres` when cross-building on Linux, see
//! scripts/windows.sh). Other targets have nothing to do here.

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
}
