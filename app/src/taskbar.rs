//! MindSage's button on the Windows taskbar: the jump list's tasks and the progress of
//! long work.
//!
//! * The jump list (right-click on the taskbar button, or the Start menu's entry) lists
//!   New entry, New voice entry and Ask. Each is a `mindsage:` link given to
//!   `mindsage.exe --link` ([`mindsage_core::links`]), so a task starts MindSage on that
//!   screen, or hands it to the window already open (`crate::instance`).
//! * While an import, the model's backfill or a transcription runs, the button fills
//!   as the bar in the window does ([`Progress`]); when the model's work waits (paused,
//!   or no model server) it turns to the paused colour.
//!
//! Both belong to the process's identity on the taskbar, `MindSage.Journal`, the one
//! the Start menu's shortcut and the reminder's notifications carry
//! ([`mindsage_core::reminder::APP_USER_MODEL_ID`]), set before the window opens
//! ([`identify`]). The shell's COM objects are used from a thread of their own, so the
//! UI thread never waits for the shell: it only sends a new value when the shown one
//! changes. Elsewhere than Windows all of this does nothing.

use std::path::Path;

/// What the taskbar button shows of the work under way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// This share of the work is done (0 to 1).
    Working(f32),
    /// The work waits with this share done (paused, or its model unreachable).
    Waiting(f32),
}

impl Progress {
    /// Parts of the whole the taskbar is given: fine enough for a smooth bar, coarse
    /// enough that a frame's small change sends nothing.
    const PARTS: u64 = 1000;

    /// The share done in [`Progress::PARTS`], and whether the work waits.
    fn parts(self) -> (u64, bool) {
        let (share, waiting) = match self {
            Progress::Working(share) => (share, false),
            Progress::Waiting(share) => (share, true),
        };
        let share = if share.is_finite() {
            share.clamp(0.0, 1.0)
        } else {
            0.0
        };
        ((f64::from(share) * Self::PARTS as f64).round() as u64, waiting)
    }
}

/// Sets the process's identity on the taskbar (Windows); call it before any window.
pub fn identify() {
    #[cfg(windows)]
    windows_taskbar::identify();
}

/// The taskbar button of the window, fed from the UI thread.
pub struct Taskbar {
    #[cfg(windows)]
    shell: Option<std::sync::mpsc::Sender<Option<(u64, bool)>>>,
    /// What was last sent, so an unchanged frame sends nothing.
    shown: Option<(u64, bool)>,
}

impl Taskbar {
    /// Starts the taskbar's thread for `window` (the main window's handle), which sets
    /// the jump list's tasks for the journal in `data_dir` first. A taskbar that cannot
    /// start is logged and left out: the window works without it.
    pub fn start(window: Option<isize>, data_dir: &Path) -> Taskbar {
        #[cfg(windows)]
        let shell = windows_taskbar::start(window, data_dir)
            .inspect_err(|error| tracing::warn!("no jump list or taskbar progress: {error:#}"))
            .ok();
        #[cfg(not(windows))]
        let _ = (window, data_dir);
        Taskbar {
            #[cfg(windows)]
            shell,
            shown: None,
        }
    }

    /// Shows `progress` on the button, or none.
    pub fn show(&mut self, progress: Option<Progress>) {
        let parts = progress.map(Progress::parts);
        if parts == self.shown {
            return;
        }
        self.shown = parts;
        #[cfg(windows)]
        if let Some(shell) = &self.shell {
            // A thread that ended has logged why; the window carries on without it.
            let _ = shell.send(parts);
        }
    }
}

#[cfg(windows)]
mod windows_taskbar {
    use std::path::Path;
    use std::sync::mpsc::{self, Receiver, Sender};

    use anyhow::Context as _;
    use mindsage_core::links::Link;
    use mindsage_core::reminder::APP_USER_MODEL_ID;
    use windows::Win32::Foundation::HWND;
    use windows::Win32::Storage::EnhancedStorage::PKEY_Title;
    use windows::Win32::System::Com::StructuredStorage::PROPVARIANT;
    use windows::Win32::System::Com::{
        CLSCTX_INPROC_SERVER, COINIT_APARTMENTTHREADED, CoCreateInstance, CoInitializeEx,
    };
    use windows::Win32::UI::Shell::Common::{IObjectArray, IObjectCollection};
    use windows::Win32::UI::Shell::PropertiesSystem::IPropertyStore;
    use windows::Win32::UI::Shell::{
        DestinationList, EnumerableObjectCollection, ICustomDestinationList, IShellLinkW, ITaskbarList3,
        SetCurrentProcessExplicitAppUserModelID, ShellLink, TBPF_NOPROGRESS, TBPF_NORMAL, TBPF_PAUSED,
        TaskbarList,
    };
    use windows::core::{HSTRING, Interface as _};

