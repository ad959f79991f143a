//! The command line: global options and the headless subcommands, one file per group
//! of commands (`entries`, `search`, `encryption`, `backup`, `import`, `export`,
//! `index`, `transcribe`, `reminder`) behind the one dispatch in [`run`].
//!
//! Ctrl+C and SIGTERM keep their default here (the process ends at once), and that is
//! safe: the CLI writes on its one connection with no thread or queue in between, each
//! command's write is one SQLite transaction, and text given to `add` is written by that
//! one statement, so an interrupted command leaves the journal as before it (SQLite rolls
//! an unfinished transaction back) and nothing typed is held anywhere else.

mod autostart;
mod backup;
mod encryption;
mod entries;
mod export;
mod import;
mod index;
mod reminder;
mod search;
mod transcribe;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use serde::Serialize;

use mindsage_core::ai::AiSettings;
use mindsage_core::clock;
use mindsage_core::db::cipher;
use mindsage_core::db::{self, StorageOptions};
use mindsage_core::paths;
use mindsage_core::search::SEARCH_BOX_RESULTS;

/// The environment variable that names the passphrase file (`--passphrase-file`).
pub const PASSPHRASE_FILE_ENV: &str = "MINDSAGE_PASSPHRASE_FILE";

#[derive(Debug, Clone, Parser)]
#[command(name = "mindsage", version, about = "A private, local-first journal.")]
pub struct Args {
    /// Folder holding the journal (default: %APPDATA%\MindSage on Windows, the XDG data
    /// folder on Linux; the MINDSAGE_DATA_DIR environment variable also sets it).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Bytes of the journal SQLite may memory-map (0 turns mapping off).
    #[arg(long, global = true, value_name = "BYTES")]
    pub mmap_size: Option<u64>,

