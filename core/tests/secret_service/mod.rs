//! A real Secret Service for the tests of "remember on this computer": a private D-Bus
//! session bus and GNOME Keyring on it, its keyrings in a temporary folder. The
//! `keyring` crate finds the bus through `DBUS_SESSION_BUS_ADDRESS`, which
//! [`SecretService::start`] sets for the whole test process: one per test binary.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::io::Write;
use std::process::{Command, Stdio};

pub struct SecretService {
    pids: Vec<u32>,
    _home: tempfile::TempDir,
}

impl SecretService {
    /// Starts the bus and the keyring daemon, its login keyring made and unlocked. `None`
    /// (with the reason printed) where dbus-daemon or gnome-keyring-daemon are not
    /// installed: `scripts/install-deps.sh test` installs both.
    pub fn start() -> Option<SecretService> {
        let home = tempfile::tempdir().ok()?;
        let bus = Command::new("dbus-daemon")
            .args(["--session", "--fork", "--print-address=1", "--print-pid=1"])
            .output();
        let Ok(bus) = bus else {
            eprintln!("no dbus-daemon: the credential store is not tested here");
            return None;
        };
        let printed = String::from_utf8_lossy(&bus.stdout).into_owned();
        let mut lines = printed.lines();
        let address = lines.next()?.trim().to_owned();
        let bus_pid: u32 = lines.next()?.trim().parse().ok()?;
        // SAFETY: set once, before any thread of this test binary talks to D-Bus.
        unsafe {
            std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &address);
            std::env::set_var("XDG_DATA_HOME", home.path());
        }
        let keyring = Command::new("gnome-keyring-daemon")
            .args(["--unlock", "--components=secrets"])
            .env("XDG_DATA_HOME", home.path())
            .env("XDG_RUNTIME_DIR", home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let Ok(mut keyring) = keyring else {
            eprintln!("no gnome-keyring-daemon: the credential store is not tested here");
            let _ = Command::new("kill").arg(bus_pid.to_string()).status();
            return None;
        };
        // A password on stdin makes and unlocks the login keyring (an empty one makes
        // none); closing stdin lets the daemon go on in the background.
        drop(
            keyring
                .stdin
                .take()
                .map(|mut stdin| stdin.write_all(b"test keyring")),
        );
        let _ = keyring.wait_with_output();
        let daemon_pid = Command::new("pgrep")
            .args(["-n", "gnome-keyring-d"])
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok());
        Some(SecretService {
            pids: std::iter::once(bus_pid).chain(daemon_pid).collect(),
            _home: home,
        })
    }
}

impl Drop for SecretService {
    fn drop(&mut self) {
        for pid in &self.pids {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}
