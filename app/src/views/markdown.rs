//! Markdown styled as it is typed: headings, bold, italic, inline code, links, quotes
//! and lists take their look in place while the text stays the Markdown the person
//! typed, so what is stored, exported, imported and searched is unchanged. The marks
//! themselves (`**`, `#`, `>`) stay on screen, dimmed, the way iA Writer shows them: the
//! cursor moves over exactly what is stored.
//!
//! Styling is per line, and each line alone: a mark never reaches past the end of its
//! line, so a change styles only its own line again (egui caches each paragraph's layout
//! separately). This is the part of CommonMark a journal uses, not all of it: no nested
//! emphasis, no reference links, no tables.
//!
//! Writing lists: Enter at the end of an item starts the next one (numbered ones count
//! on), Enter on an empty item ends the list, Tab and Shift+Tab indent and outdent an
//! item. Ctrl+B, Ctrl+I and Ctrl+K put bold, italic and a link around the selection.

use std::ops::Range;

use egui::text::{CCursor, CCursorRange, LayoutJob, TextFormat};
use egui::text_edit::TextEditState;
use egui::{Color32, FontId, Stroke};
use mindsage_core::media::links;

/// The looks the styling uses, from the page's fonts and the theme.
pub struct Looks {
    pub body: FontId,
    pub bold: FontId,
    pub code: FontId,
    /// Heading fonts, level 1 to 3 (deeper levels use the last).
    pub headings: [FontId; 3],
    pub line_height: f32,
    pub text: Color32,
    /// The marks, quotes and finished checklist items.
    pub dim: Color32,
    pub link: Color32,
    pub code_background: Color32,
    /// The entry's photos a Markdown image can place, by name, with the height each is
    /// shown at ([`super::photos`] paints them).
    pub photos: Vec<(String, f32)>,
}

/// What a span of a line looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    Plain,
    Mark,
    Bold,
    Italic,
    Code,
    Link,
    Heading(u8),
    Quote,
    Done,
}

/// `text` as a layout job with each line styled.
pub fn layout_job(text: &str, looks: &Looks) -> LayoutJob {
    let mut job = LayoutJob {
        text: text.to_owned(),
        ..LayoutJob::default()
    };
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let mut sections: Vec<(Range<usize>, TextFormat)> = line_spans(line)
            .into_iter()
            .map(|(range, look)| (range, format_of(look, looks)))
            .collect();
        make_room_for_photos(line, looks, &mut sections);
        for (range, format) in sections {
            job.sections.push(egui::text::LayoutSection {
                leading_space: 0.0,
                byte_range: start + range.start..start + range.end,
                format,
            });
        }
        start += line.len();
    }
    job
}

/// A Markdown image in `line` that names one of the entry's photos is dimmed, and the
/// row holding its closing parenthesis is made as tall as the line and the photo: the
/// text keeps the top of the row, the photo is painted under it. What is stored stays
/// the Markdown text, and the cursor moves over it as over any line.
fn make_room_for_photos(line: &str, looks: &Looks, sections: &mut Vec<(Range<usize>, TextFormat)>) {
    if looks.photos.is_empty() || !line.contains("![") {
        return;
    }
    let mut placed = false;
    for link in links::image_links(line) {
        let Some((_, height)) = looks.photos.iter().find(|(name, _)| name == link.target) else {
            continue;
        };
        let mark = format_of(Look::Mark, looks);
        let last = link.range.end - 1;
        restyle(sections, link.range.start..last, mark.clone());
        let tall = TextFormat {
            line_height: Some(looks.line_height + height + 2.0 * PHOTO_GAP),
            ..mark
        };
        restyle(sections, last..link.range.end, tall);
        placed = true;
    }
    if placed {
        for (_, format) in sections.iter_mut() {
            format.valign = egui::Align::TOP;
        }
    }
}

/// Space above and below a photo in the text, in points.
pub const PHOTO_GAP: f32 = 8.0;

