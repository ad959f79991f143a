//! Timestamps as the database stores them.
//!
//! Every timestamp is ISO-8601 UTC text of one fixed width (`2026-04-03T21:07:55.120Z`).
//! Fixed width is what makes text order equal time order, so indexes can serve `ORDER BY
//! created_at` and date ranges compare plain strings. Everything that writes a timestamp
//! goes through [`format_utc`]; nothing else formats dates for storage.
//!
//! An entry's date is the day and time it was lived where it was written: its instant
//! (`created_at`) at the UTC offset of the place it was written (`utc_offset`, seconds
//! east of UTC). [`lived`] is the one rule that turns the two into the date every list,
//! filter, screen and export shows, so an entry written at 23:59 on 4 January in New
//! York is 4 January on any computer in any zone.

use chrono::{
    DateTime, FixedOffset, Local, NaiveDate, NaiveDateTime, NaiveTime, SecondsFormat, TimeZone, Utc,
};

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

/// An entry's date and time as lived where it was written, from its stored columns:
/// `created_at` (the stored UTC form) and `utc_offset` (seconds east of UTC). `None`
/// only for a damaged row: text that is not a timestamp, or an offset of a day or more.
pub fn lived(created_at: &str, utc_offset: i32) -> Option<DateTime<FixedOffset>> {
    let offset = FixedOffset::east_opt(utc_offset)?;
    Some(parse_utc(created_at)?.with_timezone(&offset))
}

/// A lived date and time as exports write it: RFC 3339 with the offset where it was
/// lived (`2024-01-04T23:59:00.000-05:00`), read back by any RFC 3339 reader.
pub fn format_lived(lived: &DateTime<FixedOffset>) -> String {
    lived.to_rfc3339_opts(SecondsFormat::Millis, false)
}

/// What a lived date and time stores as `utc_offset`: seconds east of UTC.
pub fn utc_offset_of(lived: &DateTime<FixedOffset>) -> i32 {
    lived.offset().local_minus_utc()
}

/// Instant `t` as lived on this computer: in its time zone, at the offset the zone had
/// then (a summer instant keeps its summer offset).
pub fn here(t: DateTime<Utc>) -> DateTime<FixedOffset> {
    t.with_timezone(&Local).fixed_offset()
}

/// Now, as lived on this computer: how a new entry is dated.
pub fn now_here() -> DateTime<FixedOffset> {
    here(Utc::now())
}

/// A wall-clock time on this computer, lived here: in a daylight-saving gap, the moment
/// the clocks jumped to; when the clocks went back, the first of the two.
pub fn local_instant(naive: NaiveDateTime) -> DateTime<FixedOffset> {
    let resolved = Local.from_local_datetime(&naive).earliest().or_else(|| {
        Local
            .from_local_datetime(&(naive + chrono::Duration::hours(1)))
            .earliest()
    });
    match resolved {
        Some(t) => t.fixed_offset(),
        None => Utc.from_utc_datetime(&naive).fixed_offset(),
    }
}

/// Instant `t` as lived on `day`, for a record that kept the day it counts for but not
/// its offset (a journal from before offsets were stored, a MindSage export of version
/// 1): this computer's offset then when that puts `t` on `day` (it was written here),
/// else the whole hour nearest to it that does (it was written in another zone, which
/// is not known; its day is right and its time as near as can be told).
pub fn lived_on(t: DateTime<Utc>, day: NaiveDate) -> DateTime<FixedOffset> {
    let here = here(t);
    if here.date_naive() == day {
        return here;
    }
    const HOUR: i64 = 3600;
    // The offsets that put `t` on `day`: from `first` (its midnight) to a second short of
    // a day after it.
    let first = (day.and_time(NaiveTime::MIN) - t.naive_utc()).num_seconds();
    let last = first + 86_399;
    let wanted = i64::from(utc_offset_of(&here));
    let offset = if wanted < first {
        -(-first).div_euclid(HOUR) * HOUR
    } else {
        last.div_euclid(HOUR) * HOUR
    };
    i32::try_from(offset)
        .ok()
        .and_then(FixedOffset::east_opt)
        .map_or(here, |offset| t.with_timezone(&offset))
}

/// The calendar day the person was living in at instant `t`, on this computer's clock.
/// Streaks and per-day charts count these days, not UTC dates.
///
/// Tests only (the dashboard tests' expected days); not part of the API.
#[doc(hidden)]
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

/// Parses a time of day as people type it: `23:15`, `23.15` or `23:15:00`.
pub fn parse_time(text: &str) -> Option<chrono::NaiveTime> {
    ["%H:%M", "%H.%M", "%H:%M:%S"]
        .iter()
        .find_map(|format| chrono::NaiveTime::parse_from_str(text.trim(), format).ok())
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

    #[test]
    fn an_entry_is_lived_at_its_own_offset() {
        let evening = lived("2024-01-05T04:59:00.000Z", -5 * 3600).unwrap();
        assert_eq!(format_lived(&evening), "2024-01-04T23:59:00.000-05:00");
        assert_eq!(utc_offset_of(&evening), -18_000);
        assert_eq!(lived("2024-01-05T04:59:00.000Z", 86_400), None);
        assert_eq!(lived("yesterday", 0), None);
    }

    #[test]
    fn a_day_without_its_offset_gets_the_nearest_hour_that_holds_it() {
        let t = parse_utc("2024-01-05T04:59:00Z").unwrap();
        let day = |text| parse_date(text).unwrap();
        for on in ["2024-01-04", "2024-01-05", "2024-01-06"] {
            let lived = lived_on(t, day(on));
            assert_eq!(lived.date_naive(), day(on), "{lived}");
            assert_eq!(lived.with_timezone(&Utc), t);
        }
        // Whatever this computer's zone, the evening before is at most 5 hours west.
        let before = lived_on(t, day("2024-01-04"));
        assert!(utc_offset_of(&before) <= -5 * 3600, "{before}");
        // A day no offset reaches keeps this computer's.
        assert_eq!(lived_on(t, day("2024-03-01")), here(t));
    }
}
