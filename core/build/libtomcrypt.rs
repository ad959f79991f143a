//! SQLCipher's crypto on Windows: libtomcrypt, compiled from the sources `sqlcipher-src`
//! ships beside the amalgamation, in place of OpenSSL's libcrypto.
//!
//! Why: OpenSSL built in for SQLCipher was the largest C library in the exe and kept it
//! over its size target (`docs/optimisation-log.md`, "The Windows exe without
//! OpenSSL"), while SQLCipher uses a handful of its primitives. libtomcrypt gives SQLCipher the same AES-256-CBC, HMAC-SHA512,
//! PBKDF2-HMAC-SHA512 and a Fortuna generator seeded from Windows' CryptGenRandom, so a
//! journal encrypted on Linux (system OpenSSL) opens on Windows and back.
//!
//! How it is wired (the mingw cross-build; a native MSVC build keeps OpenSSL, see
//! `core/Cargo.toml`): libsqlite3-sys's `bundled-sqlcipher` build, finding no OpenSSL for
//! a Windows target built on Linux, compiles the amalgamation with the C flags
//! `scripts/windows-env.sh` sets for the target (`-DSQLCIPHER_CRYPTO_LIBTOMCRYPT` and
//! libtomcrypt's headers) and links a library named `crypto`. This archive is that
//! library: only the link search path is announced, so it is linked once, by that
//! name, and the linker takes from it only the files SQLCipher calls.

use std::env;
use std::path::PathBuf;

/// Compiles libtomcrypt into `$OUT_DIR/libcrypto.a`.
pub fn build() -> Result<(), String> {
    let dir = sqlcipher_src::source_dir();
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?);
    let mut build = cc::Build::new();
    build
        .include(dir.join(sqlcipher_src::LIBTOMCRYPT_INCLUDE_DIR))
        .define("LTC_SOURCE", None)
        .warnings(false)
        .cargo_metadata(false)
        .out_dir(&out);
    for source in sqlcipher_src::LIBTOMCRYPT_SOURCES {
        build.file(dir.join(source));
    }
    build
        .try_compile("crypto")
        .map_err(|e| format!("compiling libtomcrypt from {} failed: {e}", dir.display()))?;
    println!("cargo::rustc-link-search=native={}", out.display());
    // rng_get_bytes seeds Fortuna with CryptGenRandom.
    println!("cargo::rustc-link-lib=advapi32");
    Ok(())
}
