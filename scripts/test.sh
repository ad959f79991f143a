#!/usr/bin/env bash
# Runs every test of the workspace: the README's test command (`make test`) and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cargo test --workspace --locked "$@"
