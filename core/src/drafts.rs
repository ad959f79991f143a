//! Draft files: an entry's text kept beside the journal when a save cannot reach it (a
//! thread behind the editor died, or closing could not wait for the last save), in
//! `drafts/` of the data folder, until the entry is saved.
//!
//! Beside a plain journal a draft is a text file the person can open (`entry-12.txt`,
//! `new-3.txt`: "Title: …", "Tags: …", a blank line, the text). Beside an encrypted
//! journal it is a sealed file ([`crate::sealed`]) holding the same text as one part,
//! so nothing typed reaches the disk in the clear. A person cannot read a sealed draft,
//! so the app saves it for them: when the journal is next opened, [`recover`] puts each
//! sealed draft into the journal (the entry it was typed into, or a new entry) and
//! erases it. When the journal's encryption changes, [`follow`] seals the text drafts
//! (the next opening recovers them) or turns sealed ones back into text.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::db::cipher::JournalKey;
use crate::db::entries::{self, EntryEdit, NewEntry};
use crate::db::{DbError, EntryId, Result, UserId, jobs};
use crate::files;
use crate::sealed::{self, SealedFile, Spooled};

/// The folder's name inside the data folder.
pub const FOLDER: &str = "drafts";

/// The extension of a draft beside a plain journal.
pub const TEXT: &str = "txt";

/// Where drafts are kept, and how: sealed with the journal's key when it has one.
#[derive(Clone, Default)]
pub struct Drafts {
    folder: PathBuf,
    key: Option<JournalKey>,
}

impl Drafts {
    /// The drafts of the journal in `data_dir`; `key` is the journal's when it is
    /// encrypted.
    pub fn new(data_dir: &Path, key: Option<JournalKey>) -> Drafts {
        Drafts {
            folder: data_dir.join(FOLDER),
            key,
        }
    }

    /// Writes `edit` as the draft `name` (`entry-<id>`, `new-<n>`), replacing an older
    /// copy of the same draft: `<name>.txt` beside a plain journal, `<name>.sealed`
    /// beside an encrypted one. Returns the file.
    pub fn keep(&self, name: &str, edit: &EntryEdit) -> std::io::Result<PathBuf> {
        crate::files::create_private_dir(&self.folder)?;
        let text = text_of(edit);
        match &self.key {
            None => {
                let file = self.folder.join(format!("{name}.{TEXT}"));
                crate::files::write_private(&file, text.as_bytes())?;
                Ok(file)
            }
            Some(key) => {
                let file = self.folder.join(format!("{name}.{}", sealed::EXTENSION));
                SealedFile::write_whole(&file, key, &[text.as_bytes()]).map_err(std::io::Error::other)?;
                Ok(file)
            }
        }
    }

    /// Where a kept draft is, as the person is told: a sealed one also says that they
    /// need not open it (they could not), as the journal's next opening saves it.
    pub fn describe(file: &Path) -> String {
        match sealed::is_sealed(file) {
            true => format!(
                "{} (encrypted, and saved into the journal when it is next opened)",
                file.display()
            ),
            false => file.display().to_string(),
        }
    }

    /// Removes a draft whose text the journal now holds (a sealed one is erased).
    pub fn remove(&self, file: &Path) {
        let removed = match sealed::is_sealed(file) {
            true => files::erase_with_companions(file),
            false => std::fs::remove_file(file),
        };
        if let Err(error) = removed {
            tracing::warn!(%error, file = %file.display(), "a saved draft's file could not be removed");
        }
    }
}

/// A draft's text: its title, its tags, a blank line, then the text.
pub fn text_of(edit: &EntryEdit) -> String {
    let tags: Vec<&str> = edit
        .tags
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .collect();
    format!(
        "Title: {}\nTags: {}\n\n{}\n",
        edit.title,
        tags.join(", "),
        edit.body
    )
}

/// Reads back what [`text_of`] wrote (the mood is not in a draft: `None`). Text of
/// another shape is all body.
pub fn parse(text: &str) -> EntryEdit {
    let shaped = text.split_once('\n').and_then(|(title, rest)| {
        let (tags, rest) = rest.split_once('\n')?;
        let body = rest.strip_prefix('\n')?;
        Some((
            title.strip_prefix("Title: ")?,
            tags.strip_prefix("Tags: ")?,
            body.strip_suffix('\n').unwrap_or(body),
        ))
    });
    match shaped {
        Some((title, tags, body)) => EntryEdit {
            title: title.to_owned(),
            body: body.to_owned(),
            tags: tags
                .split(',')
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
                .collect(),
            mood_score: None,
        },
        None => EntryEdit {
            body: text.to_owned(),
            ..EntryEdit::default()
        },
    }
}

