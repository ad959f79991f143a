//! Windows' accent colour as MindSage's: the selected tab, the day's marks in the
//! calendar and the year, links, whatever draws with the selection colour.
//!
//! Windows keeps the colour the person picked (Settings → Personalisation → Colours) in
//! the current user's `DWM\AccentColor`. It is read when the window starts and each time
//! it comes back to the front, which is when a person who changed it looks again: no
//! polling, and a registry read of the person's own hive, not a file or the network.
//! *Settings → Appearance → Accent colour from Windows* (on by default) turns it off;
//! light or dark follows Windows through egui's own `ThemePreference::System`.
//! Elsewhere there is no such setting to read, and MindSage's own colour stays.

use egui::{Color32, Theme, Visuals};

/// Follows the system's accent colour while `enabled`.
#[derive(Default)]
pub struct Follower {
    pub enabled: bool,
    /// Whether the window had the focus last frame (`None` before the first).
    focused: Option<bool>,
    /// The colour applied, `None` for MindSage's own.
    applied: Option<Color32>,
}

impl Follower {
    pub fn new(enabled: bool) -> Follower {
        Follower {
            enabled,
            ..Follower::default()
        }
    }

    /// Reads the accent at the first frame and when the window gets the focus back
    /// (or the setting changed), and applies it if it changed.
    pub fn follow(&mut self, ctx: &egui::Context) {
        let focused = ctx.input(|i| i.viewport().focused.unwrap_or(true));
        let returned = focused && self.focused != Some(true);
        self.focused = Some(focused);
        if !returned {
            return;
        }
        let accent = self.enabled.then(system_accent).flatten();
        if accent != self.applied {
            if let Some(colour) = accent {
                tracing::debug!("the accent colour follows the system's: {}", colour.to_hex());
            }
            apply(ctx, accent);
            self.applied = accent;
        }
    }

    /// The setting changed: read again at the next frame.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        self.focused = None;
    }
}

/// Draws with `accent` (or egui's own colours for `None`) in both light and dark.
pub fn apply(ctx: &egui::Context, accent: Option<Color32>) {
    for theme in [Theme::Dark, Theme::Light] {
        ctx.style_mut_of(theme, |style| {
            let own = match theme {
                Theme::Dark => Visuals::dark(),
                Theme::Light => Visuals::light(),
            };
            style.visuals.selection.bg_fill = accent.map_or(own.selection.bg_fill, |c| readable(c, theme));
            style.visuals.hyperlink_color = accent.map_or(own.hyperlink_color, |c| link(c, theme));
        });
    }
}

/// The accent as a selection behind text: Windows' accents are chosen to sit behind
/// white text, so in dark mode it is used as it is, and in light mode lightened towards
/// white enough for dark text to stay readable on it.
fn readable(accent: Color32, theme: Theme) -> Color32 {
    match theme {
        Theme::Dark => accent,
        Theme::Light => lerp(accent, Color32::WHITE, 0.55),
    }
}

/// The accent as link text: lightened on dark backgrounds, darkened on light ones.
fn link(accent: Color32, theme: Theme) -> Color32 {
    match theme {
        Theme::Dark => lerp(accent, Color32::WHITE, 0.45),
        Theme::Light => lerp(accent, Color32::BLACK, 0.25),
    }
}

fn lerp(from: Color32, to: Color32, t: f32) -> Color32 {
    let mix = |a: u8, b: u8| (a as f32 + (b as f32 - a as f32) * t).round() as u8;
    Color32::from_rgb(
        mix(from.r(), to.r()),
        mix(from.g(), to.g()),
        mix(from.b(), to.b()),
    )
}

/// Windows' `AccentColor` value, `0xAABBGGRR`, as a colour (its alpha is always opaque
/// in practice and is not used).
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "read from Windows' registry; tested everywhere")
)]
pub fn from_dword(value: u32) -> Color32 {
    let [r, g, b, _] = value.to_le_bytes();
    Color32::from_rgb(r, g, b)
}

#[cfg(windows)]
fn system_accent() -> Option<Color32> {
    use windows_sys::Win32::Foundation::ERROR_SUCCESS;
    use windows_sys::Win32::System::Registry::{HKEY_CURRENT_USER, RRF_RT_REG_DWORD, RegGetValueW};
    let wide = |text: &str| text.encode_utf16().chain(Some(0)).collect::<Vec<u16>>();
    let (key, value) = (wide(r"Software\Microsoft\Windows\DWM"), wide("AccentColor"));
    let mut data = 0u32;
    let mut bytes = size_of::<u32>() as u32;
    // SAFETY: NUL-terminated UTF-16 names, and a DWORD-sized buffer whose size is given.
    let status = unsafe {
        RegGetValueW(
            HKEY_CURRENT_USER,
            key.as_ptr(),
            value.as_ptr(),
            RRF_RT_REG_DWORD,
            std::ptr::null_mut(),
            (&raw mut data).cast(),
            &mut bytes,
        )
    };
    (status == ERROR_SUCCESS).then(|| from_dword(data))
}

#[cfg(not(windows))]
fn system_accent() -> Option<Color32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_accent_dwords_are_red_first() {
        // Windows' default blue, as Settings stores it.
        assert_eq!(from_dword(0xffd7_7800), Color32::from_rgb(0x00, 0x78, 0xd7));
    }

    #[test]
    fn the_accent_becomes_the_selection_and_links_and_goes_back_when_off() {
        let ctx = egui::Context::default();
        let accent = Color32::from_rgb(0x00, 0x78, 0xd7);
        apply(&ctx, Some(accent));
        let dark = ctx.style_of(Theme::Dark).visuals.clone();
        assert_eq!(dark.selection.bg_fill, accent);
        assert_ne!(dark.hyperlink_color, Visuals::dark().hyperlink_color);
        let light = ctx.style_of(Theme::Light).visuals.clone();
        assert_ne!(light.selection.bg_fill, Visuals::light().selection.bg_fill);
        // Dark text stays readable on the light theme's selection.
        let luminance = |c: Color32| 0.2126 * c.r() as f32 + 0.7152 * c.g() as f32 + 0.0722 * c.b() as f32;
        assert!(
            luminance(light.selection.bg_fill) > 140.0,
            "{:?}",
            light.selection.bg_fill
        );
        apply(&ctx, None);
        assert_eq!(
            ctx.style_of(Theme::Dark).visuals.selection,
            Visuals::dark().selection
        );
        assert_eq!(
            ctx.style_of(Theme::Light).visuals.hyperlink_color,
            Visuals::light().hyperlink_color
        );
    }
}