    use super::Progress;

    pub fn identify() {
        // SAFETY: a string the call copies; called before any window exists.
        if let Err(error) =
            unsafe { SetCurrentProcessExplicitAppUserModelID(&HSTRING::from(APP_USER_MODEL_ID)) }
        {
            tracing::warn!(%error, "the taskbar will not group this window with MindSage's shortcut");
        }
    }

    pub fn start(window: Option<isize>, data_dir: &Path) -> anyhow::Result<Sender<Option<(u64, bool)>>> {
        let exe = std::env::current_exe().context("where this program is")?;
        let data_dir = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
        let (send, receive) = mpsc::channel();
        std::thread::Builder::new()
            .name("mindsage-taskbar".into())
            .spawn(move || {
                // SAFETY: this thread's own apartment, entered once, before any COM call.
                if let Err(error) = unsafe { CoInitializeEx(None, COINIT_APARTMENTTHREADED) }.ok() {
                    return tracing::warn!(%error, "no jump list or taskbar progress");
                }
                match set_tasks(&exe, &data_dir) {
                    Ok(()) => tracing::info!("the jump list's tasks are set"),
                    Err(error) => tracing::warn!(%error, "the jump list's tasks are not set"),
                }
                if let Some(window) = window {
                    show_progress(HWND(window as *mut _), &receive);
                }
            })
            .context("starting the taskbar's thread")?;
        Ok(send)
    }

    /// Replaces the jump list's tasks with [`Link::TASKS`], each `exe` on the journal in
    /// `data_dir`.
    fn set_tasks(exe: &Path, data_dir: &Path) -> windows::core::Result<()> {
        // SAFETY: COM calls on objects this thread created, with strings that outlive
        // each call.
        unsafe {
            let list: ICustomDestinationList =
                CoCreateInstance(&DestinationList, None, CLSCTX_INPROC_SERVER)?;
            list.SetAppID(&HSTRING::from(APP_USER_MODEL_ID))?;
            let mut slots = 0;
            let _removed: IObjectArray = list.BeginList(&mut slots)?;
            let tasks: IObjectCollection =
                CoCreateInstance(&EnumerableObjectCollection, None, CLSCTX_INPROC_SERVER)?;
            for link in Link::TASKS {
                let task: IShellLinkW = CoCreateInstance(&ShellLink, None, CLSCTX_INPROC_SERVER)?;
                task.SetPath(&HSTRING::from(exe.as_os_str()))?;
                task.SetArguments(&HSTRING::from(link.windows_arguments(data_dir)))?;
                task.SetIconLocation(&HSTRING::from(exe.as_os_str()), 0)?;
                let properties: IPropertyStore = task.cast()?;
                properties.SetValue(&PKEY_Title, &PROPVARIANT::from(link.label()))?;
                properties.Commit()?;
                tasks.AddObject(&task)?;
            }
            list.AddUserTasks(&tasks.cast::<IObjectArray>()?)?;
            list.CommitList()
        }
    }

    /// Shows each progress sent on `window`'s button, until the window's side hangs up.
    fn show_progress(window: HWND, receive: &Receiver<Option<(u64, bool)>>) {
        // SAFETY: as in `set_tasks`; `window` is the main window, which outlives the
        // channel's sender, and a call on a window gone only fails.
        let taskbar = unsafe {
            CoCreateInstance::<_, ITaskbarList3>(&TaskbarList, None, CLSCTX_INPROC_SERVER)
                .and_then(|taskbar| taskbar.HrInit().map(|()| taskbar))
        };
        let taskbar = match taskbar {
            Ok(taskbar) => taskbar,
            Err(error) => return tracing::warn!(%error, "no progress on the taskbar"),
        };
        for parts in receive {
            // SAFETY: as above.
            let shown = unsafe {
                match parts {
                    None => taskbar.SetProgressState(window, TBPF_NOPROGRESS),
                    Some((done, waiting)) => taskbar
                        .SetProgressState(window, if waiting { TBPF_PAUSED } else { TBPF_NORMAL })
                        .and_then(|()| taskbar.SetProgressValue(window, done, Progress::PARTS)),
                }
            };
            if let Err(error) = shown {
                tracing::debug!(%error, "the taskbar did not take the progress");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn progress_is_whole_parts_of_a_thousand_and_never_out_of_range() {
        assert_eq!(Progress::Working(0.5).parts(), (500, false));
        assert_eq!(Progress::Waiting(0.2504).parts(), (250, true));
        assert_eq!(Progress::Working(1.7).parts(), (1000, false));
        assert_eq!(Progress::Working(-1.0).parts(), (0, false));
        assert_eq!(Progress::Working(f32::NAN).parts(), (0, false));
    }
}
