//! jrnl's JSON export (`jrnl --export json`): `{"tags": {…}, "entries": [{"title",
//! "body", "date": "YYYY-MM-DD", "time": "HH:MM", "tags": ["@tag"], "starred"}]}`.
//!
//! Times are naive local time, read on this computer's clock. Tags keep jrnl's `@`
//! in the export and appear as `@words` in the text too; MindSage stores them without
//! the `@` and leaves the text as written. jrnl entries have no id, so an entry's id
//! is a hash of its date, time, title and body: the same entry exported twice is the
//! same item. `starred` becomes a "starred" tag.

use chrono::{NaiveDate, NaiveTime};
use serde::Deserialize;

use super::{Export, Item, Problem, Source, text};
use crate::db::entries::NewEntry;
use crate::media;

/// Whether a JSON document is a jrnl export: `entries` with jrnl's `date` and `time`.
pub fn looks_like(json: &serde_json::Value) -> bool {
    json.get("entries")
        .and_then(|e| e.as_array())
        .is_some_and(|entries| match entries.first() {
            Some(first) => first.get("date").is_some() && first.get("time").is_some(),
            None => json.get("tags").is_some_and(|t| t.is_object()),
        })
}

#[derive(Debug, Deserialize)]
struct JrnlEntry {
    #[serde(default)]
    title: String,
    #[serde(default)]
    body: String,
    date: Option<String>,
    time: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    starred: bool,
}

/// Turns a jrnl export's entries into items, each bad one a problem.
pub fn read(name: &str, json: serde_json::Value) -> Export {
    let mut export = Export::new(Source::Jrnl, Box::new(NoFiles));
    let entries = super::entries_of(json);
    for (n, value) in entries.into_iter().enumerate() {
        let label = format!("{name}.json: entry {}", n + 1);
        let parsed = serde_json::from_value::<JrnlEntry>(value)
            .map_err(|e| format!("not a jrnl entry ({e})"))
            .and_then(|entry| item(label.clone(), entry));
        match parsed {
            Ok(item) => export.items.push(item),
            Err(reason) => export.problems.push(Problem::rejected(label, reason)),
        }
    }
    export
}

fn item(label: String, entry: JrnlEntry) -> Result<Item, String> {
    let date_text = entry.date.ok_or("it has no date")?;
    let day = NaiveDate::parse_from_str(date_text.trim(), "%Y-%m-%d")
        .map_err(|_| format!("its date {date_text:?} is not a YYYY-MM-DD date"))?;
    let time_text = entry.time.unwrap_or_default();
    let time = ["%H:%M", "%H:%M:%S"]
        .iter()
        .find_map(|f| NaiveTime::parse_from_str(time_text.trim(), f).ok())
        .ok_or_else(|| format!("its time {time_text:?} is not an HH:MM time"))?;
    let lived = crate::clock::local_instant(day.and_time(time));
    let title = text::normalise(&entry.title).trim().to_string();
    let body = text::normalise(&entry.body).trim().to_string();
    if title.is_empty() && body.is_empty() {
        return Err("it has no text".into());
    }
    let id = media::sha256_hex(format!("{date_text}\u{1f}{time_text}\u{1f}{title}\u{1f}{body}").as_bytes());
    let mut tags: Vec<String> = entry
        .tags
        .iter()
        .map(|t| t.trim_start_matches('@').to_string())
        .collect();
    if entry.starred {
        tags.push("starred".into());
    }
    let entry = NewEntry {
        title,
        body,
        tags,
        ..NewEntry::default()
    };
    Ok(Item::new(label, id, entry, lived))
}

/// jrnl exports carry no files.
struct NoFiles;

impl super::Files for NoFiles {
    fn read(&mut self, _path: &str, _limit: u64) -> Result<Vec<u8>, String> {
        Err("jrnl exports carry no files".into())
    }
}
