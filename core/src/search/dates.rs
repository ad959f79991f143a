//! Dates in a question, understood without a model.
//!
//! "What did I write last March?" needs no language model to know it means March of
//! the most recent year whose March is over. This parser recognises the explicit forms
//! people use (listed in [`parse_date_range`]) relative to a `now` passed in, so tests
//! and the retrieval bench are deterministic. Ask's planning step uses it to skip a
//! model call, and search applies the range as a filter.
//!
//! Days are calendar days, matched against the day each entry was lived where it was
//! written (`clock::lived`); "today" and "last week" count from this computer's today.

use chrono::{DateTime, Datelike, Local, NaiveDate};

use crate::clock;

/// A date range found in text. `end` is exclusive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateRange {
    pub start: NaiveDate,
    pub end: NaiveDate,
    /// The words that named the range, as written.
    pub matched: String,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A month's number from its name or three-letter abbreviation. Names that are also
/// ordinary words ("march", "may") only count where a rule gives them context.
fn month_number(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| {
            *m == word || (word.len() == 3 && m.starts_with(word)) || (word == "sept" && *m == "september")
        })
        .map(|i| i as u32 + 1)
}

fn year_number(word: &str) -> Option<i32> {
    (word.len() == 4)
        .then(|| word.parse::<i32>().ok())
        .flatten()
        .filter(|y| (1900..=2200).contains(y))
}

fn season(word: &str) -> Option<u32> {
    // The month a season starts in (meteorological seasons, northern hemisphere).
    match word {
        "spring" => Some(3),
        "summer" => Some(6),
        "autumn" | "fall" => Some(9),
        "winter" => Some(12),
        _ => None,
    }
}

/// The earliest day a range can name. Ranges are clamped to
/// [`EARLIEST`]`..=`[`LATEST`], whatever number was typed ("4000000 months ago", "the
/// last 4000000000 days"): years 0001 to 9999 are what SQLite's date functions hold and
/// what the stored form's four-digit years can write, and they sit well inside chrono's
/// range, so no arithmetic below can overflow (day and month counts are `i64`, made
/// with saturating operations and clamped before they become dates). Local midnight of
/// either end is still a four-digit year in UTC in every time zone.
pub const EARLIEST: NaiveDate = match NaiveDate::from_ymd_opt(1, 1, 1) {
    Some(day) => day,
    None => NaiveDate::MIN,
};

/// The latest day a range can name (an end past it is clamped to it); see [`EARLIEST`].
pub const LATEST: NaiveDate = match NaiveDate::from_ymd_opt(9999, 12, 31) {
    Some(day) => day,
    None => NaiveDate::MAX,
};

/// `d` moved by `days` (any number), clamped to [`EARLIEST`]`..=`[`LATEST`].
fn add_days(d: NaiveDate, days: i64) -> NaiveDate {
    let bounds = i64::from(EARLIEST.num_days_from_ce())..=i64::from(LATEST.num_days_from_ce());
    let n = i64::from(d.num_days_from_ce())
        .saturating_add(days)
        .clamp(*bounds.start(), *bounds.end());
    i32::try_from(n)
        .ok()
        .and_then(NaiveDate::from_num_days_from_ce_opt)
        .unwrap_or(EARLIEST)
}

/// The first day of month number `months` counted from January of year 0 (any number),
/// clamped to [`EARLIEST`]`..=`[`LATEST`].
fn month_start(months: i64) -> NaiveDate {
    let year = months.div_euclid(12);
    let month = months.rem_euclid(12) as u32 + 1;
    if year < i64::from(EARLIEST.year()) {
        return EARLIEST;
    }
    i32::try_from(year)
        .ok()
        .and_then(|year| NaiveDate::from_ymd_opt(year, month, 1))
        .map_or(LATEST, |d| d.min(LATEST))
}

fn first_of(year: i32, month: u32) -> NaiveDate {
    month_start(i64::from(year) * 12 + i64::from(month) - 1)
}

fn add_months(d: NaiveDate, months: i64) -> NaiveDate {
    month_start((i64::from(d.year()) * 12 + i64::from(d.month0())).saturating_add(months))
}

