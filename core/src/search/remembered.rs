//! Searching among the entries of people and places the journal remembers
//! ([`crate::db::memory`]): `@maya` in the search box, "my sister" in a question.
//!
//! Both become a [`Within`] on the search's filter, which the keyword and the vector
//! halves apply while they rank, so a person's entries are found however far down the
//! whole journal's ranking they would stand.

use std::collections::HashSet;

use rusqlite::Connection;

use crate::db::entries::EntryRow;
use crate::db::memory::{self, SubjectId};
use crate::db::{EntryId, Result, UserId};

/// The most entries of one subject a search looks among: its newest, for someone in
/// more entries than a person writes in decades.
const ENTRIES_PER_SUBJECT: u32 = 10_000;

/// The entries of some subjects, newest first: what a search is kept to.
#[derive(Debug, Clone, PartialEq)]
pub struct Within {
    rows: Vec<EntryRow>,
    ids: HashSet<EntryId>,
}

impl Within {
    /// The live entries that mention any of `subjects`.
    pub fn of(conn: &Connection, user: UserId, subjects: &[SubjectId]) -> Result<Within> {
        let mut rows: Vec<EntryRow> = Vec::new();
        let mut ids = HashSet::new();
        for &subject in subjects {
            for row in memory::entries_of(conn, user, subject, ENTRIES_PER_SUBJECT)? {
                if ids.insert(row.id) {
                    rows.push(row);
                }
            }
        }
        rows.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(Within { rows, ids })
    }

    pub fn contains(&self, id: EntryId) -> bool {
        self.ids.contains(&id)
    }

    /// The entries, newest first.
    pub fn rows(&self) -> &[EntryRow] {
        &self.rows
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Search-box text with its `@name`s taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtNames {
    /// The text without them, to search for.
    pub rest: String,
    /// The names as typed after each `@` (an underscore stands for a space:
    /// `@maya_lind`).
    pub names: Vec<String>,
    /// Whether the text ends inside the last name: the person may still be typing it,
    /// and it matches the names it begins.
    pub last_partial: bool,
}

impl AtNames {
    /// Splits `text` into its `@name`s and the rest. An `@` with nothing after it, or
    /// inside a word (an e-mail address), is left in the text.
    pub fn split(text: &str) -> AtNames {
        let mut rest = Vec::new();
        let mut names = Vec::new();
        let mut last_partial = false;
        for word in text.split_whitespace() {
            let name = word
                .strip_prefix('@')
                .map(|n| n.trim_end_matches(|c: char| !c.is_alphanumeric()))
                .filter(|n| n.starts_with(char::is_alphanumeric));
            match name {
                Some(name) => {
                    names.push(name.replace('_', " "));
                    last_partial = true;
                }
                None => {
                    rest.push(word);
                    last_partial = false;
                }
            }
        }
        last_partial &= !text.ends_with(char::is_whitespace);
        AtNames {
            rest: rest.join(" "),
            names,
            last_partial,
        }
    }
}

/// What the `@name`s of a search stand for in the journal's memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    /// Each subject found, as a person reads it ("Maya, whom you call your sister").
    pub described: Vec<String>,
    /// The names that stand for nothing the journal remembers, as typed.
    pub unknown: Vec<String>,
    pub subjects: Vec<SubjectId>,
}

/// Looks up each of `at`'s names; a name may stand for several subjects (`@ma` while
/// it is typed), and the search then looks among all their entries.
pub fn resolve(conn: &Connection, user: UserId, at: &AtNames) -> Result<Resolved> {
    let mut resolved = Resolved::default();
    for (n, name) in at.names.iter().enumerate() {
        let partial = at.last_partial && n + 1 == at.names.len();
        let called = memory::called(conn, user, name, partial)?;
        if called.is_empty() {
            resolved.unknown.push(name.clone());
        }
        for named in called {
            if !resolved.subjects.contains(&named.subject) {
                resolved.subjects.push(named.subject);
                resolved.described.push(named.described());
            }
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_out_of_the_text_and_the_rest_is_searched() {
        let at = AtNames::split("@Maya walk by the lake");
        assert_eq!(at.names, ["Maya"]);
        assert_eq!(at.rest, "walk by the lake");
        assert!(!at.last_partial);

        let at = AtNames::split("lake @maya_lind, @mu");
        assert_eq!(at.names, ["maya lind", "mu"]);
        assert_eq!(at.rest, "lake");
        assert!(at.last_partial, "the person may still be typing @mu");

        let at = AtNames::split("lake @mum ");
        assert!(!at.last_partial, "a space ends the name");
    }

    #[test]
    fn an_at_sign_that_names_nobody_stays_in_the_text() {
        for text in ["mail ana@example.org", "@ alone", "@@", "@!"] {
            let at = AtNames::split(text);
            assert!(at.names.is_empty(), "{text}");
        }
        assert_eq!(
            AtNames::split("mail ana@example.org").rest,
            "mail ana@example.org"
        );
    }
}
