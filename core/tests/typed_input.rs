//! Nothing typed into the search box or asked as a question can panic or make SQLite
//! fail: dates, FTS words, ranking and snippets over arbitrary text, number-laden date
//! phrases, the fuzz target's seed corpus and the phrases that once panicked.
//! The checks themselves are in `typed_text/mod.rs`, shared with the fuzz target.

mod typed_text;

use std::cell::RefCell;

use chrono::{Local, TimeZone};
use proptest::prelude::*;

use mindsage_core::search::dates::{self, EARLIEST};
use typed_text::Journal;

thread_local! {
    /// One journal for every case: seeding it per case would be most of the test's time.
    static JOURNAL: RefCell<Journal> = RefCell::new(Journal::new());
}

fn check(text: &str) {
    JOURNAL.with(|journal| journal.borrow_mut().check(text));
}

#[test]
fn the_phrases_that_panicked_are_clamped_ranges() {
    let now = Local.with_ymd_and_hms(2026, 6, 15, 20, 0, 0).unwrap();
    let months = dates::parse_date_range("4000000 months ago", now).unwrap();
    // The month the count reaches is before the clamp, so the range is the first month.
    assert_eq!(
        (months.start, months.end.to_string().as_str()),
        (EARLIEST, "0001-02-01")
    );
    let days = dates::parse_date_range("in the last 4000000000 days", now).unwrap();
    assert_eq!(days.start, EARLIEST);
    assert_eq!(days.end, now.date_naive().succ_opt().unwrap());
    assert_eq!(days.matched, "last 4000000000 days");
    check("4000000 months ago");
    check("in the last 4000000000 days");
}

#[test]
fn the_fuzz_seed_corpus_passes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/typed_text");
    let mut seeds = 0;
    for file in std::fs::read_dir(&dir).expect("seed corpus") {
        let bytes = std::fs::read(file.expect("corpus file").path()).expect("read seed");
        check(&String::from_utf8_lossy(&bytes));
        seeds += 1;
    }
    assert!(seeds > 0, "no seeds in {}", dir.display());
}

/// Phrases built the way dates are written, with numbers of any size where a count goes.
fn date_phrase() -> impl Strategy<Value = String> {
    let number = prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        "[0-9]{1,30}",
        (0u32..100).prop_map(|n| n.to_string()),
    ];
    let unit = prop::sample::select(vec![
        "day", "days", "week", "weeks", "month", "months", "year", "s",
    ]);
    let lead = prop::sample::select(vec![
        "",
        "in the last",
        "last",
        "past",
        "this",
        "in",
        "during",
        "since",
    ]);
    let tail = prop::sample::select(vec!["", "ago", "?", "2026", "march", "-"]);
    let month = prop::sample::select(vec!["march", "may", "sept", "december", "winter", "spring"]);
    prop_oneof![
        (lead.clone(), number.clone(), unit, tail.clone())
            .prop_map(|(l, n, u, t)| format!("{l} {n} {u} {t}")),
        (lead, month, number.clone()).prop_map(|(l, m, n)| format!("{l} {m} {n}")),
        (number.clone(), number.clone(), number).prop_map(|(y, m, d)| format!("on {y}-{m}-{d}")),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}",
        (r"\PC{0,40}", tail).prop_map(|(text, t)| format!("{text} {t}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_text_is_read_without_failing(text in any::<String>()) {
        check(&text);
    }

    #[test]
    fn date_phrases_are_read_without_failing(text in date_phrase()) {
        check(&text);
    }
}
