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

/// Creates `dir` and any missing parents so that only the person can open them (mode
/// 0700 on Unix, whatever the umask adds). A journal is private: another account on the
/// same computer must not be able to list or read the data folder. Folders that already
/// exist keep their mode, so a `--data-dir` the person chose is not changed behind their
/// back. On Windows the folder inherits the per-user ACL of `%APPDATA%`, which already
/// admits only that user (and administrators), so nothing more is set there.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Opens `path` for writing (created or emptied) readable and writable by the person
/// only (0600 on Unix; on Windows the folder's per-user ACL, see [`create_private_dir`]).
/// The mode is set on the open file as well, so a file that already existed with a
/// wider mode is narrowed and the umask cannot widen a new one.
pub fn create_private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    Ok(file)
}

/// Writes `bytes` to `path` through [`create_private_file`].
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    create_private_file(path)?.write_all(bytes)
}

/// Creates an empty private file at `path` unless something is there already, so that a
/// SQLite database made there next is private: SQLite creates a new database file with
/// mode 0644, and its -wal and -shm files with the database file's mode. An empty file
/// is a valid empty database to SQLite. An existing file is left as it is.
pub fn reserve_private_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
