-- Version 19: a photo's name in its entry's text.
--
-- A Markdown image in an entry, `![alt](name)`, places the photo whose name it gives
-- there on the page. The name is the link as the text writes it: the file name of a
-- photo dropped or pasted into the page, the link of one an import found in the text.
-- Photos without one (added before, or added to the strip) have none, and show in the
-- strip under the text.

ALTER TABLE media ADD COLUMN name TEXT;
