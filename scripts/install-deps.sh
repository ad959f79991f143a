#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages MindSage needs, only those that are missing.
#   scripts/install-deps.sh run    what building and the window need (cmake and ALSA's headers
#                                  for voice entries; X11/Wayland client libraries, OpenGL)
#   scripts/install-deps.sh test   what the test suite needs on top (a virtual display)
#   scripts/install-deps.sh screenshots   what scripts/screenshots.sh needs (ImageMagick too)
#   scripts/install-deps.sh windows   the Windows cross toolchain (mingw-w64's -posix compilers)
#   scripts/install-deps.sh msi   that and WiX for Linux (wixl, msitools' msiinfo)
#   scripts/install-deps.sh windows-check   all that, Wine and a virtual display for the Windows checks
# Rust itself is not installed here: get it from https://rustup.rs.
set -euo pipefail

# Voice entries: whisper.cpp builds with cmake and a C++ compiler, and whisper-rs-sys
# generates its bindings with bindgen, which loads libclang (its build script panics
# without it, on Linux too); cpal needs ALSA's headers through pkg-config. SQLCipher
# (encrypted journals) links libcrypto.
build_packages=(cmake g++ pkg-config libasound2-dev libssl-dev libclang-dev)
run_packages=("${build_packages[@]}" libxkbcommon-x11-0 libx11-xcb1 libxcursor1 libxrandr2 libxi6 libgl1 libegl1 libgl1-mesa-dri)
# The credential store tests ("remember on this computer"): a D-Bus session bus and
# GNOME Keyring, started by the tests themselves; xdotool types into the real window.
test_packages=(xvfb xauth dbus-daemon gnome-keyring xdotool)
screenshot_packages=(imagemagick)
# The -posix variants: SQLite, sqlite-vec and whisper.cpp use std::thread.
windows_packages=("${build_packages[@]}" gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64
                  mingw-w64-x86-64-dev)
msi_packages=(wixl msitools)
# xclip holds a photo on the clipboard for the Windows check's Ctrl+V.
windows_check_packages=(wine64 xclip)

case "${1:-run}" in
  run) wanted=("${run_packages[@]}") ;;
  test) wanted=("${run_packages[@]}" "${test_packages[@]}") ;;
  screenshots) wanted=("${run_packages[@]}" "${test_packages[@]}" "${screenshot_packages[@]}") ;;
  windows) wanted=("${windows_packages[@]}") ;;
  msi) wanted=("${windows_packages[@]}" "${msi_packages[@]}") ;;
  windows-check) wanted=("${windows_packages[@]}" "${msi_packages[@]}" "${windows_check_packages[@]}"
                         "${run_packages[@]}" "${test_packages[@]}" "${screenshot_packages[@]}") ;;
  *) echo "usage: $0 [run|test|screenshots|windows|msi|windows-check]" >&2; exit 2 ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "[deps] not a Debian-family system: install the equivalents of ${wanted[*]} yourself" >&2
  exit 0
fi

missing=()
for pkg in "${wanted[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "[deps] installing: ${missing[*]}"
if [ "$(id -u)" = "0" ]; then
  sudo_cmd=()
elif command -v sudo >/dev/null 2>&1; then
  sudo_cmd=(sudo)
else
  echo "[deps] not root and no sudo: run 'apt-get install ${missing[*]}' as root" >&2
  exit 1
fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
