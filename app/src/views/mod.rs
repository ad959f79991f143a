//! One module per screen. Views draw state and send requests; they never block.

pub mod ask;
pub mod dashboard;
pub mod editor;
pub mod gallery;
pub mod journal;
pub mod settings;

/// The screens, in the order of the top bar and of Ctrl+1 … Ctrl+5.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    #[default]
    Journal,
    Dashboard,
    Gallery,
    Ask,
    Settings,
}

impl View {
    pub const ALL: [View; 5] = [
        View::Journal,
        View::Dashboard,
        View::Gallery,
        View::Ask,
        View::Settings,
    ];

    pub fn title(self) -> &'static str {
        match self {
            View::Journal => "Journal",
            View::Dashboard => "Dashboard",
            View::Gallery => "Gallery",
            View::Ask => "Ask",
            View::Settings => "Settings",
        }
    }
}

/// A stored UTC timestamp as the person's local date and time.
pub fn display_time(stored: &str) -> String {
    mindsage_core::clock::parse_utc(stored)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%a %e %b %Y, %H:%M")
                .to_string()
        })
        .unwrap_or_else(|| stored.to_owned())
}
