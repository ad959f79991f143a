//! Pulls one string field out of a JSON object while the object is still streaming.
//!
//! When the answer is requested as `{"response": "..."}`, every token extends an
//! incomplete JSON text such as `{"response": "I went to the sea and` and the person
//! should see the words as they come, not after the closing brace. [`FieldExtractor`]
//! is a character-level state machine: fed any split of the text, it emits each decoded
//! character of the field's value exactly once, as soon as it is certain. Escapes are
//! held back until complete (`\n`, `\"`, `\u00e9`, and surrogate pairs
//! `\ud83d\ude00`), so a token boundary inside an escape never shows a stray backslash.
//! Braces and quotes inside other fields' strings are skipped properly, and only a
//! top-level key counts.

/// Extracts the string value of one top-level field of a streamed JSON object.
#[derive(Debug, Clone)]
pub struct FieldExtractor {
    field: String,
    state: State,
    depth: u32,
    expect_key: bool,
    text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Between tokens, outside any string.
    Scan,
    /// Inside a top-level key.
    Key { key: String, escaped: bool },
    /// After a key, before its colon.
    AfterKey { is_field: bool },
    /// After the field's colon, before its value.
    AwaitValue,
    /// Inside the field's string value.
    Value,
    /// After a backslash in the value.
    Escape,
    /// Collecting the four hex digits of `\uXXXX`; `high` is a pending high surrogate.
    Unicode { hex: String, high: Option<u16> },
    /// After a high surrogate, expecting `\u` and its low half (`seen_backslash` once the
    /// backslash arrived).
    AwaitLow { high: u16, seen_backslash: bool },
    /// Inside some other string, skipped.
    Skip { escaped: bool },
    /// The field's closing quote has been seen.
    Done,
}

impl FieldExtractor {
    pub fn new(field: &str) -> FieldExtractor {
        FieldExtractor {
            field: field.to_owned(),
            state: State::Scan,
            depth: 0,
            expect_key: false,
            text: String::new(),
        }
    }

    /// Feeds the next piece of the JSON text; returns the characters of the field's value
    /// that became certain with it (often empty).
    pub fn push(&mut self, chunk: &str) -> String {
        let mut out = String::new();
        for c in chunk.chars() {
            self.step(c, &mut out);
        }
        self.text.push_str(&out);
        out
    }

    /// The value decoded so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True once the value's closing quote has been read.
    pub fn is_complete(&self) -> bool {
        self.state == State::Done
    }

