//! An X server without a screen (Xvfb), for the bench and the tests to run the real
//! window on a machine with no display.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

/// An Xvfb server on a display it picked itself, stopped when this is dropped.
///
/// `-displayfd 1` makes Xvfb take the first free display and write its number to its
/// standard output once it accepts clients, so nothing polls for the server to come up.
pub struct VirtualDisplay {
    server: Child,
    /// `:N`, for `DISPLAY`.
    pub name: String,
}

impl VirtualDisplay {
    pub fn start() -> anyhow::Result<VirtualDisplay> {
        let mut server = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting Xvfb (scripts/install-deps.sh test installs it)")?;
        let mut number = String::new();
        let stdout = server.stdout.take().context("Xvfb's standard output")?;
        BufReader::new(stdout).read_line(&mut number)?;
        let number = number.trim();
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
            let _ = server.kill();
            let _ = server.wait();
            anyhow::bail!("Xvfb did not report a display number (it printed {number:?})");
        }
        Ok(VirtualDisplay {
            name: format!(":{number}"),
            server,
        })
    }
}

impl Drop for VirtualDisplay {
    /// Asks the server to end (SIGTERM), so it removes its socket and lock file, and
    /// kills it only if it has not ended within a second: a killed Xvfb leaves its socket,
    /// and the next server to take that display number could lose its own to the old
    /// one's late cleanup, leaving its clients with "Failed to open connection to X
    /// server".
    fn drop(&mut self) {
        let asked = Command::new("kill")
            .args(["-TERM", &self.server.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        let deadline = Instant::now() + Duration::from_secs(1);
        while asked && Instant::now() < deadline {
            if let Ok(Some(_)) = self.server.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}
