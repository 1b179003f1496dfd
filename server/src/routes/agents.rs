//! Agent sessions: coding agents the server runs as their user.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::agent::{
    AgentModelList, FollowUp, IssueAgent, NewChat, NewSession, ReviewAgent, Session, SessionKind,
    SessionList, Transcript,
};
use svc_protocol::{ApiErrorBody, ErrorCode};
use utoipa::IntoParams;

use crate::agents::supervise::{self, said};
use crate::agents::{self, sessions};
use crate::auth::Caller;
use crate::authz::{Access, Need};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query, Upgrade, page_limit};
use crate::git::branch_name;
use crate::git::record::{Actor, Seed};
use crate::paths::{AgentPath, BranchPath, IssuePath, MonorepoPath, live_branch, named_or_only};
use crate::state::AppState;
use crate::store::agents::{self as rows, SessionRow};
use crate::store::repos::RepoRow;
use crate::store::{H, issues, now_ms};

/// The longest prompt or message, in bytes.
const TEXT_MAX: usize = 64 * 1024;
/// Sessions a list answers at most.
const LIST_MAX: i64 = 100;

/// The models a session may use here (the server's `[[agents.models]]`), the default
/// first. Empty when the server runs no coding agents.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agent-models", operation_id = "agentModels", tag = "agents",
    params(MonorepoPath),
    responses((status = 200, body = AgentModelList), (status = 404, body = ApiErrorBody)))]
pub async fn models(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
) -> ApiResult<Json<AgentModelList>> {
    let mut conn = state.store.read().await?;
    path.access(conn.h(), &caller, Need::Read).await?;
    Ok(Json(AgentModelList {
        items: state.config.agents.listed(),
    }))
}

/// Launches a task session as the caller on `branch` (made off main when new, used as is
/// when it exists): a `cloud-` credential for its run, a checkout through the git door,
/// the runner with the prompt. Answers `running`, or `failed` with the reason it could
/// not start (its credential revoked).
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/agents", operation_id = "launchAgent", tag = "agents",
    params(MonorepoPath), request_body = NewSession,
    responses((status = 201, body = Session),
        (status = 400, body = ApiErrorBody, description = "branch_required, bad_branch_name, bad_request"),
        (status = 403, body = ApiErrorBody, description = "an agent session's credential starts no session (but a chat's, on its own `assistant/` branch)"),
        (status = 404, body = ApiErrorBody), (status = 409, body = ApiErrorBody, description = "the branch is main"),
        (status = 422, body = ApiErrorBody, description = "agents_not_configured, empty_repo"),
        (status = 429, body = ApiErrorBody, description = "too_many_sessions")))]
pub async fn launch(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<NewSession>,
) -> ApiResult<(StatusCode, Json<Session>)> {
    let Some(branch) = body.branch.as_deref().map(str::trim) else {
        return Err(ApiError::bad_request(
            ErrorCode::BranchRequired,
            "name the branch the session works on (`branch`)",
        ));
    };
    check_text(&body.prompt, "prompt")?;
    let model = model(&state, body.model.as_deref())?;
    // Only people start sessions, but for a chat starting its own branch.
    let need = match &caller.scope {
        Some(scope) if scope.starts_own_branch(branch) => Need::Write,
        _ => Need::Steer,
    };
    let (access, repo) = {
        let mut conn = state.store.read().await?;
        let access = path.access(conn.h(), &caller, need).await?;
        let repo = named_or_only(conn.h(), &access.monorepo, body.repo.as_deref()).await?;
        (access, repo)
    };
    let seed = Seed {
        branch: branch.to_owned(),
        title: None,
        description: None,
    };
    ensure_branch(&state, &caller, &repo, seed).await?;
    let new = New {
        kind: SessionKind::Task,
        repo: Some(repo),
        branch: Some(branch.to_owned()),
        model,
        prompt: body.prompt,
        issue: None,
    };
    create(&state, &caller, &access, new).await
}

