//! What the journal remembers: the people, places and activities its entries mention
//! (migration 20). Enrichment finds them (`ai::enrich`, in the same model call as the
//! title and summary) and hands them to [`remember`]; the person corrects them (rename,
//! relate, hide, merge, split), and an export carries both ([`restore`]).
//!
//! A subject is found again by the words the journal uses for it, not by its id: each
//! name and relation the model reports becomes a key ([`key_of`]: "My Sister" →
//! "sister") pointing at one subject, so an entry that says "Maya, my sister" links
//! "maya" and "sister" to Maya, and a later "my sister" finds her. The person's changes
//! are theirs (`by_user`): the model's next pass over an entry replaces only its own
//! mentions, resolves names through the keys a merge moved, and never renames, relates
//! or shows a subject the person touched.

use rusqlite::{Connection, OptionalExtension, params};

use super::entries::{self, EntryRow};
use super::queries::{
    MEMORY_ENTRY_CREATED, MEMORY_ENTRY_MODEL, MEMORY_MENTION_INSERT, MEMORY_MENTION_MOVE,
    MEMORY_MENTIONS_CLEAR_MODEL, MEMORY_MENTIONS_MERGE, MEMORY_MENTIONS_OF_ENTRY, MEMORY_NAME_FIND,
    MEMORY_NAME_INSERT, MEMORY_NAME_TAKE, MEMORY_NAMES_ALL, MEMORY_NAMES_MERGE, MEMORY_SUBJECT,
    MEMORY_SUBJECT_CORRECT, MEMORY_SUBJECT_DELETE, MEMORY_SUBJECT_ENTRIES, MEMORY_SUBJECT_INSERT,
    MEMORY_SUBJECT_MODEL_UPDATE, MEMORY_SUBJECTS,
};
use super::{DbError, EntryId, Result, UserId};

/// A subject's id.
pub type SubjectId = i64;

/// Longest name or relation kept, in characters.
pub const MAX_NAME_CHARS: usize = 60;

/// What a subject is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Person,
    Place,
    Activity,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Person, Kind::Place, Kind::Activity];

    /// The name stored in `memory_subjects.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Person => "person",
            Kind::Place => "place",
            Kind::Activity => "activity",
        }
    }

    fn parse(text: &str) -> rusqlite::Result<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text).ok_or_else(|| {
            rusqlite::Error::InvalidColumnType(0, text.to_owned(), rusqlite::types::Type::Text)
        })
    }
}

/// One thing an entry mentions, as the model reported it: the words the entry uses for
/// it, and for a person how the writer is related to them ("sister"), if it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub kind: Kind,
    pub name: String,
    pub relation: String,
}

/// A subject with how often and when the journal's live entries mention it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Subject {
    pub id: SubjectId,
    pub kind: Kind,
    pub name: String,
    pub relation: String,
    pub hidden: bool,
    /// The person changed it: its name, relation and visibility are theirs.
    pub corrected: bool,
    /// Live entries that mention it.
    pub entries: u64,
    /// When the first and the latest of them were written (UTC, as stored).
    pub first: Option<String>,
    pub last: Option<String>,
}

/// One subject an entry mentions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    pub subject: SubjectId,
    pub kind: Kind,
    pub name: String,
    pub relation: String,
    pub hidden: bool,
    pub corrected: bool,
    /// The words the entry uses.
    pub phrase: String,
    /// Where they first stand in the body (a byte offset), if they do as written.
    pub position: Option<usize>,
    /// The person linked this mention to this subject (a split).
    pub linked_by_user: bool,
}

/// The key a name is found by: lower case, spaces collapsed, surrounding punctuation
/// and a leading "my", "our" or "the" dropped ("My Sister" and "sister" are one key).
pub fn key_of(name: &str) -> String {
    let lower = name
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let trimmed = lower.trim_matches(|c: char| !c.is_alphanumeric());
    ["my ", "our ", "the "]
        .iter()
        .find_map(|prefix| trimmed.strip_prefix(prefix))
        .unwrap_or(trimmed)
        .to_owned()
}

