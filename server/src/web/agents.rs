//! Agent sessions in the web: the monorepo's sessions (`/agents`, `?repo=` for one
//! repo's), the person's chats (`/chats`), and one session's page (`/agents/{id}`)
//! with its transcript, and the forms that launch, message and stop sessions from the
//! branch, issue and session pages.
//!
//! The forms are plain HTML POSTs that work without JavaScript: they must carry this
//! service's `Origin` (the cookie's rule for writes), call the JSON API's own handlers
//! (so the API's authorization decides), and answer with a redirect to the session's
//! page. The script follows a running session's transcript over agentLive.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::Value;
use svc_protocol::agent::{
    AgentModel, FollowUp, IssueAgent, Message, NewChat, NewSession, Part, Role, Session,
    SessionKind,
};
use svc_protocol::monorepo::Role as MemberRole;

use super::code::{q, seg};
use super::home::{human, rfc3339};
use super::markdown;
use super::page::{self, Layout, Viewer};
use crate::agents::sessions;
use crate::auth;
use crate::authz::Need;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::paths::{AgentPath, BranchPath, IssuePath, MonorepoPath};
use crate::routes::agents as api;
use crate::state::AppState;
use crate::store::agents as rows;

/// Sessions a list page shows (the API's most).
const LISTED: i64 = 100;
/// Transcript messages a session page shows; the rest is in the transcript's JSON.
const MESSAGES_SHOWN: i64 = 1000;
/// Characters of one text part shown; past them its start.
const TEXT_SHOWN: usize = 16_000;
/// Characters of a tool call's input or a tool result shown.
const TOOL_SHOWN: usize = 8_000;
/// Characters of a tool call's one-line brief and of a prompt's title in a list.
const BRIEF: usize = 80;

pub fn router() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/{owner}/{monorepo}/agents", get(list))
        .route("/{owner}/{monorepo}/agents/{id}", get(session))
        .route("/{owner}/{monorepo}/agents/{id}/messages", post(send))
        .route("/{owner}/{monorepo}/agents/{id}/stop", post(stop))
        .route("/{owner}/{monorepo}/chats", get(chats).post(new_chat))
        .route(
            "/{owner}/{monorepo}/-/{repo}/branches/{branch}/agents",
            post(launch),
        )
        .route("/{owner}/{monorepo}/issues/{number}/agent", post(address))
}

/// The models a form offers, the default first; none when the server runs no agents.
pub fn models(state: &AppState) -> Vec<AgentModel> {
    state.config.agents.listed()
}

/// A session's page, from the root.
pub fn session_href(label: &str, id: &str) -> String {
    format!("/{label}/agents/{}", seg(id))
}

/// `text` cut to `max` characters (marked `…` when it was).
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The first line of `text`, at most [`BRIEF`] characters.
fn brief(text: &str) -> String {
    cut(text.trim().lines().next().unwrap_or_default(), BRIEF)
}

// ---------------------------------------------------------------------------------------
// The lists

/// One session's row in a list.
pub(super) struct Line {
    pub href: String,
    pub kind: &'static str,
    pub state: &'static str,
    /// The prompt's first line.
    pub title: String,
    pub repo: Option<String>,
    /// `repo:branch` and the branch page.
    pub branch: Option<(String, String)>,
    pub issue: Option<(i64, String)>,
    pub launcher: String,
    pub model: String,
    pub at: String,
    pub when: String,
}

/// What a branch or issue page shows of agents: the form's models and address, and the
/// sessions that work there.
pub(super) struct AgentBox {
    pub models: Vec<AgentModel>,
    /// Where the form posts.
    pub action: String,
    pub sessions: Vec<Line>,
    /// The list of all the sessions this box is part of.
    pub list: String,
}

/// Sessions a branch or issue page lists at most.
const BOX_SHOWN: usize = 10;

impl AgentBox {
    /// Whether the page shows the box: not on a server without agents, unless sessions
    /// ran there before.
    pub fn shown(&self) -> bool {
        !self.models.is_empty() || !self.sessions.is_empty()
    }

