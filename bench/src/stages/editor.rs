//! The `editor` stage: typing into a long entry, on the real window code, headless.
//!
//! * `keystroke_frame` (size: the entry's words, 1,000, 10,000 and 50,000): the CPU time
//!   of the frame that shows a typed character, from the key to the tessellated frame
//!   (its layout, the Markdown styling of the text, the page's widgets). The entry is
//!   today's, so the window opens on it with the cursor at the end of its text, as a
//!   person finds it; it is Markdown prose with headings, lists and emphasis, the kind of
//!   text the styling works on. Keys come at a person's pace, one every seventh frame (a
//!   fast typist's eight a second). Typing never pauses long enough for the autosave,
//!   so no save runs during the figure.
//! * `idle_frame` (same sizes): the CPU time of the frames between the keys, which show
//!   no change to the text (the cursor blinking, a repaint for another reason): what a
//!   long entry costs while it is only on screen.

use std::path::Path;

use egui::Event;

use mindsage::app::Startup;
use mindsage::views::View;
use mindsage_core::db::entries::{self, NewEntry};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};

use super::app::{Headless, on_own_thread};
use super::{Recorder, Stage, StageContext};
use crate::run::{Measure, Scenario};
use mindsage_core::timing::Summary;

/// Entry lengths measured, in words.
const WORDS: [usize; 3] = [1_000, 10_000, 50_000];
/// Keystrokes measured per length.
const KEYSTROKES: usize = 200;
/// Frames between two keys: eight keys a second at 60 frames a second.
const FRAMES_PER_KEY: usize = 7;

const NOTE: &str = "CPU time of the frame showing a typed character, layout and tessellation \
                    included; the entry open with the cursor at its end, keys every seventh frame";
const IDLE_NOTE: &str = "CPU time of a frame between two keys (the text unchanged), layout and \
                         tessellation included";
/// The two scenarios: name, note, samples asked for.
const KEYS: (&str, &str, usize) = ("keystroke_frame", NOTE, KEYSTROKES);
const IDLE: (&str, &str, usize) = ("idle_frame", IDLE_NOTE, IDLE_FRAMES);

pub struct Editor;

impl Stage for Editor {
    fn name(&self) -> &'static str {
        "editor"
    }

    fn run(&self, _ctx: &StageContext, out: &mut Recorder) -> anyhow::Result<()> {
        for words in WORDS {
            out.unit(|out| {
                let work = tempfile::tempdir()?;
                let journal = work.path().join("journal.db");
                write_entry(&journal, words)?;
                match on_own_thread(journal, keystroke_frames) {
                    Ok((keys, idle)) => {
                        out.push(scenario(words, KEYS, Ok(keys)));
                        out.push(scenario(words, IDLE, Ok(idle)));
                    }
                    Err(e) => {
                        for measured in [KEYS, IDLE] {
                            out.push(scenario(words, measured, Err(anyhow::anyhow!("{e:#}"))));
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// A journal holding one entry of `words` words, written today.
fn write_entry(journal: &Path, words: usize) -> anyhow::Result<()> {
    let mut conn = db::open(journal, &StorageOptions::default())?;
    let entry = NewEntry {
        body: markdown_prose(words),
        ..NewEntry::default()
    };
    entries::create(&mut conn, DEFAULT_USER, &entry)?;
    Ok(())
}

/// `words` words of journal prose in Markdown: paragraphs of about a hundred words,
/// some emphasis and code, a heading and a list now and then.
fn markdown_prose(words: usize) -> String {
    const VOCABULARY: &[&str] = &[
        "the",
        "morning",
        "rain",
        "walked",
        "river",
        "*quietly*",
        "and",
        "coffee",
        "with",
        "Maya",
        "**long**",
        "day",
        "of",
        "work",
        "`notes`",
        "felt",
        "tired",
        "but",
        "glad",
        "we",
        "talked",
        "about",
        "the",
        "garden",
        "again",
        "later",
        "in",
        "evening",
        "light",
    ];
    let mut text = String::with_capacity(words * 7);
    for i in 0..words {
        if i % 400 == 0 {
            text.push_str("## A new part\n\n");
        } else if i % 100 == 0 {
            text.push_str(".\n\n");
            if i % 300 == 0 {
                text.push_str("- the first thing\n- [ ] the second\n\n");
            }
        } else if i > 0 {
            text.push(' ');
        }
        text.push_str(VOCABULARY[(i * 7 + i / 13) % VOCABULARY.len()]);
    }
    text.push('.');
    text
}

/// Opens the window on the entry and types at its end; the CPU time of each frame that
/// shows a key, and of each frame between them.
fn keystroke_frames(journal: std::path::PathBuf) -> anyhow::Result<(Vec<f64>, Vec<f64>)> {
    let data_dir = journal.parent().map(Path::to_path_buf).unwrap_or_default();
    let startup = Startup {
        today: true,
        ..Startup::on_view(data_dir, View::Journal)
    };
    let mut app = Headless::open_startup(&journal, startup);
    app.until_rows()?;
    let started = std::time::Instant::now();
    while !(app.app.writing() && app.app.page_entry().is_some()) {
        anyhow::ensure!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the page never opened on the entry with the cursor in its text"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
        app.frame(Vec::new());
    }
    // The cursor moves to the end of the text in the frame after the entry arrives.
    app.frame(Vec::new());
    let mut keys = Vec::with_capacity(KEYSTROKES);
    let mut idle = Vec::with_capacity(KEYSTROKES * (FRAMES_PER_KEY - 1));
    for key in 0..KEYSTROKES {
        let typed = if key % 6 == 5 { " " } else { "a" };
        keys.push(app.frame(vec![Event::Text(typed.to_owned())]).as_secs_f64() * 1e3);
        for _ in 1..FRAMES_PER_KEY {
            idle.push(app.frame(Vec::new()).as_secs_f64() * 1e3);
        }
    }
    Ok((keys, idle))
}

/// Idle frames measured per length: those between the keys.
const IDLE_FRAMES: usize = KEYSTROKES * (FRAMES_PER_KEY - 1);

fn scenario(
    words: usize,
    (name, note, requested): (&str, &str, usize),
    samples: anyhow::Result<Vec<f64>>,
) -> Scenario {
    let measure = match samples.map(|s| Summary::from_ms(&s)) {
        Ok(Some(stats)) => Measure::Timing {
            stats,
            requested,
            budget_exhausted: false,
        },
        Ok(None) => Measure::Failed {
            error: "no samples".to_owned(),
        },
        Err(e) => Measure::Failed {
            error: format!("{e:#}"),
        },
    };
    Scenario::new("editor", Some(words), name, measure, Some(note.to_owned()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_prose_has_the_words_asked_for() {
        let text = super::markdown_prose(1_000);
        let words = text
            .split_whitespace()
            .filter(|w| !w.starts_with(['#', '-', '[']))
            .count();
        assert!((1_000..1_050).contains(&words), "{words}");
    }
}
