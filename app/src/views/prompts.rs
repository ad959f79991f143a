//! The daily prompt above an empty page: a question to start from, written for
//! MindSage, in themes. The day chooses it, so it stays the same all day and on every
//! computer; consecutive days walk a fixed shuffle of all of them, so none comes back
//! within a month (there are more prompts than days in one). "Another" moves on to the
//! next; "Hide" hides them for the rest of the page; Settings turns them off.
//!
//! On today's page the local model may add one of its own about the last days'
//! entries (`mindsage_core::ai::prompt`), asked on the AI thread once a page, shown
//! under the day's when it comes; nothing is shown when there is no model or nothing
//! was written lately.

use chrono::NaiveDate;
use egui::RichText;

use super::Action;
use crate::protocol::AiRequest;

/// The daily prompt's state on a page: how many the person skipped, whether they hid
/// it, and the model's question.
#[derive(Default)]
pub struct Prompt {
    skipped: usize,
    hidden: bool,
    /// The model's question asked for (the day, and how many were skipped), and the
    /// question once it came.
    asked: Option<(NaiveDate, u32)>,
    from_model: Option<String>,
}

impl Prompt {
    /// A new page: the day's prompt from the start and shown again. The model's
    /// question stays (it is about the last days, not the page): asking again for every
    /// new page would cost a model call each.
    pub fn new_page(&mut self) {
        self.skipped = 0;
        self.hidden = false;
    }

    /// The day's prompt, as [`Prompt::ui`] shows it.
    pub fn text(&self, day: NaiveDate) -> &'static str {
        for_day(day, self.skipped).1
    }

    /// The model's question for `day` (`attempt` as asked), or nothing to show.
    pub fn on_model_prompt(&mut self, day: NaiveDate, attempt: u32, question: Option<String>) {
        if self.asked == Some((day, attempt)) {
            self.from_model = question;
        }
    }

    /// The day's prompt over an empty page, with Another and Hide, and on today's page
    /// the model's question; returns the day's prompt, to show greyed in the empty text,
    /// unless hidden.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        day: NaiveDate,
        actions: &mut Vec<Action>,
    ) -> Option<&'static str> {
        if self.hidden {
            return None;
        }
        let (theme, text) = for_day(day, self.skipped);
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!("A question to start from · {theme}"))
                    .small()
                    .weak(),
            );
            if ui
                .small_button("Another")
                .on_hover_text("Another question")
                .clicked()
            {
                self.skipped += 1;
            }
            if ui
                .small_button("Hide")
                .on_hover_text("No question on this page (Settings turns them off)")
                .clicked()
            {
                self.hidden = true;
            }
        });
        if day == mindsage_core::clock::now_here().date_naive() {
            self.model_question_ui(ui, day, actions);
        }
        Some(text)
    }

    fn model_question_ui(&mut self, ui: &mut egui::Ui, day: NaiveDate, actions: &mut Vec<Action>) {
        let attempt = self
            .asked
            .filter(|(asked, _)| *asked == day)
            .map_or(0, |(_, n)| n);
        if self.asked.is_none_or(|(asked, _)| asked != day) {
            self.ask(day, attempt, actions);
        }
        let Some(question) = &self.from_model else {
            return;
        };
        let another = ui
            .horizontal_wrapped(|ui| {
                ui.label(RichText::new("From your last days:").small().weak());
                ui.label(RichText::new(question).small().italics());
                ui.small_button("Ask another")
                    .on_hover_text("The local model asks another question about your last days")
                    .clicked()
            })
            .inner;
        if another {
            self.ask(day, attempt + 1, actions);
        }
    }

    fn ask(&mut self, day: NaiveDate, attempt: u32, actions: &mut Vec<Action>) {
        self.asked = Some((day, attempt));
        actions.push(Action::SendAi(AiRequest::Prompt { day, attempt }));
    }
}

