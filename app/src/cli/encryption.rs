//! `encrypt`, `decrypt`, `rekey`, `remember`, `forget`, and where a passphrase comes
//! from (a file, the credential store, the terminal). A passphrase is never printed or
//! logged: it lives in core's `Passphrase`, which hides itself from `Debug` and is wiped
//! when dropped. The conversions are core's `encryption::change`, as the window's.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::db::{self, DEFAULT_USER, DbError, StorageOptions, entries};
use mindsage_core::encryption::{self, Change, Followed, Remember};
use mindsage_core::keystore;

use super::{Args, PASSPHRASE_FILE_ENV, print};

/// How often a terminal may type a wrong passphrase before the command gives up.
const PROMPT_TRIES: u32 = 3;

/// The key of the encrypted `file` (the journal, or a backup of the journal `journal`):
/// its passphrase from `--passphrase-file` (or `MINDSAGE_PASSPHRASE_FILE`), else the one
/// remembered on this computer for `journal`, else typed on a terminal. Without a
/// terminal, an error that says how to give it.
pub(super) fn unlock(args: &Args, file: &Path, journal: &Path) -> Result<JournalKey> {
    if args.passphrase_file.is_none() {
        match keystore::remembered(journal) {
            Ok(Some(passphrase)) => match cipher::unlock(file, &passphrase) {
                Ok(key) => return Ok(key),
                Err(DbError::WrongPassphrase { .. }) => eprintln!(
                    "The passphrase remembered on this computer does not open {}.",
                    file.display()
                ),
                Err(e) => return Err(e.into()),
            },
            Ok(None) => {}
            // No credential store here (no Secret Service on a server, say): not an
            // error for a command, which asks for the passphrase instead.
            Err(error) => tracing::debug!(%error, "no remembered passphrase"),
        }
    }
    Ok(given_passphrase(args, file)?.1)
}

/// The passphrase of the encrypted `file` as the person gives it, from
/// `--passphrase-file` (or `MINDSAGE_PASSPHRASE_FILE`), else typed on a terminal, with
/// the key it opens `file` with. Without a terminal, an error that says how to give it.
fn given_passphrase(args: &Args, file: &Path) -> Result<(Passphrase, JournalKey)> {
    if let Some(from) = &args.passphrase_file {
        let passphrase = Passphrase::from_file(from)?;
        let key = cipher::unlock(file, &passphrase)?;
        return Ok((passphrase, key));
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "{} is encrypted: give its passphrase with --passphrase-file FILE (or the {PASSPHRASE_FILE_ENV} environment variable), or run the command in a terminal to type it",
            file.display()
        );
    }
    let mut tries = 0;
    loop {
        tries += 1;
        let passphrase = typed(&format!("Passphrase for {}: ", file.display()))?;
        match cipher::unlock(file, &passphrase) {
            Err(DbError::WrongPassphrase { .. }) if tries < PROMPT_TRIES => {
                eprintln!("That passphrase does not open it; try again.");
            }
            unlocked => return Ok((passphrase, unlocked?)),
        }
    }
}

/// A passphrase typed on the terminal, not echoed; nothing typed is an error.
fn typed(prompt: &str) -> Result<Passphrase> {
    let text = rpassword::prompt_password(prompt).context("reading the passphrase from the terminal")?;
    if text.is_empty() {
        bail!("no passphrase was typed; nothing was changed");
    }
    Ok(Passphrase::new(text)?)
}

/// A new passphrase for `journal`: the first line of `file`, else typed twice on a
/// terminal (the two must agree). `option` names the flag that gives the file.
fn new_passphrase(file: Option<&Path>, journal: &Path, option: &str) -> Result<Passphrase> {
    if let Some(file) = file {
        return Ok(Passphrase::from_file(file)?);
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "give the new passphrase for {} with {option}, or run the command in a terminal to type it; nothing was changed",
            journal.display()
        );
    }
    eprintln!(
        "Choose a passphrase for {}. Keep it safe: without it the journal cannot be read, by anyone.",
        journal.display()
    );
    let first = typed("New passphrase: ")?;
    let second = typed("The same passphrase again: ")?;
    if first.as_str() != second.as_str() {
        bail!("the two passphrases differ; nothing was changed");
    }
    Ok(first)
}

/// What a conversion leaves: the journal, whether it is encrypted now, and its entries
/// (counted on a connection opened the way every command opens it, so the count also
/// says the journal opens).
#[derive(Serialize)]
pub(super) struct Converted {
    pub(super) path: PathBuf,
    pub(super) encrypted: bool,
    pub(super) entries: u64,
    /// Backups in the data folder's `backups/` when the change began.
    pub(super) backups: usize,
    /// Those that could not follow the change (each with why); the others were
    /// converted with the journal.
    pub(super) backups_left: Vec<String>,
    /// Recordings in `recordings/` and drafts in `drafts/` waiting beside the journal
    /// that could not follow the change (each with why); the others were sealed,
    /// unsealed or rekeyed with the journal.
    pub(super) spool_left: Vec<String>,
    /// Whether the passphrase remembered on this computer changed with it (`rekey`
    /// updates it, `decrypt` forgets it).
    pub(super) remembered_passphrase: Option<&'static str>,
}

/// What `change` left, as the command reports it: `options` are the journal's before
/// the change (with its key, if it had one).
fn change(path: &Path, mut options: StorageOptions, change: &Change) -> Result<Converted> {
    let changed = encryption::change(path, &options, change)?;
    options.key = changed.key;
    let remembered_passphrase = match changed.remembered {
        encryption::Remembered::Untouched => None,
        encryption::Remembered::Updated => Some("updated"),
        encryption::Remembered::Forgotten => Some("forgotten"),
        encryption::Remembered::NotRemembered(error) => {
            eprintln!("warning: {error}");
            Some("stale")
        }
        encryption::Remembered::NotForgotten(error) => {
            eprintln!("warning: {error}");
            Some("kept")
        }
    };
    converted(path, &options, changed.followed, remembered_passphrase)
}

