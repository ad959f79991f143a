//! Exports of other journal apps, written the way those apps write them, for the import
//! tests: a Day One zip, a jrnl JSON export, a folder of Markdown files.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::io::Write;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

/// A small real PNG photo of one colour.
pub fn png(side: u32, shade: u8) -> Vec<u8> {
    let image = image::RgbImage::from_pixel(side, side, image::Rgb([shade, 90, 200 - shade / 2]));
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("encode a PNG");
    out.into_inner()
}

/// Day One's md5 names are 32 hex digits; these only need to be unique.
pub const PHOTO_MD5: &str = "0123456789abcdef0123456789abcdef";
pub const MISSING_MD5: &str = "fedcba9876543210fedcba9876543210";

/// The journal "Travel" of the Day One fixture: entries with a title line, escapes, a
/// photo referenced inline, a time zone west of UTC, two entries in the same second,
/// one with a photo and no text, and three that cannot be imported.
pub fn dayone_travel() -> serde_json::Value {
    serde_json::json!({
        "metadata": { "version": "1.0" },
        "entries": [
            {
                "uuid": "A1B2C3D4E5F60718293A4B5C6D7E8F90",
                "creationDate": "2023-01-06T03:30:00Z",
                "modifiedDate": "2023-01-06T04:00:00Z",
                "timeZone": "America/New_York",
                "starred": true,
                "tags": ["Lisbon", "food"],
                "text": "# Pastéis in Belém\n\nQueued 20 min\\. Worth it \\- every bite\\!\n\n![](dayone-moment://PHOTO1)\n\nBack by tram\\.",
                "photos": [{ "identifier": "PHOTO1", "md5": PHOTO_MD5, "type": "png", "orderInEntry": 0 }],
                "location": { "placeName": "Belém", "latitude": 38.69, "longitude": -9.2 },
                "weather": { "conditionsDescription": "Sunny", "temperatureCelsius": 17 }
            },
            {
                "uuid": "SAMESECOND0000000000000000000001",
                "creationDate": "2023-01-07T10:00:00Z",
                "timeZone": "Europe/Lisbon",
                "text": "First note of the minute\nThe tiles at the station.",
            },
            {
                "uuid": "SAMESECOND0000000000000000000002",
                "creationDate": "2023-01-07T10:00:00Z",
                "timeZone": "Europe/Lisbon",
                "text": "Second note of the minute\nA fado bar after dark.",
            },
            {
                "uuid": "PHOTOONLY000000000000000000000001",
                "creationDate": "2023-01-08T12:00:00Z",
                "timeZone": "Europe/Lisbon",
                "photos": [{ "identifier": "P2", "md5": PHOTO_MD5, "type": "png" }]
            },
            {
                "uuid": "MISSINGPHOTO00000000000000000001",
                "creationDate": "2023-01-09T12:00:00Z",
                "text": "Sintra in the fog\n![](dayone-moment://GONE)",
                "photos": [{ "identifier": "GONE", "md5": MISSING_MD5, "type": "jpeg" }]
            },
            { "uuid": "NODATE00000000000000000000000001", "text": "When was this?" },
            { "uuid": "BADDATE0000000000000000000000001", "creationDate": "last Tuesday", "text": "Hmm" },
            { "creationDate": "2023-01-10T12:00:00Z", "text": "No uuid" }
        ]
    })
}

/// The journal "Home" of the Day One fixture: one entry.
pub fn dayone_home() -> serde_json::Value {
    serde_json::json!({
        "metadata": { "version": "1.0" },
        "entries": [{
            "uuid": "HOME0000000000000000000000000001",
            "creationDate": "2023-02-01T20:15:00Z",
            "timeZone": "Europe/London",
            "tags": [],
            "text": "Quiet evening\n\nRead by the window until late."
        }]
    })
}

/// The Day One fixture as Day One zips it, plus a file whose path climbs out of the
/// export (a zip-slip attempt) and macOS's companion files.
pub fn write_dayone_zip(path: &Path) {
    let file = std::fs::File::create(path).expect("create the zip");
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, json) in [("Travel.json", dayone_travel()), ("Home.json", dayone_home())] {
        zip.start_file(name, options).expect("start a journal");
        zip.write_all(serde_json::to_string_pretty(&json).unwrap().as_bytes())
            .unwrap();
    }
    zip.start_file(format!("photos/{PHOTO_MD5}.png"), options)
        .unwrap();
    zip.write_all(&png(64, 40)).unwrap();
    zip.start_file("../../escaped.json", options).unwrap();
    zip.write_all(b"{\"entries\": []}").unwrap();
    zip.start_file("__MACOSX/._Travel.json", options).unwrap();
    zip.write_all(b"\x00\x05\x16\x07 mac resource fork").unwrap();
    zip.finish().expect("finish the zip");
}

/// What the Day One fixture imports as: entries added and problems that reject one.
pub const DAYONE_ADDED: usize = 6;
pub const DAYONE_REJECTED: usize = 4;

