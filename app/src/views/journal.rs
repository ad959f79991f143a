//! The journal: a list of any length on the left, the selected entry on the right.
//!
//! The list is virtualised: egui lays out only the visible rows, and rows are fetched a
//! page at a time as the person scrolls towards them, so 50,000 entries cost what 50 do.
//! The same list shows the trash, where an entry can be restored or erased for good, and
//! the entries of one tag. Its width is the person's to choose: rows truncate their
//! title rather than widen the panel.

use chrono::NaiveDate;
use egui::{RichText, ScrollArea};

use mindsage_core::clock;

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::{Entry, EntryRow, ListFilter, PAGE_SIZE};
use mindsage_core::search::remembered::AtNames;
use mindsage_core::search::snippet;
use mindsage_core::search::{SEARCH_BOX_RESULTS, SearchHit, SearchMode, SearchOutcome};

use super::calendar::Calendar;
use super::dialog;
use super::editor::{DraftToKeep, Editor};
use super::page::PageStyle;
use super::paged::Paged;
use super::{Action, Screen, display_lived, display_time};
use crate::protocol::KeptDraft;
use crate::protocol::{AiRequest, Request};
use crate::wording::{self, entry_title, plain, untitled_row};

/// Largest page asked for at once when the person jumps far down the list.
const MAX_CATCH_UP_ROWS: u32 = 5_000;
/// Rows kept in memory above and below those on screen, in whole pages: the rest are
/// forgotten and read again when scrolled back to ([`Paged::forget_outside`]).
const ROWS_KEPT_AROUND: usize = 1_000;

/// The search box and the answer to its text.
#[derive(Default)]
struct SearchBox {
    text: String,
    focus: bool,
    /// Bumped on every change of the text, so only the latest answer shows.
    generation: u64,
    /// The answer to the current text; `None` while it is on its way.
    results: Option<SearchOutcome>,
    /// Why the current text could not be searched by meaning, when it could not.
    meaning_unavailable: Option<String>,
}

impl SearchBox {
    fn active(&self) -> bool {
        !self.text.trim().is_empty()
    }

    /// Asks for results for the new text; answers to older text are ignored.
    fn changed(&mut self, actions: &mut Vec<Action>) {
        self.generation += 1;
        self.results = None;
        self.meaning_unavailable = None;
        if self.active() {
            // Words first, at once; meaning joins when the AI thread has the embedding.
            actions.push(Action::Send(Request::Search {
                generation: self.generation,
                text: self.text.clone(),
                embedding: None,
            }));
            // `@maya` alone lists her entries: there is no meaning to search.
            if !AtNames::split(&self.text).rest.trim().is_empty() {
                actions.push(Action::SendAi(AiRequest::Embed {
                    generation: self.generation,
                    text: self.text.clone(),
                }));
            }
        }
    }
}

/// The list's keyboard cursor: the row Up and Down move, Enter opens and Delete moves to
/// the trash. It follows its entry while that is loaded, so a reload that reorders the
/// list (a save) leaves it on the same entry; it keeps its place while the row is not
/// loaded yet, or has left the list (trashed: the cursor is then on the next one).
#[derive(Debug, Clone, Copy, PartialEq)]
struct ListCursor {
    index: usize,
    id: Option<EntryId>,
}

/// Where the list is scrolled, as last drawn: the cursor is scrolled into it.
#[derive(Default)]
struct ListView {
    offset: f32,
    height: f32,
    /// Where it is on screen.
    rect: Option<egui::Rect>,
    /// The row after the last in view, and the rows it had.
    drawn_to: usize,
    rows: usize,
}

/// Who asked for a day's page.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AskedBy {
    /// The window opening on today: its entry replaces the new page only if nothing was
    /// typed there yet.
    Opening,
    /// The person (the calendar, Alt+arrows): the day's entry, or a new page dated that day.
    Person,
}

#[derive(Default)]
pub struct JournalView {
    filter: ListFilter,
    /// Live entries in the journal, for the scrollbar; `None` until counted.
    total: Option<u64>,
    list: Paged<EntryRow>,
    editor: Editor,
    /// The trashed entry on screen (the trash shows entries read-only).
    trashed: Option<Entry>,
    /// The entry whose permanent deletion waits for the person's confirmation.
    confirm_purge: Option<EntryId>,
    search: SearchBox,
    cursor: Option<ListCursor>,
    /// The cursor moved: the list scrolls to it on the next frame it draws.
    scroll_to_cursor: bool,
    shown: ListView,
    /// The day whose newest entry was asked for, to open as the page ([`Request::Day`]),
    /// and who asked.
    awaiting_day: Option<(NaiveDate, AskedBy)>,
    calendar: Calendar,
    /// The person hid the list: the page has the whole window.
    list_hidden: bool,
    /// How the page is set (Settings → Appearance).
    style: PageStyle,
}

