-- Search index, version 4: one index write per save.
--
-- Version 3 kept entries_fts in step with triggers on every tag link, so saving an
-- entry with three tags rewrote its index row four times (and an edit, seven), each
-- rewrite a secure delete of every term: milliseconds per save. The code that saves an
-- entry now writes its index row once, after its tags are known (entries::create and
-- entries::update). Trash, restore and purge are single statements and keep their
-- triggers.

DROP TRIGGER entries_fts_insert;
DROP TRIGGER entries_fts_text;
DROP TRIGGER entries_fts_tag_added;
DROP TRIGGER entries_fts_tag_removed;
