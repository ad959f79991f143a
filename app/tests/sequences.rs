//! A person using the journal for hours, in minutes (issue #30): random sequences of
//! what a person does from the command line and the window, each step the real
//! `mindsage` binary or the real window on one data folder, against a small model of
//! the journal (the entries there with their text and dates, which are in the trash,
//! which are gone and why, every backup the person made and what it holds, whether the
//! journal is encrypted and with which passphrase).
//!
//! The steps: `add` (marker words in the body, from `--body` or standard input, in the
//! time zone the person is in), two `add`s at the same moment, `delete` (to the trash),
//! `restore ID` (from it), `purge`, `backup` (into `backups/` or outside the data
//! folder), `restore FILE --yes` (the model goes back to the backup; the journal as it
//! was is kept in `backups/before-restore-….db`, which then holds its words),
//! `encrypt`, `decrypt`, `rekey`, importing a Day One export of dated entries in their
//! own zones and importing it again, `export` and importing the export into a new
//! journal (twice: the second adds nothing), `search`, `show`, `add`/`import`/`backup`
//! killed with SIGKILL at a random moment (what it was writing is then there whole or
//! not at all), and mistakes a person makes (a wrong or missing passphrase, restoring
//! without `--yes` or from a file that is no backup, purging an entry that is not
//! there, encrypting twice, decrypting a plain journal), which must be refused. And the
//! window, in a process of its own (the test binary running `window_session_child`):
//! the real app and its threads on the same data folder, unlocked with the passphrase
//! when the journal is encrypted, a new entry typed key by key with pauses longer than
//! the autosave's wait (sometimes while a `mindsage add` writes too, sometimes locked
//! with Ctrl+L and unlocked), or opened and closed straight away while its day's backup
//! may still be copying; its process must end by itself with no entry's text in its log.
//!
//! After every step: `list` and `list --trash` show exactly the entries the model says,
//! each with its title and text, on the day it was lived (the day in its own stored
//! offset); `backups/` holds only what the person put there, a restore kept or the
//! window made as its day's backup (of the journal as the window found it); a byte
//! scan of every file in the data folder finds the words of an entry that is gone
//! (purged, set aside by a restore, never written by a killed command) only in backups
//! that held it, and, while the journal is encrypted, no entry's words anywhere. Every
//! command ends by itself (no signal but the test's own kills, no panic), fails only
//! where the model expects it, with one clear `error:` line, and never writes an entry's
//! text to standard error.
//!
//! `MINDSAGE_SEQUENCES_SEED` replays one sequence (the steps are the seed's; where a
//! kill lands inside a command still depends on timing); `MINDSAGE_SEQUENCES_CASES`
//! sets how many random sequences run after the fixed one (default 2; `make soak`
//! runs more) and `MINDSAGE_SEQUENCES_STEPS` the steps in each (default 24).

#![cfg(unix)]

mod app_harness;
mod binary;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use app_harness::{LONGEST_PAUSE, pause_for, shows, type_slowly, unlock, wait_at_most, wait_until};
use chrono::{DateTime, NaiveDate, Utc};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use mindsage::app::MindSageApp;
use mindsage::shell::Shell;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::backup;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

/// The seed of the sequence every run tries first.
const FIXED_SEED: u64 = 30;

/// Random sequences after the fixed one, and steps in each, unless the environment says.
const DEFAULT_CASES: usize = 2;
const DEFAULT_STEPS: usize = 24;

/// How long the window's process waits for a journal to open: an encrypted one derives
/// its key first, seconds in a debug build on a busy machine.
const UNLOCK_PATIENCE: Duration = Duration::from_secs(120);

/// The environment variable that hands the window step's plan to its process.
const WINDOW_PLAN: &str = "MINDSAGE_SEQUENCES_WINDOW";

/// What the window's process prints once it starts writing: a second process's cue.
const WINDOW_WRITING: &str = "the window is writing";

/// Where the person is when a command runs: a POSIX `TZ` with a fixed offset (so the
/// test knows the offset without a zone database) and that offset in seconds east of
/// UTC. From 14 hours ahead of UTC to 11 behind, so an entry's day is often not UTC's.
const ZONES: &[(&str, i32)] = &[
    ("UTC0", 0),
    ("JST-9", 9 * 3600),
    ("LINT-14", 14 * 3600),
    ("SST11", -11 * 3600),
    ("IST-5:30", 5 * 3600 + 1800),
    ("NST3:30", -(3 * 3600 + 1800)),
    ("EST5", -5 * 3600),
    ("ACST-9:30", 9 * 3600 + 1800),
];

/// Day One's zones for imported entries: names whose offset has not changed since 2001.
const DAYONE_ZONES: &[(&str, i32)] = &[
    ("Asia/Tokyo", 9 * 3600),
    ("Pacific/Kiritimati", 14 * 3600),
    ("Pacific/Pago_Pago", -11 * 3600),
    ("Asia/Kolkata", 5 * 3600 + 1800),
    ("Asia/Kathmandu", 5 * 3600 + 2700),
    ("America/Phoenix", -7 * 3600),
    ("UTC", 0),
];

const TITLES: &[&str] = &[
    "",
    "",
    "",
    "Morning",
    "A long walk",
    "Dinner with Sam",
    "Rainy Tuesday",
];

/// Words around an entry's marker: accents, another script, an emoji.
const WORDS: &[&str] = &[
    "walked", "by", "the", "river", "café", "au", "lait", "日本", "quiet", "evening", "tired", "but",
    "happy", "wrote", "letters", "sunlight", "🙂", "Zoë",
];

/// When an entry was lived, as the model knows it.
#[derive(Clone, Debug)]
enum Lived {
    /// Written by `add` between two instants, where the offset was this.
    Between {
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        offset: i32,
    },
    /// Imported with its own instant and zone.
    At { at: DateTime<Utc>, offset: i32 },
}

impl Lived {
    fn bounds(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        match self {
            Lived::Between { from, to, .. } => (*from, *to),
            Lived::At { at, .. } => (*at, *at),
        }
    }

    /// Whether an entry listed at the instant `at` whose day (in its own offset) is
    /// `day` is where the model says: at an instant it could have been written, on the
    /// day that instant is where it was lived (when the listing gives its offset).
    fn allows(&self, at: DateTime<Utc>, day: Option<NaiveDate>) -> bool {
        let (from, to) = self.bounds();
        let slack = chrono::Duration::seconds(1);
        let offset = match self {
            Lived::Between { offset, .. } | Lived::At { offset, .. } => *offset,
        };
        let day_of = |t: DateTime<Utc>| (t + chrono::Duration::seconds(offset.into())).date_naive();
        from - slack <= at
            && at <= to + slack
            && day.is_none_or(|day| day == day_of(from) || day == day_of(to))
    }
}

/// An entry as the model knows it (keyed by its marker word, the first of its body).
#[derive(Clone, Debug)]
struct Entry {
    title: String,
    body: String,
    lived: Lived,
    trashed: bool,
    /// From the command's answer or the last listing.
    id: Option<i64>,
}

impl Entry {
    /// An entry just written, not in the trash.
    fn written(title: String, body: String, lived: Lived, id: Option<i64>) -> Entry {
        Entry {
            title,
            body,
            lived,
            trashed: false,
            id,
        }
    }
}

/// A backup file the person made, or a restore kept.
#[derive(Clone, Debug)]
struct Backup {
    /// What the journal held when it was made.
    entries: BTreeMap<String, Entry>,
    /// The passphrase it opens with (an index into `Person::passphrases`), if encrypted.
    key: Option<usize>,
    /// In the data folder's `backups/`, so it follows a change of encryption.
    follows: bool,
}

/// A Day One export the person has, and the entries in it.
struct DayOneFile {
    path: PathBuf,
    entries: BTreeMap<String, Entry>,
}

