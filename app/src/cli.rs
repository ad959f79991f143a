//! The command line: global options and the headless subcommands.
//!
//! Ctrl+C and SIGTERM keep their default here (the process ends at once), and that is
//! safe: the CLI writes on its one connection with no thread or queue in between, each
//! command's write is one SQLite transaction, and text given to `add` is written by that
//! one statement, so an interrupted command leaves the journal as before it (SQLite rolls
//! an unfinished transaction back) and nothing typed is held anywhere else.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chrono::Local;
use clap::{Parser, Subcommand};
use serde::Serialize;

use mindsage_core::ai::{AiSettings, OllamaClient, search_box};
use mindsage_core::clock;
use mindsage_core::db::cipher::{self, JournalKey, Passphrase};
use mindsage_core::db::{self, DEFAULT_USER, DbError, StorageOptions, entries, stats};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::encryption::{self, Change, Followed, Remember};
use mindsage_core::export;
use mindsage_core::keystore;
use mindsage_core::paths;
use mindsage_core::search::snippet;
use mindsage_core::search::{SEARCH_BOX_RESULTS, SearchMode, Searcher};
use mindsage_core::voice;

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

    /// Open the profiler overlay when the window starts (F12 toggles it).
    #[arg(long)]
    pub profiler: bool,

    /// Close the window after this many seconds, as its close button would (for
    /// scripted checks such as scripts/fresh-check.sh).
    #[arg(long, value_name = "SECONDS")]
    pub exit_after: Option<f64>,

    /// Print how long the window took to show the journal (one `startup …` line on
    /// standard output, see `launch_report`) and close it. Times the journal screen.
    #[arg(long, conflicts_with = "view")]
    pub report_startup: bool,

    /// With --report-startup: switch screens this many times first, then print the
    /// process's resident memory (the bench's memory figure).
    #[arg(long, value_name = "N", requires = "report_startup", hide = true)]
    pub exercise_views: Option<usize>,

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
    let dir = paths::data_dir(args.data_dir.as_deref())
        .context("no data folder: this system has no home folder; pass --data-dir")?;
    Ok(paths::database_path(&dir))
}

