//! A deterministic demo journal: the same seed always gives the same entries.
//!
//! Tests, the bench and `mindsage --demo` all use it, so a figure measured on "the
//! 50,000-entry journal" means the same data everywhere. Entries are spread over years
//! with realistic lengths, recurring subjects, tags, moods, and now and then a photo.

use chrono::{DateTime, Duration, Utc};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;

use crate::db::entries::{self, NewEntry};
use crate::db::{EntryId, Result, UserId, gallery};
use crate::{clock, media};

/// What to generate.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    pub entries: usize,
    pub seed: u64,
    /// The newest entry is written shortly before this instant.
    pub end: DateTime<Utc>,
    /// One entry in this many gets a generated photo; 0 for none.
    pub photo_every: usize,
}

impl DemoOptions {
    /// `entries` entries ending at a fixed instant, so runs are comparable.
    pub fn fixed(entries: usize, seed: u64) -> DemoOptions {
        DemoOptions {
            entries,
            seed,
            end: DateTime::parse_from_rfc3339("2026-06-01T20:00:00Z")
                .expect("valid constant")
                .with_timezone(&Utc),
            photo_every: 40,
        }
    }
}

/// One generated entry and, sometimes, a photo for it (PNG bytes).
#[derive(Debug, Clone)]
pub struct DemoEntry {
    pub entry: NewEntry,
    pub photo: Option<Vec<u8>>,
}

struct Topic {
    titles: &'static [&'static str],
    sentences: &'static [&'static str],
    tags: &'static [&'static str],
    mood: u8,
}

const TOPICS: &[Topic] = &[
    Topic {
        titles: &[
            "Morning run",
            "Back on the trail",
            "Long run Sunday",
            "Knee check",
        ],
        sentences: &[
            "I went for a run along the river before work and the air was cold and clear.",
            "My left knee started aching again after the fifth kilometre, so I walked the last stretch.",
            "The physio said to keep the pace easy and stretch the hamstrings every evening.",
            "Managed a steady ten kilometres today without any pain, which felt like a small victory.",
            "Signed up for the autumn half marathon, which is either brave or foolish.",
            "New running shoes arrived and they feel much softer on the pavement.",
        ],
        tags: &["running", "health"],
        mood: 7,
    },
    Topic {
        titles: &["Release day", "Deployment drama", "Sprint review", "On call"],
        sentences: &[
            "We were running the database migration in production when the disk filled up.",
            "The deployment pipeline failed twice before the rollback finally went through.",
            "Spent the afternoon pairing with Priya on the flaky integration tests.",
            "The sprint review went well and the team demoed the new export feature.",
            "I was paged at three in the morning because the queue workers stopped.",
            "Wrote the postmortem and listed three changes so this does not happen again.",
        ],
        tags: &["work"],
        mood: 5,
    },
    Topic {
        titles: &["Pottery class", "Clay day", "At the wheel"],
        sentences: &[
            "At pottery class I finally centred the clay without it wobbling off the wheel.",
            "My bowl collapsed in the kiln but the teacher said that happens to everyone.",
            "The glaze came out a deep blue with little speckles I did not expect.",
            "Bought a small bag of clay to practise pinch pots at the kitchen table.",
        ],
        tags: &["pottery", "hobby"],
        mood: 8,
    },
    Topic {
        titles: &[
            "Family dinner",
            "Visiting Mum",
            "Sunday lunch",
            "Phone call with Dad",
        ],
        sentences: &[
            "We had dinner at my sister's place and the kids showed me their school projects.",
            "Mum is recovering well from the operation and was joking with the nurses.",
            "Dad called to talk about the garden and his tomatoes, as he does every week.",
            "We argued a little about the holiday plans but settled on the coast in August.",
            "My nephew lost his first tooth and made a great show of it.",
        ],
        tags: &["family"],
        mood: 8,
    },
    Topic {
        titles: &["Bad night", "Sleep log", "Tired again"],
        sentences: &[
            "I only slept four hours because of a headache that would not go away.",
            "Woke up at four and lay there thinking about everything on my list.",
            "Tried reading instead of scrolling before bed and fell asleep much faster.",
            "The neighbours had a party until two, so today was a slow, foggy day.",
        ],
        tags: &["sleep", "health"],
        mood: 3,
    },
    Topic {
        titles: &[
            "Weekend in Lisbon",
            "Train journey",
            "Packing list",
            "Travel notes",
        ],
        sentences: &[
            "The train to the coast was late but the view over the bay made up for it.",
            "Walked up to the old castle and ate grilled sardines by the harbour.",
            "Lost my phone charger at the hotel and bought an overpriced one at the station.",
            "The museum was quiet in the morning and I spent an hour with one painting.",
        ],
        tags: &["travel"],
        mood: 9,
    },
    Topic {
        titles: &["Cooking experiment", "Bread attempt", "Dinner for friends"],
        sentences: &[
            "Baked sourdough for the first time and the crust was far better than the crumb.",
            "Made a big pot of lentil soup for the week and froze half of it.",
            "Friends came over and the risotto was a success even though I forgot the parmesan.",
            "Tried a Thai curry recipe that was much spicier than the photo suggested.",
        ],
        tags: &["cooking"],
        mood: 7,
    },
    Topic {
        titles: &["Reading notes", "Finished a book", "Library haul"],
        sentences: &[
            "Finished the novel about the lighthouse keeper and the ending stayed with me all day.",
            "Started a history of the printing press that is drier than I hoped.",
            "Borrowed three books from the library and will probably read one.",
            "Underlined a sentence about patience that I want to remember.",
        ],
        tags: &["reading"],
        mood: 7,
    },
    Topic {
        titles: &["Anxious day", "Hard week", "Feeling low"],
        sentences: &[
            "Felt anxious most of the day without a clear reason, like a low hum.",
            "The week at work was long and I feel tired and stressed.",
            "Skipped the gym and sat in the car for a while before going inside.",
            "Talked to a friend on the phone and felt lighter afterwards.",
        ],
        tags: &["mood", "health"],
        mood: 3,
    },
    Topic {
        titles: &["Grateful", "Small joys", "Three good things"],
        sentences: &[
            "Grateful for the sunshine on the walk home and a good coffee.",
            "A stranger helped me carry the shopping up the stairs.",
            "The garden finally has tulips after a long grey winter.",
            "Laughed until my stomach hurt at the pub quiz with old friends.",
        ],
        tags: &["gratitude"],
        mood: 9,
    },
    Topic {
        titles: &["Doctor appointment", "Check-up", "Blood test"],
        sentences: &[
            "My blood pressure was a little high today, so I will drink more water and cut salt.",
            "The doctor wants another blood test next month just to be sure.",
            "Picked up the prescription and set a reminder on my phone.",
        ],
        tags: &["health"],
        mood: 5,
    },
    Topic {
        titles: &["Garden day", "Allotment", "Planting"],
        sentences: &[
            "Spent the morning weeding the allotment and planting beans along the fence.",
            "The slugs ate half the lettuce overnight, which was discouraging.",
            "Built a small compost bin out of old pallets with my neighbour.",
        ],
        tags: &["garden", "hobby"],
        mood: 8,
    },
];

