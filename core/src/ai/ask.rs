//! Ask: a question about the journal, answered from the journal, streamed.
//!
//! Stages, each timed and reported as it ends:
//! 1. **plan**: decide whether the question needs the journal and which dates it
//!    means ([`super::plan`]). A local rule decides without a model when the question
//!    plainly needs the journal: it speaks about the writer's life, names explicit
//!    dates, or asks about things the journal mentions. Only otherwise does one JSON
//!    planning call run. In the reference app planning was 6.2 of 14 seconds; skipping
//!    it is the biggest saving here.
//! 2. **embed** the search phrase (falls back to keyword search if that fails).
//! 3. **search**: hybrid search, top 5, date filter, down to the relevance floor
//!    ([`crate::search::relevance`]). When no entry reaches it, the answer is "I found
//!    nothing" and what was searched, with no sources and no model call: a model given
//!    unrelated entries, or none, invents.
//! 4. **answer**: one streamed call with each found entry's summary (or the trimmed
//!    opening of its body), never whole entries. The answer is plain text, shown as it
//!    streams. It is not wrapped in JSON: prose gains nothing from a JSON envelope, while
//!    the envelope costs escape tokens and grammar-constrained sampling, and a model
//!    that breaks it (a raw line break inside the string) turned a good answer into a
//!    retry. If the stream breaks or the answer is empty, the call is retried once,
//!    after an [`AskEvent::Reset`] tells the screen to discard the partial text.
//!
//! Consuming it: [`ask`] is async and reports through a callback, ending with `Done`
//! when the question is answered (a plain thread runs it with [`super::block_on`]; the
//! caller shows an error its own way). [`ask_measured`] also
//! fills an [`AskCost`] whether or not the question is answered, so a failed question
//! is still a measured one. Timings go to the shared registry under
//! [`timing_names`] (`ask.plan` … `ask.overhead`). [`save_chat`] stores the exchange
//! through `db::chats`; the caller runs it wherever writes run (writer thread, CLI).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Local};
use rusqlite::Connection;
use serde::Serialize;

use super::client::Message;
use super::{AiError, OllamaClient, Result, plan};
pub use crate::db::chats::Source;
use crate::db::chats::{self, Exchange};
use crate::db::{self, UserId, entries, memory, reflections};
use crate::search::question::{self, has_words};
use crate::search::{self, nearest::VectorCache};
use crate::timing;

/// Reflections on weeks and months a question about a period reads, at most: a
/// season's months, or a month's weeks.
const PERIOD_REFLECTIONS: u32 = 5;

/// Characters of an entry's body used as context when it has no summary yet.
const CONTEXT_BODY_CHARS: usize = 500;

/// Answer calls per question: the first, and one retry after a broken or invalid reply.
pub const ANSWER_ATTEMPTS: u32 = 2;

/// Names the pipeline's timings have in the shared registry ([`crate::timing`]), one per
/// stage and three for the whole question.
pub mod timing_names {
    pub const PLAN: &str = "ask.plan";
    pub const EMBED: &str = "ask.embed";
    pub const SEARCH: &str = "ask.search";
    pub const ANSWER: &str = "ask.answer";
    /// From the question to the first answer text on screen.
    pub const FIRST_TOKEN: &str = "ask.first_token";
    pub const TOTAL: &str = "ask.total";
    /// The total less the time inside model calls.
    pub const OVERHEAD: &str = "ask.overhead";
}

/// A stage of the pipeline, reported to the screen as it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Plan,
    Embed,
    Search,
    Answer,
}

impl Stage {
    /// The name the screen shows ([`AskEvent::Stage`]).
    fn name(self) -> &'static str {
        match self {
            Stage::Plan => "plan",
            Stage::Embed => "embed",
            Stage::Search => "search",
            Stage::Answer => "answer",
        }
    }

    fn timing_name(self) -> &'static str {
        match self {
            Stage::Plan => timing_names::PLAN,
            Stage::Embed => timing_names::EMBED,
            Stage::Search => timing_names::SEARCH,
            Stage::Answer => timing_names::ANSWER,
        }
    }
}

