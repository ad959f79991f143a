//! WAV files: reading whatever a person opens, and writing the recording as it is made
//! (a WAV file, or beside an encrypted journal a sealed file of the same samples).
//!
//! Everything MindSage keeps is 16-bit PCM, 16 kHz, mono: what Whisper listens to, half
//! the size of float samples, and playable by any program if a person copies it out.

use std::fs::File;
use std::io::{BufWriter, Cursor, Read};
use std::path::{Path, PathBuf};

use super::SAMPLE_RATE;
use super::convert::{self, ConvertError};
use crate::db::DbError;
use crate::db::cipher::JournalKey;
use crate::sealed::SealedFile;

/// Why a recording could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WavError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is not a WAV file MindSage can read ({reason})", path.display())]
    Format { path: PathBuf, reason: String },
    #[error("{} holds no sound", path.display())]
    Empty { path: PathBuf },
    #[error("{} could not be converted: {source}", path.display())]
    Convert { path: PathBuf, source: ConvertError },
    #[error("cannot write the recording {}: {reason}", path.display())]
    Write { path: PathBuf, reason: String },
    /// A sealed recording (an encrypted journal's) that does not open: no key, a key
    /// it was not sealed with, or damage.
    #[error("the recording could not be read: {source}")]
    Sealed { path: PathBuf, source: DbError },
}

/// Reads a WAV file of any PCM or float format, rate and channel count, as 16 kHz mono.
pub fn read_file(path: &Path) -> Result<Vec<f32>, WavError> {
    let file = File::open(path).map_err(|source| WavError::Io {
        path: path.to_owned(),
        source,
    })?;
    decode(std::io::BufReader::new(file), path)
}

/// Reads WAV bytes (a stored recording) as 16 kHz mono.
pub fn decode_bytes(bytes: &[u8]) -> Result<Vec<f32>, WavError> {
    decode(Cursor::new(bytes), Path::new("the stored recording"))
}

fn decode<R: Read>(reader: R, path: &Path) -> Result<Vec<f32>, WavError> {
    let format = |reason: String| WavError::Format {
        path: path.to_owned(),
        reason,
    };
    let mut reader = hound::WavReader::new(reader).map_err(|e| format(e.to_string()))?;
    let spec = reader.spec();
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float if spec.bits_per_sample == 32 => reader
            .samples::<f32>()
            .collect::<Result<_, _>>()
            .map_err(|e| format(e.to_string()))?,
        hound::SampleFormat::Int if (8..=32).contains(&spec.bits_per_sample) => {
            let scale = 1.0 / (1_i64 << (spec.bits_per_sample - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|s| s as f32 * scale))
                .collect::<Result<_, _>>()
                .map_err(|e| format(e.to_string()))?
        }
        _ => {
            return Err(format(format!(
                "{}-bit {:?} samples",
                spec.bits_per_sample, spec.sample_format
            )));
        }
    };
    if interleaved.is_empty() {
        return Err(WavError::Empty {
            path: path.to_owned(),
        });
    }
    convert::to_whisper_rate(&interleaved, spec.sample_rate, spec.channels).map_err(|source| {
        WavError::Convert {
            path: path.to_owned(),
            source,
        }
    })
}

/// The format MindSage keeps recordings in.
pub fn kept_spec() -> hound::WavSpec {
    hound::WavSpec {
        channels: 1,
        sample_rate: SAMPLE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    }
}

/// 16 kHz mono samples as the bytes of a WAV file in the kept format.
pub fn encode(samples: &[f32]) -> Vec<u8> {
    let mut bytes = Cursor::new(Vec::with_capacity(44 + samples.len() * 2));
    {
        // Writing into memory cannot fail.
        let mut writer = hound::WavWriter::new(&mut bytes, kept_spec()).expect("WAV header into memory");
        for &sample in samples {
            writer
                .write_sample(to_i16(sample))
                .expect("WAV samples into memory");
        }
        writer.finalize().expect("WAV into memory");
    }
    bytes.into_inner()
}

