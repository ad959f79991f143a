//! What a search result shows: the entry's date and title, and the words around the
//! match with the matched words highlighted.
//!
//! The snippet is made here rather than by FTS5's `snippet()`, which re-reads and
//! re-tokenises every column of a row and cost more than the ranking itself when it was
//! asked for every candidate. Ranking ([`super::keyword::rank`]) now reads no text,
//! and only the hits a list shows are given a snippet, each from the body already read
//! for the row.
//!
//! Words are compared the way the index compares them, closely enough for highlighting:
//! lowercased, and reduced to their stem (English Snowball, where the index uses the
//! original Porter stemmer; the two agree on nearly all words), so "knees" lights up for
//! "knee". A half-typed last word matches any word it begins. A word of a script
//! written without spaces matches wherever it stands inside a run of text
//! ([`crate::scripts`]), and only that stretch is highlighted.

use rusqlite::{Connection, OptionalExtension, params};
use rust_stemmers::{Algorithm, Stemmer};

use super::SearchHit;
use super::keyword::{HIGHLIGHT_END, HIGHLIGHT_START, QueryWords};
use crate::db::entries::preview_of;
use crate::db::queries::SEARCH_HIT_TEXT;
use crate::db::{EntryId, Result, UserId};

/// A snippet as the parts its marks divide it into, in order, each with whether it is a
/// matched word: how every screen and command reads a snippet, whatever it does with
/// the marks.
pub fn parts(snippet: &str) -> impl Iterator<Item = (&str, bool)> {
    // Parts alternate: outside a mark, inside, outside, …
    snippet
        .split([HIGHLIGHT_START, HIGHLIGHT_END])
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(index, part)| (part, index % 2 == 1))
}

/// Words shown around the best match, as FTS5's snippet showed.
const WINDOW_WORDS: usize = 16;

/// A shown result for entry `id`, or `None` when it is not a live entry of `user` (it
/// was trashed or purged after it was ranked). The snippet is the body around the
/// query's words, or the body's opening when the body does not contain them (a match in
/// the title or tags, or a hit found by meaning).
pub fn load_hit(
    conn: &Connection,
    user: UserId,
    id: EntryId,
    score: f64,
    matcher: Option<&Matcher>,
) -> Result<Option<SearchHit>> {
    let row = conn
        .prepare_cached(SEARCH_HIT_TEXT.sql)?
        .query_row(params![user, id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, i32>(3)?,
            ))
        })
        .optional()?;
    Ok(row.map(|(created_at, title, body, utc_offset)| SearchHit {
        entry_id: id,
        utc_offset,
        snippet: matcher
            .and_then(|m| highlight(&body, m))
            .unwrap_or_else(|| preview_of(&body)),
        created_at,
        title,
        score,
    }))
}

/// The `WINDOW_WORDS` words of `text` holding the most distinct query words, matched
/// words wrapped in the highlight marks, on one line, with "…" where text was cut.
/// `None` when no word matches.
pub fn highlight(text: &str, matcher: &Matcher) -> Option<String> {
    let mut tokens: Vec<Token> = Vec::new();
    for (start, end) in self::tokens(text) {
        let word = &text[start..end];
        if matcher.unspaced.is_empty() || !crate::scripts::has_unspaced(word) {
            tokens.push(Token {
                start,
                end,
                word: matcher.word_of(word),
            });
        } else {
            matcher.split_unspaced(text, start, end, &mut tokens);
        }
    }
    let first = best_window(&tokens)?;
    let window = tokens.get(first..tokens.len().min(first.saturating_add(WINDOW_WORDS)))?;
    let mut out = String::new();
    if first > 0 {
        out.push('…');
    }
    let mut at = window.first()?.start;
    for token in window {
        push_one_line(&mut out, &text[at..token.start]);
        let piece = &text[token.start..token.end];
        if token.word.is_some() {
            out.push(HIGHLIGHT_START);
            out.push_str(piece);
            out.push(HIGHLIGHT_END);
        } else {
            out.push_str(piece);
        }
        at = token.end;
    }
    if first + window.len() < tokens.len() {
        out.push('…');
    } else {
        push_one_line(&mut out, text[at..].trim_end());
    }
    Some(out)
}

