//! Voice entries with the real Whisper model: the labelled samples transcribed, the
//! capture path's conversion at every common device format, the recorder with its test
//! input, cancel, bad model files, and a voice entry stored, read back and purged.

mod common;
#[path = "whisper_model/mod.rs"]
mod whisper_model;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mindsage_core::db::{audio, entries, jobs};
use mindsage_core::voice::capture::{Ending, Event, Input, Recording};
use mindsage_core::voice::transcribe::{Language, Model, ModelError, Progress, TranscribeError, Transcript};
use mindsage_core::voice::{self, convert, score, wav};

use common::{TempJournal, contains, journal_files};

const USER: mindsage_core::db::UserId = mindsage_core::db::DEFAULT_USER;

fn model() -> &'static Model {
    static MODEL: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| Model::load(&whisper_model::tiny_en()).expect("loading tiny.en"))
}

fn transcribe(samples: &[f32]) -> Transcript {
    model()
        .transcribe(
            samples,
            &Language::Auto,
            &Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .expect("transcribing")
}

fn assert_heard(text: &str, clip: &score::LabelledClip, what: &str) {
    let missing = score::missing_keywords(text, &clip.keywords);
    assert!(missing.is_empty(), "{what}: {missing:?} not in {text:?}");
}

#[test]
fn every_sample_is_transcribed_with_its_key_words() {
    let mut errors = Vec::new();
    for clip in whisper_model::samples() {
        let samples = wav::read_file(&clip.path).unwrap();
        let transcript = transcribe(&samples);
        assert_eq!(transcript.language, "en");
        assert!(!transcript.cancelled);
        let text = transcript.text();
        assert_heard(&text, &clip, &clip.path.display().to_string());
        let last = transcript.segments.last().unwrap();
        assert!(
            last.end_ms <= voice::duration_ms(samples.len()) + 1000,
            "{last:?}"
        );
        errors.push(score::word_error_rate(&clip.text, &text));
    }
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    eprintln!(
        "word error rate of tiny.en over {} samples: {mean:.3} ({errors:?})",
        errors.len()
    );
    assert!(mean < 0.25, "word error rate {mean}");
}

/// A sample re-made at a device's rate, channel count and sample format.
/// A person who pauses before pressing Stop: the words, then silence. Whisper makes
/// sentences up over silence; none of them may reach the entry.
#[test]
fn silence_after_the_words_adds_no_words() {
    let clip = whisper_model::samples().remove(1);
    let mut samples = wav::read_file(&clip.path).unwrap();
    let spoken_ms = voice::duration_ms(samples.len());
    samples.extend(std::iter::repeat_n(0.0, 45 * voice::SAMPLE_RATE as usize));
    let transcript = transcribe(&samples);
    assert_heard(&transcript.text(), &clip, "the words before the pause");
    let invented: Vec<_> = transcript
        .segments
        .iter()
        .filter(|s| s.start_ms > spoken_ms + 1_000)
        .collect();
    assert!(invented.is_empty(), "segments over silence: {invented:?}");
}

fn as_device_would_record(samples: &[f32], rate: u32, channels: u16, float: bool, out: &std::path::Path) {
    let at_rate = convert::from_whisper_rate(samples, rate).unwrap();
    let spec = hound::WavSpec {
        channels,
        sample_rate: rate,
        bits_per_sample: if float { 32 } else { 16 },
        sample_format: if float {
            hound::SampleFormat::Float
        } else {
            hound::SampleFormat::Int
        },
    };
    let mut writer = hound::WavWriter::create(out, spec).unwrap();
    for (i, &s) in at_rate.iter().enumerate() {
        for channel in 0..channels {
            // The second channel a little quieter, as a real stereo microphone would be.
            let s = if channel == 1 { s * 0.8 } else { s };
            if float {
                writer.write_sample(s).unwrap();
            } else {
                writer.write_sample((s * 32767.0) as i16).unwrap();
            }
        }
        let _ = i;
    }
    writer.finalize().unwrap();
}

#[test]
fn the_capture_conversion_keeps_the_words_at_every_device_format() {
    let dir = tempfile::tempdir().unwrap();
    let clip = &whisper_model::samples()[0];
    let original = wav::read_file(&clip.path).unwrap();
    for rate in [8_000, 22_050, 44_100, 48_000] {
        for channels in [1, 2] {
            for float in [false, true] {
                let what = format!(
                    "{rate} Hz, {channels} channel(s), {}",
                    if float { "f32" } else { "i16" }
                );
                let path = dir.path().join(format!("{rate}-{channels}-{float}.wav"));
                as_device_would_record(&original, rate, channels, float, &path);
                let converted = wav::read_file(&path).unwrap();
                let expected_len = original.len() as i64;
                assert!(
                    (converted.len() as i64 - expected_len).abs() <= 2,
                    "{what}: {} samples",
                    converted.len()
                );
                assert_heard(&transcribe(&converted).text(), clip, &what);
            }
        }
    }
}

#[test]
fn the_recorder_writes_what_its_input_plays_and_the_words_survive() {
    let dir = tempfile::tempdir().unwrap();
    let clip = &whisper_model::samples()[1];
    let original = wav::read_file(&clip.path).unwrap();
    let stereo_48k = dir.path().join("input.wav");
    as_device_would_record(&original, 48_000, 2, true, &stereo_48k);
    let path = dir.path().join("recordings/take.wav");
    let length = Duration::from_millis(voice::duration_ms(original.len()) + 400);
    let recording = Recording::start(Input::File(stereo_48k), path.clone(), length, None);
    let mut started = false;
    let (samples, ending) = loop {
        match common::next_event(&recording, Duration::from_secs(30)).expect("the recorder answers") {
            Event::Started { .. } => started = true,
            Event::Failed(error) => panic!("{error}"),
            Event::Finished { samples, ending, .. } => break (samples, ending),
        }
    };
    assert!(started);
    assert_eq!(ending, Ending::MaxLength);
    assert!(recording.meter().level() >= 0.0 && !recording.meter().clipped());
    let kept = wav::read_file(&path).unwrap();
    assert_eq!(kept.len(), samples);
    assert!(
        (samples as i64 - (length.as_millis() as i64 * 16)).abs() <= 16,
        "{samples}"
    );
    assert_heard(&transcribe(&kept).text(), clip, "recorded through the test input");
}

#[test]
fn pause_keeps_nothing_and_cancel_deletes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let clip = &whisper_model::samples()[0];
    let path = dir.path().join("paused.wav");
    let recording = Recording::start(
        Input::File(clip.path.clone()),
        path.clone(),
        Duration::from_secs(60),
        None,
    );
    assert!(matches!(
        common::next_event(&recording, Duration::from_secs(10)),
        Some(Event::Started { .. })
    ));
    std::thread::sleep(Duration::from_millis(500));
    recording.set_paused(true);
    std::thread::sleep(Duration::from_millis(100));
    let at_pause = recording.meter().elapsed();
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(
        recording.meter().elapsed(),
        at_pause,
        "time does not run while paused"
    );
    recording.set_paused(false);
    std::thread::sleep(Duration::from_millis(300));
    recording.stop();
    let Some(Event::Finished { samples, ending, .. }) =
        common::next_event(&recording, Duration::from_secs(10))
    else {
        panic!("no end");
    };
    assert_eq!(ending, Ending::Stopped);
    assert!(
        samples < 16_000 * 13 / 10,
        "{samples} samples: the pause was kept"
    );
    assert_eq!(wav::read_file(&path).unwrap().len(), samples);

    let cancelled = dir.path().join("cancelled.wav");
    let recording = Recording::start(
        Input::File(clip.path.clone()),
        cancelled.clone(),
        Duration::from_secs(60),
        None,
    );
    assert!(matches!(
        common::next_event(&recording, Duration::from_secs(10)),
        Some(Event::Started { .. })
    ));
    std::thread::sleep(Duration::from_millis(300));
    recording.cancel();
    assert!(matches!(
        common::next_event(&recording, Duration::from_secs(10)),
        Some(Event::Finished {
            ending: Ending::Cancelled,
            ..
        })
    ));
    assert!(!cancelled.exists());
}

