//! A folder of Markdown files (or one file), as Obsidian, Bear, iA Writer and plain
//! editors leave them: one entry per `.md` file, in any subfolder.
//!
//! The date comes from YAML front matter (`date`, `created` or `created_at`), else from a
//! file name that starts `YYYY-MM-DD` (noon that day on this computer's clock). The title
//! comes from front matter, else a leading `# H1` line, else the rest of the file name
//! (less a copy number, ` (2)`).
//! Tags come from front matter (`tags`: a list, or words split at commas or spaces),
//! `mood` (1–10) too, and `day` (the day the entry counts for, as MindSage's export
//! writes it). Photos are the Markdown images with a relative path to a file
//! inside the folder (and front matter's `photos` list); the text is kept as written,
//! and each photo its text names keeps the link as its name, so the page shows it there.
//! A file's path in the folder is its id. CRLF line ends and a byte order mark are
//! undone; a file that is not UTF-8 text is refused, never guessed at.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use yaml_rust2::{Yaml, YamlLoader};

use super::{Export, FolderFiles, Item, MAX_FILE_BYTES, Photo, Problem, Source, read_limited, text};
use crate::clock;
use crate::db::entries::NewEntry;
use crate::media::links;

/// Reads every Markdown file under `folder`.
pub fn read_folder(folder: &Path) -> io::Result<Export> {
    let mut files = Vec::new();
    collect(folder, Path::new(""), &mut files)?;
    files.sort();
    let mut export = Export::new(
        Source::Markdown,
        Box::new(FolderFiles {
            root: folder.to_path_buf(),
        }),
    );
    for relative in files {
        let label = slash_path(&relative);
        let read = fs::File::open(folder.join(&relative))
            .map_err(|e| format!("cannot read it ({e})"))
            .and_then(|f| read_limited(f, MAX_FILE_BYTES));
        match read {
            Ok(bytes) => add(&mut export, &label, bytes),
            Err(reason) => export.problems.push(Problem::rejected(label, reason)),
        }
    }
    Ok(export)
}

/// Reads one Markdown file; its photos are looked for beside it.
pub fn read_file(path: &Path, bytes: Vec<u8>) -> Result<Export, String> {
    let mut export = Export::new(
        Source::Markdown,
        Box::new(FolderFiles {
            root: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        }),
    );
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    add(&mut export, &name, bytes);
    Ok(export)
}

/// Markdown files below `dir`, as paths relative to the folder imported. Hidden folders
/// (`.git`, `.obsidian`, `.trash`) are an app's own, not entries.
fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for dirent in fs::read_dir(root.join(dir))? {
        let dirent = dirent?;
        let name = dirent.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let relative = dir.join(&name);
        let kind = dirent.file_type()?;
        if kind.is_dir() {
            collect(root, &relative, out)?;
        } else if kind.is_file() && is_markdown(&relative) {
            out.push(relative);
        }
    }
    Ok(())
}

