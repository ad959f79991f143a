//! Windows ending the session: a log-off, a shutdown, an update's restart.
//!
//! Windows asks every top-level window whether the session may end
//! (`WM_QUERYENDSESSION`), then tells each one it ends (`WM_ENDSESSION`), and ends the
//! process once all of them have answered that. winit 0.30 leaves both to the default
//! answer and passes nothing on, so the window alone would be ended with what was typed
//! since the last typing pause unsaved. A hidden top-level window on a thread of its
//! own hears them instead. When the session ends it stops the window as a stop signal
//! does ([`crate::signals::stop`]: the edits saved, the window closed, the writer drained and
//! its WAL checkpointed as it ends), and answers only once the process is done with the
//! journal ([`journal_closed`]), so Windows ends nothing earlier.
//!
//! Elsewhere the end of a session is a stop signal (SIGTERM, SIGHUP), which
//! [`crate::signals`] already answers the same way.

use std::sync::{Condvar, Mutex};

/// Whether the journal is closed and its threads finished ([`journal_closed`]).
static CLOSED: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Says the process is done with the journal: the window is closed and the threads that
/// used the journal finished. The answer to `WM_ENDSESSION` waits for it.
pub fn journal_closed() {
    let (closed, changed) = &CLOSED;
    *closed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = true;
    changed.notify_all();
}

/// Listens for the end of the session from now on, stopping the window (`ctx`) when it
/// comes. Windows only; elsewhere nothing is needed.
#[cfg(windows)]
pub fn watch(ctx: egui::Context) {
    let started = std::thread::Builder::new()
        .name("mindsage-session-end".into())
        .spawn(move || {
            if let Err(error) = listener::listen(ctx) {
                tracing::warn!(%error, "the end of the session is not heard: text typed just before it may be lost");
            }
        });
    if let Err(error) = started {
        tracing::warn!(%error, "no thread for the end of the session");
    }
}

#[cfg(not(windows))]
pub fn watch(_ctx: egui::Context) {}

#[cfg(windows)]
mod listener {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    use windows_sys::Win32::Foundation::{HWND, LPARAM, LRESULT, WPARAM};
    use windows_sys::Win32::System::LibraryLoader::GetModuleHandleW;
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        CreateWindowExW, DefWindowProcW, DispatchMessageW, GetMessageW, MSG, PM_NOREMOVE, PeekMessageW,
        RegisterClassW, WM_ENDSESSION, WM_QUERYENDSESSION, WNDCLASSW, WS_EX_TOOLWINDOW, WS_OVERLAPPED,
    };

    use super::CLOSED;

    /// Longest the answer to `WM_ENDSESSION` waits for the journal to close: the close's
    /// own patience for the last saves, then the threads' (`crate::start`), after which
    /// the window has given up on each anyway.
    const PATIENCE: Duration = crate::app::CLOSE_PATIENCE.saturating_mul(2);

    /// How often the wait for the journal answers what was sent to this thread.
    const ANSWER_EVERY: Duration = Duration::from_millis(10);

    /// The window to stop, for the window procedure, which has no other way in.
    static WINDOW: OnceLock<egui::Context> = OnceLock::new();

    /// Creates the hidden window and runs its messages until the process ends.
    pub(super) fn listen(ctx: egui::Context) -> std::io::Result<()> {
        if WINDOW.set(ctx).is_err() {
            return Ok(()); // already listening
        }
        let class: Vec<u16> = "MindSageSessionEnd\0".encode_utf16().collect();
        // SAFETY: plain Win32 calls on this thread; the class name outlives the window
        // (this function never returns while the window exists), and `window_procedure`
        // has the signature WNDPROC requires.
        unsafe {
            let instance = GetModuleHandleW(std::ptr::null());
            let registration = WNDCLASSW {
                lpfnWndProc: Some(window_procedure),
                hInstance: instance,
                lpszClassName: class.as_ptr(),
                ..std::mem::zeroed()
            };
            if RegisterClassW(&registration) == 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Top-level (a message-only window is not asked when the session ends),
            // never shown, and kept off the taskbar and Alt+Tab.
            let window = CreateWindowExW(
                WS_EX_TOOLWINDOW,
                class.as_ptr(),
                class.as_ptr(),
                WS_OVERLAPPED,
                0,
                0,
                0,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                instance,
                std::ptr::null(),
            );
            if window.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            let mut msg: MSG = std::mem::zeroed();
            while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
                DispatchMessageW(&msg);
            }
        }
        Ok(())
    }

    unsafe extern "system" fn window_procedure(
        window: HWND,
        message: u32,
        wparam: WPARAM,
        lparam: LPARAM,
    ) -> LRESULT {
        match message {
            // The session may end: the saving happens when it does.
            WM_QUERYENDSESSION => 1,
            WM_ENDSESSION if wparam != 0 => {
                session_ends();
                0
            }
            // SAFETY: the default procedure, with the arguments Windows passed.
            _ => unsafe { DefWindowProcW(window, message, wparam, lparam) },
        }
    }

    /// Stops the window and waits until the journal is closed: Windows ends the process
    /// once this answer is given. Meanwhile the messages other threads send this one are
    /// answered: closing the main window activates another of the process's windows,
    /// and a thread that only waited held the main thread up for two seconds (Wine's
    /// timeout; Windows waits longer).
    fn session_ends() {
        let Some(ctx) = WINDOW.get() else { return };
        tracing::info!("the session ends: saving and closing");
        crate::signals::stop(ctx);
        let deadline = Instant::now() + PATIENCE;
        let (closed, changed) = &CLOSED;
        let mut guard = closed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        while !*guard && Instant::now() < deadline {
            let mut msg: MSG = unsafe { std::mem::zeroed() };
            // SAFETY: a look at this thread's queue, which answers the messages sent to
            // it; nothing is taken off the queue.
            unsafe { PeekMessageW(&mut msg, std::ptr::null_mut(), 0, 0, PM_NOREMOVE) };
            guard = changed
                .wait_timeout(guard, ANSWER_EVERY)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
        let closed = *guard;
        drop(guard);
        if closed {
            tracing::info!("the journal is closed: the session may end");
        } else {
            tracing::warn!("the session ends before the journal closed");
        }
    }
}
