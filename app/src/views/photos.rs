//! An entry's photos on its page. A photo a Markdown image in the text names
//! (`![](bay.jpg)`, as a photo dropped or pasted into the page is written) shows there,
//! under the image's line; the others are a strip of thumbnails under the text, in the
//! order they were added, with *Add photos…*. A click shows one large over the window,
//! where the arrow keys go to the next and the one before, and Esc or a click outside
//! closes it. Thumbnails and large photos are decoded off the UI thread (the reader,
//! and a thread of its own for a large one); this view only uploads their pixels.
//!
//! egui's text field lays out text alone: the page's layout makes the row of an image's
//! closing parenthesis as tall as the photo ([`super::markdown`]), and the photo is
//! painted into that room after the field is drawn.

use egui::{RichText, TextureHandle};

use mindsage_core::db::EntryId;
use mindsage_core::media::links;

use super::Action;
use super::markdown::PHOTO_GAP;
use crate::protocol::{LargePhoto, Request, Thumbnail};

/// Height of a thumbnail in the strip, in points.
const STRIP_HEIGHT: f32 = 96.0;

/// Tallest a photo in the text is shown, in points (no taller than its thumbnail's
/// pixels, so it stays sharp); narrower columns show it smaller.
const IN_TEXT_HEIGHT: f32 = 240.0;

/// A photo of the page: its media id, its name in the text, its thumbnail's texture.
struct Tile {
    media_id: i64,
    name: Option<String>,
    texture: TextureHandle,
}

/// The page's photos: whose they are, and them once read.
#[derive(Default)]
pub struct PagePhotos {
    /// The entry shown, and its photos once read.
    entry: Option<(EntryId, Option<Vec<Tile>>)>,
    /// The photo shown large, if one is.
    large: Option<Large>,
    /// Changes whenever the photos do: the page's layout makes room for them.
    generation: u64,
}

/// A photo shown large, while it is decoded and once it is.
struct Large {
    media_id: i64,
    shown: Result<Option<TextureHandle>, String>,
}

impl PagePhotos {
    /// Shows `entry`'s photos, reading them when it is another entry than the one shown.
    pub fn show_for(&mut self, entry: EntryId, actions: &mut Vec<Action>) {
        if self.entry.as_ref().is_none_or(|(shown, _)| *shown != entry) {
            self.entry = Some((entry, None));
            self.large = None;
            self.generation += 1;
            actions.push(Action::Send(Request::Photos(entry)));
        }
    }

    /// Whether a photo is shown large.
    pub fn showing(&self) -> bool {
        self.large.is_some()
    }

    /// A new page: no photos yet.
    pub fn clear(&mut self) {
        self.entry = None;
        self.large = None;
        self.generation += 1;
    }

    /// Changes whenever the photos do.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The photos the text can place, by name, with the height each is shown at in a
    /// column `width` wide.
    pub fn heights(&self, width: f32) -> Vec<(String, f32)> {
        self.tiles()
            .iter()
            .filter_map(|tile| Some((tile.name.clone()?, in_text_size(&tile.texture, width).y)))
            .collect()
    }

    /// Whether a photo of the page has `name` already.
    pub fn has_name(&self, name: &str) -> bool {
        self.tiles().iter().any(|tile| tile.name.as_deref() == Some(name))
    }

    fn tiles(&self) -> &[Tile] {
        match &self.entry {
            Some((_, Some(tiles))) => tiles,
            _ => &[],
        }
    }

    /// Photos were added to `entry`: read again if it is the one shown.
    pub fn on_added(&mut self, entry: EntryId, actions: &mut Vec<Action>) {
        if self.entry.as_ref().is_some_and(|(shown, _)| *shown == entry) {
            actions.push(Action::Send(Request::Photos(entry)));
        }
    }

    /// An entry's thumbnails arrived: uploaded if that entry is still shown.
    pub fn on_photos(&mut self, ctx: &egui::Context, entry: EntryId, thumbnails: Vec<Thumbnail>) {
        let Some((_, photos)) = self.entry.as_mut().filter(|(shown, _)| *shown == entry) else {
            return;
        };
        let uploaded = thumbnails.into_iter().map(|t| Tile {
            media_id: t.media_id,
            name: t.name,
            texture: ctx.load_texture(
                format!("page-photo-{}", t.media_id),
                t.image,
                egui::TextureOptions::LINEAR,
            ),
        });
        *photos = Some(uploaded.collect());
        self.generation += 1;
    }