    /// The passphrase of an encrypted journal: the first line of FILE (for `encrypt`,
    /// the new passphrase). Without it, the passphrase remembered on this computer, or
    /// asked for on a terminal.
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        env = PASSPHRASE_FILE_ENV,
        hide_env_values = true
    )]
    pub passphrase_file: Option<PathBuf>,

    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,

    /// Fill an empty journal with demo entries before opening the window.
    #[arg(long)]
    pub demo: bool,

    /// The screen the window opens on.
    #[arg(long, value_enum, value_name = "VIEW")]
    pub view: Option<crate::views::View>,

    /// An entry to open when the window starts.
    #[arg(long, value_name = "ID")]
    pub entry: Option<i64>,

    /// Open the window with this export (a Day One zip, a JSON export, a Markdown file
    /// or folder) in the import window, previewed, as if it had been dropped on it.
    #[arg(long, value_name = "PATH")]
    pub import: Option<PathBuf>,

    /// A `mindsage:` link to open: `mindsage:today` (what the reminder's notification
    /// opens) is today's page. The installer registers the scheme for this option.
    #[arg(long, value_name = "URL", conflicts_with_all = ["view", "entry"])]
    pub link: Option<String>,

    /// Open the profiler overlay when the window starts (F12 toggles it).
    #[arg(long)]
    pub profiler: bool,

    /// Open the window minimised to the taskbar, as starting with the system opens it.
    #[arg(long)]
    pub minimized: bool,

    /// Close the window after this many seconds, as its close button would (for
    /// scripted checks such as scripts/fresh-check.sh).
    #[arg(long, value_name = "SECONDS")]
    pub exit_after: Option<f64>,

    /// Print how long the window took to show the journal (one `startup …` line on
    /// standard output, see `launch_report`) and close it. Times the journal screen.
    #[arg(long, conflicts_with = "view")]
    pub report_startup: bool,

    /// With --report-startup: scroll the journal's list from top to bottom with the
    /// mouse wheel, then print the process's memory (the bench's memory sequence).
    #[arg(long, requires = "report_startup", hide = true)]
    pub exercise_scroll: bool,

    /// With --report-startup: switch screens this many times (after the scroll), then
    /// print the process's memory.
    #[arg(long, value_name = "N", requires = "report_startup", hide = true)]
    pub exercise_views: Option<usize>,

    /// With --report-startup: ask this on the Ask screen (after the switches) and wait
    /// for the answer, then print the process's memory.
    #[arg(long, value_name = "QUESTION", requires = "report_startup", hide = true)]
    pub exercise_ask: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Add generated demo entries (deterministic for a given seed).
    Seed {
        #[arg(long, default_value_t = 150)]
        entries: usize,
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
    /// List entries, newest first.
    List {
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Only entries with this tag.
        #[arg(long)]
        tag: Option<String>,
        /// Only entries written on or after this day (YYYY-MM-DD), each on the day it
        /// was lived where it was written.
        #[arg(long, value_parser = parse_day)]
        from: Option<chrono::NaiveDate>,
        /// Only entries written on or before this day (YYYY-MM-DD), likewise.
        #[arg(long, value_parser = parse_day)]
        to: Option<chrono::NaiveDate>,
        /// List the trash instead.
        #[arg(long)]
        trash: bool,
    },
    /// Write a new entry. The body comes from --body, from a recording (--audio), or from
    /// standard input.
    Add {
        #[arg(long, default_value = "")]
        title: String,
        #[arg(long, conflicts_with = "audio")]
        body: Option<String>,
        /// Make the entry from a recording (a WAV file), as the app's recorder does: the
        /// transcript is the body and the recording is kept with the entry.
        #[arg(long, value_name = "FILE.wav")]
        audio: Option<PathBuf>,
        /// With --audio: the Whisper model file (default: Settings, then the data
        /// folder's models/).
        #[arg(long, value_name = "PATH", requires = "audio")]
        model: Option<PathBuf>,
        /// A tag; repeat for more.
        #[arg(long = "tag")]
        tags: Vec<String>,
        /// Mood from 1 (awful) to 10 (wonderful).
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=10))]
        mood: Option<u8>,
    },
    /// Show one entry in full.
    Show { id: i64 },
    /// Move an entry to the trash.
    Delete { id: i64 },
    /// Bring an entry back from the trash (an id), or replace the journal with a backup
    /// (a file): the backup is checked first (a whole MindSage journal this version can
    /// open), the current journal is set aside until the restored one opens and put back
    /// if it does not, and then kept with the backups (backups/before-restore-….db), as
    /// the window's Restore keeps it; an encrypted backup restored over a plain journal
    /// encrypts the backups beside it too. A terminal is asked first. Close the app
    /// before restoring a backup.
    Restore {
        #[arg(value_name = "ID|FILE")]
        target: String,
        /// Replace the journal with the backup without asking (scripts).
        #[arg(long)]
        yes: bool,
    },
    /// Erase an entry permanently (its text is overwritten on disk).
    Purge { id: i64 },
    /// Totals, streaks and words.
    Stats,
    /// The people, places and activities your entries mention, as the local model found
    /// them: each with how the writer is related to them, how many entries and when.
    People {
        /// Also those hidden in the app.
        #[arg(long)]
        all: bool,
    },
    /// The local model's reflections on the weeks and months that ended, latest first,
    /// each sentence with the ids of the entries it came from.
    Reflections {
        /// Reflections to list at most.
        #[arg(long, default_value_t = 10)]
        limit: u32,
    },
    /// Where the journal is, whether it is encrypted, and the SQLite settings in effect.
    Info,
    /// Search as the search box does: by words and, when the local model is running, by
    /// meaning; dates in the query ("in March") filter.
    Search {
        query: String,
        /// Results to list at most.
        #[arg(long, default_value_t = SEARCH_BOX_RESULTS as u16, value_parser = clap::value_parser!(u16).range(1..))]
        limit: u16,
    },
    /// Queue the local model's work that entries are missing (vectors for meaning search,
    /// titles, moods and summaries) and say what is left.
    Index {
        /// Do the work now, with a progress bar, until the queue is empty.
        #[arg(long)]
        wait: bool,
    },
    /// Print what a recording (a WAV file) says, transcribed on this computer by Whisper;
    /// with --json, its segments and their times too.
    Transcribe {
        file: PathBuf,
        /// The Whisper model file (default: Settings, then the data folder's models/).
        #[arg(long, value_name = "PATH")]
        model: Option<PathBuf>,
    },
    /// Bring in entries from another app: Day One's JSON export (the zip, or its JSON
    /// unzipped), jrnl's (`jrnl --export json`), or a folder of Markdown files (or one).
    /// Importing the same export again adds nothing; every problem is reported per entry.
    Import {
        path: PathBuf,
        /// Say what would be added, skipped as already there, or refused; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Take the journal out: MindSage's JSON (everything, photos and recordings included;
    /// `import` reads it back) or a folder of Markdown files with the media beside them.
    /// The form follows the name (`.json`, else a folder) unless --format says.
    Export {
        path: PathBuf,
        #[arg(long, value_enum)]
        format: Option<ExportFormat>,
        /// From an encrypted journal: export all the same, although the export is not
        /// encrypted (anyone with its files can read them). A terminal asks instead.
        #[arg(long)]
        allow_plain: bool,
    },
    /// Copy the journal into FILE, whole, while the app may be running (SQLite's online
    /// backup); the copy is checked before it takes the name.
    Backup { file: PathBuf },
    /// Encrypt the journal (SQLCipher, every page of the file, its -wal and its backups
    /// from now on): it opens only with its passphrase. The new passphrase is the first
    /// line of --passphrase-file, or typed twice on a terminal. Close the app first.
    Encrypt,
    /// Turn the encrypted journal back into a plain one, which anyone with the file can
    /// read. Needs its passphrase. Close the app first.
    Decrypt,
    /// Change the encrypted journal's passphrase: the current one as for any command,
    /// the new one from --new-passphrase-file or typed twice on a terminal. Backups made
    /// before keep the old one. Close the app first.
    Rekey {
        /// The new passphrase: the first line of FILE.
        #[arg(long, value_name = "FILE")]
        new_passphrase_file: Option<PathBuf>,
    },
    /// Remember the encrypted journal's passphrase on this computer (Windows Credential
    /// Manager, or the Secret Service on Linux), so the window and these commands open
    /// the journal without asking. The passphrase as for any command; it is checked
    /// against the journal first.
    Remember,
    /// Forget the passphrase remembered on this computer for the journal: it is asked
    /// for again.
    Forget,
    /// Show the reminder to write now, unless today's page is written (what the
    /// system's scheduler runs at the reminder's time).
    Remind,
    /// Set the reminder to write, as Settings → Reminder does: at a time on some days,
    /// even when MindSage is closed (Task Scheduler on Windows, a systemd user timer on
    /// Linux). With no option, say what it is.
    Reminder {
        /// The time, like 20:00 (this computer's time).
        #[arg(long, value_name = "HH:MM")]
        at: Option<String>,
        /// The days: every-day, weekdays, weekends, or names like mon,wed,fri.
        #[arg(long, value_name = "DAYS")]
        days: Option<String>,
        /// Turn the reminder off.
        #[arg(long, conflicts_with_all = ["at", "days"])]
        off: bool,
    },
    /// Open MindSage on this journal, minimised, when you log in, as Settings →
    /// Starting does (the per-user Run key on Windows, an autostart file on Linux). With
    /// no option, say whether it does.
    Autostart {
        /// Start with the system.
        #[arg(long, conflicts_with = "off")]
        on: bool,
        /// Stop starting with the system.
        #[arg(long)]
        off: bool,
    },
    /// Take away what MindSage set up in this computer's system, the reminder's task and
    /// starting with the system, as `reminder --off` and `autostart --off` do; the
    /// journal stays. The uninstaller runs this.
    Unregister,
    /// Ask the local AI a question about your journal; the answer streams to stdout.
    Ask {
        question: String,
        /// Also print how long each stage took.
        #[arg(long)]
        timings: bool,
    },
}

