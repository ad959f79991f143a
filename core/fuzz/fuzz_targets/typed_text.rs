//! Fuzzes the text of the search box and of questions: dates, FTS words, ranking and
//! snippets (`cargo +nightly fuzz run typed_text` in `core/`). The checks are the
//! property test's (`core/tests/typed_text/mod.rs`); on stable that test runs them
//! over this target's seed corpus, `corpus/typed_text/`.

#![no_main]

#[path = "../../tests/typed_text/mod.rs"]
mod typed_text;

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;

thread_local! {
    static JOURNAL: RefCell<typed_text::Journal> = RefCell::new(typed_text::Journal::new());
}

fuzz_target!(|text: &str| {
    JOURNAL.with(|journal| journal.borrow_mut().check(text));
});
