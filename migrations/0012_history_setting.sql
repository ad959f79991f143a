-- Version 12: how long entry history keeps every version is the person's setting (the
-- Settings screen's "Journal" section), kept with their profile so it travels with the
-- journal and every writer (the app, the command line) thins by the same rule. Versions
-- older than that many days are thinned to the newest of each month; 90 was the fixed
-- rule of version 11.
ALTER TABLE profiles ADD COLUMN history_days INTEGER NOT NULL DEFAULT 90
    CHECK (history_days BETWEEN 0 AND 36500);
