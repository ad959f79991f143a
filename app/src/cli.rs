//! The command line: global options and the headless subcommands.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use chrono::{Duration, Local};
use clap::{Parser, Subcommand};
use serde::Serialize;

use mindsage_core::clock;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions, entries, stats};
use mindsage_core::demo::{self, DemoOptions};
use mindsage_core::paths;

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

    /// Open the profiler overlay when the window starts (F12 toggles it).
    #[arg(long)]
    pub profiler: bool,

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
        /// Only entries written on or after this day (YYYY-MM-DD).
        #[arg(long, value_parser = parse_day)]
        from: Option<chrono::NaiveDate>,
        /// Only entries written on or before this day (YYYY-MM-DD).
        #[arg(long, value_parser = parse_day)]
        to: Option<chrono::NaiveDate>,
        /// List the trash instead.
        #[arg(long)]
        trash: bool,
    },
    /// Write a new entry. The body comes from --body, or from standard input.
    Add {
        #[arg(long, default_value = "")]
        title: String,
        #[arg(long)]
        body: Option<String>,
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
    /// Bring an entry back from the trash.
    Restore { id: i64 },
    /// Erase an entry permanently (its text is overwritten on disk).
    Purge { id: i64 },
    /// Totals, streaks and words.
    Stats,
    /// Where the journal is and the SQLite settings in effect.
    Info,
    /// Ask the local AI a question about your journal; the answer streams to stdout.
    Ask {
        question: String,
        /// Also print how long each stage took.
        #[arg(long)]
        timings: bool,
    },
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
    let path = database_path(args)?;
    let options = storage_options(args);
    let mut conn = db::open(&path, &options)?;
    let user = DEFAULT_USER;
    match command {
        Command::Seed { entries: n, seed } => {
            let report = demo::seed(
                &mut conn,
                user,
                &DemoOptions {
                    end: chrono::Utc::now(),
                    ..DemoOptions::fixed(n, seed)
                },
            )?;
            print(args, &report, || {
                format!(
                    "added {} demo entries ({} with photos)",
                    report.entries, report.photos
                )
            })
        }
        Command::List {
            limit,
            tag,
            from,
            to,
            trash,
        } => {
            let filter = entries::ListFilter {
                tag,
                from: from.map(clock::local_day_start_utc),
                to: to.map(|d| clock::local_day_start_utc(d + Duration::days(1))),
                trash,
            };
            let page = entries::list(&conn, user, &filter, None, limit.max(1))?;
            print(args, &page.rows, || {
                if page.rows.is_empty() {
                    return "no entries".to_owned();
                }
                page.rows.iter().map(format_row).collect::<Vec<_>>().join("\n")
            })
        }
        Command::Add {
            title,
            body,
            tags,
            mood,
        } => {
            let body = match body {
                Some(body) => body,
                None => {
                    let mut text = String::new();
                    std::io::stdin()
                        .read_to_string(&mut text)
                        .context("reading the body from standard input")?;
                    text
                }
            };
            if title.trim().is_empty() && body.trim().is_empty() {
                bail!("nothing to save: give a --title or a body");
            }
            let entry = entries::NewEntry {
                title,
                body,
                tags,
                mood_score: mood,
                created_at: None,
            };
            let id = entries::create(&mut conn, user, &entry)?;
            print(args, &serde_json::json!({ "id": id }), || {
                format!("saved entry {id}")
            })
        }
        Command::Show { id } => {
            let entry = entries::get(&conn, user, id)?;
            print(args, &entry, || format_entry(&entry))
        }
        Command::Delete { id } => {
            entries::soft_delete(&mut conn, user, id)?;
            print(args, &serde_json::json!({ "id": id, "trashed": true }), || {
                format!("moved entry {id} to the trash (mindsage restore {id} brings it back)")
            })
        }
        Command::Restore { id } => {
            entries::restore(&mut conn, user, id)?;
            print(args, &serde_json::json!({ "id": id, "restored": true }), || {
                format!("restored entry {id}")
            })
        }
        Command::Purge { id } => {
            let report = entries::purge(&mut conn, user, id, options.busy_timeout)?;
            print(
                args,
                &serde_json::json!({ "id": id, "purged": true, "wal_cleared": report.wal_cleared }),
                || {
                    if report.wal_cleared {
                        format!("erased entry {id} permanently")
                    } else {
                        format!(
                            "erased entry {id}; its old pages leave the write-ahead log when the app next goes idle"
                        )
                    }
                },
            )
        }
        Command::Stats => {
            let today = Local::now().date_naive();
            let stats = stats::StatsCache::default().get(&conn, user, today)?;
            print(args, &*stats, || {
                format!(
                    "entries: {}\nwords: {}\ncurrent streak: {} days\nlongest streak: {} days",
                    stats.total_entries, stats.total_words, stats.current_streak, stats.longest_streak
                )
            })
        }
        Command::Ask { question, timings } => ask(args, &mut conn, &question, timings),
        Command::Info => {
            let info = serde_json::json!({
                "database": path,
                "version": env!("CARGO_PKG_VERSION"),
                "pragmas": db::effective_pragmas(&conn)?,
            });
            print(args, &info, || {
                serde_json::to_string_pretty(&info).unwrap_or_default()
            })
        }
    }
}