/// Something the screen should show, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum AskEvent {
    /// A stage finished (`plan`, `embed`, `search`, `answer`).
    Stage { name: &'static str, elapsed: Duration },
    /// New answer text to append.
    Token(String),
    /// Discard the answer text shown so far: the call is being retried.
    Reset,
    /// What the journal remembered of the question's words ("Maya, whom you call your
    /// sister", "since the move (your entry of 14 March 2026)"), once the search has
    /// shown which of it was used, before the sources.
    Remembered(Vec<String>),
    /// The entries the answer rests on.
    Sources(Vec<Source>),
    /// The complete answer.
    Done(Box<AskAnswer>),
    /// The question could not be answered; the message says what to do.
    Error(String),
}

/// Where the time of one question went.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AskTimings {
    pub plan: Duration,
    pub embed: Duration,
    pub search: Duration,
    pub answer: Duration,
    /// From the question to the first answer text on screen.
    pub first_token: Option<Duration>,
    pub total: Duration,
    /// Wall time inside model and embedding calls.
    pub model: Duration,
    /// Everything else: the pipeline's own cost (prompt building, search, SQLite).
    pub overhead: Duration,
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskAnswer {
    pub question: String,
    pub text: String,
    pub sources: Vec<Source>,
    /// What the journal remembered of the question's words, and used.
    pub remembered: Vec<String>,
    /// What it cost (its fields appear beside these in JSON).
    #[serde(flatten)]
    pub cost: AskCost,
    /// Why vector search was not used, when it was not.
    pub keyword_only: Option<String>,
}

const ANSWER_PROMPT: &str = "You are MindSage, a kind assistant inside a private journal. \
Answer the person's question briefly and warmly, using only the journal entries given. \
If they do not contain the answer, say so.";

/// What a question cost, answered or not.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AskCost {
    pub timings: AskTimings,
    /// Generation calls (planning and answer attempts); embeddings not counted.
    pub model_calls: u32,
    /// True when the local rule made the planning call unnecessary.
    pub planned_locally: bool,
}

/// An earlier question of the same chat and the answer it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub question: String,
    pub answer: String,
}

/// Earlier turns a follow-up question carries: enough for "and after that?", few enough
/// to keep the answer call's prompt short.
pub const TURNS_KEPT: usize = 3;

/// A question, and the chat's earlier turns it follows (none for a new chat).
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    pub text: &'a str,
    pub earlier: &'a [Turn],
}

impl<'a> From<&'a str> for Question<'a> {
    fn from(text: &'a str) -> Question<'a> {
        Question { text, earlier: &[] }
    }
}

impl Question<'_> {
    /// What is planned and searched for: a follow-up ("and after that?") says little on
    /// its own, so the question it follows is read with it (its people, places and
    /// dates too).
    fn searched(&self) -> String {
        match self.earlier.last() {
            Some(turn) => format!("{} {}", turn.question, self.text),
            None => self.text.to_owned(),
        }
    }
}

/// Answers `question` from the journal, reporting through `emit`. `vectors`: an
/// in-memory vector copy to search (the app's reader's, [`search::SharedVectors`]);
/// `None` asks sqlite-vec instead.
pub async fn ask(
    client: &OllamaClient,
    conn: &Connection,
    vectors: Option<&Mutex<VectorCache>>,
    user: UserId,
    question: Question<'_>,
    now: DateTime<Local>,
    emit: &mut dyn FnMut(AskEvent),
) -> Result<AskAnswer> {
    ask_measured(
        client,
        conn,
        vectors,
        user,
        question,
        now,
        emit,
        &mut AskCost::default(),
    )
    .await
}

/// [`ask`], with what the question cost left in `cost` even when it ends in an error
/// (the bench counts failed questions, it does not drop them).
#[allow(clippy::too_many_arguments)] // what a question needs, each said once
pub async fn ask_measured(
    client: &OllamaClient,
    conn: &Connection,
    vectors: Option<&Mutex<VectorCache>>,
    user: UserId,
    question: Question<'_>,
    now: DateTime<Local>,
    emit: &mut dyn FnMut(AskEvent),
    cost: &mut AskCost,
) -> Result<AskAnswer> {
    let asking = Asking {
        client,
        conn,
        vectors,
        user,
        question,
        now,
        started: Instant::now(),
    };
    *cost = AskCost::default();
    let result = asking.run(emit, cost).await;
    let timings = &mut cost.timings;
    timings.total = asking.started.elapsed();
    timings.overhead = timings.total.saturating_sub(timings.model);
    if let Some(first) = timings.first_token {
        timing::record(timing_names::FIRST_TOKEN, first);
    }
    timing::record(timing_names::TOTAL, timings.total);
    timing::record(timing_names::OVERHEAD, timings.overhead);
    let (text, found) = result?;
    let answer = AskAnswer {
        question: question.text.to_owned(),
        text,
        sources: found.sources,
        remembered: found.remembered,
        cost: cost.clone(),
        keyword_only: found.keyword_only,
    };
    emit(AskEvent::Done(Box::new(answer.clone())));
    Ok(answer)
}

