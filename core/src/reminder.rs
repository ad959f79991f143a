//! The reminder to write: when it comes, what it says, and what the system's scheduler
//! is given to bring it.
//!
//! MindSage does not stay running to remind anyone. The system's own scheduler runs
//! `mindsage remind` at the chosen time (a per-user task in Windows' Task Scheduler, a
//! systemd user timer on Linux), even when MindSage is closed; that command reads the
//! journal, stays quiet when today's page is already written, and otherwise shows a
//! notification that opens today's page. This module is the text of all three (the
//! task, the timer, the toast) so they can be tested anywhere; `app/src/reminders.rs`
//! hands them to the system.

use chrono::{NaiveDate, NaiveTime, Weekday};

/// The name the reminder's task has in Task Scheduler (a folder of MindSage's own).
pub const WINDOWS_TASK: &str = r"MindSage\Reminder to write";

/// The systemd user units' name (`.service` and `.timer`).
pub const SYSTEMD_UNIT: &str = "mindsage-reminder";

/// The identity Windows shows MindSage's notifications under. The Start-menu shortcut
/// the installer makes carries it (`System.AppUserModel.ID`), which is what lets an app
/// that is not a Store package show a toast at all; it must match `wix/mindsage.wxs`.
pub const APP_USER_MODEL_ID: &str = "MindSage.Journal";

/// The link a click on the notification opens ([`crate::links`]): it works after
/// `mindsage remind` has exited.
pub const TODAY_LINK: &str = crate::links::Link::Today.text();

/// Where the systemd user units go: `$XDG_CONFIG_HOME/systemd/user`, usually
/// `~/.config/systemd/user`.
pub fn systemd_unit_dir() -> Option<std::path::PathBuf> {
    Some(
        directories::BaseDirs::new()?
            .config_dir()
            .join("systemd")
            .join("user"),
    )
}

/// The days in the order the settings show them.
pub const WEEK: [Weekday; 7] = [
    Weekday::Mon,
    Weekday::Tue,
    Weekday::Wed,
    Weekday::Thu,
    Weekday::Fri,
    Weekday::Sat,
    Weekday::Sun,
];

/// When to be reminded (Settings → Reminder): a time on some days of the week, in this
/// computer's local time. Off until the person turns it on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Reminder {
    pub enabled: bool,
    /// The time of day, as `HH:MM`.
    #[serde(with = "hours_and_minutes")]
    pub at: NaiveTime,
    /// The days it comes on; none is the same as off.
    pub days: Vec<Weekday>,
}

impl Default for Reminder {
    fn default() -> Self {
        Reminder {
            enabled: false,
            at: NaiveTime::from_hms_opt(20, 0, 0).expect("a valid time"),
            days: WEEK.to_vec(),
        }
    }
}

impl Reminder {
    /// Whether the system should run the reminder at all.
    pub fn scheduled(&self) -> bool {
        self.enabled && !self.days.is_empty()
    }

    /// The chosen days in the week's order, each once.
    fn days_in_order(&self) -> impl Iterator<Item = Weekday> + '_ {
        WEEK.into_iter().filter(|day| self.days.contains(day))
    }

    /// "Every day at 20:00", "Weekdays at 07:30", "Mon, Wed, Fri at 21:15".
    pub fn describe(&self) -> String {
        let days: Vec<Weekday> = self.days_in_order().collect();
        let which = match days.len() {
            7 => "Every day".to_owned(),
            5 if !days.contains(&Weekday::Sat) && !days.contains(&Weekday::Sun) => "Weekdays".to_owned(),
            2 if days == [Weekday::Sat, Weekday::Sun] => "Weekends".to_owned(),
            _ => days.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "),
        };
        format!("{which} at {}", self.at.format("%H:%M"))
    }
}

/// What the notification says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    pub body: String,
}

/// The notification for a journal whose current streak is `streak` days and whose
/// today's page is or is not written yet (`None`: the journal could not be read, say
/// because it is encrypted and its passphrase is not remembered). Nothing when today is
/// written: the reminder is to write, not to nag.
pub fn notice(journal: Option<(u32, bool)>) -> Option<Notice> {
    let body = match journal {
        Some((_, true)) => return None,
        Some((streak, false)) if streak > 0 => {
            format!(
                "{streak}-day streak: write today to make it {} days in a row.",
                streak + 1
            )
        }
        _ => "Today's page is waiting.".to_owned(),
    };
    Some(Notice {
        title: "Time to write".to_owned(),
        body,
    })
}

