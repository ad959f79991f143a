//! The UI's end of its threads: starts the reader ([`crate::reader`]), the AI thread
//! ([`crate::assistant`]) and the transcriber ([`crate::transcriber`]), carries requests
//! to them, and hands back their answers; and holds the sound devices
//! ([`crate::sound`]), whose threads the views follow through it.
//!
//! The threads open the journal themselves, so nothing here touches SQLite or the
//! network: sending never blocks and [`Backend::drain`] never waits.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};

use mindsage_core::ai::AiSettings;
use mindsage_core::db::StorageOptions;
use mindsage_core::db::entries::EntryEdit;
use mindsage_core::drafts::Drafts;
use mindsage_core::voice::VoiceSettings;

use crate::assistant::Assistant;
use crate::protocol::{AiRequest, KeptDraft, Reply, Request, Response, VoiceRequest};
use crate::sound::{Microphone, Speaker};
use crate::transcriber::Transcriber;

/// The UI's end of the threads.
pub struct Backend {
    requests: Sender<Request>,
    ai: Sender<AiRequest>,
    voice: Sender<VoiceRequest>,
    /// Set to stop the transcription in progress (it keeps what it heard so far).
    cancel_transcription: Arc<AtomicBool>,
    responses: Receiver<Response>,
    /// What the threads were started with, to start them again.
    start: Start,
    microphone: Microphone,
    speaker: Speaker,
    /// Where unsaved text is kept when the threads cannot save it.
    drafts: Drafts,
}

/// The journal, options and model settings the threads open, and the answer channel they
/// share (kept across a restart, so answers of the old threads still arrive).
#[derive(Clone)]
struct Start {
    path: PathBuf,
    options: StorageOptions,
    ai: AiSettings,
    voice: VoiceSettings,
    cancel_transcription: Arc<AtomicBool>,
    reply: Reply,
}

impl Backend {
    /// Starts the reader and the AI thread; each opens the journal on its own thread.
    pub fn spawn(
        path: PathBuf,
        options: StorageOptions,
        ai: AiSettings,
        voice: VoiceSettings,
        repaint: egui::Context,
    ) -> Backend {
        let (outbox, responses) = mpsc::channel();
        let start = Start {
            path,
            options,
            ai,
            voice,
            cancel_transcription: Arc::new(AtomicBool::new(false)),
            reply: Reply { outbox, repaint },
        };
        let (requests, ai, voice) = start.threads(true);
        let microphone = Microphone::new(
            start.data_dir(),
            start.options.key.clone(),
            start.voice.input.clone(),
            start.voice.max_length,
        );
        let drafts = Drafts::new(&start.data_dir(), start.options.key.clone());
        Backend {
            requests,
            ai,
            voice,
            cancel_transcription: Arc::clone(&start.cancel_transcription),
            responses,
            start,
            microphone,
            speaker: Speaker::default(),
            drafts,
        }
    }

    /// Starts new reader, writer and AI threads after one died. The old ones that still
    /// run finish what they were given and end (their writer commits its queue first).
    /// Sealed drafts are not recovered again: those this run kept belong to the editor,
    /// which saves its text itself once the threads are back.
    pub fn restart(&mut self) {
        (self.requests, self.ai, self.voice) = self.start.threads(false);
    }

    /// Whether the journal the threads open is encrypted.
    pub fn encrypted(&self) -> bool {
        self.start.options.key.is_some()
    }

    /// Sends a request to the reader. If the reader has died the request is lost; its
    /// [`crate::protocol::Watch`] has told the UI, which keeps the person's text and
    /// offers a restart.
    pub fn send(&self, request: Request) {
        let _ = self.requests.send(request);
    }

    /// Sends a request to the AI thread.
    pub fn send_ai(&self, request: AiRequest) {
        let _ = self.ai.send(request);
    }

    /// Sends a request to the transcriber thread.
    pub fn send_voice(&self, request: VoiceRequest) {
        let _ = self.voice.send(request);
    }

    /// Stops the transcription in progress; what it heard so far is saved.
    pub fn cancel_transcription(&self) {
        self.cancel_transcription.store(true, Ordering::Relaxed);
    }

    /// The microphone, for the recorder view.
    pub fn microphone(&mut self) -> &mut Microphone {
        &mut self.microphone
    }

    /// The speaker, for the editor's player.
    pub fn speaker(&mut self) -> &mut Speaker {
        &mut self.speaker
    }

    /// Keeps the unsaved text `edit` in the draft file `name` in `drafts/` beside the
    /// journal: a text file beside a plain journal, a sealed one beside an encrypted
    /// journal, which the next opening saves into it. Answers the file and where it
    /// is in the person's words.
    ///
    /// Written on the calling (UI) thread, on purpose: it happens only when the threads
    /// that save have stopped or closing cannot wait for them any longer, and a write
    /// handed to another thread might not happen before the process ends. It is a few
    /// kilobytes into the local data folder (a sealed one, a small database).
    pub fn keep_draft(&self, name: &str, edit: &EntryEdit) -> std::io::Result<KeptDraft> {
        let file = self.drafts.keep(name, edit)?;
        let described = Drafts::describe(&file);
        Ok(KeptDraft { file, described })
    }

    /// Deletes a draft file whose text the journal now holds.
    pub fn forget_draft(&self, file: &std::path::Path) {
        self.drafts.remove(file);
    }

    /// Answers that have arrived, without waiting.
    pub fn drain(&self) -> impl Iterator<Item = Response> + '_ {
        self.responses.try_iter()
    }
}

impl Start {
    /// The journal's folder, where recordings wait.
    fn data_dir(&self) -> PathBuf {
        self.path.parent().map(PathBuf::from).unwrap_or_default()
    }

    /// Starts the threads; `first`: this opening's first start, whose reader saves the
    /// sealed drafts a last session left ([`mindsage_core::drafts::recover`]).
    fn threads(&self, first: bool) -> (Sender<Request>, Sender<AiRequest>, Sender<VoiceRequest>) {
        let (requests, inbox) = mpsc::channel();
        let (ai_requests, ai_inbox) = mpsc::channel();
        let (voice_requests, voice_inbox) = mpsc::channel();
        // One vector copy for the reader's search box and the assistant's Ask.
        let vectors = mindsage_core::search::shared_vectors(self.options.key.is_some());
        let transcriber = Transcriber {
            data_dir: self.data_dir(),
            key: self.options.key.clone(),
            settings: self.voice.clone(),
            reader: requests.clone(),
            reply: self.reply.clone(),
            cancel: Arc::clone(&self.cancel_transcription),
        };
        let assistant = Assistant {
            path: self.path.clone(),
            options: self.options.clone(),
            vectors: Arc::clone(&vectors),
            settings: self.ai.clone(),
            reader: requests.clone(),
            reply: self.reply.clone(),
        };
        let start = self.clone();
        crate::threads::spawn("reader", move || {
            crate::reader::serve(
                start.path,
                start.options,
                start.ai,
                vectors,
                first,
                inbox,
                start.reply,
            )
        })
        .expect("spawning a thread");
        crate::threads::spawn("assistant", move || assistant.serve(ai_inbox)).expect("spawning a thread");
        crate::threads::spawn("transcriber", move || transcriber.serve(voice_inbox))
            .expect("spawning a thread");
        (requests, ai_requests, voice_requests)
    }
}
