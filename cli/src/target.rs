//! Which repo a command is about: `-R owner/monorepo/repo`, else the repo of the
//! worktree (worktrees.toml) or clone (clones.toml) that holds the current directory.

use std::path::{Path, PathBuf};

use svc_protocol::monorepo::{Repo, RepoList};

use crate::client::{Session, split_full_name};
use crate::commands::Global;
use crate::config::{self, Clones};
use crate::error::{CommandError, Result};

/// The repo option every branch command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RepoArgs {
    /// <owner>/<monorepo>/<repo> (its name or its path), or <owner>/<repo> for a plain repo [default: the repo of the svc clone you are in]
    #[arg(short = 'R', long = "repo", value_name = "OWNER/MONOREPO/REPO",
          add = clap_complete::ArgValueCompleter::new(crate::complete::repos))]
    pub repo: Option<String>,
}

/// The monorepo option of monorepo-wide commands (issues, labels).
#[derive(Debug, Clone, clap::Args)]
pub struct MonorepoArgs {
    /// <owner>/<monorepo> (a repo's full name works too) [default: the monorepo of the svc clone you are in]
    #[arg(short = 'R', long = "repo", value_name = "OWNER/MONOREPO",
          add = clap_complete::ArgValueCompleter::new(crate::complete::monorepos))]
    pub monorepo: Option<String>,
}

/// A monorepo on a server, with the session to talk to it.
pub struct MonorepoTarget {
    pub session: Session,
    pub owner: String,
    pub monorepo: String,
}

impl MonorepoTarget {
    /// `/v1/monorepos/{owner}/{monorepo}`.
    pub fn path(&self) -> String {
        format!(
            "/v1/monorepos/{}/{}",
            encode(&self.owner),
            encode(&self.monorepo)
        )
    }

    /// `<owner>/<monorepo>`, for messages.
    pub fn label(&self) -> String {
        format!("{}/{}", self.owner, self.monorepo)
    }
}

/// The monorepo `-R` names (its first two parts), else the one of the worktree or clone
/// holding the current directory, wherever in it.
pub fn monorepo(global: &Global, args: &MonorepoArgs) -> Result<MonorepoTarget> {
    let (server, full) = match &args.monorepo {
        Some(full) => (None, full.clone()),
        None => {
            let (server, full) =
                enclosing_monorepo(&std::env::current_dir()?)?.ok_or_else(|| {
                    CommandError::user("no monorepo given and this folder is not in an svc clone")
                        .hint("pass -R <owner>/<monorepo>, or cd into a clone")
                })?;
            (Some(server), full)
        }
    };
    let mut parts = full.splitn(3, '/');
    let (Some(owner), Some(monorepo)) = (parts.next(), parts.next()) else {
        return Err(CommandError::user(format!(
            "-R {full} is not <owner>/<monorepo>"
        )));
    };
    if owner.is_empty() || monorepo.is_empty() {
        return Err(CommandError::user(format!(
            "-R {full} is not <owner>/<monorepo>"
        )));
    }
    let session = Session::open(global.server.as_deref().or(server.as_deref()))?;
    Ok(MonorepoTarget {
        session,
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
    })
}

/// The (server, `<owner>/<monorepo>`) of the worktree or clone holding `cwd`.
fn enclosing_monorepo(cwd: &Path) -> Result<Option<(String, String)>> {
    let registry = crate::commands::worktree::load()?;
    if let Some(worktree) = registry
        .worktrees
        .into_values()
        .filter(|w| relative(cwd, Path::new(&w.path)).is_some())
        .max_by_key(|w| w.path.len())
    {
        return Ok(Some((worktree.server, worktree.monorepo)));
    }
    let clones = Clones::load(&config::config_dir()?)?;
    Ok(clones
        .clones
        .iter()
        .filter(|(path, _)| relative(cwd, Path::new(path.as_str())).is_some())
        .max_by_key(|(path, _)| path.len())
        .map(|(_, clone)| (clone.server.clone(), clone.monorepo.clone())))
}

/// A repo on a server, with the session to talk to it.
pub struct Target {
    pub session: Session,
    pub owner: String,
    pub monorepo: String,
    pub repo: String,
}

impl Target {
    /// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}`.
    pub fn path(&self) -> String {
        format!(
            "/v1/monorepos/{}/{}/repos/{}",
            self.owner, self.monorepo, self.repo
        )
    }

