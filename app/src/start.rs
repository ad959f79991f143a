//! Starting the window: a journal that has a window already is handed the command
//! line's asks instead ([`instance`]); otherwise they become the first [`Startup`], a
//! passphrase file unlocks the journal before the window opens, the stop signals are
//! caught, and the [`Shell`] runs until the window closes; then the app's threads are
//! given [`CLOSE_PATIENCE`](crate::app::CLOSE_PATIENCE) to finish before the process
//! ends.

use std::path::PathBuf;

use anyhow::Result;
use mindsage_core::db::cipher;
use mindsage_core::links::Link;

use crate::app::{MindSageApp, Startup};
use crate::cli::{self, Args};
use crate::instance::{self, Asked, Claim};
use crate::launch_report::{Exercise, LaunchReport};
use crate::shell::Shell;
use crate::taskbar::{self, Taskbar};
use crate::views::View;
use crate::{session_end, signals};

/// Opens the window on the journal the command line names, and returns once it closed
/// and the app's threads have finished.
pub fn run(args: &Args) -> Result<()> {
    let path = cli::database_path(args)?;
    let data_dir = path.parent().map(PathBuf::from).unwrap_or_default();
    // One window per journal: a later launch hands its asks to the window and ends.
    let window = match instance::claim(&path, &Asked::of(args)?) {
        Ok(Claim::Window(window)) => Some(window),
        Ok(Claim::HandedOver) => {
            println!("MindSage is already open on this journal: its window came to the front.");
            return Ok(());
        }
        Err(error) => {
            tracing::warn!("opening a window without knowing whether the journal has one: {error:#}");
            None
        }
    };
    let later_launches = window.as_ref().and_then(|window| {
        window
            .later_launches()
            .inspect_err(|error| tracing::warn!("later launches will open windows of their own: {error:#}"))
            .ok()
    });
    // A link can come from anywhere (a web page, another app), so one MindSage does not
    // know opens today's page, where the window opens by default.
    if let Some(link) = args.link.as_deref()
        && Link::parse(link).is_none()
    {
        tracing::warn!("a link MindSage does not know was opened; opening today's page");
    }
    let mut startup = Startup::on_view(data_dir.clone(), args.view.unwrap_or_default());
    startup.demo = args.demo;
    startup.entry = args.entry;
    startup.today = true;
    startup.link = Asked::of(args)?.link;
    startup.profiler = args.profiler;
    startup.import = args.import.clone();
    startup.offer_encryption = !args.demo && matches!(cipher::file_kind(&path), Ok(cipher::FileKind::New));
    let mut options = cli::storage_options(args);
    // A passphrase file given to the window (`--passphrase-file`, or the environment)
    // unlocks it at start, before the window opens; otherwise the unlock screen asks.
    if let Some(file) = args
        .passphrase_file
        .as_deref()
        .filter(|_| cipher::is_encrypted(&path))
    {
        let passphrase = cipher::Passphrase::from_file(file)?;
        options.key = Some(cipher::unlock(&path, &passphrase)?);
    }
    if args.mmap_size.is_none() {
        options.mmap_size = startup.settings.mmap_size;
    }
    let exit_after = args.exit_after;
    let minimized = args.minimized;
    let report = args.report_startup.then(|| Exercise {
        scroll: args.exercise_scroll,
        views: args.exercise_views.unwrap_or(0),
        ask: args.exercise_ask.clone(),
    });
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("MindSage")
            .with_inner_size([1100.0, 720.0])
            .with_min_inner_size([640.0, 420.0])
            .with_icon(app_icon()),
        ..Default::default()
    };
    #[cfg(windows)]
    let native = crate::paste_key::watch(native);
    taskbar::identify();
    eframe::run_native(
        "MindSage",
        native,
        Box::new(move |cc| {
            if let Some(seconds) = exit_after {
                close_after(cc.egui_ctx.clone(), seconds);
            }
            if minimized {
                // Starting with the system: in the taskbar, not in the person's way. A
                // command sent now is carried out after the first frame.
                cc.egui_ctx
                    .send_viewport_cmd(egui::ViewportCommand::Minimized(true));
            }
            signals::install(cc.egui_ctx.clone());
            let taskbar = Taskbar::start(window_handle(cc), &data_dir);
            session_end::watch(cc.egui_ctx.clone());
            // The command line's asks go with the first opening; an unlock after a lock
            // opens today's page.
            let mut first = Some(startup);
            let starts = Box::new(move || {
                first.take().unwrap_or_else(|| Startup {
                    today: true,
                    ..Startup::on_view(data_dir.clone(), View::Journal)
                })
            });
            let mut shell = Shell::new(&cc.egui_ctx, path, options, starts);
            match later_launches.map(|later| later.hear(cc.egui_ctx.clone())) {
                Some(Ok(asks)) => shell.hear(asks),
                Some(Err(error)) => {
                    tracing::warn!("later launches will open windows of their own: {error:#}")
                }
                None => {}
            }
            if let (Some(exercise), Some(app)) = (report, shell.app_mut()) {
                let renderer = cc
                    .gl
                    .as_deref()
                    .map_or_else(String::new, crate::launch_report::renderer_of);
                app.launch_report = Some(LaunchReport::new(renderer, exercise));
            }
            Ok(Box::new(Running(shell, taskbar)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("the window could not be opened: {e}"))?;
    // The next launch is the window from here on.
    drop(window);
    // Done already at the window's end ([`Running`]), unless the window failed first.
    crate::threads::finish(crate::app::CLOSE_PATIENCE);
    session_end::journal_closed();
    Ok(())
}

/// The shell as the real window runs it. At the window's end (`on_exit`, before its GL
/// context and the window itself are torn down, which took two seconds under Wine) the
/// app and its threads are ended and waited for: the journal is closed as early as it
/// can be, and the end of a session ([`session_end`]) waits for that alone.
/// The window: the shell, and its button on the taskbar.
struct Running(Shell, Taskbar);

impl eframe::App for Running {
    fn update(&mut self, ctx: &egui::Context, frame: &mut eframe::Frame) {
        self.0.ui(ctx, frame);
        self.1.show(self.0.app().and_then(MindSageApp::progress));
    }

    /// `--exercise-scroll`: the launch report turns the mouse wheel over the list.
    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw_input: &mut egui::RawInput) {
        let Some(app) = self.0.app_mut() else {
            return;
        };
        let list = app.journal.list_rect();
        if let (Some(report), Some(list)) = (&app.launch_report, list) {
            raw_input.events.extend(report.wheel(list).into_iter().flatten());
        }
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.0.end();
        crate::threads::finish(crate::app::CLOSE_PATIENCE);
        session_end::journal_closed();
    }
}

/// The main window's handle, where the system has one the taskbar knows (Windows).
#[cfg(windows)]
fn window_handle(cc: &eframe::CreationContext<'_>) -> Option<isize> {
    use winit::raw_window_handle::{HasWindowHandle as _, RawWindowHandle};
    match cc.window_handle().ok()?.as_raw() {
        RawWindowHandle::Win32(handle) => Some(handle.hwnd.get()),
        _ => None,
    }
}

#[cfg(not(windows))]
fn window_handle(_cc: &eframe::CreationContext<'_>) -> Option<isize> {
    None
}

/// Sends the window a close request after `seconds` (`--exit-after`), from a thread of
/// its own so the UI thread never waits; the app then closes as on its close button.
fn close_after(ctx: egui::Context, seconds: f64) {
    let wait = std::time::Duration::try_from_secs_f64(seconds).unwrap_or_default();
    // Not one `threads::finish` waits for: it holds nothing of the journal, and may
    // still be asleep when the window closes another way.
    let spawned = std::thread::Builder::new()
        .name("mindsage-exit-after".into())
        .spawn(move || {
            std::thread::sleep(wait);
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            ctx.request_repaint();
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "--exit-after has no thread: the window stays open");
    }
}

/// The window and taskbar icon, compiled in so the app needs no files beside it.
fn app_icon() -> egui::IconData {
    eframe::icon_data::from_png_bytes(include_bytes!("../../assets/icon.png")).unwrap_or_default()
}
