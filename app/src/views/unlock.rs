//! The screen an encrypted journal opens on, and the passphrase fields that encrypting
//! and changing a passphrase share.
//!
//! Unlocking derives the key (a few hundred milliseconds of PBKDF2 by design) and asks
//! the credential store (a D-Bus round trip on Linux), so both run on a thread of their
//! own; the screen shows "Unlocking…" meanwhile and the UI thread never waits. At start
//! the remembered passphrase, if any, is tried first; the person sees the field only if
//! there is none or it no longer fits.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};

use egui::RichText;

use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::encryption::Remember;
use mindsage_core::keystore;

/// Shortest passphrase accepted for a new key: long enough that guessing it through 256,000
/// rounds of PBKDF2 per try is out of reach for a list of common words.
pub const MIN_PASSPHRASE_CHARS: usize = 8;

/// A new passphrase typed twice, with "remember on this computer".
#[derive(Default)]
pub struct PassphraseForm {
    first: String,
    again: String,
    pub remember: bool,
    /// The first field's widget, once drawn: where a dialog asking for a passphrase puts
    /// the keyboard.
    first_field: Option<egui::Id>,
}

impl PassphraseForm {
    /// What the checkbox asks of this computer's credential store.
    pub fn remembering(&self) -> Remember {
        match self.remember {
            true => Remember::Yes,
            false => Remember::No,
        }
    }

    /// The two fields and the checkbox. Returns the passphrase once it is long enough and
    /// typed the same twice and `button` is pressed (or Enter in the second field).
    pub fn ui(&mut self, ui: &mut egui::Ui, button: &str) -> Option<Passphrase> {
        let mut submitted = false;
        egui::Grid::new("passphrase_form").num_columns(2).show(ui, |ui| {
            let label = ui.label("New passphrase");
            let first = ui
                .add(
                    egui::TextEdit::singleline(&mut self.first)
                        .password(true)
                        .id_salt("new_passphrase"),
                )
                .labelled_by(label.id);
            self.first_field = Some(first.id);
            ui.end_row();
            let label = ui.label("Type it again");
            let again = ui
                .add(
                    egui::TextEdit::singleline(&mut self.again)
                        .password(true)
                        .id_salt("new_passphrase_again"),
                )
                .labelled_by(label.id);
            submitted |= again.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.end_row();
        });
        ui.checkbox(&mut self.remember, "Remember on this computer")
            .on_hover_text("Kept by the system's credential store, so MindSage opens without asking.");
        let problem = self.problem();
        if let Some(problem) = problem {
            ui.label(RichText::new(problem).weak().small());
        }
        ui.label(
            RichText::new(
                "Nobody can recover a forgotten passphrase, MindSage included: keep it somewhere safe.",
            )
            .weak()
            .small(),
        );
        submitted |= ui
            .add_enabled(problem.is_none(), egui::Button::new(button))
            .clicked();
        if !submitted || problem.is_some() {
            return None;
        }
        let passphrase = Passphrase::new(std::mem::take(&mut self.first)).ok();
        zeroize_string(&mut self.again);
        passphrase
    }

    /// The first field, where the keyboard goes when the form is asked for (before it is
    /// drawn: no widget).
    pub fn first_field(&self) -> egui::Id {
        self.first_field.unwrap_or(egui::Id::NULL)
    }

    fn problem(&self) -> Option<&'static str> {
        if self.first.chars().count() < MIN_PASSPHRASE_CHARS {
            Some("At least 8 characters.")
        } else if self.first != self.again {
            Some("The two do not match yet.")
        } else {
            None
        }
    }
}

/// A journal unlocked: its key, and what the person is to be told with it (the
/// passphrase could not be remembered as they asked).
pub struct Unlocked {
    pub key: JournalKey,
    pub told: Option<String>,
}

/// The unlock screen.
pub struct UnlockView {
    journal: PathBuf,
    passphrase: String,
    remember: bool,
    /// The unlock thread's answer: the journal unlocked, or why not.
    working: Option<Receiver<Result<Unlocked, String>>>,
    problem: Option<String>,
    /// Whether the remembered passphrase is being tried (the field is not shown).
    trying_remembered: bool,
    /// Whether the passphrase field has been given the keyboard focus.
    focused: bool,
}

