//! Today's page, in the real window (egui_kittest) with its real threads on a real
//! journal: MindSage opens on today, the cursor in the text, so a person who launches
//! it and types finds their words in the journal without a click or a key first; a day
//! that has an entry opens on it with the cursor at the end of its text; the list hides
//! and comes back with one shortcut; the page is a centred column whose line length is
//! the person's.

use std::path::Path;

use egui::accesskit::Role;
use egui::{Event, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use rand::SeedableRng;

use mindsage::app::{MindSageApp, Startup};
use mindsage::views::View;
use mindsage_core::ai::AiSettings;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, EntryId, StorageOptions};
use mindsage_core::paths;

#[path = "../../core/tests/ollama_server/mod.rs"]
mod ollama_server;

mod app_harness;

use app_harness::{app_from, entries_in_journal, shows, type_where_the_cursor_is, wait_until};

/// The window as the `mindsage` command opens it (today's page), no model reachable.
fn window(
    data_dir: &Path,
    settings: impl FnOnce(&mut mindsage_core::settings::Settings),
) -> Harness<'static, MindSageApp> {
    let mut startup = Startup::on_view(data_dir.to_path_buf(), View::Journal);
    startup.today = true;
    settings(&mut startup.settings);
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    app_from(startup, offline, 800.0)
}

/// A new journal's window on today's page, once the cursor is in it.
fn on_todays_page(
    settings: impl FnOnce(&mut mindsage_core::settings::Settings),
) -> (tempfile::TempDir, Harness<'static, MindSageApp>) {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = window(dir.path(), settings);
    wait_until(&mut harness, "today's page", cursor_in_text);
    (dir, harness)
}

/// An entry written `days_ago` days ago at this hour, before the window opens.
fn written(data_dir: &Path, days_ago: u64, body: &str) -> EntryId {
    let mut conn = db::open(&paths::database_path(data_dir), &StorageOptions::default()).unwrap();
    let at = chrono::Utc::now() - chrono::Days::new(days_ago);
    let entry = NewEntry {
        body: body.to_owned(),
        created_at: Some(mindsage_core::clock::here(at)),
        ..NewEntry::default()
    };
    entries::create(&mut conn, DEFAULT_USER, &entry).unwrap()
}

fn text_on_page(harness: &Harness<'_, MindSageApp>) -> Option<String> {
    harness
        .query_by_role_and_label(Role::MultilineTextInput, "Entry")
        .and_then(|field| field.value())
}

fn cursor_in_text(harness: &Harness<'_, MindSageApp>) -> bool {
    harness
        .query_by_role_and_label(Role::MultilineTextInput, "Entry")
        .is_some_and(|field| field.is_focused())
}

/// Today as the page's heading says it (either side of a midnight the test ran across).
fn today_heading() -> String {
    chrono::Local::now().format("%A, %-d %B").to_string()
}

#[test]
fn a_person_who_launches_mindsage_and_types_finds_the_words_in_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 1, "Yesterday's entry.");
    let heading = today_heading();
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "today's page with the cursor in it", |h| {
        cursor_in_text(h) && (shows(h, &heading) || shows(h, &today_heading()))
    });
    assert_eq!(
        text_on_page(&harness).as_deref(),
        Some(""),
        "a new page: yesterday has the only entry"
    );

    // No click and no key first: the typing goes into the page, with pauses longer
    // than the autosave's wait between some of the letters.
    let sentence = "Woke early and walked to the river.";
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    type_where_the_cursor_is(&mut harness, &mut rng, sentence);
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the page saved", |h| shows(h, "Saved"));
    drop(harness);

    let journal = entries_in_journal(dir.path());
    let bodies: Vec<&str> = journal.iter().map(|e| e.body.as_str()).collect();
    assert_eq!(
        bodies,
        [sentence, "Yesterday's entry."],
        "one new entry, yesterday's untouched"
    );
    let lived = journal[0].lived().unwrap().date_naive();
    assert_eq!(lived, chrono::Local::now().date_naive(), "dated today");
}

#[test]
fn a_first_sentence_too_long_for_a_title_goes_on_in_its_list_row() {
    let (dir, mut harness) = on_todays_page(|_| {});
    let sentence = "Walked down to the harbour with the dog and watched the boats come in slowly";
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    type_where_the_cursor_is(&mut harness, &mut rng, sentence);
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the page saved", |h| shows(h, "Saved"));
    // The row's title is cut at a word, and its second line goes on from that word
    // (it was empty: the row showed the title alone).
    wait_until(&mut harness, "the entry's row in the list", |h| {
        shows(h, "Walked down to the harbour with the dog and watched the…")
            && shows(h, "boats come in slowly")
    });
    drop(harness);
    let bodies: Vec<String> = entries_in_journal(dir.path())
        .into_iter()
        .map(|e| e.body)
        .collect();
    assert_eq!(bodies, [sentence], "what was typed is what was saved");
}

