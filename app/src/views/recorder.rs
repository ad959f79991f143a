//! The voice recorder: speak, see the level, stop, watch the transcript arrive, get an
//! entry.
//!
//! Its stages are what the person sees: idle → recording ⇄ paused → recorded →
//! transcribing → the new entry opens. The microphone is the backend's
//! ([`crate::sound::Microphone`]): this view asks it to start, pause, stop or cancel, and
//! draws what the app hands it each frame (the level and time, the recording's events),
//! so the window never waits on the device. Transcription runs on the transcriber
//! thread, which reports through [`VoiceEvent`]s.

use std::path::{Path, PathBuf};
use std::time::Duration;

use egui::{Color32, RichText};

use mindsage_core::db::audio::Segment;
use mindsage_core::voice::capture::{Ending, Event};
use mindsage_core::voice::recordings;

use super::Action;
use crate::protocol::{VoiceEvent, VoiceRequest};
use crate::sound::{Heard, MicrophoneCommand};

/// The recorder warns this long before the maximum length.
const WARN_BEFORE_END: Duration = Duration::from_secs(60);

/// The red of the recording light.
pub const RECORDING_RED: Color32 = Color32::from_rgb(0xd9, 0x30, 0x25);

enum Stage {
    Idle,
    /// Asked the input to start; it has not answered yet.
    Opening,
    Recording {
        input: String,
        heard: Heard,
    },
    /// Stopped and written; waiting for the transcriber to take it.
    Recorded {
        path: PathBuf,
    },
    Transcribing {
        path: PathBuf,
        percent: u8,
        segments: Vec<Segment>,
        cancelling: bool,
    },
}

pub struct RecorderView {
    stage: Stage,
    /// Where recordings wait for a model, to say so.
    data_dir: PathBuf,
    max_length: Duration,
    /// Recordings waiting for a Whisper model, and why.
    waiting: Vec<PathBuf>,
    waiting_reason: Option<String>,
    /// The last thing worth telling (a failure, a kept partial recording).
    message: Option<String>,
    /// Whether the panel shows although idle (the person opened it, or there is news).
    open: bool,
}

impl RecorderView {
    /// The share of the recording transcribed so far, while it is transcribed.
    pub fn progress(&self) -> Option<f32> {
        match &self.stage {
            Stage::Transcribing { percent, .. } => Some(f32::from(*percent) / 100.0),
            _ => None,
        }
    }

    pub fn new(data_dir: PathBuf, max_length: Duration) -> RecorderView {
        RecorderView {
            stage: Stage::Idle,
            data_dir,
            max_length,
            waiting: Vec::new(),
            waiting_reason: None,
            message: None,
            open: false,
        }
    }

    /// A new longest recording from Settings, for the next one.
    pub fn set_max_length(&mut self, max_length: Duration) {
        self.max_length = max_length;
    }

    /// Whether the panel has something to show.
    pub fn visible(&self) -> bool {
        self.open || !matches!(self.stage, Stage::Idle) || self.message.is_some() || !self.waiting.is_empty()
    }

    /// Whether a recording is running (the top bar's red light).
    pub fn is_recording(&self) -> bool {
        matches!(self.stage, Stage::Opening | Stage::Recording { .. })
    }

    /// Ctrl+R: starts a recording, or stops the one running.
    pub fn toggle(&mut self, actions: &mut Vec<Action>) {
        match &self.stage {
            Stage::Idle => self.start(actions),
            Stage::Recording { .. } | Stage::Opening => {
                actions.push(Action::Microphone(MicrophoneCommand::Stop))
            }
            _ => self.open = true,
        }
    }

    fn start(&mut self, actions: &mut Vec<Action>) {
        self.message = None;
        self.open = true;
        self.stage = Stage::Opening;
        actions.push(Action::Microphone(MicrophoneCommand::Start));
    }

    /// The running recording's level and time, this frame.
    pub fn on_heard(&mut self, now: Heard) {
        if let Stage::Recording { heard, .. } = &mut self.stage {
            *heard = now;
        }
    }

    /// What the microphone reports of the recording.
    pub fn on_recording(&mut self, event: Event, actions: &mut Vec<Action>) {
        match event {
            Event::Started { input } => {
                if let Stage::Opening = self.stage {
                    self.stage = Stage::Recording {
                        input,
                        heard: Heard::default(),
                    };
                }
            }
            Event::Failed(error) => {
                self.stage = Stage::Idle;
                self.message = Some(error.to_string());
            }
            Event::Finished {
                path,
                samples,
                ending,
            } => self.finished(path, samples, ending, actions),
        }
    }

