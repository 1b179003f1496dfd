//! What issues are made of beyond their rows, shared by the issue routes and by the
//! merge recording that closes the issues a merge names: the whole issue as a person
//! sees it, and a change's timeline items with its one `issue.*` event.

use serde_json::{Value, json};
use svc_protocol::issue::{
    Issue, IssueLink, IssueRow as IssueView, IssueState, Reaction, ReactionContent, StateReason,
};

use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::store::issues::{self, IssueRow};
use crate::store::{H, events, now_ms, time_of};

/// Live events leave a comment body over this out (null).
pub const LIVE_BODY_MAX: usize = 16 * 1024;

/// The issue's row with its labels and assignees.
pub struct Loaded {
    row: IssueRow,
    labels: Vec<String>,
    assignees: Vec<String>,
}

pub fn view_row(l: &Loaded) -> IssueView {
    let r = &l.row;
    IssueView {
        number: r.number,
        title: r.title.clone(),
        state: IssueState::parse(&r.state).unwrap_or(IssueState::Open),
        state_reason: r.state_reason.as_deref().and_then(StateReason::parse),
        author: r.author.clone(),
        project: r.project.clone(),
        labels: l.labels.clone(),
        assignees: l.assignees.clone(),
        comments: r.comments,
        created_at: time_of(r.created_at),
        updated_at: time_of(r.updated_at),
        closed_at: r.closed_at.map(time_of),
    }
}

/// Rows with their labels and assignees, two queries for the lot.
pub async fn with_lists(mut h: H<'_>, rows: Vec<IssueRow>) -> ApiResult<Vec<Loaded>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let labels = issues::labels_of(h.reborrow(), &ids).await?;
    let assignees = issues::assignees_of(h, &ids).await?;
    let of = |pairs: &[(i64, String)], id: i64| -> Vec<String> {
        pairs
            .iter()
            .filter(|(i, _)| *i == id)
            .map(|(_, v)| v.clone())
            .collect()
    };
    Ok(rows
        .into_iter()
        .map(|row| Loaded {
            labels: of(&labels, row.id),
            assignees: of(&assignees, row.id),
            row,
        })
        .collect())
}

/// Reactions in the fixed order, only those given.
pub fn reactions_of(all: &[(i64, String, i64, bool)], comment_id: i64) -> Vec<Reaction> {
    let mut out: Vec<Reaction> = all
        .iter()
        .filter(|(c, ..)| *c == comment_id)
        .filter_map(|(_, content, count, me)| {
            Some(Reaction {
                content: ReactionContent::parse(content)?,
                count: *count,
                me: *me,
            })
        })
        .collect();
    out.sort_by_key(|r| r.content);
    out
}

/// The whole issue as `login` sees it.
pub async fn full(mut h: H<'_>, row: IssueRow, login: &str) -> ApiResult<Issue> {
    let id = row.id;
    let loaded = with_lists(h.reborrow(), vec![row])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal("the issue vanished"))?;
    let links = issues::links(h.reborrow(), id)
        .await?
        .into_iter()
        .map(|(repo, branch)| IssueLink { repo, branch })
        .collect();
    let participants = issues::participants(h.reborrow(), id).await?;
    let reactions = issues::reactions(h, id, login).await?;
    Ok(Issue {
        row: view_row(&loaded),
        body: loaded.row.body.clone(),
        body_version: loaded.row.body_version,
        links,
        participants,
        reactions: reactions_of(&reactions, 0),
    })
}

/// A change's timeline item, before it is written.
pub struct NewItem {
    pub kind: &'static str,
    pub comment_id: Option<i64>,
    pub details: Value,
}

/// Who made a change: the person's login and the agent acting for them, if any.
#[derive(Debug, Clone, Copy)]
pub struct By<'a> {
    pub login: &'a str,
    pub agent: Option<&'a str>,
}