impl JournalView {
    /// Per-frame work whichever screen is on show: the editor's autosave.
    pub fn tick(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        self.editor.autosave(ctx, actions);
    }

    /// Saves the editor's pending edits at once (the window is closing).
    pub fn save_now(&mut self, actions: &mut Vec<Action>) {
        self.editor.save_now(actions);
    }

    /// Everything typed is in the journal.
    pub fn all_saved(&self) -> bool {
        self.editor.all_saved()
    }

    /// Saving is stopped until the threads are restarted.
    pub fn saving_halted(&self) -> bool {
        self.editor.halted()
    }

    /// The threads stopped: saving stops; the answer is the unsaved text, to be kept
    /// in draft files.
    pub fn halt(&mut self) -> Vec<DraftToKeep> {
        self.editor.halt()
    }

    /// Unsaved text was kept in a draft file (see [`Editor::on_kept`]).
    pub fn on_kept(&mut self, name: &str, kept: KeptDraft) {
        self.editor.on_kept(name, kept);
    }

    /// The threads were restarted: saving resumes and the list is read again.
    pub fn resume(&mut self, actions: &mut Vec<Action>) {
        self.editor.resume();
        if let Some(id) = self.editor.entry_id() {
            actions.push(Action::Send(Request::Entry(id)));
        }
        self.reload(actions);
    }

    /// The journal was replaced (a backup restored): the editor closes and the list
    /// starts empty, to be read again (`resume` once the threads restart).
    pub fn forget(&mut self) {
        *self = JournalView::default();
    }

    /// Starts the list again from the top, and counts the journal again: the count the
    /// status bar shows is the journal's whichever list (journal, tag, trash) is on screen.
    pub fn reload(&mut self, actions: &mut Vec<Action>) {
        self.list.restart();
        actions.push(Action::Send(Request::Count));
        self.request_rows(actions, PAGE_SIZE);
        if self.search.active() {
            self.search.changed(actions);
        }
    }

    fn request_rows(&mut self, actions: &mut Vec<Action>, limit: u32) {
        if let Some((generation, after)) = self.list.next_request() {
            actions.push(Action::Send(Request::Page {
                generation,
                filter: self.filter.clone(),
                after,
                limit,
            }));
        }
    }

    pub fn new_entry(&mut self, actions: &mut Vec<Action>) {
        self.show_list(ListFilter::default(), actions);
        self.trashed = None;
        self.editor.new_draft(actions);
    }

    /// Opens today's page: its newest entry, with the cursor at the end of its text, or
    /// a new page when today has none. Until the journal answers, the new page is on
    /// screen with the cursor in it, so what is typed at once is kept (as a new entry).
    pub fn open_today(&mut self, actions: &mut Vec<Action>) {
        let today = clock::now_here().date_naive();
        self.new_entry(actions);
        self.awaiting_day = Some((today, AskedBy::Opening));
        actions.push(Action::Send(Request::Day(today)));
    }

    /// Opens `day`'s page, as the calendar does: its newest entry, or a new page dated
    /// that day. A day after today has no page yet.
    pub fn open_day(&mut self, day: NaiveDate, actions: &mut Vec<Action>) {
        if day > clock::now_here().date_naive() {
            return;
        }
        self.trashed = None;
        self.calendar.follow(day);
        self.awaiting_day = Some((day, AskedBy::Person));
        actions.push(Action::Send(Request::Day(day)));
    }

    /// Opens the page `days` days and `months` months after the page's day (before it
    /// when negative), on the same day of the month or the month's last; never after
    /// today (Alt+arrows).
    pub fn step_page(&mut self, days: i64, months: i32, actions: &mut Vec<Action>) {
        let from = self
            .awaiting_day
            .map_or_else(|| self.editor.page_day(), |(day, _)| day);
        let step = chrono::Months::new(months.unsigned_abs());
        let moved = if months < 0 {
            from.checked_sub_months(step)
        } else {
            from.checked_add_months(step)
        };
        let Some(day) = moved.and_then(|d| d.checked_add_signed(chrono::Duration::days(days))) else {
            return;
        };
        let day = day.min(clock::now_here().date_naive());
        if day != from {
            self.open_day(day, actions);
        }
    }

