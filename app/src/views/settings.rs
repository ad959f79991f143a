//! Settings and About: where the journal lives, the local model, storage, theme, and
//! the versions and SQLite settings really in effect.

use std::path::PathBuf;

use egui::RichText;

use mindsage_core::ai::AiSettings;
use mindsage_core::db::{self, EffectivePragmas, history};
use mindsage_core::encryption::Change;
use mindsage_core::reminder::WEEK;
use mindsage_core::settings::{Settings, Theme};

use mindsage_core::voice::recordings;

use super::dialog;
use super::page::{self, PageStyle};
use super::template_editor::TemplateEditor;
use super::unlock::PassphraseForm;
use super::{Action, Screen, display_time};
use crate::protocol::{AiRequest, Request, VoiceEvent};

const MIB: u64 = 1024 * 1024;
/// Where journal text goes, said beside the host it goes to: the person decides where
/// their words are sent, so the screen that sets the host must say it (issue #17).
pub const WHERE_TEXT_GOES: &str = "Entry text leaves MindSage only for the Ollama host above: \
     titles, summaries, moods, search by meaning and Ask send it there, and nowhere else. \
     A host on another computer is refused unless you allow it below.";

/// Where a person gets Ollama: the models are not bundled with MindSage.
const OLLAMA_DOWNLOAD: &str = "https://ollama.com/download";

pub struct SettingsView {
    /// The settings in force (the theme applies at once, the rest when saved).
    pub settings: Settings,
    data_dir: PathBuf,
    pragmas: Option<EffectivePragmas>,
    requested_pragmas: bool,
    /// Edited and not saved yet.
    dirty: bool,
    saved_note: Option<&'static str>,
    /// The local model's status, from the AI thread.
    health: Option<Result<String, String>>,
    /// The input devices, default first (from the transcriber thread).
    devices: Vec<String>,
    /// Whether a Whisper model is ready, and which, or what to do about it.
    whisper: Option<Result<PathBuf, String>>,
    /// Why the settings file could not be used, naming it. While set, the defaults are
    /// in force in memory only and nothing is saved: the file stays as the person left
    /// it until they choose to replace it.
    damaged: Option<String>,
    /// The last backup made while the window was open: where, and how many entries.
    last_backup: Option<String>,
    /// Days in which entry history keeps every version: as the journal holds it (once
    /// read) and as edited here. A journal setting, saved through the writer with the
    /// rest of the settings.
    history_days: Option<(u32, u32)>,
    /// A new history setting is on its way to the journal: "Saved" waits for it.
    history_saving: bool,
    /// The backups in `backups/`, newest first, once listed.
    backups: Option<Vec<db::backup::BackupFile>>,
    /// A restore being checked, confirmed or carried out.
    restoring: Option<Restoring>,
    /// Whether the journal is encrypted.
    encrypted: bool,
    /// The encryption section's open form, if one is.
    encryption: Option<EncryptionForm>,
    /// The templates, as edited.
    templates: TemplateEditor,
    /// The reminder's time as typed (it becomes the setting once it reads as a time).
    reminder_time: String,
    /// How the system's scheduler took the reminder last saved.
    reminder_note: Option<crate::reminders::Scheduled>,
    /// How the system took starting with it, last saved.
    start_note: Option<crate::autostart::Applied>,
}

/// The encryption section's forms.
enum EncryptionForm {
    /// A passphrase for encrypting the journal, or the new one for changing it.
    Passphrase(PassphraseForm),
    /// "Turn encryption off" asked; waits for yes.
    ConfirmDecrypt,
}

/// Where a restore is: the backup is checked, then the person confirms, then the writer
/// replaces the journal.
#[derive(Debug, Clone, PartialEq)]
enum Restoring {
    Checking(PathBuf),
    Confirm { path: PathBuf, entries: u64 },
    Refused { path: PathBuf, reason: String },
    Running(PathBuf),
}

/// Backups listed to restore from; older ones are a file dialog away.
const BACKUPS_LISTED: usize = 10;

