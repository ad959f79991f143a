-- Search, version 3: full-text over title, body and tags, live entries only, and the
-- registry of embedding models whose vectors are stored in sqlite-vec tables.
--
-- The index now keeps its own copy of the text (a regular FTS5 table) so tags can be
-- indexed with the entry and snippets can be cut from any column; the cost is disk
-- space, recorded in docs/optimisation-log.md. Trashed entries leave the index (and
-- their vectors are removed by the code that trashes them), so search never finds
-- them and pays nothing for them; restoring puts them back. secure-delete removes a
-- deleted row's terms at once, so purged words do not linger in index pages.

DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_delete;
DROP TRIGGER entries_fts_update;
DROP TABLE entries_fts;

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    title, body, tags,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO entries_fts (entries_fts, rank) VALUES ('secure-delete', 1);

-- The space-separated tag names of an entry, as indexed.
CREATE VIEW entry_tag_text AS
SELECT et.entry_id AS entry_id, group_concat(t.name, ' ') AS tags
FROM entry_tags AS et JOIN tags AS t ON t.id = et.tag_id
GROUP BY et.entry_id;

INSERT INTO entries_fts (rowid, title, body, tags)
SELECT e.id, e.title, e.body, coalesce((SELECT tags FROM entry_tag_text WHERE entry_id = e.id), '')
FROM journal_entries AS e WHERE e.is_deleted = 0;

CREATE TRIGGER entries_fts_insert AFTER INSERT ON journal_entries WHEN NEW.is_deleted = 0
BEGIN
    INSERT INTO entries_fts (rowid, title, body, tags) VALUES (NEW.id, NEW.title, NEW.body, '');
END;

CREATE TRIGGER entries_fts_text AFTER UPDATE OF title, body ON journal_entries WHEN NEW.is_deleted = 0
BEGIN
    UPDATE entries_fts SET title = NEW.title, body = NEW.body WHERE rowid = NEW.id;
END;

CREATE TRIGGER entries_fts_trash AFTER UPDATE OF is_deleted ON journal_entries
WHEN NEW.is_deleted = 1 AND OLD.is_deleted = 0
BEGIN
    DELETE FROM entries_fts WHERE rowid = NEW.id;
END;

CREATE TRIGGER entries_fts_restore AFTER UPDATE OF is_deleted ON journal_entries
WHEN NEW.is_deleted = 0 AND OLD.is_deleted = 1
BEGIN
    INSERT INTO entries_fts (rowid, title, body, tags)
    VALUES (NEW.id, NEW.title, NEW.body,
            coalesce((SELECT tags FROM entry_tag_text WHERE entry_id = NEW.id), ''));
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON journal_entries
BEGIN
    DELETE FROM entries_fts WHERE rowid = OLD.id;
END;

CREATE TRIGGER entries_fts_tag_added AFTER INSERT ON entry_tags
BEGIN
    UPDATE entries_fts SET tags = coalesce((SELECT tags FROM entry_tag_text WHERE entry_id = NEW.entry_id), '')
    WHERE rowid = NEW.entry_id;
END;

CREATE TRIGGER entries_fts_tag_removed AFTER DELETE ON entry_tags
BEGIN
    UPDATE entries_fts SET tags = coalesce((SELECT tags FROM entry_tag_text WHERE entry_id = OLD.entry_id), '')
    WHERE rowid = OLD.entry_id;
END;

-- One row per embedding model whose vectors this journal holds. Each model's vectors
-- live in their own sqlite-vec table, vec_entries_<id>, created at run time (not here)
-- so a journal still opens where the extension cannot load. 'active' is the set search
-- uses; a new model's set is 'building' until it covers every live entry, then it
-- replaces the old one, so search never compares vectors of two models.
CREATE TABLE vector_models (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    model       TEXT NOT NULL,
    dim         INTEGER NOT NULL CHECK (dim > 0),
    state       TEXT NOT NULL CHECK (state IN ('building', 'active')),
    created_at  TEXT NOT NULL,
    UNIQUE (user_id, model)
);

-- Every vector write, in order, so in-memory copies of a vector set can catch up with
-- the file by reading only what changed since they last looked.
CREATE TABLE vector_changes (
    seq       INTEGER PRIMARY KEY,
    model_id  INTEGER NOT NULL,
    entry_id  INTEGER NOT NULL
);
CREATE INDEX idx_vector_changes_model ON vector_changes (model_id, seq);
