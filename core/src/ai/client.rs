//! The HTTP client for Ollama.
//!
//! [`OllamaClient`] is async and cheap to clone. From a plain thread, wrap a call in
//! [`super::block_on`], or use the `*_blocking` helpers ([`OllamaClient::embed_blocking`]).
//! The embedding API is the one search depends on and is kept stable:
//!
//! ```no_run
//! # use mindsage_core::ai::{AiSettings, OllamaClient};
//! let settings = AiSettings::from_env();
//! let client = OllamaClient::new(&settings)?;
//! let vectors = client.embed_blocking(&settings.embed_model, &["a walk by the sea".to_owned()])?;
//! # Ok::<(), mindsage_core::ai::AiError>(())
//! ```
//!
//! Which calls go through `ollama-rs` and which go straight to the HTTP API:
//! * embeddings, non-streamed JSON chat and pre-warming use `ollama-rs` 0.3.6;
//! * the **streamed** chat is read with `reqwest` directly on the same `/api/chat`
//!   endpoint, because `ollama-rs`'s streams skip a malformed NDJSON line silently
//!   (`generate_stream`) or only print it to stderr (`send_chat_messages_stream`) and then
//!   carry on to `done`: the answer would silently lose text. Reading the lines ourselves
//!   turns a garbled line, an `{"error": …}` line or a cut connection into an error the
//!   pipeline can retry, and keeps each wait under a timeout;
//! * `/api/version`, `/api/tags` and `/api/show` are read directly too: `ollama-rs` has
//!   no version call, its model list drops the digest the bench records, and its
//!   `show_model_info` drops the `details` (family, size, quantisation) it records.
//!
//! There is no TLS stack: Ollama speaks plain HTTP and the default host is loopback.

use std::time::{Duration, Instant};

use ollama_rs::Ollama;
use ollama_rs::error::OllamaError;
use ollama_rs::generation::chat::ChatMessage;
use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::generation::completion::request::GenerationRequest;
use ollama_rs::generation::embeddings::request::{EmbeddingsInput, GenerateEmbeddingsRequest};
use ollama_rs::generation::parameters::{FormatType, JsonStructure, KeepAlive, TimeUnit};
use ollama_rs::models::ModelOptions;
use serde::{Deserialize, Serialize};
use url::Url;

use super::{AiError, AiSettings, Result, block_on};
use crate::db::chats::Role;

/// How long to wait for a TCP connection. Loopback answers at once; a refused or
/// unreachable host must say "start Ollama" quickly, not after the request timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// Timeout for the small metadata calls (version, model list).
const METADATA_TIMEOUT: Duration = Duration::from_secs(10);

/// One chat message sent to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Message {
        Message {
            role: Role::System,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    fn to_ollama(&self) -> ChatMessage {
        match self.role {
            Role::System => ChatMessage::system(self.content.clone()),
            Role::User => ChatMessage::user(self.content.clone()),
            Role::Assistant => ChatMessage::assistant(self.content.clone()),
        }
    }
}

/// What one model call cost, from our clock and from Ollama's own report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CallStats {
    /// Wall time of the call, request to last byte.
    pub elapsed: Duration,
    /// Wall time to the first piece of text (streamed calls only).
    pub first_token: Option<Duration>,
    /// Time Ollama spent loading the model for this call (zero when it was warm).
    pub load: Duration,
    /// Tokens generated.
    pub eval_count: u64,
}

/// A model Ollama has pulled.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct LocalModel {
    pub name: String,
    #[serde(default)]
    pub digest: String,
}

/// What the server says a model is, from `/api/show`. A name is only what was asked
/// for: a server can serve one model under another's name (`ollama cp`, or
/// ollama-local's aliases), so the bench records these beside the name.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct ModelDescription {
    /// `details.family`, e.g. `bert` or `llama`.
    pub family: String,
    /// `details.parameter_size`, e.g. `23M`.
    pub parameter_size: String,
    /// `details.quantization_level`, e.g. `F32` or `Q4_1`.
    pub quantization_level: String,
    /// `model_info["general.basename"]` when the server gives one: the weights' own name.
    pub basename: Option<String>,
}

/// The client. Holds the validated base URL; every call goes to that host only.
#[derive(Debug, Clone)]
pub struct OllamaClient {
    ollama: Ollama,
    http: reqwest::Client,
    base: Url,
    settings: AiSettings,
}

