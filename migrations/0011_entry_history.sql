-- Version 11: entry history. Before a save replaces an entry's title, body or tags, the
-- text it replaces is kept here, once per editing session (a save within minutes of the
-- last kept version keeps nothing more, so autosave does not keep every pause). Versions
-- of the last 90 days are all kept, older ones one per month of writing. The rows go
-- with the entry (ON DELETE CASCADE): purge erases its history too, and secure_delete
-- zeroes the freed pages.
CREATE TABLE entry_versions (
    id          INTEGER PRIMARY KEY,
    entry_id    INTEGER NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
    -- When this text was saved (the entry's updated_at then), and when it was kept.
    written_at  TEXT NOT NULL,
    kept_at     TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    -- The tag names then, separated by char(31) as in journal_entries.tag_names.
    tag_names   TEXT NOT NULL
);
CREATE INDEX idx_entry_versions ON entry_versions (entry_id, kept_at);
