//! Where the model runs and which models to use.
//!
//! Defaults match a stock Ollama install (`http://127.0.0.1:11434`, `llama3.2:3b` for
//! text, `nomic-embed-text` for embeddings). `OLLAMA_HOST` is honoured the way the
//! `ollama` command reads it (`host`, `host:port`, or a URL), so a person who already
//! moved Ollama does not configure it twice.
//!
//! The one rule enforced here: a host that is not this computer needs an explicit
//! opt-in, because every AI call carries journal text to it.

use std::net::IpAddr;
use std::time::Duration;

use url::Url;

use super::AiError;

/// Ollama's own default port.
pub const DEFAULT_PORT: u16 = 11434;
/// The text model a stock install is asked to pull.
pub const DEFAULT_TEXT_MODEL: &str = "llama3.2:3b";
/// The embedding model a stock install is asked to pull.
pub const DEFAULT_EMBED_MODEL: &str = "nomic-embed-text";

/// Environment variable naming the text model.
pub const TEXT_MODEL_ENV: &str = "MINDSAGE_TEXT_MODEL";
/// Environment variable naming the embedding model.
pub const EMBED_MODEL_ENV: &str = "MINDSAGE_EMBED_MODEL";
/// Environment variable that opts in to a host on another computer (`1` or `true`).
pub const ALLOW_REMOTE_ENV: &str = "MINDSAGE_AI_ALLOW_REMOTE";

/// The AI settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AiSettings {
    /// Ollama's address: `http://127.0.0.1:11434`, `localhost:11434`, `127.0.0.1`, …
    pub host: String,
    /// Model for titles, summaries, planning and answers.
    pub text_model: String,
    /// Model for embeddings (search vectors).
    pub embed_model: String,
    /// The person agreed that journal text may go to a host on another computer.
    pub allow_remote_host: bool,
    /// Longest wait for a whole non-streamed reply (includes loading the model).
    pub request_timeout: Duration,
    /// Longest wait for the first piece of a streamed reply (includes loading the model).
    pub first_token_timeout: Duration,
    /// Longest silence between two pieces of a streamed reply.
    pub idle_timeout: Duration,
    /// How long Ollama keeps the text model loaded after a call. Long enough that a
    /// person's next question does not pay the model load again.
    pub keep_alive: Duration,
}

impl Default for AiSettings {
    fn default() -> Self {
        AiSettings {
            host: format!("http://127.0.0.1:{DEFAULT_PORT}"),
            text_model: DEFAULT_TEXT_MODEL.to_owned(),
            embed_model: DEFAULT_EMBED_MODEL.to_owned(),
            allow_remote_host: false,
            request_timeout: Duration::from_secs(180),
            first_token_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(30),
            keep_alive: Duration::from_secs(30 * 60),
        }
    }
}

impl AiSettings {
    /// The defaults with `OLLAMA_HOST`, [`TEXT_MODEL_ENV`], [`EMBED_MODEL_ENV`] and
    /// [`ALLOW_REMOTE_ENV`] applied.
    pub fn from_env() -> AiSettings {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut settings = AiSettings::default();
        if let Some(host) = var("OLLAMA_HOST") {
            settings.host = host;
        }
        if let Some(model) = var(TEXT_MODEL_ENV) {
            settings.text_model = model;
        }
        if let Some(model) = var(EMBED_MODEL_ENV) {
            settings.embed_model = model;
        }
        settings.allow_remote_host = var(ALLOW_REMOTE_ENV)
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"));
        settings
    }

    /// The person's settings file applied over [`AiSettings::from_env`]: a host or model
    /// chosen in the app wins over the environment; an empty model means the default; a
    /// host on another computer is allowed by either the setting or the environment.
    pub fn from_settings(settings: &crate::settings::Settings) -> AiSettings {
        let mut ai = AiSettings::from_env();
        let defaults = crate::settings::Settings::default();
        if settings.ollama_host.trim() != defaults.ollama_host && !settings.ollama_host.trim().is_empty() {
            ai.host = settings.ollama_host.trim().to_owned();
        }
        if !settings.chat_model.trim().is_empty() {
            ai.text_model = settings.chat_model.trim().to_owned();
        }
        if !settings.embedding_model.trim().is_empty() {
            ai.embed_model = settings.embedding_model.trim().to_owned();
        }
        ai.allow_remote_host |= settings.allow_remote_model_host;
        ai
    }

    /// The base URL of the API, after the loopback rule.
    pub fn base_url(&self) -> Result<Url, AiError> {
        let url = parse_host(&self.host)?;
        if !self.allow_remote_host && !is_loopback(&url) {
            return Err(AiError::RemoteHostNotAllowed {
                host: url.to_string(),
            });
        }
        Ok(url)
    }
}

/// Reads a host the way Ollama does: a missing scheme means `http`, a missing port means
/// 11434, and the bind-all address `0.0.0.0` means this computer.
fn parse_host(host: &str) -> Result<Url, AiError> {
    let invalid = |reason: String| AiError::InvalidHost {
        host: host.to_owned(),
        reason,
    };
    let trimmed = host.trim().trim_end_matches('/');
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_owned()
    } else {
        format!("http://{trimmed}")
    };
    let mut url = Url::parse(&with_scheme).map_err(|e| invalid(e.to_string()))?;
    if url.scheme() != "http" {
        return Err(invalid(format!(
            "only http:// is supported (got {}://); Ollama speaks plain HTTP",
            url.scheme()
        )));
    }
    if url.host_str().is_none() {
        return Err(invalid("no host name".to_owned()));
    }
    if url.port().is_none() && !trimmed.contains("://") {
        let _ = url.set_port(Some(DEFAULT_PORT));
    }
    if matches!(url.host_str(), Some("0.0.0.0") | Some("[::]")) {
        let _ = url.set_host(Some("127.0.0.1"));
    }
    url.set_path("/");
    Ok(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(host: &str, allow_remote_host: bool) -> AiSettings {
        AiSettings {
            host: host.to_owned(),
            allow_remote_host,
            ..AiSettings::default()
        }
    }

    #[test]
    fn hosts_are_read_like_ollama_reads_them() {
        let url = |h: &str| settings(h, false).base_url().unwrap().to_string();
        assert_eq!(url("127.0.0.1"), "http://127.0.0.1:11434/");
        assert_eq!(url("localhost:8080"), "http://localhost:8080/");
        assert_eq!(url("http://127.0.0.1:18080/"), "http://127.0.0.1:18080/");
        assert_eq!(url("0.0.0.0"), "http://127.0.0.1:11434/");
        assert_eq!(url("[::1]:11434"), "http://[::1]:11434/");
    }

    #[test]
    fn another_computer_needs_an_explicit_opt_in() {
        let err = settings("192.168.1.20:11434", false).base_url().unwrap_err();
        assert!(matches!(err, AiError::RemoteHostNotAllowed { .. }), "{err}");
        assert!(err.to_string().contains("leave"));
        assert!(settings("192.168.1.20:11434", true).base_url().is_ok());
    }

    #[test]
    fn tls_and_garbage_are_refused_with_a_reason() {
        assert!(matches!(
            settings("https://127.0.0.1", false).base_url(),
            Err(AiError::InvalidHost { .. })
        ));
        assert!(settings("http://", false).base_url().is_err());
    }
}
