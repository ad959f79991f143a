-- MindSage schema, version 1.
-- Timestamps are ISO-8601 UTC text of fixed width ('YYYY-MM-DDTHH:MM:SS.sssZ'), so they
-- sort and compare correctly as plain text and indexes can serve ORDER BY and ranges
-- without wrapping columns in functions.

CREATE TABLE profiles (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
-- The person using this computer. Every query filters by user_id, so more profiles can
-- share one file later without any query changing.
INSERT INTO profiles (id, name, created_at)
VALUES (1, 'Me', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

CREATE TABLE journal_entries (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    -- The writer's local calendar day: streaks and "per day" charts follow the day the
    -- person lived, not the UTC date.
    local_date  TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    -- 1 when a person typed the title; AI enrichment never overwrites such a title.
    title_by_user INTEGER NOT NULL DEFAULT 0,
    mood_score  INTEGER CHECK (mood_score BETWEEN 1 AND 10),
    word_count  INTEGER NOT NULL DEFAULT 0,
    is_deleted  INTEGER NOT NULL DEFAULT 0 CHECK (is_deleted IN (0, 1)),
    deleted_at  TEXT,
    -- First characters of the body, so list pages never read whole bodies.
    preview     TEXT NOT NULL DEFAULT '',
    summary     TEXT,
    body        TEXT NOT NULL DEFAULT ''
);

-- Serves every list: newest first, per user, live or trashed, stops after one page.
CREATE INDEX idx_entries_list ON journal_entries (user_id, is_deleted, created_at DESC, id DESC);
-- Trash is listed by when things were deleted.
CREATE INDEX idx_entries_trash ON journal_entries (user_id, deleted_at DESC, id DESC) WHERE is_deleted = 1;

CREATE TABLE tags (
    id       INTEGER PRIMARY KEY,
    user_id  INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    name     TEXT NOT NULL COLLATE NOCASE,
    UNIQUE (user_id, name)
);

-- entry_created_at is a copy of the entry's created_at so a tag's entries can be walked
-- newest first straight from this index, whatever the journal's size.
CREATE TABLE entry_tags (
    entry_id          INTEGER NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
    tag_id            INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    entry_created_at  TEXT NOT NULL,
    PRIMARY KEY (entry_id, tag_id)
) WITHOUT ROWID;
CREATE INDEX idx_entry_tags_by_tag ON entry_tags (tag_id, entry_created_at DESC, entry_id DESC);

CREATE TRIGGER entry_tags_follow_created_at AFTER UPDATE OF created_at ON journal_entries
BEGIN
    UPDATE entry_tags SET entry_created_at = NEW.created_at WHERE entry_id = NEW.id;
END;

-- Photos and voice notes. The bytes live in media_blobs so gallery pages never touch them.
CREATE TABLE media (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    entry_id     INTEGER NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('image', 'audio')),
    mime         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    bytes        INTEGER NOT NULL,
    width        INTEGER,
    height       INTEGER,
    duration_ms  INTEGER,
    created_at   TEXT NOT NULL,
    thumbnail    BLOB
);
CREATE INDEX idx_media_gallery ON media (user_id, kind, created_at DESC, id DESC);
CREATE INDEX idx_media_entry ON media (entry_id);
-- Lets the gallery jump to a random id of one kind without walking rows.
CREATE INDEX idx_media_kind ON media (user_id, kind);

CREATE TABLE media_blobs (
    media_id  INTEGER PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,
    data      BLOB NOT NULL
);

-- Ask history.
CREATE TABLE chats (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    title       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX idx_chats_recent ON chats (user_id, updated_at DESC);

CREATE TABLE chat_messages (
    id          INTEGER PRIMARY KEY,
    chat_id     INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content     TEXT NOT NULL,
    -- JSON: the entries an answer rests on, and its stage timings.
    sources     TEXT,
    timings     TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX idx_chat_messages_chat ON chat_messages (chat_id, id);

-- Work for the local model (enrichment, embedding). It outlives restarts: the app picks
-- up pending jobs when it starts and when the model comes back.
CREATE TABLE ai_jobs (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    entry_id    INTEGER NOT NULL REFERENCES journal_entries(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('enrich', 'embed')),
    state       TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  TEXT NOT NULL,
    UNIQUE (entry_id, kind)
);
CREATE INDEX idx_ai_jobs_queue ON ai_jobs (state, id);

-- Per-day totals kept by triggers, so the dashboard reads one row per day instead of
-- aggregating every entry. Only live (not trashed) entries count.
CREATE TABLE daily_stats (
    user_id     INTEGER NOT NULL,
    local_date  TEXT NOT NULL,
    entries     INTEGER NOT NULL,
    words       INTEGER NOT NULL,
    mood_sum    INTEGER NOT NULL,
    mood_count  INTEGER NOT NULL,
    PRIMARY KEY (user_id, local_date)
) WITHOUT ROWID;

CREATE TRIGGER daily_stats_insert AFTER INSERT ON journal_entries WHEN NEW.is_deleted = 0
BEGIN
    INSERT INTO daily_stats (user_id, local_date, entries, words, mood_sum, mood_count)
    VALUES (NEW.user_id, NEW.local_date, 1, NEW.word_count, coalesce(NEW.mood_score, 0),
            NEW.mood_score IS NOT NULL)
    ON CONFLICT (user_id, local_date) DO UPDATE SET
        entries = entries + 1,
        words = words + excluded.words,
        mood_sum = mood_sum + excluded.mood_sum,
        mood_count = mood_count + excluded.mood_count;
END;

-- Any change to a counted column: take the old row out, put the new one in.
CREATE TRIGGER daily_stats_update
AFTER UPDATE OF local_date, word_count, mood_score, is_deleted, user_id ON journal_entries
BEGIN
    UPDATE daily_stats SET
        entries = entries - 1,
        words = words - OLD.word_count,
        mood_sum = mood_sum - coalesce(OLD.mood_score, 0),
        mood_count = mood_count - (OLD.mood_score IS NOT NULL)
    WHERE OLD.is_deleted = 0 AND user_id = OLD.user_id AND local_date = OLD.local_date;
    INSERT INTO daily_stats (user_id, local_date, entries, words, mood_sum, mood_count)
    SELECT NEW.user_id, NEW.local_date, 1, NEW.word_count, coalesce(NEW.mood_score, 0),
           NEW.mood_score IS NOT NULL
    WHERE NEW.is_deleted = 0
    ON CONFLICT (user_id, local_date) DO UPDATE SET
        entries = entries + 1,
        words = words + excluded.words,
        mood_sum = mood_sum + excluded.mood_sum,
        mood_count = mood_count + excluded.mood_count;
    DELETE FROM daily_stats
    WHERE user_id = OLD.user_id AND local_date = OLD.local_date AND entries = 0;
END;

CREATE TRIGGER daily_stats_delete AFTER DELETE ON journal_entries WHEN OLD.is_deleted = 0
BEGIN
    UPDATE daily_stats SET
        entries = entries - 1,
        words = words - OLD.word_count,
        mood_sum = mood_sum - coalesce(OLD.mood_score, 0),
        mood_count = mood_count - (OLD.mood_score IS NOT NULL)
    WHERE user_id = OLD.user_id AND local_date = OLD.local_date;
    DELETE FROM daily_stats
    WHERE user_id = OLD.user_id AND local_date = OLD.local_date AND entries = 0;
END;