/// Replaces the model's memory of an entry with `found` (read from `body` by `model`),
/// keeping what the person linked: a mention the person moved stays, and the model's
/// mention under the same words is not added beside it. Call it in the transaction that
/// writes the rest of the enrichment.
pub fn remember(
    conn: &Connection,
    user: UserId,
    entry: EntryId,
    body: &str,
    found: &[Found],
    model: &str,
) -> Result<()> {
    let created_at = entry_created_at(conn, user, entry)?;
    conn.prepare_cached(MEMORY_MENTIONS_CLEAR_MODEL.sql)?
        .execute(params![entry])?;
    let linked: Vec<(Kind, String)> = of_entry(conn, user, entry)?
        .into_iter()
        .filter(|m| m.linked_by_user)
        .map(|m| (m.kind, key_of(&m.phrase)))
        .collect();
    for item in found {
        if key_of(&item.name).is_empty() || linked.contains(&(item.kind, key_of(&item.name))) {
            continue;
        }
        let subject = resolve(conn, user, item)?;
        insert_mention(conn, entry, subject, &item.name, body, false, &created_at)?;
    }
    conn.prepare_cached(MEMORY_ENTRY_MODEL.sql)?
        .execute(params![user, entry, model])?;
    Ok(())
}

/// A mention as an export carries it: what was found, and what the person had changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    pub found: Found,
    /// The words the entry uses for it.
    pub phrase: String,
    pub hidden: bool,
    /// The person had changed the subject: its name, relation and visibility win.
    pub corrected: bool,
    /// The person had linked this mention to this subject.
    pub linked_by_user: bool,
}

/// Writes an imported entry's memory as its export had it, and the model that read it
/// (`None`: the next backfill has it read again). A corrected subject is found by its
/// name (or made) and takes the export's relation and visibility, and the entry's words
/// for it point at it from then on.
pub fn restore(
    conn: &Connection,
    user: UserId,
    entry: EntryId,
    body: &str,
    items: &[Restored],
    model: Option<&str>,
) -> Result<()> {
    let created_at = entry_created_at(conn, user, entry)?;
    for item in items {
        if key_of(&item.found.name).is_empty() {
            continue;
        }
        let subject = if item.corrected {
            let subject = match find(conn, user, item.found.kind, &key_of(&item.found.name))? {
                Some(subject) => subject,
                None => insert_subject(conn, user, &item.found)?,
            };
            conn.prepare_cached(MEMORY_SUBJECT_CORRECT.sql)?.execute(params![
                user,
                subject,
                item.found.name,
                item.found.relation,
                item.hidden
            ])?;
            for words in [&item.found.name, &item.phrase, &item.found.relation] {
                take_name(conn, user, item.found.kind, words, subject)?;
            }
            subject
        } else {
            resolve(conn, user, &item.found)?
        };
        let phrase = if item.phrase.trim().is_empty() {
            &item.found.name
        } else {
            &item.phrase
        };
        insert_mention(
            conn,
            entry,
            subject,
            phrase,
            body,
            item.linked_by_user,
            &created_at,
        )?;
    }
    if let Some(model) = model {
        conn.prepare_cached(MEMORY_ENTRY_MODEL.sql)?
            .execute(params![user, entry, model])?;
    }
    Ok(())
}

