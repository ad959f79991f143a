//! The reminder to write, handed to the system, and the notification it brings.
//!
//! [`schedule`] gives the system's scheduler the task or timer that runs `mindsage
//! remind` (Task Scheduler through `schtasks` on Windows, a systemd user timer through
//! `systemctl --user` on Linux), so the reminder comes when MindSage is closed and
//! nothing of MindSage's stays running for it. [`remind`] is that command: it reads the
//! journal (never asking for a passphrase: nobody is there to type it), stays quiet when
//! today's page is written, and otherwise shows the notification. What these say and
//! contain is `mindsage_core::reminder`; this file only hands it over.
//!
//! Both spawn programs, so the window calls them from a thread of its own
//! (`mindsage-reminder`), never from the UI thread.

use std::path::{Path, PathBuf};
use std::process::Command;

use mindsage_core::db::{self, DEFAULT_USER, stats};
use mindsage_core::reminder::{self, Notice, Reminder};

/// How the reminder was left with the system, in the person's words.
pub type Scheduled = Result<String, String>;

/// Gives the system the reminder for the journal in `data_dir`, or takes it away when
/// it is off. `before` is what the system was last given: nothing is asked of it when
/// the reminder did not change, and a reminder that was never set is not removed.
pub fn schedule(before: &Reminder, reminder: &Reminder, data_dir: &Path) -> Option<Scheduled> {
    if before == reminder || (!before.scheduled() && !reminder.scheduled()) {
        return None;
    }
    let exe = own_program();
    let data_dir = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    Some(exe.and_then(|exe| {
        if reminder.scheduled() {
            system::set(reminder, &exe, &data_dir)
                .map(|()| format!("Reminder set: {}.", reminder.describe()))
                .map_err(|e| format!("The reminder could not be set: {e}"))
        } else {
            system::remove()
                .map(|()| "Reminder off.".to_owned())
                .map_err(|e| format!("The reminder could not be removed: {e}"))
        }
    }))
}

/// Takes away a reminder the system may still hold although the settings say it is off
/// (a settings file replaced or from another folder); there may be none, which is fine.
/// `mindsage reminder --off` comes here, and so does the uninstaller's `unregister`.
pub fn remove_any() {
    if let Err(error) = system::remove() {
        tracing::info!(%error, "no reminder to remove");
    }
}

/// This program's file, which the scheduler and a click run.
fn own_program() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("MindSage could not find its own program ({e})"))
}

/// What `mindsage remind` did, for its one line of output.
#[derive(Debug, PartialEq, Eq)]
pub enum Reminded {
    /// Today's page is written: no notification.
    AlreadyWritten,
    /// The notification was shown (and, on Linux, what the person did with it).
    Shown(Notice, Answer),
}

/// What the person did with the notification, where the system says (Linux); Windows
/// opens today's page itself through the `mindsage:` link.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(
    windows,
    allow(dead_code, reason = "Windows never says what was done with a toast")
)]
pub enum Answer {
    Opened,
    Dismissed,
    Unknown,
}

/// `mindsage remind`: the notification for a journal whose streak and today (see
/// [`streak`]) are `journal`, unless today's page is written; `None` when the journal
/// could not be read, which still gets a reminder, without its streak.
pub fn remind(journal: Option<(u32, bool)>, data_dir: &Path) -> Result<Reminded, String> {
    let Some(notice) = reminder::notice(journal) else {
        return Ok(Reminded::AlreadyWritten);
    };
    let answer = system::notify(&notice, data_dir)?;
    Ok(Reminded::Shown(notice, answer))
}

/// The journal's current streak and whether today is written.
pub fn streak(conn: &rusqlite::Connection) -> db::Result<(u32, bool)> {
    let today = chrono::Local::now().date_naive();
    let stats = stats::compute(&stats::daily_totals(conn, DEFAULT_USER)?, today);
    Ok((stats.current_streak, stats.last_day == Some(today)))
}

/// Runs `program` without a window and says what it said when it fails.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let mut command = Command::new(program);
    command.args(args);
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        /// No console window flashes up for the scheduler's tool.
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    let output = command
        .output()
        .map_err(|e| format!("{program} could not be started ({e})"))?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said = said.trim();
    let said = if said.is_empty() {
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    } else {
        said.to_owned()
    };
    Err(format!("{program} {} said: {said}", args.join(" ")))
}

