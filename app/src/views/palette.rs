//! What the keyboard can do, from [`super::commands`]'s table: the command palette
//! (Ctrl+K: type a few letters of any action, Enter runs it) and the shortcut sheet
//! (F1 or Ctrl+/: every shortcut, and the keys of the list and the page).

use egui::{Key, Modifiers, RichText};

use super::commands::{self, Command};
use super::dialog::{self, Shown};

/// Keys that are not commands: they act on what has the keyboard.
const OTHER_KEYS: &[(&str, &str)] = &[
    ("Up, Down", "Move along the list (when no field has the keyboard)"),
    ("Enter", "Open the entry under the list's cursor"),
    ("Delete", "Move it to the trash (in the trash: delete it forever)"),
    (
        "Esc",
        "Leave a field, close a dialog, clear the search, leave focus mode",
    ),
    (
        "Tab, Shift+Tab",
        "Move between fields and buttons; on a list item, indent it or outdent it",
    ),
    ("Ctrl+B, Ctrl+I", "Bold, italic, in the page's text"),
    ("Ctrl+K", "A link, in the page's text"),
    (
        "Enter",
        "In a list, the next item; on an empty item, the end of the list",
    ),
];

/// The command palette while it is open.
#[derive(Default)]
pub struct Palette {
    query: String,
    /// The highlighted row among the matches.
    selected: usize,
}

impl Palette {
    /// The palette over the window; `available` says which commands can run now.
    /// Returns `Some(None)` when the person closed it, `Some(Some(command))` when they
    /// chose one.
    pub fn ui(
        &mut self,
        ctx: &egui::Context,
        available: impl Fn(Command) -> bool,
    ) -> Option<Option<Command>> {
        dialog::show(ctx, "command_palette", None, |ui| {
            ui.set_min_width(400.0);
            let matches: Vec<&commands::Named> = commands::matching(&self.query)
                .filter(|named| available(named.command))
                .collect();
            let (up, down) = ui.input_mut(|i| {
                (
                    i.count_and_consume_key(Modifiers::NONE, Key::ArrowUp),
                    i.count_and_consume_key(Modifiers::NONE, Key::ArrowDown),
                )
            });
            let last = matches.len().saturating_sub(1);
            self.selected = (self.selected + down).saturating_sub(up).min(last);
            let field = ui.add(
                egui::TextEdit::singleline(&mut self.query)
                    .hint_text("Type a command")
                    .desired_width(f32::INFINITY),
            );
            field.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Command"));
            if field.changed() {
                self.selected = 0;
            }
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
            let mut answer = entered
                .then(|| matches.get(self.selected).map(|named| named.command))
                .flatten()
                .map(Some);
            ui.separator();
            egui::ScrollArea::vertical().max_height(320.0).show(ui, |ui| {
                for (index, named) in matches.iter().enumerate() {
                    ui.horizontal(|ui| {
                        let row = ui.selectable_label(index == self.selected, named.name);
                        if index == self.selected {
                            row.scroll_to_me(None);
                        }
                        if row.clicked() {
                            answer = Some(Some(named.command));
                        }
                        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                            ui.label(RichText::new(named.command.keys()).weak());
                        });
                    });
                }
                if matches.is_empty() {
                    ui.label(RichText::new("No command has those words.").weak());
                }
            });
            Shown {
                answer,
                focus: field.id,
            }
        })
    }
}

/// The shortcut sheet: every command with a shortcut, then the keys that act on what has
/// the keyboard. Returns true when the person closed it.
pub fn shortcut_sheet_ui(ctx: &egui::Context) -> bool {
    dialog::show(ctx, "shortcut_sheet", true, |ui| {
        ui.heading("Keyboard shortcuts");
        egui::ScrollArea::vertical().max_height(480.0).show(ui, |ui| {
            egui::Grid::new("shortcuts")
                .striped(true)
                .num_columns(2)
                .show(ui, |ui| {
                    for named in commands::COMMANDS.iter().filter(|n| n.shortcut.is_some()) {
                        ui.label(RichText::new(named.command.all_keys()).monospace());
                        ui.label(named.name);
                        ui.end_row();
                    }
                    for (keys, what) in OTHER_KEYS {
                        ui.label(RichText::new(*keys).monospace());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
        });
        let close = ui.button("Close");
        Shown {
            answer: close.clicked().then_some(true),
            focus: close.id,
        }
    })
    .is_some()
}
