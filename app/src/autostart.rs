//! Starting with the system, handed to the system: the per-user Run key on Windows, an
//! autostart `.desktop` file on Linux. What they say is `mindsage_core::autostart`.
//!
//! Settings' Save comes here on the reader thread (a registry write or a file, never on
//! the UI thread); so do `mindsage autostart` and the uninstaller's `unregister`.

use std::path::Path;

/// How starting with the system was left, in the person's words.
pub type Applied = Result<String, String>;

/// What the setting is called where the person reads it.
pub const LABEL: &str = if cfg!(windows) {
    "Start with Windows"
} else {
    "Start when I log in"
};

/// Turns starting with the system on (this program, on the journal in `data_dir`,
/// minimised) or off. `before` is the saved setting: nothing is asked of the system
/// when it did not change.
pub fn apply(before: bool, on: bool, data_dir: &Path) -> Option<Applied> {
    (before != on).then(|| set(on, data_dir))
}

/// Sets starting with the system whatever the settings said before.
pub fn set(on: bool, data_dir: &Path) -> Applied {
    if !on {
        return system::remove()
            .map(|()| format!("{LABEL}: off."))
            .map_err(|e| format!("MindSage could not stop starting with the system: {e}"));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("MindSage could not find its own program ({e})"))?;
    let data_dir = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    system::add(&exe, &data_dir)
        .map(|()| format!("{LABEL}: on. MindSage opens minimised when you log in."))
        .map_err(|e| format!("MindSage could not be set to start with the system: {e}"))
}

/// The command the system runs at log-in, if it holds one of MindSage's.
pub fn current() -> Option<String> {
    system::current()
}

#[cfg(windows)]
mod system {
    use std::path::Path;

    use mindsage_core::autostart::{WINDOWS_RUN_KEY, WINDOWS_RUN_VALUE, windows_command};
    use windows_sys::Win32::Foundation::{ERROR_FILE_NOT_FOUND, ERROR_SUCCESS};
    use windows_sys::Win32::System::Registry::{
        HKEY_CURRENT_USER, REG_SZ, RRF_RT_REG_SZ, RegDeleteKeyValueW, RegGetValueW, RegSetKeyValueW,
    };

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(Some(0)).collect()
    }

    pub fn add(exe: &Path, data_dir: &Path) -> Result<(), String> {
        let command = wide(&windows_command(exe, data_dir));
        let (key, value) = (wide(WINDOWS_RUN_KEY), wide(WINDOWS_RUN_VALUE));
        // SAFETY: every pointer is to a NUL-terminated UTF-16 buffer alive for the call,
        // and the data's length is that buffer's in bytes.
        let status = unsafe {
            RegSetKeyValueW(
                HKEY_CURRENT_USER,
                key.as_ptr(),
                value.as_ptr(),
                REG_SZ,
                command.as_ptr().cast(),
                (command.len() * 2) as u32,
            )
        };
        match status {
            ERROR_SUCCESS => Ok(()),
            code => Err(std::io::Error::from_raw_os_error(code as i32).to_string()),
        }
    }

    pub fn remove() -> Result<(), String> {
        let (key, value) = (wide(WINDOWS_RUN_KEY), wide(WINDOWS_RUN_VALUE));
        // SAFETY: NUL-terminated UTF-16 buffers alive for the call.
        match unsafe { RegDeleteKeyValueW(HKEY_CURRENT_USER, key.as_ptr(), value.as_ptr()) } {
            ERROR_SUCCESS | ERROR_FILE_NOT_FOUND => Ok(()),
            code => Err(std::io::Error::from_raw_os_error(code as i32).to_string()),
        }
    }

    pub fn current() -> Option<String> {
        let (key, value) = (wide(WINDOWS_RUN_KEY), wide(WINDOWS_RUN_VALUE));
        let mut buffer = vec![0u16; 2048];
        let mut bytes = (buffer.len() * 2) as u32;
        // SAFETY: the buffer holds `bytes` bytes, which the call does not write past.
        let status = unsafe {
            RegGetValueW(
                HKEY_CURRENT_USER,
                key.as_ptr(),
                value.as_ptr(),
                RRF_RT_REG_SZ,
                std::ptr::null_mut(),
                buffer.as_mut_ptr().cast(),
                &mut bytes,
            )
        };
        (status == ERROR_SUCCESS).then(|| {
            let len = (bytes as usize / 2).saturating_sub(1);
            String::from_utf16_lossy(&buffer[..len])
        })
    }
}

#[cfg(not(windows))]
mod system {
    use std::path::Path;

    use mindsage_core::autostart::{desktop_entry, desktop_file};

    fn file() -> Result<std::path::PathBuf, String> {
        desktop_file().ok_or_else(|| "this computer has no home folder".to_owned())
    }

    pub fn add(exe: &Path, data_dir: &Path) -> Result<(), String> {
        let file = file()?;
        file.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&file, desktop_entry(exe, data_dir)))
            .map_err(|e| format!("{}: {e}", file.display()))
    }

    pub fn remove() -> Result<(), String> {
        let file = file()?;
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("{}: {e}", file.display())),
            _ => Ok(()),
        }
    }

    pub fn current() -> Option<String> {
        let text = std::fs::read_to_string(file().ok()?).ok()?;
        text.lines()
            .find_map(|line| line.strip_prefix("Exec="))
            .map(str::to_owned)
    }
}