    fn step(&mut self, c: char, out: &mut String) {
        match std::mem::replace(&mut self.state, State::Scan) {
            State::Scan => self.scan(c),
            State::Key { mut key, escaped } => {
                self.state = match (escaped, c) {
                    (false, '"') => State::AfterKey {
                        is_field: key == self.field,
                    },
                    (false, '\\') => State::Key { key, escaped: true },
                    _ => {
                        key.push(c);
                        State::Key { key, escaped: false }
                    }
                }
            }
            State::AfterKey { is_field } => {
                self.state = match c {
                    ':' if is_field => State::AwaitValue,
                    ':' => State::Scan,
                    _ => State::AfterKey { is_field },
                };
            }
            State::AwaitValue => match c {
                '"' => self.state = State::Value,
                c if c.is_whitespace() => self.state = State::AwaitValue,
                // Not a string: nothing to extract; keep scanning the rest of the object.
                c => self.scan(c),
            },
            State::Value => match c {
                '"' => self.state = State::Done,
                '\\' => self.state = State::Escape,
                c => {
                    out.push(c);
                    self.state = State::Value;
                }
            },
            State::Escape => {
                self.state = State::Value;
                match c {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => {
                        self.state = State::Unicode {
                            hex: String::new(),
                            high: None,
                        }
                    }
                    // `\"`, `\\`, `\/`, and (leniently) anything else stands for itself.
                    c => out.push(c),
                }
            }
            State::Unicode { mut hex, high } => {
                hex.push(c);
                if hex.len() < 4 {
                    self.state = State::Unicode { hex, high };
                    return;
                }
                self.state = State::Value;
                let Ok(unit) = u16::from_str_radix(&hex, 16) else {
                    out.push(char::REPLACEMENT_CHARACTER);
                    return;
                };
                match (high, unit) {
                    (None, 0xD800..=0xDBFF) => {
                        self.state = State::AwaitLow {
                            high: unit,
                            seen_backslash: false,
                        }
                    }
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                        out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                    }
                    (Some(_), unit) => {
                        // A high surrogate followed by something that is not its low half.
                        out.push(char::REPLACEMENT_CHARACTER);
                        out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER));
                    }
                    (None, unit) => {
                        out.push(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER))
                    }
                }
            }
            State::AwaitLow { high, seen_backslash } => match (seen_backslash, c) {
                (false, '\\') => {
                    self.state = State::AwaitLow {
                        high,
                        seen_backslash: true,
                    }
                }
                (true, 'u') => {
                    self.state = State::Unicode {
                        hex: String::new(),
                        high: Some(high),
                    }
                }
                (true, c) => {
                    // A lone high surrogate, then some other escape.
                    out.push(char::REPLACEMENT_CHARACTER);
                    self.state = State::Escape;
                    self.step(c, out);
                }
                (false, c) => {
                    out.push(char::REPLACEMENT_CHARACTER);
                    self.state = State::Value;
                    self.step(c, out);
                }
            },
            State::Skip { escaped } => {
                self.state = match (escaped, c) {
                    (false, '"') => State::Scan,
                    (false, '\\') => State::Skip { escaped: true },
                    _ => State::Skip { escaped: false },
                }
            }
            State::Done => self.state = State::Done,
        }
    }

    fn scan(&mut self, c: char) {
        self.state = State::Scan;
        match c {
            '{' | '[' => {
                self.depth += 1;
                self.expect_key = c == '{' && self.depth == 1;
            }
            '}' | ']' => {
                self.depth = self.depth.saturating_sub(1);
                self.expect_key = false;
            }
            ',' => self.expect_key = self.depth == 1,
            '"' if self.depth == 1 && self.expect_key => {
                self.expect_key = false;
                self.state = State::Key {
                    key: String::new(),
                    escaped: false,
                };
            }
            '"' => self.state = State::Skip { escaped: false },
            c if c.is_whitespace() => {}
            _ => self.expect_key = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replies whose JSON text exercises escapes, unicode (BMP, astral, escaped and
    /// raw), quotes, braces inside other fields, and a field that is not first.
    const REPLIES: &[(&str, &str)] = &[
        (r#"{"response": "Plain words."}"#, "Plain words."),
        (
            r#"{"response":"She said \"hi\" \\ then\nleft\t\u00e9t\u00E9 \ud83d\ude00 caf\u00e9 — ünï 😀 \/"}"#,
            "She said \"hi\" \\ then\nleft\tété 😀 café — ünï 😀 /",
        ),
        (
            r#"{ "note": "a \"response\": \"no\" {[", "nested": {"response": "inner"}, "response" : "outer {\"x\"}" }"#,
            "outer {\"x\"}",
        ),
        (r#"{"response": "lone \ud83d then"}"#, "lone \u{fffd} then"),
        (r#"{"response": ""}"#, ""),
    ];

    fn run(chunks: &[&str]) -> (String, bool) {
        let mut extractor = FieldExtractor::new("response");
        let mut emitted = String::new();
        for chunk in chunks {
            emitted.push_str(&extractor.push(chunk));
        }
        assert_eq!(emitted, extractor.text());
        (emitted, extractor.is_complete())
    }

    fn boundaries(text: &str) -> Vec<usize> {
        text.char_indices().map(|(i, _)| i).chain([text.len()]).collect()
    }

    #[test]
    fn every_two_and_three_piece_split_gives_the_same_text() {
        for (json, expected) in REPLIES {
            // serde_json refuses lone surrogates; every other reply must agree with it.
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(json) {
                assert_eq!(value["response"], *expected, "test data agrees with serde");
            }
            let cuts = boundaries(json);
            for (n, &a) in cuts.iter().enumerate() {
                assert_eq!(
                    run(&[&json[..a], &json[a..]]),
                    (expected.to_string(), true),
                    "split at {a} of {json}"
                );
                for &b in &cuts[n..] {
                    let got = run(&[&json[..a], &json[a..b], &json[b..]]);
                    assert_eq!(got, (expected.to_string(), true), "splits at {a},{b} of {json}");
                }
            }
        }
    }

    #[test]
    fn one_character_at_a_time_emits_each_character_once_and_in_order() {
        for (json, expected) in REPLIES {
            let mut extractor = FieldExtractor::new("response");
            let pieces: Vec<String> = json.chars().map(|c| extractor.push(&c.to_string())).collect();
            assert_eq!(pieces.concat(), *expected);
            assert!(extractor.is_complete());
        }
    }

    #[test]
    fn a_partial_object_shows_what_is_certain_so_far() {
        let mut extractor = FieldExtractor::new("response");
        assert_eq!(extractor.push(r#"{"response": "Hel"#), "Hel");
        assert_eq!(extractor.push(r#"lo \"#), "lo ");
        assert_eq!(extractor.push(r#"u00e"#), "");
        assert_eq!(extractor.push(r#"9"#), "é");
        assert!(!extractor.is_complete());
        assert_eq!(extractor.text(), "Hello é");
    }

    #[test]
    fn no_field_or_a_non_string_field_yields_nothing() {
        assert_eq!(
            run(&[r#"{"answer": "x", "response": 3}"#]),
            (String::new(), false)
        );
        assert_eq!(run(&["not json at all"]), (String::new(), false));
    }
}