pub fn run(args: &Args, command: Command) -> Result<()> {
    if let Command::Transcribe { file, model } = &command {
        let transcript = transcribe_file(args, file, model.as_deref(), !args.json)?;
        if transcript.transcript.segments.is_empty() {
            eprintln!("no speech was heard in {}", file.display());
        }
        if args.json {
            print(args, &transcript, String::new)?;
        }
        return Ok(());
    }
    let path = database_path(args)?;
    let mut options = storage_options(args);
    match &command {
        Command::Encrypt => return encrypt(args, &path, options),
        Command::Decrypt => return decrypt(args, &path, options),
        Command::Rekey { new_passphrase_file } => {
            return rekey(args, &path, options, new_passphrase_file.as_deref());
        }
        Command::Remember => return remember(args, &path),
        Command::Forget => return forget(args, &path),
        Command::Restore { target, yes } if target.parse::<i64>().is_err() => {
            return restore_backup(args, &path, Path::new(target), options, *yes);
        }
        Command::Export { allow_plain, .. } if cipher::is_encrypted(&path) => {
            allow_plain_export(&path, *allow_plain)?;
        }
        _ => {}
    }
    if cipher::is_encrypted(&path) {
        options.key = Some(unlock(args, &path, &path)?);
    }
    let mut conn = db::open(&path, &options)?;
    conn.busy_handler(Some(wait_for_the_other_writer))?;
    match command {
        Command::Seed { entries: n, seed } => seed_demo(args, &mut conn, n, seed),
        Command::List {
            limit,
            tag,
            from,
            to,
            trash,
        } => {
            let filter = entries::ListFilter { tag, from, to, trash };
            list(args, &conn, &filter, limit)
        }
        Command::Add {
            title,
            body,
            audio,
            model,
            tags,
            mood,
        } => {
            let entry = entries::NewEntry {
                title,
                body: body.unwrap_or_default(),
                tags,
                mood_score: mood,
                created_at: None,
            };
            match audio {
                Some(file) => add_recording(args, &mut conn, entry, &file, model.as_deref()),
                None => add(args, &mut conn, entry),
            }
        }
        Command::Show { id } => {
            let entry = entries::get(&conn, DEFAULT_USER, id)?;
            print(args, &entry, || format_entry(&entry))
        }
        Command::Delete { id } => {
            entries::soft_delete(&mut conn, DEFAULT_USER, id)?;
            print(args, &serde_json::json!({ "id": id, "trashed": true }), || {
                format!("moved entry {id} to the trash (mindsage restore {id} brings it back)")
            })
        }
        Command::Restore { target, .. } => {
            let id: i64 = target
                .parse()
                .expect("a backup file is restored before the journal opens");
            entries::restore(&mut conn, DEFAULT_USER, id)?;
            print(args, &serde_json::json!({ "id": id, "restored": true }), || {
                format!("restored entry {id}")
            })
        }
        Command::Purge { id } => purge(args, &mut conn, id, &options),
        Command::Stats => stats(args, &conn),
        Command::Ask { question, timings } => ask(args, &mut conn, &question, timings),
        Command::Transcribe { .. }
        | Command::Encrypt
        | Command::Decrypt
        | Command::Rekey { .. }
        | Command::Remember
        | Command::Forget => {
            unreachable!("answered before the journal is opened")
        }
        Command::Index { wait } => {
            drop(conn);
            crate::index::run(&path, &options, &ai_settings(args)?, wait, args.json)
        }
        Command::Search { query, limit } => search(args, &conn, &options, &query, limit),
        Command::Import { path, dry_run } => {
            crate::import::run(&mut conn, &path, dry_run, args.json, options.key.as_ref())
        }
        Command::Export { path, format, .. } => export(args, &conn, &path, format),
        Command::Backup { file } => {
            let report = db::backup::backup(&conn, &file, options.key.as_ref())?;
            let encrypted = options.key.is_some();
            let json = serde_json::json!({
                "path": report.path,
                "entries": report.entries,
                "bytes": report.bytes,
                "encrypted": encrypted,
            });
            print(args, &json, || {
                format!(
                    "Backed up {} entries into {} ({} bytes){}",
                    report.entries,
                    file.display(),
                    report.bytes,
                    if encrypted {
                        ", encrypted: it opens with the journal's passphrase as it is now"
                    } else {
                        ""
                    }
                )
            })
        }
        Command::Info => {
            let cipher_version: Option<String> =
                conn.query_row("PRAGMA cipher_version", [], |row| row.get(0)).ok();
            let info = serde_json::json!({
                "database": path,
                "version": env!("CARGO_PKG_VERSION"),
                "encrypted": options.key.is_some(),
                "cipher_version": cipher_version,
                "pragmas": db::effective_pragmas(&conn)?,
            });
            print(args, &info, || {
                serde_json::to_string_pretty(&info).unwrap_or_default()
            })
        }
    }
}

// Encryption at rest (core's `db::cipher`): where a passphrase comes from, and the
// commands that convert the journal. A passphrase is never printed or logged: it lives
// in core's `Passphrase`, which hides itself from `Debug` and is wiped when dropped.

/// How often a terminal may type a wrong passphrase before the command gives up.
const PROMPT_TRIES: u32 = 3;

/// The key of the encrypted `file` (the journal, or a backup of the journal `journal`):
/// its passphrase from `--passphrase-file` (or `MINDSAGE_PASSPHRASE_FILE`), else the one
/// remembered on this computer for `journal`, else typed on a terminal. Without a
/// terminal, an error that says how to give it.
fn unlock(args: &Args, file: &Path, journal: &Path) -> Result<JournalKey> {
    if args.passphrase_file.is_none() {
        match keystore::remembered(journal) {
            Ok(Some(passphrase)) => match cipher::unlock(file, &passphrase) {
                Ok(key) => return Ok(key),
                Err(DbError::WrongPassphrase { .. }) => eprintln!(
                    "The passphrase remembered on this computer does not open {}.",
                    file.display()
                ),
                Err(e) => return Err(e.into()),
            },
            Ok(None) => {}
            // No credential store here (no Secret Service on a server, say): not an
            // error for a command, which asks for the passphrase instead.
            Err(error) => tracing::debug!(%error, "no remembered passphrase"),
        }
    }
    Ok(given_passphrase(args, file)?.1)
}

