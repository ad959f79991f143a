//! The local AI: MindSage's only network client, talking to Ollama's HTTP API.
//!
//! Design rule: **the model call is the unit of cost**. A small local model takes
//! seconds per call while everything else (embedding, search, SQLite) takes
//! milliseconds, so every feature is shaped to make as few model calls as it can:
//! enrichment is one JSON call per entry, Ask skips its planning call whenever a local
//! rule can decide, and the text model is pre-warmed after launch so the first question
//! does not pay the model load.
//!
//! * [`settings`]: host and model names, the loopback-only rule.
//! * [`client`]: the HTTP client ([`client::OllamaClient`]): embeddings, JSON calls,
//!   streamed chat, pre-warming.
//! * [`health`]: is Ollama running, are the models pulled, and what to tell the person.
//! * [`enrich`]: title, mood and summary of an entry in one call, then its embedding.
//! * [`jobs`]: the `ai_jobs` queue that makes enrichment survive restarts and outages.
//! * [`json_reply`]: reads a model's JSON reply, raw line breaks inside strings included.
//! * [`ask`]: the Ask pipeline (plan, embed, search, answer) with timed stages.
//! * [`plan`]: Ask's first stage, the local rule that spares the planning call and the
//!   call itself.
//! * [`search_box`]: the search box's search with meaning in one call (the CLI's).
//!
//! Privacy: journal text is sent only to the configured host, and nothing here logs
//! entry text, prompts or model output: ids, counts, model names and timings only.
//!
//! Async and threads: the client is async (tokio + reqwest underneath). Code on plain
//! threads (the app's workers, the CLI, the writer's helpers) calls [`block_on`], which
//! runs the future on one shared background runtime. It must not be called from inside
//! an async context.

pub mod ask;
pub mod client;
pub mod enrich;
pub mod health;
pub mod json_reply;
pub mod plan;
pub mod prompt;
pub mod reflect;
pub mod runner;
pub mod search_box;
pub mod settings;

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

pub use client::OllamaClient;
pub use settings::AiSettings;

/// Everything that can go wrong with the local AI, each with the step that fixes it.
#[derive(Debug, thiserror::Error)]
pub enum AiError {
    #[error("Ollama is not running at {host}: start Ollama (open the Ollama app or run `ollama serve`)")]
    NotRunning { host: String },
    #[error("the model {model} is not installed in Ollama: run `ollama pull {model}`")]
    ModelMissing { model: String },
    #[error(
        "the AI host {host} is not on this computer, so journal text would leave it; tick 'Allow a host on another computer' in Settings (or set MINDSAGE_AI_ALLOW_REMOTE=1) if that is what you want"
    )]
    RemoteHostNotAllowed { host: String },
    #[error("the AI host '{host}' is not a valid address: {reason}")]
    InvalidHost { host: String, reason: String },
    #[error("Ollama answered with an error{}: {message}", status.map(|s| format!(" (HTTP {s})")).unwrap_or_default())]
    Server { status: Option<u16>, message: String },
    #[error("Ollama did not answer {what} within {}s; it may be overloaded or stuck, try again or restart Ollama", after.as_secs())]
    Timeout { what: &'static str, after: Duration },
    #[error("the reply from Ollama broke off: {0}")]
    Stream(String),
    #[error("the model gave unusable output for {what} after {attempts} attempts: {detail}")]
    InvalidOutput {
        what: &'static str,
        attempts: u32,
        detail: String,
    },
    #[error("cannot talk to Ollama: {0}")]
    Http(String),
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    /// The process is ending ([`crate::db::close_down`]): the call was given up.
    #[error("MindSage is closing: the model's answer was not waited for")]
    Stopped,
}

impl AiError {
    /// True when the AI as a whole is unavailable (Ollama down, model not pulled, the
    /// process ending): retrying now is pointless, queued work waits until health says
    /// it is back, and nothing counts against the job.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            AiError::NotRunning { .. } | AiError::ModelMissing { .. } | AiError::Stopped
        )
    }

    /// True when the same call may succeed if simply repeated: a server error, a reply
    /// cut off or garbled on the way, or model output that failed validation.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            AiError::Server { .. } | AiError::Stream(_) | AiError::InvalidOutput { .. }
        )
    }
}

pub type Result<T, E = AiError> = std::result::Result<T, E>;

/// How often a model call in progress looks whether the process is ending.
const CLOSING_LOOK: Duration = Duration::from_millis(50);

/// Runs an AI future to completion from a plain (non-async) thread.
///
/// All blocking callers share one small multi-threaded runtime, so the HTTP client's
/// pooled connections keep being driven between calls (a per-thread runtime would
/// strand them). Panics if called from inside a tokio runtime.
///
/// Once the process is ending ([`crate::db::close_down`]) the call is given up within
/// [`CLOSING_LOOK`] with [`AiError::Stopped`], its request dropped: closing the window
/// never waits for a model's answer, which a small model on a busy computer takes
/// seconds to give (and Windows ends a session sooner than that).
pub fn block_on<T>(future: impl Future<Output = Result<T>>) -> Result<T> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("mindsage-ai")
                .enable_all()
                .build()
                .expect("starting the AI runtime")
        })
        .block_on(async {
            tokio::select! {
                result = future => result,
                () = process_ending() => Err(AiError::Stopped),
            }
        })
}

/// Ready once the process is ending.
async fn process_ending() {
    while !crate::db::closing_down() {
        tokio::time::sleep(CLOSING_LOOK).await;
    }
}
