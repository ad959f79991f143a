//! The model's queue as the person sees it: at the right of the top bar while entries
//! are being indexed or described, with a progress bar that moves, what the work waits
//! on (Ollama not running, a model not pulled), and Pause/Resume.

use egui::RichText;

use mindsage_core::ai::runner::{Activity, QueueStatus};

use crate::protocol::Request;
use crate::taskbar::Progress;
use crate::views::Action;

/// The last status the job runner sent.
#[derive(Default)]
pub struct QueueBar {
    status: Option<QueueStatus>,
}

impl QueueBar {
    pub fn on_status(&mut self, status: QueueStatus) {
        self.status = Some(status);
    }

    /// The share of the model's work done, while there is some; it waits when paused
    /// or when the model cannot be reached.
    pub fn progress(&self) -> Option<Progress> {
        let status = self.status.as_ref()?;
        let (_, share) = status.summary()?;
        Some(match status.activity {
            Activity::Paused | Activity::Waiting(_) => Progress::Waiting(share),
            _ => Progress::Working(share),
        })
    }

    /// Whether there is work to show.
    pub fn visible(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.summary().is_some())
    }

    /// The bar: what the work is doing, its progress, and Pause/Resume, pressed as
    /// [`Request::PauseQueue`].
    /// Drawn from the right in a right-to-left layout: Pause/Resume, the progress bar,
    /// then the line, cut to the room left (the whole line shows on hover).
    pub fn ui(&self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let Some(status) = &self.status else {
            return;
        };
        let Some((line, fraction)) = status.summary() else {
            return;
        };
        if let Some(paused) = pause_button_ui(ui, &status.activity) {
            actions.push(Action::Send(Request::PauseQueue(paused)));
        }
        ui.add(egui::ProgressBar::new(fraction).desired_width(120.0));
        let waiting = matches!(status.activity, Activity::Waiting(_));
        let text = RichText::new(&line).small();
        let text = if waiting {
            text.color(ui.visuals().warn_fg_color)
        } else {
            text
        };
        ui.add(egui::Label::new(text).truncate()).on_hover_text(line);
    }
}

/// Pause or Resume; returns `Some(paused)` when pressed.
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
