//! The dashboard's figures.
//!
//! Triggers keep one `daily_stats` row per day with entries, so the dashboard reads a
//! few thousand small rows at most, never every entry, and computes everything in one
//! pass over them. The result is cached until the database changes
//! ([`super::unchanged`]).

use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate};
use rusqlite::{Connection, params};

use super::queries::{DASHBOARD_DATA, NamedQuery, STATS_DAYS};
use super::unchanged::UntilChanged;
use super::{Result, UserId};
use crate::clock;
use crate::timing;

/// Totals of one day with entries.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DayTotals {
    pub date: NaiveDate,
    pub entries: u32,
    pub words: u64,
    /// Average mood of the day's entries that have one.
    pub mood_avg: Option<f64>,
}

/// Everything the dashboard shows.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DashboardStats {
    pub total_entries: u64,
    pub total_words: u64,
    /// Consecutive days with an entry, ending today, or yesterday when today has none
    /// yet (a streak is not lost until the day is over).
    pub current_streak: u32,
    pub longest_streak: u32,
    /// Entries per week, by the Monday that starts the week; weeks without entries
    /// appear with zero so the chart shows gaps honestly.
    pub entries_per_week: Vec<(NaiveDate, u32)>,
    /// Average mood per day, for days with a mood.
    pub mood_per_day: Vec<(NaiveDate, f64)>,
    pub first_day: Option<NaiveDate>,
    pub last_day: Option<NaiveDate>,
}

/// The per-day rows, oldest first (`dashboard.data`).
pub fn daily_totals(conn: &Connection, user: UserId) -> Result<Vec<DayTotals>> {
    totals(conn, &DASHBOARD_DATA, params![user])
}

/// The days with entries from `first` to `last` (inclusive), oldest first
/// (`stats.days`): the calendar's month.
pub fn days_between(
    conn: &Connection,
    user: UserId,
    first: NaiveDate,
    last: NaiveDate,
) -> Result<Vec<DayTotals>> {
    let (first, last) = (clock::format_date(first), clock::format_date(last));
    totals(conn, &STATS_DAYS, params![user, first, last])
}

fn totals(conn: &Connection, query: &NamedQuery, params: impl rusqlite::Params) -> Result<Vec<DayTotals>> {
    timing::timed(query.name, || {
        let mut stmt = conn.prepare_cached(query.sql)?;
        let rows = stmt
            .query_map(params, |row| {
                let date: String = row.get(0)?;
                let mood_sum: i64 = row.get(3)?;
                let mood_count: i64 = row.get(4)?;
                Ok((date, row.get(1)?, row.get(2)?, mood_sum, mood_count))
            })?
            .collect::<rusqlite::Result<Vec<(String, u32, i64, i64, i64)>>>()?;
        Ok(rows
            .into_iter()
            .filter_map(|(date, entries, words, mood_sum, mood_count)| {
                Some(DayTotals {
                    date: clock::parse_date(&date)?,
                    entries,
                    words: words.max(0) as u64,
                    mood_avg: (mood_count > 0).then(|| mood_sum as f64 / mood_count as f64),
                })
            })
            .collect())
    })
}

/// Computes the dashboard from per-day rows sorted by date, in one pass.
pub fn compute(days: &[DayTotals], today: NaiveDate) -> DashboardStats {
    puffin::profile_function!();
    let mut stats = DashboardStats {
        first_day: days.first().map(|d| d.date),
        last_day: days.last().map(|d| d.date),
        ..Default::default()
    };
    let mut run = 0u32;
    let mut previous: Option<NaiveDate> = None;
    for day in days {
        stats.total_entries += u64::from(day.entries);
        stats.total_words += day.words;
        run = match previous {
            Some(p) if day.date - p == Duration::days(1) => run + 1,
            _ => 1,
        };
        stats.longest_streak = stats.longest_streak.max(run);
        previous = Some(day.date);

        let monday = day.date - Duration::days(i64::from(day.date.weekday().num_days_from_monday()));
        match stats.entries_per_week.last_mut() {
            Some((week, count)) if *week == monday => *count += day.entries,
            last => {
                // Fill the empty weeks between the previous week with entries and this one.
                if let Some(mut week) = last.map(|(w, _)| *w) {
                    while week + Duration::days(7) < monday {
                        week += Duration::days(7);
                        stats.entries_per_week.push((week, 0));
                    }
                }
                stats.entries_per_week.push((monday, day.entries));
            }
        }
        if let Some(mood) = day.mood_avg {
            stats.mood_per_day.push((day.date, mood));
        }
    }
    // The run that ends the history is the current streak if it reaches today or yesterday.
    stats.current_streak = match previous {
        Some(last) if last == today || last + Duration::days(1) == today => run,
        _ => 0,
    };
    stats
}

/// Caches [`DashboardStats`] for one connection until the database changes.
#[derive(Default)]
pub struct StatsCache {
    cached: UntilChanged<(UserId, NaiveDate), DashboardStats>,
}

/// The timing of a dashboard read, cache hit or not; the rows it reads are timed under
/// their catalogue name ([`DASHBOARD_DATA`]).
const STATS_TIMING: &str = "dashboard.stats";

impl StatsCache {
    /// The dashboard for `user` as of `today` (`STATS_TIMING`): cached, recomputed
    /// only after a write.
    pub fn get(&mut self, conn: &Connection, user: UserId, today: NaiveDate) -> Result<Arc<DashboardStats>> {
        timing::timed(STATS_TIMING, || {
            self.cached.get(conn, (user, today), || {
                Ok(compute(&daily_totals(conn, user)?, today))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str, entries: u32) -> DayTotals {
        DayTotals {
            date: clock::parse_date(date).unwrap(),
            entries,
            words: u64::from(entries) * 10,
            mood_avg: Some(5.0),
        }
    }

    #[test]
    fn streaks_count_consecutive_days() {
        let days = [
            day("2026-01-01", 1),
            day("2026-01-02", 2),
            day("2026-01-03", 1),
            day("2026-01-05", 1),
            day("2026-01-06", 1),
        ];
        let today = clock::parse_date("2026-01-07").unwrap();
        let s = compute(&days, today);
        assert_eq!((s.longest_streak, s.current_streak), (3, 2));
        assert_eq!((s.total_entries, s.total_words), (6, 60));
        let later = clock::parse_date("2026-01-08").unwrap();
        assert_eq!(compute(&days, later).current_streak, 0);
    }

    #[test]
    fn weeks_start_on_monday_and_gaps_are_zero() {
        // 2026-01-05 is a Monday.
        let days = [day("2026-01-05", 1), day("2026-01-11", 2), day("2026-01-26", 1)];
        let s = compute(&days, clock::parse_date("2026-02-01").unwrap());
        let weeks: Vec<(String, u32)> = s
            .entries_per_week
            .iter()
            .map(|(d, n)| (clock::format_date(*d), *n))
            .collect();
        assert_eq!(
            weeks,
            [
                ("2026-01-05", 3),
                ("2026-01-12", 0),
                ("2026-01-19", 0),
                ("2026-01-26", 1)
            ]
            .map(|(d, n)| (d.to_owned(), n))
        );
    }
}