fn monday_of(d: NaiveDate) -> NaiveDate {
    add_days(d, -i64::from(d.weekday().num_days_from_monday()))
}

/// A count typed as digits; one too large for `i64` counts as the largest, which the
/// date arithmetic then clamps.
fn count(word: &str) -> Option<i64> {
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())).then(|| word.parse().unwrap_or(i64::MAX))
}

/// The season starting in `start_month` that contains or precedes `year`'s naming:
/// "winter 2026" is December 2025 to February 2026.
fn season_range(year: i32, start_month: u32) -> (NaiveDate, NaiveDate) {
    let start = if start_month == 12 {
        first_of(year.saturating_sub(1), 12)
    } else {
        first_of(year, start_month)
    };
    (start, add_months(start, 3))
}

/// Finds the first explicit date range in `text`:
/// today, yesterday, this week (the last seven days), last week (the calendar week
/// before this one), this/last weekend, this/last month, this/last year, last N days,
/// weeks or months, N days ago, (in|last|this) <month> [year], <month> <year>,
/// (in) <year>, (this|last) <season>, <season> <year>, and ISO dates (2026-04-03).
pub fn parse_date_range(text: &str, now: DateTime<Local>) -> Option<DateRange> {
    let today = now.date_naive().clamp(EARLIEST, LATEST);
    // Words with their byte spans in `text`, so `matched` quotes the input (lowercasing
    // the whole text first could move byte offsets: some letters change length).
    let words: Vec<(usize, usize, String)> = text
        .split_inclusive(|c: char| !(c.is_alphanumeric() || c == '-'))
        .scan(0usize, |offset, piece| {
            let start = *offset;
            *offset += piece.len();
            let word = piece.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '-'));
            Some((start, start + word.len(), word.to_lowercase()))
        })
        .filter(|(_, _, w)| !w.is_empty())
        .collect();
    let w = |i: usize| words.get(i).map_or("", |x| x.2.trim_matches('-'));
    (0..words.len()).find_map(|i| {
        let (start, end, used) = range_at(&w, i, today)?;
        let from_byte = words.get(i)?.0;
        let to_byte = words.get(i + used - 1)?.1;
        let (start, end) = (start.clamp(EARLIEST, LATEST), end.clamp(EARLIEST, LATEST));
        Some(DateRange {
            start,
            end,
            matched: text.get(from_byte..to_byte).unwrap_or_default().to_owned(),
        })
    })
}

/// A range read from words: (start, end exclusive, words used, at least one).
type Span = (NaiveDate, NaiveDate, usize);

/// The word at a position and the two after it ("" past the end).
type Words<'a> = (&'a str, &'a str, &'a str);

/// A range starting at word `i`. The rule groups below never both match the same words
/// (or, for counted spans, a later group cannot match where an earlier one refused), so
/// trying them in order reads a phrase as one `match` over every rule would.
fn range_at<'a>(w: &impl Fn(usize) -> &'a str, i: usize, today: NaiveDate) -> Option<Span> {
    let words = (w(i), w(i + 1), w(i + 2));
    days_around_today(words, today)
        .or_else(|| counted_span(words, today))
        .or_else(|| named_month(words, today))
        .or_else(|| named_season(words, today))
        .or_else(|| named_year(words))
        .or_else(|| iso_day(words.0))
}

/// Fixed phrases about the days just lived: today, yesterday, this or last week,
/// weekend, month or year.
fn days_around_today(words: Words<'_>, today: NaiveDate) -> Option<Span> {
    let tomorrow = add_days(today, 1);
    let this_month = first_of(today.year(), today.month());
    match words {
        ("today", _, _) | ("tonight", _, _) => Some((today, tomorrow, 1)),
        ("yesterday", _, _) => Some((add_days(today, -1), today, 1)),
        // "This week" in a question means the days just lived, so it is the last
        // seven days: asked on a Monday, a calendar week would hold only today.
        ("this", "week", _) => Some((add_days(today, -6), tomorrow, 2)),
        ("past", "few", "days") => Some((add_days(today, -6), tomorrow, 3)),
        // Weeks run Monday to Sunday, so the weekend closing the previous week is the
        // most recent one that is over, whichever day it is now.
        ("this", "weekend", _) => {
            let saturday = add_days(monday_of(today), 5);
            Some((saturday, add_days(saturday, 2), 2))
        }
        ("last", "weekend", _) => {
            let saturday = add_days(monday_of(today), -2);
            Some((saturday, add_days(saturday, 2), 2))
        }
        ("last", "week", _) | ("past", "week", _) => {
            let monday = add_days(monday_of(today), -7);
            Some((monday, add_days(monday, 7), 2))
        }
        ("this", "month", _) => Some((this_month, tomorrow, 2)),
        ("last", "month", _) => Some((add_months(this_month, -1), this_month, 2)),
        ("this", "year", _) => Some((first_of(today.year(), 1), tomorrow, 2)),
        ("last", "year", _) => Some((first_of(today.year() - 1, 1), first_of(today.year(), 1), 2)),
        _ => None,
    }
}

