-- Version 21: reflections, the model's short look back over each week and month that
-- has ended, written in the background from the period's summaries.
--
-- One row per period with entries: made pending when the period has ended (the job
-- runner queues them from daily_stats), and pending again whenever an entry of the
-- period is added, trashed or restored, moved to another day, or given a new summary
-- (triggers below), so the reflection always speaks of the entries as they are. The row
-- is its own queue entry: the runner writes the sentences only if `revision` is still
-- what it read. `sentences` is JSON: [{"text": "...", "entries": [entry ids]}], each
-- sentence with the entries it came from.
--
-- The triggers look a period up by its last day, which is at most 31 days after any of
-- its days: a bounded walk of the index, whatever the number of reflections (an import
-- of old entries into a journal of years fires them once per entry).
--
-- A purged entry's summary may have given a reflection its words: the purge empties the
-- reflections of its week and month (secure_delete overwrites them) and queues them
-- again, so nothing it said stays in the file.

CREATE TABLE reflections (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    period     TEXT NOT NULL CHECK (period IN ('week', 'month')),
    first_day  TEXT NOT NULL,
    last_day   TEXT NOT NULL,
    state      TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
    attempts   INTEGER NOT NULL DEFAULT 0,
    -- Why the last attempt failed, never entry text.
    error      TEXT,
    revision   INTEGER NOT NULL DEFAULT 0,
    sentences  TEXT NOT NULL DEFAULT '[]',
    -- The text model that wrote it, and when (UTC).
    model      TEXT,
    made_at    TEXT,
    UNIQUE (user_id, period, first_day)
);
CREATE INDEX idx_reflections_days ON reflections (user_id, last_day);
CREATE INDEX idx_reflections_queue ON reflections (state, last_day);

CREATE TRIGGER reflections_entry_insert AFTER INSERT ON journal_entries WHEN NEW.is_deleted = 0
BEGIN
    UPDATE reflections SET state = 'pending', attempts = 0, revision = revision + 1
    WHERE user_id = NEW.user_id AND last_day BETWEEN NEW.local_date AND date(NEW.local_date, '+31 days')
      AND first_day <= NEW.local_date;
END;

CREATE TRIGGER reflections_entry_update
AFTER UPDATE OF summary, is_deleted, local_date ON journal_entries
WHEN OLD.summary IS NOT NEW.summary OR OLD.is_deleted != NEW.is_deleted
     OR OLD.local_date != NEW.local_date
BEGIN
    UPDATE reflections SET state = 'pending', attempts = 0, revision = revision + 1
    WHERE user_id = NEW.user_id
      AND ((last_day BETWEEN NEW.local_date AND date(NEW.local_date, '+31 days')
            AND first_day <= NEW.local_date)
           OR (last_day BETWEEN OLD.local_date AND date(OLD.local_date, '+31 days')
            AND first_day <= OLD.local_date));
END;

CREATE TRIGGER reflections_entry_purge AFTER DELETE ON journal_entries
BEGIN
    UPDATE reflections SET state = 'pending', attempts = 0, revision = revision + 1,
                           sentences = '[]', model = NULL, made_at = NULL
    WHERE user_id = OLD.user_id AND last_day BETWEEN OLD.local_date AND date(OLD.local_date, '+31 days')
      AND first_day <= OLD.local_date;
END;