/// The passphrase of the encrypted `file` as the person gives it, from
/// `--passphrase-file` (or `MINDSAGE_PASSPHRASE_FILE`), else typed on a terminal, with
/// the key it opens `file` with. Without a terminal, an error that says how to give it.
fn given_passphrase(args: &Args, file: &Path) -> Result<(Passphrase, JournalKey)> {
    if let Some(from) = &args.passphrase_file {
        let passphrase = Passphrase::from_file(from)?;
        let key = cipher::unlock(file, &passphrase)?;
        return Ok((passphrase, key));
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "{} is encrypted: give its passphrase with --passphrase-file FILE (or the {PASSPHRASE_FILE_ENV} environment variable), or run the command in a terminal to type it",
            file.display()
        );
    }
    let mut tries = 0;
    loop {
        tries += 1;
        let passphrase = typed(&format!("Passphrase for {}: ", file.display()))?;
        match cipher::unlock(file, &passphrase) {
            Err(DbError::WrongPassphrase { .. }) if tries < PROMPT_TRIES => {
                eprintln!("That passphrase does not open it; try again.");
            }
            unlocked => return Ok((passphrase, unlocked?)),
        }
    }
}

/// A passphrase typed on the terminal, not echoed; nothing typed is an error.
fn typed(prompt: &str) -> Result<Passphrase> {
    let text = rpassword::prompt_password(prompt).context("reading the passphrase from the terminal")?;
    if text.is_empty() {
        bail!("no passphrase was typed; nothing was changed");
    }
    Ok(Passphrase::new(text)?)
}

/// A new passphrase for `journal`: the first line of `file`, else typed twice on a
/// terminal (the two must agree). `option` names the flag that gives the file.
fn new_passphrase(file: Option<&Path>, journal: &Path, option: &str) -> Result<Passphrase> {
    if let Some(file) = file {
        return Ok(Passphrase::from_file(file)?);
    }
    if !std::io::stdin().is_terminal() {
        bail!(
            "give the new passphrase for {} with {option}, or run the command in a terminal to type it; nothing was changed",
            journal.display()
        );
    }
    eprintln!(
        "Choose a passphrase for {}. Keep it safe: without it the journal cannot be read, by anyone.",
        journal.display()
    );
    let first = typed("New passphrase: ")?;
    let second = typed("The same passphrase again: ")?;
    if first.as_str() != second.as_str() {
        bail!("the two passphrases differ; nothing was changed");
    }
    Ok(first)
}

/// `mindsage restore FILE`: replacing the journal is asked on a terminal (the journal as
/// it was is kept in `kept`), and anywhere else `--yes` must say so.
fn confirm_restore(journal: &Path, backup: &Path, entries: u64, kept: &Path, yes: bool) -> Result<()> {
    if yes {
        return Ok(());
    }
    let question = format!(
        "Replace the journal {} with the backup {} ({entries} entries)? The journal as it is now is kept in {}.",
        journal.display(),
        backup.display(),
        kept.display()
    );
    yes_on_a_terminal(
        &question,
        "Restore?",
        "Add --yes to restore without asking; nothing was changed",
        "nothing was restored",
    )
}

