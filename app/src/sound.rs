//! The window's sound devices, held by [`crate::backend::Backend`]: the microphone while
//! a voice entry is recorded, the speaker while an entry's recording plays.
//!
//! Each device runs on a thread of its own (core's [`Recording`] and [`Player`]), so the
//! window never waits on one. The views hold neither: each frame the app hands them a
//! snapshot ([`Heard`], [`Playing`]) and the recorder's events, and they ask for changes
//! with a [`MicrophoneCommand`] or a [`SpeakerCommand`], as they ask the other threads
//! with requests.

use std::path::PathBuf;
use std::time::Duration;

use mindsage_core::db::EntryId;
use mindsage_core::db::cipher::JournalKey;
use mindsage_core::voice::capture::{Event, Input, Recording};
use mindsage_core::voice::playback::Player;
use mindsage_core::voice::{recordings, wav};

/// What the recorder view asks of the microphone.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MicrophoneCommand {
    /// Start a recording (its events follow: started or failed, then finished).
    Start,
    /// Pause (true) or resume the running recording.
    Pause(bool),
    /// End it and keep the file.
    Stop,
    /// End it and delete the file.
    Cancel,
}

/// A running recording as it stands this frame.
#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Heard {
    /// Recorded time, pauses excluded.
    pub elapsed: Duration,
    /// The latest peak level, 0.0 to 1.0.
    pub level: f32,
    /// Whether the sound has clipped since it began.
    pub clipped: bool,
    /// Whether device samples were lost to a stalled disk.
    pub dropped: bool,
    pub paused: bool,
}

/// The microphone: the recording in progress, if one is, and where the next one goes.
pub struct Microphone {
    data_dir: PathBuf,
    /// The encrypted journal's key: a recording beside it is sealed while spoken.
    key: Option<JournalKey>,
    input: Input,
    max_length: Duration,
    recording: Option<Recording>,
}

impl Microphone {
    pub fn new(data_dir: PathBuf, key: Option<JournalKey>, input: Input, max_length: Duration) -> Microphone {
        Microphone {
            data_dir,
            key,
            input,
            max_length,
            recording: None,
        }
    }

    /// New input or length from Settings, for the next recording.
    pub fn set_input(&mut self, input: Input, max_length: Duration) {
        self.input = input;
        self.max_length = max_length;
    }

    pub fn command(&mut self, command: MicrophoneCommand) {
        match (command, &self.recording) {
            (MicrophoneCommand::Start, None) => {
                let path = recordings::new_path(&self.data_dir, self.key.as_ref());
                self.recording = Some(Recording::start(
                    self.input.clone(),
                    path,
                    self.max_length,
                    self.key.clone(),
                ));
            }
            (MicrophoneCommand::Start, Some(_)) => {} // one recording at a time
            (MicrophoneCommand::Pause(paused), Some(recording)) => recording.set_paused(paused),
            (MicrophoneCommand::Stop, Some(recording)) => recording.stop(),
            (MicrophoneCommand::Cancel, Some(recording)) => recording.cancel(),
            (_, None) => {}
        }
    }

    /// The running recording's level and time.
    pub fn heard(&self) -> Option<Heard> {
        let recording = self.recording.as_ref()?;
        let meter = recording.meter();
        Some(Heard {
            elapsed: meter.elapsed(),
            level: meter.level(),
            clipped: meter.clipped(),
            dropped: meter.dropped() > 0,
            paused: recording.is_paused(),
        })
    }

    /// The recording's next event, if one has come. After the last (it failed to start,
    /// or finished) the microphone is free again; a recording that kept no sound is
    /// deleted before its end is told.
    pub fn next_event(&mut self) -> Option<Event> {
        let event = self.recording.as_ref()?.try_event()?;
        match &event {
            Event::Started { .. } => {}
            Event::Failed(_) => self.recording = None,
            Event::Finished { path, samples, .. } => {
                if *samples == 0
                    && let Err(error) = wav::discard(path)
                {
                    tracing::warn!(%error, "an empty recording could not be deleted");
                }
                self.recording = None;
            }
        }
        Some(event)
    }
}

/// What the editor's player asks of the speaker.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpeakerCommand {
    /// Start or resume (from the start again once it played to the end).
    Play,
    Pause,
    /// Move to this many milliseconds from the start.
    Seek(u64),
    /// Move there and play.
    PlayFrom(u64),
}

/// The recording on the speaker as it stands this frame.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Playing {
    pub playing: bool,
    pub position_ms: u64,
    pub duration_ms: u64,
    /// Why the last Play could not sound, until one does.
    pub error: Option<String>,
}

/// The speaker: the recording of the entry on screen, paused or playing.
#[derive(Default)]
pub struct Speaker {
    loaded: Option<(EntryId, Player)>,
}

impl Speaker {
    /// Loads `entry`'s recording (16 kHz mono `samples`), paused at the start, in place
    /// of the one loaded.
    pub fn load(&mut self, entry: EntryId, samples: Vec<f32>) {
        self.loaded = Some((entry, Player::open(samples)));
    }

    /// Closes the output unless it holds `entry`'s recording (the editor moved on).
    pub fn keep_only(&mut self, entry: Option<EntryId>) {
        if self.loaded.as_ref().map(|(id, _)| *id) != entry {
            self.loaded = None;
        }
    }

    pub fn command(&self, command: SpeakerCommand) {
        let Some((_, player)) = &self.loaded else {
            return;
        };
        match command {
            SpeakerCommand::Play => player.play(),
            SpeakerCommand::Pause => player.pause(),
            SpeakerCommand::Seek(ms) => player.seek_ms(ms),
            SpeakerCommand::PlayFrom(ms) => {
                player.seek_ms(ms);
                player.play();
            }
        }
    }

    /// The loaded recording's entry and state.
    pub fn playing(&self) -> Option<(EntryId, Playing)> {
        let (entry, player) = self.loaded.as_ref()?;
        Some((
            *entry,
            Playing {
                playing: player.is_playing(),
                position_ms: player.position_ms(),
                duration_ms: player.duration_ms(),
                error: player.error().map(|e| e.to_string()),
            },
        ))
    }
}
