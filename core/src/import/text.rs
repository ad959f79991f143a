//! Text rules the importers share: byte order marks and line ends, Markdown escapes,
//! titles taken from a first line, and times written without a time zone.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};

use crate::clock::local_instant;

/// Longest first line taken as a title when it is not a heading: longer, it is the
/// start of the text, and the model writes a title instead.
const MAX_LINE_TITLE_CHARS: usize = 100;

/// The bytes without a UTF-8 byte order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Text with `\n` line ends only (Windows' `\r\n` and old Macs' `\r` happen) and no
/// byte order mark.
pub fn normalise(text: &str) -> String {
    text.trim_start_matches('\u{feff}')
        .replace("\r\n", "\n")
        .replace('\r', "\n")
}

/// Markdown's backslash escapes undone (`\.` is `.`): exports escape punctuation a
/// person typed, not always consistently, and MindSage keeps what was typed.
pub fn unescape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && next.is_ascii_punctuation()
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The text of a Markdown ATX heading line (`# Title`, `## Title #`), if it is one.
pub fn heading(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim_end())
}

/// Splits off the first non-empty line when it is a heading (or, with `any_line`, any
/// first line short enough to be a title, as Day One shows it): `(title, body)`.
/// Otherwise the title is empty and the body is the whole text.
pub fn split_title(text: &str, any_line: bool) -> (String, String) {
    let text = text.trim_start_matches(['\n', ' ', '\t']);
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let title = match heading(first) {
        Some(h) => Some(h.to_string()),
        None if any_line && !rest.trim().is_empty() && first.chars().count() <= MAX_LINE_TITLE_CHARS => {
            Some(first.trim().to_string())
        }
        None => None,
    };
    match title {
        Some(title) => (title, rest.trim_start_matches('\n').trim_end().to_string()),
        None => (String::new(), text.trim_end().to_string()),
    }
}

/// A time as people and apps write it, as lived: RFC 3339 with a zone or offset (kept),
/// or a local `YYYY-MM-DD[ T]HH:MM[:SS]` on this computer, or a date alone (noon local:
/// the day stays the day whatever the clocks do).
pub fn parse_time(text: &str) -> Option<DateTime<FixedOffset>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t);
    }
    for format in ["%Y-%m-%d %H:%M:%S %z", "%Y-%m-%d %H:%M %z"] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            return Some(t);
        }
    }
    for format in [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(text, format) {
            return Some(local_instant(naive));
        }
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(noon_of(day))
}

const NOON: NaiveTime = NaiveTime::from_hms_opt(12, 0, 0).expect("noon is a time");

/// A `YYYY-MM-DD` at the start of a file name, and what follows it.
pub fn leading_date(name: &str) -> Option<(NaiveDate, &str)> {
    let head = name.get(..10)?;
    let day = NaiveDate::parse_from_str(head, "%Y-%m-%d").ok()?;
    Some((day, &name[10..]))
}

/// The noon of a day on this computer, for files that give a date and no time.
pub fn noon_of(day: NaiveDate) -> DateTime<FixedOffset> {
    local_instant(day.and_time(NOON))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_undone_and_other_backslashes_kept() {
        assert_eq!(
            unescape_markdown(r"Ran 5\.2 km \- then \(finally\) home\!"),
            "Ran 5.2 km - then (finally) home!"
        );
        assert_eq!(unescape_markdown(r"C:\Users\me \\ done\"), r"C:\Users\me \ done\");
    }

    #[test]
    fn titles_come_from_headings_or_a_short_first_line() {
        assert_eq!(
            split_title("\n# A day ##\n\nBody\n", false),
            ("A day".into(), "Body".into())
        );
        assert_eq!(
            split_title("Short line\nMore", false),
            (String::new(), "Short line\nMore".into())
        );
        assert_eq!(
            split_title("Short line\nMore", true),
            ("Short line".into(), "More".into())
        );
        assert_eq!(
            split_title("Only one line", true),
            (String::new(), "Only one line".into())
        );
        assert_eq!(split_title("#hashtag start\nx", false).0, "");
        let long = "word ".repeat(40);
        assert_eq!(split_title(&format!("{long}\nmore"), true).0, "");
    }

    #[test]
    fn times_with_and_without_zones() {
        let t = parse_time("2023-01-05T23:30:00-05:00").unwrap();
        assert_eq!(clock_text(t.to_utc()), "2023-01-06T04:30:00.000Z");
        assert_eq!(t.date_naive(), NaiveDate::from_ymd_opt(2023, 1, 5).unwrap());
        assert_eq!(t.offset().local_minus_utc(), -5 * 3600);
        assert_eq!(
            parse_time("2023-01-05").unwrap().date_naive(),
            NaiveDate::from_ymd_opt(2023, 1, 5).unwrap()
        );
        assert!(parse_time("2023-01-05 14:30").is_some());
        assert!(parse_time("yesterday").is_none());
        assert!(parse_time("2023-02-30").is_none());
        assert_eq!(normalise("\u{feff}a\r\nb\rc"), "a\nb\nc");
        assert_eq!(leading_date("2024-03-01 Trip.md").unwrap().1, " Trip.md");
        assert!(leading_date("notes.md").is_none());
    }

    fn clock_text(t: DateTime<chrono::Utc>) -> String {
        crate::clock::format_utc(t)
    }
}
