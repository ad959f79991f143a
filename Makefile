# The two commands a newcomer needs; see README.md.
.PHONY: run demo test soak reliability lint fresh-check windows msi windows-check

run:
	scripts/run.sh $(ARGS)

demo:
	scripts/run.sh --demo $(ARGS)

test:
	scripts/test.sh

# Before a release: the crash tests (issue #17) with 1,000 kills each instead of 100,
# the load test for ten minutes instead of a thousand saves a writer, sixty people
# typing at their pace instead of four (issue #29), and a thousand of a person's
# sequences (issue #30) instead of three: the longest part, run as two processes of 500
# side by side, since a sequence mostly waits (typing pauses, the window, key
# derivation on one core). docs/RELIABILITY.md says how long the last thousand took.
soak:
	MINDSAGE_CRASH_KILLS=1000 cargo test --locked -p mindsage-core --test crash
	MINDSAGE_CRASH_KILLS=1000 cargo test --locked -p mindsage --test crash_cli
	MINDSAGE_LOAD_SECONDS=600 cargo test --locked -p mindsage-core --test load
	MINDSAGE_TYPING_CASES=60 cargo test --locked -p mindsage --test typing
	cargo test --locked -p mindsage --test sequences --no-run
	MINDSAGE_SEQUENCES_CASES=500 cargo test --locked -p mindsage --test sequences what_a_person & first=$$!; \
	MINDSAGE_SEQUENCES_CASES=500 cargo test --locked -p mindsage --test sequences what_a_person; second=$$?; \
	wait $$first && test $$second -eq 0

# The reliability suite (issue #17), recorded into docs/RELIABILITY.md.
reliability:
	scripts/reliability.sh

# Clippy builds every crate, so it needs the same packages as a build (ALSA's headers,
# cmake): on a new machine CI runs this before anything else has installed them.
lint:
	scripts/install-deps.sh run
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The README's two commands on a new machine: a clean clone in a clean overlay of a Debian 12
# root holding only the packages a new machine has (about an hour; needs root).
fresh-check:
	scripts/fresh-check.sh

# Windows, cross-built on Linux (README, "Windows"): the exe, the installer, and both
# run under Wine.
windows:
	scripts/windows.sh

msi:
	scripts/msi.sh

windows-check:
	scripts/windows-check.sh
