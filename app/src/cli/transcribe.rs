//! `transcribe FILE.wav`: what Whisper hears in a recording, with no journal opened.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use mindsage_core::voice;

use super::{Args, load_settings, print};

/// `mindsage transcribe FILE`.
pub(super) fn run(args: &Args, file: &Path, model: Option<&Path>) -> Result<()> {
    let transcript = transcribe_file(args, file, model, !args.json)?;
    if transcript.transcript.segments.is_empty() {
        eprintln!("no speech was heard in {}", file.display());
    }
    if args.json {
        print(args, &transcript, String::new)?;
    }
    Ok(())
}

/// A file's transcript as `transcribe --json` prints it.
#[derive(Serialize)]
pub(super) struct FileTranscript {
    pub(super) file: PathBuf,
    pub(super) duration_ms: u64,
    #[serde(flatten)]
    pub(super) transcript: voice::transcribe::Transcript,
    pub(super) text: String,
    /// The recording as 16 kHz mono, read once for both the transcript and the entry.
    #[serde(skip)]
    pub(super) samples: Vec<f32>,
}

/// Transcribes a WAV file with the model from `--model`, Settings or the models folder,
/// with a progress bar on a terminal; `stream` prints each segment as it is decoded.
pub(super) fn transcribe_file(
    args: &Args,
    file: &std::path::Path,
    model: Option<&std::path::Path>,
    stream: bool,
) -> Result<FileTranscript> {
    let samples = voice::wav::read_file(file)?;
    let dir = super::data_dir(args)?;
    let settings = voice::VoiceSettings::from_settings(&load_settings(&dir), &dir);
    let model = voice::transcribe::Model::load(&match model {
        Some(path) => path.to_owned(),
        None => settings.model?,
    })?;
    let bar = indicatif::ProgressBar::new(100).with_style(
        indicatif::ProgressStyle::with_template("transcribing {bar:30} {pos}%").expect("a valid template"),
    );
    let on_bar = bar.clone();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let transcript = model.transcribe(
        &samples,
        &settings.language,
        &cancel,
        move |progress| match progress {
            voice::transcribe::Progress::Percent(p) => on_bar.set_position(u64::from(p)),
            voice::transcribe::Progress::Segment(segment) if stream => {
                on_bar.suspend(|| println!("{}", segment.text));
            }
            voice::transcribe::Progress::Segment(_) => {}
        },
    )?;
    bar.finish_and_clear();
    Ok(FileTranscript {
        file: file.to_owned(),
        duration_ms: voice::duration_ms(samples.len()),
        text: transcript.text(),
        transcript,
        samples,
    })
}
