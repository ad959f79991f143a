//! Changing a journal's encryption (turning it on or off, or a new passphrase) carried
//! to everything kept beside the journal.
//!
//! [`db::cipher`](crate::db::cipher) converts one SQLite file, but a person's journal is
//! more than that file: its backups, the recordings and drafts waiting to be saved into
//! it, and the passphrase this computer may remember. [`change`] does all of it in one
//! order for the window and the command line alike, so both leave the same files.

use std::path::{Path, PathBuf};

use crate::db::cipher::{self, JournalKey, Passphrase};
use crate::db::{DbError, Result, StorageOptions, backup};
use crate::drafts;
use crate::keystore::{self, KeystoreError};
use crate::voice::recordings;

/// What the person asked for.
#[derive(Debug)]
pub enum Change {
    /// Encrypt the plain journal with a new passphrase.
    Encrypt {
        passphrase: Passphrase,
        remember: Remember,
    },
    /// Change the passphrase of the encrypted journal.
    Rekey {
        passphrase: Passphrase,
        remember: Remember,
    },
    /// Store the journal unencrypted again (a passphrase remembered for it is forgotten).
    Decrypt,
}

/// What becomes of the passphrase this computer's credential store remembers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Remember {
    /// Remember the new passphrase (the window's "Remember on this computer" ticked).
    Yes,
    /// Remember none (the box left clear).
    No,
    /// Remember the new one only if one was remembered before: the command line, which
    /// has `remember` and `forget` of its own.
    AsItWas,
}

/// What the change did to the remembered passphrase.
#[derive(Debug)]
pub enum Remembered {
    /// Nothing was remembered, and nothing was asked.
    Untouched,
    /// The new passphrase is remembered.
    Updated,
    /// No passphrase is remembered now.
    Forgotten,
    /// The new passphrase could not be remembered: the store holds what it held.
    NotRemembered(KeystoreError),
    /// The remembered passphrase could not be forgotten: the store still holds it.
    NotForgotten(KeystoreError),
}

/// What a change left: the key the journal opens with now (`None`: plain), what could
/// not follow it, and the remembered passphrase.
pub struct Changed {
    pub key: Option<JournalKey>,
    pub followed: Followed,
    pub remembered: Remembered,
}

/// What followed a journal's change of key ([`follow`]).
#[derive(Debug, Default)]
pub struct Followed {
    /// Files in `backups/` when the change began.
    pub backups: usize,
    /// Backups that could not follow (each with why); the others were converted with it.
    pub backups_left: Vec<String>,
    /// Recordings and drafts waiting beside it that could not follow (each with why).
    pub spool_left: Vec<String>,
}

/// Carries out `change` on the journal at `journal`, opened with `options` (which carry
/// its key when it is encrypted). The journal is converted and checked first; only then
/// do its backups, the files waiting beside it and the remembered passphrase follow.
/// Encrypting refuses, changing nothing, while a plain copy of the journal lies in its
/// folder under another name ([`readable_copies`]); a journal another process has open
/// is [`DbError::InUse`], nothing changed.
pub fn change(journal: &Path, options: &StorageOptions, change: &Change) -> Result<Changed> {
    let key = match change {
        Change::Encrypt { passphrase, .. } => {
            refuse_readable_copies(journal)?;
            Some(cipher::encrypt(journal, options, passphrase)?)
        }
        Change::Rekey { passphrase, .. } => Some(cipher::rekey(journal, options, passphrase)?),
        Change::Decrypt => cipher::decrypt(journal, options).map(|()| None)?,
    };
    let followed = follow(journal, options.key.as_ref(), key.as_ref());
    let remembered = match change {
        Change::Encrypt { passphrase, remember } | Change::Rekey { passphrase, remember } => {
            remember_new(journal, passphrase, *remember)
        }
        Change::Decrypt if is_remembered(journal) => forget(journal),
        Change::Decrypt => Remembered::Untouched,
    };
    Ok(Changed {
        key,
        followed,
        remembered,
    })
}

/// Brings what is kept beside the journal at `journal` (its backups, the recordings and
/// drafts waiting in its folder) in line with a change of its key: `from` was its key,
/// `to` is its key now (`None`: plain). [`change`] calls it after converting the
/// journal; restoring an encrypted backup over a plain journal changes its key too.
pub fn follow(journal: &Path, from: Option<&JournalKey>, to: Option<&JournalKey>) -> Followed {
    let data_dir = journal.parent().unwrap_or(Path::new("."));
    Followed {
        backups: backup::every_file(data_dir).len(),
        backups_left: backup::follow(data_dir, from, to),
        spool_left: follow_in_spool(data_dir, from, to),
    }
}