/// The forms `mindsage export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Json,
    Markdown,
}

fn parse_day(text: &str) -> Result<chrono::NaiveDate, String> {
    clock::parse_date(text).ok_or_else(|| format!("'{text}' is not a date like 2026-04-30"))
}

/// Storage options from the command line.
pub fn storage_options(args: &Args) -> StorageOptions {
    let mut options = StorageOptions::default();
    if let Some(mmap) = args.mmap_size {
        options.mmap_size = mmap;
    }
    options
}

/// The journal file the options point at.
pub fn database_path(args: &Args) -> Result<PathBuf> {
    Ok(paths::database_path(&data_dir(args)?))
}

/// The data folder the options name.
pub(super) fn data_dir(args: &Args) -> Result<PathBuf> {
    paths::data_dir(args.data_dir.as_deref())
        .context("no data folder: this system has no home folder; pass --data-dir")
}

/// Runs `command` on the journal the global options name: one arm per command, each
/// carried out in the file of its group.
pub fn run(args: &Args, command: Command) -> Result<()> {
    let path = database_path(args);
    let options = storage_options(args);
    match command {
        Command::Transcribe { file, model } => transcribe::run(args, &file, model.as_deref()),
        Command::Encrypt => encryption::encrypt(args, &path?, options),
        Command::Decrypt => encryption::decrypt(args, &path?, options),
        Command::Rekey { new_passphrase_file } => {
            encryption::rekey(args, &path?, options, new_passphrase_file.as_deref())
        }
        Command::Remember => encryption::remember(args, &path?),
        Command::Forget => encryption::forget(args, &path?),
        Command::Restore { target, yes } => match target.parse::<i64>() {
            Ok(id) => entries::restore(args, &mut open(args, &path?, options)?.0, id),
            Err(_) => backup::restore(args, &path?, Path::new(&target), options, yes),
        },
        Command::Export {
            path: to,
            format,
            allow_plain,
        } => export::run(args, &path?, options, &to, format, allow_plain),
        Command::Seed { entries: n, seed } => {
            entries::seed(args, &mut open(args, &path?, options)?.0, n, seed)
        }
        Command::List {
            limit,
            tag,
            from,
            to,
            trash,
        } => {
            let filter = db::entries::ListFilter { tag, from, to, trash };
            entries::list(args, &open(args, &path?, options)?.0, &filter, limit)
        }
        Command::Add {
            title,
            body,
            audio,
            model,
            tags,
            mood,
        } => {
            let entry = db::entries::NewEntry {
                title,
                body: body.unwrap_or_default(),
                tags,
                mood_score: mood,
                created_at: None,
            };
            let (mut conn, _) = open(args, &path?, options)?;
            match audio {
                Some(file) => entries::add_recording(args, &mut conn, entry, &file, model.as_deref()),
                None => entries::add(args, &mut conn, entry),
            }
        }
        Command::Show { id } => entries::show(args, &open(args, &path?, options)?.0, id),
        Command::Delete { id } => entries::delete(args, &mut open(args, &path?, options)?.0, id),
        Command::Purge { id } => {
            let (mut conn, options) = open(args, &path?, options)?;
            entries::purge(args, &mut conn, id, &options)
        }
        Command::Stats => entries::stats(args, &open(args, &path?, options)?.0),
        Command::People { all } => entries::people(args, &open(args, &path?, options)?.0, all),
        Command::Reflections { limit } => entries::reflections(args, &open(args, &path?, options)?.0, limit),
        Command::Info => {
            let path = path?;
            let (conn, options) = open(args, &path, options)?;
            entries::info(args, &conn, &path, &options)
        }
        Command::Ask { question, timings } => {
            search::ask(args, &mut open(args, &path?, options)?.0, &question, timings)
        }
        Command::Search { query, limit } => {
            let (conn, options) = open(args, &path?, options)?;
            search::search(args, &conn, &options, &query, limit)
        }
        Command::Index { wait } => {
            let path = path?;
            // Opened first, so a journal that does not open, or a wrong passphrase, is
            // told before the model is asked anything.
            let (conn, options) = open(args, &path, options)?;
            drop(conn);
            index::run(&path, &options, &ai_settings(args)?, wait, args.json)
        }
        Command::Import { path: from, dry_run } => {
            let (mut conn, options) = open(args, &path?, options)?;
            import::run(&mut conn, &from, dry_run, args.json, options.key.as_ref())
        }
        Command::Remind => reminder::remind(args, &path?, options),
        Command::Reminder { at, days, off } => reminder::set(args, at.as_deref(), days.as_deref(), off),
        Command::Autostart { on, off } => autostart::set(args, on, off),
        Command::Unregister => {
            // Both, whatever the first says.
            let reminder = reminder::set(args, None, None, true);
            reminder.and(autostart::set(args, false, true))
        }
        Command::Backup { file } => {
            let (conn, options) = open(args, &path?, options)?;
            backup::backup(args, &conn, &file, &options)
        }
    }
}

