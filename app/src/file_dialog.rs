//! The system's file dialog, for photos, imports, exports and a backup to restore; and a
//! path typed into the window where that dialog cannot open.
//!
//! rfd shows the dialog through the desktop portal on Linux (xdg-desktop-portal's file
//! chooser, over the session bus), else through zenity. Where neither is there (a
//! desktop without a portal, no session bus) rfd gives back nothing, as when the person
//! cancels, and the window did nothing at all. So the dialog's thread first asks whether
//! either can be reached; when neither can, the window says why and takes the path typed
//! (or, for photos and exports to import, a file dropped on the window) instead. Windows'
//! own dialog is always there.
//!
//! The dialog blocks until the person chooses, so it runs on a thread of its own
//! (`mindsage-file-dialog`); its answer arrives on a channel the window polls each frame.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use egui::RichText;

use mindsage_core::db::EntryId;
use mindsage_core::export;

use crate::views::dialog::{self, Shown};

/// What a file dialog is opened for.
#[derive(Debug, Clone, Copy)]
pub enum FileChoice {
    Photos(EntryId),
    ImportFile,
    ImportFolder,
    ExportJson,
    ExportMarkdown,
    Backup,
}

/// What the person chose in it.
pub enum Chosen {
    Photos(EntryId, Vec<PathBuf>),
    Import(PathBuf),
    Export(PathBuf, export::Format),
    Backup(PathBuf),
}

impl FileChoice {
    /// What choosing `path` for this means.
    fn chosen(self, path: PathBuf) -> Chosen {
        match self {
            FileChoice::Photos(entry) => Chosen::Photos(entry, vec![path]),
            FileChoice::ImportFile | FileChoice::ImportFolder => Chosen::Import(path),
            FileChoice::ExportJson => Chosen::Export(path, export::Format::Json),
            FileChoice::ExportMarkdown => Chosen::Export(path, export::Format::Markdown),
            FileChoice::Backup => Chosen::Backup(path),
        }
    }

    /// What the path typed instead names, in the person's words.
    fn what_to_type(self) -> &'static str {
        match self {
            FileChoice::Photos(_) => "Type the full path of the photo to add, or drop photos on the window.",
            FileChoice::ImportFile => {
                "Type the full path of the export to import (a Day One zip, a JSON or Markdown file), or drop it on the window."
            }
            FileChoice::ImportFolder => {
                "Type the full path of the folder of Markdown files, or drop it on the window."
            }
            FileChoice::ExportJson => "Type the full path of the JSON file to write.",
            FileChoice::ExportMarkdown => {
                "Type the full path of a new or empty folder for the Markdown files."
            }
            FileChoice::Backup => "Type the full path of the backup to restore.",
        }
    }

    fn button(self) -> &'static str {
        match self {
            FileChoice::ExportJson | FileChoice::ExportMarkdown => "Export",
            _ => "Open",
        }
    }

    /// The system's dialog, blocking until the person chooses (`None`: cancelled).
    fn show(self) -> Option<Chosen> {
        let dialog = rfd::FileDialog::new();
        match self {
            FileChoice::Photos(entry) => dialog
                .set_title("Add photos to the entry")
                .add_filter("Photos", &["png", "jpg", "jpeg"])
                .pick_files()
                .filter(|files| !files.is_empty())
                .map(|files| Chosen::Photos(entry, files)),
            FileChoice::ImportFile => dialog
                .set_title("Import a journal: Day One, jrnl, MindSage or Markdown")
                .add_filter("Exports", &["zip", "json", "md", "markdown"])
                .pick_file()
                .map(|path| self.chosen(path)),
            FileChoice::ImportFolder => dialog
                .set_title("Import a folder of Markdown files")
                .pick_folder()
                .map(|path| self.chosen(path)),
            FileChoice::ExportJson => dialog
                .set_title("Export the journal")
                .set_file_name("MindSage journal.json")
                .add_filter("MindSage export", &["json"])
                .save_file()
                .map(|path| self.chosen(path)),
            FileChoice::ExportMarkdown => dialog
                .set_title("Export the journal as Markdown into a new or empty folder")
                .pick_folder()
                .map(|path| self.chosen(path)),
            FileChoice::Backup => dialog
                .set_title("Restore the journal from a backup")
                .add_filter("MindSage backups", &["db"])
                .pick_file()
                .map(|path| self.chosen(path)),
        }
    }
}

/// The dialog thread's answer.
enum Answer {
    Chosen(Chosen),
    Cancelled,
    /// No dialog can open here, and why.
    Unavailable(String),
}

/// The path typed where no dialog could open.
struct Typing {
    choice: FileChoice,
    reason: String,
    path: String,
}

/// The window's file dialogs: the one open on its thread, or the typed path asked for
/// instead.
#[derive(Default)]
pub struct FileDialogs {
    /// The dialog open on its thread, and what for.
    waiting: Option<(FileChoice, Receiver<Answer>)>,
    typing: Option<Typing>,
}

