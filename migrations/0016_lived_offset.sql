-- Version 16: every entry keeps the UTC offset of the place it was written.
--
-- Until now an entry held its instant (created_at, UTC) and the day it counts for
-- (local_date), but not its local time: lists printed the UTC date, filters used this
-- computer's days and the window this computer's clock, so an entry imported from Tokyo,
-- or written at 23:59 in New York, showed on another day than it was lived. utc_offset
-- (seconds east of UTC) makes created_at + utc_offset the entry's local date and time
-- (clock::lived), the one rule every date shown, filtered and exported follows.
--
-- An earlier entry's offset is not known. lived_offset (registered by db/migrate.rs,
-- clock::lived_on) gives this computer's offset at its instant when that puts it on its
-- local_date (it was written here), else the whole hour nearest to it that does: its day
-- stays the day it was lived.
ALTER TABLE journal_entries ADD COLUMN utc_offset INTEGER NOT NULL DEFAULT 0;
UPDATE journal_entries SET utc_offset = lived_offset(created_at, local_date);

-- The list index carries the offset (every list row shows its local time) and the day
-- (a date filter is on the days lived), so a page still reads this one index alone.
DROP INDEX idx_entries_list;
CREATE INDEX idx_entries_list ON journal_entries (
    user_id, is_deleted, created_at DESC, id DESC,
    title, preview, mood_score, word_count, deleted_at, tag_names, utc_offset, local_date
);
