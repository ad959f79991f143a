//! The gallery: every photo as a thumbnail grid, newest first, or a random shuffle.
//!
//! Thumbnails are decoded on the reader thread; this view only uploads finished pixels
//! as textures, once per photo (the texture cache outlives reloads), and lays out only
//! the visible rows of the grid, fetching further pages as the person scrolls. Pages
//! scrolled far away are forgotten with their textures, and read again when they come
//! back into view, so a scroll through years of photos holds a few pages of them.

use std::collections::{HashMap, HashSet};

use egui::{RichText, TextureHandle};

use mindsage_core::db::EntryId;
use mindsage_core::db::entries::Cursor;

use super::paged::Paged;
use super::{Action, Screen, display_time};
use crate::protocol::{Request, Thumbnail};

/// Photos per page.
const PAGE: u32 = 60;
/// Photos in a shuffle.
const SHUFFLE: usize = 24;
/// Side of a grid cell, in points.
const CELL: f32 = 150.0;
/// Photos kept in memory above and below those on screen, in whole pages.
const KEPT_AROUND: usize = PAGE as usize;

/// A photo on screen: where it belongs and its texture.
struct Tile {
    media_id: i64,
    entry_id: EntryId,
    created_at: String,
    texture: TextureHandle,
}

#[derive(Default)]
pub struct GalleryView {
    tiles: Paged<Tile>,
    /// Uploaded textures by media id, so a reload or a shuffle re-uses them; only those
    /// of the photos in memory are kept.
    textures: HashMap<i64, TextureHandle>,
    shuffled: bool,
    /// Something was written since the photos were read.
    stale: bool,
    loaded_once: bool,
    /// The entry open in the journal, which new photos are added to.
    open_entry: Option<EntryId>,
}

impl Screen for GalleryView {
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if !self.loaded_once || self.stale {
            self.reload(self.shuffled, actions);
        }
        egui::CentralPanel::default().show_inside(ui, |ui| {
            self.toolbar_ui(ui, actions);
            ui.separator();
            self.grid_ui(ui, actions);
        });
    }
}

impl GalleryView {
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// The entry open in the journal (new photos go to it), or none.
    pub fn set_open_entry(&mut self, entry: Option<EntryId>) {
        self.open_entry = entry;
    }

    fn reload(&mut self, shuffle: bool, actions: &mut Vec<Action>) {
        self.shuffled = shuffle;
        self.stale = false;
        self.loaded_once = true;
        if shuffle {
            let generation = self.tiles.single_request();
            actions.push(Action::Send(Request::GalleryShuffle {
                generation,
                count: SHUFFLE,
            }));
        } else {
            self.tiles.restart();
            self.more(actions);
        }
    }

    fn more(&mut self, actions: &mut Vec<Action>) {
        if let Some((generation, after)) = self.tiles.next_request() {
            actions.push(Action::Send(Request::GalleryPage {
                generation,
                after,
                limit: PAGE,
            }));
        }
    }

    /// Thumbnails arrived: uploads the new ones as textures.
    pub fn on_thumbnails(
        &mut self,
        ctx: &egui::Context,
        generation: u64,
        thumbnails: Vec<Thumbnail>,
        next: Option<Cursor>,
    ) {
        let textures = &mut self.textures;
        let tiles = thumbnails.into_iter().map(|thumbnail| {
            let Thumbnail {
                media_id,
                entry_id,
                created_at,
                image,
                ..
            } = thumbnail;
            let texture = textures
                .entry(media_id)
                .or_insert_with(|| {
                    ctx.load_texture(format!("photo-{media_id}"), image, egui::TextureOptions::LINEAR)
                })
                .clone();
            Tile {
                media_id,
                entry_id,
                created_at,
                texture,
            }
        });
        let tiles: Vec<Tile> = tiles.collect();
        self.tiles.on_page(generation, tiles, next);
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let entry = self.open_entry;
        ui.horizontal(|ui| {
            if ui.selectable_label(!self.shuffled, "Newest first").clicked() {
                self.reload(false, actions);
            }
            if ui
                .button("Shuffle")
                .on_hover_text("A random handful of photos")
                .clicked()
            {
                self.reload(true, actions);
            }
            ui.separator();
            let add = ui.add_enabled(entry.is_some(), egui::Button::new("Add photos…"));
            let add =
                add.on_disabled_hover_text("Open an entry in the journal first; photos belong to an entry.");
            if let Some(entry) = entry
                && add.on_hover_text("Or drop photo files on the window").clicked()
            {
                actions.push(Action::PickPhotos(entry));
            }
        });
    }

    fn grid_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let tiles = &self.tiles;
        if tiles.is_empty() {
            ui.label(if self.tiles.loading() {
                "Loading photos…"
            } else {
                "No photos yet. Open an entry and add photos to it, or drop them on the window."
            });
            return;
        }
        let spacing = ui.spacing().item_spacing.x;
        let columns = ((ui.available_width() + spacing) / (CELL + spacing))
            .floor()
            .max(1.0) as usize;
        let rows = tiles.len().div_ceil(columns);
        let mut shown = 0..0;
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show_rows(ui, CELL + 22.0, rows, |ui, range| {
                shown = range.clone();
                for row in range {
                    ui.horizontal(|ui| {
                        let cells = row * columns..((row + 1) * columns).min(tiles.len());
                        for tile in cells.filter_map(|cell| tiles.get(cell)) {
                            if photo(ui, tile).clicked() {
                                actions.push(Action::OpenEntry(tile.entry_id));
                            }
                        }
                    });
                }
            });
        let cells = shown.start * columns..(shown.end * columns).min(self.tiles.len());
        self.forget_far_from(cells.clone());
        if let Some((generation, after, limit)) = self.tiles.refill_request(cells) {
            actions.push(Action::Send(Request::GalleryPage {
                generation,
                after,
                limit,
            }));
        } else if shown.end + 2 >= rows {
            self.more(actions);
        }
    }

    /// Forgets the pages of photos far from `cells` (those on screen), and the textures
    /// of photos no longer in memory.
    fn forget_far_from(&mut self, cells: std::ops::Range<usize>) {
        let keep = cells.start.saturating_sub(KEPT_AROUND)..cells.end + KEPT_AROUND;
        self.tiles.forget_outside(keep);
        let loaded: HashSet<i64> = self.tiles.loaded().map(|(_, tile)| tile.media_id).collect();
        self.textures.retain(|media_id, _| loaded.contains(media_id));
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