/// Launches a session told an issue's title, body and comments (and `prompt`), on a
/// branch named from the issue (`issue-<number>-<slug>`, or `branch`) off main, titled as
/// the issue and linked to it so that merging the branch closes the issue.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/issues/{number}/agent", operation_id = "addressIssueWithAgent", tag = "agents",
    params(IssuePath), request_body = IssueAgent,
    responses((status = 201, body = Session), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "an agent session's credential starts no session"),
        (status = 404, body = ApiErrorBody),
        (status = 409, body = ApiErrorBody, description = "issue_closed"),
        (status = 422, body = ApiErrorBody, description = "agents_not_configured, empty_repo"),
        (status = 429, body = ApiErrorBody, description = "too_many_sessions")))]
pub async fn address_issue(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<IssuePath>,
    Json(body): Json<IssueAgent>,
) -> ApiResult<(StatusCode, Json<Session>)> {
    if let Some(prompt) = &body.prompt {
        check_text(prompt, "prompt")?;
    }
    let model = model(&state, body.model.as_deref())?;
    let (access, issue, repo, told) = {
        let mut conn = state.store.read().await?;
        let (access, issue) = path.load(conn.h(), &caller, Need::Steer).await?;
        if issue.state != "open" {
            return Err(ApiError::conflict(
                ErrorCode::IssueClosed,
                format!("issue #{} is closed", issue.number),
            ));
        }
        let name = body.repo.as_deref().or(issue.project.as_deref());
        let repo = named_or_only(conn.h(), &access.monorepo, name).await?;
        let told = issue_prompt(conn.h(), &issue, body.prompt.as_deref()).await?;
        (access, issue, repo, told)
    };
    let branch = match &body.branch {
        Some(b) => b.trim().to_owned(),
        None => format!("issue-{}-{}", issue.number, slug(&issue.title)),
    };
    let seed = Seed {
        branch: branch.clone(),
        title: Some(issue.title.clone()),
        description: Some(format!("Closes #{}", issue.number)),
    };
    ensure_branch(&state, &caller, &repo, seed).await?;
    link(&state, &caller, &access, issue.number, &repo.name, &branch).await?;
    let new = New {
        kind: SessionKind::Task,
        repo: Some(repo),
        branch: Some(branch),
        model,
        prompt: told,
        issue: Some(issue.number),
    };
    create(&state, &caller, &access, new).await
}

/// Launches a review session on an existing branch: it reads the branch, may run tests
/// in its sandbox and posts a review (a comment or a change request). Its credential
/// reads the repo and posts reviews on that branch only: the server refuses its pushes,
/// approvals, merges and issue comments.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/review-agent", operation_id = "reviewWithAgent",
    tag = "agents", params(BranchPath), request_body = ReviewAgent,
    responses((status = 201, body = Session), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "an agent session's credential starts no session"),
        (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "agents_not_configured"),
        (status = 429, body = ApiErrorBody, description = "too_many_sessions")))]
pub async fn review(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<BranchPath>,
    Json(body): Json<ReviewAgent>,
) -> ApiResult<(StatusCode, Json<Session>)> {
    if let Some(prompt) = &body.prompt {
        check_text(prompt, "prompt")?;
    }
    let model = model(&state, body.model.as_deref())?;
    let (access, repo, branch) = {
        let mut conn = state.store.read().await?;
        let (access, repo) = path.resolve(conn.h(), &caller, Need::Steer).await?;
        let branch = path.live(conn.h(), &repo).await?.name;
        (access, repo, branch)
    };
    let mut prompt = format!(
        "Review branch {branch} of {repo}: read its changes against {main} (git diff \
         origin/{main}...HEAD in your checkout), run its tests if you can, then post one \
         review of it with the svc API (POST $SVC_SERVER/v1/monorepos/$SVC_MONOREPO/repos/\
         {repo}/branches/{branch}/reviews with state \"comment\" or \"request_changes\"). \
         You cannot push, approve, merge or comment on issues.",
        repo = repo.name,
        main = repo.default_branch,
    );
    if let Some(more) = body.prompt.as_deref().filter(|p| !p.trim().is_empty()) {
        prompt.push_str("\n\n");
        prompt.push_str(more);
    }
    let new = New {
        kind: SessionKind::Review,
        repo: Some(repo),
        branch: Some(branch),
        model,
        prompt,
        issue: None,
    };
    create(&state, &caller, &access, new).await
}