impl SettingsView {
    /// `damaged` is why the settings file could not be read, if it could not.
    /// `encrypted` is whether the journal is.
    pub fn new(
        settings: Settings,
        data_dir: PathBuf,
        damaged: Option<String>,
        encrypted: bool,
    ) -> SettingsView {
        SettingsView {
            data_dir,
            pragmas: None,
            requested_pragmas: false,
            dirty: false,
            saved_note: None,
            health: None,
            devices: Vec::new(),
            whisper: None,
            damaged,
            last_backup: None,
            history_days: None,
            history_saving: false,
            backups: None,
            restoring: None,
            encrypted,
            encryption: None,
            templates: TemplateEditor::default(),
            reminder_time: settings.reminder.at.format("%H:%M").to_string(),
            reminder_note: None,
            start_note: None,
            settings,
        }
    }

    pub fn on_backups(&mut self, backups: Vec<db::backup::BackupFile>) {
        self.backups = Some(backups);
    }

    /// Checks a backup the person chose to restore, before asking them to confirm.
    pub fn check_backup(&mut self, path: PathBuf, actions: &mut Vec<Action>) {
        actions.push(Action::Send(Request::CheckBackup(path.clone())));
        self.restoring = Some(Restoring::Checking(path));
    }

    /// A backup checked: the person confirms, or reads why it cannot be restored.
    pub fn on_backup_checked(&mut self, path: PathBuf, outcome: Result<u64, String>) {
        if self.restoring != Some(Restoring::Checking(path.clone())) {
            return;
        }
        self.restoring = Some(match outcome {
            Ok(entries) => Restoring::Confirm { path, entries },
            Err(reason) => Restoring::Refused { path, reason },
        });
    }

    /// A restore ended (the app tells how); the list now holds the journal as it was.
    pub fn on_restored(&mut self, actions: &mut Vec<Action>) {
        self.restoring = None;
        actions.push(Action::Send(Request::Backups));
    }

    /// The journal's history setting, read at first sight of the screen or just saved.
    /// A value the person has changed since it was last read stays in the field.
    pub fn on_history_days(&mut self, days: u32) {
        let edited = match self.history_days {
            Some((stored, edited)) if edited != stored => edited,
            _ => days,
        };
        self.history_days = Some((days, edited));
        self.history_saving = false;
    }

    /// Days between automatic backups (0: none) and how many are kept.
    pub fn backup_schedule(&self) -> (u32, u32) {
        (self.settings.backup_every_days, self.settings.backups_kept)
    }

    pub fn on_backed_up(&mut self, report: &db::backup::BackupReport) {
        self.last_backup = Some(format!(
            "Last backup: {}, {} (at {}).",
            crate::wording::entries(report.entries as usize),
            report.path.display(),
            chrono::Local::now().format("%H:%M")
        ));
    }

    /// Saves the settings, unless the file on disk is damaged and the person has not
    /// chosen to replace it.
    fn save(&mut self, actions: &mut Vec<Action>) {
        if let Some((stored, edited)) = self.history_days
            && stored != edited
        {
            actions.push(Action::Send(Request::HistoryDays(Some(edited))));
            self.history_saving = true;
        }
        if self.damaged.is_none() {
            actions.push(Action::Send(Request::SaveSettings(self.settings.clone())));
            self.dirty = false;
            self.saved_note = None;
        }
    }

    pub fn on_pragmas(&mut self, pragmas: EffectivePragmas) {
        self.pragmas = Some(pragmas);
    }

    /// The settings are saved; `answers` is how the system took what changed of what
    /// it holds. What it refused stays edited here, so Save tries again.
    pub fn on_saved(&mut self, answers: crate::protocol::SystemAnswers) {
        self.saved_note = Some("Saved. Ollama settings apply from the next start; voice settings at once.");
        if let Some(scheduled) = answers.reminder {
            self.dirty |= scheduled.is_err();
            self.reminder_note = Some(scheduled);
        }
        if let Some(applied) = answers.start_with_system {
            self.dirty |= applied.is_err();
            self.start_note = Some(applied);
        }
    }

