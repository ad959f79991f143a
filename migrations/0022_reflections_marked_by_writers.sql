-- A new entry's week and month are marked for a new reflection by the code that writes
-- it (`db::entries::insert_entry`, and an import once per batch), not by a row trigger:
-- a trigger runs a sub-program for every row, which an import of 50,000 entries into an
-- encrypted journal paid for several times over (SQLCipher wipes every block it frees).
-- Changes and deletions keep their triggers (migration 21).
DROP TRIGGER IF EXISTS reflections_entry_insert;
