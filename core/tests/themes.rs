//! Themes (`search::themes`): what recurs in the last weeks, from tags, from the people
//! and places the journal remembers, and from words that come up far more often lately
//! than in the rest of the journal; never from words every entry uses, nor from one busy
//! day.

mod common;

use chrono::{Days, Local, NaiveDate};
use common::TempJournal;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::memory::{self, Found, Kind};
use mindsage_core::db::{DEFAULT_USER, EntryId};
use mindsage_core::search::themes::{self, Source};
use rusqlite::Connection;

fn write(conn: &mut Connection, day: NaiveDate, body: &str, tags: &[&str]) -> EntryId {
    let noon = day
        .and_hms_opt(12, 0, 0)
        .unwrap()
        .and_local_timezone(Local)
        .unwrap();
    let entry = NewEntry {
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        created_at: Some(noon.fixed_offset()),
        ..NewEntry::default()
    };
    entries::create(conn, DEFAULT_USER, &entry).unwrap()
}

#[test]
fn what_recurs_lately_is_a_theme_and_what_is_always_there_is_not() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let today = Local::now().date_naive();
    let ago = |days: u64| today - Days::new(days);
    // A year of ordinary days: work is in every entry.
    for n in 0..60 {
        write(&mut conn, ago(60 + n * 5), "Work, then dinner and a book.", &[]);
    }
    // The last weeks: the knee, physio, Maya, over three weeks; work as always.
    let mut knee = Vec::new(); // newest first, as written below
    for (days, body, tags) in [
        (2, "Work. The knee hurts on the stairs.", &["physio"][..]),
        (6, "Work, then physio for the knee.", &["physio"]),
        (9, "Tea with Maya. The knee is better.", &[]),
        (13, "Work. Maya came by.", &["physio"]),
        (17, "Work. Walked with Maya, knee fine.", &[]),
    ] {
        let id = write(&mut conn, ago(days), body, tags);
        if body.contains("knee") {
            knee.push(id);
        }
        if body.contains("Maya") {
            let found = [Found {
                kind: Kind::Person,
                name: "Maya".into(),
                relation: "sister".into(),
            }];
            let tx = conn.transaction().unwrap();
            memory::remember(&tx, DEFAULT_USER, id, body, &found, "a model").unwrap();
            tx.commit().unwrap();
        }
    }
    // One busy day about a concert: many entries, one week.
    for _ in 0..4 {
        write(&mut conn, ago(3), "Work, then the concert tickets.", &[]);
    }

    let found = themes::between(&conn, DEFAULT_USER, ago(27), today, 10).unwrap();
    let named: Vec<(&str, &Source)> = found.iter().map(|t| (t.name.as_str(), &t.source)).collect();
    assert!(named.contains(&("knee", &Source::Word)), "{named:?}");
    assert!(named.contains(&("physio", &Source::Tag)), "{named:?}");
    assert!(
        named.contains(&("Maya", &Source::Remembered(Kind::Person))),
        "{named:?}"
    );
    for never in ["work", "concert", "tickets", "maya"] {
        assert!(
            !named.iter().any(|(name, _)| *name == never),
            "{never} in {named:?}"
        );
    }
    let theme = found.iter().find(|t| t.name == "knee").unwrap();
    assert_eq!(theme.entries, knee, "its entries, newest first");
    assert_eq!(theme.search_text(), "knee");
    let maya = found.iter().find(|t| t.name == "Maya").unwrap();
    assert_eq!(maya.search_text(), "@maya");

    // Nothing recurs in a journal of one entry.
    let empty = TempJournal::new();
    let mut conn = empty.open();
    write(&mut conn, ago(1), "The knee.", &["physio"]);
    assert!(
        themes::between(&conn, DEFAULT_USER, ago(27), today, 10)
            .unwrap()
            .is_empty()
    );
}

/// A journal of a few weeks has no past to compare with: what recurs in part of it is a
/// theme, what is in most of it is not.
#[test]
fn a_young_journal_has_themes_too() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let today = Local::now().date_naive();
    let ago = |days: u64| today - Days::new(days);
    for (days, body) in [
        (3, "Work. Slept nine hours."),
        (6, "Work, long day."),
        (10, "Work. Slept badly again."),
        (13, "Work and a run."),
        (17, "Work. Slept better."),
        (20, "Work, then dinner."),
        (24, "Work, quiet."),
    ] {
        write(&mut conn, ago(days), body, &[]);
    }
    let found = themes::between(&conn, DEFAULT_USER, ago(27), today, 10).unwrap();
    let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["slept"]);
}
