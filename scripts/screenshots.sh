#!/usr/bin/env bash
# Saves a screenshot of each view of the app to docs/screenshots/, from a demo journal,
# on a virtual display (Xvfb) with software OpenGL, so it runs on a headless machine.
#   scripts/screenshots.sh            build (release) and shoot every view
# Needs: xvfb, xauth, ImageMagick's `import` (installed below when missing).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/docs/screenshots"
mkdir -p "$out"

"$root/scripts/install-deps.sh" screenshots
for tool in Xvfb import; do
  command -v "$tool" >/dev/null || { echo "[screenshots] $tool is missing: scripts/install-deps.sh test" >&2; exit 1; }
done

cargo build --release -p mindsage --manifest-path "$root/Cargo.toml"
bin="$root/target/release/mindsage"

work="$(mktemp -d)"
display_number=${SCREENSHOT_DISPLAY:-117}
Xvfb ":$display_number" -screen 0 1100x720x24 -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
cleanup() {
  kill "$xvfb_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export DISPLAY=":$display_number" LIBGL_ALWAYS_SOFTWARE=1 WAYLAND_DISPLAY=
unset WAYLAND_DISPLAY
sleep 1

# The demo journal: entries ending today (so "on this day" and the streaks have
# something to show), one in forty with a photo.
"$bin" --data-dir "$work" seed --entries 3000 --seed 7 >/dev/null
newest=$("$bin" --data-dir "$work" --json list --limit 1 | sed -n 's/.*"id": *\([0-9]*\).*/\1/p' | head -n 1)

# shoot NAME ARGS...: opens the app with ARGS, waits for it to settle, saves NAME.png.
shoot() {
  local name=$1
  shift
  "$bin" --data-dir "$work" "$@" &
  local app_pid=$!
  sleep "${SCREENSHOT_WAIT:-4}"
  import -window root "$out/$name.png"
  kill "$app_pid"
  wait "$app_pid" 2>/dev/null || true
  echo "[screenshots] $out/$name.png"
}

shoot journal --view journal --entry "$newest"
shoot dashboard --view dashboard
shoot gallery --view gallery
shoot ask --view ask
shoot settings --view settings
shoot profiler --view journal --entry "$newest" --profiler
printf '{"theme":"light"}\n' >"$work/settings.json"
shoot journal-light --view journal --entry "$newest"
