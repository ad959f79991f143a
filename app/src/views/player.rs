//! An entry's recording under its text: play and pause, a seek bar with the time, and
//! what was heard with where (a click on a line plays from there).
//!
//! The sound plays on the backend's speaker ([`crate::sound::Speaker`], a thread of its
//! own); this widget draws the position the app hands it each frame and asks for play,
//! pause and seek, so dragging the bar never waits on the device. When the output fails
//! the player stays, with why under it (wrapped to the editor's width): Play tries again.

use std::time::Duration;

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::audio::Segment;

use super::Action;
use super::recorder::format_duration;
use crate::sound::{Playing, SpeakerCommand};

/// Redraws while playing, for the position.
const POSITION_REFRESH: Duration = Duration::from_millis(100);

pub struct RecordingPlayer {
    pub entry: EntryId,
    /// The speaker's state this frame.
    playing: Playing,
    segments: Vec<Segment>,
    show_segments: bool,
}

impl RecordingPlayer {
    /// A player for an entry's recording, which the speaker holds, paused at the start.
    pub fn new(entry: EntryId, segments: Vec<Segment>) -> RecordingPlayer {
        RecordingPlayer {
            entry,
            playing: Playing::default(),
            segments,
            show_segments: false,
        }
    }

    /// The speaker's state this frame.
    pub fn on_playing(&mut self, playing: Playing) {
        self.playing = playing;
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let state = &self.playing;
        let mut asked = None;
        ui.horizontal(|ui| {
            let label = if state.playing {
                "Pause"
            } else {
                "▶ Play recording"
            };
            if ui.button(label).clicked() {
                asked = Some(match state.playing {
                    true => SpeakerCommand::Pause,
                    false => SpeakerCommand::Play,
                });
            }
            let duration = state.duration_ms;
            let mut position = state.position_ms;
            let bar = egui::Slider::new(&mut position, 0..=duration.max(1))
                .show_value(false)
                .trailing_fill(true);
            if ui
                .add(bar)
                .on_hover_text("Drag to move in the recording")
                .changed()
            {
                asked = Some(SpeakerCommand::Seek(position));
            }
            ui.monospace(format!(
                "{} / {}",
                format_duration(Duration::from_millis(position)),
                format_duration(Duration::from_millis(duration))
            ));
            if state.playing {
                ui.ctx().request_repaint_after(POSITION_REFRESH);
            }
            if !self.segments.is_empty() {
                ui.toggle_value(&mut self.show_segments, "Where each part was said");
            }
        });
        if let Some(error) = &state.error {
            let told = RichText::new(format!(
                "The recording cannot play: {}.",
                error.trim_end_matches('.')
            ))
            .color(ui.visuals().warn_fg_color);
            ui.add(egui::Label::new(told).wrap());
        }
        if self.show_segments {
            for segment in &self.segments {
                ui.horizontal_wrapped(|ui| {
                    let at = format_duration(Duration::from_millis(segment.start_ms));
                    if ui.small_button(at).on_hover_text("Play from here").clicked() {
                        asked = Some(SpeakerCommand::PlayFrom(segment.start_ms));
                    }
                    ui.label(&segment.text);
                });
            }
        }
        actions.extend(asked.map(Action::Speaker));
    }
}
