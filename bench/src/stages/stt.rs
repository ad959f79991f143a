//! The `stt` stage: how fast voice entries are transcribed on this computer, how soon
//! the first words appear, and how well they match what was said.
//!
//! Each Whisper model ([`MODELS`]: the English-only tiny.en the app suggests, and the
//! multilingual base) is made or found by `shared/whisper-model/fetch-model.sh`, the
//! script the core tests use, and transcribed through the app's own
//! `mindsage_core::voice::transcribe::Model`, with the language on auto as the app
//! starts. Per model:
//!
//! * `M.model_load`: `Model::load` (checking the file, then whisper.cpp's load), with
//!   the file in the page cache. The app loads the model before a person presses Stop,
//!   so this is kept apart from the figures below.
//! * `M.transcribe_clip`, `M.word_error_rate`, `M.clips_missing_keywords`: each
//!   labelled sample (`shared/whisper-model/samples`, `expected.tsv`) transcribed on its
//!   own: the time of each, the mean word error rate (lower is better; recorded as a
//!   count, the unit whose rise `compare` calls a regression) and how many samples miss
//!   one of their key words. These runs also warm the model up for the timings that
//!   follow.
//! * `M.transcribe_60s`, `M.first_segment`, `M.real_time_factor.p50` and `.p95`,
//!   `M.word_error_rate_60s`: one recording of at least a minute, the samples joined
//!   with half a second of silence between them, the set starting over until it is long
//!   enough, so it ends at most one sample past the minute (whisper.cpp pads every
//!   clip to a 30-second window, so a short clip would measure the padding),
//!   transcribed [`REPEATS`] times. `first_segment` runs from the call until the
//!   first decoded segment reaches the progress callback: what a person waits for
//!   after pressing Stop. The real-time factor is the recording's
//!   seconds over the transcription's (higher is better), once from the p50 time and
//!   once from the p95 time, the slow end the board tracks.
//!
//! `threads` records the threads whisper.cpp was given (every core, up to eight, as
//! `voice::transcribe` chooses), and each model goes into the run's `models` with its
//! file's sha256, so runs on other weights or another core count say so.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mindsage_core::voice::score::{self, LabelledClip};
use mindsage_core::voice::transcribe::{Language, Model as Whisper, Progress, Transcript};
use mindsage_core::voice::{SAMPLE_RATE, wav};

use super::{Recorder, Stage, StageContext};
use crate::busy::Series;
use crate::run::{Measure, Model, Scenario, Unit};
use crate::stats::Payload;

/// The models measured, as `fetch-model.sh` names them (`WHISPER_MODEL_SIZE`).
pub const MODELS: [&str; 2] = ["tiny.en", "base"];
/// Transcriptions of the minute-long recording per model: each takes seconds, and the
/// spread between them is small next to a neighbour's compile.
const REPEATS: usize = 3;
/// Model loads timed per model.
const LOADS: usize = 3;
/// The joined recording is at least this long.
const RECORDING_MIN_S: f64 = 60.0;
/// Silence between two samples in the joined recording.
const GAP_S: f64 = 0.5;

pub struct Stt;

