//! Ask: questions about the journal, answered by the local model from its entries.

use egui::RichText;

/// The Ask screen. The answering pipeline (local model, retrieval, streamed answers) is
/// not part of this build, so the screen says so instead of pretending.
pub fn show(ctx: &egui::Context) {
    egui::CentralPanel::default().show(ctx, |ui| {
        ui.heading("Ask your journal");
        ui.add_space(8.0);
        ui.label("Ask is not available yet: this build of MindSage has no connection to a local model.");
        ui.label(
            RichText::new(
                "When it arrives, questions are answered by Ollama on this computer from your own entries, \
                 with the entries it used listed under each answer.",
            )
            .weak(),
        );
    });
}
