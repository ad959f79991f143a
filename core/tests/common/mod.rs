//! Shared set-up for the storage tests: real journal files in a temporary folder.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::{Path, PathBuf};

use mindsage_core::db::{self, StorageOptions};
use rusqlite::Connection;

/// A journal file in its own temporary folder, removed when dropped.
pub struct TempJournal {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl TempJournal {
    pub fn new() -> TempJournal {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("journal.db");
        TempJournal { dir, path }
    }

    pub fn open(&self) -> Connection {
        db::open(&self.path, &StorageOptions::default()).expect("open journal")
    }
}

/// The bytes of the database and its -wal and -shm companions, as far as they exist.
pub fn journal_files(path: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    ["", "-wal", "-shm"]
        .iter()
        .map(|suffix| PathBuf::from(format!("{}{suffix}", path.display())))
        .filter_map(|p| std::fs::read(&p).ok().map(|bytes| (p, bytes)))
        .collect()
}

/// Whether `needle` occurs anywhere in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The one file in `folder` (failing the test when it holds any other number).
pub fn only_file(folder: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// A recording's next event, waiting up to `timeout` for it (the window polls
/// `try_event` each frame; a test waits).
pub fn next_event(
    recording: &mindsage_core::voice::capture::Recording,
    timeout: std::time::Duration,
) -> Option<mindsage_core::voice::capture::Event> {
    let until = std::time::Instant::now() + timeout;
    loop {
        if let Some(event) = recording.try_event() {
            return Some(event);
        }
        if std::time::Instant::now() >= until {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
