#!/usr/bin/env bash
# Builds and opens MindSage (release build). Extra arguments go to the app, e.g.
#   scripts/run.sh --demo          fill an empty journal with demo entries first
#   scripts/run.sh --data-dir DIR  use another journal folder
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
exec cargo run --release --locked -p mindsage -- "$@"
