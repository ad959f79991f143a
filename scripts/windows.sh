#!/usr/bin/env bash
# Cross-builds the Windows app on Linux (`make windows`): the `dist` profile (release
# with fat LTO in one codegen unit, see Cargo.toml) for x86_64-pc-windows-gnu, then a
# stripped copy, the exe we ship, at
# $CARGO_TARGET_DIR/windows/mindsage.exe (target/windows/ without CARGO_TARGET_DIR).
# Installs what it needs: the Rust target and Debian's mingw-w64 (-posix compilers).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh windows
source scripts/windows-env.sh
if ! grep -qx "$WINDOWS_TARGET" <<<"$(rustup target list --installed)"; then
  rustup target add "$WINDOWS_TARGET"
fi
cargo build --profile dist --locked --target "$WINDOWS_TARGET" -p mindsage
built="$WINDOWS_TARGET_DIR/$WINDOWS_TARGET/dist/mindsage.exe"
mkdir -p "$WINDOWS_OUT"
# The profile keeps line tables for profiling; the shipped exe has none.
x86_64-w64-mingw32-strip -o "$WINDOWS_OUT/mindsage.exe" "$built"
echo "[windows] $WINDOWS_OUT/mindsage.exe ($(stat -c %s "$WINDOWS_OUT/mindsage.exe") bytes; with line tables: $built)"
