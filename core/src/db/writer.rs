//! The background writer: one thread, one connection, every change the app makes.
//!
//! Funnelling writes through one thread means they never contend with each other for
//! SQLite's single write lock, and readers (WAL) never wait for them. The writer also
//! owns checkpointing: SQLite's automatic checkpoint runs inside whichever commit crosses
//! the WAL size limit and puts a multi-millisecond spike into that save. We turn it off
//! on this connection and checkpoint when the queue has been idle for a moment instead,
//! or after a long burst so the WAL cannot grow without bound.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::{Checkpoint, DbError, Result, StorageOptions};

/// How long the queue must be empty before the writer checkpoints.
const IDLE_BEFORE_CHECKPOINT: Duration = Duration::from_millis(200);

/// Commits after which the writer checkpoints even if it never goes idle.
const FORCE_CHECKPOINT_AFTER_COMMITS: u32 = 256;

/// A queued piece of work, and whether it may write: a job that only looks at the
/// connection ([`Writer::look`]) leaves nothing to checkpoint.
struct Job {
    work: Box<dyn FnOnce(&mut Connection) + Send>,
    writes: bool,
}

/// Handle to the writer thread. Dropping it finishes the queued jobs, checkpoints and
/// joins the thread.
pub struct Writer {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Opens the writer's own connection (on its thread) and starts it.
    pub fn spawn(path: &Path, options: &StorageOptions) -> Result<Writer> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel();
        let path = path.to_path_buf();
        let options = options.clone();
        let thread = std::thread::Builder::new()
            .name("mindsage-writer".into())
            .spawn(move || {
                // Unmapped, with a small cache: see `StorageOptions::for_background`.
                let conn = super::open(&path, &options.for_background()).and_then(|conn| {
                    conn.execute_batch("PRAGMA wal_autocheckpoint = 0")?;
                    Ok(conn)
                });
                match conn {
                    Ok(conn) => {
                        let _ = ready_tx.send(Ok(()));
                        run(conn, queue, options.busy_timeout);
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                    }
                }
            })
            .expect("spawning a thread");
        ready_rx.recv().map_err(|_| DbError::WriterStopped)??;
        Ok(Writer {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Queues `job`; its result arrives on the returned channel. The UI uses this and
    /// polls the channel, so it never waits.
    pub fn submit<T, F>(&self, job: F) -> mpsc::Receiver<Result<T>>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        self.queue(job, true)
    }

    /// Queues `look`, which reads the writer's own connection and writes nothing: it
    /// runs in turn with the writes but is not counted as a commit, so it brings on no
    /// checkpoint. (A checkpoint that truncates the WAL moves every other connection's
    /// `PRAGMA data_version`; a look that caused one would be seen as a change.)
    pub fn look<T, F>(&self, look: F) -> mpsc::Receiver<Result<T>>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T> + Send + 'static,
    {
        self.queue(move |conn: &mut Connection| look(conn), false)
    }

    fn queue<T, F>(&self, job: F, writes: bool) -> mpsc::Receiver<Result<T>>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let (reply, result) = mpsc::channel();
        let job = Job {
            work: Box::new(move |conn| {
                let _ = reply.send(job(conn));
            }),
            writes,
        };
        if let Some(jobs) = &self.jobs {
            // A closed queue drops the job and its reply sender: the caller sees WriterStopped.
            let _ = jobs.send(job);
        }
        result
    }

    /// Queues `job` and waits for its result. For worker threads and the CLI, never
    /// the UI thread.
    pub fn call<T, F>(&self, job: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        self.submit(job).recv().map_err(|_| DbError::WriterStopped)?
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(mut conn: Connection, queue: mpsc::Receiver<Job>, busy_timeout: Duration) {
    // Checkpoints never wait for readers: if one is busy, a later moment tries again.
    // An error (a full disk, an I/O fault) is logged and tried again the same way: the
    // commits are safe in the WAL meanwhile, but a WAL that never shrinks needs a trace.
    let checkpoint = |conn: &Connection, mode| {
        super::checkpoint(conn, mode, Duration::ZERO, busy_timeout).unwrap_or_else(|error| {
            tracing::warn!(%error, ?mode, "checkpoint failed");
            false
        })
    };
    let mut commits_since_checkpoint = 0u32;
    loop {
        match queue.recv_timeout(IDLE_BEFORE_CHECKPOINT) {
            Ok(Job { work, writes }) => {
                work(&mut conn);
                if !writes {
                    continue;
                }
                commits_since_checkpoint += 1;
                if commits_since_checkpoint >= FORCE_CHECKPOINT_AFTER_COMMITS {
                    checkpoint(&conn, Checkpoint::Passive);
                    commits_since_checkpoint = 0;
                }
            }
            // TRUNCATE also empties the -wal file, so text a purge removed leaves it even
            // when a reader held the purge's own checkpoint back.
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if commits_since_checkpoint > 0 && checkpoint(&conn, Checkpoint::Truncate) {
                    commits_since_checkpoint = 0;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                checkpoint(&conn, Checkpoint::Truncate);
                return;
            }
        }
    }
}
