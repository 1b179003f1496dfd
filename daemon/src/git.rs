//! Fast-forwarding a read-only main checkout, through git (and so through the
//! credential helper `svc clone` configured), never touching local changes.

use std::path::Path;

use tokio::process::Command;

/// What became of one checkout.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Already at the head (or ahead of it).
    Current,
    /// Moved to the head.
    Moved,
    /// Left alone, with why: local changes, another branch checked out.
    Held(String),
}

/// A git command that failed.
#[derive(Debug, thiserror::Error)]
#[error("git {args} in {dir}: {message}")]
pub struct GitError {
    args: String,
    dir: String,
    message: String,
}

async fn git(dir: &Path, args: &[&str]) -> Result<(bool, String), GitError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| GitError {
            args: args.join(" "),
            dir: dir.display().to_string(),
            message: e.to_string(),
        })?;
    let text = if out.status.success() {
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    } else {
        String::from_utf8_lossy(&out.stderr).trim().to_owned()
    };
    Ok((out.status.success(), text))
}

async fn git_ok(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    match git(dir, args).await? {
        (true, text) => Ok(text),
        (false, message) => Err(GitError {
            args: args.join(" "),
            dir: dir.display().to_string(),
            message,
        }),
    }
}

/// Brings the checkout at `dir` (on `branch`) to `head`: fetch, then a fast-forward merge,
/// unless it has local changes to tracked files or is on another branch.
pub async fn fast_forward(dir: &Path, branch: &str, head: &str) -> Result<Outcome, GitError> {
    if git(dir, &["rev-parse", "--verify", "--quiet", "HEAD"])
        .await?
        .1
        == head
    {
        return Ok(Outcome::Current);
    }
    let (on_branch, current) = git(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"]).await?;
    if !on_branch || current != branch {
        return Ok(Outcome::Held(format!("not on {branch}")));
    }
    let changes = git_ok(dir, &["status", "--porcelain", "--untracked-files=no"]).await?;
    if !changes.is_empty() {
        return Ok(Outcome::Held("local changes".to_owned()));
    }
    let (known, _) = git(dir, &["cat-file", "-e", &format!("{head}^{{commit}}")]).await?;
    if !known {
        git_ok(dir, &["fetch", "--quiet", "origin", branch]).await?;
    }
    let (ancestor, _) = git(dir, &["merge-base", "--is-ancestor", head, "HEAD"]).await?;
    if ancestor {
        return Ok(Outcome::Current);
    }
    match git(dir, &["merge", "--ff-only", "--quiet", head]).await? {
        (true, _) => Ok(Outcome::Moved),
        (false, message) => Ok(Outcome::Held(format!("cannot fast-forward: {message}"))),
    }
}

/// Clones a repo's main into `dir` (which must not exist), as `svc clone` does: git
/// authenticates through `svc git-credential` (this process is `svc daemon`), kept set
/// up in the clone for `server`, and no token goes into any URL.
pub async fn clone(url: &str, dir: &Path, server: &str) -> Result<(), GitError> {
    let exe = std::env::current_exe().map_err(|e| GitError {
        args: "clone".to_owned(),
        dir: dir.display().to_string(),
        message: format!("cannot find svc itself: {e}"),
    })?;
    let helper = format!(
        "!'{}' git-credential",
        exe.display().to_string().replace('\'', "'\\''")
    );
    let parent = dir.parent().unwrap_or(dir);
    tokio::fs::create_dir_all(parent)
        .await
        .map_err(|e| GitError {
            args: "clone".to_owned(),
            dir: parent.display().to_string(),
            message: e.to_string(),
        })?;
    let target = dir.display().to_string();
    git_ok(
        parent,
        &[
            "-c",
            "credential.helper=",
            "-c",
            &format!("credential.helper={helper}"),
            "clone",
            "--quiet",
            url,
            &target,
        ],
    )
    .await?;
    let key = format!("credential.{server}.helper");
    git_ok(dir, &["config", "--local", "--replace-all", &key, ""]).await?;
    git_ok(dir, &["config", "--local", "--add", &key, &helper]).await?;
    Ok(())
}

/// Keeps the nested repo at `rel` out of the status of the repo at `enclosing`.
pub async fn exclude(enclosing: &Path, rel: &str) -> std::io::Result<()> {
    use tokio::io::AsyncWriteExt;
    let path = enclosing.join(".git/info/exclude");
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent).await?;
    }
    let line = format!("/{rel}/");
    if let Ok(text) = tokio::fs::read_to_string(&path).await
        && text.lines().any(|l| l == line)
    {
        return Ok(());
    }
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .await?;
    file.write_all(format!("{line}\n").as_bytes()).await
}
