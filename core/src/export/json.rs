//! MindSage's own JSON export: the whole journal in one file, full fidelity, in one
//! documented, versioned schema (docs/export-format.md). The importer reads the same
//! types back (`import::mindsage`).
//!
//! Written an entry at a time, so a journal larger than memory exports in constant
//! memory; media bytes are base64 inside their entry.

use std::io::Write;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use crate::clock;
use crate::db::archive::{ArchivedEntry, ArchivedMedia};
use crate::db::audio::Segment;
use crate::db::memory;

/// The `format` field that says a JSON file is a MindSage export.
pub const FORMAT: &str = "mindsage-journal";

/// The schema version this build writes; it reads this one and every earlier one.
/// Version 2 added each entry's `local_time`, version 3 its `memory` and
/// `memory_model`.
pub const VERSION: u32 = 3;

/// One entry as the export holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedEntry {
    /// The entry's id in the journal it came from (an import's key for it).
    pub id: i64,
    pub created_at: String,
    pub updated_at: String,
    /// The day it counts for where it was written (`YYYY-MM-DD`).
    pub day: String,
    /// The date and time it was lived where it was written, with that place's UTC
    /// offset (`2024-01-04T23:59:00.000-05:00`); absent before version 2.
    #[serde(default)]
    pub local_time: Option<String>,
    pub title: String,
    /// Whether a person typed the title (else the model wrote it).
    pub title_by_user: bool,
    pub body: String,
    pub tags: Vec<String>,
    pub mood_score: Option<u8>,
    /// The model's summary, if it wrote one.
    pub summary: Option<String>,
    #[serde(default)]
    pub media: Vec<ExportedMedia>,
    /// The people, places and activities the entry mentions (version 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory: Vec<ExportedMention>,
    /// The text model that found them; absent when none has read the entry, and then
    /// the importing journal's model reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_model: Option<String>,
}

/// A person, place or activity an entry mentions, with what the person had changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedMention {
    pub kind: memory::Kind,
    /// Its name in the journal.
    pub name: String,
    /// How the writer is related to a person ("sister"), or "".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub relation: String,
    /// The words the entry uses for it ("my sister").
    pub phrase: String,
    /// The person changed it (renamed, related, hid or merged it): name, relation and
    /// `hidden` are theirs.
    #[serde(default, skip_serializing_if = "is_false")]
    pub corrected: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
    /// The person linked this entry to it (a split).
    #[serde(default, skip_serializing_if = "is_false")]
    pub linked_by_user: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl ExportedMention {
    fn from_mention(m: &memory::Mention) -> ExportedMention {
        ExportedMention {
            kind: m.kind,
            name: m.name.clone(),
            relation: m.relation.clone(),
            phrase: m.phrase.clone(),
            corrected: m.corrected,
            hidden: m.hidden,
            linked_by_user: m.linked_by_user,
        }
    }

    /// What the journal stores of it ([`memory::restore`]).
    pub fn restored(&self) -> memory::Restored {
        memory::Restored {
            found: memory::Found {
                kind: self.kind,
                name: self.name.clone(),
                relation: self.relation.clone(),
            },
            phrase: self.phrase.clone(),
            hidden: self.hidden,
            corrected: self.corrected,
            linked_by_user: self.linked_by_user,
        }
    }
}

/// A photo or a recording, with its bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedMedia {
    /// `image` or `audio`.
    pub kind: String,
    pub mime: String,
    pub created_at: String,
    pub duration_ms: Option<u64>,
    pub language: Option<String>,
    /// The file's bytes, base64 (standard alphabet, padded).
    pub data_base64: String,
    /// A photo's name in the entry's text (`![](name)`), which places it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What was heard in a recording, with times.
    #[serde(default)]
    pub segments: Vec<Segment>,
}

impl ExportedEntry {
    pub fn from_archived(archived: &ArchivedEntry) -> ExportedEntry {
        let e = &archived.entry;
        ExportedEntry {
            id: e.id,
            created_at: e.created_at.clone(),
            updated_at: e.updated_at.clone(),
            day: archived.day.clone(),
            local_time: e.lived().as_ref().map(clock::format_lived),
            title: e.title.clone(),
            title_by_user: e.title_by_user,
            body: e.body.clone(),
            tags: e.tags.clone(),
            mood_score: e.mood_score,
            summary: e.summary.clone(),
            media: archived.media.iter().map(ExportedMedia::from_archived).collect(),
            memory: archived
                .memory
                .iter()
                .map(ExportedMention::from_mention)
                .collect(),
            memory_model: archived.memory_model.clone(),
        }
    }
}

impl ExportedMedia {
    fn from_archived(media: &ArchivedMedia) -> ExportedMedia {
        ExportedMedia {
            kind: media.kind.clone(),
            mime: media.mime.clone(),
            created_at: media.created_at.clone(),
            duration_ms: media.duration_ms,
            language: media.language.clone(),
            data_base64: STANDARD.encode(&media.data),
            name: media.name.clone(),
            segments: media.segments.clone(),
        }
    }

    /// The file's bytes.
    pub fn data(&self) -> Result<Vec<u8>, String> {
        STANDARD
            .decode(&self.data_base64)
            .map_err(|e| format!("its data is not base64 ({e})"))
    }
}

/// Writes the export a piece at a time: [`JsonWriter::entry`] per entry, then
/// [`JsonWriter::finish`].
pub struct JsonWriter<W: Write> {
    out: W,
    first: bool,
}

impl<W: Write> JsonWriter<W> {
    pub fn start(mut out: W, exported_at: &str) -> std::io::Result<JsonWriter<W>> {
        write!(
            out,
            "{{\"format\":{},\"version\":{VERSION},\"exported_at\":{},\"entries\":[",
            serde_json::to_string(FORMAT)?,
            serde_json::to_string(exported_at)?
        )?;
        Ok(JsonWriter { out, first: true })
    }

    pub fn entry(&mut self, entry: &ExportedEntry) -> std::io::Result<()> {
        if !self.first {
            self.out.write_all(b",")?;
        }
        self.first = false;
        self.out.write_all(b"\n")?;
        serde_json::to_writer(&mut self.out, entry)?;
        Ok(())
    }

    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(b"\n]}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}
