//! Helpers shared by the fuzz targets: a way to run the server's few async parsers to
//! completion without a runtime, and a checker of HTML that people's text becomes.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use lol_html::{RewriteStrSettings, element, rewrite_str};

/// Runs `future` to its end on this thread. For futures over in-memory input only, which
/// never wait on anything: one still pending after many polls is a bug.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1_000_000 {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
    panic!("a future over in-memory input is still pending");
}

/// Elements that run script, load or frame other documents, or change the page's base,
/// none of which rendered and sanitized text may hold.
const FORBIDDEN: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "link",
    "form", "svg", "math", "template", "noscript", "portal", "meta",
];

/// Attributes holding an address a browser may navigate to or load.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "srcset",
    "action",
    "formaction",
    "xlink:href",
    "poster",
    "background",
    "data",
    "lowsrc",
    "dynsrc",
    "ping",
];

/// Why `html` is not safe to put in a page as it is: `<script` anywhere, an element of
/// [`FORBIDDEN`], an `on…` event handler attribute, or an address of `javascript:`,
/// `vbscript:` or a `data:` that is not an image (only when `data_images`). Empty when it
/// is safe.
///
/// When `html` is a whole `page`, what comes before its `<body>` is the service's own
/// head: there a `<meta charset>`, the viewport `<meta>` and the inline typography
/// `<style>` (which the document's policy allows) are no problem, and every other rule
/// holds. From `<body>` on, where people's text is, every rule holds.
pub fn markup_problems(html: &str, page: bool, data_images: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if html.to_ascii_lowercase().contains("<script") {
        problems.push("`<script` in the text".to_owned());
    }
    let (head, body) = match page.then(|| html.find("<body>")).flatten() {
        Some(at) => html.split_at(at),
        None => ("", html),
    };
    problems.extend(element_problems(head, true, data_images));
    problems.extend(element_problems(body, false, data_images));
    problems
}

/// Whether an element of a page's own head is one the service puts there.
fn head_element(tag: &str, attributes: &[(String, String)]) -> bool {
    let names: Vec<&str> = attributes.iter().map(|(n, _)| n.as_str()).collect();
    let viewport = attributes
        .iter()
        .any(|(n, v)| n == "name" && v.eq_ignore_ascii_case("viewport"));
    match tag {
        "style" => attributes.is_empty(),
        "meta" => {
            names == ["charset"]
                || (viewport && names.iter().all(|n| matches!(*n, "name" | "content")))
        }
        _ => false,
    }
}

/// The element and attribute rules of [`markup_problems`] over `html`, a page's own
/// head when `head`.
fn element_problems(html: &str, head: bool, data_images: bool) -> Vec<String> {
    let problems = RefCell::new(Vec::new());
    let settings = RewriteStrSettings::new()
        .with_strict(false)
        .with_enable_esi_tags(false)
        .append_element_content_handler(element!("*", |el| {
            let tag = el.tag_name().to_ascii_lowercase();
            let attributes: Vec<(String, String)> = el
                .attributes()
                .iter()
                .map(|a| (a.name().to_ascii_lowercase(), a.value()))
                .collect();
            if FORBIDDEN.contains(&tag.as_str()) && !(head && head_element(&tag, &attributes)) {
                problems.borrow_mut().push(format!("a <{tag}> element"));
            }
            for (name, value) in &attributes {
                if name.starts_with("on") {
                    problems
                        .borrow_mut()
                        .push(format!("an event handler {name}= on <{tag}>"));
                }
                if URL_ATTRIBUTES.contains(&name.as_str()) {
                    let candidates: Vec<&str> = if name == "srcset" {
                        value.split(',').collect()
                    } else {
                        vec![value.as_str()]
                    };
                    for address in candidates {
                        if let Some(why) = dangerous_address(address, data_images) {
                            problems
                                .borrow_mut()
                                .push(format!("<{tag} {name}=\"{value}\">: {why}"));
                        }
                    }
                }
            }
            Ok(())
        }));
    // A rewriter error is no problem of the markup's own: only the text check holds then.
    let _ = rewrite_str(html, settings);
    problems.into_inner()
}

