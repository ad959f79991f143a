//! Timestamps as the database stores them.
//!
//! Every timestamp is ISO-8601 UTC text of one fixed width (`2026-04-03T21:07:55.120Z`).
//! Fixed width is what makes text order equal time order, so indexes can serve `ORDER BY
//! created_at` and date ranges compare plain strings. Everything that writes a timestamp
//! goes through [`format_utc`]; nothing else formats dates for storage.

use chrono::{DateTime, Local, NaiveDate, SecondsFormat, Utc};

/// The stored form of an instant.
pub fn format_utc(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Now, in the stored form.
pub fn now_utc() -> String {
    format_utc(Utc::now())
}

/// Parses a stored timestamp (or any RFC 3339 text) back into an instant.
pub fn parse_utc(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The calendar day the person was living in at instant `t`, on this computer's clock.
/// Streaks and per-day charts count these days, not UTC dates.
pub fn local_date_of(t: DateTime<Utc>) -> NaiveDate {
    t.with_timezone(&Local).date_naive()
}

/// The stored form of a calendar day.
pub fn format_date(d: NaiveDate) -> String {
    d.format("%Y-%m-%d").to_string()
}

/// Parses `YYYY-MM-DD`.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// The start of a calendar day as a stored UTC timestamp bound (local midnight).
/// Used to turn a user's "from"/"to" days into a created_at range.
pub fn local_day_start_utc(d: NaiveDate) -> String {
    let midnight = d.and_time(chrono::NaiveTime::MIN);
    let local = midnight
        .and_local_timezone(Local)
        .earliest()
        // A day whose midnight is skipped by a DST change starts at 01:00.
        .or_else(|| {
            midnight
                .checked_add_signed(chrono::Duration::hours(1))?
                .and_local_timezone(Local)
                .earliest()
        })
        .unwrap_or_else(|| midnight.and_utc().with_timezone(&Local));
    format_utc(local.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_form_is_fixed_width_and_sorts_as_time() {
        let a = parse_utc("2021-03-04T05:06:07Z").unwrap();
        let b = parse_utc("2021-03-04T05:06:07.5Z").unwrap();
        let (fa, fb) = (format_utc(a), format_utc(b));
        assert_eq!(fa, "2021-03-04T05:06:07.000Z");
        assert_eq!(fa.len(), fb.len());
        assert!(fa < fb);
        assert_eq!(parse_utc(&fb), Some(b));
    }
}
