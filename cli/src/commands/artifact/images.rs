//! The images a document uses, found in its text: what `svc artifact add` sends beside it.
//! Markdown: inline images (`![alt](path)`, `![alt](<path> "title")`), the reference
//! definitions an image uses (`![alt][id]` with `[id]: path`) and HTML `<img src>`; fenced
//! code blocks and code spans are passed over. HTML: every `<img src>` outside comments.
//! A small scanner, not a full CommonMark parser: it may find an image a renderer would
//! not, which only sends a file that is not needed.

/// Extensions of the images an artifact may hold.
pub const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "svg"];

/// A reference to an image, sorted out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A path relative to the document, `./` stripped and percent-decoded: to upload.
    Local(String),
    /// Not to upload: the reference as written, and why.
    Skipped {
        reference: String,
        why: &'static str,
    },
}

/// The images a Markdown document uses, in order of first use, each once.
pub fn markdown(text: &str) -> Vec<Found> {
    let mut raw = Vec::new();
    let mut used = Vec::new();
    let mut definitions: Vec<(String, String)> = Vec::new();
    let mut prose = String::new();
    let mut fence: Option<(u8, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        let indented = line.len() - trimmed.len() >= 4;
        if let Some((mark, n)) = fence {
            let closes = !indented
                && run(trimmed.as_bytes(), 0, mark) >= n
                && trimmed
                    .trim_start_matches(char::from(mark))
                    .trim()
                    .is_empty();
            if closes {
                fence = None;
            }
            continue;
        }
        if !indented {
            let opens = [b'`', b'~']
                .into_iter()
                .map(|mark| (mark, run(trimmed.as_bytes(), 0, mark)))
                .find(|&(_, n)| n >= 3);
            if opens.is_some() {
                fence = opens;
                continue;
            }
            if let Some(definition) = definition(trimmed) {
                definitions.push(definition);
                continue;
            }
        }
        prose.push_str(line);
        prose.push('\n');
    }
    inline(&prose, &mut raw, &mut used);
    for label in used {
        let label = normalize_label(&label);
        if let Some((_, destination)) = definitions.iter().find(|(l, _)| *l == label) {
            raw.push(destination.clone());
        }
    }
    sort(raw)
}

/// The images an HTML document uses (`<img src>`), in order, each once.
pub fn html(text: &str) -> Vec<Found> {
    let b = text.as_bytes();
    let mut raw = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |end| end + 3);
        } else if let Some((end, src)) = img_tag(text, i) {
            raw.extend(src);
            i = end;
        } else {
            i += 1;
        }
    }
    sort(raw)
}

/// Sorts the references out, in order, dropping repeats and empty ones.
fn sort(raw: Vec<String>) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for reference in raw {
        let Some(f) = classify(&reference) else {
            continue;
        };
        if !found.contains(&f) {
            found.push(f);
        }
    }
    found
}

/// The longest image path the server takes, in bytes.
const PATH_MAX: usize = 255;

/// What one reference is: a local path to upload, something else to skip, or nothing.
/// Read as the server reads an image's address when it inlines it (percent-decoded, one
/// leading `./` dropped), and refused as the server refuses a path, so a path it would
/// refuse is a warning rather than a failed upload.
pub fn classify(reference: &str) -> Option<Found> {
    let reference = reference.trim();
    let skip = |why| {
        Some(Found::Skipped {
            reference: reference.to_owned(),
            why,
        })
    };
    if reference.is_empty() || reference.starts_with('#') {
        return None;
    }
    let lower = reference.to_ascii_lowercase();
    if lower.starts_with("http:") || lower.starts_with("https:") || reference.starts_with("//") {
        return skip("an address on the web, not a file beside the document");
    }
    if lower.starts_with("data:") {
        return skip("data written into the document");
    }
    if has_scheme(reference) {
        return skip("not a path relative to the document");
    }
    let decoded = percent_decode(reference);
    let path = decoded.strip_prefix("./").unwrap_or(&decoded);
    if path.is_empty() {
        return None;
    }
    if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        return skip("an absolute path; only paths relative to the document are uploaded");
    }
    if path.contains('\\') || path.chars().any(char::is_control) {
        return skip("a path with a backslash or a control character");
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments.contains(&"..") {
        return skip("a path out of the document's folder (..)");
    }
    if segments.iter().any(|s| s.is_empty() || *s == ".") {
        return skip("a path with an empty or . segment");
    }
    if path.len() > PATH_MAX {
        return skip("a path over 255 bytes");
    }
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if !IMAGE_EXTENSIONS.contains(&extension.as_str()) {
        return skip("not a .png, .jpg, .jpeg, .gif, .webp or .svg image");
    }
    Some(Found::Local(path.to_owned()))
}

