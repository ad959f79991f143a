//! The query catalogue: every SQL statement the app runs (screens, saves, search, the
//! model's jobs, Ask's history), each under the name the timing registry, the bench and
//! the query-plan test know it by.
//!
//! Keeping the text here, in one list, is what lets a test run `EXPLAIN QUERY PLAN` over
//! every query and fail on a full table scan nobody decided to accept, and lets the
//! bench time exactly the statements the app runs. Outside it are only statements with
//! no plan: connection settings (`PRAGMA`, in `db::open` and the writer), migrations,
//! and the vector tables made and dropped at run time ([`vector_table_create`]).
//!
//! Shapes that keep list cost flat in journal size: an index that serves the ORDER BY and
//! stops after one page (keyset "after this row" paging, never OFFSET), no function
//! around an indexed column, no GROUP BY over all rows, tags for the page's rows from a
//! correlated subquery.

/// A statement with its catalogue name.
#[derive(Debug)]
pub struct NamedQuery {
    pub name: &'static str,
    pub sql: &'static str,
    /// Full table scans this statement is allowed, each with the reason.
    pub allowed_scans: &'static [AllowedScan],
}

impl NamedQuery {
    /// Whether the statement runs on one embedding model's vector table: its text names
    /// the table as [`VECTOR_TABLE`].
    pub fn on_vectors(&self) -> bool {
        self.sql.contains(VECTOR_TABLE)
    }

    /// The statement's text run on `table`, one model's vector table.
    pub fn on_table(&self, table: &str) -> String {
        self.sql.replace(VECTOR_TABLE, table)
    }
}

/// A full scan accepted on purpose.
#[derive(Debug)]
pub struct AllowedScan {
    pub table: &'static str,
    pub reason: &'static str,
}

/// Columns of a list row. A macro, not a const, so `concat!` can splice it into literals.
macro_rules! list_columns {
    () => {
        "e.id, e.created_at, e.title, e.preview, e.mood_score, e.word_count, e.is_deleted, \
         e.deleted_at, e.tag_names, e.utc_offset"
    };
}

const fn q(name: &'static str, sql: &'static str) -> NamedQuery {
    NamedQuery {
        name,
        sql,
        allowed_scans: &[],
    }
}

/// Newest live entries, first page. ?1 user, ?2 limit.
pub const LIST_PAGE1: NamedQuery = q(
    "list.page1",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM journal_entries AS e WHERE e.user_id = ?1 AND e.is_deleted = 0 \
         ORDER BY e.created_at DESC, e.id DESC LIMIT ?2"
    ),
);

/// Live entries after a cursor row.
/// ?1 user, ?2/?3 cursor (created_at, id) exclusive, ?4 limit.
pub const LIST_PAGE_N: NamedQuery = q(
    "list.page_n",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM journal_entries AS e WHERE e.user_id = ?1 AND e.is_deleted = 0 \
         AND (e.created_at, e.id) < (?2, ?3) \
         ORDER BY e.created_at DESC, e.id DESC LIMIT ?4"
    ),
);

/// Live entries lived on the days ?6 to ?7 (`local_date`, where each was written),
/// after a cursor row. The index walk is bounded by ?2 (inclusive) and the cursor, a
/// `created_at` range that holds every instant lived on those days anywhere; the "to"
/// bound is folded into the cursor by the caller.
/// ?1 user, ?2 from, ?3/?4 cursor (created_at, id) exclusive, ?5 limit, ?6/?7 days.
pub const LIST_BY_DATE_RANGE: NamedQuery = q(
    "list.by_date_range",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM journal_entries AS e WHERE e.user_id = ?1 AND e.is_deleted = 0 \
         AND e.created_at >= ?2 AND (e.created_at, e.id) < (?3, ?4) \
         AND e.local_date BETWEEN ?6 AND ?7 \
         ORDER BY e.created_at DESC, e.id DESC LIMIT ?5"
    ),
);

/// Live entries with one tag, newest first, walked from the tag's own index, lived on
/// the days ?7 to ?8 (as [`LIST_BY_DATE_RANGE`]).
/// ?1 user, ?2 tag name, ?3 from, ?4/?5 cursor, ?6 limit, ?7/?8 days.
pub const LIST_BY_TAG: NamedQuery = q(
    "list.by_tag",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM entry_tags AS et CROSS JOIN journal_entries AS e ON e.id = et.entry_id \
         WHERE et.tag_id = (SELECT id FROM tags WHERE user_id = ?1 AND name = ?2) \
         AND e.user_id = ?1 AND e.is_deleted = 0 \
         AND et.entry_created_at >= ?3 AND (et.entry_created_at, et.entry_id) < (?4, ?5) \
         AND e.local_date BETWEEN ?7 AND ?8 \
         ORDER BY et.entry_created_at DESC, et.entry_id DESC LIMIT ?6"
    ),
);

/// Trashed entries, most recently deleted first. ?1 user, ?2/?3 cursor (deleted_at, id), ?4 limit.
pub const LIST_TRASH: NamedQuery = q(
    "list.trash",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM journal_entries AS e WHERE e.user_id = ?1 AND e.is_deleted = 1 \
         AND (e.deleted_at, e.id) < (?2, ?3) \
         ORDER BY e.deleted_at DESC, e.id DESC LIMIT ?4"
    ),
);

/// How many live entries a user has: the list's scrollbar size.
pub const LIST_COUNT: NamedQuery = q(
    "list.count",
    "SELECT coalesce(sum(entries), 0) FROM daily_stats WHERE user_id = ?1",
);

/// One whole entry. ?1 user, ?2 id.
pub const ENTRY_GET: NamedQuery = q(
    "entry.get",
    "SELECT e.id, e.created_at, e.updated_at, e.title, e.title_by_user, e.body, e.mood_score, \
     e.summary, e.word_count, e.is_deleted, e.deleted_at, \
     (SELECT group_concat(t.name, char(31)) FROM entry_tags AS et \
      JOIN tags AS t ON t.id = et.tag_id WHERE et.entry_id = e.id), e.revision, \
     e.suggested_mood, e.suggested_tags, e.utc_offset \
     FROM journal_entries AS e WHERE e.id = ?2 AND e.user_id = ?1",
);

/// Whether an entry exists, when it was created and whether it is in the trash.
/// ?1 user, ?2 id.
pub const ENTRY_EXISTS: NamedQuery = q(
    "entry.exists",
    "SELECT created_at, is_deleted FROM journal_entries WHERE id = ?2 AND user_id = ?1",
);

/// A live entry's list row. ?1 user, ?2 id.
pub const ENTRY_ROW: NamedQuery = q(
    "entry.row",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM journal_entries AS e WHERE e.id = ?2 AND e.user_id = ?1 AND e.is_deleted = 0"
    ),
);

/// A live entry's creation time and revision, for writing the model's work back only
/// over the text it was made from. ?1 user, ?2 id.
pub const ENTRY_LIVE_STATE: NamedQuery = q(
    "entry.live_state",
    "SELECT created_at, revision FROM journal_entries WHERE id = ?2 AND user_id = ?1 AND is_deleted = 0",
);

/// Every tag name of a user, for the tag filter.
pub const TAGS_ALL: NamedQuery = q(
    "tags.all",
    "SELECT name FROM tags WHERE user_id = ?1 ORDER BY name",
);

/// A new entry. `OR ROLLBACK`: the row fires the daily-stats trigger, so inside a
/// transaction of several statements (a save, an import's batch) SQLite would otherwise
/// keep a statement journal of every page it touches, to undo this statement alone;
/// every caller takes its whole transaction back on an error anyway. The foreign key
/// checks need one too, so only an import (which turns them off) goes without
/// (`docs/optimisation-log.md`, runs `ab-import-dec05b`, `ab-import-dec05c`).
pub const WRITE_CREATE: NamedQuery = q(
    "write.create",
    "INSERT OR ROLLBACK INTO journal_entries (user_id, created_at, updated_at, local_date, title, \
     title_by_user, mood_score, word_count, preview, body, tag_names, utc_offset) \
     VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
);