impl Stage for Stt {
    fn name(&self) -> &'static str {
        "stt"
    }

    fn run(&self, _ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        let whisper_dir = shared_dir().join("whisper-model");
        let samples_dir = whisper_dir.join("samples");
        let clips = score::read_labels(&samples_dir).with_context(|| {
            format!(
                "the stt stage reads {}",
                samples_dir.join("expected.tsv").display()
            )
        })?;
        anyhow::ensure!(
            !clips.is_empty(),
            "{} names no samples",
            samples_dir.join("expected.tsv").display()
        );
        let audio: Vec<Vec<f32>> = clips
            .iter()
            .map(|c| wav::read_file(&c.path).with_context(|| format!("reading {}", c.path.display())))
            .collect::<anyhow::Result<_>>()?;
        // Every model first, so a missing one stops the stage before minutes of work.
        let script = whisper_dir.join("fetch-model.sh");
        let paths: Vec<PathBuf> = MODELS
            .iter()
            .map(|size| {
                fetch_model(&script, size)
                    .with_context(|| format!("the stt stage needs the Whisper model {size}"))
            })
            .collect::<anyhow::Result<_>>()?;
        out.add_models(
            MODELS
                .iter()
                .zip(&paths)
                .map(|(size, path)| describe_model(size, path))
                .collect(),
        );

        let threads = mindsage_core::voice::transcribe::threads();
        out.push(value(
            "threads",
            threads as f64,
            Unit::Count,
            format!(
                "threads given to whisper.cpp: every core up to 8, as voice::transcribe chooses \
                 ({} logical cores here; load average {} at the stage's start)",
                std::thread::available_parallelism().map_or(1, |n| n.get()),
                load_average().as_deref().unwrap_or("unknown")
            ),
        ));
        let (recording, order) = join_clips(&audio, RECORDING_MIN_S, GAP_S);
        let said: Vec<&str> = order.iter().map(|&i| clips[i].text.as_str()).collect();
        let said = said.join(" ");
        let long = Long {
            samples: &recording,
            said: &said,
            seconds: recording.len() as f64 / f64::from(SAMPLE_RATE),
            joined: order.len(),
            clips: clips.len(),
        };
        for (size, path) in MODELS.iter().zip(&paths) {
            if let Err(e) = measure_model(size, path, &clips, &audio, &long, threads, out) {
                out.push(failed(size, &e));
            }
        }
        Ok(())
    }
}

/// The joined recording and what was said in it.
struct Long<'a> {
    samples: &'a [f32],
    said: &'a str,
    seconds: f64,
    /// Samples joined, the set's repeats included.
    joined: usize,
    clips: usize,
}

