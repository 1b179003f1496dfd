//! Typed path parameters of the API's routes, each resolving itself through [`authz`].
//!
//! A handler takes `Path(path): Path<RepoPath>` (say) and asks the path for what it names:
//! the monorepo with the caller's access, the repo, the live branch. The structs also
//! describe their parameters in the OpenAPI document (`params(RepoPath, ...)`); their
//! fields keep the order in which the route's path names them.

use std::collections::HashMap;

use serde::Deserialize;
use svc_protocol::ErrorCode;
use utoipa::IntoParams;

use crate::auth::Caller;
use crate::authz::{self, Access, Need, OrgAccess, OrgNeed};
use crate::error::{ApiError, ApiResult};
use crate::store::H;
use crate::store::artifacts;
use crate::store::branches::{self, BranchRow};
use crate::store::ci;
use crate::store::hooks::{self, DeliveryRow, HookRow};
use crate::store::issues::{self, CommentRow, IssueRow};
use crate::store::labels::{self, LabelRow};
use crate::store::monorepos::MonorepoRow;
use crate::store::repos::{self, RepoRow};
use crate::suggest;

/// The words of a monorepo's own web pages, `/{owner}/{monorepo}/{word}` (the issues,
/// the agent sessions, CI, the chats, the settings). They share that level with the git door's
/// `/{owner}/{monorepo}/{repo}`, which also answers a repo so named (see `git::door`);
/// the repo's pages are under `/-/{repo}`, so no repo name collides with them.
pub const MONOREPO_PAGES: [&str; 5] = ["issues", "agents", "ci", "chats", "settings"];

/// `/v1/monorepos/{owner}/{monorepo}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MonorepoPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
}

impl MonorepoPath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }

    /// The repo `name` of this monorepo (`meta` names the meta layer).
    pub fn repo(&self, name: &str) -> RepoPath {
        RepoPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            repo: name.to_owned(),
        }
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct RepoPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case); `meta` names the meta layer.
    pub repo: String,
}

impl RepoPath {
    /// The monorepo with the caller's access, and the repo (`meta` included).
    pub async fn resolve(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow)> {
        resolve(h, caller, (&self.owner, &self.monorepo, &self.repo), need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BranchPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The branch's name; its slashes may be sent raw or as `%2F`.
    pub branch: String,
}

impl BranchPath {
    /// The monorepo with the caller's access, and the repo.
    pub async fn resolve(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow)> {
        resolve(h, caller, (&self.owner, &self.monorepo, &self.repo), need).await
    }

    /// The branch in `repo` (resolved from this path), when git still has it.
    pub async fn live(&self, h: H<'_>, repo: &RepoRow) -> ApiResult<BranchRow> {
        live_branch(h, repo, &self.branch).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/changes/{branch}`: the branches of one name across
/// the monorepo's repos.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ChangePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The branch name the change goes by; its slashes sent as `%2F`.
    pub branch: String,
}

impl ChangePath {
    /// The monorepo with the caller's access, and each of its repos (not the meta
    /// layer) with its branch of this name that git still has, by repo name; 404 when
    /// no repo has one (`open_only`: no open one).
    pub async fn resolve(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
        open_only: bool,
    ) -> ApiResult<(Access, Vec<(RepoRow, BranchRow)>)> {
        let access =
            authz::monorepo(h.reborrow(), caller, &self.owner, &self.monorepo, need).await?;
        let mut found = Vec::new();
        let mut all = repos::all(h.reborrow(), &access.monorepo.id).await?;
        all.retain(|r| !r.is_meta);
        all.sort_by(|a, b| a.name.cmp(&b.name));
        let ids: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
        let mut named: HashMap<String, BranchRow> = branches::named_in(h, &ids, &self.branch)
            .await?
            .into_iter()
            .map(|b| (b.repo_id.clone(), b))
            .collect();
        for repo in all {
            let branch = named.remove(&repo.id);
            let Some(branch) = branch.filter(|b| {
                b.name != repo.default_branch
                    && if open_only {
                        b.state == "open"
                    } else {
                        b.state != "deleted"
                    }
            }) else {
                continue;
            };
            found.push((repo, branch));
        }
        if found.is_empty() {
            let mut e = ApiError::not_found("change");
            e.message = format!(
                "no repo of {} has {} branch {}",
                access.monorepo.label(),
                if open_only { "an open" } else { "a" },
                self.branch
            );
            return Err(e);
        }
        Ok((access, found))
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}` (and `statuses/{sha}`).
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CommitPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The commit's full sha, 40 hex digits.
    pub sha: String,
}

impl CommitPath {
    /// The monorepo with the caller's access, and the repo.
    pub async fn resolve(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow)> {
        resolve(h, caller, (&self.owner, &self.monorepo, &self.repo), need).await
    }

    /// The repo part of this path.
    pub fn repo(&self) -> RepoPath {
        RepoPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            repo: self.repo.clone(),
        }
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/members/{login}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct MemberPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The member's login (any case).
    pub login: String,
}

impl MemberPath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/invites/{email}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct InvitePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The invited email address (any case).
    pub email: String,
}

impl InvitePath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/worktrees/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct WorktreePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The worktree's id, chosen by the machine reporting it.
    pub id: String,
}

impl WorktreePath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/meta/blobs/{sha256}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct BlobPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The content's SHA-256, 64 lower-case hex digits.
    pub sha256: String,
}

