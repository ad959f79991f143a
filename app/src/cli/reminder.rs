//! `mindsage remind` (what the system's scheduler runs) and `mindsage reminder` (the
//! reminder set from a terminal, as Settings → Reminder sets it).

use std::path::Path;

use anyhow::{Context, Result, bail};
use chrono::Weekday;

use mindsage_core::db::StorageOptions;
use mindsage_core::reminder::{Reminder, WEEK};
use mindsage_core::settings::Settings;

use super::Args;
use crate::reminders::{self, Answer, Reminded};

/// Shows the reminder for the journal at `path`, unless today's page is written. The
/// journal is opened as for any command; one that cannot be (encrypted, and nobody at
/// a terminal to give its passphrase) gets the reminder without its streak.
pub fn remind(args: &Args, path: &Path, options: StorageOptions) -> Result<()> {
    let data_dir = super::data_dir(args)?;
    let journal = if path.exists() {
        super::open(args, path, options).and_then(|(conn, _)| Ok(reminders::streak(&conn)?))
    } else {
        Ok((0, false))
    };
    let journal = journal
        .inspect_err(|error| tracing::info!(%error, "the reminder goes without the streak"))
        .ok();
    let reminded = reminders::remind(journal, &data_dir).map_err(anyhow::Error::msg)?;
    super::print(args, &outcome(&reminded), || match &reminded {
        Reminded::AlreadyWritten => "Today's page is written: no reminder.".to_owned(),
        Reminded::Shown(notice, answer) => format!(
            "Reminded: {}. {}{}",
            notice.title,
            notice.body,
            match answer {
                Answer::Opened => " Opened today's page.",
                Answer::Dismissed => " Dismissed.",
                Answer::Unknown => "",
            }
        ),
    })
}

/// `--json`'s form of what happened.
fn outcome(reminded: &Reminded) -> serde_json::Value {
    match reminded {
        Reminded::AlreadyWritten => serde_json::json!({ "shown": false }),
        Reminded::Shown(notice, answer) => serde_json::json!({
            "shown": true,
            "title": notice.title,
            "body": notice.body,
            "answer": format!("{answer:?}").to_lowercase(),
        }),
    }
}

/// Sets the reminder (at `at` on `days`), turns it off, or with neither says what it
/// is; saved in the settings and handed to the system's scheduler.
pub fn set(args: &Args, at: Option<&str>, days: Option<&str>, off: bool) -> Result<()> {
    let data_dir = super::data_dir(args)?;
    let mut settings = Settings::load(&data_dir)
        .context("the reminder is kept in the settings file, which must be fixed first")?;
    let before = settings.reminder.clone();
    if off {
        settings.reminder.enabled = false;
    } else if at.is_some() || days.is_some() {
        settings.reminder = Reminder {
            enabled: true,
            at: match at {
                Some(text) => mindsage_core::clock::parse_time(text)
                    .with_context(|| format!("\"{text}\" is not a time: write it as 20:00"))?,
                None => before.at,
            },
            days: match days {
                Some(text) => parse_days(text)?,
                None => before.days.clone(),
            },
        };
    }
    let said = match reminders::schedule(&before, &settings.reminder, &data_dir) {
        Some(scheduled) => scheduled.map_err(anyhow::Error::msg)?,
        None if settings.reminder.scheduled() => format!("Reminder: {}.", settings.reminder.describe()),
        None => {
            if off {
                reminders::remove_any();
            }
            "Reminder off.".to_owned()
        }
    };
    if settings.reminder != before {
        settings
            .save(&data_dir)
            .with_context(|| format!("saving the settings in {}", data_dir.display()))?;
    }
    super::print(args, &settings.reminder, || said)
}

/// Days as typed: `every-day`, `weekdays`, `weekends`, or names like `mon,wed,fri`.
fn parse_days(text: &str) -> Result<Vec<Weekday>> {
    match text.trim().to_lowercase().as_str() {
        "every-day" | "daily" => return Ok(WEEK.to_vec()),
        "weekdays" => return Ok(WEEK[..5].to_vec()),
        "weekends" => return Ok(WEEK[5..].to_vec()),
        _ => {}
    }
    let days = text
        .split(',')
        .map(|name| {
            name.trim().parse::<Weekday>().map_err(|_| {
                anyhow::anyhow!("\"{}\" is not a day: write mon, tue, … or weekdays", name.trim())
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if days.is_empty() {
        bail!("no days given");
    }
    Ok(days)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_read_as_people_write_them() {
        assert_eq!(parse_days("weekdays").unwrap(), WEEK[..5].to_vec());
        assert_eq!(
            parse_days("Mon, wed,FRI").unwrap(),
            vec![Weekday::Mon, Weekday::Wed, Weekday::Fri]
        );
        assert_eq!(parse_days("every-day").unwrap(), WEEK.to_vec());
        let error = parse_days("mon,someday").unwrap_err().to_string();
        assert!(error.contains("\"someday\" is not a day"), "{error}");
    }
}