#[test]
fn today_with_an_entry_opens_on_it_with_the_cursor_at_the_end_of_its_text() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 1, "Yesterday's entry.");
    let id = written(dir.path(), 0, "Ran five kilometres.");
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "today's entry on the page", |h| {
        text_on_page(h).as_deref() == Some("Ran five kilometres.") && cursor_in_text(h)
    });
    harness.run_steps(2);
    harness.event(Event::Text(" The knee held up.".to_owned()));
    harness.run_steps(1);
    assert_eq!(
        text_on_page(&harness).as_deref(),
        Some("Ran five kilometres. The knee held up."),
        "typed at the end of the text"
    );
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the edit saved", |h| shows(h, "Saved"));
    drop(harness);

    let journal = entries_in_journal(dir.path());
    assert_eq!(journal.len(), 2, "no new entry: today's was written in");
    let today = journal.iter().find(|e| e.id == id).unwrap();
    assert_eq!(today.body, "Ran five kilometres. The knee held up.");
}

#[test]
fn the_list_hides_and_comes_back_with_ctrl_backslash_and_the_text_keeps_the_keyboard() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 1, "Yesterday's entry.");
    let mut harness = window(dir.path(), |_| {});
    let search =
        |h: &Harness<'_, MindSageApp>| h.query_by_role_and_label(Role::TextInput, "Search").is_some();
    wait_until(&mut harness, "the page and the list", |h| {
        cursor_in_text(h) && search(h)
    });

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Backslash);
    harness.run_steps(2);
    assert!(!search(&harness), "the list is hidden");
    assert!(cursor_in_text(&harness), "the cursor stays in the text");
    harness.event(Event::Text("Still writing".to_owned()));
    harness.run_steps(1);
    assert_eq!(text_on_page(&harness).as_deref(), Some("Still writing"));

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Backslash);
    harness.run_steps(2);
    assert!(search(&harness), "the list is back");
    // Ctrl+F brings the list back too, with the cursor in the search box.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Backslash);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.run_steps(2);
    assert!(
        harness
            .get_by_role_and_label(Role::TextInput, "Search")
            .is_focused(),
        "Ctrl+F shows the list and moves to its search box"
    );
}

/// The text's column: where it starts and how wide it is, in points.
fn column_of(harness: &Harness<'_, MindSageApp>) -> (f64, f64) {
    let field = harness.get_by_role_and_label(Role::MultilineTextInput, "Entry");
    let rect = field
        .accesskit_node()
        .bounding_box()
        .expect("the text is on screen");
    (rect.x0, rect.width())
}

#[test]
fn the_page_is_a_centred_column_as_long_as_settings_says() {
    let dir = tempfile::tempdir().unwrap();
    let column = |line_length: u32| {
        let mut harness = window(dir.path(), |settings| settings.page_line_length = line_length);
        wait_until(&mut harness, "the page", cursor_in_text);
        harness.key_press_modifiers(Modifiers::COMMAND, Key::Backslash);
        harness.run_steps(3);
        column_of(&harness)
    };
    let (short_x, short) = column(50);
    let (long_x, long) = column(100);
    // Twice the characters, twice the width (the window, 1200 points, holds both).
    assert!((long / short - 2.0).abs() < 0.1, "{short} and {long} points");
    // Centred: the margins either side are equal, and the shorter column's are wider.
    for (x, width) in [(short_x, short), (long_x, long)] {
        let right = 1200.0 - (x + width);
        assert!((x - right).abs() < 24.0, "margins {x} and {right}");
    }
    assert!(short_x > long_x);
}

#[test]
fn focus_mode_shows_the_page_alone_with_its_length_against_the_days_goal() {
    let (_dir, mut harness) = on_todays_page(|settings| settings.daily_word_goal = 10);
    let chrome = |h: &Harness<'_, MindSageApp>| {
        ["Menu", "Entries", "Search", "Tags", "Mood"]
            .into_iter()
            .filter(|label| h.query_all_by_label(label).next().is_some())
            .collect::<Vec<_>>()
    };
    assert_eq!(chrome(&harness), ["Menu", "Entries", "Search", "Tags", "Mood"]);

    harness.key_press(Key::F11);
    harness.run_steps(2);
    assert_eq!(chrome(&harness), Vec::<&str>::new(), "only the page");
    assert!(shows(&harness, &today_heading()) || shows(&harness, "0 of 10 words"));
    assert!(cursor_in_text(&harness), "the cursor stays in the text");
    harness.event(Event::Text("One two three".to_owned()));
    harness.run_steps(2);
    assert!(shows(&harness, "3 of 10 words"), "the length follows the typing");

    // Esc leaves the text, a second Esc leaves focus mode.
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    assert_eq!(chrome(&harness), ["Menu", "Entries", "Search", "Tags", "Mood"]);
    harness.key_press(Key::F11);
    harness.run_steps(2);
    assert!(chrome(&harness).is_empty(), "F11 from anywhere");
    harness.key_press(Key::F11);
    harness.run_steps(2);
    assert!(!chrome(&harness).is_empty(), "F11 again leaves it");
}

