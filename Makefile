# The two commands a newcomer needs; see README.md.
.PHONY: run demo test lint fresh-check windows msi windows-check

run:
	scripts/run.sh $(ARGS)

demo:
	scripts/run.sh --demo $(ARGS)

test:
	scripts/test.sh

# Clippy builds every crate, so it needs the same packages as a build (ALSA's headers,
# cmake): on a new machine CI runs this before anything else has installed them.
lint:
	scripts/install-deps.sh run
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The README's two commands on a clean clone with an empty cargo cache (about 30 minutes).
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