    /// The newest entry of a day asked for ([`JournalView::open_today`],
    /// [`JournalView::open_day`]).
    pub fn on_day(&mut self, day: NaiveDate, entry: Option<Entry>, actions: &mut Vec<Action>) {
        let Some((_, asked_by)) = self.awaiting_day.filter(|(awaited, _)| *awaited == day) else {
            return;
        };
        self.awaiting_day = None;
        match (entry, asked_by) {
            (Some(entry), AskedBy::Person) => {
                self.put_cursor_on(entry.id);
                self.editor.load_to_write(entry, actions);
            }
            (Some(entry), AskedBy::Opening) if self.editor.blank_draft() => {
                self.put_cursor_on(entry.id);
                self.editor.load_to_write(entry, actions);
            }
            (None, AskedBy::Person) => self.editor.new_draft_on(day, actions),
            _ => {}
        }
    }

    /// Days with entries arrived: the calendar's month, if it asked.
    pub fn on_days(
        &mut self,
        first: NaiveDate,
        last: NaiveDate,
        days: &[mindsage_core::db::stats::DayTotals],
    ) {
        self.calendar.on_days(first, last, days);
    }

    /// An entry's words changed: the calendar's shading is read again.
    pub fn mark_calendar_stale(&mut self) {
        self.calendar.mark_stale();
    }

    /// The journal changed: the calendar's figures and what is around the page are
    /// read again.
    pub fn mark_stale(&mut self) {
        self.mark_calendar_stale();
        self.editor.mark_around_stale();
    }

    /// What is around a day's page arrived: the editor shows it if it is the page's.
    pub fn on_around(&mut self, day: NaiveDate, around: crate::protocol::Around) {
        self.editor.on_around(day, around);
    }

    /// Hides the list, or shows it again.
    pub fn toggle_list(&mut self) {
        self.list_hidden = !self.list_hidden;
    }

    /// Whether the list is hidden (the menu words its item by it).
    pub fn list_hidden(&self) -> bool {
        self.list_hidden
    }

    /// How the page is set from now on.
    pub fn set_style(&mut self, style: PageStyle) {
        self.style = style;
    }

    /// Rows the list has read so far (those forgotten since included).
    pub fn rows_loaded(&self) -> usize {
        self.list.len()
    }

    /// Where the list of entries was last drawn (`--report-startup`'s scroll).
    pub fn list_rect(&self) -> Option<egui::Rect> {
        self.shown.rect
    }

    /// Whether the list was last drawn with its last entry in view and every entry
    /// loaded.
    pub fn list_at_end(&self) -> bool {
        let rows = self.list.len();
        self.shown.drawn_to == self.shown.rows && self.shown.rows == rows && self.list.exhausted()
    }

    /// Whether a page asked for has not arrived yet (true from opening until the first).
    pub fn page_pending(&self) -> bool {
        self.list.loading()
    }

    pub fn focus_search(&mut self) {
        self.search.focus = true;
    }

    /// Searches for `text` as if the person had typed it into the search box.
    pub fn search_for(&mut self, text: String, actions: &mut Vec<Action>) {
        self.search.text = text;
        self.search.focus = true;
        self.search.changed(actions);
    }

    /// The saved entry in the editor, which photos can be added to.
    pub fn entry_id(&self) -> Option<EntryId> {
        self.editor.entry_id()
    }

    /// The model's question to start from arrived.
    pub fn on_model_prompt(&mut self, day: NaiveDate, attempt: u32, question: Option<String>) {
        self.editor.on_model_prompt(day, attempt, question);
    }

    /// The templates, read again (a new page starts from them).
    pub fn on_templates(&mut self, list: Vec<mindsage_core::db::templates::Template>) {
        self.editor.on_templates(list);
    }

    /// The page's photos (their answers go there).
    pub fn photos(&mut self) -> &mut super::photos::PagePhotos {
        self.editor.photos()
    }

    /// Photo files dropped or pasted on the window: placed in the page where its cursor
    /// is ([`Editor::add_photos`]). Returns false when no page is open.
    pub fn add_photos(
        &mut self,
        ctx: &egui::Context,
        photos: Vec<(crate::protocol::PhotoFrom, String)>,
        actions: &mut Vec<Action>,
    ) -> bool {
        self.editor.add_photos(ctx, photos, actions)
    }

    /// Shows the entries `filter` selects (the journal, one tag, the trash).
    pub fn show_list(&mut self, filter: ListFilter, actions: &mut Vec<Action>) {
        if self.filter != filter {
            self.filter = filter;
            self.trashed = None;
            self.cursor = None;
            self.reload(actions);
        }
    }

    // Answers, routed here by the app.

    pub fn on_page(&mut self, generation: u64, page: mindsage_core::db::entries::Page) {
        self.list.on_page(generation, page.rows, page.next);
    }

    pub fn on_count(&mut self, total: u64) {
        self.total = Some(total);
    }

    /// An entry asked for to open: trashed ones show read-only, others in the editor.
    pub fn on_entry(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        self.put_cursor_on(entry.id);
        if entry.is_deleted {
            self.trashed = Some(entry);
        } else {
            self.trashed = None;
            self.editor.load(entry, actions);
        }
    }

