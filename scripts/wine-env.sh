# Sourced by the scripts that run mindsage.exe under Wine (windows-check.sh,
# screenshots.sh): the Wine binary, a test prefix of our own, and `wine_prefix_ready`.
WINE=${WINE:-$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)}
WINESERVER=${WINESERVER:-$(command -v wineserver || echo "$(dirname "$WINE")/wineserver")}
# Our own prefix, kept between runs (its first creation takes a minute).
export WINEPREFIX=${MINDSAGE_WINEPREFIX:-$HOME/.cache/mindsage-wine}
export WINEARCH=win64
# Quiet, and no offer to install Mono or Gecko: MindSage needs neither.
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES="mscoree,mshtml="

# The prefix's user folder as a Linux path, e.g. ~/.cache/mindsage-wine/drive_c/users/root.
wine_user_dir() {
  echo "$WINEPREFIX/drive_c/users/$(id -un)"
}

# Creates the prefix if needed, then gives it bcryptprimitives.dll when Wine has none
# (scripts/wine/bcryptprimitives.c says why; a test-harness part, never shipped).
wine_prefix_ready() {
  local here system32
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    echo "[wine] creating the test prefix $WINEPREFIX"
    "$WINE" wineboot --init >/dev/null 2>&1
    "$WINESERVER" -w
  fi
  system32="$WINEPREFIX/drive_c/windows/system32"
  if [ ! -f "$system32/bcryptprimitives.dll" ] \
     && ! ls /usr/lib/x86_64-linux-gnu/wine/x86_64-windows/bcryptprimitives.dll >/dev/null 2>&1; then
    echo "[wine] this Wine has no bcryptprimitives.dll: adding the test shim to the prefix"
    x86_64-w64-mingw32-gcc-posix -O2 -shared -o "$system32/bcryptprimitives.dll" \
      "$here/wine/bcryptprimitives.c" "$here/wine/bcryptprimitives.def" -ladvapi32
  fi
}