    /// The box of a page of monorepo `at` (its canonical names): the newest sessions
    /// `keep` takes, those of `repo` when given, and the form posting to `action`.
    pub async fn of(
        state: &AppState,
        caller: &crate::auth::Caller,
        at: MonorepoPath,
        repo: Option<&str>,
        action: String,
        keep: impl Fn(&Session) -> bool,
    ) -> ApiResult<AgentBox> {
        let label = format!("{}/{}", at.owner, at.monorepo);
        let list = match repo {
            Some(r) => format!("/{label}/agents?repo={}", q(r)),
            None => format!("/{label}/agents"),
        };
        let query = api::ListQuery {
            limit: Some(LISTED),
        };
        let all = api::list(State(state.clone()), caller.clone(), Path(at), Query(query))
            .await?
            .0
            .items;
        Ok(AgentBox {
            models: models(state),
            action,
            list,
            sessions: all
                .iter()
                .filter(|s| keep(s))
                .take(BOX_SHOWN)
                .map(|s| line(&label, s))
                .collect(),
        })
    }
}

fn line(label: &str, s: &Session) -> Line {
    Line {
        href: session_href(label, &s.id),
        kind: s.kind.as_str(),
        state: s.state.as_str(),
        title: brief(&s.prompt),
        repo: s.repo.clone(),
        branch: branch_link(label, s),
        issue: s.issue.map(|n| (n, format!("/{label}/issues/{n}"))),
        launcher: s.launcher.clone(),
        model: s.model.clone(),
        at: rfc3339(s.updated_at),
        when: human(s.updated_at),
    }
}

fn branch_link(label: &str, s: &Session) -> Option<(String, String)> {
    let (repo, branch) = (s.repo.as_deref()?, s.branch.as_deref()?);
    Some((
        format!("{repo}:{branch}"),
        super::branch::branch_page(label, repo, branch),
    ))
}

#[derive(Template)]
#[template(path = "agents.html")]
struct ListPage {
    layout: Layout,
    label: String,
    base: String,
    /// The person's chats (else the monorepo's task and review sessions).
    chats: bool,
    /// The repo the list is kept to.
    repo: Option<String>,
    /// The repos to keep it to, with their lists.
    repos: Vec<(String, String)>,
    lines: Vec<Line>,
    /// The list is at the API's most; older sessions are left out.
    full: bool,
    models: Vec<AgentModel>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ListPageQuery {
    repo: Option<String>,
}

/// `/{owner}/{monorepo}/agents`: task and review sessions, newest first.
async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<MonorepoPath>,
    Query(query): Query<ListPageQuery>,
) -> Response {
    let repo = query.repo.filter(|r| !r.is_empty());
    page::answer(&viewer, build_list(&state, &viewer, at, false, repo).await)
}

/// `/{owner}/{monorepo}/chats`: the person's chats, and a form to start one.
async fn chats(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<MonorepoPath>,
) -> Response {
    page::answer(&viewer, build_list(&state, &viewer, at, true, None).await)
}

