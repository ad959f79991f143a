//! "Remember on this computer": an encrypted journal's passphrase kept by the operating
//! system's credential store (Windows Credential Manager; the Secret Service on Linux,
//! which GNOME Keyring and KWallet provide), never in MindSage's own files.
//!
//! One credential per journal file, named by the file's full path, so two data folders
//! keep two passphrases. Every call may wait on another process (a D-Bus round trip,
//! a keyring that asks to be unlocked): never on the UI thread.

use std::path::Path;

use crate::db::cipher::Passphrase;

/// The service name the credentials are filed under.
const SERVICE: &str = "MindSage";

/// Why the credential store could not be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "this computer's credential store could not be used ({0}); the passphrase will be asked for at each start"
)]
pub struct KeystoreError(String);

fn entry(journal: &Path) -> Result<keyring::Entry, KeystoreError> {
    let name = std::path::absolute(journal).unwrap_or_else(|_| journal.to_path_buf());
    keyring::Entry::new(SERVICE, &name.to_string_lossy()).map_err(|e| KeystoreError(e.to_string()))
}

/// The passphrase remembered for the journal at `journal`, if one is.
pub fn remembered(journal: &Path) -> Result<Option<Passphrase>, KeystoreError> {
    match entry(journal)?.get_password() {
        Ok(text) => Ok(Passphrase::new(text).ok()),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(KeystoreError(e.to_string())),
    }
}

/// Remembers `passphrase` for the journal at `journal`, replacing an earlier one.
pub fn remember(journal: &Path, passphrase: &Passphrase) -> Result<(), KeystoreError> {
    entry(journal)?
        .set_password(passphrase.as_str())
        .map_err(|e| KeystoreError(e.to_string()))
}

/// Forgets the passphrase remembered for the journal at `journal` (nothing if none is).
pub fn forget(journal: &Path) -> Result<(), KeystoreError> {
    match entry(journal)?.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(KeystoreError(e.to_string())),
    }
}
