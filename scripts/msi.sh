#!/usr/bin/env bash
# Builds the Windows installer on Linux (`make msi`): the stripped exe (scripts/windows.sh),
# then wix/mindsage.wxs through wixl into $CARGO_TARGET_DIR/windows/MindSage-<version>-x64.msi.
# Prints the installer's path and size. On Windows, build it with the WiX toolset
# instead (wix/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh msi
scripts/windows.sh
source scripts/windows-env.sh
# The workspace's version, the one Cargo.toml gives every crate and the exe's resource.
version=$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' Cargo.toml | head -1)
msi="$WINDOWS_OUT/MindSage-$version-x64.msi"
# wixl takes source files by relative path only.
wixl --arch x64 \
  -D Version="$version" \
  -D ExePath="$(realpath --relative-to=. "$WINDOWS_OUT/mindsage.exe")" \
  -D IconPath=assets/icon.ico \
  -D LicencePath=wix/LICENSE.txt \
  -o "$msi" wix/mindsage.wxs
# The Start-menu shortcut's AppUserModelID, without which Windows shows no notification
# from an app that is not a Store package: wixl has no <ShortcutProperty>, so its table
# is imported into the package as it is.
msibuild "$msi" -i wix/MsiShortcutProperty.idt
echo "[msi] $msi ($(stat -c %s "$msi") bytes)"
