//! Stop signals: SIGINT, SIGTERM or SIGHUP (Ctrl+C in the terminal that started the
//! app, a shutdown), and Windows ending the session ([`crate::session_end`]). The window
//! then saves and closes as on a close request; the unlock screen, with nothing to
//! save, just closes.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the handler [`install`] sets.
static STOP_SIGNALLED: AtomicBool = AtomicBool::new(false);

/// Catches the stop signals from now on, waking the window (`ctx`) when one comes.
pub fn install(ctx: egui::Context) {
    let handler = ctrlc::set_handler(move || stop(&ctx));
    if let Err(error) = handler {
        tracing::warn!(%error, "no signal handler: Ctrl+C ends the app without saving first");
    }
}

/// Stops the window (`ctx`) as a stop signal does, from any thread.
pub(crate) fn stop(ctx: &egui::Context) {
    STOP_SIGNALLED.store(true, Ordering::SeqCst);
    ctx.request_repaint();
}

/// Whether a stop signal came.
pub fn stop_signalled() -> bool {
    STOP_SIGNALLED.load(Ordering::SeqCst)
}
