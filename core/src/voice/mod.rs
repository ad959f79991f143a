//! Voice entries: the microphone, 16 kHz mono audio, WAV files and local transcription.
//!
//! Everything here runs off the UI thread and on this computer only.
//!
//! * [`convert`]: any rate and channel count to Whisper's 16 kHz mono, in chunks, so a
//!   file and a live device go through exactly the same code.
//! * [`wav`]: reading any WAV a person opens, and the recording file written while they
//!   speak (flushed every second, so a crash loses at most the last one; sealed with the
//!   journal's key beside an encrypted journal).
//! * [`capture`]: the recorder: an input stream (a cpal device, or a file played at real
//!   time for tests) whose callback only copies samples into a lock-free ring buffer,
//!   and a thread that converts, meters and writes them.
//! * [`transcribe`]: whisper.cpp through whisper-rs, with progress, segments as they are
//!   decoded, and cancel; and the checks that name a missing or wrong model file.
//! * [`playback`]: playing an entry's recording through the default output device.
//! * [`recordings`]: the folder where recordings wait for their transcription, and the
//!   one reader of a waiting recording, plain or sealed.
//! * [`score`]: word error rate and key words over labelled recordings.

pub mod capture;
pub mod convert;
pub mod playback;
pub mod recordings;
pub mod score;
pub mod transcribe;
pub mod wav;

/// The sample rate Whisper listens at; everything kept is stored at this rate, mono.
pub const SAMPLE_RATE: u32 = 16_000;

/// Whole milliseconds of `samples` frames at [`SAMPLE_RATE`].
pub fn duration_ms(samples: usize) -> u64 {
    samples as u64 * 1000 / u64::from(SAMPLE_RATE)
}

/// What the voice settings come to.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceSettings {
    /// The model file to use, or why there is none.
    pub model: Result<std::path::PathBuf, transcribe::ModelError>,
    pub language: transcribe::Language,
    pub input: capture::Input,
    pub max_length: std::time::Duration,
}

impl VoiceSettings {
    /// The voice settings of a data folder's settings.
    pub fn from_settings(settings: &crate::settings::Settings, data_dir: &std::path::Path) -> VoiceSettings {
        let model = recordings::model_path(data_dir, &settings.whisper_model).ok_or_else(|| {
            transcribe::ModelError::NotSetUp {
                folder: data_dir.join(recordings::MODELS_FOLDER),
            }
        });
        VoiceSettings {
            model,
            language: transcribe::Language::from_setting(&settings.voice_language),
            input: input_of(settings),
            max_length: max_length_of(settings),
        }
    }
}

/// The input the settings name (no device is opened or listed here).
pub fn input_of(settings: &crate::settings::Settings) -> capture::Input {
    match settings.input_device.trim() {
        "" => capture::Input::Default,
        name => capture::Input::Named(name.to_owned()),
    }
}

/// The longest recording the settings allow (at least a minute).
pub fn max_length_of(settings: &crate::settings::Settings) -> std::time::Duration {
    std::time::Duration::from_secs(u64::from(settings.max_recording_minutes.max(1)) * 60)
}

/// Saves a transcribed recording as a new entry: the transcript is its body (after any
/// text `entry` holds already), the recording and its segments are kept with it, and
/// its model work is queued, all in one transaction. The app and `mindsage add
/// --audio` both come here.
pub fn save_entry(
    conn: &mut rusqlite::Connection,
    user: crate::db::UserId,
    mut entry: crate::db::entries::NewEntry,
    samples: &[f32],
    transcript: &transcribe::Transcript,
) -> crate::db::Result<crate::db::EntryId> {
    let wav = wav::encode(samples);
    entry.body = [entry.body.trim(), transcript.text().as_str()]
        .iter()
        .filter(|t| !t.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n\n");
    let recording = crate::db::audio::NewRecording {
        wav: &wav,
        duration_ms: duration_ms(samples.len()),
        language: &transcript.language,
        segments: &transcript.segments,
    };
    crate::db::audio::create_entry(conn, user, &entry, &recording)
}
