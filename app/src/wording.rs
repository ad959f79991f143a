//! How the window and the command line word what they show of the journal: an entry's
//! name when it has no title, a list row of an untitled entry, a count of entries or
//! words. One place, so a screen and `mindsage list` call an entry the same.

use std::borrow::Cow;

use mindsage_core::db::entries::LINE_BREAK;
use mindsage_core::media::links;

/// Longest title made from an entry's first line, in characters.
const FIRST_LINE_TITLE: usize = 60;

/// What an entry with neither title nor text is called.
const UNTITLED: &str = "(untitled)";

/// What an entry is called on screen and in the command line's output: its title; without one, the first line of its text
/// (an entry starts with writing, and the model's title comes later); "(untitled)" when
/// both are empty.
pub fn entry_title<'a>(title: &'a str, text: &'a str) -> Cow<'a, str> {
    if !title.trim().is_empty() {
        return Cow::Borrowed(title);
    }
    let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !without_images(l).trim().is_empty())
    else {
        return Cow::Borrowed(UNTITLED);
    };
    match line.char_indices().nth(FIRST_LINE_TITLE) {
        Some((cut, _)) => Cow::Owned(format!("{}…", line[..cut].trim_end())),
        None => Cow::Borrowed(line),
    }
}

/// Text shown in the list and by the command line without its Markdown marks: "## A
/// **big** day" reads "A big day", a link reads as its words, an image is left out.
/// Heading and quote marks go where they stand alone between spaces (a preview's lines
/// are apart with " · "); a `*` between spaces ("5 * 3") is not a mark and stays.
pub fn plain(text: &str) -> Cow<'_, str> {
    if !text.contains(['#', '*', '_', '`', '[', '>']) {
        return Cow::Borrowed(text);
    }
    let text = without_images(text);
    let text = without_link_addresses(&text);
    let mut out = String::with_capacity(text.len());
    let line_break = LINE_BREAK.trim();
    for token in text.split(' ').filter(|t| !t.is_empty()) {
        let block_mark = (1..=6).contains(&token.len()) && token.bytes().all(|b| b == b'#') || token == ">";
        // A line that held only marks or an image leaves no empty line behind.
        let empty_line = token == line_break && (out.is_empty() || out.ends_with(line_break));
        if block_mark || empty_line {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        plain_token(token, &mut out);
    }
    if out.ends_with(line_break) {
        out.truncate(out.len() - line_break.len());
        out.truncate(out.trim_end().len());
    }
    Cow::Owned(out)
}