fn is_markdown(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

fn add(export: &mut Export, label: &str, bytes: Vec<u8>) {
    match item(label, bytes) {
        Ok((item, notes)) => {
            export
                .problems
                .extend(notes.into_iter().map(|n| Problem::partial(label, n)));
            export.items.push(item);
        }
        Err(reason) => export.problems.push(Problem::rejected(label, reason)),
    }
}

/// One file as an item; `relative` is its path in the folder, with `/`.
fn item(relative: &str, bytes: Vec<u8>) -> Result<(Item, Vec<String>), String> {
    let text = String::from_utf8(text::strip_bom(&bytes).to_vec()).map_err(|e| {
        format!(
            "it is not UTF-8 text (invalid bytes at {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    let text = text::normalise(&text);
    let (front, content) = front_matter(&text)?;
    let stem = Path::new(relative)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let named = text::leading_date(&stem);
    let date_key = ["date", "created", "created_at"]
        .into_iter()
        .find_map(|key| scalar(&front[key]));
    let lived = match (&date_key, named) {
        (Some(date), _) => {
            let lived = text::parse_time(date).ok_or_else(|| format!("its date {date:?} is not a date"))?;
            // MindSage's own export names the day the entry counts for beside its time:
            // an older one wrote the time in UTC, so the day says where it was lived.
            let day =
                scalar(&front["day"]).and_then(|d| chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok());
            match day {
                Some(day) if day != lived.date_naive() => clock::lived_on(lived.to_utc(), day),
                _ => lived,
            }
        }
        (None, Some((day, _))) => text::noon_of(day),
        (None, None) => {
            return Err("it has no date (no date in its front matter, no YYYY-MM-DD file name)".into());
        }
    };
    let (title, body) = match scalar(&front["title"]) {
        Some(title) => (title, content.trim_matches('\n').trim_end().to_string()),
        None => {
            let (heading, body) = text::split_title(content, false);
            let from_name = match named {
                Some((_, rest)) => without_copy_number(rest.trim_matches([' ', '-', '_', '.'])).to_string(),
                None => stem.clone(),
            };
            (if heading.is_empty() { from_name } else { heading }, body)
        }
    };
    let mood = match &front["mood"] {
        Yaml::Integer(m) if (1..=10).contains(m) => Some(*m as u8),
        Yaml::BadValue => None,
        other => return Err(format!("its mood {other:?} is not a number from 1 to 10")),
    };
    let folder = Path::new(relative).parent().unwrap_or(Path::new(""));
    let mut notes = Vec::new();
    let mut photos = Vec::new();
    let listed = match &front["photos"] {
        Yaml::Array(list) => list.iter().filter_map(scalar).collect(),
        _ => Vec::new(),
    };
    if let Yaml::Array(recordings) = &front["recordings"] {
        notes.push(format!(
            "{} recordings beside it are not imported from Markdown (MindSage's JSON export keeps them)",
            recordings.len()
        ));
    }
    let in_text = links::image_links(&body)
        .into_iter()
        .filter(|link| local(link.target))
        .map(|link| (percent_decoded(link.target), Some(link.target.to_string())));
    for (link, name) in listed.into_iter().map(|l| (l, None)).chain(in_text) {
        match inside(folder, &link) {
            Some(path) => match photos.iter_mut().find(|p: &&mut Photo| p.path == path) {
                // Listed in the front matter and named in the text: placed where named.
                Some(listed) => listed.name = listed.name.take().or(name),
                None => photos.push(Photo { path, name }),
            },
            None => notes.push(format!(
                "photo {link} is outside the folder imported and was not imported"
            )),
        }
    }
    let entry = NewEntry {
        title,
        body,
        tags: tags(&front["tags"]),
        mood_score: mood,
        created_at: None,
    };
    let mut item = Item::new(relative.to_string(), relative.to_string(), entry, lived);
    item.photos = photos;
    Ok((item, notes))
}

/// The YAML front matter (`---` … `---` or `...` at the very start) and the text after
/// it. No front matter is an empty mapping; front matter that is not YAML is refused.
fn front_matter(text: &str) -> Result<(Yaml, &str), String> {
    let none = Yaml::Hash(Default::default());
    let Some(rest) = text.strip_prefix("---\n") else {
        return Ok((none, text));
    };
    let end = ["\n---\n", "\n...\n"]
        .iter()
        .filter_map(|fence| rest.find(fence).map(|i| (i, i + fence.len())))
        .chain(
            ["\n---", "\n..."]
                .iter()
                .filter(|fence| rest.ends_with(*fence))
                .map(|fence| (rest.len() - fence.len(), rest.len())),
        )
        .chain(rest.starts_with("---\n").then_some((0, 4)))
        .min();
    let Some((yaml_end, content_start)) = end else {
        return Ok((none, text));
    };
    let docs = YamlLoader::load_from_str(&rest[..yaml_end])
        .map_err(|e| format!("its front matter is not valid YAML ({e})"))?;
    let front = docs.into_iter().next().unwrap_or(none);
    match front {
        Yaml::Hash(_) => Ok((front, &rest[content_start..])),
        Yaml::Null | Yaml::BadValue => Ok((Yaml::Hash(Default::default()), &rest[content_start..])),
        _ => Err("its front matter is not a list of keys and values".into()),
    }
}

/// A YAML value written as one piece of text (a string, a number, a bare date).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Yaml::Integer(i) => Some(i.to_string()),
        _ => None,
    }
}

fn tags(value: &Yaml) -> Vec<String> {
    match value {
        Yaml::Array(list) => list.iter().filter_map(scalar).collect(),
        other => scalar(other)
            .map(|s| {
                s.split([',', ' '])
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// A file name's rest without the ` (2)` that numbers a second file of the same name
/// (MindSage's export numbers a day's untitled entries so; file managers number copies
/// so): `(2)` alone is no title, and `Walk (2)` is titled `Walk`.
fn without_copy_number(rest: &str) -> &str {
    let Some(open) = rest.strip_suffix(')').and_then(|r| r.rfind('(')) else {
        return rest;
    };
    let number = &rest[open + 1..rest.len() - 1];
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return rest;
    }
    rest[..open].trim_end()
}

/// Whether an image's target is a file rather than an address.
fn local(target: &str) -> bool {
    let remote = target.contains("://") || target.starts_with("data:") || target.starts_with("mailto:");
    !target.is_empty() && !remote
}

/// `%20` and the like in a link, as editors write spaces in file names.
fn percent_decoded(link: &str) -> String {
    let bytes = link.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%')
            .then(|| link.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| link.to_string())
}

/// `link`, relative to the file's folder, as a path inside the folder imported; `None`
/// when it leads out of it (or is absolute).
fn inside(folder: &Path, link: &str) -> Option<String> {
    let mut parts: Vec<String> = folder
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    for part in link.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p if p.contains(':') => return None,
            p => parts.push(p.to_string()),
        }
    }
    if link.starts_with(['/', '\\']) || parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_dates_titles_and_tags() {
        let text = "---\r\ntitle: Walk\r\ndate: 2024-05-01 08:15\r\ntags: [outside, \"dog\"]\r\nmood: 7\r\n---\r\nWent out.\r\n";
        let (item, notes) = item("a/b.md", text.as_bytes().to_vec()).unwrap();
        assert!(notes.is_empty());
        assert_eq!(item.entry.title, "Walk");
        assert_eq!(item.entry.body, "Went out.");
        assert_eq!(item.entry.tags, ["outside", "dog"]);
        assert_eq!(item.entry.mood_score, Some(7));
        assert_eq!(item.lived().date_naive().to_string(), "2024-05-01");
        assert_eq!(item.external_id, "a/b.md");
    }

    #[test]
    fn file_names_give_dates_and_headings_titles() {
        let (item, _) = item(
            "2023-12-24 Christmas Eve.md",
            b"\xEF\xBB\xBFSnow all day.".to_vec(),
        )
        .unwrap();
        assert_eq!(item.entry.title, "Christmas Eve");
        assert_eq!(item.lived().date_naive().to_string(), "2023-12-24");
        let (item, _) = item_of("2023-12-25.md", "# Presents\n\nSocks.");
        assert_eq!(
            (item.entry.title.as_str(), item.entry.body.as_str()),
            ("Presents", "Socks.")
        );
        assert!(
            super::item("notes.md", b"no date".to_vec())
                .unwrap_err()
                .contains("no date")
        );
        assert!(
            super::item("2023-01-01.md", vec![0xff, 0xfe, 0x00])
                .unwrap_err()
                .contains("UTF-8")
        );
        assert!(
            super::item("2023-01-01.md", b"---\n: [\n---\nx".to_vec())
                .unwrap_err()
                .contains("YAML")
        );
    }

    #[test]
    fn a_copy_number_in_a_file_name_is_no_title() {
        assert_eq!(item_of("2023-01-01 (2).md", "Rain.").0.entry.title, "");
        assert_eq!(item_of("2023-01-01 Walk (12).md", "Rain.").0.entry.title, "Walk");
        assert_eq!(
            item_of("2023-01-01 Walk (x).md", "Rain.").0.entry.title,
            "Walk (x)"
        );
    }

    #[test]
    fn photos_are_local_links_inside_the_folder() {
        let (item, notes) = item_of(
            "days/2023-01-01.md",
            "![a](img/a%20b.png) ![r](https://x/y.png) ![o](../../out.png) ![u](../up.jpg \"t\")",
        );
        let photo = |path: &str, name: &str| Photo {
            path: path.into(),
            name: Some(name.into()),
        };
        assert_eq!(
            item.photos,
            [
                photo("days/img/a b.png", "img/a%20b.png"),
                photo("up.jpg", "../up.jpg")
            ]
        );
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn a_photo_listed_and_named_in_the_text_is_one_photo_with_its_name() {
        let (item, _) = item_of(
            "2023-01-01.md",
            "---\nphotos: [\"media/a.png\", \"media/b.png\"]\n---\nSea ![](media/b.png)",
        );
        let names: Vec<_> = item
            .photos
            .iter()
            .map(|p| (p.path.as_str(), p.name.as_deref()))
            .collect();
        assert_eq!(
            names,
            [("media/a.png", None), ("media/b.png", Some("media/b.png"))]
        );
    }

    fn item_of(name: &str, text: &str) -> (Item, Vec<String>) {
        item(name, text.as_bytes().to_vec()).unwrap()
    }
}
