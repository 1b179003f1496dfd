//! What an artifact's files may be called and what they may hold: names and paths that
//! cannot escape the artifact's folder or mean two things (no `..`, nothing absolute, no
//! backslashes, no empty segments), the extensions the specification lists, and bytes
//! that are the type their extension says, so an "image" is never a page in disguise.
//!
//! Every refusal is a sentence in plain words for a 400 `bad_request`.

use svc_protocol::artifact::ArtifactKind;

/// The longest name or path, in bytes: what common file systems allow for one name, and
/// plenty for a path a document writes.
const NAME_MAX: usize = 255;

const MARKDOWN: &str = "text/markdown; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// The whitespace XML allows between markup (not Unicode's wider set).
const XML_SPACE: [char; 4] = [' ', '\t', '\r', '\n'];

/// The kind and content type of an artifact named `name` (its main file, the multipart
/// field `file`): one file name, without `/`, ending in `.md`, `.markdown`, `.html` or
/// `.htm` (a document) or `.png`, `.jpg`, `.jpeg`, `.gif`, `.webp` or `.svg` (an image),
/// in any case. The error says why the name is refused.
pub fn main_file(name: &str) -> Result<(ArtifactKind, &'static str), String> {
    check_path(name)?;
    if name.contains('/') {
        return Err(format!(
            "{name}: an artifact's name is one file name, without /"
        ));
    }
    let ext = extension(name);
    if let Some(content_type) = document_type(&ext) {
        return Ok((ArtifactKind::Document, content_type));
    }
    if let Some(content_type) = image_type(&ext) {
        return Ok((ArtifactKind::Image, content_type));
    }
    Err(format!(
        "{name}: an artifact is a .md, .markdown, .html, .htm, .png, .jpg, .jpeg, .gif, .webp or .svg file"
    ))
}

/// The content type of an image a document comes with (the multipart field `image`),
/// whose file name is its path as the document references it, like `img/arch.png`: a
/// relative path by the same rules as a name, ending in an image extension. The error
/// says why the path is refused.
pub fn image_path(path: &str) -> Result<&'static str, String> {
    check_path(path)?;
    image_type(&extension(path))
        .ok_or_else(|| format!("{path}: an image is a .png, .jpg, .jpeg, .gif, .webp or .svg file"))
}

/// Whether `bytes` are of `content_type` (one this module gives): an image's signature
/// (PNG, JPEG, GIF87a/GIF89a, WebP's `RIFF…WEBP`), for SVG UTF-8 text whose first element
/// is `<svg`, for a document UTF-8 text. So the type a file is served as is the one it
/// is. An unknown content type matches nothing.
pub fn bytes_match(content_type: &str, bytes: &[u8]) -> bool {
    match content_type {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        "image/webp" => bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"),
        "image/svg+xml" => std::str::from_utf8(bytes).is_ok_and(svg_first),
        MARKDOWN | HTML => std::str::from_utf8(bytes).is_ok(),
        _ => false,
    }
}

fn document_type(ext: &str) -> Option<&'static str> {
    match ext {
        "md" | "markdown" => Some(MARKDOWN),
        "html" | "htm" => Some(HTML),
        _ => None,
    }
}

fn image_type(ext: &str) -> Option<&'static str> {
    match ext {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "svg" => Some("image/svg+xml"),
        _ => None,
    }
}

/// The last segment's extension in lower case, or `""` without one.
fn extension(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Refuses what could leave the artifact's folder, name one file two ways or confuse a
/// terminal or a file system: control characters, backslashes, a leading `/` or drive
/// letter, `..`, `.` and empty segments, more than [`NAME_MAX`] bytes.
fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("a file name cannot be empty".to_owned());
    }
    if path.len() > NAME_MAX {
        return Err(format!(
            "a file name or path is at most {NAME_MAX} bytes, not {}",
            path.len()
        ));
    }
    // Quoted with escapes, so the refusal itself shows where the character is.
    if path.chars().any(char::is_control) {
        return Err(format!(
            "{path:?}: a file name cannot hold control characters"
        ));
    }
    if path.contains('\\') {
        return Err(format!("{path}: separate folders with /, not a backslash"));
    }
    if path.starts_with('/') {
        return Err(format!(
            "{path}: a path is relative to the document, it cannot start with /"
        ));
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(format!("{path}: a path cannot start with a drive letter"));
    }
    for segment in path.split('/') {
        match segment {
            ".." => return Err(format!("{path}: a path cannot go up with ..")),
            "." => return Err(format!("{path}: write the path without ./ segments")),
            "" => return Err(format!("{path}: a path cannot have an empty segment")),
            _ => {}
        }
    }
    Ok(())
}

