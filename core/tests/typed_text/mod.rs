//! Everything a line of typed text goes through in search, checked in one call: shared
//! by the property test (`tests/typed_input.rs`) and the fuzz target
//! (`fuzz/fuzz_targets/typed_text.rs`), so the fuzzer and the stable test check the
//! same thing.
//!
//! A line typed into the search box or asked as a question is read for dates (at three
//! "now"s: an ordinary day and the two ends of the calendar ranges are clamped to), turned
//! into FTS5 words and ranked on a real journal (no input may make FTS5 fail), and
//! given snippets; the text is also highlighted as an entry body. Any panic, and any
//! error from SQLite, is a bug.

#![allow(dead_code)] // the fuzz target and the test use different parts

use chrono::{DateTime, Local, NaiveDate, TimeZone};
use rusqlite::Connection;

use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::search::dates::{self, EARLIEST, LATEST};
use mindsage_core::search::keyword::{LastWord, QueryWords};
use mindsage_core::search::snippet::{self, Matcher};
use mindsage_core::search::{self, SearchQuery, Searcher};

/// A small demo journal in a temporary folder, with its searcher.
pub struct Journal {
    _dir: tempfile::TempDir,
    conn: Connection,
    searcher: Searcher,
}

impl Journal {
    pub fn new() -> Journal {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut conn =
            db::open(&dir.path().join("journal.db"), &StorageOptions::default()).expect("open journal");
        demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(60, 7)).expect("seed journal");
        Journal {
            _dir: dir,
            conn,
            searcher: Searcher::default(),
        }
    }

    /// Runs `text` through dates, FTS words, ranking and snippets; panics on a bug.
    pub fn check(&mut self, text: &str) {
        for now in nows() {
            if let Some(range) = dates::parse_date_range(text, now) {
                for day in [range.start, range.end] {
                    assert!((EARLIEST..=LATEST).contains(&day), "{day} for {text:?}");
                }
                assert!(
                    text.contains(&range.matched),
                    "{:?} not in {text:?}",
                    range.matched
                );
            }
            let (question, _) = SearchQuery::from_text(text, now, 10);
            search::hybrid_knn(&self.conn, DEFAULT_USER, &question, None)
                .unwrap_or_else(|e| panic!("question search failed for {text:?}: {e}"));
            self.searcher
                .search_box(&self.conn, DEFAULT_USER, text, now, 10, None)
                .unwrap_or_else(|e| panic!("search box failed for {text:?}: {e}"));
        }
        for last in [LastWord::Whole, LastWord::Prefix] {
            if let Some(words) = QueryWords::parse(text, last) {
                assert!(!words.words.is_empty());
                let matcher = Matcher::new(&words);
                let shown = snippet::highlight(text, &matcher);
                assert!(shown.is_some(), "{text:?} does not highlight its own words");
            }
        }
    }
}

/// An ordinary evening, and days at the two ends of the range dates are clamped to.
fn nows() -> Vec<DateTime<Local>> {
    [
        NaiveDate::from_ymd_opt(2026, 6, 15),
        EARLIEST.succ_opt(),
        LATEST.pred_opt(),
    ]
    .into_iter()
    .flatten()
    .filter_map(|day| Local.from_local_datetime(&day.and_hms_opt(20, 0, 0)?).earliest())
    .collect()
}
