//! Enrichment on save: title, mood, summary and what the entry mentions (people, places,
//! activities) in **one** model call, then the embedding.
//!
//! The reference app made two generations per save; one JSON reply
//! `{title, mood_score, mood_tags, summary, people, places, activities}` carries all of
//! it. The reply is requested
//! with a JSON schema (Ollama constrains the output to it) that bounds every string, and
//! the token limit leaves room for the longest reply the schema allows: a reply cut off
//! by the limit is unparseable, and that was every rejected reply of the small test
//! model (a mood tag written as an endless string). It is then tidied rather than
//! refused wherever the meaning is not in doubt (an over-long title cut at a word,
//! mood tags trimmed, lowercased, split at commas, unusable ones dropped, a missing
//! title made from the summary's opening); only output with nothing usable (no
//! summary, a mood outside 1–10, JSON that does not parse) is retried, a
//! bounded number of times with a different seed, since a deterministic model would
//! otherwise repeat its mistake.
//!
//! Everything is written by [`apply`] in one transaction: title (never over a title the
//! person typed, `title_by_user`), summary, the embedding, the removal of the entry's
//! queued jobs, and the mood and mood tags as *suggestions* (`suggested_mood`,
//! `suggested_tags`), apart from the person's own mood and tags. The model's guesses
//! once went straight into the person's fields, where they could not be told from what
//! the person set and were added to tags the person had chosen; now the editor shows
//! them as the model's, and only the person's accepting one makes it theirs. The people,
//! places and activities go to the journal's memory (`db::memory`), which keeps the
//! person's corrections over them.

use rusqlite::Connection;
use serde::Deserialize;

use super::client::{CallStats, Message};
use super::{OllamaClient, Result};
use crate::db::entries::{self, Entry};
use crate::db::memory::{self, Kind};
use crate::db::queries::ENRICH_WRITE;
use crate::db::{self, EntryId, UserId, jobs};
use crate::search::document::{self, DocumentText};
use crate::search::question::has_words;

/// Model calls allowed for one entry's enrichment (the first and two retries).
pub const MAX_ATTEMPTS: u32 = 3;

/// Characters of the body sent to the model. A long entry's opening says enough for a
/// title and mood, and a bounded prompt keeps the call's cost bounded.
const MAX_BODY_CHARS: usize = 6000;

/// Longest title kept, in characters.
const MAX_TITLE_CHARS: usize = 80;

/// Words in a title made from the summary: the most the prompt asks a title to have.
const TITLE_WORDS: usize = 8;

/// Longest summary kept, in characters.
const MAX_SUMMARY_CHARS: usize = 600;

/// Mood tags kept per entry.
const MAX_MOOD_TAGS: usize = 3;

/// People, places and activities kept per entry: an entry names few, and the bound
/// keeps a rambling reply within the token limit.
const MAX_PEOPLE: usize = 8;
const MAX_PLACES: usize = 5;
const MAX_ACTIVITIES: usize = 5;

/// Longest name of a person, place or activity the model may write, and longest
/// relation ("sister", "best friend").
const MAX_MENTION_CHARS: usize = 40;
const MAX_RELATION_CHARS: usize = 24;

/// Words that name the writer, or no one in particular, not someone the entry mentions.
const NOT_NAMES: [&str; 17] = [
    "i",
    "me",
    "myself",
    "the writer",
    "writer",
    "you",
    "yourself",
    "he",
    "him",
    "himself",
    "she",
    "her",
    "herself",
    "they",
    "them",
    "we",
    "us",
];

/// Longest mood tag the model may write, in characters: one word for a feeling fits
/// easily ("overwhelmed"), and the bound stops a tag from running on for the whole
/// token budget.
const MAX_MOOD_TAG_CHARS: usize = 24;

/// Tokens the enrichment call may generate: twice the characters the schema lets the
/// strings hold, so the longest reply the schema allows is never cut off (a cut reply
/// does not parse and costs another call). A token is rarely shorter than a character;
/// the margin covers escapes, the JSON around the strings and the grammar's spaces. A
/// reply that ends sooner costs nothing for the limit.
const MAX_REPLY_TOKENS: i32 = 2
    * (MAX_TITLE_CHARS
        + MAX_MOOD_TAGS * MAX_MOOD_TAG_CHARS
        + MAX_SUMMARY_CHARS
        + MAX_PEOPLE * (MAX_MENTION_CHARS + MAX_RELATION_CHARS)
        + (MAX_PLACES + MAX_ACTIVITIES) * MAX_MENTION_CHARS) as i32;

