//! How the window and the command line word what they show of the journal: an entry's
//! name when it has no title, a list row of an untitled entry, a count of entries or
//! words. One place, so a screen and `mindsage list` call an entry the same.

use std::borrow::Cow;

/// Longest title made from an entry's first line, in characters.
const FIRST_LINE_TITLE: usize = 60;

/// What an entry is called on screen and in the command line's output: its title; without one, the first line of its text
/// (an entry starts with writing, and the model's title comes later); "(untitled)" when
/// both are empty.
pub fn entry_title<'a>(title: &'a str, text: &'a str) -> Cow<'a, str> {
    if !title.trim().is_empty() {
        return Cow::Borrowed(title);
    }
    let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty()) else {
        return Cow::Borrowed("(untitled)");
    };
    match line.char_indices().nth(FIRST_LINE_TITLE) {
        Some((cut, _)) => Cow::Owned(format!("{}…", line[..cut].trim_end())),
        None => Cow::Borrowed(line),
    }
}

/// Text shown in the list and by the command line without its Markdown marks: "## A
/// **big** day" reads "A big day", a link reads as its words. Heading and quote marks
/// go where they stand alone between spaces (a preview joins lines with spaces); a `*`
/// between spaces ("5 * 3") is not a mark and stays.
pub fn plain(text: &str) -> Cow<'_, str> {
    if !text.contains(['#', '*', '_', '`', '[', '>']) {
        return Cow::Borrowed(text);
    }
    let text = without_link_addresses(text);
    let mut out = String::with_capacity(text.len());
    for (i, token) in text.split(' ').enumerate() {
        let block_mark = (1..=6).contains(&token.len()) && token.bytes().all(|b| b == b'#') || token == ">";
        if block_mark {
            continue;
        }
        if i > 0 && !out.is_empty() {
            out.push(' ');
        }
        plain_token(token, &mut out);
    }
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

/// `n` words, in words ("1 word").
pub fn words(n: u32) -> String {
    match n {
        1 => "1 word".to_string(),
        n => format!("{n} words"),
    }
}

/// An untitled entry's list row: the first sentence of its preview as the title, the
/// rest as the preview, so the row reads like a titled one. Without a sentence end near
/// the start, all of it is the title (the row truncates it).
pub fn untitled_row(preview: &str) -> (&str, &str) {
    let cut = preview
        .char_indices()
        .take(FIRST_LINE_TITLE)
        .find(|&(i, c)| matches!(c, '.' | '!' | '?') && preview[i + 1..].starts_with(' '));
    match cut {
        Some((i, _)) => (&preview[..=i], preview[i + 1..].trim_start()),
        None => (preview, ""),
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
    }

    #[test]
    fn an_untitled_row_is_split_after_its_first_sentence() {
        assert_eq!(
            untitled_row("Rain all day. Then sun."),
            ("Rain all day.", "Then sun.")
        );
        assert_eq!(untitled_row("No end in sight"), ("No end in sight", ""));
        assert_eq!(untitled_row("v1.2 shipped! Party."), ("v1.2 shipped!", "Party."));
        assert_eq!(untitled_row(""), ("", ""));
    }

    #[test]
    fn an_entry_without_a_title_is_called_by_its_first_line() {
        assert_eq!(entry_title("Walk", "text"), "Walk");
        assert_eq!(entry_title("  ", "\n  Rain all day.\nThen sun."), "Rain all day.");
        assert_eq!(entry_title("", ""), "(untitled)");
        let long = "é".repeat(100);
        let title = entry_title("", &long);
        assert_eq!(title.chars().count(), super::FIRST_LINE_TITLE + 1);
        assert!(title.ends_with('…'));
    }
}
