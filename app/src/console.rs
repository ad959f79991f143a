//! The console on Windows. `mindsage.exe` is a GUI-subsystem program (main.rs), so
//! opening the window never flashes a console behind it; the price is that Windows
//! starts it with no console, and `mindsage.exe list` typed in a terminal would print
//! nothing. [`attach_to_parent`] fixes that by joining the console of the terminal it
//! was started from, if there is one.

/// Joins the parent process's console, when standard output goes nowhere yet. Output
/// already redirected (a pipe, a file, a test harness) is left as it is; started from
/// Explorer or the Start menu there is no parent console and this does nothing.
#[cfg(windows)]
pub fn attach_to_parent() {
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Console::{
        ATTACH_PARENT_PROCESS, AttachConsole, GetStdHandle, STD_OUTPUT_HANDLE,
    };
    // SAFETY: both calls take plain values and only read or set this process's
    // standard handles; a failure is reported by the return value, which is ignored
    // on purpose (no console to join is the normal case for the window).
    unsafe {
        let out = GetStdHandle(STD_OUTPUT_HANDLE);
        if out.is_null() || out == INVALID_HANDLE_VALUE {
            AttachConsole(ATTACH_PARENT_PROCESS);
        }
    }
}

/// Elsewhere a program always has the terminal it was started from.
#[cfg(not(windows))]
pub fn attach_to_parent() {}
