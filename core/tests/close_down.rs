//! The process's end (`db::close_down`) interrupts a backup's check: a check of a large
//! journal is one statement of seconds (`PRAGMA integrity_check`), and a window closing
//! while the day's backup is being checked waited for all of it. A test binary of its
//! own: `close_down` is for the whole process, as the window's end is.

use std::time::{Duration, Instant};

use mindsage_core::db::{self, DEFAULT_USER, DbError, StorageOptions, backup};
use mindsage_core::demo::{self, DemoOptions};

#[test]
fn the_processs_end_interrupts_a_backups_check_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.db");
    let mut conn = db::open(&journal, &StorageOptions::default()).unwrap();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(8_000, 7)).unwrap();
    drop(conn);

    // The check as it runs undisturbed, for how long the interrupted one may take.
    let started = Instant::now();
    backup::check(&journal, None).unwrap();
    let whole = started.elapsed();

    let checking = {
        let journal = journal.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            (backup::check(&journal, None), started.elapsed())
        })
    };
    std::thread::sleep(whole / 4);
    db::close_down();
    let (checked, took) = checking.join().unwrap();
    assert!(
        matches!(checked, Err(DbError::ClosingDown)),
        "the check was not stopped by the process's end: {checked:?} (undisturbed it took {whole:?})"
    );
    assert!(
        took < whole.mul_f64(0.75) + Duration::from_millis(50),
        "the interrupted check took {took:?}, the whole one {whole:?}"
    );

    // A backup started now stops before copying anything, and leaves no file.
    let copy = dir.path().join("backup.db");
    let conn = db::open(&journal, &StorageOptions::default()).unwrap();
    assert!(matches!(
        backup::backup(&conn, &copy, None),
        Err(DbError::ClosingDown)
    ));
    assert!(!copy.exists());
}
