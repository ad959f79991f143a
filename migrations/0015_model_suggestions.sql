-- Version 15: what the local model suggests is stored apart from what the person set.
-- Until now enrichment wrote its mood into mood_score when the person had chosen none and
-- linked its mood words as ordinary tags, so the model's guesses became the person's own
-- values, indistinguishable from them. Now it writes them here; the editor shows them as
-- suggestions, and only the person's accepting one copies it into mood_score or the tags.
-- Dismissing a suggestion clears it and is remembered in dismissed_suggestions, so the
-- model's next pass over the entry (after an edit) does not offer it again. (The model's title keeps living in `title` while
-- title_by_user = 0, as before: it names the entry in lists until the person types one,
-- and the editor shows it as a suggestion, never as typed text.) Values written before
-- this version cannot be told apart and stay the person's.
ALTER TABLE journal_entries ADD COLUMN suggested_mood INTEGER
    CHECK (suggested_mood BETWEEN 1 AND 10);
-- Tag names separated by char(31), as tag_names holds them.
ALTER TABLE journal_entries ADD COLUMN suggested_tags TEXT NOT NULL DEFAULT '';
-- What the person dismissed, separated by char(31): 'title', 'mood', 'tag:<name in
-- lower case>'.
ALTER TABLE journal_entries ADD COLUMN dismissed_suggestions TEXT NOT NULL DEFAULT '';
