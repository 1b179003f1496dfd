//! `svc deploy record`.

use reqwest::Method;
use svc_protocol::release::{CreateDeployment, Deployment};

use crate::commands::{Global, branch, print};
use crate::error::Result;
use crate::target::{self, RepoArgs};
use crate::workdir;

/// Record a deployment of a commit or release to an environment
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Where it went, like production
    pub environment: String,
    /// The deployed commit: a full sha, or what git resolves here (HEAD, a short sha) [default: the release's commit, else main's head]
    #[arg(long, value_name = "COMMIT")]
    pub sha: Option<String>,
    /// The published release deployed [default: the newest published release at the commit]
    #[arg(long, value_name = "TAG")]
    pub release: Option<String>,
    /// Where to see the deployment
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// One line about it
    #[arg(long, short = 'd')]
    pub description: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let target = target::resolve(global, &args.repo)?;
    let body = CreateDeployment {
        environment: args.environment.clone(),
        sha: args.sha.as_deref().map(workdir::commit_sha).transpose()?,
        release: args.release.clone(),
        url: args.url.clone(),
        description: args.description.clone(),
    };
    let path = format!("{}/deployments", target.path());
    let deployment: Deployment = target
        .session
        .call(target.session.request(Method::POST, &path)?.json(&body))?;
    print(global, &deployment, || {
        let mut text = format!(
            "Recorded deployment {} of {}",
            deployment.id,
            branch::short(&deployment.sha)
        );
        if let Some(release) = &deployment.release {
            text.push_str(&format!(" ({release})"));
        }
        text.push_str(&format!(" to {}", deployment.environment));
        text
    })
}