/// The subject `found` is, by its words: its name's key ("my sister" finds Maya when an
/// earlier entry said "Maya, my sister"), else the one known only by its relation, which
/// takes the name ("Ruth, my mother" after "my mother"), else a new one. A subject the
/// model made learns a relation it lacked.
fn resolve(conn: &Connection, user: UserId, found: &Found) -> Result<SubjectId> {
    let key = key_of(&found.name);
    let relation_key = key_of(&found.relation);
    if let Some(subject) = find(conn, user, found.kind, &key)? {
        learn_relation(conn, user, found, subject)?;
        return Ok(subject);
    }
    // Someone known so far only by the relation ("my sister") is the one an entry now
    // names with it; someone already named otherwise is not (a second sister, another
    // friend).
    let unnamed = match relation_key.is_empty() {
        true => None,
        false => match find(conn, user, found.kind, &relation_key)? {
            Some(subject) => {
                let row = subject_row(conn, user, subject)?;
                (!row.corrected && key_of(&row.name) == relation_key).then_some((subject, row))
            }
            None => None,
        },
    };
    let subject = match unnamed {
        Some((subject, row)) => {
            conn.prepare_cached(MEMORY_SUBJECT_MODEL_UPDATE.sql)?
                .execute(params![user, subject, clip(&found.name), row.relation])?;
            subject
        }
        None => insert_subject(conn, user, found)?,
    };
    add_name(conn, user, found.kind, &key, subject)?;
    learn_relation(conn, user, found, subject)?;
    Ok(subject)
}

/// A subject the model made takes a relation it lacked, and the relation's key points
/// at it unless it points elsewhere already.
fn learn_relation(conn: &Connection, user: UserId, found: &Found, subject: SubjectId) -> Result<()> {
    let relation_key = key_of(&found.relation);
    if relation_key.is_empty() {
        return Ok(());
    }
    let row = subject_row(conn, user, subject)?;
    if !row.corrected && row.relation.is_empty() {
        conn.prepare_cached(MEMORY_SUBJECT_MODEL_UPDATE.sql)?
            .execute(params![user, subject, row.name, clip(&found.relation)])?;
    }
    add_name(conn, user, found.kind, &relation_key, subject)
}

fn entry_created_at(conn: &Connection, user: UserId, entry: EntryId) -> Result<String> {
    conn.prepare_cached(MEMORY_ENTRY_CREATED.sql)?
        .query_row(params![user, entry], |row| row.get(0))
        .optional()?
        .ok_or(DbError::EntryNotFound(entry))
}

fn find(conn: &Connection, user: UserId, kind: Kind, key: &str) -> Result<Option<SubjectId>> {
    Ok(conn
        .prepare_cached(MEMORY_NAME_FIND.sql)?
        .query_row(params![user, kind.as_str(), key], |row| row.get(0))
        .optional()?)
}

/// A subject as stored.
struct Row {
    kind: Kind,
    name: String,
    relation: String,
    hidden: bool,
    corrected: bool,
}

fn subject_row(conn: &Connection, user: UserId, subject: SubjectId) -> Result<Row> {
    conn.prepare_cached(MEMORY_SUBJECT.sql)?
        .query_row(params![user, subject], |row| {
            Ok(Row {
                kind: Kind::parse(&row.get::<_, String>(0)?)?,
                name: row.get(1)?,
                relation: row.get(2)?,
                hidden: row.get(3)?,
                corrected: row.get(4)?,
            })
        })
        .optional()?
        .ok_or_else(|| DbError::Invalid("that person, place or activity is gone".to_owned()))
}

fn insert_subject(conn: &Connection, user: UserId, found: &Found) -> Result<SubjectId> {
    conn.prepare_cached(MEMORY_SUBJECT_INSERT.sql)?.execute(params![
        user,
        found.kind.as_str(),
        clip(&found.name),
        clip(&found.relation)
    ])?;
    Ok(conn.last_insert_rowid())
}

/// Points `key` at `subject` unless it points at one already.
fn add_name(conn: &Connection, user: UserId, kind: Kind, key: &str, subject: SubjectId) -> Result<()> {
    if !key.is_empty() {
        conn.prepare_cached(MEMORY_NAME_INSERT.sql)?
            .execute(params![user, kind.as_str(), key, subject])?;
    }
    Ok(())
}

