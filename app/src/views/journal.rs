//! The journal: a list of any length on the left, the selected entry on the right.
//!
//! The list is virtualised: egui lays out only the visible rows, and rows are fetched a
//! page at a time as the person scrolls towards them, so 50,000 entries cost what 50 do.
//! The same list shows the trash, where an entry can be restored or erased for good.

use std::path::PathBuf;

use egui::{RichText, ScrollArea};

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::{Cursor, Entry, EntryRow, ListFilter, PAGE_SIZE};
use mindsage_core::search::keyword::{HIGHLIGHT_END, HIGHLIGHT_START};
use mindsage_core::search::{SearchHit, SearchMode, SearchOutcome};

use super::display_time;
use super::editor::Editor;
use crate::assistant::AiRequest;
use crate::worker::{Request, Response, Worker};

/// Largest page asked for at once when the person jumps far down the list.
const MAX_CATCH_UP_ROWS: u32 = 5_000;

#[derive(Default)]
pub struct JournalView {
    filter: ListFilter,
    /// Live entries in the journal, for the scrollbar; `None` until counted.
    total: Option<u64>,
    rows: Vec<EntryRow>,
    next: Option<Cursor>,
    /// The list is complete once a page comes back short.
    exhausted: bool,
    /// Bumped on every reload so answers to older requests are ignored.
    generation: u64,
    loading: bool,
    editor: Editor,
    /// The trashed entry on screen (the trash shows entries read-only).
    trashed: Option<Entry>,
    /// The entry whose permanent deletion waits for the person's confirmation.
    confirm_purge: Option<EntryId>,
    search: String,
    focus_search: bool,
    /// Bumped on every change of the search text, so only the latest answer shows.
    search_generation: u64,
    /// The answer to the current search text; `None` while it is on its way.
    results: Option<SearchOutcome>,
    /// Why the current search text could not be searched by meaning, when it could not.
    meaning_unavailable: Option<String>,
    /// Where unsaved text is kept as files (`drafts/` in the data folder).
    drafts: PathBuf,
}

impl JournalView {
    /// An empty journal view that keeps unsaved text in `drafts` when it must.
    pub fn new(drafts: PathBuf) -> JournalView {
        JournalView {
            drafts,
            ..JournalView::default()
        }
    }

    /// Per-frame work whichever screen is on show: the editor's autosave.
    pub fn tick(&mut self, ctx: &egui::Context, worker: &Worker) {
        self.editor.autosave(ctx, worker);
    }

    /// Saves the editor's pending edits at once (the window is closing).
    pub fn save_now(&mut self, worker: &Worker) {
        self.editor.save_now(worker);
    }

    /// Everything typed is in the journal.
    pub fn all_saved(&self) -> bool {
        self.editor.all_saved()
    }

    /// Saving is stopped until the threads are restarted.
    pub fn saving_halted(&self) -> bool {
        self.editor.halted()
    }

    /// The threads stopped: keeps unsaved text as draft files; returns where.
    pub fn halt_and_keep(&mut self) -> Vec<String> {
        self.editor.halt_and_keep(&self.drafts)
    }

    /// The threads were restarted: saving resumes and the list is read again.
    pub fn resume(&mut self, worker: &Worker) {
        self.editor.resume();
        if let Some(id) = self.editor.entry_id() {
            self.open(id, worker);
        }
        self.reload(worker);
    }

    /// A draft could not be created; returns what to tell the person, if the draft has
    /// left the screen (its text is then in a draft file).
    pub fn on_create_failed(&mut self, draft: u64, message: String) -> Option<String> {
        self.editor.on_create_failed(draft, message, &self.drafts)
    }

    /// The local model wrote entry `id`'s title, summary and mood: the list shows them,
    /// and so does the editor if `id` is open.
    pub fn on_enriched(&mut self, id: EntryId, worker: &Worker) {
        if self.editor.entry_id() == Some(id) {
            worker.send(Request::Entry(id));
        }
        if self.rows.iter().any(|row| row.id == id) {
            self.reload(worker);
        }
    }