    /// A large photo arrived: shown if it is still the one asked for.
    pub fn on_photo(&mut self, ctx: &egui::Context, media_id: i64, image: Result<LargePhoto, String>) {
        if let Some(large) = self.large.as_mut().filter(|l| l.media_id == media_id) {
            large.shown = image.map(|LargePhoto(image)| {
                Some(ctx.load_texture(
                    format!("large-photo-{media_id}"),
                    image,
                    egui::TextureOptions::LINEAR,
                ))
            });
        }
    }

    /// The photos `body` places, painted into the room its layout made under their
    /// images' lines (`field`: the text field as shown); a click shows one large.
    /// Returns the places in the list of the photos placed, for [`Self::ui`]'s strip.
    pub fn in_text_ui(
        &mut self,
        ui: &egui::Ui,
        body: &str,
        field: &egui::text_edit::TextEditOutput,
        actions: &mut Vec<Action>,
    ) -> Vec<usize> {
        let tiles = self.tiles();
        let mut placed = Vec::new();
        // The text is read for images only when a photo has a name to be placed by: a
        // long entry is not scanned every frame for nothing.
        if !tiles.iter().any(|tile| tile.name.is_some()) || !body.contains("![") {
            return placed;
        }
        let galley = &field.galley;
        let width = galley.job.wrap.max_width;
        let mut open = None;
        // Characters before the byte `counted`, counted once along the text.
        let (mut chars, mut counted) = (0, 0);
        // Where the next photo goes in each row holding photos: its top, and x.
        let mut rows: Vec<(f32, f32)> = Vec::new();
        for link in links::image_links(body) {
            let Some((n, tile)) = tiles
                .iter()
                .enumerate()
                .find(|(_, tile)| tile.name.as_deref() == Some(link.target))
            else {
                continue;
            };
            placed.push(n);
            let closing = link.range.end - 1;
            chars += body[counted..closing].chars().count();
            counted = closing;
            let row = galley.pos_from_cursor(egui::text::CCursor::new(chars));
            let size = in_text_size(&tile.texture, width);
            let x = match rows.iter_mut().find(|(top, _)| *top == row.min.y) {
                Some((_, x)) => x,
                None => {
                    rows.push((row.min.y, 0.0));
                    &mut rows.last_mut().expect("just pushed").1
                }
            };
            let at = field.galley_pos + egui::vec2(*x, row.max.y - PHOTO_GAP - size.y);
            *x += size.x + PHOTO_GAP;
            let rect = egui::Rect::from_min_size(at, size);
            if !ui.is_rect_visible(rect) {
                continue;
            }
            egui::Image::new(&tile.texture).paint_at(ui, rect);
            let shown = ui
                .interact(
                    rect,
                    ui.id().with(("in_text_photo", link.range.start)),
                    egui::Sense::click(),
                )
                .on_hover_cursor(egui::CursorIcon::PointingHand)
                .on_hover_text("Show it large");
            name_photo(ui, &shown, n + 1, tiles.len());
            ui.ctx().accesskit_node_builder(shown.id, |node| {
                node.set_role(egui::accesskit::Role::Button);
            });
            if shown.clicked() {
                open = Some(tile.media_id);
            }
        }
        if let Some(media_id) = open {
            self.open(media_id, actions);
        }
        placed
    }

