-- Version 5: the restore trigger reads an entry's tag names with a correlated subquery.
--
-- The entry_tag_text view grouped all of entry_tags, and SQLite runs such a view as a
-- scan of the whole table before picking one entry's row: a full scan per restore,
-- found by the query-plan test. A subquery filtered by entry_id uses the primary key.

DROP TRIGGER entries_fts_restore;
DROP VIEW entry_tag_text;

CREATE TRIGGER entries_fts_restore AFTER UPDATE OF is_deleted ON journal_entries
WHEN NEW.is_deleted = 0 AND OLD.is_deleted = 1
BEGIN
    INSERT INTO entries_fts (rowid, title, body, tags)
    VALUES (NEW.id, NEW.title, NEW.body,
            coalesce((SELECT group_concat(t.name, ' ') FROM entry_tags AS et
                      JOIN tags AS t ON t.id = et.tag_id WHERE et.entry_id = NEW.id), ''));
END;
