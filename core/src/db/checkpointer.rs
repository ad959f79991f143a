//! A thread that copies a busy writer's committed pages into the journal while the
//! writer goes on writing.
//!
//! In WAL mode every page is written twice: into the -wal by the commit, then into the
//! journal by a checkpoint. SQLite's automatic checkpoint runs inside the commit that
//! crosses its limit, on the writer's thread, so a bulk write (an import) stops while
//! the pages are copied. A checkpoint on another connection runs beside the writer
//! instead (a PASSIVE one takes no lock a writer needs), on the second core, and keeps
//! the -wal short: once everything in it is copied, the next transaction starts it
//! again from the beginning.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::OpenFlags;

use super::{Checkpoint, Result};

/// Handle to the checkpointing thread; dropping it stops the thread (after the
/// checkpoint under way, if any).
pub struct Checkpointer {
    nudges: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Opens a connection of its own to the journal at `path` (already open elsewhere,
    /// so no settings or migrations are applied; with `key` if it is encrypted) and
    /// starts the thread. `wait`: how long
    /// a checkpoint waits for a lock (the journal's busy timeout).
    pub fn spawn(
        path: &Path,
        wait: Duration,
        key: Option<&super::cipher::JournalKey>,
    ) -> Result<Checkpointer> {
        // An encrypted journal's pages are read and written with its key.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = super::cipher::connect(path, flags, key)?;
        let (nudges, commits) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mindsage-checkpointer".into())
            .spawn(move || {
                while commits.recv().is_ok() {
                    // Commits that came in while copying are covered by this one.
                    while commits.try_recv().is_ok() {}
                    // A checkpoint that cannot finish now (a reader holds frames) is
                    // taken up by the next, and the writer's own closing checkpoint.
                    if let Err(e) = super::checkpoint(&conn, Checkpoint::Passive, wait, wait) {
                        tracing::debug!(error = %e, "a background checkpoint failed");
                    }
                }
            })
            .expect("spawning a thread");
        Ok(Checkpointer {
            nudges: Some(nudges),
            thread: Some(thread),
        })
    }

    /// Says a transaction was committed: the thread copies what is in the -wal.
    pub fn committed(&self) {
        if let Some(nudges) = &self.nudges {
            let _ = nudges.send(());
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.nudges.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
