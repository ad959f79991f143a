//! The reliability suite's summaries (issue #17): what each test tried and how it ended,
//! gathered into one JSON file per test file (`erasure.json`, `privacy.json`) in
//! `MINDSAGE_RELIABILITY_DIR` when it is set, so the reliability docs are generated from
//! runs rather than written by hand.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::{Map, Value};

/// The environment variable naming the folder the summaries go to.
pub const DIR_ENV: &str = "MINDSAGE_RELIABILITY_DIR";

/// Tests of one file run on parallel threads and share its summary file.
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// One test's summary, written when it is dropped: "passed" when the test got there
/// without panicking, "failed" when a failed assertion unwinds through it, so a stale
/// "passed" from an earlier run never stays behind a failure.
pub struct Summary {
    file: &'static str,
    test: &'static str,
    fields: Map<String, Value>,
}

impl Summary {
    /// The summary of `test` in `<file>.json`.
    pub fn new(file: &'static str, test: &'static str) -> Summary {
        Summary {
            file,
            test,
            fields: Map::new(),
        }
    }

    /// Records what was tried or counted under `key`.
    pub fn set(&mut self, key: &str, value: impl serde::Serialize) {
        let value = serde_json::to_value(value).expect("a summary field serialises");
        self.fields.insert(key.to_owned(), value);
    }
}

impl Drop for Summary {
    fn drop(&mut self) {
        let Some(dir) = std::env::var_os(DIR_ENV).map(PathBuf::from) else {
            return;
        };
        let outcome = if std::thread::panicking() {
            "failed"
        } else {
            "passed"
        };
        self.fields.insert("outcome".to_owned(), Value::from(outcome));
        let _guard = FILE_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let path = dir.join(format!("{}.json", self.file));
        let mut tests: Map<String, Value> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        tests.insert(
            self.test.to_owned(),
            Value::Object(std::mem::take(&mut self.fields)),
        );
        let json = serde_json::to_vec_pretty(&tests).expect("a summary serialises");
        // A summary that cannot be written must not turn a passing test into a panic
        // inside drop; it says so instead.
        if let Err(error) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, json)) {
            eprintln!("cannot write the summary {}: {error}", path.display());
        }
    }
}