impl BlobPath {
    /// The monorepo part of this path.
    pub fn monorepo(&self) -> MonorepoPath {
        MonorepoPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
        }
    }
}

/// `/v1/orgs/{org}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct OrgPath {
    /// The organization's login (any case).
    pub org: String,
}

impl OrgPath {
    /// The org with the caller's role, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: OrgNeed) -> ApiResult<OrgAccess> {
        authz::org(h, caller, &self.org, need).await
    }
}

/// `/v1/orgs/{org}/members/{login}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct OrgMemberPath {
    /// The organization's login (any case).
    pub org: String,
    /// The person's login (any case).
    pub login: String,
}

impl OrgMemberPath {
    /// The org with the caller's role, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: OrgNeed) -> ApiResult<OrgAccess> {
        authz::org(h, caller, &self.org, need).await
    }
}

/// `/v1/orgs/{org}/invites/{email}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct OrgInvitePath {
    /// The organization's login (any case).
    pub org: String,
    /// The invited email address (any case).
    pub email: String,
}

impl OrgInvitePath {
    /// The org with the caller's role, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: OrgNeed) -> ApiResult<OrgAccess> {
        authz::org(h, caller, &self.org, need).await
    }
}

/// `/v1/user/credentials/{id}`: one of the caller's own credentials, so no monorepo to
/// authorize.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CredentialPath {
    /// The credential's id.
    pub id: String,
}

/// Resolves `{r}`: the monorepo with the caller's access, and the repo (`meta` included).
async fn resolve(
    mut h: H<'_>,
    caller: &Caller,
    (owner, monorepo, repo): (&str, &str, &str),
    need: Need,
) -> ApiResult<(Access, RepoRow)> {
    let access = authz::monorepo(h.reborrow(), caller, owner, monorepo, need).await?;
    match repos::by_name(
        h.reborrow(),
        &access.monorepo.id,
        &repo.to_ascii_lowercase(),
    )
    .await?
    {
        Some(row) => Ok((access, row)),
        None => Err(repo_not_found(h, &access.monorepo, repo).await?),
    }
}

/// The repo `name` names in the monorepo (not the meta layer), or its one repo when
/// `name` is left out (a plain repo, or a monorepo of one repo).
pub async fn named_or_only(
    mut h: H<'_>,
    monorepo: &MonorepoRow,
    name: Option<&str>,
) -> ApiResult<RepoRow> {
    let Some(name) = name else {
        let rows = repos::all(h, &monorepo.id).await?;
        let mut code = rows.into_iter().filter(|r| !r.is_meta);
        return match (code.next(), code.next()) {
            (Some(only), None) => Ok(only),
            _ => Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                format!("name the repo (`repo`): {} holds several", monorepo.label()),
            )),
        };
    };
    match repos::by_name(h.reborrow(), &monorepo.id, &name.to_ascii_lowercase()).await? {
        Some(row) if !row.is_meta => Ok(row),
        _ => Err(repo_not_found(h, monorepo, name).await?),
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/agents/{id}/...`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct AgentPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The session's id.
    pub id: String,
}

impl AgentPath {
    /// The monorepo and the session, when the caller may do `need` in the monorepo and
    /// see the session (a chat only its own person sees: 404 to anyone else).
    pub async fn load(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, crate::store::agents::SessionRow)> {
        let access =
            authz::monorepo(h.reborrow(), caller, &self.owner, &self.monorepo, need).await?;
        let row = crate::store::agents::get(h, &access.monorepo.id, &self.id)
            .await?
            .filter(|r| r.kind != "chat" || r.launcher_id == caller.user_id)
            .ok_or_else(|| ApiError::not_found(&format!("agent session {}", self.id)))?;
        Ok((access, row))
    }
}

/// 404 for a repo the monorepo lacks, suggesting its repos with near names (the caller
/// may see them all).
async fn repo_not_found(h: H<'_>, monorepo: &MonorepoRow, name: &str) -> ApiResult<ApiError> {
    let rows = repos::all(h, &monorepo.id).await?;
    let visible = rows.iter().filter(|r| !r.is_meta).map(|r| r.name.as_str());
    Ok(suggest::not_found(
        "repo",
        &format!("{}/", monorepo.label()),
        name,
        visible,
    ))
}

/// A stored branch that git still has (open or merged); the default branch is not one.
pub async fn live_branch(mut h: H<'_>, repo: &RepoRow, name: &str) -> ApiResult<BranchRow> {
    match branches::get(h.reborrow(), &repo.id, name)
        .await?
        .filter(|b| b.state != "deleted" && b.name != repo.default_branch)
    {
        Some(row) => Ok(row),
        None => Err(branch_not_found(h, repo, name).await?),
    }
}

/// 404 for a branch the repo lacks, suggesting its live branches with near names.
pub async fn branch_not_found(h: H<'_>, repo: &RepoRow, name: &str) -> ApiResult<ApiError> {
    let rows = branches::live(h, &repo.id).await?;
    let visible = rows
        .iter()
        .filter(|b| b.name != repo.default_branch)
        .map(|b| b.name.as_str());
    Ok(suggest::not_found("branch", "", name, visible))
}

/// `/v1/monorepos/{owner}/{monorepo}/issues/{number}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IssuePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The issue's number in the monorepo.
    pub number: i64,
}

