//! The page's reading face.
//!
//! Entries are read and written in Source Serif 4, regular and bold (Adobe, SIL Open
//! Font License; the licence is beside the files in `assets/fonts/`), a text face drawn
//! for long reading on screens: egui's own fonts are made for interfaces, small and
//! tight. It is embedded in the exe, so the page looks the same on every computer and
//! the installer carries no font files. The rest of the window keeps egui's interface
//! fonts.
//!
//! The reading families fall back to egui's proportional fonts (and their emoji), and
//! every family then to this computer's own fonts for the scripts none of those has:
//! Chinese, Japanese, Korean, the Indic scripts, Arabic, Hebrew and others
//! ([`SystemFonts`]). Those are read once, on a thread of their own (a CJK font is tens
//! of megabytes), and added when they arrive; until then such text shows as boxes.
//!
//! egui draws each character on its own, left to right: it does not shape text. So
//! Chinese, Japanese and Korean (which need no shaping), and Hebrew letters, show
//! correctly; Devanagari and the other Indic scripts show their letters but not their
//! conjuncts, and a vowel sign that goes before its consonant shows after it; Arabic
//! shows its letters unjoined and in typed order, left to right. The README says so.

use std::path::PathBuf;
use std::sync::OnceLock;

use egui::{FontData, FontDefinitions, FontFamily, FontId};

/// The faces, regular and bold (Markdown's `**`; egui slants the regular face for
/// italics). The bench's `size` stage reports the files' bytes (`asset.fonts`).
const READING_FACE: &[u8] = include_bytes!("../../assets/fonts/SourceSerif4-Regular.ttf");
const READING_BOLD_FACE: &[u8] = include_bytes!("../../assets/fonts/SourceSerif4-Bold.ttf");

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

/// This computer's fonts for other scripts, once read: (a name, the font file's bytes).
/// Read once and kept for the whole process, so they are handed to egui as static
/// bytes: a font set installed again (the theme's, the fonts') copies none of them.
static SYSTEM: OnceLock<Vec<(String, &'static [u8])>> = OnceLock::new();

/// Where the window keeps the pass from which its latest font set is in use.
const FONTS_SINCE: &str = "mindsage-fonts-since";

/// Sets the window's fonts: egui's, the reading families, and this computer's fonts for
/// other scripts once they have been read.
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
    for (name, bytes) in SYSTEM.get().into_iter().flatten() {
        fonts
            .font_data
            .insert(name.clone(), FontData::from_static(bytes).into());
        for family in fonts.families.values_mut() {
            family.push(name.clone());
        }
    }
    ctx.set_fonts(fonts);
    // egui uses a new font set from the next pass on.
    let since = ctx.cumulative_pass_nr() + 1;
    ctx.data_mut(|d| d.insert_temp(egui::Id::new(FONTS_SINCE), since));
}

/// The pass from which the window's font set is the one in use: text laid out before it
/// was laid out in other fonts.
pub fn in_use_since(ctx: &egui::Context) -> u64 {
    ctx.data(|d| d.get_temp(egui::Id::new(FONTS_SINCE)).unwrap_or(0))
}

/// This computer's fonts for the scripts the window's own fonts lack, read on the
/// `mindsage-fonts` thread once per process and added to the window's fonts when read.
/// The window starts reading them once the journal is on screen: `fc-match` runs a
/// process per language, which must not compete with the first rows for the CPU.
#[derive(Default)]
pub struct SystemFonts {
    /// Whether the window's fonts hold them already.
    installed: bool,
}

impl SystemFonts {
    /// Starts reading them (once per process); the window redraws when they are read.
    pub fn read(ctx: &egui::Context) -> SystemFonts {
        static STARTED: std::sync::Once = std::sync::Once::new();
        STARTED.call_once(|| {
            let ctx = ctx.clone();
            let started = std::thread::Builder::new()
                .name("mindsage-fonts".into())
                .spawn(move || {
                    let _ = SYSTEM.set(read_system_fonts());
                    ctx.request_repaint();
                });
            if let Err(e) = started {
                tracing::warn!(error = %e, "could not start reading the system's fonts");
            }
        });
        SystemFonts::default()
    }

    /// Adds them to the window's fonts once they are read (each frame, until then).
    pub fn install_when_read(&mut self, ctx: &egui::Context) {
        if !self.installed && SYSTEM.get().is_some() {
            install(ctx);
            self.installed = true;
        }
    }
}

/// Font files for other scripts, each read once: the system's choice for each language
/// below, where it has one.
fn read_system_fonts() -> Vec<(String, &'static [u8])> {
    let mut seen = std::collections::BTreeSet::new();
    let mut fonts = Vec::new();
    for path in candidates() {
        if !seen.insert(path.clone()) {
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) => {
                let name = format!("system:{}", path.display());
                fonts.push((name, &*bytes.leak()));
            }
            Err(e) => tracing::debug!(path = %path.display(), error = %e, "font not read"),
        }
    }
    tracing::info!(
        fonts = fonts.len(),
        "the system's fonts for other scripts are read"
    );
    fonts
}

/// Languages whose scripts the embedded fonts lack, by the names fontconfig knows.
const LANGUAGES: [&str; 9] = ["zh-cn", "zh-tw", "ja", "ko", "hi", "bn", "ta", "ar", "he"];

/// Windows' own fonts for those scripts, first found of each group.
const WINDOWS_FONTS: [&[&str]; 6] = [
    &["msyh.ttc", "simsun.ttc"],
    &["msjh.ttc", "mingliub.ttc"],
    &["YuGothM.ttc", "meiryo.ttc", "msgothic.ttc"],
    &["malgun.ttf", "gulim.ttc"],
    &["Nirmala.ttf", "mangal.ttf"],
    &["segoeui.ttf", "arial.ttf"],
];

/// The font files to read: on Windows, its own in the fonts folder; elsewhere,
/// fontconfig's best font for each language (`fc-match`), when it says it covers it.
fn candidates() -> Vec<PathBuf> {
    if cfg!(windows) {
        let folder = std::env::var_os("WINDIR")
            .map_or_else(|| PathBuf::from(r"C:\Windows"), PathBuf::from)
            .join("Fonts");
        return WINDOWS_FONTS
            .iter()
            .filter_map(|group| {
                group
                    .iter()
                    .map(|file| folder.join(file))
                    .find(|path| path.is_file())
            })
            .collect();
    }
    LANGUAGES
        .iter()
        .filter_map(|language| {
            // `:lang=xx` matches only fonts that cover the language; fc-match then prints
            // the best of them (or, when none does, the default font, whose languages
            // `%{lang}` lists without it).
            let output = std::process::Command::new("fc-match")
                .args(["--format=%{file}\n%{lang}", &format!(":lang={language}")])
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&output.stdout);
            let (file, languages) = text.split_once('\n')?;
            let covers = languages.split('|').any(|l| l == *language);
            covers.then(|| PathBuf::from(file))
        })
        .collect()
}