impl<'a> By<'a> {
    /// The caller, with their agent session's agent when the credential is one.
    pub fn caller(caller: &'a Caller) -> By<'a> {
        By {
            login: &caller.login,
            agent: caller.session_agent(),
        }
    }
}

/// Writes the items and one `issue.*` event carrying the row, the new items (comment
/// bodies over 16 KB null) and whatever else the change says (`extra`).
pub async fn record(
    mut h: H<'_>,
    monorepo_id: &str,
    issue: &Issue,
    kind: &str,
    new_items: Vec<NewItem>,
    by: By<'_>,
    extra: Value,
) -> ApiResult<()> {
    let actor = by.login;
    let issue_id = issues::by_number(h.reborrow(), monorepo_id, issue.row.number)
        .await?
        .map(|r| r.id)
        .ok_or_else(|| ApiError::internal("the issue vanished"))?;
    let at = now_ms();
    let mut items = Vec::new();
    for item in new_items {
        let details = item.details.to_string();
        let id = issues::add_item(
            h.reborrow(),
            issue_id,
            item.kind,
            actor,
            item.comment_id,
            &details,
            at,
        )
        .await?;
        let body = match item.comment_id {
            Some(c) => issues::comment(h.reborrow(), issue_id, c)
                .await?
                .map(|c| c.body)
                .filter(|b| b.len() <= LIVE_BODY_MAX),
            None => None,
        };
        let mut view = json!({"id": id, "kind": item.kind, "actor": actor,
            "created_at": time_of(at).format(&time::format_description::well_known::Rfc3339).unwrap_or_default()});
        if let (Some(obj), Value::Object(fields)) = (view.as_object_mut(), item.details) {
            obj.extend(fields);
            if item.comment_id.is_some() {
                obj.insert("body".into(), json!(body));
            }
        }
        items.push(view);
    }
    let mut payload = json!({
        "number": issue.row.number,
        "row": issue.row,
        "body_version": issue.body_version,
        "items": items,
        "actor": actor,
        "agent": by.agent,
    });
    if let (Some(obj), Value::Object(fields)) = (payload.as_object_mut(), extra) {
        obj.extend(fields);
    }
    let key = issue.row.number.to_string();
    let also_repos = linked_repos(issue);
    let event = events::NewEvent {
        monorepo_id,
        kind,
        repo: issue.row.project.as_deref(),
        also_repos: also_repos.as_deref(),
        collection: "issues",
        key: &key,
        op: "upsert",
        body: payload.to_string(),
        at,
    };
    events::append(h, &event).await?;
    Ok(())
}

/// The repos of an issue's linked branches other than its project, one per line (for
/// `repo:<name>` topics), if any.
fn linked_repos(issue: &Issue) -> Option<String> {
    let mut repos: Vec<&str> = issue
        .links
        .iter()
        .map(|l| l.repo.as_str())
        .filter(|r| Some(*r) != issue.row.project.as_deref())
        .collect();
    repos.sort_unstable();
    repos.dedup();
    (!repos.is_empty()).then(|| repos.join("\n"))
}

/// `Closes #N` / `Fixes #N` (any case, also `close`, `closed`, `fix`, `fixed`) in a
/// branch's title or description: the numbers it names.
pub fn named_numbers(text: &str) -> Vec<i64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let verb = pair[0].trim_end_matches(':').to_ascii_lowercase();
        if !matches!(
            verb.as_str(),
            "close" | "closes" | "closed" | "fix" | "fixes" | "fixed"
        ) {
            continue;
        }
        let number = pair[1]
            .strip_prefix('#')
            .map(|n| n.trim_end_matches(|c: char| !c.is_ascii_digit()))
            .and_then(|n| n.parse::<i64>().ok());
        if let Some(n) = number.filter(|n| *n > 0) {
            out.push(n);
        }
    }
    out
}

/// Closes (`completed`) the open issues a merge names: `linked`, those linked to the
/// branch (read by the caller, [`issues::linked_to_any`]), and those its title or
/// description closes. Called in the transaction that records the merge, so there is no
/// merge without the close.
pub async fn close_by_merge(
    mut h: H<'_>,
    monorepo_id: &str,
    (repo, branch, text): (&str, &str, &str),
    linked: Vec<i64>,
    sha: &str,
    by: By<'_>,
) -> ApiResult<()> {
    let mut numbers = linked;
    numbers.extend(named_numbers(text));
    numbers.sort_unstable();
    numbers.dedup();
    for number in numbers {
        let Some(mut row) = issues::by_number(h.reborrow(), monorepo_id, number).await? else {
            continue;
        };
        if row.state != "open" {
            continue;
        }
        let now = now_ms();
        row.state = "closed".into();
        row.state_reason = Some(StateReason::Completed.as_str().into());
        row.closed_at = Some(now);
        row.updated_at = now;
        issues::save(h.reborrow(), &row).await?;
        let issue = full(h.reborrow(), row, by.login).await?;
        let item = NewItem {
            kind: "closed",
            comment_id: None,
            details: json!({"state_reason": StateReason::Completed,
                "merge": {"repo": repo, "branch": branch, "sha": sha}}),
        };
        record(
            h.reborrow(),
            monorepo_id,
            &issue,
            "issue.closed",
            vec![item],
            by,
            json!({}),
        )
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn closing_words_name_numbers() {
        assert_eq!(
            super::named_numbers("Fixes #12, closes #3. See #4; fix: #5 and closed #x"),
            [12, 3, 5]
        );
    }
}
