//! Comment threads on artifacts: their shape, limits, mentions and events.

use std::collections::HashMap;

use axum::http::StatusCode;
use serde_json::json;
use svc_protocol::ErrorCode;
use svc_protocol::artifact::{Anchor, ArtifactComment, ArtifactThread, ThreadState};

use crate::error::{ApiError, ApiResult};
use crate::git::record::{Actor, Pending};
use crate::store::artifacts::{ArtifactRow, CommentRow};
use crate::store::time_of;

/// A comment's body, in bytes.
pub const BODY_MAX: usize = 64 * 1024;
/// Distinct `@login` mentions in one comment.
pub const MENTIONS_MAX: usize = 20;
/// Threads on one artifact.
pub const THREADS_MAX: i64 = 500;
/// Replies in one thread.
pub const REPLIES_MAX: i64 = 200;
/// A live event leaves out a body over this many bytes.
const EVENT_BODY_MAX: usize = 16 * 1024;

/// Refuses an empty body (400) or one over 64 KiB (413 `too_large`).
pub fn check_body(body: &str) -> ApiResult<()> {
    if body.trim().is_empty() {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "a comment needs a body",
        ));
    }
    if body.len() > BODY_MAX {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
            format!("a comment is at most {BODY_MAX} bytes"),
        ));
    }
    Ok(())
}

/// The logins a body mentions with `@login` (lowercased, each once, in order); 400
/// `too_many_mentions` over 20.
pub fn mentioned(body: &str) -> ApiResult<Vec<String>> {
    let mut found: Vec<String> = Vec::new();
    let bytes = body.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'@' && (i == 0 || !word(bytes[i - 1])) {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
                end += 1;
            }
            if (1..=39).contains(&(end - start)) {
                let login = body[start..end].to_ascii_lowercase();
                if !found.contains(&login) {
                    found.push(login);
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    if found.len() > MENTIONS_MAX {
        return Err(ApiError::bad_request(
            ErrorCode::TooManyMentions,
            format!("a comment mentions at most {MENTIONS_MAX} people"),
        ));
    }
    Ok(found)
}

/// Checks an anchor's fields: a block, a range that is one, and the words it covers.
pub fn check_anchor(anchor: &Anchor) -> ApiResult<()> {
    let bad = |m: &str| ApiError::bad_request(ErrorCode::BadRequest, m);
    if anchor.block_id.is_empty() || anchor.block_id.len() > 200 {
        return Err(bad("an anchor's blockId is 1 to 200 characters"));
    }
    if anchor.start < 0 || anchor.end < anchor.start {
        return Err(bad(
            "an anchor's start and end are a range: 0 <= start <= end",
        ));
    }
    let context = [
        Some(&anchor.exact),
        anchor.prefix.as_ref(),
        anchor.suffix.as_ref(),
    ];
    if anchor.exact.is_empty() || context.iter().flatten().any(|s| s.len() > BODY_MAX) {
        return Err(bad("an anchor's exact words are 1 byte to 64 KiB"));
    }
    Ok(())
}

/// A comment in its REST shape.
pub fn view(c: &CommentRow) -> ArtifactComment {
    let root = c.thread == c.id;
    ArtifactComment {
        id: c.id.clone(),
        artifact: c.artifact_id.clone(),
        thread: c.thread.clone(),
        version: c.version,
        anchor: c
            .anchor
            .as_deref()
            .and_then(|a| serde_json::from_str(a).ok()),
        body: c.body.clone(),
        author: c.author.clone(),
        mentions: c.mentions.split_whitespace().map(str::to_owned).collect(),
        state: root.then(|| {
            c.state
                .as_deref()
                .and_then(ThreadState::parse)
                .unwrap_or(ThreadState::Open)
        }),
        reply_count: root.then_some(c.reply_count),
        created_at: time_of(c.created_at),
        updated_at: time_of(c.updated_at),
        body_version: c.body_version,
    }
}

/// Threads of the rows (roots oldest first, each with its replies).
pub fn threads(rows: &[CommentRow], artifacts: &[ArtifactRow]) -> Vec<ArtifactThread> {
    let names: HashMap<&str, &str> = artifacts
        .iter()
        .map(|a| (a.id.as_str(), a.name.as_str()))
        .collect();
    let mut replies: HashMap<&str, Vec<ArtifactComment>> = HashMap::new();
    for r in rows.iter().filter(|r| r.thread != r.id) {
        replies.entry(r.thread.as_str()).or_default().push(view(r));
    }
    rows.iter()
        .filter(|r| r.thread == r.id)
        .map(|root| ArtifactThread {
            root: view(root),
            replies: replies.remove(root.id.as_str()).unwrap_or_default(),
            artifact_name: names
                .get(root.artifact_id.as_str())
                .copied()
                .unwrap_or_default()
                .to_owned(),
        })
        .collect()
}

/// An `artifact_comment.*` event of a comment on `artifact` (a body over 16 KB null);
/// `artifact_comment.deleted` of a removed row is a delete with `{id, artifact, thread}`.
pub fn event(
    kind: &'static str,
    c: &CommentRow,
    artifact: &ArtifactRow,
    repo: &str,
    removed: bool,
    actor: &Actor,
) -> Pending {
    let (op, row) = if removed {
        let row = json!({"id": c.id, "artifact": c.artifact_id, "thread": c.thread});
        ("delete", row)
    } else {
        let mut row = json!(view(c));
        if c.body.as_ref().is_some_and(|b| b.len() > EVENT_BODY_MAX) {
            row["body"] = serde_json::Value::Null;
        }
        ("upsert", row)
    };
    let body = json!({"row": row, "repo": repo, "branch": artifact.branch,
        "artifact_name": artifact.name, "actor": actor.login, "agent": actor.agent});
    (kind, "artifact_comments", c.id.clone(), op, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_logins_after_an_at_sign() {
        let got = mentioned("hi @Ann and @bob-2, mail x@y.z; @ann again (@c_d)").unwrap();
        assert_eq!(got, ["ann", "bob-2", "c"]);
        let many: String = (0..21).map(|i| format!("@p{i} ")).collect();
        assert!(mentioned(&many).is_err());
    }
}
