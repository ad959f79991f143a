//! The folder where recordings wait: `recordings/` in the data folder.
//!
//! A recording is written here while a person speaks, and stays until its entry is
//! saved (then it is overwritten and removed: the journal holds the only copy). A file
//! left here by a crash, or waiting for a Whisper model, is found again at the next
//! start and transcribed then.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder's name inside the data folder.
pub const FOLDER: &str = "recordings";

/// The folder where Whisper models are looked for when Settings names none.
pub const MODELS_FOLDER: &str = "models";

/// The recordings folder of a data folder.
pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join(FOLDER)
}

/// A new, unused file name for a recording started now.
pub fn new_path(data_dir: &Path) -> PathBuf {
    let stamp = chrono::Local::now().format("%Y-%m-%d_%H-%M-%S");
    let folder = folder(data_dir);
    let mut path = folder.join(format!("recording-{stamp}.wav"));
    let mut n = 2;
    while path.exists() {
        path = folder.join(format!("recording-{stamp}-{n}.wav"));
        n += 1;
    }
    path
}

/// Recordings waiting for a transcription, oldest first.
pub fn waiting(data_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder(data_dir)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wav")))
        .collect();
    // By name without ".wav": the time it was started, then the counter of a second
    // recording started in the same second ("…-05" before "…-05-2").
    paths.sort_by_key(|p| p.file_stem().map(|s| s.to_owned()));
    paths
}

/// The Whisper model to use: the one Settings names, else the first `ggml-*.bin` in the
/// data folder's `models/` (English-only models first: they are faster and most
/// journals are written in one language), else `None`.
pub fn model_path(data_dir: &Path, setting: &str) -> Option<PathBuf> {
    if !setting.trim().is_empty() {
        return Some(PathBuf::from(setting.trim()));
    }
    let entries = std::fs::read_dir(data_dir.join(MODELS_FOLDER)).ok()?;
    let mut models: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ggml-") && n.ends_with(".bin"))
        })
        .collect();
    models.sort_by_key(|p| (!p.to_string_lossy().ends_with(".en.bin"), p.clone()));
    models.into_iter().next()
}

/// Overwrites a recording with zeros before removing it, so the sound is not left in
/// free disk space once the journal holds it (or the person cancelled it).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_wait_in_order_and_erasing_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(waiting(dir.path()).is_empty());
        let first = new_path(dir.path());
        std::fs::create_dir_all(first.parent().unwrap()).unwrap();
        std::fs::write(&first, b"RIFF one").unwrap();
        let second = new_path(dir.path());
        assert_ne!(first, second);
        std::fs::write(&second, b"RIFF two").unwrap();
        std::fs::write(folder(dir.path()).join("notes.txt"), b"x").unwrap();
        assert_eq!(waiting(dir.path()), [first.clone(), second.clone()]);
        erase(&first).unwrap();
        assert_eq!(waiting(dir.path()), [second]);
    }

    #[test]
    fn the_model_is_the_setting_or_the_first_in_the_models_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(model_path(dir.path(), ""), None);
        let models = dir.path().join(MODELS_FOLDER);
        std::fs::create_dir_all(&models).unwrap();
        std::fs::write(models.join("ggml-base.bin"), b"").unwrap();
        std::fs::write(models.join("ggml-tiny.en.bin"), b"").unwrap();
        std::fs::write(models.join("readme.txt"), b"").unwrap();
        assert_eq!(model_path(dir.path(), ""), Some(models.join("ggml-tiny.en.bin")));
        assert_eq!(
            model_path(dir.path(), " /m/x.bin "),
            Some(PathBuf::from("/m/x.bin"))
        );
    }
}
