//! Crash safety (issue #17): a child process writes the journal through the app's own
//! storage code — saves, edits and purges through the writer thread, the job runner's
//! write-back of a model's result, checkpoints, `import::run` and the automatic backup —
//! and prints each acknowledgement; the test kills it with SIGKILL at random moments,
//! at least 100 times (`MINDSAGE_CRASH_KILLS`, 1,000 in `make soak`). After each kill
//! the journal must open, pass SQLite's and FTS5's integrity checks, hold every
//! acknowledged operation whole and nothing half-written, list only whole backups, and
//! a copy of it as a power cut would have left it must hold no less than
//! `synchronous = NORMAL` allows (`crash_harness::power_cut` states the rule).
//!
//! A second run does the same on an encrypted journal (issue #18), with a fifth of the
//! kills: the child's connections, the checks and the power-cut copy's all keyed.
//!
//! The child is this test binary run again with `MINDSAGE_CRASH_CHILD` naming its data
//! folder. Half of the kills come at a random moment after the child starts (its start
//! and WAL recovery included), half at a random moment after the child begins an
//! operation of a chosen kind, so each kind is interrupted.

#![cfg(unix)]

mod crash_harness;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crash_harness::inspect::{self, EMBED_MODEL, Journal};
use crash_harness::model::{self, Ack, History, Line, Op};
use crash_harness::{Lines, Summary, power_cut};
use mindsage_core::ai::client::CallStats;
use mindsage_core::ai::enrich::{self, Enriched, Enrichment};
use mindsage_core::db::cipher::{JournalKey, Passphrase};
use mindsage_core::db::entries::{self, EntryEdit, NewEntry};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions, backup};
use mindsage_core::import::{self, Options, WritePath};
use mindsage_core::paths;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rusqlite::Connection;

/// This test's name: the child runs it alone.
const TEST: &str = "acknowledged_writes_survive_kills_and_power_cuts";
/// The encrypted journal's test.
const TEST_ENCRYPTED: &str = "acknowledged_writes_survive_kills_and_power_cuts_on_an_encrypted_journal";

/// Set in the child: its data folder.
const CHILD: &str = "MINDSAGE_CRASH_CHILD";
/// The seed of the child's choice of operations, drawn from the run's seed.
const CHILD_SEED: &str = "MINDSAGE_CRASH_CHILD_SEED";
/// The child's number, which makes its markers unique.
const CHILD_RUN: &str = "MINDSAGE_CRASH_CHILD_RUN";
/// An import the previous child began and did not finish, to run again first.
const CHILD_RESUME: &str = "MINDSAGE_CRASH_RESUME";
/// Set in the child of the encrypted run: the journal's key in its raw form, so that
/// each child starts at once instead of deriving it from the passphrase.
const CHILD_KEY: &str = "MINDSAGE_CRASH_CHILD_KEY";

#[test]
fn acknowledged_writes_survive_kills_and_power_cuts() {
    if let Some(dir) = std::env::var_os(CHILD) {
        child(PathBuf::from(dir));
    }
    let run = Run {
        test: TEST,
        summary: "crash",
        key: None,
        kills: crash_harness::kills(),
    };
    run.kill_and_check();
}

/// The same on an encrypted journal: the child keys every connection, the backups it
/// makes are encrypted, and every check (the journal's, the backups', the power-cut
/// copy's) opens them with the key.
#[test]
fn acknowledged_writes_survive_kills_and_power_cuts_on_an_encrypted_journal() {
    if let Some(dir) = std::env::var_os(CHILD) {
        child(PathBuf::from(dir));
    }
    let passphrase = Passphrase::new("a lighthouse at the end of the pier").expect("a passphrase");
    let run = Run {
        test: TEST_ENCRYPTED,
        summary: "crash_encrypted",
        key: Some(JournalKey::for_new_file(&passphrase)),
        kills: (crash_harness::kills() / 5).max(1),
    };
    run.kill_and_check();
}

/// One of the two runs.
struct Run {
    /// The test's name, which its children run.
    test: &'static str,
    /// The summary's name in `MINDSAGE_RELIABILITY_DIR`.
    summary: &'static str,
    /// The key of every journal of the run; `None`: plain journals.
    key: Option<JournalKey>,
    kills: usize,
}

