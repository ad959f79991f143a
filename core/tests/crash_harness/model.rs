//! What the journal must hold after a kill: the operations a process acknowledged,
//! replayed in order on a model of its entries.
//!
//! Every entry's body starts with a marker, a word unique to it that edits keep, so an
//! entry is known by its text whatever id it was given (an import acknowledges a batch,
//! not ids). The process says what it is about to do (`Line::Begin`) and, once the
//! storage code has returned `Ok`, that it was done (`Line::Ack`). Each acknowledgement
//! is one transaction of the model ([`Step`]); the one begun and not acknowledged when
//! the process died may or may not have committed, but only whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// An entry as the checks compare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryState {
    pub title: String,
    pub title_by_user: bool,
    pub body: String,
    pub tags: BTreeSet<String>,
    pub mood: Option<u8>,
    pub summary: Option<String>,
    /// The model's work is queued for it: saved or imported and not enriched since.
    pub queued: bool,
    /// It came in through an import (it has its `imported_entries` row).
    pub imported: bool,
}

/// A journal's entries by marker.
pub type Entries = BTreeMap<String, EntryState>;

/// The marker of a body: its first word.
pub fn marker_of(body: &str) -> &str {
    body.split_whitespace().next().unwrap_or("")
}

/// What a process is about to do, with everything the model needs to replay it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Create {
        title: String,
        body: String,
        tags: Vec<String>,
        mood: Option<u8>,
    },
    /// An edit as the editor sends it: the title as it stands, a new body, tags and mood.
    Edit {
        marker: String,
        body: String,
        tags: Vec<String>,
        mood: Option<u8>,
    },
    Purge {
        marker: String,
    },
    /// The job runner's write-back of a model's result (`ai::enrich::apply`).
    Enrich {
        marker: String,
        title: String,
        mood: u8,
        summary: String,
        mood_tags: Vec<String>,
    },
    Checkpoint {
        truncate: bool,
    },
    Backup,
    /// `import::run` of the generated jrnl export named `tag` (see [`import_items`]).
    Import {
        tag: String,
        total: usize,
        batch: usize,
    },
    /// Nothing queued for longer than the writer waits before its own checkpoint.
    Idle,
}

impl Op {
    /// The scenario it belongs to, as the summary counts them.
    pub fn scenario(&self) -> &'static str {
        match self {
            Op::Create { .. } => "save",
            Op::Edit { .. } => "edit",
            Op::Purge { .. } => "purge",
            Op::Enrich { .. } => "model write-back",
            Op::Checkpoint { truncate: true } => "checkpoint (truncate)",
            Op::Checkpoint { truncate: false } => "checkpoint (passive)",
            Op::Backup => "backup",
            Op::Import { .. } => "import",
            Op::Idle => "idle (writer's own checkpoint)",
        }
    }
}

/// What the storage code answered, once it answered `Ok`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ack", rename_all = "snake_case")]
pub enum Ack {
    Saved {
        id: i64,
    },
    Purged {
        wal_cleared: bool,
    },
    Enriched {
        applied: bool,
    },
    Checkpointed {
        completed: bool,
    },
    BackedUp {
        path: PathBuf,
        entries: u64,
    },
    /// One batch of an import committed: the export's items `from..to` were judged.
    Batch {
        from: usize,
        to: usize,
    },
    /// The import ended; its report's counts.
    Imported {
        added: usize,
        duplicates: usize,
    },
    Done,
}

/// One line of the protocol a process prints on its standard output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Begin(Op),
    Ack(Ack),
}

/// One acknowledged transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub op: Op,
    pub ack: Ack,
}

impl Step {
    /// After this step everything before it is in the journal file itself: a truncating
    /// checkpoint that completed (an explicit one, or a purge's), or a command that
    /// exited (SQLite's last close checkpoints and deletes the -wal).
    fn is_barrier(&self, exits_checkpoint: bool) -> bool {
        exits_checkpoint
            || match self.ack {
                Ack::Checkpointed { completed } => completed && self.op == Op::Checkpoint { truncate: true },
                Ack::Purged { wal_cleared } => wal_cleared,
                _ => false,
            }
    }
}

/// What one process acknowledged, in order, and what it had begun when it died.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    pub steps: Vec<Step>,
    pub in_flight: Option<Op>,
    /// Each acknowledgement came from a process that then exited (the CLI), so it is a
    /// barrier too (see [`Step::is_barrier`]).
    pub exits_checkpoint: bool,
}

impl History {
    pub fn push(&mut self, line: Line) -> Result<(), String> {
        match line {
            Line::Begin(op) => self.in_flight = Some(op),
            Line::Ack(ack) => {
                let op = self
                    .in_flight
                    .clone()
                    .ok_or_else(|| format!("{ack:?} acknowledges nothing begun"))?;
                // An import stays begun until its last acknowledgement.
                if !matches!(ack, Ack::Batch { .. }) {
                    self.in_flight = None;
                }
                self.steps.push(Step { op, ack });
            }
        }
        Ok(())
    }