/// The calendar's square for `day`, whose name starts with the day ("5 December" or
/// "5 December: 1 entry, 3 words").
fn day_square<'h>(
    harness: &'h Harness<'_, MindSageApp>,
    day: chrono::NaiveDate,
) -> Option<egui_kittest::Node<'h>> {
    let name = day.format("%-d %B").to_string();
    harness.query_all_by_role(Role::Button).find(|b| {
        let label = b.accesskit_node().label().unwrap_or_default();
        label == name || label.starts_with(&format!("{name}:"))
    })
}

fn heading_of(day: chrono::NaiveDate) -> String {
    day.format("%A, %-d %B").to_string()
}

#[test]
fn the_calendar_and_alt_arrows_open_a_days_page_and_its_new_entry_is_dated_that_day() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 2, "Two days ago.");
    let today = chrono::Local::now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "today's page", |h| {
        cursor_in_text(h) && day_square(h, today).is_some()
    });

    // Alt+Left: yesterday, which has no entry: a new page under its date.
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    wait_until(&mut harness, "yesterday's page", |h| {
        shows(h, &heading_of(yesterday))
    });
    assert_eq!(text_on_page(&harness).as_deref(), Some(""));
    harness.run_steps(2);
    harness.event(Event::Text("Late for yesterday.".to_owned()));
    harness.run_steps(1);
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "it is saved and the calendar counts it", |h| {
        shows(h, "Saved") && shows(h, &format!("{}: 1 entry, 3 words", yesterday.format("%-d %B")))
    });

    // Alt+Left again: the day before has an entry, opened with the cursor at its end.
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowLeft);
    wait_until(&mut harness, "the entry of two days ago", |h| {
        text_on_page(h).as_deref() == Some("Two days ago.") && cursor_in_text(h)
    });

    // A click on today's square comes back to today; after today nothing opens.
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowDown);
    wait_until(&mut harness, "today's page again", |h| {
        shows(h, &heading_of(today))
    });
    let square = day_square(&harness, yesterday).expect("yesterday in the calendar");
    square.click();
    wait_until(&mut harness, "yesterday's entry", |h| {
        text_on_page(h).as_deref() == Some("Late for yesterday.")
    });
    day_square(&harness, today).unwrap().click();
    wait_until(&mut harness, "today's page", |h| shows(h, &heading_of(today)));
    harness.key_press_modifiers(Modifiers::ALT, Key::ArrowRight);
    harness.run_steps(3);
    assert!(shows(&harness, &heading_of(today)), "no page after today");
    drop(harness);

    let journal = entries_in_journal(dir.path());
    let days: Vec<(&str, chrono::NaiveDate)> = journal
        .iter()
        .map(|e| (e.body.as_str(), e.lived().unwrap().date_naive()))
        .collect();
    assert_eq!(
        days,
        [
            ("Late for yesterday.", yesterday),
            ("Two days ago.", today - chrono::Days::new(2))
        ],
        "the late entry is dated yesterday; today's blank page left nothing"
    );
}

/// Markdown as a person writes it: Enter continues a list and ends it on an empty
/// item, Tab indents an item, Ctrl+B and Ctrl+K go around the selection; what is saved
/// is the Markdown typed.
#[test]
fn lists_continue_on_enter_and_ctrl_b_bolds_the_selection() {
    let (dir, mut harness) = on_todays_page(|_| {});
    let typed = |harness: &mut Harness<'_, MindSageApp>, text: &str| {
        harness.event(Event::Text(text.to_owned()));
        harness.run_steps(2);
    };
    let key = |harness: &mut Harness<'_, MindSageApp>, modifiers: Modifiers, key: Key| {
        harness.key_press_modifiers(modifiers, key);
        harness.run_steps(2);
    };
    typed(&mut harness, "Shopping");
    key(&mut harness, Modifiers::NONE, Key::Enter);
    typed(&mut harness, "- milk");
    key(&mut harness, Modifiers::NONE, Key::Enter);
    typed(&mut harness, "eggs");
    key(&mut harness, Modifiers::NONE, Key::Tab);
    key(&mut harness, Modifiers::NONE, Key::Enter);
    typed(&mut harness, "brown");
    key(&mut harness, Modifiers::NONE, Key::Enter);
    key(&mut harness, Modifiers::NONE, Key::Enter);
    typed(&mut harness, "A big day");
    for _ in 0..3 {
        key(&mut harness, Modifiers::SHIFT, Key::ArrowLeft);
    }
    key(&mut harness, Modifiers::COMMAND, Key::B);
    assert_eq!(
        text_on_page(&harness).as_deref(),
        Some("Shopping\n- milk\n  - eggs\n  - brown\n\nA big **day**"),
        "the list continued, indented and ended; the selection in bold"
    );
    assert!(cursor_in_text(&harness), "Tab on a list item stayed in the text");
    // Ctrl+K in the text makes a link, not the command palette.
    key(&mut harness, Modifiers::COMMAND, Key::K);
    assert!(text_on_page(&harness).unwrap().ends_with("A big **[day]()**"));
    assert!(
        harness
            .query_by_role_and_label(Role::TextInput, "Command")
            .is_none()
    );

    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the page saved", |h| shows(h, "Saved"));
    drop(harness);
    assert_eq!(
        entries_in_journal(dir.path())[0].body,
        "Shopping\n- milk\n  - eggs\n  - brown\n\nA big **[day]()**"
    );
}

