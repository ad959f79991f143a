-- Version 20: what the journal remembers: the people, places and activities its entries
-- mention, found by the model's enrichment (one call per entry, as before) and corrected
-- by the person.
--
-- memory_subjects holds each one once ("Maya", "the lake house", "running"); the words
-- the journal uses for it ("maya", "sister", "mum": lower case, a leading "my" dropped)
-- point at it from memory_names, which is how an entry that says only "my sister" is
-- linked to Maya; memory_mentions links subjects to the entries that mention them, with
-- the words used and where they stand in the text.
--
-- What the person changes is theirs (by_user): a renamed, related, hidden, merged or
-- split subject, the names a merge brought together and the mentions a split moved.
-- The model's next pass over an entry replaces only its own mentions and never changes
-- a subject the person touched. A subject the model made goes with its last mention
-- (a purged entry takes with it what only it said); one the person touched stays.
-- Everything here lives in the journal file: encrypted with it, in its backups, and
-- purged with its entries (ON DELETE CASCADE and secure_delete).

CREATE TABLE memory_subjects (
    id        INTEGER PRIMARY KEY,
    user_id   INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('person', 'place', 'activity')),
    name      TEXT NOT NULL,
    -- How the writer is related to a person ("sister"), '' when no entry says.
    relation  TEXT NOT NULL DEFAULT '',
    hidden    INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    by_user   INTEGER NOT NULL DEFAULT 0 CHECK (by_user IN (0, 1))
);
CREATE INDEX idx_memory_subjects ON memory_subjects (user_id, kind, name);

CREATE TABLE memory_names (
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    subject_id  INTEGER NOT NULL REFERENCES memory_subjects(id) ON DELETE CASCADE,
    by_user     INTEGER NOT NULL DEFAULT 0 CHECK (by_user IN (0, 1)),
    PRIMARY KEY (user_id, kind, key)
) WITHOUT ROWID;
CREATE INDEX idx_memory_names_subject ON memory_names (subject_id);

-- entry_created_at is a copy of the entry's, as in entry_tags: a subject's entries are
-- walked newest first from the index alone.
CREATE TABLE memory_mentions (
    entry_id          INTEGER NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
    subject_id        INTEGER NOT NULL REFERENCES memory_subjects(id) ON DELETE CASCADE,
    -- The words the entry uses ("my sister") and the byte offset where they first stand
    -- in its body (NULL when the model's words are not in the text as written).
    phrase            TEXT NOT NULL,
    position          INTEGER,
    by_user           INTEGER NOT NULL DEFAULT 0 CHECK (by_user IN (0, 1)),
    entry_created_at  TEXT NOT NULL,
    PRIMARY KEY (entry_id, subject_id)
) WITHOUT ROWID;
CREATE INDEX idx_memory_mentions_subject ON memory_mentions (subject_id, entry_created_at DESC, entry_id DESC);

CREATE TRIGGER memory_mentions_follow_created_at AFTER UPDATE OF created_at ON journal_entries
BEGIN
    UPDATE memory_mentions SET entry_created_at = NEW.created_at WHERE entry_id = NEW.id;
END;

CREATE TRIGGER memory_subject_goes_with_its_last_mention AFTER DELETE ON memory_mentions
BEGIN
    DELETE FROM memory_subjects
    WHERE id = OLD.subject_id AND by_user = 0
      AND NOT EXISTS (SELECT 1 FROM memory_mentions WHERE subject_id = OLD.subject_id);
END;

-- The text model whose enrichment the entry's memory comes from; NULL until one has
-- read it. Entries read by no model or another one are queued for enrichment again
-- (journals from before this version, imports, a new model).
ALTER TABLE journal_entries ADD COLUMN memory_model TEXT;

-- The queue's search for such entries reads this narrow index (see version 8): live
-- entries by the model that read them, every column the search names. It replaces the
-- index of entries without a summary: an entry no model read has neither.
DROP INDEX idx_entries_unenriched;
CREATE INDEX idx_entries_unremembered ON journal_entries (user_id, memory_model, created_at, id, is_deleted)
    WHERE is_deleted = 0;