async fn build_list(
    state: &AppState,
    viewer: &Viewer,
    at: MonorepoPath,
    chats: bool,
    repo: Option<String>,
) -> ApiResult<ListPage> {
    let caller = &viewer.0;
    let (access, names) = {
        let mut conn = state.store.read().await?;
        let access = at.access(conn.h(), caller, Need::Read).await?;
        let all = crate::store::repos::all(conn.h(), &access.monorepo.id).await?;
        let names: Vec<String> = all
            .into_iter()
            .filter(|r| !r.is_meta)
            .map(|r| r.name)
            .collect();
        (access, names)
    };
    let label = access.monorepo.label();
    let here = MonorepoPath {
        owner: access.monorepo.owner.clone(),
        monorepo: access.monorepo.name.clone(),
    };
    let query = api::ListQuery {
        limit: Some(LISTED),
    };
    let found = if chats {
        api::list_chats(
            State(state.clone()),
            caller.clone(),
            Path(here),
            Query(query),
        )
        .await?
    } else {
        api::list(
            State(state.clone()),
            caller.clone(),
            Path(here),
            Query(query),
        )
        .await?
    }
    .0
    .items;
    let full = found.len() as i64 == LISTED;
    let lines = found
        .iter()
        .filter(|s| repo.is_none() || s.repo == repo)
        .map(|s| line(&label, s))
        .collect();
    let base = format!("/{label}");
    let title = match (&repo, chats) {
        (_, true) => "Your chats".to_owned(),
        (Some(r), false) => format!("Agent sessions of {r}"),
        (None, false) => "Agent sessions".to_owned(),
    };
    let mut layout = Layout::new(format!("{title} · {label}"), viewer);
    layout.monorepo = Some(label.clone());
    Ok(ListPage {
        layout,
        repos: names
            .iter()
            .map(|n| (n.clone(), format!("{base}/agents?repo={}", q(n))))
            .collect(),
        base,
        label,
        chats,
        repo,
        lines,
        full,
        models: models(state),
    })
}

// ---------------------------------------------------------------------------------------
// One session

/// A tool's answer to a call.
struct ResultView {
    text: String,
    is_error: bool,
}

/// One part of a message as the page shows it.
struct PartView {
    /// `text`, `markdown` (an agent's text), `thinking`, `call` or `result` (one whose
    /// call is not on the page).
    kind: &'static str,
    text: String,
    /// An agent's text as sanitized HTML (Markdown).
    html: String,
    /// A call's name and its input's brief.
    name: String,
    brief: String,
    call_id: String,
    /// A call's results, or a lone result's own.
    results: Vec<ResultView>,
}

struct MessageView {
    index: i64,
    role: &'static str,
    at: String,
    when: String,
    parts: Vec<PartView>,
}

/// A tool's input or output as text: a string as it is, else indented JSON.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => cut(s, TOOL_SHOWN),
        Value::Null => String::new(),
        other => cut(
            &serde_json::to_string_pretty(other).unwrap_or_default(),
            TOOL_SHOWN,
        ),
    }
}

/// What a call does in one line: its command, path, pattern or address when it names
/// one, else its input.
fn call_brief(input: &Value) -> String {
    for key in [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
    ] {
        match input.get(key) {
            Some(Value::String(s)) => return brief(s),
            Some(Value::Array(a)) => {
                let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                if !words.is_empty() {
                    return brief(&words.join(" "));
                }
            }
            _ => {}
        }
    }
    match input {
        Value::Null => String::new(),
        Value::Object(o) if o.is_empty() => String::new(),
        other => brief(&other.to_string()),
    }
}

/// The transcript as the page shows it: each result under its call when the call is on
/// the page, messages left with no part dropped.
fn message_views(messages: &[Message]) -> Vec<MessageView> {
    let mut out: Vec<MessageView> = Vec::with_capacity(messages.len());
    // Where each call is: (message, part) in `out`.
    let mut calls: std::collections::HashMap<String, (usize, usize)> = Default::default();
    for m in messages {
        let mut parts = Vec::new();
        for p in &m.parts {
            let view = match p {
                Part::Text { text } if m.role == Role::Assistant => PartView {
                    html: markdown::to_html(&cut(text, TEXT_SHOWN)),
                    ..part("markdown")
                },
                Part::Text { text } => PartView {
                    text: cut(text, TEXT_SHOWN),
                    ..part("text")
                },
                Part::Thinking { text } => PartView {
                    text: cut(text, TEXT_SHOWN),
                    ..part("thinking")
                },
                Part::ToolCall { id, name, input } => {
                    calls.insert(id.clone(), (out.len(), parts.len()));
                    PartView {
                        name: name.clone(),
                        brief: call_brief(input),
                        call_id: id.clone(),
                        text: value_text(input),
                        ..part("call")
                    }
                }
                Part::ToolResult {
                    id,
                    output,
                    is_error,
                } => {
                    let result = ResultView {
                        text: value_text(output),
                        is_error: *is_error,
                    };
                    match calls.get(id) {
                        Some(&(mi, pi)) if mi < out.len() => {
                            out[mi].parts[pi].results.push(result);
                            continue;
                        }
                        Some(&(_, pi)) => {
                            let call: &mut PartView = &mut parts[pi];
                            call.results.push(result);
                            continue;
                        }
                        None => PartView {
                            call_id: id.clone(),
                            results: vec![result],
                            ..part("result")
                        },
                    }
                }
            };
            parts.push(view);
        }
        if parts.is_empty() {
            continue;
        }
        out.push(MessageView {
            index: m.index,
            role: sessions::role_str(m.role),
            at: rfc3339(m.at),
            when: human(m.at),
            parts,
        });
    }
    out
}