/// The prompts by theme.
const THEMES: [(&str, &[&str]); 10] = [
    (
        "today",
        &[
            "What surprised you today?",
            "What did you do today that you would like to do again tomorrow?",
            "Which hour of today would you keep, if you could keep only one?",
            "What was the first thing you thought about when you woke up?",
            "What made you laugh today, even a little?",
            "Where did your attention go today when nobody was asking for it?",
            "What did you eat today, and who did you eat it with?",
            "What was the weather like, and did it change your plans?",
            "What did you finish today, however small?",
            "What did you put off today, and why?",
            "Describe the place where you are sitting right now.",
            "What sound do you remember from today?",
            "Who did you talk to most today?",
            "What would you tell someone who asked how your day really was?",
            "What took longer than you expected today?",
        ],
    ),
    (
        "feelings",
        &[
            "What feeling has been with you most of the day?",
            "When did you feel most like yourself this week?",
            "What are you worried about, and how likely is it, honestly?",
            "What is something you feel but have not said out loud?",
            "What drained your energy today, and what gave some back?",
            "What would make tomorrow feel lighter?",
            "When did you last feel proud of yourself?",
            "What are you looking forward to, near or far?",
            "What is asking for your patience at the moment?",
            "What calmed you down the last time you were upset?",
            "Which worry from last month no longer matters?",
            "What would you like to forgive yourself for?",
            "What does rest look like for you right now?",
            "Where in your body do you feel today's mood?",
            "What are you holding on to that you could put down?",
        ],
    ),
    (
        "people",
        &[
            "Who made your day better, and do they know it?",
            "Who have you been meaning to call?",
            "What did someone say recently that stayed with you?",
            "Who do you miss, and what do you miss about them?",
            "What did you learn from a friend this month?",
            "Who would you like to spend more time with, and what stops you?",
            "Write about someone you saw today but do not know.",
            "What is a kindness someone did for you that you still remember?",
            "What conversation would you like to have again, differently?",
            "Who taught you something without meaning to?",
            "What do the people closest to you not know about your week?",
            "Who would you thank today, if you wrote them a note?",
            "What did you and your family talk about lately?",
            "Describe a friend as a stranger might see them.",
            "Who has changed the way you think about something?",
        ],
    ),
    (
        "gratitude",
        &[
            "Name three small things you were glad of today.",
            "What ordinary thing would you miss if it were gone?",
            "What is working well in your life right now?",
            "What is a comfort you often forget to notice?",
            "What did your body do for you today?",
            "Which tool, book or object makes your days easier?",
            "What went right today that could easily have gone wrong?",
            "What about your home are you grateful for?",
            "Which meal this week would you happily eat again?",
            "What chance, years ago, led to something good today?",
            "What skill are you glad you learned?",
            "What did nature give you this week?",
            "Who or what made today easier than it might have been?",
            "What is something you have now that you once wished for?",
            "What is a small luxury you allowed yourself recently?",
        ],
    ),
    (
        "looking back",
        &[
            "What were you doing this time last year?",
            "What is a decision you are glad you made?",
            "What did you believe five years ago that you no longer do?",
            "What is the best advice you ignored, and the best you took?",
            "Which place from your childhood can you still walk through in your mind?",
            "What did you want to be when you were ten?",
            "What was the hardest week of this year, and how did you get through it?",
            "Which old habit have you let go of, and how?",
            "What song brings back a particular summer?",
            "What would you tell yourself a year ago?",
            "What risk are you glad you took?",
            "Which photograph would you save first, and why?",
            "What did this month teach you?",
            "What tradition do you keep, and where does it come from?",
            "Which mistake turned out well?",
        ],
    ),
    (
        "looking ahead",
        &[
            "What do you want to have done by the end of this week?",
            "What would a good day tomorrow look like, hour by hour?",
            "What is one thing you would like to learn this year?",
            "Where would you like to be in a year's time?",
            "What small change would make your mornings better?",
            "What are you saving your energy for?",
            "What would you try if you knew nobody would watch?",
            "What do you want more of next month, and less of?",
            "What is the next step on something you keep postponing?",
            "Which trip would you take, if you could leave on Friday?",
            "What would you like people to say about how you spent this year?",
            "What would you do with a free afternoon this week?",
            "What are you curious about at the moment?",
            "What is a promise you would like to make to yourself?",
            "What could you stop doing, to make room for something better?",
        ],
    ),
    (
        "work and making",
        &[
            "What did you make or fix recently?",
            "What part of your work do you enjoy most, and when did you last do it?",
            "What problem is turning over in your mind at the moment?",
            "What did you learn at work this week that nobody taught you?",
            "When did you last lose track of time doing something?",
            "What would you change about how you spend your working day?",
            "What are you proud of having made, ever?",
            "What is the most useful thing you did today?",
            "Which task do you keep avoiding, and what is it really about?",
            "Describe your desk, or wherever you do your work.",
            "What would you work on if money did not matter?",
            "What did you notice about how you work best?",
            "What idea have you had recently that you have not tried yet?",
            "Who at work would you like to know better?",
            "What are you building, slowly, over the years?",
        ],
    ),
    (
        "health",
        &[
            "How did you sleep, and what might have changed it?",
            "How did your body feel when you woke up?",
            "When did you last move just for the pleasure of it?",
            "What did you drink most of today?",
            "What is your body telling you that you keep ignoring?",
            "When were you outside today, and for how long?",
            "What helps you wind down at night?",
            "What would make you feel healthier by next week?",
            "How did you breathe during the busiest moment of today?",
            "What small habit is doing you good lately?",
            "What did you do today that your future self will thank you for?",
            "How much time did you spend on screens today, and how did it feel?",
            "What food makes you feel good, and when did you last have it?",
            "When did you last feel really rested?",
            "What is one thing you could do tonight to sleep better?",
        ],
    ),
    (
        "the world around",
        &[
            "What did you notice on your way somewhere today?",
            "What is changing in your neighbourhood?",
            "What news stayed with you this week, and why?",
            "Describe the view from your window as if to someone far away.",
            "What season does it feel like, whatever the calendar says?",
            "What did you see today that you would like to photograph?",
            "What is a place nearby you have never been into?",
            "What did you overhear today?",
            "What did the sky look like this evening?",
            "What is in bloom, or falling, where you live?",
            "Which shop, café or corner feels like yours?",
            "What is a local sound you would miss if you moved away?",
            "What did you read today, and what did it make you think?",
            "What small thing in the world would you fix if you could?",
            "What did a stranger do today that you noticed?",
        ],
    ),
    (
        "just for you",
        &[
            "What is on your mind that you have not written down yet?",
            "If today were a chapter, what would its title be?",
            "Describe today in exactly three sentences.",
            "What question would you like someone to ask you?",
            "What are you pretending not to know?",
            "What do you need to hear right now?",
            "Write about a colour you saw today.",
            "What would you do differently if you lived today again?",
            "What is the story you keep telling yourself about this week?",
            "What is something you are quietly getting better at?",
            "Write a letter to yourself to open in a year.",
            "What is a question you cannot answer yet?",
            "What do you want to remember about this ordinary day?",
            "What would make this week feel like yours?",
            "Write down whatever comes, for five minutes, without stopping.",
        ],
    ),
];

