//! Bringing a project's whole history into a fresh bare repository: every branch and
//! tag from a bundle the server wrote or from an http(s) URL, every object checked as
//! it arrives (`transfer.fsckObjects`), and the default branch set to the project's own
//! head. Git only: where the repository goes and what is recorded is the caller's.

use std::path::Path;
use std::process::Stdio;

use tokio::process::Command;

/// The ref the project's HEAD is fetched into, removed once main is set.
const HEAD_REF: &str = "refs/svc-import/head";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What git said, for the person importing.
    #[error("{0}")]
    Git(String),
    #[error("running git: {0}")]
    Io(#[from] std::io::Error),
}

/// Where the history comes from.
pub enum Source<'a> {
    /// A bundle file (`git bundle create - --all`) the server wrote.
    Bundle(&'a Path),
    /// An http or https URL. `resolve` (`host:port:address`) pins a host name to the
    /// address the caller checked, so DNS cannot answer another one to git.
    Url {
        url: &'a str,
        resolve: Option<&'a str>,
    },
}

/// A sealed git over the server's own repository `dir`, with its children (a fetch's
/// `index-pack`, its remote helper) dying with the server (`child::sealed_git_family`).
fn git(dir: &Path) -> Command {
    let mut cmd = super::child::sealed_git_family(dir);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

async fn run(cmd: &mut Command) -> Result<String, Error> {
    let out = cmd.output().await?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = said[said.len().saturating_sub(4)..].join("; ");
        return Err(Error::Git(if tail.is_empty() {
            format!("git exited with {}", out.status)
        } else {
            tail
        }));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Fills the empty bare repository `dir` from `source`: its branches and tags as they
/// are, and `default_branch` at the commit of the project's HEAD. A project branch of
/// that name elsewhere is kept as `<default_branch>-imported`.
pub async fn fetch(dir: &Path, source: Source<'_>, default_branch: &str) -> Result<(), Error> {
    let mut cmd = git(dir);
    cmd.args([
        "-c",
        "transfer.fsckObjects=true",
        "-c",
        "protocol.allow=never",
        "-c",
        "gc.auto=0",
        "-c",
        "maintenance.auto=false",
        "-c",
        "credential.helper=",
    ]);
    let from = match source {
        Source::Bundle(path) => {
            cmd.args(["-c", "protocol.file.allow=always"]);
            path.as_os_str().to_owned()
        }
        Source::Url { url, resolve } => {
            cmd.args([
                "-c",
                "protocol.http.allow=always",
                "-c",
                "protocol.https.allow=always",
                "-c",
                "http.followRedirects=false",
                // A server that stops sending for a minute is given up on.
                "-c",
                "http.lowSpeedLimit=1",
                "-c",
                "http.lowSpeedTime=60",
            ]);
            if let Some(resolve) = resolve {
                cmd.arg("-c").arg(format!("http.curloptResolve={resolve}"));
            }
            url.into()
        }
    };
    cmd.args(["fetch", "--quiet", "--no-write-fetch-head", "--no-tags"])
        .arg(from)
        .args([
            "+refs/heads/*:refs/heads/*",
            "+refs/tags/*:refs/tags/*",
            format!("+HEAD:{HEAD_REF}").as_str(),
        ]);
    run(&mut cmd).await?;
    let head = run(git(dir)
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{HEAD_REF}^{{commit}}")))
    .await
    .map_err(|_| Error::Git("the project's HEAD is not a commit".into()))?;
    let head = head.trim();
    let main_ref = format!("refs/heads/{default_branch}");
    let theirs = run(git(dir).args(["rev-parse", "--verify", "--quiet", main_ref.as_str()]))
        .await
        .ok();
    let mut edits = String::new();
    if let Some(theirs) = theirs.map(|t| t.trim().to_owned()).filter(|t| t != head) {
        edits.push_str(&format!(
            "create refs/heads/{default_branch}-imported {theirs}\n"
        ));
    }
    edits.push_str(&format!("update {main_ref} {head}\ndelete {HEAD_REF}\n"));
    let mut update = git(dir);
    update.args(["update-ref", "--stdin"]).stdin(Stdio::piped());
    let mut child = update.spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        use tokio::io::AsyncWriteExt;
        stdin.write_all(edits.as_bytes()).await?;
    }
    let out = child.wait_with_output().await?;
    if !out.status.success() {
        return Err(Error::Git(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        ));
    }
    run(git(dir).args(["symbolic-ref", "HEAD", main_ref.as_str()])).await?;
    Ok(())
}

/// Whether the repository has any ref (a branch or a tag): history, so no import.
pub async fn has_refs(dir: &Path) -> Result<bool, Error> {
    let out = run(git(dir).args(["for-each-ref", "--count=1", "--format=%(refname)"])).await?;
    Ok(!out.trim().is_empty())
}
