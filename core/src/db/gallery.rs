//! Photos of live entries: the gallery's pages, a random pick, an entry's own photos
//! and one photo's bytes (the page shows them), and attaching a photo.

use rand::Rng;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::entries::Cursor;
use super::queries::*;
use super::{EntryId, Result, UserId};
use crate::media::PreparedImage;
use crate::timing;

/// A photo as the gallery shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct GalleryItem {
    pub media_id: i64,
    pub entry_id: EntryId,
    pub created_at: String,
    pub width: u32,
    pub height: u32,
    pub thumbnail_jpeg: Vec<u8>,
    /// The name a Markdown image in the entry's text gives it (`![](name)`), if any.
    pub name: Option<String>,
}

fn gallery_item(row: &Row<'_>) -> rusqlite::Result<GalleryItem> {
    Ok(GalleryItem {
        media_id: row.get(0)?,
        entry_id: row.get(1)?,
        created_at: row.get(2)?,
        width: row.get::<_, Option<u32>>(3)?.unwrap_or(0),
        height: row.get::<_, Option<u32>>(4)?.unwrap_or(0),
        thumbnail_jpeg: row.get::<_, Option<Vec<u8>>>(5)?.unwrap_or_default(),
        name: row.get(6)?,
    })
}

/// One page of photos, newest first, and the cursor for the next page.
pub fn page(
    conn: &Connection,
    user: UserId,
    after: Option<&Cursor>,
    limit: u32,
) -> Result<(Vec<GalleryItem>, Option<Cursor>)> {
    timing::timed(GALLERY_PAGE.name, || {
        let (key, id) = after.map_or(("9999", i64::MAX), |c| (c.key.as_str(), c.id));
        let mut stmt = conn.prepare_cached(GALLERY_PAGE.sql)?;
        let items = stmt
            .query_map(params![user, key, id, limit], gallery_item)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let next = (items.len() as u32 == limit)
            .then(|| items.last())
            .flatten()
            .map(|last| Cursor {
                key: last.created_at.clone(),
                id: last.media_id,
            });
        Ok((items, next))
    })
}

/// Up to `n` different random photos. Each pick jumps to a random id through the index
/// instead of counting rows with OFFSET, so the cost does not grow with the gallery.
/// Ids after a gap are a little more likely; for a shuffle that is invisible.
pub fn random(conn: &Connection, user: UserId, n: usize, rng: &mut impl Rng) -> Result<Vec<GalleryItem>> {
    timing::timed(GALLERY_RANDOM.name, || {
        let (lo, hi): (Option<i64>, Option<i64>) = conn
            .prepare_cached(GALLERY_ID_RANGE.sql)?
            .query_row(params![user], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return Ok(Vec::new());
        };
        let mut stmt = conn.prepare_cached(GALLERY_RANDOM.sql)?;
        let mut picked: Vec<GalleryItem> = Vec::with_capacity(n);
        // A few tries per photo: repeats and photos of trashed entries are skipped.
        for _ in 0..n * 4 {
            if picked.len() == n {
                break;
            }
            let start = rng.random_range(lo..=hi);
            let item = match stmt.query_row(params![user, start], gallery_item).optional()? {
                Some(item) => Some(item),
                // Past the last photo: wrap around to the first.
                None => stmt.query_row(params![user, lo], gallery_item).optional()?,
            };
            match item {
                Some(item) if !picked.iter().any(|p| p.media_id == item.media_id) => picked.push(item),
                Some(_) => {}
                None => break, // no photo of a live entry at all
            }
        }
        Ok(picked)
    })
}

/// Entry `entry`'s photos, as its page shows them: in the order they were added.
pub fn of_entry(conn: &Connection, user: UserId, entry: EntryId) -> Result<Vec<GalleryItem>> {
    timing::timed(PHOTOS_OF_ENTRY.name, || {
        let mut stmt = conn.prepare_cached(PHOTOS_OF_ENTRY.sql)?;
        let items = stmt
            .query_map(params![user, entry], gallery_item)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(items)
    })
}

/// Photo `media_id`'s bytes as they were added (to be shown large), or `None` when the
/// user has no such photo.
pub fn photo_data(conn: &Connection, user: UserId, media_id: i64) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .prepare_cached(PHOTO_DATA.sql)?
        .query_row(params![user, media_id], |row| row.get(0))
        .optional()?)
}

/// Attaches a prepared photo to an entry; returns the media id. Runs inside the
/// caller's transaction, if any. `taken_at` (a stored timestamp) places it in the
/// gallery: now for a photo added today, the entry's time for an imported one. `name`
/// is what a Markdown image in the entry's text calls it, to show it there.
pub fn attach_image(
    conn: &Connection,
    user: UserId,
    entry: EntryId,
    image: &PreparedImage,
    taken_at: &str,
    name: Option<&str>,
) -> Result<i64> {
    timing::timed(MEDIA_INSERT.name, || {
        conn.prepare_cached(MEDIA_INSERT.sql)?.execute(params![
            user,
            entry,
            "image",
            image.mime,
            image.sha256,
            image.data.len() as i64,
            image.width,
            image.height,
            Option::<i64>::None,
            taken_at,
            image.thumbnail_jpeg,
            name,
        ])?;
        let media_id = conn.last_insert_rowid();
        conn.prepare_cached(MEDIA_BLOB_INSERT.sql)?
            .execute(params![media_id, image.data])?;
        Ok(media_id)
    })
}
