//! Playing an entry's recording through the default output device.
//!
//! The recording is converted once to the device's rate, then a cpal output stream
//! reads it from shared memory. Play, pause and seek are atomics the callback reads, so
//! the callback never locks or allocates and the caller (the UI) never waits on it.
//! A stream exists only while the recording plays (Play builds one, pause and the end
//! drop it): an open entry with a recording keeps no sound device busy (on Windows an
//! active stream keeps the computer from sleeping, and any stream wakes the processor
//! every few milliseconds). Dropping rather than pausing works on every device; many
//! cannot pause. The output is looked for at each Play, and a failure (none there, taken
//! by another program, unplugged while playing) is kept for the person to read while the
//! player stays usable: the next Play tries again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample};

use super::SAMPLE_RATE;
use super::convert;

/// Why a recording cannot play.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlaybackError {
    #[error("there is no speaker or headphone output to play the recording on")]
    NoDevice,
    #[error("the output could not be opened: {0}")]
    Open(String),
    #[error("the output failed while playing: {0}")]
    Failed(String),
}

#[derive(Debug, Default)]
struct Shared {
    playing: AtomicBool,
    /// Position in 16 kHz samples.
    position: AtomicU64,
    /// A seek the callback has not taken yet, in 16 kHz samples, plus one (0: none).
    seek_to: AtomicU64,
    /// Set when it played to the end.
    ended: AtomicBool,
    /// Whether an output stream is running (it follows `playing`).
    streaming: AtomicBool,
    stop: AtomicBool,
    /// Why the last Play could not sound; cleared when one does.
    failed: Mutex<Option<PlaybackError>>,
}

impl Shared {
    fn set_failed(&self, error: Option<PlaybackError>) {
        *self.failed.lock().unwrap_or_else(|poison| poison.into_inner()) = error;
    }
}

/// A recording ready to play. Dropping it closes the output.
pub struct Player {
    shared: Arc<Shared>,
    samples: u64,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Player {
    /// A player for 16 kHz mono `samples` on the default output, with a thread of its
    /// own; it returns at once, paused at the start. A failure to play shows in
    /// [`Player::error`].
    pub fn open(samples: Vec<f32>) -> Player {
        let shared = Arc::new(Shared::default());
        let length = samples.len() as u64;
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("mindsage-playback".to_owned())
                .spawn(move || play(&samples, &shared))
                .ok()
        };
        Player {
            shared,
            samples: length,
            thread,
        }
    }

    /// Starts or resumes; from the start again once it has played to the end.
    pub fn play(&self) {
        if self.shared.ended.swap(false, Ordering::Relaxed) {
            self.seek_ms(0);
        }
        self.shared.playing.store(true, Ordering::Relaxed);
    }

    pub fn pause(&self) {
        self.shared.playing.store(false, Ordering::Relaxed);
    }

    /// Whether sound is playing (it stops by itself at the end).
    pub fn is_playing(&self) -> bool {
        self.shared.playing.load(Ordering::Relaxed)
    }

    /// Moves to `ms` from the start.
    pub fn seek_ms(&self, ms: u64) {
        let sample = (ms * u64::from(SAMPLE_RATE) / 1000).min(self.samples);
        self.shared.position.store(sample, Ordering::Relaxed);
        self.shared.ended.store(false, Ordering::Relaxed);
        self.shared.seek_to.store(sample + 1, Ordering::Relaxed);
    }

    pub fn position_ms(&self) -> u64 {
        super::duration_ms(self.shared.position.load(Ordering::Relaxed) as usize)
    }

    pub fn duration_ms(&self) -> u64 {
        super::duration_ms(self.samples as usize)
    }

    /// Whether the output is running: only while playing, give or take a moment.
    ///
    /// Tests only (the device test checks that no stream runs while paused).
    #[doc(hidden)]
    pub fn is_streaming(&self) -> bool {
        self.shared.streaming.load(Ordering::Relaxed)
    }

