//! The folder where recordings wait: `recordings/` in the data folder.
//!
//! A recording is written here while a person speaks, and stays until its entry is
//! saved (then it is overwritten and removed: the journal holds the only copy). A file
//! left here by a crash, or waiting for a Whisper model, is found again at the next
//! start and transcribed then.
//!
//! Beside a plain journal a recording is a WAV file; beside an encrypted one it is a
//! sealed file ([`crate::sealed`]) of the same samples, so the voice never lies on the
//! disk in the clear. [`read`] reads either kind, and [`follow`] moves the waiting ones
//! from one kind to the other when the journal's encryption changes.

use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset, NaiveDateTime};

use super::wav::{self, RecordingFile, WavError};
use crate::clock;
use crate::db::DbError;
use crate::db::cipher::JournalKey;
use crate::sealed::{self, Spooled};

/// The extension of a plain recording.
pub const WAV: &str = "wav";

/// The folder's name inside the data folder.
pub const FOLDER: &str = "recordings";

/// The folder where Whisper models are looked for when Settings names none.
pub const MODELS_FOLDER: &str = "models";

/// The recordings folder of a data folder.
pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join(FOLDER)
}

/// How a recording's name holds when it was started: the local time and the UTC offset
/// where it was spoken (`2026-01-02_03-04-05+0100`), so an entry made from it later, even
/// days later in another zone, is dated when and where it was spoken ([`started_at`]).
const STAMP: &str = "%Y-%m-%d_%H-%M-%S%z";
const STAMP_CHARS: usize = 24;

/// The stamp of names made before the offset was kept: the local time alone.
const LOCAL_STAMP: &str = "%Y-%m-%d_%H-%M-%S";
const LOCAL_STAMP_CHARS: usize = 19;

/// The start of every recording's name.
const PREFIX: &str = "recording-";

/// A new, unused file name for a recording started now: a WAV file, or a sealed one
/// when the journal is encrypted (`key`).
pub fn new_path(data_dir: &Path, key: Option<&JournalKey>) -> PathBuf {
    let stamp = clock::now_here().format(STAMP);
    let folder = folder(data_dir);
    let extension = match key {
        Some(_) => sealed::EXTENSION,
        None => WAV,
    };
    let taken = |stem: &str| {
        [WAV, sealed::EXTENSION]
            .iter()
            .any(|e| folder.join(format!("{stem}.{e}")).exists())
    };
    let mut stem = format!("{PREFIX}{stamp}");
    let mut n = 2;
    while taken(&stem) {
        stem = format!("{PREFIX}{stamp}-{n}");
        n += 1;
    }
    folder.join(format!("{stem}.{extension}"))
}

/// When the recording at `path` was started, as lived where it was spoken, read from
/// the name [`new_path`] gave it: the date its entry gets, however long it waited for a
/// transcription. A name from before the offset was kept in it is read on this
/// computer's clock; `None` for a name that holds no time.
pub fn started_at(path: &Path) -> Option<DateTime<FixedOffset>> {
    let stamp = path.file_stem()?.to_str()?.strip_prefix(PREFIX)?;
    if let Some(started) = stamp
        .get(..STAMP_CHARS)
        .and_then(|s| DateTime::parse_from_str(s, STAMP).ok())
    {
        return Some(started);
    }
    let local = stamp.get(..LOCAL_STAMP_CHARS)?;
    NaiveDateTime::parse_from_str(local, LOCAL_STAMP)
        .ok()
        .map(clock::local_instant)
}

/// Whether `path` is named as a recording (either kind).
fn is_recording(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(WAV)) || sealed::is_sealed(path)
}

/// Recordings waiting for a transcription, oldest first, plain and sealed.
pub fn waiting(data_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder(data_dir)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_recording(p) && !sealed::is_written_beside(p))
        .collect();
    // By name without its extension: the time it was started, then the counter of a
    // second recording started in the same second ("…-05" before "…-05-2").
    paths.sort_by_key(|p| p.file_stem().map(|s| s.to_owned()));
    paths
}

