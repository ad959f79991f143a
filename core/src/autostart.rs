//! Starting with the system (Settings → "Start with Windows"): off until the person
//! turns it on, and then MindSage opens minimised to the taskbar when they log in.
//!
//! Windows runs what the per-user Run key lists at log-in (and lists it in Task
//! Manager's Startup tab, where the person can also turn it off); Linux desktops run
//! the `.desktop` files in `$XDG_CONFIG_HOME/autostart`. This module is the text of both,
//! so it can be tested anywhere; `app/src/autostart.rs` hands it to the system, and the
//! uninstaller's `mindsage unregister` takes it away.

use std::path::{Path, PathBuf};

/// The per-user key Windows reads at log-in (under `HKEY_CURRENT_USER`).
pub const WINDOWS_RUN_KEY: &str = r"Software\Microsoft\Windows\CurrentVersion\Run";

/// MindSage's value under [`WINDOWS_RUN_KEY`], the name Task Manager shows.
pub const WINDOWS_RUN_VALUE: &str = "MindSage";

/// The option the command is given: the window opens minimised, not in the person's way.
pub const MINIMIZED: &str = "--minimized";

/// Where the desktop's autostart files go: `$XDG_CONFIG_HOME/autostart/mindsage.desktop`.
pub fn desktop_file() -> Option<PathBuf> {
    Some(
        directories::BaseDirs::new()?
            .config_dir()
            .join("autostart")
            .join("mindsage.desktop"),
    )
}

/// The Run value: `exe` on the journal in `data_dir`, minimised, quoted as Windows
/// splits a command line (a run of backslashes before a quote is doubled, so a folder
/// ending in `\` keeps its closing quote).
pub fn windows_command(exe: &Path, data_dir: &Path) -> String {
    format!(
        "{} {MINIMIZED} --data-dir {}",
        windows_quoted(&exe.to_string_lossy()),
        windows_quoted(&data_dir.to_string_lossy())
    )
}

/// The autostart `.desktop` file for `exe` on the journal in `data_dir`, minimised.
pub fn desktop_entry(exe: &Path, data_dir: &Path) -> String {
    format!(
        "[Desktop Entry]\nType=Application\nName=MindSage\nComment=Your journal, opened minimised at log-in\nExec={} {MINIMIZED} --data-dir {}\nTerminal=false\nX-GNOME-Autostart-enabled=true\n",
        desktop_quoted(&exe.to_string_lossy()),
        desktop_quoted(&data_dir.to_string_lossy())
    )
}

/// `arg` in double quotes, as Windows splits a command line back into arguments.
pub(crate) fn windows_quoted(arg: &str) -> String {
    let mut out = String::from("\"");
    let mut backslashes = 0;
    for c in arg.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.push_str(&"\\".repeat(backslashes * 2 + 1));
                backslashes = 0;
            }
            _ => {
                out.push_str(&"\\".repeat(backslashes));
                backslashes = 0;
            }
        }
        if c != '\\' {
            out.push(c);
        }
    }
    out.push_str(&"\\".repeat(backslashes * 2));
    out.push('"');
    out
}

/// An `Exec` argument as the Desktop Entry Specification quotes it: in double quotes,
/// with `"`, `` ` ``, `$` and `\` escaped, and `%` doubled (field codes).
fn desktop_quoted(arg: &str) -> String {
    let mut out = String::from("\"");
    for c in arg.chars() {
        match c {
            '"' | '`' | '$' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '%' => out.push_str("%%"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_value_opens_the_journal_minimised_with_windows_quoting() {
        let command = windows_command(
            Path::new(r"C:\Users\Ana Lu\AppData\Local\Programs\MindSage\mindsage.exe"),
            Path::new(r"D:\Journal\"),
        );
        assert_eq!(
            command,
            r#""C:\Users\Ana Lu\AppData\Local\Programs\MindSage\mindsage.exe" --minimized --data-dir "D:\Journal\\""#
        );
        assert_eq!(windows_quoted(r#"a\"b"#), r#""a\\\"b""#);
    }

    #[test]
    fn the_desktop_file_quotes_what_its_exec_line_would_expand() {
        let entry = desktop_entry(
            Path::new("/opt/Mind Sage/mindsage"),
            Path::new("/home/ana/100% $HOME \"notes\""),
        );
        assert!(
            entry.starts_with("[Desktop Entry]\nType=Application\n"),
            "{entry}"
        );
        assert!(
            entry.contains(
                r#"Exec="/opt/Mind Sage/mindsage" --minimized --data-dir "/home/ana/100%% \$HOME \"notes\"""#
            ),
            "{entry}"
        );
    }
}
