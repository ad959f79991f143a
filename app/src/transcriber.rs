//! The transcriber thread: recordings become entries, off the UI thread.
//!
//! It keeps the Whisper model loaded between recordings (loading takes a moment), and
//! works one recording at a time: progress and each segment go to the window as they
//! come, the finished transcript goes to the reader with the samples it was made from,
//! whose writer saves the entry with its recording and then erases the file. A
//! recording that cannot be done yet (no model) waits, listed for the person, and is
//! done once a model is set up or at the next start: the recordings folder is its queue.
//! While no model is loaded the thread looks again every [`LOOK_AGAIN`], so a model file
//! put where the message says is taken up without a restart.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, SystemTime};

use mindsage_core::db::cipher::JournalKey;
use mindsage_core::voice::transcribe::{Model, ModelError, Progress, TranscribeError};
use mindsage_core::voice::{VoiceSettings, capture, recordings, wav};

use crate::protocol::{Reply, Request, Response, VoiceEvent, VoiceRequest, Watch};

/// How often the thread looks again for a model while none is loaded: a model copied
/// into `models/`, as the waiting recordings' message says, or to the path Settings
/// names, is found within this. A look lists one small folder and reads a file's
/// metadata; whisper.cpp is asked again only for a file that changed since it failed.
const LOOK_AGAIN: Duration = Duration::from_secs(2);

/// What the thread needs: where recordings are, how to reach the reader, and the flag
/// the window sets to stop the transcription on screen.
pub(crate) struct Transcriber {
    pub data_dir: PathBuf,
    /// The encrypted journal's key, which opens the sealed recordings beside it.
    pub key: Option<JournalKey>,
    pub settings: VoiceSettings,
    pub reader: Sender<Request>,
    pub reply: Reply,
    pub cancel: Arc<AtomicBool>,
}

impl Transcriber {
    pub(crate) fn serve(mut self, inbox: Receiver<VoiceRequest>) {
        let _watch = Watch {
            what: "transcribing voice entries",
            saving: false,
            reply: self.reply.clone(),
        };
        let mut state = State::default();
        self.send(VoiceEvent::Devices(capture::input_devices()));
        // Recordings left by a crash or waiting for a model since the last run.
        state.waiting = recordings::waiting(&self.data_dir);
        self.work(&mut state);
        loop {
            let request = match state.model {
                Some(_) => inbox.recv().map_err(|_| RecvTimeoutError::Disconnected),
                None => inbox.recv_timeout(LOOK_AGAIN),
            };
            let request = match request {
                Ok(request) => request,
                Err(RecvTimeoutError::Timeout) => {
                    if state.tried.as_ref() != Some(&self.candidate()) {
                        self.work(&mut state);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return,
            };
            match request {
                VoiceRequest::Transcribe(recording) => {
                    state.waiting.push(recording);
                    self.work(&mut state);
                }
                VoiceRequest::Settings(settings) => {
                    let settings = VoiceSettings::from_settings(&settings, &self.data_dir);
                    if settings.model != self.settings.model {
                        state.model = None;
                    }
                    self.settings = settings;
                    self.work(&mut state);
                }
                VoiceRequest::Devices => self.send(VoiceEvent::Devices(capture::input_devices())),
            }
        }
    }

    /// Transcribes every waiting recording it can; says why the rest wait.
    fn work(&self, state: &mut State) {
        if let Err(reason) = self.load(state) {
            self.send(VoiceEvent::Model(Err(reason.clone())));
            state.waiting.retain(|r| r.exists());
            if !state.waiting.is_empty() {
                self.send(VoiceEvent::Waiting {
                    recordings: state.waiting.clone(),
                    reason,
                });
            }
            return;
        }
        let State {
            model: Some(model),
            waiting,
            handed_over,
            ..
        } = state
        else {
            return;
        };
        self.send(VoiceEvent::Model(Ok(model.path().to_owned())));
        for recording in std::mem::take(waiting) {
            if handed_over.insert(recording.clone()) {
                self.transcribe(model, &recording);
            }
        }
    }

    /// Loads the model unless it is loaded; why not, in the person's words.
    fn load(&self, state: &mut State) -> Result<(), String> {
        if state.model.is_none() {
            let candidate = self.candidate();
            let path = candidate.file.clone();
            state.tried = Some(candidate);
            let path = path.map_err(|e| e.to_string())?;
            state.model = Some(Model::load(&path).map_err(|e| e.to_string())?);
        }
        Ok(())
    }

    /// The model file to load and how it is on disk now. With none named in Settings,
    /// `models/` is looked at again each time (at start it may have been empty).
    fn candidate(&self) -> Candidate {
        let file = match &self.settings.model {
            Err(not_set_up @ ModelError::NotSetUp { .. }) => {
                recordings::model_path(&self.data_dir, "").ok_or_else(|| not_set_up.clone())
            }
            named => named.clone(),
        };
        let on_disk = file
            .as_ref()
            .ok()
            .and_then(|path| std::fs::metadata(path).ok())
            .map(|meta| (meta.len(), meta.modified().ok()));
        Candidate { file, on_disk }
    }

    fn transcribe(&self, model: &Model, recording: &Path) {
        puffin::profile_function!();
        let failed = |message: String| VoiceEvent::Failed {
            recording: recording.to_owned(),
            message,
        };
        let samples = match recordings::read(recording, self.key.as_ref()) {
            Ok(samples) => samples,
            Err(e) => return self.send(failed(e.to_string())),
        };
        self.cancel.store(false, Ordering::Relaxed);
        self.send(VoiceEvent::Started {
            recording: recording.to_owned(),
        });
        let reply = self.reply.clone();
        let named = recording.to_owned();
        let transcript = model.transcribe(&samples, &self.settings.language, &self.cancel, move |progress| {
            let recording = named.clone();
            reply.send(Response::Voice(match progress {
                Progress::Percent(percent) => VoiceEvent::Percent { recording, percent },
                Progress::Segment(segment) => VoiceEvent::Segment { recording, segment },
            }));
        });
        match transcript {
            Ok(transcript) => {
                let _ = self.reader.send(Request::SaveRecording {
                    recording: recording.to_owned(),
                    samples,
                    transcript,
                });
            }
            // Too short to hold words: nothing to keep, so the file goes.
            Err(TranscribeError::TooShort) => {
                let _ = wav::discard(recording);
                self.send(failed(
                    "The recording was too short to hold words; it was discarded.".to_owned(),
                ));
            }
            Err(e) => self.send(failed(e.to_string())),
        }
    }

    fn send(&self, event: VoiceEvent) {
        self.reply.send(Response::Voice(event));
    }
}

/// A model file as the thread last tried to load it: which file (or why none), and its
/// length and time on disk, so a file copied in or finished downloading is tried again.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    file: Result<PathBuf, ModelError>,
    on_disk: Option<(u64, Option<SystemTime>)>,
}

#[derive(Default)]
struct State {
    model: Option<Model>,
    /// The last model file tried while none is loaded.
    tried: Option<Candidate>,
    /// Recordings to do, oldest first.
    waiting: Vec<PathBuf>,
    /// Recordings already given to the reader to save (or failed), never done twice in
    /// one run; a save that failed is tried again at the next start.
    handed_over: HashSet<PathBuf>,
}
