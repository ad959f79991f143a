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
/// written; the entry of a year before, whose name opens its day.
#[test]
fn todays_page_speaks_of_the_streak_and_of_a_year_ago() {
    let dir = tempfile::tempdir().unwrap();
    let today = chrono::Local::now().date_naive();
    let year_before = today.checked_sub_months(chrono::Months::new(12)).unwrap();
    written(dir.path(), 1, "Yesterday's entry.");
    written(dir.path(), 2, "The day before.");
    let days_back = (today - year_before).num_days() as u64;
    written(dir.path(), days_back, "# The new flat\nBoxes everywhere.");
    let mut harness = window(dir.path(), |_| {});
    wait_until(&mut harness, "the streak and a year ago", |h| {
        cursor_in_text(h)
            && shows(h, "Write today to make it 3 days in a row")
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
}

fn day_heading_of(day: chrono::NaiveDate) -> String {
    mindsage::views::page::day_heading(day, chrono::Local::now().date_naive())
}

/// A photo dropped on a new page makes it an entry, with the photo in its strip; the
/// entry and its photo are in the journal.
#[test]
fn a_photo_dropped_on_a_new_page_makes_an_entry_with_it() {
    let (dir, mut harness) = on_todays_page(|_| {});
    let photo = dir.path().join("harbour.png");
    image::RgbImage::from_fn(80, 60, |x, y| image::Rgb([x as u8 * 3, y as u8 * 4, 120]))
        .save(&photo)
        .unwrap();
    harness.input_mut().dropped_files.push(egui::DroppedFile {
        path: Some(photo),
        ..Default::default()
    });
    wait_until(&mut harness, "the photo on the page", |h| {
        shows(h, "Added 1 photo.") && h.query_by_role_and_label(Role::Button, "Photo 1 of 1").is_some()
    });
    drop(harness);

    let journal = entries_in_journal(dir.path());
    assert_eq!(journal.len(), 1, "the page became an entry");
    // Read off the test's thread, which the window made its UI thread.
    let (path, id) = (paths::database_path(dir.path()), journal[0].id);
    let photos = std::thread::spawn(move || {
        let conn = db::open(&path, &StorageOptions::default()).unwrap();
        mindsage_core::db::gallery::of_entry(&conn, DEFAULT_USER, id).unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(
        photos.iter().map(|p| (p.width, p.height)).collect::<Vec<_>>(),
        [(80, 60)]
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
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Num5);
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