/// `text` without its Markdown images (`![alt](target)`).
fn without_images(text: &str) -> Cow<'_, str> {
    let images = links::image_links(text);
    if images.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for image in images {
        out.push_str(&text[copied..image.range.start]);
        copied = image.range.end;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// `[words](address)` as its words alone.
fn without_link_addresses(text: &str) -> Cow<'_, str> {
    if !text.contains("](") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let link = rest[open..]
            .find("](")
            .and_then(|close| Some((close, rest[open + close..].find(')')?)));
        let Some((close, end)) = link else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..open + close]);
        rest = &rest[open + close + end + 1..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// One space-free run of text without its emphasis and code marks.
fn plain_token(token: &str, out: &mut String) {
    let mut rest = token;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("**").or_else(|| rest.strip_prefix("__")) {
            rest = after;
            continue;
        }
        if c == '`' || (c == '*' && token.len() > 1) {
            rest = &rest[1..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
}

/// `n` entries, in words ("1 entry").
pub fn entries(n: usize) -> String {
    match n {
        1 => "1 entry".to_string(),
        n => format!("{n} entries"),
    }
}

/// A person, place or activity as the screens and the command line name it: "Maya
/// (sister)", the relation left out when the name already says it ("my sister").
pub fn subject_name(subject: &mindsage_core::db::memory::Subject) -> String {
    let says_more =
        !subject.relation.is_empty() && mindsage_core::db::memory::key_of(&subject.name) != subject.relation;
    match says_more {
        true => format!("{} ({})", subject.name, subject.relation),
        false => subject.name.clone(),
    }
}

/// The local days of a subject's first and latest entries, in `format`; one day when
/// they are the same, none when every entry is in the trash.
pub fn subject_days(
    subject: &mindsage_core::db::memory::Subject,
    format: &str,
) -> Option<(String, Option<String>)> {
    let day = |at: &Option<String>| {
        at.as_deref()
            .and_then(mindsage_core::clock::parse_utc)
            .map(|t| t.with_timezone(&chrono::Local).format(format).to_string())
    };
    let first = day(&subject.first)?;
    let last = day(&subject.last).filter(|last| *last != first);
    Some((first, last))
}

/// What a search with `@name`s lists: "Entries with Maya, whom you call your sister".
pub fn entries_with(remembered: &[String]) -> String {
    format!("Entries with {}", remembered.join(" or "))
}

/// What a search says of `@name`s that stand for no one and nowhere the journal
/// remembers, as they were typed.
pub fn not_remembered(names: &[String]) -> String {
    let names: Vec<String> = names
        .iter()
        .map(|n| format!("@{}", n.replace(' ', "_")))
        .collect();
    format!(
        "The journal remembers no one and nowhere called {}. People & places (Ctrl+5) lists \
         whom it remembers.",
        names.join(" or ")
    )
}

/// `n` words, in words ("1 word").
pub fn words(n: u32) -> String {
    match n {
        1 => "1 word".to_string(),
        n => format!("{n} words"),
    }
}

/// An untitled entry's list row: the first line or sentence of its preview, whichever
/// ends first, as the title, the rest as the preview, so the row reads like a titled
/// one. A first sentence too long for a title is cut at a word ("…"), and the preview
/// goes on from that word, so the row's second line is never empty while text is left.
pub fn untitled_row(preview: &str) -> (Cow<'_, str>, &str) {
    let cut = preview.char_indices().take(FIRST_LINE_TITLE).find_map(|(i, c)| {
        if preview[i..].starts_with(LINE_BREAK) {
            Some((i, i + LINE_BREAK.len()))
        } else if matches!(c, '.' | '!' | '?') && preview[i + 1..].starts_with(' ') {
            Some((i + 1, i + 1))
        } else {
            None
        }
    });
    if let Some((title_end, rest)) = cut {
        let rest = preview[rest..].trim_start();
        let rest = rest.strip_prefix(LINE_BREAK.trim()).map_or(rest, str::trim_start);
        return (Cow::Borrowed(&preview[..title_end]), rest);
    }
    match preview.char_indices().nth(FIRST_LINE_TITLE) {
        None if preview.trim().is_empty() => (Cow::Borrowed(UNTITLED), ""),
        None => (Cow::Borrowed(preview), ""),
        Some((limit, _)) => {
            // A word longer than a whole title is cut inside.
            let at = preview[..limit].rfind(' ').filter(|&i| i > 0).unwrap_or(limit);
            let title = format!("{}…", preview[..at].trim_end());
            (Cow::Owned(title), preview[at..].trim_start())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{entry_title, plain, untitled_row};

    #[test]
    fn markdown_marks_are_not_shown_in_the_list() {
        assert_eq!(
            plain("## A slow Sunday Woke to **rain** on the window"),
            "A slow Sunday Woke to rain on the window"
        );
        assert_eq!(plain("> said she, *quietly*"), "said she, quietly");
        assert_eq!(
            plain("Read [the essay](https://example.org) twice."),
            "Read the essay twice."
        );
        assert_eq!(
            plain("`notes.md` and snake_case and 5 * 3 and #hashtag"),
            "notes.md and snake_case and 5 * 3 and #hashtag"
        );
        assert_eq!(plain("Plain words."), "Plain words.");
        assert_eq!(
            plain("Harbour. · ![](<boats 1.png>) · Then rain. · ![x](y.png)"),
            "Harbour. · Then rain."
        );
        assert_eq!(plain("![](a.png) · ## Day"), "Day");
    }

    #[test]
    fn an_untitled_row_is_split_after_its_first_sentence() {
        let row = |preview| {
            let (title, rest) = untitled_row(preview);
            (title.into_owned(), rest)
        };
        assert_eq!(
            row("Rain all day. Then sun."),
            ("Rain all day.".into(), "Then sun.")
        );
        assert_eq!(row("No end in sight"), ("No end in sight".into(), ""));
        assert_eq!(row("v1.2 shipped! Party."), ("v1.2 shipped!".into(), "Party."));
        assert_eq!(row(""), ("(untitled)".into(), ""));
        assert_eq!(
            row("Three good things · 1. Tea · 2. A walk"),
            ("Three good things".into(), "1. Tea · 2. A walk")
        );
        assert_eq!(row("Rain. · Then sun."), ("Rain.".into(), "Then sun."));
        // A first sentence longer than a title goes on in the preview, from a word.
        assert_eq!(
            row("Walked down to the harbour with the dog and watched the boats come in slowly"),
            (
                "Walked down to the harbour with the dog and watched the…".into(),
                "boats come in slowly"
            )
        );
        let word = "a".repeat(70);
        let (title, rest) = row(&word);
        assert_eq!((title.chars().count(), rest.len()), (61, 10));
    }

    #[test]
    fn an_entry_without_a_title_is_called_by_its_first_line() {
        assert_eq!(entry_title("Walk", "text"), "Walk");
        assert_eq!(entry_title("  ", "\n  Rain all day.\nThen sun."), "Rain all day.");
        assert_eq!(entry_title("", ""), "(untitled)");
        assert_eq!(entry_title("", "![](<a b.png>)\nThe harbour"), "The harbour");
        let long = "é".repeat(100);
        let title = entry_title("", &long);
        assert_eq!(title.chars().count(), super::FIRST_LINE_TITLE + 1);
        assert!(title.ends_with('…'));
    }
}
