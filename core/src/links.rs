//! The `mindsage:` links: what the reminder's notification and the taskbar's jump list
//! open. The installer registers the scheme for `mindsage.exe --link`, so a link works
//! whether MindSage is running or not: a launch with one hands it to the journal's
//! window when there is one (`app/src/instance.rs`), and opens the window with it
//! otherwise.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Where a link takes the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Link {
    /// Today's page, the cursor in its text (the reminder's "Write now").
    Today,
    /// A new, empty entry (Ctrl+N).
    NewEntry,
    /// A new entry spoken: the recorder starts (Ctrl+R).
    VoiceEntry,
    /// The Ask screen, the cursor in the question.
    Ask,
}

impl Link {
    /// The jump list's tasks, in the order it shows them.
    pub const TASKS: [Link; 3] = [Link::NewEntry, Link::VoiceEntry, Link::Ask];

    /// The link's text.
    pub const fn text(self) -> &'static str {
        match self {
            Link::Today => "mindsage:today",
            Link::NewEntry => "mindsage:new",
            Link::VoiceEntry => "mindsage:voice",
            Link::Ask => "mindsage:ask",
        }
    }

    /// What a jump list's task says.
    pub fn label(self) -> &'static str {
        match self {
            Link::Today => "Today's page",
            Link::NewEntry => "New entry",
            Link::VoiceEntry => "New voice entry",
            Link::Ask => "Ask",
        }
    }

    /// The arguments of a jump list's task for this link: `mindsage.exe` on the journal
    /// in `data_dir`, always named, since the jump list is the app's and its tasks must
    /// reach the window that made it. Quoted as Windows splits a command line.
    pub fn windows_arguments(self, data_dir: &Path) -> String {
        let data_dir = crate::autostart::windows_quoted(&data_dir.to_string_lossy());
        format!("--link {} --data-dir {data_dir}", self.text())
    }

    /// The link `text` names, if MindSage knows it. Browsers and shells pass links on
    /// with a trailing slash or in capitals, and Windows sometimes with `//`.
    pub fn parse(text: &str) -> Option<Link> {
        let text = text.trim().trim_end_matches('/').to_ascii_lowercase();
        let target = text.strip_prefix("mindsage:")?.trim_start_matches('/');
        [Link::Today, Link::NewEntry, Link::VoiceEntry, Link::Ask]
            .into_iter()
            .find(|link| link.text().strip_prefix("mindsage:") == Some(target))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Link;

    #[test]
    fn every_link_reads_back_and_a_strange_one_is_none() {
        for link in [Link::Today, Link::NewEntry, Link::VoiceEntry, Link::Ask] {
            assert_eq!(Link::parse(link.text()), Some(link));
        }
        assert_eq!(Link::parse("MindSage:Today/"), Some(Link::Today));
        assert_eq!(Link::parse("mindsage://ask/"), Some(Link::Ask));
        assert_eq!(Link::parse("mindsage:elsewhere"), None);
        assert_eq!(Link::parse("https://example.com"), None);
        assert_eq!(Link::parse(""), None);
    }

    #[test]
    fn the_jump_list_offers_writing_speaking_and_asking_on_this_journal() {
        let labels: Vec<&str> = Link::TASKS.iter().map(|task| task.label()).collect();
        assert_eq!(labels, ["New entry", "New voice entry", "Ask"]);
        let journal = Path::new(r"C:\Users\Zoë\My Journal\");
        assert_eq!(
            Link::VoiceEntry.windows_arguments(journal),
            r#"--link mindsage:voice --data-dir "C:\Users\Zoë\My Journal\\""#
        );
    }
}