/// Points the key of `words` at `subject`, as the person's, whatever it pointed at.
fn take_name(conn: &Connection, user: UserId, kind: Kind, words: &str, subject: SubjectId) -> Result<()> {
    let key = key_of(words);
    if !key.is_empty() {
        conn.prepare_cached(MEMORY_NAME_TAKE.sql)?
            .execute(params![user, kind.as_str(), key, subject])?;
    }
    Ok(())
}

fn insert_mention(
    conn: &Connection,
    entry: EntryId,
    subject: SubjectId,
    phrase: &str,
    body: &str,
    by_user: bool,
    created_at: &str,
) -> Result<()> {
    let phrase = clip(phrase);
    conn.prepare_cached(MEMORY_MENTION_INSERT.sql)?.execute(params![
        entry,
        subject,
        phrase,
        position_in(body, &phrase).map(|p| p as i64),
        by_user,
        created_at
    ])?;
    Ok(())
}

/// Where `phrase` first stands in `body`, as written or in another case.
fn position_in(body: &str, phrase: &str) -> Option<usize> {
    if phrase.is_empty() {
        return None;
    }
    body.find(phrase).or_else(|| {
        let wanted: Vec<char> = phrase.chars().flat_map(char::to_lowercase).collect();
        body.char_indices().map(|(i, _)| i).find(|&i| {
            let mut rest = body[i..].chars().flat_map(char::to_lowercase);
            wanted.iter().all(|w| rest.next() == Some(*w))
        })
    })
}

fn clip(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_NAME_CHARS)
        .collect()
}

