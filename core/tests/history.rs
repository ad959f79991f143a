//! Entry history: what a save replaces is kept once per editing session, bounded, and
//! any version can be brought back without losing the text it replaces.

mod common;

use common::TempJournal;
use mindsage_core::db::entries::{self, EntryEdit, NewEntry};
use mindsage_core::db::{DEFAULT_USER, history};

fn edit(title: &str, body: &str, tags: &[&str]) -> EntryEdit {
    EntryEdit {
        title: title.into(),
        body: body.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        mood_score: Some(6),
    }
}

#[test]
fn a_session_of_saves_keeps_one_version_and_any_version_comes_back() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let new = NewEntry {
        title: "First draft".into(),
        body: "The original words.".into(),
        tags: vec!["draft".into()],
        ..NewEntry::default()
    };
    let id = entries::create(&mut conn, DEFAULT_USER, &new).unwrap();
    // Autosave while typing: three saves, one session, one version (the original).
    for body in [
        "The original words, then",
        "The original words, then more",
        "Rewritten.",
    ] {
        entries::update(
            &mut conn,
            DEFAULT_USER,
            id,
            &edit("Second draft", body, &["final"]),
        )
        .unwrap();
    }
    let versions = history::versions(&conn, id).unwrap();
    assert_eq!(versions.len(), 1);
    assert_eq!(
        (versions[0].title.as_str(), versions[0].body.as_str()),
        ("First draft", "The original words.")
    );
    assert_eq!(versions[0].tags, ["draft"]);
    // A mood change alone keeps nothing.
    let mut mood_only = edit("Second draft", "Rewritten.", &["final"]);
    mood_only.mood_score = Some(9);
    entries::update(&mut conn, DEFAULT_USER, id, &mood_only).unwrap();
    assert_eq!(history::versions(&conn, id).unwrap().len(), 1);

    // Bringing the original back keeps what it replaces.
    entries::bring_back(&mut conn, DEFAULT_USER, id, versions[0].id).unwrap();
    let entry = entries::get(&conn, DEFAULT_USER, id).unwrap();
    assert_eq!(
        (entry.title.as_str(), entry.body.as_str()),
        ("First draft", "The original words.")
    );
    assert_eq!(
        (entry.tags.clone(), entry.mood_score),
        (vec!["draft".to_string()], Some(9))
    );
    let after = history::versions(&conn, id).unwrap();
    assert_eq!(after.len(), 2);
    assert_eq!(after[0].body, "Rewritten.");
    assert!(entries::bring_back(&mut conn, DEFAULT_USER, id, 999).is_err());
}

#[test]
fn old_versions_thin_to_one_a_month_and_a_new_session_keeps_another() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let id = entries::create(
        &mut conn,
        DEFAULT_USER,
        &NewEntry {
            body: "v0".into(),
            ..NewEntry::default()
        },
    )
    .unwrap();
    // Versions kept long ago: three in March 2020, two in April.
    for (n, written) in [
        "2020-03-01",
        "2020-03-10",
        "2020-03-20",
        "2020-04-02",
        "2020-04-30",
    ]
    .iter()
    .enumerate()
    {
        conn.execute(
            "INSERT INTO entry_versions (entry_id, written_at, kept_at, title, body, tag_names) VALUES (?1, ?2, ?2, '', ?3, '')",
            rusqlite::params![id, format!("{written}T10:00:00.000Z"), format!("old {n}")],
        )
        .unwrap();
    }
    entries::update(&mut conn, DEFAULT_USER, id, &edit("", "v1", &[])).unwrap();
    let bodies: Vec<String> = history::versions(&conn, id)
        .unwrap()
        .into_iter()
        .map(|v| v.body)
        .collect();
    assert_eq!(
        bodies,
        ["v0", "old 4", "old 2"],
        "today's version, then the newest of each old month"
    );
}

#[test]
fn the_days_all_versions_are_kept_is_a_setting_and_shortening_it_thins_at_once() {
    let journal = TempJournal::new();
    let mut conn = journal.open();
    let id = entries::create(
        &mut conn,
        DEFAULT_USER,
        &NewEntry {
            body: "now".into(),
            ..NewEntry::default()
        },
    )
    .unwrap();
    assert_eq!(history::days(&conn, DEFAULT_USER).unwrap(), history::DEFAULT_DAYS);
    // Three versions of one month of writing, kept 40, 35 and 5 days ago.
    let now = chrono::Utc::now();
    for (n, (written, days_ago)) in [("2026-01-05", 40), ("2026-01-20", 35), ("2026-01-25", 5)]
        .into_iter()
        .enumerate()
    {
        let kept = mindsage_core::clock::format_utc(now - chrono::Duration::days(days_ago));
        conn.execute(
            "INSERT INTO entry_versions (entry_id, written_at, kept_at, title, body, tag_names) VALUES (?1, ?2, ?3, '', ?4, '')",
            rusqlite::params![id, format!("{written}T10:00:00.000Z"), kept, format!("v{n}")],
        )
        .unwrap();
    }
    let bodies = |conn: &rusqlite::Connection| -> Vec<String> {
        history::versions(conn, id)
            .unwrap()
            .into_iter()
            .map(|v| v.body)
            .collect()
    };
    assert_eq!(bodies(&conn), ["v2", "v1", "v0"]);

    // Thirty days: the two older than that are one month of writing, so its newest stays.
    assert_eq!(history::set_days(&mut conn, DEFAULT_USER, 30).unwrap(), 1);
    assert_eq!(history::days(&conn, DEFAULT_USER).unwrap(), 30);
    assert_eq!(bodies(&conn), ["v2", "v1"]);

    // Zero days: every save's rule is one a month; a new session's save keeps its own.
    history::set_days(&mut conn, DEFAULT_USER, 0).unwrap();
    assert_eq!(bodies(&conn), ["v2"]);
    entries::update(&mut conn, DEFAULT_USER, id, &edit("", "later", &[])).unwrap();
    assert_eq!(bodies(&conn), ["now", "v2"]);

    let refused = history::set_days(&mut conn, DEFAULT_USER, history::MAX_DAYS + 1).unwrap_err();
    assert!(refused.to_string().contains("at most"), "{refused}");
    assert_eq!(
        history::days(&conn, DEFAULT_USER).unwrap(),
        0,
        "a refused setting changes nothing"
    );
}