    /// `<owner>/<monorepo>/<repo>`, for messages.
    pub fn label(&self) -> String {
        format!("{}/{}/{}", self.owner, self.monorepo, self.repo)
    }

    /// `{r}/branches/{branch}` with the branch name as one path segment.
    pub fn branch_path(&self, branch: &str) -> String {
        format!("{}/branches/{}", self.path(), encode(branch))
    }
}

/// Percent-encodes all but RFC 3986's unreserved characters, so `/` becomes `%2F`.
pub fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn resolve(global: &Global, args: &RepoArgs) -> Result<Target> {
    match &args.repo {
        Some(full) => named(global, full),
        None => from_cwd(global),
    }
}

fn named(global: &Global, full: &str) -> Result<Target> {
    let session = Session::open(global.server.as_deref())?;
    let (owner, rest) = full.split_once('/').unwrap_or((full, ""));
    if let Some((monorepo, repo)) = rest.split_once('/') {
        let repo = repo.trim_end_matches('/');
        if owner.is_empty() || monorepo.is_empty() || repo.is_empty() {
            return Err(bad_repo(full));
        }
        let repo = match repo.contains('/') {
            true => by_path(&session, owner, monorepo, repo)?,
            false => repo.to_owned(),
        };
        return Ok(Target {
            session,
            owner: owner.to_owned(),
            monorepo: monorepo.to_owned(),
            repo,
        });
    }
    let (owner, monorepo) = split_full_name(full).map_err(|_| bad_repo(full))?;
    let repos: RepoList = session.get(&format!("/v1/monorepos/{owner}/{monorepo}/repos"))?;
    match plain_repo(&repos.items) {
        Some(repo) => Ok(Target {
            owner: owner.to_owned(),
            monorepo: monorepo.to_owned(),
            repo: repo.name.clone(),
            session,
        }),
        None => Err(
            CommandError::user(format!("{full} is a monorepo: say which of its repos"))
                .hint(format!("-R {full}/<repo>; svc repo list {full} lists them")),
        ),
    }
}

fn bad_repo(full: &str) -> CommandError {
    CommandError::user(format!(
        "-R {full} is not <owner>/<monorepo>/<repo> or <owner>/<repo>"
    ))
}

/// The name of the repo at `path` (`services/api` for the repo named `services-api`).
fn by_path(session: &Session, owner: &str, monorepo: &str, path: &str) -> Result<String> {
    let repos: RepoList = session.get(&format!("/v1/monorepos/{owner}/{monorepo}/repos"))?;
    if let Some(repo) = repos.items.iter().find(|r| r.path == path) {
        return Ok(repo.name.clone());
    }
    let mut message = format!("{owner}/{monorepo} has no repo at {path}");
    let near = near_paths(&repos.items, path);
    if !near.is_empty() {
        let near: Vec<String> = near
            .iter()
            .map(|p| format!("{owner}/{monorepo}/{p}"))
            .collect();
        message.push_str(&format!("; did you mean {}?", near.join(", ")));
    }
    Err(CommandError::user(message).hint(format!(
        "svc repo list {owner}/{monorepo} lists its repos and paths"
    )))
}

/// Repo paths near `path`: the same last folder elsewhere, or one inside the other.
fn near_paths<'a>(repos: &'a [Repo], path: &str) -> Vec<&'a str> {
    let last = path.rsplit('/').next().unwrap_or(path);
    repos
        .iter()
        .map(|r| r.path.as_str())
        .filter(|p| {
            *p != "."
                && (p.rsplit('/').next() == Some(last)
                    || p.starts_with(&format!("{path}/"))
                    || path.starts_with(&format!("{p}/")))
        })
        .take(3)
        .collect()
}

/// The one repo of a plain repo, which sits at the root.
fn plain_repo(repos: &[Repo]) -> Option<&Repo> {
    match repos {
        [only] if only.path == "." => Some(only),
        _ => None,
    }
}