    /// An entry's earlier versions arrived; the editor shows them if it is open.
    pub fn on_versions(&mut self, entry: EntryId, versions: Vec<mindsage_core::db::history::Version>) {
        self.editor.on_versions(entry, versions);
    }

    /// An entry's recording arrived; the editor shows its player if that entry is open
    /// (the answer: whether it is, for the speaker to load its sound).
    pub fn on_recording(&mut self, entry: EntryId, segments: Vec<mindsage_core::db::audio::Segment>) -> bool {
        self.editor.on_recording(entry, segments)
    }

    /// The entry whose recording the editor shows, if one.
    pub fn recording_entry(&self) -> Option<EntryId> {
        self.editor.recording_entry()
    }

    /// The speaker's state this frame, for the editor's player.
    pub fn on_playing(&mut self, entry: EntryId, playing: crate::sound::Playing) {
        self.editor.on_playing(entry, playing);
    }

    /// An entry read again (saved, or described by the local model): its row and, if it
    /// is open, the editor show what the file now holds.
    pub fn on_refreshed(&mut self, entry: Entry) {
        if let Some(row) = self.list.loaded_mut().find(|r| r.id == entry.id) {
            row.title.clone_from(&entry.title);
            row.tags.clone_from(&entry.tags);
            row.mood_score = entry.mood_score;
            row.word_count = entry.word_count;
            row.preview = mindsage_core::db::entries::preview_of(&entry.body);
        }
        if entry.is_deleted && self.editor.all_saved() {
            // Trashed elsewhere while open here with nothing unsaved: it leaves the
            // editor as it left the list. (With unsaved text it stays, so the text is
            // saved, into the trash where it can be restored from.)
            self.editor.close_if(entry.id);
            return;
        }
        self.editor.refresh(entry);
    }

    /// Opens the page's date and time to be changed (the palette's command).
    pub fn change_date(&mut self) {
        self.editor.change_when();
    }

    /// An entry moved to another date: the list is read again in its new order, and the
    /// page (and the calendar with it) follows the entry to its day.
    pub fn on_redated(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        self.reload(actions);
        self.editor.refresh(entry);
    }

    /// Another program wrote to the journal: the list and the count are read again, and
    /// so is the entry in the editor, whose answer goes the way of every entry read
    /// again ([`JournalView::on_refreshed`]).
    pub fn on_changed_elsewhere(&mut self, actions: &mut Vec<Action>) {
        self.reload(actions);
        if let Some(id) = self.editor.entry_id() {
            actions.push(Action::Send(Request::Refresh(id)));
        }
    }

    /// The local model wrote entry `id`'s title, summary and mood: read it again if it
    /// is on screen.
    pub fn on_enriched(&mut self, id: EntryId, actions: &mut Vec<Action>) {
        let listed = self.list.position(|row| row.id == id).is_some();
        if listed || self.editor.entry_id() == Some(id) {
            actions.push(Action::Send(Request::Refresh(id)));
        }
    }

    pub fn on_search(&mut self, generation: u64, outcome: SearchOutcome) {
        if generation == self.search.generation {
            self.search.results = Some(outcome);
        }
    }

    pub fn on_meaning_unavailable(&mut self, generation: u64, reason: String) {
        if generation == self.search.generation {
            self.search.meaning_unavailable = Some(reason);
        }
    }

    pub fn on_created(&mut self, draft: u64, entry: Entry, actions: &mut Vec<Action>) {
        self.editor.on_created(draft, entry, actions);
        self.reload(actions);
    }

    /// A draft could not be created; if it has left the screen, the answer is its
    /// text, to be kept in a draft file.
    pub fn on_create_failed(&mut self, draft: u64, message: String) -> Option<DraftToKeep> {
        self.editor.on_create_failed(draft, message)
    }

    pub fn on_saved(&mut self, entry: Entry, actions: &mut Vec<Action>) {
        self.editor.on_saved(entry, actions);
        self.reload(actions);
    }

    pub fn on_update_failed(&mut self, id: EntryId, message: String) {
        self.editor.on_update_failed(id, message);
    }

    /// Entry `id` left the list it was in (trashed, restored or purged).
    pub fn on_moved(&mut self, id: EntryId, actions: &mut Vec<Action>) {
        self.editor.close_if(id);
        if self.trashed.as_ref().is_some_and(|e| e.id == id) {
            self.trashed = None;
        }
        self.reload(actions);
    }

    pub fn summary_line(&self) -> String {
        match self.total {
            Some(1) => "1 entry".to_owned(),
            Some(n) => format!("{n} entries"),
            None => "Opening the journal…".to_owned(),
        }
    }

