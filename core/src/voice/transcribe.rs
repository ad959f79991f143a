//! Speech to text on this computer: whisper.cpp through whisper-rs.
//!
//! A model file is checked before whisper.cpp sees it, so a missing, truncated or wrong
//! file is a message naming the file and what fits, never a crash inside C++. A run
//! reports its progress and each segment as it is decoded, and stops early when asked,
//! keeping the segments it has: a person who cancels still gets what was heard.

use std::cell::RefCell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

use super::SAMPLE_RATE;
use crate::db::audio::Segment;

/// Model files whisper.cpp publishes and MindSage can load, as examples for messages.
pub const MODEL_FILE_NAMES: &str = "ggml-tiny.en.bin, ggml-base.en.bin, ggml-small.en.bin (English) or ggml-tiny.bin, ggml-base.bin, ggml-small.bin (any language)";

/// The first bytes of every ggml Whisper model ("ggml" as a little-endian u32).
const GGML_MAGIC: [u8; 4] = *b"lmgg";

/// The smallest Whisper model (tiny, quantised) is larger than this; anything smaller is
/// a partial download.
const MIN_MODEL_BYTES: u64 = 8 * 1024 * 1024;

/// Recordings shorter than this hold no word Whisper can hear.
const MIN_SAMPLES: usize = SAMPLE_RATE as usize / 10;

/// Why there is no model to transcribe with. Each message says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("no Whisper model is set up: put a model file ({MODEL_FILE_NAMES}) in {}, or choose one in Settings", folder.display())]
    NotSetUp { folder: PathBuf },
    #[error("there is no Whisper model at {}: put a model file ({MODEL_FILE_NAMES}) there, or choose another in Settings", path.display())]
    Missing { path: PathBuf },
    #[error("{} is not a Whisper model in ggml format; whisper.cpp's model files fit ({MODEL_FILE_NAMES})", path.display())]
    NotAModel { path: PathBuf },
    #[error("{} is only {bytes} bytes: the download looks unfinished; fetch the model file again", path.display())]
    Truncated { path: PathBuf, bytes: u64 },
    #[error("{} could not be loaded by whisper.cpp (it may be damaged or of a newer format); fetch the model file again", path.display())]
    Unloadable { path: PathBuf },
    #[error("cannot read {}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "this computer's processor lacks {missing}, which MindSage's speech recognition needs; voice entries are unavailable here"
    )]
    Processor { missing: &'static str },
}

/// Why a transcription did not finish.
#[derive(Debug, thiserror::Error)]
pub enum TranscribeError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the recording is too short to hold words")]
    TooShort,
    #[error(
        "{model} understands English only; choose a multilingual model (such as ggml-base.bin) for {language}"
    )]
    EnglishOnly { model: String, language: String },
    #[error("\"{0}\" is not a language Whisper knows; use a code such as en, de, fr or auto")]
    UnknownLanguage(String),
    #[error("whisper.cpp failed: {0}")]
    Whisper(String),
}

/// Which language to listen for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Language {
    /// Whisper detects it (English-only models always hear English).
    #[default]
    Auto,
    /// A Whisper language code such as "en" or "de".
    Fixed(String),
}

impl Language {
    /// From a setting: empty or "auto" is [`Language::Auto`].
    pub fn from_setting(text: &str) -> Language {
        match text.trim() {
            "" | "auto" => Language::Auto,
            code => Language::Fixed(code.to_lowercase()),
        }
    }
}

/// What a run heard.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Transcript {
    /// The language heard (or fixed), as a Whisper code.
    pub language: String,
    pub segments: Vec<Segment>,
    /// True when the person stopped it early: the segments are those decoded by then.
    pub cancelled: bool,
}

impl Transcript {
    /// The segments as one text, the way it becomes an entry's body.
    pub fn text(&self) -> String {
        let words: Vec<&str> = self
            .segments
            .iter()
            .map(|s| s.text.trim())
            .filter(|t| !t.is_empty())
            .collect();
        words.join(" ")
    }
}