const SYSTEM_PROMPT: &str = "You read one private journal entry and describe it. \
Reply with a JSON object only: \
\"title\": a short title of at most 8 words; \
\"mood_score\": an integer from 1 (awful) to 10 (wonderful) for the writer's mood; \
\"mood_tags\": one to three lowercase single words naming the feelings, such as \"calm\"; \
\"summary\": one or two sentences saying what happened and how the writer felt; \
\"people\": everyone the entry mentions other than the writer, each as \"name\" (their name as written, \
or how the writer refers to them, such as \"my sister\") and \"relation\" (one or two words for how \
they are related to the writer, such as \"sister\" or \"colleague\", or \"\" if the entry does not say); \
\"places\": the places the entry mentions, as written; \
\"activities\": what the writer did, one to three lowercase words each, such as \"running\". \
Use empty lists when the entry mentions none.";

/// The model's reply as it must be shaped (also the schema sent to Ollama, which
/// turns it into a grammar the output must follow). The lengths bound the generation
/// itself, every string included: a small model that rambles in a title or a mood tag
/// would otherwise run to `num_predict` and be cut off. The mood is given as a list as
/// well as a range because llama.cpp's grammar builders honour `enum` in every version
/// but `minimum`/`maximum` only in recent ones (llama-cpp-python's does not), and a
/// mood of 0 costs a second call.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = require_every_field)]
struct Reply {
    #[schemars(length(min = 1, max = MAX_TITLE_CHARS))]
    title: String,
    #[schemars(range(min = 1, max = 10), extend("enum" = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]))]
    mood_score: i64,
    #[schemars(length(min = 1, max = MAX_MOOD_TAGS), inner(length(min = 1, max = MAX_MOOD_TAG_CHARS)))]
    mood_tags: Vec<String>,
    #[schemars(length(min = 1, max = MAX_SUMMARY_CHARS))]
    summary: String,
    // Replies from before the journal remembered (and a model that leaves them out) mean
    // none.
    #[serde(default)]
    #[schemars(length(max = MAX_PEOPLE))]
    people: Vec<ReplyPerson>,
    #[serde(default)]
    #[schemars(length(max = MAX_PLACES), inner(length(min = 1, max = MAX_MENTION_CHARS)))]
    places: Vec<String>,
    #[serde(default)]
    #[schemars(length(max = MAX_ACTIVITIES), inner(length(min = 1, max = MAX_MENTION_CHARS)))]
    activities: Vec<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[schemars(transform = require_every_field)]
struct ReplyPerson {
    #[schemars(length(min = 1, max = MAX_MENTION_CHARS))]
    name: String,
    #[serde(default)]
    #[schemars(length(max = MAX_RELATION_CHARS))]
    relation: String,
}

/// Every field required in the schema, so the grammar always writes the lists (empty
/// when there is nothing), while a reply without them still parses (`serde(default)`,
/// which alone would make them optional and let the model skip them).
fn require_every_field(schema: &mut schemars::Schema) {
    let names: Vec<serde_json::Value> = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().map(serde_json::Value::from).collect())
        .unwrap_or_default();
    schema.insert("required".to_owned(), names.into());
}

/// A validated enrichment.
#[derive(Debug, Clone, PartialEq)]
pub struct Enrichment {
    pub title: String,
    pub mood_score: u8,
    pub mood_tags: Vec<String>,
    pub summary: String,
    /// The people, places and activities the entry mentions, each once.
    pub mentions: Vec<memory::Found>,
}

/// An enrichment with the embedding, ready for [`apply`].
#[derive(Debug, Clone, PartialEq)]
pub struct Enriched {
    pub enrichment: Enrichment,
    pub embedding: Vec<f32>,
    pub embed_model: String,
    /// Generation calls made (1 unless output had to be retried).
    pub model_calls: u32,
    /// The generation call that succeeded.
    pub stats: CallStats,
    /// The entry's revision when its text was read: [`apply`] writes only over that one.
    pub revision: i64,
    /// The body the model read, where [`apply`] finds the mentions' words.
    pub body: String,
    /// The text model that read it: the entry's memory is rebuilt when it changes.
    pub text_model: String,
}