#[test]
fn the_year_in_pixels_shows_each_days_mood_and_opens_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let today = chrono::Local::now().date_naive();
    {
        let mut conn = db::open(&paths::database_path(dir.path()), &StorageOptions::default()).unwrap();
        for (days_ago, mood, body) in [(3, 8, "A good day."), (10, 2, "A hard one.")] {
            let at = chrono::Utc::now() - chrono::Days::new(days_ago);
            let entry = NewEntry {
                body: body.to_owned(),
                mood_score: Some(mood),
                created_at: Some(mindsage_core::clock::here(at)),
                ..NewEntry::default()
            };
            entries::create(&mut conn, DEFAULT_USER, &entry).unwrap();
        }
    }
    let mut startup = Startup::on_view(dir.path().to_path_buf(), View::Dashboard);
    startup.today = true;
    let offline = AiSettings {
        host: format!("http://127.0.0.1:{}", ollama_server::free_port()),
        ..AiSettings::default()
    };
    let mut harness = app_from(startup, offline, 900.0);
    let good_day = today - chrono::Days::new(3);
    let square = format!("{}: mood 8, 1 entry, 3 words", good_day.format("%-d %B %Y"));
    wait_until(&mut harness, "the year's squares", |h| shows(h, "Year in pixels"));
    if chrono::Datelike::year(&good_day) != chrono::Datelike::year(&today) {
        app_harness::click(&mut harness, "The year before");
    }
    wait_until(&mut harness, "the good day's square", |h| shows(h, &square));
    let hard_day = today - chrono::Days::new(10);
    if chrono::Datelike::year(&hard_day) == chrono::Datelike::year(&good_day) {
        let hard = format!("{}: mood 2, 1 entry, 3 words", hard_day.format("%-d %B %Y"));
        assert!(shows(&harness, &hard), "each day has its own square");
    }
    harness.get_by_label("By words").click();
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, &square).click();
    wait_until(&mut harness, "that day's page", |h| {
        shows(h, &heading_of(good_day)) && text_on_page(h).as_deref() == Some("A good day.")
    });
    assert_eq!(harness.state().view(), View::Journal);
}

/// Text in scripts the embedded fonts lack shows in this computer's fonts for them, read
/// off the UI thread after the window opens (here fontconfig's; DejaVu Sans, on every
/// new machine, has Hebrew and Arabic; Chinese shows where a font for it is installed).
#[test]
fn text_in_other_scripts_shows_once_the_computers_fonts_are_read() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 0, "שלום עולם, 你好, नमस्ते");
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "today's entry on the page", |h| {
        text_on_page(h).is_some_and(|text| text.starts_with("שלום"))
    });
    let shows_glyphs = |harness: &Harness<'_, MindSageApp>, text: &str| {
        harness
            .ctx
            .fonts_mut(|fonts| fonts.has_glyphs(&mindsage::fonts::reading(18.0), text))
    };
    wait_until(&mut harness, "the Hebrew letters drawn", |h| {
        shows_glyphs(h, "שלום עולם")
    });
    let has_font_for = |language: &str| {
        std::process::Command::new("fc-match")
            .args(["--format=%{lang}", &format!(":lang={language}")])
            .output()
            .is_ok_and(|out| {
                String::from_utf8_lossy(&out.stdout)
                    .split('|')
                    .any(|l| l == language)
            })
    };
    if has_font_for("zh-cn") {
        assert!(
            shows_glyphs(&harness, "你好"),
            "a Chinese font is installed: its letters show"
        );
    }
    if has_font_for("hi") {
        assert!(
            shows_glyphs(&harness, "नमस्ते"),
            "a Devanagari font is installed: its letters show"
        );
    }
}

/// An empty page shows the day's question greyed in its text, with Another and Hide;
/// typing replaces it, and Settings turns the questions off.
#[test]
fn an_empty_page_offers_a_question_to_start_from() {
    let (_dir, mut harness) = on_todays_page(|_| {});
    let offered = |h: &Harness<'_, MindSageApp>| shows(h, "A question to start from");
    assert!(offered(&harness));
    let hint = |h: &Harness<'_, MindSageApp>| {
        h.get_by_role_and_label(Role::MultilineTextInput, "Entry")
            .accesskit_node()
            .placeholder()
            .map(str::to_owned)
    };
    let first = hint(&harness).expect("the question in the empty text");
    assert!(first.ends_with('?') || first.ends_with('.'), "{first}");
    app_harness::click(&mut harness, "Another");
    let second = hint(&harness).unwrap();
    assert_ne!(first, second, "another question");
    harness.event(Event::Text("Not about that.".to_owned()));
    harness.run_steps(2);
    assert!(!offered(&harness), "typing puts it away");
    drop(harness);

    let (_dir, mut harness) = on_todays_page(|_| {});
    app_harness::click(&mut harness, "Hide");
    assert!(!offered(&harness));
    assert_eq!(hint(&harness).as_deref(), Some("What happened today?"));
    drop(harness);

    let (_dir, harness) = on_todays_page(|settings| settings.daily_prompt = false);
    assert!(!offered(&harness), "off in Settings");
}

