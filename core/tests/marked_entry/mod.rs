//! An entry carrying a unique marker in every place an entry's content is stored, and
//! byte scans of a data folder for those markers: shared by the secure-delete tests
//! (`erasure.rs`: nothing left after a purge) and the encryption tests
//! (`encryption.rs`: nothing readable in an encrypted journal's files).

#![allow(dead_code)] // each test binary uses a different part of this module

use std::path::{Path, PathBuf};

use mindsage_core::ai::client::CallStats;
use mindsage_core::ai::enrich::{self, Enriched, Enrichment};
use mindsage_core::db::audio::Segment;
use mindsage_core::db::audio::{self, NewRecording};
use mindsage_core::db::entries::{self, EntryEdit, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, EntryId, backup, gallery, history, memory, vectors};
use mindsage_core::voice::wav;
use rand::Rng;
use rusqlite::Connection;

const USER: db::UserId = DEFAULT_USER;
pub const EMBED_MODEL: &str = "nomic-embed-text";

/// A byte string that must not be found, and what it stands for.
pub struct Marker {
    pub what: &'static str,
    pub bytes: Vec<u8>,
}

impl Marker {
    pub fn text(what: &'static str, text: &str) -> Marker {
        Marker {
            what,
            bytes: text.as_bytes().to_vec(),
        }
    }

    /// 24 bytes from the middle of `data`: random bytes (noise pixels, noise samples,
    /// a random vector) occur nowhere else, and so few rarely straddle a page boundary.
    pub fn slice(what: &'static str, data: &[u8]) -> Marker {
        let start = data.len() / 2;
        Marker {
            what,
            bytes: data[start..start + 24].to_vec(),
        }
    }
}

/// Whether `needle` occurs anywhere in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every file under `dir`, recursively, with its bytes.
pub fn data_folder_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for item in std::fs::read_dir(dir).expect("read the data folder").flatten() {
        let path = item.path();
        if path.is_dir() {
            files.extend(data_folder_files(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            files.push((path, bytes));
        }
    }
    files
}

/// "what in file" for each marker found in a file under `dir` whose path `scanned` keeps.
pub fn traces(dir: &Path, markers: &[Marker], scanned: impl Fn(&Path) -> bool) -> Vec<String> {
    let files = data_folder_files(dir);
    markers
        .iter()
        .flat_map(|m| {
            files
                .iter()
                .filter(|(path, bytes)| scanned(path) && contains(bytes, &m.bytes))
                .map(move |(path, _)| format!("{} in {}", m.what, path.display()))
        })
        .collect()
}

/// The markers none of the files under `dir` holds.
pub fn missing(dir: &Path, markers: &[Marker]) -> Vec<&'static str> {
    let files = data_folder_files(dir);
    markers
        .iter()
        .filter(|m| !files.iter().any(|(_, bytes)| contains(bytes, &m.bytes)))
        .map(|m| m.what)
        .collect()
}

/// Every file but the backups: what the journal itself leaves.
pub fn journal_itself(path: &Path) -> bool {
    !path.components().any(|c| c.as_os_str() == backup::BACKUPS_FOLDER)
}

pub fn new_entry(title: &str, body: &str, tags: &[&str]) -> NewEntry {
    NewEntry {
        title: title.into(),
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        mood_score: None,
        created_at: None,
    }
}

/// An entry carrying a marker in every place an entry's content is stored: title, body,
/// tag, an earlier version, a recording (its words and its sound), a photo and its
/// thumbnail, the model's summary and mood tag, and its search vector. Returns its id and
/// the markers.
pub fn fully_marked_entry(conn: &mut Connection, rng: &mut impl Rng) -> (EntryId, Vec<Marker>) {
    let mut markers = vec![
        Marker::text("title", "zqxerasetitle"),
        Marker::text("tag", "zqxerasetag"),
        Marker::text("earlier version", "zqxeraseversion"),
        Marker::text("body", "zqxerasebody"),
    ];
    let first = "Before I changed my mind: zqxeraseversion. ".repeat(40);
    let id = entries::create(conn, USER, &new_entry("zqxerasetitle", &first, &["zqxerasetag"])).unwrap();
    let edit = EntryEdit {
        title: "zqxerasetitle".into(),
        body: "What I wrote in the end: zqxerasebody. ".repeat(40),
        tags: vec!["zqxerasetag".into()],
        mood_score: None,
    };
    entries::update(conn, USER, id, &edit).unwrap();
    assert_eq!(
        history::versions(conn, id).unwrap().len(),
        1,
        "the first text is kept as a version"
    );
    markers.extend(attach_recording(conn, id, rng));
    markers.extend(attach_photo(conn, id, rng));
    markers.extend(apply_enrichment(conn, id, rng));
    (id, markers)
}