pub const WRITE_UPDATE: NamedQuery = q(
    "write.update",
    "UPDATE journal_entries SET updated_at = ?3, title = ?4, title_by_user = ?5, \
     mood_score = ?6, word_count = ?7, preview = ?8, body = ?9, revision = revision + ?10 \
     WHERE id = ?2 AND user_id = ?1",
);

/// Moves an entry to another date and time: ?3 its instant (UTC), ?4 its offset, ?5
/// its day lived, ?6 now. The daily-stats and entry-tags triggers follow the row.
pub const WRITE_REDATE: NamedQuery = q(
    "write.redate",
    "UPDATE journal_entries SET created_at = ?3, utc_offset = ?4, local_date = ?5, updated_at = ?6 \
     WHERE id = ?2 AND user_id = ?1",
);

/// Creates a tag if new (names compare case-insensitively). ?1 user, ?2 name.
pub const WRITE_TAG_UPSERT: NamedQuery = q(
    "write.tag_upsert",
    "INSERT INTO tags (user_id, name) VALUES (?1, ?2) ON CONFLICT (user_id, name) DO NOTHING",
);

pub const WRITE_TAG_ID: NamedQuery = q(
    "write.tag_id",
    "SELECT id, name FROM tags WHERE user_id = ?1 AND name = ?2",
);

pub const WRITE_TAGS_CLEAR: NamedQuery = q(
    "write.tags_clear",
    "DELETE FROM entry_tags WHERE entry_id = ?1 RETURNING tag_id",
);

pub const WRITE_TAG_LINK: NamedQuery = q(
    "write.tag_link",
    "INSERT OR IGNORE INTO entry_tags (entry_id, tag_id, entry_created_at) VALUES (?1, ?2, ?3)",
);

/// The model's title (never over one the person typed) and summary of an entry, and its
/// mood and tags as suggestions (never in the person's `mood_score` or tags); the whole
/// enrichment write is timed under this name. ?1 id, ?2 user, ?3 title, ?4 mood,
/// ?5 summary, ?6 tag names joined by char(31).
pub const ENRICH_WRITE: NamedQuery = q(
    "ai.enrich.write",
    "UPDATE journal_entries SET \
       title = CASE WHEN title_by_user = 1 THEN title ELSE ?3 END, \
       suggested_mood = ?4, \
       summary = ?5, \
       suggested_tags = ?6 \
     WHERE id = ?1 AND user_id = ?2",
);

/// What the person dismissed of the model's suggestions for an entry. ?1 user, ?2 entry.
pub const SUGGESTION_DISMISSED: NamedQuery = q(
    "suggestion.dismissed",
    "SELECT dismissed_suggestions FROM journal_entries WHERE id = ?2 AND user_id = ?1",
);

/// Remembers one more dismissed suggestion. ?1 user, ?2 entry, ?3 its key.
pub const SUGGESTION_REMEMBER_DISMISSED: NamedQuery = q(
    "suggestion.remember_dismissed",
    "UPDATE journal_entries SET dismissed_suggestions = dismissed_suggestions || char(31) || ?3 \
     WHERE id = ?2 AND user_id = ?1",
);

/// The model's title, dismissed. ?1 user, ?2 entry.
pub const SUGGESTION_DISMISS_TITLE: NamedQuery = q(
    "suggestion.dismiss_title",
    "UPDATE journal_entries SET title = '' WHERE id = ?2 AND user_id = ?1 AND title_by_user = 0",
);

/// The model's mood, dismissed. ?1 user, ?2 entry.
pub const SUGGESTION_DISMISS_MOOD: NamedQuery = q(
    "suggestion.dismiss_mood",
    "UPDATE journal_entries SET suggested_mood = NULL WHERE id = ?2 AND user_id = ?1",
);

/// The model's suggested tags of an entry. ?1 user, ?2 entry.
pub const SUGGESTION_TAGS: NamedQuery = q(
    "suggestion.tags",
    "SELECT suggested_tags FROM journal_entries WHERE id = ?2 AND user_id = ?1",
);

/// Replaces the model's suggested tags of an entry. ?1 user, ?2 entry, ?3 names.
pub const SUGGESTION_SET_TAGS: NamedQuery = q(
    "suggestion.set_tags",
    "UPDATE journal_entries SET suggested_tags = ?3 WHERE id = ?2 AND user_id = ?1",
);

/// Copies an entry's tag names into its row, where list pages read them. ?1 entry.
pub const WRITE_TAG_NAMES: NamedQuery = q(
    "write.tag_names",
    "UPDATE journal_entries SET tag_names = coalesce( \
     (SELECT group_concat(t.name, char(31)) FROM entry_tags AS et \
      JOIN tags AS t ON t.id = et.tag_id WHERE et.entry_id = ?1), '') WHERE id = ?1",
);

/// Removes a tag nobody uses any more, so its name does not outlive the entries.
pub const WRITE_TAG_DROP_UNUSED: NamedQuery = q(
    "write.tag_drop_unused",
    "DELETE FROM tags WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM entry_tags WHERE tag_id = ?1)",
);

/// ?1 user, ?2 id, ?3 now.
pub const WRITE_SOFT_DELETE: NamedQuery = q(
    "write.soft_delete",
    "UPDATE journal_entries SET is_deleted = 1, deleted_at = ?3, updated_at = ?3 \
     WHERE id = ?2 AND user_id = ?1 AND is_deleted = 0",
);

pub const WRITE_RESTORE: NamedQuery = q(
    "write.restore",
    "UPDATE journal_entries SET is_deleted = 0, deleted_at = NULL, updated_at = ?3 \
     WHERE id = ?2 AND user_id = ?1 AND is_deleted = 1",
);

/// The entry row itself; triggers and foreign keys take its FTS terms, tags, media and
/// jobs with it.
pub const WRITE_PURGE: NamedQuery = q(
    "write.purge",
    "DELETE FROM journal_entries WHERE id = ?2 AND user_id = ?1",
);

/// Per-day rows behind the dashboard. ?1 user.
pub const DASHBOARD_DATA: NamedQuery = q(
    "dashboard.data",
    "SELECT local_date, entries, words, mood_sum, mood_count FROM daily_stats \
     WHERE user_id = ?1 ORDER BY local_date",
);

/// The days with entries from ?2 to ?3 (`YYYY-MM-DD`, inclusive), oldest first: a
/// month of the calendar, a year of the year view. ?1 user.
pub const STATS_DAYS: NamedQuery = q(
    "stats.days",
    "SELECT local_date, entries, words, mood_sum, mood_count FROM daily_stats \
     WHERE user_id = ?1 AND local_date BETWEEN ?2 AND ?3 ORDER BY local_date",
);

/// Newest photos of live entries. ?1 user, ?2/?3 cursor (created_at, id), ?4 limit.
pub const GALLERY_PAGE: NamedQuery = q(
    "gallery.page",
    "SELECT m.id, m.entry_id, m.created_at, m.width, m.height, m.thumbnail, m.name \
     FROM media AS m CROSS JOIN journal_entries AS e ON e.id = m.entry_id \
     WHERE m.user_id = ?1 AND m.kind = 'image' AND e.is_deleted = 0 \
     AND (m.created_at, m.id) < (?2, ?3) \
     ORDER BY m.created_at DESC, m.id DESC LIMIT ?4",
);

/// The id range a user's photos are drawn from: two index probes (min and max together
/// in one SELECT would walk the whole index). ?1 user.
pub const GALLERY_ID_RANGE: NamedQuery = q(
    "gallery.id_range",
    "SELECT (SELECT id FROM media WHERE user_id = ?1 AND kind = 'image' ORDER BY id LIMIT 1), \
            (SELECT id FROM media WHERE user_id = ?1 AND kind = 'image' ORDER BY id DESC LIMIT 1)",
);

