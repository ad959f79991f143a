-- Version 6: a list page reads one index and nothing else.
--
-- Each list row used to look up its entry's table row (for title and preview) and then
-- its tags through a correlated subquery: three B-tree searches per row, fifty rows a
-- page. The entry now carries its tag names (kept by the code that links tags, in the
-- same transaction), and the list index holds every column a list row shows, so a page
-- is one walk along one index.

ALTER TABLE journal_entries ADD COLUMN tag_names TEXT NOT NULL DEFAULT '';

UPDATE journal_entries SET tag_names = coalesce(
    (SELECT group_concat(t.name, char(31)) FROM entry_tags AS et
     JOIN tags AS t ON t.id = et.tag_id WHERE et.entry_id = journal_entries.id), '');

DROP INDEX idx_entries_list;
CREATE INDEX idx_entries_list ON journal_entries (
    user_id, is_deleted, created_at DESC, id DESC,
    title, preview, mood_score, word_count, deleted_at, tag_names
);
