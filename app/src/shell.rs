//! The window around the journal: the unlock screen while an encrypted journal is locked,
//! the app ([`MindSageApp`]) while it is open, and "Encrypting…" while a change of
//! encryption runs with the journal closed.
//!
//! Locking (Ctrl+L, the idle time, Settings) drops the whole [`MindSageApp`]: its
//! threads end and close their connections, and with them go the key, the vector copy,
//! the thumbnails, the dashboard's figures and every screen's text; egui's memory of
//! the widgets (a text field's undo history holds what was typed) is cleared too.
//! Unlocking starts everything anew, as a start does.
//!
//! A change of encryption (turn on, turn off, change the passphrase) needs the journal
//! to itself: the app saves, hands the change over and is dropped, the change runs on a
//! thread of its own, and the app opens again with the new key.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use mindsage_core::ai::AiSettings;
use mindsage_core::db::cipher;
use mindsage_core::db::{DbError, StorageOptions};
use mindsage_core::encryption::{self, Change, Changed, Followed, Remembered};

use crate::app::{Handover, MindSageApp, Startup};
use crate::backend::Backend;
use crate::instance::Asked;
use crate::unlocking::{NotUnlocked, Unlocking, not_remembered};
use crate::views::unlock::UnlockView;

/// How long a change of encryption waits for the app's own threads to close the journal
/// (a model call in flight finishes first).
const THREADS_PATIENCE: Duration = Duration::from_secs(60);

/// Makes the [`Startup`] of each opening: the first carries the command line's asks
/// (an entry to open, an import), later ones open the journal screen.
pub type Starts = Box<dyn FnMut() -> Startup>;

pub struct Shell {
    journal: PathBuf,
    options: StorageOptions,
    starts: Starts,
    state: State,
    /// What later launches on this journal ask for ([`crate::instance`]).
    asks: Option<Receiver<Asked>>,
    /// Asks that came while the journal was locked, followed once it opens.
    waiting: Vec<Asked>,
}

enum State {
    /// The unlock screen, and the attempt to unlock in progress, if one is.
    Locked {
        view: UnlockView,
        unlocking: Option<Unlocking>,
    },
    Open(Box<MindSageApp>),
    Changing {
        what: &'static str,
        job: Receiver<Result<Changed, String>>,
    },
    /// Between states, for a moment inside one frame.
    Gone,
}

impl Shell {
    /// The window on the journal at `journal`: locked if it is encrypted (the remembered
    /// passphrase tried first), open otherwise.
    pub fn new(ctx: &egui::Context, journal: PathBuf, options: StorageOptions, starts: Starts) -> Shell {
        let mut shell = Shell {
            state: State::Gone,
            journal,
            options,
            starts,
            asks: None,
            waiting: Vec::new(),
        };
        shell.state = match shell.options.key.is_none() && cipher::is_encrypted(&shell.journal) {
            true => locked(Unlocking::remembered(shell.journal.clone(), ctx)),
            false => shell.open_app(ctx, None),
        };
        shell
    }

    /// The app, while the journal is open.
    pub fn app(&self) -> Option<&MindSageApp> {
        match &self.state {
            State::Open(app) => Some(app),
            _ => None,
        }
    }

    pub fn app_mut(&mut self) -> Option<&mut MindSageApp> {
        match &mut self.state {
            State::Open(app) => Some(app),
            _ => None,
        }
    }

    /// Follows what later launches on this journal ask for, from `asks` on.
    pub fn hear(&mut self, asks: Receiver<Asked>) {
        self.asks = Some(asks);
    }

    /// Brings the window to the front for each later launch, and has the app follow
    /// what it asked for (once unlocked, if the journal is locked).
    fn follow_later_launches(&mut self, ctx: &egui::Context) {
        let Some(asks) = &self.asks else { return };
        let mut came = false;
        while let Ok(asked) = asks.try_recv() {
            came = true;
            match &mut self.state {
                State::Open(app) => app.follow(asked),
                _ => self.waiting.push(asked),
            }
        }
        if came {
            ctx.send_viewport_cmd(egui::ViewportCommand::Minimized(false));
            ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        }
    }