/// What a run reports while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Percent of the audio processed.
    Percent(u8),
    /// A segment just decoded.
    Segment(Segment),
}

/// Checks that `path` holds a Whisper model without loading it: quick enough for the
/// Settings screen and for a message before a person records.
pub fn check_model(path: &Path) -> Result<(), ModelError> {
    check_processor()?;
    let unreadable = |reason: String| ModelError::Unreadable {
        path: path.to_owned(),
        reason,
    };
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ModelError::Missing {
                path: path.to_owned(),
            });
        }
        Err(e) => return Err(unreadable(e.to_string())),
    };
    if !metadata.is_file() {
        return Err(ModelError::NotAModel {
            path: path.to_owned(),
        });
    }
    let mut magic = [0_u8; 4];
    let read = std::fs::File::open(path)
        .and_then(|mut file| file.read(&mut magic))
        .map_err(|e| unreadable(e.to_string()))?;
    if read < 4 || magic != GGML_MAGIC {
        return Err(ModelError::NotAModel {
            path: path.to_owned(),
        });
    }
    if metadata.len() < MIN_MODEL_BYTES {
        return Err(ModelError::Truncated {
            path: path.to_owned(),
            bytes: metadata.len(),
        });
    }
    Ok(())
}

/// whisper.cpp is built for one fixed x86-64 level (`.cargo/config.toml`): without
/// these instructions it would die on an illegal instruction, so say so instead.
fn check_processor() -> Result<(), ModelError> {
    #[cfg(target_arch = "x86_64")]
    for (present, missing) in [
        (std::arch::is_x86_feature_detected!("sse4.2"), "SSE4.2"),
        (std::arch::is_x86_feature_detected!("avx"), "AVX"),
        (std::arch::is_x86_feature_detected!("avx2"), "AVX2"),
        (std::arch::is_x86_feature_detected!("bmi2"), "BMI2"),
        (std::arch::is_x86_feature_detected!("fma"), "FMA"),
        (std::arch::is_x86_feature_detected!("f16c"), "F16C"),
    ] {
        if !present {
            return Err(ModelError::Processor { missing });
        }
    }
    Ok(())
}

/// A loaded Whisper model. Loading takes a fraction of a second to seconds; keep one
/// for as long as recordings may come.
pub struct Model {
    context: WhisperContext,
    path: PathBuf,
}

impl Model {
    /// Checks and loads the model at `path`.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        check_model(path)?;
        // whisper.cpp's own chatter goes to `tracing` (it never holds transcribed text).
        whisper_rs::install_logging_hooks();
        let context =
            WhisperContext::new_with_params(path, WhisperContextParameters::default()).map_err(|_| {
                ModelError::Unloadable {
                    path: path.to_owned(),
                }
            })?;
        Ok(Model {
            context,
            path: path.to_owned(),
        })
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it understands languages other than English.
    pub fn is_multilingual(&self) -> bool {
        self.context.is_multilingual()
    }

