//! Encryption as a person meets it, in the real window (egui_kittest) with its real
//! threads on a real journal: turned on in Settings, locked with Ctrl+L and after the
//! idle time, unlocked with the passphrase (a wrong one refused), opened without asking
//! when the passphrase is remembered by the system's credential store, and turned off.

use std::path::Path;
use std::time::Duration;

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use mindsage::shell::Shell;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::cipher::{self, Passphrase};
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::{keystore, paths};

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

#[path = "../../core/tests/secret_service/mod.rs"]
mod secret_service;

mod app_harness;

use app_harness::{shell_from, shows, type_into, wait_until};

const MARKER: &str = "zqxlockedtitle";
const PASSPHRASE: &str = "correct horse battery";

/// A plain journal with one marked entry.
fn journal(data_dir: &Path) {
    let mut conn = db::open(&paths::database_path(data_dir), &StorageOptions::default()).unwrap();
    let entry = NewEntry {
        title: MARKER.into(),
        body: "A day worth keeping to myself.".into(),
        tags: vec!["private".into()],
        mood_score: None,
        created_at: None,
    };
    entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
}

fn window(data_dir: &Path) -> Harness<'static, Shell> {
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    shell_from(data_dir.to_path_buf(), offline, 1100.0)
}

fn lists_the_entry(h: &Harness<'_, Shell>) -> bool {
    h.query_by_role_and_label(Role::Button, MARKER).is_some()
}

/// Whether any file under `dir` holds `needle`.
fn on_disk(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for item in std::fs::read_dir(dir).unwrap().flatten() {
        let path = item.path();
        if path.is_dir() {
            found.extend(on_disk(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle)
        {
            found.push(path.display().to_string());
        }
    }
    found
}

fn click(harness: &mut Harness<'_, Shell>, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).scroll_to_me();
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, label).click();
    harness.run_steps(2);
}

fn unlock(harness: &mut Harness<'_, Shell>, passphrase: &str) {
    wait_until(harness, "the passphrase field", |h| {
        h.query_by_role(Role::PasswordInput).is_some()
    });
    harness.get_by_role(Role::PasswordInput).focus();
    harness.run_steps(1);
    harness.get_by_role(Role::PasswordInput).type_text(passphrase);
    harness.run_steps(1);
    click(harness, "Unlock");
}

fn lock_with_ctrl_l(harness: &mut Harness<'_, Shell>) {
    harness.key_press_modifiers(Modifiers::COMMAND, Key::L);
    wait_until(harness, "the unlock screen", |h| h.state().locked());
}

#[test]
fn encrypted_in_settings_locked_with_ctrl_l_unlocked_with_the_passphrase_and_decrypted() {
    let dir = tempfile::tempdir().unwrap();
    journal(dir.path());
    let journal_file = paths::database_path(dir.path());
    let mut harness = window(dir.path());
    wait_until(&mut harness, "the journal's entry", lists_the_entry);
    // The automatic backup of the plain journal, made as the window opened.
    wait_until(&mut harness, "the first automatic backup", |_| {
        dir.path()
            .join("backups")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    });

    // Settings → Encrypt the journal…, the passphrase twice.
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    harness.run_steps(3);
    click(&mut harness, "Encrypt the journal…");
    type_into(&mut harness, Role::PasswordInput, "New passphrase", PASSPHRASE);
    type_into(&mut harness, Role::PasswordInput, "Type it again", PASSPHRASE);
    click(&mut harness, "Encrypt the journal");
    wait_until(&mut harness, "the journal encrypted", |h| {
        shows(h, "The journal is encrypted now")
    });
    assert!(cipher::is_encrypted(&journal_file));
    assert_eq!(
        on_disk(dir.path(), MARKER.as_bytes()),
        Vec::<String>::new(),
        "nothing of the entry is readable in the data folder, backups included"
    );
    harness.get_by_role_and_label(Role::Button, "Journal").click();
    wait_until(
        &mut harness,
        "the entry, read from the encrypted journal",
        lists_the_entry,
    );

    // Ctrl+L: the unlock screen, nothing of the journal on it.
    lock_with_ctrl_l(&mut harness);
    assert!(!lists_the_entry(&harness) && !shows(&harness, MARKER));

    unlock(&mut harness, "not the passphrase");
    wait_until(&mut harness, "the refusal", |h| {
        shows(h, "the passphrase does not open")
    });
    assert!(h_locked(&harness));

    unlock(&mut harness, PASSPHRASE);
    wait_until(&mut harness, "the journal open again", lists_the_entry);

    // Turned off again: the file is plain, the entry still there.
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    harness.run_steps(3);
    click(&mut harness, "Turn encryption off…");
    click(&mut harness, "Turn encryption off");
    wait_until(&mut harness, "encryption off", |h| shows(h, "Encryption is off"));
    assert!(!cipher::is_encrypted(&journal_file));
    harness.get_by_role_and_label(Role::Button, "Journal").click();
    wait_until(&mut harness, "the entry in the plain journal", lists_the_entry);
}

fn h_locked(harness: &Harness<'_, Shell>) -> bool {
    harness.state().locked()
}

#[test]
fn an_encrypted_journal_opens_on_the_unlock_screen_and_locks_when_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    journal(dir.path());
    let journal_file = paths::database_path(dir.path());
    cipher::encrypt(
        &journal_file,
        &StorageOptions::default(),
        &Passphrase::new(PASSPHRASE).unwrap(),
    )
    .unwrap();
    // Locks after a minute without use.
    let settings = mindsage_core::settings::Settings {
        lock_after_idle_minutes: 1,
        ..Default::default()
    };
    settings.save(dir.path()).unwrap();

    let mut harness = window(dir.path());
    wait_until(&mut harness, "the unlock screen", |h| {
        shows(h, "This journal is encrypted")
    });
    assert!(!lists_the_entry(&harness));
    unlock(&mut harness, PASSPHRASE);
    wait_until(&mut harness, "the journal open", lists_the_entry);

    // Nobody touches it: after the idle time the window locks by itself.
    app_harness::wait_at_most(
        &mut harness,
        "the lock after a minute without use",
        Duration::from_secs(90),
        h_locked,
    );
    assert!(!lists_the_entry(&harness));
}