/// `sections` with `range` in `format`: the sections it overlaps are cut around it.
fn restyle(sections: &mut Vec<(Range<usize>, TextFormat)>, range: Range<usize>, format: TextFormat) {
    let mut out = Vec::with_capacity(sections.len() + 2);
    for (r, f) in sections.drain(..) {
        if r.end <= range.start || r.start >= range.end {
            out.push((r, f));
            continue;
        }
        if r.start < range.start {
            out.push((r.start..range.start, f.clone()));
        }
        if r.end > range.end {
            out.push((range.end..r.end, f));
        }
    }
    out.push((range, format));
    out.sort_by_key(|(r, _)| r.start);
    *sections = out;
}

fn format_of(look: Look, looks: &Looks) -> TextFormat {
    let mut format = TextFormat {
        font_id: looks.body.clone(),
        line_height: Some(looks.line_height),
        color: looks.text,
        ..TextFormat::default()
    };
    match look {
        Look::Plain => {}
        Look::Mark => format.color = looks.dim,
        Look::Bold => format.font_id = looks.bold.clone(),
        Look::Italic => format.italics = true,
        Look::Code => {
            format.font_id = looks.code.clone();
            format.background = looks.code_background;
        }
        Look::Link => {
            format.color = looks.link;
            format.underline = Stroke::new(1.0, looks.link);
        }
        Look::Heading(level) => {
            let index = usize::from(level.clamp(1, 3) - 1);
            format.font_id = looks.headings[index].clone();
            format.line_height = Some(looks.headings[index].size * 1.4);
        }
        Look::Quote => {
            format.color = looks.dim;
            format.italics = true;
        }
        Look::Done => {
            format.color = looks.dim;
            format.strikethrough = Stroke::new(1.0, looks.dim);
        }
    }
    format
}

/// A line's spans in order, covering it whole (its newline included).
fn line_spans(line: &str) -> Vec<(Range<usize>, Look)> {
    let content_end = line.trim_end_matches(['\n', '\r']).len();
    let mut spans = Vec::new();
    let (marker, body_look) = block_of(&line[..content_end]);
    if marker > 0 {
        spans.push((0..marker, Look::Mark));
    }
    match body_look {
        Look::Plain => inline_spans(line, marker, content_end, &mut spans),
        look => spans.push((marker..content_end, look)),
    }
    if content_end < line.len() {
        spans.push((content_end..line.len(), Look::Plain));
    }
    spans.retain(|(range, _)| !range.is_empty());
    spans
}

/// How a line starts: the length of its block mark (a heading's `## `, a quote's `> `,
/// a list item's `- [ ] `), and how the rest looks (`Plain`: styled inline).
fn block_of(line: &str) -> (usize, Look) {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        return (hashes + 1, Look::Heading(hashes as u8));
    }
    if let Some(rest) = line.strip_prefix('>') {
        let mark = 1 + usize::from(rest.starts_with(' '));
        return (mark, Look::Quote);
    }
    match list_item(line) {
        Some(item) if item.checked == Some(true) => (item.marker_len, Look::Done),
        Some(item) => (item.marker_len, Look::Plain),
        None => (0, Look::Plain),
    }
}

