-- Version 14: a new entry counts into its day without an upsert.
--
-- The daily-stats trigger of version 1 added an entry to its day with `INSERT … ON
-- CONFLICT DO UPDATE`. SQLite runs an upsert's update with ABORT conflict handling
-- whatever the statement that fired the trigger asked for, so every new entry's INSERT
-- kept a statement journal: a copy of each page it touched, in case that one statement
-- had to be undone alone, which an import's `INSERT OR ROLLBACK` (its connection has
-- the foreign keys' checks off) never needs. The day's row is now counted into, and made only when there is none; both
-- statements take the firing statement's conflict handling, as trigger statements do.
-- (Testing for the row with `changes()` instead of NOT EXISTS brings the statement
-- journal back, so it is not used.)
DROP TRIGGER daily_stats_insert;
CREATE TRIGGER daily_stats_insert AFTER INSERT ON journal_entries WHEN NEW.is_deleted = 0
BEGIN
    UPDATE daily_stats SET
        entries = entries + 1,
        words = words + NEW.word_count,
        mood_sum = mood_sum + coalesce(NEW.mood_score, 0),
        mood_count = mood_count + (NEW.mood_score IS NOT NULL)
    WHERE user_id = NEW.user_id AND local_date = NEW.local_date;
    INSERT INTO daily_stats (user_id, local_date, entries, words, mood_sum, mood_count)
    SELECT NEW.user_id, NEW.local_date, 1, NEW.word_count, coalesce(NEW.mood_score, 0),
           NEW.mood_score IS NOT NULL
    WHERE NOT EXISTS (SELECT 1 FROM daily_stats
                      WHERE user_id = NEW.user_id AND local_date = NEW.local_date);
END;