/// The page's date and time, as a button that changes them (its words: the day as
/// the list shows it).
fn when_button<'h>(
    harness: &'h Harness<'_, MindSageApp>,
    day: chrono::NaiveDate,
) -> Option<egui_kittest::Node<'h>> {
    let shown = day.format("%a %e %b %Y, ").to_string();
    harness
        .query_all_by_role(Role::Button)
        .find(|b| b.accesskit_node().label().unwrap_or_default().starts_with(&shown))
}

/// Replaces what a field holds with `text`, as a person does: Ctrl+A, then typing.
fn retype(harness: &mut Harness<'_, MindSageApp>, label: &str, text: &str) {
    harness.get_by_role_and_label(Role::TextInput, label).focus();
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.run_steps(1);
    harness.event(Event::Text(text.to_owned()));
    harness.run_steps(1);
}

/// An entry written after midnight belongs to the evening before: from a new page,
/// *Yesterday* dates what is then typed yesterday, and the saved entry's time is typed
/// in; a date still to come or not a date is refused with a reason, and Esc leaves the
/// entry as it was.
#[test]
fn a_page_is_moved_to_yesterday_and_its_time_typed_in() {
    let today = chrono::Local::now().date_naive();
    let yesterday = today.pred_opt().unwrap();
    let (dir, mut harness) = on_todays_page(|_| {});
    wait_until(&mut harness, "the page's date and time", |h| {
        when_button(h, today).is_some()
    });
    when_button(&harness, today).unwrap().click();
    wait_until(&mut harness, "the date and time fields", |h| {
        shows(h, "Yesterday")
    });
    app_harness::click(&mut harness, "Yesterday");
    app_harness::click(&mut harness, "Done");
    wait_until(&mut harness, "yesterday's page", |h| {
        shows(h, &heading_of(yesterday)) && when_button(h, yesterday).is_some()
    });

    // Typed with pauses past the autosave's wait: saved on yesterday's page.
    harness
        .get_by_role_and_label(Role::MultilineTextInput, "Entry")
        .focus();
    harness.run_steps(2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    type_where_the_cursor_is(&mut harness, &mut rng, "Late for the gig.");
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "it is saved and the calendar counts it", |h| {
        shows(h, "Saved") && shows(h, &format!("{}: 1 entry", yesterday.format("%-d %B")))
    });

    // The saved entry's time, typed in; Enter is Done.
    when_button(&harness, yesterday).unwrap().click();
    wait_until(&mut harness, "the date and time fields", |h| {
        shows(h, "Yesterday")
    });
    retype(&mut harness, "Time", "21:30");
    harness.key_press(Key::Enter);
    wait_until(&mut harness, "the entry at half past nine", |h| {
        when_button(h, yesterday)
            .is_some_and(|b| b.accesskit_node().label().unwrap_or_default().ends_with("21:30"))
    });

    // Still to come, or not a date: refused, and Esc leaves it.
    when_button(&harness, yesterday).unwrap().click();
    wait_until(&mut harness, "the date and time fields", |h| {
        shows(h, "Yesterday")
    });
    retype(&mut harness, "Date", "2999-01-01");
    app_harness::click(&mut harness, "Done");
    assert!(
        shows(&harness, "still to come"),
        "{}",
        app_harness::on_screen(&harness)
    );
    retype(&mut harness, "Date", "the 5th");
    app_harness::click(&mut harness, "Done");
    assert!(shows(&harness, "write it as 2026-12-05"));
    harness.key_press(Key::Escape);
    wait_until(&mut harness, "the fields closed", |h| !shows(h, "Yesterday"));
    assert!(shows(&harness, &heading_of(yesterday)));
    drop(harness);

    let journal = entries_in_journal(dir.path());
    let lived: Vec<(&str, String)> = journal
        .iter()
        .map(|e| {
            (
                e.body.as_str(),
                e.lived().unwrap().format("%Y-%m-%d %H:%M").to_string(),
            )
        })
        .collect();
    assert_eq!(lived, [("Late for the gig.", format!("{yesterday} 21:30"))]);
}