/// One question on its way through the pipeline: what every stage reads.
struct Asking<'a> {
    client: &'a OllamaClient,
    conn: &'a Connection,
    /// The in-memory vector copy the search stage scans; `None`: sqlite-vec's KNN.
    vectors: Option<&'a Mutex<VectorCache>>,
    user: UserId,
    question: Question<'a>,
    now: DateTime<Local>,
    /// When it was asked: the first answer text's time counts from here.
    started: Instant,
}

/// What the search stages found for the answer to rest on.
#[derive(Debug, Default)]
struct Found {
    sources: Vec<Source>,
    /// The found entries, numbered, as the answer call's context.
    context: String,
    /// Why search used keywords only, if it did.
    keyword_only: Option<String>,
    /// What the journal remembered of the question's words ("Maya, whom you call your
    /// sister").
    remembered: Vec<String>,
    /// What was searched, dates included: what "I found nothing" says.
    searched: Option<search::SearchQuery>,
}

impl Asking<'_> {
    /// The pipeline's stages, accounting into `cost` as each ends. Returns the answer's
    /// text and what search found (nothing when the question needed no journal).
    async fn run(&self, emit: &mut dyn FnMut(AskEvent), cost: &mut AskCost) -> Result<(String, Found)> {
        let plan = self.plan(emit, cost).await?;
        let found = match &plan.query {
            Some(query) => {
                let found = self.find(query, plan.event.as_ref(), emit, cost).await?;
                if found.sources.is_empty() {
                    // Nothing to answer from: a model given no entries answers from nothing,
                    // and a small one invents. Say so, and what was searched, without a
                    // model call.
                    let searched = found.searched.as_ref().unwrap_or(query);
                    let text = nothing_found(searched, found.keyword_only.as_deref());
                    emit(AskEvent::Token(text.clone()));
                    return Ok((text, found));
                }
                Some(found)
            }
            None => None,
        };
        let context = found.as_ref().map(|f| f.context.as_str());
        let mut text = self.answer(context, emit, cost).await?;
        let found = found.unwrap_or_default();
        if let Some(reason) = &found.keyword_only {
            let note = format!("\n\n(Found by keywords only: {reason}.)");
            emit(AskEvent::Token(note.clone()));
            text.push_str(&note);
        }
        Ok((text, found))
    }

    /// Stage 1: whether the question needs the journal and which dates it means, by the
    /// local rule or else one planning call.
    async fn plan(&self, emit: &mut dyn FnMut(AskEvent), cost: &mut AskCost) -> Result<plan::Plan> {
        let stage = Instant::now();
        let searched = self.question.searched();
        let planned = match plan::local(self.conn, self.user, &searched, self.now)? {
            Some(plan) => Ok(plan),
            None => {
                cost.model_calls += 1;
                plan::with_model(self.client, &searched, self.now).await
            }
        };
        let plan_time = stage.elapsed();
        let plan = planned.inspect_err(|_| {
            cost.timings.plan = plan_time;
            cost.timings.model += plan_time;
        })?;
        cost.planned_locally = plan.local;
        cost.timings.plan = stage_done(emit, Stage::Plan, stage);
        if !plan.local {
            cost.timings.model += cost.timings.plan;
        }
        Ok(plan)
    }

    /// Stages 2 and 3: the search phrase embedded (keywords alone if that fails), then
    /// the hybrid search whose best entries become the sources and the context. The
    /// people and places the question names ("my sister") are found in the
    /// journal's memory first: the search then runs over their entries for the rest of
    /// the question, and their newest entries in the question's dates fill what the
    /// search leaves. `event` is what the question's dates run from or to, to show.
    async fn find(
        &self,
        query: &search::SearchQuery,
        event: Option<&question::Event>,
        emit: &mut dyn FnMut(AskEvent),
        cost: &mut AskCost,
    ) -> Result<Found> {
        let mut query = query.clone();
        let mut found = Found::default();
        let named = question::remember(self.conn, self.user, &mut query)?;
        let searched = named.is_empty() || has_words(&query.text);
        let stage = Instant::now();
        let embedding = match searched {
            true => self.embed(query.text.trim()).await,
            false => None,
        };
        cost.timings.embed = stage_done(emit, Stage::Embed, stage);
        cost.timings.model += cost.timings.embed;

        let stage = Instant::now();
        let mut event = event.cloned();
        let (chosen, outcome) =
            question::answer_sources(&mut query, &mut event, searched, |query| match self.vectors {
                Some(vectors) => {
                    search::hybrid_shared(self.conn, self.user, query, embedding.as_deref(), vectors)
                }
                None => search::hybrid_knn(self.conn, self.user, query, embedding.as_deref()),
            })?;
        if let Some(search::SearchMode::KeywordOnly { reason }) = outcome.map(|o| o.mode) {
            found.keyword_only = Some(reason);
        }
        found.remembered = event.iter().map(question::Event::described).collect();
        found
            .remembered
            .extend(named.iter().map(memory::Named::described));
        if !found.remembered.is_empty() {
            emit(AskEvent::Remembered(found.remembered.clone()));
        }
        for (n, source) in chosen.into_iter().take(plan::CONTEXT_ENTRIES).enumerate() {
            let entry = entries::get(self.conn, self.user, source.entry_id)?;
            found.context.push_str(&context_block(n + 1, &entry));
            found.sources.push(source);
        }
        // A question about a period reads the journal's own look back on it too.
        if query.filter.from.is_some() || query.filter.to.is_some() {
            let (from, to) = (query.filter.from, query.filter.to);
            for reflection in reflections::within(self.conn, self.user, from, to, PERIOD_REFLECTIONS)? {
                found.context.push_str(&reflection_block(&reflection));
            }
        }
        cost.timings.search = stage_done(emit, Stage::Search, stage);
        emit(AskEvent::Sources(found.sources.clone()));
        found.searched = Some(query);
        Ok(found)
    }

    /// The search phrase's embedding; `None` for an empty phrase or when the model
    /// cannot embed it, and search then goes by keywords alone.
    async fn embed(&self, phrase: &str) -> Option<Vec<f32>> {
        if phrase.is_empty() {
            return None;
        }
        let model = &self.client.settings().embed_model;
        match self.client.embed(model, &[phrase.to_owned()]).await {
            Ok(mut vectors) => vectors.pop(),
            Err(error) => {
                tracing::info!(%error, "embedding the question failed; searching by keyword only");
                None
            }
        }
    }

    /// Stage 4: the answer, streamed, from `context` (the found entries; `None` when the
    /// question needed no journal), retried once when the stream breaks or the reply is
    /// empty.
    async fn answer(
        &self,
        context: Option<&str>,
        emit: &mut dyn FnMut(AskEvent),
        cost: &mut AskCost,
    ) -> Result<String> {
        let stage = Instant::now();
        let mut messages = vec![Message::system(ANSWER_PROMPT)];
        if let Some(context) = context {
            messages.push(Message::system(format!(
                "Today is {}. Journal entries:\n{context}",
                self.now.format("%A %-d %B %Y")
            )));
        }
        for turn in self.question.earlier {
            messages.push(Message::user(turn.question.clone()));
            messages.push(Message::assistant(turn.answer.clone()));
        }
        messages.push(Message::user(self.question.text));
        let mut text = String::new();
        let mut outcome = Ok(());
        for attempt in 1..=ANSWER_ATTEMPTS {
            cost.model_calls += 1;
            if !text.is_empty() {
                emit(AskEvent::Reset);
                text.clear();
            }
            let mut first_text = None;
            outcome = answer_once(
                self.client,
                &messages,
                self.started,
                &mut text,
                &mut first_text,
                emit,
            )
            .await;
            // A failed question's first token is the first text it ever showed.
            if cost.timings.first_token.is_none() || outcome.is_ok() {
                cost.timings.first_token = first_text.or(cost.timings.first_token);
            }
            outcome = outcome.and_then(|()| {
                if text.trim().is_empty() {
                    Err(AiError::InvalidOutput {
                        what: "the answer",
                        attempts: attempt,
                        detail: "the model's reply was empty".into(),
                    })
                } else {
                    Ok(())
                }
            });
            match &outcome {
                Ok(()) => break,
                Err(e) if e.is_retryable() => {}
                Err(_) => break,
            }
        }
        if outcome.is_ok() {
            cost.timings.answer = stage_done(emit, Stage::Answer, stage);
        } else {
            cost.timings.answer = stage.elapsed();
        }
        cost.timings.model += cost.timings.answer;
        outcome.map(|()| text)
    }
}

