//! The screen an encrypted journal opens on, and the passphrase fields that encrypting
//! and changing a passphrase share.
//!
//! Unlocking derives the key and asks the credential store on a thread of its own
//! ([`crate::unlocking`], held by the shell); the screen shows "Unlocking…" meanwhile.
//! At start the remembered passphrase, if any, is tried first; the person sees the
//! field only if there is none or it no longer fits.

use egui::RichText;

use mindsage_core::db::cipher::Passphrase;
use mindsage_core::encryption::Remember;

use crate::unlocking::NotUnlocked;

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

/// What the person asked of the unlock screen: to try this passphrase.
pub struct UnlockAsk {
    pub passphrase: Passphrase,
    /// "Remember on this computer" ticked.
    pub remember: bool,
}

/// The unlock screen. The attempts themselves run in [`crate::unlocking`], which the
/// shell holds; the screen only asks and says how it went.
#[derive(Default)]
pub struct UnlockView {
    passphrase: String,
    remember: bool,
    problem: Option<String>,
    /// Whether the passphrase field has been given the keyboard focus.
    focused: bool,
}

impl UnlockView {
    /// An attempt did not unlock the journal: says why under the field (nothing when
    /// nothing was remembered: the screen just asks).
    pub fn not_unlocked(&mut self, why: NotUnlocked) {
        match why {
            NotUnlocked::NothingRemembered => {}
            NotUnlocked::RememberedFailed(message) => {
                self.problem = Some(format!("The remembered passphrase could not be used: {message}"))
            }
            NotUnlocked::Failed(message) => {
                self.problem = Some(message);
                // Back into the field for the next try.
                self.focused = false;
            }
        }
    }

    /// Draws the screen, "Unlocking…" while an attempt is `busy`; returns the passphrase
    /// once the person asks to unlock with it.
    pub fn ui(&mut self, ctx: &egui::Context, busy: bool) -> Option<UnlockAsk> {
        let mut asked = None;
        egui::CentralPanel::default().show(ctx, |ui| {
            ui.add_space(ui.available_height() / 4.0);
            ui.vertical_centered(|ui| {
                ui.heading("MindSage");
                ui.label("This journal is encrypted. Enter its passphrase to open it.");
                ui.add_space(8.0);
                if busy {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Unlocking…");
                    });
                    return;
                }
                asked = self.form_ui(ui);
            });
        });
        asked
    }

    fn form_ui(&mut self, ui: &mut egui::Ui) -> Option<UnlockAsk> {
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
        if !unlock || self.passphrase.is_empty() {
            return None;
        }
        self.problem = None;
        let passphrase = Passphrase::new(std::mem::take(&mut self.passphrase)).ok()?;
        Some(UnlockAsk {
            passphrase,
            remember: self.remember,
        })
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

/// Overwrites a typed passphrase before its memory is given back.
pub fn zeroize_string(text: &mut String) {
    zeroize::Zeroize::zeroize(text);
}