impl Run {
    fn kill_and_check(&self) {
        let seed = crash_harness::seed(self.test);
        let mut summary = Summary::new(self.summary, seed);
        let started = Instant::now();
        let result = kill_repeatedly(self, &mut StdRng::seed_from_u64(seed), &mut summary);
        summary.finish(started, result);
    }

    /// The storage options of every connection to the run's journals.
    fn options(&self) -> StorageOptions {
        StorageOptions {
            key: self.key.clone(),
            ..StorageOptions::default()
        }
    }
}

// ---------------------------------------------------------------------------------
// The parent: kills and checks.

/// Kills spread over one journal before a fresh one: the journal stays small enough to
/// check in milliseconds, and each fresh one is killed while it is first created.
const KILLS_PER_JOURNAL: usize = 20;

/// A journal being killed over, and what the last check found in it.
struct Scratch {
    dir: tempfile::TempDir,
    found: Journal,
    resume: Option<Op>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("a temporary folder"),
            found: Journal::default(),
            resume: None,
        }
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn journal(&self) -> PathBuf {
        self.data_dir().join(paths::DATABASE_FILE)
    }
}

fn kill_repeatedly(run: &Run, rng: &mut StdRng, summary: &mut Summary) -> Result<(), String> {
    let mut scratch = Scratch::new();
    for kill in 0..run.kills {
        if kill % KILLS_PER_JOURNAL == 0 {
            if kill > 0 {
                summary.partial_backups_left += crash_harness::partial_backups(&scratch.data_dir());
                scratch = Scratch::new();
            }
            summary.journals += 1;
        }
        one_kill(run, kill, rng, &mut scratch, summary).map_err(|e| format!("kill {kill}: {e}"))?;
        summary.kills += 1;
    }
    summary.partial_backups_left += crash_harness::partial_backups(&scratch.data_dir());
    Ok(())
}