/// What a killed command was writing, to be found there whole or not at all.
enum InFlight {
    Entries(BTreeMap<String, Entry>),
    Backup(PathBuf, Backup),
}

/// What a person does next.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Add,
    AddTwoAtOnce,
    Trash,
    RestoreFromTrash,
    Purge,
    Backup,
    RestoreBackup,
    Encrypt,
    Decrypt,
    Rekey,
    ImportDayOne,
    ImportDayOneAgain,
    ExportIntoNewJournal,
    Search,
    Show,
    Kill,
    Mistake,
    Window,
}

/// How often each step comes, out of their sum; encryption's steps are rare because
/// every command on an encrypted journal derives its key (seconds in a debug build),
/// and decrypting is likely once encrypted, so encrypted stretches stay short.
const WEIGHTS: &[(Kind, u32)] = &[
    (Kind::Add, 16),
    (Kind::AddTwoAtOnce, 4),
    (Kind::Trash, 8),
    (Kind::RestoreFromTrash, 6),
    (Kind::Purge, 8),
    (Kind::Backup, 8),
    (Kind::RestoreBackup, 5),
    (Kind::Encrypt, 2),
    (Kind::Decrypt, 50),
    (Kind::Rekey, 8),
    (Kind::ImportDayOne, 5),
    (Kind::ImportDayOneAgain, 3),
    (Kind::ExportIntoNewJournal, 4),
    (Kind::Search, 4),
    (Kind::Show, 4),
    (Kind::Kill, 10),
    (Kind::Mistake, 5),
    (Kind::Window, 6),
];

/// A person, their data folder and what the model says of it.
struct Person {
    rng: StdRng,
    root: tempfile::TempDir,
    data: PathBuf,
    /// Where the person keeps files outside the data folder: passphrase files, Day One
    /// exports, MindSage exports, some backups.
    outside: PathBuf,
    /// The journal's entries, live and trashed, by marker.
    entries: BTreeMap<String, Entry>,
    /// The passphrase the journal opens with, if encrypted.
    key: Option<usize>,
    /// Passphrase files, one per passphrase ever chosen.
    passphrases: Vec<PathBuf>,
    backups: BTreeMap<PathBuf, Backup>,
    dayone: Vec<DayOneFile>,
    /// Every marker word ever written, and why each that is not in the journal is gone.
    words: BTreeSet<String>,
    gone: BTreeMap<String, String>,
    in_flight: Option<InFlight>,
    /// How each entry was last listed: its instant and offset, by marker.
    listed: BTreeMap<String, (DateTime<Utc>, Option<i32>)>,
    /// The person's time zone now (an index into `ZONES`).
    zone: usize,
    /// How long a command last took, by verb and whether the journal was encrypted:
    /// kills come within one and a half times that.
    takes: BTreeMap<(&'static str, bool), Duration>,
    /// Names made so far, for unique file names.
    made: usize,
    /// The steps so far, as the failure report prints them.
    log: Vec<String>,
    kills_landed: usize,
    encrypted_steps: usize,
    window_steps: usize,
}

impl Person {
    fn new(seed: u64) -> Person {
        let root = tempfile::tempdir().expect("a temporary folder");
        let data = root.path().join("data");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&outside).expect("a folder outside the data folder");
        Person {
            rng: StdRng::seed_from_u64(seed),
            root,
            data,
            outside,
            entries: BTreeMap::new(),
            key: None,
            passphrases: Vec::new(),
            backups: BTreeMap::new(),
            dayone: Vec::new(),
            words: BTreeSet::new(),
            gone: BTreeMap::new(),
            in_flight: None,
            listed: BTreeMap::new(),
            zone: 0,
            takes: BTreeMap::new(),
            made: 0,
            log: Vec::new(),
            kills_landed: 0,
            encrypted_steps: 0,
            window_steps: 0,
        }
    }

    fn next_name(&mut self) -> usize {
        self.made += 1;
        self.made
    }

    /// A step that can be taken now, drawn by its weight.
    fn next_kind(&mut self) -> Kind {
        loop {
            let total: u32 = WEIGHTS.iter().map(|(_, w)| w).sum();
            let mut roll = self.rng.random_range(0..total);
            let kind = WEIGHTS
                .iter()
                .find(|(_, w)| {
                    let here = roll < *w;
                    roll = roll.saturating_sub(*w);
                    here
                })
                .map(|(kind, _)| *kind)
                .expect("a roll below the total");
            if self.can(kind) {
                return kind;
            }
        }
    }

    fn can(&self, kind: Kind) -> bool {
        let encrypted = self.key.is_some();
        match kind {
            Kind::Trash => self.pick(|e| !e.trashed).is_some(),
            Kind::RestoreFromTrash => self.pick(|e| e.trashed).is_some(),
            Kind::Purge | Kind::Show => self.pick(|_| true).is_some(),
            Kind::RestoreBackup => !self.backups.is_empty(),
            Kind::Encrypt => !encrypted,
            Kind::Decrypt | Kind::Rekey => encrypted,
            Kind::ImportDayOneAgain => !self.dayone.is_empty(),
            Kind::Search => !self.words.is_empty(),
            _ => true,
        }
    }

    /// Whether some entry with a known id is `such`.
    fn pick(&self, such: impl Fn(&Entry) -> bool) -> Option<()> {
        self.entries
            .values()
            .any(|e| e.id.is_some() && such(e))
            .then_some(())
    }

    /// A random entry with a known id that is `such`: its marker and id.
    fn choose(&mut self, such: impl Fn(&Entry) -> bool) -> (String, i64) {
        let fitting: Vec<(&String, i64)> = self
            .entries
            .iter()
            .filter_map(|(m, e)| Some((m, e.id?)).filter(|_| such(e)))
            .collect();
        let (marker, id) = fitting
            .choose(&mut self.rng)
            .expect("a step taken only when it can be");
        (marker.to_string(), *id)
    }

    fn take(&mut self, kind: Kind) -> Result<(), String> {
        if self.rng.random_bool(0.15) {
            self.zone = self.rng.random_range(0..ZONES.len());
        }
        if self.key.is_some() {
            self.encrypted_steps += 1;
        }
        match kind {
            Kind::Add => self.add(None),
            Kind::AddTwoAtOnce => self.add_two_at_once(),
            Kind::Trash => self.trash(),
            Kind::RestoreFromTrash => self.restore_from_trash(),
            Kind::Purge => self.purge(),
            Kind::Backup => self.backup(None),
            Kind::RestoreBackup => self.restore_backup(),
            Kind::Encrypt => self.encrypt(),
            Kind::Decrypt => self.decrypt(),
            Kind::Rekey => self.rekey(),
            Kind::ImportDayOne => self.import_new_dayone(None),
            Kind::ImportDayOneAgain => self.import_dayone_again(),
            Kind::ExportIntoNewJournal => self.export_into_new_journal(),
            Kind::Search => self.search(),
            Kind::Show => self.show(),
            Kind::Kill => self.kill(),
            Kind::Mistake => self.mistake(),
            Kind::Window => self.window(),
        }
    }

    fn say(&mut self, what: String) {
        self.log.push(format!("{what}  [TZ={}]", ZONES[self.zone].0));
    }

    // The person's files.

    /// A new marker word: ten random lowercase letters, unlike any other.
    fn new_marker(&mut self) -> String {
        loop {
            let marker: String = (0..10)
                .map(|_| char::from(b'a' + self.rng.random_range(0..26u8)))
                .collect();
            if self.words.insert(marker.clone()) {
                return marker;
            }
        }
    }

    /// A new entry's text: its marker first, then words of the person's day.
    fn new_text(&mut self) -> (String, String, String) {
        let marker = self.new_marker();
        let title = TITLES.choose(&mut self.rng).expect("titles").to_string();
        let count = self.rng.random_range(2..=10);
        let words: Vec<&str> = (0..count)
            .map(|_| *WORDS.choose(&mut self.rng).expect("words"))
            .collect();
        let body = format!("{marker} {}", words.join(" "));
        (marker, title, body)
    }