/// An entry's photos, in the order they were added. ?1 user, ?2 entry.
pub const PHOTOS_OF_ENTRY: NamedQuery = q(
    "photos.of_entry",
    "SELECT id, entry_id, created_at, width, height, thumbnail, name FROM media \
     WHERE entry_id = ?2 AND user_id = ?1 AND kind = 'image' ORDER BY id",
);

/// One photo's bytes, as added. ?1 user, ?2 media id.
pub const PHOTO_DATA: NamedQuery = q(
    "photos.data",
    "SELECT b.data FROM media AS m JOIN media_blobs AS b ON b.media_id = m.id \
     WHERE m.id = ?2 AND m.user_id = ?1 AND m.kind = 'image'",
);

/// A user's templates by name. ?1 user.
pub const TEMPLATES_ALL: NamedQuery = q(
    "templates.all",
    "SELECT id, name, body, weekdays FROM templates WHERE user_id = ?1 ORDER BY name, id",
);

/// ?1 user, ?2 name, ?3 body, ?4 weekdays, ?5 now.
pub const TEMPLATE_INSERT: NamedQuery = q(
    "templates.insert",
    "INSERT INTO templates (user_id, name, body, weekdays, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)",
);

/// ?1 user, ?2 id, ?3 name, ?4 body, ?5 weekdays, ?6 now.
pub const TEMPLATE_UPDATE: NamedQuery = q(
    "templates.update",
    "UPDATE templates SET name = ?3, body = ?4, weekdays = ?5, updated_at = ?6 WHERE id = ?2 AND user_id = ?1",
);

/// ?1 user, ?2 id.
pub const TEMPLATE_DELETE: NamedQuery = q(
    "templates.delete",
    "DELETE FROM templates WHERE id = ?2 AND user_id = ?1",
);

/// An entry's created_at, to copy into its mentions. ?1 user, ?2 entry.
pub const MEMORY_ENTRY_CREATED: NamedQuery = q(
    "memory.entry_created",
    "SELECT created_at FROM journal_entries WHERE id = ?2 AND user_id = ?1",
);

/// The text model whose reading the entry's memory comes from. ?1 user, ?2 entry, ?3 model.
pub const MEMORY_ENTRY_MODEL: NamedQuery = q(
    "memory.entry_model",
    "UPDATE journal_entries SET memory_model = ?3 WHERE id = ?2 AND user_id = ?1",
);

/// The model's mentions of an entry, before its new reading replaces them. ?1 entry.
pub const MEMORY_MENTIONS_CLEAR_MODEL: NamedQuery = q(
    "memory.mentions_clear_model",
    "DELETE FROM memory_mentions WHERE entry_id = ?1 AND by_user = 0",
);

/// ?1 entry, ?2 subject, ?3 phrase, ?4 position, ?5 by the person, ?6 entry's created_at.
pub const MEMORY_MENTION_INSERT: NamedQuery = q(
    "memory.mention_insert",
    "INSERT INTO memory_mentions (entry_id, subject_id, phrase, position, by_user, entry_created_at) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING",
);

/// The subject a key names. ?1 user, ?2 kind, ?3 key.
pub const MEMORY_NAME_FIND: NamedQuery = q(
    "memory.name_find",
    "SELECT subject_id FROM memory_names WHERE user_id = ?1 AND kind = ?2 AND key = ?3",
);

/// A key for a subject, unless it names one already. ?1 user, ?2 kind, ?3 key, ?4 subject.
pub const MEMORY_NAME_INSERT: NamedQuery = q(
    "memory.name_insert",
    "INSERT INTO memory_names (user_id, kind, key, subject_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
);

/// A key for a subject as the person's, whatever it named. ?1 user, ?2 kind, ?3 key, ?4 subject.
pub const MEMORY_NAME_TAKE: NamedQuery = q(
    "memory.name_take",
    "INSERT INTO memory_names (user_id, kind, key, subject_id, by_user) VALUES (?1, ?2, ?3, ?4, 1) \
     ON CONFLICT (user_id, kind, key) DO UPDATE SET subject_id = excluded.subject_id, by_user = 1",
);

/// ?1 user, ?2 subject.
pub const MEMORY_SUBJECT: NamedQuery = q(
    "memory.subject",
    "SELECT kind, name, relation, hidden, by_user FROM memory_subjects WHERE id = ?2 AND user_id = ?1",
);

/// ?1 user, ?2 kind, ?3 name, ?4 relation.
pub const MEMORY_SUBJECT_INSERT: NamedQuery = q(
    "memory.subject_insert",
    "INSERT INTO memory_subjects (user_id, kind, name, relation) VALUES (?1, ?2, ?3, ?4)",
);

/// What the model learned of a subject it made; never one the person changed. ?1 user,
/// ?2 subject, ?3 name, ?4 relation.
pub const MEMORY_SUBJECT_MODEL_UPDATE: NamedQuery = q(
    "memory.subject_model_update",
    "UPDATE memory_subjects SET name = ?3, relation = ?4 WHERE id = ?2 AND user_id = ?1 AND by_user = 0",
);

/// The person's subject. ?1 user, ?2 subject, ?3 name, ?4 relation, ?5 hidden.
pub const MEMORY_SUBJECT_CORRECT: NamedQuery = q(
    "memory.subject_correct",
    "UPDATE memory_subjects SET name = ?3, relation = ?4, hidden = ?5, by_user = 1 WHERE id = ?2 AND user_id = ?1",
);

/// ?1 user, ?2 subject.
pub const MEMORY_SUBJECT_DELETE: NamedQuery = q(
    "memory.subject_delete",
    "DELETE FROM memory_subjects WHERE id = ?2 AND user_id = ?1",
);

/// A merge moves a subject's mentions; an entry that mentions both keeps the one it
/// had (the other goes with its subject). ?1 from, ?2 into.
pub const MEMORY_MENTIONS_MERGE: NamedQuery = q(
    "memory.mentions_merge",
    "UPDATE OR IGNORE memory_mentions SET subject_id = ?2, by_user = 1 WHERE subject_id = ?1",
);

/// A merge moves a subject's names, as the person's. ?1 from, ?2 into.
pub const MEMORY_NAMES_MERGE: NamedQuery = q(
    "memory.names_merge",
    "UPDATE memory_names SET subject_id = ?2, by_user = 1 WHERE subject_id = ?1",
);

/// A split moves one entry's mention. ?1 entry, ?2 from, ?3 to.
pub const MEMORY_MENTION_MOVE: NamedQuery = q(
    "memory.mention_move",
    "UPDATE OR IGNORE memory_mentions SET subject_id = ?3, by_user = 1 WHERE entry_id = ?1 AND subject_id = ?2",
);

/// Every subject with its live entries' count and dates. Few rows per journal (the
/// people, places and activities it names), read when the memory view opens. ?1 user.
pub const MEMORY_SUBJECTS: NamedQuery = q(
    "memory.subjects",
    "SELECT s.id, s.kind, s.name, s.relation, s.hidden, s.by_user, \
            count(e.id), min(e.created_at), max(e.created_at) \
     FROM memory_subjects AS s \
     LEFT JOIN memory_mentions AS m ON m.subject_id = s.id \
     LEFT JOIN journal_entries AS e ON e.id = m.entry_id AND e.is_deleted = 0 \
     WHERE s.user_id = ?1 GROUP BY s.id",
);

/// A subject's live entries as list rows, newest first. ?1 user, ?2 subject, ?3 limit.
pub const MEMORY_SUBJECT_ENTRIES: NamedQuery = q(
    "memory.subject_entries",
    concat!(
        "SELECT ",
        list_columns!(),
        " FROM memory_mentions AS m JOIN journal_entries AS e ON e.id = m.entry_id \
         WHERE m.subject_id = ?2 AND e.user_id = ?1 AND e.is_deleted = 0 \
         ORDER BY m.entry_created_at DESC, m.entry_id DESC LIMIT ?3"
    ),
);

