//! Every catalogued query, under EXPLAIN QUERY PLAN on a seeded journal: no full table
//! scan that is not on the query's allow-list, no list or gallery page that sorts all
//! rows before taking one page, journal pages read from the list index alone, and the
//! model-work backfill read from indexes alone.

mod common;

use common::TempJournal;
use mindsage_core::db::{DEFAULT_USER, entries, queries, query_plan, vectors};
use mindsage_core::demo::{self, DemoOptions};

fn check_catalogue(conn: &rusqlite::Connection, context: &str) {
    // Statements over a model's vector table are explained on the journal's own.
    let model = vectors::active_model(conn, DEFAULT_USER).unwrap();
    let mut failures = Vec::new();
    for query in queries::CATALOGUE {
        let lines = query_plan::explain_query(conn, query, model.as_ref())
            .unwrap()
            .unwrap_or_else(|| panic!("{}: the journal has no vector table to explain it on", query.name));
        for scan in query_plan::unexpected_scans(query, &lines) {
            failures.push(format!(
                "{} ({context}): full scan `{scan}`\n  plan: {lines:?}",
                query.name
            ));
        }
        // A whole-index walk is as slow as a table scan unless a LIMIT stops it early.
        let walks_whole_index = |l: &String| {
            l.starts_with("SCAN ")
                && l.contains(" INDEX ")
                && !l.contains("VIRTUAL TABLE")
                && !query.sql.contains("LIMIT")
        };
        if let Some(walk) = lines.iter().find(|l| walks_whole_index(l)) {
            failures.push(format!(
                "{} ({context}): walks a whole index `{walk}`",
                query.name
            ));
        }
        // The journal's own pages are served by the list index alone (migration 6).
        let journal_page = ["list.page1", "list.page_n", "list.by_date_range"].contains(&query.name);
        if journal_page
            && !lines
                .iter()
                .any(|l| l.contains("USING COVERING INDEX idx_entries_list"))
        {
            failures.push(format!(
                "{} ({context}): reads table rows, not only the list index\n  plan: {lines:?}",
                query.name
            ));
        }
        // Finding the entries that still need the model's work runs at every start of
        // the job runner: it reads indexes, never the entries' bodies (migration 8).
        if query.name.starts_with("ai.backfill_")
            && let Some(read) = lines
                .iter()
                .find(|l| l.starts_with("SEARCH e ") || l.starts_with("SCAN e"))
                .filter(|l| !l.contains("COVERING INDEX"))
        {
            failures.push(format!(
                "{} ({context}): reads entry rows to find missing work `{read}`\n  plan: {lines:?}",
                query.name
            ));
        }
        let pages = query.name.starts_with("list.") || query.name.starts_with("gallery.");
        if pages && lines.iter().any(|l| l.contains("TEMP B-TREE")) {
            failures.push(format!(
                "{} ({context}): sorts every row before paging\n  plan: {lines:?}",
                query.name
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn no_query_scans_a_large_table() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(
        &mut conn,
        DEFAULT_USER,
        &DemoOptions {
            photo_every: 10,
            ..DemoOptions::fixed(1_500, 11)
        },
    )
    .unwrap();
    store_vectors(&conn);
    check_catalogue(&conn, "no statistics");
    // Plans must stay right once SQLite has statistics, as `PRAGMA optimize` gathers.
    conn.execute_batch("ANALYZE").unwrap();
    check_catalogue(&conn, "after ANALYZE");
}

/// A small vector for every live entry, so the vector statements have a table to be
/// explained on.
fn store_vectors(conn: &rusqlite::Connection) {
    let mut after = None;
    loop {
        let page = entries::list(conn, DEFAULT_USER, &Default::default(), after.as_ref(), 500).unwrap();
        let made: Vec<(i64, [f32; 4])> = page
            .rows
            .iter()
            .map(|row| (row.id, [1.0, row.id as f32, 0.5, -1.0]))
            .collect();
        let batch: Vec<(i64, &[f32])> = made.iter().map(|(id, v)| (*id, &v[..])).collect();
        vectors::store_embeddings(conn, DEFAULT_USER, "plan-test", &batch).unwrap();
        after = page.next;
        if after.is_none() {
            break;
        }
    }
}

#[test]
fn catalogue_names_are_unique_and_dotted() {
    let mut names: Vec<&str> = queries::CATALOGUE.iter().map(|q| q.name).collect();
    assert!(names.iter().all(|n| n.contains('.')));
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "duplicate query names");
    for query in queries::CATALOGUE {
        for allowed in query.allowed_scans {
            assert!(
                !allowed.reason.trim().is_empty(),
                "{}: an allowed scan needs its reason",
                query.name
            );
        }
    }
}

/// A statement compiled again at every run pays a parse each time: SQLite does that
/// when it planned from a bound value (`LIMIT ?`, `user_id = ?` bound to 1), unless the
/// connection asks for plans from the text alone, as `db::open` does. Each statement
/// runs three times with new values, in a transaction that is rolled back.
#[test]
fn no_statement_is_compiled_again_when_it_runs_again() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    demo::seed(&mut conn, DEFAULT_USER, &DemoOptions::fixed(200, 3)).unwrap();
    store_vectors(&conn);
    let model = vectors::active_model(&conn, DEFAULT_USER).unwrap().unwrap();
    let tx = conn.transaction().unwrap();
    let mut recompiled = Vec::new();
    for query in queries::CATALOGUE {
        let sql = match query.on_vectors() {
            true => query.on_table(&model.table()),
            false => query.sql.to_owned(),
        };
        let mut stmt = tx.prepare(&sql).unwrap();
        // DEFAULT_USER is 1: the value that made SQLite 3.54 recompile `user_id = ?`.
        for value in [DEFAULT_USER, DEFAULT_USER + 1, DEFAULT_USER] {
            for i in 1..=stmt.parameter_count() {
                stmt.raw_bind_parameter(i, value).unwrap();
            }
            // Constraint errors are fine: the statement was compiled (or not) before them.
            let _ = stmt.raw_query().next();
        }
        let times = stmt.get_status(rusqlite::StatementStatus::RePrepare);
        if times > 0 {
            recompiled.push(format!("{} ({times} times)", query.name));
        }
    }
    assert!(recompiled.is_empty(), "compiled again: {recompiled:?}");
}
