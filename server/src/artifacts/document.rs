//! getArtifactDocument's page. A Markdown document is rendered to HTML (CommonMark with
//! GFM tables, strikethrough, autolinks and task lists, by comrak; raw HTML in it is not
//! passed through, so Markdown cannot inject markup or scripts); an HTML document is
//! served as uploaded. Then every image address naming one of the version's own files
//! becomes a `data:` address, so the page shows whole under a policy that fetches
//! nothing; any other address (another site, an image the version lacks) stays as
//! written.
//!
//! The HTML is rewritten by lol_html, a streaming rewriter that parses like a browser and
//! copies every byte it is not asked to change, rather than by patterns over the text.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use lol_html::html_content::Element;
use lol_html::{RewriteStrSettings, element, rewrite_str};

/// One file of the version: its path as the document references it, its content type,
/// its bytes.
type File<'a> = (&'a str, &'a str, &'a [u8]);

/// The page of the document named `name` (the artifact's name, whose extension says
/// Markdown or HTML) with the bytes `document`, its images inlined from `files`
/// (path, content type, bytes).
///
/// An `<img src>`, or a candidate of an `<img srcset>` or `<source srcset>`, names a file
/// when its address, with character references and percent-encoding decoded, surrounding
/// whitespace and one leading `./` removed, is exactly the file's path. Should the
/// rewriter fail on some markup, the page comes back without its images inlined rather
/// than not at all.
pub fn render(name: &str, document: &[u8], files: &[(&str, &str, &[u8])]) -> String {
    // Uploads are checked to be UTF-8; lossy only so that this cannot fail.
    let text = String::from_utf8_lossy(document);
    let page = if is_markdown(name) {
        markdown_page(name, &text)
    } else {
        text.into_owned()
    };
    if files.is_empty() {
        return page;
    }
    inline_images(&page, files).unwrap_or(page)
}

fn is_markdown(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with(".md") || name.ends_with(".markdown")
}

/// A complete small page: the name as its title, the rendered Markdown as its body.
fn markdown_page(name: &str, markdown: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    // `options.render.r#unsafe` stays false: raw HTML becomes `<!-- raw HTML omitted -->`
    // and `javascript:`-like link addresses are dropped.
    let body = comrak::markdown_to_html(markdown, &options);
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{TYPOGRAPHY}</style></head>\n<body>\n{body}</body></html>\n",
        escape(name)
    )
}

/// The service's typography for a rendered Markdown document (its own page, framed or
/// not, so it carries its style inline, which the document's policy allows): a readable
/// measure, headings, tables with rules that scroll sideways rather than the page, code
/// on a tinted ground, quotes set off, light and dark. `--mark` is the colour the artifact
/// page's script highlights quoted passages in.
const TYPOGRAPHY: &str = "\
:root{color-scheme:light dark;--fg:#1d1f23;--muted:#5d6470;--line:#d9dde3;--soft:#f5f6f8;--link:#0b5cad;--mark:#fff1a8}\
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#9aa3ad;--line:#353b44;--soft:#1d2127;--link:#6cb6ff;--mark:#5c4b00}}\
html{font:16px/1.6 system-ui,-apple-system,\"Segoe UI\",sans-serif;color:var(--fg)}\
body{max-width:46rem;margin:0 auto;padding:1rem 1.25rem 3rem;overflow-wrap:anywhere}\
h1,h2,h3,h4{line-height:1.25;margin:1.6em 0 .5em}h1{font-size:1.8rem}\
h2{font-size:1.4rem;padding-bottom:.2em;border-bottom:1px solid var(--line)}h3{font-size:1.15rem}\
a{color:var(--link)}img{max-width:100%}hr{border:0;border-top:1px solid var(--line)}\
code,pre{font-family:ui-monospace,\"SF Mono\",Menlo,Consolas,monospace;font-size:.9em}\
code{background:var(--soft);padding:.1em .3em;border-radius:4px}\
pre{background:var(--soft);padding:.75rem 1rem;border-radius:6px;overflow-x:auto;line-height:1.45}\
pre code{background:none;padding:0}\
blockquote{margin:1em 0;padding:0 1em;color:var(--muted);border-left:4px solid var(--line)}\
table{display:block;max-width:100%;overflow-x:auto;border-collapse:collapse;margin:1em 0}\
th,td{border:1px solid var(--line);padding:.35rem .65rem;text-align:left;vertical-align:top}\
th{background:var(--soft);font-weight:600}\
li+li{margin-top:.2em}ul.contains-task-list{list-style:none;padding-left:1.2em}";

