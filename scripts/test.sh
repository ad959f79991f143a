#!/usr/bin/env bash
# Runs every test of the workspace: the README's test command (`make test`) and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
# The local model server the AI and search tests talk to (a venv under ~/.cache; the
# first run builds llama.cpp, about five minutes, later runs take seconds). The tests
# start and stop their own server on a free port.
shared="${MINDSAGE_SHARED_DIR:-$(pwd)/../shared}"
if [ ! -f "$shared/ollama-local/setup.sh" ]; then
  echo "[test] $shared/ollama-local is missing: set MINDSAGE_SHARED_DIR to the shared folder" >&2
  exit 1
fi
bash "$shared/ollama-local/setup.sh"
export MINDSAGE_SHARED_DIR="$shared"
cargo test --workspace --locked "$@"