/// Every subject of `user`, people first, then places, then activities, each most
/// mentioned first; hidden ones too (the caller chooses whether to show them).
pub fn subjects(conn: &Connection, user: UserId) -> Result<Vec<Subject>> {
    let mut stmt = conn.prepare_cached(MEMORY_SUBJECTS.sql)?;
    let mut rows = stmt
        .query_map(params![user], |row| {
            Ok(Subject {
                id: row.get(0)?,
                kind: Kind::parse(&row.get::<_, String>(1)?)?,
                name: row.get(2)?,
                relation: row.get(3)?,
                hidden: row.get(4)?,
                corrected: row.get(5)?,
                entries: row.get::<_, i64>(6)?.max(0) as u64,
                first: row.get(7)?,
                last: row.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    rows.sort_by(|a, b| {
        (a.kind, std::cmp::Reverse(a.entries), a.name.to_lowercase()).cmp(&(
            b.kind,
            std::cmp::Reverse(b.entries),
            b.name.to_lowercase(),
        ))
    });
    Ok(rows)
}

/// Up to `limit` of the live entries that mention `subject`, newest first, as list rows.
pub fn entries_of(conn: &Connection, user: UserId, subject: SubjectId, limit: u32) -> Result<Vec<EntryRow>> {
    let mut stmt = conn.prepare_cached(MEMORY_SUBJECT_ENTRIES.sql)?;
    let rows = stmt
        .query_map(params![user, subject, limit], entries::entry_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The subjects an entry mentions, in the order the text mentions them.
pub fn of_entry(conn: &Connection, user: UserId, entry: EntryId) -> Result<Vec<Mention>> {
    let mut stmt = conn.prepare_cached(MEMORY_MENTIONS_OF_ENTRY.sql)?;
    let mentions = stmt
        .query_map(params![user, entry], |row| {
            Ok(Mention {
                subject: row.get(0)?,
                kind: Kind::parse(&row.get::<_, String>(1)?)?,
                name: row.get(2)?,
                relation: row.get(3)?,
                hidden: row.get(4)?,
                corrected: row.get(5)?,
                phrase: row.get(6)?,
                position: row.get::<_, Option<i64>>(7)?.map(|p| p as usize),
                linked_by_user: row.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(mentions)
}

/// The subject of `kind` the journal calls `name` (any of its names or its relation).
pub fn find_by_name(conn: &Connection, user: UserId, kind: Kind, name: &str) -> Result<Option<SubjectId>> {
    find(conn, user, kind, &key_of(name))
}

/// A subject a question names, and the words that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub subject: SubjectId,
    pub kind: Kind,
    pub name: String,
    pub relation: String,
    /// The words of the question that name it, as matched (lower case).
    pub words: String,
}

impl Named {
    /// What the journal remembered, as a person reads it: "Maya, whom you call your
    /// sister", "your sister", "Villa Nova".
    pub fn described(&self) -> String {
        if self.relation.is_empty() {
            self.name.clone()
        } else if key_of(&self.name) == self.relation {
            format!("your {}", self.relation)
        } else {
            format!("{}, whom you call your {}", self.name, self.relation)
        }
    }
}

/// The subjects `text` names (a question): each of their words ("maya", "sister",
/// "villa nova") that stands in it as whole words, longest first, each place in the text
/// taken once. Hidden subjects are left out: the person put them aside.
pub fn named_in(conn: &Connection, user: UserId, text: &str) -> Result<Vec<Named>> {
    let mut names = every_name(conn, user)?;
    names.sort_by_key(|n| std::cmp::Reverse(n.words.chars().count()));
    let lower = text.to_lowercase();
    let mut taken: Vec<std::ops::Range<usize>> = Vec::new();
    let mut found: Vec<Named> = Vec::new();
    for named in names {
        if named.words.chars().count() < 3 || found.iter().any(|f| f.subject == named.subject) {
            continue;
        }
        let place = whole_words_at(&lower, &named.words)
            .find(|at| !taken.iter().any(|t| t.start < at.end && at.start < t.end));
        if let Some(at) = place {
            taken.push(at);
            found.push(named);
        }
    }
    Ok(found)
}

/// The subjects called `word` (an `@name` typed into the search box, lower case): by
/// one of their keys, or by a key's first words ("maya" for "maya lind"), or, while the
/// person is still typing it (`partial`), by a key's beginning. Hidden subjects are left
/// out, as for questions.
pub fn called(conn: &Connection, user: UserId, word: &str, partial: bool) -> Result<Vec<Named>> {
    let word = key_of(word);
    let mut found: Vec<Named> = Vec::new();
    if word.is_empty() {
        return Ok(found);
    }
    for named in every_name(conn, user)? {
        let key = named.words.as_str();
        let matches = key == word
            || key
                .strip_prefix(word.as_str())
                .is_some_and(|rest| rest.starts_with(' '))
            || (partial && key.starts_with(word.as_str()));
        if matches && !found.iter().any(|f| f.subject == named.subject) {
            found.push(named);
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name).then(a.subject.cmp(&b.subject)));
    Ok(found)
}

/// Every word that names a subject the person has not hidden, with its subject.
fn every_name(conn: &Connection, user: UserId) -> Result<Vec<Named>> {
    let names = conn
        .prepare_cached(MEMORY_NAMES_ALL.sql)?
        .query_map(params![user], |row| {
            Ok(Named {
                words: row.get(0)?,
                subject: row.get(1)?,
                kind: Kind::parse(&row.get::<_, String>(2)?)?,
                name: row.get(3)?,
                relation: row.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(names)
}

/// Where `words` stand in `text` as whole words (a possessive "'s" after them counts).
fn whole_words_at<'a>(text: &'a str, words: &'a str) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    text.match_indices(words).filter_map(move |(at, _)| {
        let end = at + words.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        (bounded(before) && bounded(after)).then_some(at..end)
    })
}

/// What the person can change about a subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    /// Its name; the new name finds it from then on.
    Rename(String),
    /// How the writer is related to it ("sister"); that word finds it from then on.
    Relate(String),
    Hide(bool),
    /// Another subject is this one ("Mum" = "my mother"): its mentions and names move
    /// here, and it goes.
    Absorb(SubjectId),
    /// These entries mention another subject, named so: their mentions move to it.
    Split {
        entries: Vec<EntryId>,
        name: String,
    },
}

/// Applies the person's correction in one transaction. Returns the subject it leaves
/// (the new one for a split).
pub fn correct(
    conn: &mut Connection,
    user: UserId,
    subject: SubjectId,
    correction: &Correction,
) -> Result<SubjectId> {
    let tx = conn.transaction()?;
    let Row {
        kind,
        name,
        relation,
        hidden,
        ..
    } = subject_row(&tx, user, subject)?;
    let set = |name: &str, relation: &str, hidden: bool| -> Result<()> {
        tx.prepare_cached(MEMORY_SUBJECT_CORRECT.sql)?.execute(params![
            user,
            subject,
            clip(name),
            clip(relation),
            hidden
        ])?;
        Ok(())
    };
    let left = match correction {
        Correction::Rename(new) => {
            if key_of(new).is_empty() {
                return Err(DbError::Invalid("a name needs a letter or a digit".to_owned()));
            }
            set(new, &relation, hidden)?;
            take_name(&tx, user, kind, new, subject)?;
            subject
        }
        Correction::Relate(new) => {
            set(&name, new, hidden)?;
            take_name(&tx, user, kind, new, subject)?;
            subject
        }
        Correction::Hide(hide) => {
            set(&name, &relation, *hide)?;
            subject
        }
        Correction::Absorb(other) => {
            if *other == subject {
                return Ok(subject);
            }
            if subject_row(&tx, user, *other)?.kind != kind {
                return Err(DbError::Invalid(
                    "a person, a place and an activity cannot be merged".to_owned(),
                ));
            }
            set(&name, &relation, hidden)?;
            tx.prepare_cached(MEMORY_MENTIONS_MERGE.sql)?
                .execute(params![other, subject])?;
            tx.prepare_cached(MEMORY_NAMES_MERGE.sql)?
                .execute(params![other, subject])?;
            tx.prepare_cached(MEMORY_SUBJECT_DELETE.sql)?
                .execute(params![user, other])?;
            subject
        }
        Correction::Split { entries, name: new } => {
            if key_of(new).is_empty() {
                return Err(DbError::Invalid("a name needs a letter or a digit".to_owned()));
            }
            let split = insert_subject(
                &tx,
                user,
                &Found {
                    kind,
                    name: new.clone(),
                    relation: String::new(),
                },
            )?;
            tx.prepare_cached(MEMORY_SUBJECT_CORRECT.sql)?.execute(params![
                user,
                split,
                clip(new),
                "",
                false
            ])?;
            for entry in entries {
                tx.prepare_cached(MEMORY_MENTION_MOVE.sql)?
                    .execute(params![entry, subject, split])?;
            }
            take_name(&tx, user, kind, new, split)?;
            split
        }
    };
    tx.commit()?;
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_possessives_and_punctuation() {
        assert_eq!(key_of("My  Sister"), "sister");
        assert_eq!(key_of("sister."), "sister");
        assert_eq!(key_of("Maya"), "maya");
        assert_eq!(key_of("the Lake House"), "lake house");
        assert_eq!(key_of(" ... "), "");
    }

    #[test]
    fn whole_words_only() {
        let at: Vec<_> = whole_words_at("tom and tomas met tom's dog", "tom").collect();
        assert_eq!(at, [0..3, 18..21]);
    }

    #[test]
    fn positions_are_found_as_written_or_in_another_case() {
        let body = "Tea with my sister, then Maya left.";
        assert_eq!(position_in(body, "Maya"), Some(25));
        assert_eq!(position_in(body, "My Sister"), Some(9));
        assert_eq!(position_in(body, "Sam"), None);
        assert_eq!(position_in("Ärger mit Öl", "öl"), Some(11));
    }
}
