//! `mindsage autostart`: starting with the system set from a terminal, as Settings →
//! Starting sets it; its `--off` is also part of the uninstaller's `unregister`.

use anyhow::{Context, Result};

use mindsage_core::settings::Settings;

use super::Args;
use crate::autostart;

/// Turns starting with the system on or off, or with neither says whether it is on.
/// `--off` takes away whatever the system holds, even when the settings say it is off
/// (the uninstaller runs it), and a damaged settings file does not stop it.
pub fn set(args: &Args, on: bool, off: bool) -> Result<()> {
    let data_dir = super::data_dir(args)?;
    let said = if on || off {
        let said = autostart::set(on, &data_dir).map_err(anyhow::Error::msg)?;
        match Settings::load(&data_dir) {
            Ok(mut settings) if settings.start_with_system != on => {
                settings.start_with_system = on;
                settings
                    .save(&data_dir)
                    .with_context(|| format!("saving the settings in {}", data_dir.display()))?;
            }
            Ok(_) => {}
            Err(error) if off => tracing::info!(%error, "the settings keep what they said"),
            Err(error) => {
                return Err(error)
                    .context("the setting is kept in the settings file, which must be fixed first");
            }
        }
        said
    } else {
        match autostart::current() {
            Some(command) => format!("{}: on ({command}).", autostart::LABEL),
            None => format!("{}: off.", autostart::LABEL),
        }
    };
    let current = autostart::current();
    super::print(
        args,
        &serde_json::json!({ "on": current.is_some(), "command": current }),
        || said,
    )
}
