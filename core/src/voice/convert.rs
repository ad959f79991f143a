//! Any sample rate and channel count to Whisper's 16 kHz mono.
//!
//! One [`Converter`] serves a live device and a file alike: samples arrive in pieces of
//! any size, are averaged to mono, and go through rubato's FFT resampler in fixed
//! chunks. Downmixing first means the resampler works on one channel, whatever the
//! device offers. The converter runs on the recorder's thread, never in the audio
//! callback, so it may allocate.

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Fft, FixedSync, Resampler};

use super::SAMPLE_RATE;

/// Input frames per resampler call: about 20 ms at 48 kHz, small enough that the level
/// meter and the file keep up with speech, large enough that the FFT is cheap.
const CHUNK: usize = 1024;

/// A format the converter cannot take.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("the audio has no channels")]
    NoChannels,
    #[error("the audio's sample rate ({0} Hz) is not one MindSage can convert (1 kHz to 384 kHz)")]
    Rate(u32),
    #[error("the resampler could not be set up: {0}")]
    Resampler(String),
}

/// Turns interleaved `f32` samples of one rate and channel count into 16 kHz mono.
pub struct Converter {
    channels: usize,
    resampler: Option<Fft<f32>>,
    /// Mono input waiting for a whole chunk.
    pending: Vec<f32>,
    /// The resampler's output for one chunk.
    chunk_out: Vec<f32>,
    /// Output frames still to drop: the resampler's delay, so output lines up with input.
    delay_left: usize,
    frames_in: u64,
    frames_out: u64,
    ratio: f64,
}

impl Converter {
    /// A converter from `rate` Hz and `channels` interleaved channels.
    pub fn new(rate: u32, channels: u16) -> Result<Converter, ConvertError> {
        if channels == 0 {
            return Err(ConvertError::NoChannels);
        }
        if !(1_000..=384_000).contains(&rate) {
            return Err(ConvertError::Rate(rate));
        }
        let resampler = if rate == SAMPLE_RATE {
            None
        } else {
            Some(
                Fft::<f32>::new(rate as usize, SAMPLE_RATE as usize, CHUNK, 1, FixedSync::Input)
                    .map_err(|e| ConvertError::Resampler(e.to_string()))?,
            )
        };
        let (chunk_out, delay_left) = match &resampler {
            Some(r) => (vec![0.0; r.output_frames_max()], r.output_delay()),
            None => (Vec::new(), 0),
        };
        Ok(Converter {
            channels: usize::from(channels),
            resampler,
            pending: Vec::with_capacity(2 * CHUNK),
            chunk_out,
            delay_left,
            frames_in: 0,
            frames_out: 0,
            ratio: f64::from(SAMPLE_RATE) / f64::from(rate),
        })
    }

    /// Converts a piece of interleaved input (a partial last frame is dropped) and
    /// appends whatever 16 kHz mono output is ready to `out`.
    pub fn push(&mut self, interleaved: &[f32], out: &mut Vec<f32>) {
        let channels = self.channels;
        let frames = interleaved.chunks_exact(channels);
        self.frames_in += frames.len() as u64;
        let mono = frames.map(|frame| frame.iter().sum::<f32>() / channels as f32);
        if self.resampler.is_none() {
            out.extend(mono);
            self.frames_out = self.frames_in;
            return;
        }
        self.pending.extend(mono);
        self.drain_chunks(out);
    }

    /// Ends the stream: the last partial chunk and the resampler's delay are flushed, and
    /// the output is cut to the length the input implies.
    pub fn finish(mut self, out: &mut Vec<f32>) {
        if self.resampler.is_none() {
            return;
        }
        let expected = (self.frames_in as f64 * self.ratio).round() as u64;
        while self.frames_out < expected {
            let before = self.frames_out;
            let needed = self.resampler.as_ref().map_or(0, |r| r.input_frames_next());
            let silence = needed.saturating_sub(self.pending.len()).max(1);
            self.pending.extend(std::iter::repeat_n(0.0, silence));
            self.drain_chunks(out);
            if self.frames_out == before && self.pending.is_empty() {
                break;
            }
        }
        let extra = (self.frames_out.saturating_sub(expected)) as usize;
        out.truncate(out.len().saturating_sub(extra));
    }

