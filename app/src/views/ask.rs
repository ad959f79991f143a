//! Ask: questions about the journal, answered by the local model from its entries.
//!
//! The answer streams in as the AI thread forwards the pipeline's events; each answer
//! lists the entries it rests on (a click opens one) and where its time went, stage by
//! stage. Answered questions are saved; the history on the left opens them again.

use std::time::{Duration, Instant};

use egui::RichText;

use mindsage_core::ai::ask::{AskEvent, AskTimings, Source, TURNS_KEPT, Turn};
use mindsage_core::db::chats::{ChatMessage, ChatSummary, Role};

use super::{Action, Screen, display_time};
use crate::protocol::{AiRequest, Request};
use crate::wording::entry_title;

/// How often the model's status is checked again while the screen is open.
const HEALTH_EVERY: Duration = Duration::from_secs(15);

/// One question and its answer as it arrives.
#[derive(Default)]
struct Exchange {
    question: String,
    answer: String,
    sources: Vec<Source>,
    /// What the journal remembered of the question's words ("Maya, whom you call your
    /// sister").
    remembered: Vec<String>,
    /// Stages in the order they finished, with their durations.
    stages: Vec<(&'static str, Duration)>,
    timings: Option<AskTimings>,
    error: Option<String>,
}

#[derive(Default)]
pub struct AskView {
    question: String,
    exchanges: Vec<Exchange>,
    streaming: bool,
    health: Option<Result<String, String>>,
    health_asked: Option<Instant>,
    /// A question to scroll to (the one just asked).
    scroll_to: Option<usize>,
    /// Saved chats, most recent first; `None` until read.
    history: Option<Vec<ChatSummary>>,
    /// Put the cursor in the question on the next frame (the screen was just opened).
    focus_question: bool,
}

impl AskView {
    pub fn on_health(&mut self, status: Result<String, String>) {
        self.health = Some(status);
    }

    pub fn on_chats(&mut self, chats: Vec<ChatSummary>) {
        self.history = Some(chats);
    }

    /// An answer joined the history: read the history again.
    pub fn on_chat_saved(&mut self, actions: &mut Vec<Action>) {
        actions.push(Action::Send(Request::Chats));
    }

    /// Puts a saved chat on screen: each question with the answer that followed it.
    pub fn on_chat_messages(&mut self, messages: Vec<ChatMessage>) {
        self.exchanges.clear();
        for message in messages {
            match message.role {
                Role::User => self.exchanges.push(Exchange {
                    question: message.content,
                    ..Exchange::default()
                }),
                Role::Assistant => {
                    if let Some(exchange) = self.exchanges.last_mut() {
                        exchange.answer = message.content;
                        exchange.sources = message.sources;
                    }
                }
                // Never stored: the history holds what the person and the model said.
                Role::System => {}
            }
        }
    }

    /// A step of the answer being streamed.
    pub fn on_event(&mut self, event: AskEvent) {
        let Some(current) = self.exchanges.last_mut() else {
            return;
        };
        match event {
            AskEvent::Stage { name, elapsed } => current.stages.push((name, elapsed)),
            AskEvent::Token(text) => current.answer.push_str(&text),
            AskEvent::Reset => current.answer.clear(),
            AskEvent::Remembered(remembered) => current.remembered = remembered,
            AskEvent::Sources(sources) => current.sources = sources,
            AskEvent::Done(answer) => {
                current.answer = answer.text;
                current.sources = answer.sources;
                current.remembered = answer.remembered;
                current.timings = Some(answer.cost.timings);
                self.streaming = false;
            }
            AskEvent::Error(message) => {
                // An answer that broke off is not kept half: the error says what
                // happened, and asking again gives the whole answer.
                current.answer.clear();
                current.error = Some(message);
                self.streaming = false;
            }
        }
    }

    /// The stages of the last finished answer, for the profiler overlay.
    pub fn last_stages(&self) -> Option<&[(&'static str, Duration)]> {
        self.exchanges
            .iter()
            .rev()
            .find(|e| e.timings.is_some())
            .map(|e| e.stages.as_slice())
    }

    /// The screen was opened: the cursor goes into the question, ready to type.
    pub fn focus_question(&mut self) {
        self.focus_question = true;
    }

    /// Asks `question` as typing it and pressing Send does.
    pub fn ask(&mut self, question: &str, actions: &mut Vec<Action>) {
        self.question = question.to_owned();
        self.send(actions);
    }

    /// The last answer as shown so far (or why it failed), and whether it is still
    /// streaming.
    pub fn last_answer(&self) -> Option<(Result<&str, &str>, bool)> {
        let exchange = self.exchanges.last()?;
        let shown = match &exchange.error {
            Some(error) => Err(error.as_str()),
            None => Ok(exchange.answer.as_str()),
        };
        Some((shown, self.streaming))
    }

    fn send(&mut self, actions: &mut Vec<Action>) {
        let question = self.question.trim().to_owned();
        if question.is_empty() || self.streaming {
            return;
        }
        // The chat so far, for a follow-up: the answered questions, the latest last.
        let answered = self
            .exchanges
            .iter()
            .filter(|e| e.error.is_none() && !e.answer.is_empty())
            .map(|e| Turn {
                question: e.question.clone(),
                answer: e.answer.clone(),
            });
        let mut earlier: Vec<Turn> = answered.collect();
        earlier.drain(..earlier.len().saturating_sub(TURNS_KEPT));
        actions.push(Action::SendAi(AiRequest::Ask {
            question: question.clone(),
            earlier,
        }));
        self.exchanges.push(Exchange {
            question,
            ..Exchange::default()
        });
        self.scroll_to = Some(self.exchanges.len() - 1);
        self.question.clear();
        self.streaming = true;
    }
}

impl Screen for AskView {
    /// The screen: the history on the left, the question at the bottom, the
    /// conversation in between.
    fn ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if self.history.is_none() {
            actions.push(Action::Send(Request::Chats));
            self.history = Some(Vec::new());
        }
        if self.health_asked.is_none_or(|t| t.elapsed() >= HEALTH_EVERY) {
            actions.push(Action::SendAi(AiRequest::Health));
            self.health_asked = Some(Instant::now());
        }
        ui.ctx().request_repaint_after(HEALTH_EVERY);
        egui::SidePanel::left("ask_history")
            .default_width(220.0)
            .show_inside(ui, |ui| self.history_ui(ui, actions));
        egui::TopBottomPanel::bottom("ask_input").show_inside(ui, |ui| self.input_ui(ui, actions));
        egui::CentralPanel::default().show_inside(ui, |ui| {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .stick_to_bottom(true)
                .show(ui, |ui| self.conversation_ui(ui, actions));
        });
    }
}

impl AskView {
    fn history_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.heading("History");
        let chats = self.history.as_deref().unwrap_or_default();
        if chats.is_empty() {
            ui.label(RichText::new("Questions you ask are kept here.").weak());
        }
        egui::ScrollArea::vertical().show(ui, |ui| {
            for chat in chats {
                let title = if chat.title.is_empty() {
                    "(no question)"
                } else {
                    &chat.title
                };
                let item = ui
                    .selectable_label(false, title)
                    .on_hover_text(display_time(&chat.updated_at));
                if item.clicked() && !self.streaming {
                    actions.push(Action::Send(Request::ChatMessages(chat.id)));
                }
            }
        });
    }

