//! Sessions as the API shows them, and their state changes written with their
//! `agent.updated` event in one transaction.

use svc_protocol::agent::{Message, Part, Role, Session, SessionKind, SessionState};

use crate::error::{ApiError, ApiResult};
use crate::store::agents::{MessageRow, SessionRow};
use crate::store::{H, events, repos, time_of};

/// The collection `agent.updated` events go to.
pub const COLLECTION: &str = "agents";

pub fn kind(row: &SessionRow) -> SessionKind {
    SessionKind::parse(&row.kind).unwrap_or(SessionKind::Task)
}

pub fn state(row: &SessionRow) -> SessionState {
    SessionState::parse(&row.state).unwrap_or(SessionState::Failed)
}

/// The credential a session's runs use, named after it.
pub fn credential_name(id: &str) -> String {
    format!("cloud-{id}")
}

/// The session's REST shape; `repo` is its repo's name.
pub fn view(row: &SessionRow, repo: Option<&str>) -> Session {
    Session {
        id: row.id.clone(),
        kind: kind(row),
        state: state(row),
        reason: row.reason.clone(),
        repo: repo.map(str::to_owned),
        branch: row.branch.clone(),
        model: row.model.clone(),
        prompt: row.prompt.clone(),
        launcher: row.launcher.clone(),
        credential: Some(credential_name(&row.id)),
        issue: row.issue_number,
        created_at: time_of(row.created_at),
        updated_at: time_of(row.updated_at),
    }
}

/// The name of the session's repo, if it has one.
pub async fn repo_name(h: H<'_>, row: &SessionRow) -> ApiResult<Option<String>> {
    let Some(repo_id) = &row.repo_id else {
        return Ok(None);
    };
    Ok(repos::by_id(h, repo_id).await?.map(|r| r.name))
}

/// The session as it now stands, read back in `h`.
pub async fn load(mut h: H<'_>, id: &str) -> ApiResult<(SessionRow, Session)> {
    let row = crate::store::agents::by_id(h.reborrow(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("agent session"))?;
    let repo = repo_name(h, &row).await?;
    let session = view(&row, repo.as_deref());
    Ok((row, session))
}

/// Writes `agent.updated` for the session as it stands in `h`. A chat is its person's
/// alone, so it writes none: the monorepo's stream reaches every member.
pub async fn announce(mut h: H<'_>, id: &str) -> ApiResult<Session> {
    let (row, session) = load(h.reborrow(), id).await?;
    if kind(&row) == SessionKind::Chat {
        return Ok(session);
    }
    let body = serde_json::json!({
        "row": session,
        "actor": row.launcher,
        "agent": row.model,
    });
    events::append(
        h,
        &events::NewEvent {
            monorepo_id: &row.monorepo_id,
            kind: "agent.updated",
            repo: session.repo.as_deref(),
            also_repos: None,
            collection: COLLECTION,
            key: &row.id,
            op: "upsert",
            body: body.to_string(),
            at: row.updated_at,
        },
    )
    .await?;
    Ok(session)
}

/// A stored transcript message as the API shows it.
pub fn message(row: &MessageRow) -> Message {
    let role = match row.role.as_str() {
        "user" => Role::User,
        "tool" => Role::Tool,
        _ => Role::Assistant,
    };
    let parts: Vec<Part> = serde_json::from_str(&row.parts).unwrap_or_default();
    Message {
        index: row.idx,
        role,
        at: time_of(row.at),
        parts,
    }
}

pub fn role_str(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}
