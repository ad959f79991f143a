//! A person typing at a person's pace: random text typed key by key into every field the
//! editor has, with random pauses between keys (0 to 2 seconds of the app's clock, so
//! many of them longer than the autosave's wait), while the real writer answers saves and
//! the local model's results (scripted, with a random delay) arrive whenever they do.
//! The journal must end up holding exactly what was typed, and the fields must show it.
//!
//! Tests that type a whole string in one frame never saw the fields change under the
//! person's hands (a save's answer or a model result rewriting a field between two keys).
//! The pauses move egui's clock (`RawInput::time`), which the editor's autosave reads,
//! so a case takes seconds rather than the minutes its pauses add up to; between keys the
//! test also waits a random few milliseconds of real time, so the threads' answers land
//! at random moments.
//!
//! `MINDSAGE_TYPING_SEED` replays one case; `MINDSAGE_TYPING_CASES` sets how many random
//! cases run after the fixed one (default 3; `make soak` runs more).

use std::path::Path;
use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use mindsage::app::{MindSageApp, Startup};
use mindsage::views::View;
use mindsage_core::db::entries::normalise_tags;

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use app_harness::{
    LONGEST_PAUSE, app_from, entries_in_journal, pause_for, request_close, shows, type_slowly, wait_until,
};

/// The seed of the case every run tries first.
const FIXED_SEED: u64 = 29;

/// What the model says of every entry: a title, a mood and tags of its own, which must
/// never appear in the person's fields.
fn script(first_token_delay_ms: u64) -> String {
    format!(
        r#"{{"token_delay_ms": 0, "first_token_delay_ms": {first_token_delay_ms}, "rules": [
  {{"match": ".", "regex": true, "response": "{{\"title\": \"The model's title\", \"mood_score\": 2, \"mood_tags\": [\"awful\", \"norm\"], \"summary\": \"Something the person wrote.\"}}"}}
]}}"#
    )
}

/// Characters a person types: letters, spaces, commas, accents, other scripts, emoji.
const ALPHABET: &[&str] = &[
    "a", "e", "i", "o", "n", "r", "s", "t", "l", "w", "k", "é", "ü", "ñ", "ø", "ß", "日", "本", "🙂", "🌊",
    " ", " ", " ", ",", ".", "'",
];

/// A run of random characters that starts and ends with a letter (edges are trimmed by
/// the journal for titles and tags, which is not what this test is about).
fn words(rng: &mut StdRng, max_len: usize) -> String {
    let len = rng.random_range(2..=max_len);
    let mut text: String = (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
        .collect();
    text.insert(0, 'W');
    text.push('z');
    text
}

/// Tags as a person types them: words with commas and spaces between.
fn tags(rng: &mut StdRng) -> String {
    let count = rng.random_range(1..=4);
    (0..count)
        .map(|_| {
            let len = rng.random_range(1..=7);
            (0..len)
                .map(|_| ["r", "e", "d", "g", "n", "b", "l", "u", "é", "🙂", " "][rng.random_range(0..11)])
                .collect::<String>()
                .trim()
                .to_owned()
                + "x"
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn field_value(harness: &Harness<'_, MindSageApp>, role: Role, label: &str) -> String {
    harness
        .get_by_role_and_label(role, label)
        .value()
        .unwrap_or_default()
}

/// One person's session: a new entry's text, then its title, then its tags, then a
/// search, each typed slowly; then the window is closed and the journal read.
fn one_case(seed: u64, data_dir: &Path) {
    eprintln!("typing case seed {seed} (MINDSAGE_TYPING_SEED={seed} replays it)");
    let mut rng = StdRng::seed_from_u64(seed);
    let server = ollama_server::shared();
    server.script(&script(rng.random_range(0..1500)));
    let body = words(&mut rng, 40);
    let title = words(&mut rng, 24);
    let tags = tags(&mut rng);
    let search = words(&mut rng, 12);

    let mut harness = app_from(
        Startup::on_view(data_dir.to_path_buf(), View::Journal),
        server.settings(),
        800.0,
    );
    wait_until(&mut harness, "the empty journal", |h| shows(h, "No entries yet."));
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run_steps(2);
    type_slowly(&mut harness, &mut rng, Role::MultilineTextInput, "Entry", &body);
    type_slowly(&mut harness, &mut rng, Role::TextInput, "Title", &title);
    type_slowly(&mut harness, &mut rng, Role::TextInput, "Tags", &tags);
    // The search box, while its answers (words, then meaning) arrive.
    type_slowly(&mut harness, &mut rng, Role::TextInput, "Search", &search);

    let on_screen = (
        field_value(&harness, Role::MultilineTextInput, "Entry"),
        field_value(&harness, Role::TextInput, "Title"),
        field_value(&harness, Role::TextInput, "Tags"),
        field_value(&harness, Role::TextInput, "Search"),
    );
    assert_eq!(
        on_screen,
        (body.clone(), title.clone(), tags.clone(), search),
        "seed {seed}: the fields show what was typed"
    );
    // Let the model's work on the last text arrive too, then close as a person does.
    pause_for(&mut harness, LONGEST_PAUSE);
    wait_until(&mut harness, "the last save", |h| shows(h, "Saved"));
    app_harness::keep_running(&mut harness, Duration::from_millis(1600));
    request_close(&mut harness);
    wait_until(&mut harness, "the window to close", |h| h.state().closed());
    drop(harness);

    let stored = entries_in_journal(data_dir);
    assert_eq!(stored.len(), 1, "seed {seed}: one entry");
    let entry = &stored[0];
    // Tags are a set: the journal lists them in the order they were first made.
    let sorted = |mut tags: Vec<String>| {
        tags.sort();
        tags
    };
    let typed_tags = normalise_tags(&tags.split(',').map(str::to_owned).collect::<Vec<_>>());
    assert_eq!(
        (
            entry.body.as_str(),
            entry.title.as_str(),
            sorted(entry.tags.clone()),
            entry.mood_score
        ),
        (body.as_str(), title.trim(), sorted(typed_tags), None),
        "seed {seed}: the journal holds what was typed, and nothing the model suggested"
    );
}

/// The seeds this run tries: the fixed one and random ones, or the one asked for.
fn seeds() -> Vec<u64> {
    if let Some(seed) = std::env::var("MINDSAGE_TYPING_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return vec![seed];
    }
    let cases = std::env::var("MINDSAGE_TYPING_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    std::iter::once(FIXED_SEED)
        .chain((0..cases).map(|_| rand::random()))
        .collect()
}

#[test]
fn what_a_person_types_with_pauses_is_what_is_saved() {
    let _guard = ollama_server::exclusive();
    for seed in seeds() {
        let dir = tempfile::tempdir().unwrap();
        one_case(seed, dir.path());
    }
}