/// Generates the journal described by `options`, oldest entry first.
pub fn generate(options: &DemoOptions) -> impl Iterator<Item = DemoEntry> + '_ {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    // Small journals cover about a year; large ones ten.
    let span_days = (options.entries as i64 * 2).clamp(365, 3650);
    let start = options.end - Duration::days(span_days);
    let mut offsets: Vec<i64> = (0..options.entries)
        .map(|_| rng.random_range(0..span_days * 86_400))
        .collect();
    offsets.sort_unstable();
    offsets.into_iter().enumerate().map(move |(i, offset)| {
        let created = start + Duration::seconds(offset) + Duration::milliseconds(rng.random_range(0..1000));
        let photo = (options.photo_every > 0 && i % options.photo_every == options.photo_every - 1)
            .then(|| demo_photo(&mut rng));
        DemoEntry {
            entry: demo_entry(&mut rng, created),
            photo,
        }
    })
}

fn demo_entry(rng: &mut ChaCha8Rng, created: DateTime<Utc>) -> NewEntry {
    let main = TOPICS.choose(rng).expect("topics");
    // Most entries touch a second subject in passing, which makes search realistic.
    let aside = rng.random_bool(0.6).then(|| TOPICS.choose(rng).expect("topics"));
    // Lengths vary widely, as real journals do: a line some days, pages on others.
    let paragraphs = *[1, 1, 2, 2, 3, 4, 6].choose(rng).expect("lengths");
    let mut body = String::new();
    for p in 0..paragraphs {
        if p > 0 {
            body.push_str("\n\n");
        }
        let topic = match aside {
            Some(aside) if p % 2 == 1 => aside,
            _ => main,
        };
        let sentences = rng.random_range(2..=5);
        for s in 0..sentences {
            if s > 0 {
                body.push(' ');
            }
            body.push_str(topic.sentences.choose(rng).expect("sentences"));
        }
    }
    let mut tags: Vec<String> = main.tags.iter().map(|t| (*t).to_owned()).collect();
    if let Some(aside) = aside.filter(|_| rng.random_bool(0.5)) {
        tags.extend(aside.tags.iter().map(|t| (*t).to_owned()));
    }
    let mood = rng
        .random_bool(0.9)
        .then(|| (i32::from(main.mood) + rng.random_range(-2..=2)).clamp(1, 10) as u8);
    let title = if rng.random_bool(0.85) {
        (*main.titles.choose(rng).expect("titles")).to_owned()
    } else {
        String::new() // left for AI enrichment to title
    };
    NewEntry {
        title,
        body,
        tags,
        mood_score: mood,
        // Lived here, as a person writing on this computer would have.
        created_at: Some(clock::here(created)),
    }
}