/// Streams the answer as it is written; `Reset` (a retried call) starts it on a new
/// line, since text already printed cannot be taken back. Saves the exchange as a chat.
fn ask(args: &Args, conn: &mut rusqlite::Connection, question: &str, timings: bool) -> Result<()> {
    use mindsage_core::ai::ask::{self as pipeline, AskEvent};
    use std::io::Write;

    let dir = paths::data_dir(args.data_dir.as_deref()).context("no data folder; pass --data-dir")?;
    let settings =
        mindsage_core::ai::AiSettings::from_settings(&mindsage_core::settings::Settings::load(&dir));
    let client = mindsage_core::ai::OllamaClient::new(&settings)?;
    let stream = !args.json;
    let mut emit = |event: AskEvent| {
        let mut out = std::io::stdout().lock();
        let _ = match event {
            AskEvent::Token(text) if stream => write!(out, "{text}").and_then(|()| out.flush()),
            AskEvent::Reset if stream => writeln!(out, "\n(the answer broke off; asking again)"),
            _ => Ok(()),
        };
    };
    let answer = mindsage_core::ai::block_on(pipeline::ask(
        &client,
        conn,
        DEFAULT_USER,
        question,
        Local::now(),
        &mut emit,
    ))?;
    pipeline::save_chat(conn, DEFAULT_USER, None, &answer)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
        return Ok(());
    }
    println!();
    if !answer.sources.is_empty() {
        println!("\nsources:");
        for s in &answer.sources {
            println!(
                "  #{} {}  {}",
                s.entry_id,
                &s.created_at[..s.created_at.len().min(10)],
                s.title
            );
        }
    }
    if timings {
        let t = &answer.timings;
        let ms = |d: std::time::Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
        println!("\ntimings:");
        for (name, d) in [
            ("plan", t.plan),
            ("embed", t.embed),
            ("search", t.search),
            ("answer", t.answer),
        ] {
            println!("  {name:<12} {}", ms(d));
        }
        println!("  {:<12} {}", "first token", t.first_token.map_or("-".into(), ms));
        println!("  {:<12} {}", "total", ms(t.total));
        println!("  {:<12} {}", "overhead", ms(t.overhead));
        println!(
            "  {:<12} {}{}",
            "model calls",
            answer.model_calls,
            if answer.planned_locally {
                " (planned locally)"
            } else {
                ""
            }
        );
    }
    Ok(())
}

fn print<T: Serialize + ?Sized>(args: &Args, value: &T, text: impl FnOnce() -> String) -> Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(value)?);
    } else {
        println!("{}", text());
    }
    Ok(())
}

fn format_row(row: &entries::EntryRow) -> String {
    let title = if row.title.is_empty() {
        "(untitled)"
    } else {
        &row.title
    };
    let mood = row.mood_score.map_or("  ".to_owned(), |m| format!("{m:>2}"));
    let tags = if row.tags.is_empty() {
        String::new()
    } else {
        format!("  [{}]", row.tags.join(", "))
    };
    format!(
        "{:>6}  {}  {mood}  {title}{tags}",
        row.id,
        &row.created_at[..row.created_at.len().min(10)]
    )
}

fn format_entry(entry: &entries::Entry) -> String {
    let mut out = format!("#{} {}\n{}", entry.id, entry.created_at, entry.title);
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