    /// Starts the list again from the top.
    pub fn reload(&mut self, worker: &Worker) {
        self.generation += 1;
        self.rows.clear();
        self.next = None;
        self.exhausted = false;
        self.loading = false;
        if !self.filter.trash {
            worker.send(Request::Count);
        }
        self.request_rows(worker, PAGE_SIZE);
        if self.is_searching() {
            self.search_changed(worker);
        }
    }

    fn request_rows(&mut self, worker: &Worker, limit: u32) {
        if self.loading || self.exhausted {
            return;
        }
        self.loading = true;
        worker.send(Request::Page {
            generation: self.generation,
            filter: self.filter.clone(),
            after: self.next.clone(),
            limit,
        });
    }

    pub fn new_entry(&mut self, worker: &Worker) {
        self.show_trash(false, worker);
        self.trashed = None;
        self.editor.new_draft(worker);
    }

    pub fn rows_loaded(&self) -> usize {
        self.rows.len()
    }

    /// Whether a page asked for has not arrived yet (true from opening until the first).
    pub fn page_pending(&self) -> bool {
        self.loading
    }

    pub fn focus_search(&mut self) {
        self.focus_search = true;
    }

    /// Asks for an entry; it opens when it arrives.
    pub fn open(&mut self, id: EntryId, worker: &Worker) {
        worker.send(Request::Entry(id));
    }

    /// The saved entry in the editor, which photos can be added to.
    pub fn entry_id(&self) -> Option<EntryId> {
        self.editor.entry_id()
    }

    fn show_trash(&mut self, trash: bool, worker: &Worker) {
        if self.filter.trash != trash {
            self.filter.trash = trash;
            self.trashed = None;
            self.reload(worker);
        }
    }

    pub fn on_response(&mut self, response: Response, worker: &Worker) {
        match response {
            Response::Page { generation, page } if generation == self.generation => {
                self.loading = false;
                self.exhausted = page.next.is_none();
                self.next = page.next;
                self.rows.extend(page.rows);
            }
            Response::Count(n) => self.total = Some(n),
            Response::Search { generation, outcome } if generation == self.search_generation => {
                self.results = Some(outcome);
            }
            Response::Entry(entry) if entry.is_deleted => self.trashed = Some(*entry),
            Response::Entry(entry) => {
                self.trashed = None;
                self.editor.load(*entry, worker);
            }
            Response::Created { draft, id } => {
                self.editor.on_created(draft, id, worker);
                self.reload(worker);
            }
            Response::UpdateFailed { id, message } => self.editor.on_update_failed(id, message),
            Response::MeaningUnavailable { generation, reason } if generation == self.search_generation => {
                self.meaning_unavailable = Some(reason);
            }
            Response::Saved(id) => {
                self.editor.on_saved(id, worker);
                self.reload(worker);
            }
            Response::Trashed(id) | Response::Restored(id) | Response::Purged(id) => {
                self.editor.close_if(id);
                if self.trashed.as_ref().is_some_and(|e| e.id == id) {
                    self.trashed = None;
                }
                self.reload(worker);
            }
            _ => {}
        }
    }

    pub fn summary_line(&self) -> String {
        match self.total {
            Some(1) => "1 entry".to_owned(),
            Some(n) => format!("{n} entries"),
            None => "Opening the journal…".to_owned(),
        }
    }

    pub fn show(&mut self, ctx: &egui::Context, worker: &Worker) {
        egui::SidePanel::left("entry_list")
            .resizable(true)
            .default_width(380.0)
            .min_width(300.0)
            .show(ctx, |ui| {
                self.list_header(ui, worker);
                self.list(ui, worker);
            });
        egui::CentralPanel::default().show(ctx, |ui| {
            if let Some(entry) = &self.trashed {
                trashed_entry(ui, entry, worker, &mut self.confirm_purge);
            } else if self.editor.is_open() {
                self.editor.show(ui, worker);
            } else {
                ui.centered_and_justified(|ui| {
                    ui.label("Select an entry to read it, or press Ctrl+N to write one.")
                });
            }
        });
        self.purge_confirmation(ctx, worker);
    }

