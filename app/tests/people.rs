//! People & places in the real window: the app's own job runner has the local model read
//! the entries (one typed in the window), the screen lists who and where they mention,
//! the person's corrections are written and survive the model reading an edited entry
//! again, Ask finds "my sister" through them, and `@maya` in the search box lists her
//! entries.

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use std::path::Path;

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;
use rand::SeedableRng;

use mindsage::app::Startup;
use mindsage::views::View;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::memory::{self, Subject};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::paths;

use app_harness::{app_from, click, shows, type_slowly, type_where_the_cursor_is, wait_until};

/// The model's reply to an entry containing `matching`: its summary (the title too) and
/// who and where it mentions.
fn rule(matching: &str, summary: &str, people: serde_json::Value, places: &[&str]) -> serde_json::Value {
    let reply = serde_json::json!({
        "title": summary, "mood_score": 6, "mood_tags": ["calm"], "summary": summary,
        "people": people, "places": places, "activities": [],
    });
    serde_json::json!({"match": matching, "response": reply.to_string()})
}

/// What the journal file remembers, read on a thread of the test's own (the test thread
/// is the UI thread, where queries are forbidden).
fn remembered(data_dir: &Path) -> Vec<Subject> {
    let path = paths::database_path(data_dir);
    std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        memory::subjects(&conn, DEFAULT_USER).unwrap()
    })
    .join()
    .unwrap()
}

/// The summaries in the file, newest entry first.
fn summaries(data_dir: &Path) -> Vec<Option<String>> {
    app_harness::entries_in_journal(data_dir)
        .into_iter()
        .map(|e| e.summary)
        .collect()
}

#[test]
fn the_people_an_entry_mentions_are_listed_and_the_persons_corrections_stay() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    {
        // Two entries written before: the app's runner finds them unread at start.
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        for body in [
            "My sister called about the weekend.",
            "Lunch with Jonas at Villa Nova.",
        ] {
            let entry = NewEntry {
                body: body.into(),
                ..NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    }
    let rules = [
        // A follow-up is answered so only when the earlier answer is in the conversation.
        serde_json::json!({"match": "You had tea and cake", "response": "After that, home by six."}),
        serde_json::json!({"match": "What did my sister", "response": "You had tea and cake."}),
        // The edited entry, read again: the model calls her Maya again.
        rule(
            "cake",
            "Tea and cake with Maya.",
            serde_json::json!([{"name": "Maya", "relation": "sister"}]),
            &["the lake house"],
        ),
        rule(
            "Tea with Maya",
            "Tea with Maya.",
            serde_json::json!([{"name": "Maya", "relation": "sister"}]),
            &["the lake house"],
        ),
        rule(
            "My sister called",
            "A call.",
            serde_json::json!([{"name": "my sister", "relation": "sister"}]),
            &[],
        ),
        rule(
            "Jonas",
            "Lunch.",
            serde_json::json!([{"name": "Jonas", "relation": "friend"}]),
            &["Villa Nova"],
        ),
        // The typed entry read at a pause mid-sentence ("Tea wi"): matched by the
        // enrichment's own instructions once no rule matches the text, so the real small
        // model never invents people for it.
        rule("private journal entry", "A note.", serde_json::json!([]), &[]),
    ];
    server.script(
        &serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": rules}).to_string(),
    );
    let mut harness = app_from(
        Startup::on_view(dir.path().to_path_buf(), View::Journal),
        server.settings(),
        800.0,
    );

    // A third entry, typed as a person types it.
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(34);
    type_slowly(
        &mut harness,
        &mut rng,
        Role::MultilineTextInput,
        "Entry",
        "Tea with Maya, my sister, at the lake house.",
    );
    wait_until(&mut harness, "the model's reading of all three entries", |_| {
        summaries(dir.path()).iter().all(Option::is_some) && summaries(dir.path()).len() == 3
    });

    // People & places (Ctrl+5): Maya is one person, found in two entries.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num5);
    wait_until(
        &mut harness,
        "Maya, Jonas and the lake house in People & places",
        |h| shows(h, "Maya (sister)") && shows(h, "Jonas (friend)") && shows(h, "the lake house"),
    );
    harness.get_by_label("Maya (sister)").click();
    wait_until(&mut harness, "Maya's entries and their months", |h| {
        shows(h, "2 entries") && shows(h, "Entries per month")
    });

    // She is renamed, as a person types a name over the old one.
    harness.get_by_role_and_label(Role::TextInput, "Name").focus();
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    type_where_the_cursor_is(&mut harness, &mut rng, "Maya Lind");
    click(&mut harness, "Rename");
    wait_until(&mut harness, "the new name in the file", |_| {
        remembered(dir.path())
            .iter()
            .any(|s| s.name == "Maya Lind" && s.corrected)
    });
    // Jonas is hidden: out of the list, still in the journal.
    harness.get_by_label("Jonas (friend)").click();
    wait_until(&mut harness, "Jonas chosen", |h| {
        h.query_by_role_and_label(Role::Button, "Hide").is_some()
    });
    click(&mut harness, "Hide");
    wait_until(&mut harness, "Jonas hidden", |h| !shows(h, "Jonas (friend)"));
    assert!(
        remembered(dir.path())
            .iter()
            .any(|s| s.name == "Jonas" && s.hidden)
    );

    // An entry of hers opens in the journal, where the person adds to it; the model
    // reads it again, and what the person corrected stays.
    harness.get_by_label("Maya Lind (sister)").click();
    wait_until(&mut harness, "Maya's entries again", |h| {
        shows(h, "2 entries") && h.query_by_label("Tea with Maya.").is_some()
    });
    harness.get_by_label("Tea with Maya.").click();
    wait_until(&mut harness, "the entry open in the journal", |h| {
        h.query_by_role_and_label(Role::MultilineTextInput, "Entry")
            .is_some()
    });
    type_slowly(
        &mut harness,
        &mut rng,
        Role::MultilineTextInput,
        "Entry",
        " Then cake.",
    );
    wait_until(&mut harness, "the model's reading of the edited entry", |_| {
        summaries(dir.path()).contains(&Some("Tea and cake with Maya.".into()))
    });
    let people: Vec<(String, bool, u64)> = remembered(dir.path())
        .into_iter()
        .filter(|s| s.kind == memory::Kind::Person)
        .map(|s| (s.name, s.hidden, s.entries))
        .collect();
    assert_eq!(
        people,
        [("Maya Lind".to_owned(), false, 2), ("Jonas".to_owned(), true, 1)]
    );
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num5);
    wait_until(&mut harness, "the list after the model's new reading", |h| {
        shows(h, "Maya Lind (sister)")
    });
    assert!(!shows(&harness, "Jonas"));

    // Ask knows who "my sister" is, says so, and answers from her entries.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num4);
    harness.run_steps(2);
    type_slowly(
        &mut harness,
        &mut rng,
        Role::TextInput,
        "Question",
        "What did my sister and I do?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    wait_until(&mut harness, "the answer with what the journal remembered", |h| {
        shows(h, "You had tea and cake.") && shows(h, "Remembered: Maya Lind, whom you call your sister")
    });
    assert!(shows(&harness, "Tea and cake with Maya."));
    assert!(!shows(&harness, "Lunch."), "Jonas's entry is not hers");

    // A follow-up in the same chat keeps its context.
    type_slowly(
        &mut harness,
        &mut rng,
        Role::TextInput,
        "Question",
        "And after that?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    wait_until(&mut harness, "the follow-up's answer", |h| {
        shows(h, "After that, home by six.")
    });

    // @maya in the journal's search box lists her entries, called by name or not.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num1);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.run_steps(2);
    type_where_the_cursor_is(&mut harness, &mut rng, "@maya");
    wait_until(&mut harness, "her entries in the search box", |h| {
        shows(h, "Entries with Maya Lind, whom you call your sister")
            && shows(h, "My sister called about the weekend.")
            && shows(h, "Tea with Maya, my sister")
    });
    assert!(!shows(&harness, "Lunch with Jonas"));
    // Words after her name search her entries only: Jonas's lunch is not hers.
    type_where_the_cursor_is(&mut harness, &mut rng, " lunch");
    harness.run_steps(2);
    wait_until(&mut harness, "the search of her entries for lunch", |h| {
        !shows(h, "Searching…") && shows(h, "Entries with Maya Lind")
    });
    assert!(!shows(&harness, "Lunch with Jonas"));
    // A name the journal does not know lists nothing, and says so.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    type_where_the_cursor_is(&mut harness, &mut rng, "@zed");
    wait_until(&mut harness, "the search box saying it knows no @zed", |h| {
        shows(h, "The journal remembers no one and nowhere called @zed")
    });
}