impl FileDialogs {
    /// Opens the system's dialog for `choice` on a thread of its own; what is chosen comes
    /// from [`FileDialogs::ui`].
    pub fn open(&mut self, ctx: &egui::Context, choice: FileChoice) {
        let (send, receive) = mpsc::channel();
        let ctx = ctx.clone();
        let spawned = std::thread::Builder::new()
            .name("mindsage-file-dialog".into())
            .spawn(move || {
                let answer = match unavailable() {
                    Some(reason) => Answer::Unavailable(reason),
                    None => choice.show().map_or(Answer::Cancelled, Answer::Chosen),
                };
                let _ = send.send(answer);
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => self.waiting = Some((choice, receive)),
            Err(e) => self.ask_to_type(choice, format!("the file dialog could not be started ({e})")),
        }
    }

    /// Whether the window asks for a typed path (it has the keyboard meanwhile).
    pub fn dialog_open(&self) -> bool {
        self.typing.is_some()
    }

    /// What the person chose, in the system's dialog or typed, in the frame they chose
    /// it; draws the request for a typed path while it asks.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<Chosen> {
        if let Some((choice, waiting)) = &self.waiting {
            let choice = *choice;
            match waiting.try_recv() {
                Ok(Answer::Chosen(chosen)) => {
                    self.waiting = None;
                    return Some(chosen);
                }
                Ok(Answer::Unavailable(reason)) => {
                    self.waiting = None;
                    self.ask_to_type(choice, reason);
                }
                Ok(Answer::Cancelled) | Err(TryRecvError::Disconnected) => self.waiting = None,
                Err(TryRecvError::Empty) => {}
            }
        }
        self.typing_ui(ctx)
    }

    fn ask_to_type(&mut self, choice: FileChoice, reason: String) {
        self.typing = Some(Typing {
            choice,
            reason,
            path: String::new(),
        });
    }

    /// "The file dialog could not open", the reason, and a field for the path.
    fn typing_ui(&mut self, ctx: &egui::Context) -> Option<Chosen> {
        let typing = self.typing.as_mut()?;
        // `Some(path)`: go on with it; `None`: cancelled (the button, Esc, a click outside).
        let answer = dialog::show(ctx, "type_a_path", None, |ui| {
            ui.heading("The file dialog could not open");
            ui.label(RichText::new(format!("{}.", typing.reason)).weak());
            ui.add_space(6.0);
            ui.label(typing.choice.what_to_type());
            let field = ui
                .horizontal(|ui| {
                    let label = ui.label("Path");
                    ui.add(egui::TextEdit::singleline(&mut typing.path).desired_width(f32::INFINITY))
                        .labelled_by(label.id)
                })
                .inner;
            let path = typed_path(&typing.path);
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let mut answer = None;
            ui.horizontal(|ui| {
                let go = ui.add_enabled(path.is_some(), egui::Button::new(typing.choice.button()));
                if go.clicked() || (entered && path.is_some()) {
                    answer = Some(path);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(None);
                }
            });
            Shown {
                answer,
                focus: field.id,
            }
        })?;
        let choice = typing.choice;
        self.typing = None;
        answer.map(|path| choice.chosen(path))
    }
}

/// The path in what was typed: surrounding white space and the quotes a copied path
/// often carries taken off; `None` when nothing is left.
fn typed_path(typed: &str) -> Option<PathBuf> {
    let path = typed.trim();
    let path = path
        .strip_prefix('"')
        .and_then(|p| p.strip_suffix('"'))
        .or_else(|| path.strip_prefix('\'').and_then(|p| p.strip_suffix('\'')))
        .unwrap_or(path)
        .trim();
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// How long the portal may take to answer whether it is there (its first use starts it).
#[cfg(target_os = "linux")]
const PORTAL_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Why no file dialog can open here, if none can: rfd needs the desktop portal's file
/// chooser or zenity. Asked on the dialog's thread, never the UI's: it waits on D-Bus.
#[cfg(target_os = "linux")]
fn unavailable() -> Option<String> {
    if on_path("zenity") {
        return None;
    }
    let portal = file_chooser_portal().err()?;
    Some(format!(
        "This desktop offers no file dialog: {portal}, and zenity is not installed"
    ))
}

/// Windows and macOS always have their system's dialog.
#[cfg(not(target_os = "linux"))]
fn unavailable() -> Option<String> {
    None
}

/// Whether the desktop portal's file chooser answers on the session bus: its `version`
/// property is there only when a portal backend provides the file chooser.
#[cfg(target_os = "linux")]
fn file_chooser_portal() -> Result<(), String> {
    zbus::block_on(async {
        let no_bus = |e: zbus::Error| format!("there is no desktop session bus ({e})");
        let bus = zbus::connection::Builder::session()
            .map_err(no_bus)?
            .method_timeout(PORTAL_PATIENCE)
            .build()
            .await
            .map_err(no_bus)?;
        bus.call_method(
            Some("org.freedesktop.portal.Desktop"),
            "/org/freedesktop/portal/desktop",
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &("org.freedesktop.portal.FileChooser", "version"),
        )
        .await
        .map(drop)
        .map_err(|e| format!("its file chooser portal does not answer ({e})"))
    })
}

/// Whether a program named `name` is in one of `PATH`'s folders.
#[cfg(target_os = "linux")]
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_path_loses_its_quotes_and_white_space() {
        assert_eq!(
            typed_path("  /home/a/export.zip \n"),
            Some(PathBuf::from("/home/a/export.zip"))
        );
        assert_eq!(
            typed_path("\"/home/a/My export.zip\""),
            Some(PathBuf::from("/home/a/My export.zip"))
        );
        assert_eq!(
            typed_path("'C:\\Users\\a\\x.json'"),
            Some(PathBuf::from("C:\\Users\\a\\x.json"))
        );
        assert_eq!(typed_path(" \"\" "), None);
        assert_eq!(typed_path("   "), None);
    }
}