/// The text whose embedding represents an entry in search: title, tags and the whole
/// body, exactly what the retrieval-quality evaluation embeds, so the figures it reports
/// are the app's. On the labelled set whole entries beat title plus opening sentences
/// (the `retrieval` bench stage scores both); the model truncates what it cannot take.
pub fn embedding_text(entry: &Entry) -> String {
    document::document_text(&entry.title, &entry.tags, &entry.body, DocumentText::WholeEntry)
}

/// One generation call (retried on invalid output), then the embedding call.
pub async fn enrich(client: &OllamaClient, entry: &Entry) -> Result<Enriched> {
    let settings = client.settings();
    let body: String = entry.body.chars().take(MAX_BODY_CHARS).collect();
    let messages = [Message::system(SYSTEM_PROMPT), Message::user(body)];
    let options = ollama_rs::models::ModelOptions::default()
        .temperature(0.3)
        .num_predict(MAX_REPLY_TOKENS);
    let (mut enrichment, model_calls, stats) = client
        .chat_validated::<Reply, _>(
            &messages,
            options,
            MAX_ATTEMPTS,
            "the entry's title, mood and summary",
            validate,
        )
        .await?;
    enrichment.mentions = said_in(&entry.body, std::mem::take(&mut enrichment.mentions));
    let mut described = entry.clone();
    if !entry.title_by_user {
        described.title = enrichment.title.clone();
    }
    described.summary = Some(enrichment.summary.clone());
    let mut vectors = client
        .embed(&settings.embed_model, &[embedding_text(&described)])
        .await?;
    Ok(Enriched {
        enrichment,
        embedding: vectors.pop().unwrap_or_default(),
        embed_model: settings.embed_model.clone(),
        model_calls,
        stats,
        revision: entry.revision,
        body: entry.body.clone(),
        text_model: settings.text_model.clone(),
    })
}

/// Checks and tidies the model's reply. The error describes the problem without
/// quoting the reply (it may repeat journal text, and errors end up in logs).
pub fn validate(text: &str) -> Result<Enrichment, String> {
    let reply: Reply = super::json_reply::parse_described(text)?;
    let mood_score = u8::try_from(reply.mood_score)
        .ok()
        .filter(|m| (1..=10).contains(m))
        .ok_or_else(|| format!("mood_score {} is outside 1–10", reply.mood_score))?;
    let summary = clip(&one_line(&reply.summary), MAX_SUMMARY_CHARS);
    if !has_words(&summary) {
        return Err("the summary is empty".to_owned());
    }
    // A title of punctuation alone (")") with a usable summary: the summary's opening
    // words say the same, and asking again would cost a whole model call for a title.
    let title = Some(clip(&one_line(&reply.title), MAX_TITLE_CHARS))
        .filter(|t| has_words(t))
        .unwrap_or_else(|| title_from(&summary));
    let people = reply
        .people
        .iter()
        .map(|p| (Kind::Person, p.name.as_str(), p.relation.as_str()));
    let places = reply.places.iter().map(|p| (Kind::Place, p.as_str(), ""));
    let activities = reply.activities.iter().map(|a| (Kind::Activity, a.as_str(), ""));
    Ok(Enrichment {
        title,
        mood_score,
        mood_tags: mood_tags(&reply.mood_tags),
        summary,
        mentions: mentions(people.chain(places).chain(activities)),
    })
}

/// The model's people, places and activities tidied: names on one line, cut at their
/// bound; relations lowercased without a leading "my"; activities lowercased; the
/// writer, empty names and repeats (by [`memory::key_of`]) dropped.
fn mentions<'a>(raw: impl Iterator<Item = (Kind, &'a str, &'a str)>) -> Vec<memory::Found> {
    let mut found: Vec<memory::Found> = Vec::new();
    for (kind, name, relation) in raw {
        let name = clip(&one_line(name), MAX_MENTION_CHARS);
        let key = memory::key_of(&name);
        if key.is_empty() || (kind == Kind::Person && NOT_NAMES.contains(&key.as_str())) {
            continue;
        }
        if found
            .iter()
            .any(|f| f.kind == kind && memory::key_of(&f.name) == key)
        {
            continue;
        }
        let name = if kind == Kind::Activity {
            name.to_lowercase()
        } else {
            name
        };
        let relation = memory::key_of(&clip(&one_line(relation), MAX_RELATION_CHARS));
        found.push(memory::Found { kind, name, relation });
    }
    found
}

