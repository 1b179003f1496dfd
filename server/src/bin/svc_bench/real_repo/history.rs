//! Bringing a whole history into svc: the import API (a bundle of every ref streamed to
//! `PUT .../imports/{id}/bundle`) or, where the server has no import yet, pushes through
//! the door as a user must do it then: each ref in steps of first-parent commits, each
//! step's objects under the push limit, `main` pushed once at its final commit.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::super::common::{git, git_door, mib, run, timed};

/// The server's refusal size for one push.
const PUSH_LIMIT: u64 = 64 * 1024 * 1024;
/// What one step aims at: the on-disk size of its objects, which a thin pack of them
/// only roughly matches.
const STEP_TARGET: u64 = 32 * 1024 * 1024;

/// How the history came in, and how long it took.
pub struct Imported {
    pub how: String,
    pub took: Duration,
    pub clone_url: String,
}

/// Imports `src` (a bare repository) as repo `repo` of monorepo `full`.
pub async fn import(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    full: &str,
    repo: &str,
    src: &Path,
) -> anyhow::Result<Imported> {
    let imports = format!("{base}/v1/monorepos/{full}/imports");
    let start = Instant::now();
    let r = client
        .post(&imports)
        .bearer_auth(token)
        .json(&json!({"path": repo}))
        .send()
        .await?;
    if matches!(r.status().as_u16(), 404 | 405) {
        println!(
            "no import API on this server ({}): pushing the history in steps",
            r.status()
        );
        return push_all(client, base, token, full, repo, src).await;
    }
    let status = r.status();
    let created: Value = serde_json::from_str(&r.text().await?)?;
    if status != reqwest::StatusCode::CREATED {
        bail!("createImport answered {status}: {created}");
    }
    let id = created["id"]
        .as_str()
        .map_or_else(|| created["id"].to_string(), str::to_owned);
    let url = format!("{imports}/{id}/bundle");
    let mut bundle = git(src)
        .args(["bundle", "create", "-", "--all"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let out = Command::new("curl")
        .args(["-sS", "--fail-with-body", "-T", "-", "-H"])
        .arg(format!("Authorization: Bearer {token}"))
        .args(["-H", "Content-Type: application/octet-stream", url.as_str()])
        .stdin(Stdio::from(
            bundle.stdout.take().context("no bundle output")?,
        ))
        .output()?;
    let bundled = bundle.wait()?;
    if !bundled.success() || !out.status.success() {
        bail!(
            "the bundle upload failed (bundle {bundled}, curl {}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut answer: Value = serde_json::from_slice(&out.stdout)?;
    // The contract answers the finished import; wait in case this one answers early.
    while answer["state"] != "done" {
        if answer["state"] == "failed" {
            bail!("the import failed: {answer}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        answer = client
            .get(format!("{imports}/{id}"))
            .bearer_auth(token)
            .send()
            .await?
            .json()
            .await?;
    }
    let took = start.elapsed();
    let clone_url = repo_url(client, base, token, full, repo).await?;
    Ok(Imported {
        how: "import API (bundle of all refs)".into(),
        took,
        clone_url,
    })
}

async fn repo_url(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    full: &str,
    repo: &str,
) -> anyhow::Result<String> {
    let r: Value = client
        .get(format!("{base}/v1/monorepos/{full}/repos/{repo}"))
        .bearer_auth(token)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(r["clone_url"]
        .as_str()
        .context("no clone_url for the repo")?
        .to_owned())
}

/// The fallback: creates the repo, then pushes `main` (in steps through a scratch
/// branch), every other branch in steps, then every tag. Only the pushes are timed.
async fn push_all(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    full: &str,
    repo: &str,
    src: &Path,
) -> anyhow::Result<Imported> {
    let r = client
        .post(format!("{base}/v1/monorepos/{full}/repos"))
        .bearer_auth(token)
        .json(&json!({"path": repo}))
        .send()
        .await?;
    if r.status() != reqwest::StatusCode::CREATED {
        bail!("createRepo answered {}: {}", r.status(), r.text().await?);
    }
    let url = repo_url(client, base, token, full, repo).await?;
    let mut pusher = Pusher {
        src,
        url: &url,
        token,
        pushed: Vec::new(),
        took: Duration::ZERO,
        pushes: 0,
    };
    let main = run(git(src).args(["rev-parse", "refs/heads/main"]))?;
    pusher.in_steps(&main, "refs/heads/svc-bench-steps")?;
    pusher.push(&[format!("{main}:refs/heads/main")])?;
    if let Err(e) = pusher.push(&[":refs/heads/svc-bench-steps".to_owned()]) {
        println!("the scratch branch stays: {e:#}");
    }
    let branches = run(git(src).args([
        "for-each-ref",
        "--format=%(objectname) %(refname)",
        "refs/heads/",
    ]))?;
    for line in branches.lines() {
        let (sha, name) = line.split_once(' ').context("bad for-each-ref line")?;
        if name != "refs/heads/main" {
            pusher.in_steps(sha, name)?;
        }
    }
    pusher.push(&["refs/tags/*:refs/tags/*".to_owned()])?;
    Ok(Imported {
        how: format!(
            "door pushes in {} steps under the {} push limit (no import API)",
            pusher.pushes,
            mib(PUSH_LIMIT)
        ),
        took: pusher.took,
        clone_url: url,
    })
}

struct Pusher<'a> {
    src: &'a Path,
    url: &'a str,
    token: &'a str,
    /// Commits the server holds (with their history).
    pushed: Vec<String>,
    took: Duration,
    pushes: usize,
}

impl Pusher<'_> {
    fn push(&mut self, refspecs: &[String]) -> anyhow::Result<()> {
        self.took += timed(
            git_door(self.src, self.token)
                .args(["push", "-q", self.url])
                .args(refspecs),
        )?;
        self.pushes += 1;
        Ok(())
    }

    /// On-disk bytes of the objects of `tip` the server lacks.
    fn usage(&self, tip: &str) -> anyhow::Result<u64> {
        let mut cmd = git(self.src);
        cmd.args(["rev-list", "--objects", "--disk-usage", tip, "--not"])
            .args(&self.pushed);
        Ok(run(&mut cmd)?.parse()?)
    }

    /// Pushes `refname` at `tip` through its first-parent commits the server lacks,
    /// each step's objects about [`STEP_TARGET`].
    fn in_steps(&mut self, tip: &str, refname: &str) -> anyhow::Result<()> {
        let mut cmd = git(self.src);
        cmd.args(["rev-list", "--first-parent", "--reverse", tip, "--not"])
            .args(&self.pushed);
        let chain: Vec<String> = run(&mut cmd)?.lines().map(str::to_owned).collect();
        let mut at = 0;
        let mut step = 1000;
        while at < chain.len() {
            let end = (at + step).min(chain.len()) - 1;
            let usage = self.usage(&chain[end])?;
            if usage > STEP_TARGET && end > at {
                step = (step / 2).max(1);
                continue;
            }
            let start = Instant::now();
            self.push(&[format!("{}:{refname}", chain[end])])?;
            println!(
                "  pushed {refname} at {:.12} ({} commits on, {}): {:.1} s",
                chain[end],
                end + 1 - at,
                mib(usage),
                start.elapsed().as_secs_f64()
            );
            self.pushed.push(chain[end].clone());
            at = end + 1;
            if usage < STEP_TARGET / 4 {
                step *= 2;
            }
        }
        if chain.is_empty() {
            self.push(&[format!("{tip}:{refname}")])?;
        }
        self.pushed.push(tip.to_owned());
        Ok(())
    }
}