/// A question asked while the model works through a backlog is answered first: the
/// backlog holds back (the queue bar says until when) and goes on after the answer.
#[test]
fn a_question_is_not_queued_behind_the_backlog() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        for n in 0..8 {
            let entry = NewEntry {
                body: format!("Slow day number {n} at the allotment."),
                ..NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    }
    let answer = "The allotment, most days, ".repeat(6);
    let rules = serde_json::json!({"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
        {"match": "What did I grow", "response": answer, "token_delay_ms": 80},
        rule("Slow day", "A slow day.", serde_json::json!([]), &["the allotment"]),
    ]});
    let mut rules = rules;
    rules["rules"][1]["first_token_delay_ms"] = 700.into();
    server.script(&rules.to_string());
    let mut harness = app_from(
        Startup::on_view(dir.path().to_path_buf(), View::Ask),
        server.settings(),
        800.0,
    );
    wait_until(&mut harness, "the backlog under way", |h| {
        shows(h, "Writing titles and summaries")
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(35);
    type_slowly(
        &mut harness,
        &mut rng,
        Role::TextInput,
        "Question",
        "What did I grow at the allotment?",
    );
    harness.get_by_role_and_label(Role::Button, "Send").click();
    wait_until(&mut harness, "the backlog holding back for the answer", |h| {
        shows(h, "(after the answer)")
    });
    wait_until(&mut harness, "the whole answer", |h| shows(h, answer.trim()));
    let left = summaries(dir.path()).iter().filter(|s| s.is_none()).count();
    assert!(
        left >= 2,
        "the answer came after the backlog ({left} entries left)"
    );
    wait_until(&mut harness, "the backlog going on after the answer", |_| {
        summaries(dir.path()).iter().filter(|s| s.is_none()).count() < left
    });
}
