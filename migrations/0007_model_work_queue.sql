-- Version 7: saves queue the model's work, and a result belongs to the text it was made from.
--
-- `revision` counts the saves that changed an entry's title, body or tags. A model job
-- reads it with the text and writes its result only if it is unchanged, so an edit saved
-- while the model was working is never covered by a summary or vector of the old text.
--
-- The queue is worked newest entry first (a backfill of thousands makes the entries a
-- person is most likely to look for searchable first), embeddings before enrichment:
-- each job carries its entry's date so the next batch is one walk along an index, not a
-- sort of every pending job.

ALTER TABLE journal_entries ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

ALTER TABLE ai_jobs ADD COLUMN entry_created_at TEXT NOT NULL DEFAULT '';
UPDATE ai_jobs SET entry_created_at = coalesce(
    (SELECT created_at FROM journal_entries WHERE id = ai_jobs.entry_id), '');

DROP INDEX idx_ai_jobs_queue;
CREATE INDEX idx_ai_jobs_next ON ai_jobs (state, kind, entry_created_at DESC, id DESC);

-- Live entries with no summary yet: the enrichment backfill walks these, not the table.
CREATE INDEX idx_entries_unenriched ON journal_entries (user_id, id)
    WHERE summary IS NULL AND is_deleted = 0;
