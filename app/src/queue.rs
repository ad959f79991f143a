//! The model's queue as the person sees it: a slim bar under the top bar while entries
//! are being indexed or described, with a progress bar that moves, what the work waits
//! on (Ollama not running, a model not pulled), and Pause/Resume.

use egui::RichText;

use mindsage_core::ai::jobs::{Activity, QueueStatus};

/// The last status the job runner sent.
#[derive(Default)]
pub struct QueueBar {
    status: Option<QueueStatus>,
}

impl QueueBar {
    pub fn on_status(&mut self, status: QueueStatus) {
        self.status = Some(status);
    }

    /// Draws the bar when there is work to show; returns `Some(paused)` when the person
    /// pressed Pause or Resume.
    pub fn ui(&self, ctx: &egui::Context) -> Option<bool> {
        let status = self.status.as_ref()?;
        let (line, fraction) = status.summary()?;
        let mut asked = None;
        egui::TopBottomPanel::top("queue_bar").show(ctx, |ui| {
            ui.horizontal(|ui| {
                let waiting = matches!(status.activity, Activity::Waiting(_));
                let text = RichText::new(line).small();
                ui.label(if waiting {
                    text.color(ui.visuals().warn_fg_color)
                } else {
                    text
                });
                ui.add(egui::ProgressBar::new(fraction).desired_width(160.0));
                asked = pause_button_ui(ui, &status.activity);
            });
        });
        asked
    }
}

fn pause_button_ui(ui: &mut egui::Ui, activity: &Activity) -> Option<bool> {
    let paused = matches!(activity, Activity::Paused);
    let (label, hover) = if paused {
        ("Resume", "Let the local model carry on")
    } else {
        (
            "Pause",
            "Stop the local model's background work for now; nothing is lost",
        )
    };
    ui.small_button(label)
        .on_hover_text(hover)
        .clicked()
        .then_some(!paused)
}