/// Starts a chat with the repository assistant: it answers from svc's read tools (`svc
/// mcp`) with the caller's access and no checkout, and starts its own branch
/// `assistant/<suffix>` when asked for a change. The chat is the caller's alone. A later
/// message goes through sendAgent.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/chats", operation_id = "newChat", tag = "agents",
    params(MonorepoPath), request_body = NewChat,
    responses((status = 201, body = Session), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "an agent session's credential starts no session"),
        (status = 404, body = ApiErrorBody),
        (status = 422, body = ApiErrorBody, description = "agents_not_configured"),
        (status = 429, body = ApiErrorBody, description = "too_many_sessions")))]
pub async fn new_chat(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Json(body): Json<NewChat>,
) -> ApiResult<(StatusCode, Json<Session>)> {
    check_text(&body.message, "message")?;
    let model = model(&state, body.model.as_deref())?;
    let (access, repo) = {
        let mut conn = state.store.read().await?;
        // Write, not Read: a review session's credential may start no session.
        let access = path.access(conn.h(), &caller, Need::Steer).await?;
        let repo = match body.repo.as_deref() {
            Some(name) => Some(named_or_only(conn.h(), &access.monorepo, Some(name)).await?),
            None => named_or_only(conn.h(), &access.monorepo, None).await.ok(),
        };
        (access, repo)
    };
    let new = New {
        kind: SessionKind::Chat,
        repo,
        branch: None,
        model,
        prompt: body.message,
        issue: None,
    };
    create(&state, &caller, &access, new).await
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct ListQuery {
    /// How many, newest first (1 to 100, default 50).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}

/// The monorepo's task and review sessions, newest first (chats are not listed).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agents", operation_id = "listAgents", tag = "agents",
    params(MonorepoPath, ListQuery),
    responses((status = 200, body = SessionList), (status = 400, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<SessionList>> {
    let limit = page_limit(q.limit, 50, LIST_MAX)?;
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let id = &access.monorepo.id;
    let all = rows::list(conn.h(), id, false, None, limit).await?;
    Ok(Json(SessionList {
        items: views(conn.h(), &all).await?,
    }))
}

/// The caller's chats in the monorepo, newest first.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/chats", operation_id = "listChats", tag = "agents",
    params(MonorepoPath, ListQuery),
    responses((status = 200, body = SessionList), (status = 400, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody)))]
pub async fn list_chats(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<MonorepoPath>,
    Query(q): Query<ListQuery>,
) -> ApiResult<Json<SessionList>> {
    let limit = page_limit(q.limit, 50, LIST_MAX)?;
    let mut conn = state.store.read().await?;
    let access = path.access(conn.h(), &caller, Need::Read).await?;
    let mine = Some(caller.user_id.as_str());
    let all = rows::list(conn.h(), &access.monorepo.id, true, mine, limit).await?;
    Ok(Json(SessionList {
        items: views(conn.h(), &all).await?,
    }))
}

/// One session.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agents/{id}", operation_id = "getAgent", tag = "agents",
    params(AgentPath),
    responses((status = 200, body = Session), (status = 404, body = ApiErrorBody)))]
pub async fn get(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AgentPath>,
) -> ApiResult<Json<Session>> {
    let mut conn = state.store.read().await?;
    let (_, row) = path.load(conn.h(), &caller, Need::Read).await?;
    let repo = sessions::repo_name(conn.h(), &row).await?;
    Ok(Json(sessions::view(&row, repo.as_deref())))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct TranscriptQuery {
    /// The first message's index (default 0).
    #[param(minimum = 0)]
    from: Option<i64>,
    /// How many messages at most (1 to 1000, default 1000).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<i64>,
}

/// The transcript, oldest first: messages with parts (text, thinking, tool-call,
/// tool-result).
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agents/{id}/transcript", operation_id = "agentTranscript", tag = "agents",
    params(AgentPath, TranscriptQuery),
    responses((status = 200, body = Transcript), (status = 400, body = ApiErrorBody),
        (status = 404, body = ApiErrorBody)))]
pub async fn transcript(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Query(q): Query<TranscriptQuery>,
) -> ApiResult<Json<Transcript>> {
    let limit = page_limit(q.limit, 1000, 1000)?;
    let from = q.from.unwrap_or(0).max(0);
    let mut conn = state.store.read().await?;
    let (_, row) = path.load(conn.h(), &caller, Need::Read).await?;
    let all = rows::messages(conn.h(), &row.id, from, limit).await?;
    Ok(Json(Transcript {
        items: all.iter().map(sessions::message).collect(),
    }))
}

