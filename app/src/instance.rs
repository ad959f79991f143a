//! One window per journal. Launching MindSage again on a journal that already has a
//! window (the Start menu, the taskbar, a file opened with it, `mindsage --import FILE`)
//! hands that window what the launch asked for ([`Asked`]) and ends; the window comes
//! to the front and follows it. Subcommands (`mindsage add`, `list`, …) open no window
//! and run beside it as before.
//!
//! Which launch is the window is settled by a lock on a small file named after the
//! journal, held while the window is open; the system lets go of it however the process
//! ends, so a crash never leaves a journal without a window to open. The asks travel
//! through a pipe named after the journal: a FIFO on Linux, a named pipe that refuses
//! remote clients on Windows. Neither is a socket: nothing listens on the network.
//!
//! The lock and the FIFO are in the user's runtime folder (`XDG_RUNTIME_DIR`, else the
//! temporary folder, per user on Windows), never beside the journal, which may sit in a
//! folder that is synchronised or on a stick.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use mindsage_core::links::Link;
use serde::{Deserialize, Serialize};

use crate::cli::Args;
use crate::views::View;

/// How long a second launch tries to reach the window that holds the lock: the window
/// opens its pipe a moment after taking the lock.
const REACH_PATIENCE: Duration = Duration::from_secs(5);

/// What a launch asks the window for. A second launch hands it to the window already
/// open on the journal (`MindSageApp::follow`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {
    /// The screen to show (`--view`; a link shows the journal).
    pub view: Option<View>,
    /// An entry to open (`--entry`).
    pub entry: Option<i64>,
    /// An export to preview in the import window (`--import`), as an absolute path:
    /// the window's working folder is not the launch's.
    pub import: Option<PathBuf>,
    /// Where a `mindsage:` link takes the person (`--link`: the reminder's click, the
    /// jump list's tasks); a link MindSage does not know opens today's page.
    pub link: Option<Link>,
}

impl Asked {
    /// What the command line asks the window for.
    pub fn of(args: &Args) -> Result<Asked> {
        let import = match &args.import {
            Some(path) => Some(std::path::absolute(path).with_context(|| format!("{}", path.display()))?),
            None => None,
        };
        Ok(Asked {
            view: args.view.or(args.link.as_ref().map(|_| View::Journal)),
            entry: args.entry,
            import,
            link: args
                .link
                .as_deref()
                .map(|text| Link::parse(text).unwrap_or(Link::Today)),
        })
    }
}

/// This launch and the journal's window.
pub enum Claim {
    /// No window has the journal: this launch opens it. Keep the [`Window`] while the
    /// window is open.
    Window(Window),
    /// The journal's window was handed this launch's asks.
    HandedOver,
}

/// The journal's window, for as long as this is kept: later launches hand their asks
/// to it ([`Window::later_launches`]).
pub struct Window {
    /// Locked while kept; closing it lets the next launch be the window.
    _lock: File,
    pipe: Pipe,
}

/// Makes this launch the window on `journal`, or hands `asked` to the window that
/// already is.
pub fn claim(journal: &Path, asked: &Asked) -> Result<Claim> {
    let names = Names::of(journal)?;
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&names.lock)
        .with_context(|| format!("opening {}", names.lock.display()))?;
    match lock.try_lock() {
        Ok(()) => {
            let pipe = Pipe::open(&names)?;
            Ok(Claim::Window(Window { _lock: lock, pipe }))
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            hand_over(&names, asked)?;
            Ok(Claim::HandedOver)
        }
        Err(std::fs::TryLockError::Error(error)) => {
            Err(error).with_context(|| format!("locking {}", names.lock.display()))
        }
    }
}

impl Window {
    /// The window's end of the pipe, to hear later launches on once the window is up.
    pub fn later_launches(&self) -> Result<LaterLaunches> {
        Ok(LaterLaunches(self.pipe.listener()?))
    }
}

/// The window's end of the pipe, not yet heard.
pub struct LaterLaunches(Listener);

impl LaterLaunches {
    /// Hears later launches on a thread of its own; each one's asks arrive on the
    /// returned receiver and wake `ctx`.
    pub fn hear(self, ctx: egui::Context) -> Result<Receiver<Asked>> {
        let (send, asks) = mpsc::channel();
        let listener = self.0;
        // Not one `threads::finish` waits for: it holds nothing of the journal, and
        // waits on the pipe until the process ends.
        std::thread::Builder::new()
            .name("mindsage-instance".into())
            .spawn(move || listener.serve(&send, &ctx))
            .context("starting the thread that hears later launches")?;
        Ok(asks)
    }
}

