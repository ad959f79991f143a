-- Version 18: templates, the text a new page can start from.
--
-- In the journal, not in settings.json: a template is the person's writing (encrypted
-- with the journal, in its backups), and follows the journal to another computer.
-- weekdays is a set of days as bits, Monday the lowest: a new page on such a day starts
-- from the template. Four to start from are written here; the person changes or deletes
-- them like their own.

CREATE TABLE templates (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    body        TEXT NOT NULL,
    weekdays    INTEGER NOT NULL DEFAULT 0 CHECK (weekdays BETWEEN 0 AND 127),
    updated_at  TEXT NOT NULL
);
CREATE INDEX idx_templates_user ON templates (user_id, name);

INSERT INTO templates (user_id, name, body, weekdays, updated_at)
SELECT id, 'Morning pages', '# Morning, {{weekday}}' || char(10) || char(10)
       || 'How I slept: ' || char(10) || 'On my mind: ' || char(10) || 'Today I want to: ' || char(10),
       0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM profiles;
INSERT INTO templates (user_id, name, body, weekdays, updated_at)
SELECT id, 'Three good things', '# Three good things' || char(10) || char(10)
       || '1. ' || char(10) || '2. ' || char(10) || '3. ' || char(10),
       0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM profiles;
INSERT INTO templates (user_id, name, body, weekdays, updated_at)
SELECT id, 'Evening review', '# {{date}}' || char(10) || char(10)
       || 'What happened: ' || char(10) || 'What I learned: ' || char(10) || 'Tomorrow: ' || char(10),
       0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM profiles;
INSERT INTO templates (user_id, name, body, weekdays, updated_at)
SELECT id, 'Weekly review', '# The week to {{date}}' || char(10) || char(10)
       || '- What went well: ' || char(10) || '- What did not: ' || char(10)
       || '- Who I saw: ' || char(10) || '- Next week: ' || char(10),
       0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM profiles;