/// A jrnl export (`jrnl --export json`) of `n` entries, a minute apart from 2022-03-01
/// 09:00 local time, every third starred, tags with jrnl's `@`.
pub fn jrnl_export(n: usize) -> serde_json::Value {
    let start = chrono::NaiveDate::from_ymd_opt(2022, 3, 1)
        .unwrap()
        .and_hms_opt(9, 0, 0)
        .unwrap();
    let entries: Vec<_> = (0..n)
        .map(|i| {
            let t = start + chrono::Duration::minutes(i as i64);
            serde_json::json!({
                "title": format!("Morning pages {i}."),
                "body": format!(" Wrote about @work and the garden, entry number {i}."),
                "date": t.format("%Y-%m-%d").to_string(),
                "time": t.format("%H:%M").to_string(),
                "tags": ["@work"],
                "starred": i % 3 == 0
            })
        })
        .collect();
    serde_json::json!({ "tags": { "@work": n }, "entries": entries })
}

/// A folder of Markdown files as editors leave them: front matter, a dated file name
/// with CRLF line ends and a byte order mark, a photo beside the notes, a note with no
/// date, one that is not UTF-8, and an app's hidden folder.
pub fn write_markdown_folder(root: &Path) -> PathBuf {
    let folder = root.join("notes");
    std::fs::create_dir_all(folder.join("2024/img")).unwrap();
    std::fs::create_dir_all(folder.join(".obsidian")).unwrap();
    std::fs::write(
        folder.join("2024/walk.md"),
        "---\ntitle: Walk by the river\ndate: 2024-05-01 08:15\ntags: [outside, dog]\nmood: 7\n---\nHerons again.\n\n![heron](img/heron%201.png)\n",
    )
    .unwrap();
    std::fs::write(folder.join("2024/img/heron 1.png"), png(48, 120)).unwrap();
    std::fs::write(
        folder.join("2024-06-02 Rainy Sunday.md"),
        "\u{feff}Stayed in.\r\nBaked bread.\r\n",
    )
    .unwrap();
    std::fs::write(folder.join("2024-06-03.md"), "# Market day\n\nCherries!\n").unwrap();
    std::fs::write(folder.join("ideas.md"), "No date anywhere in here.\n").unwrap();
    std::fs::write(folder.join("2024-06-04.md"), [0x66, 0x6f, 0xff, 0xfe]).unwrap();
    std::fs::write(folder.join(".obsidian/workspace.md"), "not an entry").unwrap();
    folder
}

pub const MARKDOWN_ADDED: usize = 3;
pub const MARKDOWN_REJECTED: usize = 2;

/// One Day One entry of [`dayone_around_the_world`]: its title, when it was written
/// (UTC, as Day One stores it), the zone it was written in, and the local date and time
/// it was lived there (the day and time MindSage shows for it on any computer).
pub struct Travelled {
    pub title: &'static str,
    pub created: &'static str,
    pub zone: &'static str,
    pub lived: &'static str,
}

/// Entries written in four zones, oldest first, each lived on another day than its UTC
/// day or New York's: the evening in New York is 5 January in UTC, the morning in Tokyo
/// 4 January in UTC and in New York, and so on.
pub const AROUND_THE_WORLD: [Travelled; 4] = [
    Travelled {
        title: "Breakfast in Shinjuku",
        created: "2024-01-04T23:30:00Z",
        zone: "Asia/Tokyo",
        lived: "2024-01-05T08:30:00.000+09:00",
    },
    Travelled {
        title: "Last train home in Brooklyn",
        created: "2024-01-05T04:59:00Z",
        zone: "America/New_York",
        lived: "2024-01-04T23:59:00.000-05:00",
    },
    Travelled {
        title: "Sunset on Venice Beach",
        created: "2024-01-06T06:15:00Z",
        zone: "America/Los_Angeles",
        lived: "2024-01-05T22:15:00.000-08:00",
    },
    Travelled {
        title: "Fireworks over the harbour",
        created: "2024-01-06T14:00:00Z",
        zone: "Australia/Sydney",
        lived: "2024-01-07T01:00:00.000+11:00",
    },
];

/// [`AROUND_THE_WORLD`] as a Day One journal.
pub fn dayone_around_the_world() -> serde_json::Value {
    let entries: Vec<_> = AROUND_THE_WORLD
        .iter()
        .enumerate()
        .map(|(n, e)| {
            serde_json::json!({
                "uuid": format!("WORLD{n:027}"),
                "creationDate": e.created,
                "modifiedDate": e.created,
                "timeZone": e.zone,
                "text": format!("{}\n\nWritten where it happened.", e.title),
            })
        })
        .collect();
    serde_json::json!({ "metadata": { "version": "1.0" }, "entries": entries })
}

/// [`dayone_around_the_world`] zipped as Day One exports it.
pub fn write_dayone_world_zip(path: &Path) {
    let file = std::fs::File::create(path).expect("create the zip");
    let mut zip = zip::ZipWriter::new(file);
    zip.start_file("Travels.json", SimpleFileOptions::default())
        .expect("start the journal");
    zip.write_all(
        serde_json::to_string_pretty(&dayone_around_the_world())
            .unwrap()
            .as_bytes(),
    )
    .unwrap();
    zip.finish().expect("finish the zip");
}