/// Text made safe between tags and inside quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page with its images' addresses rewritten, or `None` if lol_html refused it.
fn inline_images(page: &str, files: &[File<'_>]) -> Option<String> {
    let src = |el: &mut Element| {
        if let Some(data) = el
            .get_attribute("src")
            .and_then(|s| data_address(&s, files))
        {
            el.set_attribute("src", &data)?;
        }
        Ok(())
    };
    let srcset = |el: &mut Element| {
        if let Some(set) = el
            .get_attribute("srcset")
            .and_then(|s| rewrite_srcset(&s, files))
        {
            el.set_attribute("srcset", &set)?;
        }
        Ok(())
    };
    let settings = RewriteStrSettings::new()
        // Parse `<esi:…>` as browsers do (as unknown elements), not as void tags.
        .with_enable_esi_tags(false)
        // Strict mode gives up on markup whose parsing context it cannot be sure of; that
        // matters when injecting content, not for swapping an image address for the
        // version's own bytes, so odd markup still gets its images.
        .with_strict(false)
        .append_element_content_handler(element!("img[src]", src))
        .append_element_content_handler(element!("img[srcset]", srcset))
        .append_element_content_handler(element!("source[srcset]", srcset));
    rewrite_str(page, settings).ok()
}

/// The `data:` address of the file `address` names, if it names one.
fn data_address(address: &str, files: &[File<'_>]) -> Option<String> {
    let decoded = decode_references(address);
    let trimmed = decoded.trim_matches(|c: char| c.is_ascii_whitespace());
    let path = percent_encoding::percent_decode_str(trimmed)
        .decode_utf8()
        .ok()?;
    let path = path.strip_prefix("./").unwrap_or(&path);
    let (_, content_type, bytes) = files.iter().find(|(p, _, _)| *p == path)?;
    Some(format!(
        "data:{content_type};base64,{}",
        STANDARD.encode(bytes)
    ))
}

/// A `srcset` with each candidate address that names a file made its `data:` address,
/// and everything else (descriptors, spacing, commas, other addresses) as written; `None`
/// when no candidate names a file. Candidates are split as the HTML standard says: an
/// address is a run without whitespace (trailing commas not part of it), its descriptors
/// run to a comma outside parentheses.
fn rewrite_srcset(srcset: &str, files: &[File<'_>]) -> Option<String> {
    let bytes = srcset.as_bytes();
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r');
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    loop {
        while at < bytes.len() && (space(bytes[at]) || bytes[at] == b',') {
            at += 1;
        }
        if at == bytes.len() {
            break;
        }
        let start = at;
        while at < bytes.len() && !space(bytes[at]) {
            at += 1;
        }
        let mut end = at;
        if bytes[end - 1] == b',' {
            while bytes[end - 1] == b',' {
                end -= 1;
            }
        } else {
            let mut in_parens = false;
            while at < bytes.len() {
                match bytes[at] {
                    b'(' => in_parens = true,
                    b')' => in_parens = false,
                    b',' if !in_parens => break,
                    _ => {}
                }
                at += 1;
            }
        }
        // `start` and `end` sit next to ASCII bytes or the ends, so on char boundaries.
        if let Some(data) = data_address(&srcset[start..end], files) {
            out.push_str(&srcset[copied..start]);
            out.push_str(&data);
            copied = end;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&srcset[copied..]);
    Some(out)
}

/// An attribute value as written (lol_html leaves references in) with its numeric
/// character references and the five XML named ones decoded: what comrak writes and what
/// hand-written addresses use. A rarer named reference stays as written, so its address
/// names no file and is left alone.
fn decode_references(value: &str) -> Cow<'_, str> {
    if !value.contains('&') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match reference(rest) {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The character a reference at the start of `text` stands for, and its length.
fn reference(text: &str) -> Option<(char, usize)> {
    // The longest reference this decodes, `&#x10FFFF;` with leading zeros, is short; a
    // bound keeps a long run of `&` without `;` linear.
    let end = text.bytes().take(34).position(|b| b == b';')?;
    let body = &text[1..end];
    let c = match body {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        _ => {
            let number = body.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                None if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                    number.parse().ok()?
                }
                _ => return None,
            };
            char::from_u32(code)?
        }
    };
    Some((c, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    const GIF: &[u8] = b"GIF89a\x01\0\x01\0";
    const SVG: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>";

    fn data(content_type: &str, bytes: &[u8]) -> String {
        format!("data:{content_type};base64,{}", STANDARD.encode(bytes))
    }

    #[test]
    fn markdown_renders_tables_and_the_gfm_extras() {
        let md = "| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~ https://x.example\n\n- [x] done\n";
        let page = render("Plan.md", md.as_bytes(), &[]);
        assert!(page.starts_with("<!doctype html>\n"), "{page}");
        assert!(page.contains("<title>Plan.md</title>"), "{page}");
        // The service's typography travels with the page: tables ruled and scrolling on
        // their own, code tinted, a colour for the quoted passages' highlight.
        assert!(page.contains("<style>") && page.contains("th,td{border:1px solid"));
        assert!(page.contains("--mark:"));
        assert!(page.contains("<table>"), "{page}");
        assert!(page.contains("<td>1</td>"), "{page}");
        assert!(page.contains("<del>gone</del>"), "{page}");
        assert!(page.contains("<a href=\"https://x.example\">"), "{page}");
        assert!(page.contains("type=\"checkbox\""), "{page}");
        assert!(page.trim_end().ends_with("</body></html>"), "{page}");
    }

    #[test]
    fn markdown_cannot_inject_markup() {
        let md = "<script>alert(1)</script>\n\nHi <img src=x onerror=alert(2)> <b>bold</b>\n\n[x](javascript:alert(3))\n";
        let page = render("a.markdown", md.as_bytes(), &[]);
        assert!(!page.contains("<script"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
        assert!(!page.contains("javascript:"), "{page}");
        assert!(page.contains("raw HTML omitted"), "{page}");
    }

    #[test]
    fn the_title_is_escaped() {
        let page = render("<b>&\"x\".md", b"# T", &[]);
        assert!(
            page.contains("<title>&lt;b&gt;&amp;&quot;x&quot;.md</title>"),
            "{page}"
        );
        assert!(page.contains("<h1>T</h1>"), "{page}");
    }

    #[test]
    fn markdown_is_known_by_its_extension_in_any_case() {
        assert!(render("A.MD", b"*x*", &[]).contains("<em>x</em>"));
        assert!(render("a.Markdown", b"*x*", &[]).contains("<em>x</em>"));
        assert_eq!(render("a.htm", b"*x*", &[]), "*x*");
    }

    #[test]
    fn an_uploaded_image_becomes_a_data_address() {
        let page = render(
            "d.md",
            b"![a](img/a.png)",
            &[("img/a.png", "image/png", PNG)],
        );
        let expected = format!(
            "<img src=\"data:image/png;base64,{}\" alt=\"a\"",
            STANDARD.encode(PNG)
        );
        assert!(page.contains(&expected), "{page}");
        assert!(
            page.contains("data:image/png;base64,iVBORw0KGgoAAAANSUhEUg=="),
            "{page}"
        );
    }

    #[test]
    fn dot_slash_and_percent_encoded_addresses_match() {
        let files = [
            ("img/a.png", "image/png", PNG),
            ("img/a b.png", "image/gif", GIF),
            ("img/é&.svg", "image/svg+xml", SVG),
        ];
        let md = "![1](./img/a.png) ![2](img/a%20b.png) ![3](<img/a b.png>) ![4](img/é&.svg)";
        let page = render("d.md", md.as_bytes(), &files);
        assert_eq!(page.matches(&data("image/png", PNG)).count(), 1, "{page}");
        assert_eq!(page.matches(&data("image/gif", GIF)).count(), 2, "{page}");
        assert_eq!(
            page.matches(&data("image/svg+xml", SVG)).count(),
            1,
            "{page}"
        );
    }

    #[test]
    fn other_addresses_stay_as_written() {
        let files = [("img/a.png", "image/png", PNG)];
        let md = "![1](img/gone.png) ![2](https://x.example/img/a.png) ![3](/img/a.png) \
                  ![4](img/a.png?v=2) ![5](IMG/A.PNG) ![6](././img/a.png)";
        let page = render("d.md", md.as_bytes(), &files);
        assert!(!page.contains("data:"), "{page}");
        for src in [
            "img/gone.png",
            "https://x.example/img/a.png",
            "/img/a.png",
            "img/a.png?v=2",
            "IMG/A.PNG",
            "././img/a.png",
        ] {
            assert!(page.contains(&format!("src=\"{src}\"")), "{src}: {page}");
        }
    }

    #[test]
    fn an_html_document_keeps_its_markup_and_only_its_images_change() {
        let html = "<!DOCTYPE html>\n<html lang=en><head><style>p{color:red}</style>\
                    <script>var s = '<img src=\"img/a.png\">';</script></head>\n\
                    <body><!-- <img src=\"img/a.png\"> -->\n<p class='x'>Hi&nbsp;<b>there</b>\n\
                    <IMG SRC=img/a.png ALT='a' width=10>\n<img alt=\"b\" src=\"img/b.png\">\n\
                    <img src=\"https://x.example/a.png\"><textarea><img src=\"img/a.png\"></textarea>\n\
                    </body></html>\n";
        let files = [("img/a.png", "image/png", PNG)];
        let page = render("page.html", html.as_bytes(), &files);
        // Only the one real `<img>` naming an uploaded file changes: not the one in a
        // script, a comment or a textarea, nor the one naming a file not uploaded.
        let changed = html.replacen(
            "<IMG SRC=img/a.png ALT='a' width=10>",
            &format!("<IMG SRC=\"{}\" ALT='a' width=10>", data("image/png", PNG)),
            1,
        );
        assert_eq!(page, changed);
    }

    #[test]
    fn a_document_without_files_is_served_as_uploaded() {
        let html = "<p>Hi<img src=\"img/a.png\"><unclosed";
        assert_eq!(render("a.html", html.as_bytes(), &[]), html);
        let files = [("img/b.png", "image/png", PNG)];
        assert_eq!(render("a.html", html.as_bytes(), &files), html);
    }

    #[test]
    fn ambiguous_markup_does_not_cost_the_other_images() {
        // In strict mode lol_html gives up on the whole page at `<select><xmp>`.
        let html = "<img src=\"img/a.png\"><select><xmp><img src=\"x.png\"></xmp></select>";
        let page = render(
            "a.html",
            html.as_bytes(),
            &[("img/a.png", "image/png", PNG)],
        );
        let inlined = format!("<img src=\"{}\"><select><xmp>", data("image/png", PNG));
        assert!(page.starts_with(&inlined), "{page}");
    }

    #[test]
    fn srcset_candidates_are_rewritten_one_by_one() {
        let files = [
            ("img/a.png", "image/png", PNG),
            ("img/b.gif", "image/gif", GIF),
        ];
        let html = "<picture><source srcset=\"img/b.gif\" media=\"(min-width: 9px)\">\
                    <img src=\"img/a.png\" srcset=\"img/a.png 1x,img/c.png 2x, ./img/b.gif 3x ,\n https://x.example/a.png 4x\"></picture>";
        let page = render("p.html", html.as_bytes(), &files);
        let (a, b) = (data("image/png", PNG), data("image/gif", GIF));
        let expected = format!(
            "<picture><source srcset=\"{b}\" media=\"(min-width: 9px)\">\
             <img src=\"{a}\" srcset=\"{a} 1x,img/c.png 2x, {b} 3x ,\n https://x.example/a.png 4x\"></picture>"
        );
        assert_eq!(page, expected);
    }

    #[test]
    fn srcset_parsing_keeps_descriptors_and_commas() {
        let files = [("a.png", "image/png", PNG)];
        let a = data("image/png", PNG);
        let cases = [
            ("a.png", a.clone()),
            (" a.png ", format!(" {a} ")),
            ("a.png,, b.png 2x", format!("{a},, b.png 2x")),
            (
                "b.png 100w (x, y), a.png 2x",
                format!("b.png 100w (x, y), {a} 2x"),
            ),
            ("a.png 1x,a.png 2x", format!("{a} 1x,{a} 2x")),
        ];
        for (srcset, expected) in cases {
            assert_eq!(rewrite_srcset(srcset, &files), Some(expected), "{srcset}");
        }
        assert_eq!(rewrite_srcset("b.png 1x, c.png", &files), None);
        assert_eq!(rewrite_srcset("", &files), None);
        assert_eq!(rewrite_srcset(" , ,", &files), None);
    }

    #[test]
    fn character_references_in_addresses_are_decoded() {
        let files = [("img/a&b.png", "image/png", PNG)];
        for src in [
            "img/a&amp;b.png",
            "img/a&#38;b.png",
            "img/a&#x26;b.png",
            "img/a%26b.png",
        ] {
            let html = format!("<img src=\"{src}\">");
            let page = render("a.html", html.as_bytes(), &files);
            assert_eq!(
                page,
                format!("<img src=\"{}\">", data("image/png", PNG)),
                "{src}"
            );
        }
        for src in ["img/a&ampb.png", "img/a&amp;&amp;b.png", "img/a&#xZZ;b.png"] {
            let html = format!("<img src=\"{src}\">");
            assert_eq!(render("a.html", html.as_bytes(), &files), html, "{src}");
        }
        assert_eq!(
            decode_references("&lt;&#60;&#x3C;&quot;&apos;&copy;&"),
            "<<<\"'&copy;&"
        );
        assert_eq!(decode_references("&#;&#x;&#1114112;"), "&#;&#x;&#1114112;");
    }
}
