//! The MindSage desktop app as a library, so tests and the bench drive the real window
//! code (`egui_kittest`) without a display. The binary is `src/main.rs`.

mod accent;
pub mod app;
mod assistant;
mod autostart;
pub mod backend;
pub mod cli;
pub mod console;
mod file_dialog;
pub mod fonts;
pub mod instance;
pub mod launch_report;
pub mod overlay;
#[cfg(windows)]
mod paste_key;
pub mod protocol;
pub mod queue;
mod reader;
mod reminders;
mod session_end;
pub mod shell;
mod signals;
pub mod sound;
pub mod start;
pub mod taskbar;
pub mod threads;
mod transcriber;
mod unlocking;
pub mod views;
pub mod virtual_display;
pub mod wording;
