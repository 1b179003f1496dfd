//! getArtifactDocument: an uploaded HTML or Markdown document with its images inlined as
//! `data:` addresses by lol_html (HTML served as uploaded otherwise).
//!
//! Input: the first byte picks the document's kind, the rest is the document.
//!
//! Asserts: an HTML document with no `<img` or `<source` comes back byte for byte; with
//! them, its markup is kept (as many `<` and `>`), only addresses change, each into a
//! file's `data:` address, and rendering the page again changes nothing more; a
//! Markdown document's page holds no script, event handler or script address.

#![no_main]

use libfuzzer_sys::fuzz_target;
use svc_server::artifacts::{document, kinds};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
const GIF: &[u8] = b"GIF89a\x01\0\x01\0";
const SVG: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>";

/// The version's images, as an upload brings them (paths checked by `kinds`).
const FILES: &[(&str, &str, &[u8])] = &[
    ("img/a.png", "image/png", PNG),
    ("a b.gif", "image/gif", GIF),
    ("img/é&x.svg", "image/svg+xml", SVG),
    ("a.png", "image/png", PNG),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, doc)) = data.split_first() else {
        return;
    };
    for (path, content_type, bytes) in FILES {
        assert_eq!(kinds::image_path(path), Ok(*content_type));
        assert!(kinds::bytes_match(content_type, bytes));
    }
    // Uploads are checked to be UTF-8.
    let Ok(text) = std::str::from_utf8(doc) else {
        return;
    };
    let data_addresses: Vec<String> = FILES
        .iter()
        .map(|(_, t, b)| format!("data:{t};base64,{}", base64_of(b)))
        .collect();
    if pick % 2 == 0 {
        let page = document::render("page.html", doc, FILES);
        let lower = text.to_ascii_lowercase();
        if !lower.contains("<img") && !lower.contains("<source") {
            assert_eq!(page, text, "no image element, no change");
            return;
        }
        for c in ['<', '>'] {
            assert_eq!(
                page.matches(c).count(),
                text.matches(c).count(),
                "{c} kept:\n{text}\n=>\n{page}"
            );
        }
        if page != text {
            assert!(
                data_addresses.iter().any(|d| page.contains(d.as_str())),
                "a change is an inlined image:\n{text}\n=>\n{page}"
            );
        }
        let again = document::render("page.html", page.as_bytes(), FILES);
        assert_eq!(again, page, "rendered twice");
    } else {
        let page = document::render("notes.md", doc, FILES);
        let problems = svc_fuzz::markup_problems(&page, true, true);
        assert!(problems.is_empty(), "{problems:?}\n{text}\n=>\n{page}");
    }
});

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}
