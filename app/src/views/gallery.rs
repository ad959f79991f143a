//! The gallery: every photo as a thumbnail grid, newest first, or a random shuffle.
//!
//! Thumbnails are decoded on the reader thread; this view only uploads finished pixels
//! as textures, once per photo (the texture cache outlives reloads), and lays out only
//! the visible rows of the grid, fetching further pages as the person scrolls.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};

use egui::{RichText, TextureHandle};

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::Cursor;

use super::display_time;
use crate::worker::{Request, Response, Thumbnail, Worker};

/// Photos per page.
const PAGE: u32 = 60;
/// Photos in a shuffle.
const SHUFFLE: usize = 24;
/// Side of a grid cell, in points.
const CELL: f32 = 150.0;

/// A photo on screen: where it belongs and its texture.
struct Tile {
    entry_id: EntryId,
    created_at: String,
    texture: TextureHandle,
}

#[derive(Default)]
pub struct GalleryView {
    tiles: Vec<Tile>,
    /// Uploaded textures by media id, so a reload or a shuffle re-uses them.
    textures: HashMap<i64, TextureHandle>,
    next: Option<Cursor>,
    exhausted: bool,
    generation: u64,
    loading: bool,
    shuffled: bool,
    stale: bool,
    loaded_once: bool,
    /// Files chosen in the system's file dialog, arriving from its thread.
    picked: Option<Receiver<(EntryId, Vec<PathBuf>)>>,
}

impl GalleryView {
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    fn reload(&mut self, worker: &Worker, shuffle: bool) {
        self.generation += 1;
        self.tiles.clear();
        self.next = None;
        self.exhausted = shuffle;
        self.shuffled = shuffle;
        self.loading = true;
        self.stale = false;
        self.loaded_once = true;
        worker.send(if shuffle {
            Request::GalleryShuffle {
                generation: self.generation,
                count: SHUFFLE,
            }
        } else {
            Request::GalleryPage {
                generation: self.generation,
                after: None,
                limit: PAGE,
            }
        });
    }

    fn more(&mut self, worker: &Worker) {
        if self.loading || self.exhausted {
            return;
        }
        self.loading = true;
        worker.send(Request::GalleryPage {
            generation: self.generation,
            after: self.next.clone(),
            limit: PAGE,
        });
    }

    pub fn on_response(&mut self, ctx: &egui::Context, response: Response) {
        if let Response::Thumbnails {
            generation,
            thumbnails,
            next,
        } = response
            && generation == self.generation
        {
            self.loading = false;
            self.exhausted = self.shuffled || next.is_none();
            self.next = next;
            for thumbnail in thumbnails {
                let tile = self.tile(ctx, thumbnail);
                self.tiles.push(tile);
            }
        }
    }

    fn tile(&mut self, ctx: &egui::Context, thumbnail: Thumbnail) -> Tile {
        let Thumbnail {
            media_id,
            entry_id,
            created_at,
            image,
        } = thumbnail;
        let texture = self
            .textures
            .entry(media_id)
            .or_insert_with(|| {
                ctx.load_texture(format!("photo-{media_id}"), image, egui::TextureOptions::LINEAR)
            })
            .clone();
        Tile {
            entry_id,
            created_at,
            texture,
        }
    }

    /// Opens the system's file dialog on its own thread (it blocks until the person
    /// chooses) and attaches what was chosen to `entry` when it answers.
    fn pick_files(&mut self, ctx: &egui::Context, entry: EntryId) {
        let (send, receive) = mpsc::channel();
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let files = rfd::FileDialog::new()
                .set_title("Add photos to the entry")
                .add_filter("Photos", &["png", "jpg", "jpeg"])
                .pick_files();
            if let Some(files) = files {
                let _ = send.send((entry, files));
            }
            ctx.request_repaint();
        });
        self.picked = Some(receive);
    }

    /// Draws the gallery; `entry` is the entry open in the journal, which new photos
    /// are added to. Returns the entry of a clicked photo.
    pub fn show(&mut self, ctx: &egui::Context, worker: &Worker, entry: Option<EntryId>) -> Option<EntryId> {
        if !self.loaded_once || self.stale {
            self.reload(worker, self.shuffled);
        }
        if let Some((entry, paths)) = self.picked.as_ref().and_then(|r| r.try_recv().ok()) {
            worker.send(Request::AttachPhotos { entry, paths });
            self.picked = None;
        }
        egui::CentralPanel::default()
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    if ui.selectable_label(!self.shuffled, "Newest first").clicked() {
                        self.reload(worker, false);
                    }
                    if ui
                        .button("Shuffle")
                        .on_hover_text("A random handful of photos")
                        .clicked()
                    {
                        self.reload(worker, true);
                    }
                    ui.separator();
                    let add = ui.add_enabled(entry.is_some(), egui::Button::new("Add photos…"));
                    let add = add.on_disabled_hover_text(
                        "Open an entry in the journal first; photos belong to an entry.",
                    );
                    if let Some(entry) = entry
                        && add.on_hover_text("Or drop photo files on the window").clicked()
                    {
                        self.pick_files(ctx, entry);
                    }
                });
                ui.separator();
                self.grid(ui, worker)
            })
            .inner
    }

    fn grid(&mut self, ui: &mut egui::Ui, worker: &Worker) -> Option<EntryId> {
        if self.tiles.is_empty() {
            ui.label(if self.loading {
                "Loading photos…"
            } else {
                "No photos yet. Open an entry and add photos to it, or drop them on the window."
            });
            return None;
        }
        let spacing = ui.spacing().item_spacing.x;
        let columns = ((ui.available_width() + spacing) / (CELL + spacing))
            .floor()
            .max(1.0) as usize;
        let rows = self.tiles.len().div_ceil(columns);
        let mut clicked = None;
        let mut last_row = 0;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_rows(ui, CELL + 22.0, rows, |ui, range| {
                last_row = range.end;
                for row in range {
                    ui.horizontal(|ui| {
                        for tile in self.tiles.iter().skip(row * columns).take(columns) {
                            if photo(ui, tile).clicked() {
                                clicked = Some(tile.entry_id);
                            }
                        }
                    });
                }
            });
        if last_row + 2 >= rows {
            self.more(worker);
        }
        clicked
    }
}

fn photo(ui: &mut egui::Ui, tile: &Tile) -> egui::Response {
    let when = display_time(&tile.created_at);
    ui.vertical(|ui| {
        ui.set_width(CELL);
        let image = egui::Image::new(&tile.texture)
            .fit_to_exact_size(egui::vec2(CELL, CELL))
            .maintain_aspect_ratio(true)
            .corner_radius(4.0);
        let response = ui
            .add(egui::Button::image(image).frame(false))
            .on_hover_text("Open the entry");
        let name = format!("Photo added {when}");
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &name));
        ui.label(RichText::new(when).weak().small());
        response
    })
    .inner
}
