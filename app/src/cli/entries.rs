//! The journal's entries from the command line: `seed`, `list`, `add` (text, or a
//! recording), `show`, `delete`, `restore ID`, `purge`, the journal's figures
//! (`stats`, `info`), and what it remembers (`people`).

use std::path::Path;

use std::io::Read;

use anyhow::{Context, Result, bail};
use chrono::Local;
use rusqlite::Connection;

use mindsage_core::db::memory::{self, Kind};
use mindsage_core::db::reflections::State;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries, stats};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::voice;

use super::transcribe::transcribe_file;
use super::{Args, print};
use crate::wording;

pub(super) fn seed(args: &Args, conn: &mut rusqlite::Connection, entries: usize, seed: u64) -> Result<()> {
    let options = DemoOptions {
        end: chrono::Utc::now(),
        ..DemoOptions::fixed(entries, seed)
    };
    let report = demo::seed(conn, DEFAULT_USER, &options)?;
    print(args, &report, || {
        format!(
            "added {} demo entries ({} with photos)",
            report.entries, report.photos
        )
    })
}

pub(super) fn list(
    args: &Args,
    conn: &rusqlite::Connection,
    filter: &entries::ListFilter,
    limit: u32,
) -> Result<()> {
    let page = entries::list(conn, DEFAULT_USER, filter, None, limit.max(1))?;
    print(args, &page.rows, || {
        if page.rows.is_empty() {
            return "no entries".to_owned();
        }
        page.rows.iter().map(format_row).collect::<Vec<_>>().join("\n")
    })
}

/// `add`: the body from `--body`, or from standard input when it is not given.
pub(super) fn add(args: &Args, conn: &mut rusqlite::Connection, mut entry: entries::NewEntry) -> Result<()> {
    if entry.body.is_empty() {
        std::io::stdin()
            .read_to_string(&mut entry.body)
            .context("reading the body from standard input")?;
    }
    if entry.title.trim().is_empty() && entry.body.trim().is_empty() {
        bail!("nothing to save: give a --title or a body");
    }
    let id = entries::create(conn, DEFAULT_USER, &entry)?;
    print(args, &serde_json::json!({ "id": id }), || {
        format!("saved entry {id}")
    })
}

/// `add --audio`: the recording transcribed, then saved with it as the app saves one.
pub(super) fn add_recording(
    args: &Args,
    conn: &mut rusqlite::Connection,
    entry: entries::NewEntry,
    file: &std::path::Path,
    model: Option<&std::path::Path>,
) -> Result<()> {
    let transcript = transcribe_file(args, file, model, false)?;
    let id = voice::save_entry(
        conn,
        DEFAULT_USER,
        entry,
        &transcript.samples,
        &transcript.transcript,
    )?;
    print(
        args,
        &serde_json::json!({ "id": id, "duration_ms": transcript.duration_ms, "language": transcript.transcript.language }),
        || {
            format!(
                "saved entry {id} from {} ({} s of sound)",
                file.display(),
                transcript.duration_ms / 1000
            )
        },
    )
}

/// `mindsage show ID`.
pub(super) fn show(args: &Args, conn: &Connection, id: i64) -> Result<()> {
    let entry = entries::get(conn, DEFAULT_USER, id)?;
    print(args, &entry, || format_entry(&entry))
}

/// `mindsage delete ID`: to the trash.
pub(super) fn delete(args: &Args, conn: &mut Connection, id: i64) -> Result<()> {
    entries::soft_delete(conn, DEFAULT_USER, id)?;
    print(args, &serde_json::json!({ "id": id, "trashed": true }), || {
        format!("moved entry {id} to the trash (mindsage restore {id} brings it back)")
    })
}

/// `mindsage restore ID`: out of the trash.
pub(super) fn restore(args: &Args, conn: &mut Connection, id: i64) -> Result<()> {
    entries::restore(conn, DEFAULT_USER, id)?;
    print(args, &serde_json::json!({ "id": id, "restored": true }), || {
        format!("restored entry {id}")
    })
}

pub(super) fn purge(
    args: &Args,
    conn: &mut rusqlite::Connection,
    id: i64,
    options: &StorageOptions,
) -> Result<()> {
    let report = entries::purge(conn, DEFAULT_USER, id, options.busy_timeout)?;
    let json = serde_json::json!({ "id": id, "purged": true, "wal_cleared": report.wal_cleared });
    print(args, &json, || {
        if report.wal_cleared {
            format!("erased entry {id} permanently")
        } else {
            format!("erased entry {id}; its old pages leave the write-ahead log when the app next goes idle")
        }
    })
}

pub(super) fn stats(args: &Args, conn: &rusqlite::Connection) -> Result<()> {
    let today = Local::now().date_naive();
    let stats = stats::StatsCache::default().get(conn, DEFAULT_USER, today)?;
    print(args, &*stats, || {
        format!(
            "entries: {}\nwords: {}\ncurrent streak: {} days\nlongest streak: {} days",
            stats.total_entries, stats.total_words, stats.current_streak, stats.longest_streak
        )
    })
}

