//! A power cut at the moment of a kill, approximated on a copy of the journal.
//!
//! The rule the copy follows is what SQLite promises in WAL mode with
//! `synchronous = NORMAL` (the journal's setting): a commit appends its pages to the
//! -wal file without waiting for the disk; the -wal is synced before each checkpoint
//! starts copying pages back, and the journal file after each checkpoint completes.
//! So a power cut may lose the transactions committed since the last checkpoint, and
//! nothing else: what a completed checkpoint copied is in the journal file, and what an
//! interrupted one was copying is in the synced start of the -wal, which recovery
//! replays.
//!
//! A kill leaves every write in the operating system's cache, so the copy is built as
//! the worst case of that rule: the journal file; then, only when a checkpoint was
//! interrupted, the -wal frames it had synced (`nBackfillAttempted` in the -shm); the
//! rest of the -wal and the -shm are dropped. The copy must open, pass every check,
//! and hold a state the journal passed through no earlier than the last checkpoint the
//! process acknowledged ([`super::model::History::after_last_barrier`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::Summary;
use mindsage_core::db::StorageOptions;

use super::inspect::{Journal, inspect_with};
use super::model::{History, find_state};

/// The copy of a journal after a simulated power cut.
#[derive(Debug)]
pub struct PowerCut {
    pub path: PathBuf,
    /// Frames of the -wal kept (non-zero only when a checkpoint was interrupted).
    pub wal_frames_kept: u64,
}

impl PowerCut {
    /// Checks the copy against the rule above, counting it in `summary`: it opens and
    /// passes every check, and holds a state the journal (at `start` before the
    /// process's operations in `history`) passed through no earlier than the last
    /// acknowledged checkpoint.
    pub fn check(&self, start: &Journal, history: &History, summary: &mut Summary) -> Result<(), String> {
        self.check_with(start, history, summary, &StorageOptions::default())
    }

    /// [`PowerCut::check`] with the copy opened with `options` (an encrypted journal's
    /// copy opens with its key).
    pub fn check_with(
        &self,
        start: &Journal,
        history: &History,
        summary: &mut Summary,
        options: &StorageOptions,
    ) -> Result<(), String> {
        summary.power_cuts += 1;
        summary.power_cuts_mid_checkpoint += usize::from(self.wal_frames_kept > 0);
        let context = |e: String| {
            format!(
                "the power-cut copy ({} -wal frames kept): {e}",
                self.wal_frames_kept
            )
        };
        let found = inspect_with(&self.path, options).map_err(context)?;
        find_state(
            &found.entries,
            &start.entries,
            history,
            history.after_last_barrier(),
        )
        .map_err(context)?;
        Ok(())
    }
}

/// Writes the copy of the journal at `journal` into the folder `into`, before anything
/// opens the journal (opening would recover and checkpoint it). `None` when there is no
/// journal file yet.
pub fn copy(journal: &Path, into: &Path) -> std::io::Result<Option<PowerCut>> {
    if !journal.exists() {
        return Ok(None);
    }
    std::fs::create_dir_all(into)?;
    let path = into.join(journal.file_name().expect("a file name"));
    for stale in [with_suffix(&path, "-wal"), with_suffix(&path, "-shm")] {
        let _ = std::fs::remove_file(stale);
    }
    std::fs::copy(journal, &path)?;
    let synced = synced_wal_frames(journal)?;
    if synced > 0 {
        let frame = 24 + page_size(&with_suffix(journal, "-wal"))?;
        let wal = std::fs::read(with_suffix(journal, "-wal"))?;
        let keep = (WAL_HEADER + synced * frame).min(wal.len() as u64) as usize;
        std::fs::write(with_suffix(&path, "-wal"), &wal[..keep])?;
    }
    Ok(Some(PowerCut {
        path,
        wal_frames_kept: synced,
    }))
}

const WAL_HEADER: u64 = 32;

/// Where the -shm keeps the checkpoint's progress (`WalCkptInfo` after the two copies of
/// the 48-byte `WalIndexHdr`): frames copied back, and frames a checkpoint began to copy
/// after syncing them. Native byte order.
const N_BACKFILL: usize = 96;
const N_BACKFILL_ATTEMPTED: usize = 128;

/// The frames an interrupted checkpoint synced; 0 when none was interrupted.
fn synced_wal_frames(journal: &Path) -> std::io::Result<u64> {
    let shm = match std::fs::read(with_suffix(journal, "-shm")) {
        Ok(shm) if shm.len() >= N_BACKFILL_ATTEMPTED + 4 => shm,
        _ => return Ok(0),
    };
    let word = |at: usize| u32::from_ne_bytes(shm[at..at + 4].try_into().expect("four bytes"));
    let (done, attempted) = (word(N_BACKFILL), word(N_BACKFILL_ATTEMPTED));
    Ok(if attempted > done { u64::from(attempted) } else { 0 })
}

/// The page size of a -wal's frames, from its header (offset 8, big-endian): the
/// journal's own header says it too, but an encrypted journal's is encrypted.
fn page_size(wal: &Path) -> std::io::Result<u64> {
    let mut header = [0u8; 12];
    std::fs::File::open(wal)?.read_exact(&mut header)?;
    Ok(u64::from(u32::from_be_bytes([
        header[8], header[9], header[10], header[11],
    ])))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}