/// The journal at `path` opened for a command, unlocked first when it is encrypted (the
/// passphrase from a file, the credential store or the terminal), waiting out another
/// MindSage's write lock with a word on standard error; and the options it opened with.
fn open(
    args: &Args,
    path: &Path,
    mut options: StorageOptions,
) -> Result<(rusqlite::Connection, StorageOptions)> {
    if cipher::is_encrypted(path) {
        options.key = Some(encryption::unlock(args, path, path)?);
    }
    let mut conn = db::open(path, &options)?;
    conn.busy_handler(Some(wait_for_the_other_writer))?;
    Ok((conn, options))
}

/// Asks `question` with `prompt` on a terminal; anywhere else (a script) refuses with
/// `in_a_script` (which names the option that answers yes in advance). Any answer but
/// yes refuses with `declined`.
pub(super) fn yes_on_a_terminal(
    question: &str,
    prompt: &str,
    in_a_script: &str,
    declined: &str,
) -> Result<()> {
    if !std::io::stdin().is_terminal() {
        bail!("{question} {in_a_script}");
    }
    eprint!("{question}\n{prompt} [y/N] ");
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .context("reading the answer from the terminal")?;
    match answer.trim().to_lowercase().as_str() {
        "y" | "yes" => Ok(()),
        _ => bail!("{declined}"),
    }
}