    fn list_header(&mut self, ui: &mut egui::Ui, worker: &Worker) {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            if ui.selectable_label(!self.filter.trash, "Entries").clicked() {
                self.show_trash(false, worker);
            }
            if ui.selectable_label(self.filter.trash, "Trash").clicked() {
                self.show_trash(true, worker);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("New entry").on_hover_text("Ctrl+N").clicked() {
                    self.new_entry(worker);
                }
            });
        });
        let search = ui.add(
            egui::TextEdit::singleline(&mut self.search)
                .hint_text("Search (Ctrl+F)")
                .desired_width(f32::INFINITY),
        );
        search.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Search"));
        if std::mem::take(&mut self.focus_search) {
            search.request_focus();
        }
        if search.changed() {
            self.search_changed(worker);
        }
        ui.separator();
    }

    /// Asks for results for the new search text; answers to older text are ignored.
    fn search_changed(&mut self, worker: &Worker) {
        self.search_generation += 1;
        self.results = None;
        self.meaning_unavailable = None;
        if self.is_searching() {
            // Words first, at once; meaning joins when the AI thread has the embedding.
            worker.send(Request::Search {
                generation: self.search_generation,
                text: self.search.clone(),
                embedding: None,
            });
            worker.send_ai(AiRequest::Embed {
                generation: self.search_generation,
                text: self.search.clone(),
            });
        }
    }

    fn is_searching(&self) -> bool {
        !self.search.trim().is_empty()
    }

    fn list(&mut self, ui: &mut egui::Ui, worker: &Worker) {
        if self.is_searching() {
            if let Some(id) = search_results(ui, self.results.as_ref(), self.meaning_unavailable.as_deref()) {
                self.open(id, worker);
            }
            return;
        }
        let row_height = ui.text_style_height(&egui::TextStyle::Body) * 3.0 + 8.0;
        let known_rows = if self.filter.trash {
            self.rows.len() + usize::from(!self.exhausted)
        } else {
            self.total
                .map_or(self.rows.len(), |t| t as usize)
                .max(self.rows.len())
        };
        if known_rows == 0 {
            ui.add_space(12.0);
            ui.label(match (self.filter.trash, self.total) {
                (true, _) => "The trash is empty.",
                (false, Some(0)) => "No entries yet.",
                (false, _) => "Loading…",
            });
            return;
        }
        let mut wanted_up_to = 0usize;
        let mut clicked = None;
        let open_id = self.trashed.as_ref().map(|e| e.id).or(self.editor.entry_id());
        ScrollArea::vertical().auto_shrink([false, false]).show_rows(
            ui,
            row_height,
            known_rows,
            |ui, range| {
                wanted_up_to = range.end;
                for index in range {
                    match self.rows.get(index) {
                        Some(row) => {
                            if list_row(ui, row, open_id == Some(row.id), row_height).clicked() {
                                clicked = Some(row.id);
                            }
                        }
                        None => {
                            ui.add_sized([ui.available_width(), row_height], egui::Label::new("…"));
                        }
                    }
                }
            },
        );
        if wanted_up_to + PAGE_SIZE as usize / 2 > self.rows.len() {
            let missing = (wanted_up_to + PAGE_SIZE as usize).saturating_sub(self.rows.len()) as u32;
            self.request_rows(worker, missing.clamp(PAGE_SIZE, MAX_CATCH_UP_ROWS));
        }
        if let Some(id) = clicked {
            self.open(id, worker);
        }
    }

    fn purge_confirmation(&mut self, ctx: &egui::Context, worker: &Worker) {
        let Some(id) = self.confirm_purge else {
            return;
        };
        let modal = egui::Modal::new(egui::Id::new("confirm_purge")).show(ctx, |ui| {
            ui.heading("Delete this entry forever?");
            ui.label("Its text, tags and photos are erased from the disk. This cannot be undone.");
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                if ui.button("Delete forever").clicked() {
                    worker.send(Request::Purge(id));
                    self.confirm_purge = None;
                }
                if ui.button("Cancel").clicked() {
                    self.confirm_purge = None;
                }
            });
        });
        if modal.should_close() {
            self.confirm_purge = None;
        }
    }
}