#[cfg(windows)]
mod system {
    //! Task Scheduler and toasts.

    use super::*;
    use mindsage_core::reminder::{APP_USER_MODEL_ID, WINDOWS_TASK};

    pub fn set(reminder: &Reminder, exe: &Path, data_dir: &Path) -> Result<(), String> {
        let arguments = format!("remind --data-dir \"{}\"", data_dir.display());
        let xml = reminder::windows_task_xml(
            reminder,
            &exe.display().to_string(),
            &arguments,
            chrono::Local::now().date_naive(),
        );
        // schtasks reads the task as UTF-16, as its XML declaration says.
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(xml.encode_utf16().flat_map(u16::to_le_bytes));
        let file = task_file(data_dir);
        mindsage_core::files::write_private(&file, &bytes)
            .map_err(|e| format!("{} could not be written ({e})", file.display()))?;
        let file_arg = file.display().to_string();
        let outcome = run(
            "schtasks",
            &["/Create", "/TN", WINDOWS_TASK, "/XML", &file_arg, "/F"],
        );
        let _ = std::fs::remove_file(&file);
        outcome
    }

    pub fn remove() -> Result<(), String> {
        run("schtasks", &["/Delete", "/TN", WINDOWS_TASK, "/F"])
    }

    /// Where the task's XML waits for schtasks.
    fn task_file(data_dir: &Path) -> PathBuf {
        data_dir.join("reminder-task.xml")
    }

    pub fn notify(notice: &Notice, _data_dir: &Path) -> Result<Answer, String> {
        use windows::Data::Xml::Dom::XmlDocument;
        use windows::UI::Notifications::{ToastNotification, ToastNotificationManager};
        use windows::core::HSTRING;
        let shown = || -> windows::core::Result<()> {
            let xml = XmlDocument::new()?;
            xml.LoadXml(&HSTRING::from(reminder::toast_xml(notice)))?;
            let toast = ToastNotification::CreateToastNotification(&xml)?;
            ToastNotificationManager::CreateToastNotifierWithId(&HSTRING::from(APP_USER_MODEL_ID))?
                .Show(&toast)
        };
        shown().map_err(|e| format!("Windows did not show the notification ({e})"))?;
        Ok(Answer::Unknown)
    }
}

#[cfg(not(windows))]
mod system {
    //! A systemd user timer, and the desktop's notification service over the session
    //! bus (`org.freedesktop.Notifications`, which every Linux desktop provides).

    use std::collections::HashMap;
    use std::time::Duration;

    use super::*;
    use mindsage_core::reminder::SYSTEMD_UNIT;

    /// How long `mindsage remind` waits for a click before it ends: the notification
    /// may still be on screen, but a reminder to write tonight is stale after that.
    const CLICK_WAIT: Duration = Duration::from_secs(60 * 60);

    /// The command the timer runs: this program, `remind`, and the journal's folder.
    fn remind_command(exe: &Path, data_dir: &Path) -> Vec<String> {
        vec![
            exe.display().to_string(),
            "remind".to_owned(),
            "--data-dir".to_owned(),
            data_dir.display().to_string(),
        ]
    }

    fn timer() -> String {
        format!("{SYSTEMD_UNIT}.timer")
    }

    fn unit_dir() -> Result<PathBuf, String> {
        reminder::systemd_unit_dir().ok_or_else(|| "this system has no home folder".to_owned())
    }

    pub fn set(reminder: &Reminder, exe: &Path, data_dir: &Path) -> Result<(), String> {
        let dir = unit_dir()?;
        let (service, timer_unit) = reminder::systemd_units(reminder, &remind_command(exe, data_dir));
        let write = |name: String, text: &str| {
            std::fs::write(dir.join(&name), text)
                .map_err(|e| format!("{name} could not be written in {} ({e})", dir.display()))
        };
        std::fs::create_dir_all(&dir).map_err(|e| format!("{} could not be made ({e})", dir.display()))?;
        write(format!("{SYSTEMD_UNIT}.service"), &service)?;
        write(timer(), &timer_unit)?;
        run("systemctl", &["--user", "daemon-reload"])?;
        // `restart` too: an already enabled timer takes its new time.
        run("systemctl", &["--user", "enable", &timer()])?;
        run("systemctl", &["--user", "restart", &timer()])
    }

