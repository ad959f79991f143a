//! Templates: text a new page can start from, with placeholders filled in when it does
//! (`{{date}}`, `{{weekday}}`, `{{time}}`, `{{prompt}}`), and the weekdays on which a new
//! page starts from one by itself. They live in the journal (migration 18): the
//! person's writing, encrypted and backed up with it.

use chrono::{DateTime, Datelike, FixedOffset};
use rusqlite::{Connection, params};

use super::queries::{TEMPLATE_DELETE, TEMPLATE_INSERT, TEMPLATE_UPDATE, TEMPLATES_ALL};
use super::{DbError, Result, UserId};
use crate::clock;

/// Longest template name, in characters.
const MAX_NAME_CHARS: usize = 80;

/// A template as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    /// 0 for one not saved yet.
    pub id: i64,
    pub name: String,
    pub body: String,
    /// The days a new page starts from it: bit 0 Monday … bit 6 Sunday.
    pub weekdays: u8,
}

impl Template {
    /// Whether a new page on `day` starts from it.
    pub fn on(&self, day: chrono::Weekday) -> bool {
        self.weekdays & (1 << day.num_days_from_monday()) != 0
    }

    /// Sets whether a new page on `day` starts from it.
    pub fn set_on(&mut self, day: chrono::Weekday, on: bool) {
        let bit = 1 << day.num_days_from_monday();
        self.weekdays = if on {
            self.weekdays | bit
        } else {
            self.weekdays & !bit
        };
    }

    /// The body with its placeholders filled for a page of `when`; `prompt` is the
    /// day's question to start from. A placeholder not known stays as written.
    pub fn fill(&self, when: DateTime<FixedOffset>, prompt: &str) -> String {
        self.body
            .replace("{{date}}", &when.format("%A, %-d %B %Y").to_string())
            .replace("{{weekday}}", &when.format("%A").to_string())
            .replace("{{time}}", &when.format("%H:%M").to_string())
            .replace("{{prompt}}", prompt)
    }
}

/// `user`'s templates, by name.
pub fn list(conn: &Connection, user: UserId) -> Result<Vec<Template>> {
    let mut stmt = conn.prepare_cached(TEMPLATES_ALL.sql)?;
    let rows = stmt
        .query_map(params![user], |row| {
            Ok(Template {
                id: row.get(0)?,
                name: row.get(1)?,
                body: row.get(2)?,
                weekdays: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Saves `template` (a new one when its id is 0); returns its id. Its name is trimmed
/// and must not be empty.
pub fn save(conn: &Connection, user: UserId, template: &Template) -> Result<i64> {
    let name = template.name.trim();
    if name.is_empty() {
        return Err(DbError::Invalid("a template needs a name".to_owned()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(DbError::Invalid(format!(
            "a template's name is at most {MAX_NAME_CHARS} characters"
        )));
    }
    let weekdays = template.weekdays & 0x7f;
    if template.id == 0 {
        conn.prepare_cached(TEMPLATE_INSERT.sql)?.execute(params![
            user,
            name,
            template.body,
            weekdays,
            clock::now_utc()
        ])?;
        return Ok(conn.last_insert_rowid());
    }
    let changed = conn.prepare_cached(TEMPLATE_UPDATE.sql)?.execute(params![
        user,
        template.id,
        name,
        template.body,
        weekdays,
        clock::now_utc()
    ])?;
    if changed == 0 {
        return Err(DbError::Invalid("that template was deleted meanwhile".to_owned()));
    }
    Ok(template.id)
}

/// Deletes template `id`; deleting one already gone does nothing.
pub fn delete(conn: &Connection, user: UserId, id: i64) -> Result<()> {
    conn.prepare_cached(TEMPLATE_DELETE.sql)?
        .execute(params![user, id])?;
    Ok(())
}

/// The template a new page on `day` starts from: the first by name marked for that day.
pub fn for_day(templates: &[Template], day: impl Datelike) -> Option<&Template> {
    templates.iter().find(|t| t.on(day.weekday()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Weekday};

    #[test]
    fn placeholders_are_filled_and_unknown_ones_stay() {
        let template = Template {
            body: "# {{weekday}} {{date}} at {{time}}\n{{prompt}} {{mood}}".into(),
            ..Template::default()
        };
        let when = FixedOffset::east_opt(3600)
            .unwrap()
            .with_ymd_and_hms(2026, 12, 6, 7, 5, 0)
            .unwrap();
        assert_eq!(
            template.fill(when, "What woke you?"),
            "# Sunday Sunday, 6 December 2026 at 07:05\nWhat woke you? {{mood}}"
        );
    }

    #[test]
    fn weekdays_are_bits_from_monday() {
        let mut template = Template::default();
        template.set_on(Weekday::Sun, true);
        template.set_on(Weekday::Mon, true);
        assert_eq!(template.weekdays, 0b100_0001);
        assert!(template.on(Weekday::Sun) && !template.on(Weekday::Tue));
        template.set_on(Weekday::Sun, false);
        assert_eq!(template.weekdays, 1);
    }
}
