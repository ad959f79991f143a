-- Version 10: an imported entry remembers where it came from, so importing the same
-- export twice adds nothing.
--
-- Another app's id for the entry (Day One's uuid, a Markdown file's path, a hash of a
-- jrnl entry's date and text) is the first key; a hash of the entry's time, title and
-- body is the second, so the same entry reached through another export (a Day One
-- zip, then its Markdown export) is also recognised. The row goes with the entry
-- (ON DELETE CASCADE): a purged entry can be imported again.
CREATE TABLE imported_entries (
    entry_id      INTEGER PRIMARY KEY REFERENCES journal_entries(id) ON DELETE CASCADE,
    source        TEXT NOT NULL,
    external_id   TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    imported_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX idx_imported_external ON imported_entries (source, external_id);
CREATE INDEX idx_imported_hash ON imported_entries (content_hash);