    /// Transcribes 16 kHz mono `samples`. `progress` hears each percent and segment as
    /// whisper.cpp produces them (on this thread); `cancel` stops the run at the next
    /// check, and the result then holds the segments decoded so far.
    pub fn transcribe(
        &self,
        samples: &[f32],
        language: &Language,
        cancel: &Arc<AtomicBool>,
        progress: impl FnMut(Progress) + 'static,
    ) -> Result<Transcript, TranscribeError> {
        puffin::profile_function!();
        if samples.len() < MIN_SAMPLES {
            return Err(TranscribeError::TooShort);
        }
        let code = self.language_code(language)?;
        let mut state = self
            .context
            .create_state()
            .map_err(|e| TranscribeError::Whisper(e.to_string()))?;
        let mut params = FullParams::new(SamplingStrategy::Greedy { best_of: 1 });
        params.set_n_threads(threads() as i32);
        params.set_language(Some(code.as_str()));
        params.set_print_progress(false);
        params.set_print_realtime(false);
        params.set_print_special(false);
        params.set_print_timestamps(false);
        let progress = Rc::new(RefCell::new(progress));
        let on_percent = Rc::clone(&progress);
        params.set_progress_callback_safe(move |percent: i32| {
            (on_percent.borrow_mut())(Progress::Percent(percent.clamp(0, 100) as u8));
        });
        let on_segment = Rc::clone(&progress);
        let loudness = Rc::new(Loudness::of(samples));
        let heard = Rc::clone(&loudness);
        params.set_segment_callback_safe(move |data: whisper_rs::SegmentCallbackData| {
            let segment = segment(data.start_timestamp, data.end_timestamp, data.text);
            if heard.heard(&segment) {
                (on_segment.borrow_mut())(Progress::Segment(segment));
            }
        });
        let stop = Arc::clone(cancel);
        // Boxed on purpose: whisper-rs 0.16's safe abort callback calls its closure
        // through a pointer typed as the closure's own type while it stores a boxed
        // trait object, so only a closure that *is* that boxed trait object is called
        // correctly (any other reads garbage and aborts every run).
        let abort: Box<dyn FnMut() -> bool> = Box::new(move || stop.load(Ordering::Relaxed));
        params.set_abort_callback_safe(abort);
        let outcome = state.full(params, samples);
        let cancelled = cancel.load(Ordering::Relaxed);
        if let Err(e) = outcome
            && !cancelled
        {
            return Err(TranscribeError::Whisper(e.to_string()));
        }
        let segments = state
            .as_iter()
            .map(|s| {
                let text = s.to_str_lossy().map(|t| t.into_owned()).unwrap_or_default();
                segment(s.start_timestamp(), s.end_timestamp(), text)
            })
            .filter(|s| loudness.heard(s))
            .collect();
        let language = if code == "auto" {
            whisper_rs::get_lang_str(state.full_lang_id_from_state())
                .unwrap_or("en")
                .to_owned()
        } else {
            code
        };
        Ok(Transcript {
            language,
            segments,
            cancelled,
        })
    }

    /// The code to give whisper.cpp: English-only models always get "en".
    fn language_code(&self, language: &Language) -> Result<String, TranscribeError> {
        match language {
            Language::Auto if self.is_multilingual() => Ok("auto".to_owned()),
            Language::Auto => Ok("en".to_owned()),
            Language::Fixed(code) => {
                if whisper_rs::get_lang_id(code).is_none() {
                    return Err(TranscribeError::UnknownLanguage(code.clone()));
                }
                if code != "en" && !self.is_multilingual() {
                    return Err(TranscribeError::EnglishOnly {
                        model: self
                            .path
                            .file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned(),
                        language: code.clone(),
                    });
                }
                Ok(code.clone())
            }
        }
    }
}

/// How loud each short frame of a recording is, to tell words from silence.
///
/// Whisper makes sentences up over silence ("Thank you.", a line repeated), which a
/// person gets whenever they pause before pressing Stop or a muted microphone records
/// nothing. A segment whose audio never rises above near-silence is such an invention
/// and is left out. The level is far below soft speech, so quiet words are kept.
struct Loudness {
    /// Root mean square of each [`Loudness::FRAME_MS`] frame.
    frames: Vec<f32>,
}

impl Loudness {
    const FRAME_MS: u64 = 20;
    /// About -55 dBFS: under a quiet room's noise, well under soft speech.
    const SILENCE: f32 = 0.0018;

    fn of(samples: &[f32]) -> Loudness {
        let frame = (SAMPLE_RATE as u64 * Self::FRAME_MS / 1000) as usize;
        let frames = samples
            .chunks(frame)
            .map(|chunk| (chunk.iter().map(|s| s * s).sum::<f32>() / chunk.len() as f32).sqrt())
            .collect();
        Loudness { frames }
    }

