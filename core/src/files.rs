//! Files as the journal keeps them: made private, named beside another file, erased
//! by overwriting.
//!
//! Storage, sealed files, drafts and recordings all keep files next to the journal;
//! the few rules for those files live here, below all of them, so each of them can
//! follow the rules without reaching into another.

use std::io::Write;
use std::path::{Path, PathBuf};

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

/// Overwrites a file with zeros before removing it, so what it held (a recording, a
/// plain copy of the journal, a draft) is not left in free disk space once it is
/// gone from its folder.
pub fn erase(path: &Path) -> std::io::Result<()> {
    let length = std::fs::metadata(path)?.len();
    {
        let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
        let zeros = vec![0_u8; 64 * 1024];
        let mut left = length;
        while left > 0 {
            let n = left.min(zeros.len() as u64) as usize;
            file.write_all(&zeros[..n])?;
            left -= n as u64;
        }
        file.sync_all()?;
    }
    std::fs::remove_file(path)
}

/// Overwrites and removes a SQLite file and the files SQLite keeps beside it (-journal,
/// -wal, -shm): a conversion's copy, a sealed file ([`crate::sealed`]). What is not
/// there is no error; every file is tried, and the first failure is returned.
pub fn erase_with_companions(path: &Path) -> std::io::Result<()> {
    let mut outcome = Ok(());
    for file in ["", "-journal", "-wal", "-shm"].map(|suffix| with_suffix(path, suffix)) {
        match erase(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) if outcome.is_ok() => outcome = Err(e),
            _ => {}
        }
    }
    outcome
}

/// `journal.db` → `.journal.db.WHAT` in the same folder.
pub fn beside(path: &Path, what: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{what}"))
}

/// `journal.db` → `journal.db-wal` (for `-wal`), beside it.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}