/// A follow-up, from the launcher only. Taken after the current run when one is going;
/// otherwise it runs the session again, told the transcript so far.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/agents/{id}/messages", operation_id = "sendAgent", tag = "agents",
    params(AgentPath), request_body = FollowUp,
    responses((status = 202, body = Session), (status = 400, body = ApiErrorBody),
        (status = 403, body = ApiErrorBody, description = "not_launcher; or an agent session's credential (forbidden)"),
        (status = 404, body = ApiErrorBody),
        (status = 429, body = ApiErrorBody, description = "too_many_sessions")))]
pub async fn send(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Json(body): Json<FollowUp>,
) -> ApiResult<(StatusCode, Json<Session>)> {
    check_text(&body.message, "message")?;
    let mut tx = state.store.begin().await?;
    let (_, row) = path.load(tx.h(), &caller, Need::Steer).await?;
    if row.launcher_id != caller.user_id {
        return Err(ApiError::forbidden(
            ErrorCode::NotLauncher,
            format!(
                "only {}, who launched this session, may send it messages",
                row.launcher
            ),
        ));
    }
    let parts = serde_json::to_string(&said(&body.message).parts).map_err(ApiError::internal)?;
    let now = now_ms();
    let asked = rows::add_message(tx.h(), &row.id, "user", now, &parts).await?;
    if rows::ask_live(tx.h(), &row.id, asked, now).await? {
        let (_, session) = sessions::load(tx.h(), &row.id).await?;
        tx.commit().await?;
        return Ok((StatusCode::ACCEPTED, Json(session)));
    }
    check_room(tx.h(), &state, &caller).await?;
    let lease = now + 60_000;
    let Some(run_no) = rows::begin_run(tx.h(), &row.id, asked, lease, now).await? else {
        return Err(ApiError::internal(
            "the session changed under the message; send it again",
        ));
    };
    sessions::announce(tx.h(), &row.id).await?;
    tx.commit().await?;
    let session = supervise::start(&state, &row, run_no, asked).await?;
    Ok((StatusCode::ACCEPTED, Json(session)))
}

/// Stops the run going (the launcher or an owner): its process group is killed and its
/// sandbox goes; the transcript and the branch stay. A session with no run going is
/// answered as it is.
#[utoipa::path(post, path = "/v1/monorepos/{owner}/{monorepo}/agents/{id}/stop", operation_id = "stopAgent", tag = "agents",
    params(AgentPath),
    responses((status = 200, body = Session),
        (status = 403, body = ApiErrorBody, description = "neither its launcher nor an owner; or an agent session's credential"),
        (status = 404, body = ApiErrorBody)))]
pub async fn stop(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AgentPath>,
) -> ApiResult<Json<Session>> {
    let mut tx = state.store.begin().await?;
    let (access, row) = path.load(tx.h(), &caller, Need::Steer).await?;
    let owner = access.role == svc_protocol::monorepo::Role::Owner && caller.scope.is_none();
    if row.launcher_id != caller.user_id && !owner {
        return Err(ApiError::forbidden(
            ErrorCode::Forbidden,
            "only the session's launcher or an owner of the monorepo may stop it",
        ));
    }
    let reason = format!("stopped by {}", caller.login);
    let stopped = rows::stop(tx.h(), &row.id, &reason, now_ms()).await?;
    let session = if stopped {
        sessions::announce(tx.h(), &row.id).await?
    } else {
        sessions::load(tx.h(), &row.id).await?.1
    };
    tx.commit().await?;
    if stopped {
        state.agents.stop_local(&row.id);
    }
    Ok(Json(session))
}

/// The live transcript over a WebSocket: `{type: "messages", from, messages}` frames,
/// the first from 0, later ones appending; closed (1000) once the run is over. The
/// session's state comes as `agent.updated` on the event socket.
#[utoipa::path(get, path = "/v1/monorepos/{owner}/{monorepo}/agents/{id}/live", operation_id = "agentLive", tag = "agents",
    params(AgentPath),
    responses((status = 101, description = "WebSocket of LiveFrame"),
        (status = 400, body = ApiErrorBody, description = "not a WebSocket upgrade"),
        (status = 404, body = ApiErrorBody)))]