fn from_cwd(global: &Global) -> Result<Target> {
    let not_in_clone = || {
        CommandError::user("no repo given and this folder is not in an svc clone")
            .hint("pass -R <owner>/<monorepo>/<repo>, or cd into a repo of a clone")
    };
    let cwd = std::env::current_dir()?;
    if let Some(target) = in_worktree(global, &cwd)? {
        return Ok(target);
    }
    let clones = Clones::load(&config::config_dir()?)?;
    let (rel, clone) = clones
        .clones
        .iter()
        .filter_map(|(path, clone)| {
            let root = PathBuf::from(path);
            let rel = relative(&cwd, &root)?;
            Some((rel, root, clone))
        })
        .max_by_key(|(_, root, _)| root.components().count())
        .map(|(rel, _, clone)| (rel, clone))
        .ok_or_else(not_in_clone)?;
    let session = Session::open(global.server.as_deref().or(Some(&clone.server)))?;
    let (owner, monorepo) = split_full_name(&clone.monorepo)?;
    let repos: RepoList = session.get(&format!("/v1/monorepos/{owner}/{monorepo}/repos"))?;
    let repo = plain_repo(&repos.items)
        .or_else(|| enclosing(&repos.items, &rel))
        .ok_or_else(|| {
            CommandError::user(format!(
                "this folder is in the clone of {} but in none of its repos",
                clone.monorepo
            ))
            .hint("cd into a repo's folder, or pass -R")
        })?;
    Ok(Target {
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
        repo: repo.name.clone(),
        session,
    })
}

/// The repo of the `svc worktree add` worktree holding `cwd`, from what that command
/// recorded: a worktree lives beside its clone, not in it.
fn in_worktree(global: &Global, cwd: &Path) -> Result<Option<Target>> {
    let registry = crate::commands::worktree::load()?;
    let Some(worktree) = registry
        .worktrees
        .into_values()
        .filter(|w| relative(cwd, Path::new(&w.path)).is_some())
        .max_by_key(|w| w.path.len())
    else {
        return Ok(None);
    };
    let session = Session::open(global.server.as_deref().or(Some(&worktree.server)))?;
    let (owner, monorepo) = split_full_name(&worktree.monorepo)?;
    Ok(Some(Target {
        owner: owner.to_owned(),
        monorepo: monorepo.to_owned(),
        repo: worktree.repo.clone(),
        session,
    }))
}

/// `cwd` relative to `root` with `/` separators, when it is inside; symlinked roots count.
fn relative(cwd: &Path, root: &Path) -> Option<String> {
    let rel = match cwd.strip_prefix(root) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => cwd
            .strip_prefix(root.canonicalize().ok()?)
            .ok()?
            .to_path_buf(),
    };
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// The repo whose folder holds `rel`, the deepest when repos nest.
fn enclosing<'a>(repos: &'a [Repo], rel: &str) -> Option<&'a Repo> {
    repos
        .iter()
        .filter(|r| r.path != "." && (rel == r.path || rel.starts_with(&format!("{}/", r.path))))
        .max_by_key(|r| r.path.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_are_one_segment() {
        assert_eq!(encode("feature/a b+c"), "feature%2Fa%20b%2Bc");
        assert_eq!(encode("v1.2_x~y-z"), "v1.2_x~y-z");
    }

    #[test]
    fn the_deepest_repo_holding_the_folder_wins() {
        let repo = |path: &str| Repo {
            name: path.replace('/', "-"),
            path: path.to_owned(),
            clone_url: String::new(),
            default_branch: "main".to_owned(),
            releases_public: false,
            monorepo: "o/m".to_owned(),
            monorepo_id: "m_1".to_owned(),
            created_at: time::OffsetDateTime::UNIX_EPOCH,
        };
        let repos = [
            repo("services/api"),
            repo("services/api/plugins"),
            repo("web"),
        ];
        let name = |rel: &str| enclosing(&repos, rel).map(|r| r.name.as_str());
        assert_eq!(name("services/api/src"), Some("services-api"));
        assert_eq!(name("services/api/plugins/x"), Some("services-api-plugins"));
        assert_eq!(name("web"), Some("web"));
        assert_eq!(name("webby"), None);
        assert_eq!(name("services"), None);
        assert_eq!(name(""), None);
        assert_eq!(near_paths(&repos, "apps/api"), ["services/api"]);
        assert_eq!(
            near_paths(&repos, "services/api/plugins/x"),
            ["services/api", "services/api/plugins"]
        );
        assert!(near_paths(&repos, "docs/site").is_empty());
    }
}