impl IssuePath {
    /// The monorepo with the caller's access, and the issue.
    pub async fn load(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, IssueRow)> {
        load_issue(h, caller, (&self.owner, &self.monorepo, self.number), need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IssueCommentPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The issue's number in the monorepo.
    pub number: i64,
    /// The comment's id.
    pub id: i64,
}

impl IssueCommentPath {
    /// The monorepo with the caller's access, the issue and the comment.
    pub async fn load(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, IssueRow, CommentRow)> {
        let (access, issue) = load_issue(
            h.reborrow(),
            caller,
            (&self.owner, &self.monorepo, self.number),
            need,
        )
        .await?;
        let comment = issues::comment(h, issue.id, self.id)
            .await?
            .ok_or_else(|| ApiError::not_found("comment"))?;
        Ok((access, issue, comment))
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/issues/{number}/reactions/{content}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct IssueReactionPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The issue's number in the monorepo.
    pub number: i64,
    /// `+1`, `-1`, `laugh`, `hooray`, `confused`, `heart`, `rocket` or `eyes`.
    pub content: String,
}

impl IssueReactionPath {
    /// The issue reacted to.
    pub fn issue(&self) -> IssuePath {
        IssuePath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            number: self.number,
        }
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions/{content}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CommentReactionPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The issue's number in the monorepo.
    pub number: i64,
    /// The comment's id.
    pub id: i64,
    /// `+1`, `-1`, `laugh`, `hooray`, `confused`, `heart`, `rocket` or `eyes`.
    pub content: String,
}

impl CommentReactionPath {
    /// The issue of the comment reacted to.
    pub fn issue(&self) -> IssuePath {
        IssuePath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            number: self.number,
        }
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/labels/{name}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct LabelPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The label's name (any case).
    pub name: String,
}

impl LabelPath {
    /// The monorepo with the caller's access, and the label.
    pub async fn load(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, LabelRow)> {
        let access =
            authz::monorepo(h.reborrow(), caller, &self.owner, &self.monorepo, need).await?;
        let label = labels::by_name(h, &access.monorepo.id, &self.name)
            .await?
            .ok_or_else(|| ApiError::not_found("label"))?;
        Ok((access, label))
    }
}

/// Resolves `{m}/issues/{number}`: the monorepo with the caller's access, and the issue.
async fn load_issue(
    mut h: H<'_>,
    caller: &Caller,
    (owner, monorepo, number): (&str, &str, i64),
    need: Need,
) -> ApiResult<(Access, IssueRow)> {
    let access = authz::monorepo(h.reborrow(), caller, owner, monorepo, need).await?;
    let issue = issues::by_number(h, &access.monorepo.id, number)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("issue #{number}")))?;
    Ok((access, issue))
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ReleasePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The release's tag (a `/` in it sent as `%2F`).
    pub tag: String,
}

impl ReleasePath {
    /// The monorepo with the caller's access, and the repo.
    pub async fn resolve(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow)> {
        resolve(h, caller, (&self.owner, &self.monorepo, &self.repo), need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ReleaseFilePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The release's tag (a `/` in it sent as `%2F`); `latest` names the newest
    /// published release when downloading.
    pub tag: String,
    /// The file's name.
    pub name: String,
}

impl ReleaseFilePath {
    /// The monorepo with the caller's access, and the repo.
    pub async fn resolve(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow)> {
        resolve(h, caller, (&self.owner, &self.monorepo, &self.repo), need).await
    }

    /// The monorepo and repo for a download: a member's, or anyone's (signed in or not)
    /// when the repo's releases are public.
    pub async fn resolve_download(
        &self,
        mut h: H<'_>,
        caller: Option<&Caller>,
    ) -> ApiResult<(MonorepoRow, RepoRow)> {
        let label = (
            self.owner.as_str(),
            self.monorepo.as_str(),
            self.repo.as_str(),
        );
        let member = match caller {
            Some(caller) => match resolve(h.reborrow(), caller, label, Need::Read).await {
                Ok((access, repo)) => return Ok((access.monorepo, repo)),
                Err(e) => Some(e),
            },
            None => None,
        };
        let public = authz::public_releases(h, &self.owner, &self.monorepo, &self.repo).await?;
        match (public, member) {
            (Some(found), _) => Ok(found),
            (None, Some(e)) => Err(e),
            (None, None) => Err(ApiError::not_found("release file")),
        }
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/hooks/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct HookPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The hook's id.
    pub id: String,
}

impl HookPath {
    /// The monorepo (its owners only) and the hook.
    pub async fn load(&self, h: H<'_>, caller: &Caller) -> ApiResult<(Access, HookRow)> {
        load_hook(h, caller, (&self.owner, &self.monorepo, &self.id)).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/hooks/{id}/deliveries/{delivery}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct HookDeliveryPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The hook's id.
    pub id: String,
    /// The delivery's id.
    pub delivery: String,
}

impl HookDeliveryPath {
    /// The monorepo (its owners only), the hook and the delivery.
    pub async fn load(
        &self,
        mut h: H<'_>,
        caller: &Caller,
    ) -> ApiResult<(Access, HookRow, DeliveryRow)> {
        let (access, hook) = load_hook(
            h.reborrow(),
            caller,
            (&self.owner, &self.monorepo, &self.id),
        )
        .await?;
        let delivery = hooks::delivery(h, &hook.id, &self.delivery)
            .await?
            .ok_or_else(|| ApiError::not_found(&format!("delivery {}", self.delivery)))?;
        Ok((access, hook, delivery))
    }
}

/// Resolves `{m}/hooks/{id}` for an owner.
async fn load_hook(
    mut h: H<'_>,
    caller: &Caller,
    (owner, monorepo, id): (&str, &str, &str),
) -> ApiResult<(Access, HookRow)> {
    let access = authz::monorepo(h.reborrow(), caller, owner, monorepo, Need::Own).await?;
    let hook = hooks::get(h, &access.monorepo.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("hook {id}")))?;
    Ok((access, hook))
}

/// `/v1/monorepos/{owner}/{monorepo}/ci/connections/{id}` and `.../ci/builds/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CiItemPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The connection's or the build's id.
    pub id: String,
}

impl CiItemPath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }

