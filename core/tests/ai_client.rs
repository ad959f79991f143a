//! The Ollama client against a real server (`shared/ollama-local`): embeddings, the
//! streamed chat, and every failure a person can meet, each ending in a clear error
//! within a bounded time.

mod ollama_server;

use std::time::Duration;

use mindsage_core::ai::{AiError, AiSettings, OllamaClient, block_on};

fn client() -> (OllamaClient, AiSettings) {
    let settings = ollama_server::shared().settings();
    (OllamaClient::new(&settings).unwrap(), settings)
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn embeds_a_batch_with_the_configured_model() {
    let (client, settings) = client();
    let texts = ["my knee hurts after running", "running injury", "pottery class"].map(String::from);
    let vectors = client.embed_blocking(&settings.embed_model, &texts).unwrap();
    assert_eq!(vectors.len(), 3);
    assert!(vectors.iter().all(|v| v.len() == 384));
    let norm = cos(&vectors[0], &vectors[0]).sqrt();
    assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
    assert!(cos(&vectors[0], &vectors[1]) > cos(&vectors[0], &vectors[2]) + 0.3);
    assert!(
        client
            .embed_blocking(&settings.embed_model, &[])
            .unwrap()
            .is_empty()
    );
}

#[test]
fn describes_the_model_actually_served_under_an_alias() {
    // The test server serves nomic-embed-text as an alias of all-MiniLM-L6-v2: the
    // description must name what answers, not what was asked for.
    let (client, settings) = client();
    let served = block_on(client.describe(&settings.embed_model)).unwrap();
    assert_eq!(
        (served.family.as_str(), served.parameter_size.as_str()),
        ("bert", "23M")
    );
    assert_eq!(served.quantization_level, "F32");
    assert_eq!(served.basename.as_deref(), Some("all-MiniLM-L6-v2"));
    assert_eq!(block_on(client.describe("all-minilm:l6-v2")).unwrap(), served);
    let err = block_on(client.describe("not-pulled:7b")).unwrap_err();
    assert!(matches!(err, AiError::ModelMissing { .. }), "{err}");
}

#[test]
fn server_down_says_start_ollama_quickly() {
    let settings = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    let client = OllamaClient::new(&settings).unwrap();
    let started = std::time::Instant::now();
    let err = client
        .embed_blocking("nomic-embed-text", &["x".to_owned()])
        .unwrap_err();
    assert!(matches!(err, AiError::NotRunning { .. }), "{err}");
    assert!(err.to_string().contains("start Ollama"), "{err}");
    assert!(err.is_unavailable());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn missing_model_says_which_pull_to_run() {
    let (client, _) = client();
    let err = client
        .embed_blocking("not-pulled:7b", &["x".to_owned()])
        .unwrap_err();
    assert!(matches!(err, AiError::ModelMissing { .. }), "{err}");
    assert!(err.to_string().contains("`ollama pull not-pulled:7b`"), "{err}");
    let err = block_on(client.warm("not-pulled:7b")).unwrap_err();
    assert!(err.to_string().contains("`ollama pull not-pulled:7b`"), "{err}");
}
