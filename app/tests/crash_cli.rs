//! Crash safety through the command line (issue #17): `mindsage add`, `purge` and
//! `backup`, run as a person runs them on one journal, each left to finish or killed
//! with SIGKILL at a random moment, until at least 100 kills (`MINDSAGE_CRASH_KILLS`).
//! A command that exited 0 having printed its answer acknowledged its write. After each
//! kill the journal is checked as `core/tests/crash.rs` checks it: it opens, passes
//! SQLite's and FTS5's checks, holds every acknowledged write whole and nothing
//! half-written, and a copy of it as a power cut would have left it holds everything a
//! finished command wrote (a command that exits closes the journal, and SQLite's last
//! close copies the -wal into the journal file and deletes it).

#![cfg(unix)]

#[path = "../../core/tests/crash_harness/mod.rs"]
mod crash_harness;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crash_harness::inspect::{self, Journal};
use crash_harness::model::{self, Ack, History, Line, Op};
use crash_harness::{Summary, power_cut};
use mindsage_core::paths;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

#[test]
fn acknowledged_commands_survive_kills_and_power_cuts() {
    let seed = crash_harness::seed("crash_cli");
    let mut summary = Summary::new("crash_cli", seed);
    let started = Instant::now();
    let result = kill_repeatedly(&mut StdRng::seed_from_u64(seed), &mut summary);
    summary.finish(started, result);
}

/// One journal, the commands run on it since the last kill, and what is known of it.
struct Cli {
    dir: tempfile::TempDir,
    /// What the last check found.
    found: Journal,
    /// The commands since then and their answers.
    history: History,
    /// Ids of the live entries by marker, for `purge`.
    ids: BTreeMap<String, i64>,
    /// Commands made up so far, for unique markers and backup names.
    made: usize,
    /// How long the last command that finished took: kills come within twice that.
    takes: Duration,
}

/// How a command ended.
enum Ended {
    Acknowledged(Ack),
    Killed,
}

const TAGS: [&str; 4] = ["work", "home", "travel", "family"];

fn kill_repeatedly(rng: &mut StdRng, summary: &mut Summary) -> Result<(), String> {
    let mut cli = Cli {
        dir: tempfile::tempdir().map_err(|e| e.to_string())?,
        found: Journal::default(),
        history: new_history(),
        ids: BTreeMap::new(),
        made: 0,
        takes: Duration::ZERO,
    };
    summary.journals = 1;
    let kills = crash_harness::kills();
    while summary.kills < kills {
        let op = cli.next_op(rng);
        cli.history.push(Line::Begin(op.clone()))?;
        // The first command runs to the end, to learn how long one takes; then about
        // half of them are killed.
        let kill_after = crash_harness::pause(rng, cli.takes * 2);
        match cli.run(&op, (cli.takes > Duration::ZERO).then_some(kill_after))? {
            Ended::Acknowledged(ack) => cli.acknowledged(&op, ack)?,
            Ended::Killed => {
                cli.check_after_kill(summary)
                    .map_err(|e| format!("kill {}: {e}", summary.kills))?;
                summary.kills += 1;
            }
        }
    }
    summary.partial_backups_left = crash_harness::partial_backups(&cli.data_dir());
    Ok(())
}

/// Every acknowledgement comes from a command that then exited.
fn new_history() -> History {
    History {
        exits_checkpoint: true,
        ..History::default()
    }
}

impl Cli {
    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn journal(&self) -> PathBuf {
        self.data_dir().join(paths::DATABASE_FILE)
    }

    /// Mostly saves; purges of entries saved before, and now and then a backup.
    fn next_op(&mut self, rng: &mut StdRng) -> Op {
        self.made += 1;
        let live: Vec<&String> = self.ids.keys().collect();
        match (rng.random_range(0..10), live.choose(rng)) {
            (0..2, Some(marker)) => Op::Purge {
                marker: marker.to_string(),
            },
            (2, _) => Op::Backup,
            _ => {
                let marker = format!("c{}", self.made);
                let n = rng.random_range(0..=2);
                Op::Create {
                    title: match rng.random_bool(0.5) {
                        true => format!("Title of {marker}"),
                        false => String::new(),
                    },
                    body: format!("{marker} written from the command line, entry {}", self.made),
                    tags: TAGS.choose_multiple(rng, n).map(|t| t.to_string()).collect(),
                    mood: rng.random_bool(0.7).then(|| rng.random_range(1..=10)),
                }
            }
        }
    }

