//! What the git checkout of the current directory says: its branch and its commits, so
//! commands can default to "this branch" and accept `HEAD` where a sha is wanted.

use std::process::Command;

use crate::error::{CommandError, Result};

/// Runs git in the current directory; `None` when git says no (not a repo, no such ref).
fn git(args: &[&str]) -> Result<Option<String>> {
    let out = Command::new("git").args(args).output().map_err(|e| {
        CommandError::user("cannot run git")
            .because(&e)
            .hint("install git")
    })?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()))
}

/// The branch argument, else the branch checked out here.
pub fn branch_or_current(branch: Option<&str>) -> Result<String> {
    if let Some(branch) = branch {
        return Ok(branch.to_owned());
    }
    git(&["symbolic-ref", "--quiet", "--short", "HEAD"])?
        .filter(|b| !b.is_empty())
        .ok_or_else(|| {
            CommandError::user("no branch given and none is checked out here")
                .hint("name the branch")
        })
}

/// A full commit sha as given, else what git makes of `rev` here (`HEAD`, a short sha,
/// a branch).
pub fn commit_sha(rev: &str) -> Result<String> {
    if rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(rev.to_ascii_lowercase());
    }
    git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{rev}^{{commit}}"),
    ])?
    .filter(|s| !s.is_empty())
    .ok_or_else(|| {
        CommandError::user(format!("{rev} is not a commit here"))
            .hint("give a full 40-character sha, or run svc where git knows it")
    })
}

/// The path of the local file `file` from the root of the git checkout holding it,
/// `/`-separated: the path it has on a branch of that checkout's repo.
pub fn path_in_checkout(file: &std::path::Path) -> Result<String> {
    let cannot = |why: &str| {
        CommandError::user(format!("{}: {why}", file.display()))
            .hint("name the path on the branch yourself: <path on the branch>=<local file>")
    };
    let full = std::fs::canonicalize(file).map_err(|e| cannot("cannot read it").because(&e))?;
    let dir = full.parent().ok_or_else(|| cannot("is not a file"))?;
    let dir_text = dir.to_string_lossy();
    let top = git(&["-C", &dir_text, "rev-parse", "--show-toplevel"])?
        .filter(|t| !t.is_empty())
        .ok_or_else(|| cannot("is not in a git checkout"))?;
    let top = std::fs::canonicalize(&top).map_err(|e| cannot("cannot read it").because(&e))?;
    let inside = full
        .strip_prefix(&top)
        .map_err(|_| cannot("is not in its git checkout"))?;
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(parts.join("/"))
}
