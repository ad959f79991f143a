//! Day One's JSON export: a zip with one `<Journal name>.json` per journal
//! (`{"metadata": {"version"}, "entries": […]}`) and shared `photos/`, `audios/`,
//! `videos/` and `pdfs/` folders of `<md5>.<type>` files (`jpeg`, not `jpg`); or such a
//! JSON file already unzipped, its folders beside it.
//!
//! Day One has no title field: the first line of `text` is the title (often `# Title`),
//! and the text is Markdown with escapes applied inconsistently, which are undone.
//! Photos are referenced inline as `![](dayone-moment://ID)` and found through
//! `photos[].identifier` → `md5` and `type`; the references leave the text, the photos
//! are attached, and a reference to something the export lacks is reported. Entries
//! are keyed by `uuid` (two can share a second). The journal's name becomes a tag, and
//! so does `starred` ("starred"), so both can be filtered on;
//! the day an entry was lived is taken in its own `timeZone`. Location, weather, audio,
//! video and PDFs are not kept: the report says so for each entry that had them.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use zip::ZipArchive;

use super::{Export, Files, FolderFiles, Item, MAX_FILE_BYTES, Photo, Problem, Source, read_limited, text};
use crate::clock;
use crate::db::entries::NewEntry;
use crate::media::links::image_links;

/// Whether a JSON document is a Day One journal: `entries` whose items carry
/// Day One's fields, or Day One's `metadata`.
pub fn looks_like(json: &serde_json::Value) -> bool {
    let entries = json.get("entries").and_then(|e| e.as_array());
    let first_is_dayone = entries
        .and_then(|e| e.first())
        .is_some_and(|e| e.get("uuid").is_some() || e.get("creationDate").is_some());
    entries.is_some() && (json.get("metadata").is_some() || first_is_dayone)
}