fn measure_model(
    size: &str,
    path: &Path,
    clips: &[LabelledClip],
    audio: &[Vec<f32>],
    long: &Long<'_>,
    threads: usize,
    out: &mut Recorder,
) -> anyhow::Result<()> {
    let params = |mut s: Scenario| {
        s.params.insert("model".into(), size.to_owned());
        s.params.insert("threads".into(), threads.to_string());
        s
    };
    let name = |what: &str| format!("{size}.{what}");

    // Each load and transcription is measured once more when the machine was busy
    // during it, the quieter kept.
    let remeasure = out.remeasure;
    let (mut loads, mut load_series, mut model) = (Vec::new(), Series::default(), None);
    for _ in 0..LOADS {
        drop(model.take());
        let (elapsed, loaded) = load_series.measure(remeasure, || {
            let started = Instant::now();
            let loaded = Whisper::load(path).with_context(|| format!("loading {}", path.display()))?;
            Ok((started.elapsed(), loaded))
        })?;
        loads.push(elapsed);
        model = Some(loaded);
    }
    let model = model.expect("loaded at least once");
    out.push(
        params(timing(
            &name("model_load"),
            &loads,
            None,
            &format!(
                "Model::load of {} (file check and whisper.cpp's load), file in the page cache",
                file_name(path)
            ),
        ))
        .measured_over(&load_series, "loads"),
    );

    // Each sample on its own: quality, and the warm-up for the timings below.
    let (mut times, mut rates, mut errors, mut missing) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut smallest, mut clip_series) = (None::<u64>, Series::default());
    for (clip, samples) in clips.iter().zip(audio) {
        let (elapsed, _, transcript) = clip_series.measure(remeasure, || transcribe(&model, samples))?;
        let text = transcript.text();
        times.push(elapsed);
        smallest = Some(smallest.map_or(text.len() as u64, |s| s.min(text.len() as u64)));
        let file = file_name(&clip.path);
        let rate = score::word_error_rate(&clip.text, &text);
        rates.push(rate);
        errors.push(format!("{file} {rate:.3}"));
        let lost = score::missing_keywords(&text, &clip.keywords);
        if !lost.is_empty() {
            missing.push(format!("{file}: {} (heard {text:?})", lost.join(", ")));
        }
    }
    let mean_wer = rates.iter().sum::<f64>() / rates.len() as f64;
    let clips_note = format!("{} labelled samples, each transcribed on its own", clips.len());
    out.push(
        params(timing(
            &name("transcribe_clip"),
            &times,
            smallest.map(|b| Payload::of(1, b)),
            &format!("{clips_note} (whisper.cpp pads each to a 30-second window)"),
        ))
        .measured_over(&clip_series, "samples"),
    );
    out.push(params(value(
        &name("word_error_rate"),
        mean_wer,
        Unit::Count,
        format!(
            "mean word error rate over {clips_note} (lower is better): {}",
            errors.join(", ")
        ),
    )));
    out.push(params(value(
        &name("clips_missing_keywords"),
        missing.len() as f64,
        Unit::Count,
        if missing.is_empty() {
            format!("of {}: every sample's key words were heard", clips.len())
        } else {
            format!("of {}: {}", clips.len(), missing.join("; "))
        },
    )));

    // The minute-long recording.
    let (mut totals, mut firsts, mut long_series) = (Vec::new(), Vec::new(), Series::default());
    let mut heard = String::new();
    for _ in 0..REPEATS {
        let (elapsed, first, transcript) =
            long_series.measure(remeasure, || transcribe(&model, long.samples))?;
        let first = first.context("the recording's transcription decoded no segment")?;
        totals.push(elapsed);
        firsts.push(first);
        heard = transcript.text();
    }
    let recording = format!(
        "a {:.1}-second recording ({} clips: the {} samples in turn, {GAP_S} s of silence \
         between two), {REPEATS} transcriptions after the samples' own",
        long.seconds, long.joined, long.clips
    );
    // Less than half of what was said is not a transcript of this recording.
    let payload = Some(Payload::of(1, heard.len() as u64));
    let expect_min_bytes = long.said.len() as u64 / 2;
    let with_audio = |mut s: Scenario| {
        s.params.insert("audio_s".into(), format!("{:.1}", long.seconds));
        s.expect_min_bytes = expect_min_bytes;
        params(s).measured_over(&long_series, "transcriptions")
    };
    let total = timing(&name("transcribe_60s"), &totals, payload, &recording);
    let (p50, p95) = (total.stat("p50"), total.stat("p95"));
    out.push(with_audio(total));
    out.push(with_audio(timing(
        &name("first_segment"),
        &firsts,
        payload,
        &format!(
            "from calling transcribe until the first decoded segment reaches the progress \
             callback (what a person waits after Stop, the model loaded); {recording}"
        ),
    )));
    for (stat, ms) in [("p50", p50), ("p95", p95)] {
        let ms = ms.context("no transcription time")?;
        out.push(
            params(value(
                &name(&format!("real_time_factor.{stat}")),
                real_time_factor(long.seconds, ms),
                Unit::Score,
                format!(
                    "seconds of audio per second of transcription (higher is better), from the {stat} \
                     of transcribe_60s; {recording}"
                ),
            ))
            .timed()
            .measured_over(&long_series, "transcriptions"),
        );
    }
    out.push(params(value(
        &name("word_error_rate_60s"),
        score::word_error_rate(long.said, &heard),
        Unit::Count,
        format!("word error rate of the last transcription of {recording} (lower is better)"),
    )));
    Ok(())
}

/// Transcribes `samples` with the app's settings (language on auto): the wall time of
/// the call, the time until its first segment arrived, and the transcript.
fn transcribe(model: &Whisper, samples: &[f32]) -> anyhow::Result<(Duration, Option<Duration>, Transcript)> {
    let first = Rc::new(Cell::new(None::<Instant>));
    let seen = Rc::clone(&first);
    let cancel = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let transcript = model.transcribe(samples, &Language::Auto, &cancel, move |progress| {
        if matches!(progress, Progress::Segment(_)) && seen.get().is_none() {
            seen.set(Some(Instant::now()));
        }
    })?;
    let elapsed = started.elapsed();
    anyhow::ensure!(!transcript.cancelled, "the transcription stopped early");
    Ok((elapsed, first.get().map(|t| t - started), transcript))
}