/// Prints `value` as JSON with `--json`, else `text`. Writing fails (rather than
/// panicking, as `println!` does) when nobody reads standard output any more.
pub(super) fn print<T: Serialize + ?Sized>(
    args: &Args,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(value)?)?;
    } else {
        writeln!(out, "{}", text())?;
    }
    Ok(())
}

/// The settings file; only `reminder` writes it, so a damaged one is named and left.
pub(super) fn load_settings(dir: &std::path::Path) -> mindsage_core::settings::Settings {
    mindsage_core::settings::Settings::load(dir).unwrap_or_else(|e| {
        eprintln!("warning: {e}; using the default settings");
        mindsage_core::settings::Settings::default()
    })
}

/// The AI settings for the journal in `args`: its settings file over the environment.
pub(super) fn ai_settings(args: &Args) -> Result<AiSettings> {
    Ok(AiSettings::from_settings(&load_settings(&data_dir(args)?)))
}

/// Whether `error` is standard output's reader having gone away (`mindsage list |
/// head -1`): the command then ends quietly, as other command-line tools do. Windows
/// reports a write to a pipe whose reader has gone as ERROR_NO_DATA (which Rust calls
/// `BrokenPipe`) or, once the pipe is torn down, as ERROR_PIPE_NOT_CONNECTED (233),
/// which it does not.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    const ERROR_PIPE_NOT_CONNECTED: i32 = 233;
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|e| {
            e.kind() == std::io::ErrorKind::BrokenPipe
                || (cfg!(windows) && e.raw_os_error() == Some(ERROR_PIPE_NOT_CONNECTED))
        })
}

/// The command line's wait for another MindSage writing to the journal (the app's
/// import, another command): as long as the journal's busy timeout, and said on
/// standard error once it is long enough to notice, so a command that seems stuck says
/// why.
fn wait_for_the_other_writer(attempt: i32) -> bool {
    const STEP: std::time::Duration = std::time::Duration::from_millis(10);
    const SAY_AFTER: i32 = 50;
    if attempt == SAY_AFTER {
        eprintln!(
            "Another MindSage (the app or a command) is writing to the journal; waiting for it to finish…"
        );
    }
    std::thread::sleep(STEP);
    (attempt as u32) < db::BUSY_TIMEOUT.as_millis() as u32 / STEP.as_millis() as u32
}