    /// The strip under the text (the photos not `placed` in it, as
    /// [`Self::in_text_ui`] returned them), and the photo shown large over the window.
    pub fn ui(&mut self, ui: &mut egui::Ui, placed: &[usize], actions: &mut Vec<Action>) {
        let Some((entry, photos)) = &self.entry else {
            return;
        };
        let (entry, all) = (*entry, photos.as_deref().unwrap_or_default());
        let photos: Vec<(usize, &Tile)> = all
            .iter()
            .enumerate()
            .filter(|(n, _)| !placed.contains(n))
            .collect();
        let mut open = None;
        ui.add_space(8.0);
        ui.horizontal(|ui| {
            if !photos.is_empty() {
                ui.label(RichText::new(format!("Photos ({})", photos.len())).weak().small());
            }
            if ui
                .small_button("Add photos…")
                .on_hover_text("Or drop photo files on the page")
                .clicked()
            {
                actions.push(Action::PickPhotos(entry));
            }
            if ui
                .small_button("Paste photo")
                .on_hover_text("The clipboard's image, where the cursor is in the text")
                .clicked()
            {
                actions.push(Action::Send(Request::ClipboardPhoto));
            }
        });
        if !photos.is_empty() {
            egui::ScrollArea::horizontal()
                .id_salt("page_photos")
                .max_height(STRIP_HEIGHT + 8.0)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        for (n, tile) in &photos {
                            let image = egui::Image::new(&tile.texture).max_height(STRIP_HEIGHT);
                            let shown = ui
                                .add(egui::Button::image(image).frame(false))
                                .on_hover_text("Show it large");
                            name_photo(ui, &shown, n + 1, all.len());
                            if shown.clicked() {
                                open = Some(tile.media_id);
                            }
                        }
                    });
                });
        }
        if let Some(media_id) = open {
            self.open(media_id, actions);
        }
        self.large_ui(ui.ctx(), actions);
    }

    fn open(&mut self, media_id: i64, actions: &mut Vec<Action>) {
        self.large = Some(Large {
            media_id,
            shown: Ok(None),
        });
        actions.push(Action::Send(Request::Photo(media_id)));
    }

    /// The photo shown large, fitted to the window; the arrows go along the strip.
    fn large_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(large) = &self.large else {
            return;
        };
        let ids: Vec<i64> = self.tiles().iter().map(|tile| tile.media_id).collect();
        let at = ids.iter().position(|id| *id == large.media_id);
        let fit = ctx.content_rect().size() * 0.85;
        let modal = egui::Modal::new(egui::Id::new("large_photo")).show(ctx, |ui| {
            match &large.shown {
                Ok(Some(texture)) => {
                    let image = egui::Image::new(texture)
                        .max_size(fit)
                        .maintain_aspect_ratio(true);
                    let shown = ui.add(image);
                    if let Some(at) = at {
                        name_photo(ui, &shown, at + 1, ids.len());
                    }
                }
                Ok(None) => {
                    ui.spinner();
                }
                Err(why) => {
                    ui.label(why);
                }
            }
            ui.horizontal(|ui| {
                ui.label(RichText::new("← → for the others, Esc to close").weak().small());
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.button("Close").clicked()
                })
                .inner
            })
            .inner
        });
        let step = ctx.input(|i| {
            i64::from(i.key_pressed(egui::Key::ArrowRight)) - i64::from(i.key_pressed(egui::Key::ArrowLeft))
        });
        if modal.inner || modal.should_close() {
            self.large = None;
        } else if let Some(next) = at
            .and_then(|at| at.checked_add_signed(step as isize))
            .filter(|_| step != 0)
            .and_then(|next| ids.get(next))
        {
            self.open(*next, actions);
        }
    }
}

/// A photo's size in the text: its thumbnail's shape, at most [`IN_TEXT_HEIGHT`] tall
/// (and its pixels), at most `width` wide.
fn in_text_size(texture: &TextureHandle, width: f32) -> egui::Vec2 {
    let pixels = texture.size_vec2();
    let aspect = pixels.x.max(1.0) / pixels.y.max(1.0);
    let height = IN_TEXT_HEIGHT.min(pixels.y);
    if height * aspect > width {
        egui::vec2(width, width / aspect)
    } else {
        egui::vec2(height * aspect, height)
    }
}

/// Names a photo for screen readers (and the tests): which of how many it is.
fn name_photo(ui: &egui::Ui, response: &egui::Response, n: usize, of: usize) {
    ui.ctx()
        .accesskit_node_builder(response.id, |node| node.set_label(format!("Photo {n} of {of}")));
}