    // The keyboard.

    /// Whether a dialog of this screen is asking (the window's keys wait meanwhile).
    pub fn dialog_open(&self) -> bool {
        self.confirm_purge.is_some() || self.editor.showing_photo()
    }

    /// The list's keys, read when the keyboard is the list's (no field and no dialog has
    /// it): Up and Down move the cursor, Enter opens its entry, Delete moves it to the
    /// trash (in the trash: asks to delete it forever), Esc clears the search.
    pub fn list_keys(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        use egui::{Key, Modifiers};
        let [up, down, enter, delete, escape] =
            [Key::ArrowUp, Key::ArrowDown, Key::Enter, Key::Delete, Key::Escape]
                .map(|key| ctx.input_mut(|i| i.count_and_consume_key(Modifiers::NONE, key)));
        if escape > 0 && self.search.active() {
            self.clear_search(actions);
        }
        if self.search.active() {
            return; // the list is hidden behind the results
        }
        if up + down > 0 {
            self.move_cursor(down as isize - up as isize);
        }
        let Some(id) = self.cursor_entry() else {
            return;
        };
        if enter > 0 {
            actions.push(Action::OpenEntry(id));
        }
        if delete > 0 {
            if self.filter.trash {
                self.confirm_purge = Some(id);
            } else {
                self.editor.trash(id, actions);
            }
        }
    }

    fn clear_search(&mut self, actions: &mut Vec<Action>) {
        self.search.text.clear();
        self.search.changed(actions);
    }

    /// Rows the list has room for: those loaded, and those counted but not loaded yet
    /// (a counted list) or the one placeholder that asks for the next page (the trash,
    /// a tag's entries).
    fn known_rows(&self) -> usize {
        let rows = self.list.len();
        match (self.filter.trash || self.filter.tag.is_some(), self.total) {
            // Counted lists: the scrollbar covers the whole journal from the start.
            (false, Some(total)) => (total as usize).max(rows),
            (false, None) => rows,
            (true, _) => rows + usize::from(!self.list.exhausted()),
        }
    }

    /// The cursor's row: its entry's, if loaded, else where it was.
    fn cursor_index(&self) -> Option<usize> {
        let cursor = self.cursor?;
        let index = cursor
            .id
            .and_then(|id| self.list.position(|row| row.id == id))
            .unwrap_or(cursor.index);
        Some(index.min(self.known_rows().checked_sub(1)?))
    }

    /// The entry under the cursor, once its row is loaded.
    fn cursor_entry(&self) -> Option<EntryId> {
        self.list.get(self.cursor_index()?).map(|row| row.id)
    }

    /// Moves the cursor `steps` rows down (up when negative), from the open entry's row
    /// when there is no cursor yet; the first move with neither lands on the first row.
    fn move_cursor(&mut self, steps: isize) {
        let Some(last) = self.known_rows().checked_sub(1) else {
            return;
        };
        let open = self.trashed.as_ref().map(|e| e.id).or(self.editor.entry_id());
        let from = self
            .cursor_index()
            .or_else(|| open.and_then(|id| self.list.position(|row| row.id == id)));
        let index = match from {
            Some(from) => from.saturating_add_signed(steps).min(last),
            None => 0,
        };
        self.cursor = Some(ListCursor {
            index,
            id: self.list.get(index).map(|row| row.id),
        });
        self.scroll_to_cursor = true;
    }

    /// Puts the cursor on entry `id`'s row (it was opened), if the row is loaded.
    fn put_cursor_on(&mut self, id: EntryId) {
        if let Some(index) = self.list.position(|row| row.id == id) {
            self.cursor = Some(ListCursor { index, id: Some(id) });
        }
    }

    // Drawing.
}

impl Screen for JournalView {
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if !self.list_hidden && !self.style.focus {
            egui::SidePanel::left("entry_list")
                .resizable(true)
                .default_width(380.0)
                .min_width(300.0)
                .show_inside(ui, |ui| {
                    self.calendar_ui(ui, actions);
                    self.list_header_ui(ui, actions);
                    self.list_ui(ui, actions);
                });
        }
        egui::CentralPanel::default().show_inside(ui, |ui| {
            if let Some(entry) = &self.trashed {
                trashed_entry_ui(ui, entry, actions, &mut self.confirm_purge);
            } else if self.editor.is_open() {
                self.editor.ui(ui, &self.style, actions);
            } else {
                ui.centered_and_justified(|ui| {
                    ui.label("Select an entry to read it, or press Ctrl+N to write one.")
                });
            }
        });
        self.purge_confirmation_ui(ui.ctx(), actions);
    }
}

