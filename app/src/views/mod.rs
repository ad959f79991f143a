//! One module per screen, in the shape of egui's demo: state plus a `ui` made of small
//! `*_ui` functions that draws into the `Ui` it is given and pushes what the person
//! asked for as [`Action`]s, which [`crate::app`] carries out. Views never block, hold
//! no thread, channel, device or file (those are [`crate::backend::Backend`]'s), and
//! never open the window's own panels, so each can be drawn alone
//! (`egui_kittest::Harness::new_ui`) with no threads behind it.
//!
//! Three shapes, one per kind of view:
//! - the window's screens (the tabs) are [`Screen`]s: `ui(&mut self, ui, actions)`;
//! - parts of a screen (the editor, the player, the versions, the recorder's panel)
//!   take the same `ui` and `actions`, plus what they show from their screen (the
//!   entry a list of versions belongs to);
//! - what covers the whole window (the unlock screen, the import window) takes the
//!   `egui::Context` instead of a `Ui`, and answers with what the person asked for.

use mindsage_core::db::EntryId;

use crate::protocol::{AiRequest, Request, VoiceRequest};

pub mod ask;
pub mod calendar;
pub mod commands;
pub mod dashboard;
pub mod dialog;
pub mod editor;
pub mod gallery;
pub mod history;
pub mod importing;
pub mod journal;
pub mod markdown;
pub mod page;
pub mod paged;
pub mod palette;
pub mod people;
pub mod photos;
pub mod player;
pub mod prompts;
pub mod recorder;
pub mod reflections;
pub mod settings;
pub mod template_editor;
pub mod templates;
pub mod unlock;
pub mod when;
pub mod year;

/// The screens, in the order of the top bar and of Ctrl+1 … Ctrl+7.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum View {
    #[default]
    Journal,
    Dashboard,
    Gallery,
    Ask,
    People,
    Reflections,
    Settings,
}

impl View {
    pub const ALL: [View; 7] = [
        View::Journal,
        View::Dashboard,
        View::Gallery,
        View::Ask,
        View::People,
        View::Reflections,
        View::Settings,
    ];

    pub fn title(self) -> &'static str {
        match self {
            View::Journal => "Journal",
            View::Dashboard => "Dashboard",
            View::Gallery => "Gallery",
            View::Ask => "Ask",
            View::People => "People & places",
            View::Reflections => "Reflections",
            View::Settings => "Settings",
        }
    }
}

/// One of the window's screens, the tabs of the top bar ([`View`]).
pub trait Screen {
    /// Draws the screen into `ui` (the central panel), pushing what the person asked
    /// for onto `actions`.
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>);
}

/// What a person asked for on a screen, carried out by [`crate::app`].
#[derive(Debug)]
pub enum Action {
    /// Something for the reader thread: a read, or a write it passes to the writer.
    Send(Request),
    /// Something for the AI thread.
    SendAi(AiRequest),
    /// Show entry `id` in the journal, from whichever screen.
    OpenEntry(EntryId),
    /// Show another screen.
    Show(View),
    /// Show an entry lived over a month ago, at random, in the journal.
    OpenOlderEntry,
    /// Show a day's page in the journal (its newest entry, or a new one dated that day).
    OpenDay(chrono::NaiveDate),
    /// Show the journal's entries carrying this tag.
    ShowTag(String),
    /// Search the journal for this text, as if typed into its search box.
    Search(String),
    /// Start a new entry in the journal.
    NewEntry,
    /// Let the person choose photo files for entry `id` in the system's file dialog.
    PickPhotos(EntryId),
    /// Let the person choose a backup file to restore in the system's file dialog.
    PickBackup,
    /// Replace the journal with this checked backup, once the editor's edits are saved.
    RestoreBackup(std::path::PathBuf),
    /// Something for the transcriber thread.
    Voice(VoiceRequest),
    /// Stop the transcription on screen, keeping what was heard so far.
    CancelTranscription,
    /// Keep unsaved text in a draft file (the threads that save it have stopped).
    KeepDraft(editor::DraftToKeep),
    /// Delete a draft file whose text the journal now holds.
    ForgetDraft(std::path::PathBuf),
    /// Something for the microphone (the recorder's buttons and Ctrl+R).
    Microphone(crate::sound::MicrophoneCommand),
    /// Something for the speaker (the player of the entry's recording).
    Speaker(crate::sound::SpeakerCommand),
    /// Lock the encrypted journal (its key and everything read with it leave memory).
    Lock,
    /// Change the journal's encryption, with the journal closed meanwhile.
    Encryption(mindsage_core::encryption::Change),
}

/// How the screens write a date and time.
const SHOWN: &str = "%a %e %b %Y, %H:%M";

/// A stored UTC timestamp of something done on this computer (a deletion, a backup, a
/// chat) as its local date and time here.
pub fn display_time(stored: &str) -> String {
    mindsage_core::clock::parse_utc(stored)
        .map(|t| t.with_timezone(&chrono::Local).format(SHOWN).to_string())
        .unwrap_or_else(|| stored.to_owned())
}

/// When an entry was lived, from its stored `created_at` and `utc_offset`: its own local
/// date and time where it was written (`clock::lived`), whatever this computer's zone,
/// with that place's UTC offset when it is not this computer's at that moment (an entry
/// imported from Tokyo reads "Fri  5 Jan 2024, 08:30 (UTC+09:00)").
pub fn display_lived(created_at: &str, utc_offset: i32) -> String {
    match mindsage_core::clock::lived(created_at, utc_offset) {
        Some(lived) => display_at(&lived),
        None => created_at.to_owned(),
    }
}

/// A local date and time as [`display_lived`] shows it.
pub fn display_at(lived: &chrono::DateTime<chrono::FixedOffset>) -> String {
    let shown = lived.format(SHOWN);
    let here = mindsage_core::clock::here(lived.to_utc());
    if here.offset() == lived.offset() {
        shown.to_string()
    } else {
        format!("{shown} ({})", lived.format("UTC%:z"))
    }
}
