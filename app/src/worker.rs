//! The UI's database worker: the only place the window's data is read.
//!
//! The UI thread never touches SQLite. It sends a [`Request`] and carries on drawing;
//! this thread answers with a [`Response`] and asks egui to repaint. Writes go on to
//! the [`Writer`] thread, which replies straight to the UI, so a long save never holds
//! up a read.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};

use mindsage_core::db::entries::{self, Cursor, Entry, ListFilter, Page};
use mindsage_core::db::writer::Writer;
use mindsage_core::db::{self, DEFAULT_USER, StorageOptions};
use mindsage_core::demo::{self, DemoOptions, SeedReport};

/// Demo entries `--demo` puts in an empty journal: enough to scroll and chart.
const DEMO_ENTRIES: usize = 2_000;

/// What the UI asks for.
#[derive(Debug)]
pub enum Request {
    /// A page of the list; `generation` lets the UI drop answers to stale requests.
    Page {
        generation: u64,
        filter: ListFilter,
        after: Option<Cursor>,
        limit: u32,
    },
    Count,
    Entry(i64),
    /// Fill the journal with demo entries if it has none.
    DemoIfEmpty,
}

/// What comes back.
#[derive(Debug)]
pub enum Response {
    Page {
        generation: u64,
        page: Page,
    },
    Count(u64),
    Entry(Box<Entry>),
    Seeded(SeedReport),
    /// The journal could not be opened; nothing else will arrive.
    OpenFailed(String),
    Failed(String),
}

/// The UI's end of the worker.
pub struct Worker {
    requests: Sender<Request>,
    responses: Receiver<Response>,
}

impl Worker {
    /// Starts the worker; it opens the journal on its own thread.
    pub fn spawn(path: PathBuf, options: StorageOptions, repaint: egui::Context) -> Worker {
        let (requests, inbox) = mpsc::channel();
        let (outbox, responses) = mpsc::channel();
        std::thread::Builder::new()
            .name("mindsage-reader".into())
            .spawn(move || serve(path, options, inbox, outbox, repaint))
            .expect("spawning a thread");
        Worker { requests, responses }
    }

    pub fn send(&self, request: Request) {
        // The worker only stops when the window closes; nothing to do if it has.
        let _ = self.requests.send(request);
    }

    /// Answers that have arrived, without waiting.
    pub fn drain(&self) -> impl Iterator<Item = Response> + '_ {
        self.responses.try_iter()
    }
}

fn serve(
    path: PathBuf,
    options: StorageOptions,
    inbox: Receiver<Request>,
    outbox: Sender<Response>,
    repaint: egui::Context,
) {
    let reply = |response| {
        let _ = outbox.send(response);
        repaint.request_repaint();
    };
    let opened = db::open(&path, &options).and_then(|conn| Ok((conn, Writer::spawn(&path, &options)?)));
    let (conn, writer) = match opened {
        Ok(pair) => pair,
        Err(e) => return reply(Response::OpenFailed(e.to_string())),
    };
    let user = DEFAULT_USER;
    for request in inbox {
        let response = match request {
            Request::Page {
                generation,
                filter,
                after,
                limit,
            } => entries::list(&conn, user, &filter, after.as_ref(), limit)
                .map(|page| Response::Page { generation, page }),
            Request::Count => entries::count(&conn, user).map(Response::Count),
            Request::Entry(id) => entries::get(&conn, user, id).map(|e| Response::Entry(Box::new(e))),
            Request::DemoIfEmpty => match entries::count(&conn, user) {
                Ok(0) => {
                    let outbox = outbox.clone();
                    let repaint = repaint.clone();
                    // The writer answers the UI itself when the seeding is done.
                    drop(writer.submit(move |conn| {
                        let options = DemoOptions {
                            end: chrono::Utc::now(),
                            ..DemoOptions::fixed(DEMO_ENTRIES, 42)
                        };
                        let result = demo::seed(conn, user, &options);
                        let _ = outbox.send(match &result {
                            Ok(report) => Response::Seeded(*report),
                            Err(e) => Response::Failed(e.to_string()),
                        });
                        repaint.request_repaint();
                        result.map(|_| ())
                    }));
                    continue;
                }
                Ok(_) => continue,
                Err(e) => Err(e),
            },
        };
        reply(response.unwrap_or_else(|e| Response::Failed(e.to_string())));
    }
}
