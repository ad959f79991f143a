//! Every action of the window by name, with its shortcut: one table, read by the
//! window's keyboard handling, the menu, the command palette (Ctrl+K) and the shortcut
//! sheet (F1), so none of them can say something the others do not do.

use egui::{Key, KeyboardShortcut, Modifiers};

use super::View;

/// What the person can ask the window to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    NewEntry,
    /// Starts a voice entry, or stops the one recording.
    Record,
    Today,
    /// Opens the page's date and time to change them.
    ChangeDate,
    /// Puts the clipboard's image in the page where the cursor is.
    PastePhoto,
    DayBefore,
    DayAfter,
    MonthBefore,
    MonthAfter,
    /// Opens an entry lived over a month ago, at random.
    OlderEntry,
    Search,
    ToggleList,
    FocusMode,
    Show(View),
    ImportFile,
    ImportFolder,
    ExportJson,
    ExportMarkdown,
    Lock,
    ToggleTheme,
    Profiler,
    Palette,
    Shortcuts,
}

/// One row of the table: a command, its name, its shortcut if it has one.
pub struct Named {
    pub command: Command,
    pub name: &'static str,
    pub shortcut: Option<KeyboardShortcut>,
}

const fn named(command: Command, name: &'static str, shortcut: Option<KeyboardShortcut>) -> Named {
    Named {
        command,
        name,
        shortcut,
    }
}

const fn keys(modifiers: Modifiers, key: Key) -> Option<KeyboardShortcut> {
    Some(KeyboardShortcut::new(modifiers, key))
}

const CTRL: Modifiers = Modifiers::COMMAND;
const CTRL_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);

/// The table. A shortcut is matched in this order, and egui matches Ctrl+L on Ctrl+Shift+L
/// too: a longer chord comes before the shorter one it contains.
pub const COMMANDS: &[Named] = &[
    named(Command::NewEntry, "New entry", keys(CTRL, Key::N)),
    named(Command::Record, "New voice entry", keys(CTRL, Key::R)),
    named(Command::Today, "Go to today", keys(Modifiers::ALT, Key::Home)),
    named(Command::ChangeDate, "Change the page's date and time…", None),
    named(Command::PastePhoto, "Paste a photo from the clipboard", None),
    named(
        Command::DayBefore,
        "Go to the day before",
        keys(Modifiers::ALT, Key::ArrowLeft),
    ),
    named(
        Command::DayAfter,
        "Go to the day after",
        keys(Modifiers::ALT, Key::ArrowRight),
    ),
    named(
        Command::MonthBefore,
        "Go to a month before",
        keys(Modifiers::ALT, Key::ArrowUp),
    ),
    named(
        Command::MonthAfter,
        "Go to a month after",
        keys(Modifiers::ALT, Key::ArrowDown),
    ),
    named(Command::OlderEntry, "Open an older entry, at random", None),
    named(Command::Search, "Search the journal", keys(CTRL, Key::F)),
    named(
        Command::ToggleList,
        "Show or hide the list",
        keys(CTRL, Key::Backslash),
    ),
    named(Command::FocusMode, "Focus mode", keys(Modifiers::NONE, Key::F11)),
    named(
        Command::Show(View::Journal),
        "Show the journal",
        keys(CTRL, Key::Num1),
    ),
    named(
        Command::Show(View::Dashboard),
        "Show the dashboard",
        keys(CTRL, Key::Num2),
    ),
    named(
        Command::Show(View::Gallery),
        "Show the gallery",
        keys(CTRL, Key::Num3),
    ),
    named(Command::Show(View::Ask), "Ask the journal", keys(CTRL, Key::Num4)),
    named(
        Command::Show(View::People),
        "Show people & places",
        keys(CTRL, Key::Num5),
    ),
    named(
        Command::Show(View::Reflections),
        "Show the reflections",
        keys(CTRL, Key::Num6),
    ),
    named(
        Command::Show(View::Settings),
        "Show the settings",
        keys(CTRL, Key::Num7),
    ),
    named(Command::ImportFile, "Import a journal…", None),
    named(Command::ImportFolder, "Import a Markdown folder…", None),
    named(Command::ExportJson, "Export as JSON…", None),
    named(Command::ExportMarkdown, "Export as Markdown…", None),
    named(
        Command::ToggleTheme,
        "Light or dark theme",
        keys(CTRL_SHIFT, Key::L),
    ),
    named(Command::Lock, "Lock", keys(CTRL, Key::L)),
    named(
        Command::Profiler,
        "Show or hide the profiler",
        keys(Modifiers::NONE, Key::F12),
    ),
    named(Command::Palette, "Command palette", keys(CTRL, Key::K)),
    named(
        Command::Shortcuts,
        "Keyboard shortcuts",
        keys(Modifiers::NONE, Key::F1),
    ),
];

