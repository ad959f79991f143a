-- Version 19: a photo's name in its entry's text, and previews that keep lines apart.
--
-- A Markdown image in an entry, `![alt](name)`, places the photo whose name it gives
-- there on the page. The name is the link as the text writes it: the file name of a
-- photo dropped or pasted into the page, the link of one an import found in the text.
-- Photos without one (added before, or added to the strip) have none, and show in the
-- strip under the text.

ALTER TABLE media ADD COLUMN name TEXT;

-- A list row's preview used to join the text's lines with spaces, so a heading ran into
-- the list under it ("Three good things 1. Tea"). Previews now keep lines apart with
-- " · " (preview_of, the app's own rule); an entry of one line keeps its preview.
UPDATE journal_entries SET preview = preview_of(body) WHERE instr(body, char(10)) > 0;
