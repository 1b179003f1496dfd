//! A session's place on disk, `<data dir>/agents/<id>/`: `work`, its checkout of the
//! branch, cloned through the git door with the session's credential (so its pushes go
//! through the push rules and are recorded like anyone's), and `home`, its HOME.
//!
//! The credential never touches the disk: git gets it through `GIT_CONFIG_*` variables
//! of the run's environment. (The agent its pushes record comes from the credential.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::network::Net;
use super::run::{self, Sandbox};
use crate::git::child::dies_with_server;

/// How much of a git step's standard error is kept to explain its failure.
const STDERR_KEPT: usize = 4 * 1024;

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
    #[error("cannot place {0} in the session's HOME: {1}")]
    Home(String, String),
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

/// The `GIT_CONFIG_*` variables that give git the session's credential.
pub fn git_env(token: &str) -> Vec<(String, String)> {
    let pairs = [("http.extraHeader", format!("Authorization: Bearer {token}"))];
    let mut env = vec![("GIT_CONFIG_COUNT".to_owned(), pairs.len().to_string())];
    for (i, (key, value)) in pairs.into_iter().enumerate() {
        env.push((format!("GIT_CONFIG_KEY_{i}"), key.to_owned()));
        env.push((format!("GIT_CONFIG_VALUE_{i}"), value));
    }
    env
}

/// Where and within what the server's git steps in a session's folders run: the
/// runner's own sandbox and time limit. The runner writes `work` and `home` (git
/// configuration, hooks, attributes naming filters, `ext::` remotes), so git run there on
/// the host would run the runner's programs as the server; in the sandbox they can do no
/// more than the runner itself.
#[derive(Debug, Clone)]
pub struct Confined {
    pub sandbox: Sandbox,
    /// The sandbox's network (git reaches the door through it).
    pub net: Net,
    pub limit: Duration,
}

/// Makes the folders and places the runner's `home_files` in HOME; with `clone`, clones
/// `branch` of `url` into `work` (or, when a previous run left a checkout, brings it up
/// to the branch's head when it can). Every git step runs confined, as the runner does.
pub async fn prepare(
    place: &Place,
    clone: Option<(&str, &str)>,
    who: &Identity<'_>,
    env: &[(String, String)],
    home_files: &BTreeMap<String, String>,
    confined: &Confined,
) -> Result<(), Error> {
    tokio::fs::create_dir_all(&place.home).await?;
    tokio::fs::create_dir_all(&place.work).await?;
    for (path, content) in home_files {
        // Written in the sandbox: HOME is the runner's, and a link it left there must not
        // lead the server's own writes anywhere else.
        let write = r#"mkdir -p "$(dirname "$HOME/$1")" && cat > "$HOME/$1""#;
        let command = ["sh", "-c", write, "sh", path].map(str::to_owned).to_vec();
        step(
            place,
            env,
            confined,
            &Net::Offline,
            command,
            Some(content.clone()),
        )
        .await
        .map_err(|e| match e {
            Error::Git(why) => Error::Home(path.clone(), why),
            other => other,
        })?;
    }
    let Some((url, branch)) = clone else {
        return Ok(());
    };
    // Only clone and pull reach the door; the other steps have no network at all.
    let git = |args: &[&str]| {
        let net = if matches!(args.first(), Some(&("clone" | "pull"))) {
            &confined.net
        } else {
            &Net::Offline
        };
        let command: Vec<String> = std::iter::once("git")
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect();
        step(place, env, confined, net, command, None)
    };
    if tokio::fs::try_exists(place.work.join(".git")).await? {
        // Another run's checkout: its own commits stay; what others pushed comes in when
        // it fast-forwards, and otherwise the runner sees it when it pulls.
        let _ = git(&["pull", "--ff-only", "--quiet"]).await;
        return Ok(());
    }
    git(&["clone", "--quiet", "--branch", branch, url, "."]).await?;
    for (key, value) in [
        ("user.name", who.name),
        ("user.email", who.email),
        ("svc.worktree", who.session),
        ("svc.machine", who.machine),
        ("push.default", "current"),
    ] {
        git(&["config", key, value]).await?;
    }
    let install =
        "mkdir -p .git/hooks && cat > .git/hooks/commit-msg && chmod 755 .git/hooks/commit-msg";
    let command = ["sh", "-c", install].map(str::to_owned).to_vec();
    step(
        place,
        env,
        confined,
        &Net::Offline,
        command,
        Some(HOOK.to_owned()),
    )
    .await
}

/// Removes what a session keeps on disk.
pub async fn remove(place: &Place) {
    let _ = tokio::fs::remove_dir_all(&place.root).await;
}

/// One program in the session's checkout, confined; `input` on its standard input. It
/// fails with the last line of its standard error (of which a bounded tail is kept).
async fn step(
    place: &Place,
    env: &[(String, String)],
    confined: &Confined,
    net: &Net,
    command: Vec<String>,
    input: Option<String>,
) -> Result<(), Error> {
    let inside = run::Place {
        work: &place.work,
        home: &place.home,
        shown: &[],
    };
    let command = run::confine(confined.sandbox, net, &inside, &command);
    let Some((program, args)) = command.split_first() else {
        return Err(Error::Git("nothing to run".into()));
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&place.work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &place.home)
        .env("LANG", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    dies_with_server(&mut cmd);
    let mut child = cmd.spawn()?;
    let pasta = run::connect(&mut child, confined.sandbox, net)
        .await
        .map_err(Error::Git)?;
    if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
        tokio::spawn(async move {
            let _ = stdin.write_all(input.as_bytes()).await;
        });
    }
    let stderr = child.stderr.take();
    let tail = tokio::spawn(async move {
        let mut kept = Vec::new();
        if let Some(mut stderr) = stderr {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut buf).await {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > STDERR_KEPT {
                    kept.drain(..kept.len() - STDERR_KEPT);
                }
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    });
    let status = tokio::time::timeout(confined.limit, child.wait()).await;
    // Whatever it left behind goes with it (the sandbox's PID namespace already takes
    // everything; this covers `sandbox = "none"`'s direct children).
    run::kill_group(&child);
    run::disconnect(pasta).await;
    let status = match status {
        Ok(status) => status?,
        Err(_) => {
            let _ = child.wait().await;
            return Err(Error::Git("git took longer than a run may".into()));
        }
    };
    if status.success() {
        return Ok(());
    }
    let stderr = tail.await.unwrap_or_default();
    let last = stderr
        .trim()
        .lines()
        .last()
        .unwrap_or("git failed")
        .to_owned();
    Err(Error::Git(last))
}
