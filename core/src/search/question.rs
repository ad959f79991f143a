//! A question read the way Ask reads it before searching: the dates it means, a period
//! that runs from or to something the journal tells of ("since the move", "before the
//! wedding"), and the people and places it names that the journal remembers ("my
//! sister"). Then the entries the answer rests on, from the search and the
//! remembered subjects' own entries.
//!
//! Ask ([`crate::ai::ask`]) and the retrieval evaluation ([`super::quality`]) both read
//! questions here, so the bench scores the path a person's question takes.

use std::sync::Arc;

use chrono::{DateTime, Local, NaiveDate};
use rusqlite::Connection;

use super::dates::DateRange;
use super::keyword::{self, LastWord, Matching, QueryWords, RankingConnections};
use super::remembered::Within;
use super::{SearchFilter, SearchOutcome, SearchQuery};
use crate::clock;
use crate::db::chats::Source;
use crate::db::{EntryId, Result, UserId, entries, memory};

/// Words that start a period running from or to an event: "since the move".
const EVENT_WORDS: [(&str, Bound); 3] = [
    ("since", Bound::From),
    ("after", Bound::After),
    ("before", Bound::Before),
];

/// Words an event's name starts with: a particular event is "the move", "my
/// operation", "we got the dog"; "after work" and "before bed" are times of any day.
const EVENT_STARTS: [&str; 11] = [
    "the", "my", "our", "his", "her", "their", "i", "we", "he", "she", "they",
];

/// The most words after "since" read as the event's name ("since my sister's wedding
/// in Porto"): a clause, not the rest of a long question.
const EVENT_WORDS_MAX: usize = 5;

/// Where an event's day bounds the period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// From its day on ("since").
    From,
    /// From the day after ("after").
    After,
    /// Up to the day before ("before").
    Before,
}

/// A period named by an event the journal tells of, and the entry that told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The question's words, as written ("since the move").
    pub words: String,
    /// The entry that tells of it best, and the day it was lived.
    pub entry: EntryId,
    pub day: NaiveDate,
}

impl Event {
    /// What the question was read as, for the person: "since the move (your entry of
    /// 14 March 2026)".
    pub fn described(&self) -> String {
        format!("{} (your entry of {})", self.words, self.day.format("%-d %B %Y"))
    }
}

/// A question's search: its words, its dates (read from the text, or from an event the
/// journal tells of), and what named them.
#[derive(Debug, Clone)]
pub struct Dated {
    pub query: SearchQuery,
    pub range: Option<DateRange>,
    pub event: Option<Event>,
}

/// Reads the dates out of `text`: an explicit date ("in August", "last week") as
/// [`SearchQuery::from_text`] does, or else "since", "after" or "before" something the
/// journal tells of, whose day is that of the entry that best matches its words. The
/// search then runs over the words that remain.
pub fn dated(
    conn: &Connection,
    user: UserId,
    text: &str,
    now: DateTime<Local>,
    limit: usize,
) -> Result<Dated> {
    let (query, range) = SearchQuery::from_text(text, now, limit);
    if range.is_some() {
        return Ok(Dated {
            query,
            range,
            event: None,
        });
    }
    let Some((event, bound)) = event_in(conn, user, text)? else {
        return Ok(Dated {
            query,
            range,
            event: None,
        });
    };
    let mut query = query;
    query.text = text.replacen(&event.words, " ", 1);
    let day = event.day;
    query.filter = match bound {
        Bound::From => SearchFilter {
            from: Some(day),
            ..SearchFilter::default()
        },
        Bound::After => SearchFilter {
            from: day.succ_opt(),
            ..SearchFilter::default()
        },
        Bound::Before => SearchFilter {
            to: day.pred_opt(),
            ..SearchFilter::default()
        },
    };
    Ok(Dated {
        query,
        range,
        event: Some(event),
    })
}