    /// Ends what the window opened: the app and its threads, which close the journal
    /// (the window is going; [`crate::threads::finish`] waits for them).
    pub fn end(&mut self) {
        self.state = State::Gone;
    }

    /// Whether the unlock screen is showing.
    pub fn locked(&self) -> bool {
        matches!(self.state, State::Locked { .. })
    }

    fn open_app(&mut self, ctx: &egui::Context, status: Option<String>) -> State {
        let startup = (self.starts)();
        let ai = AiSettings::from_settings(&startup.settings);
        let backend = Backend::spawn(
            self.journal.clone(),
            self.options.clone(),
            ai,
            startup.voice_settings(),
            ctx.clone(),
        );
        let mut app = MindSageApp::new(ctx, backend, startup);
        app.tell(status);
        for asked in self.waiting.drain(..) {
            app.follow(asked);
        }
        State::Open(Box::new(app))
    }

    /// Drops the key and everything read with it, and shows the unlock screen.
    fn lock(&mut self, ctx: &egui::Context) -> State {
        self.options.key = None;
        forget_widgets(ctx);
        State::Locked {
            view: UnlockView::default(),
            unlocking: None,
        }
    }

    /// Runs `change` on a thread of its own once the app's threads have let go of the
    /// journal.
    fn change(&mut self, ctx: &egui::Context, change: Change) -> State {
        let what = match &change {
            Change::Encrypt { .. } => "Encrypting the journal…",
            Change::Rekey { .. } => "Changing the passphrase…",
            Change::Decrypt => "Turning encryption off…",
        };
        let (journal, options, ctx) = (self.journal.clone(), self.options.clone(), ctx.clone());
        let (send, job) = mpsc::channel();
        crate::threads::spawn("encryption", move || {
            let _ = send.send(run_change(&journal, &options, &change));
            ctx.request_repaint();
        })
        .expect("spawning a thread");
        State::Changing { what, job }
    }

    /// A frame of the unlock screen: the attempt's outcome when it comes, the app once
    /// the journal is unlocked, and a new attempt when the person asks.
    fn locked_ui(
        &mut self,
        ctx: &egui::Context,
        mut view: UnlockView,
        mut unlocking: Option<Unlocking>,
    ) -> State {
        match unlocking.as_ref().and_then(Unlocking::poll) {
            Some(Ok(unlocked)) => {
                drop(view);
                self.options.key = Some(unlocked.key);
                return self.open_app(ctx, unlocked.told);
            }
            Some(Err(why)) => {
                view.not_unlocked(why);
                unlocking = None;
            }
            None => {}
        }
        if let Some(ask) = view.ui(ctx, unlocking.is_some()) {
            match Unlocking::typed(self.journal.clone(), ask.passphrase, ask.remember, ctx) {
                Ok(attempt) => unlocking = Some(attempt),
                Err(message) => view.not_unlocked(NotUnlocked::Failed(message)),
            }
        }
        State::Locked { view, unlocking }
    }

    fn changing_ui(ctx: &egui::Context, what: &str) {
        egui::CentralPanel::default().show(ctx, |ui| {
            ui.add_space(ui.available_height() / 3.0);
            ui.vertical_centered(|ui| {
                ui.spinner();
                ui.label(what);
                ui.label("Every entry is copied into a new file and checked before the old one is erased.");
            });
        });
    }
}