/// A word of the text: byte range, and which query word it matches if any.
struct Token {
    start: usize,
    end: usize,
    word: Option<usize>,
}

/// Byte ranges of runs of letters and digits, which is how the index splits text.
fn tokens(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.by_ref().find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

/// Start of the window with the most distinct query words, the earliest of equals.
fn best_window(tokens: &[Token]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for start in tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.word.is_some())
        .map(|(i, _)| i)
    {
        let end = (start + WINDOW_WORDS).min(tokens.len());
        let mut seen: Vec<usize> = tokens[start..end].iter().filter_map(|t| t.word).collect();
        seen.sort_unstable();
        seen.dedup();
        if best.is_none_or(|(_, count)| seen.len() > count) {
            best = Some((start, seen.len()));
        }
    }
    // Open a few words before the match, so it is read in its sentence.
    best.map(|(start, _)| start.saturating_sub(WINDOW_WORDS / 4))
}

/// Appends text between words, with line breaks turned into spaces.
fn push_one_line(out: &mut String, between: &str) {
    out.extend(between.chars().map(|c| if c.is_whitespace() { ' ' } else { c }));
}

/// Query words in the form text words are compared with; made once per result list.
pub struct Matcher {
    stemmer: Stemmer,
    stems: Vec<String>,
    /// The half-typed last word, matched as the beginning of a text word.
    prefix: Option<String>,
    /// The first letters of every stem and of the prefix. Stemming changes only a
    /// word's ending, so a text word can match only a query word it begins like;
    /// checking that first spares stemming nearly every word of the text.
    heads: Vec<String>,
    /// The query words of unspaced scripts, by their place, matched inside runs.
    unspaced: Vec<(usize, String)>,
}

/// Letters compared before stemming (see `Matcher::heads`).
const HEAD_CHARS: usize = 2;

fn head(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .take(HEAD_CHARS)
        .collect()
}

impl Matcher {
    pub fn new(words: &QueryWords) -> Matcher {
        let stemmer = Stemmer::create(Algorithm::English);
        let stems: Vec<String> = words.words.iter().map(|w| stemmer.stem(w).into_owned()).collect();
        let prefix = words
            .last_is_prefix
            .then(|| words.words.last().cloned())
            .flatten();
        let heads = stems.iter().chain(&prefix).map(|w| head(w)).collect();
        let unspaced = words
            .words
            .iter()
            .enumerate()
            .filter(|(_, w)| crate::scripts::has_unspaced(w))
            .map(|(i, w)| (i, w.clone()))
            .collect();
        Matcher {
            stemmer,
            stems,
            prefix,
            heads,
            unspaced,
        }
    }

    /// The run `text[start..end]` as tokens: each stretch covered by unspaced query
    /// words standing there (a question's overlapping pairs make one stretch), and the
    /// stretches between.
    fn split_unspaced(&self, text: &str, start: usize, end: usize, tokens: &mut Vec<Token>) {
        let run = &text[start..end];
        // Query words are lower case: the run is compared lower-cased, each lower-cased
        // byte knowing the bytes of the character it came from.
        let mut lowered = String::with_capacity(run.len());
        let mut origin: Vec<(usize, usize)> = Vec::with_capacity(run.len());
        for (at, c) in run.char_indices() {
            for lower in c.to_lowercase() {
                lowered.push(lower);
                origin.resize(lowered.len(), (at, at + c.len_utf8()));
            }
        }
        let mut found: Vec<(usize, usize, usize)> = Vec::new();
        for (index, word) in &self.unspaced {
            found.extend(
                lowered
                    .match_indices(word.as_str())
                    .map(|(at, w)| (origin[at].0, origin[at + w.len() - 1].1, *index)),
            );
        }
        found.sort_unstable();
        let mut plain_from = 0;
        let mut found = found.into_iter().peekable();
        while let Some((from, mut to, index)) = found.next() {
            if from < plain_from {
                continue; // inside the stretch before
            }
            while let Some(&(_, next_to, _)) = found.peek().filter(|(f, _, _)| *f < to) {
                to = to.max(next_to);
                found.next();
            }
            let mut push = |from: usize, to: usize, word: Option<usize>| {
                tokens.push(Token {
                    start: start + from,
                    end: start + to,
                    word,
                })
            };
            if plain_from < from {
                push(plain_from, from, None);
            }
            push(from, to, Some(index));
            plain_from = to;
        }
        if plain_from < run.len() {
            tokens.push(Token {
                start: start + plain_from,
                end,
                word: None,
            });
        }
    }