/// The first words of `summary`'s first sentence, as many as the prompt allows a title.
fn title_from(summary: &str) -> String {
    let sentence = summary.split_inclusive(['.', '!', '?']).next().unwrap_or(summary);
    let words: Vec<&str> = sentence.split_whitespace().take(TITLE_WORDS).collect();
    let title = words.join(" ");
    let title = title.trim_end_matches(|c: char| !c.is_alphanumeric());
    clip(title, MAX_TITLE_CHARS)
}

/// Whitespace collapsed, the quotes and asterisks the model likes to wrap text in
/// removed, and punctuation no phrase begins with (") The walk", ", then") dropped
/// from the start.
pub(super) fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '*')
        .trim_start_matches(|c: char| c.is_whitespace() || ")]},.;:!?|".contains(c))
        .trim()
        .to_owned()
}

/// `text` cut to fewer than `max` characters at a word boundary, marked with "…".
/// Text that reaches `max` is cut too: the schema bounds the string at `max`, so the
/// grammar most likely ended it there mid-word. A cut title or summary still says what
/// the model meant; refusing it would cost a model call for nothing. A single word
/// longer than the limit is cut where the limit falls.
pub(super) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() < max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max - 1).collect();
    let whole_words = match head.rfind(' ') {
        Some(space) if space > 0 => &head[..space],
        _ => head.as_str(),
    };
    let kept = whole_words.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{kept}…")
}

/// The model's mood tags as tags: split at list punctuation ("calm, hopeful"), stripped
/// of surrounding punctuation ("#calm", "calm."), lowercased; a piece that is not one
/// word ("two words", "x:25") is dropped rather than the reply refused, and so are
/// repeats beyond [`MAX_MOOD_TAGS`].
fn mood_tags(raw: &[String]) -> Vec<String> {
    let words: Vec<String> = raw
        .iter()
        .flat_map(|tag| tag.split([',', ';', '/', '|']))
        .map(|tag| tag.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|tag| !tag.is_empty() && tag.chars().all(|c| c.is_alphabetic() || c == '-'))
        .collect();
    let mut tags = entries::normalise_tags(&words);
    tags.truncate(MAX_MOOD_TAGS);
    tags
}

/// What of the model's people, places and activities the entry itself says: a small
/// model invents names, and a name that is not in the text is not the writer's. A
/// person's name or a place must be in the text; a person named only by an invented
/// name but with a relation the text uses ("my sister") is kept as that relation; an
/// activity needs one of its words (from its first four letters: "running" for "ran"
/// does not count, "run" for "running" does) in the text.
fn said_in(body: &str, found: Vec<memory::Found>) -> Vec<memory::Found> {
    let text = body.to_lowercase();
    found
        .into_iter()
        .filter_map(|mut f| {
            let key = memory::key_of(&f.name);
            if text.contains(&key) {
                return Some(f);
            }
            match f.kind {
                Kind::Person if !f.relation.is_empty() && text.contains(&f.relation) => {
                    f.name = format!("my {}", f.relation);
                    Some(f)
                }
                Kind::Activity => key
                    .split_whitespace()
                    .filter(|word| word.chars().count() >= 3)
                    .any(|word| text.contains(&word.chars().take(4).collect::<String>()))
                    .then_some(f),
                _ => None,
            }
        })
        .collect()
}

