//! Views drawn alone, with no threads behind them: answers are handed to the view as the
//! app would, and what the person clicks comes back as [`Action`]s. The whole app, with
//! its threads and a real journal, is driven in `ui.rs`.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use mindsage::protocol::Request;
use mindsage::views::journal::JournalView;
use mindsage::views::{Action, Screen};
use mindsage_core::db::entries::{EntryRow, Page};

fn row(id: i64, title: &str, preview: &str, tags: &[&str]) -> EntryRow {
    EntryRow {
        id,
        created_at: "2026-11-30T08:00:00.000Z".to_owned(),
        utc_offset: 0,
        title: title.to_owned(),
        preview: preview.to_owned(),
        mood_score: None,
        word_count: 3,
        is_deleted: false,
        deleted_at: None,
        tags: tags.iter().map(|t| t.to_string()).collect(),
    }
}

/// A journal view showing `rows`, answered as the reader would answer its first page.
fn journal_showing(rows: Vec<EntryRow>) -> JournalView {
    let mut view = JournalView::default();
    let mut actions = Vec::new();
    view.reload(&mut actions);
    let generation = actions
        .iter()
        .find_map(|a| match a {
            Action::Send(Request::Page { generation, .. }) => Some(*generation),
            _ => None,
        })
        .expect("a reload asks for the first page");
    view.on_count(rows.len() as u64);
    view.on_page(generation, Page { rows, next: None });
    view
}

fn harness(view: JournalView) -> Harness<'static, (JournalView, Vec<Action>)> {
    let mut harness = Harness::builder()
        .with_size([1100.0, 700.0])
        .build_ui_state(|ui, (view, actions)| view.ui(ui, actions), (view, Vec::new()));
    harness.run();
    // What the view asks for by itself when it opens (the calendar's month) is not a
    // person's click.
    harness.state_mut().1.clear();
    harness
}

#[test]
fn clicking_a_row_asks_to_open_it_and_a_tag_asks_for_its_entries() {
    let view = journal_showing(vec![
        row(1, "Walk by the river", "Cold and bright.", &["walks"]),
        row(2, "", "Rain all day. Then sun.", &[]),
    ]);
    let mut harness = harness(view);

    // An entry without a title is called by the start of its text.
    assert!(
        harness
            .query_by_role_and_label(Role::Button, "Rain all day.")
            .is_some()
    );

    harness
        .get_by_role_and_label(Role::Button, "Walk by the river")
        .click();
    harness.run();
    assert!(matches!(harness.state().1.as_slice(), [Action::OpenEntry(1)]));

    harness.state_mut().1.clear();
    harness.get_by_label("#walks").click();
    harness.run();
    assert!(
        matches!(harness.state().1.as_slice(), [Action::ShowTag(tag)] if tag == "walks"),
        "the tag link, not the row under it, takes the click: {:?}",
        harness.state().1
    );
}

#[test]
fn a_long_title_does_not_widen_the_list() {
    let width_with = |title: &str| {
        let harness = harness(journal_showing(vec![row(1, title, "text", &[])]));
        harness.get_by_label("Search").rect().width()
    };
    let short = width_with("Walk");
    let long = width_with(&"A very long title that goes on and on ".repeat(8));
    assert_eq!(short, long, "the list's width must not follow its rows' content");
}

#[test]
fn new_entry_is_an_action_for_the_app() {
    let mut harness = harness(journal_showing(Vec::new()));
    assert!(harness.query_by_label("No entries yet.").is_some());
    harness.get_by_role_and_label(Role::Button, "New entry").click();
    harness.run();
    assert!(matches!(harness.state().1.as_slice(), [Action::NewEntry]));
}