/// `scheme:` at the start, as in `mailto:` or `file:`.
fn has_scheme(reference: &str) -> bool {
    let Some((scheme, _)) = reference.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `%XX` decoded; the text as given when the decoded bytes are not UTF-8.
fn percent_decode(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |at: usize| b.get(at).and_then(|c| char::from(*c).to_digit(16));
        match (b[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// How many `mark` bytes run from `at`.
fn run(b: &[u8], at: usize, mark: u8) -> usize {
    b.get(at..)
        .map_or(0, |rest| rest.iter().take_while(|&&c| c == mark).count())
}

/// Where `needle` next starts at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// A link reference definition line, `[label]: destination "title"`, as (normalized
/// label, destination).
fn definition(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix('[')?;
    let close = closing_bracket(rest.as_bytes(), 0)?;
    let label = &rest[..close];
    let after = rest[close + 1..].strip_prefix(':')?;
    if label.trim().is_empty() || label.starts_with('^') {
        return None;
    }
    let after = after.trim_start();
    let (destination, _) = destination(after, 0)?;
    Some((normalize_label(label), destination))
}

/// Labels match case-insensitively, with runs of white space as one space.
fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Where the `]` closing a bracket opened just before `from` is, nested brackets and
/// backslash escapes counted.
fn closing_bracket(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' if depth == 0 => return Some(i),
            b']' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A link destination starting at `from` (leading white space skipped): `<...>`, or up to
/// white space or an unbalanced `)`, backslash escapes undone; with where it ends.
fn destination(text: &str, from: usize) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let mut i = from;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n') {
        i += 1;
    }
    let mut out = String::new();
    let mut start = i;
    let unescape = |out: &mut String, piece: &str| {
        let mut chars = piece.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some(next)) if next.is_ascii_punctuation() => {
                    out.push(*next);
                    chars.next();
                }
                _ => out.push(c),
            }
        }
    };
    if b.get(i) == Some(&b'<') {
        i += 1;
        start = i;
        while i < b.len() && b[i] != b'>' {
            if b[i] == b'\n' || b[i] == b'<' {
                return None;
            }
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        if i >= b.len() {
            return None;
        }
        unescape(&mut out, &text[start..i]);
        return Some((out, i + 1));
    }
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'(' => depth += 1,
            b')' if depth == 0 => break,
            b')' => depth -= 1,
            c if c.is_ascii_whitespace() || c.is_ascii_control() => break,
            _ => {}
        }
        i += 1;
    }
    let end = i.min(b.len());
    unescape(&mut out, &text[start..end]);
    Some((out, end))
}