    /// Devices and the model's state, from the transcriber thread.
    pub fn on_voice_event(&mut self, event: &VoiceEvent) {
        match event {
            VoiceEvent::Devices(devices) => self.devices.clone_from(devices),
            VoiceEvent::Model(status) => self.whisper = Some(status.clone()),
            _ => {}
        }
    }

    pub fn on_health(&mut self, status: Result<String, String>) {
        self.health = Some(status);
    }

    /// Switches between light and dark, saving the choice.
    pub fn toggle_theme(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        self.settings.theme = if ctx.style().visuals.dark_mode {
            Theme::Light
        } else {
            Theme::Dark
        };
        apply_theme(ctx, self.settings.theme);
        self.dirty = self.damaged.is_some();
        self.save(actions);
    }
}

impl Screen for SettingsView {
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if !self.requested_pragmas {
            actions.push(Action::Send(Request::Pragmas));
            actions.push(Action::Send(Request::HistoryDays(None)));
            actions.push(Action::Send(Request::Backups));
            actions.push(Action::SendAi(AiRequest::Health));
            actions.push(Action::Send(Request::Templates));
            self.requested_pragmas = true;
        }
        egui::CentralPanel::default().show_inside(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    ui.heading("Settings");
                    // Each section under an id of its own: the spinners and statuses
                    // that answers replace change how many widgets a section has, and
                    // must not renumber (and so unfocus) the fields of the next one.
                    ui.push_id("damaged", |ui| self.damaged_file_ui(ui, actions));
                    ui.push_id("storage", |ui| {
                        self.storage_ui(ui);
                        self.history_ui(ui);
                    });
                    ui.add_space(8.0);
                    ui.push_id("backups", |ui| self.backups_ui(ui, actions));
                    ui.add_space(8.0);
                    ui.push_id("encryption", |ui| self.encryption_ui(ui, actions));
                    ui.add_space(8.0);
                    ui.push_id("local_model", |ui| self.local_model_ui(ui));
                    ui.add_space(8.0);
                    ui.push_id("voice", |ui| self.voice_ui(ui));
                    ui.add_space(8.0);
                    ui.push_id("appearance", |ui| self.appearance_ui(ui));
                    ui.add_space(8.0);
                    ui.push_id("reminder", |ui| self.reminder_ui(ui));
                    ui.add_space(8.0);
                    ui.push_id("start", |ui| self.start_ui(ui));
                    ui.add_space(8.0);
                    ui.push_id("templates", |ui| self.templates.ui(ui, actions));
                    ui.add_space(8.0);
                    self.save_ui(ui, actions);
                    ui.separator();
                    self.about_ui(ui);
                });
        });
    }
}

