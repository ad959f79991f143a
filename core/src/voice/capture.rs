//! The recorder: from an input to a 16 kHz mono recording on disk (a WAV file, or a
//! sealed one beside an encrypted journal).
//!
//! Three parts, each on its own thread:
//! * the audio callback (cpal's thread): turns each sample into `f32` and pushes it into
//!   a lock-free ring buffer (rtrb). It neither allocates nor locks, so it never makes
//!   the device drop sound.
//! * the recorder thread: opens the input, then every few milliseconds drains the ring
//!   buffer through [`Converter`], measures the level, and appends to the
//!   [`RecordingFile`] (flushed every second, so a crash loses at most the last one).
//! * the caller (the app's UI, or `mindsage` on the command line): reads the level and
//!   elapsed time from atomics and hears about start, failure and the end on a channel.
//!
//! A test input plays a WAV file into the same ring buffer at the pace of a device, so
//! tests of the recorder replace the device and nothing else.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample};

use super::SAMPLE_RATE;
use super::convert::Converter;
use super::wav::RecordingFile;
use crate::db::cipher::JournalKey;

/// Seconds of device audio the ring buffer holds: the recorder thread drains it every
/// few milliseconds, so this only matters if the disk stalls.
const RING_SECONDS: usize = 4;

/// How often the recorder thread drains the ring buffer.
const DRAIN_EVERY: Duration = Duration::from_millis(15);

/// A sample at or above this magnitude counts as clipping.
pub const CLIPPING: f32 = 0.99;

/// Where the sound comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Input {
    /// The system's default input device.
    #[default]
    Default,
    /// The input device with this name (Settings); the default one if it is gone.
    Named(String),
    /// A WAV file played in at real time: the test input, used by the tests in place of
    /// a microphone.
    File(PathBuf),
}

/// Why recording could not start or stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaptureError {
    #[error("there is no microphone: connect one, or choose another input in Settings")]
    NoDevice,
    #[error("MindSage may not use the microphone: allow it in the system's privacy settings ({0})")]
    PermissionDenied(String),
    #[error("the microphone could not be opened: {0}")]
    Open(String),
    #[error("the microphone stopped: {0}")]
    Lost(String),
    #[error("the test input could not be read: {0}")]
    TestInput(String),
    #[error("the recording could not be written: {0}")]
    Write(String),
}

/// How a recording ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The person pressed Stop.
    Stopped,
    /// The maximum length was reached.
    MaxLength,
    /// The input failed part-way; what came before is in the file.
    InputFailed(CaptureError),
    /// The person cancelled: the file is gone.
    Cancelled,
}

/// What the recorder tells its caller.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The input is open and sound is arriving; `input` names it.
    Started { input: String },
    /// Recording never started; nothing was written.
    Failed(CaptureError),
    /// The recording is over and its file complete (unless cancelled).
    Finished {
        path: PathBuf,
        samples: usize,
        ending: Ending,
    },
}

/// Live figures, written by the recorder thread and read by anyone.
#[derive(Debug, Default)]
pub struct Meter {
    /// Peak of the last drained piece, in thousandths of full scale.
    peak_milli: AtomicU32,
    /// Whether any sample so far reached [`CLIPPING`].
    clipped: AtomicBool,
    /// 16 kHz samples written to the file.
    samples: AtomicU64,
    /// Device samples lost because the ring buffer was full.
    dropped: AtomicU64,
}

impl Meter {
    /// The latest peak level, 0.0 to 1.0.
    pub fn level(&self) -> f32 {
        self.peak_milli.load(Ordering::Relaxed) as f32 / 1000.0
    }

    /// Whether the sound has clipped since recording began.
    pub fn clipped(&self) -> bool {
        self.clipped.load(Ordering::Relaxed)
    }

    /// Recorded time (pauses excluded).
    pub fn elapsed(&self) -> Duration {
        Duration::from_millis(super::duration_ms(self.samples.load(Ordering::Relaxed) as usize))
    }

