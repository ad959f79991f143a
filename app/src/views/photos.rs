//! An entry's photos on its page: a strip of thumbnails under the text, in the order
//! they were added, with *Add photos…*; a click shows one large over the window, where
//! the arrow keys go to the next and the one before, and Esc or a click outside closes
//! it. Thumbnails and large photos are decoded off the UI thread (the reader, and a
//! thread of its own for a large one); this view only uploads their pixels.
//!
//! egui's text field lays out text alone, so a photo cannot stand inside the text where
//! a Markdown image names it: the strip holds them all, and the `![…](…)` line stays in
//! the text, dimmed like every Markdown mark.

use egui::{RichText, TextureHandle};

use mindsage_core::db::EntryId;

use super::Action;
use crate::protocol::{LargePhoto, Request, Thumbnail};

/// Height of a thumbnail in the strip, in points.
const STRIP_HEIGHT: f32 = 96.0;

/// A photo in the strip: its media id and its thumbnail's texture.
type Tile = (i64, TextureHandle);

/// The page's photos: whose they are, and them once read.
#[derive(Default)]
pub struct PagePhotos {
    /// The entry shown, and its photos once read.
    entry: Option<(EntryId, Option<Vec<Tile>>)>,
    /// The photo shown large, if one is.
    large: Option<Large>,
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
        let uploaded = thumbnails.into_iter().map(|t| {
            let texture = ctx.load_texture(
                format!("page-photo-{}", t.media_id),
                t.image,
                egui::TextureOptions::LINEAR,
            );
            (t.media_id, texture)
        });
        *photos = Some(uploaded.collect());
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

    /// The strip under the text, and the photo shown large over the window.
    pub fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        let Some((entry, photos)) = &self.entry else {
            return;
        };
        let (entry, photos) = (*entry, photos.as_deref().unwrap_or_default());
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
        });
        if !photos.is_empty() {
            egui::ScrollArea::horizontal()
                .id_salt("page_photos")
                .max_height(STRIP_HEIGHT + 8.0)
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        for (n, (media_id, texture)) in photos.iter().enumerate() {
                            let image = egui::Image::new(texture).max_height(STRIP_HEIGHT);
                            let shown = ui
                                .add(egui::Button::image(image).frame(false))
                                .on_hover_text("Show it large");
                            name_photo(ui, &shown, n + 1, photos.len());
                            if shown.clicked() {
                                open = Some(*media_id);
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
        let ids: Vec<i64> = match &self.entry {
            Some((_, Some(photos))) => photos.iter().map(|(id, _)| *id).collect(),
            _ => Vec::new(),
        };
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

/// Names a photo for screen readers (and the tests): which of how many it is.
fn name_photo(ui: &egui::Ui, response: &egui::Response, n: usize, of: usize) {
    ui.ctx()
        .accesskit_node_builder(response.id, |node| node.set_label(format!("Photo {n} of {of}")));
}
