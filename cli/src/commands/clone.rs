//! `svc clone`: lays a monorepo out on disk.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

use svc_protocol::monorepo::{Monorepo, MonorepoKind, Repo, RepoList};
use svc_protocol::user::User;

use super::Global;
use super::auth::setup_git;
use crate::client::{Session, split_full_name};
use crate::config::{self, Clones};
use crate::error::{CommandError, Result};
use crate::terminal::outln;

/// Clone a monorepo: each repo's main at its path, the meta layer's files in .svc/
#[derive(Debug, clap::Args)]
pub struct Args {
    /// <owner>/<monorepo>, or just <monorepo> for one of your own
    #[arg(add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: String,
    /// Where to put it [default: the monorepo's name]
    pub dir: Option<PathBuf>,
    /// Partial clone: leave out what FILTER names until a checkout needs it (blob:none:
    /// file contents; blob:limit=<size>: larger files; tree:<depth>: trees too)
    #[arg(long, value_name = "FILTER", value_parser = parse_filter)]
    pub filter: Option<String>,
    /// Check out only these folders (paths in the monorepo, comma-separated or repeated);
    /// other repos get only their top-level files. Implies --filter blob:none
    #[arg(long, value_name = "PATHS", value_delimiter = ',')]
    pub sparse: Vec<String>,
}

/// A filter git and the server understand (`git clone --filter`).
fn parse_filter(filter: &str) -> std::result::Result<String, String> {
    let size = |n: &str| {
        let digits = n.trim_end_matches(['k', 'm', 'g', 'K', 'M', 'G']);
        !digits.is_empty()
            && digits.len() + 1 >= n.len()
            && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let ok = match filter.split_once(':') {
        Some(("blob", "none")) => true,
        Some(("blob", limit)) => limit.strip_prefix("limit=").is_some_and(size),
        Some(("tree", depth)) => !depth.is_empty() && depth.bytes().all(|b| b.is_ascii_digit()),
        _ => false,
    };
    ok.then(|| filter.to_owned())
        .ok_or_else(|| "use blob:none, blob:limit=<size> (like 1m) or tree:<depth>".to_owned())
}

/// What of one repo a sparse clone checks out.
#[derive(Debug, PartialEq, Eq)]
enum Sparse {
    /// All of it (no --sparse, or a path naming the repo or a folder holding it).
    All,
    /// These folders of it, relative to the repo; none: only its top-level files.
    Folders(Vec<String>),
}

/// The part of `paths` (monorepo paths) inside the repo at `repo_path`.
fn sparse_of(paths: &[String], repo_path: &str) -> Sparse {
    if paths.is_empty() {
        return Sparse::All;
    }
    let mut folders = Vec::new();
    for path in paths.iter().map(|p| p.trim_matches('/')) {
        let inside = |outer: &str, inner: &str| {
            outer == "." || outer == inner || inner.starts_with(&format!("{outer}/"))
        };
        if path.is_empty() || inside(path, repo_path) {
            return Sparse::All;
        }
        if repo_path == "." {
            folders.push(path.to_owned());
        } else if inside(repo_path, path) {
            folders.push(path[repo_path.len() + 1..].to_owned());
        }
    }
    Sparse::Folders(folders)
}

/// A folder being filled; removed unless the clone finishes, so a failure leaves nothing.
struct Staging {
    path: PathBuf,
    done: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let full = match args.monorepo.contains('/') {
        true => args.monorepo.clone(),
        false => {
            let me: User = session.get("/v1/user")?;
            format!("{}/{}", me.login, args.monorepo)
        }
    };
    let (owner, name) = split_full_name(&full)?;
    let m = format!("/v1/monorepos/{owner}/{name}");
    let monorepo: Monorepo = session.get(&m)?;
    let repos: RepoList = session.get(&format!("{m}/repos"))?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&monorepo.name));
    if dir.exists() && std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_some()) {
        return Err(
            CommandError::user(format!("{} exists and is not empty", dir.display()))
                .hint("pick another folder"),
        );
    }
    let dir = std::path::absolute(&dir)?;
    let parent = dir
        .parent()
        .ok_or_else(|| CommandError::user("cannot clone into /"))?;
    std::fs::create_dir_all(parent)?;
    let file_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut staging = Staging {
        path: parent.join(format!(".{file_name}.svc-clone-{}", std::process::id())),
        done: false,
    };
    std::fs::create_dir(&staging.path)?;

    let mut ordered = repos.items.clone();
    ordered.sort_by(|a, b| a.path.cmp(&b.path));
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(ordered.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        bar
    });
    for repo in &ordered {
        if let Some(bar) = &bar {
            bar.set_message(repo.path.clone());
        }
        let target = if monorepo.kind == MonorepoKind::Repo || repo.path == "." {
            staging.path.clone()
        } else {
            staging.path.join(&repo.path)
        };
        let sparse = sparse_of(&args.sparse, &repo.path);
        let filter = args
            .filter
            .as_deref()
            .or((!args.sparse.is_empty()).then_some("blob:none"));
        clone_repo(&session, repo, &target, filter, &sparse)?;
        if let Some(enclosing) = ordered
            .iter()
            .rfind(|o| repo.path.starts_with(&format!("{}/", o.path)))
        {
            let rel = &repo.path[enclosing.path.len() + 1..];
            exclude(&staging.path.join(&enclosing.path), rel)?;
        }
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if monorepo.kind == MonorepoKind::Monorepo {
        // The first sync: `.svc/` with the meta layer's files and the sync state the
        // daemon and `svc sync` go on from, even while the layer is empty.
        super::sync::sync_clone(&session.server, &monorepo.full_name, &staging.path)?;
    }
    std::fs::rename(&staging.path, &dir).map_err(|e| {
        CommandError::internal(format!("cannot move the clone into {}", dir.display())).because(&e)
    })?;
    staging.done = true;

    let config_dir = config::config_dir()?;
    let mut clones = Clones::load(&config_dir)?;
    clones.clones.insert(
        dir.display().to_string(),
        config::Clone {
            server: session.server.clone(),
            monorepo: monorepo.full_name.clone(),
            monorepo_id: monorepo.id.clone(),
        },
    );
    clones.save(&config_dir)?;
    super::daemon::nudge();
    outln!(
        "Cloned {} into {} ({} repos)",
        monorepo.full_name,
        dir.display(),
        ordered.len()
    )?;
    Ok(())
}