/// `mindsage people`: the people, places and activities the entries mention, each with
/// its relation, how many entries and from when to when; hidden ones only with `all`.
pub(super) fn people(args: &Args, conn: &Connection, all: bool) -> Result<()> {
    let subjects: Vec<memory::Subject> = memory::subjects(conn, DEFAULT_USER)?
        .into_iter()
        .filter(|s| all || !s.hidden)
        .collect();
    print(args, &subjects, || {
        if subjects.is_empty() {
            return "no people, places or activities yet: the local model finds them as it reads \
                    the entries (mindsage index --wait)"
                .to_owned();
        }
        let mut lines = Vec::new();
        for kind in Kind::ALL {
            let of_kind: Vec<&memory::Subject> = subjects.iter().filter(|s| s.kind == kind).collect();
            if of_kind.is_empty() {
                continue;
            }
            lines.push(
                match kind {
                    Kind::Person => "People",
                    Kind::Place => "Places",
                    Kind::Activity => "Activities",
                }
                .to_owned(),
            );
            lines.extend(of_kind.iter().map(|s| format!("  {}", format_subject(s))));
        }
        lines.join("\n")
    })
}

/// Reflections, latest first: the period, then each sentence with its entries' ids.
pub(super) fn reflections(args: &Args, conn: &Connection, limit: u32) -> Result<()> {
    let written = db::reflections::recent(conn, DEFAULT_USER, limit)?;
    print(args, &written, || {
        if written.is_empty() {
            return "no reflections yet: the local model writes one when a week or a month with \
                    entries ends (mindsage index --wait)"
                .to_owned();
        }
        let mut lines = Vec::new();
        for reflection in &written {
            lines.push(reflection.period.named(reflection.first_day));
            if reflection.sentences.is_empty() {
                lines.push(
                    match reflection.state {
                        State::Failed => {
                            "  (the model could not write it; it tries again when an entry changes)"
                        }
                        State::Done => "  (its entries have all gone to the trash)",
                        State::Pending => "  (not written yet)",
                    }
                    .to_owned(),
                );
            }
            for sentence in &reflection.sentences {
                let ids: Vec<String> = sentence.entries.iter().map(i64::to_string).collect();
                lines.push(format!("  {} [{}]", sentence.text, ids.join(", ")));
            }
        }
        lines.join("\n")
    })
}

/// "Maya (sister) · 12 entries · 3 Mar 2025 to 28 Nov 2026".
fn format_subject(s: &memory::Subject) -> String {
    let mut line = format!(
        "{} · {}",
        wording::subject_name(s),
        wording::entries(s.entries as usize)
    );
    match wording::subject_days(s, "%-d %b %Y") {
        Some((first, Some(last))) => line.push_str(&format!(" · {first} to {last}")),
        Some((first, None)) => line.push_str(&format!(" · {first}")),
        None => {}
    }
    if s.hidden {
        line.push_str(" · hidden");
    }
    line
}

/// `mindsage info`: the journal file, this build, and the settings SQLite runs with.
pub(super) fn info(args: &Args, conn: &Connection, path: &Path, options: &StorageOptions) -> Result<()> {
    let cipher_version: Option<String> = conn.query_row("PRAGMA cipher_version", [], |row| row.get(0)).ok();
    let info = serde_json::json!({
        "database": path,
        "version": env!("CARGO_PKG_VERSION"),
        "encrypted": options.key.is_some(),
        "cipher_version": cipher_version,
        "pragmas": db::effective_pragmas(conn)?,
    });
    print(args, &info, || {
        serde_json::to_string_pretty(&info).unwrap_or_default()
    })
}

/// The day of a stored timestamp (its first ten characters).
pub(super) fn day_of(created_at: &str) -> &str {
    created_at.get(..10).unwrap_or(created_at)
}

/// The day an entry was lived where it was written (`clock::lived`); its stored
/// timestamp's day only for a damaged row.
pub(super) fn lived_day(lived: Option<chrono::DateTime<chrono::FixedOffset>>, created_at: &str) -> String {
    lived.map_or_else(
        || day_of(created_at).to_owned(),
        |t| t.format("%Y-%m-%d").to_string(),
    )
}

pub(super) fn format_row(row: &entries::EntryRow) -> String {
    let first_line = row.preview.split(entries::LINE_BREAK).next().unwrap_or_default();
    let title = crate::wording::entry_title(&row.title, first_line);
    let mood = row.mood_score.map_or("  ".to_owned(), |m| format!("{m:>2}"));
    let tags = if row.tags.is_empty() {
        String::new()
    } else {
        format!("  [{}]", row.tags.join(", "))
    };
    format!(
        "{:>6}  {}  {mood}  {title}{tags}",
        row.id,
        lived_day(row.lived(), &row.created_at)
    )
}

fn format_entry(entry: &entries::Entry) -> String {
    // When it was lived, with the UTC offset where it was written.
    let when = entry.lived().map_or_else(
        || entry.created_at.clone(),
        |t| t.format("%Y-%m-%d %H:%M %:z").to_string(),
    );
    let mut out = format!("#{} {when}\n{}", entry.id, entry.title);
    if let Some(mood) = entry.mood_score {
        out.push_str(&format!("\nmood: {mood}/10"));
    }
    if !entry.tags.is_empty() {
        out.push_str(&format!("\ntags: {}", entry.tags.join(", ")));
    }
    if entry.is_deleted {
        out.push_str("\n(in the trash)");
    }
    out.push_str("\n\n");
    out.push_str(&entry.body);
    out
}