    fn args(&self, op: &Op) -> Vec<String> {
        let mut args = vec!["--data-dir".to_owned(), self.data_dir().display().to_string()];
        match op {
            Op::Create {
                title,
                body,
                tags,
                mood,
            } => {
                args.extend([
                    "add".into(),
                    "--title".into(),
                    title.clone(),
                    "--body".into(),
                    body.clone(),
                ]);
                for tag in tags {
                    args.extend(["--tag".into(), tag.clone()]);
                }
                if let Some(mood) = mood {
                    args.extend(["--mood".into(), mood.to_string()]);
                }
            }
            Op::Purge { marker } => args.extend(["purge".into(), self.ids[marker].to_string()]),
            Op::Backup => {
                let file = self
                    .data_dir()
                    .join("backups")
                    .join(format!("manual-{}.db", self.made));
                std::fs::create_dir_all(file.parent().expect("a folder")).expect("create backups/");
                args.extend(["backup".into(), file.display().to_string()]);
            }
            other => unreachable!("the command line test runs no {other:?}"),
        }
        args.push("--json".into());
        args
    }

    /// Runs the command for `op`, killing it `kill_after` its start if it is still
    /// running then.
    fn run(&mut self, op: &Op, kill_after: Option<Duration>) -> Result<Ended, String> {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindsage"))
            .args(self.args(op))
            .env_remove("MINDSAGE_DATA_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run mindsage: {e}"))?;
        while let Some(after) = kill_after {
            if child.try_wait().map_err(|e| e.to_string())?.is_some() {
                break;
            }
            if started.elapsed() >= after {
                if crash_harness::kill(&mut child)? {
                    return Ok(Ended::Killed);
                }
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let output = child.wait_with_output().map_err(|e| e.to_string())?;
        self.takes = started.elapsed();
        if !output.status.success() {
            return Err(format!(
                "{op:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let answer: serde_json::Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("{op:?} printed no JSON answer: {e}"))?;
        Ok(Ended::Acknowledged(acknowledgement(op, &answer)?))
    }

    fn acknowledged(&mut self, op: &Op, ack: Ack) -> Result<(), String> {
        match (op, &ack) {
            (Op::Create { body, .. }, Ack::Saved { id }) => {
                self.ids.insert(model::marker_of(body).to_owned(), *id);
            }
            (Op::Purge { marker }, _) => {
                self.ids.remove(marker);
            }
            _ => {}
        }
        self.history.push(Line::Ack(ack))
    }

    /// The checks after a kill, from what the commands acknowledged since the last one.
    fn check_after_kill(&mut self, summary: &mut Summary) -> Result<(), String> {
        summary.count_interrupted(&self.history);
        let cut = power_cut::copy(&self.journal(), &self.dir.path().join("power-cut"))
            .map_err(|e| format!("copying the journal as a power cut leaves it: {e}"))?;
        let found = inspect::inspect(&self.journal())?;
        let history = std::mem::replace(&mut self.history, new_history());
        model::check_acknowledgements(&self.found.entries, &history)?;
        model::find_state(&found.entries, &self.found.entries, &history, history.steps.len())?;
        crash_harness::check_backups(&self.data_dir(), &history)?;
        if let Some(cut) = cut {
            cut.check(&self.found, &history, summary)?;
        }
        self.ids = found.ids.clone();
        self.found = found;
        Ok(())
    }
}

/// What a command's JSON answer acknowledges.
fn acknowledgement(op: &Op, answer: &serde_json::Value) -> Result<Ack, String> {
    let ack = match op {
        Op::Create { .. } => answer["id"].as_i64().map(|id| Ack::Saved { id }),
        Op::Purge { .. } => answer["wal_cleared"]
            .as_bool()
            .map(|wal_cleared| Ack::Purged { wal_cleared }),
        Op::Backup => answer["path"]
            .as_str()
            .zip(answer["entries"].as_u64())
            .map(|(path, entries)| Ack::BackedUp {
                path: PathBuf::from(path),
                entries,
            }),
        _ => None,
    };
    ack.ok_or_else(|| format!("{op:?} answered {answer}"))
}
