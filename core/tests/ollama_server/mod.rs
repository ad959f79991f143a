//! Starts `shared/ollama-local` (a server speaking Ollama's HTTP API with real small
//! models) for the AI tests, and talks to its control endpoints.
//!
//! One server per test binary ([`shared`]): generation is served one request at a time,
//! so more servers would only compete for the two cores. Tests that change the server's
//! script or faults hold [`exclusive`] so they never see each other's settings, and
//! faults are always set with a `count`. The server is killed when its owner goes away:
//! a watchdog shell polls the test process, because a `static` is never dropped.
//!
//! Where `shared/` is: `MINDSAGE_SHARED_DIR`, else beside the repository root
//! (`<clone>/../shared`, as on CI and on the development machine). The Python venv must
//! exist (`shared/ollama-local/setup.sh`; `scripts/test.sh` runs it).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use mindsage_core::ai::AiSettings;

/// Our default model names, served by the small real models.
pub const ALIASES: &str = "llama3.2:3b=smollm2:135m,nomic-embed-text=all-minilm:l6-v2";

/// Longest wait for the server to answer after start (Python imports, no model load).
const START_TIMEOUT: Duration = Duration::from_secs(90);

pub struct LocalOllama {
    pub port: u16,
    child: Child,
}

/// The test binary's server, started on first use.
pub fn shared() -> &'static LocalOllama {
    static SERVER: OnceLock<LocalOllama> = OnceLock::new();
    SERVER.get_or_init(LocalOllama::start)
}

/// Serialises tests that set the shared server's script or faults.
pub fn exclusive() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poison| poison.into_inner())
}

/// The `shared/` folder holding `ollama-local`.
pub fn shared_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MINDSAGE_SHARED_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("binding a free port")
        .port()
}

impl LocalOllama {
    /// Starts a server of its own (for tests that would disturb others); killed on drop.
    pub fn start() -> LocalOllama {
        let serve = shared_dir().join("ollama-local/serve.sh");
        assert!(
            serve.exists(),
            "{} not found: set MINDSAGE_SHARED_DIR to the folder holding ollama-local",
            serve.display()
        );
        let venv = std::env::var_os("OLLAMA_LOCAL_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/ollama-local-venv")
            });
        assert!(
            venv.join("bin/python").exists(),
            "the ollama-local venv is missing at {}: run {}/ollama-local/setup.sh once (scripts/test.sh does)",
            venv.display(),
            shared_dir().display()
        );
        let port = free_port();
        // The watchdog stops the server when this test process ends, however it ends.
        let watchdog = r#"owner=$1; shift
"$@" & srv=$!
trap 'kill $srv 2>/dev/null; exit 0' TERM INT
while kill -0 "$owner" 2>/dev/null && kill -0 "$srv" 2>/dev/null; do sleep 0.3; done
kill $srv 2>/dev/null; wait $srv"#;
        let child = Command::new("bash")
            .arg("-c")
            .arg(watchdog)
            .arg("watchdog")
            .arg(std::process::id().to_string())
            // Through bash: CI's copy of shared/ may not keep the execute bits.
            .arg("bash")
            .arg(&serve)
            .arg(port.to_string())
            .env("OLLAMA_LOCAL_ALIASES", ALIASES)
            .env("OLLAMA_LOCAL_QUIET", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting ollama-local");
        let mut server = LocalOllama { port, child };
        let started = Instant::now();
        loop {
            if server
                .request("GET", "/api/version", "")
                .is_some_and(|r| r.starts_with("HTTP/1.1 200"))
            {
                return server;
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("ollama-local exited during start-up ({status}); see its output above");
            }
            assert!(
                started.elapsed() < START_TIMEOUT,
                "ollama-local did not answer on port {port} within {START_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Settings pointing at this server with our default model names and short waits,
    /// so a broken test fails in seconds rather than hanging.
    pub fn settings(&self) -> AiSettings {
        AiSettings {
            host: self.url(),
            request_timeout: Duration::from_secs(60),
            first_token_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(10),
            ..AiSettings::default()
        }
    }

    /// One HTTP/1.1 request with a 30 s timeout; the raw response, or `None` when the
    /// server could not be reached.
    pub fn request(&self, method: &str, path: &str, body: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .ok()?;
        let mut out = String::new();
        stream.read_to_string(&mut out).ok()?;
        Some(out)
    }

    /// Replaces the scripted replies (`{"rules": [...]}`, see ollama-local's README).
    pub fn script(&self, json: &str) {
        let reply = self
            .request("POST", "/__ollama_local/script", json)
            .expect("setting the script");
        assert!(reply.starts_with("HTTP/1.1 200"), "script refused: {reply}");
    }

    /// Sets a fault; always give it a `count` so it cannot outlive the test.
    pub fn fault(&self, json: &str) {
        let reply = self
            .request("POST", "/__ollama_local/faults", json)
            .expect("setting a fault");
        assert!(reply.starts_with("HTTP/1.1 200"), "fault refused: {reply}");
    }

    pub fn clear_faults(&self) {
        self.request("DELETE", "/__ollama_local/faults", "");
    }
}

impl Drop for LocalOllama {
    fn drop(&mut self) {
        // SIGTERM to the watchdog, whose trap stops the server.
        let _ = Command::new("kill").arg(self.child.id().to_string()).status();
        let _ = self.child.wait();
    }
}
