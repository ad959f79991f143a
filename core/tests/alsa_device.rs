//! A voice entry recorded through a real capture device: ALSA's `file` plugin plays a
//! sample into cpal's default input, so the whole capture path runs (device, callback,
//! ring buffer, conversion, file) and the transcript holds the sample's words; then the
//! recording plays back through the default output (ALSA's null sink).
//!
//! Linux only, and one test in this binary: ALSA reads its configuration from `$HOME`
//! once per process, so this process's `HOME` points at a folder of its own.

#![cfg(target_os = "linux")]

mod common;
#[path = "whisper_model/mod.rs"]
mod whisper_model;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cpal::traits::{DeviceTrait, HostTrait};
use mindsage_core::voice::capture::{Ending, Event, Input, Recording};
use mindsage_core::voice::playback::Player;
use mindsage_core::voice::transcribe::{Language, Model};
use mindsage_core::voice::{convert, score, wav};

#[test]
fn a_recording_from_the_default_alsa_device_is_transcribed() {
    let home = tempfile::tempdir().unwrap();
    let infile = home.path().join("microphone.raw");
    std::fs::write(&infile, b"").unwrap();
    std::fs::write(
        home.path().join(".asoundrc"),
        format!(
            "pcm.!default {{ type asym; capture.pcm \"wavin\"; playback.pcm \"nullout\" }}\n\
             pcm.wavin {{ type file; slave.pcm \"nullsrc\"; file \"/dev/null\"; infile \"{}\" }}\n\
             pcm.nullsrc {{ type null }}\n\
             pcm.nullout {{ type null }}\n",
            infile.display()
        ),
    )
    .unwrap();
    // SAFETY: set before any thread of this test binary touches the environment or ALSA.
    unsafe { std::env::set_var("HOME", home.path()) };

    // The sample as the device will deliver it: cpal opens the default input in its
    // default format, and the file plugin reads the infile raw in that format.
    let device = cpal::default_host()
        .default_input_device()
        .expect("ALSA's default input");
    let config = device.default_input_config().expect("its default format");
    assert_eq!(config.sample_format(), cpal::SampleFormat::F32, "{config:?}");
    // ALSA's null source is not paced: the file plugin can hand over the whole sample in
    // one burst, faster than the recorder drains its ring buffer (four seconds of device
    // sound), and what does not fit is dropped from the end. A sample shorter than the
    // ring always fits; a real microphone delivers in real time.
    let clip = whisper_model::samples().remove(1);
    let original = wav::read_file(&clip.path).unwrap();
    assert!(
        mindsage_core::voice::duration_ms(original.len()) < 3_950,
        "{} must fit the recorder's ring in one burst",
        clip.path.display()
    );
    let at_rate = convert::from_whisper_rate(&original, config.sample_rate()).unwrap();
    let channels = usize::from(config.channels());
    let raw: Vec<u8> = at_rate
        .iter()
        .flat_map(|&s| std::iter::repeat_n(s, channels))
        .flat_map(f32::to_le_bytes)
        .collect();
    std::fs::write(&infile, raw).unwrap();

    let path = home.path().join("recordings/from-the-device.wav");
    let length = Duration::from_millis(mindsage_core::voice::duration_ms(original.len()) + 500);
    let recording = Recording::start(Input::Default, path.clone(), length, None);
    let (samples, ending) = loop {
        let event = common::next_event(&recording, Duration::from_secs(30)).unwrap_or_else(|| {
            // It timed out once in fresh-check's make test, never on a warm machine: say
            // whether the device stopped delivering (the recording ends only on its
            // length, a stop or an error) or the recorder stopped draining.
            let meter = recording.meter();
            panic!(
                "the recorder said nothing for 30 s: {:?} of {length:?} recorded, {} device samples dropped",
                meter.elapsed(),
                meter.dropped()
            )
        });
        match event {
            Event::Started { input } => eprintln!("recording from {input}"),
            Event::Failed(error) => panic!("{error}"),
            Event::Finished { samples, ending, .. } => break (samples, ending),
        }
    };
    assert!(samples > 0);
    assert!(
        matches!(ending, Ending::MaxLength | Ending::InputFailed(_)),
        "{ending:?}"
    );
    let model = Model::load(&whisper_model::tiny_en()).unwrap();
    let heard = model
        .transcribe(
            &wav::read_file(&path).unwrap(),
            &Language::Auto,
            &Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .unwrap()
        .text();
    let missing = score::missing_keywords(&heard, &clip.keywords);
    assert!(missing.is_empty(), "{missing:?} not in {heard:?}");

    // The recording plays back through the default output (ALSA's null sink here),
    // whose stream runs only while it plays: an open entry keeps no device busy.
    let player = Player::open(wav::read_file(&path).unwrap());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(player.error(), None);
    assert!(!player.is_streaming(), "the output runs before Play");
    player.play();
    let started = Instant::now();
    while !player.is_streaming() && player.is_playing() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the output never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    while player.is_playing() || player.is_streaming() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the output still runs after the recording ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(player.position_ms() > 0, "nothing was played");
}