/// Every word that names a subject the person has not hidden, with the subject: what
/// a question is matched against. A few hundred rows in a journal of years. ?1 user.
pub const MEMORY_NAMES_ALL: NamedQuery = q(
    "memory.names_all",
    "SELECT n.key, s.id, s.kind, s.name, s.relation \
     FROM memory_names AS n JOIN memory_subjects AS s ON s.id = n.subject_id \
     WHERE n.user_id = ?1 AND s.hidden = 0",
);

/// The subjects an entry mentions, in the order of the text. ?1 user, ?2 entry.
pub const MEMORY_MENTIONS_OF_ENTRY: NamedQuery = q(
    "memory.mentions_of_entry",
    "SELECT s.id, s.kind, s.name, s.relation, s.hidden, s.by_user, m.phrase, m.position, m.by_user \
     FROM memory_mentions AS m JOIN memory_subjects AS s ON s.id = m.subject_id \
     WHERE m.entry_id = ?2 AND s.user_id = ?1 ORDER BY m.position IS NULL, m.position, s.name",
);

/// The first photo of a live entry at or after a random id. ?1 user, ?2 id.
pub const GALLERY_RANDOM: NamedQuery = q(
    "gallery.random",
    "SELECT m.id, m.entry_id, m.created_at, m.width, m.height, m.thumbnail, m.name \
     FROM media AS m CROSS JOIN journal_entries AS e ON e.id = m.entry_id \
     WHERE m.user_id = ?1 AND m.kind = 'image' AND e.is_deleted = 0 AND m.id >= ?2 \
     ORDER BY m.id LIMIT 1",
);

/// ?1 user, ?2 entry, ?3 kind, ?4 mime, ?5 sha256, ?6 bytes, ?7 width, ?8 height,
/// ?9 duration_ms, ?10 created_at, ?11 thumbnail, ?12 name.
pub const MEDIA_INSERT: NamedQuery = q(
    "media.insert",
    "INSERT INTO media (user_id, entry_id, kind, mime, sha256, bytes, width, height, \
     duration_ms, created_at, thumbnail, name) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
);

/// Import keys written after an entry id, in id order: all of them when an import
/// starts (after 0), then those another import added since.
pub const IMPORT_KEYS_AFTER: NamedQuery = q(
    "import.keys_after",
    "SELECT entry_id, source, external_id, content_hash FROM imported_entries \
     WHERE entry_id > ?1 ORDER BY entry_id",
);

/// The newest imported entry: an import that finds it is the last one it wrote knows no
/// other import wrote since (ids only grow).
pub const IMPORT_LAST: NamedQuery = q("import.last", "SELECT max(entry_id) FROM imported_entries");

pub const IMPORT_RECORD: NamedQuery = q(
    "import.record",
    "INSERT INTO imported_entries (entry_id, source, external_id, content_hash, imported_at) \
     VALUES (?1, ?2, ?3, ?4, ?5)",
);

/// A page of live entries in id order, for an export. ?1 user, ?2 after this id, ?3 rows.
pub const ARCHIVE_PAGE: NamedQuery = q(
    "archive.page",
    "SELECT id, local_date, memory_model FROM journal_entries \
     WHERE user_id = ?1 AND is_deleted = 0 AND id > ?2 ORDER BY id LIMIT ?3",
);

/// An entry's photos and recordings with their bytes, for an export. ?1 entry.
pub const ARCHIVE_MEDIA: NamedQuery = q(
    "archive.media",
    "SELECT m.id, m.kind, m.mime, m.created_at, m.duration_ms, m.language, b.data, m.name \
     FROM media AS m JOIN media_blobs AS b ON b.media_id = m.id WHERE m.entry_id = ?1 ORDER BY m.id",
);

/// What the model wrote about an entry, carried over from MindSage's own export: whether
/// the person typed the title, and the summary. ?1 user, ?2 entry, ?3 typed, ?4 summary.
pub const IMPORT_MODEL_WORK: NamedQuery = q(
    "import.model_work",
    "UPDATE journal_entries SET title_by_user = ?3, summary = ?4 WHERE id = ?2 AND user_id = ?1",
);

/// When an entry's last version was kept. ?1 entry.
pub const HISTORY_LAST_KEPT: NamedQuery = q(
    "history.last_kept",
    "SELECT kept_at FROM entry_versions WHERE entry_id = ?1 ORDER BY kept_at DESC LIMIT 1",
);

/// Keeps an entry's text before a save replaces it. ?1 entry, ?2 written, ?3 kept,
/// ?4 title, ?5 body, ?6 tag names.
pub const HISTORY_KEEP: NamedQuery = q(
    "history.keep",
    "INSERT INTO entry_versions (entry_id, written_at, kept_at, title, body, tag_names) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
);

/// Thins an entry's versions kept before ?2 to the newest of each month of writing.
/// ?1 entry, ?2 the oldest time all versions are kept from.
pub const HISTORY_THIN: NamedQuery = q(
    "history.thin",
    "DELETE FROM entry_versions WHERE entry_id = ?1 AND kept_at < ?2 AND id NOT IN \
     (SELECT max(id) FROM entry_versions WHERE entry_id = ?1 AND kept_at < ?2 \
      GROUP BY substr(written_at, 1, 7))",
);

/// Thins the versions of all of a person's entries kept before ?2, as
/// [`HISTORY_THIN`] does one entry's. ?1 user, ?2 the oldest time all are kept from.
pub const HISTORY_THIN_ALL: NamedQuery = NamedQuery {
    name: "history.thin_all",
    sql: "DELETE FROM entry_versions WHERE kept_at < ?2 \
          AND (SELECT user_id FROM journal_entries WHERE id = entry_versions.entry_id) = ?1 \
          AND id <> (SELECT max(w.id) FROM entry_versions AS w \
                     WHERE w.entry_id = entry_versions.entry_id AND w.kept_at < ?2 \
                     AND substr(w.written_at, 1, 7) = substr(entry_versions.written_at, 1, 7))",
    allowed_scans: &[AllowedScan {
        table: "entry_versions",
        reason: "runs once when the person shortens their history, never while they wait on a screen",
    }],
};

/// Days in which every version of a person's entries is kept. ?1 user.
pub const HISTORY_DAYS: NamedQuery = q("history.days", "SELECT history_days FROM profiles WHERE id = ?1");

/// Sets [`HISTORY_DAYS`]. ?1 user, ?2 days.
pub const HISTORY_SET_DAYS: NamedQuery = q(
    "history.set_days",
    "UPDATE profiles SET history_days = ?2 WHERE id = ?1",
);

/// An entry's versions, newest first. ?1 entry.
pub const HISTORY_OF_ENTRY: NamedQuery = q(
    "history.of_entry",
    "SELECT id, written_at, title, body, tag_names FROM entry_versions \
     WHERE entry_id = ?1 ORDER BY kept_at DESC, id DESC",
);

/// One version of an entry. ?1 entry, ?2 version.
pub const HISTORY_VERSION: NamedQuery = q(
    "history.version",
    "SELECT id, written_at, title, body, tag_names FROM entry_versions WHERE entry_id = ?1 AND id = ?2",
);

pub const MEDIA_BLOB_INSERT: NamedQuery = q(
    "media.blob_insert",
    "INSERT INTO media_blobs (media_id, data) VALUES (?1, ?2)",
);

/// A voice entry's recording. ?1 user, ?2 entry, ?3 sha256, ?4 bytes, ?5 duration,
/// ?6 language heard, ?7 now.
pub const AUDIO_INSERT: NamedQuery = q(
    "audio.insert",
    "INSERT INTO media (user_id, entry_id, kind, mime, sha256, bytes, duration_ms, language, created_at) \
     VALUES (?1, ?2, 'audio', 'audio/wav', ?3, ?4, ?5, ?6, ?7)",
);

