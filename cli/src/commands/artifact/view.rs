//! `svc artifact view`.

use reqwest::Method;
use svc_protocol::artifact::Artifact;

use super::BranchArgs;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// Show an artifact and every version of it
///
/// Its name, kind, repo and branch, when it was made and last updated, then each version
/// with who uploaded it, its files, size and SHA-256 (of the document or image itself),
/// and the files of the newest version. With --json: the artifact as the API answers it.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The artifact's name, like design.md (svc artifact list shows them)
    pub name: String,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    let path = super::path(&target, &branch, &args.name);
    let artifact: Artifact = super::call(&target, target.session.request(Method::GET, &path)?)?;
    print(global, &artifact, || human(&artifact, &target.label()))
}

fn human(a: &Artifact, repo: &str) -> String {
    let mut text = format!("{}  {}\n", a.name, a.kind.as_str());
    text.push_str(&format!("On {} of {repo}\n", a.branch));
    text.push_str(&format!(
        "Made {}, updated {}\n",
        when(a.created_at),
        when(a.updated_at)
    ));
    text.push_str("Versions:\n");
    let mut table = Table::new(&["N", "CREATED", "BY", "FILES", "SIZE", "SHA256"]);
    let mut versions: Vec<_> = a.versions.iter().collect();
    versions.sort_by_key(|v| std::cmp::Reverse(v.n));
    for v in &versions {
        table.row(vec![
            v.n.to_string(),
            when(v.created_at),
            v.created_by.clone(),
            v.files.len().to_string(),
            super::size(v.size),
            v.sha256.get(..12).unwrap_or(&v.sha256).to_owned(),
        ]);
    }
    for line in table.render().lines() {
        text.push_str(&format!("  {line}\n"));
    }
    if let Some(newest) = super::newest(a) {
        text.push_str(&format!("Files of version {}:\n", newest.n));
        let mut table = Table::new(&["PATH", "TYPE", "SIZE"]);
        for f in &newest.files {
            table.row(vec![
                f.path.clone(),
                f.content_type.clone(),
                super::size(f.size),
            ]);
        }
        for line in table.render().lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}