    /// The monorepo and the build `id` names in it, when the caller may do `need`.
    pub async fn build(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, ci::BuildRow)> {
        ci_build(h, caller, &self.owner, &self.monorepo, &self.id, need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/...`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CiJobPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The build's id.
    pub id: String,
    /// The job's id.
    pub job: String,
}

impl CiJobPath {
    /// The monorepo, the build and its job, when the caller may do `need`.
    pub async fn job(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, ci::BuildRow, ci::JobRow)> {
        let (access, build) = ci_build(
            h.reborrow(),
            caller,
            &self.owner,
            &self.monorepo,
            &self.id,
            need,
        )
        .await?;
        let job = ci::job(h, &build.connection_id, &self.job)
            .await?
            .filter(|j| j.build_id == build.id)
            .ok_or_else(|| ApiError::not_found(&format!("job {}", self.job)))?;
        Ok((access, build, job))
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/artifacts/{artifact}/download`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CiArtifactPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The build's id.
    pub id: String,
    /// The artifact's id, as listed.
    pub artifact: String,
}

impl CiArtifactPath {
    /// The monorepo and the build, when the caller may do `need`.
    pub async fn build(
        &self,
        h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, ci::BuildRow)> {
        ci_build(h, caller, &self.owner, &self.monorepo, &self.id, need).await
    }
}

async fn ci_build(
    mut h: H<'_>,
    caller: &Caller,
    owner: &str,
    monorepo: &str,
    id: &str,
    need: Need,
) -> ApiResult<(Access, ci::BuildRow)> {
    let access = authz::monorepo(h.reborrow(), caller, owner, monorepo, need).await?;
    let build = ci::build_in(h, &access.monorepo.id, id)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("build {id}")))?;
    Ok((access, build))
}

/// `/v1/ci/webhooks/{connection_id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CiWebhookPath {
    /// The connection's id, from its `webhook_url`.
    pub connection_id: String,
}

