//! MindSage's own JSON export (`export::json`, docs/export-format.md): everything comes
//! back as it was, the model's titles and summaries, photos with when they were added,
//! and recordings with what was heard in them; only the embedding is made again (it
//! belongs to the model on this computer). An entry's key is its id and time in the
//! journal it came from. A file from a newer MindSage is refused whole, untouched.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate};

use super::{Carried, CarriedRecording, Export, Files, Item, Photo, Problem, Source};
use crate::clock;
use crate::db::entries::NewEntry;
use crate::export::json::{ExportedEntry, ExportedMention, FORMAT, VERSION};

/// Whether a JSON document is a MindSage export (any version).
pub fn looks_like(json: &serde_json::Value) -> bool {
    json.get("format").and_then(|f| f.as_str()) == Some(FORMAT)
}

/// Turns an export's entries into items, each bad one a problem.
pub fn read(name: &str, json: serde_json::Value) -> Result<Export, String> {
    let version = json.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
    if version == 0 || version > u64::from(VERSION) {
        return Err(format!(
            "it is a MindSage export of format version {version}; this MindSage reads up to version {VERSION}, update it to import this file"
        ));
    }
    let mut files = MemoryFiles::default();
    let mut export = Export::new(Source::MindSage, Box::new(MemoryFiles::default()));
    if !json.get("entries").is_some_and(|e| e.is_array()) {
        return Err("it has no \"entries\" list".into());
    }
    let entries = super::entries_of(json);
    for (n, value) in entries.into_iter().enumerate() {
        let label = format!("{name}.json: entry {}", n + 1);
        let parsed = serde_json::from_value::<ExportedEntry>(value)
            .map_err(|e| format!("not a MindSage entry ({e})"))
            .and_then(|entry| item(label.clone(), entry, &mut files));
        match parsed {
            Ok(item) => export.items.push(item),
            Err(reason) => export.problems.push(Problem::rejected(label, reason)),
        }
    }
    export.files = Box::new(files);
    Ok(export)
}

fn item(label: String, entry: ExportedEntry, files: &mut MemoryFiles) -> Result<Item, String> {
    let created = clock::parse_utc(&entry.created_at)
        .ok_or_else(|| format!("its created_at {:?} is not a time", entry.created_at))?;
    let day = NaiveDate::parse_from_str(&entry.day, "%Y-%m-%d")
        .map_err(|_| format!("its day {:?} is not a date", entry.day))?;
    // Its local time carries the offset where it was written (version 2); an export of
    // version 1 kept only the day.
    let lived = match &entry.local_time {
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map(|local| created.with_timezone(local.offset()))
            .map_err(|_| format!("its local_time {text:?} is not a time"))?,
        None => clock::lived_on(created, day),
    };
    let mut photos = Vec::new();
    let mut carried = Carried {
        title_by_user: entry.title_by_user,
        summary: entry.summary,
        memory: entry.memory.iter().map(ExportedMention::restored).collect(),
        memory_model: entry.memory_model,
        photo_times: Vec::new(),
        recordings: Vec::new(),
    };
    for (m, media) in entry.media.into_iter().enumerate() {
        let data = media.data().map_err(|e| format!("media {}: {e}", m + 1))?;
        match media.kind.as_str() {
            "image" => {
                let path = format!("entry {}/media {}", entry.id, m + 1);
                files.0.insert(path.clone(), data);
                photos.push(Photo {
                    path,
                    name: media.name,
                });
                carried.photo_times.push(media.created_at);
            }
            "audio" => carried.recordings.push(CarriedRecording {
                wav: data,
                duration_ms: media.duration_ms.unwrap_or(0),
                language: media.language.unwrap_or_default(),
                recorded_at: media.created_at,
                segments: media.segments,
            }),
            other => {
                return Err(format!(
                    "media {} is of a kind MindSage does not know ({other:?})",
                    m + 1
                ));
            }
        }
    }
    let new = NewEntry {
        title: entry.title,
        body: entry.body,
        tags: entry.tags,
        mood_score: entry.mood_score,
        created_at: None,
    };
    let mut item = Item::new(label, format!("{}#{}", entry.created_at, entry.id), new, lived);
    item.photos = photos;
    item.carried = Some(carried);
    Ok(item)
}

/// Photos decoded from the export's base64, by the path the item names them with.
#[derive(Default)]
struct MemoryFiles(HashMap<String, Vec<u8>>);

impl Files for MemoryFiles {
    fn read(&mut self, path: &str, limit: u64) -> Result<Vec<u8>, String> {
        let data = self.0.remove(path).ok_or("it is not in the export")?;
        if data.len() as u64 > limit {
            return Err(format!("it is larger than {} MB", limit / (1024 * 1024)));
        }
        Ok(data)
    }
}