/// One segment of what Whisper heard. ?1 media, ?2 order, ?3/?4 start and end (ms), ?5 text.
pub const AUDIO_SEGMENT_INSERT: NamedQuery = q(
    "audio.segment_insert",
    "INSERT INTO audio_segments (media_id, seq, start_ms, end_ms, text) VALUES (?1, ?2, ?3, ?4, ?5)",
);

/// An entry's recordings, oldest first. ?1 user, ?2 entry.
pub const AUDIO_OF_ENTRY: NamedQuery = q(
    "audio.of_entry",
    "SELECT id, duration_ms, bytes, language, created_at FROM media \
     WHERE entry_id = ?2 AND user_id = ?1 AND kind = 'audio' ORDER BY id",
);

/// A recording's WAV bytes. ?1 media.
pub const AUDIO_DATA: NamedQuery = q("audio.data", "SELECT data FROM media_blobs WHERE media_id = ?1");

/// What was heard in a recording, in order. ?1 media.
pub const AUDIO_SEGMENTS: NamedQuery = q(
    "audio.segments",
    "SELECT start_ms, end_ms, text FROM audio_segments WHERE media_id = ?1 ORDER BY seq",
);

/// Queues model work for an entry (once per kind), with the entry's date so the queue
/// is worked newest first. ?1 user, ?2 entry, ?3 kind, ?4 now.
pub const AI_JOB_QUEUE: NamedQuery = q(
    "ai.queue",
    "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
     SELECT ?1, ?2, ?3, ?4, created_at FROM journal_entries WHERE id = ?2 \
     ON CONFLICT (entry_id, kind) DO UPDATE SET state = 'pending', attempts = 0, last_error = NULL",
);

/// Queues the model's work for every live entry with ids from ?2 to ?3 (a batch an
/// import wrote): an embedding for each, enrichment for those no model has read (a
/// MindSage export brings its summaries and memory along). ?1 user, ?4 now.
pub const AI_JOB_QUEUE_RANGE: NamedQuery = q(
    "ai.queue_range",
    "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
     SELECT e.user_id, e.id, k.column1, ?4, e.created_at \
     FROM journal_entries AS e CROSS JOIN (VALUES ('embed'), ('enrich')) AS k \
     WHERE e.id BETWEEN ?2 AND ?3 AND e.user_id = ?1 AND e.is_deleted = 0 \
     AND (k.column1 = 'embed' OR e.memory_model IS NULL) \
     ON CONFLICT (entry_id, kind) DO NOTHING",
);

/// The next pending jobs of one kind, newest entry first. ?1 kind, ?2 limit.
pub const AI_JOB_NEXT: NamedQuery = q(
    "ai.next",
    "SELECT id, user_id, entry_id, kind, attempts FROM ai_jobs \
     WHERE state = 'pending' AND kind = ?1 ORDER BY entry_created_at DESC, id DESC LIMIT ?2",
);

/// Pending embeddings, pending enrichments, failed jobs.
pub const AI_JOB_COUNTS: NamedQuery = q(
    "ai.counts",
    "SELECT (SELECT count(*) FROM ai_jobs WHERE state = 'pending' AND kind = 'embed'), \
            (SELECT count(*) FROM ai_jobs WHERE state = 'pending' AND kind = 'enrich'), \
            (SELECT count(*) FROM ai_jobs WHERE state = 'failed'), \
            (SELECT count(*) FROM reflections WHERE state = 'pending')",
);

/// Queues a reflection for every week (Monday to Sunday) and month with entries that
/// ended before ?2 (today) and has none yet. ?1 user.
pub const REFLECTIONS_QUEUE_ENDED: NamedQuery = q(
    "reflections.queue_ended",
    "INSERT OR IGNORE INTO reflections (user_id, period, first_day, last_day) \
     SELECT DISTINCT ?1, 'week', date(local_date, '-6 days', 'weekday 1'), \
            date(local_date, '-6 days', 'weekday 1', '+6 days') \
     FROM daily_stats WHERE user_id = ?1 AND entries > 0 \
     AND date(local_date, '-6 days', 'weekday 1', '+6 days') < ?2 \
     UNION ALL \
     SELECT DISTINCT ?1, 'month', date(local_date, 'start of month'), \
            date(local_date, 'start of month', '+1 month', '-1 day') \
     FROM daily_stats WHERE user_id = ?1 AND entries > 0 \
     AND date(local_date, 'start of month', '+1 month', '-1 day') < ?2",
);

/// Marks the reflections of every week and month touching the days ?2 to ?3 to be
/// written again: entries were added there. ?1 user. A period ends at most 31 days
/// after a day in it, which bounds the walk of the index by its last day.
pub const REFLECTIONS_DAYS_WRITTEN: NamedQuery = q(
    "reflections.days_written",
    "UPDATE reflections SET state = 'pending', attempts = 0, revision = revision + 1 \
     WHERE user_id = ?1 AND last_day BETWEEN ?2 AND date(?3, '+31 days') AND first_day <= ?3",
);

/// The next reflection to write: the latest period first, as the person looks at the
/// last week first. ?1 the first id not to take again in this pass (see `next`).
pub const REFLECTIONS_NEXT: NamedQuery = q(
    "reflections.next",
    "SELECT id, user_id, period, first_day, last_day, revision, attempts FROM reflections \
     WHERE state = 'pending' ORDER BY last_day DESC, period DESC",
);

/// A reflection's sentences, written if its period is unchanged since it was read.
/// ?1 id, ?2 revision read, ?3 sentences (JSON), ?4 model, ?5 now.
pub const REFLECTIONS_WRITE: NamedQuery = q(
    "reflections.write",
    "UPDATE reflections SET state = 'done', error = NULL, sentences = ?3, model = ?4, made_at = ?5 \
     WHERE id = ?1 AND revision = ?2",
);

/// A failed attempt at a reflection: failed once it has had ?3 attempts. ?1 id, ?2 why.
pub const REFLECTIONS_FAILED: NamedQuery = q(
    "reflections.failed",
    "UPDATE reflections SET attempts = attempts + 1, error = ?2, \
     state = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE state END WHERE id = ?1",
);

/// Reflections, written or not, latest period first. ?1 user, ?2 limit.
pub const REFLECTIONS_RECENT: NamedQuery = q(
    "reflections.recent",
    "SELECT id, period, first_day, last_day, state, sentences, made_at FROM reflections \
     WHERE user_id = ?1 ORDER BY last_day DESC, period DESC LIMIT ?2",
);

/// Written reflections on periods from ?2 to ?3 (days as stored, both inclusive), latest
/// first. ?1 user, ?4 limit.
pub const REFLECTIONS_WITHIN: NamedQuery = q(
    "reflections.within",
    "SELECT id, period, first_day, last_day, state, sentences, made_at FROM reflections \
     WHERE user_id = ?1 AND last_day <= ?3 AND first_day >= ?2 AND sentences <> '[]' \
     ORDER BY last_day DESC, period DESC LIMIT ?4",
);

/// A job is done. ?1 job.
pub const AI_JOB_DONE: NamedQuery = q("ai.done", "DELETE FROM ai_jobs WHERE id = ?1");

/// Every job of an entry is done. ?1 entry.
pub const AI_JOB_CLEAR_ENTRY: NamedQuery = q("ai.clear_entry", "DELETE FROM ai_jobs WHERE entry_id = ?1");

/// One attempt spent; failed once none are left. ?1 job, ?2 reason, ?3 attempts allowed.
pub const AI_JOB_FAILED: NamedQuery = q(
    "ai.failed",
    "UPDATE ai_jobs SET attempts = attempts + 1, last_error = ?2, \
     state = CASE WHEN attempts + 1 >= ?3 THEN 'failed' ELSE 'pending' END WHERE id = ?1",
);

