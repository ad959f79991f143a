//! Where the journal lives.
//!
//! Platform convention by default (`%APPDATA%\MindSage` on Windows, the XDG data dir on
//! Linux), overridden by `--data-dir` or `MINDSAGE_DATA_DIR`, in that order.

use std::path::{Path, PathBuf};

/// Environment variable that overrides the data folder.
pub const DATA_DIR_ENV: &str = "MINDSAGE_DATA_DIR";

/// File name of the journal database inside the data folder.
pub const DATABASE_FILE: &str = "journal.db";

/// Resolves the data folder: the explicit flag, then the environment, then the platform
/// default. `None` only when the platform has no home directory at all.
pub fn data_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    default_data_dir()
}

/// `%APPDATA%\MindSage` on Windows, `$XDG_DATA_HOME/mindsage` (usually
/// `~/.local/share/mindsage`) on Linux.
pub fn default_data_dir() -> Option<PathBuf> {
    // BaseDirs rather than ProjectDirs: ProjectDirs adds `\data` or `\config` below the
    // app folder on Windows, and users (and the installer) expect `%APPDATA%\MindSage`.
    let base = directories::BaseDirs::new()?;
    let folder = if cfg!(windows) { "MindSage" } else { "mindsage" };
    Some(base.data_dir().join(folder))
}

/// The journal database inside a data folder.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join(DATABASE_FILE)
}
