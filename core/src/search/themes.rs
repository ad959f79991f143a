//! Themes: what keeps coming back in the last weeks (sleep, the knee, the flat), each
//! with its entries.
//!
//! Three sources, no model call: the person's tags, the people, places and activities
//! the journal remembers (`db::memory`, from the model's reading of each entry), and
//! the entries' own words. A theme must recur: in at least [`MIN_ENTRIES`] entries of the
//! window, spread over at least two weeks (one busy evening is not a theme). Words must
//! also stand out: a word is a theme only when it is at least [`MIN_LIFT`] times as
//! common in the window's entries as in the whole journal (by the full-text index's
//! count), so words every entry uses ("today", "work" in a work diary) never are. A
//! young journal, mostly within the window, has little to compare with: there a word
//! must be in at most half of the window's entries.
//! Themes are ranked by how many entries they have, weighted by how much more often
//! than usual they come up.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{Datelike, NaiveDate};
use rusqlite::Connection;

use super::keyword;
use crate::db::entries::{self, ListFilter};
use crate::db::memory::{self, Kind};
use crate::db::{EntryId, Result, UserId};
use crate::scripts;

/// Entries a theme needs in the window.
pub const MIN_ENTRIES: usize = 3;

/// How many times more common in the window than in the whole journal a word must be.
const MIN_LIFT: f64 = 2.0;

/// Shortest word that can be a theme: shorter ones are mostly grammar.
const MIN_WORD_CHARS: usize = 4;

/// Words looked up in the full-text index per call, the most frequent in the window.
const WORD_CANDIDATES: usize = 40;

/// Entries of the window read at most: the latest, in a journal written many times a
/// day.
const MAX_WINDOW_ENTRIES: u32 = 1_000;

/// Where a theme comes from, and so how the search box finds its entries.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Tag,
    /// A person, place or activity the journal remembers.
    Remembered(Kind),
    Word,
}

/// One theme of the window.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Theme {
    /// As the person reads it: the tag, the name, or the word as most often written.
    pub name: String,
    pub source: Source,
    /// The window's entries with it, newest first.
    pub entries: Vec<EntryId>,
    /// Distinct weeks of the window with it.
    pub weeks: usize,
}

impl Theme {
    /// What the search box lists its entries with: `@maya_lind` for someone remembered,
    /// the word itself otherwise (a tag is shown through the tag filter instead).
    pub fn search_text(&self) -> String {
        match self.source {
            Source::Remembered(_) => format!("@{}", memory::key_of(&self.name).replace(' ', "_")),
            Source::Tag | Source::Word => self.name.clone(),
        }
    }
}

/// What themes read of one entry: its day, its week, and what it carries, each as a
/// tally key (source, key) with the name it shows under.
struct Read {
    id: EntryId,
    day: NaiveDate,
    week: (i32, u32),
    carries: Vec<((u8, String), String)>,
}

/// Tally keys' sources: tags, remembered subjects (1 + their kind), words.
const TAG: u8 = 0;
const WORD: u8 = 9;

/// A theme being counted.
#[derive(Default)]
struct Tally {
    name: String,
    entries: Vec<EntryId>,
    weeks: BTreeSet<(i32, u32)>,
}

/// What scoring a span needs from the whole journal, read once for every span.
struct Journal {
    subjects: HashMap<String, memory::Subject>,
    total: f64,
    /// Entries of the whole file containing each word looked up so far.
    documents: HashMap<String, u64>,
}

/// The themes of the entries lived from `from` to `to`, best first, at most `most`.
pub fn between(
    conn: &Connection,
    user: UserId,
    from: NaiveDate,
    to: NaiveDate,
    most: usize,
) -> Result<Vec<Theme>> {
    Ok(each_since(conn, user, &[from], to, most)?
        .pop()
        .unwrap_or_default())
}

/// Themes a span shows on the dashboard.
pub const SHOWN: usize = 6;

/// What keeps coming back lately, as the dashboard shows it: the last four weeks' and
/// the last six months'.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Lately {
    pub weeks: Vec<Theme>,
    pub months: Vec<Theme>,
}

/// The themes of the four weeks and of the six months up to `today`, read together.
pub fn lately(conn: &Connection, user: UserId, today: NaiveDate) -> Result<Lately> {
    let since = |days: u64| today - chrono::Days::new(days);
    let mut spans = each_since(conn, user, &[since(27), since(182)], today, SHOWN)?;
    let months = spans.pop().unwrap_or_default();
    let weeks = spans.pop().unwrap_or_default();
    Ok(Lately { weeks, months })
}

/// The themes of each span from one of `froms` to `to`, in their order, each best first
/// and at most `most`. The entries are read once, for the longest span.
pub fn each_since(
    conn: &Connection,
    user: UserId,
    froms: &[NaiveDate],
    to: NaiveDate,
    most: usize,
) -> Result<Vec<Vec<Theme>>> {
    let Some(&earliest) = froms.iter().min() else {
        return Ok(Vec::new());
    };
    let read = read_entries(conn, user, earliest, to)?;
    let mut journal = Journal {
        subjects: memory::subjects(conn, user)?
            .into_iter()
            .map(|s| (s.id.to_string(), s))
            .collect(),
        total: entries::count(conn, user)? as f64,
        documents: HashMap::new(),
    };
    froms
        .iter()
        .map(|&from| {
            let span: Vec<&Read> = read.iter().filter(|r| r.day >= from).collect();
            ranked(conn, &span, &mut journal, most)
        })
        .collect()
}