pub async fn live(
    State(state): State<AppState>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Upgrade(upgrade): Upgrade,
) -> ApiResult<Response> {
    let row = {
        let mut conn = state.store.read().await?;
        path.load(conn.h(), &caller, Need::Read).await?.1
    };
    let Some(ws) = upgrade else {
        return Err(ApiError::bad_request(
            ErrorCode::BadUpgrade,
            "agentLive is a WebSocket: send Upgrade: websocket (the transcript route pages it)",
        ));
    };
    Ok(crate::live::socket::upgrade(ws)
        .on_upgrade(move |ws| agents::live::serve(state, ws, caller, row.id))
        .into_response())
}

/// What a new session is.
struct New {
    kind: SessionKind,
    repo: Option<RepoRow>,
    branch: Option<String>,
    model: String,
    prompt: String,
    issue: Option<i64>,
}

/// Records the session (its prompt the transcript's first message) and starts its first
/// run.
async fn create(
    state: &AppState,
    caller: &Caller,
    access: &Access,
    new: New,
) -> ApiResult<(StatusCode, Json<Session>)> {
    let now = now_ms();
    let row = SessionRow {
        id: crate::token::new_id("a_"),
        monorepo_id: access.monorepo.id.clone(),
        repo_id: new.repo.map(|r| r.id),
        kind: new.kind.as_str().to_owned(),
        state: "launching".into(),
        reason: None,
        branch: new.branch,
        model: new.model,
        prompt: new.prompt,
        launcher_id: caller.user_id.clone(),
        launcher: caller.login.clone(),
        credential_id: None,
        issue_number: new.issue,
        asked: 0,
        run_no: 1,
        lease_until: Some(now + 60_000),
        created_at: now,
        updated_at: now,
    };
    let mut tx = state.store.begin().await?;
    check_room(tx.h(), state, caller).await?;
    rows::insert(tx.h(), &row).await?;
    let parts = serde_json::to_string(&said(&row.prompt).parts).map_err(ApiError::internal)?;
    rows::add_message(tx.h(), &row.id, "user", now, &parts).await?;
    sessions::announce(tx.h(), &row.id).await?;
    tx.commit().await?;
    let session = supervise::start(state, &row, 1, 0).await?;
    Ok((StatusCode::CREATED, Json(session)))
}

/// Refuses a run over the server's or the person's limit of runs going at once.
async fn check_room(mut h: H<'_>, state: &AppState, caller: &Caller) -> ApiResult<()> {
    let settings = &state.config.agents;
    let everyone = rows::running_count(h.reborrow(), None).await?;
    let theirs = rows::running_count(h, Some(&caller.user_id)).await?;
    let full = if everyone >= settings.max_running as i64 {
        Some(format!(
            "the server runs {} agent sessions at once, and that many are running",
            settings.max_running
        ))
    } else if theirs >= settings.max_running_per_person as i64 {
        Some(format!(
            "a person may have {} agent sessions running at once; stop one or wait",
            settings.max_running_per_person
        ))
    } else {
        None
    };
    match full {
        Some(message) => Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::TooManySessions,
            message,
        )),
        None => Ok(()),
    }
}

/// The model `id` names, or the default.
fn model(state: &AppState, id: Option<&str>) -> ApiResult<String> {
    let settings = &state.config.agents;
    if settings.models.is_empty() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::AgentsNotConfigured,
            "this server runs no coding agents (its settings have no [[agents.models]])",
        ));
    }
    settings.model(id).map(|m| m.id.clone()).ok_or_else(|| {
        let known: Vec<&str> = settings.models.iter().map(|m| m.id.as_str()).collect();
        ApiError::bad_request(
            ErrorCode::BadRequest,
            format!(
                "no model {:?} here; the models are {}",
                id.unwrap_or_default(),
                known.join(", ")
            ),
        )
    })
}

fn check_text(text: &str, what: &str) -> ApiResult<()> {
    if text.trim().is_empty() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("the {what} is empty"),
        ));
    }
    if text.len() > TEXT_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::TooLarge,
            format!("a {what} is at most {TEXT_MAX} bytes"),
        ));
    }
    Ok(())
}