#[test]
fn cancel_keeps_the_segments_decoded_so_far() {
    // Five samples one after another: several 30-second windows' worth of segments.
    let mut long = Vec::new();
    for clip in whisper_model::samples() {
        long.extend(wav::read_file(&clip.path).unwrap());
        long.extend(std::iter::repeat_n(0.0, 8_000));
    }
    let long: Vec<f32> = long.iter().chain(long.iter()).copied().collect();
    let cancel = Arc::new(AtomicBool::new(false));
    let stop = Arc::clone(&cancel);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_by_callback = Arc::clone(&seen);
    let transcript = model()
        .transcribe(&long, &Language::Auto, &cancel, move |progress| {
            if let Progress::Segment(segment) = progress {
                seen_by_callback.lock().unwrap().push(segment);
                stop.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert!(transcript.cancelled);
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(transcript.segments.len() >= seen.len().min(1));
    assert_eq!(transcript.segments[0], seen[0]);
    assert!(voice::duration_ms(long.len()) > transcript.segments.last().unwrap().end_ms + 10_000);
}

#[test]
fn bad_model_files_are_messages_and_short_or_foreign_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let truncated = dir.path().join("ggml-tiny.en.bin");
    let bytes = std::fs::read(whisper_model::tiny_en()).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    match Model::load(&truncated) {
        Err(ModelError::Unloadable { path }) => assert_eq!(path, truncated),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("half a model loaded"),
    }
    let wrong = dir.path().join("ggml-base.bin");
    std::fs::write(&wrong, vec![7_u8; 10_000_000]).unwrap();
    assert!(matches!(Model::load(&wrong), Err(ModelError::NotAModel { .. })));
    let cancel = Arc::new(AtomicBool::new(false));
    assert!(matches!(
        model().transcribe(&[0.0; 100], &Language::Auto, &cancel, |_| {}),
        Err(TranscribeError::TooShort)
    ));
    let one_second = vec![0.0; 16_000];
    assert!(matches!(
        model().transcribe(&one_second, &Language::Fixed("de".to_owned()), &cancel, |_| {}),
        Err(TranscribeError::EnglishOnly { .. })
    ));
    assert!(matches!(
        model().transcribe(
            &one_second,
            &Language::Fixed("klingon".to_owned()),
            &cancel,
            |_| {}
        ),
        Err(TranscribeError::UnknownLanguage(_))
    ));
}

#[test]
fn a_voice_entry_keeps_its_recording_and_segments_and_purge_erases_them() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let clip = &whisper_model::samples()[2];
    let samples = wav::read_file(&clip.path).unwrap();
    let mut transcript = transcribe(&samples);
    let marker = "zqxvoicemarker";
    transcript.segments.push(mindsage_core::db::audio::Segment {
        start_ms: 0,
        end_ms: 10,
        text: marker.to_owned(),
    });
    let id = voice::save_entry(&mut conn, USER, Default::default(), &samples, &transcript).unwrap();
    let entry = entries::get(&conn, USER, id).unwrap();
    assert_eq!(entry.body, transcript.text());
    assert_eq!(
        jobs::counts(&conn).unwrap().pending(),
        2,
        "enrichment and embedding queued"
    );
    let recordings = audio::of_entry(&conn, USER, id).unwrap();
    assert_eq!(recordings.len(), 1);
    assert_eq!(recordings[0].language.as_deref(), Some("en"));
    assert_eq!(recordings[0].duration_ms, voice::duration_ms(samples.len()));
    let stored = audio::wav(&conn, recordings[0].media_id).unwrap();
    assert_eq!(wav::decode_bytes(&stored).unwrap().len(), samples.len());
    assert_eq!(
        audio::segments(&conn, recordings[0].media_id).unwrap(),
        transcript.segments
    );

    // A stretch of the stored sound, to look for on disk after the purge.
    let sound = stored[stored.len() / 2..stored.len() / 2 + 64].to_vec();
    conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)").unwrap();
    let before: Vec<u8> = journal_files(&journal.path)
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect();
    assert!(contains(&before, &sound) && contains(&before, marker.as_bytes()));
    entries::soft_delete(&mut conn, USER, id).unwrap();
    assert!(
        entries::purge(&mut conn, USER, id, Duration::from_secs(5))
            .unwrap()
            .wal_cleared
    );
    for (file, bytes) in journal_files(&journal.path) {
        assert!(
            !contains(&bytes, &sound),
            "the recording survives in {}",
            file.display()
        );
        assert!(
            !contains(&bytes, marker.as_bytes()),
            "the transcript survives in {}",
            file.display()
        );
    }
    assert!(audio::of_entry(&conn, USER, id).unwrap().is_empty());
}
