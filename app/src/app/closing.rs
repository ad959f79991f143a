//! Closing saves first. A close request (the window's close button, Alt+F4, a window
//! manager's close) or SIGINT/SIGTERM/SIGHUP is answered by cancelling the close, saving
//! the editor's pending edits at once, and a [`Request::Flush`] through the writer; the
//! window shows "Saving before closing…" and closes when both have answered, or after
//! [`CLOSE_PATIENCE`] with the unsaved text kept as a draft file. The UI thread waits on
//! none of it. Windows ending the session (a log-off, a shutdown) comes as a stop signal
//! too ([`crate::session_end`]).
//!
//! Locking an encrypted journal (Ctrl+L, the idle time) and changing its encryption take
//! the same path as closing: the edits are saved, then the app hands itself over
//! ([`Handover`]) to [`crate::shell::Shell`], which drops it.
//!
//! When saving cannot finish (the threads that save are gone, or closing cannot wait
//! any longer) the editor's unsaved text goes to draft files through the backend.

use std::time::{Duration, Instant};

use super::{Handover, MindSageApp};
use crate::protocol::Request;
use crate::views::Action;
use crate::views::editor::DraftToKeep;

/// Longest a close waits for the last saves before the window closes anyway (their text
/// then kept as a draft file): a stuck disk must not keep the window open for ever.
pub(crate) const CLOSE_PATIENCE: Duration = Duration::from_secs(10);

/// Where the window is on its way out (or to being locked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closing {
    Open,
    /// A close (or a hand-over) was asked for; the last saves are on their way.
    Saving {
        since: Instant,
        flushed: bool,
        then: Then,
    },
    /// The close was sent to the window.
    Closed,
    /// [`MindSageApp::handover`] waits for the shell.
    HandedOver,
}

/// What follows the last saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Then {
    Close,
    HandOver,
}

impl MindSageApp {
    /// Whether the window has saved everything and told the window system to close.
    pub fn closed(&self) -> bool {
        self.closing == Closing::Closed
    }

    /// What the shell is to do with the app, once everything is saved.
    pub fn take_handover(&mut self) -> Option<Handover> {
        match self.closing {
            Closing::HandedOver => self.handover.take(),
            _ => None,
        }
    }

    /// Saves what is pending, then hands `handover` to the shell.
    pub(super) fn hand_over(&mut self, handover: Handover, actions: &mut Vec<Action>) {
        if self.closing != Closing::Open {
            return;
        }
        self.journal.save_now(actions);
        actions.push(Action::Send(Request::Flush));
        self.handover = Some(handover);
        self.closing = Closing::Saving {
            since: Instant::now(),
            flushed: false,
            then: Then::HandOver,
        };
    }

    /// Stops the editor saving (its threads are gone or closing cannot wait) and keeps
    /// its unsaved text in draft files; returns where, or why not, for each.
    pub(super) fn halt_and_keep(&mut self) -> Vec<String> {
        let left = self.journal.halt();
        left.into_iter()
            .map(|draft| {
                self.keep_draft(draft)
                    .unwrap_or_else(|e| format!("(a draft file could not be written: {e})"))
            })
            .collect()
    }

    /// Has the backend keep `draft` in its file, and the editor know where; returns
    /// where, in the person's words.
    pub(super) fn keep_draft(&mut self, draft: DraftToKeep) -> std::io::Result<String> {
        let kept = self.backend.keep_draft(&draft.name, &draft.edit)?;
        let described = kept.described.clone();
        self.journal.on_kept(&draft.name, kept);
        Ok(described)
    }

    /// Follows a close request or a stop signal through saving to closing.
    pub(super) fn closing(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let requested = ctx.input(|i| i.viewport().close_requested()) || crate::signals::stop_signalled();
        match self.closing {
            Closing::Closed | Closing::HandedOver => return,
            Closing::Open if !requested => return,
            Closing::Open => {
                self.journal.save_now(actions);
                // After the saves: the writer answers in order.
                actions.push(Action::Send(Request::Flush));
                self.closing = Closing::Saving {
                    since: Instant::now(),
                    flushed: false,
                    then: Then::Close,
                };
            }
            Closing::Saving { since, flushed, then } => {
                let saved = flushed && self.journal.all_saved();
                let give_up = since.elapsed() >= CLOSE_PATIENCE || self.journal.saving_halted();
                if saved || give_up {
                    if !saved {
                        // The threads are stuck or gone: the text leaves as a draft file.
                        let kept = self.halt_and_keep();
                        tracing::warn!(?kept, "closed before the last saves were answered");
                    }
                    if then == Then::HandOver && !requested {
                        self.closing = Closing::HandedOver;
                        ctx.request_repaint();
                        return;
                    }
                    tracing::debug!(saved, "closing the window");
                    self.closing = Closing::Closed;
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    return;
                }
            }
        }
        if requested {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
        ctx.request_repaint_after(Duration::from_millis(20));
    }

    pub(super) fn closing_notice_ui(&self, ctx: &egui::Context) {
        if let Closing::Saving { then, .. } = self.closing {
            let what = match (then, &self.handover) {
                (Then::HandOver, Some(Handover::Lock)) => "Saving before locking…",
                (Then::HandOver, _) => "Saving before the journal is closed for the change…",
                (Then::Close, _) => "Saving before closing…",
            };
            egui::Modal::new(egui::Id::new("closing")).show(ctx, |ui| {
                ui.label(what);
            });
        }
    }
}
