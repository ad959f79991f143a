#!/usr/bin/env bash
# The README's quick start on a new machine, for real: a Debian 12 (bookworm) root that
# holds the Debian packages a new machine of our class has and nothing else, so that a
# package the README's commands forget to install (libclang for whisper-rs-sys's bindgen,
# say) fails here instead of passing on a machine where something else installed it.
#   scripts/fresh-check.sh            (or: make fresh-check; needs root: chroot, mounts)
#
# The root: made once with mmdebstrap (installed with apt when missing) under
# ~/.cache/mindsage-fresh/root from scripts/new-machine-packages.txt, the machine facts'
# package list for our kind with these groups left out (that file says how it was made):
# the cloud command-line tools and Node.js (Google's and NodeSource's repositories, not
# Debian's), Java and PostgreSQL (nothing here uses them), and qemu-utils and
# osslsigncode (bookworm-backports builds, not used here). It takes a few minutes and
# about 2 GB, and is made again only when that list changes (or FRESH_CHECK_REMAKE=1).
# Not in it either: what a new machine has under /usr/local (a newer git, cargo-nextest,
# stand-ins), which neither `make run` nor `make test` uses.
#
# Every check runs in a clean overlayfs of that root (upper and work dirs in a temporary
# folder, thrown away afterwards), so what one run's apt-get installs never helps the
# next. Into the overlay go what a new machine has beside its packages:
#   - this machine's /etc/resolv.conf, /etc/hosts and CA certificates (with its CA and
#     proxy variables), or no registry answers;
#   - the Rust toolchain where a new machine has it, read-only: rustup's home and the
#     proxies in ~/.cargo/bin; the cargo home around them is empty (no registry cache);
#   - the machine's Python, ~/.pyenv (CPython 3.11), read-only;
#   - /proc, /dev and /sys; /tmp is the root's own, inside the overlay;
#   - shared/ beside the clone, read-only, as the repository sits beside it.
# Inside (chroot, as root, with a home of its own): a clean `git clone` of this
# repository at its HEAD (committed code only), `make run` with a short `--exit-after`,
# then `make test`, each timed. The window of `make run` opens on an Xvfb started outside
# the root (the person's screen, not part of what `make run` installs); `make test`
# starts its own displays from what `scripts/install-deps.sh test` installed inside.
#
# Everything runs in a mount and PID namespace of its own (unshare): its mounts are never
# seen outside it and vanish with it, and every process left inside is killed when it
# ends, whichever way it ends (a failure, Ctrl+C, a kill); the traps unmount and delete
# the temporary folder as well.
#
# Environment: FRESH_CHECK_EXIT_AFTER (seconds the window stays open, default 5),
# FRESH_CHECK_KEEP=1 keeps the temporary folder (the overlay's upper dir: the clone, its
# target dir, the apt installs) for a look afterwards, FRESH_CHECK_CACHE (default
# ~/.cache/mindsage-fresh), FRESH_CHECK_REMAKE=1 makes the root again,
# FRESH_CHECK_MIN_FREE_GB (default 25) the free space it wants in the temporary folder's
# file system before it starts.
# It downloads every crate and builds the workspace twice (release for the window, debug
# for the tests), and the test setup builds llama.cpp: about an hour and a half on two
# busy cores. The overlay grows to well over 14 GB (a run that filled the disk had
# written 14 GB when the linker died of it, as `Bus error`), so `make run`'s release
# build is deleted once it has passed: `make test` builds the debug profile either way.
set -euo pipefail

say() { echo "[fresh] $*"; }
die() { echo "[fresh] $*" >&2; exit 1; }

repo="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "$repo/.." && pwd)/shared"
package_list="$repo/scripts/new-machine-packages.txt"
cache="${FRESH_CHECK_CACHE:-$HOME/.cache/mindsage-fresh}"
root="$cache/root"
rustup_home="${RUSTUP_HOME:-$HOME/.rustup}"
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"