impl UnlockView {
    /// The screen for the journal at `journal`; with `try_remembered`, the passphrase the
    /// credential store keeps is tried first (at start; not after the person locked).
    pub fn new(journal: PathBuf, try_remembered: bool, ctx: &egui::Context) -> UnlockView {
        let mut view = UnlockView {
            journal,
            passphrase: String::new(),
            remember: false,
            working: None,
            problem: None,
            trying_remembered: try_remembered,
            focused: false,
        };
        if try_remembered {
            let path = view.journal.clone();
            view.spawn(ctx, move || match keystore::remembered(&path) {
                Ok(Some(passphrase)) => cipher::unlock(&path, &passphrase)
                    .map(|key| Unlocked { key, told: None })
                    .map_err(|e| e.to_string()),
                Ok(None) => Err(String::new()),
                // No credential store on this computer: nothing was remembered, so the
                // screen just asks (ticking "Remember" says what is wrong).
                Err(error) => {
                    tracing::debug!(%error, "no remembered passphrase");
                    Err(String::new())
                }
            });
        }
        view
    }

    /// Runs `work` on the unlock thread.
    fn spawn(
        &mut self,
        ctx: &egui::Context,
        work: impl FnOnce() -> Result<Unlocked, String> + Send + 'static,
    ) {
        let (send, receive) = mpsc::channel();
        let ctx = ctx.clone();
        let spawned = crate::threads::spawn("unlock", move || {
            let _ = send.send(work());
            ctx.request_repaint();
        });
        match spawned {
            Ok(_) => self.working = Some(receive),
            Err(e) => self.problem = Some(format!("Unlocking could not start: {e}")),
        }
    }

    /// The journal, once unlocked.
    fn poll(&mut self) -> Option<Unlocked> {
        let outcome = self.working.as_ref()?.try_recv().ok()?;
        self.working = None;
        let remembered = std::mem::take(&mut self.trying_remembered);
        match outcome {
            Ok(unlocked) => return Some(unlocked),
            // Nothing remembered: just ask.
            Err(message) if remembered && message.is_empty() => {}
            Err(message) if remembered => {
                self.problem = Some(format!("The remembered passphrase could not be used: {message}"))
            }
            Err(message) => {
                self.problem = Some(message);
                // Back into the field for the next try.
                self.focused = false;
            }
        }
        None
    }

    /// Draws the screen; returns the journal once unlocked.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<Unlocked> {
        if let Some(unlocked) = self.poll() {
            return Some(unlocked);
        }
        egui::CentralPanel::default().show(ctx, |ui| {
            ui.add_space(ui.available_height() / 4.0);
            ui.vertical_centered(|ui| {
                ui.heading("MindSage");
                ui.label("This journal is encrypted. Enter its passphrase to open it.");
                ui.add_space(8.0);
                if self.working.is_some() {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Unlocking…");
                    });
                    return;
                }
                self.form_ui(ui);
            });
        });
        None
    }

    fn form_ui(&mut self, ui: &mut egui::Ui) {
        let field = ui.add(
            egui::TextEdit::singleline(&mut self.passphrase)
                .password(true)
                .hint_text("Passphrase")
                .id_salt("unlock_passphrase"),
        );
        if !std::mem::replace(&mut self.focused, true) {
            field.request_focus();
        }
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.checkbox(&mut self.remember, "Remember on this computer");
        if let Some(problem) = &self.problem {
            ui.label(RichText::new(problem).color(ui.visuals().error_fg_color));
        }
        let unlock = ui.button("Unlock").clicked() || entered;
        if unlock && !self.passphrase.is_empty() {
            self.problem = None;
            let Ok(passphrase) = Passphrase::new(std::mem::take(&mut self.passphrase)) else {
                return;
            };
            let (path, remember) = (self.journal.clone(), self.remember);
            let ctx = ui.ctx().clone();
            self.spawn(&ctx, move || {
                let key = cipher::unlock(&path, &passphrase).map_err(|e| e.to_string())?;
                // The journal opens either way; the person hears why it will ask again.
                let told = match remember {
                    true => keystore::remember(&path, &passphrase)
                        .err()
                        .map(|e| not_remembered(&e)),
                    false => None,
                };
                Ok(Unlocked { key, told })
            });
        }
    }
}

impl Drop for UnlockView {
    fn drop(&mut self) {
        zeroize_string(&mut self.passphrase);
    }
}

impl Drop for PassphraseForm {
    fn drop(&mut self) {
        zeroize_string(&mut self.first);
        zeroize_string(&mut self.again);
    }
}

/// What the window says when "Remember on this computer" could not be done: the
/// credential store's own reason, and that the passphrase will be asked for.
pub fn not_remembered(error: &keystore::KeystoreError) -> String {
    format!("The passphrase could not be remembered: {error}.")
}

/// Overwrites a typed passphrase before its memory is given back.
pub fn zeroize_string(text: &mut String) {
    zeroize::Zeroize::zeroize(text);
}