/// Inline images, `<img>` tags and the labels reference images use, outside code spans.
fn inline(text: &str, raw: &mut Vec<String>, used: &mut Vec<String>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => {
                let n = run(b, i, b'`');
                let mut j = i + n;
                i = loop {
                    let Some(at) = b.get(j..).and_then(|r| r.iter().position(|&c| c == b'`'))
                    else {
                        // No closing run: the backticks are text.
                        break i + n;
                    };
                    let m = run(b, j + at, b'`');
                    if m == n {
                        break j + at + m;
                    }
                    j += at + m;
                };
            }
            b'!' if b.get(i + 1) == Some(&b'[') => {
                let Some(close) = closing_bracket(b, i + 2) else {
                    i += 2;
                    continue;
                };
                let label = &text[i + 2..close];
                match b.get(close + 1) {
                    Some(b'(') => match destination(text, close + 2) {
                        Some((destination, end)) => {
                            raw.push(destination);
                            i = end;
                        }
                        None => i = close + 2,
                    },
                    Some(b'[') => match closing_bracket(b, close + 2) {
                        Some(end) => {
                            let id = &text[close + 2..end];
                            used.push(if id.trim().is_empty() { label } else { id }.to_owned());
                            i = end + 1;
                        }
                        None => i = close + 2,
                    },
                    _ => {
                        used.push(label.to_owned());
                        // The alt text may hold images of its own.
                        i += 2;
                    }
                }
            }
            b'<' if b[i..].starts_with(b"<!--") => {
                i = find(b, i + 4, b"-->").map_or(b.len(), |end| end + 3);
            }
            b'<' => match img_tag(text, i) {
                Some((end, src)) => {
                    raw.extend(src);
                    i = end;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
}

/// An `<img ...>` tag at `at`: where it ends and its `src`, if any.
fn img_tag(text: &str, at: usize) -> Option<(usize, Option<String>)> {
    let b = text.as_bytes();
    let head = b.get(at..at + 4)?;
    if !head.eq_ignore_ascii_case(b"<img") {
        return None;
    }
    let mut i = at + 4;
    if !b
        .get(i)
        .is_some_and(|c| c.is_ascii_whitespace() || matches!(c, b'/' | b'>'))
    {
        return None;
    }
    let mut src = None;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        if i >= b.len() {
            return Some((i, src));
        }
        if b[i] == b'>' {
            return Some((i + 1, src));
        }
        let name_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = &text[name_start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let value = match b.get(i) {
            Some(&quote @ (b'"' | b'\'')) => {
                let start = i + 1;
                let end = b[start..]
                    .iter()
                    .position(|&c| c == quote)
                    .map_or(b.len(), |p| start + p);
                i = (end + 1).min(b.len());
                &text[start..end]
            }
            _ => {
                let start = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                    i += 1;
                }
                &text[start..i]
            }
        };
        if name.eq_ignore_ascii_case("src") && src.is_none() {
            src = Some(value.replace("&amp;", "&"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(found: &[Found]) -> Vec<&str> {
        found
            .iter()
            .filter_map(|f| match f {
                Found::Local(path) => Some(path.as_str()),
                Found::Skipped { .. } => None,
            })
            .collect()
    }

    fn skipped(found: &[Found]) -> Vec<&str> {
        found
            .iter()
            .filter_map(|f| match f {
                Found::Skipped { reference, .. } => Some(reference.as_str()),
                Found::Local(_) => None,
            })
            .collect()
    }

    #[test]
    fn inline_images_with_and_without_titles() {
        let doc = "# Design\n\n![arch](img/arch.png) and ![flow](img/flow.svg \"The flow\")\n\
                   ![single](a.gif 'single') ![paren](b.jpg (paren))\n\
                   ![spaced](<img/my pic.png> \"t\") ![nested [alt] text](img/n.webp)\n\
                   ![balanced](img/a(1).jpeg) ![escaped](img/a\\_b.png)\n\
                   A [link](not-an-image.png) is no image.\n";
        assert_eq!(
            local(&markdown(doc)),
            [
                "img/arch.png",
                "img/flow.svg",
                "a.gif",
                "b.jpg",
                "img/my pic.png",
                "img/n.webp",
                "img/a(1).jpeg",
                "img/a_b.png",
            ]
        );
    }

    #[test]
    fn reference_images_use_their_definitions() {
        let doc = "![arch][a] ![Flow][] ![shortcut]\n\n\
                   [a]: img/arch.png\n\
                   [flow]: <img/flow chart.png> \"Flow\"\n   \
                   [Shortcut]: ./s.png 'S'\n\
                   [docs]: guide.png\n\
                   A [link][docs] uses a definition no image does.\n";
        assert_eq!(
            local(&markdown(doc)),
            ["img/arch.png", "img/flow chart.png", "s.png"]
        );
    }

    #[test]
    fn html_img_tags_in_markdown_and_html() {
        let md = "Text <img src=\"img/a.png\" alt=\"a\"> and <IMG alt='b' SRC='img/b.png'/>\n\
                  <img src=img/c.png> <imgx src=\"no.png\"> <img alt=\"no src\">\n\
                  <img src=\"q.png?x=1&amp;y=2\">\n";
        assert_eq!(
            local(&markdown(md)),
            ["img/a.png", "img/b.png", "img/c.png"]
        );
        assert_eq!(skipped(&markdown(md)), ["q.png?x=1&y=2"]);
        let page = "<html><body><!-- <img src=\"old.png\"> -->\n\
                    <p><img\n  class=\"wide\"\n  src=\"./img/arch.png\"></p>\n\
                    <img src=\"https://example.com/x.png\"></body></html>";
        assert_eq!(local(&html(page)), ["img/arch.png"]);
        assert_eq!(skipped(&html(page)), ["https://example.com/x.png"]);
    }

    #[test]
    fn remote_absolute_and_escaping_paths_are_skipped() {
        let doc = "![a](http://x.test/a.png) ![b](https://x.test/b.png) ![c](//x.test/c.png)\n\
                   ![d](data:image/png;base64,AAAA) ![e](/abs/e.png) ![f](../f.png)\n\
                   ![g](img/../../g.png) ![h](%2E%2E/h.png) ![i](file:///i.png) ![j](img/j.bmp)\n\
                   ![k](#anchor) ![l]() ![m](././m.png) ![n](img//n.png) ![o](img/./o.png)\n\
                   ![p](img\\\\p.png) ![q](C:/q.png) ![r](%2Fr.png)\n";
        let found = markdown(doc);
        assert_eq!(local(&found), Vec::<&str>::new());
        assert_eq!(
            skipped(&found),
            [
                "http://x.test/a.png",
                "https://x.test/b.png",
                "//x.test/c.png",
                "data:image/png;base64,AAAA",
                "/abs/e.png",
                "../f.png",
                "img/../../g.png",
                "%2E%2E/h.png",
                "file:///i.png",
                "img/j.bmp",
                "././m.png",
                "img//n.png",
                "img/./o.png",
                "img\\p.png",
                "C:/q.png",
                "%2Fr.png",
            ]
        );
    }

    #[test]
    fn dot_slash_and_percent_escapes_are_undone_and_repeats_dropped() {
        let doc = "![a](./img/my%20pic.png) ![b](img/my%20pic.png) ![c](<img/my pic.png>)\n\
                   ![d](./img/%C3%A9t%C3%A9.png) ![e](img/bad%ZZ.png) ![f](img/my%20pic.png)\n\
                   <img src=\"./img/my pic.png\"> ![g](.%2Fimg/my%20pic.png)\n";
        assert_eq!(
            local(&markdown(doc)),
            ["img/my pic.png", "img/été.png", "img/bad%ZZ.png"]
        );
    }

    #[test]
    fn code_is_not_searched() {
        let doc = "`![a](code.png)` and ``![b](code2.png) ` still``\n\n\
                   ```md\n![c](fenced.png)\n```\n\
                   ~~~~\n<img src=\"tilde.png\">\n~~~\n~~~~\n\
                   \\![d](escaped.png) ![real](real.png) `unclosed ![u](u.png)\n";
        assert_eq!(local(&markdown(doc)), ["real.png", "u.png"]);
    }
}