/// The first "since …", "after …" or "before …" in `text` whose words the journal
/// tells of, and how its day bounds the period.
fn event_in(conn: &Connection, user: UserId, text: &str) -> Result<Option<(Event, Bound)>> {
    let lower = text.to_lowercase();
    for (word, bound) in EVENT_WORDS {
        for (at, _) in lower.match_indices(word) {
            let starts_word = lower[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let rest = &lower[at + word.len()..];
            if !starts_word || !rest.starts_with(' ') {
                continue;
            }
            // The event's name: the words up to the clause's end.
            let clause_end = rest.find(['?', '!', '.', ',', ';', ':']).unwrap_or(rest.len());
            let named: Vec<&str> = rest[..clause_end]
                .split_whitespace()
                .take_while(|w| !["and", "but", "or"].contains(w))
                .take(EVENT_WORDS_MAX)
                .collect();
            if !named.first().is_some_and(|w| EVENT_STARTS.contains(w)) {
                continue;
            }
            let Some(words) = QueryWords::parse(&named.join(" "), LastWord::Whole) else {
                continue;
            };
            let Some((entry, day)) = telling_entry(conn, user, &words)? else {
                continue;
            };
            // Quote the question as written: lower-casing kept every byte offset here
            // only if the text is ASCII, so look the phrase up again in the original.
            let phrase = format!("{word} {}", named.join(" "));
            let words = find_ignoring_case(text, &phrase).unwrap_or(phrase);
            return Ok(Some((Event { words, entry, day }, bound)));
        }
    }
    Ok(None)
}

/// The live entry that best matches `words` (all of them first), and the day it was
/// lived where it was written.
fn telling_entry(
    conn: &Connection,
    user: UserId,
    words: &QueryWords,
) -> Result<Option<(EntryId, NaiveDate)>> {
    let ranked = keyword::rank(
        conn,
        &mut RankingConnections::none(),
        user,
        words,
        &SearchFilter::default(),
        1,
        Matching::AllWordsFirst,
    )?;
    let Some(&(id, _)) = ranked.first() else {
        return Ok(None);
    };
    Ok(entries::rows_of(conn, user, &[id])?
        .first()
        .and_then(|row| clock::lived(&row.created_at, row.utc_offset))
        .map(|lived| (id, lived.date_naive())))
}

/// `phrase` (lower case, single spaces) as it stands in `text`, whatever its case and
/// spacing.
fn find_ignoring_case(text: &str, phrase: &str) -> Option<String> {
    let words: Vec<&str> = phrase.split(' ').collect();
    let starts = text.char_indices().map(|(i, _)| i);
    starts.into_iter().find_map(|start| {
        let mut rest = &text[start..];
        for (n, word) in words.iter().enumerate() {
            if n > 0 {
                let trimmed = rest.trim_start();
                if trimmed.len() == rest.len() {
                    return None;
                }
                rest = trimmed;
            }
            let head = rest.get(..word.len())?;
            if head.to_lowercase() != *word {
                return None;
            }
            rest = &rest[word.len()..];
        }
        Some(text[start..text.len() - rest.len()].to_owned())
    })
}

/// The people and places `query`'s words name that the journal remembers (hidden ones
/// left out): the query is kept to their entries, and searches for the rest of its
/// words. Returns what named them. An activity is left to the search: entries tell of
/// swimming or a course in more words than the model lists, while a person's entries
/// call her "Freya" where the question says "my sister", which only memory joins
/// (measured on the labelled set with memory, `bench/data/retrieval-v3.json`).
pub fn remember(conn: &Connection, user: UserId, query: &mut SearchQuery) -> Result<Vec<memory::Named>> {
    let mut named = memory::named_in(conn, user, &query.text)?;
    named.retain(|n| n.kind != memory::Kind::Activity);
    if !named.is_empty() {
        query.text = without_names(&query.text, &named);
        let subjects: Vec<_> = named.iter().map(|n| n.subject).collect();
        query.filter.within = Some(Arc::new(Within::of(conn, user, &subjects)?));
    }
    Ok(named)
}

/// Whether `text` has a letter or digit: punctuation alone (")") is as empty as a
/// blank. A question with none left once its names are taken out has nothing to
/// search for; enrichment and reflections check the model's text with it too.
pub fn has_words(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// `text` without the words that named the subjects (and a "my" or "our" before them):
/// the search over their entries looks for the rest.
fn without_names(text: &str, named: &[memory::Named]) -> String {
    let mut rest = text.to_lowercase();
    for n in named {
        for words in [
            format!("my {}", n.words),
            format!("our {}", n.words),
            n.words.clone(),
        ] {
            rest = rest.replace(&words, " ");
        }
    }
    rest.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The entries an answer rests on ([`sources`]) and the search's outcome, `search`
/// running the hybrid search of a query (`searched`: whether there are words to search
/// for). When the question's dates came from an event (`event`) and leave no entry, the
/// entry taken for the event was likely another ("after I started treatment" finding a
/// friend's treatment): the question is searched again over every day, and `event` is
/// taken away, so the person is not told of dates that were not used.
pub fn answer_sources(
    query: &mut SearchQuery,
    event: &mut Option<Event>,
    searched: bool,
    mut search: impl FnMut(&SearchQuery) -> Result<SearchOutcome>,
) -> Result<(Vec<Source>, Option<SearchOutcome>)> {
    let mut outcome = match searched {
        true => Some(search(query)?),
        false => None,
    };
    let mut chosen = sources(query, outcome.as_ref());
    if chosen.is_empty() && event.take().is_some() {
        query.filter.from = None;
        query.filter.to = None;
        outcome = match searched {
            true => Some(search(query)?),
            false => None,
        };
        chosen = sources(query, outcome.as_ref());
    }
    Ok((chosen, outcome))
}

/// The entries an answer rests on, best first: the search's hits (`outcome`, `None`
/// when there was nothing to search for), then the remembered subjects' entries in the
/// question's dates that the search left, newest first.
pub fn sources(query: &SearchQuery, outcome: Option<&SearchOutcome>) -> Vec<Source> {
    let mut chosen: Vec<Source> = outcome
        .map(|outcome| {
            outcome
                .hits
                .iter()
                .map(|hit| Source {
                    entry_id: hit.entry_id,
                    created_at: hit.created_at.clone(),
                    title: hit.title.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(within) = &query.filter.within {
        for row in within.rows() {
            let day = clock::lived(&row.created_at, row.utc_offset).map(|l| l.date_naive());
            if query.filter.keeps_day(day) && !chosen.iter().any(|source| source.entry_id == row.id) {
                chosen.push(Source {
                    entry_id: row.id,
                    created_at: row.created_at.clone(),
                    title: row.title.clone(),
                });
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_is_quoted_as_written() {
        let text = "How has my sleep been Since  the Move?";
        assert_eq!(
            find_ignoring_case(text, "since the move").as_deref(),
            Some("Since  the Move")
        );
        assert_eq!(find_ignoring_case(text, "since the wedding"), None);
        assert_eq!(
            find_ignoring_case("Ça va since été", "since été").as_deref(),
            Some("since été")
        );
    }
}
