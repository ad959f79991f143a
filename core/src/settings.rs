//! The person's settings: a small JSON file beside the journal.
//!
//! Kept out of the database so a journal copied to another computer does not carry the
//! first computer's model paths and hosts with it. A missing file means defaults; a
//! setting added in a later version gets its default when an older file is read
//! (`serde(default)`).
//!
//! A file that exists but cannot be read or parsed is [`SettingsError`], naming the file:
//! the caller runs on defaults in memory and must not write over it. The app then keeps
//! saving off until the person confirms, on the Settings screen, that their current
//! settings may replace the damaged file (it may hold choices worth copying out first).

use std::path::{Path, PathBuf};

/// File name of the settings inside the data folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// A recording's length limit unless the person sets another: long enough for any
/// journal entry, short enough that a forgotten recorder does not fill the disk.
pub const DEFAULT_MAX_RECORDING_MINUTES: u32 = 15;

/// How long an encrypted journal stays open with nobody at the keyboard, unless the
/// person sets another time: a coffee break, not a working session.
pub const DEFAULT_LOCK_AFTER_IDLE_MINUTES: u32 = 15;

/// Light, dark, or whatever the system uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Settings {
    pub theme: Theme,
    /// The accent colour is the system's (Windows' own, where there is one) rather than
    /// MindSage's.
    pub accent_from_system: bool,
    /// Bytes of the journal SQLite may memory-map; applied when the journal is next opened.
    pub mmap_size: u64,
    /// Where the local Ollama server listens; empty for `OLLAMA_HOST` or Ollama's default.
    pub ollama_host: String,
    /// The model that writes titles, summaries and answers; empty for the default.
    pub chat_model: String,
    /// The model that turns text into vectors for search; empty for the default.
    pub embedding_model: String,
    /// The person agreed that entry text may go to an Ollama host on another computer
    /// (otherwise such a host is refused; see `AiSettings::base_url`).
    pub allow_remote_model_host: bool,
    /// The Whisper model file for voice entries; empty for the first `ggml-*.bin` in the
    /// data folder's `models/`.
    pub whisper_model: String,
    /// The language voice entries are in, as a Whisper code; empty for "detect it".
    pub voice_language: String,
    /// The microphone by name; empty for the system's default input.
    pub input_device: String,
    /// Longest recording, in minutes; the recorder warns before it and stops there.
    pub max_recording_minutes: u32,
    /// Days between the automatic backups into the data folder's `backups/`; 0 for none.
    pub backup_every_days: u32,
    /// Automatic backups kept; older ones are erased.
    pub backups_kept: u32,
    /// Minutes without a key press or a click after which an encrypted journal locks
    /// (its key and everything read from it dropped from memory); 0 for never.
    pub lock_after_idle_minutes: u32,
    /// The page's text size, in points.
    pub page_text_size: u32,
    /// The page's line length, in characters of running text.
    pub page_line_length: u32,
    /// Words a day the person means to write, shown on today's page; 0 for no goal.
    pub daily_word_goal: u32,
    /// A question to start from, greyed in an empty page.
    pub daily_prompt: bool,
    /// When to be reminded to write; the system's scheduler holds a copy of it (see
    /// `reminder`), set when these settings are saved.
    pub reminder: crate::reminder::Reminder,
    /// MindSage opens, minimised, when the person logs in to this computer; the system
    /// holds a copy of it (see `autostart`), set when these settings are saved.
    pub start_with_system: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            theme: Theme::System,
            accent_from_system: true,
            mmap_size: crate::db::StorageOptions::default().mmap_size,
            ollama_host: String::new(),
            chat_model: String::new(),
            embedding_model: String::new(),
            allow_remote_model_host: false,
            whisper_model: String::new(),
            voice_language: String::new(),
            input_device: String::new(),
            max_recording_minutes: DEFAULT_MAX_RECORDING_MINUTES,
            backup_every_days: 1,
            backups_kept: 7,
            lock_after_idle_minutes: DEFAULT_LOCK_AFTER_IDLE_MINUTES,
            page_text_size: 18,
            page_line_length: 70,
            daily_word_goal: 0,
            daily_prompt: true,
            reminder: crate::reminder::Reminder::default(),
            start_with_system: false,
        }
    }
}

/// The settings file inside a data folder.
pub fn settings_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SETTINGS_FILE)
}

/// A settings file that is there but could not be used; the file is left as it is.
#[derive(Debug, thiserror::Error)]
#[error("the settings file {} could not be read ({reason}); it was left as it is", path.display())]
pub struct SettingsError {
    pub path: PathBuf,
    pub reason: String,
}

impl Settings {
    /// Reads the settings; defaults when the file is missing. A file that cannot be read
    /// or is not valid settings JSON is an error naming it, so the caller can say so and
    /// keep it rather than replace it with defaults (a damaged settings file must never
    /// keep the journal from opening, so callers fall back to defaults in memory).
    pub fn load(data_dir: &Path) -> Result<Settings, SettingsError> {
        let path = settings_path(data_dir);
        let damaged = |reason: String| SettingsError {
            path: path.clone(),
            reason,
        };
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| damaged(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(damaged(e.to_string())),
        }
    }

    /// Writes the settings through a temporary file, so a crash mid-write leaves the
    /// old file rather than half a new one.
    pub fn save(&self, data_dir: &Path) -> std::io::Result<()> {
        crate::files::create_private_dir(data_dir)?;
        let path = settings_path(data_dir);
        let temporary = path.with_extension("json.tmp");
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::files::write_private(&temporary, &json)?;
        std::fs::rename(&temporary, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_a_damaged_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), Settings::default());
        let settings = Settings {
            theme: Theme::Dark,
            chat_model: "llama3.2".to_owned(),
            ..Settings::default()
        };
        settings.save(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap(), settings);
        std::fs::write(settings_path(dir.path()), b"{ not json").unwrap();
        let error = Settings::load(dir.path()).unwrap_err();
        assert_eq!(error.path, settings_path(dir.path()));
        assert!(error.to_string().contains("settings.json"), "{error}");
        assert_eq!(std::fs::read(settings_path(dir.path())).unwrap(), b"{ not json");
        std::fs::write(settings_path(dir.path()), br#"{"theme":"light"}"#).unwrap();
        assert_eq!(Settings::load(dir.path()).unwrap().theme, Theme::Light);
    }
}