/// Makes the branch off main unless it exists (then it is used as is).
async fn ensure_branch(
    state: &AppState,
    caller: &Caller,
    repo: &RepoRow,
    seed: Seed,
) -> ApiResult<()> {
    if let Some(why) = branch_name::invalid_reason(&seed.branch) {
        return Err(ApiError::bad_request(
            ErrorCode::BadBranchName,
            format!("{:?} is not a valid git branch name: {why}", seed.branch),
        ));
    }
    if seed.branch == repo.default_branch {
        return Err(ApiError::conflict(
            ErrorCode::DefaultBranch,
            format!(
                "an agent works on a branch of its own, not {}",
                repo.default_branch
            ),
        ));
    }
    {
        let mut conn = state.store.read().await?;
        if live_branch(conn.h(), repo, &seed.branch).await.is_ok() {
            return Ok(());
        }
    }
    let main = repo.default_head.clone().ok_or_else(|| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::EmptyRepo,
            "the repo has no main yet to branch off",
        )
    })?;
    let actor = Actor {
        login: Some(caller.login.clone()),
        agent: None,
    };
    match crate::branches::open(state, repo, &actor, seed, main).await {
        Err(e) if e.code == ErrorCode::BranchExists => Ok(()),
        other => other,
    }
}

/// Links the branch to the issue (merging it then closes the issue).
async fn link(
    state: &AppState,
    caller: &Caller,
    access: &Access,
    number: i64,
    repo: &str,
    branch: &str,
) -> ApiResult<()> {
    let mut tx = state.store.begin().await?;
    let Some(row) = issues::by_number(tx.h(), &access.monorepo.id, number).await? else {
        return Err(ApiError::not_found(&format!("issue #{number}")));
    };
    if issues::add_link(tx.h(), row.id, repo, branch).await? {
        let item = crate::issues::NewItem {
            kind: "linked",
            comment_id: None,
            details: serde_json::json!({"repo": repo, "branch": branch}),
        };
        let issue = crate::issues::full(tx.h(), row, &caller.login).await?;
        crate::issues::record(
            tx.h(),
            &access.monorepo.id,
            &issue,
            "issue.updated",
            vec![item],
            crate::issues::By::caller(caller),
            serde_json::json!({}),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// What a session addressing an issue is told: its title, body and comments, then the
/// person's prompt.
async fn issue_prompt(
    mut h: H<'_>,
    issue: &issues::IssueRow,
    prompt: Option<&str>,
) -> ApiResult<String> {
    let mut text = format!(
        "Resolve issue #{} of this repository: {}\n\n{}\n",
        issue.number, issue.title, issue.body
    );
    let items = issues::items(h.reborrow(), issue.id, 0, 200, false).await?;
    let mut said = Vec::new();
    for item in items {
        if let Some(id) = item.comment_id
            && let Some(c) = issues::comment(h.reborrow(), issue.id, id).await?
        {
            said.push(format!("{} wrote:\n{}", c.author, c.body));
        }
    }
    if !said.is_empty() {
        text.push_str("\nComments, oldest first:\n\n");
        text.push_str(&said.join("\n\n"));
        text.push('\n');
    }
    if let Some(p) = prompt.filter(|p| !p.trim().is_empty()) {
        text.push('\n');
        text.push_str(p);
        text.push('\n');
    }
    if text.len() > TEXT_MAX {
        let mut cut = TEXT_MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    Ok(text)
}

/// An issue title as a branch name's tail: lower-case words joined by `-`, at most 40
/// characters.
fn slug(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let mut out = String::new();
    for w in words {
        if out.len() + w.len() + 1 > 40 {
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&w);
    }
    if out.is_empty() { "work".into() } else { out }
}

async fn views(mut h: H<'_>, all: &[SessionRow]) -> ApiResult<Vec<Session>> {
    let mut out = Vec::with_capacity(all.len());
    for row in all {
        let repo = sessions::repo_name(h.reborrow(), row).await?;
        out.push(sessions::view(row, repo.as_deref()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn issue_titles_make_short_branch_names() {
        assert_eq!(super::slug("Fix the Login page!"), "fix-the-login-page");
        assert_eq!(super::slug("ÜÜ"), "work");
        assert!(super::slug(&"word ".repeat(30)).len() <= 40);
    }
}