    fn finished(&mut self, path: PathBuf, samples: usize, ending: Ending, actions: &mut Vec<Action>) {
        let kept = format_duration(Duration::from_millis(mindsage_core::voice::duration_ms(samples)));
        match ending {
            Ending::Cancelled => {
                self.stage = Stage::Idle;
                self.open = false;
                return;
            }
            Ending::MaxLength => {
                self.message = Some(format!(
                    "The recording reached its maximum length ({kept}) and stopped."
                ));
            }
            Ending::InputFailed(error) => {
                self.message = Some(format!("{error}. The {kept} recorded until then is kept."));
            }
            Ending::Stopped => {}
        }
        if samples == 0 {
            // The microphone deleted the empty file.
            self.stage = Stage::Idle;
            self.message
                .get_or_insert_with(|| "Nothing was recorded.".to_owned());
            return;
        }
        actions.push(Action::Voice(VoiceRequest::Transcribe(path.clone())));
        self.stage = Stage::Recorded { path };
    }

    /// What the transcriber reports.
    pub fn on_event(&mut self, event: VoiceEvent, actions: &mut Vec<Action>) {
        match event {
            VoiceEvent::Waiting { recordings, reason } => {
                if let Stage::Recorded { path } = &self.stage
                    && recordings.contains(path)
                {
                    self.stage = Stage::Idle;
                }
                self.waiting = recordings;
                self.waiting_reason = Some(reason);
            }
            VoiceEvent::Model(Ok(_)) => self.waiting_reason = None,
            VoiceEvent::Started { recording } => {
                self.waiting.retain(|r| *r != recording);
                if !self.is_recording() {
                    self.stage = Stage::Transcribing {
                        path: recording,
                        percent: 0,
                        segments: Vec::new(),
                        cancelling: false,
                    };
                }
            }
            VoiceEvent::Percent { recording, percent } => {
                if let Stage::Transcribing {
                    path, percent: shown, ..
                } = &mut self.stage
                    && *path == recording
                {
                    *shown = percent;
                }
            }
            VoiceEvent::Segment { recording, segment } => {
                if let Stage::Transcribing { path, segments, .. } = &mut self.stage
                    && *path == recording
                {
                    segments.push(segment);
                }
            }
            VoiceEvent::Saved { recording, id } => {
                self.waiting.retain(|r| *r != recording);
                if self.shows(&recording) {
                    // The entry on screen says the rest; what was told about the
                    // recording (a maximum length, a lost device) is done with.
                    self.stage = Stage::Idle;
                    self.open = false;
                    self.message = None;
                    actions.push(Action::OpenEntry(id));
                }
            }
            VoiceEvent::Failed { recording, message } => {
                if self.shows(&recording) {
                    self.stage = Stage::Idle;
                }
                self.message = Some(message);
            }
            VoiceEvent::Model(Err(_)) | VoiceEvent::Devices(_) => {}
        }
    }

    /// Whether the panel is about `recording` right now.
    fn shows(&self, recording: &Path) -> bool {
        match &self.stage {
            Stage::Recorded { path } | Stage::Transcribing { path, .. } => path == recording,
            _ => false,
        }
    }

    /// The red light and clock in the top bar while recording; clicking shows the panel.
    pub fn indicator_ui(&mut self, ui: &mut egui::Ui) {
        let text = match &self.stage {
            Stage::Recording { heard, .. } if heard.paused => {
                format!("Paused {}", format_duration(heard.elapsed))
            }
            Stage::Recording { heard, .. } => format!("REC {}", format_duration(heard.elapsed)),
            Stage::Opening => "REC".to_owned(),
            Stage::Recorded { .. } | Stage::Transcribing { .. } => "Transcribing…".to_owned(),
            Stage::Idle => return,
        };
        let color = if self.is_recording() {
            light(ui, RECORDING_RED);
            RECORDING_RED
        } else {
            ui.visuals().text_color()
        };
        if ui
            .add(egui::Button::new(RichText::new(text).color(color).strong()).frame(false))
            .on_hover_text("Ctrl+R stops the recording")
            .clicked()
        {
            self.open = true;
        }
    }

    /// The recorder panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            ui.strong("Voice entry");
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if matches!(self.stage, Stage::Idle) && ui.small_button("Close").clicked() {
                    self.open = false;
                    self.message = None;
                }
            });
        });
        match &mut self.stage {
            Stage::Idle => self.idle_ui(ui, actions),
            Stage::Opening => {
                ui.label("Opening the microphone…");
            }
            Stage::Recording { input, heard } => recording_ui(ui, heard, input, self.max_length, actions),
            Stage::Recorded { .. } => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("Recorded. Getting the speech recognition ready…");
                });
            }
            Stage::Transcribing {
                percent,
                segments,
                cancelling,
                ..
            } => {
                if transcribing_ui(ui, *percent, segments, *cancelling) {
                    *cancelling = true;
                    actions.push(Action::CancelTranscription);
                }
            }
        }
        if let Some(message) = &self.message {
            ui.label(RichText::new(message).color(ui.visuals().warn_fg_color));
        }
        self.waiting_ui(ui);
    }

    fn idle_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            light(ui, RECORDING_RED);
            if ui
                .button(RichText::new("Record").color(RECORDING_RED))
                .on_hover_text("Ctrl+R")
                .clicked()
            {
                self.start(actions);
            }
            ui.label(
                RichText::new(format!(
                    "Speak for up to {}; the recording is transcribed on this computer.",
                    format_duration(self.max_length)
                ))
                .weak(),
            );
        });
    }

    fn waiting_ui(&self, ui: &mut egui::Ui) {
        if self.waiting.is_empty() {
            return;
        }
        let count = self.waiting.len();
        let what = if count == 1 {
            "1 recording is".to_owned()
        } else {
            format!("{count} recordings are")
        };
        ui.label(format!(
            "{what} waiting to be transcribed in {}.",
            recordings::folder(&self.data_dir).display()
        ));
        if let Some(reason) = &self.waiting_reason {
            ui.label(RichText::new(reason).weak());
        }
    }
}

