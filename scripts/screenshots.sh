#!/usr/bin/env bash
# Saves a screenshot of each view of the app to docs/screenshots/, from a demo journal,
# on a virtual display (Xvfb) with software OpenGL, so it runs on a headless machine.
#   scripts/screenshots.sh            build (release) and shoot every view, and the
#                                     Windows exe under Wine where the cross toolchain is
#                                     installed (scripts/install-deps.sh windows-check)
#   scripts/screenshots.sh windows    only the Windows one (docs/screenshots/windows.png)
# The page's shots (today, markdown, focus, calendar, photos) and the year in pixels are taken
# at 1280x800, the others at the window's own 1100x720.
# Needs: xvfb, xauth, xdotool, ImageMagick's `import` (installed below when missing).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/docs/screenshots"
mkdir -p "$out"

"$root/scripts/install-deps.sh" screenshots
for tool in Xvfb import xdotool; do
  command -v "$tool" >/dev/null || { echo "[screenshots] $tool is missing: scripts/install-deps.sh test" >&2; exit 1; }
done

cargo build --release -p mindsage --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/mindsage"

work="$(mktemp -d)"
source "$root/scripts/display.sh"
start_display "${SCREENSHOT_DISPLAY:-117}" 1280x800
cleanup() {
  stop_display
  rm -rf "$work"
}
trap cleanup EXIT

# The demo journal: entries ending today (so "on this day" and the streaks have
# something to show), one in forty with a photo.
"$bin" --data-dir "$work" seed --entries 3000 --seed 7 >/dev/null
newest=$("$bin" --data-dir "$work" --json list --limit 1 | sed -n 's/.*"id": *\([0-9]*\).*/\1/p' | head -n 1)

# Today's entry, written in Markdown, for the page's shots.
"$bin" --data-dir "$work" add --title "A slow Sunday" --tag rain --tag reading --mood 7 --body "$(cat <<'ENTRY'
Woke to **rain** on the window and stayed in with *coffee* and the essay Maya sent, [on keeping a diary](https://example.org/diary). Read it twice.

## What stayed with me

> Nothing is lost that was written down.

- [x] call mum about Saturday
- [ ] water the plants
- [ ] finish `notes.md` for the book club

It is strange how a grey day can feel so full. I want to remember the sound of the gutters and the way the kettle clicked off just as the rain stopped.
ENTRY
)" >/dev/null

# Yesterday's entry, imported from a Markdown note whose text places a photo, for the
# shot of photos in the page.
notes="$work/notes"
mkdir -p "$notes/img"
convert -size 900x560 gradient:'#3c78b4-#e6c85a' -fill '#fae678' -draw 'circle 700,120 760,120' \
  -fill '#2f5d3a' -draw 'polygon 0,560 0,420 220,360 430,430 650,380 900,450 900,560' "$notes/img/low tide.jpg"
cat >"$notes/$(date -d yesterday +%F) Down to the bay.md" <<'NOTE'
Walked down to the bay after lunch. The tide was **out**, and the sand went on for ever.

![The bay at low tide](img/low%20tide.jpg)

Home before dark, sand in everything.
NOTE
"$bin" --data-dir "$work" import "$notes" >/dev/null
bay=$("$bin" --data-dir "$work" --json search "Down to the bay" | python3 -c '
import json, sys
print(next(h["id"] for h in json.load(sys.stdin)["hits"] if h["title"] == "Down to the bay"))')

# shoot NAME [--keys "KEY…"] ARGS...: opens the app with ARGS, waits for it to settle,
# presses KEYs (xdotool names) in it if given, saves NAME.png. The window is as large as
# the display; the shots of the other screens keep its usual 1100x720.
shoot() {
  local name=$1 keys=""
  shift
  if [ "${1:-}" = --keys ]; then
    keys=$2
    shift 2
  fi
  "$bin" --data-dir "$work" "$@" &
  local app_pid=$!
  sleep "${SCREENSHOT_WAIT:-4}"
  local window
  window=$(xdotool search --onlyvisible --name '^MindSage$' | head -n 1)
  case $name in
    today | markdown | focus | calendar | year | photos) xdotool windowsize "$window" 1280 800 ;;
    *) xdotool windowsize "$window" 1100 720 ;;
  esac
  for key in $keys; do
    xdotool windowfocus --sync "$window" key "$key"
    sleep 1
  done
  sleep 1
  case $name in
    today | markdown | focus | calendar | year | photos) import -window root "$out/$name.png" ;;
    *) import -window root -crop 1100x720+0+0 +repage "$out/$name.png" ;;
  esac
  kill "$app_pid"
  wait "$app_pid" 2>/dev/null || true
  echo "[screenshots] $out/$name.png"
}

# The Windows exe under Wine on the same journal. Wine takes seconds to start a program.
shoot_windows() {
  (cd "$root" && scripts/windows.sh)
  source "$root/scripts/windows-env.sh"
  source "$root/scripts/wine-env.sh"
  wine_prefix_ready
  local win_dir
  win_dir=$("$WINE" winepath -w "$work" 2>/dev/null | tr -d '\r')
  "$WINE" "$WINDOWS_OUT/mindsage.exe" --data-dir "$win_dir" --view journal --entry "$newest" &
  local app_pid=$!
  sleep "${SCREENSHOT_WINE_WAIT:-12}"
  import -window root "$out/windows.png"
  kill "$app_pid" 2>/dev/null || true
  "$WINESERVER" -k 2>/dev/null || true
  wait "$app_pid" 2>/dev/null || true
  echo "[screenshots] $out/windows.png (mindsage.exe under Wine)"
}
windows_toolchain() {
  command -v x86_64-w64-mingw32-gcc-posix >/dev/null && command -v wixl >/dev/null \
    && { command -v wine64 >/dev/null || [ -x /usr/lib/wine/wine64 ]; }
}
if [ "${1:-all}" = windows ]; then
  shoot_windows
  exit 0
fi

shoot today
shoot markdown --keys "ctrl+backslash"
shoot focus --keys "F11"
shoot calendar --keys "alt+Up alt+Left alt+Left"
shoot year --view dashboard
shoot photos --entry "$bay"
shoot journal --view journal --entry "$newest"
shoot dashboard --view dashboard
shoot gallery --view gallery
shoot ask --view ask
shoot settings --view settings
shoot profiler --view journal --entry "$newest" --profiler
printf '{"theme":"light"}\n' >"$work/settings.json"
shoot journal-light --view journal --entry "$newest"
if windows_toolchain; then
  shoot_windows
else
  echo "[screenshots] no Windows cross toolchain (scripts/install-deps.sh windows-check): windows.png not taken"
fi
