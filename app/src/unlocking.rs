//! Unlocking an encrypted journal off the UI thread: the key derivation (a few hundred
//! milliseconds of PBKDF2 by design) and the credential store (a D-Bus round trip on
//! Linux) run on a thread of their own, which the shell polls each frame while the
//! unlock screen says "Unlocking…".

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};

use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::keystore;

/// A journal unlocked: its key, and what the person is to be told with it (the
/// passphrase could not be remembered as they asked).
pub struct Unlocked {
    pub key: JournalKey,
    pub told: Option<String>,
}

/// Why an attempt did not unlock the journal.
pub enum NotUnlocked {
    /// The credential store remembers no passphrase for it (or there is no store).
    NothingRemembered,
    /// The remembered passphrase did not open it, with why.
    RememberedFailed(String),
    /// The typed passphrase did not open it, with why.
    Failed(String),
}

/// One attempt in progress.
pub struct Unlocking {
    answer: Receiver<Result<Unlocked, NotUnlocked>>,
}

impl Unlocking {
    /// Tries the passphrase this computer remembers for `journal`.
    pub fn remembered(journal: PathBuf, ctx: &egui::Context) -> Result<Unlocking, String> {
        Unlocking::spawn(ctx, move || match keystore::remembered(&journal) {
            Ok(Some(passphrase)) => cipher::unlock(&journal, &passphrase)
                .map(|key| Unlocked { key, told: None })
                .map_err(|e| NotUnlocked::RememberedFailed(e.to_string())),
            Ok(None) => Err(NotUnlocked::NothingRemembered),
            // No credential store on this computer: nothing was remembered, so the
            // screen just asks (ticking "Remember" says what is wrong).
            Err(error) => {
                tracing::debug!(%error, "no remembered passphrase");
                Err(NotUnlocked::NothingRemembered)
            }
        })
    }

    /// Tries `passphrase`, and remembers it on this computer as well if `remember`.
    pub fn typed(
        journal: PathBuf,
        passphrase: Passphrase,
        remember: bool,
        ctx: &egui::Context,
    ) -> Result<Unlocking, String> {
        Unlocking::spawn(ctx, move || {
            let key =
                cipher::unlock(&journal, &passphrase).map_err(|e| NotUnlocked::Failed(e.to_string()))?;
            // The journal opens either way; the person hears why it will ask again.
            let told = match remember {
                true => keystore::remember(&journal, &passphrase)
                    .err()
                    .map(|e| not_remembered(&e)),
                false => None,
            };
            Ok(Unlocked { key, told })
        })
    }

    fn spawn(
        ctx: &egui::Context,
        work: impl FnOnce() -> Result<Unlocked, NotUnlocked> + Send + 'static,
    ) -> Result<Unlocking, String> {
        let (send, answer) = mpsc::channel();
        let ctx = ctx.clone();
        crate::threads::spawn("unlock", move || {
            let _ = send.send(work());
            ctx.request_repaint();
        })
        .map_err(|e| format!("Unlocking could not start: {e}"))?;
        Ok(Unlocking { answer })
    }

    /// The attempt's outcome, once there is one.
    pub fn poll(&self) -> Option<Result<Unlocked, NotUnlocked>> {
        self.answer.try_recv().ok()
    }
}

/// What the window says when "Remember on this computer" could not be done: the
/// credential store's own reason, and that the passphrase will be asked for.
pub fn not_remembered(error: &keystore::KeystoreError) -> String {
    format!("The passphrase could not be remembered: {error}.")
}