/// Writes an enrichment in one transaction: the entry's title (unless the person typed
/// one), summary and embedding, its mood and mood tags as suggestions, and clears its
/// queued AI jobs. Returns false, writing nothing, when the entry was edited
/// since the model read it (its newer jobs stay queued, so the result of the edited
/// text follows) or was trashed or purged meanwhile (its jobs are cleared).
pub fn apply(
    conn: &mut Connection,
    user: UserId,
    entry_id: EntryId,
    enriched: &Enriched,
) -> db::Result<bool> {
    crate::timing::timed(ENRICH_WRITE.name, || {
        let tx = conn.transaction()?;
        match entries::live_state(&tx, user, entry_id)? {
            Some(live) if live.revision != enriched.revision => return Ok(false),
            Some(_) => {}
            None => {
                jobs::finish_entry(&tx, entry_id)?;
                tx.commit()?;
                return Ok(false);
            }
        };
        let e = &enriched.enrichment;
        memory::remember(
            &tx,
            user,
            entry_id,
            &enriched.body,
            &e.mentions,
            &enriched.text_model,
        )?;
        entries::write_enrichment(
            &tx,
            user,
            entry_id,
            &e.title,
            e.mood_score,
            &e.mood_tags,
            &e.summary,
        )?;
        // The title may have changed outside the editor: search must see it.
        entries::reindex_for_search(&tx, entry_id)?;
        db::vectors::store_embedding(&tx, user, entry_id, &enriched.embed_model, &enriched.embedding)?;
        jobs::finish_entry(&tx, entry_id)?;
        tx.commit()?;
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_bounds_what_the_model_can_write() {
        // As ollama-rs sends it: subschemas inline (Ollama does not follow `$ref`).
        let mut settings = schemars::generate::SchemaSettings::draft07();
        settings.inline_subschemas = true;
        let schema = serde_json::to_value(settings.into_generator().into_root_schema_for::<Reply>()).unwrap();
        let properties = &schema["properties"];
        assert_eq!(properties["title"]["maxLength"], MAX_TITLE_CHARS);
        assert_eq!(properties["summary"]["minLength"], 1);
        assert_eq!(properties["mood_tags"]["maxItems"], MAX_MOOD_TAGS);
        assert_eq!(properties["mood_tags"]["items"]["maxLength"], MAX_MOOD_TAG_CHARS);
        assert_eq!(properties["people"]["maxItems"], MAX_PEOPLE);
        let required = |schema: &serde_json::Value| -> Vec<String> {
            let mut names: Vec<String> = serde_json::from_value(schema["required"].clone()).unwrap();
            names.sort();
            names
        };
        assert_eq!(
            required(&schema),
            [
                "activities",
                "mood_score",
                "mood_tags",
                "people",
                "places",
                "summary",
                "title"
            ]
        );
        assert_eq!(required(&properties["people"]["items"]), ["name", "relation"]);
        assert_eq!(properties["places"]["items"]["maxLength"], MAX_MENTION_CHARS);
        let moods: Vec<i64> = serde_json::from_value(properties["mood_score"]["enum"].clone()).unwrap();
        assert_eq!(moods, (1..=10).collect::<Vec<_>>());
    }

    #[test]
    fn valid_replies_are_tidied() {
        let e = validate(
            r#"{"title": " \"A  day by the sea\" ", "mood_score": 8, "mood_tags": ["Calm", "calm", "two words", "grateful"], "summary": "Walked.\n Felt calm."}"#,
        )
        .unwrap();
        assert_eq!(e.title, "A day by the sea");
        assert_eq!(e.mood_score, 8);
        assert_eq!(e.mood_tags, ["calm", "grateful"]);
        assert_eq!(e.summary, "Walked. Felt calm.");
    }

    #[test]
    fn what_can_be_tidied_is_not_refused() {
        let reply = |title: &str, tags: &str, summary: &str| {
            validate(&format!(
                r#"{{"title": "{title}", "mood_score": 4, "mood_tags": {tags}, "summary": "{summary}"}}"#
            ))
            .unwrap()
        };
        // A title the grammar cut at its bound loses its partial last word.
        let long = "word ".repeat(15) + "endless";
        let e = reply(&long[..MAX_TITLE_CHARS], "[]", "s");
        assert!(e.title.chars().count() < MAX_TITLE_CHARS, "{}", e.title);
        assert!(e.title.ends_with("word…"), "{}", e.title);
        // One word too long for the limit is cut where the limit falls.
        let e = reply(&"x".repeat(MAX_TITLE_CHARS), "[]", "s");
        assert_eq!(e.title.chars().count(), MAX_TITLE_CHARS);
        // Mood tags: split, stripped, lowercased; unusable ones dropped, not the reply.
        let e = reply(
            "t",
            r##"["Tired, Hopeful", "#calm.", "x:25", "", "two words"]"##,
            "s",
        );
        assert_eq!(e.mood_tags, ["tired", "hopeful", "calm"]);
        let e = reply("t", r#"["]]", "?"]"#, "s");
        assert!(e.mood_tags.is_empty());
        // Stray punctuation at the start goes; a short title or summary is kept as written.
        let e = reply(") A day", "[]", ", Fine.");
        assert_eq!((e.title.as_str(), e.summary.as_str()), ("A day", "Fine."));
        // No title, or punctuation alone: the summary's opening words stand in.
        let summary = "A long walk along the cliffs with Sam and the dog, then rain. Tired.";
        for title in [" ", "][", ")"] {
            let e = reply(title, "[]", summary);
            assert_eq!(e.title, "A long walk along the cliffs with Sam");
        }
        assert_eq!(reply("", "[]", "Rain!").title, "Rain");
    }

    #[test]
    fn people_places_and_activities_are_tidied() {
        let e = validate(
            r#"{"title": "t", "mood_score": 6, "mood_tags": [], "summary": "s",
                "people": [{"name": " Maya ", "relation": "My Sister"}, {"name": "maya", "relation": ""},
                           {"name": "I", "relation": ""}, {"name": "...", "relation": "x"},
                           {"name": "my  mum", "relation": "mother"}],
                "places": ["the Lake House", "Lake house"],
                "activities": ["Running", "running "]}"#,
        )
        .unwrap();
        let found: Vec<(Kind, &str, &str)> = e
            .mentions
            .iter()
            .map(|f| (f.kind, f.name.as_str(), f.relation.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (Kind::Person, "Maya", "sister"),
                (Kind::Person, "my mum", "mother"),
                (Kind::Place, "the Lake House", ""),
                (Kind::Activity, "running", ""),
            ]
        );
        // A reply without them (a model that leaves them out) mentions nothing.
        let e = validate(r#"{"title": "t", "mood_score": 6, "mood_tags": [], "summary": "s"}"#).unwrap();
        assert!(e.mentions.is_empty());
    }

    #[test]
    fn only_what_the_entry_says_is_kept() {
        let found = |kind, name: &str, relation: &str| memory::Found {
            kind,
            name: name.into(),
            relation: relation.into(),
        };
        let body = "Tea with Maya and my sister at the Lake House. Went running, then talked.";
        let kept = said_in(
            body,
            vec![
                found(Kind::Person, "Maya", ""),
                found(Kind::Person, "Josie", "sister"),
                found(Kind::Person, "Liam", "colleague"),
                found(Kind::Place, "the lake house", ""),
                found(Kind::Place, "coffeehouse_matt", ""),
                found(Kind::Activity, "running", ""),
                found(Kind::Activity, "talking", ""),
                found(Kind::Activity, "to me", ""),
                found(Kind::Activity, "swimming", ""),
            ],
        );
        let names: Vec<&str> = kept.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["Maya", "my sister", "the lake house", "running", "talking"]
        );
    }

    #[test]
    fn invalid_replies_are_refused_without_quoting_them() {
        let refuse = |text: &str| validate(text).unwrap_err();
        assert!(
            refuse(r#"{"title": "x", "mood_score": 0, "mood_tags": [], "summary": "s"}"#).contains("outside")
        );
        assert!(
            refuse(r#"{"title": "t", "mood_score": 5, "mood_tags": [], "summary": ""}"#).contains("summary")
        );
        assert!(
            refuse(r#"{"title": "", "mood_score": 5, "mood_tags": [], "summary": ")"}"#).contains("summary")
        );
        let problem = refuse(r#"{"title": "secret words", "mood_score": "high"}"#);
        assert!(
            !problem.contains("secret") && !problem.contains("high"),
            "{problem}"
        );
    }

    #[test]
    fn embedding_text_is_the_whole_entry_with_tags() {
        let mut entry = Entry {
            id: 1,
            created_at: String::new(),
            utc_offset: 0,
            updated_at: String::new(),
            title: "Sea".into(),
            title_by_user: false,
            body: "long body".into(),
            mood_score: None,
            summary: None,
            word_count: 2,
            is_deleted: false,
            deleted_at: None,
            tags: vec!["walks".into()],
            revision: 0,
            suggested_mood: None,
            suggested_tags: Vec::new(),
        };
        assert_eq!(embedding_text(&entry), "Sea\nwalks\nlong body");
        // A summary does not replace the body: whole entries retrieved better.
        entry.summary = Some("A walk.".into());
        assert_eq!(embedding_text(&entry), "Sea\nwalks\nlong body");
    }
}