    fn drain_chunks(&mut self, out: &mut Vec<f32>) {
        let Some(resampler) = self.resampler.as_mut() else {
            return;
        };
        loop {
            let needed = resampler.input_frames_next();
            if self.pending.len() < needed {
                return;
            }
            let capacity = self.chunk_out.len();
            let (Ok(input), Ok(mut output)) = (
                InterleavedSlice::new(&self.pending[..needed], 1, needed),
                InterleavedSlice::new_mut(&mut self.chunk_out[..], 1, capacity),
            ) else {
                return;
            };
            let Ok((read, written)) = resampler.process_into_buffer(&input, &mut output, None) else {
                return;
            };
            let skip = self.delay_left.min(written);
            self.delay_left -= skip;
            out.extend_from_slice(&self.chunk_out[skip..written]);
            self.frames_out += (written - skip) as u64;
            self.pending.drain(..read);
        }
    }
}

/// A whole clip converted at once (files, tests): `interleaved` at `rate` Hz with
/// `channels` channels, returned as 16 kHz mono.
pub fn to_whisper_rate(interleaved: &[f32], rate: u32, channels: u16) -> Result<Vec<f32>, ConvertError> {
    let mut converter = Converter::new(rate, channels)?;
    let mut out = Vec::with_capacity(
        (interleaved.len() as f64 * f64::from(SAMPLE_RATE) / f64::from(rate)) as usize + CHUNK,
    );
    for piece in interleaved.chunks(4096 * usize::from(channels)) {
        converter.push(piece, &mut out);
    }
    converter.finish(&mut out);
    Ok(out)
}

/// 16 kHz mono turned into `rate` Hz mono, for playing a recording on a device that
/// does not take 16 kHz.
pub fn from_whisper_rate(mono: &[f32], rate: u32) -> Result<Vec<f32>, ConvertError> {
    if rate == SAMPLE_RATE {
        return Ok(mono.to_vec());
    }
    if !(1_000..=384_000).contains(&rate) {
        return Err(ConvertError::Rate(rate));
    }
    let mut resampler = Fft::<f32>::new(SAMPLE_RATE as usize, rate as usize, CHUNK, 1, FixedSync::Both)
        .map_err(|e| ConvertError::Resampler(e.to_string()))?;
    let input =
        InterleavedSlice::new(mono, 1, mono.len()).map_err(|e| ConvertError::Resampler(e.to_string()))?;
    let output = resampler
        .process_all(&input, mono.len(), None)
        .map_err(|e| ConvertError::Resampler(e.to_string()))?;
    Ok(output.take_data())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(rate: u32, seconds: f32, hz: f32) -> Vec<f32> {
        (0..(rate as f32 * seconds) as usize)
            .map(|i| (i as f32 / rate as f32 * hz * std::f32::consts::TAU).sin() * 0.5)
            .collect()
    }

    #[test]
    fn every_rate_comes_out_as_long_as_it_went_in() {
        for rate in [8_000, 16_000, 22_050, 44_100, 48_000] {
            let input = sine(rate, 1.5, 440.0);
            let out = to_whisper_rate(&input, rate, 1).unwrap();
            assert_eq!(out.len(), 24_000, "{rate} Hz");
        }
    }

    #[test]
    fn stereo_is_averaged_and_pieces_of_any_size_give_the_same_result() {
        let mono = sine(48_000, 1.0, 300.0);
        let stereo: Vec<f32> = mono.iter().flat_map(|&s| [s, s]).collect();
        let whole = to_whisper_rate(&stereo, 48_000, 2).unwrap();
        let mut converter = Converter::new(48_000, 2).unwrap();
        let mut pieces = Vec::new();
        for piece in stereo.chunks(2 * 333) {
            converter.push(piece, &mut pieces);
        }
        converter.finish(&mut pieces);
        assert_eq!(whole, pieces);
        let from_mono = to_whisper_rate(&mono, 48_000, 1).unwrap();
        let largest = whole
            .iter()
            .zip(&from_mono)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(largest < 1e-5, "{largest}");
    }

    #[test]
    fn a_tone_keeps_its_level_and_its_timing() {
        let out = to_whisper_rate(&sine(44_100, 1.0, 440.0), 44_100, 1).unwrap();
        let expected = sine(16_000, 1.0, 440.0);
        // Away from the edges the resampled tone matches one made at 16 kHz.
        let worst = out[1000..15_000]
            .iter()
            .zip(&expected[1000..15_000])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(worst < 0.02, "{worst}");
        let back = from_whisper_rate(&out, 48_000).unwrap();
        assert!((back.len() as i64 - 48_000).abs() <= 1, "{}", back.len());
    }

    #[test]
    fn formats_it_cannot_take_are_errors() {
        assert!(matches!(Converter::new(48_000, 0), Err(ConvertError::NoChannels)));
        assert!(matches!(Converter::new(0, 1), Err(ConvertError::Rate(0))));
        assert!(matches!(Converter::new(1_000_000, 2), Err(ConvertError::Rate(_))));
    }
}