/// The clips one after another in turn, `gap_s` of silence between two, the set
/// starting over until the recording lasts at least `min_s` (so it ends no more than a
/// clip past it); and which clip went where.
fn join_clips(clips: &[Vec<f32>], min_s: f64, gap_s: f64) -> (Vec<f32>, Vec<usize>) {
    let min_len = (min_s * f64::from(SAMPLE_RATE)).ceil() as usize;
    let gap = (gap_s * f64::from(SAMPLE_RATE)).round() as usize;
    let (mut joined, mut order) = (Vec::new(), Vec::new());
    if clips.iter().all(Vec::is_empty) {
        return (joined, order);
    }
    for (i, clip) in clips.iter().enumerate().cycle() {
        if joined.len() >= min_len {
            break;
        }
        if !joined.is_empty() {
            joined.extend(std::iter::repeat_n(0.0, gap));
        }
        joined.extend_from_slice(clip);
        order.push(i);
    }
    (joined, order)
}

/// Seconds of audio per second of transcription.
fn real_time_factor(audio_s: f64, transcription_ms: f64) -> f64 {
    audio_s / (transcription_ms / 1000.0)
}

/// The 1-, 5- and 15-minute load averages (Linux): whisper.cpp's threads wait for each
/// other at every step, so a busy machine slows it far more than its share of the CPU.
fn load_average() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let averages: Vec<&str> = text.split_whitespace().take(3).collect();
    (averages.len() == 3).then(|| averages.join(" "))
}

/// The `shared/` folder: `MINDSAGE_SHARED_DIR`, else beside the workspace (the rule the
/// core tests and `scripts/test.sh` follow for ollama-local and whisper-model).
fn shared_dir() -> PathBuf {
    match std::env::var_os("MINDSAGE_SHARED_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => crate::paths::workspace_root().join("..").join("shared"),
    }
}

/// Runs `fetch-model.sh` for `size` and returns the model file it printed; an error
/// naming the script and what it said when there is none.
fn fetch_model(script: &Path, size: &str) -> anyhow::Result<PathBuf> {
    anyhow::ensure!(
        script.is_file(),
        "{} not found: set MINDSAGE_SHARED_DIR to the folder holding whisper-model",
        script.display()
    );
    let output = Command::new("bash")
        .arg(script)
        .env("WHISPER_MODEL_SIZE", size)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", script.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.trim().lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(
            "{} could not fetch it ({}): {}",
            script.display(),
            output.status,
            if tail.is_empty() {
                "it printed nothing".to_owned()
            } else {
                tail.join(" / ")
            }
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let printed = stdout.trim().lines().last().unwrap_or_default();
    let path = PathBuf::from(printed);
    anyhow::ensure!(
        !printed.is_empty() && path.is_file(),
        "{} printed {printed:?}, which is not a model file",
        script.display()
    );
    Ok(path)
}

/// A Whisper model as the run records it: the size asked for, the file's sha256 (empty
/// where `sha256sum` is missing), its ggml weight type and its file name.
fn describe_model(size: &str, path: &Path) -> Model {
    let digest = Command::new("sha256sum")
        .arg(path)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .next()
                .map(|d| format!("sha256:{d}"))
        })
        .unwrap_or_default();
    Model {
        name: size.to_owned(),
        digest,
        family: "whisper".into(),
        parameter_size: String::new(),
        quantization_level: ggml_weight_type(path).unwrap_or_default(),
        basename: Some(file_name(path)),
        same_digest_as: Vec::new(),
    }
}

