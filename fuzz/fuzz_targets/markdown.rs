//! Markdown people write (issue bodies, comments, descriptions): rendered by comrak and
//! sanitized by ammonia for pages; and a Markdown artifact's page (comrak alone, raw HTML
//! left out).
//!
//! Asserts: neither ever holds `<script`, an element that runs script or loads another
//! document, an `on…` event handler attribute, or a `javascript:`, `vbscript:` or
//! non-image `data:` address (character references decoded as a browser does).

#![no_main]

use libfuzzer_sys::fuzz_target;
use svc_server::artifacts::document;
use svc_server::fuzzing::markdown_to_html;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let html = markdown_to_html(&text);
    let problems = svc_fuzz::markup_problems(&html, false, false);
    assert!(problems.is_empty(), "{problems:?}\n{text}\n=>\n{html}");

    let page = document::render("notes.md", text.as_bytes(), &[]);
    let problems = svc_fuzz::markup_problems(&page, true, true);
    assert!(problems.is_empty(), "{problems:?}\n{text}\n=>\n{page}");
});
