//! Two processes at once (issue #17): several `mindsage` processes saving into the same
//! journal at the same moment. Each save takes the write lock when its transaction
//! begins and waits out the others (the busy timeout), so none fails and none is lost.

#[path = "../../core/tests/reliability_summary/mod.rs"]
mod reliability_summary;

mod binary;

use binary::mindsage;
use reliability_summary::Summary;

const PROCESSES: usize = 4;
const SAVES_EACH: usize = 25;

#[test]
fn processes_saving_into_one_journal_at_once_lose_nothing_and_see_no_error() {
    let mut summary = Summary::new(
        "two_processes",
        "processes_saving_into_one_journal_at_once_lose_nothing_and_see_no_error",
    );
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("journal");
    let first = mindsage(&data, &["add", "--body", "The journal before the others came."]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    // Each thread is one person's terminal: its saves one after another, the other
    // terminals' between them.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let terminals: Vec<_> = (0..PROCESSES)
            .map(|p| {
                let data = &data;
                scope.spawn(move || {
                    (0..SAVES_EACH)
                        .filter_map(|n| {
                            let body = format!("Terminal {p} save {n}.");
                            let out = mindsage(data, &["add", "--tag", "together", "--body", &body]);
                            (!out.status.success())
                                .then(|| format!("{body}: {}", String::from_utf8_lossy(&out.stderr).trim()))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        terminals.into_iter().flat_map(|t| t.join().unwrap()).collect()
    });

    let out = mindsage(&data, &["--json", "list", "--tag", "together", "--limit", "1000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    summary.set("processes", PROCESSES);
    summary.set("saves", PROCESSES * SAVES_EACH);
    summary.set("saves_failed", &failures);
    summary.set("saves_listed_after", listed.len());
    assert!(failures.is_empty(), "saves failed: {failures:?}");
    assert_eq!(
        listed.len(),
        PROCESSES * SAVES_EACH,
        "every save is in the journal"
    );
}

#[test]
fn a_command_that_waits_for_another_writer_says_so_and_then_saves() {
    let mut summary = Summary::new(
        "two_processes",
        "a_command_that_waits_for_another_writer_says_so_and_then_saves",
    );
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("journal");
    let first = mindsage(&data, &["add", "--body", "Before the long write."]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    // Another program holds the write lock for a while (as the app's import holds it
    // for a batch), then lets go.
    let other = rusqlite::Connection::open(data.join("journal.db")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let holding = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1_500));
        other.execute_batch("COMMIT").unwrap();
    });
    let out = mindsage(&data, &["add", "--body", "Saved once the other writer finished."]);
    holding.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    summary.set("message_while_waiting", stderr.trim());
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("is writing to the journal; waiting"),
        "the wait is said: {stderr:?}"
    );
}
