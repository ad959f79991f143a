-- Version 8: finding the entries that still need the model's work reads small indexes.
--
-- Each time the job runner starts it looks for live entries with no summary and for
-- live entries with no embedding. Both searches read far more than they needed:
-- - the partial index of version 7 held only (user_id, id), so SQLite preferred the
--   list index and read each entry's table row to test `summary`, every body in the
--   journal at each start;
-- - the embedding search walked the list index, whose rows carry titles, previews and
--   tags for the journal's pages.
-- On a large journal that put the whole file into the window's memory (the mapped
-- pages count in its RSS) and took the disk from the page the person was waiting for.
--
-- The partial index now holds every column its query names (the last two are constant
-- inside it and cost nothing), and a narrow partial index of live entries serves the
-- embedding search. It is ordered by id, not date, so the journal's pages (newest
-- first) never prefer it to the list index they read alone.

DROP INDEX idx_entries_unenriched;
CREATE INDEX idx_entries_unenriched ON journal_entries (user_id, created_at, id, is_deleted, summary)
    WHERE summary IS NULL AND is_deleted = 0;

CREATE INDEX idx_entries_live ON journal_entries (user_id, id, created_at, is_deleted)
    WHERE is_deleted = 0;