/// Beside today's date: the streak it would keep going, then the day it makes once
/// written; the entries of a month and a year before, whose names open their days.
#[test]
fn todays_page_speaks_of_the_streak_and_of_a_month_and_a_year_ago() {
    let dir = tempfile::tempdir().unwrap();
    let today = chrono::Local::now().date_naive();
    let year_before = today.checked_sub_months(chrono::Months::new(12)).unwrap();
    written(dir.path(), 1, "Yesterday's entry.");
    written(dir.path(), 2, "The day before.");
    let days_back = (today - year_before).num_days() as u64;
    written(dir.path(), days_back, "# The new flat\nBoxes everywhere.");
    let month_before = today.checked_sub_months(chrono::Months::new(1)).unwrap();
    written(
        dir.path(),
        (today - month_before).num_days() as u64,
        "Keys handed back.",
    );
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "the streak, a month and a year ago", |h| {
        cursor_in_text(h)
            && shows(h, "Write today to make it 3 days in a row")
            && shows(h, "A month ago: Keys handed back.")
            && shows(h, "A year ago: The new flat")
    });

    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    type_where_the_cursor_is(&mut harness, &mut rng, "Third day.");
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "today in the streak", |h| {
        shows(h, "Saved") && shows(h, "Day 3 of your streak")
    });

    // The year before's entry, by its name without its Markdown marks, opens its day.
    harness
        .get_by_role_and_label(Role::Button, "A year ago: The new flat")
        .click();
    wait_until(&mut harness, "the page of a year before", |h| {
        text_on_page(h).as_deref() == Some("# The new flat\nBoxes everywhere.")
            && shows(h, &day_heading_of(year_before))
    });
    // Back on today's page, a month ago opens its day too.
    harness.key_press_modifiers(Modifiers::ALT, Key::Home);
    wait_until(&mut harness, "today's page again", |h| {
        shows(h, "A month ago: Keys handed back.")
    });
    harness
        .get_by_role_and_label(Role::Button, "A month ago: Keys handed back.")
        .click();
    wait_until(&mut harness, "the page of a month before", |h| {
        text_on_page(h).as_deref() == Some("Keys handed back.") && shows(h, &day_heading_of(month_before))
    });
}

fn day_heading_of(day: chrono::NaiveDate) -> String {
    mindsage::views::page::day_heading(day, chrono::Local::now().date_naive())
}

/// A photo file, `width` by `height`, at `path`.
fn photo_file(path: &Path, width: u32, height: u32) {
    image::RgbImage::from_fn(width, height, |x, y| {
        image::Rgb([(x * 3 % 256) as u8, (y * 4 % 256) as u8, 120])
    })
    .save(path)
    .unwrap();
}

/// An entry's photos as stored: their names in the text and their sizes. Read off the
/// test's thread, which the window made its UI thread.
fn photos_of(data_dir: &Path, id: EntryId) -> Vec<(Option<String>, u32, u32)> {
    let path = paths::database_path(data_dir);
    std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        mindsage_core::db::gallery::of_entry(&conn, DEFAULT_USER, id).unwrap()
    })
    .join()
    .unwrap()
    .into_iter()
    .map(|p| (p.name, p.width, p.height))
    .collect()
}

/// Whether the photo `label` shows inside the page's text, under the line `above`
/// starts (the text field's rows are as the layout made them).
fn photo_in_text(harness: &Harness<'_, MindSageApp>, label: &str) -> bool {
    let (Some(photo), Some(field)) = (
        harness.query_by_role_and_label(Role::Button, label),
        harness.query_by_role_and_label(Role::MultilineTextInput, "Entry"),
    ) else {
        return false;
    };
    field.rect().contains_rect(photo.rect())
}

/// A person writes a line, drops a photo on the page and writes on: the photo goes
/// where the cursor was, as a Markdown image naming it, and shows there in the text
/// (not in the strip); the page becomes an entry with the photo, named so; a click on
/// the photo shows it large.
#[test]
fn a_photo_dropped_on_the_page_shows_where_the_cursor_was() {
    let (dir, mut harness) = on_todays_page(|_| {});
    let mut rng = rand::rngs::StdRng::seed_from_u64(33);
    type_where_the_cursor_is(&mut harness, &mut rng, "Morning at the harbour.");
    let photo = dir.path().join("harbour boats.png");
    photo_file(&photo, 80, 60);
    harness.input_mut().dropped_files.push(egui::DroppedFile {
        path: Some(photo),
        ..Default::default()
    });
    harness.run_steps(2);
    type_where_the_cursor_is(&mut harness, &mut rng, "Then rain.");
    app_harness::pause_for(&mut harness, 1.0);
    let written = "Morning at the harbour.\n![](<harbour boats.png>)\nThen rain.";
    wait_until(&mut harness, "the photo in the text, saved", |h| {
        shows(h, "Saved")
            && shows(h, "Added 1 photo.")
            && text_on_page(h).as_deref() == Some(written)
            && photo_in_text(h, "Photo 1 of 1")
    });
    assert!(
        !shows(&harness, "Photos ("),
        "a photo in the text is not in the strip"
    );
    harness
        .get_by_role_and_label(Role::Button, "Photo 1 of 1")
        .click();
    wait_until(&mut harness, "the photo large", |h| {
        shows(h, "← → for the others, Esc to close")
    });
    drop(harness);

    let journal = entries_in_journal(dir.path());
    assert_eq!(journal.len(), 1, "the page became an entry");
    assert_eq!(journal[0].body, written);
    assert_eq!(
        photos_of(dir.path(), journal[0].id),
        [(Some("harbour boats.png".to_owned()), 80, 60)]
    );
}

