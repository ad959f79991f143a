#!/usr/bin/env bash
# The reliability suite with its record (`make reliability`): runs the kill, erasure,
# load, model-fault, privacy, full-disk, read-only and two-process tests with
# MINDSAGE_RELIABILITY_DIR set, then writes what they tried and how it ended into
# docs/RELIABILITY.md's generated section. `make test` runs the same tests
# without the record. MINDSAGE_CRASH_KILLS raises the kills (as `make soak` does).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
shared="${MINDSAGE_SHARED_DIR:-$(pwd)/../shared}"
bash "$shared/ollama-local/setup.sh"
export MINDSAGE_SHARED_DIR="$shared"
record="$(mktemp -d)"
trap 'rm -rf "$record"' EXIT
export MINDSAGE_RELIABILITY_DIR="$record"
cargo test --locked -p mindsage-core --test crash --test erasure --test load --test model_faults
cargo test --locked -p mindsage --test crash_cli --test privacy --test full_disk --test read_only --test two_processes
python3 scripts/reliability-report.py "$record" docs/RELIABILITY.md