    /// Whether anything in the segment's time rises above silence (a segment with no
    /// time, or past the end, is kept: only audio can rule one out).
    fn heard(&self, segment: &Segment) -> bool {
        let first = (segment.start_ms / Self::FRAME_MS) as usize;
        let last = (segment.end_ms.div_ceil(Self::FRAME_MS) as usize).min(self.frames.len());
        first >= last || self.frames[first..last].iter().any(|&rms| rms > Self::SILENCE)
    }
}

/// whisper.cpp gives times in hundredths of a second.
fn segment(start: i64, end: i64, text: String) -> Segment {
    Segment {
        start_ms: start.max(0) as u64 * 10,
        end_ms: end.max(0) as u64 * 10,
        text: text.trim().to_owned(),
    }
}

/// Threads for whisper.cpp: every core, up to the eight it scales to. (Its threads wait
/// for each other at every step, so on a busy machine it slows far more than its share
/// of the CPU: see the `stt` stage in docs/optimisation-log.md.)
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().min(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_over_silence_are_not_heard() {
        let second = SAMPLE_RATE as usize;
        // A second of a soft tone (about -40 dBFS), then two of digital silence, then a
        // second of a quiet room's hiss (about -65 dBFS).
        let mut samples: Vec<f32> = (0..second).map(|i| 0.014 * (i as f32 * 0.05).sin()).collect();
        samples.extend(std::iter::repeat_n(0.0, 2 * second));
        samples.extend((0..second).map(|i| if i % 2 == 0 { 0.0006 } else { -0.0006 }));
        let loudness = Loudness::of(&samples);
        let span = |start_ms, end_ms| Segment {
            start_ms,
            end_ms,
            text: String::new(),
        };
        assert!(loudness.heard(&span(0, 1_000)));
        assert!(loudness.heard(&span(900, 2_500)), "words that run into a pause");
        assert!(
            !loudness.heard(&span(1_100, 3_000)),
            "a sentence made up over silence"
        );
        assert!(!loudness.heard(&span(3_000, 4_000)), "a quiet room's hiss");
        assert!(
            loudness.heard(&span(5_000, 6_000)),
            "past the end: nothing to rule it out"
        );
    }

    #[test]
    fn model_files_that_cannot_work_are_named_before_whisper_sees_them() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("ggml-base.en.bin");
        assert_eq!(
            check_model(&missing),
            Err(ModelError::Missing {
                path: missing.clone()
            })
        );
        let text = dir.path().join("notes.bin");
        std::fs::write(&text, b"not a model at all").unwrap();
        assert_eq!(
            check_model(&text),
            Err(ModelError::NotAModel { path: text.clone() })
        );
        let partial = dir.path().join("ggml-tiny.en.bin");
        let mut bytes = GGML_MAGIC.to_vec();
        bytes.resize(100_000, 0);
        std::fs::write(&partial, &bytes).unwrap();
        assert!(matches!(
            check_model(&partial),
            Err(ModelError::Truncated { bytes: 100_000, .. })
        ));
        assert!(matches!(
            check_model(dir.path()),
            Err(ModelError::NotAModel { .. })
        ));
        let message = ModelError::Missing { path: missing }.to_string();
        assert!(
            message.contains("ggml-base.en.bin") && message.contains("Settings"),
            "{message}"
        );
    }

    #[test]
    fn a_language_setting_is_auto_or_a_code() {
        assert_eq!(Language::from_setting(""), Language::Auto);
        assert_eq!(Language::from_setting(" auto "), Language::Auto);
        assert_eq!(Language::from_setting("DE"), Language::Fixed("de".to_owned()));
    }

    #[test]
    fn a_transcript_reads_as_one_text() {
        let transcript = Transcript {
            language: "en".to_owned(),
            segments: vec![
                segment(0, 150, " I went for a run.".to_owned()),
                segment(150, 300, " ".to_owned()),
                segment(300, 420, "It rained.".to_owned()),
            ],
            cancelled: false,
        };
        assert_eq!(transcript.text(), "I went for a run. It rained.");
        assert_eq!(transcript.segments[0].end_ms, 1500);
    }
}
