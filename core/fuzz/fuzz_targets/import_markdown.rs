//! Fuzzes the importers with bytes arriving as markdown exports (`cargo +nightly fuzz run
//! import_markdown` in `core/`). The checks are `core/tests/import_input/mod.rs`'s; on
//! stable, `core/tests/import_seeds.rs` runs them over this target's seed corpus,
//! `corpus/import_markdown/`.

#![no_main]

#[path = "../../tests/import_input/mod.rs"]
mod import_input;

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;

thread_local! {
    static BENCH: RefCell<import_input::Bench> = RefCell::new(import_input::Bench::new());
}

fuzz_target!(|bytes: &[u8]| {
    BENCH.with(|bench| bench.borrow_mut().check(import_input::Kind::Markdown, bytes));
});
