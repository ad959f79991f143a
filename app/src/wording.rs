//! How the window and the command line word what they show of the journal: an entry's
//! name when it has no title, a list row of an untitled entry, a count of entries. One
//! place, so a screen and `mindsage list` call an entry the same.

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

/// `n` entries, in words ("1 entry").
pub fn entries(n: usize) -> String {
    match n {
        1 => "1 entry".to_string(),
        n => format!("{n} entries"),
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
    use super::{entry_title, untitled_row};

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