/// The answer when search found no entry: what was searched, and how.
fn nothing_found(query: &search::SearchQuery, keyword_only: Option<&str>) -> String {
    let mut text = "I found nothing in your journal about that.".to_owned();
    let phrase = query.text.trim();
    if !phrase.is_empty() {
        text.push_str(&format!(" I searched your entries for \u{201c}{phrase}\u{201d}"));
    } else {
        text.push_str(" I looked at your entries");
    }
    match (query.filter.from, query.filter.to) {
        (Some(from), Some(to)) if from == to => text.push_str(&format!(" written on {from}")),
        (Some(from), Some(to)) => text.push_str(&format!(" written from {from} to {to}")),
        (Some(from), None) => text.push_str(&format!(" written since {from}")),
        (None, Some(to)) => text.push_str(&format!(" written up to {to}")),
        (None, None) => {}
    }
    match keyword_only {
        Some(reason) => text.push_str(&format!(", by keywords only ({reason}).")),
        None => text.push_str(", by words and by meaning."),
    }
    text
}

/// One streamed answer call: the text is appended to `text` and emitted as it
/// arrives; `first_text` gets the time (since `started`, the question) of the first
/// text shown.
async fn answer_once(
    client: &OllamaClient,
    messages: &[Message],
    started: Instant,
    text: &mut String,
    first_text: &mut Option<Duration>,
    emit: &mut dyn FnMut(AskEvent),
) -> Result<()> {
    let options = ollama_rs::models::ModelOptions::default()
        .temperature(0.4)
        .num_predict(400);
    let mut on_token = |piece: &str| {
        if text.is_empty() {
            *first_text = Some(started.elapsed());
        }
        text.push_str(piece);
        emit(AskEvent::Token(piece.to_owned()));
    };
    client
        .chat_stream(&client.settings().text_model, messages, options, &mut on_token)
        .await?;
    Ok(())
}

