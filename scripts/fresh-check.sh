#!/usr/bin/env bash
# The README's quick start on a new machine: a clean clone of this repository's HEAD
# with an empty cargo cache and an empty target dir, then `make run` (the window opens
# on a virtual display and closes itself after a few seconds) and `make test`, each
# timed. Exits non-zero when a step fails. Uncommitted changes are not in the clone.
#   scripts/fresh-check.sh            (or: make fresh-check)
# Environment: FRESH_CHECK_EXIT_AFTER (seconds the window stays open, default 5),
# FRESH_CHECK_KEEP=1 keeps the temporary folder for a look afterwards.
# It downloads every crate (crates.io) and builds the workspace twice (release for the
# window, debug for the tests): on two cores that is about half an hour.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$repo/.." && pwd)/shared"
[ -d "$shared" ] || { echo "[fresh] $shared is missing: the clone needs a shared/ folder beside it" >&2; exit 1; }
command -v Xvfb >/dev/null || "$repo/scripts/install-deps.sh" test

# <tmp>/mindsage beside <tmp>/shared, as the repository sits beside shared/.
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mindsage-fresh.XXXXXX")"
ln -s "$shared" "$tmp/shared"
xvfb_pid=
cleanup() {
  if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
  if [ "${FRESH_CHECK_KEEP:-0}" = 1 ]; then echo "[fresh] kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# An empty cargo home and target dir; the toolchain stays rustup's, run directly.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
toolchain_bin="$(dirname "$(rustup which cargo)")"
export PATH="$toolchain_bin:$PATH"
export CARGO_HOME="$tmp/cargo-home" CARGO_TARGET_DIR="$tmp/target"
mkdir -p "$CARGO_HOME"
unset MINDSAGE_SHARED_DIR MINDSAGE_DATA_DIR

summary=()
# step NAME COMMAND...: runs it, prints and records its wall time, stops on failure.
step() {
  local name=$1 start=$SECONDS status=0
  shift
  echo "[fresh] $name: $*"
  "$@" || status=$?
  local took=$((SECONDS - start))
  summary+=("$name $((took / 60))m$((took % 60))s")
  if [ "$status" != 0 ]; then
    echo "[fresh] $name FAILED (exit $status) after ${took}s; ${summary[*]}" >&2
    exit "$status"
  fi
  echo "[fresh] $name passed in ${took}s"
}

step clone git clone --quiet --no-hardlinks "$repo" "$tmp/mindsage"
git -C "$tmp/mindsage" checkout --quiet --detach "$(git -C "$repo" rev-parse HEAD)"
cd "$tmp/mindsage"

# A display of our own: the first number with no X server.
display=90
while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done
Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
sleep 1
step "make run" env DISPLAY=":$display" WAYLAND_DISPLAY= LIBGL_ALWAYS_SOFTWARE=1 \
  make run ARGS="--data-dir $tmp/journal --exit-after ${FRESH_CHECK_EXIT_AFTER:-5}"
kill "$xvfb_pid" 2>/dev/null || true
xvfb_pid=

step "make test" make test
echo "[fresh] all passed from an empty cache at $(git rev-parse --short HEAD): ${summary[*]}"
