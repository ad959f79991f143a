//! The Markdown export: one `YYYY-MM-DD Title.md` per entry, its text as stored after
//! YAML front matter (`title`, `date`, `day`, `tags`, `mood`, `summary`, `photos`,
//! `recordings`), and its photos and recordings in `media/` beside the notes. A Markdown
//! image that names one of the entry's photos points at the photo's file there, so any
//! editor shows it in place (and an import of the folder places it there again). Values
//! are written as double-quoted strings, so any text a person typed is valid YAML.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::ExportError;
use crate::clock;
use crate::db::archive::ArchivedEntry;
use crate::media;
use crate::media::links;

/// Characters of a title kept in a file name.
const NAME_TITLE_CHARS: usize = 60;

/// A folder being filled with an export.
pub struct Folder {
    root: PathBuf,
    names: HashSet<String>,
    bytes: u64,
}

impl Folder {
    /// Creates the folder (or takes an empty one).
    pub fn create(root: &Path) -> Result<Folder, ExportError> {
        let write_error = |error| ExportError::Write {
            path: root.to_path_buf(),
            error,
        };
        if root.exists() && fs::read_dir(root).map_err(write_error)?.next().is_some() {
            return Err(ExportError::FolderNotEmpty(root.to_path_buf()));
        }
        fs::create_dir_all(root.join("media")).map_err(write_error)?;
        Ok(Folder {
            root: root.to_path_buf(),
            names: HashSet::new(),
            bytes: 0,
        })
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Writes one entry and its media.
    pub fn write(&mut self, archived: &ArchivedEntry) -> Result<(), ExportError> {
        let entry = &archived.entry;
        let mut photos = Vec::new();
        let mut recordings = Vec::new();
        // Photos the text names, and the files they are written to.
        let mut named = Vec::new();
        for item in &archived.media {
            let extension = match item.mime.as_str() {
                "image/png" => "png",
                "image/jpeg" => "jpg",
                "audio/wav" => "wav",
                _ => "bin",
            };
            let name = format!("media/{}.{extension}", &media::sha256_hex(&item.data)[..16]);
            self.file(&name, &item.data)?;
            if item.kind == "audio" {
                recordings.push(name);
            } else {
                if let Some(in_text) = &item.name {
                    named.push((in_text.as_str(), name.clone()));
                }
                photos.push(name);
            }
        }
        let mut text = String::from("---\n");
        let mut field = |key: &str, value: &str| text.push_str(&format!("{key}: {}\n", quoted(value)));
        if !entry.title.is_empty() {
            field("title", &entry.title);
        }
        // The time it was lived, with the offset where it was written.
        let date = entry
            .lived()
            .map_or_else(|| entry.created_at.clone(), |t| clock::format_lived(&t));
        field("date", &date);
        field("day", &archived.day);
        if let Some(summary) = &entry.summary {
            field("summary", summary);
        }
        for (key, list) in [
            ("tags", &entry.tags),
            ("photos", &photos),
            ("recordings", &recordings),
        ] {
            if !list.is_empty() {
                let items: Vec<String> = list.iter().map(|t| quoted(t)).collect();
                text.push_str(&format!("{key}: [{}]\n", items.join(", ")));
            }
        }
        if let Some(mood) = entry.mood_score {
            text.push_str(&format!("mood: {mood}\n"));
        }
        text.push_str("---\n");
        text.push_str(&pointed_at_files(&entry.body, &named));
        if !entry.body.ends_with('\n') {
            text.push('\n');
        }
        let name = self.unique_name(&archived.day, &entry.title);
        self.file(&name, text.as_bytes())
    }

    fn file(&mut self, name: &str, data: &[u8]) -> Result<(), ExportError> {
        let path = self.root.join(name);
        if name.starts_with("media/") && path.exists() {
            return Ok(()); // the same photo in two entries: one file
        }
        fs::write(&path, data).map_err(|error| ExportError::Write { path, error })?;
        self.bytes += data.len() as u64;
        Ok(())
    }

    /// `2024-05-01 Walk by the river.md`, numbered when taken; characters no file system
    /// takes are left out.
    fn unique_name(&mut self, day: &str, title: &str) -> String {
        let cleaned: String = title
            .chars()
            .filter(|c| !c.is_control() && !matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|'))
            .take(NAME_TITLE_CHARS)
            .collect();
        let cleaned = cleaned.trim().trim_end_matches('.');
        let base = if cleaned.is_empty() {
            day.to_string()
        } else {
            format!("{day} {cleaned}")
        };
        let mut name = format!("{base}.md");
        let mut n = 2;
        while !self.names.insert(name.to_lowercase()) {
            name = format!("{base} ({n}).md");
            n += 1;
        }
        name
    }
}

/// `body` with each Markdown image that names a photo (`named`: its name in the text,
/// its file) pointing at the file.
fn pointed_at_files(body: &str, named: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    for link in links::image_links(body) {
        if let Some((_, file)) = named.iter().find(|(name, _)| *name == link.target) {
            out.push_str(&body[copied..link.target_range.start]);
            out.push_str(file);
            copied = link.target_range.end;
        }
    }
    out.push_str(&body[copied..]);
    out
}

/// A YAML double-quoted scalar: JSON's string escapes are YAML's.
fn quoted(value: &str) -> String {
    serde_json::to_string(value).expect("a string serialises")
}

#[cfg(test)]
mod tests {
    use super::pointed_at_files;

    #[test]
    fn images_naming_photos_point_at_their_files_and_others_stay() {
        let named = [
            ("bay 1.jpg", "media/00aa.jpg".to_string()),
            ("sea.png", "media/11bb.png".to_string()),
        ];
        assert_eq!(
            pointed_at_files("A ![bay](<bay 1.jpg>)\n![](sea.png \"t\") ![](other.png)", &named),
            "A ![bay](<media/00aa.jpg>)\n![](media/11bb.png \"t\") ![](other.png)"
        );
        assert_eq!(pointed_at_files("no photos", &named), "no photos");
    }
}
