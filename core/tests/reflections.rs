//! Reflections on the weeks and months that ended (`db::reflections`, `ai::reflect`):
//! queued only once a period is over, written by one model call from the period's
//! summaries with each sentence linked to its entries, read by Ask for a question about
//! the period, written again when an entry of the period changes, emptied by a purge,
//! and never an error or a broken row whatever the model writes.

mod ai_journals;
mod ollama_server;

use chrono::{Datelike, Days, NaiveDate};
use mindsage_core::ai::{OllamaClient, ask, runner};
use mindsage_core::db::reflections::{self, Period, Reflection, State};
use mindsage_core::db::{self, DEFAULT_USER, EntryId, entries};

use ai_journals::{Journal, journal};

/// Monday of the week before this one: its Sunday has passed.
fn last_monday() -> NaiveDate {
    let today = chrono::Local::now().date_naive();
    today - Days::new(u64::from(today.weekday().num_days_from_monday()) + 7)
}

/// An entry lived at noon on `day`.
fn save_on(journal: &Journal, day: NaiveDate, body: &str) -> EntryId {
    let noon = day
        .and_hms_opt(12, 0, 0)
        .unwrap()
        .and_local_timezone(chrono::Local)
        .unwrap();
    let entry = entries::NewEntry {
        body: body.to_owned(),
        created_at: Some(noon.fixed_offset()),
        ..Default::default()
    };
    journal
        .writer
        .call(move |conn| entries::create(conn, DEFAULT_USER, &entry))
        .unwrap()
}

fn week_of(journal: &Journal, monday: NaiveDate) -> Option<Reflection> {
    reflections::recent(&journal.reader, DEFAULT_USER, 50)
        .unwrap()
        .into_iter()
        .find(|r| r.period == Period::Week && r.first_day == monday)
}

/// The scripted replies: enrichment for each entry, and a reflection citing entries 1
/// and 2 (and a number that names none, which is dropped).
fn script(server: &ollama_server::LocalOllama) {
    let enrich = |matching: &str, summary: &str| {
        let reply = serde_json::json!({"title": "A day", "mood_score": 7, "mood_tags": ["calm"],
            "summary": summary, "people": [{"name": "Maya", "relation": "sister"}], "places": [],
            "activities": []});
        serde_json::json!({"match": matching, "response": reply.to_string()})
    };
    let reflection = serde_json::json!({"sentences": [
        {"text": "You baked bread with Maya and walked by the lake.", "entries": [1, 2, 9]},
        {"text": "A sentence the entries do not back.", "entries": [12]}
    ]});
    let rules = serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
        // Ask's answer, given only when the week's reflection is in its context.
        {"match": "in short: You baked bread with Maya", "response": "A week of bread and the lake."},
        {"match": "The week of", "response": reflection.to_string()},
        enrich("baked bread", "Baked bread with Maya."),
        enrich("by the lake", "A walk by the lake with Maya."),
    ]});
    server.script(&rules.to_string());
}

#[test]
fn an_ended_week_is_looked_back_on_with_each_sentence_linked_to_its_entries() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    script(server);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let monday = last_monday();
    let bread = save_on(&journal, monday, "Maya and I baked bread.");
    let lake = save_on(
        &journal,
        monday + Days::new(2),
        "Walked by the lake with my sister.",
    );
    // An entry of this week: its week has not ended, and is not looked back on yet.
    save_on(&journal, chrono::Local::now().date_naive(), "Today, by the lake.");

    let report = runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert!(report.reflected >= 1, "{report:?}");
    let week = week_of(&journal, monday).expect("last week's reflection");
    assert_eq!(week.state, State::Done);
    assert_eq!(week.last_day, monday + Days::new(6));
    assert_eq!(
        week.sentences,
        [reflections::Sentence {
            text: "You baked bread with Maya and walked by the lake.".into(),
            entries: vec![bread, lake],
        }],
        "the sentence that names no entry is dropped"
    );
    let this_monday = monday + Days::new(7);
    assert!(
        week_of(&journal, this_monday).is_none(),
        "this week has not ended"
    );
    let today = chrono::Local::now().date_naive();
    assert_eq!(
        reflections::last_week(&journal.reader, DEFAULT_USER, today)
            .unwrap()
            .map(|r| r.first_day),
        Some(monday)
    );

    // A question about the week reads the week's reflection besides its entries.
    let answer = mindsage_core::ai::block_on(ask::ask(
        &client,
        &journal.reader,
        None,
        DEFAULT_USER,
        "What did I do last week?".into(),
        chrono::Local::now(),
        &mut |_| {},
    ))
    .unwrap();
    assert_eq!(answer.text, "A week of bread and the lake.");

    // A new entry in that week: written again, from all three.
    let third = save_on(&journal, monday + Days::new(4), "Maya and I baked bread again.");
    assert_eq!(week_of(&journal, monday).unwrap().state, State::Pending);
    runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(week_of(&journal, monday).unwrap().state, State::Done);

    // A purge takes what the reflection said with the entry, and it is written again.
    journal
        .writer
        .call(move |conn| entries::purge(conn, DEFAULT_USER, third, std::time::Duration::from_secs(1)))
        .unwrap();
    let emptied = week_of(&journal, monday).unwrap();
    assert_eq!((emptied.state, emptied.sentences.len()), (State::Pending, 0));
    runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
    assert_eq!(week_of(&journal, monday).unwrap().state, State::Done);
    assert_eq!(db::jobs::counts(&journal.reader).unwrap().reflect_pending, 0);
}

