//! Reading a model's JSON reply.
//!
//! Models asked for JSON sometimes put a raw line break or tab inside a string (a
//! summary written over two lines). Strict JSON forbids that, but the text is not in
//! doubt: the break is part of the value. Rejecting it would cost another model call,
//! seconds each, for a reply we understood, so control characters inside strings are
//! escaped before the reply is parsed. Everything else is as strict as `serde_json`:
//! broken structure, wrong types and missing fields still fail and are retried.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

/// Parses `text` as `T`, accepting raw control characters inside strings.
pub fn parse<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_str(&escape_controls_in_strings(text))
}

/// [`parse`], with an error that says what was wrong and where without quoting the
/// reply (it may repeat journal text, and errors end up in logs).
pub fn parse_described<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    parse(text).map_err(|e| {
        format!(
            "the reply is not the expected JSON ({:?} error at line {}, column {})",
            e.classify(),
            e.line(),
            e.column()
        )
    })
}

/// `text` with every control character that sits inside a JSON string escaped.
fn escape_controls_in_strings(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string && !escaped && c.is_control() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", other as u32)),
            }
            continue;
        }
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Reply {
        title: String,
        summary: String,
    }

    #[test]
    fn line_breaks_inside_strings_are_part_of_the_value() {
        let raw = "{\n  \"title\": \"A \\\"quiet\\\" day\",\n  \"summary\": \"Walked.\nSlept\tearly.\"\n}";
        let reply: Reply = parse(raw).unwrap();
        assert_eq!(reply.title, "A \"quiet\" day");
        assert_eq!(reply.summary, "Walked.\nSlept\tearly.");
    }

    #[test]
    fn broken_structure_still_fails() {
        assert!(parse::<Reply>("{\"title\": \"x\", \"summary\": ").is_err());
        assert!(parse::<Reply>("{\"title\": \"x\"}").is_err());
        assert!(parse::<Reply>("not json").is_err());
    }

    #[test]
    fn clean_replies_are_untouched() {
        assert!(matches!(
            escape_controls_in_strings("{\"a\": 1}"),
            Cow::Borrowed(_)
        ));
        // A backslash before the closing quote's escape does not confuse the scan.
        let reply: Reply = parse("{\"title\": \"c:\\\\\", \"summary\": \"a\nb\"}").unwrap();
        assert_eq!(reply.title, "c:\\");
        assert_eq!(reply.summary, "a\nb");
    }
}