/// Bold, italic, code and links within `line[from..to]`, as spans covering it.
fn inline_spans(line: &str, from: usize, to: usize, spans: &mut Vec<(Range<usize>, Look)>) {
    let text = &line[..to];
    let mut plain_from = from;
    let mut at = from;
    while at < to {
        let rest = &text[at..];
        let found = delimited(rest, "**", Look::Bold)
            .or_else(|| delimited(rest, "__", Look::Bold))
            .or_else(|| delimited(rest, "`", Look::Code))
            .or_else(|| delimited(rest, "*", Look::Italic))
            .or_else(|| delimited(rest, "_", Look::Italic).filter(|_| at == 0 || !word_char(text, at - 1)))
            .or_else(|| link(rest));
        match found {
            Some(parts) => {
                if plain_from < at {
                    spans.push((plain_from..at, Look::Plain));
                }
                for (range, look) in parts {
                    spans.push((at + range.start..at + range.end, look));
                }
                at += spans.last().map_or(0, |(r, _)| r.end - at);
                plain_from = at;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    if plain_from < to {
        spans.push((plain_from..to, Look::Plain));
    }
}

fn word_char(text: &str, byte: usize) -> bool {
    text[..=byte]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

/// `mark text mark` at the start of `rest`, with text that does not start or end with
/// a space: the marks dimmed, the text in `look`.
fn delimited(rest: &str, mark: &str, look: Look) -> Option<Vec<(Range<usize>, Look)>> {
    let inner = rest.strip_prefix(mark)?;
    if inner.starts_with(' ') || inner.starts_with(mark) {
        return None;
    }
    let close = inner.find(mark)?;
    if close == 0 || inner[..close].ends_with(' ') {
        return None;
    }
    let m = mark.len();
    Some(vec![
        (0..m, Look::Mark),
        (m..m + close, look),
        (m + close..m + close + m, Look::Mark),
    ])
}

/// `[text](target)` at the start of `rest`: the text as a link, the rest dimmed.
fn link(rest: &str) -> Option<Vec<(Range<usize>, Look)>> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.find("](")?;
    let target = &inner[close + 2..];
    let end = target.find(')')?;
    if close == 0 || inner[..close].contains('[') {
        return None;
    }
    let text_end = 1 + close;
    let whole = text_end + 2 + end + 1;
    Some(vec![
        (0..1, Look::Mark),
        (1..text_end, Look::Link),
        (text_end..whole, Look::Mark),
    ])
}

/// A list item's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    /// Spaces before the marker.
    pub indent: usize,
    /// The number of a numbered item.
    pub number: Option<u64>,
    /// `- `, `* `, `+ ` or `1. ` as typed (for numbered: the delimiter, `.` or `)`).
    pub bullet: char,
    /// A checklist item's box: `Some(false)` for `[ ]`, `Some(true)` for `[x]`.
    pub checked: Option<bool>,
    /// Bytes from the line's start to its text.
    pub marker_len: usize,
}

/// The list item `line` starts, if it is one.
pub fn list_item(line: &str) -> Option<ListItem> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let (number, bullet, after) = match rest.chars().next()? {
        c @ ('-' | '*' | '+') => (None, c, 1),
        c if c.is_ascii_digit() => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let delimiter = rest[digits..].chars().next()?;
            if digits > 9 || !matches!(delimiter, '.' | ')') {
                return None;
            }
            (rest[..digits].parse().ok(), delimiter, digits + 1)
        }
        _ => return None,
    };
    if !rest[after..].starts_with(' ') && after != rest.len() {
        return None;
    }
    let mut marker_len = indent + (after + 1).min(rest.len());
    let mut checked = None;
    let body = &line[marker_len..];
    for (boxed, state) in [("[ ] ", false), ("[x] ", true), ("[X] ", true)] {
        if body.starts_with(boxed) || body == boxed.trim_end() {
            checked = Some(state);
            marker_len += boxed.len().min(body.len());
        }
    }
    Some(ListItem {
        indent,
        number,
        bullet,
        checked,
        marker_len,
    })
}

impl ListItem {
    /// The marker of the item after this one: the next number, an unticked box.
    pub fn next_marker(&self) -> String {
        let indent = " ".repeat(self.indent);
        let bullet = match self.number {
            Some(n) => format!("{}{}", n + 1, self.bullet),
            None => self.bullet.to_string(),
        };
        let check = if self.checked.is_some() { "[ ] " } else { "" };
        format!("{indent}{bullet} {check}")
    }
}

/// What Enter did in a list, for [`after_enter`].
#[derive(Debug, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    /// Where the cursor goes, in characters.
    pub cursor: usize,
}

/// The text after Enter was typed at character `cursor` (just after the new line):
/// continues the list the previous line was an item of, or ends it if that item was
/// empty. `None` when the previous line is no list item.
pub fn after_enter(text: &str, cursor: usize) -> Option<Edited> {
    let at = byte_of(text, cursor);
    if !text[..at].ends_with('\n') {
        return None;
    }
    let line_start = text[..at - 1].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..at - 1];
    let item = list_item(line)?;
    if line.len() == item.marker_len || line[item.marker_len..].trim().is_empty() {
        // An empty item: Enter there ends the list. Its marker goes, and the empty line
        // it leaves keeps what follows out of the list (Markdown would carry a line
        // straight after an item on into it).
        let text = format!("{}{}", &text[..line_start], &text[at - 1..]);
        let cursor = text[..=line_start].chars().count();
        return Some(Edited { text, cursor });
    }
    let marker = item.next_marker();
    let text = format!("{}{marker}{}", &text[..at], &text[at..]);
    Some(Edited {
        text,
        cursor: cursor + marker.chars().count(),
    })
}

