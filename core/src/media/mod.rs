//! Photos attached to entries: checked, measured and thumbnailed before they are stored.
//!
//! Decoding happens here, off the UI thread, once per photo; the gallery only ever
//! draws the small JPEG thumbnail stored next to the photo.

pub mod links;

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use sha2::{Digest, Sha256};

/// Longest side of a stored thumbnail, in pixels: sharp in a gallery cell on a
/// high-DPI screen, small enough that a page of them reads in a few milliseconds.
pub const THUMBNAIL_SIDE: u32 = 256;

/// Photos larger than this are refused rather than decoded (a 50 MB file is not a
/// journal photo, and decoding it would take seconds and hundreds of MB).
pub const MAX_IMAGE_BYTES: usize = 40 * 1024 * 1024;

/// Longest side a photo may have: beyond any camera's (a 200-megapixel phone photo is
/// about 16,000 pixels wide).
pub const MAX_IMAGE_SIDE: u32 = 20_000;

/// Memory the decoder may use for one photo.
const MAX_DECODED_BYTES: u64 = 1024 * 1024 * 1024;

/// Why a file could not be attached.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    #[error("the file is too large ({bytes} bytes; photos up to {max} bytes are accepted)")]
    TooLarge { bytes: usize, max: usize },
    #[error("not a photo MindSage can read (PNG or JPEG): {0}")]
    Unsupported(String),
    #[error("encoding the thumbnail failed: {0}")]
    Thumbnail(String),
}

/// A photo ready to store: original bytes, what they are, and a thumbnail.
#[derive(Debug, Clone)]
pub struct PreparedImage {
    pub mime: &'static str,
    pub sha256: String,
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
    pub thumbnail_jpeg: Vec<u8>,
}

/// Checks, decodes and thumbnails a photo.
pub fn prepare_image(data: Vec<u8>) -> Result<PreparedImage, MediaError> {
    puffin::profile_function!();
    if data.len() > MAX_IMAGE_BYTES {
        return Err(MediaError::TooLarge {
            bytes: data.len(),
            max: MAX_IMAGE_BYTES,
        });
    }
    let mut reader = ImageReader::new(Cursor::new(&data))
        .with_guessed_format()
        .map_err(|e| MediaError::Unsupported(e.to_string()))?;
    reader.limits(decoder_limits());
    let mime = match reader.format() {
        Some(ImageFormat::Png) => "image/png",
        Some(ImageFormat::Jpeg) => "image/jpeg",
        other => return Err(MediaError::Unsupported(format!("format {other:?}"))),
    };
    let image = reader
        .decode()
        .map_err(|e| MediaError::Unsupported(e.to_string()))?;
    let thumbnail_jpeg = thumbnail(&image)?;
    Ok(PreparedImage {
        mime,
        sha256: sha256_hex(&data),
        width: image.width(),
        height: image.height(),
        data,
        thumbnail_jpeg,
    })
}

/// What a photo may declare before it is decoded: a small file can claim enormous
/// dimensions (a decompression bomb), and the decoder would allocate for them.
fn decoder_limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    limits
}

fn thumbnail(image: &DynamicImage) -> Result<Vec<u8>, MediaError> {
    let small = image.thumbnail(THUMBNAIL_SIDE, THUMBNAIL_SIDE).into_rgb8();
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
        .encode_image(&small)
        .map_err(|e| MediaError::Thumbnail(e.to_string()))?;
    Ok(out)
}

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([x as u8, y as u8, 90]));
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn prepares_a_png_with_a_bounded_thumbnail() {
        let prepared = prepare_image(png(800, 400)).unwrap();
        assert_eq!(
            (prepared.mime, prepared.width, prepared.height),
            ("image/png", 800, 400)
        );
        let thumb = image::load_from_memory(&prepared.thumbnail_jpeg).unwrap();
        assert_eq!((thumb.width(), thumb.height()), (256, 128));
        assert_eq!(prepared.sha256.len(), 64);
    }

    #[test]
    fn refuses_what_is_not_a_photo() {
        assert!(matches!(
            prepare_image(b"definitely not an image".to_vec()),
            Err(MediaError::Unsupported(_))
        ));
        let mut truncated = png(64, 64);
        truncated.truncate(60);
        assert!(prepare_image(truncated).is_err());
    }
}