impl JournalView {
    /// The calendar, following the page's day; a day chosen opens its page.
    fn calendar_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let page_day = self
            .awaiting_day
            .map_or_else(|| self.editor.page_day(), |(day, _)| day);
        let today = clock::now_here().date_naive();
        ui.add_space(4.0);
        if let Some(day) = self.calendar.ui(ui, page_day, today, actions) {
            self.open_day(day, actions);
        }
        ui.separator();
    }

    fn list_header_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let journal = !self.filter.trash && self.filter.tag.is_none();
            if ui.selectable_label(journal, "Entries").clicked() {
                self.show_list(ListFilter::default(), actions);
            }
            if ui.selectable_label(self.filter.trash, "Trash").clicked() {
                let trash = ListFilter {
                    trash: true,
                    ..ListFilter::default()
                };
                self.show_list(trash, actions);
            }
            if let Some(tag) = self.filter.tag.clone() {
                let chip = ui.selectable_label(true, format!("#{tag} ×"));
                if chip.on_hover_text("Show every entry again").clicked() {
                    self.show_list(ListFilter::default(), actions);
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("New entry").on_hover_text("Ctrl+N").clicked() {
                    actions.push(Action::NewEntry);
                }
            });
        });
        let search = ui
            .add(
                egui::TextEdit::singleline(&mut self.search.text)
                    .id_salt("journal_search")
                    .hint_text("Search (Ctrl+F)")
                    .desired_width(f32::INFINITY),
            )
            .on_hover_text("Words, dates (\"last March\"), or @name for someone's entries");
        search.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Search"));
        if std::mem::take(&mut self.search.focus) {
            search.request_focus();
        }
        if search.changed() {
            self.search.changed(actions);
        }
        // Esc takes the focus from a field (egui), and here the text with it.
        if search.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Escape)) {
            self.clear_search(actions);
        }
        ui.separator();
    }

    fn list_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if self.search.active() {
            search_results_ui(ui, &self.search, actions);
            return;
        }
        let row_height = ui.text_style_height(&egui::TextStyle::Body) * 3.0 + 8.0;
        let rows = self.list.len();
        let known_rows = self.known_rows();
        if known_rows == 0 {
            ui.add_space(12.0);
            ui.label(match (self.filter.trash, self.total) {
                (true, _) => "The trash is empty.",
                _ if self.filter.tag.is_some() => "No entries with this tag.",
                (false, Some(0)) => "No entries yet.",
                (false, _) => "Loading…",
            });
            return;
        }
        let mut drawn = 0..0;
        let open_id = self.trashed.as_ref().map(|e| e.id).or(self.editor.entry_id());
        let cursor = self.cursor_index();
        let mut scroll = ScrollArea::vertical().auto_shrink([false, false]);
        if let Some(index) = cursor.filter(|_| std::mem::take(&mut self.scroll_to_cursor)) {
            let pitch = row_height + ui.spacing().item_spacing.y;
            scroll = scroll.vertical_scroll_offset(offset_showing(index, pitch, row_height, &self.shown));
        }
        let output = scroll.show_rows(ui, row_height, known_rows, |ui, range| {
            drawn = range.clone();
            for index in range {
                let at_cursor = cursor == Some(index);
                match self.list.get(index) {
                    Some(row) => {
                        let look = RowLook {
                            open: open_id == Some(row.id),
                            cursor: at_cursor,
                        };
                        list_row_ui(ui, row, look, row_height, actions)
                    }
                    None => {
                        let placeholder =
                            ui.add_sized([ui.available_width(), row_height], egui::Label::new("…"));
                        if at_cursor {
                            cursor_ring(ui, placeholder.rect);
                        }
                    }
                }
            }
        });
        self.shown = ListView {
            offset: output.state.offset.y,
            height: output.inner_rect.height(),
            rect: Some(output.inner_rect),
            drawn_to: drawn.end,
            rows: known_rows,
        };
        self.list
            .forget_outside(drawn.start.saturating_sub(ROWS_KEPT_AROUND)..drawn.end + ROWS_KEPT_AROUND);
        if let Some((generation, after, limit)) = self.list.refill_request(drawn.clone()) {
            actions.push(Action::Send(Request::Page {
                generation,
                filter: self.filter.clone(),
                after,
                limit,
            }));
        } else if drawn.end + PAGE_SIZE as usize / 2 > rows {
            let missing = (drawn.end + PAGE_SIZE as usize).saturating_sub(rows) as u32;
            self.request_rows(actions, missing.clamp(PAGE_SIZE, MAX_CATCH_UP_ROWS));
        }
    }

    /// "Delete this entry forever?", the keyboard on Cancel; Esc cancels.
    fn purge_confirmation_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(id) = self.confirm_purge else {
            return;
        };
        let answer = dialog::show(ctx, "confirm_purge", false, |ui| {
            ui.heading("Delete this entry forever?");
            ui.label(
                "Its text, tags and photos are erased from the journal on disk. This cannot be \
                 undone. Backups made before now keep it until they are replaced.",
            );
            ui.add_space(8.0);
            dialog::yes_or_no(ui, "Delete forever", "Cancel")
        });
        if let Some(purge) = answer {
            self.confirm_purge = None;
            if purge {
                actions.push(Action::Send(Request::Purge(id)));
            }
        }
    }
}