impl PartView {
    /// A call one of whose results is an error.
    fn failed(&self) -> bool {
        self.results.iter().any(|r| r.is_error)
    }
}

fn part(kind: &'static str) -> PartView {
    PartView {
        kind,
        text: String::new(),
        html: String::new(),
        name: String::new(),
        brief: String::new(),
        call_id: String::new(),
        results: Vec::new(),
    }
}

#[derive(Template)]
#[template(path = "agent.html")]
struct SessionPage {
    layout: Layout,
    base: String,
    href: String,
    s: Session,
    title: String,
    kind: &'static str,
    state: &'static str,
    live: bool,
    branch: Option<(String, String)>,
    issue: Option<(i64, String)>,
    created_at: String,
    created_when: String,
    updated_at: String,
    updated_when: String,
    messages: Vec<MessageView>,
    /// The index after the last message read: where the live transcript goes on.
    next: i64,
    /// More messages than the page shows.
    more: bool,
    /// The transcript in the API, and its live socket.
    transcript_api: String,
    live_api: String,
    /// Whether the person may message it (its launcher) and stop it (its launcher or
    /// an owner): the API's rules, for what the page offers; the API decides.
    can_send: bool,
    can_stop: bool,
}

/// `/{owner}/{monorepo}/agents/{id}`.
async fn session(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(at): Path<AgentPath>,
) -> Response {
    page::answer(&viewer, build_session(&state, &viewer, at).await)
}

async fn build_session(state: &AppState, viewer: &Viewer, at: AgentPath) -> ApiResult<SessionPage> {
    let caller = &viewer.0;
    let mut conn = state.store.read().await?;
    let (access, row) = at.load(conn.h(), caller, Need::Read).await?;
    let repo = sessions::repo_name(conn.h(), &row).await?;
    let s = sessions::view(&row, repo.as_deref());
    let stored = rows::messages(conn.h(), &row.id, 0, MESSAGES_SHOWN + 1).await?;
    drop(conn);
    let more = stored.len() as i64 > MESSAGES_SHOWN;
    let messages: Vec<Message> = stored
        .iter()
        .take(MESSAGES_SHOWN as usize)
        .map(sessions::message)
        .collect();
    let next = messages.last().map_or(0, |m| m.index + 1);
    let label = access.monorepo.label();
    let api = format!("/v1/monorepos/{label}/agents/{}", seg(&s.id));
    let launcher = row.launcher_id == caller.user_id;
    let owner = access.role == MemberRole::Owner;
    let title = match s.kind {
        SessionKind::Chat => format!("Chat: {}", brief(&s.prompt)),
        _ => brief(&s.prompt),
    };
    let mut layout = Layout::new(title.clone(), viewer);
    layout.monorepo = Some(label.clone());
    Ok(SessionPage {
        layout,
        base: format!("/{label}"),
        href: session_href(&label, &s.id),
        title,
        kind: s.kind.as_str(),
        state: s.state.as_str(),
        live: s.state.is_live(),
        branch: branch_link(&label, &s),
        issue: s.issue.map(|n| (n, format!("/{label}/issues/{n}"))),
        created_at: rfc3339(s.created_at),
        created_when: human(s.created_at),
        updated_at: rfc3339(s.updated_at),
        updated_when: human(s.updated_at),
        messages: message_views(&messages),
        next,
        more,
        transcript_api: format!("{api}/transcript?from={next}"),
        live_api: format!("{api}/live"),
        can_send: launcher,
        can_stop: launcher || owner,
        s,
    })
}

