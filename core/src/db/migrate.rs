//! Schema migrations: the numbered files in `migrations/`, compiled into the binary.
//!
//! `PRAGMA user_version` holds the number of the last applied file. Each file runs in
//! its own transaction together with the version bump, so a crash or a failing
//! migration leaves the journal at the previous version, never in between.

use std::path::Path;

use rusqlite::functions::FunctionFlags;
use rusqlite::{Connection, TransactionBehavior};

use super::{APPLICATION_ID, DbError, Result};
use crate::clock;

/// One numbered migration file.
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, in order. A new file is added here with the next number.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "0001_initial",
        sql: include_str!("../../../migrations/0001_initial.sql"),
    },
    Migration {
        version: 2,
        name: "0002_fulltext",
        sql: include_str!("../../../migrations/0002_fulltext.sql"),
    },
    Migration {
        version: 3,
        name: "0003_search",
        sql: include_str!("../../../migrations/0003_search.sql"),
    },
    Migration {
        version: 4,
        name: "0004_index_in_code",
        sql: include_str!("../../../migrations/0004_index_in_code.sql"),
    },
    Migration {
        version: 5,
        name: "0005_tag_text_inline",
        sql: include_str!("../../../migrations/0005_tag_text_inline.sql"),
    },
    Migration {
        version: 6,
        name: "0006_list_rows_from_one_index",
        sql: include_str!("../../../migrations/0006_list_rows_from_one_index.sql"),
    },
    Migration {
        version: 7,
        name: "0007_model_work_queue",
        sql: include_str!("../../../migrations/0007_model_work_queue.sql"),
    },
    Migration {
        version: 8,
        name: "0008_backfill_reads_small_indexes",
        sql: include_str!("../../../migrations/0008_backfill_reads_small_indexes.sql"),
    },
    Migration {
        version: 9,
        name: "0009_voice_segments",
        sql: include_str!("../../../migrations/0009_voice_segments.sql"),
    },
    Migration {
        version: 10,
        name: "0010_imported_entries",
        sql: include_str!("../../../migrations/0010_imported_entries.sql"),
    },
    Migration {
        version: 11,
        name: "0011_entry_history",
        sql: include_str!("../../../migrations/0011_entry_history.sql"),
    },
    Migration {
        version: 12,
        name: "0012_history_setting",
        sql: include_str!("../../../migrations/0012_history_setting.sql"),
    },
    Migration {
        version: 13,
        name: "0013_import_keys_in_memory",
        sql: include_str!("../../../migrations/0013_import_keys_in_memory.sql"),
    },
    Migration {
        version: 14,
        name: "0014_daily_stats_without_upsert",
        sql: include_str!("../../../migrations/0014_daily_stats_without_upsert.sql"),
    },
    Migration {
        version: 15,
        name: "0015_model_suggestions",
        sql: include_str!("../../../migrations/0015_model_suggestions.sql"),
    },
    Migration {
        version: 16,
        name: "0016_lived_offset",
        sql: include_str!("../../../migrations/0016_lived_offset.sql"),
    },
    Migration {
        version: 17,
        name: "0017_unspaced_scripts",
        sql: include_str!("../../../migrations/0017_unspaced_scripts.sql"),
    },
    Migration {
        version: 18,
        name: "0018_templates",
        sql: include_str!("../../../migrations/0018_templates.sql"),
    },
    Migration {
        version: 19,
        name: "0019_photo_names",
        sql: include_str!("../../../migrations/0019_photo_names.sql"),
    },
    Migration {
        version: 20,
        name: "0020_memory",
        sql: include_str!("../../../migrations/0020_memory.sql"),
    },
    Migration {
        version: 21,
        name: "0021_reflections",
        sql: include_str!("../../../migrations/0021_reflections.sql"),
    },
    Migration {
        version: 22,
        name: "0022_reflections_marked_by_writers",
        sql: include_str!("../../../migrations/0022_reflections_marked_by_writers.sql"),
    },
];

/// The schema version this build writes.
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// Applies every migration newer than the file's version.
pub fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    migrate_to(conn, path, latest_version())
}

/// Applies migrations up to and including `target`. Tests use it to build journals of
/// every earlier version and upgrade them.
pub fn migrate_to(conn: &Connection, path: &Path, target: i64) -> Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if current >= target {
        return Ok(());
    }
    register_functions(conn)?;
    for migration in MIGRATIONS.iter().filter(|m| m.version <= target) {
        apply_if_needed(conn, path, migration)?;
    }
    Ok(())
}

/// The app's own rules a migration's SQL calls, so a backfill follows the same rule as
/// the code that writes new rows: `lived_offset(created_at, local_date)`, the UTC
/// offset an entry stored before version 16 was most likely written at
/// ([`clock::lived_on`]); `search_text(text)`, text as the full-text index takes it
/// ([`crate::scripts::for_index`]); `preview_of(body)`, a list row's preview
/// ([`crate::db::entries::preview_of`]).
fn register_functions(conn: &Connection) -> Result<()> {
    conn.create_scalar_function(
        "search_text",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let text: String = ctx.get(0)?;
            Ok(crate::scripts::for_index(&text).into_owned())
        },
    )?;
    conn.create_scalar_function(
        "preview_of",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let body: String = ctx.get(0)?;
            Ok(crate::db::entries::preview_of(&body))
        },
    )?;
    conn.create_scalar_function("lived_offset", 2, FunctionFlags::SQLITE_UTF8, |ctx| {
        let created_at: String = ctx.get(0)?;
        let day: String = ctx.get(1)?;
        let offset = match (clock::parse_utc(&created_at), clock::parse_date(&day)) {
            (Some(t), Some(day)) => clock::utc_offset_of(&clock::lived_on(t, day)),
            // A row no date can be read from keeps the offset of UTC, as it showed.
            _ => 0,
        };
        Ok(offset)
    })?;
    Ok(())
}

fn apply_if_needed(conn: &Connection, path: &Path, migration: &Migration) -> Result<()> {
    let failed = |source| DbError::Migration {
        version: migration.version,
        name: migration.name,
        source,
    };
    // IMMEDIATE takes the write lock before reading the version, so two processes
    // opening a new journal at once cannot both apply the same file.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate).map_err(failed)?;
    let current: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(failed)?;
    if current > latest_version() {
        return Err(DbError::TooNew {
            path: path.to_path_buf(),
            found: current,
            supported: latest_version(),
        });
    }
    if current >= migration.version {
        return Ok(());
    }
    tx.execute_batch(migration.sql).map_err(failed)?;
    tx.execute_batch(&format!(
        "PRAGMA user_version = {}; PRAGMA application_id = {APPLICATION_ID};",
        migration.version
    ))
    .map_err(failed)?;
    tx.commit().map_err(failed)?;
    tracing::info!(
        version = migration.version,
        name = migration.name,
        "applied migration"
    );
    Ok(())
}