/// `/v1/monorepos/{owner}/{monorepo}/ci/pipelines/{pipeline}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct CiPipelinePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The pipeline's slug.
    pub pipeline: String,
}

impl CiPipelinePath {
    /// The monorepo, when the caller may do `need` in it.
    pub async fn access(&self, h: H<'_>, caller: &Caller, need: Need) -> ApiResult<Access> {
        authz::monorepo(h, caller, &self.owner, &self.monorepo, need).await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ArtifactPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The branch's name; its slashes may be sent raw or as `%2F`.
    pub branch: String,
    /// The artifact's name (its file's, like `design.md`).
    pub name: String,
}

impl ArtifactPath {
    /// The monorepo with the caller's access, the repo and the artifact.
    pub async fn artifact(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(Access, RepoRow, artifacts::ArtifactRow)> {
        let (access, repo) = resolve(
            h.reborrow(),
            caller,
            (&self.owner, &self.monorepo, &self.repo),
            need,
        )
        .await?;
        let artifact = artifacts::by_name(h, &repo.id, &self.branch, &self.name)
            .await?
            .ok_or_else(|| {
                ApiError::not_found(&format!("artifact {} on {}", self.name, self.branch))
            })?;
        Ok((access, repo, artifact))
    }
}

/// `.../artifacts/{name}/versions/{n}/document`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ArtifactVersionPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The branch's name; its slashes may be sent raw or as `%2F`.
    pub branch: String,
    /// The artifact's name.
    pub name: String,
    /// The version, from 1.
    pub n: i64,
}

/// `.../artifacts/{name}/versions/{n}/files/{file}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ArtifactFilePath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The branch's name; its slashes may be sent raw or as `%2F`.
    pub branch: String,
    /// The artifact's name.
    pub name: String,
    /// The version, from 1.
    pub n: i64,
    /// The file's path in the version; its slashes may be sent raw or as `%2F`.
    pub file: String,
}

impl ArtifactFilePath {
    /// The version's path.
    pub fn version(&self) -> ArtifactVersionPath {
        ArtifactVersionPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            repo: self.repo.clone(),
            branch: self.branch.clone(),
            name: self.name.clone(),
            n: self.n,
        }
    }
}

impl ArtifactVersionPath {
    /// The monorepo with the caller's access, the repo and the artifact.
    pub async fn artifact(
        &self,
        h: H<'_>,
        caller: &Caller,
    ) -> ApiResult<(Access, RepoRow, artifacts::ArtifactRow)> {
        ArtifactPath {
            owner: self.owner.clone(),
            monorepo: self.monorepo.clone(),
            repo: self.repo.clone(),
            branch: self.branch.clone(),
            name: self.name.clone(),
        }
        .artifact(h, caller, Need::Read)
        .await
    }
}

/// `/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct ArtifactCommentPath {
    /// The namespace: a person's or an organization's login (any case).
    pub owner: String,
    /// The monorepo's name (any case); an old label answers the current monorepo.
    pub monorepo: String,
    /// The repo's name (any case).
    pub repo: String,
    /// The comment's id.
    pub id: String,
}

impl ArtifactCommentPath {
    /// The monorepo with the caller's access, the repo, the comment and its artifact.
    pub async fn comment(
        &self,
        mut h: H<'_>,
        caller: &Caller,
        need: Need,
    ) -> ApiResult<(
        Access,
        RepoRow,
        artifacts::CommentRow,
        artifacts::ArtifactRow,
    )> {
        let (access, repo) = resolve(
            h.reborrow(),
            caller,
            (&self.owner, &self.monorepo, &self.repo),
            need,
        )
        .await?;
        let missing = || ApiError::not_found(&format!("artifact comment {}", self.id));
        let comment = artifacts::comment(h.reborrow(), &self.id)
            .await?
            .ok_or_else(missing)?;
        let artifact = artifacts::by_id(h, &comment.artifact_id)
            .await?
            .filter(|a| a.repo_id == repo.id)
            .ok_or_else(missing)?;
        Ok((access, repo, comment, artifact))
    }
}
