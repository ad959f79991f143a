//! Loading sqlite-vec into a connection: our AVX build where the CPU runs it, the
//! crate's stock build otherwise.
//!
//! It lives beside [`super::open`] because every connection is given it there, before
//! the journal's vector tables ([`super::vectors`]) can be touched. A connection where
//! it fails to load still opens: keyword search works, and vector search says it is
//! unavailable.

use std::os::raw::{c_char, c_int};

use rusqlite::{Connection, ffi};

use super::queries::{VEC_DEBUG, VEC_VERSION};

type Init =
    unsafe extern "C" fn(*mut ffi::sqlite3, *mut *mut c_char, *const ffi::sqlite3_api_routines) -> c_int;

#[cfg(sqlite_vec_avx)]
unsafe extern "C" {
    /// sqlite-vec's entry point in the copy `build.rs` compiles with AVX, its symbols
    /// renamed so it links beside the crate's copy.
    fn mindsage_avx_sqlite3_vec_init(
        db: *mut ffi::sqlite3,
        err: *mut *mut c_char,
        api: *const ffi::sqlite3_api_routines,
    ) -> c_int;
}

/// Which compiled copy of sqlite-vec to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionBuild {
    /// The `sqlite-vec` crate's build: no SIMD flags, scalar distances.
    Stock,
    /// Our build with `SQLITE_VEC_ENABLE_AVX` (x86_64 with AVX; L2 distance only, for
    /// dimensions divisible by 16). Where unavailable, the stock copy loads instead.
    Avx,
}

impl ExtensionBuild {
    /// The AVX copy when this binary has it and the CPU runs it.
    pub fn best() -> ExtensionBuild {
        if avx_available() {
            ExtensionBuild::Avx
        } else {
            ExtensionBuild::Stock
        }
    }
}

fn avx_available() -> bool {
    #[cfg(sqlite_vec_avx)]
    {
        // The whole AVX copy is compiled with -mavx, so none of it may run without AVX.
        std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(sqlite_vec_avx))]
    {
        false
    }
}

fn entry_point(build: ExtensionBuild) -> Init {
    #[cfg(sqlite_vec_avx)]
    {
        if build == ExtensionBuild::Avx && avx_available() {
            return mindsage_avx_sqlite3_vec_init;
        }
    }
    let _ = build;
    // SAFETY: sqlite3_vec_init has exactly the extension entry-point signature (the
    // crate declares it without arguments).
    unsafe { std::mem::transmute::<*const (), Init>(::sqlite_vec::sqlite3_vec_init as *const ()) }
}

/// Loads sqlite-vec (the AVX build where it runs) into one connection. Returns false
/// (and logs why) when it fails: vector search is then unavailable on that connection
/// and nothing else changes.
pub fn register(conn: &Connection) -> bool {
    register_build(conn, ExtensionBuild::best())
}

/// Loads a chosen copy of sqlite-vec into one connection; see [`register`].
pub fn register_build(conn: &Connection, build: ExtensionBuild) -> bool {
    let init = entry_point(build);
    // SAFETY: built with SQLITE_CORE, the entry point does not use the api-routines
    // pointer, and the handle is a live connection.
    let rc = unsafe { init(conn.handle(), std::ptr::null_mut(), std::ptr::null()) };
    if rc != ffi::SQLITE_OK {
        tracing::warn!(
            rc,
            ?build,
            "sqlite-vec could not be loaded; vector search is unavailable"
        );
    }
    rc == ffi::SQLITE_OK
}

/// sqlite-vec's version on this connection, or `None` if it is not loaded.
pub fn extension_version(conn: &Connection) -> Option<String> {
    conn.query_row(VEC_VERSION.sql, [], |row| row.get(0)).ok()
}

/// sqlite-vec's own build report (`vec_debug()`), including which SIMD paths it has.
pub fn extension_debug(conn: &Connection) -> Option<String> {
    conn.query_row(VEC_DEBUG.sql, [], |row| row.get(0)).ok()
}