/// A typed count of days, weeks or months: "last 7 days", "3 weeks ago".
fn counted_span(words: Words<'_>, today: NaiveDate) -> Option<Span> {
    match words {
        ("last" | "past", n, unit) if count(n).is_some() => {
            let n = count(n)?;
            let days = match unit.trim_end_matches('s') {
                "day" => n,
                "week" => n.saturating_mul(7),
                "month" => n.saturating_mul(30),
                _ => return None,
            };
            Some((add_days(today, 1i64.saturating_sub(days)), add_days(today, 1), 3))
        }
        (n, unit, "ago") if count(n).is_some() => {
            let back = count(n)?.saturating_neg();
            match unit.trim_end_matches('s') {
                "day" => {
                    let day = add_days(today, back);
                    Some((day, add_days(day, 1), 3))
                }
                "week" => {
                    let monday = add_days(monday_of(today), back.saturating_mul(7));
                    Some((monday, add_days(monday, 7), 3))
                }
                "month" => {
                    let start = add_months(first_of(today.year(), today.month()), back);
                    Some((start, add_months(start, 1), 3))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A month by name: "last March", "this May", "in April 2026", "December 2025".
fn named_month(words: Words<'_>, today: NaiveDate) -> Option<Span> {
    let this_month = first_of(today.year(), today.month());
    let month = |start: NaiveDate, used| Some((start, add_months(start, 1), used));
    match words {
        ("last", m, _) if month_number(m).is_some() => {
            // The most recent month of that name that is over.
            let number = month_number(m)?;
            let mut start = first_of(today.year(), number);
            if start >= this_month {
                start = first_of(today.year() - 1, number);
            }
            month(start, 2)
        }
        ("this", m, _) if month_number(m).is_some() => month(first_of(today.year(), month_number(m)?), 2),
        ("in" | "during" | "since", m, y) if month_number(m).is_some() && year_number(y).is_some() => {
            month(first_of(year_number(y)?, month_number(m)?), 3)
        }
        ("in" | "during", m, _) if month_number(m).is_some() => {
            // A month without a year: the most recent one that has begun.
            let number = month_number(m)?;
            let mut start = first_of(today.year(), number);
            if start > today {
                start = first_of(today.year() - 1, number);
            }
            month(start, 2)
        }
        (m, y, _) if month_number(m).is_some() && year_number(y).is_some() => {
            month(first_of(year_number(y)?, month_number(m)?), 2)
        }
        _ => None,
    }
}

/// A season by name: "last spring", "this summer", "winter 2026".
fn named_season(words: Words<'_>, today: NaiveDate) -> Option<Span> {
    match words {
        (which @ ("last" | "this"), s, _) if season(s).is_some() => {
            let start_month = season(s)?;
            // The season of this year, or of last year if it has not started yet (this)
            // or is not over yet (last).
            let (mut start, mut end) = season_range(today.year() + i32::from(start_month == 12), start_month);
            let started = start <= today;
            let over = end <= today;
            let shift_back = if which == "this" { !started } else { !over };
            if shift_back {
                (start, end) = season_range(start.year() - 1 + i32::from(start_month == 12), start_month);
            }
            Some((start, end, 2))
        }
        (s, y, _) if season(s).is_some() && year_number(y).is_some() => {
            let (start, end) = season_range(year_number(y)?, season(s)?);
            Some((start, end, 2))
        }
        _ => None,
    }
}

/// A whole year: "in 2025", "during 2024".
fn named_year(words: Words<'_>) -> Option<Span> {
    match words {
        ("in" | "during", y, _) => {
            let y = year_number(y)?;
            Some((first_of(y, 1), first_of(y + 1, 1), 2))
        }
        _ => None,
    }
}

/// One day written as an ISO date: "2026-04-03".
fn iso_day(word: &str) -> Option<Span> {
    if word.len() != 10 || word.as_bytes().get(4) != Some(&b'-') {
        return None;
    }
    let d = clock::parse_date(word)?;
    Some((d, add_days(d, 1), 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Local> {
        // Monday 15 June 2026, evening.
        Local.with_ymd_and_hms(2026, 6, 15, 20, 0, 0).unwrap()
    }

    fn range(text: &str) -> Option<(String, String, String)> {
        parse_date_range(text, now())
            .map(|r| (clock::format_date(r.start), clock::format_date(r.end), r.matched))
    }

    fn days(a: &str, b: &str, m: &str) -> Option<(String, String, String)> {
        Some((a.into(), b.into(), m.into()))
    }

    #[test]
    fn relative_days_and_weeks() {
        assert_eq!(
            range("What did I do yesterday?"),
            days("2026-06-14", "2026-06-15", "yesterday")
        );
        assert_eq!(range("today"), days("2026-06-15", "2026-06-16", "today"));
        assert_eq!(
            range("How was my sleep this week"),
            days("2026-06-09", "2026-06-16", "this week")
        );
        assert_eq!(
            range("What did I do last weekend?"),
            days("2026-06-13", "2026-06-15", "last weekend")
        );
        assert_eq!(
            range("this weekend"),
            days("2026-06-20", "2026-06-22", "this weekend")
        );
        assert_eq!(
            range("and last week?"),
            days("2026-06-08", "2026-06-15", "last week")
        );
        assert_eq!(
            range("3 days ago"),
            days("2026-06-12", "2026-06-13", "3 days ago")
        );
        assert_eq!(
            range("in the last 7 days"),
            days("2026-06-09", "2026-06-16", "last 7 days")
        );
    }

    #[test]
    fn months_with_and_without_years() {
        assert_eq!(
            range("What did I write last March?"),
            days("2026-03-01", "2026-04-01", "last March")
        );
        assert_eq!(range("last June"), days("2025-06-01", "2025-07-01", "last June"));
        assert_eq!(
            range("What happened in April 2026?"),
            days("2026-04-01", "2026-05-01", "in April 2026")
        );
        assert_eq!(
            range("trips in September"),
            days("2025-09-01", "2025-10-01", "in September")
        );
        assert_eq!(
            range("December 2025 was cold"),
            days("2025-12-01", "2026-01-01", "December 2025")
        );
        assert_eq!(
            range("last month"),
            days("2026-05-01", "2026-06-01", "last month")
        );
    }

    #[test]
    fn seasons_years_and_iso_dates() {
        assert_eq!(
            range("spring 2026"),
            days("2026-03-01", "2026-06-01", "spring 2026")
        );
        assert_eq!(
            range("last spring"),
            days("2026-03-01", "2026-06-01", "last spring")
        );
        assert_eq!(
            range("this summer"),
            days("2026-06-01", "2026-09-01", "this summer")
        );
        assert_eq!(
            range("last summer"),
            days("2025-06-01", "2025-09-01", "last summer")
        );
        assert_eq!(
            range("winter 2026"),
            days("2025-12-01", "2026-03-01", "winter 2026")
        );
        assert_eq!(range("in 2025"), days("2025-01-01", "2026-01-01", "in 2025"));
        assert_eq!(
            range("on 2026-04-03"),
            days("2026-04-03", "2026-04-04", "2026-04-03")
        );
    }

    #[test]
    fn no_date_no_range() {
        for text in [
            "How is my knee?",
            "I may run",
            "march on",
            "the 1234 project",
            "",
            "last",
            "this",
        ] {
            assert_eq!(range(text), None, "{text}");
        }
    }
}