/// Asks `question` with `prompt` on a terminal; anywhere else (a script) refuses with
/// `in_a_script` (which names the option that answers yes in advance). Any answer but
/// yes refuses with `declined`.
fn yes_on_a_terminal(question: &str, prompt: &str, in_a_script: &str, declined: &str) -> Result<()> {
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

/// `mindsage export` from an encrypted journal: the export is plain, so a terminal is
/// asked first, and anywhere else `--allow-plain` must say so.
fn allow_plain_export(journal: &Path, allowed: bool) -> Result<()> {
    if allowed {
        return Ok(());
    }
    let warning = format!(
        "{} is encrypted, but an export is not: anyone who has the exported files can read every entry in them.",
        journal.display()
    );
    yes_on_a_terminal(
        &warning,
        "Export all the same?",
        "Add --allow-plain to export all the same; nothing was written",
        "nothing was exported",
    )
}

/// What a conversion leaves: the journal, whether it is encrypted now, and its entries
/// (counted on a connection opened the way every command opens it, so the count also
/// says the journal opens).
#[derive(Serialize)]
struct Converted {
    path: PathBuf,
    encrypted: bool,
    entries: u64,
    /// Backups in the data folder's `backups/` when the change began.
    backups: usize,
    /// Those that could not follow the change (each with why); the others were
    /// converted with the journal.
    backups_left: Vec<String>,
    /// Recordings in `recordings/` and drafts in `drafts/` waiting beside the journal
    /// that could not follow the change (each with why); the others were sealed,
    /// unsealed or rekeyed with the journal.
    spool_left: Vec<String>,
    /// Whether the passphrase remembered on this computer changed with it (`rekey`
    /// updates it, `decrypt` forgets it).
    remembered_passphrase: Option<&'static str>,
}

/// What `change` left, as the command reports it: `options` are the journal's before
/// the change (with its key, if it had one).
fn change(path: &Path, mut options: StorageOptions, change: &Change) -> Result<Converted> {
    let changed = encryption::change(path, &options, change)?;
    options.key = changed.key;
    let remembered_passphrase = match changed.remembered {
        encryption::Remembered::Untouched => None,
        encryption::Remembered::Updated => Some("updated"),
        encryption::Remembered::Forgotten => Some("forgotten"),
        encryption::Remembered::NotRemembered(error) => {
            eprintln!("warning: {error}");
            Some("stale")
        }
        encryption::Remembered::NotForgotten(error) => {
            eprintln!("warning: {error}");
            Some("kept")
        }
    };
    converted(path, &options, changed.followed, remembered_passphrase)
}

/// What a conversion left, once what is beside the journal `followed` it.
fn converted(
    path: &Path,
    options: &StorageOptions,
    followed: Followed,
    remembered_passphrase: Option<&'static str>,
) -> Result<Converted> {
    let conn = db::open(path, options)?;
    let entries = entries::count(&conn, DEFAULT_USER)?;
    Ok(Converted {
        path: path.to_owned(),
        encrypted: options.key.is_some(),
        entries,
        backups: followed.backups,
        backups_left: followed.backups_left,
        spool_left: followed.spool_left,
        remembered_passphrase,
    })
}

/// `mindsage encrypt`.
fn encrypt(args: &Args, path: &Path, options: StorageOptions) -> Result<()> {
    if cipher::is_encrypted(path) {
        bail!(
            "{} is already encrypted; `mindsage rekey` changes its passphrase",
            path.display()
        );
    }
    let passphrase = new_passphrase(
        args.passphrase_file.as_deref(),
        path,
        &format!("--passphrase-file FILE (or the {PASSPHRASE_FILE_ENV} environment variable)"),
    )?;
    let report = change(
        path,
        options,
        &Change::Encrypt {
            passphrase,
            remember: Remember::AsItWas,
        },
    )?;
    print(args, &report, || {
        let mut text = format!(
            "Encrypted {} ({} entries): it opens only with its passphrase now.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        text
    })
}

/// `mindsage decrypt`.
fn decrypt(args: &Args, path: &Path, mut options: StorageOptions) -> Result<()> {
    refuse_unless_encrypted(path)?;
    options.key = Some(unlock(args, path, path)?);
    let report = change(path, options, &Change::Decrypt)?;
    print(args, &report, || {
        let mut text = format!(
            "Decrypted {} ({} entries): it opens without a passphrase now, and anyone with the file can read it.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        if report.remembered_passphrase == Some("forgotten") {
            text.push_str("\nThe passphrase remembered on this computer was forgotten.");
        }
        text
    })
}

/// `mindsage rekey`.
fn rekey(args: &Args, path: &Path, mut options: StorageOptions, new_file: Option<&Path>) -> Result<()> {
    refuse_unless_encrypted(path)?;
    options.key = Some(unlock(args, path, path)?);
    let passphrase = new_passphrase(new_file, path, "--new-passphrase-file FILE")?;
    let report = change(
        path,
        options,
        &Change::Rekey {
            passphrase,
            remember: Remember::AsItWas,
        },
    )?;
    print(args, &report, || {
        let mut text = format!(
            "Changed the passphrase of {} ({} entries): it opens only with the new one now.",
            path.display(),
            report.entries
        );
        backups_left_text(&mut text, &report);
        match report.remembered_passphrase {
            Some("updated") => text.push_str("\nThe passphrase remembered on this computer is the new one."),
            Some(_) => text.push_str("\nThe passphrase remembered on this computer is still the old one."),
            None => {}
        }
        text
    })
}

/// The backups that could not follow a conversion, as a line each.
fn backups_left_text(text: &mut String, report: &Converted) {
    if !report.backups_left.is_empty() {
        text.push_str("\nThese backups were left as they were:");
        for left in &report.backups_left {
            text.push_str(&format!("\n  {left}"));
        }
    } else if report.backups > 0 {
        text.push_str("\nIts backups in backups/ were converted with it.");
    }
    if !report.spool_left.is_empty() {
        text.push_str("\nThese recordings and drafts waiting beside it were left as they were:");
        for left in &report.spool_left {
            text.push_str(&format!("\n  {left}"));
        }
    }
}

/// What `remember` and `forget` did, for `--json`.
#[derive(Serialize)]
struct Remembered {
    journal: PathBuf,
    remembered: bool,
}

/// `mindsage remember`: the passphrase, once it has opened the journal, into this
/// computer's credential store (core's `keystore`, as the window's "Remember on this
/// computer").
fn remember(args: &Args, path: &Path) -> Result<()> {
    refuse_unless_encrypted(path)?;
    let (passphrase, _key) = given_passphrase(args, path)?;
    keystore::remember(path, &passphrase)?;
    let report = Remembered {
        journal: path.to_owned(),
        remembered: true,
    };
    print(args, &report, || {
        format!(
            "Remembered the passphrase of {} on this computer: the window and commands open it without asking. `mindsage forget` forgets it.",
            path.display()
        )
    })
}

/// `mindsage forget`.
fn forget(args: &Args, path: &Path) -> Result<()> {
    let was = encryption::is_remembered(path);
    keystore::forget(path)?;
    let report = Remembered {
        journal: path.to_owned(),
        remembered: false,
    };
    print(args, &report, || match was {
        true => format!(
            "Forgot the passphrase remembered on this computer for {}: it is asked for again.",
            path.display()
        ),
        false => format!(
            "No passphrase was remembered on this computer for {}.",
            path.display()
        ),
    })
}

/// `decrypt`, `rekey` and `remember` work on an encrypted journal only.
fn refuse_unless_encrypted(path: &Path) -> Result<()> {
    match cipher::file_kind(path).with_context(|| format!("reading {}", path.display()))? {
        cipher::FileKind::Encrypted { .. } => Ok(()),
        cipher::FileKind::New => bail!("there is no journal at {}", path.display()),
        cipher::FileKind::Plain => bail!(
            "{} is not encrypted; `mindsage encrypt` encrypts it",
            path.display()
        ),
    }
}

/// `mindsage restore FILE`: an encrypted backup opens with the passphrase it was made
/// with (given as for any command); the restored journal is then encrypted as the
/// backup was.
fn restore_backup(
    args: &Args,
    path: &Path,
    file: &Path,
    mut options: StorageOptions,
    yes: bool,
) -> Result<()> {
    if cipher::is_encrypted(file) {
        options.key = Some(unlock(args, file, path)?);
    }
    let was_encrypted = cipher::is_encrypted(path);
    // The journal as it was goes with the backups, as the window's Restore keeps it.
    let data_dir = path.parent().unwrap_or(Path::new("."));
    let kept = db::backup::before_restore_path(data_dir, chrono::Utc::now());
    let keep = path.exists().then_some(kept.as_path());
    if keep.is_some() {
        // A file that is no backup is refused before anything is asked.
        let entries = db::backup::check(file, options.key.as_ref())?;
        confirm_restore(path, file, entries, &kept, yes)?;
    }
    // The backups' folder, in a data folder that may be new (a journal restored on
    // another computer).
    let folder = kept.parent().unwrap_or(data_dir);
    mindsage_core::files::create_private_dir(folder)
        .with_context(|| format!("creating {}", folder.display()))?;
    let report = db::backup::restore(path, file, &options, keep)?;
    let encrypted = options.key.is_some();
    // A plain journal an encrypted backup replaced is encrypted now: the backups beside
    // it (the journal as it was among them) and what waits in recordings/ and drafts/
    // are encrypted with it, as `encrypt` converts them, so no plain copy stays beside
    // an encrypted journal.
    let conversion = match (was_encrypted, encrypted) {
        (false, true) => Some(converted(
            path,
            &options,
            encryption::follow(path, None, options.key.as_ref()),
            None,
        )?),
        _ => None,
    };
    let json = serde_json::json!({
        "path": report.path,
        "entries": report.entries,
        "bytes": report.bytes,
        "encrypted": encrypted,
        "kept": keep,
        "backups_left": conversion.as_ref().map(|c| &c.backups_left),
        "spool_left": conversion.as_ref().map(|c| &c.spool_left),
    });
    print(args, &json, || {
        let mut text = format!(
            "Restored {} entries from {} into {}",
            report.entries,
            file.display(),
            report.path.display()
        );
        if let Some(kept) = keep {
            text.push_str(&format!(
                "\nThe journal as it was is kept in {} (`mindsage restore` it to go back).",
                kept.display()
            ));
        }
        match (was_encrypted, encrypted) {
            (true, false) => text.push_str(
                "\nThe backup was not encrypted, so the journal is not any more: `mindsage encrypt` encrypts it again.",
            ),
            (false, true) => text.push_str(
                "\nThe backup was encrypted, so the journal is now: it opens with the backup's passphrase.",
            ),
            _ => {}
        }
        if let Some(conversion) = &conversion {
            backups_left_text(&mut text, conversion);
        }
        text
    })
}

fn seed_demo(args: &Args, conn: &mut rusqlite::Connection, entries: usize, seed: u64) -> Result<()> {
    let options = DemoOptions {
        end: chrono::Utc::now(),
        ..DemoOptions::fixed(entries, seed)
    };
    let report = demo::seed(conn, DEFAULT_USER, &options)?;
    print(args, &report, || {
        format!(
            "added {} demo entries ({} with photos)",
            report.entries, report.photos
        )
    })
}

fn list(args: &Args, conn: &rusqlite::Connection, filter: &entries::ListFilter, limit: u32) -> Result<()> {
    let page = entries::list(conn, DEFAULT_USER, filter, None, limit.max(1))?;
    print(args, &page.rows, || {
        if page.rows.is_empty() {
            return "no entries".to_owned();
        }
        page.rows.iter().map(format_row).collect::<Vec<_>>().join("\n")
    })
}

fn export(
    args: &Args,
    conn: &rusqlite::Connection,
    path: &std::path::Path,
    format: Option<ExportFormat>,
) -> Result<()> {
    let format = match format {
        Some(ExportFormat::Json) => export::Format::Json,
        Some(ExportFormat::Markdown) => export::Format::Markdown,
        None => export::Format::for_path(path),
    };
    let report = export::run(conn, DEFAULT_USER, path, format)?;
    print(args, &report, || {
        format!(
            "Exported {} entries ({} photos, {} recordings, {:.1} MB) to {}",
            report.entries,
            report.photos,
            report.recordings,
            report.bytes as f64 / 1e6,
            report.path.display()
        )
    })
}

/// `add`: the body from `--body`, or from standard input when it is not given.
fn add(args: &Args, conn: &mut rusqlite::Connection, mut entry: entries::NewEntry) -> Result<()> {
    if entry.body.is_empty() {
        std::io::stdin()
            .read_to_string(&mut entry.body)
            .context("reading the body from standard input")?;
    }
    if entry.title.trim().is_empty() && entry.body.trim().is_empty() {
        bail!("nothing to save: give a --title or a body");
    }
    let id = entries::create(conn, DEFAULT_USER, &entry)?;
    print(args, &serde_json::json!({ "id": id }), || {
        format!("saved entry {id}")
    })
}

/// `add --audio`: the recording transcribed, then saved with it as the app saves one.
fn add_recording(
    args: &Args,
    conn: &mut rusqlite::Connection,
    entry: entries::NewEntry,
    file: &std::path::Path,
    model: Option<&std::path::Path>,
) -> Result<()> {
    let transcript = transcribe_file(args, file, model, false)?;
    let id = voice::save_entry(
        conn,
        DEFAULT_USER,
        entry,
        &transcript.samples,
        &transcript.transcript,
    )?;
    print(
        args,
        &serde_json::json!({ "id": id, "duration_ms": transcript.duration_ms, "language": transcript.transcript.language }),
        || {
            format!(
                "saved entry {id} from {} ({} s of sound)",
                file.display(),
                transcript.duration_ms / 1000
            )
        },
    )
}

/// A file's transcript as `transcribe --json` prints it.
#[derive(Serialize)]
struct FileTranscript {
    file: PathBuf,
    duration_ms: u64,
    #[serde(flatten)]
    transcript: voice::transcribe::Transcript,
    text: String,
    /// The recording as 16 kHz mono, read once for both the transcript and the entry.
    #[serde(skip)]
    samples: Vec<f32>,
}

/// Transcribes a WAV file with the model from `--model`, Settings or the models folder,
/// with a progress bar on a terminal; `stream` prints each segment as it is decoded.
fn transcribe_file(
    args: &Args,
    file: &std::path::Path,
    model: Option<&std::path::Path>,
    stream: bool,
) -> Result<FileTranscript> {
    let samples = voice::wav::read_file(file)?;
    let dir = paths::data_dir(args.data_dir.as_deref()).context("no data folder; pass --data-dir")?;
    let settings = voice::VoiceSettings::from_settings(&load_settings(&dir), &dir);
    let model = voice::transcribe::Model::load(&match model {
        Some(path) => path.to_owned(),
        None => settings.model?,
    })?;
    let bar = indicatif::ProgressBar::new(100).with_style(
        indicatif::ProgressStyle::with_template("transcribing {bar:30} {pos}%").expect("a valid template"),
    );
    let on_bar = bar.clone();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let transcript = model.transcribe(
        &samples,
        &settings.language,
        &cancel,
        move |progress| match progress {
            voice::transcribe::Progress::Percent(p) => on_bar.set_position(u64::from(p)),
            voice::transcribe::Progress::Segment(segment) if stream => {
                on_bar.suspend(|| println!("{}", segment.text));
            }
            voice::transcribe::Progress::Segment(_) => {}
        },
    )?;
    bar.finish_and_clear();
    Ok(FileTranscript {
        file: file.to_owned(),
        duration_ms: voice::duration_ms(samples.len()),
        text: transcript.text(),
        transcript,
        samples,
    })
}

/// The settings file; the CLI never writes it, so a damaged one is named and left.
fn load_settings(dir: &std::path::Path) -> mindsage_core::settings::Settings {
    mindsage_core::settings::Settings::load(dir).unwrap_or_else(|e| {
        eprintln!("warning: {e}; using the default settings");
        mindsage_core::settings::Settings::default()
    })
}

fn purge(args: &Args, conn: &mut rusqlite::Connection, id: i64, options: &StorageOptions) -> Result<()> {
    let report = entries::purge(conn, DEFAULT_USER, id, options.busy_timeout)?;
    let json = serde_json::json!({ "id": id, "purged": true, "wal_cleared": report.wal_cleared });
    print(args, &json, || {
        if report.wal_cleared {
            format!("erased entry {id} permanently")
        } else {
            format!("erased entry {id}; its old pages leave the write-ahead log when the app next goes idle")
        }
    })
}

fn stats(args: &Args, conn: &rusqlite::Connection) -> Result<()> {
    let today = Local::now().date_naive();
    let stats = stats::StatsCache::default().get(conn, DEFAULT_USER, today)?;
    print(args, &*stats, || {
        format!(
            "entries: {}\nwords: {}\ncurrent streak: {} days\nlongest streak: {} days",
            stats.total_entries, stats.total_words, stats.current_streak, stats.longest_streak
        )
    })
}

/// The search box's search ([`search_box::search`]); without the model, words only and
/// a line saying why.
fn search(
    args: &Args,
    conn: &rusqlite::Connection,
    options: &StorageOptions,
    query: &str,
    limit: u16,
) -> Result<()> {
    let client = OllamaClient::new(&ai_settings(args)?);
    let outcome = search_box::search(
        &client,
        &mut Searcher::with_key(options.key.clone()),
        conn,
        DEFAULT_USER,
        query,
        Local::now(),
        usize::from(limit),
    )?;
    let keyword_only = match &outcome.mode {
        SearchMode::KeywordOnly { reason } => Some(reason.as_str()),
        SearchMode::Hybrid | SearchMode::DateOnly => None,
    };
    let hits: Vec<_> = outcome
        .hits
        .iter()
        .map(|hit| {
            serde_json::json!({
                "id": hit.entry_id,
                "date": hit.created_at,
                "utc_offset": hit.utc_offset,
                "title": hit.title,
                "snippet": snippet::parts(&hit.snippet).map(|(part, _)| part).collect::<String>(),
                "matched": snippet::parts(&hit.snippet)
                    .filter_map(|(part, matched)| matched.then_some(part))
                    .collect::<Vec<_>>(),
                "score": hit.score,
            })
        })
        .collect();
    let report = serde_json::json!({
        "query": query,
        "mode": outcome.mode,
        "keyword_only": keyword_only,
        "hits": hits,
    });
    print(args, &report, || {
        let mut lines: Vec<String> = keyword_only
            .map(|reason| format!("(matching words only: {reason})"))
            .into_iter()
            .collect();
        if outcome.hits.is_empty() {
            lines.push("no close matches".to_owned());
        }
        for hit in &outcome.hits {
            let title = crate::views::entry_title(&hit.title, "");
            let snippet: String = snippet::parts(&hit.snippet)
                .map(|(part, matched)| match matched {
                    true => format!("*{part}*"),
                    false => part.to_owned(),
                })
                .collect();
            lines.push(format!(
                "{:>6}  {}  {title}\n        {snippet}",
                hit.entry_id,
                lived_day(hit.lived(), &hit.created_at)
            ));
        }
        lines.join("\n")
    })
}

/// The AI settings for the journal in `args`: its settings file over the environment.
fn ai_settings(args: &Args) -> Result<AiSettings> {
    let dir = paths::data_dir(args.data_dir.as_deref()).context("no data folder; pass --data-dir")?;
    Ok(AiSettings::from_settings(&load_settings(&dir)))
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

/// Streams the answer as it is written; `Reset` (a retried call) starts it on a new
/// line, since text already printed cannot be taken back. Saves the exchange as a chat.
fn ask(args: &Args, conn: &mut rusqlite::Connection, question: &str, timings: bool) -> Result<()> {
    use mindsage_core::ai::ask::{self as pipeline, AskEvent};

    let client = OllamaClient::new(&ai_settings(args)?)?;
    let stream = !args.json;
    let mut emit = |event: AskEvent| {
        let mut out = std::io::stdout().lock();
        let _ = match event {
            AskEvent::Token(text) if stream => write!(out, "{text}").and_then(|()| out.flush()),
            AskEvent::Reset if stream => writeln!(out, "\n(the answer broke off; asking again)"),
            _ => Ok(()),
        };
    };
    // One question: sqlite-vec's KNN reads the vectors once, as loading a copy would.
    let answer = mindsage_core::ai::block_on(pipeline::ask(
        &client,
        conn,
        None,
        DEFAULT_USER,
        question,
        Local::now(),
        &mut emit,
    ))?;
    pipeline::save_chat(conn, DEFAULT_USER, None, &answer)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&answer)?)?;
        return Ok(());
    }
    writeln!(out)?;
    if !answer.sources.is_empty() {
        writeln!(out, "\nsources:")?;
        for s in &answer.sources {
            writeln!(out, "  #{} {}  {}", s.entry_id, day_of(&s.created_at), s.title)?;
        }
    }
    if timings {
        let t = &answer.cost.timings;
        let ms = |d: std::time::Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
        writeln!(out, "\ntimings:")?;
        for (name, d) in [
            ("plan", t.plan),
            ("embed", t.embed),
            ("search", t.search),
            ("answer", t.answer),
        ] {
            writeln!(out, "  {name:<12} {}", ms(d))?;
        }
        writeln!(
            out,
            "  {:<12} {}",
            "first token",
            t.first_token.map_or("-".into(), ms)
        )?;
        writeln!(out, "  {:<12} {}", "total", ms(t.total))?;
        writeln!(out, "  {:<12} {}", "overhead", ms(t.overhead))?;
        writeln!(
            out,
            "  {:<12} {}{}",
            "model calls",
            answer.cost.model_calls,
            if answer.cost.planned_locally {
                " (planned locally)"
            } else {
                ""
            }
        )?;
    }
    Ok(())
}

