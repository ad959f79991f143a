-- Full-text index over title and body. External content: the text is stored once, in
-- journal_entries; the index holds only terms. secure-delete makes FTS5 remove a deleted
-- row's terms from the index at once instead of leaving them behind a delete marker,
-- so a purged entry's words do not survive in the index.

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, body,
    content = 'journal_entries', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts (entries_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO entries_fts (rowid, title, body) SELECT id, title, body FROM journal_entries;

CREATE TRIGGER entries_fts_insert AFTER INSERT ON journal_entries
BEGIN
    INSERT INTO entries_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON journal_entries
BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body)
    VALUES ('delete', OLD.id, OLD.title, OLD.body);
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF title, body ON journal_entries
BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, title, body)
    VALUES ('delete', OLD.id, OLD.title, OLD.body);
    INSERT INTO entries_fts (rowid, title, body) VALUES (NEW.id, NEW.title, NEW.body);
END;