/// Second shortcuts, as other programs have them: Ctrl+/ for the shortcut sheet, and
/// Ctrl+Shift+P for the palette, which works in the page's text too (where Ctrl+K makes
/// a link).
pub const ALSO: [(Command, KeyboardShortcut); 2] = [
    (Command::Shortcuts, KeyboardShortcut::new(CTRL, Key::Slash)),
    (Command::Palette, KeyboardShortcut::new(CTRL_SHIFT, Key::P)),
];

impl Command {
    fn row(self) -> &'static Named {
        COMMANDS
            .iter()
            .find(|named| named.command == self)
            .expect("every command is in the table")
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The shortcut as the person types it ("Ctrl+N"), or "".
    pub fn keys(self) -> String {
        self.row().shortcut.map(|s| describe(&s)).unwrap_or_default()
    }

    /// Every shortcut of the command, its second one too ("F1 or Ctrl+/").
    pub fn all_keys(self) -> String {
        let also = ALSO.iter().filter(|(command, _)| *command == self);
        std::iter::once(self.keys())
            .chain(also.map(|(_, shortcut)| describe(shortcut)))
            .collect::<Vec<_>>()
            .join(" or ")
    }

    /// The name with the shortcut after it, as the menu shows it: "New entry (Ctrl+N)".
    pub fn label(self) -> String {
        match self.keys() {
            keys if keys.is_empty() => self.name().to_owned(),
            keys => format!("{} ({keys})", self.name()),
        }
    }
}

/// A shortcut in words: "Ctrl+Shift+L", "Alt+Left", "Ctrl+\". egui's own formatting
/// writes arrows as symbols that the interface font lacks.
pub fn describe(shortcut: &KeyboardShortcut) -> String {
    let mut parts = Vec::new();
    let m = shortcut.modifiers;
    if m.command || m.ctrl {
        parts.push("Ctrl");
    }
    if m.alt {
        parts.push("Alt");
    }
    if m.shift {
        parts.push("Shift");
    }
    let key = match shortcut.logical_key {
        Key::Backslash => "\\",
        Key::Slash => "/",
        key => key.name(),
    };
    parts.push(key);
    parts.join("+")
}

/// The commands whose words contain every word of `query`, in the table's order.
pub fn matching(query: &str) -> impl Iterator<Item = &'static Named> + '_ {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    COMMANDS.iter().filter(move |named| {
        let name = named.name.to_lowercase();
        words.iter().all(|word| name.contains(word.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcuts_read_as_a_person_types_them() {
        assert_eq!(Command::NewEntry.label(), "New entry (Ctrl+N)");
        assert_eq!(Command::ToggleTheme.keys(), "Ctrl+Shift+L");
        assert_eq!(Command::DayBefore.keys(), "Alt+Left");
        assert_eq!(Command::ToggleList.keys(), "Ctrl+\\");
        assert_eq!(Command::ExportJson.label(), "Export as JSON…");
        assert_eq!(Command::Shortcuts.all_keys(), "F1 or Ctrl+/");
    }

    #[test]
    fn no_two_commands_share_a_shortcut_and_longer_chords_come_first() {
        let mut shortcuts: Vec<KeyboardShortcut> = COMMANDS.iter().filter_map(|n| n.shortcut).collect();
        shortcuts.extend(ALSO.iter().map(|(_, shortcut)| *shortcut));
        for (i, a) in shortcuts.iter().enumerate() {
            for b in &shortcuts[i + 1..] {
                assert_ne!(a, b, "{} twice", describe(a));
                // A later shortcut must not be matched by an earlier, shorter one.
                let contains = a.logical_key == b.logical_key && b.modifiers.contains(a.modifiers);
                assert!(
                    !contains,
                    "{} is matched by {} before it",
                    describe(b),
                    describe(a)
                );
            }
        }
    }

    #[test]
    fn the_palette_finds_commands_by_any_of_their_words() {
        let found: Vec<&str> = matching("go day").map(|n| n.name).collect();
        assert_eq!(
            found,
            ["Go to today", "Go to the day before", "Go to the day after"]
        );
        assert_eq!(matching("EXPORT json").count(), 1);
        assert_eq!(matching("").count(), COMMANDS.len());
    }
}
