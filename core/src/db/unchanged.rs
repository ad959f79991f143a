//! A value worked out from the journal, kept until the journal changes: `PRAGMA
//! data_version` moves when another connection commits, and `total_changes` when this
//! one does, so any write from anywhere invalidates it, and only a write does. The
//! dashboard's figures and its themes are read this way: shown again with nothing
//! written, they cost two integer reads.

use std::sync::Arc;

use rusqlite::Connection;

use super::Result;

/// The journal as one connection last saw it change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    data_version: i64,
    own_changes: u64,
}

/// The connection's `PRAGMA data_version`: it moves when another connection commits.
pub fn data_version(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("PRAGMA data_version")?
        .query_row([], |row| row.get(0))?)
}

/// One value for one connection, worked out again when the journal or `K` (what it
/// was asked for: the person, today) has changed.
pub struct UntilChanged<K, V> {
    cached: Option<(K, Version, Arc<V>)>,
}

impl<K, V> Default for UntilChanged<K, V> {
    fn default() -> Self {
        UntilChanged { cached: None }
    }
}

impl<K: PartialEq, V> UntilChanged<K, V> {
    /// The value for `key`: the kept one if nothing was written since, or else
    /// `work_out`'s, kept for next time.
    pub fn get(&mut self, conn: &Connection, key: K, work_out: impl FnOnce() -> Result<V>) -> Result<Arc<V>> {
        let version = Version {
            data_version: data_version(conn)?,
            own_changes: conn.total_changes(),
        };
        if let Some((kept_key, kept_version, value)) = &self.cached
            && *kept_key == key
            && *kept_version == version
        {
            return Ok(Arc::clone(value));
        }
        let value = Arc::new(work_out()?);
        self.cached = Some((key, version, Arc::clone(&value)));
        Ok(value)
    }
}