/// What a conversion left, once what is beside the journal `followed` it.
pub(super) fn converted(
    path: &Path,
    options: &StorageOptions,
    followed: Followed,
    remembered_passphrase: Option<&'static str>,
) -> Result<Converted> {
    let conn = db::open(path, options)?;
    let entries = entries::count(&conn, DEFAULT_USER)?;
    Ok(Converted {
        path: path.to_owned(),
        encrypted: options.key.is_some(),
        entries,
        backups: followed.backups,
        backups_left: followed.backups_left,
        spool_left: followed.spool_left,
        remembered_passphrase,
    })
}

/// `mindsage encrypt`.
pub(super) fn encrypt(args: &Args, path: &Path, options: StorageOptions) -> Result<()> {
    if cipher::is_encrypted(path) {
        bail!(
            "{} is already encrypted; `mindsage rekey` changes its passphrase",
            path.display()
        );
    }
    let passphrase = new_passphrase(
        args.passphrase_file.as_deref(),
        path,
        &format!("--passphrase-file FILE (or the {PASSPHRASE_FILE_ENV} environment variable)"),
    )?;
    let report = change(
        path,
        options,
        &Change::Encrypt {
            passphrase,
            remember: Remember::AsItWas,
        },
    )?;
    print(args, &report, || {
        let mut text = format!(
            "Encrypted {} ({} entries): it opens only with its passphrase now.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        text
    })
}

/// `mindsage decrypt`.
pub(super) fn decrypt(args: &Args, path: &Path, mut options: StorageOptions) -> Result<()> {
    refuse_unless_encrypted(path)?;
    options.key = Some(unlock(args, path, path)?);
    let report = change(path, options, &Change::Decrypt)?;
    print(args, &report, || {
        let mut text = format!(
            "Decrypted {} ({} entries): it opens without a passphrase now, and anyone with the file can read it.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        if report.remembered_passphrase == Some("forgotten") {
            text.push_str("\nThe passphrase remembered on this computer was forgotten.");
        }
        text
    })
}

/// `mindsage rekey`.
pub(super) fn rekey(
    args: &Args,
    path: &Path,
    mut options: StorageOptions,
    new_file: Option<&Path>,
) -> Result<()> {
    refuse_unless_encrypted(path)?;
    options.key = Some(unlock(args, path, path)?);
    let passphrase = new_passphrase(new_file, path, "--new-passphrase-file FILE")?;
    let report = change(
        path,
        options,
        &Change::Rekey {
            passphrase,
            remember: Remember::AsItWas,
        },
    )?;
    print(args, &report, || {
        let mut text = format!(
            "Changed the passphrase of {} ({} entries): it opens only with the new one now.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        match report.remembered_passphrase {
            Some("updated") => text.push_str("\nThe passphrase remembered on this computer is the new one."),
            Some(_) => text.push_str("\nThe passphrase remembered on this computer is still the old one."),
            None => {}
        }
        text
    })
}

/// The backups that could not follow a conversion, as a line each.
pub(super) fn backups_left_text(text: &mut String, report: &Converted) {
    if !report.backups_left.is_empty() {
        text.push_str("\nThese backups were left as they were:");
        for left in &report.backups_left {
            text.push_str(&format!("\n  {left}"));
        }
    } else if report.backups > 0 {
        text.push_str("\nIts backups in backups/ were converted with it.");
    }
    if !report.spool_left.is_empty() {
        text.push_str("\nThese recordings and drafts waiting beside it were left as they were:");
        for left in &report.spool_left {
            text.push_str(&format!("\n  {left}"));
        }
    }
}

/// What `remember` and `forget` did, for `--json`.
#[derive(Serialize)]
struct Remembered {
    journal: PathBuf,
    remembered: bool,
}

/// `mindsage remember`: the passphrase, once it has opened the journal, into this
/// computer's credential store (core's `keystore`, as the window's "Remember on this
/// computer").
pub(super) fn remember(args: &Args, path: &Path) -> Result<()> {
    refuse_unless_encrypted(path)?;
    let (passphrase, _key) = given_passphrase(args, path)?;
    keystore::remember(path, &passphrase)?;
    let report = Remembered {
        journal: path.to_owned(),
        remembered: true,
    };
    print(args, &report, || {
        format!(
            "Remembered the passphrase of {} on this computer: the window and commands open it without asking. `mindsage forget` forgets it.",
            path.display()
        )
    })
}

/// `mindsage forget`.
pub(super) fn forget(args: &Args, path: &Path) -> Result<()> {
    let was = encryption::is_remembered(path);
    keystore::forget(path)?;
    let report = Remembered {
        journal: path.to_owned(),
        remembered: false,
    };
    print(args, &report, || match was {
        true => format!(
            "Forgot the passphrase remembered on this computer for {}: it is asked for again.",
            path.display()
        ),
        false => format!(
            "No passphrase was remembered on this computer for {}.",
            path.display()
        ),
    })
}

/// `decrypt`, `rekey` and `remember` work on an encrypted journal only.
fn refuse_unless_encrypted(path: &Path) -> Result<()> {
    match cipher::file_kind(path).with_context(|| format!("reading {}", path.display()))? {
        cipher::FileKind::Encrypted { .. } => Ok(()),
        cipher::FileKind::New => bail!("there is no journal at {}", path.display()),
        cipher::FileKind::Plain => bail!(
            "{} is not encrypted; `mindsage encrypt` encrypts it",
            path.display()
        ),
    }
}
