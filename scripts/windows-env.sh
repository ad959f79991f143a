# Sourced by the Windows scripts: the cross compilers for x86_64-pc-windows-gnu.
# The -posix variants of mingw-w64, because the C and C++ parts (SQLite, sqlite-vec,
# whisper.cpp) need std::thread, which the -win32 variants lack.
WINDOWS_TARGET=x86_64-pc-windows-gnu
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc-posix
# Where the shipped files go: the stripped exe and the installer (sourced from the
# repository root).
WINDOWS_TARGET_DIR="${CARGO_TARGET_DIR:-$(pwd)/target}"
WINDOWS_OUT="$WINDOWS_TARGET_DIR/windows"
# whisper.cpp (voice entries) needs three things mingw-w64 does not give it unasked:
# - Debian's mingw-w64 headers lack THREAD_POWER_THROTTLING_STATE, which ggml uses for
#   Windows 8 and later; building for the Windows 7 API level leaves that call out.
export CFLAGS_x86_64_pc_windows_gnu="-D_WIN32_WINNT=0x0601"
export CXXFLAGS_x86_64_pc_windows_gnu="-D_WIN32_WINNT=0x0601"
# - ggml's CMakeLists sets an empty static-library prefix on Windows (ggml.a), so rustc's
#   -lggml finds nothing; the per-language variable wins over it (whisper-rs-sys passes
#   every CMAKE_* variable to cmake).
export CMAKE_STATIC_LIBRARY_PREFIX_CXX=lib
# - The bindings whisper-rs-sys ships are Linux's (their struct layouts are wrong on
#   Windows): generate them for the target with libclang. bindgen takes the newest
#   libclang it finds anywhere, and that one may have no compiler headers beside it
#   ('stdbool.h' file not found); so name the libclang from Debian's libclang-dev
#   (scripts/install-deps.sh) and its own header folder.
bindgen_args="--target=x86_64-w64-mingw32 -I/usr/x86_64-w64-mingw32/include"
for header in $(ls -d /usr/lib/llvm-*/lib/clang/*/include/stdbool.h 2>/dev/null | sort -V -r); do
  llvm_lib="${header%%/clang/*}"
  if ls "$llvm_lib"/libclang*.so* >/dev/null 2>&1; then
    export LIBCLANG_PATH="$llvm_lib"
    bindgen_args="$bindgen_args -isystem ${header%/stdbool.h}"
    break
  fi
done
export BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu="$bindgen_args"
unset WHISPER_DONT_GENERATE_BINDINGS
# SQLCipher's crypto on Windows is libtomcrypt, not OpenSSL (core/build/libtomcrypt.rs
# says why and builds it): libsqlite3-sys compiles the amalgamation with the provider's
# switch and libtomcrypt's headers, those of the sqlcipher-src release in Cargo.lock as
# Cargo unpacks it (fetched first on a new machine).
sqlcipher_src=$(awk '$0 == "name = \"sqlcipher-src\"" {getline; gsub(/version = |"/, ""); print}' Cargo.lock)
tomcrypt_headers() {
  ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"sqlcipher-src-$sqlcipher_src"/sqlcipher/libtomcrypt/headers 2>/dev/null | head -1
}
[ -n "$(tomcrypt_headers)" ] || cargo fetch --locked >/dev/null
CFLAGS_x86_64_pc_windows_gnu="$CFLAGS_x86_64_pc_windows_gnu -DSQLCIPHER_CRYPTO_LIBTOMCRYPT -I$(tomcrypt_headers)"
