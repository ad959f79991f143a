//! The journal: a list of any length on the left, the selected entry on the right.
//!
//! The list is virtualised: egui lays out only the visible rows, and rows are fetched a
//! page at a time as the person scrolls towards them, so 50,000 entries cost what 50 do.

use egui::{RichText, ScrollArea};

use mindsage_core::db::entries::{Cursor, Entry, EntryRow, ListFilter, PAGE_SIZE};

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
    selected: Option<Entry>,
}

impl JournalView {
    /// Starts the list again from the top.
    pub fn reload(&mut self, worker: &Worker) {
        self.generation += 1;
        self.rows.clear();
        self.next = None;
        self.exhausted = false;
        self.loading = false;
        worker.send(Request::Count);
        self.request_rows(worker, PAGE_SIZE);
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

    pub fn on_response(&mut self, response: Response) {
        match response {
            Response::Page { generation, page } if generation == self.generation => {
                self.loading = false;
                self.exhausted = page.next.is_none();
                self.next = page.next;
                self.rows.extend(page.rows);
            }
            Response::Count(n) => self.total = Some(n),
            Response::Entry(entry) => self.selected = Some(*entry),
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
            .show(ctx, |ui| self.list(ui, worker));
        egui::CentralPanel::default().show(ctx, |ui| self.detail(ui));
    }

    fn list(&mut self, ui: &mut egui::Ui, worker: &Worker) {
        let row_height = ui.text_style_height(&egui::TextStyle::Body) * 3.0 + 8.0;
        let known_rows = self
            .total
            .map_or(self.rows.len(), |t| t as usize)
            .max(self.rows.len());
        if known_rows == 0 {
            ui.add_space(12.0);
            ui.label(if self.total == Some(0) {
                "No entries yet."
            } else {
                "Loading…"
            });
            return;
        }
        let mut wanted_up_to = 0usize;
        let mut clicked = None;
        ScrollArea::vertical().auto_shrink([false, false]).show_rows(
            ui,
            row_height,
            known_rows,
            |ui, range| {
                wanted_up_to = range.end;
                for index in range {
                    match self.rows.get(index) {
                        Some(row) => {
                            if list_row(
                                ui,
                                row,
                                self.selected.as_ref().map(|e| e.id) == Some(row.id),
                                row_height,
                            )
                            .clicked()
                            {
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
            worker.send(Request::Entry(id));
        }
    }

    fn detail(&self, ui: &mut egui::Ui) {
        let Some(entry) = &self.selected else {
            ui.centered_and_justified(|ui| ui.label("Select an entry to read it."));
            return;
        };
        ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            ui.heading(if entry.title.is_empty() {
                "(untitled)"
            } else {
                &entry.title
            });
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(display_time(&entry.created_at)).weak());
                if let Some(mood) = entry.mood_score {
                    ui.label(format!("mood {mood}/10"));
                }
                for tag in &entry.tags {
                    ui.label(RichText::new(format!("#{tag}")).italics());
                }
                ui.label(RichText::new(format!("{} words", entry.word_count)).weak());
            });
            if let Some(summary) = &entry.summary {
                ui.label(RichText::new(summary).italics());
            }
            ui.separator();
            ui.label(&entry.body);
        });
    }
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
                    ui.label(
                        RichText::new(
                            row.tags
                                .iter()
                                .map(|t| format!("#{t}"))
                                .collect::<Vec<_>>()
                                .join(" "),
                        )
                        .small(),
                    );
                }
            },
        )
        .response;
    let response = ui.interact(response.rect, ui.id().with(("row", row.id)), egui::Sense::click());
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

/// A stored UTC timestamp as the person's local date and time.
fn display_time(stored: &str) -> String {
    mindsage_core::clock::parse_utc(stored)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%a %e %b %Y, %H:%M")
                .to_string()
        })
        .unwrap_or_else(|| stored.to_owned())
}
