//! A session's place on disk, `<data dir>/agents/<id>/`: `work`, its checkout of the
//! branch, cloned through the git door with the session's credential (so its pushes go
//! through the push rules and are recorded like anyone's), and `home`, its HOME.
//!
//! The credential never touches the disk: git gets it, and the `X-Svc-Agent` header that
//! records the agent on pushes, through `GIT_CONFIG_*` variables of the run's environment.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Command;

use crate::git::child::dies_with_server;

/// The commit-msg hook: the trailers naming the agent, the session (as its worktree) and
/// its credential (as its machine), on every commit the runner makes.
const HOOK: &str = r#"#!/bin/sh
# svc: trailers naming the agent session that made the commit
for t in "Svc-Agent: $SVC_AGENT" "Svc-Worktree: $(git config --get svc.worktree)" "Svc-Machine: $(git config --get svc.machine)"; do
  git interpret-trailers --in-place --if-exists addIfDifferent --trailer "$t" "$1" || exit 1
done
exit 0
"#;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot prepare the session's folders: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot check the branch out: {0}")]
    Git(String),
}

/// The folders of one session.
#[derive(Debug, Clone)]
pub struct Place {
    pub root: PathBuf,
    pub work: PathBuf,
    pub home: PathBuf,
}

impl Place {
    pub fn of(data_dir: &Path, id: &str) -> Place {
        let root = data_dir.join("agents").join(id);
        Place {
            work: root.join("work"),
            home: root.join("home"),
            root,
        }
    }
}

/// Who the checkout's commits are by, and what their trailers name.
pub struct Identity<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub session: &'a str,
    pub machine: &'a str,
}

/// The `GIT_CONFIG_*` variables that give git the session's credential and agent name.
pub fn git_env(token: &str, agent: &str) -> Vec<(String, String)> {
    let pairs = [
        ("http.extraHeader", format!("Authorization: Bearer {token}")),
        ("http.extraHeader", format!("X-Svc-Agent: {agent}")),
    ];
    let mut env = vec![("GIT_CONFIG_COUNT".to_owned(), pairs.len().to_string())];
    for (i, (key, value)) in pairs.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), key.to_owned()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), value));
    }
    env
}

/// Makes the folders; with `clone`, clones `branch` of `url` into `work` (or, when a
/// previous run left a checkout, brings it up to the branch's head when it can).
pub async fn prepare(
    place: &Place,
    clone: Option<(&str, &str)>,
    who: &Identity<'_>,
    env: &[(String, String)],
) -> Result<(), Error> {
    tokio::fs::create_dir_all(&place.home).await?;
    let Some((url, branch)) = clone else {
        tokio::fs::create_dir_all(&place.work).await?;
        return Ok(());
    };
    if tokio::fs::try_exists(place.work.join(".git")).await? {
        // Another run's checkout: its own commits stay; what others pushed comes in when
        // it fast-forwards, and otherwise the runner sees it when it pulls.
        let _ = git(
            &place.work,
            &place.home,
            env,
            &["pull", "--ff-only", "--quiet"],
        )
        .await;
        return Ok(());
    }
    let work = place.work.display().to_string();
    git(
        &place.root,
        &place.home,
        env,
        &["clone", "--quiet", "--branch", branch, url, &work],
    )
    .await?;
    for (key, value) in [
        ("user.name", who.name),
        ("user.email", who.email),
        ("svc.worktree", who.session),
        ("svc.machine", who.machine),
        ("push.default", "current"),
    ] {
        git(&place.work, &place.home, env, &["config", key, value]).await?;
    }
    let hook = place.work.join(".git/hooks/commit-msg");
    tokio::fs::create_dir_all(place.work.join(".git/hooks")).await?;
    tokio::fs::write(&hook, HOOK).await?;
    use std::os::unix::fs::PermissionsExt;
    tokio::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).await?;
    Ok(())
}

/// Removes what a session keeps on disk.
pub async fn remove(place: &Place) {
    let _ = tokio::fs::remove_dir_all(&place.root).await;
}

async fn git(
    dir: &Path,
    home: &Path,
    env: &[(String, String)],
    args: &[&str],
) -> Result<(), Error> {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    dies_with_server(&mut cmd);
    let out = cmd.output().await?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .trim()
        .lines()
        .last()
        .unwrap_or("git failed")
        .to_owned();
    Err(Error::Git(last))
}