/// What [`recover`] did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Recovered {
    /// The entries the drafts were saved into, in the drafts' order.
    pub saved: Vec<EntryId>,
    /// A line per draft left in the folder, and why.
    pub problems: Vec<String>,
}

/// Sealed drafts in the journal's `drafts/` folder, in name order.
pub fn sealed_drafts(data_dir: &Path) -> Vec<PathBuf> {
    let Ok(items) = std::fs::read_dir(data_dir.join(FOLDER)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = items
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| sealed::is_sealed(p) && !sealed::is_written_beside(p))
        .collect();
    files.sort();
    files
}

/// Saves every sealed draft of the encrypted journal in `data_dir` into the journal,
/// each in one transaction of its own, and erases the draft once that has committed: a
/// person cannot open a sealed draft, so the app does it for them when the journal is
/// next opened (on the writer, before anything is typed). `entry-<id>` updates that
/// entry's title, text and tags through the editor's own save path (`entries::update`'s,
/// so the entry's history keeps the text it replaces, and its mood stays), unless the
/// entry is gone or in the trash: then, like `new-<n>`, the draft becomes a new entry.
/// A draft that cannot be read (sealed under an earlier passphrase, damaged) stays
/// where it is and is named in [`Recovered::problems`].
pub fn recover(conn: &mut Connection, user: UserId, data_dir: &Path, key: &JournalKey) -> Recovered {
    let mut recovered = Recovered::default();
    for file in sealed_drafts(data_dir) {
        match recover_one(conn, user, &file, key) {
            Ok(saved) => {
                recovered.saved.extend(saved);
                if let Err(e) = files::erase_with_companions(&file) {
                    // The next opening would save it again: say so rather than hide it.
                    recovered.problems.push(format!(
                        "{}: saved, but the file could not be erased ({e})",
                        file.display()
                    ));
                }
            }
            Err(e) => recovered.problems.push(format!("{}: {e}", file.display())),
        }
    }
    recovered
}

/// Saves one sealed draft; `None` when it holds nothing to save.
fn recover_one(
    conn: &mut Connection,
    user: UserId,
    file: &Path,
    key: &JournalKey,
) -> Result<Option<EntryId>> {
    let text = String::from_utf8(sealed::read_all(file, key)?.concat())
        .map_err(|_| DbError::Invalid("the draft is not text".into()))?;
    let edit = parse(&text);
    let typed_into = file
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.strip_prefix("entry-"))
        .and_then(|id| id.parse::<EntryId>().ok());
    if typed_into.is_none() && edit.title.trim().is_empty() && edit.body.trim().is_empty() {
        return Ok(None);
    }
    let tx = conn.transaction()?;
    let live = match typed_into.map(|id| entries::get(&tx, user, id)) {
        Some(Ok(entry)) if !entry.is_deleted => Some(entry),
        Some(Ok(_) | Err(DbError::EntryNotFound(_))) | None => None,
        Some(Err(e)) => return Err(e),
    };
    let id = match live {
        Some(entry) => {
            let edit = EntryEdit {
                mood_score: entry.mood_score,
                ..edit
            };
            entries::update_in(&tx, user, entry.id, &edit, false)?;
            entry.id
        }
        None => {
            let new = NewEntry {
                title: edit.title,
                body: edit.body,
                tags: edit.tags,
                ..NewEntry::default()
            };
            let id = entries::insert_entry(&tx, user, &new)?;
            jobs::enqueue_all(&tx, user, id)?;
            id
        }
    };
    tx.commit()?;
    Ok(Some(id))
}

