//! Modal dialogs: a question the person answers before anything else.
//!
//! egui's `Modal` puts a backdrop over the window that takes the pointer, but not the
//! keyboard: a field behind it keeps the focus for the frame the dialog opens in, and
//! the window's own keys (Ctrl+N, the list's arrows) are read before any widget. So a
//! dialog here also takes the keyboard: the widget it names (its first field, or its
//! safe answer) gets the focus when it opens and whenever the focus is anywhere else,
//! Esc or a click outside it gives its safe answer, and the app reads no keys of its own
//! while one shows ([`crate::app`]'s `dialog_open`).

/// What a dialog drew: its answer, if the person gave one this frame, and the widget
/// that holds the keyboard while it shows.
pub struct Shown<T> {
    pub answer: Option<T>,
    pub focus: egui::Id,
}

/// Shows the modal dialog named `name`, drawn by `content`. Returns the person's answer
/// this frame: the one `content` returns, or `cancel` on Esc or a click outside it.
pub fn show<T>(
    ctx: &egui::Context,
    name: &str,
    cancel: T,
    content: impl FnOnce(&mut egui::Ui) -> Shown<T>,
) -> Option<T> {
    let modal = egui::Modal::new(egui::Id::new(name)).show(ctx, |ui| {
        ui.set_max_width(420.0);
        let drawn = content(ui);
        keep_focus(ui, drawn.focus);
        drawn.answer
    });
    let dismissed = modal.should_close();
    modal.inner.or(dismissed.then_some(cancel))
}

/// Gives the keyboard to `widget` unless a widget of the dialog drawn in `ui` has it:
/// when the dialog opens, after a click on its background, after Tab past its last
/// widget.
fn keep_focus(ui: &egui::Ui, widget: egui::Id) {
    let ctx = ui.ctx();
    let inside = ctx
        .memory(|memory| memory.focused())
        .and_then(|focused| ctx.read_response(focused))
        .is_some_and(|focused| focused.layer_id == ui.layer_id());
    if !inside {
        ctx.memory_mut(|memory| memory.request_focus(widget));
    }
}

/// A dialog's two answers side by side, the keyboard on the safe one, `no`: answers
/// `true` for `yes`, `false` for `no`.
pub fn yes_or_no(ui: &mut egui::Ui, yes: &str, no: &str) -> Shown<bool> {
    ui.horizontal(|ui| {
        let yes = ui.button(yes).clicked();
        let no = ui.button(no);
        Shown {
            answer: (yes || no.clicked()).then_some(yes),
            focus: no.id,
        }
    })
    .inner
}
