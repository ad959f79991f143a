//! The text that stands for an entry when it is embedded: what search by meaning
//! compares a question with. The app embeds [`DocumentText::WholeEntry`]; the labelled
//! sets' evaluation ([`super::quality`]) scores the other way too, so the choice is
//! measured, not assumed.

/// What text of an entry is embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentText {
    /// Title, tags and the whole body (the model truncates what it cannot take).
    WholeEntry,
    /// Title and tags with the body's first sentences only.
    TitleAndOpening,
}

/// The text embedded for an entry, made `how`.
pub fn document_text(title: &str, tags: &[String], body: &str, how: DocumentText) -> String {
    let body = match how {
        DocumentText::WholeEntry => body.to_owned(),
        DocumentText::TitleAndOpening => body.split_inclusive(['.', '!', '?']).take(2).collect::<String>(),
    };
    let tags = if tags.is_empty() {
        String::new()
    } else {
        format!("\n{}", tags.join(", "))
    };
    format!("{title}{tags}\n{}", body.trim())
}