    /// Which query word `text_word` matches, if any.
    fn word_of(&self, text_word: &str) -> Option<usize> {
        let text_head = head(text_word);
        if !self
            .heads
            .iter()
            .any(|h| text_head.starts_with(h.as_str()) || h.starts_with(&text_head))
        {
            return None;
        }
        let lower = text_word.to_lowercase();
        if let Some(prefix) = &self.prefix
            && lower.starts_with(prefix.as_str())
        {
            // The prefix is the last query word, so it has the last stem's place.
            return self.stems.len().checked_sub(1);
        }
        let stem = self.stemmer.stem(&lower);
        self.stems.iter().position(|s| *s == stem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snippet_reads_as_its_parts_with_the_matched_words_marked() {
        let snippet =
            format!("the {HIGHLIGHT_START}knee{HIGHLIGHT_END} and {HIGHLIGHT_START}sleep{HIGHLIGHT_END}");
        let read: Vec<_> = parts(&snippet).collect();
        assert_eq!(
            read,
            [("the ", false), ("knee", true), (" and ", false), ("sleep", true)]
        );
        assert_eq!(parts("no match").collect::<Vec<_>>(), [("no match", false)]);
    }
    use crate::search::keyword::LastWord;

    fn matcher(text: &str, last: LastWord) -> Matcher {
        Matcher::new(&QueryWords::parse(text, last).unwrap())
    }

    #[test]
    fn stems_and_prefixes_are_highlighted() {
        let w = matcher("knee glaz", LastWord::Prefix);
        assert_eq!(
            highlight("My knees ached.\nThen the glazing class.", &w).unwrap(),
            "My \u{2}knees\u{3} ached. Then the \u{2}glazing\u{3} class."
        );
        assert_eq!(highlight("Nothing here", &w), None);
    }

    #[test]
    fn the_window_with_most_query_words_is_shown() {
        let filler = "word ".repeat(40);
        let text = format!("river {filler} river run together {filler}");
        let shown = highlight(&text, &matcher("river run", LastWord::Whole)).unwrap();
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(
            shown.contains("\u{2}river\u{3} \u{2}run\u{3} together"),
            "{shown}"
        );
        assert_eq!(shown.split_whitespace().count(), WINDOW_WORDS);
    }

    #[test]
    fn an_unspaced_word_is_highlighted_where_it_stands_in_a_run() {
        let typed = matcher("東京", LastWord::Prefix);
        assert_eq!(
            highlight("今日は東京に行った。", &typed).unwrap(),
            "今日は\u{2}東京\u{3}に行った。"
        );
        // A question's pairs: where they overlap, one stretch.
        let asked = matcher("東京で何を", LastWord::Whole);
        assert_eq!(
            highlight("昨日東京で寿司", &asked).unwrap(),
            "昨日\u{2}東京で\u{3}寿司"
        );
        assert_eq!(highlight("大阪に行った", &typed), None);
        // A word of several scripts, lower-cased in the query.
        for last in [LastWord::Prefix, LastWord::Whole] {
            for text in ["&𓏯𪀶Y", "𠀀A"] {
                assert!(highlight(text, &matcher(text, last)).is_some(), "{text} {last:?}");
            }
        }
        assert_eq!(
            highlight("Then 𓏯𪀶Y", &matcher("𓏯𪀶Y", LastWord::Prefix)).unwrap(),
            "Then \u{2}𓏯𪀶Y\u{3}"
        );
    }

    #[test]
    fn text_of_any_script_is_cut_on_char_boundaries() {
        let w = matcher("café", LastWord::Whole);
        let shown = highlight("Ünïcödé — café ☕ naïve", &w).unwrap();
        assert_eq!(shown, "Ünïcödé — \u{2}café\u{3} ☕ naïve");
    }
}