fn to_i16(sample: f32) -> i16 {
    (sample.clamp(-1.0, 1.0) * f32::from(i16::MAX)).round() as i16
}

/// The samples of a recording MindSage wrote (16-bit, 16 kHz, mono) exactly as written;
/// a WAV file in any other format is read as [`read_file`] reads it and rounded to 16
/// bits.
pub(crate) fn read_pcm(path: &Path) -> Result<Vec<i16>, WavError> {
    let reader = hound::WavReader::open(path).map_err(|e| WavError::Format {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    if reader.spec() != kept_spec() {
        return Ok(read_file(path)?.into_iter().map(to_i16).collect());
    }
    reader
        .into_samples::<i16>()
        .collect::<Result<_, _>>()
        .map_err(|e| WavError::Format {
            path: path.to_owned(),
            reason: e.to_string(),
        })
}

/// The recording on disk while a person speaks: a WAV file beside a plain journal, a
/// sealed file ([`crate::sealed`], the journal's key) beside an encrypted one, so no
/// sound reaches the disk in the clear. Either way what a crash leaves reads back whole
/// up to the last second: the WAV's header is rewritten every second, and the sealed
/// file is given each second as a part of its own (16-bit little-endian PCM, 16 kHz,
/// mono), committed before the next one starts.
pub struct RecordingFile {
    path: PathBuf,
    sink: Sink,
    since_flush: usize,
    samples: usize,
}

/// Where a recording's samples go: the two kinds of file, behind one way of writing.
enum Sink {
    Wav(hound::WavWriter<BufWriter<File>>),
    Sealed {
        file: SealedFile,
        /// The samples since the last part, as the next part's bytes.
        part: Vec<u8>,
    },
}

impl Sink {
    fn write(&mut self, sample: i16) -> Result<(), String> {
        match self {
            Sink::Wav(writer) => writer.write_sample(sample).map_err(|e| e.to_string()),
            Sink::Sealed { part, .. } => {
                part.extend_from_slice(&sample.to_le_bytes());
                Ok(())
            }
        }
    }

    /// Makes what was written so far survive a crash.
    fn flush(&mut self) -> Result<(), String> {
        match self {
            Sink::Wav(writer) => writer.flush().map_err(|e| e.to_string()),
            Sink::Sealed { file, part } if !part.is_empty() => {
                file.append(part).map_err(|e| e.to_string())?;
                part.clear();
                Ok(())
            }
            Sink::Sealed { .. } => Ok(()),
        }
    }

    fn finish(mut self) -> Result<(), String> {
        self.flush()?;
        match self {
            Sink::Wav(writer) => writer.finalize().map_err(|e| e.to_string()),
            Sink::Sealed { file, .. } => file.close().map_err(|e| e.to_string()),
        }
    }
}

impl RecordingFile {
    /// Creates the file (its folder too): a WAV file without a key, a sealed file keyed
    /// with `key`.
    pub fn create(path: &Path, key: Option<&JournalKey>) -> Result<RecordingFile, WavError> {
        let write = |reason: String| WavError::Write {
            path: path.to_owned(),
            reason,
        };
        if let Some(folder) = path.parent() {
            crate::files::create_private_dir(folder).map_err(|e| write(e.to_string()))?;
        }
        let sink = match key {
            None => {
                // The person's voice: readable by them only, as the journal is.
                let file = crate::files::create_private_file(path).map_err(|e| write(e.to_string()))?;
                Sink::Wav(
                    hound::WavWriter::new(BufWriter::new(file), kept_spec())
                        .map_err(|e| write(e.to_string()))?,
                )
            }
            Some(key) => Sink::Sealed {
                file: SealedFile::create(path, key).map_err(|e| write(e.to_string()))?,
                part: Vec::with_capacity(2 * SAMPLE_RATE as usize),
            },
        };
        Ok(RecordingFile {
            path: path.to_owned(),
            sink,
            since_flush: 0,
            samples: 0,
        })
    }

    /// Appends 16 kHz mono samples; flushes each second's worth as it completes.
    pub fn append(&mut self, samples: &[f32]) -> Result<(), WavError> {
        self.push(samples.iter().map(|&s| to_i16(s)))
    }

    /// Appends 16 kHz mono samples already in 16 bits (a recording moved from one kind
    /// of file to the other).
    pub fn append_pcm(&mut self, samples: &[i16]) -> Result<(), WavError> {
        self.push(samples.iter().copied())
    }

    fn push(&mut self, samples: impl Iterator<Item = i16>) -> Result<(), WavError> {
        for sample in samples {
            self.sink.write(sample).map_err(|e| self.error(e))?;
            self.samples += 1;
            self.since_flush += 1;
            if self.since_flush >= SAMPLE_RATE as usize {
                self.sink.flush().map_err(|e| self.error(e))?;
                self.since_flush = 0;
            }
        }
        Ok(())
    }

    /// Samples written so far.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the last samples and closes the file (a WAV's final header).
    pub fn finish(self) -> Result<PathBuf, WavError> {
        let RecordingFile { path, sink, .. } = self;
        sink.finish().map_err(|reason| WavError::Write {
            path: path.clone(),
            reason,
        })?;
        Ok(path)
    }

    /// Throws the recording away: the file is closed, then erased.
    pub fn discard(self) {
        let RecordingFile { path, sink, .. } = self;
        drop(sink);
        if let Err(error) = discard(&path) {
            tracing::warn!(%error, file = %path.display(), "a cancelled recording could not be erased");
        }
    }

    fn error(&self, reason: String) -> WavError {
        WavError::Write {
            path: self.path.clone(),
            reason,
        }
    }
}

/// Erases a recording of either kind ([`crate::files::erase`]; for a sealed one also the -journal a
/// crash may have left beside it). Nothing there is no error.
pub fn discard(path: &Path) -> std::io::Result<()> {
    match crate::sealed::is_sealed(path) {
        true => crate::files::erase_with_companions(path),
        false => match crate::files::erase(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            outcome => outcome,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_a_crash_keeps_all_but_the_last_second() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recordings/one.wav");
        let tone: Vec<f32> = (0..40_000).map(|i| ((i as f32) * 0.05).sin() * 0.3).collect();
        let mut file = RecordingFile::create(&path, None).unwrap();
        file.append(&tone).unwrap();
        // Dropped without finish(), as a crash would leave it: the header written at
        // the last flush (after 32,000 samples) still reads.
        std::mem::forget(file);
        let crashed = read_file(&path).unwrap();
        assert!(
            crashed.len() >= 32_000 && crashed.len() <= 40_000,
            "{}",
            crashed.len()
        );

        let mut file = RecordingFile::create(&path, None).unwrap();
        file.append(&tone).unwrap();
        file.finish().unwrap();
        let back = read_file(&path).unwrap();
        assert_eq!(back.len(), tone.len());
        let worst = back
            .iter()
            .zip(&tone)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(worst < 1e-3, "{worst}");
        assert_eq!(decode_bytes(&encode(&tone)).unwrap().len(), tone.len());
    }

    #[test]
    fn files_that_are_not_wav_are_named_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.wav");
        std::fs::write(&path, b"this is text, not sound").unwrap();
        let error = read_file(&path).unwrap_err();
        assert!(matches!(error, WavError::Format { .. }), "{error}");
        assert!(error.to_string().contains("notes.wav"), "{error}");
        assert!(matches!(
            read_file(&dir.path().join("missing.wav")),
            Err(WavError::Io { .. })
        ));
        let empty = dir.path().join("empty.wav");
        std::fs::write(&empty, encode(&[])).unwrap();
        assert!(matches!(read_file(&empty), Err(WavError::Empty { .. })));
    }
}