/// Enrichment for live entries that text model ?3 has not read (no model, or another)
/// and no enrichment job, through the narrow index of live entries by the model that
/// read them (migration 20). ?1 user, ?2 now.
pub const AI_BACKFILL_ENRICH: NamedQuery = q(
    "ai.backfill_enrich",
    "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
     SELECT e.user_id, e.id, 'enrich', ?2, e.created_at FROM journal_entries AS e INDEXED BY idx_entries_unremembered \
     WHERE e.user_id = ?1 AND e.is_deleted = 0 AND (e.memory_model IS NULL OR e.memory_model <> ?3) \
     AND NOT EXISTS (SELECT 1 FROM ai_jobs AS j WHERE j.entry_id = e.id AND j.kind = 'enrich') \
     ON CONFLICT DO NOTHING",
);

/// An embedding for every live entry with no embedding job (a model with no vectors
/// yet), along the narrow index of live entries (migration 8). `INDEXED BY` keeps it
/// there: once SQLite has statistics for a journal whose entries are all live, it would
/// rather scan the table, reading every body for three small columns. ?1 user, ?2 now.
pub const AI_BACKFILL_EMBED_ALL: NamedQuery = q(
    "ai.backfill_embed_all",
    "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
     SELECT e.user_id, e.id, 'embed', ?2, e.created_at FROM journal_entries AS e INDEXED BY idx_entries_live \
     WHERE e.user_id = ?1 AND e.is_deleted = 0 \
     AND NOT EXISTS (SELECT 1 FROM ai_jobs AS j WHERE j.entry_id = e.id AND j.kind = 'embed') \
     ON CONFLICT DO NOTHING",
);

/// An embedding for every live entry with no vector in one model's set and no
/// embedding job: what a half-built set, or entries seeded or imported since, still
/// need. On the index of live entries, as [`AI_BACKFILL_EMBED_ALL`] is. ?1 user,
/// ?2 now.
pub const AI_BACKFILL_EMBED: NamedQuery = q(
    "ai.backfill_embed",
    "INSERT INTO ai_jobs (user_id, entry_id, kind, created_at, entry_created_at) \
     SELECT e.user_id, e.id, 'embed', ?2, e.created_at FROM journal_entries AS e INDEXED BY idx_entries_live \
     WHERE e.user_id = ?1 AND e.is_deleted = 0 \
     AND NOT EXISTS (SELECT 1 FROM {vectors} AS v WHERE v.entry_id = e.id) \
     AND NOT EXISTS (SELECT 1 FROM ai_jobs AS j WHERE j.entry_id = e.id AND j.kind = 'embed') \
     ON CONFLICT DO NOTHING",
);

/// An entry's title, body and tag names as stored, to tell whether an edit changed its
/// text (and so needs the model's work again). ?1 entry.
pub const ENTRY_TEXT: NamedQuery = q(
    "entry.text",
    "SELECT title, title_by_user, body, tag_names, updated_at FROM journal_entries WHERE id = ?1",
);

/// Writes a live entry's full-text row once its tags are known. ?1 id, ?2 title,
/// ?3 body, ?4 tag names separated by spaces.
pub const SEARCH_INDEX_INSERT: NamedQuery = q(
    "search.index_insert",
    "INSERT INTO entries_fts (rowid, title, body, tags) VALUES (?1, ?2, ?3, ?4)",
);

/// What a live entry's full-text row is written from, as stored (after changes made
/// elsewhere, such as enrichment's title and mood tags, or a restore). ?1 id.
pub const SEARCH_INDEX_SOURCE: NamedQuery = q(
    "search.index_source",
    "SELECT e.title, e.body, coalesce((SELECT group_concat(t.name, ' ') FROM entry_tags AS et \
     JOIN tags AS t ON t.id = et.tag_id WHERE et.entry_id = e.id), '') \
     FROM journal_entries AS e WHERE e.id = ?1 AND e.is_deleted = 0",
);

/// Removes an entry's full-text row before it is written again. ?1 id.
pub const SEARCH_INDEX_DELETE: NamedQuery =
    q("search.index_delete", "DELETE FROM entries_fts WHERE rowid = ?1");

/// BM25 with the title weighing most, then tags, then body. A macro, not a const, so
/// both keyword statements splice in the same ranking. Both order equal scores by id,
/// so a ranking split into parts comes out as the same ranking in one piece.
macro_rules! keyword_rank {
    () => {
        "bm25(entries_fts, 3.0, 1.0, 2.0)"
    };
}

/// Keyword ranking over the whole journal: FTS5 ranks its matches alone, and only the
/// best ?3 are joined to their entries, so a common word costs one BM25 per match
/// rather than a join per match. Every row comes back with whether it is a live entry
/// of ?1; when one is not (another person's entry in the same file), the caller ranks
/// again with [`SEARCH_KEYWORD`], which filters before it ranks.
/// ?1 user, ?2 FTS query (built by search::keyword, never raw user text), ?3 limit,
/// ?4..=?5 the entry ids ranked (a part of the journal, so parts can rank in parallel).
pub const SEARCH_KEYWORD_TOP: NamedQuery = NamedQuery {
    name: "search.keyword_top",
    sql: concat!(
        "SELECT top.id, top.rank, coalesce(e.user_id = ?1 AND e.is_deleted = 0, 0) \
         FROM (SELECT rowid AS id, ",
        keyword_rank!(),
        " AS rank FROM entries_fts WHERE entries_fts MATCH ?2 AND rowid BETWEEN ?4 AND ?5 \
         ORDER BY rank, rowid LIMIT ?3) AS top \
         LEFT JOIN journal_entries AS e ON e.id = top.id ORDER BY top.rank, top.id"
    ),
    allowed_scans: &[AllowedScan {
        table: "top",
        reason: "the at most ?3 rows FTS5 has already ranked",
    }],
};

/// Keyword ranking over live entries of one person in a date range.
/// ?1 user, ?2 FTS query (built by search::keyword, never raw user text), ?3 from, ?4 to, ?5 limit.
pub const SEARCH_KEYWORD: NamedQuery = NamedQuery {
    name: "search.keyword",
    sql: concat!(
        "SELECT e.id, ",
        keyword_rank!(),
        " AS rank FROM entries_fts CROSS JOIN journal_entries AS e ON e.id = entries_fts.rowid \
         WHERE entries_fts MATCH ?2 AND e.user_id = ?1 AND e.is_deleted = 0 \
         AND e.local_date BETWEEN ?3 AND ?4 \
         ORDER BY rank, e.id LIMIT ?5"
    ),
    allowed_scans: &[],
};

/// Whether any live entry of ?1 matches FTS query ?2: stops at the first match, where a
/// ranking would score every one. ?2 is built by search::keyword, never raw user text.
pub const SEARCH_KEYWORD_OCCURS: NamedQuery = q(
    "search.keyword_occurs",
    "SELECT EXISTS (SELECT 1 FROM entries_fts CROSS JOIN journal_entries AS e ON e.id = entries_fts.rowid \
     WHERE entries_fts MATCH ?2 AND e.user_id = ?1 AND e.is_deleted = 0)",
);

/// Entries whose text matches ?1 (an FTS5 query), trashed ones and every profile's
/// included: how common a word is in the whole journal, for themes.
pub const SEARCH_KEYWORD_DOCS: NamedQuery = q(
    "search.keyword_docs",
    "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?1",
);

/// The lowest and highest entry id in the file, to split keyword ranking into parts.
/// Two subqueries, because SQLite reads a lone min() or max() off the end of the key but
/// scans the table for both in one select.
pub const ENTRY_ID_RANGE: NamedQuery = q(
    "entries.id_range",
    "SELECT (SELECT min(id) FROM journal_entries), (SELECT max(id) FROM journal_entries)",
);

/// The first live entry lived before a day from an id up: an older entry at random,
/// found from a random id by the key. ?1 user, ?2 the day as stored, ?3 the id.
pub const ENTRY_OLDER_FROM: NamedQuery = q(
    "entries.older_from",
    "SELECT id FROM journal_entries WHERE id >= ?3 AND user_id = ?1 AND is_deleted = 0 \
     AND local_date < ?2 ORDER BY id LIMIT 1",
);