# The part inside the namespaces (see the end of this file for how it is started):
# mounts the overlay, runs the steps in the chroot, and unmounts on its way out.
if [ "${1:-}" = --inside ]; then
  tmp=$2 commit=$3 display=$4
  merged="$tmp/root"
  cleanup_inside() { umount -R "$merged" 2>/dev/null || umount -R -l "$merged" 2>/dev/null || true; }
  trap cleanup_inside EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  mkdir -p "$tmp/upper" "$tmp/work" "$merged"
  mount -t overlay overlay -o "lowerdir=$root,upperdir=$tmp/upper,workdir=$tmp/work" "$merged"
  mount -t proc proc "$merged/proc"
  mount --rbind /dev "$merged/dev" && mount --make-rslave "$merged/dev"
  mount --rbind /sys "$merged/sys" && mount --make-rslave "$merged/sys"
  # bind_ro HOST_PATH [PATH_INSIDE]: HOST_PATH at the same place inside, read-only.
  bind_ro() {
    local inside="$merged${2:-$1}"
    mkdir -p "$inside"
    mount --bind "$1" "$inside"
    mount -o remount,bind,ro "$inside"
  }
  cargo_bin="$(dirname "$(command -v rustup)")"
  bind_ro "$rustup_home"
  bind_ro "$cargo_bin"
  bind_ro "$pyenv_root"
  bind_ro "$shared" /work/shared
  bind_ro "$repo" /mnt/origin
  cp -L /etc/resolv.conf /etc/hosts "$merged/etc/"
  cp -a /etc/ssl/certs/. "$merged/etc/ssl/certs/"
  if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$merged/usr/local/share/ca-certificates"
    cp -a /usr/local/share/ca-certificates/. "$merged/usr/local/share/ca-certificates/"
  fi
  if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$merged/etc/pip.conf"; fi

  # A new machine's environment: its PATH (cargo's bin, pyenv's shims), an empty cargo
  # home in the overlay, and this machine's CA and proxy settings; nothing else of ours.
  inside_env=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 "TERM=${TERM:-dumb}"
    "PATH=$cargo_bin:$pyenv_root/plugins/pyenv-virtualenv/shims:$pyenv_root/shims:$pyenv_root/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    "RUSTUP_HOME=$rustup_home" CARGO_HOME=/root/.cargo RUSTUP_AUTO_INSTALL=0 RUST_BACKTRACE=1
    "PYENV_ROOT=$pyenv_root" CARGO_TERM_COLOR=never)
  for var in SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO PIP_CERT \
             http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
    if [ -n "${!var:-}" ]; then inside_env+=("$var=${!var}"); fi
  done
  in_root() { chroot "$merged" /usr/bin/env -i "${inside_env[@]}" /bin/bash -c "$1"; }

  summary=()
  # step NAME COMMAND: runs COMMAND in the root, prints and records its wall time, stops
  # on failure.
  step() {
    local name=$1 start=$SECONDS status=0
    say "$name: $2"
    in_root "$2" || status=$?
    local took=$((SECONDS - start))
    summary+=("$name $((took / 60))m$((took % 60))s")
    if [ "$status" != 0 ]; then
      echo "[fresh] $name FAILED (exit $status) after ${took}s; ${summary[*]}" >&2
      echo "[fresh] free in $tmp: $(df -h --output=avail "$tmp" | tail -n1) (a full disk shows as a linker's Bus error)" >&2
      exit "$status"
    fi
    say "$name passed in ${took}s"
  }

  step clone "git clone --quiet --no-hardlinks /mnt/origin /work/mindsage && git -C /work/mindsage checkout --quiet --detach $commit"
  step "make run" "cd /work/mindsage && DISPLAY=:$display LIBGL_ALWAYS_SOFTWARE=1 make run ARGS='--data-dir /root/journal --exit-after ${FRESH_CHECK_EXIT_AFTER:-5}'"
  in_root "rm -rf /work/mindsage/target/release"
  step "make test" "cd /work/mindsage && make test"
  say "all passed on a new machine at ${commit:0:10}: ${summary[*]}"
  exit 0
