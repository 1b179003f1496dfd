//! What an artifact's files may be: names and paths that cannot escape or confuse (no
//! `..`, nothing absolute), the extensions the specification lists, and bytes that are
//! the type their extension says (so an "image" is never a page in disguise).

use svc_protocol::artifact::ArtifactKind;

/// The longest name or path, in bytes.
const PATH_MAX: usize = 255;

const MARKDOWN: &str = "text/markdown; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// The content type of an image extension.
fn image_type(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

fn extension(path: &str) -> String {
    path.rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Refuses paths that are absolute, climb, hide segments or carry control characters.
fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() || path.len() > PATH_MAX {
        return Err(format!("a name is 1 to {PATH_MAX} bytes"));
    }
    if path.chars().any(char::is_control) || path.contains('\\') {
        return Err(format!("{path:?}: no control characters or backslashes"));
    }
    let drive = path.as_bytes().get(1) == Some(&b':');
    if path.starts_with('/') || drive {
        return Err(format!("{path}: a path is relative to the document"));
    }
    if path
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err(format!("{path}: no empty, . or .. segments"));
    }
    Ok(())
}

/// The main file's kind and content type from its name (one file name).
pub fn main_file(name: &str) -> Result<(ArtifactKind, &'static str), String> {
    check_path(name)?;
    if name.contains('/') {
        return Err(format!(
            "{name}: an artifact's name is a file name, without /"
        ));
    }
    match extension(name).as_str() {
        "md" | "markdown" => Ok((ArtifactKind::Document, MARKDOWN)),
        "html" | "htm" => Ok((ArtifactKind::Document, HTML)),
        ext => image_type(ext)
            .map(|t| (ArtifactKind::Image, t))
            .ok_or_else(|| {
                format!(
                    "{name}: an artifact is .md, .markdown, .html, .htm, .png, .jpg, .jpeg, .gif, .webp or .svg"
                )
            }),
    }
}

/// An image's content type from its path in the document.
pub fn image_path(path: &str) -> Result<&'static str, String> {
    check_path(path)?;
    image_type(&extension(path))
        .ok_or_else(|| format!("{path}: an image is .png, .jpg, .jpeg, .gif, .webp or .svg"))
}

/// Whether the bytes are of the content type: an image's signature, an SVG's first
/// element, a document's UTF-8.
pub fn bytes_match(content_type: &str, bytes: &[u8]) -> bool {
    match content_type {
        "image/png" => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a"),
        "image/webp" => bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP",
        "image/svg+xml" => std::str::from_utf8(bytes).is_ok_and(svg_root),
        MARKDOWN | HTML => std::str::from_utf8(bytes).is_ok(),
        _ => false,
    }
}

/// Whether the first element, past a declaration, comments and a doctype, is `<svg`.
fn svg_root(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        let skip = [("<?", "?>"), ("<!--", "-->"), ("<!", ">")]
            .iter()
            .find(|(open, _)| rest.starts_with(open));
        match skip {
            Some((_, close)) => match rest.find(close) {
                Some(at) => rest = rest[at + close.len()..].trim_start(),
                None => return false,
            },
            None => {
                return rest.starts_with("<svg")
                    && rest[4..].starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_extension_has_its_kind() {
        for (name, kind) in [
            ("a.md", ArtifactKind::Document),
            ("a.MARKDOWN", ArtifactKind::Document),
            ("a.html", ArtifactKind::Document),
            ("a.htm", ArtifactKind::Document),
            ("a.png", ArtifactKind::Image),
            ("a.jpg", ArtifactKind::Image),
            ("a.jpeg", ArtifactKind::Image),
            ("a.gif", ArtifactKind::Image),
            ("a.webp", ArtifactKind::Image),
            ("a.svg", ArtifactKind::Image),
        ] {
            assert_eq!(main_file(name).map(|(k, _)| k), Ok(kind), "{name}");
        }
        assert!(main_file("a.sh").is_err());
        assert!(main_file("dir/a.md").is_err());
        assert!(image_path("a.md").is_err());
    }

    #[test]
    fn paths_cannot_escape_or_hide() {
        assert_eq!(image_path("img/a.png"), Ok("image/png"));
        for bad in [
            "../a.png",
            "img/../a.png",
            "/a.png",
            "C:/a.png",
            "img\\a.png",
            "img//a.png",
            "./a.png",
            "a\n.png",
            "",
        ] {
            assert!(image_path(bad).is_err(), "{bad:?}");
        }
        assert!(image_path(&format!("{}.png", "a".repeat(252))).is_err());
    }

    #[test]
    fn bytes_must_be_their_type() {
        let png = b"\x89PNG\r\n\x1a\nrest";
        assert!(bytes_match("image/png", png));
        assert!(!bytes_match("image/png", b"GIF89a"));
        assert!(bytes_match("image/jpeg", &[0xFF, 0xD8, 0xFF, 0xE0]));
        assert!(!bytes_match("image/jpeg", png));
        assert!(bytes_match("image/gif", b"GIF87a..."));
        assert!(!bytes_match("image/gif", b"GIF90a"));
        assert!(bytes_match("image/webp", b"RIFF\0\0\0\0WEBPVP8 "));
        assert!(!bytes_match("image/webp", b"RIFF\0\0\0\0WAVE"));
        let svg = "\u{feff}<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg>\n<svg xmlns=\"x\"/>";
        assert!(bytes_match("image/svg+xml", svg.as_bytes()));
        assert!(!bytes_match("image/svg+xml", b"<html><svg></svg></html>"));
        assert!(!bytes_match("image/svg+xml", b"<svgx>"));
        assert!(bytes_match(MARKDOWN, "# é".as_bytes()));
        assert!(!bytes_match(HTML, b"\xff\xfe"));
    }
}