/// Tab (`outdent` false) or Shift+Tab on the line holding character `cursor`: two spaces
/// more or fewer before its list marker. `None` when that line is no list item.
pub fn indent(text: &str, cursor: usize, outdent: bool) -> Option<Edited> {
    let at = byte_of(text, cursor);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let item = list_item(&text[line_start..line_end])?;
    if outdent {
        let removed = item.indent.min(2);
        let text = format!("{}{}", &text[..line_start], &text[line_start + removed..]);
        let cursor = cursor
            .saturating_sub(removed)
            .max(text[..line_start].chars().count());
        return Some(Edited { text, cursor });
    }
    let text = format!("{}  {}", &text[..line_start], &text[line_start..]);
    Some(Edited {
        text,
        cursor: cursor + 2,
    })
}

/// Whether the line holding character `cursor` is a list item (Tab indents it there).
pub fn in_list(text: &str, cursor: usize) -> bool {
    let at = byte_of(text, cursor);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    list_item(&text[line_start..line_end]).is_some()
}

/// `before` and `after` put around the characters `selection` (Ctrl+B, Ctrl+I, Ctrl+K):
/// the new text, and the selection over the same words inside the marks.
pub fn surround(text: &str, selection: Range<usize>, before: &str, after: &str) -> (String, Range<usize>) {
    let (from, to) = (byte_of(text, selection.start), byte_of(text, selection.end));
    let new = format!(
        "{}{before}{}{after}{}",
        &text[..from],
        &text[from..to],
        &text[to..]
    );
    let shift = before.chars().count();
    (new, selection.start + shift..selection.end + shift)
}

/// The page's own keys while its text (`id`) has the keyboard, read before the text
/// field sees them: Ctrl+B, Ctrl+I and Ctrl+K around the selection, Tab and Shift+Tab on
/// a list item. Returns whether they changed `text`.
pub fn keys_before(ctx: &egui::Context, id: egui::Id, text: &mut String) -> bool {
    use egui::{Key, KeyboardShortcut, Modifiers};
    if !ctx.memory(|m| m.has_focus(id)) {
        return false;
    }
    let Some(range) = TextEditState::load(ctx, id).and_then(|state| state.cursor.char_range()) else {
        return false;
    };
    let (a, b) = (range.primary.index, range.secondary.index);
    let selection = a.min(b)..a.max(b);
    let ctrl = |key| ctx.input_mut(|i| i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, key)));
    let edited = if ctrl(Key::B) {
        Some(surround(text, selection, "**", "**"))
    } else if ctrl(Key::I) {
        Some(surround(text, selection, "*", "*"))
    } else if ctrl(Key::K) {
        // The cursor goes between the parentheses, for the address.
        let (new, words) = surround(text, selection, "[", "]()");
        Some((new, words.end + 2..words.end + 2))
    } else if in_list(text, a) {
        // Shift+Tab first: egui would match Tab on it too.
        let outdent = ctx.input_mut(|i| i.consume_key(Modifiers::SHIFT, Key::Tab));
        let tab = outdent || ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Tab));
        tab.then(|| indent(text, a, outdent))
            .flatten()
            .map(|edited| (edited.text, edited.cursor..edited.cursor))
    } else {
        None
    };
    let Some((new, selection)) = edited else {
        return false;
    };
    *text = new;
    select(ctx, id, selection);
    true
}

/// Enter was typed in the text `id` and the cursor is at character `cursor`: continues
/// or ends the list it was typed in ([`after_enter`]). Returns whether it did.
pub fn after_enter_in(ctx: &egui::Context, id: egui::Id, text: &mut String, cursor: usize) -> bool {
    let Some(edited) = after_enter(text, cursor) else {
        return false;
    };
    *text = edited.text;
    select(ctx, id, edited.cursor..edited.cursor);
    true
}

/// `lines` (each ending in a newline) put in the text where the cursor is, on lines of
/// their own; the cursor at the start of the line after them.
pub fn insert_lines(text: &str, cursor: usize, lines: &str) -> Edited {
    let at = byte_of(text, cursor);
    let before = if at == 0 || text[..at].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let new = format!("{}{before}{lines}{}", &text[..at], &text[at..]);
    Edited {
        cursor: cursor + before.chars().count() + lines.chars().count(),
        text: new,
    }
}

