-- Version 17: words in scripts written without spaces (Chinese, Japanese, Thai, Korean
-- with its particles) are found.
--
-- unicode61 takes a run of such characters whole, so "今日は東京に行った" was one term
-- and 東京 matched nothing. The code that writes an entry's full-text row now writes
-- each such run as its overlapping pairs of characters and its last character
-- (search::scripts::for_index, search_text here); the rows that hold any are written
-- again. The stored text is not changed: only what the index holds.
--
-- The restore trigger copied the text into the index in SQL, which cannot split it:
-- restoring now writes the row in code (entries::restore), as saving has since
-- version 4.

DROP TRIGGER entries_fts_restore;

UPDATE entries_fts
SET title = search_text(title), body = search_text(body), tags = search_text(tags)
WHERE search_text(title) <> title OR search_text(body) <> body OR search_text(tags) <> tags;