/// Records a stage under its timing name, reports it, and returns its duration.
fn stage_done(emit: &mut dyn FnMut(AskEvent), stage: Stage, started: Instant) -> Duration {
    let elapsed = started.elapsed();
    timing::record(stage.timing_name(), elapsed);
    emit(AskEvent::Stage {
        name: stage.name(),
        elapsed,
    });
    elapsed
}

/// One entry as context: its date, title and summary, or the opening of its body.
/// A reflection in the context, unnumbered: the answer cites entries, not it.
fn reflection_block(reflection: &reflections::Reflection) -> String {
    let sentences: Vec<&str> = reflection.sentences.iter().map(|s| s.text.as_str()).collect();
    format!(
        "{}, in short: {}\n\n",
        reflection.period.named(reflection.first_day),
        sentences.join(" ")
    )
}

fn context_block(n: usize, entry: &entries::Entry) -> String {
    let text = match entry.summary.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(summary) => summary.trim().to_owned(),
        None => {
            let mut body: String = entry.body.chars().take(CONTEXT_BODY_CHARS).collect();
            if entry.body.chars().count() > CONTEXT_BODY_CHARS {
                body.push('…');
            }
            body
        }
    };
    // The day it was lived where it was written, as the person remembers it.
    let day = entry.lived().map_or_else(
        || entry.created_at.get(..10).unwrap_or(&entry.created_at).to_owned(),
        |lived| lived.format("%Y-%m-%d").to_string(),
    );
    format!("[{n}] {day} — {}\n{text}\n\n", entry.title)
}

/// Saves a question and its answer (with sources and timings) to a chat, creating the
/// chat when `chat` is `None`. Returns the chat's id. One transaction.
pub fn save_chat(
    conn: &mut Connection,
    user: UserId,
    chat: Option<i64>,
    answer: &AskAnswer,
) -> db::Result<i64> {
    let exchange = Exchange {
        question: &answer.question,
        answer: &answer.text,
        sources: &answer.sources,
        timings: &answer.cost.timings,
    };
    chats::save(conn, user, chat, &exchange)
}