/// The hits for the search text, best first, down to search's relevance floor and
/// then [`NO_OTHER_MATCHES`], never the rest of the journal; [`NO_MATCHES`] when nothing
/// is close. Matching words only, it says why: the embedding's failure when there was
/// one, else search's reason.
fn search_results_ui(ui: &mut egui::Ui, search: &SearchBox, actions: &mut Vec<Action>) {
    let Some(outcome) = &search.results else {
        ui.label(RichText::new("Searching…").weak());
        return;
    };
    if let SearchMode::KeywordOnly { reason } = &outcome.mode {
        let reason = search.meaning_unavailable.as_deref().unwrap_or(reason);
        ui.label(
            RichText::new(format!("Matching words only: {reason}."))
                .weak()
                .small(),
        );
    }
    if !outcome.not_remembered.is_empty() {
        ui.label(wording::not_remembered(&outcome.not_remembered));
        return;
    }
    if !outcome.remembered.is_empty() {
        ui.label(RichText::new(wording::entries_with(&outcome.remembered)).weak());
    }
    if outcome.hits.is_empty() {
        ui.label(NO_MATCHES);
        return;
    }
    ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        for hit in &outcome.hits {
            if search_hit_ui(ui, hit).clicked() {
                actions.push(Action::OpenEntry(hit.entry_id));
            }
            ui.separator();
        }
        // A full list may go on past its length; a shorter one ended at the floor.
        if outcome.hits.len() < SEARCH_BOX_RESULTS {
            ui.label(RichText::new(NO_OTHER_MATCHES).weak());
        }
    });
}

/// What the search box says when nothing in the journal is close to its text.
const NO_MATCHES: &str = "No close matches.";

/// What the search box says below its matches, where the rest of the journal would be.
const NO_OTHER_MATCHES: &str = "No other close matches.";

/// A title on the left, truncated to the room the date on the right leaves it: the
/// date the entry was lived (`created_at` at its `utc_offset`).
fn title_and_date_ui(ui: &mut egui::Ui, title: &str, created_at: &str, utc_offset: i32) {
    egui::Sides::new().shrink_left().truncate().show(
        ui,
        |ui| ui.label(RichText::new(title).strong()),
        |ui| {
            ui.label(
                RichText::new(display_lived(created_at, utc_offset))
                    .weak()
                    .small(),
            )
        },
    );
}

/// How a row of the list stands out.
#[derive(Clone, Copy, Default)]
struct RowLook {
    /// Its entry is open (filled).
    open: bool,
    /// The keyboard cursor is on it (ringed, and "selected" to assistive technology).
    cursor: bool,
}

/// Makes `rect` one button to the person and to assistive technology, named `name`,
/// highlighted as `look` says and when under the pointer.
fn clickable(ui: &mut egui::Ui, rect: egui::Rect, id: egui::Id, name: &str, look: RowLook) -> egui::Response {
    let response = ui.interact(rect, id, egui::Sense::click());
    response.widget_info(|| {
        let mut info = egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name);
        info.selected = look.cursor.then_some(true);
        info
    });
    if look.open || response.hovered() {
        ui.painter().rect_filled(
            response.rect,
            4.0,
            ui.visuals()
                .selection
                .bg_fill
                .gamma_multiply(if look.open { 0.35 } else { 0.12 }),
        );
    }
    if look.cursor {
        cursor_ring(ui, response.rect);
    }
    response
}

/// The keyboard cursor's mark around a row.
fn cursor_ring(ui: &egui::Ui, rect: egui::Rect) {
    let stroke = ui.visuals().selection.stroke;
    ui.painter()
        .rect_stroke(rect, 4.0, stroke, egui::StrokeKind::Inside);
}

/// The scroll offset that shows row `index` of rows `pitch` apart, each `height` tall,
/// in a list `shown` as it was last drawn: unchanged while the row is in view, else
/// moved just enough to bring it in at the nearer edge.
fn offset_showing(index: usize, pitch: f32, height: f32, shown: &ListView) -> f32 {
    let top = index as f32 * pitch;
    let bottom = top + height;
    if top < shown.offset {
        top
    } else if bottom > shown.offset + shown.height {
        bottom - shown.height
    } else {
        shown.offset
    }
}

