//! `svc ci start`.

use reqwest::Method;
use svc_protocol::ci::{CiBuild, StartCiBuild};

use crate::commands::{Global, print};
use crate::error::Result;
use crate::target::{self, MonorepoTarget, RepoArgs, encode};
use crate::workdir;

/// Start a build of a branch's head on a pipeline (members)
///
/// The CI service builds the branch's head as svc holds it (push first), with the same
/// environment a push's CI hook gives a build; the build is listed at once. The repo is
/// the one -R names, else the one of the svc clone you are in.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// The pipeline's slug (svc ci status lists the pipelines builds came from)
    pub pipeline: String,
    /// The branch to build [default: the branch checked out here]
    #[arg(long, short = 'b', add = clap_complete::ArgValueCompleter::new(crate::complete::branches))]
    pub branch: Option<String>,
    /// The CI connection whose pipeline it is, when the monorepo has several (svc ci status shows them)
    #[arg(long, value_name = "ID")]
    pub connection: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let branch = workdir::branch_or_current(args.branch.as_deref()).map_err(|mut e| {
        for hint in &mut e.hints {
            if hint == "name the branch" {
                *hint = "name it with --branch <name>".to_owned();
            }
        }
        e
    })?;
    let repo = target::resolve(global, &args.repo)?;
    let target = MonorepoTarget {
        session: repo.session,
        owner: repo.owner,
        monorepo: repo.monorepo,
    };
    let body = StartCiBuild {
        branch: branch.clone(),
        repo: Some(repo.repo),
    };
    let mut path = format!(
        "{}/pipelines/{}/builds",
        super::ci_path(&target),
        encode(&args.pipeline)
    );
    if let Some(connection) = &args.connection {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("connection", connection);
        path.push('?');
        path.push_str(&query.finish());
    }
    let build: CiBuild = super::call(
        &target,
        target.session.request(Method::POST, &path)?.json(&body),
    )?;
    print(global, &build, || {
        let mut text = format!(
            "Started {} of {} at {}",
            super::label(&build),
            build.branch.as_deref().unwrap_or(&branch),
            super::short_sha(build.commit.as_deref())
        );
        if let Some(url) = &build.web_url {
            text.push_str(&format!(": {url}"));
        }
        text
    })
}