/// `lines` put in the text field `id` where its cursor is (at the end when it has
/// none), on lines of their own ([`insert_lines`]).
pub fn insert_lines_in(ctx: &egui::Context, id: egui::Id, text: &mut String, lines: &str) {
    let cursor = TextEditState::load(ctx, id)
        .and_then(|state| state.cursor.char_range())
        .map_or_else(|| text.chars().count(), |range| range.primary.index);
    let edited = insert_lines(text, cursor, lines);
    *text = edited.text;
    select(ctx, id, edited.cursor..edited.cursor);
}

/// Puts the text field `id`'s selection over the characters `range`.
fn select(ctx: &egui::Context, id: egui::Id, range: Range<usize>) {
    let mut state = TextEditState::load(ctx, id).unwrap_or_default();
    state.cursor.set_char_range(Some(CCursorRange::two(
        CCursor::new(range.start),
        CCursor::new(range.end),
    )));
    state.store(ctx, id);
}

/// The byte where character `index` starts (the end for one past the last).
fn byte_of(text: &str, index: usize) -> usize {
    text.char_indices()
        .nth(index)
        .map_or(text.len(), |(byte, _)| byte)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn looks(line: &str) -> Vec<(&str, Look)> {
        line_spans(line)
            .into_iter()
            .map(|(range, look)| (&line[range], look))
            .collect()
    }

    #[test]
    fn inline_marks_are_dimmed_and_their_words_styled() {
        use Look::*;
        assert_eq!(
            looks("A **bold** and *slanted* `code` day\n"),
            [
                ("A ", Plain),
                ("**", Mark),
                ("bold", Bold),
                ("**", Mark),
                (" and ", Plain),
                ("*", Mark),
                ("slanted", Italic),
                ("*", Mark),
                (" ", Plain),
                ("`", Mark),
                ("code", Code),
                ("`", Mark),
                (" day", Plain),
                ("\n", Plain)
            ]
        );
        assert_eq!(
            looks("see [the map](https://example.org) now"),
            [
                ("see ", Plain),
                ("[", Mark),
                ("the map", Link),
                ("](https://example.org)", Mark),
                (" now", Plain)
            ]
        );
        // Not emphasis: a lone star, stars around spaces, snake_case words.
        assert_eq!(looks("5 * 3 = 15"), [("5 * 3 = 15", Plain)]);
        assert_eq!(looks("a ** b **"), [("a ** b **", Plain)]);
        assert_eq!(looks("my_file_name"), [("my_file_name", Plain)]);
        // An unclosed mark while typing leaves the line plain.
        assert_eq!(looks("**almost"), [("**almost", Plain)]);
    }

    #[test]
    fn block_marks_style_the_whole_line() {
        use Look::*;
        assert_eq!(
            looks("## Morning\n"),
            [("## ", Mark), ("Morning", Heading(2)), ("\n", Plain)]
        );
        assert_eq!(looks("#hashtag"), [("#hashtag", Plain)]);
        assert_eq!(looks("> said she"), [("> ", Mark), ("said she", Quote)]);
        assert_eq!(looks("- [x] milk"), [("- [x] ", Mark), ("milk", Done)]);
        assert_eq!(
            looks("  1. **eggs**"),
            [("  1. ", Mark), ("**", Mark), ("eggs", Bold), ("**", Mark)]
        );
        // Multibyte text is cut on character boundaries.
        assert_eq!(
            looks("日記 *とても* 良い"),
            [
                ("日記 ", Plain),
                ("*", Mark),
                ("とても", Italic),
                ("*", Mark),
                (" 良い", Plain)
            ]
        );
    }

    #[test]
    fn the_styled_job_covers_every_byte_once() {
        let text = "# Day\n\nWalked **far**.\n- [ ] call mum\n> quote\n日本語 and `x`";
        let looks = Looks {
            body: FontId::proportional(16.0),
            bold: FontId::proportional(16.0),
            code: FontId::monospace(14.0),
            headings: [
                FontId::proportional(24.0),
                FontId::proportional(20.0),
                FontId::proportional(18.0),
            ],
            line_height: 24.0,
            text: Color32::WHITE,
            dim: Color32::GRAY,
            link: Color32::BLUE,
            code_background: Color32::BLACK,
            photos: Vec::new(),
        };
        let job = layout_job(text, &looks);
        let mut next = 0;
        for section in &job.sections {
            assert_eq!(section.byte_range.start, next);
            next = section.byte_range.end;
        }
        assert_eq!(next, text.len());
        // With a photo placed, still every byte once, and the room only under its link.
        let text = "Sea **blue** ![the bay](<bay 1.jpg>) and ![](other.png)\nnext";
        let looks = Looks {
            photos: vec![("bay 1.jpg".into(), 200.0)],
            ..looks
        };
        let job = layout_job(text, &looks);
        let mut next = 0;
        let mut tall = Vec::new();
        for section in &job.sections {
            assert_eq!(section.byte_range.start, next);
            next = section.byte_range.end;
            if section.format.line_height == Some(24.0 + 200.0 + 2.0 * PHOTO_GAP) {
                tall.push(&text[section.byte_range.clone()]);
            }
        }
        assert_eq!(next, text.len());
        assert_eq!(tall, [")"]);
        let bay = text.find("![the bay]").unwrap();
        let at_bay = job.sections.iter().find(|s| s.byte_range.start == bay).unwrap();
        assert_eq!(at_bay.format.color, Color32::GRAY, "the link is dimmed");
        assert_eq!(at_bay.byte_range.end, text.find(')').unwrap());
    }

    #[test]
    fn lines_go_in_where_the_cursor_is_on_lines_of_their_own() {
        let photo = "![](bay.jpg)\n";
        let mid = insert_lines("Sea and sky", 3, photo);
        assert_eq!(mid.text, "Sea\n![](bay.jpg)\n and sky");
        assert_eq!(mid.cursor, "Sea\n![](bay.jpg)\n".chars().count());
        let start = insert_lines("Été\nnext", 4, photo);
        assert_eq!(start.text, "Été\n![](bay.jpg)\nnext");
        assert_eq!(insert_lines("", 0, photo).text, photo);
    }

    #[test]
    fn enter_continues_a_list_and_ends_it_on_an_empty_item() {
        // Typed "- milk", Enter: the cursor is after the new line.
        let typed = "Shopping\n- milk\n";
        let continued = after_enter(typed, typed.chars().count()).unwrap();
        assert_eq!(continued.text, "Shopping\n- milk\n- ");
        assert_eq!(continued.cursor, continued.text.chars().count());
        // Enter again on the empty item: the list ends.
        let typed = format!("{}\n", continued.text);
        let ended = after_enter(&typed, typed.chars().count()).unwrap();
        assert_eq!(ended.text, "Shopping\n- milk\n\n");
        assert_eq!(ended.cursor, ended.text.chars().count());
        // Numbers count on; boxes come unticked; indentation stays.
        assert_eq!(after_enter("  9. nine\n", 10).unwrap().text, "  9. nine\n  10. ");
        assert_eq!(
            after_enter("- [x] done\n", 11).unwrap().text,
            "- [x] done\n- [ ] "
        );
        // In the middle of the text, the marker goes where the cursor is.
        assert_eq!(after_enter("- a\nafter", 4).unwrap().text, "- a\n- after");
        // Not after a list item: nothing to do.
        assert_eq!(after_enter("Dear diary\n", 11), None);
    }

    #[test]
    fn tab_indents_a_list_item_and_shift_tab_outdents_it() {
        let text = "- a\n- b";
        let indented = indent(text, 6, false).unwrap();
        assert_eq!(
            indented,
            Edited {
                text: "- a\n  - b".to_owned(),
                cursor: 8
            }
        );
        let back = indent(&indented.text, 8, true).unwrap();
        assert_eq!(
            back,
            Edited {
                text: text.to_owned(),
                cursor: 6
            }
        );
        assert_eq!(indent("plain", 2, false), None);
        assert!(in_list(text, 5) && !in_list("plain\n- x", 2));
    }

    #[test]
    fn marks_go_around_the_selection() {
        assert_eq!(
            surround("a big day", 2..5, "**", "**"),
            ("a **big** day".to_owned(), 4..7)
        );
        assert_eq!(
            surround("see 日記", 4..6, "[", "]()"),
            ("see [日記]()".to_owned(), 5..7)
        );
    }
}