/// Reads one ask per line from `from` and passes each on, waking the window.
fn pass_on(from: impl std::io::Read, send: &Sender<Asked>, ctx: &egui::Context) -> bool {
    for line in BufReader::new(from).lines() {
        let Ok(line) = line else { return true };
        match serde_json::from_str::<Asked>(&line) {
            Ok(asked) => {
                if send.send(asked).is_err() {
                    return false;
                }
                ctx.request_repaint();
            }
            Err(error) => tracing::warn!(%error, "a later launch's asks could not be read"),
        }
    }
    true
}

/// Sends `asked` to the window holding the lock, trying again while its pipe is not yet
/// open.
fn hand_over(names: &Names, asked: &Asked) -> Result<()> {
    let mut line = serde_json::to_string(asked)?;
    line.push('\n');
    let started = Instant::now();
    loop {
        match Pipe::connect(names) {
            Ok(mut pipe) => {
                pipe.write_all(line.as_bytes())
                    .context("handing the asks to the window")?;
                return Ok(());
            }
            Err(error) if started.elapsed() >= REACH_PATIENCE => {
                return Err(error).context("the journal's window did not answer");
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Where the lock and the pipe of one journal are.
struct Names {
    lock: PathBuf,
    /// The FIFO's path on Linux, the named pipe's name on Windows.
    pipe: PathBuf,
}

impl Names {
    fn of(journal: &Path) -> Result<Names> {
        let folder = runtime_folder();
        std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
        // The same journal whatever the path's spelling: its folder (made now if
        // new, as opening the journal would) with links resolved, and its name.
        let absolute = std::path::absolute(journal)?;
        let folder_of_journal = absolute.parent().context("a journal path without a folder")?;
        std::fs::create_dir_all(folder_of_journal)
            .with_context(|| format!("creating {}", folder_of_journal.display()))?;
        let resolved =
            std::fs::canonicalize(folder_of_journal)?.join(absolute.file_name().unwrap_or_default());
        let text = resolved.to_string_lossy();
        // Windows' paths are the same journal in any case.
        let text = if cfg!(windows) {
            text.to_lowercase()
        } else {
            text.into_owned()
        };
        let id = &mindsage_core::media::sha256_hex(text.as_bytes())[..16];
        let pipe = if cfg!(windows) {
            PathBuf::from(format!(r"\\.\pipe\mindsage-window-{id}"))
        } else {
            folder.join(format!("mindsage-window-{id}.fifo"))
        };
        Ok(Names {
            lock: folder.join(format!("mindsage-window-{id}.lock")),
            pipe,
        })
    }
}

/// The user's own folder for files that last a session.
fn runtime_folder() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .filter(|dir| !dir.is_empty() && cfg!(unix))
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

#[cfg(unix)]
use fifo::{Listener, Pipe};

/// Linux: a FIFO in the runtime folder, only the user's to open.
#[cfg(unix)]
mod fifo {
    use std::ffi::CString;
    use std::fs::File;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::path::PathBuf;
    use std::sync::mpsc::Sender;

    use anyhow::{Context, Result};

    use super::{Asked, Names, pass_on};

    /// The window's end: the FIFO, removed when the window lets go.
    pub(super) struct Pipe {
        path: PathBuf,
    }

    /// The open FIFO the listening thread reads.
    pub(super) struct Listener(File);

    impl Pipe {
        /// Makes the FIFO anew (one a crashed window left is replaced).
        pub(super) fn open(names: &Names) -> Result<Pipe> {
            let path = names.pipe.clone();
            match std::fs::remove_file(&path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    return Err(error).with_context(|| format!("removing {}", path.display()));
                }
                _ => {}
            }
            let name = CString::new(path.as_os_str().as_bytes())?;
            // SAFETY: `name` is a valid C string for the call's length.
            if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
                return Err(std::io::Error::last_os_error())
                    .with_context(|| format!("creating {}", path.display()));
            }
            Ok(Pipe { path })
        }

        /// Opens the FIFO for reading. Opened for writing too, so it never reads an end
        /// when a launch that wrote closes it, and opening does not wait for a writer.
        pub(super) fn listener(&self) -> Result<Listener> {
            let file = File::options()
                .read(true)
                .write(true)
                .open(&self.path)
                .with_context(|| format!("opening {}", self.path.display()))?;
            Ok(Listener(file))
        }

        /// The window's FIFO, for a later launch to write to; fails at once when nobody
        /// reads it.
        pub(super) fn connect(names: &Names) -> std::io::Result<File> {
            File::options()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&names.pipe)
        }
    }

    impl Listener {
        pub(super) fn serve(self, send: &Sender<Asked>, ctx: &egui::Context) {
            pass_on(self.0, send, ctx);
        }
    }

    impl Drop for Pipe {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(windows)]
use named_pipe::{Listener, Pipe};

/// Windows: a named pipe, local clients only.
#[cfg(windows)]
mod named_pipe {
    use std::fs::File;
    use std::os::windows::io::FromRawHandle;
    use std::path::PathBuf;
    use std::sync::mpsc::Sender;

    use anyhow::Result;
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_PIPE_CONNECTED, GetLastError, INVALID_HANDLE_VALUE,
    };
    use windows_sys::Win32::Storage::FileSystem::PIPE_ACCESS_INBOUND;
    use windows_sys::Win32::System::Pipes::{
        ConnectNamedPipe, CreateNamedPipeW, PIPE_REJECT_REMOTE_CLIENTS, PIPE_TYPE_BYTE,
        PIPE_UNLIMITED_INSTANCES, PIPE_WAIT,
    };
    use windows_sys::Win32::UI::WindowsAndMessaging::{ASFW_ANY, AllowSetForegroundWindow};

    use super::{Asked, Names, pass_on};

    /// The pipe's name; its instances are made by the listening thread.
    pub(super) struct Pipe {
        name: PathBuf,
    }

    pub(super) struct Listener {
        name: Vec<u16>,
    }

    impl Pipe {
        pub(super) fn open(names: &Names) -> Result<Pipe> {
            Ok(Pipe {
                name: names.pipe.clone(),
            })
        }

        pub(super) fn listener(&self) -> Result<Listener> {
            let name = self.name.to_string_lossy().encode_utf16().chain([0]).collect();
            Ok(Listener { name })
        }

        /// Connects to the window's pipe, and lets the window come to the front: the
        /// launch the person just started may give the foreground away.
        pub(super) fn connect(names: &Names) -> std::io::Result<File> {
            let pipe = File::options().write(true).open(&names.pipe)?;
            // SAFETY: a plain call; a refusal only leaves the window where it is.
            unsafe { AllowSetForegroundWindow(ASFW_ANY) };
            Ok(pipe)
        }
    }

    impl Listener {
        /// One pipe instance per launch, read to its end, until the window lets go.
        pub(super) fn serve(self, send: &Sender<Asked>, ctx: &egui::Context) {
            loop {
                // SAFETY: `name` is a NUL-terminated UTF-16 string; no security
                // attributes (the default: this user's).
                let pipe = unsafe {
                    CreateNamedPipeW(
                        self.name.as_ptr(),
                        PIPE_ACCESS_INBOUND,
                        PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
                        PIPE_UNLIMITED_INSTANCES,
                        0,
                        4096,
                        0,
                        std::ptr::null(),
                    )
                };
                if pipe == INVALID_HANDLE_VALUE {
                    let error = std::io::Error::last_os_error();
                    tracing::warn!(%error, "later launches cannot reach this window");
                    return;
                }
                // SAFETY: `pipe` is the instance just made; no overlapped I/O.
                let connected = unsafe { ConnectNamedPipe(pipe, std::ptr::null_mut()) } != 0
                    || unsafe { GetLastError() } == ERROR_PIPE_CONNECTED;
                if !connected {
                    // SAFETY: closes the instance made above, used nowhere else.
                    unsafe { CloseHandle(pipe) };
                    continue;
                }
                // SAFETY: the File takes the instance over and closes it.
                let file = unsafe { File::from_raw_handle(pipe) };
                if !pass_on(file, send, ctx) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn asked(args: &[&str]) -> Asked {
        let args = Args::try_parse_from(std::iter::once("mindsage").chain(args.iter().copied())).unwrap();
        Asked::of(&args).unwrap()
    }

    #[test]
    fn a_launch_asks_for_what_its_command_line_names_and_nothing_else() {
        assert_eq!(asked(&[]), Asked::default());
        let import = asked(&["--import", "exports/day-one.zip"]).import.unwrap();
        assert!(import.is_absolute(), "{}", import.display());
        assert!(import.ends_with("exports/day-one.zip"));
        assert_eq!(
            asked(&["--link", "mindsage:today"]),
            Asked {
                view: Some(View::Journal),
                link: Some(Link::Today),
                ..Asked::default()
            }
        );
        assert_eq!(asked(&["--link", "mindsage:voice"]).link, Some(Link::VoiceEntry));
        assert_eq!(asked(&["--link", "mindsage:nowhere"]).link, Some(Link::Today));
        assert_eq!(asked(&["--view", "ask", "--entry", "7"]).entry, Some(7));
        assert_eq!(asked(&["--view", "ask"]).view, Some(View::Ask));
    }

    #[test]
    fn asks_read_back_as_written() {
        let sent = Asked {
            view: Some(View::Gallery),
            entry: Some(12),
            import: Some(PathBuf::from("/home/me/Ünïcode export.json")),
            link: Some(Link::Ask),
        };
        let line = serde_json::to_string(&sent).unwrap();
        assert!(!line.contains('\n'));
        assert_eq!(serde_json::from_str::<Asked>(&line).unwrap(), sent);
    }
}