    pub fn remove() -> Result<(), String> {
        let dir = unit_dir()?;
        // Stopped first (it may not be known to systemd, which is fine), then gone.
        let stopped = run("systemctl", &["--user", "disable", "--now", &timer()]);
        for name in [timer(), format!("{SYSTEMD_UNIT}.service")] {
            match std::fs::remove_file(dir.join(&name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(format!(
                        "{name} could not be removed from {} ({e})",
                        dir.display()
                    ));
                }
                _ => {}
            }
        }
        let reloaded = run("systemctl", &["--user", "daemon-reload"]);
        stopped.and(reloaded)
    }

    /// Shows the notification and waits (up to [`CLICK_WAIT`]) for the person's answer;
    /// *Write now* or a click opens MindSage on today's page.
    pub fn notify(notice: &Notice, data_dir: &Path) -> Result<Answer, String> {
        let (id, answers) = zbus::block_on(show(notice))
            .map_err(|e| format!("the desktop did not show the notification ({e})"))?;
        let answer = loop {
            match answers.recv_timeout(CLICK_WAIT) {
                Ok((shown, action)) if shown == id => break Some(action),
                Ok(_) => {}
                Err(_) => break None,
            }
        };
        Ok(match answer {
            Some(Some(_)) => {
                open_today(data_dir)?;
                Answer::Opened
            }
            Some(None) => Answer::Dismissed,
            None => Answer::Unknown,
        })
    }

    /// A notification's id with its action (`Some`) or its closing (`None`).
    type Answered = (u32, Option<String>);

    /// Sends the notification; the answers to every notification come on the channel,
    /// from a thread that listens for them (subscribed before the notification is sent,
    /// so a quick click is not missed).
    async fn show(notice: &Notice) -> zbus::Result<(u32, std::sync::mpsc::Receiver<Answered>)> {
        use futures_lite::StreamExt;
        let bus = zbus::Connection::session().await?;
        let notifications = zbus::Proxy::new(
            &bus,
            "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
        )
        .await?;
        let mut actions = notifications.receive_signal("ActionInvoked").await?;
        let mut closed = notifications.receive_signal("NotificationClosed").await?;
        let hints: HashMap<&str, zbus::zvariant::Value> =
            HashMap::from([("urgency", 1u8.into()), ("desktop-entry", "mindsage".into())]);
        let id: u32 = notifications
            .call(
                "Notify",
                &(
                    "MindSage",
                    0u32,
                    "",
                    &notice.title,
                    &notice.body,
                    vec!["default", "Write now"],
                    hints,
                    -1i32,
                ),
            )
            .await?;
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("mindsage-reminder-answer".to_owned())
            .spawn(move || {
                zbus::block_on(async move {
                    loop {
                        let answered = futures_lite::future::or(
                            async {
                                actions
                                    .next()
                                    .await
                                    .and_then(|m| m.body().deserialize::<(u32, String)>().ok())
                                    .map(|(id, a)| (id, Some(a)))
                            },
                            async {
                                closed
                                    .next()
                                    .await
                                    .and_then(|m| m.body().deserialize::<(u32, u32)>().ok())
                                    .map(|(id, _)| (id, None))
                            },
                        )
                        .await;
                        let Some(answered) = answered else { break };
                        if send.send(answered).is_err() {
                            break;
                        }
                    }
                });
            })
            .map_err(|e| zbus::Error::Failure(format!("no thread for the answer ({e})")))?;
        Ok((id, receive))
    }

    /// Opens MindSage's window on today's page, as its own process.
    fn open_today(data_dir: &Path) -> Result<(), String> {
        Command::new(own_program()?)
            .arg("--data-dir")
            .arg(data_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map(drop)
            .map_err(|e| format!("MindSage could not be opened ({e})"))
    }
}