/// How many prompts there are.
pub fn count() -> usize {
    THEMES.iter().map(|(_, prompts)| prompts.len()).sum()
}

/// The prompt for `day`, `skipped` prompts on ("Another"): its theme and text.
pub fn for_day(day: NaiveDate, skipped: usize) -> (&'static str, &'static str) {
    let n = count();
    // Days since the epoch walk the prompts with a stride coprime to their number: a
    // fixed shuffle in which consecutive days never meet the same prompt before all
    // have been used.
    let days = (day - NaiveDate::default()).num_days().rem_euclid(n as i64) as usize;
    let index = (days * stride(n) + skipped) % n;
    nth(index)
}

/// A step through the prompts that visits every one before repeating: a number coprime
/// to `n`, near a third of it, so neighbours in the walk come from different themes.
fn stride(n: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    (n / 3..n).find(|&s| gcd(s, n) == 1).unwrap_or(1)
}

fn nth(mut index: usize) -> (&'static str, &'static str) {
    for (theme, prompts) in THEMES {
        if index < prompts.len() {
            return (theme, prompts[index]);
        }
        index -= prompts.len();
    }
    (THEMES[0].0, THEMES[0].1[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_at_least_150_prompts_and_no_two_alike() {
        assert!(count() >= 150, "{}", count());
        let mut all: Vec<&str> = THEMES.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count());
    }

    #[test]
    fn no_prompt_comes_back_within_a_month_and_another_gives_a_new_one() {
        let start = NaiveDate::from_ymd_opt(2026, 12, 6).unwrap();
        for offset in 0..400 {
            let first = start + chrono::Duration::days(offset);
            let month: Vec<&str> = (0..31)
                .map(|d| for_day(first + chrono::Duration::days(d), 0).1)
                .collect();
            let mut distinct = month.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), month.len(), "a repeat in the month from {first}");
        }
        assert_ne!(for_day(start, 0), for_day(start, 1));
        assert_eq!(for_day(start, 0), for_day(start, 0), "the same all day");
    }
}