fn search_hit_ui(ui: &mut egui::Ui, hit: &SearchHit) -> egui::Response {
    let title = entry_title(&hit.title, "");
    let rect = ui
        .vertical(|ui| {
            title_and_date_ui(ui, &title, &hit.created_at, hit.utc_offset);
            ui.label(highlighted(ui, &hit.snippet));
        })
        .response
        .rect;
    clickable(
        ui,
        rect,
        ui.id().with(("hit", hit.entry_id)),
        &title,
        RowLook::default(),
    )
}

/// A snippet with the matched words on a highlight, from search's STX/ETX markers.
fn highlighted(ui: &egui::Ui, snippet: &str) -> egui::text::LayoutJob {
    let plain = egui::TextFormat {
        font_id: egui::TextStyle::Body.resolve(ui.style()),
        color: ui.visuals().weak_text_color(),
        ..Default::default()
    };
    let marked = egui::TextFormat {
        color: ui.visuals().strong_text_color(),
        background: ui.visuals().selection.bg_fill.gamma_multiply(0.5),
        ..plain.clone()
    };
    let mut job = egui::text::LayoutJob::default();
    for (part, matched) in snippet::parts(snippet) {
        let format = if matched { marked.clone() } else { plain.clone() };
        job.append(part, 0.0, format);
    }
    job.wrap.max_width = ui.available_width();
    job
}

/// A trashed entry, read-only, with the two ways out of the trash.
fn trashed_entry_ui(
    ui: &mut egui::Ui,
    entry: &Entry,
    actions: &mut Vec<Action>,
    confirm_purge: &mut Option<EntryId>,
) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("In the trash").strong());
        if let Some(deleted) = &entry.deleted_at {
            ui.label(RichText::new(format!("since {}", display_time(deleted))).weak());
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui.button("Delete forever…").clicked() {
                *confirm_purge = Some(entry.id);
            }
            if ui.button("Restore").clicked() {
                actions.push(Action::Send(Request::Restore(entry.id)));
            }
        });
    });
    ui.separator();
    ui.heading(entry_title(&entry.title, &entry.body));
    ui.label(RichText::new(display_lived(&entry.created_at, entry.utc_offset)).weak());
    ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| ui.label(&entry.body));
}

/// One row of the list: title and date, the start of the text, and its tags, each tag
/// a link to the entries carrying it. The row's own click is registered first, so the
/// tag links drawn over it take their clicks.
fn list_row_ui(ui: &mut egui::Ui, row: &EntryRow, look: RowLook, height: f32, actions: &mut Vec<Action>) {
    let shown = plain(&row.preview);
    let (title, preview) = if row.title.trim().is_empty() {
        untitled_row(&shown)
    } else {
        (entry_title(&row.title, ""), shown.as_ref())
    };
    let rect = egui::Rect::from_min_size(ui.cursor().min, egui::vec2(ui.available_width(), height));
    if clickable(ui, rect, ui.id().with(("row", row.id)), &title, look).clicked() {
        actions.push(Action::OpenEntry(row.id));
    }
    let contents = egui::UiBuilder::new()
        .max_rect(rect)
        .layout(egui::Layout::top_down(egui::Align::Min));
    ui.scope_builder(contents, |ui| {
        // Every row is as tall as the list's row height, whatever it holds.
        ui.set_min_height(height);
        // Its text is not selectable, so a click anywhere but a tag opens the entry.
        ui.style_mut().interaction.selectable_labels = false;
        title_and_date_ui(ui, &title, &row.created_at, row.utc_offset);
        ui.add(egui::Label::new(RichText::new(preview).weak()).truncate());
        if !row.tags.is_empty() {
            ui.horizontal(|ui| {
                for tag in &row.tags {
                    let link = ui.add(egui::Link::new(RichText::new(format!("#{tag}")).small()));
                    if link.on_hover_text("Entries with this tag").clicked() {
                        actions.push(Action::ShowTag(tag.clone()));
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{ListView, offset_showing};

    #[test]
    fn the_list_scrolls_only_as_far_as_brings_the_cursor_in() {
        // Rows 10 apart, 8 tall, in a list 35 tall scrolled to 100 (rows 10 to 13 in view).
        let shown = ListView {
            offset: 100.0,
            height: 35.0,
            ..ListView::default()
        };
        assert_eq!(offset_showing(11, 10.0, 8.0, &shown), 100.0, "in view: no scroll");
        assert_eq!(offset_showing(9, 10.0, 8.0, &shown), 90.0, "above: at the top");
        assert_eq!(
            offset_showing(14, 10.0, 8.0, &shown),
            113.0,
            "below: at the bottom"
        );
        assert_eq!(offset_showing(0, 10.0, 8.0, &shown), 0.0);
    }
}
