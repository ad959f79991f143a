-- Voice entries. The recording is a media row of kind 'audio' (its WAV bytes in
-- media_blobs, like a photo's); what Whisper heard is kept beside it, segment by
-- segment with its timing, so the entry can show where each sentence was said.
-- Every row hangs off media with ON DELETE CASCADE: purging the entry erases the
-- recording and its transcript with it (secure_delete zeroes the freed pages).
ALTER TABLE media ADD COLUMN language TEXT;

CREATE TABLE audio_segments (
    media_id  INTEGER NOT NULL REFERENCES media(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    start_ms  INTEGER NOT NULL,
    end_ms    INTEGER NOT NULL,
    text      TEXT NOT NULL,
    PRIMARY KEY (media_id, seq)
) WITHOUT ROWID;