#[test]
fn a_remembered_passphrase_opens_the_journal_without_asking() {
    let Some(_store) = secret_service::SecretService::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    journal(dir.path());
    let journal_file = paths::database_path(dir.path());
    let passphrase = Passphrase::new(PASSPHRASE).unwrap();
    cipher::encrypt(&journal_file, &StorageOptions::default(), &passphrase).unwrap();
    keystore::remember(&journal_file, &passphrase).unwrap();

    let mut harness = window(dir.path());
    wait_until(
        &mut harness,
        "the journal open without a passphrase typed",
        lists_the_entry,
    );

    // Forgotten from Settings: the next start asks.
    harness.get_by_role_and_label(Role::Button, "Settings").click();
    harness.run_steps(3);
    click(&mut harness, "Forget the remembered passphrase");
    wait_until(&mut harness, "forgotten", |h| shows(h, "no longer remembered"));
    assert!(keystore::remembered(&journal_file).unwrap().is_none());
    drop(harness);
    let mut harness = window(dir.path());
    wait_until(&mut harness, "the unlock screen", |h| {
        shows(h, "This journal is encrypted")
    });
}

#[test]
fn the_first_start_on_a_new_journal_offers_encryption() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_path_buf();
    let journal_file = paths::database_path(&data_dir);
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    let mut harness = Harness::builder()
        .with_size([1200.0, 900.0])
        .build_eframe(move |cc| {
            let mut first = true;
            let starts = Box::new(move || {
                let mut startup =
                    mindsage::app::Startup::on_view(data_dir.clone(), mindsage::views::View::Journal);
                startup.settings.ollama_host = offline.host.clone();
                startup.offer_encryption = std::mem::take(&mut first);
                startup
            });
            Shell::new(
                &cc.egui_ctx,
                journal_file.clone(),
                StorageOptions::default(),
                starts,
            )
        });
    wait_until(&mut harness, "the offer", |h| shows(h, "Encrypt your journal?"));
    type_into(&mut harness, Role::PasswordInput, "New passphrase", PASSPHRASE);
    type_into(&mut harness, Role::PasswordInput, "Type it again", PASSPHRASE);
    click(&mut harness, "Encrypt");
    wait_until(&mut harness, "the new journal encrypted", |h| {
        shows(h, "The journal is encrypted now")
    });
    assert!(cipher::is_encrypted(&paths::database_path(dir.path())));
    assert!(!shows(&harness, "Encrypt your journal?"), "offered once");
}