/// Reads a waiting recording of either kind as 16 kHz mono: a WAV file as
/// [`wav::read_file`] does, a sealed one with the journal's `key`. The one way the
/// transcriber and the writer read a recording.
pub fn read(path: &Path, key: Option<&JournalKey>) -> Result<Vec<f32>, WavError> {
    if !sealed::is_sealed(path) {
        return wav::read_file(path);
    }
    let samples: Vec<f32> = read_sealed(path, key)?
        .into_iter()
        .map(|s| f32::from(s) / 32_768.0)
        .collect();
    match samples.is_empty() {
        true => Err(WavError::Empty {
            path: path.to_owned(),
        }),
        false => Ok(samples),
    }
}

/// A sealed recording's 16-bit samples, its parts one after the other.
fn read_sealed(path: &Path, key: Option<&JournalKey>) -> Result<Vec<i16>, WavError> {
    let sealed_error = |source| WavError::Sealed {
        path: path.to_owned(),
        source,
    };
    let key = key.ok_or_else(|| {
        sealed_error(DbError::Encrypted {
            path: path.to_owned(),
        })
    })?;
    let parts = sealed::read_all(path, key).map_err(sealed_error)?;
    pcm_of_parts(path, &parts)
}

fn pcm_of_parts(path: &Path, parts: &[Vec<u8>]) -> Result<Vec<i16>, WavError> {
    if parts.iter().any(|p| p.len() % 2 != 0) {
        return Err(WavError::Format {
            path: path.to_owned(),
            reason: "a part of the sealed recording is not whole 16-bit samples".into(),
        });
    }
    Ok(parts
        .iter()
        .flat_map(|p| p.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])))
        .collect())
}

/// Brings the recordings waiting in `data_dir` in line with a change of the journal's
/// key (see [`crate::encryption::follow_in_spool`]): WAV files are sealed as one part per
/// second, sealed ones written back as WAV files, and a new passphrase rekeys them.
pub(crate) fn follow(data_dir: &Path, from: Option<&JournalKey>, to: Option<&JournalKey>) -> Vec<String> {
    let kind = Spooled {
        plain: WAV,
        read_plain: |path| {
            let samples = wav::read_pcm(path).map_err(|e| e.to_string())?;
            Ok(samples
                .chunks(super::SAMPLE_RATE as usize)
                .map(|second| second.iter().flat_map(|s| s.to_le_bytes()).collect())
                .collect())
        },
        write_plain: |path, parts| {
            let samples = pcm_of_parts(path, parts).map_err(|e| e.to_string())?;
            let mut file = RecordingFile::create(path, None).map_err(|e| e.to_string())?;
            file.append_pcm(&samples).map_err(|e| e.to_string())?;
            file.finish().map(drop).map_err(|e| e.to_string())
        },
    };
    sealed::follow_in_folder(&folder(data_dir), &kind, from, to)
}