fi

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot and mounts)"
[ -d "$shared" ] || die "$shared is missing: the clone needs a shared/ folder beside it"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || die "this kernel has no overlayfs"
commit="$(git -C "$repo" rev-parse HEAD)"

# make_root: makes the root when it is missing or its package list changed. Every check
# holds the lock shared while it uses the root (checks run side by side); making it takes
# the lock alone, so it waits for the checks using the old root to end.
mkdir -p "$cache"
exec 9>"$cache/lock"
packages() { grep -v '^#' "$package_list" | sort -u; }
make_root() {
  local want start extras
  want="bookworm $(packages | sha256sum | cut -c1-16)"
  root_is_current() { [ -d "$root" ] && [ "$(cat "$cache/root.stamp" 2>/dev/null)" = "$want" ]; }
  flock -s 9
  if root_is_current && [ "${FRESH_CHECK_REMAKE:-0}" != 1 ]; then return; fi
  flock -u 9
  flock 9
  # Another check may have made it while this one waited.
  if root_is_current && [ "${FRESH_CHECK_REMAKE:-0}" != 1 ]; then
    flock -s 9
    return
  fi
  if ! command -v mmdebstrap >/dev/null; then
    say "installing mmdebstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap
  fi
  say "making the new machine's root in $root (a few minutes, once)"
  start=$SECONDS
  rm -rf "$root.new"
  # --variant=apt: the essential packages and apt, then exactly the list (no recommends);
  # with no mirror named, mmdebstrap uses Debian's with bookworm-updates and -security.
  mmdebstrap --variant=apt --aptopt='APT::Install-Recommends "false"' \
    --include="$(packages | paste -sd,)" bookworm "$root.new"
  # mmdebstrap brings usrmerge (and its Perl modules) to merge /usr; a new machine has
  # only the usr-is-merged marker, so whatever is not on the list goes again.
  # shellcheck disable=SC2016 # dpkg-query's own format
  extras="$(comm -23 <(chroot "$root.new" dpkg-query -W -f='${Package}\n' | sort -u) <(packages))"
  # shellcheck disable=SC2086 # one package name a word
  if [ -n "$extras" ]; then chroot "$root.new" dpkg --purge $extras; fi
  rm -rf "$root"
  mv "$root.new" "$root"
  echo "$want" >"$cache/root.stamp"
  say "made the root in $((SECONDS - start))s: $(du -sh "$root" | cut -f1), $(packages | wc -l) packages"
  flock -s 9
}
make_root

tmp="$(mktemp -d "${TMPDIR:-/tmp}/mindsage-fresh.XXXXXX")"
free_gb="$(df -BG --output=avail "$tmp" | tail -n1 | tr -dc 0-9)"
if [ "$free_gb" -lt "${FRESH_CHECK_MIN_FREE_GB:-25}" ]; then
  rmdir "$tmp"
  die "only ${free_gb} GB free under ${TMPDIR:-/tmp}: the check needs about ${FRESH_CHECK_MIN_FREE_GB:-25} GB (FRESH_CHECK_MIN_FREE_GB)"
fi
xvfb_pid=
cleanup() {
  if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
  if [ "${FRESH_CHECK_KEEP:-0}" = 1 ]; then say "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The screen: an Xvfb on the first free display, outside the root. The chroot shares this
# machine's network namespace, so the window reaches it through its abstract socket.
command -v Xvfb >/dev/null || "$repo/scripts/install-deps.sh" test
Xvfb -displayfd 1 -screen 0 1280x800x24 -nolisten tcp >"$tmp/display" 2>/dev/null 9>&- &
xvfb_pid=$!
for _ in $(seq 50); do [ -s "$tmp/display" ] && break; sleep 0.1; done
display="$(head -n1 "$tmp/display")"
[ -n "$display" ] || die "Xvfb did not start"

# A mount namespace of our own (nothing mounted here is seen outside or outlives it) and
# a PID namespace (every process left inside is killed when the check ends).
unshare --mount --propagation private --pid --fork --kill-child "$0" --inside "$tmp" "$commit" "$display"
