//! Is the local AI usable, and if not, what should the person do?
//!
//! One probe answers both questions: `/api/tags` fails to connect when Ollama is not
//! running ("start Ollama"), and lists the pulled models, so a missing one is named with
//! its pull command. Nothing else in the app waits on this: journaling, lists, keyword
//! search and the dashboard work without a model; AI work waits in `ai_jobs`.

use std::time::{Duration, Instant};

use super::client::{CallStats, LocalModel};
use super::{AiError, OllamaClient, Result, block_on};
use crate::timing;

/// A usable AI: Ollama's version and the two configured models as pulled.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ready {
    pub version: String,
    pub text_model: LocalModel,
    pub embed_model: LocalModel,
}

/// Checks that Ollama answers and both configured models are pulled. The error names
/// the one thing to do next (start Ollama, or `ollama pull <model>`).
pub async fn check(client: &OllamaClient) -> Result<Ready> {
    let version = client.version().await?;
    let models = client.local_models().await?;
    let find = |wanted: &str| {
        models
            .iter()
            .find(|m| same_model(&m.name, wanted))
            .cloned()
            .ok_or_else(|| AiError::ModelMissing {
                model: wanted.to_owned(),
            })
    };
    let settings = client.settings();
    Ok(Ready {
        version,
        text_model: find(&settings.text_model)?,
        embed_model: find(&settings.embed_model)?,
    })
}

/// Ollama names without a tag mean `:latest` (`nomic-embed-text` is
/// `nomic-embed-text:latest`).
pub fn same_model(listed: &str, wanted: &str) -> bool {
    fn full(name: &str) -> String {
        if name.contains(':') {
            name.to_owned()
        } else {
            format!("{name}:latest")
        }
    }
    full(listed).eq_ignore_ascii_case(&full(wanted))
}

/// The timing a pre-warming call is recorded under.
const WARM_TIMING: &str = "ai.warm";

/// Loads the text model now and keeps it loaded, so the first question after launch
/// does not pay the model load (6 s in the reference app). The load is recorded under
/// `WARM_TIMING`; the returned stats say how much of it was loading (`load`).
pub async fn prewarm(client: &OllamaClient) -> Result<CallStats> {
    let started = Instant::now();
    let stats = client.warm(&client.settings().text_model).await?;
    timing::record(WARM_TIMING, started.elapsed());
    Ok(stats)
}

/// [`prewarm`] on a thread of its own, for the app to call right after launch. The
/// result (for a status line) arrives through the handle; a failure only means the
/// first question pays the load itself.
pub fn prewarm_in_background(client: OllamaClient) -> std::thread::JoinHandle<Result<CallStats>> {
    std::thread::Builder::new()
        .name("mindsage-ai-warm".into())
        .spawn(move || {
            let result = block_on(prewarm(&client));
            if let Err(error) = &result {
                tracing::info!(%error, "pre-warming the text model failed");
            }
            result
        })
        .expect("spawning a thread")
}

/// How long the job runner waits before probing again after the AI was unavailable:
/// doubling from 2 s up to a minute, so a returning Ollama is noticed quickly but a
/// missing one costs almost nothing.
pub fn backoff(consecutive_failures: u32) -> Duration {
    Duration::from_secs(2u64.saturating_pow(consecutive_failures.min(6)).clamp(2, 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_names_mean_latest() {
        assert!(same_model("nomic-embed-text:latest", "nomic-embed-text"));
        assert!(same_model("llama3.2:3b", "llama3.2:3b"));
        assert!(!same_model("llama3.2:1b", "llama3.2:3b"));
        assert!(!same_model("llama3.2:latest", "llama3.2:3b"));
    }

    #[test]
    fn backoff_grows_to_a_minute() {
        assert_eq!(backoff(0), Duration::from_secs(2));
        assert_eq!(backoff(3), Duration::from_secs(8));
        assert_eq!(backoff(40), Duration::from_secs(60));
    }
}