    /// Why the last Play could not sound (no output, or it failed), until one does.
    pub fn error(&self) -> Option<PlaybackError> {
        self.shared
            .failed
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The playback thread: an output stream while playing, until the player is dropped.
fn play(samples: &[f32], shared: &Arc<Shared>) {
    let (errors_tx, errors) = mpsc::channel();
    // The recording at the output's rate, converted at the first Play and again only
    // for an output of another rate.
    let mut converted = None;
    let mut stream = None;
    while !shared.stop.load(Ordering::Relaxed) {
        let playing = shared.playing.load(Ordering::Relaxed);
        if playing && stream.is_none() {
            // What a stream dropped earlier reported is no news for this one.
            while errors.try_recv().is_ok() {}
            match open(samples, &mut converted, shared, &errors_tx) {
                Ok(opened) => {
                    stream = Some(opened);
                    shared.set_failed(None);
                }
                Err(error) => {
                    shared.playing.store(false, Ordering::Relaxed);
                    shared.set_failed(Some(error));
                }
            }
        } else if !playing {
            stream = None;
        }
        shared.streaming.store(stream.is_some(), Ordering::Relaxed);
        if let Ok(error) = errors.recv_timeout(Duration::from_millis(50))
            && stream.is_some()
        {
            stream = None;
            shared.playing.store(false, Ordering::Relaxed);
            shared.streaming.store(false, Ordering::Relaxed);
            shared.set_failed(Some(PlaybackError::Failed(error)));
        }
    }
}

/// A running stream on the default output, which is looked for now (one plugged in since
/// the last Play is found), playing `samples` from where the player is.
fn open(
    samples: &[f32],
    converted: &mut Option<(u32, Arc<Vec<f32>>)>,
    shared: &Arc<Shared>,
    errors: &mpsc::Sender<String>,
) -> Result<cpal::Stream, PlaybackError> {
    let device = cpal::default_host()
        .default_output_device()
        .ok_or(PlaybackError::NoDevice)?;
    let config = device
        .default_output_config()
        .map_err(|e| PlaybackError::Open(e.to_string()))?;
    let rate = config.sample_rate();
    let sound = match converted {
        Some((at, sound)) if *at == rate => Arc::clone(sound),
        _ => {
            let sound = Arc::new(
                convert::from_whisper_rate(samples, rate).map_err(|e| PlaybackError::Open(e.to_string()))?,
            );
            *converted = Some((rate, Arc::clone(&sound)));
            sound
        }
    };
    let format = config.sample_format();
    let config: cpal::StreamConfig = config.into();
    let errors = errors.clone();
    let stream = match format {
        SampleFormat::I16 => build::<i16>(&device, config, sound, rate, shared, errors),
        SampleFormat::I32 => build::<i32>(&device, config, sound, rate, shared, errors),
        SampleFormat::U16 => build::<u16>(&device, config, sound, rate, shared, errors),
        SampleFormat::U8 => build::<u8>(&device, config, sound, rate, shared, errors),
        SampleFormat::F32 => build::<f32>(&device, config, sound, rate, shared, errors),
        SampleFormat::F64 => build::<f64>(&device, config, sound, rate, shared, errors),
        other => Err(PlaybackError::Open(format!(
            "the output's sample format {other} is not supported"
        ))),
    }?;
    stream.play().map_err(|e| PlaybackError::Open(e.to_string()))?;
    Ok(stream)
}

fn build<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    sound: Arc<Vec<f32>>,
    rate: u32,
    shared: &Arc<Shared>,
    errors: mpsc::Sender<String>,
) -> Result<cpal::Stream, PlaybackError>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = usize::from(config.channels.max(1));
    let shared = Arc::clone(shared);
    let to_device = move |sample: u64| (sample * u64::from(rate) / u64::from(SAMPLE_RATE)) as usize;
    // A new stream goes on from where the last one was paused.
    let mut at = to_device(shared.position.load(Ordering::Relaxed));
    device
        .build_output_stream::<T, _, _>(
            config,
            move |out: &mut [T], _: &cpal::OutputCallbackInfo| {
                let seek = shared.seek_to.swap(0, Ordering::Relaxed);
                if seek > 0 {
                    at = to_device(seek - 1);
                }
                let playing = shared.playing.load(Ordering::Relaxed);
                for frame in out.chunks_mut(channels) {
                    let sample = match sound.get(at) {
                        Some(&s) if playing => {
                            at += 1;
                            s
                        }
                        _ => 0.0,
                    };
                    frame.fill(T::from_sample(sample));
                }
                if playing {
                    shared.position.store(
                        at as u64 * u64::from(SAMPLE_RATE) / u64::from(rate),
                        Ordering::Relaxed,
                    );
                    if at >= sound.len() {
                        shared.playing.store(false, Ordering::Relaxed);
                        shared.ended.store(true, Ordering::Relaxed);
                    }
                }
            },
            move |error: cpal::Error| {
                let _ = errors.send(error.to_string());
            },
            None,
        )
        .map_err(|e| match e.kind() {
            cpal::ErrorKind::DeviceNotAvailable | cpal::ErrorKind::HostUnavailable => PlaybackError::NoDevice,
            _ => PlaybackError::Open(e.to_string()),
        })
}