    /// Device samples lost to a stalled disk.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

#[derive(Debug, Default)]
struct Controls {
    paused: AtomicBool,
    stop: AtomicBool,
    cancel: AtomicBool,
}

/// A recording in progress. Dropping it stops the recording and keeps the file.
pub struct Recording {
    meter: Arc<Meter>,
    controls: Arc<Controls>,
    events: mpsc::Receiver<Event>,
    thread: Option<JoinHandle<()>>,
}

impl Recording {
    /// Starts recording from `input` into the file at `path`, for at most `max`: a WAV
    /// file, or with the encrypted journal's `key` a sealed one ([`RecordingFile`]).
    /// Returns at once: whether the input opened arrives as an [`Event`].
    pub fn start(input: Input, path: PathBuf, max: Duration, key: Option<JournalKey>) -> Recording {
        let meter = Arc::new(Meter::default());
        let controls = Arc::new(Controls::default());
        let (events_tx, events) = mpsc::channel();
        let thread = {
            let (meter, controls) = (Arc::clone(&meter), Arc::clone(&controls));
            std::thread::Builder::new()
                .name("mindsage-recorder".to_owned())
                .spawn(move || record(&input, &path, key.as_ref(), max, &meter, &controls, &events_tx))
                .ok()
        };
        Recording {
            meter,
            controls,
            events,
            thread,
        }
    }

    /// The live level, time and clipping.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Pauses or resumes: while paused, sound is neither kept nor counted.
    pub fn set_paused(&self, paused: bool) {
        self.controls.paused.store(paused, Ordering::Relaxed);
    }

    /// Whether it is paused.
    pub fn is_paused(&self) -> bool {
        self.controls.paused.load(Ordering::Relaxed)
    }

    /// Ends the recording and keeps the file ([`Ending::Stopped`] follows).
    pub fn stop(&self) {
        self.controls.stop.store(true, Ordering::Relaxed);
    }

    /// Ends the recording and deletes the file ([`Ending::Cancelled`] follows).
    pub fn cancel(&self) {
        self.controls.cancel.store(true, Ordering::Relaxed);
    }

