# The two commands a newcomer needs; see README.md.
.PHONY: run demo test lint

run:
	scripts/run.sh $(ARGS)

demo:
	scripts/run.sh --demo $(ARGS)

test:
	scripts/test.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