/// A Markdown folder imported with the command shows its images in the page where the
/// text has them; exported again as Markdown, the images point at the photos' files.
#[test]
fn imported_markdown_images_show_in_the_page_and_export_with_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(notes.join("img")).unwrap();
    photo_file(&notes.join("img/the bay.png"), 90, 60);
    photo_file(&notes.join("img/pine.png"), 40, 80);
    let today = chrono::Local::now().date_naive();
    let text =
        "Down to the bay.\n\n![The bay](img/the%20bay.png)\n\nThe pine:\n![](<img/pine.png> \"pine\")\n";
    std::fs::write(notes.join(format!("{today} Walk.md")), text).unwrap();
    let data = dir.path().join("data");
    let mindsage = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mindsage"))
            .arg("--data-dir")
            .arg(&data)
            .args(args)
            .env(
                "OLLAMA_HOST",
                format!("http://127.0.0.1:{}", ollama_server::free_port()),
            )
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    mindsage(&["import", notes.to_str().unwrap()]);

    let mut harness = window(&data, |_| {});
    wait_until(&mut harness, "both photos in the text", |h| {
        photo_in_text(h, "Photo 1 of 2") && photo_in_text(h, "Photo 2 of 2")
    });
    let (bay, pine) = (
        harness.get_by_role_and_label(Role::Button, "Photo 1 of 2").rect(),
        harness.get_by_role_and_label(Role::Button, "Photo 2 of 2").rect(),
    );
    assert!(
        bay.bottom() <= pine.top(),
        "in the text's order: {bay:?} {pine:?}"
    );
    drop(harness);

    let out = dir.path().join("out");
    mindsage(&["export", out.to_str().unwrap(), "--format", "markdown"]);
    let exported = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .find(|f| f.path().extension().is_some_and(|e| e == "md"))
        .unwrap();
    let exported = std::fs::read_to_string(exported.path()).unwrap();
    let targets: Vec<String> = mindsage_core::media::links::image_links(&exported)
        .into_iter()
        .map(|link| link.target.to_owned())
        .collect();
    assert_eq!(targets.len(), 2, "{exported}");
    for target in &targets {
        assert!(
            target.starts_with("media/") && out.join(target).is_file(),
            "{exported}"
        );
    }
}

/// A photo copied to the clipboard (a screenshot, say) and pasted with the palette's
/// *Paste a photo* goes where the cursor is in the text, named "Pasted photo.png", and
/// the cursor is back in the text after it; with no image on the clipboard the window
/// says so and the text stays as it was. The clipboard is an X server's: the test runs
/// itself again on an Xvfb of its own.
#[test]
fn a_photo_pasted_from_the_clipboard_goes_where_the_cursor_is() {
    let display = match mindsage::virtual_display::VirtualDisplay::start() {
        Ok(display) => display,
        Err(e) => return eprintln!("skipped: no Xvfb ({e:#})"),
    };
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "pasting_on_a_display", "--ignored", "--nocapture"])
        .env("DISPLAY", &display.name)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
#[ignore = "run by a_photo_pasted_from_the_clipboard_goes_where_the_cursor_is, on its display"]
fn pasting_on_a_display() {
    let dir = tempfile::tempdir().unwrap();
    let id = written(dir.path(), 0, "Screenshot of the map:");
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "today's entry, the cursor at its end", |h| {
        cursor_in_text(h) && text_on_page(h).as_deref() == Some("Screenshot of the map:")
    });
    let paste = |harness: &mut Harness<'_, MindSageApp>| {
        harness.key_press(Key::Escape);
        harness.key_press_modifiers(Modifiers::COMMAND, Key::K);
        wait_until(harness, "the palette", |h| {
            h.query_by_role_and_label(Role::TextInput, "Command").is_some()
        });
        harness.event(Event::Text("paste a photo".to_owned()));
        harness.run_steps(1);
        harness.key_press(Key::Enter);
    };

    let mut clipboard = arboard::Clipboard::new().unwrap();
    clipboard.set_text("words, not a photo").unwrap();
    paste(&mut harness);
    wait_until(&mut harness, "no photo said", |h| {
        shows(h, "The clipboard holds no photo.")
    });
    assert_eq!(text_on_page(&harness).as_deref(), Some("Screenshot of the map:"));

    let (width, height) = (70, 50);
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| [(i % 251) as u8, 90, 200, 255])
        .collect();
    clipboard
        .set_image(arboard::ImageData {
            width,
            height,
            bytes: pixels.into(),
        })
        .unwrap();
    paste(&mut harness);
    wait_until(&mut harness, "the photo in the text", |h| {
        text_on_page(h).as_deref() == Some("Screenshot of the map:\n![](<Pasted photo.png>)\n")
            && photo_in_text(h, "Photo 1 of 1")
            && cursor_in_text(h)
    });
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    type_where_the_cursor_is(&mut harness, &mut rng, "Found the way.");
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "saved", |h| shows(h, "Saved"));
    drop(harness);
    assert_eq!(
        entries_in_journal(dir.path())[0].body,
        "Screenshot of the map:\n![](<Pasted photo.png>)\nFound the way."
    );
    assert_eq!(
        photos_of(dir.path(), id),
        [(Some("Pasted photo.png".to_owned()), width as u32, height as u32)]
    );
}

