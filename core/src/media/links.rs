//! Markdown images in an entry's text, `![alt](target)`: where each one is and what it
//! names. The page shows the photo a target names there, the Markdown importer brings
//! the files they point to, and the Markdown export points them at the files it writes:
//! one reading of the syntax for all three.
//!
//! The target is taken as CommonMark writes it: `<a b.png>` in angle brackets when it
//! holds spaces or parentheses, and without an optional title (`![](a.png "title")`).

use std::ops::Range;

/// A Markdown image in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageLink<'a> {
    /// Bytes of the whole `![…](…)`.
    pub range: Range<usize>,
    /// What it points to, as written: no angle brackets, no title, not decoded.
    pub target: &'a str,
    /// Bytes of the target in the text, so it can be replaced.
    pub target_range: Range<usize>,
}

/// The images in `text`, in order. An image does not reach past the end of its line.
pub fn image_links(text: &str) -> Vec<ImageLink<'_>> {
    let mut links = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("![") {
        let start = from + found;
        from = start + 2;
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        // The alt text ends at the first `]`, and the target follows it at once.
        let Some(close_alt) = text[from..line_end].find(']') else {
            continue;
        };
        if !text[from + close_alt + 1..line_end].starts_with('(') {
            continue;
        }
        let open = from + close_alt + 2;
        let Some((target_range, end)) = target_at(&text[open..line_end]) else {
            continue;
        };
        let target_range = open + target_range.start..open + target_range.end;
        links.push(ImageLink {
            range: start..open + end,
            target: &text[target_range.clone()],
            target_range,
        });
        from = open + end;
    }
    links
}

/// The target at the start of `rest` (what follows `](`) and the byte just past the
/// image's closing parenthesis, if it is closed on the line.
fn target_at(rest: &str) -> Option<(Range<usize>, usize)> {
    let lead = rest.len() - rest.trim_start().len();
    if let Some(inside) = rest[lead..].strip_prefix('<') {
        let close = inside.find('>')?;
        let start = lead + 1;
        let after = start + close + 1;
        let paren = rest[after..].find(')')?;
        return Some((start..start + close, after + paren + 1));
    }
    let paren = rest.find(')')?;
    let inner = &rest[lead..paren];
    let len = inner.find([' ', '\t']).unwrap_or(inner.len());
    Some((lead..lead + len, paren + 1))
}

/// A Markdown image of the file `name`: in angle brackets when a bare target could not
/// hold it.
pub fn image_markdown(name: &str) -> String {
    if name.contains([' ', '\t', '(', ')']) {
        format!("![](<{name}>)")
    } else {
        format!("![]({name})")
    }
}

/// `file_name` as a name a Markdown image can give: no line breaks and no angle
/// brackets, which would end the link; a name left empty is `photo`.
pub fn photo_name(file_name: &str) -> String {
    let name: String = file_name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let name = name.trim();
    if name.is_empty() {
        "photo".to_string()
    } else {
        name.to_string()
    }
}

/// `name`, or `name 2`, `name 3`… before its extension: the first `taken` does not hold.
pub fn unique_name(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_string();
    }
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => (stem, format!(".{extension}")),
        _ => (name, String::new()),
    };
    (2..)
        .map(|n| format!("{stem} {n}{extension}"))
        .find(|candidate| !taken(candidate))
        .expect("some number is free")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<&str> {
        image_links(text).into_iter().map(|l| l.target).collect()
    }

    #[test]
    fn targets_are_read_as_commonmark_writes_them() {
        assert_eq!(
            targets("![a](img/a%20b.png) and ![](<my (1).png> \"t\") ![u](../up.jpg \"t\")"),
            ["img/a%20b.png", "my (1).png", "../up.jpg"]
        );
        assert_eq!(targets("![not closed](a.png\n![](b.png)"), ["b.png"]);
        assert_eq!(targets("no images ![ ] [x](y) !["), Vec::<&str>::new());
    }

    #[test]
    fn a_links_ranges_cover_it_and_its_target() {
        let text = "Sea: ![the bay](<bay 1.jpg>) done";
        let link = &image_links(text)[0];
        assert_eq!(&text[link.range.clone()], "![the bay](<bay 1.jpg>)");
        assert_eq!(&text[link.target_range.clone()], "bay 1.jpg");
    }

    #[test]
    fn a_name_written_as_an_image_reads_back_as_itself() {
        for name in ["bay.jpg", "bay 1.jpg", "café (2).png", "a)b.png"] {
            let markdown = image_markdown(name);
            assert_eq!(targets(&markdown), [name], "{markdown}");
        }
        assert_eq!(photo_name(" <x>\n.png "), "_x__.png");
        assert_eq!(photo_name(""), "photo");
    }

    #[test]
    fn names_taken_are_numbered_before_the_extension() {
        let taken = ["bay.jpg", "bay 2.jpg", "notes"];
        let is_taken = |n: &str| taken.contains(&n);
        assert_eq!(unique_name("bay.jpg", is_taken), "bay 3.jpg");
        assert_eq!(unique_name("notes", is_taken), "notes 2");
        assert_eq!(unique_name("sea.png", is_taken), "sea.png");
    }
}