/// The hits for the search text, best first; returns the clicked entry. Matching words
/// only, it says why: the embedding's failure when there was one, else search's reason.
fn search_results(
    ui: &mut egui::Ui,
    outcome: Option<&SearchOutcome>,
    meaning_unavailable: Option<&str>,
) -> Option<EntryId> {
    let Some(outcome) = outcome else {
        ui.label(RichText::new("Searching…").weak());
        return None;
    };
    if let SearchMode::KeywordOnly { reason } = &outcome.mode {
        let reason = meaning_unavailable.unwrap_or(reason);
        ui.label(
            RichText::new(format!("Matching words only: {reason}."))
                .weak()
                .small(),
        );
    }
    if outcome.hits.is_empty() {
        ui.label("Nothing found.");
        return None;
    }
    let mut clicked = None;
    ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        for hit in &outcome.hits {
            if search_hit(ui, hit).clicked() {
                clicked = Some(hit.entry_id);
            }
            ui.separator();
        }
    });
    clicked
}

fn search_hit(ui: &mut egui::Ui, hit: &SearchHit) -> egui::Response {
    let title = if hit.title.is_empty() {
        "(untitled)"
    } else {
        &hit.title
    };
    let response = ui
        .vertical(|ui| {
            ui.horizontal(|ui| {
                ui.label(RichText::new(title).strong());
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(RichText::new(display_time(&hit.created_at)).weak().small());
                });
            });
            ui.label(highlighted(ui, &hit.snippet));
        })
        .response;
    let response = ui.interact(
        response.rect,
        ui.id().with(("hit", hit.entry_id)),
        egui::Sense::click(),
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, title));
    if response.hovered() {
        ui.painter().rect_filled(
            response.rect,
            4.0,
            ui.visuals().selection.bg_fill.gamma_multiply(0.12),
        );
    }
    response
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
    for (index, part) in snippet.split([HIGHLIGHT_START, HIGHLIGHT_END]).enumerate() {
        // Parts alternate: outside a mark, inside, outside, …
        let format = if index % 2 == 1 {
            marked.clone()
        } else {
            plain.clone()
        };
        job.append(part, 0.0, format);
    }
    job.wrap.max_width = ui.available_width();
    job
}

/// A trashed entry, read-only, with the two ways out of the trash.
fn trashed_entry(ui: &mut egui::Ui, entry: &Entry, worker: &Worker, confirm_purge: &mut Option<EntryId>) {
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
                worker.send(Request::Restore(entry.id));
            }
        });
    });
    ui.separator();
    ui.heading(if entry.title.is_empty() {
        "(untitled)"
    } else {
        &entry.title
    });
    ui.label(RichText::new(display_time(&entry.created_at)).weak());
    ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| ui.label(&entry.body));
}

fn list_row(ui: &mut egui::Ui, row: &EntryRow, selected: bool, height: f32) -> egui::Response {
    let title = if row.title.is_empty() {
        "(untitled)"
    } else {
        &row.title
    };
    let response = ui
        .allocate_ui_with_layout(
            egui::vec2(ui.available_width(), height),
            egui::Layout::top_down(egui::Align::Min),
            |ui| {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(title).strong());
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(RichText::new(display_time(&row.created_at)).weak().small());
                    });
                });
                ui.add(egui::Label::new(RichText::new(&row.preview).weak()).truncate());
                if !row.tags.is_empty() {
                    let tags: Vec<String> = row.tags.iter().map(|t| format!("#{t}")).collect();
                    ui.label(RichText::new(tags.join(" ")).small());
                }
            },
        )
        .response;
    let response = ui.interact(response.rect, ui.id().with(("row", row.id)), egui::Sense::click());
    // The row is one button to assistive technology, named by its title.
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, title));
    if selected || response.hovered() {
        ui.painter().rect_filled(
            response.rect,
            4.0,
            ui.visuals()
                .selection
                .bg_fill
                .gamma_multiply(if selected { 0.35 } else { 0.12 }),
        );
    }
    response
}