#[test]
fn a_result_for_a_period_that_changed_meanwhile_is_not_written() {
    let journal = journal();
    let monday = last_monday();
    save_on(&journal, monday, "One.");
    let today = chrono::Local::now().date_naive();
    let queued = journal
        .writer
        .call(move |conn| reflections::queue_ended(conn, DEFAULT_USER, today))
        .unwrap();
    assert!(queued >= 1, "the week (and the month, if it ended)");
    let again = journal
        .writer
        .call(move |conn| reflections::queue_ended(conn, DEFAULT_USER, today))
        .unwrap();
    assert_eq!(again, 0, "nothing is queued twice");
    let due = reflections::next(&journal.reader, &[]).unwrap().unwrap();
    save_on(&journal, monday + Days::new(1), "Two.");
    let sentence = reflections::Sentence {
        text: "Stale.".into(),
        entries: vec![1],
    };
    let wrote = journal
        .writer
        .call(move |conn| reflections::write(conn, &due, &[sentence], "a model"))
        .unwrap();
    assert!(!wrote, "the period changed after it was read");
}

/// The real small model, with no script: whatever it writes, the reflection is either
/// written with sentences citing the period's own entries, or failed with a reason;
/// the entries are never changed by it.
#[test]
fn whatever_the_real_model_writes_the_reflection_is_sound() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(r#"{"rules": []}"#);
    let journal = journal();
    let client = OllamaClient::new(&server.settings()).unwrap();
    let monday = last_monday();
    let ids: Vec<EntryId> = [
        "Ran five kilometres in the rain.",
        "Dinner with Ana, then a film.",
    ]
    .iter()
    .enumerate()
    .map(|(n, body)| save_on(&journal, monday + Days::new(n as u64), body))
    .collect();
    let bodies: Vec<String> = ids
        .iter()
        .map(|&id| entries::get(&journal.reader, DEFAULT_USER, id).unwrap().body)
        .collect();
    // A failed attempt leaves it queued for the next pass, up to its attempts.
    let mut week = week_of(&journal, monday);
    for _ in 0..reflections::MAX_REFLECTION_ATTEMPTS {
        runner::run_pending(&client, &journal.reader, &journal.writer).unwrap();
        week = week_of(&journal, monday);
        if week.as_ref().is_some_and(|w| w.state != State::Pending) {
            break;
        }
    }
    let week = week.expect("last week's reflection");
    match week.state {
        State::Done => {
            assert!(!week.sentences.is_empty());
            for sentence in &week.sentences {
                assert!(!sentence.text.trim().is_empty());
                assert!(sentence.entries.iter().all(|id| ids.contains(id)), "{week:?}");
            }
        }
        State::Failed => assert!(week.sentences.is_empty()),
        State::Pending => panic!("still pending after all its attempts: {week:?}"),
    }
    for (id, body) in ids.iter().zip(bodies) {
        assert_eq!(
            entries::get(&journal.reader, DEFAULT_USER, *id).unwrap().body,
            body
        );
    }
}