/// Why a browser would run `address` (as written in an attribute) as script, if it would.
fn dangerous_address(address: &str, data_images: bool) -> Option<&'static str> {
    let decoded = decode_references(address);
    // Browsers drop tabs and newlines anywhere in an address, and leading C0 and spaces.
    let cleaned: String = decoded
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .trim_start_matches(|c: char| c <= ' ')
        .to_ascii_lowercase();
    if cleaned.starts_with("javascript:") {
        Some("a javascript: address")
    } else if cleaned.starts_with("vbscript:") {
        Some("a vbscript: address")
    } else if cleaned.starts_with("data:") && !(data_images && cleaned.starts_with("data:image/")) {
        Some("a data: address that is no image")
    } else {
        None
    }
}

/// Character references decoded as a browser decodes them in an attribute value:
/// numeric ones (the `;` optional) and the named ones that can spell a scheme.
pub fn decode_references(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        if let Some(number) = rest.strip_prefix('#') {
            let (hex, digits) = match number.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, number),
            };
            let len = digits
                .bytes()
                .take_while(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
                .count();
            if len > 0 {
                let code = u32::from_str_radix(&digits[..len.min(8)], if hex { 16 } else { 10 })
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\u{fffd}');
                out.push(code);
                let mut tail = &digits[len..];
                tail = tail.strip_prefix(';').unwrap_or(tail);
                rest = tail;
                continue;
            }
        }
        let named = [
            ("colon;", ':'),
            ("Tab;", '\t'),
            ("NewLine;", '\n'),
            ("amp;", '&'),
            ("amp", '&'),
            ("lt;", '<'),
            ("gt;", '>'),
            ("quot;", '"'),
            ("apos;", '\''),
            ("sol;", '/'),
            ("lpar;", '('),
            ("rpar;", ')'),
            ("period;", '.'),
            ("nbsp;", '\u{a0}'),
        ];
        match named.iter().find(|(name, _)| rest.starts_with(name)) {
            Some((name, c)) => {
                out.push(*c);
                rest = &rest[name.len()..];
            }
            None => out.push('&'),
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_sees_what_it_must() {
        assert!(markup_problems("<p>hi <a href=\"https://x\">x</a></p>", false, false).is_empty());
        for bad in [
            "<script>1</script>",
            "<SCRIPT>1</SCRIPT>",
            "<img src=x onerror=alert(1)>",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<a href=\"java&#x73;cript:alert(1)\">x</a>",
            "<a href=\"javascript&colon;alert(1)\">x</a>",
            "<a href=\" \tjava&Tab;script:alert(1)\">x</a>",
            "<iframe src=\"https://x\"></iframe>",
            "<img src=\"data:text/html,x\">",
            "<meta http-equiv=refresh content=\"0;url=https://x\">",
        ] {
            assert!(!markup_problems(bad, true, true).is_empty(), "{bad}");
        }
        // A whole page: its own head may set the charset, the viewport and a style.
        let head = "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
                    content=\"width=device-width\"><title>t</title><style>p{}</style></head>";
        let page = format!("{head}<body><p>hi</p></body></html>");
        assert!(markup_problems(&page, true, false).is_empty(), "{page}");
        for bad in [
            "<html><head><meta http-equiv=refresh content=\"0;url=https://x\"></head><body></body></html>",
            "<html><head><style>p{}</style></head><body><style>p{}</style></body></html>",
            "<html><head><link rel=stylesheet href=x></head><body></body></html>",
        ] {
            assert!(!markup_problems(bad, true, false).is_empty(), "{bad}");
        }
        // The artifact page the targets check, with its typography, as rendered.
        let doc = "# Title\n\n| a | b |\n|---|---|\n| 1 | `2` |\n\n> quoted\n\n<b>raw</b>\n";
        let page = svc_server::artifacts::document::render("notes.md", doc.as_bytes(), &[]);
        assert!(page.contains("<style>"), "{page}");
        assert!(markup_problems(&page, true, true).is_empty(), "{page}");
        // Without a body, all of it is people's text.
        assert!(!markup_problems("<meta charset=\"utf-8\">", true, false).is_empty());
        assert!(markup_problems("<img src=\"data:image/png;base64,AA\">", true, true).is_empty());
        assert!(!markup_problems("<img src=\"data:image/png;base64,AA\">", true, false).is_empty());
    }
}
