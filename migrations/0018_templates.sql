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
SELECT p.id, t.column1, replace(t.column2, '\n', char(10)), 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM profiles AS p CROSS JOIN (VALUES
    ('Morning pages', '# Morning, {{weekday}}\n\nHow I slept: \nOn my mind: \nToday I want to: \n'),
    ('Three good things', '# Three good things\n\n1. \n2. \n3. \n'),
    ('Evening review', '# {{date}}\n\nWhat happened: \nWhat I learned: \nTomorrow: \n'),
    ('Weekly review', '# The week to {{date}}\n\n- What went well: \n- What did not: \n- Who I saw: \n- Next week: \n')
) AS t;
