//! An entry's recording under its text: play and pause, a seek bar with the time, and
//! what was heard with where (a click on a line plays from there).
//!
//! The sound plays on its own thread ([`Player`]); this widget only reads its position
//! and sets play, pause and seek, so dragging the bar never waits on the device. When
//! the output fails the player stays, with why under it (wrapped to the editor's width):
//! Play tries again.

use std::time::Duration;

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::db::audio::Segment;
use mindsage_core::voice::playback::Player;

use super::recorder::format_duration;

/// Redraws while playing, for the position.
const POSITION_REFRESH: Duration = Duration::from_millis(100);

pub struct RecordingPlayer {
    pub entry: EntryId,
    player: Player,
    segments: Vec<Segment>,
    show_segments: bool,
}

impl RecordingPlayer {
    /// A player for an entry's recording (16 kHz mono), paused at the start.
    pub fn new(entry: EntryId, samples: Vec<f32>, segments: Vec<Segment>) -> RecordingPlayer {
        RecordingPlayer {
            entry,
            player: Player::open(samples),
            segments,
            show_segments: false,
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let player = &self.player;
        ui.horizontal(|ui| {
            let playing = player.is_playing();
            let label = if playing { "Pause" } else { "▶ Play recording" };
            if ui.button(label).clicked() {
                if playing {
                    player.pause();
                } else {
                    player.play();
                }
            }
            let duration = player.duration_ms();
            let mut position = player.position_ms();
            let bar = egui::Slider::new(&mut position, 0..=duration.max(1))
                .show_value(false)
                .trailing_fill(true);
            if ui
                .add(bar)
                .on_hover_text("Drag to move in the recording")
                .changed()
            {
                player.seek_ms(position);
            }
            ui.monospace(format!(
                "{} / {}",
                format_duration(Duration::from_millis(position)),
                format_duration(Duration::from_millis(duration))
            ));
            if playing {
                ui.ctx().request_repaint_after(POSITION_REFRESH);
            }
            if !self.segments.is_empty() {
                ui.toggle_value(&mut self.show_segments, "Where each part was said");
            }
        });
        if let Some(error) = player.error() {
            let error = error.to_string();
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
                        player.seek_ms(segment.start_ms);
                        player.play();
                    }
                    ui.label(&segment.text);
                });
            }
        }
    }
}
