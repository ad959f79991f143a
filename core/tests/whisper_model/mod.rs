//! The real Whisper models and labelled recordings from `shared/whisper-model`.
//!
//! `fetch-model.sh` makes the model once and caches it under `$HOME/.cache`; later
//! calls only print its path. Samples are `shared/whisper-model/samples`.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use mindsage_core::voice::score::{self, LabelledClip};

fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MINDSAGE_SHARED_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn fetch(size: &str) -> PathBuf {
    let script = shared_dir().join("whisper-model/fetch-model.sh");
    assert!(
        script.exists(),
        "{} not found: set MINDSAGE_SHARED_DIR",
        script.display()
    );
    let output = Command::new("bash")
        .arg(&script)
        .env("WHISPER_MODEL_SIZE", size)
        .output()
        .expect("running fetch-model.sh");
    assert!(
        output.status.success(),
        "fetch-model.sh failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let path = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    assert!(path.is_file(), "fetch-model.sh printed {}", path.display());
    path
}

/// The English-only tiny model.
pub fn tiny_en() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| fetch("tiny.en")).clone()
}

/// The labelled samples.
pub fn samples() -> Vec<LabelledClip> {
    let clips =
        score::read_labels(&shared_dir().join("whisper-model/samples")).expect("reading expected.tsv");
    assert!(clips.len() >= 3, "too few samples");
    clips
}