/// One entry as Day One writes it (only the fields MindSage keeps or reports on).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DayOneEntry {
    uuid: Option<String>,
    creation_date: Option<String>,
    time_zone: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    starred: bool,
    text: Option<String>,
    #[serde(default)]
    photos: Vec<DayOnePhoto>,
    #[serde(default)]
    audios: Vec<serde_json::Value>,
    #[serde(default)]
    videos: Vec<serde_json::Value>,
    #[serde(default)]
    pdf_attachments: Vec<serde_json::Value>,
    location: Option<serde_json::Value>,
    weather: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct DayOnePhoto {
    identifier: Option<String>,
    md5: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// Reads a Day One zip: every journal JSON in it, photos read from it as they are
/// written.
pub fn read_zip(path: &Path) -> Result<Export, String> {
    let file = File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut archive = ZipArchive::new(file).map_err(|e| format!("the zip archive is damaged ({e})"))?;
    let mut journals = Vec::new();
    let mut problems = Vec::new();
    let mut photos = HashMap::new();
    for index in 0..archive.len() {
        let (name, enclosed) = match archive.by_index_raw(index) {
            Ok(file) => (file.name().to_string(), file.enclosed_name()),
            Err(e) => {
                problems.push(Problem::rejected(
                    format!("file {index} of the zip"),
                    format!("unreadable ({e})"),
                ));
                continue;
            }
        };
        let Some(enclosed) = enclosed else {
            problems.push(Problem::rejected(
                &name,
                "its path leads outside the export, so it was not read",
            ));
            continue;
        };
        let folder = enclosed
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|f| f.to_str());
        let file_name = enclosed
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_string();
        // macOS adds `__MACOSX/._name` companions to zips it makes: not Day One's.
        let mac_companion = name.starts_with("__MACOSX/") || file_name.starts_with("._");
        if folder == Some("photos") {
            photos.insert(file_name, index);
        } else if file_name.to_ascii_lowercase().ends_with(".json")
            && !mac_companion
            && !matches!(folder, Some("audios" | "videos" | "pdfs"))
        {
            journals.push((index, name));
        }
    }
    if journals.is_empty() {
        return Err("a zip with no Day One journal in it (expected <Journal name>.json files)".into());
    }
    let mut files = ZipFiles { archive, photos };
    let read: Vec<_> = journals
        .into_iter()
        .map(|(index, name)| {
            let json = files.read_index(index, MAX_FILE_BYTES).and_then(|bytes| {
                serde_json::from_slice::<serde_json::Value>(text::strip_bom(&bytes))
                    .map_err(|e| format!("not valid JSON ({e})"))
            });
            (name, json)
        })
        .collect();
    let mut export = Export::new(Source::DayOne, Box::new(files));
    export.problems = problems;
    for (name, json) in read {
        let journal = Path::new(&name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match json {
            Ok(json) if looks_like(&json) => read_journal(&mut export, &journal, &name, json),
            Ok(_) => export.problems.push(Problem::rejected(
                &name,
                "not a Day One journal (no \"entries\" list)",
            )),
            Err(reason) => export.problems.push(Problem::rejected(&name, reason)),
        }
    }
    Ok(export)
}

/// Reads an unzipped Day One journal: photos from the `photos/` folder beside it.
pub fn read_json(journal: &str, json: serde_json::Value, folder: &Path) -> Export {
    let mut export = Export::new(
        Source::DayOne,
        Box::new(FolderFiles {
            root: folder.to_path_buf(),
        }),
    );
    read_journal(&mut export, journal, &format!("{journal}.json"), json);
    export
}

/// Turns one journal's entries into items, each bad one a problem.
fn read_journal(export: &mut Export, journal: &str, file: &str, json: serde_json::Value) {
    let entries = super::entries_of(json);
    for (n, value) in entries.into_iter().enumerate() {
        let uuid = value.get("uuid").and_then(|u| u.as_str()).map(str::to_string);
        let label = match &uuid {
            Some(uuid) => format!("{file}: entry {} ({uuid})", n + 1),
            None => format!("{file}: entry {}", n + 1),
        };
        match serde_json::from_value::<DayOneEntry>(value) {
            Ok(entry) => match item(journal, label.clone(), entry) {
                Ok((item, notes)) => {
                    export
                        .problems
                        .extend(notes.into_iter().map(|n| Problem::partial(&label, n)));
                    export.items.push(item);
                }
                Err(reason) => export.problems.push(Problem::rejected(label, reason)),
            },
            Err(e) => export
                .problems
                .push(Problem::rejected(label, format!("not a Day One entry ({e})"))),
        }
    }
}

/// One Day One entry as an item, and what of it is not kept.
fn item(journal: &str, label: String, entry: DayOneEntry) -> Result<(Item, Vec<String>), String> {
    let uuid = entry
        .uuid
        .filter(|u| !u.trim().is_empty())
        .ok_or("it has no uuid")?;
    let created_text = entry.creation_date.ok_or("it has no creationDate")?;
    let created: DateTime<Utc> = DateTime::parse_from_rfc3339(&created_text)
        .map_err(|_| format!("its creationDate {created_text:?} is not a date"))?
        .with_timezone(&Utc);
    // Lived in the entry's own zone; an entry whose zone Day One does not name, here.
    let lived = match entry.time_zone.as_deref().map(str::parse::<chrono_tz::Tz>) {
        Some(Ok(zone)) => created.with_timezone(&zone).fixed_offset(),
        _ => clock::here(created),
    };
    let (text, moments) = take_moments(&text::normalise(entry.text.as_deref().unwrap_or("")));
    let mut notes = missing_moments(
        &moments,
        &entry.photos,
        &[&entry.audios, &entry.videos, &entry.pdf_attachments].map(Vec::as_slice),
    );
    let (title, body) = text::split_title(&text, true);
    let (title, body) = (text::unescape_markdown(&title), text::unescape_markdown(&body));
    let mut tags = entry.tags;
    if !journal.is_empty() {
        tags.push(journal.to_string());
    }
    if entry.starred {
        tags.push("starred".into());
    }
    // Photos in the order the text shows them, then any the text does not mention.
    let by_id: HashMap<&str, &DayOnePhoto> = entry
        .photos
        .iter()
        .filter_map(|p| Some((p.identifier.as_deref()?, p)))
        .collect();
    let mut order: Vec<&DayOnePhoto> = moments
        .iter()
        .filter_map(|moment| by_id.get(moment.id.as_str()).copied())
        .collect();
    for photo in &entry.photos {
        if !order.iter().any(|p| std::ptr::eq(*p, photo)) {
            order.push(photo);
        }
    }
    let mut photos = Vec::new();
    for photo in order {
        match (&photo.md5, &photo.kind) {
            (Some(md5), Some(kind)) => photos.push(Photo::unnamed(format!("photos/{md5}.{kind}"))),
            _ => notes.push("a photo without its md5 or type was not imported".to_string()),
        }
    }
    for (what, count) in [
        ("recordings", entry.audios.len()),
        ("videos", entry.videos.len()),
        ("PDFs", entry.pdf_attachments.len()),
    ] {
        if count > 0 {
            notes.push(format!(
                "{count} {what} not imported (MindSage keeps photos and its own recordings)"
            ));
        }
    }
    if entry.location.is_some() || entry.weather.is_some() {
        notes.push("location and weather are not kept".into());
    }
    if title.is_empty() && body.is_empty() && photos.is_empty() {
        return Err("it has no text and no photos".into());
    }
    let entry = NewEntry {
        title,
        body,
        tags,
        ..NewEntry::default()
    };
    let mut item = Item::new(label, uuid, entry, lived);
    item.photos = photos;
    Ok((item, notes))
}

/// A `![…](dayone-moment:…)` reference in an entry's text.
#[derive(Debug)]
struct Moment {
    id: String,
    /// `dayone-moment://ID` is a photo; recordings, videos and PDFs name their kind
    /// (`dayone-moment:/audio/ID`).
    photo: bool,
}

/// The text without its `![…](dayone-moment:…)` references, and the references.
/// Other images stay as written.
fn take_moments(text: &str) -> (String, Vec<Moment>) {
    let mut out = String::with_capacity(text.len());
    let mut ids = Vec::new();
    let mut kept_to = 0;
    for link in image_links(text) {
        if !link.target.starts_with("dayone-moment:") {
            continue;
        }
        out.push_str(&text[kept_to..link.range.start]);
        kept_to = link.range.end;
        // dayone-moment://ID for photos, dayone-moment:/audio/ID and the like for
        // other media.
        ids.push(Moment {
            id: link.target.rsplit('/').next().unwrap_or_default().to_string(),
            photo: link.target.starts_with("dayone-moment://"),
        });
    }
    out.push_str(&text[kept_to..]);
    // A reference on its own line leaves an empty line; runs of them collapse.
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    (out, ids)
}

/// What the text showed that the export does not have: a reference whose photo (or
/// recording, video, PDF) is in none of the entry's lists. The reference leaves the text
/// like the others, so the report says so rather than the entry losing it unnoticed.
fn missing_moments(
    moments: &[Moment],
    photos: &[DayOnePhoto],
    others: &[&[serde_json::Value]],
) -> Vec<String> {
    let identifier = |value: &serde_json::Value| {
        value
            .get("identifier")
            .and_then(|i| i.as_str())
            .map(str::to_owned)
    };
    let known: HashSet<String> = photos
        .iter()
        .filter_map(|p| p.identifier.clone())
        .chain(others.iter().flat_map(|list| list.iter()).filter_map(identifier))
        .collect();
    moments
        .iter()
        .filter(|moment| !known.contains(&moment.id))
        .map(|moment| {
            let what = if moment.photo { "photo" } else { "attachment" };
            format!(
                "the text showed a {what} ({}) that is not in the export, so it is not in the entry",
                moment.id
            )
        })
        .collect()
}

/// Photos read from the zip itself.
struct ZipFiles {
    archive: ZipArchive<File>,
    /// File names under `photos/` and their index in the zip.
    photos: HashMap<String, usize>,
}

impl ZipFiles {
    fn read_index(&mut self, index: usize, limit: u64) -> Result<Vec<u8>, String> {
        let file = self
            .archive
            .by_index(index)
            .map_err(|e| format!("unreadable in the zip ({e})"))?;
        if file.size() > limit {
            return Err(format!(
                "it unpacks to {} bytes, more than the {limit} accepted",
                file.size()
            ));
        }
        read_limited(file, limit)
    }
}

impl Files for ZipFiles {
    fn read(&mut self, path: &str, limit: u64) -> Result<Vec<u8>, String> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let index = *self.photos.get(name).ok_or("it is not in the export")?;
        self.read_index(index, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moment_references_leave_the_text_in_order() {
        let (text, ids) = take_moments(
            "Hi\n\n![](dayone-moment://AB12)\n\nthere ![x](dayone-moment:/audio/CD) ![a](b.png)",
        );
        let ids: Vec<_> = ids.iter().map(|m| (m.id.as_str(), m.photo)).collect();
        assert_eq!(ids, [("AB12", true), ("CD", false)]);
        assert_eq!(text, "Hi\n\nthere  ![a](b.png)");
    }
}
