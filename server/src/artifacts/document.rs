//! getArtifactDocument's page: Markdown rendered as CommonMark with GFM tables (raw HTML
//! in it is not passed through), HTML as uploaded; then every `<img src>` naming one of
//! the version's own files becomes a `data:` address, so the page shows whole under a
//! sandbox that fetches nothing. An image the version lacks stays as written.

use base64::Engine;
use lol_html::{RewriteStrSettings, element, rewrite_str};

/// The page of a document named `name` with its `files` (path, content type, bytes).
pub fn render(name: &str, document: &[u8], files: &[(&str, &str, &[u8])]) -> String {
    let text = String::from_utf8_lossy(document);
    let lower = name.to_ascii_lowercase();
    let page = if lower.ends_with(".md") || lower.ends_with(".markdown") {
        markdown_page(name, &text)
    } else {
        text.into_owned()
    };
    inline_images(&page, files).unwrap_or(page)
}

fn markdown_page(name: &str, text: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    let body = comrak::markdown_to_html(text, &options);
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body>\n{body}</body></html>\n",
        escape(name)
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The file an image address names: percent-decoded, without a leading `./`.
fn named<'a>(
    src: &str,
    files: &'a [(&str, &str, &[u8])],
) -> Option<&'a (&'a str, &'a str, &'a [u8])> {
    let decoded = percent_encoding::percent_decode_str(src)
        .decode_utf8()
        .ok()?;
    let path = decoded.strip_prefix("./").unwrap_or(&decoded);
    files.iter().find(|(p, _, _)| *p == path)
}

fn inline_images(page: &str, files: &[(&str, &str, &[u8])]) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    let settings =
        RewriteStrSettings::new().append_element_content_handler(element!("img[src]", |el| {
            let src = el.get_attribute("src").unwrap_or_default();
            if let Some((_, content_type, bytes)) = named(&src, files) {
                let data = base64::engine::general_purpose::STANDARD.encode(bytes);
                el.set_attribute("src", &format!("data:{content_type};base64,{data}"))?;
            }
            Ok(())
        }));
    rewrite_str(page, settings).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

    fn data(bytes: &[u8]) -> String {
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    }

    #[test]
    fn markdown_renders_tables_and_keeps_raw_html_out() {
        let page = render(
            "d.md",
            b"| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>x()</script>\n",
            &[],
        );
        assert!(page.contains("<table>"), "{page}");
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("<title>d.md</title>"));
    }

    #[test]
    fn only_the_versions_own_images_become_data_addresses() {
        let files = [
            ("img/a.png", "image/png", PNG),
            ("img/a b.png", "image/png", PNG),
        ];
        let md = b"![a](img/a.png) ![b](./img/a%20b.png) ![c](img/gone.png) ![d](https://x.example/a.png)";
        let page = render("d.md", md, &files);
        assert_eq!(page.matches(&data(PNG)).count(), 2, "{page}");
        assert!(page.contains("src=\"img/gone.png\""), "{page}");
        assert!(page.contains("src=\"https://x.example/a.png\""), "{page}");
    }

    #[test]
    fn html_is_kept_but_its_images() {
        let html =
            b"<html><body><p class=\"x\">Hi</p><img src=\"img/a.png\" alt=\"a\"></body></html>";
        let page = render("d.html", html, &[("img/a.png", "image/png", PNG)]);
        assert!(page.contains("<p class=\"x\">Hi</p>"), "{page}");
        assert!(page.contains(&data(PNG)), "{page}");
        assert!(page.contains("alt=\"a\""), "{page}");
    }
}