/// Whether the first element of the text, past a byte order mark, an XML declaration,
/// processing instructions, comments, a doctype and whitespace, is `<svg`.
fn svg_first(text: &str) -> bool {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    loop {
        rest = rest.trim_start_matches(XML_SPACE);
        let after = if let Some(instruction) = rest.strip_prefix("<?") {
            instruction.split_once("?>").map(|(_, after)| after)
        } else if let Some(comment) = rest.strip_prefix("<!--") {
            comment.split_once("-->").map(|(_, after)| after)
        } else if rest.starts_with("<!") {
            after_doctype(rest)
        } else {
            break;
        };
        match after {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.strip_prefix("<svg")
        .is_some_and(|tail| tail.starts_with(|c| XML_SPACE.contains(&c) || c == '>' || c == '/'))
}

/// The text after a `<!DOCTYPE …>` at its start, stepping over an internal subset in
/// `[…]` and quoted strings, where a `>` does not end it.
fn after_doctype(text: &str) -> Option<&str> {
    let mut quote = None;
    let mut subset = false;
    for (at, c) in text.char_indices().skip(2) {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => subset = true,
            (None, ']') => subset = false,
            (None, '>') if !subset => return Some(&text[at + 1..]),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_has_its_kind_and_type() {
        for (name, kind, content_type) in [
            ("a.md", ArtifactKind::Document, MARKDOWN),
            ("a.markdown", ArtifactKind::Document, MARKDOWN),
            ("a.html", ArtifactKind::Document, HTML),
            ("a.htm", ArtifactKind::Document, HTML),
            ("a.png", ArtifactKind::Image, "image/png"),
            ("a.jpg", ArtifactKind::Image, "image/jpeg"),
            ("a.jpeg", ArtifactKind::Image, "image/jpeg"),
            ("a.gif", ArtifactKind::Image, "image/gif"),
            ("a.webp", ArtifactKind::Image, "image/webp"),
            ("a.svg", ArtifactKind::Image, "image/svg+xml"),
            ("Design Notes.MD", ArtifactKind::Document, MARKDOWN),
            ("a.b.Markdown", ArtifactKind::Document, MARKDOWN),
            ("PHOTO.JPEG", ArtifactKind::Image, "image/jpeg"),
            ("schéma.Svg", ArtifactKind::Image, "image/svg+xml"),
        ] {
            assert_eq!(main_file(name), Ok((kind, content_type)), "{name}");
        }
        for image in ["png", "jpg", "jpeg", "gif", "webp", "svg", "PNG"] {
            let path = format!("img/a.{image}");
            assert!(image_path(&path).is_ok(), "{path}");
        }
        assert_eq!(image_path("img/arch.png"), Ok("image/png"));
        assert_eq!(image_path("a/b/c.JPG"), Ok("image/jpeg"));
    }

    #[test]
    fn other_extensions_are_refused() {
        for name in [
            "a.sh", "a.txt", "a", "md", "a.md.exe", "a.", "a.pdf", "a.html~",
        ] {
            assert!(main_file(name).is_err(), "{name}");
        }
        for path in ["img/a.md", "img/a.html", "img/a", "img.png/a", "img/a.bmp"] {
            assert!(image_path(path).is_err(), "{path}");
        }
    }

    #[test]
    fn a_name_is_one_file_name() {
        assert!(main_file("docs/a.md").is_err());
        assert!(main_file("a.md/").is_err());
        assert!(image_path("docs/img/a.png").is_ok());
    }

    #[test]
    fn paths_cannot_climb_or_be_absolute() {
        for bad in [
            "../a.png",
            "img/../a.png",
            "img/..",
            "..",
            "/a.png",
            "/img/a.png",
            "\\a.png",
            "\\\\host\\share\\a.png",
            "C:a.png",
            "C:/a.png",
            "c:\\a.png",
            "z:a.png",
        ] {
            assert!(image_path(bad).is_err(), "{bad:?}");
        }
        for bad in ["/a.md", "\\a.md", "C:a.md"] {
            assert!(main_file(bad).is_err(), "{bad:?}");
        }
        // `..md` and `a..b` hold two dots but are no `..` segment.
        assert_eq!(
            main_file("..md").map(|(k, _)| k),
            Ok(ArtifactKind::Document)
        );
        assert!(image_path("a..b.png").is_ok());
        assert!(
            image_path("img:x/a.png").is_ok(),
            "a colon past the drive position"
        );
    }

    #[test]
    fn no_backslashes_or_empty_or_dot_segments() {
        for bad in [
            "img\\a.png",
            "img//a.png",
            "img/./a.png",
            "./img/a.png",
            "img/",
            "",
        ] {
            assert!(image_path(bad).is_err(), "{bad:?}");
        }
        assert!(main_file("a\\b.md").is_err());
        assert!(main_file("").is_err());
    }

    #[test]
    fn no_control_characters() {
        for bad in [
            "a\n.png",
            "a\r.png",
            "a\t.png",
            "a\0.png",
            "a\u{7f}.png",
            "a\u{85}.png",
            "a\u{1b}[31m.png",
        ] {
            let why = image_path(bad).expect_err(bad);
            assert!(!why.chars().any(char::is_control), "{why:?}");
            assert!(main_file(bad).is_err(), "{bad:?}");
        }
        assert!(image_path("a b é.png").is_ok());
    }

    #[test]
    fn at_most_255_bytes() {
        let longest = format!("{}.png", "a".repeat(251));
        assert_eq!(longest.len(), 255);
        assert!(main_file(&longest).is_ok());
        assert!(image_path(&format!("img/{}", &longest[4..])).is_ok());
        let too_long = format!("{}.png", "a".repeat(252));
        assert!(main_file(&too_long).is_err());
        assert!(image_path(&too_long).is_err());
        // Bytes, not characters: 127 two-byte characters and `.md` are 257 bytes.
        let wide = format!("{}.md", "é".repeat(127));
        assert_eq!(wide.len(), 257);
        assert!(main_file(&wide).is_err());
    }

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const JPEG: &[u8] = &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F'];
    const WEBP: &[u8] = b"RIFF\x24\0\0\0WEBPVP8 ";

    #[test]
    fn png_by_its_signature() {
        assert!(bytes_match("image/png", PNG));
        assert!(!bytes_match("image/png", &PNG[..7]));
        assert!(!bytes_match("image/png", b"\x89PNG\n\n\x1a\n"));
        assert!(!bytes_match("image/png", JPEG));
        assert!(!bytes_match("image/png", b""));
    }

    #[test]
    fn jpeg_by_its_signature() {
        assert!(bytes_match("image/jpeg", JPEG));
        assert!(bytes_match("image/jpeg", &[0xFF, 0xD8, 0xFF, 0xE1]));
        assert!(!bytes_match("image/jpeg", &[0xFF, 0xD8]));
        assert!(!bytes_match("image/jpeg", PNG));
    }

    #[test]
    fn gif_by_its_signature() {
        assert!(bytes_match("image/gif", b"GIF87a\x01\0"));
        assert!(bytes_match("image/gif", b"GIF89a\x01\0"));
        assert!(!bytes_match("image/gif", b"GIF90a"));
        assert!(!bytes_match("image/gif", b"GIF8"));
        assert!(!bytes_match("image/gif", PNG));
    }

    #[test]
    fn webp_by_its_riff_header() {
        assert!(bytes_match("image/webp", WEBP));
        assert!(bytes_match("image/webp", b"RIFF\0\0\0\0WEBP"));
        assert!(!bytes_match("image/webp", b"RIFF\0\0\0\0WAVEfmt "));
        assert!(!bytes_match("image/webp", b"RIFF\0\0\0\0WEB"));
        assert!(!bytes_match("image/webp", b"RIFX\0\0\0\0WEBP"));
        assert!(!bytes_match("image/webp", PNG));
    }

    #[test]
    fn svg_by_its_first_element() {
        for svg in [
            "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
            "<svg>",
            "<svg/>",
            "\u{feff}<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x.dtd\">\n<svg\n viewBox=\"0 0 1 1\"></svg>",
            "<?xml version=\"1.0\"?><?xml-stylesheet href=\"a.css\"?><svg></svg>",
            "<!DOCTYPE svg [ <!ENTITY gt \">\"> ]>\n<svg></svg>",
            "<!-- a > b -- c --><svg></svg>",
            "  \r\n\t<svg width=\"1\"></svg>",
        ] {
            assert!(bytes_match("image/svg+xml", svg.as_bytes()), "{svg}");
        }
        for not_svg in [
            "<html><svg></svg></html>",
            "<svgx></svgx>",
            "<svg",
            "<SVG></SVG>",
            "<!-- unclosed <svg></svg>",
            "<?xml version=\"1.0\"?>",
            "text <svg></svg>",
            "",
        ] {
            assert!(
                !bytes_match("image/svg+xml", not_svg.as_bytes()),
                "{not_svg}"
            );
        }
        assert!(!bytes_match("image/svg+xml", b"<svg>\xff</svg>"));
        assert!(!bytes_match("image/svg+xml", PNG));
    }

    #[test]
    fn documents_are_utf8() {
        assert!(bytes_match(MARKDOWN, "# Café ☕\n".as_bytes()));
        assert!(bytes_match(HTML, "<p>é</p>".as_bytes()));
        assert!(bytes_match(MARKDOWN, b""));
        assert!(!bytes_match(MARKDOWN, b"# caf\xe9"));
        assert!(!bytes_match(HTML, b"\xff\xfe<\0p\0>\0"));
        assert!(!bytes_match(HTML, PNG));
    }

    #[test]
    fn every_given_type_is_checked_and_no_other() {
        for name in [
            "a.md", "a.html", "a.png", "a.jpg", "a.gif", "a.webp", "a.svg",
        ] {
            let (_, content_type) = main_file(name).expect(name);
            assert!(!bytes_match(content_type, b"\xff\xff\xff"), "{name}");
        }
        assert!(!bytes_match("text/plain", b"hello"));
        assert!(!bytes_match("image/bmp", b"BM"));
    }
}