/// A second of noise as the recording, with a segment of marked words.
pub fn attach_recording(conn: &Connection, id: EntryId, rng: &mut impl Rng) -> Vec<Marker> {
    let samples: Vec<f32> = (0..16_000).map(|_| rng.random_range(-0.5..0.5)).collect();
    let bytes = wav::encode(&samples);
    let segments = [Segment {
        start_ms: 0,
        end_ms: 1_000,
        text: "zqxerasesegment".into(),
    }];
    let recording = NewRecording {
        wav: &bytes,
        duration_ms: 1_000,
        language: "en",
        segments: &segments,
    };
    audio::attach(conn, USER, id, &recording, &mindsage_core::clock::now_utc()).unwrap();
    vec![
        Marker::text("recording's transcript segment", "zqxerasesegment"),
        Marker::slice("recording's sound", &bytes),
    ]
}

/// A photo of noise: its bytes and its thumbnail's are found nowhere else.
pub fn attach_photo(conn: &Connection, id: EntryId, rng: &mut impl Rng) -> Vec<Marker> {
    let pixels = image::RgbImage::from_fn(96, 96, |_, _| image::Rgb(rng.random()));
    let mut png = std::io::Cursor::new(Vec::new());
    pixels.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let prepared = mindsage_core::media::prepare_image(png.into_inner()).unwrap();
    gallery::attach_image(conn, USER, id, &prepared, &mindsage_core::clock::now_utc(), None).unwrap();
    vec![
        Marker::slice("photo", &prepared.data),
        Marker::slice("photo's thumbnail", &prepared.thumbnail_jpeg),
    ]
}

/// The model's write-back, as the job runner makes it: summary, mood tag, embedding.
pub fn apply_enrichment(conn: &mut Connection, id: EntryId, rng: &mut impl Rng) -> Vec<Marker> {
    let embedding: Vec<f32> = (0..64).map(|_| rng.random_range(-1.0..1.0)).collect();
    let entry = entries::get(conn, USER, id).unwrap();
    let enriched = Enriched {
        enrichment: Enrichment {
            title: "A model's title".into(),
            mood_score: 4,
            mood_tags: vec!["zqxerasemood".into()],
            summary: "zqxerasesummary of the day".into(),
            mentions: vec![memory::Found {
                kind: memory::Kind::Person,
                name: "zqxeraseperson".into(),
                relation: "zqxeraserelation".into(),
            }],
        },
        embedding: embedding.clone(),
        embed_model: EMBED_MODEL.into(),
        model_calls: 1,
        stats: CallStats::default(),
        revision: entry.revision,
        body: entry.body,
        text_model: "a text model".into(),
    };
    assert!(
        enrich::apply(conn, USER, id, &enriched).unwrap(),
        "the enrichment is written"
    );
    // Stored normalised, as little-endian f32s.
    let mut unit = embedding;
    vectors::normalise(&mut unit);
    let stored: Vec<u8> = unit.iter().flat_map(|x| x.to_le_bytes()).collect();
    vec![
        Marker::text("model's summary", "zqxerasesummary"),
        Marker::text("model's mood tag", "zqxerasemood"),
        Marker::text("person the entry mentions", "zqxeraseperson"),
        Marker::text("that person's relation", "zqxeraserelation"),
        Marker::slice("search vector", &stored),
    ]
}