    /// The state after the last barrier is the earliest a power cut may leave.
    pub fn after_last_barrier(&self) -> usize {
        self.steps
            .iter()
            .rposition(|s| s.is_barrier(self.exits_checkpoint))
            .map_or(0, |i| i + 1)
    }

    /// The in-flight operation as the one transaction it may have committed: for an
    /// import, its next batch.
    fn in_flight_step(&self) -> Option<Step> {
        let op = self.in_flight.clone()?;
        let ack = match &op {
            Op::Import { total, batch, .. } => {
                let from = match self.steps.last() {
                    Some(Step {
                        op: last,
                        ack: Ack::Batch { to, .. },
                    }) if *last == op => *to,
                    _ => 0,
                };
                Ack::Batch {
                    from,
                    to: (from + batch).min(*total),
                }
            }
            Op::Enrich { .. } => Ack::Enriched { applied: true },
            _ => Ack::Done,
        };
        Some(Step { op, ack })
    }

    /// The import begun and not finished, which the next process runs again.
    pub fn unfinished_import(&self) -> Option<Op> {
        self.in_flight
            .clone()
            .filter(|op| matches!(op, Op::Import { .. }))
    }

    /// The markers any step or the in-flight operation may change.
    fn touched(&self) -> BTreeSet<String> {
        let mut touched = BTreeSet::new();
        for step in self.steps.iter().cloned().chain(self.in_flight_step()) {
            touched.extend(step_markers(&step));
        }
        touched
    }
}

/// The markers one step writes.
fn step_markers(step: &Step) -> Vec<String> {
    match (&step.op, &step.ack) {
        (Op::Create { body, .. }, _) => vec![marker_of(body).to_owned()],
        (Op::Edit { marker, .. } | Op::Purge { marker } | Op::Enrich { marker, .. }, _) => {
            vec![marker.clone()]
        }
        (Op::Import { tag, total, .. }, Ack::Batch { from, to }) => written_items(*total, *from, *to)
            .map(|i| item_marker(tag, i))
            .collect(),
        _ => Vec::new(),
    }
}

/// Replays one acknowledged transaction as the storage code does it.
pub fn apply(entries: &mut Entries, step: &Step) {
    match (&step.op, &step.ack) {
        (
            Op::Create {
                title,
                body,
                tags,
                mood,
            },
            _,
        ) => {
            let title = title.trim().to_owned();
            entries.insert(
                marker_of(body).to_owned(),
                EntryState {
                    title_by_user: !title.is_empty(),
                    title,
                    body: body.clone(),
                    tags: tags.iter().cloned().collect(),
                    mood: *mood,
                    summary: None,
                    queued: true,
                    imported: false,
                },
            );
        }
        (
            Op::Edit {
                marker,
                body,
                tags,
                mood,
            },
            _,
        ) => {
            // Every edit changes the body (its marker is followed by a new count), so
            // it queues the model's work again.
            if let Some(entry) = entries.get_mut(marker) {
                entry.body = body.clone();
                entry.tags = tags.iter().cloned().collect();
                entry.mood = *mood;
                entry.queued = true;
            }
        }
        (Op::Purge { marker }, _) => {
            entries.remove(marker);
        }
        (
            // The mood and mood tags are suggestions, kept apart from the person's.
            Op::Enrich {
                marker,
                title,
                summary,
                ..
            },
            Ack::Enriched { applied: true },
        ) => {
            if let Some(entry) = entries.get_mut(marker) {
                if !entry.title_by_user {
                    entry.title = title.clone();
                }
                entry.summary = Some(summary.clone());
                entry.queued = false;
            }
        }
        (Op::Import { tag, total, .. }, Ack::Batch { from, to }) => {
            for i in written_items(*total, *from, *to) {
                let (marker, item) = import_item(tag, i);
                entries.entry(marker).or_insert(item);
            }
        }
        _ => {}
    }
}