/// The toast Windows shows: the title and the body, a click opening today's page
/// through [`TODAY_LINK`] (protocol activation, which needs no MindSage running).
pub fn toast_xml(notice: &Notice) -> String {
    format!(
        r#"<toast launch="{TODAY_LINK}" activationType="protocol"><visual><binding template="ToastGeneric"><text>{}</text><text>{}</text></binding></visual><actions><action content="Write now" arguments="{TODAY_LINK}" activationType="protocol"/></actions></toast>"#,
        xml_text(&notice.title),
        xml_text(&notice.body),
    )
}

/// The Task Scheduler task (its XML, for `schtasks /Create /XML`) that runs
/// `command` with `arguments` at the reminder's time on its days, for the person who
/// registers it and only while they are logged on. `from` is the first day it may run.
pub fn windows_task_xml(reminder: &Reminder, command: &str, arguments: &str, from: NaiveDate) -> String {
    let days: String = reminder
        .days_in_order()
        .map(|day| format!("<{}/>", windows_day(day)))
        .collect();
    let start = from.and_time(reminder.at).format("%Y-%m-%dT%H:%M:%S");
    format!(
        r#"<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>MindSage</Author>
    <Description>MindSage's reminder to write ({}). Change or remove it in MindSage: Settings, Reminder.</Description>
  </RegistrationInfo>
  <Triggers>
    <CalendarTrigger>
      <StartBoundary>{start}</StartBoundary>
      <Enabled>true</Enabled>
      <ScheduleByWeek>
        <DaysOfWeek>{days}</DaysOfWeek>
        <WeeksInterval>1</WeeksInterval>
      </ScheduleByWeek>
    </CalendarTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <StartWhenAvailable>false</StartWhenAvailable>
    <ExecutionTimeLimit>PT1H</ExecutionTimeLimit>
    <Enabled>true</Enabled>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{}</Command>
      <Arguments>{}</Arguments>
    </Exec>
  </Actions>
</Task>
"#,
        xml_text(&reminder.describe()),
        xml_text(command),
        xml_text(arguments),
    )
}

/// The systemd user units: a service that runs `command` once, and a timer that starts
/// it at the reminder's time on its days (missed ones are not made up: a reminder at
/// 20:00 is no use at 08:00 the next day). `command` is the program and its arguments.
pub fn systemd_units(reminder: &Reminder, command: &[String]) -> (String, String) {
    let exec: Vec<String> = command.iter().map(|word| systemd_word(word)).collect();
    let service = format!(
        "[Unit]\nDescription=MindSage's reminder to write\n\n[Service]\nType=oneshot\nExecStart={}\n",
        exec.join(" ")
    );
    let days: Vec<String> = reminder.days_in_order().map(|d| d.to_string()).collect();
    let timer = format!(
        "[Unit]\nDescription=MindSage's reminder to write ({})\n\n[Timer]\nOnCalendar={} *-*-* {}\nAccuracySec=1min\n\n[Install]\nWantedBy=timers.target\n",
        reminder.describe(),
        days.join(","),
        reminder.at.format("%H:%M:00"),
    );
    (service, timer)
}

