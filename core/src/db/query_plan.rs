//! Reading `EXPLAIN QUERY PLAN`: which tables a statement walks in full.
//!
//! A full scan of a journal table is the one thing that makes a screen slow in
//! proportion to the journal's size, so the query-plan test and the bench count them.
//! `SCAN … USING INDEX` and `USING COVERING INDEX` walk an index in order (that is how
//! a page stops early) and are not table scans. FTS5 and vec0 virtual tables always
//! print SCAN; the bench judges those by time instead.

use rusqlite::Connection;

use super::Result;
use super::queries::NamedQuery;
use super::vectors::VectorModel;

/// The detail lines of a statement's query plan, in order.
pub fn explain(conn: &Connection, sql: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
    // Parameters stay unbound (NULL): plans do not depend on their values here, and
    // raw_query does not insist on a value for each.
    let mut rows = stmt.raw_query();
    let mut lines = Vec::new();
    while let Some(row) = rows.next()? {
        lines.push(row.get::<_, String>(3)?);
    }
    Ok(lines)
}

/// Whether a plan line is a full scan of a real table (a `VALUES` list is not one).
pub fn is_table_scan(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("SCAN ")
        && !line.contains(" USING INDEX ")
        && !line.contains(" USING COVERING INDEX ")
        && !line.contains("VIRTUAL TABLE")
        && !line.starts_with("SCAN CONSTANT ROW")
        && !line.ends_with("-ROW VALUES CLAUSE")
}

/// The table (or alias) a SCAN line names.
fn scanned_name(line: &str) -> &str {
    line.trim()
        .trim_start_matches("SCAN ")
        .split_whitespace()
        .next()
        .unwrap_or("")
}

/// The plan of a catalogue statement as it runs on this journal: one over a model's
/// vector table is explained on `vectors`' table, and has no plan (`None`) without one.
pub fn explain_query(
    conn: &Connection,
    query: &NamedQuery,
    vectors: Option<&VectorModel>,
) -> Result<Option<Vec<String>>> {
    match (query.on_vectors(), vectors) {
        (false, _) => explain(conn, query.sql).map(Some),
        (true, Some(model)) => explain(conn, &query.on_table(&model.table())).map(Some),
        (true, None) => Ok(None),
    }
}

/// Full scans in a named query's plan lines that its allow-list does not accept.
pub fn unexpected_scans(query: &NamedQuery, plan: &[String]) -> Vec<String> {
    plan.iter()
        .filter(|line| is_table_scan(line))
        .filter(|line| {
            let name = scanned_name(line);
            !query.allowed_scans.iter().any(|allowed| allowed.table == name)
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_walks_are_not_table_scans() {
        assert!(is_table_scan("SCAN journal_entries"));
        assert!(is_table_scan("SCAN e"));
        assert!(!is_table_scan("SCAN e USING INDEX idx_entries_list"));
        assert!(!is_table_scan(
            "SCAN t USING COVERING INDEX sqlite_autoindex_tags_1"
        ));
        assert!(!is_table_scan("SCAN entries_fts VIRTUAL TABLE INDEX 0:M1"));
        assert!(!is_table_scan("SCAN 2-ROW VALUES CLAUSE"));
        assert!(!is_table_scan(
            "SEARCH e USING INDEX idx_entries_list (user_id=?)"
        ));
        assert_eq!(scanned_name("SCAN media AS m"), "media");
    }
}