    fn input_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.add_space(6.0);
        match &self.health {
            Some(Ok(status)) => ui.label(RichText::new(status).weak().small()),
            Some(Err(problem)) => {
                ui.label(RichText::new(format!("The local model is not ready: {problem}")).small())
            }
            None => ui.label(RichText::new("Checking the local model…").weak().small()),
        };
        ui.horizontal(|ui| {
            let label = ui.label("Question");
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.question)
                        .id_salt("ask_question")
                        .hint_text("What did I do last weekend?")
                        .desired_width(ui.available_width() - 80.0),
                )
                .labelled_by(label.id);
            if std::mem::take(&mut self.focus_question) {
                field.request_focus();
            }
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            let button = ui.add_enabled(!self.streaming, egui::Button::new("Send"));
            if entered || button.clicked() {
                self.send(actions);
                field.request_focus();
            }
        });
        ui.add_space(6.0);
    }

    fn conversation_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        if self.exchanges.is_empty() {
            ui.label(
                "Ask anything about your journal. Answers come from your own entries, on this computer.",
            );
            return;
        }
        let scroll_to = self.scroll_to.take();
        for (index, exchange) in self.exchanges.iter().enumerate() {
            let question = ui.label(RichText::new(&exchange.question).strong());
            if scroll_to == Some(index) {
                question.scroll_to_me(Some(egui::Align::TOP));
            }
            answer_ui(ui, exchange, actions);
            ui.separator();
        }
    }
}

/// One answer: its text, what the journal remembered of the question's words, the
/// entries it rests on (a click opens one), and where the time went.
fn answer_ui(ui: &mut egui::Ui, exchange: &Exchange, actions: &mut Vec<Action>) {
    if let Some(error) = &exchange.error {
        ui.label(RichText::new(error).color(ui.visuals().warn_fg_color));
    } else if exchange.answer.is_empty() {
        ui.label(RichText::new("Thinking…").weak());
    } else {
        ui.label(&exchange.answer);
    }
    if !exchange.remembered.is_empty() {
        let remembered = format!("Remembered: {}", exchange.remembered.join("; "));
        ui.label(RichText::new(remembered).weak());
    }
    if !exchange.sources.is_empty() {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Sources:").weak());
            for source in &exchange.sources {
                let title = entry_title(&source.title, "");
                let link = ui.link(title).on_hover_text(display_time(&source.created_at));
                if link.clicked() {
                    actions.push(Action::OpenEntry(source.entry_id));
                }
            }
        });
    }
    if !exchange.stages.is_empty() {
        ui.label(
            RichText::new(stage_line(&exchange.stages, exchange.timings.as_ref()))
                .weak()
                .small(),
        );
    }
}

/// "plan 0.1 ms · embed 31 ms · … · first words 0.6 s · total 2.4 s"
pub fn stage_line(stages: &[(&'static str, Duration)], timings: Option<&AskTimings>) -> String {
    let mut parts: Vec<String> = stages
        .iter()
        .map(|(name, elapsed)| format!("{name} {}", millis(*elapsed)))
        .collect();
    if let Some(t) = timings {
        if let Some(first) = t.first_token {
            parts.push(format!("first words {}", millis(first)));
        }
        parts.push(format!("total {}", millis(t.total)));
    }
    parts.join(" · ")
}

fn millis(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_that_breaks_off_leaves_the_error_and_not_half_an_answer() {
        let mut view = AskView::default();
        view.ask("What did I do on Sunday?", &mut Vec::new());
        view.on_event(AskEvent::Token("You walked to the".into()));
        view.on_event(AskEvent::Error("the answer broke off".into()));
        let exchange = view.exchanges.last().unwrap();
        assert_eq!(exchange.answer, "");
        assert_eq!(exchange.error.as_deref(), Some("the answer broke off"));
        assert!(!view.streaming);
    }
}
