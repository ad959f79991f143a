//! "Remember on this computer" against a real Secret Service (GNOME Keyring on a private
//! D-Bus session bus): the passphrase goes into the operating system's store and comes
//! back, per journal file, and never into the data folder.

#[path = "secret_service/mod.rs"]
mod secret_service;

use mindsage_core::db::cipher::Passphrase;
use mindsage_core::keystore;

#[test]
fn a_remembered_passphrase_comes_back_per_journal_and_is_forgotten_on_request() {
    let Some(_service) = secret_service::SecretService::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("a/journal.db"), dir.path().join("b/journal.db"));
    assert!(
        keystore::remembered(&first).unwrap().is_none(),
        "nothing remembered yet"
    );

    keystore::remember(&first, &Passphrase::new("zqxkeptsecret one").unwrap()).unwrap();
    keystore::remember(&second, &Passphrase::new("zqxkeptsecret two").unwrap()).unwrap();
    assert_eq!(
        keystore::remembered(&first).unwrap().unwrap().as_str(),
        "zqxkeptsecret one"
    );
    assert_eq!(
        keystore::remembered(&second).unwrap().unwrap().as_str(),
        "zqxkeptsecret two"
    );

    keystore::remember(&first, &Passphrase::new("zqxkeptsecret changed").unwrap()).unwrap();
    assert_eq!(
        keystore::remembered(&first).unwrap().unwrap().as_str(),
        "zqxkeptsecret changed"
    );

    keystore::forget(&first).unwrap();
    assert!(keystore::remembered(&first).unwrap().is_none());
    keystore::forget(&first).unwrap();
    assert!(
        keystore::remembered(&second).unwrap().is_some(),
        "the other journal's stays"
    );
    assert!(
        walk(dir.path()).is_empty(),
        "nothing was written into the data folders"
    );
}

#[test]
fn without_a_credential_store_the_error_says_what_happens_instead() {
    // A bus address that leads nowhere: the store cannot be reached.
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "unreachable_store_child", "--nocapture", "--ignored"])
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}/no-bus", dir.path().display()),
        )
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains("asked for at each start"), "{printed}");
}

#[test]
#[ignore = "run by without_a_credential_store_the_error_says_what_happens_instead"]
fn unreachable_store_child() {
    let error = keystore::remembered(std::path::Path::new("/tmp/journal.db")).unwrap_err();
    println!("{error}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|e| match e.path().is_dir() {
            true => walk(&e.path()),
            false => vec![e.path()],
        })
        .collect()
}