/// Brings the drafts in `data_dir` in line with a change of the journal's key (see
/// [`crate::encryption::follow_in_spool`]): text drafts are sealed (and saved by the next
/// opening's [`recover`]), sealed ones turned back into text a person can open, and a
/// new passphrase rekeys them.
pub(crate) fn follow(data_dir: &Path, from: Option<&JournalKey>, to: Option<&JournalKey>) -> Vec<String> {
    let kind = Spooled {
        plain: TEXT,
        read_plain: |path| {
            std::fs::read(path)
                .map(|text| vec![text])
                .map_err(|e| e.to_string())
        },
        write_plain: |path, parts| {
            crate::files::write_private(path, &parts.concat()).map_err(|e| e.to_string())
        },
    };
    sealed::follow_in_folder(&data_dir.join(FOLDER), &kind, from, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, DEFAULT_USER, StorageOptions, history};

    fn key() -> JournalKey {
        JournalKey::from_raw_hex(&"c3".repeat(48)).unwrap()
    }

    fn edit(title: &str, body: &str, tags: &[&str]) -> EntryEdit {
        EntryEdit {
            title: title.into(),
            body: body.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            mood_score: None,
        }
    }

    #[test]
    fn a_drafts_text_reads_back_as_it_was_typed() {
        for typed in [
            edit("Evening", "Line one.\nLine two.\n", &["walks", "sea"]),
            edit("", "", &[]),
            edit("Title: odd", "\n\nTags: not tags", &["a"]),
        ] {
            let back = parse(&text_of(&typed));
            assert_eq!(
                (back.title, back.body, back.tags),
                (typed.title, typed.body, typed.tags)
            );
        }
        assert_eq!(parse("just words").body, "just words");
    }

    #[test]
    fn sealed_drafts_are_saved_into_the_journal_once_and_erased() {
        let dir = tempfile::tempdir().unwrap();
        let options = StorageOptions {
            key: Some(key()),
            ..StorageOptions::default()
        };
        let mut conn = db::open(&dir.path().join("journal.db"), &options).unwrap();
        let typed = |title: &str| NewEntry {
            title: title.into(),
            body: "First text.".into(),
            mood_score: Some(7),
            ..NewEntry::default()
        };
        let live = entries::create(&mut conn, DEFAULT_USER, &typed("Live")).unwrap();
        let trashed = entries::create(&mut conn, DEFAULT_USER, &typed("Trashed")).unwrap();
        entries::soft_delete(&mut conn, DEFAULT_USER, trashed).unwrap();

        let drafts = Drafts::new(dir.path(), Some(key()));
        let kept = [
            drafts.keep(&format!("entry-{live}"), &edit("Live", "Typed later.", &["kept"])),
            drafts.keep(
                &format!("entry-{trashed}"),
                &edit("From the trash", "Typed then trashed.", &[]),
            ),
            drafts.keep("entry-999", &edit("Gone", "Its entry was purged.", &[])),
            drafts.keep("new-4", &edit("", "A new one.", &[])),
            drafts.keep("new-5", &edit("", "  ", &[])),
        ]
        .map(Result::unwrap);
        assert!(kept.iter().all(|f| f.extension().unwrap() == "sealed"));
        std::fs::write(dir.path().join("drafts/new-6.sealed"), [1_u8; 4096]).unwrap();

        let recovered = recover(&mut conn, DEFAULT_USER, dir.path(), &key());
        assert_eq!(recovered.saved.len(), 4, "{recovered:?}");
        assert_eq!(recovered.problems.len(), 1, "{recovered:?}");
        assert!(recovered.problems[0].contains("new-6.sealed"), "{recovered:?}");
        assert_eq!(
            sealed_drafts(dir.path()).len(),
            1,
            "only the unreadable one is left"
        );

        let entry = entries::get(&conn, DEFAULT_USER, live).unwrap();
        assert_eq!(
            (entry.body.as_str(), entry.tags.clone()),
            ("Typed later.", vec!["kept".to_owned()])
        );
        assert_eq!(entry.mood_score, Some(7), "the mood a draft does not hold stays");
        assert_eq!(history::versions(&conn, live).unwrap()[0].body, "First text.");
        assert!(entries::get(&conn, DEFAULT_USER, trashed).unwrap().is_deleted);
        let bodies: Vec<String> = recovered.saved[1..]
            .iter()
            .map(|id| entries::get(&conn, DEFAULT_USER, *id).unwrap().body)
            .collect();
        assert_eq!(
            bodies,
            ["Typed then trashed.", "Its entry was purged.", "A new one."]
        );
        assert_eq!(entries::count(&conn, DEFAULT_USER).unwrap(), 4);

        // Nothing left to save: a second opening saves nothing twice.
        let again = recover(&mut conn, DEFAULT_USER, dir.path(), &key());
        assert!(again.saved.is_empty());
    }

    #[test]
    fn a_plain_journals_drafts_are_text_and_follow_encryption_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let plain = Drafts::new(dir.path(), None);
        let file = plain
            .keep("new-1", &edit("Walk", "By the sea.", &["walks"]))
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "Title: Walk\nTags: walks\n\nBy the sea.\n"
        );
        assert!(follow(dir.path(), None, Some(&key())).is_empty());
        assert!(!file.exists());
        let sealed_file = file.with_extension("sealed");
        assert_eq!(
            parse(std::str::from_utf8(&sealed::read_all(&sealed_file, &key()).unwrap()[0]).unwrap()).body,
            "By the sea."
        );
        assert!(follow(dir.path(), Some(&key()), None).is_empty());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "Title: Walk\nTags: walks\n\nBy the sea.\n"
        );
        assert!(!sealed_file.exists());
        plain.remove(&file);
        assert!(!file.exists());
    }
}