    /// The next event, if one has come.
    pub fn try_event(&self) -> Option<Event> {
        self.events.try_recv().ok()
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        self.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Names of the input devices, default first, for the Settings screen.
pub fn input_devices() -> Vec<String> {
    let host = cpal::default_host();
    let default = host.default_input_device().and_then(|d| device_name(&d));
    let mut names: Vec<String> = host
        .input_devices()
        .map(|devices| devices.filter_map(|d| device_name(&d)).collect())
        .unwrap_or_default();
    if let Some(default) = default {
        names.retain(|n| *n != default);
        names.insert(0, default);
    }
    names
}

fn device_name(device: &cpal::Device) -> Option<String> {
    device.description().ok().map(|d| d.name().to_owned())
}

/// The recorder thread: open, drain until told to stop, finish the file.
fn record(
    input: &Input,
    path: &Path,
    key: Option<&JournalKey>,
    max: Duration,
    meter: &Meter,
    controls: &Controls,
    events: &mpsc::Sender<Event>,
) {
    let opened = match open(input) {
        Ok(opened) => opened,
        Err(error) => {
            let _ = events.send(Event::Failed(error));
            return;
        }
    };
    let Opened {
        mut ring,
        rate,
        channels,
        name,
        failure,
        source,
    } = opened;
    let (mut file, mut converter) = match (RecordingFile::create(path, key), Converter::new(rate, channels)) {
        (Ok(file), Ok(converter)) => (file, converter),
        (Err(e), _) => {
            let _ = events.send(Event::Failed(CaptureError::Write(e.to_string())));
            return;
        }
        (_, Err(e)) => {
            let _ = events.send(Event::Failed(CaptureError::Open(e.to_string())));
            return;
        }
    };
    let _ = events.send(Event::Started { input: name });
    let max_samples = (max.as_secs_f64() * f64::from(SAMPLE_RATE)) as usize;
    let mut device_samples = Vec::with_capacity(rate as usize * usize::from(channels));
    let mut converted = Vec::with_capacity(SAMPLE_RATE as usize);
    let ending = loop {
        std::thread::sleep(DRAIN_EVERY);
        device_samples.clear();
        while let Ok(sample) = ring.pop() {
            device_samples.push(sample);
        }
        let lost = failure.lost.load(Ordering::Relaxed);
        meter.dropped.store(lost, Ordering::Relaxed);
        if controls.cancel.load(Ordering::Relaxed) {
            break Ending::Cancelled;
        }
        converted.clear();
        converter.push(&device_samples, &mut converted);
        if !controls.paused.load(Ordering::Relaxed) {
            let room = max_samples.saturating_sub(file.samples());
            converted.truncate(room);
            let peak = converted.iter().fold(0.0_f32, |peak, s| peak.max(s.abs()));
            meter
                .peak_milli
                .store((peak.min(1.0) * 1000.0) as u32, Ordering::Relaxed);
            if peak >= CLIPPING {
                meter.clipped.store(true, Ordering::Relaxed);
            }
            if let Err(e) = file.append(&converted) {
                break Ending::InputFailed(CaptureError::Write(e.to_string()));
            }
            meter.samples.store(file.samples() as u64, Ordering::Relaxed);
            if file.samples() >= max_samples {
                break Ending::MaxLength;
            }
        } else {
            meter.peak_milli.store(0, Ordering::Relaxed);
        }
        if controls.stop.load(Ordering::Relaxed) {
            break Ending::Stopped;
        }
        if let Some(error) = failure.take() {
            break Ending::InputFailed(error);
        }
    };
    drop(source);
    if ending == Ending::Cancelled {
        file.discard();
        let _ = events.send(Event::Finished {
            path: path.to_owned(),
            samples: 0,
            ending,
        });
        return;
    }
    converted.clear();
    converter.finish(&mut converted);
    if !controls.paused.load(Ordering::Relaxed) {
        converted.truncate(max_samples.saturating_sub(file.samples()));
        let _ = file.append(&converted);
    }
    let samples = file.samples();
    let ending = match file.finish() {
        Ok(_) => ending,
        Err(e) => Ending::InputFailed(CaptureError::Write(e.to_string())),
    };
    let _ = events.send(Event::Finished {
        path: path.to_owned(),
        samples,
        ending,
    });
}

/// Errors the audio callback's side reports to the recorder thread, without locks.
#[derive(Default)]
struct Failure {
    failed: AtomicBool,
    lost: AtomicU64,
    message: std::sync::Mutex<Option<CaptureError>>,
}

impl Failure {
    /// Called from cpal's error callback (not the data callback), where a lock is fine.
    fn report(&self, error: CaptureError) {
        if let Ok(mut slot) = self.message.lock() {
            slot.get_or_insert(error);
        }
        self.failed.store(true, Ordering::Relaxed);
    }

    fn take(&self) -> Option<CaptureError> {
        if !self.failed.load(Ordering::Relaxed) {
            return None;
        }
        self.message.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// An open input: the ring buffer its samples arrive in, their format, and what keeps
/// them coming (a cpal stream, whose drop closes the device, or the test input's
/// thread, whose drop stops it).
struct Opened {
    ring: rtrb::Consumer<f32>,
    rate: u32,
    channels: u16,
    name: String,
    failure: Arc<Failure>,
    source: Box<dyn std::any::Any>,
}

fn open(input: &Input) -> Result<Opened, CaptureError> {
    match input {
        Input::File(path) => FilePlayer::start(path),
        Input::Default | Input::Named(_) => open_device(input),
    }
}

fn open_device(input: &Input) -> Result<Opened, CaptureError> {
    let host = cpal::default_host();
    let named = match input {
        Input::Named(name) => host
            .input_devices()
            .ok()
            .and_then(|mut devices| devices.find(|d| device_name(d).as_deref() == Some(name))),
        _ => None,
    };
    let device = named
        .or_else(|| host.default_input_device())
        .ok_or(CaptureError::NoDevice)?;
    let config = device.default_input_config().map_err(device_error)?;
    let name = device_name(&device).unwrap_or_else(|| "the default input".to_owned());
    let rate = config.sample_rate();
    let channels = config.channels();
    let (producer, ring) = rtrb::RingBuffer::new(RING_SECONDS * rate as usize * usize::from(channels));
    let failure = Arc::new(Failure::default());
    let stream_config: cpal::StreamConfig = config.into();
    let stream = match config.sample_format() {
        SampleFormat::I8 => build::<i8>(&device, stream_config, producer, &failure),
        SampleFormat::I16 => build::<i16>(&device, stream_config, producer, &failure),
        SampleFormat::I24 => build::<cpal::I24>(&device, stream_config, producer, &failure),
        SampleFormat::I32 => build::<i32>(&device, stream_config, producer, &failure),
        SampleFormat::I64 => build::<i64>(&device, stream_config, producer, &failure),
        SampleFormat::U8 => build::<u8>(&device, stream_config, producer, &failure),
        SampleFormat::U16 => build::<u16>(&device, stream_config, producer, &failure),
        SampleFormat::U24 => build::<cpal::U24>(&device, stream_config, producer, &failure),
        SampleFormat::U32 => build::<u32>(&device, stream_config, producer, &failure),
        SampleFormat::U64 => build::<u64>(&device, stream_config, producer, &failure),
        SampleFormat::F32 => build::<f32>(&device, stream_config, producer, &failure),
        SampleFormat::F64 => build::<f64>(&device, stream_config, producer, &failure),
        other => {
            return Err(CaptureError::Open(format!(
                "the input's sample format {other} is not supported"
            )));
        }
    }?;
    stream.play().map_err(device_error)?;
    Ok(Opened {
        ring,
        rate,
        channels,
        name,
        failure,
        source: Box::new(stream),
    })
}

/// The input stream for one sample type. The data callback converts and pushes; a full
/// buffer counts lost samples instead of waiting.
fn build<T>(
    device: &cpal::Device,
    config: cpal::StreamConfig,
    mut producer: rtrb::Producer<f32>,
    failure: &Arc<Failure>,
) -> Result<cpal::Stream, CaptureError>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let on_data = Arc::clone(failure);
    let on_error = Arc::clone(failure);
    device
        .build_input_stream::<T, _, _>(
            config,
            move |data: &[T], _: &cpal::InputCallbackInfo| {
                let mut lost = 0;
                for &sample in data {
                    if producer.push(sample.to_sample::<f32>()).is_err() {
                        lost += 1;
                    }
                }
                if lost > 0 {
                    on_data.lost.fetch_add(lost, Ordering::Relaxed);
                }
            },
            move |error: cpal::Error| on_error.report(CaptureError::Lost(error.to_string())),
            None,
        )
        .map_err(device_error)
}

fn device_error(error: cpal::Error) -> CaptureError {
    match error.kind() {
        cpal::ErrorKind::PermissionDenied => CaptureError::PermissionDenied(error.to_string()),
        cpal::ErrorKind::DeviceNotAvailable | cpal::ErrorKind::HostUnavailable => CaptureError::NoDevice,
        _ => CaptureError::Open(error.to_string()),
    }
}

/// The test input: a WAV file's samples, at its own rate and channel count, pushed into
/// the ring buffer at real time, then silence, as a microphone would.
struct FilePlayer {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FilePlayer {
    fn start(path: &Path) -> Result<Opened, CaptureError> {
        let mut reader = hound::WavReader::open(path).map_err(|e| CaptureError::TestInput(e.to_string()))?;
        let spec = reader.spec();
        let samples = raw_samples(&mut reader).map_err(|e| CaptureError::TestInput(e.to_string()))?;
        let (rate, channels) = (spec.sample_rate, spec.channels);
        let (mut producer, ring) =
            rtrb::RingBuffer::new(RING_SECONDS * rate as usize * usize::from(channels));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            let per_tick = (rate as usize * usize::from(channels)) / 100;
            std::thread::Builder::new()
                .name("mindsage-test-input".to_owned())
                .spawn(move || {
                    let mut sound = samples.into_iter();
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..per_tick {
                            let _ = producer.push(sound.next().unwrap_or(0.0));
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                })
                .map_err(|e| CaptureError::TestInput(e.to_string()))?
        };
        Ok(Opened {
            ring,
            rate,
            channels,
            name: format!("test input {}", path.display()),
            failure: Arc::new(Failure::default()),
            source: Box::new(FilePlayer {
                stop,
                thread: Some(thread),
            }),
        })
    }
}

impl Drop for FilePlayer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A WAV file's samples as interleaved `f32`, at the file's own rate.
fn raw_samples<R: std::io::Read>(reader: &mut hound::WavReader<R>) -> Result<Vec<f32>, hound::Error> {
    let spec = reader.spec();
    match spec.sample_format {
        hound::SampleFormat::Float => reader.samples::<f32>().collect(),
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1_i64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|s| s as f32 * scale))
                .collect()
        }
    }
}
