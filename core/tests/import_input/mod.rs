//! The checks every importer must pass on any bytes at all, shared by the fuzz targets
//! (`core/fuzz/fuzz_targets/import_*.rs`) and, on stable, by `core/tests/import_seeds.rs`
//! over their seed corpora: no panic; an export that opens is written whole (every
//! entry reported added is in the journal, with its text and its place in the search
//! index); nothing is written outside the journal.

#![allow(dead_code)] // the fuzz targets use one kind each

use std::path::PathBuf;

use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::import::{self, Options};
use rusqlite::Connection;

/// Which importer the bytes are for: the name they arrive under decides how `open`
/// first looks at them (content decides the rest).
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    DayOneZip,
    Json,
    Markdown,
}

/// A journal and a scratch folder, kept across inputs (opening a journal per input
/// would leave the fuzzer little time for the importers).
pub struct Bench {
    dir: tempfile::TempDir,
    conn: Connection,
    input: usize,
}

impl Bench {
    pub fn new() -> Bench {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let conn = db::open(&dir.path().join("journal.db"), &StorageOptions::default()).expect("a journal");
        Bench { dir, conn, input: 0 }
    }

    pub fn check(&mut self, kind: Kind, bytes: &[u8]) {
        self.input += 1;
        let inbox = self.dir.path().join("inbox");
        let _ = std::fs::remove_dir_all(&inbox);
        std::fs::create_dir_all(&inbox).unwrap();
        let path: PathBuf = match kind {
            Kind::DayOneZip => inbox.join("export.zip"),
            Kind::Json => inbox.join("export.json"),
            Kind::Markdown => inbox.join("2024-01-01 note.md"),
        };
        std::fs::write(&path, bytes).unwrap();
        let before = self.live_entries();
        let Ok(mut export) = import::open(&path) else {
            assert_eq!(self.live_entries(), before, "a refused export wrote nothing");
            return;
        };
        let items = export.items.len();
        let report = import::run(
            &mut self.conn,
            DEFAULT_USER,
            &mut export,
            &Options::default(),
            &mut |_| {},
        )
        .expect("writing an export that opened does not fail");
        assert!(
            report.added + report.duplicates <= items,
            "{report:?} from {items} items"
        );
        assert_eq!(self.live_entries(), before + report.added as i64, "{report:?}");
        let indexed: i64 = self
            .conn
            .query_row("SELECT count(*) FROM entries_fts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(indexed, self.live_entries(), "every entry is in the search index");
        let names: Vec<_> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with("journal.db") && n != "inbox")
            .collect();
        assert!(names.is_empty(), "written beside the journal: {names:?}");
    }

    fn live_entries(&self) -> i64 {
        self.conn
            .query_row("SELECT count(*) FROM journal_entries", [], |r| r.get(0))
            .unwrap()
    }
}
