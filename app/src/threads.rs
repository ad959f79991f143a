//! The threads the window starts that use the journal, and the end of them all.
//!
//! SQLite and SQLCipher must not be in use while the process ends: a backup thread still
//! copying an encrypted journal when the window's `main` returned crashed the exit inside
//! SQLCipher (issue #30, finding 2) as the process tore down beneath it. So every thread
//! that opens the journal, or waits on one that does, starts with [`spawn`], and
//! [`finish`], the last thing the window does, tells the long copies to stop
//! ([`mindsage_core::db::close_down`]) and joins them.

use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The threads [`spawn`] started that may still run.
static RUNNING: Mutex<Vec<JoinHandle<()>>> = Mutex::new(Vec::new());

fn running() -> MutexGuard<'static, Vec<JoinHandle<()>>> {
    RUNNING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts `work` on a thread named `mindsage-<what>` (spaces as hyphens:
/// `mindsage-photo-import`) that [`finish`] waits for.
pub(crate) fn spawn(what: &str, work: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let handle = std::thread::Builder::new()
        .name(format!("mindsage-{}", what.replace(' ', "-")))
        .spawn(work)?;
    let mut running = running();
    running.retain(|thread| !thread.is_finished());
    running.push(handle);
    Ok(())
}

/// The names of the threads [`spawn`] started that still run, the calling one aside:
/// what still has the journal open when a change of encryption cannot take it whole.
pub(crate) fn others_running() -> Vec<String> {
    let me = std::thread::current().id();
    running()
        .iter()
        .filter(|thread| !thread.is_finished() && thread.thread().id() != me)
        .map(|thread| thread.thread().name().unwrap_or("unnamed").to_owned())
        .collect()
}

/// Ends the window's threads before the process ends: the long copies stop between
/// steps, and each thread is joined, those started meanwhile too. The window calls it
/// when it closes; a test whose process ends with the window's end calls it likewise.
/// After `patience` the ones left are named in the log and the process goes on ending:
/// a thread still in a model call by then holds no open statement, and a stuck disk
/// must not keep a closed window's process alive for ever.
pub fn finish(patience: Duration) {
    mindsage_core::db::close_down();
    let deadline = Instant::now() + patience;
    loop {
        let threads = std::mem::take(&mut *running());
        if threads.is_empty() {
            return;
        }
        for thread in threads {
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if thread.is_finished() {
                tracing::debug!(thread = thread.thread().name(), "ended");
                let _ = thread.join();
            } else {
                tracing::warn!(thread = thread.thread().name(), "still running as the app ends");
            }
        }
        if Instant::now() >= deadline {
            return;
        }
    }
}