/// Whether this computer remembers a passphrase for `journal` (quietly no when it has
/// no credential store).
pub fn is_remembered(journal: &Path) -> bool {
    matches!(keystore::remembered(journal), Ok(Some(_)))
}

/// The credential store after a new passphrase, as `remember` asks.
fn remember_new(journal: &Path, passphrase: &Passphrase, remember: Remember) -> Remembered {
    match remember {
        Remember::Yes => match keystore::remember(journal, passphrase) {
            Ok(()) => Remembered::Updated,
            Err(error) => Remembered::NotRemembered(error),
        },
        Remember::AsItWas if is_remembered(journal) => remember_new(journal, passphrase, Remember::Yes),
        Remember::AsItWas => Remembered::Untouched,
        Remember::No => forget(journal),
    }
}

/// Forgets the passphrase remembered for `journal`.
fn forget(journal: &Path) -> Remembered {
    match keystore::forget(journal) {
        Ok(()) => Remembered::Forgotten,
        Err(error) => Remembered::NotForgotten(error),
    }
}

/// Refuses to encrypt while [`readable_copies`] finds a plain copy of the journal.
fn refuse_readable_copies(journal: &Path) -> Result<()> {
    let readable = readable_copies(journal);
    if readable.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = readable.iter().map(|p| p.display().to_string()).collect();
    Err(DbError::Invalid(format!(
        "{} would stay readable beside the encrypted journal: move it out of the folder \
         (a copy of the journal may go into backups/, encrypted with it), then encrypt again",
        names.join(", ")
    )))
}

/// Copies of the journal's text in its folder (subfolders too) that encrypting would
/// leave readable: a plain SQLite file, whatever its name (`mindsage backup manual.db`),
/// and a MindSage JSON export. Not counted: the journal and SQLite's files beside it, the
/// folders whose files follow the journal's key (`backups/`, `recordings/`, `drafts/`),
/// and `models/` (Whisper's weights, no entry text). After `encrypt` said everything was
/// converted, a backup under another name still held every entry in plain text (#30).
fn readable_copies(journal: &Path) -> Vec<PathBuf> {
    let folder = journal.parent().unwrap_or(Path::new("."));
    let journal_name = journal
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let followed = [
        backup::BACKUPS_FOLDER,
        recordings::FOLDER,
        recordings::MODELS_FOLDER,
        drafts::FOLDER,
    ];
    let mut found = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(dir) = folders.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let (path, name) = (entry.path(), entry.file_name().to_string_lossy().into_owned());
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if !(dir == folder && followed.contains(&name.as_str())) {
                    folders.push(path);
                }
            } else if kind.is_file()
                && !(dir == folder && name.starts_with(&journal_name))
                && holds_plain_journal(&path)
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Whether the file at `path` begins as a plain SQLite file or a MindSage JSON export.
fn holds_plain_journal(path: &Path) -> bool {
    let mut head = [0_u8; 64];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head));
    let head = &head[..read.unwrap_or(0)];
    let export = String::from_utf8_lossy(head)
        .split_whitespace()
        .collect::<String>()
        .starts_with(r#"{"format":"mindsage-journal""#);
    head.starts_with(cipher::SQLITE_HEADER) || export
}

/// Brings the files waiting beside the journal in `data_dir` (recordings in
/// `recordings/`, drafts in `drafts/`) in line with a change of the journal's key, as
/// [`backup::follow`] brings the backups: `from` was its key, `to` is its key
/// now (`None`: plain). Turning encryption on seals the plain ones and erases them
/// (sealed drafts are saved into the journal when it is next opened), turning it off
/// writes the sealed ones back as WAV and text files, a new passphrase rekeys them.
/// Returns a line per file that could not follow (sealed under an earlier passphrase).
pub fn follow_in_spool(data_dir: &Path, from: Option<&JournalKey>, to: Option<&JournalKey>) -> Vec<String> {
    let mut left = recordings::follow(data_dir, from, to);
    left.extend(drafts::follow(data_dir, from, to));
    left
}
