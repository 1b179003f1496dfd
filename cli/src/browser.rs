//! `--web`: a thing's page on the server, opened in a browser, or its address printed
//! where no browser can be opened (no display, no opener).

use std::time::{Duration, Instant};

use crate::commands::login::{headless, open_browser};
use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{MonorepoTarget, Target, encode};
use crate::terminal::errln;

/// How long the opener may take to say it failed; one still running then is taken to
/// have opened the page (a browser it runs in the foreground).
const OPENER_WAIT: Duration = Duration::from_secs(3);

/// `{server}/{owner}/{monorepo}`: the monorepo's page.
pub fn monorepo_page(server: &str, owner: &str, monorepo: &str) -> String {
    format!("{server}/{}/{}", encode(owner), encode(monorepo))
}

/// The monorepo page of a monorepo target.
pub fn monorepo_of(target: &MonorepoTarget) -> String {
    monorepo_page(&target.session.server, &target.owner, &target.monorepo)
}

/// `{monorepo page}/-/{repo}`: the repo's code on its default branch.
pub fn repo_page(target: &Target) -> String {
    format!(
        "{}/-/{}",
        monorepo_page(&target.session.server, &target.owner, &target.monorepo),
        encode(&target.repo)
    )
}

/// `{repo page}/branches/{branch}`: the branch's page (checks, reviews, artifacts).
pub fn branch_page(target: &Target, branch: &str) -> String {
    format!("{}/branches/{}", repo_page(target), encode(branch))
}

/// Opens `url` in a browser, or prints it when none can be opened; with --json either
/// way `{"url", "opened"}`.
pub fn show(global: &Global, url: &str) -> Result<()> {
    let opened = !headless() && open(url);
    if opened && !global.json {
        errln!("Opening {url} in your browser.");
        return Ok(());
    }
    let value = serde_json::json!({"url": url, "opened": opened});
    print(global, &value, || url.to_owned())
}

/// Whether the opener took `target` (a URL or a file): it started and did not fail
/// within [`OPENER_WAIT`].
pub fn open(target: &str) -> bool {
    let Ok(mut child) = open_browser(target) else {
        return false;
    };
    let deadline = Instant::now() + OPENER_WAIT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => return true,
            Err(_) => return false,
        }
    }
}