/// Carries out `change` on the journal at `journal` and what is beside it
/// ([`encryption::change`]), waiting for the app's threads to close it. What could not
/// follow is logged here and told on screen by the caller.
fn run_change(
    journal: &std::path::Path,
    options: &StorageOptions,
    change: &Change,
) -> Result<Changed, String> {
    let started = Instant::now();
    loop {
        match encryption::change(journal, options, change) {
            Err(DbError::InUse { .. }) if started.elapsed() < THREADS_PATIENCE => {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e @ DbError::InUse { .. }) => {
                // Past the patience: say whether it is this window's own work (a bug to
                // report, by the threads' names) or another program.
                let ours = crate::threads::others_running();
                if ours.is_empty() {
                    return Err(e.to_string());
                }
                tracing::warn!(threads = ?ours, "the app's own threads kept the journal open");
                return Err(format!(
                    "Nothing was changed: this window's own work still had the journal open ({}); \
                     try again in a moment",
                    ours.join(", ")
                ));
            }
            Err(e) => return Err(e.to_string()),
            Ok(changed) => {
                for problem in &changed.followed.backups_left {
                    tracing::warn!(%problem, "a backup did not follow the change of encryption");
                }
                for problem in &changed.followed.spool_left {
                    tracing::warn!(%problem, "a waiting file did not follow the change of encryption");
                }
                // Nothing to tell when nothing was asked: a computer without a
                // credential store has nothing remembered to forget.
                if let Remembered::NotForgotten(error) = &changed.remembered {
                    tracing::warn!(%error, "the credential store could not be updated");
                }
                return Ok(changed);
            }
        }
    }
}

/// The unlock screen while `attempt` (the remembered passphrase) runs, or says why it
/// could not start.
fn locked(attempt: Result<Unlocking, String>) -> State {
    let mut view = UnlockView::default();
    let unlocking = attempt
        .map_err(|message| view.not_unlocked(NotUnlocked::Failed(message)))
        .ok();
    State::Locked { view, unlocking }
}

/// Clears egui's memory of the widgets: a text field's undo history holds the text
/// typed into it.
fn forget_widgets(ctx: &egui::Context) {
    ctx.memory_mut(|memory| memory.data.clear());
}

impl eframe::App for Shell {
    fn update(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        self.ui(ctx, frame);
    }
}

impl Shell {
    /// One frame of the window.
    pub fn ui(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        self.follow_later_launches(ctx);
        let state = std::mem::replace(&mut self.state, State::Gone);
        self.state = match state {
            State::Open(mut app) => {
                eframe::App::update(app.as_mut(), ctx, frame);
                match app.take_handover() {
                    None => State::Open(app),
                    Some(handover) => {
                        drop(app);
                        match handover {
                            Handover::Lock => self.lock(ctx),
                            Handover::Change(change) => self.change(ctx, change),
                        }
                    }
                }
            }
            State::Locked { view, unlocking } if crate::signals::stop_signalled() => {
                // Nothing is open to save: a stop signal closes the unlock screen.
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                State::Locked { view, unlocking }
            }
            State::Locked { view, unlocking } => self.locked_ui(ctx, view, unlocking),
            State::Changing { what, job } => match job.try_recv() {
                Ok(Ok(Changed {
                    key,
                    followed:
                        Followed {
                            backups_left,
                            spool_left,
                            ..
                        },
                    remembered,
                })) => {
                    let mut told = match &key {
                        Some(_) if self.options.key.is_some() => "The passphrase is changed, for the backups too.",
                        Some(_) => {
                            "The journal is encrypted now, its backups too: without the passphrase they are unreadable."
                        }
                        None => "Encryption is off: the journal file and its backups are plain again.",
                    }
                    .to_owned();
                    if !backups_left.is_empty() {
                        told.push_str(&format!(
                            " These backups were left as they were: {}.",
                            backups_left.join("; ")
                        ));
                    }
                    if !spool_left.is_empty() {
                        told.push_str(&format!(
                            " These recordings and drafts waiting beside it were left as they were: {}.",
                            spool_left.join("; ")
                        ));
                    }
                    if let Remembered::NotRemembered(error) = remembered {
                        told.push(' ');
                        told.push_str(&not_remembered(&error));
                    }
                    self.options.key = key;
                    self.open_app(ctx, Some(told))
                }
                Ok(Err(message)) => self.open_app(ctx, Some(format!("Nothing was changed: {message}"))),
                Err(mpsc::TryRecvError::Empty) => {
                    Self::changing_ui(ctx, what);
                    State::Changing { what, job }
                }
                Err(mpsc::TryRecvError::Disconnected) => self.open_app(
                    ctx,
                    Some("The change of encryption stopped unexpectedly; nothing was changed.".into()),
                ),
            },
            State::Gone => State::Gone,
        };
    }
}
