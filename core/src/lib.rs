//! MindSage's engine: everything that does not draw.
//!
//! The app (`mindsage`) and the benchmark (`mindsage-bench`) are both thin layers over
//! this crate, so whatever the bench measures is exactly what the app runs.
//!
//! * [`ai`]: the local model through Ollama: enrichment, embeddings, the Ask pipeline.
//! * [`db`]: the journal's SQLite file: connections, migrations, the named queries every
//!   screen uses, and the background writer thread.
//! * [`search`]: keyword, vector and hybrid search, and dates in questions.
//! * [`media`]: photos attached to entries (decoding, thumbnails, hashes).
//! * [`import`]: journals from Day One, jrnl and Markdown files, without doubles.
//! * [`export`]: the journal out, as MindSage's JSON or a folder of Markdown files.
//! * [`demo`]: a deterministic journal generator for tests, the bench and `--demo`.
//! * [`timing`]: the registry of named-query timings the profiler overlay shows.
//! * [`paths`]: where the journal lives on each platform.
//! * [`files`]: files made private, named beside another, erased by overwriting.
//! * [`settings`]: the person's settings file beside the journal.
//! * [`reminder`]: the reminder to write: the scheduler's task or timer, and the toast.
//! * [`clock`]: the one timestamp format stored in the database.
//! * [`voice`]: recording, 16 kHz conversion, WAV files, local transcription, playback.
//! * [`sealed`]: files beside an encrypted journal (drafts, recordings in progress)
//!   encrypted with its key, so nothing decrypted reaches the disk.
//! * [`encryption`]: turning encryption on or off, or a new passphrase, for the journal
//!   and everything beside it.
//! * [`drafts`]: text kept as a file when a save cannot reach the journal, and sealed
//!   drafts saved into the journal when it is next opened.

pub mod ai;
pub mod autostart;
pub mod clock;
pub mod compare;
pub mod db;
pub mod demo;
pub mod drafts;
pub mod encryption;
pub mod export;
pub mod files;
pub mod import;
pub mod keystore;
pub mod links;
pub mod media;
pub mod paths;
pub mod reminder;
pub mod scripts;
pub mod sealed;
pub mod search;
pub mod settings;
pub mod timing;
pub mod voice;