/// The live entries lived from `from` to `to`, newest first, as themes read them.
fn read_entries(conn: &Connection, user: UserId, from: NaiveDate, to: NaiveDate) -> Result<Vec<Read>> {
    let filter = ListFilter {
        from: Some(from),
        to: Some(to),
        ..ListFilter::default()
    };
    let mut read = Vec::new();
    for row in entries::list(conn, user, &filter, None, MAX_WINDOW_ENTRIES)?.rows {
        let Some(lived) = row.lived() else { continue };
        let mut carries: Vec<((u8, String), String)> = row
            .tags
            .iter()
            .map(|tag| ((TAG, tag.clone()), tag.clone()))
            .collect();
        for mention in memory::of_entry(conn, user, row.id)? {
            if !mention.hidden {
                carries.push((
                    (1 + mention.kind as u8, mention.subject.to_string()),
                    mention.name,
                ));
            }
        }
        let entry = entries::get(conn, user, row.id)?;
        for word in theme_words(&format!("{} {}", entry.title, entry.body)) {
            carries.push(((WORD, word.clone()), word));
        }
        read.push(Read {
            id: row.id,
            day: lived.date_naive(),
            week: (lived.iso_week().year(), lived.iso_week().week()),
            carries,
        });
    }
    Ok(read)
}

/// The words of `text` that can be themes, each once: split as the full-text index splits
/// text, lower case, at least [`MIN_WORD_CHARS`] letters and no digits, not stop words.
/// Words of scripts written without spaces are left out: the index keeps only their
/// pairs of characters, too short to be themes. One pass over half a year of entries,
/// so the cheap tests come before the copy.
fn theme_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().nth(MIN_WORD_CHARS - 1).is_some())
        .filter(|w| !w.chars().any(|c| c.is_numeric() || scripts::unspaced(c)))
        .map(str::to_lowercase)
        .filter(|w| !keyword::is_stopword(w))
        .collect()
}

/// The themes of `span`'s entries, best first, at most `most`.
fn ranked(conn: &Connection, span: &[&Read], journal: &mut Journal, most: usize) -> Result<Vec<Theme>> {
    let in_window = span.len() as f64;
    let mut tallies: HashMap<(u8, String), Tally> = HashMap::new();
    for entry in span {
        for (key, name) in &entry.carries {
            let tally = tallies.entry(key.clone()).or_default();
            tally.name.clone_from(name);
            if tally.entries.last() != Some(&entry.id) {
                tally.entries.push(entry.id);
            }
            tally.weeks.insert(entry.week);
        }
    }
    let names_taken: BTreeSet<String> = tallies
        .iter()
        .filter(|((source, _), _)| *source != WORD)
        .map(|(_, t)| memory::key_of(&t.name))
        .collect();
    let recurring = |t: &Tally| t.entries.len() >= MIN_ENTRIES && t.weeks.len() >= 2;
    // The most frequent recurring words are looked up in the whole journal's index.
    let mut words: Vec<(&(u8, String), &Tally)> = tallies
        .iter()
        .filter(|((source, word), t)| *source == WORD && recurring(t) && !names_taken.contains(word))
        .collect();
    words.sort_by(|a, b| b.1.entries.len().cmp(&a.1.entries.len()).then(a.0.1.cmp(&b.0.1)));
    let looked_up: Vec<String> = words
        .iter()
        .take(WORD_CANDIDATES)
        .map(|(k, _)| k.1.clone())
        .collect();
    let mut themes: Vec<(f64, Theme)> = Vec::new();
    for ((source, key), tally) in tallies {
        if !recurring(&tally) {
            continue;
        }
        let (source, name, overall) = match source {
            TAG => (Source::Tag, tally.name, None),
            WORD if looked_up.contains(&key) => {
                let documents = match journal.documents.get(&key) {
                    Some(&known) => known,
                    None => keyword::documents_with(conn, &key)?,
                };
                journal.documents.insert(key.clone(), documents);
                (Source::Word, key, Some(documents))
            }
            WORD => continue,
            _ => {
                let Some(subject) = journal.subjects.get(&key) else {
                    continue;
                };
                (
                    Source::Remembered(subject.kind),
                    subject.name.clone(),
                    Some(subject.entries),
                )
            }
        };
        let count = tally.entries.len() as f64;
        // How much more common lately than overall; unknown (a tag) counts as notable.
        // A journal mostly within the span has little to compare with: there, a word
        // stands out by not being in most of the span's entries.
        let lift = match overall {
            None => MIN_LIFT,
            Some(_) if journal.total < 2.0 * in_window => in_window / count,
            Some(overall) => (count / in_window) / ((overall as f64 + 1.0) / (journal.total + 1.0)),
        };
        if source == Source::Word && lift < MIN_LIFT {
            continue;
        }
        themes.push((
            count * lift.ln().max(0.5),
            Theme {
                name,
                source,
                entries: tally.entries,
                weeks: tally.weeks.len(),
            },
        ));
    }
    themes.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    Ok(themes.into_iter().take(most).map(|(_, theme)| theme).collect())
}
