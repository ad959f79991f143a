# Sourced by the scripts that open the window on a headless machine (screenshots.sh,
# windows-check.sh): a virtual display of their own, with software OpenGL.
#   start_display N [WxH]   starts Xvfb on :N (1100x720 unless WxH says) and points
#                           DISPLAY at it
#   stop_display            ends it (call it from the script's EXIT trap)
start_display() {
  Xvfb ":$1" -screen 0 "${2:-1100x720}x24" -nolisten tcp >/dev/null 2>&1 &
  display_pid=$!
  export DISPLAY=":$1" LIBGL_ALWAYS_SOFTWARE=1
  unset WAYLAND_DISPLAY
  sleep 1
}

stop_display() {
  kill "$display_pid" 2>/dev/null || true
}
