//! The AI thread: the only place the window talks to the local model.
//!
//! Health checks, the search box's query embeddings and Ask all wait on the network or
//! on a model, so they run here, one at a time, and never on the reader (a slow answer
//! must not hold up the list). Answers go to the UI through the same channel as the
//! reader's; Ask events are forwarded the moment the pipeline emits them, so the answer
//! streams onto the screen.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};

use chrono::Local;
use rusqlite::Connection;

use mindsage_core::ai::ask::{self, AskEvent, Question};
use mindsage_core::ai::{AiSettings, OllamaClient, block_on, health, prompt, search_box};
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::search::SharedVectors;

use crate::protocol::{AiRequest, Reply, Request, Response, Watch};

pub(crate) struct Assistant {
    pub path: PathBuf,
    pub options: StorageOptions,
    /// The reader's in-memory vector copy, which Ask's search scans too.
    pub vectors: SharedVectors,
    pub settings: AiSettings,
    /// The reader, for searches with an embedding and for saving chats.
    pub reader: Sender<Request>,
    pub reply: Reply,
}

impl Assistant {
    pub fn serve(self, inbox: Receiver<AiRequest>) {
        let _watch = Watch {
            what: "the local model's helper",
            saving: false,
            reply: self.reply.clone(),
        };
        let client = OllamaClient::new(&self.settings).map_err(|e| e.to_string());
        // Its own read connection: Ask searches while the reader serves the screens.
        let conn = db::open(&self.path, &self.options).map_err(|e| e.to_string());
        for request in inbox {
            let client = match &client {
                Ok(client) => client,
                Err(message) => {
                    self.unavailable(request, message);
                    continue;
                }
            };
            match request {
                AiRequest::Health => self.health(client),
                AiRequest::Embed { generation, text } => self.embed(client, generation, text),
                AiRequest::Ask { question, earlier } => match &conn {
                    Ok(conn) => self.ask(
                        client,
                        conn,
                        Question {
                            text: &question,
                            earlier: &earlier,
                        },
                    ),
                    Err(message) => self.reply.send(Response::Ask(AskEvent::Error(message.clone()))),
                },
                AiRequest::Prompt { day, attempt } => {
                    let question = conn
                        .as_ref()
                        .ok()
                        .and_then(|conn| self.prompt(client, conn, day, attempt));
                    self.reply.send(Response::ModelPrompt {
                        day,
                        attempt,
                        question,
                    });
                }
            }
        }
    }

    /// Without a client (an invalid or remote host) every answer is the reason why.
    fn unavailable(&self, request: AiRequest, message: &str) {
        match request {
            AiRequest::Health => self.reply.send(Response::Health(Err(message.to_owned()))),
            AiRequest::Ask { .. } => self
                .reply
                .send(Response::Ask(AskEvent::Error(message.to_owned()))),
            AiRequest::Prompt { day, attempt } => self.reply.send(Response::ModelPrompt {
                day,
                attempt,
                question: None,
            }),
            AiRequest::Embed { generation, .. } => self.reply.send(Response::MeaningUnavailable {
                generation,
                reason: message.to_owned(),
            }),
        }
    }

    /// The model's question about the last days before `day`; nothing when nothing was
    /// written then or the model cannot give one (said in the log, without the text).
    fn prompt(
        &self,
        client: &OllamaClient,
        conn: &Connection,
        day: chrono::NaiveDate,
        attempt: u32,
    ) -> Option<String> {
        let recent = prompt::recent(conn, DEFAULT_USER, day)
            .inspect_err(|error| tracing::warn!(%error, "reading the last days for a question failed"))
            .ok()
            .filter(|recent| !recent.is_empty())?;
        block_on(prompt::ask(client, &recent, attempt))
            .inspect_err(|error| tracing::info!(%error, "no question from the model"))
            .ok()
    }

    fn health(&self, client: &OllamaClient) {
        let status = block_on(health::check(client))
            .map(|ready| {
                format!(
                    "Ollama {} is running with {} and {}.",
                    ready.version, ready.text_model.name, ready.embed_model.name
                )
            })
            .map_err(|e| e.to_string());
        self.reply.send(Response::Health(status));
    }

    /// With the embedding the reader searches again by meaning; without it the words-only
    /// results stay, and the search box says why meaning is missing.
    fn embed(&self, client: &OllamaClient, generation: u64, text: String) {
        match search_box::embed_query(client, &text) {
            Ok(embedding) => {
                let _ = self.reader.send(Request::Search {
                    generation,
                    text,
                    embedding: Some(embedding),
                });
            }
            Err(e) => self.reply.send(Response::MeaningUnavailable {
                generation,
                reason: e.to_string(),
            }),
        }
    }

    /// Answers `question`, with the model's background work held back meanwhile, so the
    /// question is not queued behind a backfill (the job in hand finishes first).
    fn ask(&self, client: &OllamaClient, conn: &Connection, question: Question<'_>) {
        let _ = self.reader.send(Request::Asking(true));
        let mut emit = |event| self.reply.send(Response::Ask(event));
        let asked = block_on(ask::ask(
            client,
            conn,
            Some(&self.vectors),
            DEFAULT_USER,
            question,
            Local::now(),
            &mut emit,
        ));
        let _ = self.reader.send(Request::Asking(false));
        match asked {
            Ok(answer) => {
                let _ = self.reader.send(Request::SaveChat(Box::new(answer)));
            }
            Err(error) => emit(AskEvent::Error(error.to_string())),
        }
    }
}