impl OllamaClient {
    /// A client for the host in `settings`. Fails (without any network traffic) when the
    /// host is invalid or is another computer the person has not allowed.
    pub fn new(settings: &AiSettings) -> Result<OllamaClient> {
        let base = settings.base_url()?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| AiError::Http(e.to_string()))?;
        let ollama = Ollama::builder()
            .url(base.clone())
            .reqwest_client(http.clone())
            .build();
        Ok(OllamaClient {
            ollama,
            http,
            base,
            settings: settings.clone(),
        })
    }

    /// The settings this client was made from.
    pub fn settings(&self) -> &AiSettings {
        &self.settings
    }

    /// The host every call goes to, for messages.
    pub fn host(&self) -> &str {
        self.base.as_str()
    }

    /// Embeds `texts` with `model`, one vector per text, in one request.
    pub async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let request =
            GenerateEmbeddingsRequest::new(model.to_owned(), EmbeddingsInput::Multiple(texts.to_vec()))
                .keep_alive(self.keep_alive());
        let response = self
            .with_timeout("the embedding request", self.settings.request_timeout, async {
                self.ollama
                    .generate_embeddings(request)
                    .await
                    .map_err(|e| self.map_ollama_error(e, model))
            })
            .await?;
        if response.embeddings.len() != texts.len() {
            return Err(AiError::Server {
                status: None,
                message: format!(
                    "asked for {} embeddings, got {}",
                    texts.len(),
                    response.embeddings.len()
                ),
            });
        }
        Ok(response.embeddings)
    }

    /// [`OllamaClient::embed`] for plain threads (see [`super::block_on`]).
    pub fn embed_blocking(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        block_on(self.embed(model, texts))
    }

    /// One non-streamed chat call whose reply must follow the JSON schema of `T`.
    /// Returns the raw reply text: the caller validates it and decides about retries.
    pub async fn chat_json<T: schemars::JsonSchema>(
        &self,
        model: &str,
        messages: &[Message],
        options: ModelOptions,
    ) -> Result<(String, CallStats)> {
        let request = ChatMessageRequest::new(
            model.to_owned(),
            messages.iter().map(Message::to_ollama).collect(),
        )
        .format(FormatType::StructuredJson(Box::new(JsonStructure::new::<T>())))
        .options(options)
        .keep_alive(self.keep_alive());
        let started = Instant::now();
        let response = self
            .with_timeout("the request", self.settings.request_timeout, async {
                self.ollama
                    .send_chat_messages(request)
                    .await
                    .map_err(|e| self.map_ollama_error(e, model))
            })
            .await?;
        let stats = CallStats {
            elapsed: started.elapsed(),
            first_token: None,
            load: response
                .final_data
                .as_ref()
                .map_or(Duration::ZERO, |f| Duration::from_nanos(f.load_duration)),
            eval_count: response.final_data.as_ref().map_or(0, |f| f.eval_count),
        };
        Ok((response.message.content, stats))
    }

    /// A JSON reply shaped as `T` that `validate` accepts: up to `attempts` calls, each
    /// with another seed (a deterministic model would repeat its mistake). Returns what
    /// `validate` made of it, the calls made and the last call's figures; after the last
    /// attempt, [`AiError::InvalidOutput`] about `what`, with the last problem (which
    /// `validate` words without quoting the reply: it may repeat journal text).
    pub async fn chat_validated<T: schemars::JsonSchema, R>(
        &self,
        messages: &[Message],
        options: ModelOptions,
        attempts: u32,
        what: &'static str,
        validate: impl Fn(&str) -> std::result::Result<R, String>,
    ) -> Result<(R, u32, CallStats)> {
        let mut last_problem = String::new();
        for attempt in 1..=attempts {
            let options = options.clone().seed(attempt as i32);
            let (text, stats) = match self
                .chat_json::<T>(&self.settings.text_model, messages, options)
                .await
            {
                Ok(reply) => reply,
                Err(e) if e.is_retryable() && attempt < attempts => {
                    last_problem = e.to_string();
                    continue;
                }
                Err(e) => return Err(e),
            };
            match validate(&text) {
                Ok(valid) => return Ok((valid, attempt, stats)),
                Err(problem) => {
                    tracing::info!(what, attempt, %problem, "model output rejected");
                    last_problem = problem;
                }
            }
        }
        Err(AiError::InvalidOutput {
            what,
            attempts,
            detail: last_problem,
        })
    }

    /// One streamed chat call. `on_token` receives each piece of text as it arrives.
    ///
    /// Ends with an error, never with a silently shortened reply, when the stream
    /// carries a garbled line or an error line, or the connection closes before Ollama
    /// says `done`. Waits are bounded: [`AiSettings::first_token_timeout`] for the first
    /// piece, [`AiSettings::idle_timeout`] between pieces.
    pub async fn chat_stream(
        &self,
        model: &str,
        messages: &[Message],
        options: ModelOptions,
        on_token: &mut dyn FnMut(&str),
    ) -> Result<CallStats> {
        let body = serde_json::json!({
            "model": model,
            "messages": messages,
            "stream": true,
            "options": options,
            "keep_alive": self.settings.keep_alive.as_secs(),
        });
        let started = Instant::now();
        let first_deadline = started + self.settings.first_token_timeout;
        let url = self.endpoint("api/chat");
        let mut response = self
            .with_timeout("the request", self.settings.first_token_timeout, async {
                self.http
                    .post(url)
                    .json(&body)
                    .send()
                    .await
                    .map_err(|e| self.map_transport_error(e))
            })
            .await?;
        if !response.status().is_success() {
            return Err(self.error_response(response, model).await);
        }
        let mut stats = CallStats::default();
        let mut pending: Vec<u8> = Vec::new();
        loop {
            let wait = match stats.first_token {
                None => first_deadline.saturating_duration_since(Instant::now()),
                Some(_) => self.settings.idle_timeout,
            };
            let what = if stats.first_token.is_none() {
                "the first part of the answer"
            } else {
                "the next part of the answer"
            };
            let chunk = self
                .with_timeout(what, wait, async {
                    response.chunk().await.map_err(|e| {
                        AiError::Stream(format!("the connection failed mid-reply ({})", error_chain(&e)))
                    })
                })
                .await
                // The first wait is what the request left of the first-token limit: the
                // message names the limit itself, not that remainder ("within 0s").
                .map_err(|e| match e {
                    AiError::Timeout { what, .. } if stats.first_token.is_none() => AiError::Timeout {
                        what,
                        after: self.settings.first_token_timeout,
                    },
                    e => e,
                })?;
            let Some(chunk) = chunk else {
                // The body ended. A last line without its newline still counts.
                let rest = std::mem::take(&mut pending);
                if self.stream_line(&rest, model, started, &mut stats, on_token)? {
                    stats.elapsed = started.elapsed();
                    return Ok(stats);
                }
                return Err(AiError::Stream(
                    "the connection closed before the reply was complete".to_owned(),
                ));
            };
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                if self.stream_line(&line, model, started, &mut stats, on_token)? {
                    stats.elapsed = started.elapsed();
                    return Ok(stats);
                }
            }
        }
    }

    /// Handles one NDJSON line of a streamed reply; true when it was the final one.
    fn stream_line(
        &self,
        line: &[u8],
        model: &str,
        started: Instant,
        stats: &mut CallStats,
        on_token: &mut dyn FnMut(&str),
    ) -> Result<bool> {
        #[derive(Deserialize)]
        struct StreamMessage {
            #[serde(default)]
            content: String,
        }
        #[derive(Deserialize)]
        struct StreamLine {
            message: Option<StreamMessage>,
            #[serde(default)]
            done: bool,
            error: Option<String>,
            load_duration: Option<u64>,
            eval_count: Option<u64>,
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(false);
        }
        let parsed: StreamLine = serde_json::from_slice(line).map_err(|e| {
            // The serde message names a position, never the text itself.
            AiError::Stream(format!("Ollama sent a garbled line ({e})"))
        })?;
        if let Some(message) = parsed.error {
            return Err(self.classify_error(None, message, model));
        }
        if let Some(content) = parsed.message.map(|m| m.content).filter(|c| !c.is_empty()) {
            stats.first_token.get_or_insert_with(|| started.elapsed());
            on_token(&content);
        }
        if parsed.done {
            stats.load = Duration::from_nanos(parsed.load_duration.unwrap_or(0));
            stats.eval_count = parsed.eval_count.unwrap_or(0);
        }
        Ok(parsed.done)
    }

    /// Loads `model` into memory and keeps it loaded for [`AiSettings::keep_alive`],
    /// without generating anything (an empty prompt). Called in the background after
    /// launch so the person's first question does not pay the model load.
    pub async fn warm(&self, model: &str) -> Result<CallStats> {
        let request = GenerationRequest::new(model.to_owned(), "").keep_alive(self.keep_alive());
        let started = Instant::now();
        let response = self
            .with_timeout("loading the model", self.settings.request_timeout, async {
                self.ollama
                    .generate(request)
                    .await
                    .map_err(|e| self.map_ollama_error(e, model))
            })
            .await?;
        Ok(CallStats {
            elapsed: started.elapsed(),
            first_token: None,
            load: Duration::from_nanos(response.load_duration.unwrap_or(0)),
            eval_count: 0,
        })
    }

    /// Ollama's version string; the cheapest "is it running" probe.
    pub async fn version(&self) -> Result<String> {
        #[derive(Deserialize)]
        struct Version {
            version: String,
        }
        let version: Version = self.get_json("api/version").await?;
        Ok(version.version)
    }

    /// The models Ollama has pulled, with their digests.
    pub async fn local_models(&self) -> Result<Vec<LocalModel>> {
        #[derive(Deserialize)]
        struct Tags {
            models: Vec<LocalModel>,
        }
        let tags: Tags = self.get_json("api/tags").await?;
        Ok(tags.models)
    }

    /// What the server says `model` is (`/api/show`).
    pub async fn describe(&self, model: &str) -> Result<ModelDescription> {
        #[derive(Deserialize)]
        struct Details {
            #[serde(default)]
            family: String,
            #[serde(default)]
            parameter_size: String,
            #[serde(default)]
            quantization_level: String,
        }
        #[derive(Deserialize)]
        struct Show {
            details: Details,
            #[serde(default)]
            model_info: serde_json::Map<String, serde_json::Value>,
        }
        let request = self
            .http
            .post(self.endpoint("api/show"))
            .json(&serde_json::json!({ "model": model }));
        let show: Show = self.read_json("api/show", request, model).await?;
        Ok(ModelDescription {
            family: show.details.family,
            parameter_size: show.details.parameter_size,
            quantization_level: show.details.quantization_level,
            basename: show
                .model_info
                .get("general.basename")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
        })
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.read_json(path, self.http.get(self.endpoint(path)), "").await
    }

    /// Sends a metadata request and reads its JSON reply; `model` names the model
    /// asked about, so a 404 reads as "not pulled".
    async fn read_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        request: reqwest::RequestBuilder,
        model: &str,
    ) -> Result<T> {
        self.with_timeout("a status request", METADATA_TIMEOUT, async {
            let response = request.send().await.map_err(|e| self.map_transport_error(e))?;
            if !response.status().is_success() {
                return Err(self.error_response(response, model).await);
            }
            response.json::<T>().await.map_err(|e| AiError::Server {
                status: None,
                message: format!("unexpected reply to {path}: {e}"),
            })
        })
        .await
    }

    fn endpoint(&self, path: &str) -> Url {
        self.base
            .join(path)
            .expect("a relative API path joins onto the base URL")
    }

    fn keep_alive(&self) -> KeepAlive {
        KeepAlive::Until {
            time: self.settings.keep_alive.as_secs(),
            unit: TimeUnit::Seconds,
        }
    }

    async fn with_timeout<T>(
        &self,
        what: &'static str,
        after: Duration,
        future: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        tokio::time::timeout(after, future)
            .await
            .unwrap_or(Err(AiError::Timeout { what, after }))
    }

    async fn error_response(&self, response: reqwest::Response, model: &str) -> AiError {
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        self.classify_error(Some(status), error_message(&body), model)
    }

    /// Ollama reports a model that is not pulled as `model "x" not found, try pulling
    /// it first` (404 on generate/chat/embed); everything else is a server error.
    fn classify_error(&self, status: Option<u16>, message: String, model: &str) -> AiError {
        if !model.is_empty() && message.contains("not found") && message.contains("model") {
            return AiError::ModelMissing {
                model: model.to_owned(),
            };
        }
        AiError::Server { status, message }
    }

    fn map_transport_error(&self, error: reqwest::Error) -> AiError {
        if error.is_connect() {
            AiError::NotRunning {
                host: self.base.to_string(),
            }
        } else {
            AiError::Stream(error_chain(&error))
        }
    }

    /// `ollama-rs` turns a non-success reply into `Other(body)` and loses the status;
    /// the body still says what happened.
    fn map_ollama_error(&self, error: OllamaError, model: &str) -> AiError {
        match error {
            OllamaError::ReqwestError(e) => self.map_transport_error(e),
            OllamaError::Other(body) => self.classify_error(None, error_message(&body), model),
            OllamaError::InternalError(e) => self.classify_error(None, e.message, model),
            OllamaError::JsonError(e) => AiError::Stream(format!("Ollama sent an unreadable reply ({e})")),
            OllamaError::ToolCallError(e) => AiError::Server {
                status: None,
                message: e.to_string(),
            },
        }
    }
}

/// The `error` field of Ollama's `{"error": "..."}` body, or the body itself.
fn error_message(body: &str) -> String {
    #[derive(Deserialize)]
    struct ErrorBody {
        error: String,
    }
    serde_json::from_str::<ErrorBody>(body)
        .map(|b| b.error)
        .unwrap_or_else(|_| body.trim().chars().take(300).collect())
}

/// An error and its causes on one line (reqwest's top-level message alone is vague).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
