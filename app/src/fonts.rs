//! The page's reading face.
//!
//! Entries are read and written in Source Serif 4, regular and bold (Adobe, SIL Open
//! Font License; the licence is beside the files in `assets/fonts/`), a text face drawn
//! for long reading on screens: egui's own fonts are made for interfaces, small and
//! tight. It is embedded in the exe, so the page looks the same on every computer and
//! the installer carries no font files. The rest of the window keeps egui's interface
//! fonts.
//!
//! The reading families fall back to egui's proportional fonts (and their emoji) for
//! any character the face lacks.

use egui::{FontData, FontDefinitions, FontFamily, FontId};

/// The faces' bytes, regular and bold (Markdown's `**`; egui slants the regular face
/// for italics): the `size` stage of the bench reports them.
pub const READING_FACE: &[u8] = include_bytes!("../../assets/fonts/SourceSerif4-Regular.ttf");
pub const READING_BOLD_FACE: &[u8] = include_bytes!("../../assets/fonts/SourceSerif4-Bold.ttf");

/// The page's text.
pub fn reading(size: f32) -> FontId {
    FontId::new(size, FontFamily::Name(READING.into()))
}

/// The page's bold text and headings.
pub fn reading_bold(size: f32) -> FontId {
    FontId::new(size, FontFamily::Name(READING_BOLD.into()))
}

const READING: &str = "reading";
const READING_BOLD: &str = "reading-bold";

/// Adds the reading families to the window's fonts (once, at start).
pub fn install(ctx: &egui::Context) {
    let mut fonts = FontDefinitions::default();
    let fallbacks = fonts.families[&FontFamily::Proportional].clone();
    for (name, face) in [(READING, READING_FACE), (READING_BOLD, READING_BOLD_FACE)] {
        fonts
            .font_data
            .insert(name.to_owned(), FontData::from_static(face).into());
        let mut family = vec![name.to_owned()];
        family.extend(fallbacks.iter().cloned());
        fonts.families.insert(FontFamily::Name(name.into()), family);
    }
    ctx.set_fonts(fonts);
}
