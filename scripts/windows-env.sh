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