    fn passphrase(&self, key: usize) -> &str {
        self.passphrases[key].to_str().expect("a UTF-8 temporary path")
    }

    fn new_passphrase(&mut self) -> usize {
        let key = self.passphrases.len();
        let path = self.outside.join(format!("passphrase-{key}.txt"));
        let words: Vec<&str> = (0..4)
            .map(|_| *WORDS.choose(&mut self.rng).expect("words"))
            .collect();
        std::fs::write(&path, format!("{} {key}\n", words.join(" "))).expect("a passphrase file");
        self.passphrases.push(path);
        key
    }

    // Running the binary.

    /// `mindsage` on the data folder `data` with the passphrase of `key`, in the
    /// person's zone, not started yet.
    fn command(&self, data: &Path, key: Option<usize>, args: &[&str]) -> Command {
        let mut all: Vec<&str> = Vec::new();
        if let Some(key) = key {
            all.extend(["--passphrase-file", self.passphrase(key)]);
        }
        all.extend(args);
        all.push("--json");
        let mut command = binary::command(data, &all);
        command
            .env("TZ", ZONES[self.zone].0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// `mindsage` on the journal as it is now (its passphrase if it has one).
    fn on_journal(&self, args: &[&str]) -> Command {
        self.command(&self.data, self.key, args)
    }

    /// Runs `command` to its end, or kills it `kill` after its start if it is still
    /// running then (`None`: killed). Otherwise it must have succeeded and printed its
    /// JSON answer.
    fn run(
        &mut self,
        verb: &'static str,
        mut command: Command,
        kill: Option<Duration>,
    ) -> Result<Option<Value>, String> {
        let started = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run mindsage {verb}: {e}"))?;
        if let Some(after) = kill {
            while child.try_wait().map_err(|e| e.to_string())?.is_none() {
                if started.elapsed() >= after {
                    let _ = child.kill();
                    let output = child.wait_with_output().map_err(|e| e.to_string())?;
                    if output.status.signal() == Some(9) {
                        self.kills_landed += 1;
                        return Ok(None);
                    }
                    // It had ended by itself, just before.
                    return self.answer(verb, output).map(Some);
                }
                std::thread::sleep(Duration::from_micros(300));
            }
        }
        let output = child.wait_with_output().map_err(|e| e.to_string())?;
        self.takes.insert((verb, self.key.is_some()), started.elapsed());
        self.answer(verb, output).map(Some)
    }

    /// Runs `command` to its end: it must succeed.
    fn succeed(&mut self, verb: &'static str, command: Command) -> Result<Value, String> {
        Ok(self.run(verb, command, None)?.expect("not killed"))
    }

    /// What a command that ran to its end answered: it must have ended by itself,
    /// succeeded, written no entry's text to standard error, and printed JSON.
    fn answer(&self, verb: &str, output: Output) -> Result<Value, String> {
        self.ended_by_itself(verb, output.status, &output.stderr)?;
        if !output.status.success() {
            return Err(format!(
                "`mindsage {verb}` failed where the model expects it to succeed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        serde_json::from_slice(&output.stdout).map_err(|e| {
            format!(
                "`mindsage {verb}` printed no JSON answer ({e}): {}",
                String::from_utf8_lossy(&output.stdout)
            )
        })
    }

    /// A command must end by itself (no signal, no panic) and never write an entry's
    /// text to standard error.
    fn ended_by_itself(&self, verb: &str, status: ExitStatus, stderr: &[u8]) -> Result<(), String> {
        let text = String::from_utf8_lossy(stderr);
        if let Some(signal) = status.signal() {
            return Err(format!(
                "`mindsage {verb}` ended by signal {signal}, which nobody sent: {}",
                text.trim()
            ));
        }
        if status.code() == Some(101) || text.contains("panicked") {
            return Err(format!("`mindsage {verb}` panicked: {}", text.trim()));
        }
        match self.words.iter().find(|w| text.contains(w.as_str())) {
            Some(word) => Err(format!(
                "`mindsage {verb}` wrote an entry's text ({word}) to standard error: {}",
                text.trim()
            )),
            None => Ok(()),
        }
    }

    /// Runs `command`, which must be refused: exit status 1 and, last on standard error,
    /// one `error:` line that says `says`.
    fn refused(&mut self, verb: &'static str, mut command: Command, says: &str) -> Result<(), String> {
        let output = command
            .output()
            .map_err(|e| format!("cannot run mindsage {verb}: {e}"))?;
        self.ended_by_itself(verb, output.status, &output.stderr)?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.trim().lines().last().unwrap_or_default();
        if output.status.code() != Some(1) {
            return Err(format!(
                "`mindsage {verb}` should have been refused ({says:?}) but ended with {}: {}",
                output.status,
                stderr.trim()
            ));
        }
        if !last.starts_with("error: ") || !last.contains(says) || last.len() > 600 {
            return Err(format!(
                "`mindsage {verb}` was refused without a clear message saying {says:?}: {}",
                stderr.trim()
            ));
        }
        Ok(())
    }

    // The steps.

    fn add(&mut self, kill: Option<Duration>) -> Result<(), String> {
        let (marker, title, body) = self.new_text();
        let from_stdin = kill.is_none() && self.rng.random_bool(0.2);
        self.say(match (from_stdin, kill) {
            (true, _) => format!("add {marker} (the body from standard input)"),
            (false, None) => format!("add {marker}"),
            (false, Some(after)) => format!("add {marker}, killed after {} ms", after.as_millis()),
        });
        let offset = ZONES[self.zone].1;
        let from = Utc::now();
        let answer = if from_stdin {
            let mut command = self.on_journal(&["add", "--title", &title]);
            let mut child = command
                .stdin(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot run mindsage add: {e}"))?;
            child
                .stdin
                .take()
                .expect("a piped standard input")
                .write_all(body.as_bytes())
                .map_err(|e| format!("writing the body to mindsage add: {e}"))?;
            let output = child.wait_with_output().map_err(|e| e.to_string())?;
            Some(self.answer("add", output)?)
        } else {
            let command = self.on_journal(&["add", "--title", &title, "--body", &body]);
            self.run("add", command, kill)?
        };
        let lived = Lived::Between {
            from,
            to: Utc::now(),
            offset,
        };
        let mut entry = Entry::written(title, body, lived, None);
        match answer {
            Some(answer) => {
                entry.id = Some(answer["id"].as_i64().ok_or(format!("add answered {answer}"))?);
                self.entries.insert(marker, entry);
            }
            None => self.in_flight = Some(InFlight::Entries(BTreeMap::from([(marker, entry)]))),
        }
        Ok(())
    }

    fn add_two_at_once(&mut self) -> Result<(), String> {
        let texts = [self.new_text(), self.new_text()];
        self.say(format!(
            "add {} and {} at the same moment",
            texts[0].0, texts[1].0
        ));
        let from = Utc::now();
        let children = texts
            .iter()
            .map(|(_, title, body)| {
                self.on_journal(&["add", "--title", title, "--body", body])
                    .spawn()
                    .map_err(|e| format!("cannot run mindsage add: {e}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut ids = BTreeSet::new();
        for ((marker, title, body), child) in texts.into_iter().zip(children) {
            let output = child.wait_with_output().map_err(|e| e.to_string())?;
            let answer = self.answer("add", output)?;
            let id = answer["id"].as_i64().ok_or(format!("add answered {answer}"))?;
            if !ids.insert(id) {
                return Err(format!("two adds at the same moment were both given id {id}"));
            }
            let lived = Lived::Between {
                from,
                to: Utc::now(),
                offset: ZONES[self.zone].1,
            };
            self.entries
                .insert(marker, Entry::written(title, body, lived, Some(id)));
        }
        Ok(())
    }

    fn trash(&mut self) -> Result<(), String> {
        let (marker, id) = self.choose(|e| !e.trashed);
        self.say(format!("delete {marker} (#{id}) to the trash"));
        let answer = self.succeed("delete", self.on_journal(&["delete", &id.to_string()]))?;
        expect(&answer, "trashed", json!(true))?;
        self.entries.get_mut(&marker).expect("chosen").trashed = true;
        Ok(())
    }

    fn restore_from_trash(&mut self) -> Result<(), String> {
        let (marker, id) = self.choose(|e| e.trashed);
        self.say(format!("restore {marker} (#{id}) from the trash"));
        let answer = self.succeed("restore", self.on_journal(&["restore", &id.to_string()]))?;
        expect(&answer, "restored", json!(true))?;
        self.entries.get_mut(&marker).expect("chosen").trashed = false;
        Ok(())
    }

    fn purge(&mut self) -> Result<(), String> {
        let (marker, id) = self.choose(|_| true);
        let step = self.log.len() + 1;
        self.say(format!("purge {marker} (#{id})"));
        let answer = self.succeed("purge", self.on_journal(&["purge", &id.to_string()]))?;
        expect(&answer, "purged", json!(true))?;
        self.entries.remove(&marker);
        self.gone.insert(marker, format!("purged at step {step}"));
        Ok(())
    }

    /// What the journal holds now, as a backup of it would.
    fn snapshot(&self, follows: bool) -> Backup {
        Backup {
            entries: self.entries.clone(),
            key: self.key,
            follows,
        }
    }

    fn live(&self) -> usize {
        self.entries.values().filter(|e| !e.trashed).count()
    }

    /// A backup into the data folder's `backups/` (most of them) or outside it.
    fn backup(&mut self, kill: Option<Duration>) -> Result<(), String> {
        let n = self.next_name();
        // A backup killed midway into backups/ leaves its half-made copy there
        // (`.NAME.partial`) until the journal next opens, which the checks' `list` does.
        let path = match self.rng.random_bool(0.7) {
            true => self.data.join("backups").join(format!("manual-{n}.db")),
            false => self.outside.join(format!("backup-{n}.db")),
        };
        self.backup_to(path, kill)
    }

    fn backup_to(&mut self, path: PathBuf, kill: Option<Duration>) -> Result<(), String> {
        let inside = path.starts_with(&self.data);
        self.say(match kill {
            None => format!("backup {}", self.shown(&path)),
            Some(after) => format!(
                "backup {}, killed after {} ms",
                self.shown(&path),
                after.as_millis()
            ),
        });
        // The person makes the folder first, as for any file they save.
        std::fs::create_dir_all(path.parent().expect("a folder")).map_err(|e| e.to_string())?;
        let command = self.on_journal(&["backup", path.to_str().expect("a UTF-8 path")]);
        let snapshot = self.snapshot(inside);
        match self.run("backup", command, kill)? {
            Some(answer) => {
                expect(&answer, "entries", json!(self.live()))?;
                expect(&answer, "encrypted", json!(self.key.is_some()))?;
                self.backups.insert(path, snapshot);
            }
            None => self.in_flight = Some(InFlight::Backup(path, snapshot)),
        }
        Ok(())
    }

    /// A path as the failure report shows it: inside the person's folders.
    fn shown(&self, path: &Path) -> String {
        path.strip_prefix(self.root.path())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn restore_backup(&mut self) -> Result<(), String> {
        let paths: Vec<PathBuf> = self.backups.keys().cloned().collect();
        let path = paths.choose(&mut self.rng).expect("a backup").clone();
        self.restore_from(&path)
    }

    fn restore_from(&mut self, path: &Path) -> Result<(), String> {
        let path = path.to_path_buf();
        let backup = self.backups[&path].clone();
        let step = self.log.len() + 1;
        self.say(format!(
            "restore {} --yes ({} entries, {})",
            self.shown(&path),
            backup.entries.len(),
            match backup.key {
                Some(key) => format!("encrypted with passphrase {key}"),
                None => "plain".into(),
            }
        ));
        let command = self.command(
            &self.data,
            backup.key,
            &["restore", path.to_str().expect("a UTF-8 path"), "--yes"],
        );
        let answer = self.succeed("restore", command)?;
        expect(
            &answer,
            "entries",
            json!(backup.entries.values().filter(|e| !e.trashed).count()),
        )?;
        expect(&answer, "encrypted", json!(backup.key.is_some()))?;
        let kept = PathBuf::from(
            answer["kept"]
                .as_str()
                .ok_or(format!("restore kept nothing: {answer}"))?,
        );
        let in_backups = kept.parent() == Some(self.data.join("backups").as_path())
            && kept
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("before-restore-"));
        if !in_backups {
            return Err(format!(
                "restore kept the journal as it was in {}, not in backups/",
                kept.display()
            ));
        }
        let before = self.snapshot(true);
        self.backups.insert(kept.clone(), before);
        let set_aside = format!(
            "set aside by the restore at step {step} (kept in {})",
            self.shown(&kept)
        );
        for marker in self.entries.keys().filter(|m| !backup.entries.contains_key(*m)) {
            self.gone.insert(marker.clone(), set_aside.clone());
        }
        for marker in backup.entries.keys() {
            self.gone.remove(marker);
        }
        self.entries = backup.entries;
        // A plain journal an encrypted backup replaced is encrypted now, and the plain
        // backups beside it (the journal as it was among them) with it.
        if self.key.is_none() && backup.key.is_some() {
            self.follow(&answer, None, backup.key)?;
        }
        self.key = backup.key;
        Ok(())
    }

    /// The model's side of a change of encryption: the backups in `backups/` that open
    /// with `from` follow the journal to `to`, the others (another passphrase's) are
    /// left as they are, as the command's `answer` must say. Returns how many there are.
    fn follow(&mut self, answer: &Value, from: Option<usize>, to: Option<usize>) -> Result<usize, String> {
        let (mut there, mut left) = (0, 0);
        for backup in self.backups.values_mut().filter(|b| b.follows) {
            there += 1;
            if backup.key == from {
                backup.key = to;
            } else {
                left += 1;
            }
        }
        let said_left = answer["backups_left"].as_array().map_or(0, Vec::len);
        match said_left == left {
            true => Ok(there),
            false => Err(format!(
                "of {there} backups, {left} should have been left as they were (they open with another passphrase), but the answer says: {}",
                answer["backups_left"]
            )),
        }
    }

    /// A change of encryption's answer against the model's.
    fn converted(&mut self, answer: &Value, from: Option<usize>, to: Option<usize>) -> Result<(), String> {
        expect(answer, "encrypted", json!(to.is_some()))?;
        expect(answer, "entries", json!(self.live()))?;
        let there = self.follow(answer, from, to)?;
        expect(answer, "backups", json!(there))?;
        self.key = to;
        Ok(())
    }

    fn encrypt(&mut self) -> Result<(), String> {
        let key = self.new_passphrase();
        self.say(format!("encrypt with passphrase {key}"));
        let answer = self.succeed("encrypt", self.command(&self.data, Some(key), &["encrypt"]))?;
        self.converted(&answer, None, Some(key))
    }

    fn decrypt(&mut self) -> Result<(), String> {
        self.say("decrypt".into());
        let answer = self.succeed("decrypt", self.on_journal(&["decrypt"]))?;
        self.converted(&answer, self.key, None)
    }

    fn rekey(&mut self) -> Result<(), String> {
        let key = self.new_passphrase();
        self.say(format!("rekey to passphrase {key}"));
        let new = self.passphrase(key).to_owned();
        let answer = self.succeed(
            "rekey",
            self.on_journal(&["rekey", "--new-passphrase-file", &new]),
        )?;
        self.converted(&answer, self.key, Some(key))
    }

    /// A Day One export (one unzipped journal) of one to three entries written at random
    /// instants in their own zones, often near midnight.
    fn new_dayone(&mut self) -> usize {
        let n = self.next_name();
        let mut entries = BTreeMap::new();
        let mut json_entries = Vec::new();
        for _ in 0..self.rng.random_range(1..=3) {
            let (marker, title, body) = self.new_text();
            let (zone, offset) = *DAYONE_ZONES.choose(&mut self.rng).expect("zones");
            let day = NaiveDate::from_ymd_opt(self.rng.random_range(2001..=2025), 1, 1).expect("a day")
                + chrono::Duration::days(self.rng.random_range(0..365));
            let second = match self.rng.random_bool(0.5) {
                true => self.rng.random_range(0..86_400),
                false => (86_400 - i64::from(offset) + self.rng.random_range(-3600..3600)).rem_euclid(86_400),
            };
            let at =
                day.and_hms_opt(0, 0, 0).expect("midnight").and_utc() + chrono::Duration::seconds(second);
            let text = match title.is_empty() {
                true => body.clone(),
                false => format!("# {title}\n\n{body}"),
            };
            json_entries.push(json!({
                "uuid": format!("{:032X}", self.rng.random::<u128>()),
                "creationDate": at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                "timeZone": zone,
                "text": text,
                "tags": ["sequences"],
            }));
            let lived = Lived::At { at, offset };
            entries.insert(marker, Entry::written(title, body, lived, None));
        }
        let path = self.outside.join(format!("Journal {n}.json"));
        let export = json!({"metadata": {"version": "1.0"}, "entries": json_entries});
        std::fs::write(&path, serde_json::to_vec_pretty(&export).expect("JSON")).expect("a Day One export");
        self.dayone.push(DayOneFile { path, entries });
        self.dayone.len() - 1
    }

    /// Imports the Day One export `file`: it must add exactly its entries the journal
    /// does not hold (a first import adds them all).
    fn import_dayone(&mut self, file: usize, kill: Option<Duration>) -> Result<(), String> {
        let missing: BTreeMap<String, Entry> = self.dayone[file]
            .entries
            .iter()
            .filter(|(m, _)| !self.entries.contains_key(*m))
            .map(|(m, e)| (m.clone(), e.clone()))
            .collect();
        let held = self.dayone[file].entries.len() - missing.len();
        let path = self.dayone[file].path.clone();
        let markers: Vec<&str> = self.dayone[file].entries.keys().map(String::as_str).collect();
        self.say(match kill {
            None => format!("import {} ({})", self.shown(&path), markers.join(", ")),
            Some(after) => format!(
                "import {} ({}), killed after {} ms",
                self.shown(&path),
                markers.join(", "),
                after.as_millis()
            ),
        });
        let command = self.on_journal(&["import", path.to_str().expect("a UTF-8 path")]);
        match self.run("import", command, kill)? {
            Some(answer) => {
                expect(&answer, "added", json!(missing.len()))?;
                expect(&answer, "duplicates", json!(held))?;
                expect(&answer, "rejected", json!(0))?;
                for marker in missing.keys() {
                    self.gone.remove(marker);
                }
                self.entries.extend(missing);
            }
            None => self.in_flight = Some(InFlight::Entries(missing)),
        }
        Ok(())
    }

    fn import_new_dayone(&mut self, kill: Option<Duration>) -> Result<(), String> {
        let file = self.new_dayone();
        self.import_dayone(file, kill)
    }

    fn import_dayone_again(&mut self) -> Result<(), String> {
        let file = self.rng.random_range(0..self.dayone.len());
        self.import_dayone(file, None)
    }

    /// `export` to a file outside the data folder, that export imported into a new
    /// journal (which then lists what this one does, on the same days), and imported
    /// again (which adds nothing).
    fn export_into_new_journal(&mut self) -> Result<(), String> {
        let n = self.next_name();
        let export = self.outside.join(format!("export-{n}.json"));
        let fresh = self.outside.join(format!("new-journal-{n}"));
        self.say(format!(
            "export {}, import it into a new journal, twice",
            self.shown(&export)
        ));
        let export_arg = export.to_str().expect("a UTF-8 path");
        let mut args = vec!["export", export_arg];
        if self.key.is_some() {
            args.push("--allow-plain");
        }
        let answer = self.succeed("export", self.on_journal(&args))?;
        let live = self.live();
        expect(&answer, "entries", json!(live))?;
        let answer = self.succeed("import", self.command(&fresh, None, &["import", export_arg]))?;
        expect(&answer, "added", json!(live))?;
        let listed = self.succeed(
            "list",
            self.command(&fresh, None, &["list", "--limit", "1000000"]),
        )?;
        let rows = rows(&listed)?;
        if rows.len() != live {
            return Err(format!(
                "the new journal lists {} entries, the journal exported {live}",
                rows.len()
            ));
        }
        for row in &rows {
            let marker = row.marker();
            let entry = self.entries.get(marker).filter(|e| !e.trashed);
            let same = entry.is_some_and(|e| e.title == row.title && e.body == row.preview);
            if !same || self.listed.get(marker) != Some(&(row.at, row.utc_offset)) {
                return Err(format!(
                    "the new journal lists {row:?}, which the journal does not hold as it listed it ({:?})",
                    self.listed.get(marker)
                ));
            }
        }
        let answer = self.succeed("import", self.command(&fresh, None, &["import", export_arg]))?;
        expect(&answer, "added", json!(0))?;
        expect(&answer, "duplicates", json!(live))?;
        std::fs::remove_dir_all(&fresh).map_err(|e| e.to_string())?;
        Ok(())
    }

    fn search(&mut self) -> Result<(), String> {
        let words: Vec<&String> = self.words.iter().collect();
        let marker = words
            .choose(&mut self.rng)
            .expect("a step after the first add")
            .to_string();
        self.say(format!("search {marker}"));
        let answer = self.succeed("search", self.on_journal(&["search", &marker]))?;
        let hits = answer["hits"]
            .as_array()
            .ok_or(format!("search answered {answer}"))?;
        let ids: Vec<i64> = hits.iter().filter_map(|h| h["id"].as_i64()).collect();
        match self.entries.get(&marker) {
            Some(entry) if !entry.trashed => {
                let id = entry.id.expect("listed");
                if !ids.contains(&id) {
                    return Err(format!("search {marker} did not find #{id}: {answer}"));
                }
            }
            Some(_) => {}
            None => {
                if let Some(hit) = hits.iter().find(|h| h.to_string().contains(&marker)) {
                    return Err(format!(
                        "search found {marker}, which is gone ({}): {hit}",
                        self.why_gone(&marker)
                    ));
                }
            }
        }
        Ok(())
    }

    fn show(&mut self) -> Result<(), String> {
        let (marker, id) = self.choose(|_| true);
        self.say(format!("show {marker} (#{id})"));
        let shown = self.succeed("show", self.on_journal(&["show", &id.to_string()]))?;
        let entry = &self.entries[&marker];
        expect(&shown, "title", json!(entry.title))?;
        expect(&shown, "body", json!(entry.body))?;
        expect(&shown, "is_deleted", json!(entry.trashed))?;
        let row = Row::of(&shown)?;
        if Some(&(row.at, row.utc_offset)) != self.listed.get(&marker) {
            return Err(format!(
                "show dates {marker} {:?}, list {:?}",
                (row.at, row.utc_offset),
                self.listed.get(&marker)
            ));
        }
        Ok(())
    }

    /// `add`, `import` or `backup`, killed with SIGKILL at a random moment of the time
    /// such a command took last.
    fn kill(&mut self) -> Result<(), String> {
        let verb = *["add", "import", "backup"].choose(&mut self.rng).expect("verbs");
        let typical = match self.takes.get(&(verb, self.key.is_some())) {
            Some(took) => *took,
            None if self.key.is_some() => Duration::from_secs(3),
            None => Duration::from_millis(150),
        };
        let after = typical.mul_f64(self.rng.random_range(0.0..1.5));
        match verb {
            "add" => self.add(Some(after)),
            "import" => self.import_new_dayone(Some(after)),
            _ => self.backup(Some(after)),
        }
    }

    /// A mistake a person makes, which must be refused with a clear message and change
    /// nothing.
    fn mistake(&mut self) -> Result<(), String> {
        let encrypted = self.key.is_some();
        let mut mistakes = vec!["purge one not there", "restore a file that is no backup"];
        if encrypted {
            mistakes.extend(["a wrong passphrase", "no passphrase", "encrypt again"]);
        } else {
            mistakes.push("decrypt a plain journal");
        }
        if !self.backups.is_empty() {
            mistakes.push("restore without --yes");
        }
        let mistake = *mistakes.choose(&mut self.rng).expect("mistakes");
        self.say(format!("a mistake: {mistake}"));
        match mistake {
            "purge one not there" => {
                let id = self.entries.values().filter_map(|e| e.id).max().unwrap_or(0) + 1000;
                self.refused(
                    "purge",
                    self.on_journal(&["purge", &id.to_string()]),
                    "does not exist",
                )
            }
            "restore a file that is no backup" => {
                let notes = self.outside.join("notes.txt");
                std::fs::write(&notes, "Things to remember: milk, the plumber, Sunday.\n")
                    .map_err(|e| e.to_string())?;
                let command = self.on_journal(&["restore", notes.to_str().expect("a UTF-8 path"), "--yes"]);
                self.refused("restore", command, "notes.txt")
            }
            "a wrong passphrase" => {
                let wrong = self.outside.join("wrong-passphrase.txt");
                std::fs::write(&wrong, "not the passphrase\n").map_err(|e| e.to_string())?;
                let wrong = wrong.to_str().expect("a UTF-8 path").to_owned();
                self.refused(
                    "list",
                    self.command(&self.data, None, &["--passphrase-file", &wrong, "list"]),
                    "passphrase",
                )
            }
            "no passphrase" => self.refused(
                "list",
                self.command(&self.data, None, &["list"]),
                "--passphrase-file",
            ),
            "encrypt again" => {
                let key = self.new_passphrase();
                self.refused(
                    "encrypt",
                    self.command(&self.data, Some(key), &["encrypt"]),
                    "already encrypted",
                )
            }
            "decrypt a plain journal" => {
                // A data folder no step has written to yet has no journal to decrypt.
                let says = match mindsage_core::paths::database_path(&self.data).exists() {
                    true => "not encrypted",
                    false => "there is no journal",
                };
                self.refused("decrypt", self.on_journal(&["decrypt"]), says)
            }
            "restore without --yes" => {
                let paths: Vec<PathBuf> = self.backups.keys().cloned().collect();
                let path = paths.choose(&mut self.rng).expect("a backup").clone();
                let key = self.backups[&path].key;
                let command = self.command(
                    &self.data,
                    key,
                    &["restore", path.to_str().expect("a UTF-8 path")],
                );
                self.refused("restore", command, "--yes")
            }
            other => unreachable!("no mistake {other}"),
        }
    }

    // The checks after every step.

    /// The window, in a process of its own as a person starts it: unlocked with the
    /// passphrase when the journal is encrypted; most times a new entry typed key by key
    /// with pauses longer than the autosave's wait, sometimes with a second process
    /// adding an entry meanwhile, sometimes locked with Ctrl+L and unlocked again; then
    /// closed. Otherwise opened and closed straight away, while the day's automatic
    /// backup may still be copying. The process must end by itself, its log hold no
    /// entry's text, and the day's backup, if it made one, hold the journal as the
    /// window found it.
    fn window(&mut self) -> Result<(), String> {
        let writes = self.rng.random_bool(0.8);
        let lock = writes && self.key.is_some() && self.rng.random_bool(0.6);
        let second_writer = writes && self.rng.random_bool(0.4);
        self.window_session(writes, lock, second_writer)
    }

    /// [`Person::window`] as chosen: whether the person writes an entry, locks and
    /// unlocks after it, and runs `mindsage add` while the window writes.
    fn window_session(&mut self, writes: bool, lock: bool, second_writer: bool) -> Result<(), String> {
        self.window_steps += 1;
        let text = writes.then(|| self.new_text());
        self.say(match &text {
            Some((marker, ..)) => format!(
                "open the window, write {marker}{}{}, close it",
                if second_writer {
                    " while `add` writes too"
                } else {
                    ""
                },
                if lock { ", lock and unlock" } else { "" }
            ),
            None => "open the window and close it straight away".into(),
        });
        let found = self.snapshot(true);
        let automatic = |data: &Path| -> BTreeSet<PathBuf> {
            backup::list(data)
                .into_iter()
                .filter(|b| b.automatic)
                .map(|b| b.path)
                .collect()
        };
        let automatic_before = automatic(&self.data);
        let passphrase = self.key.map(|key| {
            std::fs::read_to_string(&self.passphrases[key])
                .expect("the passphrase file")
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned()
        });
        let plan = json!({
            "data": self.data,
            "passphrase": passphrase,
            "title": text.as_ref().map(|t| &t.1),
            "body": text.as_ref().map(|t| &t.2),
            "lock": lock,
            "seed": self.rng.random::<u64>(),
        });
        let (stdout, stderr) = (
            self.root.path().join("window.out"),
            self.root.path().join("window.err"),
        );
        let file = |path: &Path| std::fs::File::create(path).map_err(|e| e.to_string());
        let offset = ZONES[self.zone].1;
        let from = Utc::now();
        let mut child = Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
            .args(["--exact", "window_session_child", "--nocapture", "--ignored"])
            .env(WINDOW_PLAN, plan.to_string())
            .env("TZ", ZONES[self.zone].0)
            .stdout(file(&stdout)?)
            .stderr(file(&stderr)?)
            .spawn()
            .map_err(|e| format!("cannot start the window: {e}"))?;
        if second_writer {
            // Once the window is writing, a `mindsage add` from a terminal.
            while !std::fs::read_to_string(&stdout).is_ok_and(|out| out.contains(WINDOW_WRITING))
                && child.try_wait().map_err(|e| e.to_string())?.is_none()
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            self.add(None)?;
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        let to = Utc::now();
        let (out, err) = (
            std::fs::read_to_string(&stdout).unwrap_or_default(),
            std::fs::read(&stderr).unwrap_or_default(),
        );
        if !status.success() || !out.contains("1 passed") {
            return Err(format!(
                "the window did not do what the person did ({status}):\n{out}\n{}",
                String::from_utf8_lossy(&err)
            ));
        }
        self.ended_by_itself("(the window)", status, &err)?;
        if let Some((marker, title, body)) = text {
            let lived = Lived::Between { from, to, offset };
            self.entries
                .insert(marker, Entry::written(title, body, lived, None));
        }
        for made in automatic(&self.data).difference(&automatic_before) {
            self.backups.insert(made.clone(), found.clone());
        }
        Ok(())
    }

    fn check(&mut self) -> Result<(), String> {
        let live = rows(&self.succeed("list", self.on_journal(&["list", "--limit", "1000000"]))?)?;
        // The trash of an encrypted journal is listed only when something should be in
        // it (each listing derives the key again): an entry that wrongly stayed there
        // is still found, by the next listing of it.
        let trash = match self.key.is_none() || self.entries.values().any(|e| e.trashed) {
            true => rows(&self.succeed(
                "list",
                self.on_journal(&["list", "--trash", "--limit", "1000000"]),
            )?)?,
            false => Vec::new(),
        };
        self.settle(&live, &trash)?;
        self.listed.clear();
        self.compare(&live, false)?;
        self.compare(&trash, true)?;
        self.backups_folder()?;
        self.scan()
    }

    /// What a killed command was writing is there whole, or not at all.
    fn settle(&mut self, live: &[Row], trash: &[Row]) -> Result<(), String> {
        let listed: BTreeSet<&str> = live.iter().chain(trash).map(Row::marker).collect();
        match self.in_flight.take() {
            Some(InFlight::Entries(entries)) => {
                let there = entries.keys().filter(|m| listed.contains(m.as_str())).count();
                if there == entries.len() {
                    self.entries.extend(entries);
                } else if there == 0 {
                    for marker in entries.into_keys() {
                        self.gone
                            .insert(marker, "its command was killed before it wrote it".into());
                    }
                } else {
                    return Err(format!(
                        "a killed command left {there} of the {} entries it was writing in one transaction",
                        entries.len()
                    ));
                }
            }
            Some(InFlight::Backup(path, backup)) if path.exists() => {
                self.backups.insert(path, backup);
            }
            // No write in flight, or a backup killed before it took its name.
            _ => {}
        }
        Ok(())
    }

    /// `rows` (the live list, or the trash) hold exactly the model's entries there, each
    /// with its title and text, at an instant it was written and on the day it was lived.
    fn compare(&mut self, rows: &[Row], trashed: bool) -> Result<(), String> {
        let list = if trashed { "the trash" } else { "the list" };
        let mut seen = BTreeSet::new();
        for row in rows {
            let marker = row.marker().to_owned();
            let Some(entry) = self.entries.get_mut(&marker) else {
                return Err(format!(
                    "{list} shows {row:?}, which the person does not have ({})",
                    match self.gone.get(&marker) {
                        Some(why) => format!("gone: {why}"),
                        None => "never written".into(),
                    }
                ));
            };
            if !seen.insert(marker.clone()) {
                return Err(format!("{list} shows {marker} twice"));
            }
            if entry.trashed != trashed {
                return Err(format!("{list} shows {marker}, which is not there"));
            }
            if (row.title.as_str(), row.preview.as_str()) != (entry.title.as_str(), entry.body.as_str()) {
                return Err(format!(
                    "{list} shows {row:?}, written as title {:?}, body {:?}",
                    entry.title, entry.body
                ));
            }
            if !entry.lived.allows(row.at, row.day()) {
                return Err(format!(
                    "{list} dates {marker} {} at offset {:?} (day {:?}); it was lived {:?}",
                    row.at,
                    row.utc_offset,
                    row.day(),
                    entry.lived
                ));
            }
            entry.id = Some(row.id);
            self.listed.insert(marker, (row.at, row.utc_offset));
        }
        let lost: Vec<&String> = self
            .entries
            .iter()
            .filter(|(m, e)| e.trashed == trashed && !seen.contains(*m))
            .map(|(m, _)| m)
            .collect();
        match lost.is_empty() {
            true => Ok(()),
            false => Err(format!("{list} has lost {lost:?}")),
        }
    }

    /// `backups/` holds the backups the person made there and those restores kept, each
    /// still there, and nothing else (no half-made copy left by a kill).
    fn backups_folder(&self) -> Result<(), String> {
        for (path, _) in self.backups.iter() {
            if !path.exists() {
                return Err(format!("the backup {} is gone", path.display()));
            }
        }
        let Ok(folder) = std::fs::read_dir(self.data.join("backups")) else {
            return Ok(());
        };
        for file in folder.flatten() {
            let path = file.path();
            // The lock every copy into backups/ holds while it is made; it holds no text.
            if self.backup_of(&path).is_none() && file.file_name() != backup::COPYING_LOCK {
                return Err(format!(
                    "backups/ holds {}, which no backup or restore the person made left there",
                    file.file_name().to_string_lossy()
                ));
            }
        }
        Ok(())
    }

    /// The backup `file` is, or is a companion of (`-wal`, `-shm`, `-journal`).
    fn backup_of(&self, file: &Path) -> Option<&Backup> {
        let name = file.to_str()?;
        let main = ["-wal", "-shm", "-journal"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name);
        self.backups.get(Path::new(main))
    }

    fn why_gone(&self, marker: &str) -> String {
        self.gone
            .get(marker)
            .cloned()
            .unwrap_or_else(|| "never written".into())
    }

    /// A byte scan of every file in the data folder for every marker word ever written.
    fn scan(&self) -> Result<(), String> {
        let finders: Vec<(&String, memchr::memmem::Finder<'_>)> = self
            .words
            .iter()
            .map(|w| (w, memchr::memmem::Finder::new(w.as_bytes())))
            .collect();
        for file in files_under(&self.data) {
            // A file a command erased between the listing and the read holds nothing.
            let Ok(bytes) = std::fs::read(&file) else { continue };
            let backup = self.backup_of(&file);
            for (word, finder) in &finders {
                if finder.find(&bytes).is_none() {
                    continue;
                }
                let why = if backup.is_some_and(|b| b.key.is_some()) {
                    "it is a backup of an encrypted journal, yet holds it in plain text".to_owned()
                } else if let Some(key) = self.key {
                    format!(
                        "the journal is encrypted (passphrase {key}), yet this file holds it in plain text"
                    )
                } else if self.entries.contains_key(*word)
                    || backup.is_some_and(|b| b.entries.contains_key(*word))
                {
                    continue;
                } else {
                    format!(
                        "the entry is gone ({}) and this is no backup made while it was there",
                        self.why_gone(word)
                    )
                };
                return Err(format!("{word} is readable in {}: {why}", self.shown(&file)));
            }
        }
        Ok(())
    }
}

impl Person {
    /// The report of a failure: what went wrong, the steps so far and how to replay
    /// them, with the data folder kept to look at.
    fn failed(self, what: &str, failure: &str, replay: &str) -> String {
        let steps: Vec<String> = self
            .log
            .iter()
            .enumerate()
            .map(|(n, step)| format!("  {:>3}. {step}", n + 1))
            .collect();
        let step = self.log.len();
        let kept = self.root.keep();
        format!(
            "{what} failed at step {step}: {failure}\n\nThe steps:\n{}\n\nThe data folder is kept in {}.\nReplay: {replay}",
            steps.join("\n"),
            kept.display()
        )
    }

    /// Takes `step`, then checks everything.
    fn then(&mut self, step: impl FnOnce(&mut Person) -> Result<(), String>) -> Result<(), String> {
        step(self)?;
        self.check()
    }
}

/// One row of `list --json` (or `show --json`).
#[derive(Debug)]
struct Row {
    id: i64,
    title: String,
    /// The body on one line: the whole body, for the short ones this test writes.
    preview: String,
    at: DateTime<Utc>,
    /// Seconds east of UTC where it was written; `None` from a `mindsage` that listed
    /// no offset, before entries kept their zone (issue #30): then only the instant is
    /// checked.
    utc_offset: Option<i32>,
}

impl Row {
    fn of(value: &Value) -> Result<Row, String> {
        let field = |name: &str| value.get(name).ok_or(format!("no {name} in {value}"));
        let created_at = field("created_at")?.as_str().ok_or("created_at is not text")?;
        Ok(Row {
            id: field("id")?.as_i64().ok_or("id is not a number")?,
            title: field("title")?.as_str().unwrap_or_default().to_owned(),
            preview: value
                .get("preview")
                .or_else(|| value.get("body"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            at: DateTime::parse_from_rfc3339(created_at)
                .map_err(|e| format!("created_at {created_at:?}: {e}"))?
                .to_utc(),
            utc_offset: value
                .get("utc_offset")
                .map(|o| {
                    o.as_i64()
                        .and_then(|o| i32::try_from(o).ok())
                        .ok_or("utc_offset is not a number")
                })
                .transpose()?,
        })
    }

    /// The marker word the body starts with.
    fn marker(&self) -> &str {
        self.preview.split(' ').next().unwrap_or_default()
    }

    /// The day it was lived: its instant in its own offset.
    fn day(&self) -> Option<NaiveDate> {
        let offset = self.utc_offset?;
        Some((self.at + chrono::Duration::seconds(offset.into())).date_naive())
    }
}

fn rows(answer: &Value) -> Result<Vec<Row>, String> {
    answer
        .as_array()
        .ok_or(format!("list answered {answer}"))?
        .iter()
        .map(Row::of)
        .collect()
}

/// `answer[field]` is `value`.
fn expect(answer: &Value, field: &str, value: Value) -> Result<(), String> {
    match answer.get(field) == Some(&value) {
        true => Ok(()),
        false => Err(format!("expected {field} {value} in the answer {answer}")),
    }
}

/// Every file under `dir`, in every folder.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => folders.push(entry.path()),
                Ok(t) if t.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files
}

fn from_env(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The seeds this run tries: the fixed one and random ones, or the one asked for.
fn seeds() -> Vec<u64> {
    if let Some(seed) = from_env("MINDSAGE_SEQUENCES_SEED") {
        return vec![seed];
    }
    let cases = from_env("MINDSAGE_SEQUENCES_CASES").map_or(DEFAULT_CASES, |n| n as usize);
    std::iter::once(FIXED_SEED)
        .chain((0..cases).map(|_| rand::random()))
        .collect()
}

/// One person's sequence of `steps`; on a failure, what went wrong, the steps so far
/// and how to replay them, with the data folder kept to look at.
fn one_sequence(seed: u64, steps: usize) -> Result<String, String> {
    let started = Instant::now();
    let mut person = Person::new(seed);
    for _ in 0..steps {
        let kind = person.next_kind();
        if let Err(failure) = person.take(kind).and_then(|()| person.check()) {
            return Err(person.failed(
                &format!("sequence seed {seed}"),
                &failure,
                &format!("MINDSAGE_SEQUENCES_SEED={seed} MINDSAGE_SEQUENCES_STEPS={steps} cargo test --workspace --locked --test sequences (a kill may land elsewhere)"),
            ));
        }
    }
    Ok(format!(
        "sequence seed {seed}: {steps} steps ({} in the window, {} with the journal encrypted, {} kills landed, {} entries at the end, {} backups) in {:.1} s",
        person.window_steps,
        person.encrypted_steps,
        person.kills_landed,
        person.entries.len(),
        person.backups.len(),
        started.elapsed().as_secs_f64()
    ))
}

#[test]
fn what_a_person_does_in_sequence_loses_nothing_leaks_nothing_and_dates_every_entry_right() {
    let steps = from_env("MINDSAGE_SEQUENCES_STEPS").map_or(DEFAULT_STEPS, |n| n as usize);
    for seed in seeds() {
        eprintln!("sequence seed {seed} (MINDSAGE_SEQUENCES_SEED={seed} replays it)");
        match one_sequence(seed, steps) {
            Ok(summary) => eprintln!("{summary}"),
            Err(failure) => panic!("{failure}"),
        }
    }
}

/// The window in sequence with the command line, each of its ways at least once
/// whatever the random sequences draw: on an encrypted journal, an entry typed with
/// pauses while `mindsage add` writes from a terminal, then locked and unlocked; opened
/// and closed straight away; and after `decrypt`, an entry typed on the plain journal.
#[test]
fn the_window_writes_between_commands_on_an_encrypted_journal_and_a_plain_one() {
    let mut person = Person::new(FIXED_SEED);
    let steps = person
        .then(|p| p.add(None))
        .and_then(|()| person.then(Person::encrypt))
        .and_then(|()| person.then(|p| p.window_session(true, true, true)))
        .and_then(|()| person.then(|p| p.window_session(false, false, false)))
        .and_then(|()| person.then(Person::decrypt))
        .and_then(|()| person.then(|p| p.window_session(true, false, false)));
    if let Err(failure) = steps {
        panic!(
            "{}",
            person.failed(
                "the window between commands",
                &failure,
                "cargo test --workspace --locked --test sequences the_window_writes"
            )
        );
    }
    assert_eq!(
        person.live(),
        4,
        "the first add, the window's two and the terminal's"
    );
}

/// A sequence the random ones found: a backup made while the journal was encrypted,
/// kept outside the data folder, restored over the journal after it was decrypted. The
/// journal is encrypted again (with the backup's passphrase), so the plain backups
/// beside it, the journal as it was among them, must not stay plain.
#[test]
fn restoring_an_encrypted_backup_over_a_plain_journal_leaves_no_plain_copy_beside_it() {
    let mut person = Person::new(FIXED_SEED);
    let kept_safe = person.outside.join("kept-safe.db");
    let manual = person.data.join("backups").join("manual.db");
    let steps = person
        .then(|p| p.add(None))
        .and_then(|()| person.then(Person::encrypt))
        .and_then(|()| person.then(|p| p.backup_to(kept_safe.clone(), None)))
        .and_then(|()| person.then(Person::decrypt))
        .and_then(|()| person.then(|p| p.add(None)))
        .and_then(|()| person.then(|p| p.backup_to(manual, None)))
        .and_then(|()| person.then(|p| p.restore_from(&kept_safe)));
    if let Err(failure) = steps {
        panic!(
            "{}",
            person.failed(
                "the encrypted backup's restore",
                &failure,
                "cargo test --workspace --locked --test sequences restoring_an_encrypted_backup"
            )
        );
    }
}

/// The window step's process ([`Person::window`]): the real window and its threads on
/// the data folder, driven as the plan says, then closed and its threads ended as the
/// app's own process ends them.
#[test]
#[ignore = "the sequences' window step runs it in a process of its own"]
fn window_session_child() {
    let Ok(plan) = std::env::var(WINDOW_PLAN) else {
        return;
    };
    let plan: Value = serde_json::from_str(&plan).expect("the plan");
    let data = PathBuf::from(plan["data"].as_str().expect("a data folder"));
    let mut rng = StdRng::seed_from_u64(plan["seed"].as_u64().expect("a seed"));
    let offline = AiSettings {
        host: "http://127.0.0.1:9".into(),
        ..AiSettings::default()
    };
    let mut harness = app_harness::shell_from(data.clone(), offline, 900.0);
    let passphrase = plan["passphrase"].as_str();
    let journal_open =
        |h: &Harness<'_, Shell>| h.query_by_role_and_label(Role::Button, "New entry").is_some();
    let open = |harness: &mut Harness<'_, Shell>| {
        if let Some(passphrase) = passphrase {
            unlock(harness, passphrase);
        }
        wait_at_most(harness, "the journal", UNLOCK_PATIENCE, journal_open);
    };
    open(&mut harness);
    if let Some(body) = plan["body"].as_str() {
        // The day's automatic backup first (one is made as the journal opens, when due),
        // so that it holds the journal as the window found it.
        wait_until(&mut harness, "the day's automatic backup", |_| {
            backup::list(&data).iter().any(|b| b.automatic)
        });
        println!("{WINDOW_WRITING}");
        harness.get_by_role_and_label(Role::Button, "New entry").click();
        harness.run_steps(2);
        type_slowly(&mut harness, &mut rng, Role::MultilineTextInput, "Entry", body);
        let title = plan["title"].as_str().unwrap_or_default();
        if !title.is_empty() {
            type_slowly(&mut harness, &mut rng, Role::TextInput, "Title", title);
        }
        pause_for(&mut harness, LONGEST_PAUSE);
        wait_until(&mut harness, "the entry saved", |h| shows(h, "Saved"));
        if plan["lock"].as_bool() == Some(true) {
            harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::L);
            wait_until(&mut harness, "the unlock screen", |h| h.state().locked());
            open(&mut harness);
        }
    }
    app_harness::request_close(&mut harness);
    wait_until(&mut harness, "the window closed", |h| {
        h.state().app().is_none_or(MindSageApp::closed)
    });
    drop(harness);
    mindsage::threads::finish(Duration::from_secs(10));
}