/// The Whisper model to use: the one Settings names, else the first `ggml-*.bin` in the
/// data folder's `models/` (English-only models first: they are faster and most
/// journals are written in one language), else `None`.
pub fn model_path(data_dir: &Path, setting: &str) -> Option<PathBuf> {
    if !setting.trim().is_empty() {
        return Some(PathBuf::from(setting.trim()));
    }
    let entries = std::fs::read_dir(data_dir.join(MODELS_FOLDER)).ok()?;
    let mut models: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ggml-") && n.ends_with(".bin"))
        })
        .collect();
    models.sort_by_key(|p| (!p.to_string_lossy().ends_with(".en.bin"), p.clone()));
    models.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recordings_name_says_when_and_where_it_was_started() {
        let dir = tempfile::tempdir().unwrap();
        let before = clock::now_here();
        let path = new_path(dir.path(), None);
        let started = started_at(&path).unwrap();
        assert_eq!(started.offset(), before.offset(), "{path:?}");
        assert!(
            (started.to_utc() - before.to_utc()).num_seconds().abs() <= 1,
            "{started} {before}"
        );
        let named = |name: &str| started_at(Path::new(name));
        let tokyo = named("recordings/recording-2024-01-05_08-30-00+0900-2.sealed").unwrap();
        assert_eq!(clock::format_lived(&tokyo), "2024-01-05T08:30:00.000+09:00");
        let older = named("recording-2026-01-02_03-04-05.wav").unwrap();
        assert_eq!(older.naive_local().to_string(), "2026-01-02 03:04:05");
        assert_eq!(named("notes.wav"), None);
        assert_eq!(named("recording-soon.wav"), None);
    }

    #[test]
    fn recordings_wait_in_order_and_erasing_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(waiting(dir.path()).is_empty());
        let first = new_path(dir.path(), None);
        std::fs::create_dir_all(first.parent().unwrap()).unwrap();
        std::fs::write(&first, b"RIFF one").unwrap();
        let key = JournalKey::from_raw_hex(&"ab".repeat(48)).unwrap();
        let second = new_path(dir.path(), Some(&key));
        assert_eq!(second.extension().unwrap(), "sealed");
        assert_ne!(first.file_stem(), second.file_stem());
        std::fs::write(&second, b"sealed two").unwrap();
        std::fs::write(folder(dir.path()).join("notes.txt"), b"x").unwrap();
        std::fs::write(folder(dir.path()).join(".x.sealed.converting"), b"x").unwrap();
        assert_eq!(waiting(dir.path()), [first.clone(), second.clone()]);
        crate::files::erase(&first).unwrap();
        assert_eq!(waiting(dir.path()), std::slice::from_ref(&second));
        wav::discard(&second).unwrap();
        wav::discard(&second).unwrap();
        assert!(waiting(dir.path()).is_empty());
    }

    #[test]
    fn a_sealed_recording_reads_as_its_wav_would_and_only_with_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = JournalKey::from_raw_hex(&"cd".repeat(48)).unwrap();
        let tone: Vec<f32> = (0..40_000).map(|i| ((i as f32) * 0.05).sin() * 0.3).collect();
        let mut paths = Vec::new();
        for key in [None, Some(&key)] {
            let path = new_path(dir.path(), key);
            let mut file = RecordingFile::create(&path, key).unwrap();
            file.append(&tone).unwrap();
            file.finish().unwrap();
            paths.push(path);
        }
        let (plain, sealed) = (&paths[0], &paths[1]);
        assert_eq!(read(plain, None).unwrap(), read(sealed, Some(&key)).unwrap());
        assert_eq!(
            crate::sealed::read_all(sealed, &key).unwrap().len(),
            3,
            "a part per second, the rest in the last"
        );
        assert!(matches!(
            read(sealed, None),
            Err(WavError::Sealed {
                source: DbError::Encrypted { .. },
                ..
            })
        ));
        let other = JournalKey::from_raw_hex(&format!("{}{}", "01".repeat(32), "cd".repeat(16))).unwrap();
        let refused = read(sealed, Some(&other)).unwrap_err();
        assert!(
            refused.to_string().contains("passphrase does not open"),
            "{refused}"
        );

        // Cancelled while recording: nothing is left.
        let path = new_path(dir.path(), Some(&key));
        let mut file = RecordingFile::create(&path, Some(&key)).unwrap();
        file.append(&tone).unwrap();
        file.discard();
        assert!(!path.exists());
    }

    #[test]
    fn the_model_is_the_setting_or_the_first_in_the_models_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(model_path(dir.path(), ""), None);
        let models = dir.path().join(MODELS_FOLDER);
        std::fs::create_dir_all(&models).unwrap();
        std::fs::write(models.join("ggml-base.bin"), b"").unwrap();
        std::fs::write(models.join("ggml-tiny.en.bin"), b"").unwrap();
        std::fs::write(models.join("readme.txt"), b"").unwrap();
        assert_eq!(model_path(dir.path(), ""), Some(models.join("ggml-tiny.en.bin")));
        assert_eq!(
            model_path(dir.path(), " /m/x.bin "),
            Some(PathBuf::from("/m/x.bin"))
        );
    }
}