/// `git clone` of one repo's main, authenticating through `svc git-credential` and
/// keeping that set up in the clone; no token goes into any URL. With a filter it is a
/// partial clone, and a sparse one checks out only its folders; the contents those
/// need come afterwards, through the helper set up here.
fn clone_repo(
    session: &Session,
    repo: &Repo,
    target: &Path,
    filter: Option<&str>,
    sparse: &Sparse,
) -> Result<()> {
    let helper = setup_git::helper()?;
    std::fs::create_dir_all(target)?;
    let mut clone = Command::new("git");
    clone
        .args(["-c", "credential.helper=", "-c"])
        .arg(format!("credential.helper={helper}"))
        .args(["clone", "--quiet"]);
    if let Some(filter) = filter {
        clone.arg(format!("--filter={filter}"));
    }
    if let Sparse::Folders(_) = sparse {
        clone.arg("--sparse");
    }
    git_ok(clone.arg(&repo.clone_url).arg(target), &repo.path)?;
    let git_in = || {
        let mut git = Command::new("git");
        git.arg("-C").arg(target).env("GIT_TERMINAL_PROMPT", "0");
        git
    };
    setup_git::configure(&mut || git_in(), &session.server, "--local")?;
    if let Sparse::Folders(folders) = sparse
        && !folders.is_empty()
    {
        git_ok(
            git_in()
                .args(["sparse-checkout", "set", "--cone", "--"])
                .args(folders),
            &repo.path,
        )?;
    }
    Ok(())
}

/// Runs git for the repo at `path`, its stderr in the error.
fn git_ok(git: &mut Command, path: &str) -> Result<()> {
    let out = git.env("GIT_TERMINAL_PROMPT", "0").output().map_err(|e| {
        CommandError::user("cannot run git")
            .because(&e)
            .hint("install git")
    })?;
    if !out.status.success() {
        return Err(CommandError::user(format!(
            "git could not clone {path}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Keeps a nested repo out of the enclosing repo's status.
fn exclude(enclosing: &Path, rel: &str) -> Result<()> {
    use std::io::Write;
    let path = enclosing.join(".git/info/exclude");
    std::fs::create_dir_all(path.parent().unwrap_or(enclosing))?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    writeln!(file, "/{rel}/")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn sparse_paths_fall_to_the_repos_holding_them() {
        let p = paths(&["services/api/src", "web", "docs/guide/"]);
        assert_eq!(sparse_of(&[], "services/api"), Sparse::All);
        assert_eq!(
            sparse_of(&p, "services/api"),
            Sparse::Folders(vec!["src".into()])
        );
        assert_eq!(
            sparse_of(&p, "web/client"),
            Sparse::All,
            "inside a named folder"
        );
        assert_eq!(sparse_of(&p, "web"), Sparse::All);
        assert_eq!(sparse_of(&p, "lib"), Sparse::Folders(vec![]));
        assert_eq!(
            sparse_of(&p, "."),
            Sparse::Folders(vec![
                "services/api/src".into(),
                "web".into(),
                "docs/guide".into()
            ])
        );
        assert_eq!(
            sparse_of(&paths(&["services/apiary"]), "services/api"),
            Sparse::Folders(vec![])
        );
    }

    #[test]
    fn filters_git_knows() {
        for ok in [
            "blob:none",
            "blob:limit=1m",
            "blob:limit=2048",
            "tree:0",
            "tree:3",
        ] {
            assert_eq!(parse_filter(ok).as_deref(), Ok(ok));
        }
        for bad in [
            "blob",
            "blob:limit=",
            "blob:limit=mm",
            "tree:",
            "tree:x",
            "sparse:oid=x",
            "",
        ] {
            assert!(parse_filter(bad).is_err(), "{bad}");
        }
    }
}