/// The same below the id, for a random id past the last such entry.
pub const ENTRY_OLDER_BELOW: NamedQuery = q(
    "entries.older_below",
    "SELECT id FROM journal_entries WHERE id < ?3 AND user_id = ?1 AND is_deleted = 0 \
     AND local_date < ?2 ORDER BY id DESC LIMIT 1",
);

/// Date, title and body of one live entry, for a shown search result.
pub const SEARCH_HIT_TEXT: NamedQuery = q(
    "search.hit_text",
    "SELECT created_at, title, body, utc_offset FROM journal_entries \
     WHERE id = ?2 AND user_id = ?1 AND is_deleted = 0",
);

/// The most recently used chats (Ask history). ?1 user, ?2 limit.
pub const CHATS_RECENT: NamedQuery = q(
    "chats.recent",
    "SELECT id, title, updated_at FROM chats WHERE user_id = ?1 ORDER BY updated_at DESC LIMIT ?2",
);

/// One chat's messages, oldest first. ?1 chat, ?2 user.
pub const CHAT_MESSAGES: NamedQuery = q(
    "chats.messages",
    "SELECT m.role, m.content, m.sources FROM chat_messages AS m JOIN chats AS c ON c.id = m.chat_id \
     WHERE m.chat_id = ?1 AND c.user_id = ?2 ORDER BY m.id",
);

/// Where a statement over one embedding model's vectors names its table. Each model has
/// its own `vec0` table, `vec_entries_<model id>`, created at run time
/// ([`vector_table_create`]); [`NamedQuery::on_table`] puts the real name in. Left in
/// place it is a syntax error, so a statement run without its table fails loudly.
pub const VECTOR_TABLE: &str = "{vectors}";

/// The vector table of one model, made when its first vector is stored: created at run
/// time, not by a migration, so a journal opens where sqlite-vec cannot load. Schema,
/// not a query, so it has no plan and is not in [`CATALOGUE`].
pub fn vector_table_create(table: &str, dim: usize) -> String {
    format!(
        "CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING vec0 (
             entry_id INTEGER PRIMARY KEY,
             user_id INTEGER PARTITION KEY,
             embedding FLOAT[{dim}] distance_metric=L2
         )"
    )
}

/// Drops a replaced model's vector table. Schema, like [`vector_table_create`].
pub fn vector_table_drop(table: &str) -> String {
    format!("DROP TABLE IF EXISTS {table}")
}

/// sqlite-vec's version, or an error where it is not loaded.
pub const VEC_VERSION: NamedQuery = q("vectors.extension_version", "SELECT vec_version()");

/// sqlite-vec's build report, with the SIMD paths it was compiled with.
pub const VEC_DEBUG: NamedQuery = q("vectors.extension_debug", "SELECT vec_debug()");

/// `vector_models` holds a row per embedding model a person has used: a handful. With
/// statistics SQLite reads so few rows whole rather than through the index.
const FEW_MODELS: &[AllowedScan] = &[AllowedScan {
    table: "vector_models",
    reason: "one row per embedding model used, a handful",
}];

/// The set search uses. ?1 user, ?2 the active state.
pub const VECTOR_MODEL_ACTIVE: NamedQuery = NamedQuery {
    name: "vectors.active_model",
    sql: "SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 AND state = ?2",
    allowed_scans: FEW_MODELS,
};

/// Every set of a user, oldest first. ?1 user.
pub const VECTOR_MODELS: NamedQuery = NamedQuery {
    name: "vectors.models",
    sql: "SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 ORDER BY id",
    allowed_scans: FEW_MODELS,
};

/// A user's set of one model. ?1 user, ?2 model name.
pub const VECTOR_MODEL_NAMED: NamedQuery = q(
    "vectors.model_named",
    "SELECT id, model, dim, state FROM vector_models WHERE user_id = ?1 AND model = ?2",
);

/// Registers a model's set. ?1 user, ?2 model, ?3 dimension, ?4 state, ?5 now.
pub const VECTOR_MODEL_INSERT: NamedQuery = q(
    "vectors.model_insert",
    "INSERT INTO vector_models (user_id, model, dim, state, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
);

/// ?1 set, ?2 state.
pub const VECTOR_MODEL_STATE: NamedQuery = q(
    "vectors.model_state",
    "UPDATE vector_models SET state = ?2 WHERE id = ?1",
);

/// A replaced set's registration. ?1 set.
pub const VECTOR_MODEL_DELETE: NamedQuery =
    q("vectors.model_delete", "DELETE FROM vector_models WHERE id = ?1");

/// Logs a vector written or removed, for in-memory copies to catch up. ?1 set, ?2 entry.
pub const VECTOR_CHANGE_LOG: NamedQuery = q(
    "vectors.log_change",
    "INSERT INTO vector_changes (model_id, entry_id) VALUES (?1, ?2)",
);

/// Changes after a copy's last look, in order. ?1 set, ?2 last change seen.
pub const VECTOR_CHANGES_SINCE: NamedQuery = q(
    "vectors.changes_since",
    "SELECT seq, entry_id FROM vector_changes WHERE model_id = ?1 AND seq > ?2 ORDER BY seq",
);

/// The newest change of a set: where a fresh copy starts. ?1 set.
pub const VECTOR_CHANGES_LAST: NamedQuery = q(
    "vectors.last_change",
    "SELECT coalesce(max(seq), 0) FROM vector_changes WHERE model_id = ?1",
);

/// A replaced set's log. ?1 set.
pub const VECTOR_CHANGES_DROP: NamedQuery = NamedQuery {
    name: "vectors.changes_drop",
    sql: "DELETE FROM vector_changes WHERE model_id = ?1",
    allowed_scans: &[AllowedScan {
        table: "vector_changes",
        reason: "removes the replaced model's every change, most of the log: once per model change",
    }],
};

/// Removes an entry's vector from one set. ?1 entry.
pub const VECTOR_DELETE: NamedQuery = q("vectors.delete", "DELETE FROM {vectors} WHERE entry_id = ?1");

/// Overwrites an entry's vector in place: with its new vector when the text changed,
/// with zeros before it is deleted. sqlite-vec's delete leaves the bytes in its chunk
/// (upstream asg017/sqlite-vec#54), so a vector is never deleted or replaced with its
/// bytes left behind. ?1 entry, ?2 the vector.
pub const VECTOR_OVERWRITE: NamedQuery = q(
    "vectors.overwrite",
    "UPDATE {vectors} SET embedding = ?2 WHERE entry_id = ?1",
);

/// Stores a normalised vector (the whole store, model lookup and log included, is timed
/// under this name). ?1 entry, ?2 user, ?3 vector.
pub const VECTOR_INSERT: NamedQuery = q(
    "vectors.store",
    "INSERT INTO {vectors} (entry_id, user_id, embedding) VALUES (?1, ?2, ?3)",
);

/// Vectors a user has in one set. ?1 user.
pub const VECTOR_COUNT: NamedQuery = q(
    "vectors.count",
    "SELECT count(*) FROM {vectors} WHERE user_id = ?1",
);

/// sqlite-vec's KNN over one set, with the day each neighbour was lived (where it was
/// written) for the caller's filter. ?1 normalised query, ?2 k, ?3 user.
pub const VECTOR_KNN: NamedQuery = q(
    "vectors.knn",
    "SELECT v.entry_id, v.distance, e.local_date FROM {vectors} AS v \
     JOIN journal_entries AS e ON e.id = v.entry_id \
     WHERE v.embedding MATCH ?1 AND v.k = ?2 AND v.user_id = ?3 ORDER BY v.distance",
);

