//! Voice entries: the microphone, 16 kHz mono audio, WAV files and local transcription.
//!
//! Everything here runs off the UI thread and on this computer only.
//!
//! * [`convert`]: any rate and channel count to Whisper's 16 kHz mono, in chunks, so a
//!   file and a live device go through exactly the same code.
//! * [`wav`]: reading any WAV a person opens, and the recording file written while they
//!   speak (flushed every second, so a crash loses at most the last one).
//! * [`capture`]: the recorder: an input stream (a cpal device, or a file played at real
//!   time for tests) whose callback only copies samples into a lock-free ring buffer,
//!   and a thread that converts, meters and writes them.
//! * [`transcribe`]: whisper.cpp through whisper-rs, with progress, segments as they are
//!   decoded, and cancel; and the checks that name a missing or wrong model file.
//! * [`playback`]: playing an entry's recording through the default output device.
//! * [`recordings`]: the folder where recordings wait for their transcription.
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

/// Saves a transcribed recording as a new entry: the transcript is its body, the
/// recording and its segments are kept with it, and its model work is queued, all in
/// one transaction. The app and `mindsage add --audio` both come here.
pub fn save_entry(
    conn: &mut rusqlite::Connection,
    user: crate::db::UserId,
    samples: &[f32],
    transcript: &transcribe::Transcript,
) -> crate::db::Result<crate::db::EntryId> {
    let wav = wav::encode(samples);
    let entry = crate::db::entries::NewEntry {
        body: transcript.text(),
        ..Default::default()
    };
    let recording = crate::db::audio::NewRecording {
        wav: &wav,
        duration_ms: duration_ms(samples.len()),
        language: &transcript.language,
        segments: &transcript.segments,
    };
    crate::db::audio::create_entry(conn, user, &entry, &recording)
}