/// The level meter, clock and buttons of a running recording.
fn recording_ui(ui: &mut egui::Ui, heard: &Heard, input: &str, max: Duration, actions: &mut Vec<Action>) {
    let (elapsed, paused) = (heard.elapsed, heard.paused);
    ui.horizontal(|ui| {
        light(ui, RECORDING_RED);
        let state = if paused { "Paused" } else { "Recording" };
        ui.label(RichText::new(state).color(RECORDING_RED).strong());
        ui.monospace(format!("{} / {}", format_duration(elapsed), format_duration(max)));
        let level = if paused { 0.0 } else { heard.level };
        ui.add(
            egui::ProgressBar::new(level.sqrt())
                .desired_width(180.0)
                .fill(if heard.clipped {
                    RECORDING_RED
                } else {
                    Color32::from_rgb(0x3c, 0xa5, 0x5c)
                }),
        )
        .on_hover_text("Input level");
        if ui.button(if paused { "Resume" } else { "Pause" }).clicked() {
            actions.push(Action::Microphone(MicrophoneCommand::Pause(!paused)));
        }
        if ui.button("Stop").on_hover_text("Ctrl+R").clicked() {
            actions.push(Action::Microphone(MicrophoneCommand::Stop));
        }
        if ui
            .button("Cancel")
            .on_hover_text("Discard this recording")
            .clicked()
        {
            actions.push(Action::Microphone(MicrophoneCommand::Cancel));
        }
    });
    ui.label(RichText::new(format!("From {input}")).weak().small());
    if heard.clipped {
        ui.label(
            RichText::new(
                "The sound is too loud and clips: move back from the microphone or lower its volume.",
            )
            .color(ui.visuals().warn_fg_color),
        );
    }
    if heard.dropped {
        ui.label(
            RichText::new(
                "Some sound was lost: the computer fell behind the microphone. Closing other programs helps.",
            )
            .color(ui.visuals().warn_fg_color),
        );
    }
    let left = max.saturating_sub(elapsed);
    if left <= WARN_BEFORE_END {
        ui.label(
            RichText::new(format!("The recording stops in {}.", format_duration(left)))
                .color(ui.visuals().warn_fg_color),
        );
    }
}

/// The progress bar and the segments heard so far; returns true when Cancel is clicked.
fn transcribing_ui(ui: &mut egui::Ui, percent: u8, segments: &[Segment], cancelling: bool) -> bool {
    let mut cancel = false;
    ui.horizontal(|ui| {
        ui.label("Transcribing on this computer…");
        ui.add(
            egui::ProgressBar::new(f32::from(percent) / 100.0)
                .desired_width(200.0)
                .show_percentage(),
        );
        let button = egui::Button::new(if cancelling { "Stopping…" } else { "Stop here" });
        cancel = ui
            .add_enabled(!cancelling, button)
            .on_hover_text("Keeps what was heard so far as the entry")
            .clicked();
    });
    egui::ScrollArea::vertical()
        .max_height(120.0)
        .stick_to_bottom(true)
        .show(ui, |ui| {
            for segment in segments {
                ui.horizontal_wrapped(|ui| {
                    let at = format_duration(Duration::from_millis(segment.start_ms));
                    ui.label(RichText::new(at).weak().monospace());
                    ui.label(&segment.text);
                });
            }
        });
    cancel
}

/// The round red light of a recording, painted: the UI's font has no round bullet.
fn light(ui: &mut egui::Ui, color: Color32) {
    let side = ui.text_style_height(&egui::TextStyle::Body);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(side, side), egui::Sense::hover());
    ui.painter().circle_filled(rect.center(), side * 0.32, color);
}

/// "m:ss", or "h:mm:ss" past an hour.
pub fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds / 3600 {
        0 => format!("{}:{:02}", seconds / 60, seconds % 60),
        hours => format!("{hours}:{:02}:{:02}", (seconds / 60) % 60, seconds % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_clock() {
        assert_eq!(format_duration(Duration::from_millis(59_900)), "0:59");
        assert_eq!(format_duration(Duration::from_secs(15 * 60)), "15:00");
        assert_eq!(format_duration(Duration::from_secs(3_725)), "1:02:05");
    }
}