/// When to kill the child.
enum Plan {
    /// This long after it was started.
    After(Duration),
    /// This long after it begins an operation of this scenario.
    During(&'static str, Duration),
}

/// The scenarios a kill is aimed at, each with the range of pauses after it begins
/// that lands the kill inside it: about the time it takes in a debug build (a save
/// 0.3 ms, a purge with its checkpoint 2 ms, an import 15 ms, a backup 25 ms), and for
/// idle around the writer's own checkpoint (after 200 ms without work).
const TARGETS: [(&str, Duration, Duration); 9] = [
    ("save", Duration::ZERO, Duration::from_millis(1)),
    ("edit", Duration::ZERO, Duration::from_millis(2)),
    ("purge", Duration::ZERO, Duration::from_millis(3)),
    ("model write-back", Duration::ZERO, Duration::from_millis(2)),
    ("checkpoint (truncate)", Duration::ZERO, Duration::from_millis(2)),
    ("checkpoint (passive)", Duration::ZERO, Duration::from_millis(2)),
    ("backup", Duration::ZERO, Duration::from_millis(30)),
    ("import", Duration::ZERO, Duration::from_millis(20)),
    (
        "idle (writer's own checkpoint)",
        Duration::from_millis(190),
        Duration::from_millis(230),
    ),
];

/// While the child starts: the test binary, opening (on a fresh journal, creating and
/// migrating) the journal, the writer thread.
const STARTING: Duration = Duration::from_millis(12);

/// The latest a kill comes after the child starts.
const LATEST_KILL: Duration = Duration::from_millis(400);

/// How long to wait for an aimed-at scenario before killing anyway.
const AIM_TIMEOUT: Duration = Duration::from_secs(3);

impl Plan {
    /// A fifth of the kills while the child starts, three tenths at any moment, half
    /// aimed at a scenario.
    fn pick(rng: &mut StdRng) -> Plan {
        match rng.random_range(0..10) {
            0..2 => Plan::After(crash_harness::pause(rng, STARTING)),
            2..5 => Plan::After(crash_harness::pause(rng, LATEST_KILL)),
            _ => {
                let (scenario, earliest, latest) = *TARGETS.choose(rng).expect("targets");
                Plan::During(scenario, earliest + crash_harness::pause(rng, latest - earliest))
            }
        }
    }
}

fn one_kill(
    run: &Run,
    kill: usize,
    rng: &mut StdRng,
    scratch: &mut Scratch,
    summary: &mut Summary,
) -> Result<(), String> {
    let history = run_until_killed(run, kill, rng, scratch)?;
    summary.count_interrupted(&history);
    let found = check_after_kill(run, scratch, &history, summary)?;
    let finished_resumed = scratch.resume.is_some()
        && history
            .steps
            .iter()
            .any(|s| Some(&s.op) == scratch.resume.as_ref() && matches!(s.ack, Ack::Imported { .. }));
    summary.imports_finished_by_a_second_run += usize::from(finished_resumed);
    scratch.resume = history.unfinished_import();
    scratch.found = found;
    Ok(())
}

/// Starts a child, kills it at the moment a plan picks, and returns what it said.
fn run_until_killed(run: &Run, kill: usize, rng: &mut StdRng, scratch: &Scratch) -> Result<History, String> {
    let plan = Plan::pick(rng);
    let mut child = spawn_child(run, scratch, kill, rng.random())?;
    let lines = Lines::of(child.stdout.take().expect("piped"));
    let mut history = History::default();
    let waited = wait_for_the_moment(&plan, &lines, &mut history);
    let killed = crash_harness::kill(&mut child)?;
    waited?;
    if !killed {
        return Err("the child ended by itself before the kill".into());
    }
    for line in lines.rest() {
        history.push(line)?;
    }
    Ok(history)
}

/// Every check after a kill: the journal, what was acknowledged, the backups, the
/// power-cut copy (made before anything opens the journal). Returns what was found.
fn check_after_kill(
    run: &Run,
    scratch: &Scratch,
    history: &History,
    summary: &mut Summary,
) -> Result<Journal, String> {
    let cut = power_cut::copy(&scratch.journal(), &scratch.dir.path().join("power-cut"))
        .map_err(|e| format!("copying the journal as a power cut leaves it: {e}"))?;
    let found = inspect::inspect_with(&scratch.journal(), &run.options())?;
    model::check_acknowledgements(&scratch.found.entries, history)?;
    model::find_state(
        &found.entries,
        &scratch.found.entries,
        history,
        history.steps.len(),
    )?;
    crash_harness::check_backups_with(&scratch.data_dir(), history, run.key.as_ref())?;
    if let Some(cut) = cut {
        cut.check_with(&scratch.found, history, summary, &run.options())?;
    }
    Ok(found)
}

fn spawn_child(run: &Run, scratch: &Scratch, kill: usize, seed: u64) -> Result<std::process::Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = Command::new(exe);
    command
        .args([run.test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, scratch.data_dir())
        .env(CHILD_SEED, seed.to_string())
        .env(CHILD_RUN, kill.to_string())
        .env_remove(CHILD_RESUME)
        .env_remove(CHILD_KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    if let Some(key) = &run.key {
        command.env(CHILD_KEY, &*key.to_raw_hex());
    }
    if let Some(op) = &scratch.resume {
        command.env(CHILD_RESUME, serde_json::to_string(op).expect("an op serialises"));
    }
    command
        .spawn()
        .map_err(|e| format!("cannot start the child: {e}"))
}

/// Reads the child's lines until the plan's moment.
fn wait_for_the_moment(plan: &Plan, lines: &Lines, history: &mut History) -> Result<(), String> {
    let deadline = Instant::now()
        + match plan {
            Plan::After(after) => *after,
            Plan::During(..) => AIM_TIMEOUT,
        };
    while let Some(line) = lines.next_before(deadline) {
        let aimed_at = match (plan, &line) {
            (Plan::During(scenario, pause), Line::Begin(op)) if op.scenario() == *scenario => Some(*pause),
            _ => None,
        };
        history.push(line)?;
        if let Some(pause) = aimed_at {
            std::thread::sleep(pause);
            return Ok(());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------
// The child: the app's storage code, a seeded random mix of operations.

/// The child's operations and how often each is picked. Idle is rare: it waits out the
/// writer's idle checkpoint (200 ms), longer than a hundred saves.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Create,
    Edit,
    Purge,
    Enrich,
    Checkpoint,
    Backup,
    Import,
    Idle,
}

const MIX: [(Kind, u32); 8] = [
    (Kind::Create, 60),
    (Kind::Edit, 40),
    (Kind::Purge, 20),
    (Kind::Enrich, 25),
    (Kind::Checkpoint, 20),
    (Kind::Backup, 6),
    (Kind::Import, 3),
    (Kind::Idle, 1),
];

/// Entries per generated import, and per transaction: a few batches per import, so
/// kills land between batches and inside them. The app's default batch is larger; the
/// code path is the same.
const IMPORT_ITEMS: usize = 120;
const IMPORT_BATCH: usize = 40;

/// Automatic backups kept: every backup after the second prunes one, so kills land in
/// pruning too.
const KEEP_BACKUPS: u32 = 2;

/// Longer than the writer waits before its own checkpoint.
const IDLE: Duration = Duration::from_millis(250);

/// The child stops by itself after this, should the parent be gone.
const CHILD_LIFETIME: Duration = Duration::from_secs(30);

const WORDS: [&str; 12] = [
    "walk", "rain", "coffee", "river", "friend", "garden", "letter", "train", "quiet", "bread", "music",
    "harbour",
];
const TAGS: [&str; 4] = ["work", "home", "travel", "family"];
const MOOD_TAGS: [&str; 3] = ["calm", "hopeful", "tired"];

fn child(data_dir: PathBuf) -> ! {
    let number = |name: &str| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} is set by the parent"))
    };
    // Ends the test harness's "test … " line, so each protocol line starts a line.
    print_line("");
    let journal = data_dir.join(paths::DATABASE_FILE);
    let options = StorageOptions {
        key: std::env::var(CHILD_KEY)
            .ok()
            .map(|hex| JournalKey::from_raw_hex(&hex).expect("the parent's key")),
        ..StorageOptions::default()
    };
    let writer = Writer::spawn(&journal, &options).expect("the writer starts");
    let side = db::open(&journal, &options).expect("the journal opens");
    let mut saver = Saver {
        rng: StdRng::seed_from_u64(number(CHILD_SEED)),
        run: number(CHILD_RUN),
        own: own_entries(&side),
        data_dir,
        writer,
        side,
        key: options.key,
        made: 0,
    };
    if let Ok(op) = std::env::var(CHILD_RESUME) {
        saver.perform(serde_json::from_str(&op).expect("the parent's op"));
    }
    let until = Instant::now() + CHILD_LIFETIME;
    while Instant::now() < until {
        let op = saver.next_op();
        saver.perform(op);
    }
    std::process::exit(0)
}

/// The child's state.
struct Saver {
    rng: StdRng,
    run: u64,
    data_dir: PathBuf,
    writer: Writer,
    /// The connection of the import and the backup, as the app's import and backup
    /// threads each open their own.
    side: Connection,
    /// The journal's key, for its backups; `None`: plain.
    key: Option<JournalKey>,
    /// The entries saved by this child and earlier ones (not imported), to edit, enrich
    /// and purge: id and marker.
    own: Vec<(EntryId, String)>,
    /// Operations made up so far, for unique markers and texts.
    made: u64,
}

/// Prints one protocol line whole and flushes it: once printed, it is acknowledged.
fn say(line: &Line) {
    print_line(&serde_json::to_string(line).expect("a line serialises"));
}

fn print_line(text: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")
        .and_then(|()| out.flush())
        .expect("the parent reads the child's output");
}

fn own_entries(conn: &Connection) -> Vec<(EntryId, String)> {
    let mut stmt = conn
        .prepare(
            "SELECT id, body FROM journal_entries \
             WHERE id NOT IN (SELECT entry_id FROM imported_entries) ORDER BY id",
        )
        .expect("a valid statement");
    stmt.query_map([], |row| {
        let body: String = row.get(1)?;
        Ok((row.get(0)?, model::marker_of(&body).to_owned()))
    })
    .and_then(|rows| rows.collect())
    .expect("the entries read")
}

impl Saver {
    fn next_op(&mut self) -> Op {
        self.made += 1;
        let kind = MIX
            .choose_weighted(&mut self.rng, |(_, w)| *w)
            .expect("weights")
            .0;
        let Some((_, marker)) = self.own.choose(&mut self.rng).cloned() else {
            return self.create_op();
        };
        let made = self.made;
        match kind {
            Kind::Create => self.create_op(),
            Kind::Edit => Op::Edit {
                body: format!("{marker} edited {made} {}", self.words()),
                tags: self.tags(&TAGS),
                mood: self.mood(),
                marker,
            },
            Kind::Purge => Op::Purge { marker },
            Kind::Enrich => Op::Enrich {
                title: format!("Model title {made}"),
                mood: self.rng.random_range(1..=10),
                summary: format!("Model summary {made} of {marker}"),
                mood_tags: self.tags(&MOOD_TAGS),
                marker,
            },
            Kind::Checkpoint => Op::Checkpoint {
                truncate: self.rng.random_bool(0.5),
            },
            Kind::Backup => Op::Backup,
            Kind::Import => self.import_op(),
            Kind::Idle => Op::Idle,
        }
    }

    fn create_op(&mut self) -> Op {
        let marker = format!("m{}-{}", self.run, self.made);
        Op::Create {
            title: match self.rng.random_bool(0.5) {
                true => format!("Title of {marker}"),
                false => String::new(),
            },
            body: format!("{marker} {}", self.words()),
            tags: self.tags(&TAGS),
            mood: self.mood(),
        }
    }

    /// Writes the export before the operation begins: a child killed while writing it
    /// has begun nothing.
    fn import_op(&mut self) -> Op {
        let tag = format!("i{}-{}", self.run, self.made);
        let json = model::jrnl_export(&tag, IMPORT_ITEMS);
        std::fs::write(self.export_path(&tag), json.to_string()).expect("write the export");
        Op::Import {
            tag,
            total: IMPORT_ITEMS,
            batch: IMPORT_BATCH,
        }
    }

    fn export_path(&self, tag: &str) -> PathBuf {
        self.data_dir.join(format!("{tag}.json"))
    }

    fn words(&mut self) -> String {
        let n = self.rng.random_range(3..30);
        (0..n)
            .map(|_| *WORDS.choose(&mut self.rng).expect("words"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn tags(&mut self, from: &[&str]) -> Vec<String> {
        let n = self.rng.random_range(0..=2);
        from.choose_multiple(&mut self.rng, n)
            .map(|t| t.to_string())
            .collect()
    }

    fn mood(&mut self) -> Option<u8> {
        self.rng.random_bool(0.7).then(|| self.rng.random_range(1..=10))
    }

    fn id_of(&self, marker: &str) -> EntryId {
        self.own
            .iter()
            .find(|(_, m)| m == marker)
            .map(|(id, _)| *id)
            .expect("an own entry")
    }

    /// Says what it begins, does it, and says it is done.
    fn perform(&mut self, op: Op) {
        say(&Line::Begin(op.clone()));
        let ack = match op {
            Op::Create {
                title,
                body,
                tags,
                mood,
            } => self.create(title, body, tags, mood),
            Op::Edit {
                marker,
                body,
                tags,
                mood,
            } => self.edit(&marker, body, tags, mood),
            Op::Purge { marker } => self.purge(&marker),
            Op::Enrich {
                marker,
                title,
                mood,
                summary,
                mood_tags,
            } => self.enrich(
                &marker,
                Enrichment {
                    title,
                    mood_score: mood,
                    mood_tags,
                    summary,
                    mentions: Vec::new(),
                },
            ),
            Op::Checkpoint { truncate } => self.checkpoint(truncate),
            Op::Backup => self.backup(),
            Op::Import { tag, batch, .. } => self.import(&tag, batch),
            Op::Idle => {
                std::thread::sleep(IDLE);
                Ack::Done
            }
        };
        say(&Line::Ack(ack));
    }

    fn create(&mut self, title: String, body: String, tags: Vec<String>, mood: Option<u8>) -> Ack {
        let marker = model::marker_of(&body).to_owned();
        let entry = NewEntry {
            title,
            body,
            tags,
            mood_score: mood,
            created_at: None,
        };
        let id = self
            .writer
            .call(move |c| entries::create(c, DEFAULT_USER, &entry))
            .expect("a save");
        self.own.push((id, marker));
        Ack::Saved { id }
    }

    /// An edit as the editor sends it: every field, the title as it stands (an empty
    /// one keeps the model's).
    fn edit(&mut self, marker: &str, body: String, tags: Vec<String>, mood: Option<u8>) -> Ack {
        let id = self.id_of(marker);
        self.writer
            .call(move |c| {
                let entry = entries::get(c, DEFAULT_USER, id)?;
                let edit = EntryEdit {
                    title: if entry.title_by_user {
                        entry.title
                    } else {
                        String::new()
                    },
                    body,
                    tags,
                    mood_score: mood,
                };
                entries::update(c, DEFAULT_USER, id, &edit)
            })
            .expect("an edit");
        Ack::Saved { id }
    }

    fn purge(&mut self, marker: &str) -> Ack {
        let id = self.id_of(marker);
        let busy = StorageOptions::default().busy_timeout;
        let report = self
            .writer
            .call(move |c| entries::purge(c, DEFAULT_USER, id, busy))
            .expect("a purge");
        self.own.retain(|(own, _)| *own != id);
        Ack::Purged {
            wal_cleared: report.wal_cleared,
        }
    }

    /// The job runner's write-back (`enrich::apply` through the writer), with a fixed
    /// result in place of the model's, for the revision the entry has now.
    fn enrich(&mut self, marker: &str, enrichment: Enrichment) -> Ack {
        let id = self.id_of(marker);
        let applied = self
            .writer
            .call(move |c| {
                let entry = entries::get(c, DEFAULT_USER, id)?;
                let enriched = Enriched {
                    enrichment,
                    embedding: (1..=8).map(|i| i as f32).collect(),
                    embed_model: EMBED_MODEL.to_owned(),
                    model_calls: 1,
                    stats: CallStats::default(),
                    revision: entry.revision,
                    body: entry.body,
                    text_model: "crash-text".to_owned(),
                };
                enrich::apply(c, DEFAULT_USER, id, &enriched)
            })
            .expect("a write-back");
        Ack::Enriched { applied }
    }

    fn checkpoint(&mut self, truncate: bool) -> Ack {
        let mode = match truncate {
            true => db::Checkpoint::Truncate,
            false => db::Checkpoint::Passive,
        };
        let busy = StorageOptions::default().busy_timeout;
        let completed = self
            .writer
            .call(move |c| db::checkpoint(c, mode, Duration::from_millis(500), busy))
            .expect("a checkpoint");
        Ack::Checkpointed { completed }
    }

    /// The automatic backup, forced, as the person's "Back up now" asks for it.
    fn backup(&mut self) -> Ack {
        let report = backup::backup_if_due(
            &self.side,
            &self.data_dir,
            1,
            KEEP_BACKUPS,
            chrono::Utc::now(),
            true,
            self.key.as_ref(),
        )
        .expect("a backup")
        .expect("a forced backup is made");
        Ack::BackedUp {
            path: report.path,
            entries: report.entries,
        }
    }

    /// `import::run` on the side connection, each committed batch acknowledged.
    fn import(&mut self, tag: &str, batch: usize) -> Ack {
        let mut export = import::open(&self.export_path(tag)).expect("the export opens");
        let options = Options {
            write: WritePath {
                batch,
                ..WritePath::default()
            },
            key: self.key.as_ref(),
            ..Options::default()
        };
        let mut from = 0;
        let report = import::run(
            &mut self.side,
            DEFAULT_USER,
            &mut export,
            &options,
            &mut |progress| {
                say(&Line::Ack(Ack::Batch {
                    from,
                    to: progress.done,
                }));
                from = progress.done;
            },
        )
        .expect("the import runs");
        Ack::Imported {
            added: report.added,
            duplicates: report.duplicates,
        }
    }
}
