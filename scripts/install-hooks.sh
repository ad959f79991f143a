#!/usr/bin/env bash
# Installs MindSage's git hooks into this clone (currently: pre-commit, the quick
# performance check). Safe to run again; an existing different hook is kept as *.bak.
set -euo pipefail

root=$(git rev-parse --show-toplevel)
hooks=$(git rev-parse --git-path hooks)
mkdir -p "$hooks"
target="$hooks/pre-commit"
if [ -e "$target" ] && ! cmp -s "$target" "$root/scripts/pre-commit"; then
    mv "$target" "$target.bak"
    echo "kept the previous hook as $target.bak"
fi
cp "$root/scripts/pre-commit" "$target"
chmod +x "$target"
echo "installed $target"