impl SettingsView {
    fn save_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            let can_save = self.dirty && self.damaged.is_none() && self.reminder_time_problem().is_none();
            if ui
                .add_enabled(can_save, egui::Button::new("Save settings"))
                .clicked()
            {
                self.save(actions);
            }
            if let Some(note) = self.saved_note.filter(|_| !self.dirty && !self.history_saving) {
                ui.label(RichText::new(note).weak());
            }
        });
    }

    /// The damaged settings file, named, and the one way to write over it.
    fn damaged_file_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let Some(problem) = self.damaged.clone() else {
            return;
        };
        ui.group(|ui| {
            ui.label(RichText::new(problem).strong());
            ui.label(
                "MindSage is using the default settings for now and saves no settings, so that \
                 file stays as it is. Fix it and restart, or replace it with the settings shown here.",
            );
            if ui
                .button("Replace the settings file with these settings")
                .clicked()
            {
                self.damaged = None;
                self.save(actions);
            }
        });
        ui.add_space(8.0);
    }

    fn storage_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Journal").strong());
        ui.horizontal(|ui| {
            ui.label("Data folder");
            ui.monospace(self.data_dir.display().to_string());
        });
        ui.label(
            RichText::new("To use another folder, start MindSage with --data-dir or set MINDSAGE_DATA_DIR.")
                .weak()
                .small(),
        );
        ui.horizontal(|ui| {
            let label = ui.label("Memory-mapped size (MiB)");
            let mut mib = self.settings.mmap_size / MIB;
            let response = ui
                .add(egui::DragValue::new(&mut mib).range(0..=16_384))
                .labelled_by(label.id);
            if response.changed() {
                self.settings.mmap_size = mib * MIB;
                self.dirty = true;
            }
            ui.label(
                RichText::new("applies when the journal is next opened; 0 turns mapping off")
                    .weak()
                    .small(),
            );
        });
    }

    /// Encryption at rest: its state, and turning it on, off, or changing the passphrase.
    fn encryption_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.label(RichText::new("Encryption").strong());
        if self.encrypted {
            ui.label(
                "On: the journal file, its -wal, its backups, a recording while you speak and a draft kept \
                 when a save fails are encrypted (SQLCipher, AES-256; the key comes from your passphrase \
                 through PBKDF2-HMAC-SHA512). Exports ask first: they are plain files.",
            );
        } else {
            ui.label("Off: anyone who can read your files can read the journal file.");
        }
        match &mut self.encryption {
            Some(EncryptionForm::Passphrase(form)) => {
                let button = if self.encrypted {
                    "Change the passphrase"
                } else {
                    "Encrypt the journal"
                };
                if let Some(passphrase) = form.ui(ui, button) {
                    let remember = form.remembering();
                    actions.push(Action::Encryption(match self.encrypted {
                        true => Change::Rekey { passphrase, remember },
                        false => Change::Encrypt { passphrase, remember },
                    }));
                    self.encryption = None;
                } else if ui.button("Cancel").clicked() {
                    self.encryption = None;
                }
            }
            Some(EncryptionForm::ConfirmDecrypt) => {
                ui.label(
                    RichText::new(
                        "The journal will be stored unencrypted: anyone who can read your files can read it.",
                    )
                    .strong(),
                );
                ui.horizontal(|ui| {
                    if ui.button("Turn encryption off").clicked() {
                        actions.push(Action::Encryption(Change::Decrypt));
                        self.encryption = None;
                    }
                    if ui.button("Cancel").clicked() {
                        self.encryption = None;
                    }
                });
            }
            None if self.encrypted => {
                ui.horizontal_wrapped(|ui| {
                    if ui.button("Lock now (Ctrl+L)").clicked() {
                        actions.push(Action::Lock);
                    }
                    if ui.button("Change the passphrase…").clicked() {
                        self.encryption = Some(EncryptionForm::Passphrase(PassphraseForm::default()));
                    }
                    if ui.button("Forget the remembered passphrase").clicked() {
                        actions.push(Action::Send(Request::ForgetPassphrase));
                    }
                    if ui.button("Turn encryption off…").clicked() {
                        self.encryption = Some(EncryptionForm::ConfirmDecrypt);
                    }
                });
                self.idle_lock_ui(ui);
            }
            None => {
                if ui.button("Encrypt the journal…").clicked() {
                    self.encryption = Some(EncryptionForm::Passphrase(PassphraseForm::default()));
                }
            }
        }
    }

    /// The idle time after which an encrypted journal locks.
    fn idle_lock_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Lock after this many minutes without use");
            self.dirty |= ui
                .add(egui::DragValue::new(&mut self.settings.lock_after_idle_minutes).range(0..=24 * 60))
                .labelled_by(label.id)
                .changed();
            ui.label(RichText::new("0 for never; Ctrl+L locks at once").weak().small());
        });
    }

    /// How long entry history keeps every version; the journal's setting, not the file's.
    fn history_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Keep every earlier version of an entry for (days)");
            match &mut self.history_days {
                Some((stored, edited)) => {
                    self.dirty |= ui
                        .add(egui::DragValue::new(edited).range(0..=history::MAX_DAYS))
                        .labelled_by(label.id)
                        .changed();
                    let note = if edited < stored {
                        "then one a month; saving erases the versions this no longer keeps"
                    } else {
                        "then one a month"
                    };
                    ui.label(RichText::new(note).weak().small());
                }
                None => {
                    ui.spinner();
                }
            }
        });
    }

    fn backups_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.label(RichText::new("Backups").strong());
        egui::Grid::new("backup_settings").num_columns(2).show(ui, |ui| {
            let label = ui.label("Back up every (days, 0 for never)");
            self.dirty |= ui
                .add(egui::DragValue::new(&mut self.settings.backup_every_days).range(0..=365))
                .labelled_by(label.id)
                .changed();
            ui.end_row();
            let label = ui.label("Backups kept");
            self.dirty |= ui
                .add(egui::DragValue::new(&mut self.settings.backups_kept).range(1..=365))
                .labelled_by(label.id)
                .changed();
            ui.end_row();
        });
        ui.horizontal(|ui| {
            if ui.button("Back up now").clicked() {
                let (every_days, keep) = self.backup_schedule();
                actions.push(Action::Send(Request::Backup {
                    every_days,
                    keep,
                    now: true,
                }));
            }
            let folder = self.data_dir.join(db::backup::BACKUPS_FOLDER);
            ui.label(RichText::new(format!("into {}", folder.display())).weak().small());
        });
        if let Some(last) = &self.last_backup {
            ui.label(last);
        }
        ui.add_space(4.0);
        self.restore_ui(ui, actions);
    }

    /// The backups to restore from, and the restore under way.
    fn restore_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if let Some(restoring) = self.restoring.clone() {
            ui.group(|ui| self.restoring_ui(ui, restoring, actions));
            return;
        }
        match &self.backups {
            None => {
                ui.spinner();
            }
            Some(backups) if backups.is_empty() => {
                ui.label(RichText::new("No backups yet.").weak());
            }
            Some(backups) => {
                let mut chosen = None;
                egui::Grid::new("backups")
                    .num_columns(3)
                    .striped(true)
                    .show(ui, |ui| {
                        for backup in backups.iter().take(BACKUPS_LISTED) {
                            let taken = chrono::DateTime::<chrono::Utc>::from_naive_utc_and_offset(
                                backup.taken,
                                chrono::Utc,
                            );
                            ui.label(display_time(&mindsage_core::clock::format_utc(taken)));
                            let kind = if backup.automatic {
                                "backup"
                            } else {
                                "the journal before a restore"
                            };
                            ui.label(
                                RichText::new(format!("{kind}, {}", size_text(backup.bytes)))
                                    .weak()
                                    .small(),
                            );
                            if ui.button("Restore…").clicked() {
                                chosen = Some(backup.path.clone());
                            }
                            ui.end_row();
                        }
                    });
                if let Some(path) = chosen {
                    self.check_backup(path, actions);
                }
            }
        }
        if ui.button("Restore from a file…").clicked() {
            actions.push(Action::PickBackup);
        }
    }

    fn restoring_ui(&mut self, ui: &mut egui::Ui, restoring: Restoring, actions: &mut Vec<Action>) {
        match restoring {
            Restoring::Checking(path) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Checking {}…", path.display()));
                });
            }
            Restoring::Running(path) => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("Restoring {}…", path.display()));
                });
            }
            Restoring::Refused { path, reason } => {
                ui.label(format!("{} cannot be restored: {reason}", path.display()));
                if ui.button("OK").clicked() {
                    self.restoring = None;
                }
            }
            Restoring::Confirm { path, entries } => {
                ui.label(format!("Restore {}?", path.display()));
                self.confirm_restore_ui(ui.ctx(), path, entries, actions);
            }
        }
    }

    /// "Replace the journal with this backup?", the keyboard on Cancel; Esc cancels.
    fn confirm_restore_ui(
        &mut self,
        ctx: &egui::Context,
        path: PathBuf,
        entries: u64,
        actions: &mut Vec<Action>,
    ) {
        let answer = dialog::show(ctx, "confirm_restore", false, |ui| {
            ui.heading("Replace the journal with this backup?");
            ui.label(format!(
                "{} holds {}. What was written after it was made is not in it. The journal \
                 as it is now is kept with the backups first, so you can go back.",
                path.display(),
                crate::wording::entries(entries as usize)
            ));
            ui.add_space(8.0);
            dialog::yes_or_no(ui, "Replace the journal", "Cancel")
        });
        match answer {
            Some(true) => {
                actions.push(Action::RestoreBackup(path.clone()));
                self.restoring = Some(Restoring::Running(path));
            }
            Some(false) => self.restoring = None,
            None => {}
        }
    }

    /// Whether a dialog of this screen is asking (the window's keys wait meanwhile).
    pub fn dialog_open(&self) -> bool {
        matches!(self.restoring, Some(Restoring::Confirm { .. }))
    }

    fn local_model_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Local model (Ollama)").strong());
        let fields = [
            ("Ollama host", &mut self.settings.ollama_host),
            ("Chat model", &mut self.settings.chat_model),
            ("Embedding model", &mut self.settings.embedding_model),
        ];
        egui::Grid::new("model_settings").num_columns(2).show(ui, |ui| {
            for (name, value) in fields {
                let label = ui.label(name);
                self.dirty |= ui
                    .add(
                        egui::TextEdit::singleline(value)
                            .id_salt(name)
                            .desired_width(320.0),
                    )
                    .labelled_by(label.id)
                    .changed();
                ui.end_row();
            }
        });
        ui.label(
            RichText::new(
                "Empty fields use OLLAMA_HOST and the default models (llama3.2:3b, nomic-embed-text).",
            )
            .weak()
            .small(),
        );
        ui.label(RichText::new(WHERE_TEXT_GOES).small());
        self.dirty |= ui
            .checkbox(
                &mut self.settings.allow_remote_model_host,
                "Allow a host on another computer (entry text then travels over the network to it)",
            )
            .changed();
        match &self.health {
            Some(Ok(status)) => {
                ui.label(format!("Status: {status}"));
            }
            Some(Err(problem)) => {
                ui.label(format!("Status: not ready. {problem}"));
                self.model_setup_ui(ui);
            }
            None => {
                ui.label(RichText::new("Status: checking…").weak());
            }
        }
    }

    /// Voice entries: the Whisper model, the language, the microphone, the longest
    /// recording.
    fn voice_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Voice entries (Whisper, on this computer)").strong());
        let models = self.data_dir.join(recordings::MODELS_FOLDER);
        egui::Grid::new("voice_settings").num_columns(2).show(ui, |ui| {
            let label = ui.label("Whisper model file");
            self.dirty |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.settings.whisper_model)
                        .id_salt("whisper_model")
                        .desired_width(320.0)
                        .hint_text(format!("the first ggml-*.bin in {}", models.display())),
                )
                .labelled_by(label.id)
                .changed();
            ui.end_row();
            let label = ui.label("Language");
            self.dirty |= ui
                .add(
                    egui::TextEdit::singleline(&mut self.settings.voice_language)
                        .id_salt("voice_language")
                        .desired_width(120.0)
                        .hint_text("detect"),
                )
                .labelled_by(label.id)
                .on_hover_text("A Whisper language code such as en, de, fr or es; empty to detect it")
                .changed();
            ui.end_row();
            ui.label("Microphone");
            let shown = match self.settings.input_device.as_str() {
                "" => "System default",
                name => name,
            };
            egui::ComboBox::from_id_salt("microphone")
                .selected_text(shown)
                .width(320.0)
                .show_ui(ui, |ui| {
                    self.dirty |= ui
                        .selectable_value(&mut self.settings.input_device, String::new(), "System default")
                        .changed();
                    for device in &self.devices {
                        self.dirty |= ui
                            .selectable_value(&mut self.settings.input_device, device.clone(), device)
                            .changed();
                    }
                });
            ui.end_row();
            let label = ui.label("Longest recording (minutes)");
            self.dirty |= ui
                .add(egui::DragValue::new(&mut self.settings.max_recording_minutes).range(1..=180))
                .labelled_by(label.id)
                .changed();
            ui.end_row();
        });
        match &self.whisper {
            Some(Ok(path)) => {
                ui.label(format!(
                    "Status: ready ({}). Ctrl+R records from any screen.",
                    path.display()
                ));
            }
            Some(Err(problem)) => {
                ui.label(format!("Speech recognition: not ready. {problem}"));
            }
            None => {
                ui.label(RichText::new("Speech recognition: checking…").weak());
            }
        }
    }

    /// Getting the local model, for a journal whose model is not ready: MindSage ships
    /// without models, so a first run points here (the queue status in the top bar says
    /// what it waits on). The commands name the models these settings use.
    fn model_setup_ui(&self, ui: &mut egui::Ui) {
        let models = AiSettings::from_settings(&self.settings);
        ui.horizontal(|ui| {
            ui.label("Titles, moods, summaries, meaning search and Ask run on Ollama, on this computer:");
            ui.hyperlink_to("download Ollama", OLLAMA_DOWNLOAD);
        });
        ui.label("Then get the two models, in a terminal:");
        for model in [&models.text_model, &models.embed_model] {
            ui.code(format!("ollama pull {model}"));
        }
        ui.label(
            RichText::new("Everything else works without them; the model's work waits and catches up.")
                .weak()
                .small(),
        );
    }

    fn appearance_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Appearance").strong());
        ui.horizontal(|ui| {
            for (theme, name) in [
                (Theme::System, "System"),
                (Theme::Light, "Light"),
                (Theme::Dark, "Dark"),
            ] {
                if ui.radio_value(&mut self.settings.theme, theme, name).changed() {
                    apply_theme(ui.ctx(), theme);
                    self.dirty = true;
                }
            }
        });
        // Only Windows has an accent colour to take (the app follows it at once).
        if cfg!(windows) {
            self.dirty |= ui
                .checkbox(
                    &mut self.settings.accent_from_system,
                    "Accent colour from Windows",
                )
                .changed();
        }
        // The page follows at once, as the theme does; saved with the rest.
        let sliders = [
            (
                "Text size on the page",
                &mut self.settings.page_text_size,
                page::TEXT_SIZES,
                " pt",
            ),
            (
                "Line length",
                &mut self.settings.page_line_length,
                page::LINE_LENGTHS,
                " characters",
            ),
        ];
        for (name, value, range, unit) in sliders {
            ui.horizontal(|ui| {
                let label = ui.label(name);
                let slider = ui
                    .add(egui::Slider::new(value, range).suffix(unit))
                    .labelled_by(label.id);
                self.dirty |= slider.changed();
            });
        }
        ui.horizontal(|ui| {
            let label = ui.label("Daily word goal");
            let goal = egui::DragValue::new(&mut self.settings.daily_word_goal)
                .range(0..=100_000)
                .speed(10)
                .suffix(" words");
            self.dirty |= ui.add(goal).labelled_by(label.id).changed();
            ui.label(RichText::new("0 for none; shown on today's page").weak());
        });
        self.dirty |= ui
            .checkbox(
                &mut self.settings.daily_prompt,
                "A question to start from on an empty page",
            )
            .changed();
    }

    /// The reminder to write: on or off, the time, the days, and how the system took it.
    fn reminder_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Reminder").strong());
        let reminder = &mut self.settings.reminder;
        self.dirty |= ui.checkbox(&mut reminder.enabled, "Remind me to write").changed();
        ui.add_enabled_ui(reminder.enabled, |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("At");
                let time = egui::TextEdit::singleline(&mut self.reminder_time)
                    .desired_width(50.0)
                    .hint_text("20:00");
                if ui.add(time).labelled_by(label.id).changed() {
                    self.dirty = true;
                    if let Some(at) = mindsage_core::clock::parse_time(&self.reminder_time) {
                        reminder.at = at;
                    }
                }
                ui.label("on");
                for day in WEEK {
                    let mut on = reminder.days.contains(&day);
                    if ui.toggle_value(&mut on, day.to_string()).changed() {
                        reminder.days.retain(|d| *d != day);
                        if on {
                            reminder.days.push(day);
                        }
                        self.dirty = true;
                    }
                }
            });
        });
        if let Some(problem) = self.reminder_time_problem() {
            ui.label(RichText::new(problem).color(ui.visuals().warn_fg_color));
        } else if self.settings.reminder.enabled && self.settings.reminder.days.is_empty() {
            ui.label(
                RichText::new("Choose a day or more for the reminder.").color(ui.visuals().warn_fg_color),
            );
        }
        ui.label(
            RichText::new(
                "It comes even when MindSage is closed, from the system's scheduler, and not on a day \
                 you have already written. A click opens today's page.",
            )
            .weak(),
        );
        note_ui(ui, self.reminder_note.as_ref());
    }

    /// Starting with the system, minimised: off until the person turns it on.
    fn start_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(RichText::new("Starting").strong());
        self.dirty |= ui
            .checkbox(&mut self.settings.start_with_system, crate::autostart::LABEL)
            .changed();
        ui.label(
            RichText::new("MindSage opens on this journal, minimised to the taskbar, when you log in.")
                .weak(),
        );
        note_ui(ui, self.start_note.as_ref());
    }

    /// Why the reminder's time as typed is not one, when it is not.
    fn reminder_time_problem(&self) -> Option<String> {
        let typed = self.reminder_time.trim();
        (self.settings.reminder.enabled && mindsage_core::clock::parse_time(typed).is_none())
            .then(|| format!("\"{typed}\" is not a time: write it as 20:00"))
    }

    /// The templates, read again.
    pub fn on_templates(&mut self, list: Vec<mindsage_core::db::templates::Template>) {
        self.templates.on_templates(list);
    }

    /// How the page is set now (Appearance applies before it is saved).
    pub fn page_style(&self) -> PageStyle {
        PageStyle::of(&self.settings)
    }

    fn about_ui(&self, ui: &mut egui::Ui) {
        ui.heading("About");
        ui.label(format!("MindSage {}", env!("CARGO_PKG_VERSION")));
        let Some(p) = &self.pragmas else {
            ui.label("Reading the SQLite settings…");
            return;
        };
        let rows = [
            ("SQLite", p.sqlite_version.clone()),
            ("Schema version", p.schema_version.to_string()),
            ("journal_mode", p.journal_mode.clone()),
            ("synchronous", p.synchronous.clone()),
            ("foreign_keys", p.foreign_keys.to_string()),
            ("secure_delete", p.secure_delete.to_string()),
            ("busy_timeout", format!("{} ms", p.busy_timeout_ms)),
            ("mmap_size", format!("{} MiB", p.mmap_size / MIB as i64)),
            ("cache_size", p.cache_size.to_string()),
            ("temp_store", p.temp_store.clone()),
            ("wal_autocheckpoint", p.wal_autocheckpoint.to_string()),
            ("page_size", p.page_size.to_string()),
        ];
        ui.label(RichText::new("SQLite settings in effect (read back from the reader connection)").weak());
        egui::Grid::new("pragmas")
            .striped(true)
            .num_columns(2)
            .show(ui, |ui| {
                for (name, value) in rows {
                    ui.monospace(name);
                    ui.monospace(value);
                    ui.end_row();
                }
            });
    }
}

pub fn apply_theme(ctx: &egui::Context, theme: Theme) {
    ctx.set_theme(match theme {
        Theme::System => egui::ThemePreference::System,
        Theme::Light => egui::ThemePreference::Light,
        Theme::Dark => egui::ThemePreference::Dark,
    });
}

/// A file's size as a person reads it.
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= MIB => format!("{:.1} MiB", b as f64 / MIB as f64),
        b if b >= 1024 => format!("{} KiB", b / 1024),
        b => format!("{b} bytes"),
    }
}

/// What the system said to a setting it holds a copy of: quiet when it took it, a
/// warning when it did not.
fn note_ui(ui: &mut egui::Ui, note: Option<&Result<String, String>>) {
    match note {
        Some(Ok(note)) => {
            ui.label(RichText::new(note).weak());
        }
        Some(Err(problem)) => {
            ui.label(RichText::new(problem).color(ui.visuals().warn_fg_color));
        }
        None => {}
    }
}