// ---------------------------------------------------------------------------------------
// The forms

#[derive(Template)]
#[template(path = "agent_refused.html")]
struct Refused {
    layout: Layout,
    heading: &'static str,
    message: String,
    back: String,
}

/// The answer to a form: where it leads (a session's page, a build's), or why not (the 404 page for what the
/// person may not see; else the API's reason with a way back).
pub(super) fn answered(
    viewer: &Viewer,
    done: ApiResult<String>,
    heading: &'static str,
    back: String,
) -> Response {
    match done {
        Ok(to) => Redirect::to(&to).into_response(),
        Err(e) if e.status == StatusCode::NOT_FOUND => page::not_found(viewer),
        Err(e) => {
            let page = Refused {
                layout: Layout::new(heading, viewer),
                heading,
                message: e.message,
                back,
            };
            page::render(e.status, &page)
        }
    }
}

/// Where a new session's page is, from the API's answer.
fn opened(at: &MonorepoPath, s: &Session) -> String {
    session_href(&format!("{}/{}", seg(&at.owner), seg(&at.monorepo)), &s.id)
}

/// An optional field of a form: none when left empty.
fn given(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct MessageForm {
    message: String,
}

/// Sends a follow-up (sendAgent), then back to the session.
async fn send(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<AgentPath>,
    axum::Form(form): axum::Form<MessageForm>,
) -> Response {
    let back = session_href(&format!("{}/{}", seg(&at.owner), seg(&at.monorepo)), &at.id);
    let done = async {
        // A form's POST must come from a page of this service.
        auth::check_origin(&headers, &state)?;
        let body = FollowUp {
            message: form.message,
        };
        api::send(State(state.clone()), viewer.0.clone(), Path(at), Json(body)).await?;
        Ok(back.clone())
    }
    .await;
    answered(&viewer, done, "The message was not sent", back)
}

/// Stops the session's run (stopAgent), then back to the session.
async fn stop(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<AgentPath>,
) -> Response {
    let back = session_href(&format!("{}/{}", seg(&at.owner), seg(&at.monorepo)), &at.id);
    let done = async {
        // A form's POST must come from a page of this service.
        auth::check_origin(&headers, &state)?;
        api::stop(State(state.clone()), viewer.0.clone(), Path(at)).await?;
        Ok(back.clone())
    }
    .await;
    answered(&viewer, done, "The session was not stopped", back)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct LaunchForm {
    prompt: String,
    model: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct BranchPagePath {
    owner: String,
    monorepo: String,
    repo: String,
    branch: String,
}

/// "Launch an agent" on a branch page (launchAgent on that branch), then to the session.
async fn launch(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<BranchPagePath>,
    axum::Form(form): axum::Form<LaunchForm>,
) -> Response {
    let monorepo = MonorepoPath {
        owner: at.owner,
        monorepo: at.monorepo,
    };
    let back = super::branch::branch_page(
        &format!("{}/{}", seg(&monorepo.owner), seg(&monorepo.monorepo)),
        &at.repo,
        &at.branch,
    );
    let done = async {
        // A form's POST must come from a page of this service.
        auth::check_origin(&headers, &state)?;
        // The branch page's own path: the branch must be one the person can see.
        let path = BranchPath {
            owner: monorepo.owner.clone(),
            monorepo: monorepo.monorepo.clone(),
            repo: at.repo,
            branch: at.branch,
        };
        let (repo, branch) = {
            let mut conn = state.store.read().await?;
            let (_, repo) = path.resolve(conn.h(), &viewer.0, Need::Read).await?;
            let branch = path.live(conn.h(), &repo).await?.name;
            (repo.name, branch)
        };
        let body = NewSession {
            prompt: form.prompt,
            branch: Some(branch),
            repo: Some(repo),
            model: given(form.model),
        };
        let (_, Json(s)) = api::launch(
            State(state.clone()),
            viewer.0.clone(),
            Path(monorepo.clone()),
            Json(body),
        )
        .await?;
        Ok(opened(&monorepo, &s))
    }
    .await;
    answered(&viewer, done, "The agent was not launched", back)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AddressForm {
    prompt: Option<String>,
    model: Option<String>,
    repo: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct IssuePagePath {
    owner: String,
    monorepo: String,
    number: i64,
}

/// "Address with an agent" on an issue page (addressIssueWithAgent), then to the
/// session.
async fn address(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<IssuePagePath>,
    axum::Form(form): axum::Form<AddressForm>,
) -> Response {
    let monorepo = MonorepoPath {
        owner: at.owner,
        monorepo: at.monorepo,
    };
    let back = format!(
        "/{}/{}/issues/{}",
        seg(&monorepo.owner),
        seg(&monorepo.monorepo),
        at.number
    );
    let done = async {
        // A form's POST must come from a page of this service.
        auth::check_origin(&headers, &state)?;
        let path = IssuePath {
            owner: monorepo.owner.clone(),
            monorepo: monorepo.monorepo.clone(),
            number: at.number,
        };
        let body = IssueAgent {
            prompt: given(form.prompt),
            branch: None,
            repo: given(form.repo),
            model: given(form.model),
        };
        let (_, Json(s)) = api::address_issue(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(body),
        )
        .await?;
        Ok(opened(&monorepo, &s))
    }
    .await;
    answered(&viewer, done, "The agent was not launched", back)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ChatForm {
    message: String,
    model: Option<String>,
    repo: Option<String>,
}

/// Starts a chat (newChat), then to it.
async fn new_chat(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<ChatForm>,
) -> Response {
    let back = format!("/{}/{}/chats", seg(&at.owner), seg(&at.monorepo));
    let done = async {
        // A form's POST must come from a page of this service.
        auth::check_origin(&headers, &state)?;
        let body = NewChat {
            message: form.message,
            repo: given(form.repo),
            model: given(form.model),
        };
        let (_, Json(s)) = api::new_chat(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Json(body),
        )
        .await?;
        Ok(opened(&at, &s))
    }
    .await;
    answered(&viewer, done, "The chat was not started", back)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use svc_protocol::agent::{Message, Part, Role};

    fn message(index: i64, role: Role, parts: Vec<Part>) -> Message {
        Message {
            index,
            role,
            at: time::OffsetDateTime::UNIX_EPOCH,
            parts,
        }
    }

    #[test]
    fn a_result_goes_under_its_call_and_a_lone_one_stands() {
        let views = super::message_views(&[
            message(
                0,
                Role::Assistant,
                vec![Part::ToolCall {
                    id: "t1".into(),
                    name: "Bash".into(),
                    input: json!({"command": "git push\nmore"}),
                }],
            ),
            message(
                1,
                Role::Tool,
                vec![Part::ToolResult {
                    id: "t1".into(),
                    output: json!("pushed"),
                    is_error: false,
                }],
            ),
            message(
                2,
                Role::Tool,
                vec![Part::ToolResult {
                    id: "t9".into(),
                    output: json!({"n": 1}),
                    is_error: true,
                }],
            ),
        ]);
        assert_eq!(
            views.len(),
            2,
            "the message of the placed result is dropped"
        );
        let call = &views[0].parts[0];
        assert_eq!((call.kind, call.brief.as_str()), ("call", "git push"));
        assert_eq!(call.results[0].text, "pushed");
        assert_eq!(views[1].index, 2);
        assert_eq!(views[1].parts[0].kind, "result");
        assert!(views[1].parts[0].results[0].is_error);
    }

    #[test]
    fn long_text_is_cut_on_a_character() {
        assert_eq!(super::cut("ééé", 2), "éé…");
        assert_eq!(super::cut("ab", 2), "ab");
    }
}