/// One entry's vector and the day it was lived, for a copy catching up. ?1 entry, ?2 user.
pub const VECTOR_OF_ENTRY: NamedQuery = q(
    "vectors.of_entry",
    "SELECT v.embedding, e.local_date FROM {vectors} AS v \
     JOIN journal_entries AS e ON e.id = v.entry_id WHERE v.entry_id = ?1 AND v.user_id = ?2",
);

/// Every vector of a user's set with the day its entry was lived: a copy's full load. The vector
/// table leads (CROSS JOIN): read in its own order its chunks stream, where a lookup per
/// entry walks a chunk's blob each time. ?1 user.
pub const VECTOR_ALL: NamedQuery = q(
    "vectors.cache_load",
    "SELECT v.entry_id, v.embedding, e.local_date FROM {vectors} AS v \
     CROSS JOIN journal_entries AS e ON e.id = v.entry_id WHERE v.user_id = ?1",
);

/// One stored vector, for re-scoring a reduced copy's candidates exactly. ?1 entry.
pub const VECTOR_EMBEDDING: NamedQuery = q(
    "vectors.rerank_read",
    "SELECT embedding FROM {vectors} WHERE entry_id = ?1",
);

/// A chat was added to. ?1 chat, ?2 user, ?3 now.
pub const CHAT_TOUCH: NamedQuery = q(
    "chats.touch",
    "UPDATE chats SET updated_at = ?3 WHERE id = ?1 AND user_id = ?2",
);

/// A new chat. ?1 user, ?2 title, ?3 now.
pub const CHAT_CREATE: NamedQuery = q(
    "chats.create",
    "INSERT INTO chats (user_id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
);

/// One message of a chat. ?1 chat, ?2 role, ?3 text, ?4 sources (JSON), ?5 timings
/// (JSON), ?6 now.
pub const CHAT_MESSAGE_INSERT: NamedQuery = q(
    "chats.message_insert",
    "INSERT INTO chat_messages (chat_id, role, content, sources, timings, created_at) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
);

/// How many objects the file's schema has, read before anything is written to it: none
/// means a new journal.
pub const OPEN_SCHEMA_OBJECTS: NamedQuery = NamedQuery {
    name: "open.schema_objects",
    sql: "SELECT count(*) FROM sqlite_schema",
    allowed_scans: &[AllowedScan {
        // The plan names the schema table by its older name.
        table: "sqlite_master",
        reason: "the schema's few dozen rows, counted once per connection opened",
    }],
};

/// Every statement above. The query-plan test and the bench walk this list.
pub const CATALOGUE: &[&NamedQuery] = &[
    &LIST_PAGE1,
    &LIST_PAGE_N,
    &LIST_BY_DATE_RANGE,
    &LIST_BY_TAG,
    &LIST_TRASH,
    &LIST_COUNT,
    &ENTRY_GET,
    &ENTRY_EXISTS,
    &ENTRY_LIVE_STATE,
    &ENTRY_ROW,
    &ENTRY_OLDER_FROM,
    &ENTRY_OLDER_BELOW,
    &TAGS_ALL,
    &WRITE_CREATE,
    &WRITE_UPDATE,
    &WRITE_REDATE,
    &WRITE_TAG_UPSERT,
    &WRITE_TAG_ID,
    &WRITE_TAGS_CLEAR,
    &WRITE_TAG_LINK,
    &WRITE_TAG_NAMES,
    &ENRICH_WRITE,
    &WRITE_TAG_DROP_UNUSED,
    &WRITE_SOFT_DELETE,
    &WRITE_RESTORE,
    &WRITE_PURGE,
    &DASHBOARD_DATA,
    &STATS_DAYS,
    &GALLERY_PAGE,
    &GALLERY_ID_RANGE,
    &GALLERY_RANDOM,
    &PHOTOS_OF_ENTRY,
    &TEMPLATES_ALL,
    &TEMPLATE_INSERT,
    &TEMPLATE_UPDATE,
    &TEMPLATE_DELETE,
    &MEMORY_ENTRY_CREATED,
    &MEMORY_ENTRY_MODEL,
    &MEMORY_MENTIONS_CLEAR_MODEL,
    &MEMORY_MENTION_INSERT,
    &MEMORY_NAME_FIND,
    &MEMORY_NAME_INSERT,
    &MEMORY_NAME_TAKE,
    &MEMORY_SUBJECT,
    &MEMORY_SUBJECT_INSERT,
    &MEMORY_SUBJECT_MODEL_UPDATE,
    &MEMORY_SUBJECT_CORRECT,
    &MEMORY_SUBJECT_DELETE,
    &MEMORY_MENTIONS_MERGE,
    &MEMORY_NAMES_MERGE,
    &MEMORY_MENTION_MOVE,
    &MEMORY_SUBJECTS,
    &MEMORY_SUBJECT_ENTRIES,
    &MEMORY_MENTIONS_OF_ENTRY,
    &MEMORY_NAMES_ALL,
    &PHOTO_DATA,
    &MEDIA_INSERT,
    &MEDIA_BLOB_INSERT,
    &IMPORT_KEYS_AFTER,
    &IMPORT_LAST,
    &IMPORT_RECORD,
    &HISTORY_LAST_KEPT,
    &HISTORY_KEEP,
    &HISTORY_THIN,
    &HISTORY_THIN_ALL,
    &HISTORY_DAYS,
    &HISTORY_SET_DAYS,
    &HISTORY_OF_ENTRY,
    &HISTORY_VERSION,
    &IMPORT_MODEL_WORK,
    &ARCHIVE_PAGE,
    &ARCHIVE_MEDIA,
    &AUDIO_INSERT,
    &AUDIO_SEGMENT_INSERT,
    &AUDIO_OF_ENTRY,
    &AUDIO_DATA,
    &AUDIO_SEGMENTS,
    &AI_JOB_QUEUE,
    &AI_JOB_QUEUE_RANGE,
    &AI_JOB_NEXT,
    &AI_JOB_COUNTS,
    &REFLECTIONS_QUEUE_ENDED,
    &REFLECTIONS_DAYS_WRITTEN,
    &REFLECTIONS_NEXT,
    &REFLECTIONS_WRITE,
    &REFLECTIONS_FAILED,
    &REFLECTIONS_RECENT,
    &REFLECTIONS_WITHIN,
    &SEARCH_KEYWORD_DOCS,
    &AI_JOB_DONE,
    &AI_JOB_CLEAR_ENTRY,
    &AI_JOB_FAILED,
    &AI_BACKFILL_ENRICH,
    &AI_BACKFILL_EMBED_ALL,
    &AI_BACKFILL_EMBED,
    &ENTRY_TEXT,
    &SEARCH_INDEX_INSERT,
    &SEARCH_INDEX_DELETE,
    &SEARCH_INDEX_SOURCE,
    &ENTRY_ID_RANGE,
    &SEARCH_KEYWORD_TOP,
    &SEARCH_KEYWORD,
    &SEARCH_KEYWORD_OCCURS,
    &SEARCH_HIT_TEXT,
    &CHATS_RECENT,
    &CHAT_MESSAGES,
    &CHAT_TOUCH,
    &CHAT_CREATE,
    &CHAT_MESSAGE_INSERT,
    &OPEN_SCHEMA_OBJECTS,
    &VEC_VERSION,
    &VEC_DEBUG,
    &VECTOR_MODEL_ACTIVE,
    &VECTOR_MODELS,
    &VECTOR_MODEL_NAMED,
    &VECTOR_MODEL_INSERT,
    &VECTOR_MODEL_STATE,
    &VECTOR_MODEL_DELETE,
    &VECTOR_CHANGE_LOG,
    &VECTOR_CHANGES_SINCE,
    &VECTOR_CHANGES_LAST,
    &VECTOR_CHANGES_DROP,
    &VECTOR_DELETE,
    &VECTOR_OVERWRITE,
    &VECTOR_INSERT,
    &VECTOR_COUNT,
    &VECTOR_KNN,
    &VECTOR_OF_ENTRY,
    &VECTOR_ALL,
    &VECTOR_EMBEDDING,
];