/// A new page offers the templates: one chosen fills the page with its placeholders
/// filled, nothing saved until the person types; a template marked in Settings for
/// today's weekday fills a new page by itself.
#[test]
fn a_new_page_starts_from_a_template() {
    let (dir, mut harness) = on_todays_page(|_| {});
    wait_until(&mut harness, "the templates offered", |h| shows(h, "Start from:"));
    app_harness::click(&mut harness, "Three good things");
    wait_until(&mut harness, "the page filled", |h| {
        text_on_page(h).as_deref() == Some("# Three good things\n\n1. \n2. \n3. \n")
    });
    app_harness::pause_for(&mut harness, 2.0);
    app_harness::keep_running(&mut harness, std::time::Duration::from_millis(300));
    assert!(
        shows(&harness, "New entry, not saved yet"),
        "a template alone is not saved"
    );

    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    type_where_the_cursor_is(&mut harness, &mut rng, "Rain on the window.");
    app_harness::pause_for(&mut harness, 1.0);
    wait_until(&mut harness, "the page saved", |h| shows(h, "Saved"));

    // Settings: Morning pages on today's weekday, saved.
    let today = chrono::Local::now().date_naive();
    let weekday = today.format("%a").to_string()[..2].to_owned();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num7);
    wait_until(&mut harness, "the templates in Settings", |h| {
        h.query_all_by_label("Morning pages").next().is_some()
    });
    harness.get_by_label("Morning pages").scroll_to_me();
    harness.run_steps(2);
    harness.get_by_label("Morning pages").click_accesskit();
    wait_until(&mut harness, "its fields", |h| {
        h.query_by_role_and_label(Role::Button, "Save template").is_some()
    });
    harness
        .get_by_role_and_label(Role::CheckBox, &weekday)
        .scroll_to_me();
    harness.run_steps(2);
    harness
        .get_by_role_and_label(Role::CheckBox, &weekday)
        .click_accesskit();
    harness.run_steps(2);
    app_harness::click(&mut harness, "Save template");
    wait_until(&mut harness, "it saved", |h| {
        !shows(h, "(not saved)")
            && h.query_by_role_and_label(Role::CheckBox, &weekday)
                .is_some_and(|c| c.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
    });

    // A new page today starts from it.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::N);
    let morning = format!("# Morning, {}\n\n", today.format("%A"));
    wait_until(&mut harness, "the new page from the day's template", |h| {
        text_on_page(h).is_some_and(|t| t.starts_with(&morning)) && cursor_in_text(h)
    });
    drop(harness);

    let journal = entries_in_journal(dir.path());
    assert_eq!(
        journal.iter().map(|e| e.body.as_str()).collect::<Vec<_>>(),
        ["# Three good things\n\n1. \n2. \n3. \nRain on the window."],
        "the typed page saved, the untouched one not"
    );
}

/// On today's empty page, the local model asks a question about the last days' entries
/// (a real HTTP call to a server speaking Ollama's protocol, its reply scripted), shown
/// under the day's own; *Ask another* asks again.
#[test]
fn the_model_asks_a_question_about_the_last_days() {
    let server = ollama_server::shared();
    let _guard = ollama_server::exclusive();
    server.script(
        r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
          {"match": "start today's entry", "response": "{\"question\": \"How is the knee after three days of rest?\"}"},
          {"match": "describe it", "response": "{\"title\": \"Knee\", \"mood_score\": 4, \"mood_tags\": [\"tired\"], \"summary\": \"A sore knee.\"}"}
        ]}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), 1, "The physio said to rest the knee.");
    written(dir.path(), 3, "Knee sore after the run.");
    let mut startup = Startup::on_view(dir.path().to_path_buf(), View::Journal);
    startup.today = true;
    let mut harness = app_from(startup, server.settings(), 800.0);
    wait_until(&mut harness, "the model's question", |h| {
        cursor_in_text(h) && shows(h, "How is the knee after three days of rest?")
    });
    assert!(shows(&harness, "From your last days:"));
    assert!(
        shows(&harness, "A question to start from"),
        "beside the day's own"
    );

    server.script(
        r#"{"token_delay_ms": 0, "first_token_delay_ms": 0, "rules": [
          {"match": "start today's entry", "response": "{\"question\": \"What would make the knee's week easier?\"}"},
          {"match": "describe it", "response": "{\"title\": \"Knee\", \"mood_score\": 4, \"mood_tags\": [\"tired\"], \"summary\": \"A sore knee.\"}"}
        ]}"#,
    );
    app_harness::click(&mut harness, "Ask another");
    wait_until(&mut harness, "another question", |h| {
        shows(h, "What would make the knee's week easier?")
    });
}
