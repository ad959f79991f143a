//! Dashboard figures against a brute-force recomputation from every entry, after many
//! random writes, and the cache's invalidation.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate, Utc};
use common::TempJournal;
use mindsage_core::clock;
use mindsage_core::db::entries::{self, EntryEdit, NewEntry};
use mindsage_core::db::stats::StatsCache;
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{DEFAULT_USER, StorageOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const USER: i64 = DEFAULT_USER;

struct Expected {
    total_entries: u64,
    total_words: u64,
    longest: u32,
    current: u32,
    weeks: BTreeMap<NaiveDate, u32>,
    moods: BTreeMap<NaiveDate, f64>,
}

/// Recomputes everything from the live entries themselves, the slow obvious way.
fn brute_force(conn: &rusqlite::Connection, today: NaiveDate) -> Expected {
    let mut stmt = conn
        .prepare("SELECT created_at, word_count, mood_score FROM journal_entries WHERE is_deleted = 0 AND user_id = ?1")
        .unwrap();
    let rows: Vec<(String, i64, Option<i64>)> = stmt
        .query_map([USER], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut days = BTreeSet::new();
    let mut weeks: BTreeMap<NaiveDate, u32> = BTreeMap::new();
    let mut mood_sums: BTreeMap<NaiveDate, (i64, i64)> = BTreeMap::new();
    let mut words = 0;
    for (created, w, mood) in &rows {
        let day = clock::local_date_of(clock::parse_utc(created).unwrap());
        days.insert(day);
        words += *w as u64;
        let monday = day - Duration::days(day.weekday().num_days_from_monday() as i64);
        *weeks.entry(monday).or_default() += 1;
        if let Some(m) = mood {
            let e = mood_sums.entry(day).or_default();
            e.0 += m;
            e.1 += 1;
        }
    }
    // Weeks between the first and last week with entries count zero.
    if let (Some(&first), Some(&last)) = (weeks.keys().next(), weeks.keys().last()) {
        let mut w = first;
        while w < last {
            weeks.entry(w).or_insert(0);
            w += Duration::days(7);
        }
    }
    let mut longest = 0;
    for &d in &days {
        let mut n = 0;
        while days.contains(&(d - Duration::days(n))) {
            n += 1;
        }
        longest = longest.max(n as u32);
    }
    let anchor = if days.contains(&today) {
        Some(today)
    } else {
        Some(today - Duration::days(1)).filter(|y| days.contains(y))
    };
    let current = anchor.map_or(0, |a| {
        let mut n = 0;
        while days.contains(&(a - Duration::days(n))) {
            n += 1;
        }
        n as u32
    });
    Expected {
        total_entries: rows.len() as u64,
        total_words: words,
        longest,
        current,
        weeks,
        moods: mood_sums
            .into_iter()
            .map(|(d, (s, c))| (d, s as f64 / c as f64))
            .collect(),
    }
}

fn assert_matches(cache: &mut StatsCache, conn: &rusqlite::Connection, today: NaiveDate, step: usize) {
    let got = cache.get(conn, USER, today).unwrap();
    let want = brute_force(conn, today);
    assert_eq!(got.total_entries, want.total_entries, "step {step}");
    assert_eq!(got.total_words, want.total_words, "step {step}");
    assert_eq!(got.longest_streak, want.longest, "step {step}");
    assert_eq!(got.current_streak, want.current, "step {step}");
    assert_eq!(
        got.entries_per_week.iter().copied().collect::<BTreeMap<_, _>>(),
        want.weeks,
        "step {step}"
    );
    let moods: BTreeMap<_, _> = got.mood_per_day.iter().copied().collect();
    assert_eq!(
        moods.keys().collect::<Vec<_>>(),
        want.moods.keys().collect::<Vec<_>>(),
        "step {step}"
    );
    for (day, m) in &want.moods {
        assert!((moods[day] - m).abs() < 1e-9, "step {step}: mood on {day}");
    }
}

#[test]
fn stats_equal_a_brute_force_recomputation_after_random_writes() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let reader = journal.open();
    let mut cache = StatsCache::default();
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let now = Utc::now();
    let today = clock::local_date_of(now);
    let mut ids: Vec<i64> = Vec::new();
    let random_body = |rng: &mut ChaCha8Rng| "word ".repeat(rng.random_range(0..40));
    for step in 0..400 {
        match rng.random_range(0..10) {
            0..=4 => {
                // Mostly recent days, so streaks form and break.
                let created = now - Duration::hours(rng.random_range(0..24 * 40));
                let entry = NewEntry {
                    title: String::new(),
                    body: random_body(&mut rng),
                    tags: vec![],
                    mood_score: rng.random_bool(0.7).then(|| rng.random_range(1..=10)),
                    created_at: Some(clock::here(created)),
                };
                ids.push(entries::create(&mut conn, USER, &entry).unwrap());
            }
            5 | 6 if !ids.is_empty() => {
                let id = ids[rng.random_range(0..ids.len())];
                let edit = EntryEdit {
                    title: "edited".into(),
                    body: random_body(&mut rng),
                    tags: vec![],
                    mood_score: rng.random_bool(0.5).then(|| rng.random_range(1..=10)),
                };
                entries::update(&mut conn, USER, id, &edit).unwrap();
            }
            7 if !ids.is_empty() => {
                entries::soft_delete(&mut conn, USER, ids[rng.random_range(0..ids.len())]).unwrap()
            }
            8 if !ids.is_empty() => {
                entries::restore(&mut conn, USER, ids[rng.random_range(0..ids.len())]).unwrap()
            }
            9 if !ids.is_empty() => {
                let id = ids.swap_remove(rng.random_range(0..ids.len()));
                entries::purge(&mut conn, USER, id, std::time::Duration::from_secs(1)).unwrap();
            }
            _ => {}
        }
        if step % 10 == 0 {
            // Read from a second connection, as the app's reader does.
            assert_matches(&mut cache, &reader, today, step);
        }
    }
    assert_matches(&mut cache, &reader, today, 400);
    assert_matches(&mut StatsCache::default(), &conn, today, 401);
}

#[test]
fn cache_is_reused_until_any_connection_writes() {
    let journal = TempJournal::new();
    let reader = journal.open();
    let writer = Writer::spawn(&journal.path, &StorageOptions::default()).unwrap();
    let today = clock::local_date_of(Utc::now());
    let mut cache = StatsCache::default();
    let first = cache.get(&reader, USER, today).unwrap();
    assert!(
        Arc::ptr_eq(&first, &cache.get(&reader, USER, today).unwrap()),
        "warm read is the cached value"
    );

    writer
        .call(|conn| {
            entries::create(
                conn,
                USER,
                &NewEntry {
                    body: "three more words".into(),
                    ..Default::default()
                },
            )
        })
        .unwrap();
    let after_write = cache.get(&reader, USER, today).unwrap();
    assert!(!Arc::ptr_eq(&first, &after_write));
    assert_eq!(
        (
            after_write.total_entries,
            after_write.total_words,
            after_write.current_streak
        ),
        (1, 3, 1)
    );
    // A new day changes the streak without any write.
    let later = cache.get(&reader, USER, today + Duration::days(5)).unwrap();
    assert_eq!(later.current_streak, 0);
}

/// "An older entry, at random": only live entries lived before the day, each of them
/// in time, and none in a journal with nothing that old.
#[test]
fn an_older_entry_at_random_is_any_live_entry_before_the_day_and_only_those() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let today = Utc::now().date_naive();
    let cutoff = today - Duration::days(30);
    let before = entries::random_older(&conn, USER, cutoff).unwrap();
    assert_eq!(before, None, "an empty journal");
    let mut older = BTreeSet::new();
    let mut trashed = None;
    // Older and newer entries alternate, so the ids of the older ones have gaps.
    for n in 0..9i64 {
        let days_back = if n % 2 == 0 { 40 + n } else { n };
        let noon = (today - Duration::days(days_back))
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc();
        let entry = NewEntry {
            body: format!("Entry {n}."),
            created_at: Some(noon.fixed_offset()),
            ..NewEntry::default()
        };
        let id = entries::create(&mut conn, USER, &entry).unwrap();
        match (n % 2 == 0, n) {
            (true, 4) => trashed = Some(id),
            (true, _) => {
                older.insert(id);
            }
            _ => {}
        }
    }
    entries::soft_delete(&mut conn, USER, trashed.unwrap()).unwrap();
    let mut seen = BTreeSet::new();
    for _ in 0..300 {
        let id = entries::random_older(&conn, USER, cutoff).unwrap().unwrap();
        assert!(older.contains(&id), "{id} is not a live entry older than the day");
        seen.insert(id);
    }
    assert_eq!(seen, older, "every older entry comes up");
    assert_eq!(
        entries::random_older(&conn, USER, today - Duration::days(100)).unwrap(),
        None
    );
}