/// The live entries a step's acknowledgement says the journal held, where it says so:
/// a backup's count of entries, and an import's report (every item in, once).
pub fn check_acknowledgements(start: &Entries, history: &History) -> Result<(), String> {
    let mut state = start.clone();
    let mut present_at_start = 0;
    for step in &history.steps {
        if let (Op::Import { tag, .. }, Ack::Batch { from: 0, .. }) = (&step.op, &step.ack) {
            present_at_start = items_present(&state, tag);
        }
        apply(&mut state, step);
        match (&step.op, &step.ack) {
            (_, Ack::BackedUp { entries, .. }) if *entries != state.len() as u64 => {
                return Err(format!(
                    "a backup said it holds {entries} entries; the journal held {} when it was taken",
                    state.len()
                ));
            }
            (Op::Import { tag, total, .. }, Ack::Imported { added, duplicates }) => {
                let present = items_present(&state, tag);
                if present != *total || added + duplicates != *total || *duplicates != present_at_start {
                    return Err(format!(
                        "import {tag} of {total} reported {added} added and {duplicates} duplicates with \
                         {present_at_start} already in; {present} are in after it"
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn items_present(entries: &Entries, tag: &str) -> usize {
    let prefix = format!("{tag}-");
    entries.keys().filter(|m| m.starts_with(&prefix)).count()
}

/// Finds the state the journal is in among those it may be in: the state after each
/// acknowledged step from `earliest` on, then with the in-flight operation committed
/// too. Entries no step touched must be as they were at the start. Returns how many
/// steps the journal reflects.
pub fn find_state(
    seen: &Entries,
    start: &Entries,
    history: &History,
    earliest: usize,
) -> Result<usize, String> {
    let touched = history.touched();
    for (marker, entry) in seen.iter().filter(|(m, _)| !touched.contains(*m)) {
        if start.get(marker) != Some(entry) {
            return Err(format!(
                "entry {marker} is {entry:?}, but nothing acknowledged or begun wrote it; it was {:?}",
                start.get(marker)
            ));
        }
    }
    if let Some(lost) = start
        .keys()
        .find(|m| !touched.contains(*m) && !seen.contains_key(*m))
    {
        return Err(format!("entry {lost} is gone, and nothing purged it"));
    }
    let seen_touched: Entries = restrict(seen, &touched);
    let mut state = restrict(start, &touched);
    let steps = history.steps.iter().cloned().chain(history.in_flight_step());
    for (k, step) in std::iter::once(None).chain(steps.map(Some)).enumerate() {
        if let Some(step) = &step {
            apply(&mut state, step);
        }
        if k >= earliest && state == seen_touched {
            return Ok(k);
        }
    }
    // Not found: describe the difference from the state after every acknowledgement.
    let mut expected = restrict(start, &touched);
    history.steps.iter().for_each(|s| apply(&mut expected, s));
    Err(describe_difference(&expected, &seen_touched, history))
}

fn restrict(entries: &Entries, markers: &BTreeSet<String>) -> Entries {
    entries
        .iter()
        .filter(|(m, _)| markers.contains(*m))
        .map(|(m, e)| (m.clone(), e.clone()))
        .collect()
}

fn describe_difference(expected: &Entries, seen: &Entries, history: &History) -> String {
    let markers: BTreeSet<&String> = expected.keys().chain(seen.keys()).collect();
    let differences: Vec<String> = markers
        .into_iter()
        .filter(|m| expected.get(*m) != seen.get(*m))
        .take(5)
        .map(|m| format!("{m}: acknowledged {:?}, found {:?}", expected.get(m), seen.get(m)))
        .collect();
    format!(
        "the journal matches no state its acknowledged operations allow ({} steps, in flight {:?}); \
         first differences from the state after every acknowledgement:\n  {}",
        history.steps.len(),
        history.in_flight,
        differences.join("\n  ")
    )
}

/// The generated jrnl export named `tag`: what `import::open` reads and what the model
/// expects, item by item.
pub fn jrnl_export(tag: &str, total: usize) -> serde_json::Value {
    let start = chrono::NaiveDate::from_ymd_opt(2021, 6, 1)
        .and_then(|d| d.and_hms_opt(7, 0, 0))
        .expect("a valid date");
    let entries: Vec<_> = (0..total)
        .map(|i| {
            let at = start + chrono::Duration::minutes(i as i64);
            serde_json::json!({
                "title": "",
                "body": import_body(tag, i),
                "date": at.format("%Y-%m-%d").to_string(),
                "time": at.format("%H:%M").to_string(),
                "tags": ["@garden"],
                "starred": i.is_multiple_of(3),
            })
        })
        .collect();
    serde_json::json!({ "tags": { "@garden": total }, "entries": entries })
}

/// The export's items an import judged as its `from..to`th: an import writes newest
/// first and [`jrnl_export`] lists them oldest first, one minute apart.
fn written_items(total: usize, from: usize, to: usize) -> impl Iterator<Item = usize> {
    (from..to).map(move |written| total - 1 - written)
}

fn item_marker(tag: &str, i: usize) -> String {
    format!("{tag}-{i}")
}

fn import_body(tag: &str, i: usize) -> String {
    format!(
        "{} imported from jrnl: weeded the beans, watered the leeks.",
        item_marker(tag, i)
    )
}

/// Item `i` of the export `tag` as the journal keeps it.
fn import_item(tag: &str, i: usize) -> (String, EntryState) {
    let mut tags = BTreeSet::from(["garden".to_owned()]);
    if i.is_multiple_of(3) {
        tags.insert("starred".to_owned());
    }
    let entry = EntryState {
        title: String::new(),
        title_by_user: false,
        body: import_body(tag, i),
        tags,
        mood: None,
        summary: None,
        queued: true,
        imported: true,
    };
    (item_marker(tag, i), entry)
}