/// A small abstract picture: a sky-like gradient with a few soft circles.
fn demo_photo(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let (w, h) = (320u32, 240u32);
    let top = [
        rng.random_range(40..200u8),
        rng.random_range(80..220u8),
        rng.random_range(120..255u8),
    ];
    let bottom = [
        rng.random_range(0..120u8),
        rng.random_range(40..160u8),
        rng.random_range(20..120u8),
    ];
    let circles: Vec<(f32, f32, f32, [u8; 3])> = (0..rng.random_range(2..6))
        .map(|_| {
            (
                rng.random_range(0.0..w as f32),
                rng.random_range(0.0..h as f32),
                rng.random_range(15.0..70.0),
                [rng.random(), rng.random(), rng.random()],
            )
        })
        .collect();
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let t = y as f32 / h as f32;
        let mut px = [0u8; 3];
        for c in 0..3 {
            px[c] = (top[c] as f32 * (1.0 - t) + bottom[c] as f32 * t) as u8;
        }
        for (cx, cy, r, color) in &circles {
            let d = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
            if d < *r {
                let a = 0.7 * (1.0 - d / r);
                for c in 0..3 {
                    px[c] = (px[c] as f32 * (1.0 - a) + color[c] as f32 * a) as u8;
                }
            }
        }
        image::Rgb(px)
    });
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("encoding a PNG in memory");
    png
}

/// What [`seed`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SeedReport {
    pub entries: usize,
    pub photos: usize,
    pub first_id: Option<EntryId>,
    pub last_id: Option<EntryId>,
}

/// Entries per transaction while seeding: large enough to be fast, small enough that
/// readers see progress and the WAL stays modest.
const SEED_BATCH: usize = 2_000;

/// Writes a demo journal for `user`.
pub fn seed(conn: &mut Connection, user: UserId, options: &DemoOptions) -> Result<SeedReport> {
    puffin::profile_function!();
    let mut report = SeedReport {
        entries: 0,
        photos: 0,
        first_id: None,
        last_id: None,
    };
    let mut items = generate(options).peekable();
    while items.peek().is_some() {
        let tx = conn.transaction()?;
        for item in items.by_ref().take(SEED_BATCH) {
            let id = entries::insert_entry(&tx, user, &item.entry)?;
            if let Some(photo) = item.photo {
                let prepared = media::prepare_image(photo)
                    .map_err(|e| crate::db::DbError::Invalid(format!("demo photo: {e}")))?;
                gallery::attach_image(&tx, user, id, &prepared, &clock::now_utc(), None)?;
                report.photos += 1;
            }
            report.first_id.get_or_insert(id);
            report.last_id = Some(id);
            report.entries += 1;
        }
        tx.commit()?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_journal() {
        let options = DemoOptions::fixed(50, 7);
        let a: Vec<NewEntry> = generate(&options).map(|d| d.entry).collect();
        let b: Vec<NewEntry> = generate(&options).map(|d| d.entry).collect();
        assert_eq!(a, b);
        let other: Vec<NewEntry> = generate(&DemoOptions::fixed(50, 8)).map(|d| d.entry).collect();
        assert_ne!(a, other);
    }

    #[test]
    fn entries_are_in_time_order_and_before_the_end() {
        let options = DemoOptions::fixed(300, 1);
        let dates: Vec<_> = generate(&options)
            .map(|d| d.entry.created_at.unwrap().to_utc())
            .collect();
        assert!(dates.windows(2).all(|w| w[0] <= w[1]));
        assert!(*dates.last().unwrap() <= options.end);
        assert!(options.end - dates[0] > Duration::days(300));
    }
}
