//! `backup FILE` and `restore FILE`: a copy of the journal, and a backup put back in its
//! place with the journal as it was kept beside the backups, asked first on a terminal.

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::Connection;

use mindsage_core::db::cipher;
use mindsage_core::db::{self, StorageOptions};
use mindsage_core::encryption;

use super::encryption::{backups_left_text, converted, unlock};
use super::{Args, print, yes_on_a_terminal};

/// `mindsage backup FILE`.
pub(super) fn backup(args: &Args, conn: &Connection, file: &Path, options: &StorageOptions) -> Result<()> {
    let report = db::backup::backup(conn, file, options.key.as_ref())?;
    let encrypted = options.key.is_some();
    let json = serde_json::json!({
        "path": report.path,
        "entries": report.entries,
        "bytes": report.bytes,
        "encrypted": encrypted,
    });
    print(args, &json, || {
        format!(
            "Backed up {} entries into {} ({} bytes){}",
            report.entries,
            file.display(),
            report.bytes,
            if encrypted {
                ", encrypted: it opens with the journal's passphrase as it is now"
            } else {
                ""
            }
        )
    })
}

/// `mindsage restore FILE`: an encrypted backup opens with the passphrase it was made
/// with (given as for any command); the restored journal is then encrypted as the
/// backup was.
pub(super) fn restore(
    args: &Args,
    path: &Path,
    file: &Path,
    mut options: StorageOptions,
    yes: bool,
) -> Result<()> {
    if cipher::is_encrypted(file) {
        options.key = Some(unlock(args, file, path)?);
    }
    let was_encrypted = cipher::is_encrypted(path);
    // The journal as it was goes with the backups, as the window's Restore keeps it.
    let data_dir = path.parent().unwrap_or(Path::new("."));
    let kept = db::backup::before_restore_path(data_dir, chrono::Utc::now());
    let keep = path.exists().then_some(kept.as_path());
    if keep.is_some() {
        // A file that is no backup is refused before anything is asked.
        let entries = db::backup::check(file, options.key.as_ref())?;
        confirm_restore(path, file, entries, &kept, yes)?;
    }
    // The backups' folder, in a data folder that may be new (a journal restored on
    // another computer).
    let folder = kept.parent().unwrap_or(data_dir);
    mindsage_core::files::create_private_dir(folder)
        .with_context(|| format!("creating {}", folder.display()))?;
    let report = db::backup::restore(path, file, &options, keep)?;
    let encrypted = options.key.is_some();
    // A plain journal an encrypted backup replaced is encrypted now: the backups beside
    // it (the journal as it was among them) and what waits in recordings/ and drafts/
    // are encrypted with it, as `encrypt` converts them, so no plain copy stays beside
    // an encrypted journal.
    let conversion = match (was_encrypted, encrypted) {
        (false, true) => Some(converted(
            path,
            &options,
            encryption::follow(path, None, options.key.as_ref()),
            None,
        )?),
        _ => None,
    };
    let json = serde_json::json!({
        "path": report.path,
        "entries": report.entries,
        "bytes": report.bytes,
        "encrypted": encrypted,
        "kept": keep,
        "backups_left": conversion.as_ref().map(|c| &c.backups_left),
        "spool_left": conversion.as_ref().map(|c| &c.spool_left),
    });
    print(args, &json, || {
        let mut text = format!(
            "Restored {} entries from {} into {}",
            report.entries,
            file.display(),
            report.path.display()
        );
        if let Some(kept) = keep {
            text.push_str(&format!(
                "\nThe journal as it was is kept in {} (`mindsage restore` it to go back).",
                kept.display()
            ));
        }
        match (was_encrypted, encrypted) {
            (true, false) => text.push_str(
                "\nThe backup was not encrypted, so the journal is not any more: `mindsage encrypt` encrypts it again.",
            ),
            (false, true) => text.push_str(
                "\nThe backup was encrypted, so the journal is now: it opens with the backup's passphrase.",
            ),
            _ => {}
        }
        if let Some(conversion) = &conversion {
            backups_left_text(&mut text, conversion);
        }
        text
    })
}

/// `mindsage restore FILE`: replacing the journal is asked on a terminal (the journal as
/// it was is kept in `kept`), and anywhere else `--yes` must say so.
fn confirm_restore(journal: &Path, backup: &Path, entries: u64, kept: &Path, yes: bool) -> Result<()> {
    if yes {
        return Ok(());
    }
    let question = format!(
        "Replace the journal {} with the backup {} ({entries} entries)? The journal as it is now is kept in {}.",
        journal.display(),
        backup.display(),
        kept.display()
    );
    yes_on_a_terminal(
        &question,
        "Restore?",
        "Add --yes to restore without asking; nothing was changed",
        "nothing was restored",
    )
}
