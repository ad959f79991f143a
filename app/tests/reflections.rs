//! Reflections in the real window: the app's own job runner has the local model read
//! last week's entries and then look back on the week; today's page offers it ("Last
//! week, in short"), the Reflections screen (Ctrl+6) shows each sentence with the days
//! of its entries, a day opens its entry, and an entry typed into that week has the
//! week written again. Ask reads a question about the time since something the
//! journal tells of ("since the move") as the days from that entry on.

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use chrono::{Datelike, Days, NaiveDate};
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use rand::SeedableRng;

use mindsage::app::Startup;
use mindsage::views::View;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::reflections::{self, Period, State};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::paths;

use app_harness::{app_from, shows, type_slowly, wait_until};

/// Monday of the week before this one.
fn last_monday() -> NaiveDate {
    let today = chrono::Local::now().date_naive();
    today - Days::new(u64::from(today.weekday().num_days_from_monday()) + 7)
}

/// Last week's reflection as the file holds it, read off the test's thread (the UI
/// thread, where queries are forbidden).
fn last_weeks(data_dir: &std::path::Path) -> Option<(State, usize)> {
    let path = paths::database_path(data_dir);
    std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        reflections::recent(&conn, DEFAULT_USER, 10)
            .unwrap()
            .into_iter()
            .find(|r| r.period == Period::Week && r.first_day == last_monday())
            .map(|r| (r.state, r.sentences.len()))
    })
    .join()
    .unwrap()
}

#[test]
fn last_week_is_looked_back_on_and_each_sentence_opens_its_entries() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let monday = last_monday();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        for (days, body) in [
            (0, "Maya and I baked bread."),
            (2, "Walked by the lake with my sister."),
        ] {
            let noon = (monday + Days::new(days))
                .and_hms_opt(12, 0, 0)
                .unwrap()
                .and_local_timezone(chrono::Local)
                .unwrap();
            let entry = NewEntry {
                body: body.into(),
                created_at: Some(noon.fixed_offset()),
                ..NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    }
    let enrich = |matching: &str, summary: &str| {
        let reply = serde_json::json!({"title": summary, "mood_score": 7, "mood_tags": ["calm"],
            "summary": summary, "people": [{"name": "Maya", "relation": "sister"}], "places": [],
            "activities": []});
        serde_json::json!({"match": matching, "response": reply.to_string()})
    };
    let reflection = |text: &str| {
        let reply = serde_json::json!({"sentences": [
            {"text": text, "entries": [1, 2]},
            {"text": "You felt calm all week.", "entries": [2]}
        ]});
        reply.to_string()
    };
    let rules = serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
        // Written again once the third entry is in the week.
        {"match": "Rain all day", "response": reflection("You baked bread with Maya, walked by the lake, and stayed in with the rain.")},
        {"match": "The week of", "response": reflection("You baked bread with Maya and walked by the lake.")},
        enrich("baked bread", "Baked bread with Maya."),
        enrich("by the lake", "A walk by the lake."),
        enrich("rain", "Rain all day."),
    ]});
    server.script(&rules.to_string());
    // Opened as a person opens it: on today's page.
    let mut startup = Startup::on_view(dir.path().to_path_buf(), View::Journal);
    startup.today = true;
    let mut harness = app_from(startup, server.settings(), 900.0);

    // Today's page offers last week's, once the model has written it.
    wait_until(&mut harness, "last week's reflection on today's page", |h| {
        shows(
            h,
            "Last week, in short: You baked bread with Maya and walked by the lake.",
        )
    });
    harness
        .get_by_label("Last week, in short: You baked bread with Maya and walked by the lake.")
        .click();
    wait_until(&mut harness, "the Reflections screen", |h| {
        h.state().view() == View::Reflections
            && shows(h, &format!("The week of {}", monday.format("%-d %B %Y")))
    });
    assert!(shows(&harness, "You felt calm all week."));

    // The day after a sentence opens its entry in the journal.
    let lake_day = (monday + Days::new(2)).format("%a %-d %b").to_string();
    harness.get_all_by_label(&lake_day).next().unwrap().click();
    wait_until(&mut harness, "the lake entry in the journal", |h| {
        h.state().view() == View::Journal
            && h.query_all_by_value("Walked by the lake with my sister.")
                .next()
                .is_some()
    });

    // Another entry that week, written on its page as a person writes: the week is
    // looked back on again.
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowRight);
    harness.run_steps(3);
    let mut rng = rand::rngs::StdRng::seed_from_u64(36);
    type_slowly(
        &mut harness,
        &mut rng,
        Role::MultilineTextInput,
        "Entry",
        "Rain, so I stayed in.",
    );
    wait_until(&mut harness, "the week written again", |_| {
        last_weeks(dir.path()) == Some((State::Done, 2))
    });
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num6);
    wait_until(&mut harness, "the new reflection on the screen", |h| {
        shows(h, "and stayed in with the rain.")
    });
}

/// Ask, asked about the time since something the journal tells of: the question's dates
/// run from that entry's day, the window says which entry it took, and the entries
/// before it are not the answer's sources.
#[test]
fn a_question_since_the_move_is_answered_from_the_days_after_it() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let today = chrono::Local::now().date_naive();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        for (days_ago, title, body) in [
            (70, "Work stress", "Slept terribly, deadlines all week."),
            (
                60,
                "Boxes",
                "Packing boxes for the flat. Slept badly on the sofa.",
            ),
            (
                50,
                "Moving day",
                "The move is done: we carried the last boxes into the flat on Elm Street.",
            ),
            (
                40,
                "New bedroom",
                "Slept well in the new bedroom, the street is quiet.",
            ),
            (20, "Neighbours", "Slept badly again, the neighbours had a party."),
        ] {
            let noon = (today - Days::new(days_ago))
                .and_hms_opt(12, 0, 0)
                .unwrap()
                .and_local_timezone(chrono::Local)
                .unwrap();
            let entry = NewEntry {
                title: title.into(),
                body: body.into(),
                created_at: Some(noon.fixed_offset()),
                ..NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    }
    let enrichment = serde_json::json!({"title": "A note", "mood_score": 5, "mood_tags": [],
        "summary": "A note.", "people": [], "places": [], "activities": []});
    let reflection = serde_json::json!({"sentences": [{"text": "You wrote.", "entries": [1]}]});
    let rules = serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
        {"match": "since the move", "response": "You slept well at first, then badly."},
        // The model's background work on the entries, never the answer's text.
        {"match": "private journal entry", "response": enrichment.to_string()},
        {"match": "short reflection", "response": reflection.to_string()},
    ]});
    server.script(&rules.to_string());
    let startup = Startup::on_view(dir.path().to_path_buf(), View::Ask);
    let mut harness = app_from(startup, server.settings(), 900.0);
    harness.run_steps(2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(34);
    type_slowly(
        &mut harness,
        &mut rng,
        Role::TextInput,
        "Question",
        "How have I slept since the move?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    let moved = (today - Days::new(50)).format("%-d %B %Y");
    wait_until(&mut harness, "the answer from the days since the move", |h| {
        shows(h, "You slept well at first, then badly.")
            && shows(h, &format!("Remembered: since the move (your entry of {moved})"))
    });
    for title in ["New bedroom", "Neighbours"] {
        assert!(harness.query_by_label(title).is_some(), "{title} is a source");
    }
    for title in ["Work stress", "Boxes"] {
        assert!(
            harness.query_by_label(title).is_none(),
            "{title}, before the move, is not"
        );
    }
}