/// One word of a systemd `ExecStart=`, quoted, with its specifiers (`%`) and variables
/// (`$`) kept literal.
fn systemd_word(word: &str) -> String {
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('"');
    for c in word.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            '%' => quoted.push_str("%%"),
            '$' => quoted.push_str("$$"),
            '\n' => quoted.push_str("\\n"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// Text as XML element content or an attribute value.
fn xml_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The day as Task Scheduler's XML names it.
fn windows_day(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "Monday",
        Weekday::Tue => "Tuesday",
        Weekday::Wed => "Wednesday",
        Weekday::Thu => "Thursday",
        Weekday::Fri => "Friday",
        Weekday::Sat => "Saturday",
        Weekday::Sun => "Sunday",
    }
}

/// `at` in the settings file as `"20:00"`, which a person editing it can read.
mod hours_and_minutes {
    use chrono::NaiveTime;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(at: &NaiveTime, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&at.format("%H:%M").to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<NaiveTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        crate::clock::parse_time(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("\"{text}\" is not a time like 20:00")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reminder(at: &str, days: &[Weekday]) -> Reminder {
        Reminder {
            enabled: true,
            at: crate::clock::parse_time(at).unwrap(),
            days: days.to_vec(),
        }
    }

    #[test]
    fn the_days_are_said_as_a_person_says_them() {
        assert_eq!(reminder("20:00", &WEEK).describe(), "Every day at 20:00");
        let weekdays = &WEEK[..5];
        assert_eq!(reminder("07:30", weekdays).describe(), "Weekdays at 07:30");
        assert_eq!(
            reminder("21:15", &[Weekday::Sun, Weekday::Sat]).describe(),
            "Weekends at 21:15"
        );
        assert_eq!(
            reminder("21:15", &[Weekday::Fri, Weekday::Mon, Weekday::Wed]).describe(),
            "Mon, Wed, Fri at 21:15"
        );
        assert!(!reminder("21:15", &[]).scheduled());
    }

    #[test]
    fn the_notice_counts_the_streak_and_is_quiet_once_today_is_written() {
        assert_eq!(notice(Some((12, true))), None);
        let streak = notice(Some((12, false))).unwrap();
        assert_eq!(streak.title, "Time to write");
        assert_eq!(
            streak.body,
            "12-day streak: write today to make it 13 days in a row."
        );
        assert_eq!(notice(Some((0, false))).unwrap().body, "Today's page is waiting.");
        assert_eq!(notice(None).unwrap().body, "Today's page is waiting.");
    }

    #[test]
    fn the_toast_opens_today_and_escapes_its_text() {
        let xml = toast_xml(&Notice {
            title: "Time to write".to_owned(),
            body: "Tom & Jerry <3".to_owned(),
        });
        assert!(
            xml.starts_with(r#"<toast launch="mindsage:today" activationType="protocol">"#),
            "{xml}"
        );
        assert!(xml.contains("<text>Tom &amp; Jerry &lt;3</text>"), "{xml}");
        assert!(xml.contains(
            r#"<action content="Write now" arguments="mindsage:today" activationType="protocol"/>"#
        ));
    }

    #[test]
    fn the_windows_task_runs_the_command_at_the_time_on_the_days() {
        let from = NaiveDate::from_ymd_opt(2026, 12, 6).unwrap();
        let xml = windows_task_xml(
            &reminder("21:05", &[Weekday::Sun, Weekday::Tue]),
            r"C:\Users\Zoë\AppData\Local\Programs\MindSage\mindsage.exe",
            r#"remind --data-dir "C:\Users\Zoë\R&D""#,
            from,
        );
        assert!(
            xml.contains("<StartBoundary>2026-12-06T21:05:00</StartBoundary>"),
            "{xml}"
        );
        assert!(
            xml.contains("<DaysOfWeek><Tuesday/><Sunday/></DaysOfWeek>"),
            "{xml}"
        );
        assert!(
            xml.contains(r"<Command>C:\Users\Zoë\AppData\Local\Programs\MindSage\mindsage.exe</Command>")
        );
        assert!(
            xml.contains(r"<Arguments>remind --data-dir &quot;C:\Users\Zoë\R&amp;D&quot;</Arguments>"),
            "{xml}"
        );
        assert!(xml.contains("<LogonType>InteractiveToken</LogonType>"));
        assert!(xml.contains("Tue, Sun at 21:05"));
    }

    #[test]
    fn the_systemd_timer_fires_on_the_days_and_the_service_keeps_paths_literal() {
        let (service, timer) = systemd_units(
            &reminder("06:45", &[Weekday::Mon, Weekday::Sat]),
            &[
                "/opt/Mind Sage/mindsage".to_owned(),
                "remind".to_owned(),
                "--data-dir".to_owned(),
                "/home/a/100% \"mine\" $HOME".to_owned(),
            ],
        );
        assert!(timer.contains("\nOnCalendar=Mon,Sat *-*-* 06:45:00\n"), "{timer}");
        assert!(timer.contains("\nWantedBy=timers.target\n"));
        assert!(
            service.contains(
                r#"ExecStart="/opt/Mind Sage/mindsage" "remind" "--data-dir" "/home/a/100%% \"mine\" $$HOME""#
            ),
            "{service}"
        );
    }

    #[test]
    fn the_settings_file_keeps_the_time_as_a_person_writes_it() {
        let json = serde_json::to_string(&reminder("07:05", &[Weekday::Wed])).unwrap();
        assert_eq!(json, r#"{"enabled":true,"at":"07:05","days":["Wed"]}"#);
        let read: Reminder = serde_json::from_str(r#"{"at":"7.30"}"#).unwrap();
        assert_eq!(read.at, NaiveTime::from_hms_opt(7, 30, 0).unwrap());
        assert_eq!(read.days, WEEK.to_vec());
        assert!(serde_json::from_str::<Reminder>(r#"{"at":"late"}"#).is_err());
    }
}