/// Prints `value` as JSON with `--json`, else `text`. Writing fails (rather than
/// panicking, as `println!` does) when nobody reads standard output any more.
fn print<T: Serialize + ?Sized>(args: &Args, value: &T, text: impl FnOnce() -> String) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(value)?)?;
    } else {
        writeln!(out, "{}", text())?;
    }
    Ok(())
}

/// The day of a stored timestamp (its first ten characters).
fn day_of(created_at: &str) -> &str {
    created_at.get(..10).unwrap_or(created_at)
}

/// The day an entry was lived where it was written (`clock::lived`); its stored
/// timestamp's day only for a damaged row.
fn lived_day(lived: Option<chrono::DateTime<chrono::FixedOffset>>, created_at: &str) -> String {
    lived.map_or_else(
        || day_of(created_at).to_owned(),
        |t| t.format("%Y-%m-%d").to_string(),
    )
}

fn format_row(row: &entries::EntryRow) -> String {
    let title = crate::views::entry_title(&row.title, &row.preview);
    let mood = row.mood_score.map_or("  ".to_owned(), |m| format!("{m:>2}"));
    let tags = if row.tags.is_empty() {
        String::new()
    } else {
        format!("  [{}]", row.tags.join(", "))
    };
    format!(
        "{:>6}  {}  {mood}  {title}{tags}",
        row.id,
        lived_day(row.lived(), &row.created_at)
    )
}

fn format_entry(entry: &entries::Entry) -> String {
    // When it was lived, with the UTC offset where it was written.
    let when = entry.lived().map_or_else(
        || entry.created_at.clone(),
        |t| t.format("%Y-%m-%d %H:%M %:z").to_string(),
    );
    let mut out = format!("#{} {when}\n{}", entry.id, entry.title);
    if let Some(mood) = entry.mood_score {
        out.push_str(&format!("\nmood: {mood}/10"));
    }
    if !entry.tags.is_empty() {
        out.push_str(&format!("\ntags: {}", entry.tags.join(", ")));
    }
    if entry.is_deleted {
        out.push_str("\n(in the trash)");
    }
    out.push_str("\n\n");
    out.push_str(&entry.body);
    out
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
