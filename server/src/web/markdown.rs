//! Markdown people write (issue bodies, comments, descriptions) as HTML for a page:
//! rendered by comrak with raw HTML left out, then sanitized by ammonia, so nothing a
//! person writes runs as script or reaches outside the page.

/// The HTML of `text`, safe to put in a page as it is.
pub fn to_html(text: &str) -> String {
    let mut options = comrak::Options::default();
    options.extension.strikethrough = true;
    options.extension.table = true;
    options.extension.autolink = true;
    options.extension.tasklist = true;
    sanitize(&comrak::markdown_to_html(text, &options))
}

/// HTML from elsewhere (a CI service's annotations) cleaned by the same rules, so it is
/// safe to put in a page as it is.
pub fn sanitize(html: &str) -> String {
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(html)
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn scripts_and_handlers_do_not_survive() {
        let html = super::to_html(
            "**hi** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>",
        );
        assert!(html.contains("<strong>hi</strong>"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
    }
}