/// The weight type in a ggml Whisper file's header: the magic, then eleven 32-bit
/// hyperparameters, the last of which is the type.
fn ggml_weight_type(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut header = [0_u8; 48];
    std::fs::File::open(path).ok()?.read_exact(&mut header).ok()?;
    let ftype = i32::from_le_bytes(header[44..48].try_into().ok()?);
    Some(match ftype {
        0 => "F32".to_owned(),
        1 => "F16".to_owned(),
        other => format!("ggml ftype {other}"),
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn timing(name: &str, samples: &[Duration], payload: Option<Payload>, note: &str) -> Scenario {
    Scenario {
        payload,
        expect_min_bytes: if payload.is_some() { 2 } else { 0 },
        ..Scenario::new(
            "stt",
            None,
            name,
            super::timing_measure(samples),
            Some(note.into()),
        )
    }
}

fn value(name: &str, value: f64, unit: Unit, note: String) -> Scenario {
    Scenario::new("stt", None, name, Measure::Value { value, unit }, Some(note))
}

fn failed(name: &str, error: &anyhow::Error) -> Scenario {
    let measure = Measure::Failed {
        error: format!("{error:#}"),
    };
    Scenario::new("stt", None, name, measure, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recording_takes_the_samples_in_turn_with_gaps_until_it_is_long_enough() {
        let rate = SAMPLE_RATE as usize;
        let clips = vec![vec![1.0; 4 * rate], vec![2.0; 3 * rate]];
        let (joined, order) = join_clips(&clips, 20.0, 0.5);
        // 4, 7.5, 12, 15.5 s, then the first clip again reaches 20 s: 18 s of speech
        // and four gaps.
        assert_eq!(order, [0, 1, 0, 1, 0]);
        assert_eq!(joined.len(), 18 * rate + 4 * rate / 2);
        // The silence sits between the clips, never at the ends.
        assert_eq!(joined[4 * rate..4 * rate + rate / 2], vec![0.0; rate / 2][..]);
        assert_eq!((joined[0], *joined.last().unwrap()), (1.0, 1.0));
        // Long enough already after the first clip.
        assert_eq!(join_clips(&clips, 1.0, 0.5).1, [0]);
        // Nothing to join is no recording, not an endless loop.
        assert_eq!(join_clips(&[Vec::new()], 60.0, 0.5), (Vec::new(), Vec::new()));
    }

    #[test]
    fn real_time_factor_is_audio_seconds_per_transcription_second() {
        assert_eq!(real_time_factor(60.0, 7_500.0), 8.0);
        assert!(real_time_factor(60.0, 30_000.0) < real_time_factor(60.0, 3_000.0));
    }

    #[test]
    fn a_model_that_cannot_be_fetched_is_a_message_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("whisper-model/fetch-model.sh");
        let err = fetch_model(&missing, "tiny.en").unwrap_err().to_string();
        assert!(err.contains("MINDSAGE_SHARED_DIR"), "{err}");

        let failing = dir.path().join("failing.sh");
        std::fs::write(
            &failing,
            "echo \"fetch-model: downloading $WHISPER_MODEL_SIZE\" >&2\n\
             echo 'fetch-model: no network' >&2\nexit 1\n",
        )
        .unwrap();
        let err = format!("{:#}", fetch_model(&failing, "base").unwrap_err());
        assert!(
            err.contains("could not fetch it") && err.contains("downloading base / fetch-model: no network"),
            "{err}"
        );

        let lying = dir.path().join("lying.sh");
        std::fs::write(&lying, "echo /nowhere/ggml-tiny.en.bin\n").unwrap();
        let err = fetch_model(&lying, "tiny.en").unwrap_err().to_string();
        assert!(err.contains("not a model file"), "{err}");

        let model = dir.path().join("ggml-tiny.en.bin");
        std::fs::write(&model, b"lmgg").unwrap();
        let honest = dir.path().join("honest.sh");
        std::fs::write(&honest, format!("echo progress >&2\necho {}\n", model.display())).unwrap();
        assert_eq!(fetch_model(&honest, "tiny.en").unwrap(), model);
    }

    #[test]
    fn a_model_is_recorded_with_its_digest_and_weight_type() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ggml-tiny.en.bin");
        let mut header = b"lmgg".to_vec();
        for hparam in [51864_i32, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1] {
            header.extend(hparam.to_le_bytes());
        }
        std::fs::write(&path, &header).unwrap();
        let model = describe_model("tiny.en", &path);
        assert_eq!(
            (
                model.name.as_str(),
                model.family.as_str(),
                model.quantization_level.as_str()
            ),
            ("tiny.en", "whisper", "F16")
        );
        assert_eq!(model.basename.as_deref(), Some("ggml-tiny.en.bin"));
        if !model.digest.is_empty() {
            assert!(model.digest.starts_with("sha256:") && model.digest.len() == 7 + 64);
        }
    }
}
