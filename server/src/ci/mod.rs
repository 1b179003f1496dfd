//! CI: Buildkite spoken as Buildkite speaks it. A webhook's build and job are written
//! with their events and the build's commit status (`buildkite/<pipeline>`, stamped
//! `app: buildkite`) in one transaction before the receiver answers, so the merge gate,
//! the needs-you list and the branch checks see CI with no extra work.

pub mod buildkite;
pub mod launch;
pub mod pipelines;
pub mod signature;
pub mod states;

use serde_json::{Value, json};
use svc_protocol::ci::{CiBuild, CiJob, CiState};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::ci::{self, BuildRow, ConnectionRow, JobRow};
use crate::store::statuses::{self, StatusRow};
use crate::store::{H, events, ms_of, now_ms, repos, time_of};
use signature::Checked;

/// The service svc speaks.
pub const BUILDKITE: &str = "buildkite";

/// A build in its REST shape.
pub fn build_view(b: &BuildRow, repo: Option<&str>, jobs: Option<Vec<CiJob>>) -> CiBuild {
    CiBuild {
        id: b.id.clone(),
        connection: b.connection_id.clone(),
        pipeline: b.pipeline.clone(),
        number: b.number,
        state: CiState::parse(&b.state).unwrap_or(CiState::Queued),
        service_state: b.service_state.clone(),
        branch: b.branch.clone(),
        commit: b.commit_sha.clone(),
        message: b.message.clone(),
        web_url: b.web_url.clone(),
        repo: repo.map(str::to_owned),
        created_at: time_of(b.created_at),
        started_at: b.started_at.map(time_of),
        finished_at: b.finished_at.map(time_of),
        meta_data: serde_json::from_str(&b.meta_data).unwrap_or_else(|_| json!({})),
        rebuild_of: b.rebuild_of.clone(),
        jobs,
    }
}

/// A job in its REST shape.
pub fn job_view(j: &JobRow) -> CiJob {
    CiJob {
        id: j.id.clone(),
        name: j.name.clone(),
        state: CiState::parse(&j.state).unwrap_or(CiState::Queued),
        service_state: j.service_state.clone(),
        exit_status: j.exit_status,
        web_url: j.web_url.clone(),
        started_at: j.started_at.map(time_of),
        finished_at: j.finished_at.map(time_of),
        retried_by: j.retried_by.clone(),
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// An RFC 3339 time of a Buildkite object, in ms; none outside years 0 to 9999 in UTC,
/// which RFC 3339 cannot print back (`0000-01-01T00:30:00+01:00` is in year -1).
pub fn at(v: &Value) -> Option<i64> {
    let s = v.as_str()?;
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
        .ok()
        .and_then(|t| t.checked_to_offset(time::UtcOffset::UTC))
        .filter(|t| (0..10_000).contains(&t.year()))
        .map(ms_of)
}

/// The repo of the connection's monorepo a build is of: the one svc named in its
/// `meta_data` (builds svc started), else the first repo that has its commit.
async fn repo_of(
    state: &AppState,
    connection: &ConnectionRow,
    build: &Value,
) -> ApiResult<Option<repos::RepoRow>> {
    let all = {
        let mut conn = state.store.read().await?;
        repos::all(conn.h(), &connection.monorepo_id).await?
    };
    let meta = &build["meta_data"];
    if meta["svc_monorepo"].as_str() == Some(connection.monorepo_id.as_str())
        && let Some(name) = meta["svc_repo"].as_str()
    {
        return Ok(all.into_iter().find(|r| r.name == name));
    }
    let Some(commit) = text(&build["commit"]).filter(|c| c.len() == 40) else {
        return Ok(None);
    };
    for repo in all {
        let sha = commit.clone();
        if state
            .git(&repo, move |git| git.commit_exists(&sha))
            .await?
            .is_some()
        {
            return Ok(Some(repo));
        }
    }
    Ok(None)
}

/// Where news of a build came from, which fixes its place in the build's order.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// A webhook: signed order in whole seconds; with a plain token, arrival order.
    Webhook(Checked),
    /// The service's answer to svc's own REST call: it takes no place in the signed
    /// order, so a webhook signed in the same second still applies; it only moves
    /// states forward.
    Answer,
}

/// Applies one webhook (`build.*` or `job.*`; `ping` changes nothing) of `connection`.
pub async fn apply(
    state: &AppState,
    connection: &ConnectionRow,
    event: &str,
    body: &Value,
    source: Source,
) -> ApiResult<()> {
    if event == "ping" || !(event.starts_with("build.") || event.starts_with("job.")) {
        return Ok(());
    }
    let b = &body["build"];
    let id = text(&b["id"]).ok_or_else(|| bad("the body has no build.id"))?;
    let pipeline = text(&body["pipeline"]["slug"])
        .or_else(|| text(&b["pipeline"]["slug"]))
        .ok_or_else(|| bad("the body has no pipeline.slug"))?;
    let signed_at = match source {
        Source::Webhook(Checked::Signed(t)) => Some(t.saturating_mul(1000)),
        Source::Webhook(Checked::Token) => Some(now_ms()),
        Source::Answer => None,
    };
    // The build's repo, found before the transaction: finding it for a build not seen
    // yet may ask git, which no transaction should wait on.
    let known_repo = {
        let mut conn = state.store.read().await?;
        match ci::build(conn.h(), &connection.id, &id).await? {
            Some(BuildRow {
                repo_id: Some(repo_id),
                ..
            }) => Some(repos::by_id(conn.h(), &repo_id).await?),
            _ => None,
        }
    };
    let repo = match known_repo {
        Some(repo) => repo,
        None => repo_of(state, connection, b).await?,
    };
    let mut tx = state.store.begin().await?;
    // One webhook of a build at a time: its events apply in order.
    ci::lock_build(tx.h(), &connection.id, &id).await?;
    let old = ci::build(tx.h(), &connection.id, &id).await?;
    let word = text(&b["state"]).unwrap_or_else(|| "scheduled".into());
    let new_state = states::build(&word);
    let fresh = old.as_ref().is_none_or(|o| {
        signed_at.is_none_or(|t| t >= o.signed_at)
            && states::moves(
                CiState::parse(&o.state).unwrap_or(CiState::Queued),
                new_state,
            )
    });
    let row = match (&old, fresh) {
        (Some(o), false) => o.clone(),
        _ => BuildRow {
            connection_id: connection.id.clone(),
            id: id.clone(),
            pipeline: pipeline.clone(),
            number: b["number"].as_i64().unwrap_or_default(),
            state: new_state.as_str().into(),
            service_state: word,
            branch: text(&b["branch"]),
            commit_sha: text(&b["commit"]),
            message: text(&b["message"]),
            web_url: text(&b["web_url"]),
            repo_id: repo.as_ref().map(|r| r.id.clone()),
            meta_data: b
                .get("meta_data")
                .filter(|m| m.is_object())
                .map_or_else(|| "{}".into(), Value::to_string),
            rebuild_of: text(&b["rebuilt_from"]["id"])
                .or_else(|| text(&b["meta_data"]["svc_rebuild_of"])),
            created_at: at(&b["created_at"]).unwrap_or_else(now_ms),
            started_at: at(&b["started_at"]),
            finished_at: at(&b["finished_at"]),
            signed_at: signed_at
                .unwrap_or(0)
                .max(old.as_ref().map_or(0, |o| o.signed_at)),
        },
    };
    let repo_name = repo.as_ref().map(|r| r.name.clone());
    // What a reader sees changed (a newer signed time alone is only written).
    let changed_build = old.as_ref().map(|o| BuildRow {
        signed_at: row.signed_at,
        ..o.clone()
    }) != Some(row.clone());
    if old.as_ref() != Some(&row) {
        ci::put_build(tx.h(), &row).await?;
    }
    let mut job_event = None;
    if event.starts_with("job.") {
        job_event = apply_job(tx.h(), connection, &id, &body["job"]).await?;
    }
    let moved = old.as_ref().is_none_or(|o| o.state != row.state);
    let mut out = Outbox::new(connection, repo_name.clone());
    if moved && let (Some(repo), Some(commit)) = (&repo, &row.commit_sha) {
        post_status(tx.h(), &mut out, repo, commit, &row).await?;
    }
    if changed_build {
        let view = build_view(&row, repo_name.as_deref(), None);
        out.push(
            "ci.build",
            "ci_builds",
            row.id.clone(),
            json!({"row": view}),
        );
    }
    if let Some(job) = job_event {
        let key = format!("{}/{}", row.id, job.id);
        out.push(
            "ci.job",
            "ci_jobs",
            key,
            json!({"row": job_view(&job), "build": row.id}),
        );
    }
    out.write(tx.h()).await?;
    tx.commit().await?;
    if moved && let Some(repo) = &repo {
        // The build's check changed: an armed branch may merge now.
        state.auto_merge.poke(&repo.id);
        state.merge_queue.poke(&repo.id);
    }
    Ok(())
}

/// Records a job retry the service accepted, before its webhooks come: the new job (its
/// `retry_source` the old one), the old job's `retried_by`, and the build open again
/// (running, as the service reopens it) with its check back to pending, all with their
/// events in one transaction. Answers the new job.
pub async fn record_retry(
    state: &AppState,
    connection: &ConnectionRow,
    build_id: &str,
    retried: &str,
    answer: &Value,
) -> ApiResult<JobRow> {
    let mut job = answer.clone();
    if job["retry_source"]["job_id"].as_str().is_none() {
        job["retry_source"] = json!({"job_id": retried});
    }
    let mut tx = state.store.begin().await?;
    ci::lock_build(tx.h(), &connection.id, build_id).await?;
    let build = ci::build(tx.h(), &connection.id, build_id)
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("build {build_id}")))?;
    let repo = match &build.repo_id {
        Some(id) => repos::by_id(tx.h(), id).await?,
        None => None,
    };
    let repo_name = repo.as_ref().map(|r| r.name.clone());
    let new = apply_job(tx.h(), connection, build_id, &job)
        .await?
        .ok_or_else(|| bad("the service answered a job svc has already"))?;
    let mut changed = vec![new.clone()];
    changed.extend(ci::job(tx.h(), &connection.id, retried).await?);
    let mut out = Outbox::new(connection, repo_name.clone());
    for j in &changed {
        let body = json!({"row": job_view(j), "build": build_id});
        out.push("ci.job", "ci_jobs", format!("{build_id}/{}", j.id), body);
    }
    if CiState::parse(&build.state).is_some_and(CiState::is_finished) {
        let reopened = BuildRow {
            state: CiState::Running.as_str().into(),
            service_state: "running".into(),
            finished_at: None,
            ..build
        };
        ci::put_build(tx.h(), &reopened).await?;
        if let (Some(repo), Some(commit)) = (&repo, &reopened.commit_sha) {
            post_status(tx.h(), &mut out, repo, commit, &reopened).await?;
        }
        let body = json!({"row": build_view(&reopened, repo_name.as_deref(), None)});
        out.push("ci.build", "ci_builds", reopened.id.clone(), body);
    }
    out.write(tx.h()).await?;
    tx.commit().await?;
    Ok(new)
}

/// Writes a job as its event shows it, unless that would move it back; a retry marks the
/// job it retried. Answers the job when it changed.
async fn apply_job(
    mut h: H<'_>,
    connection: &ConnectionRow,
    build_id: &str,
    j: &Value,
) -> ApiResult<Option<JobRow>> {
    let Some(id) = text(&j["id"]) else {
        return Err(bad("a job event has no job.id"));
    };
    let word = text(&j["state"]).unwrap_or_else(|| "scheduled".into());
    let exit_status = j["exit_status"].as_i64();
    let new_state = states::job(&word, exit_status);
    let old = ci::job(h.reborrow(), &connection.id, &id).await?;
    if let Some(o) = &old
        && !states::moves(
            CiState::parse(&o.state).unwrap_or(CiState::Queued),
            new_state,
        )
    {
        return Ok(None);
    }
    let row = JobRow {
        connection_id: connection.id.clone(),
        build_id: build_id.to_owned(),
        id: id.clone(),
        name: text(&j["name"]).or_else(|| text(&j["label"])),
        state: new_state.as_str().into(),
        service_state: word,
        exit_status,
        web_url: text(&j["web_url"]),
        started_at: at(&j["started_at"]),
        finished_at: at(&j["finished_at"]),
        retried_by: old.as_ref().and_then(|o| o.retried_by.clone()),
    };
    if old.as_ref() == Some(&row) {
        return Ok(None);
    }
    ci::put_job(h.reborrow(), &row).await?;
    if let Some(source) = text(&j["retry_source"]["job_id"])
        && let Some(mut retried) = ci::job(h.reborrow(), &connection.id, &source).await?
    {
        retried.retried_by = Some(id);
        ci::put_job(h, &retried).await?;
    }
    Ok(Some(row))
}

/// The build's commit status `buildkite/<pipeline>`, with its `status` event.
/// Sets the build's check on its commit; its event goes out with the others.
async fn post_status(
    h: H<'_>,
    out: &mut Outbox<'_>,
    repo: &repos::RepoRow,
    commit: &str,
    b: &BuildRow,
) -> ApiResult<()> {
    let state = CiState::parse(&b.state).unwrap_or(CiState::Queued);
    let row = StatusRow {
        repo_id: repo.id.clone(),
        sha: commit.to_owned(),
        context: format!("{BUILDKITE}/{}", b.pipeline),
        state: states::status(state).as_str().to_owned(),
        target_url: b.web_url.clone(),
        description: Some(format!("Build #{} {}", b.number, b.service_state)),
        creator: format!("app:{BUILDKITE}"),
        app: Some(BUILDKITE.into()),
        created_at: now_ms(),
    };
    let before = statuses::put(h, &row).await?;
    let status = crate::checks::status_view(&row);
    let body = json!({"row": status, "actor": null, "agent": null,
        "changed": before.as_deref() != Some(row.state.as_str())});
    let key = format!("{}/{}/{}", repo.name, commit, row.context);
    out.push("status", "statuses", key, body);
    Ok(())
}

/// The events one change of a connection's builds writes (all of one repo, or of none),
/// appended together as its transaction's last write, so the monorepo's event counter
/// is held only from there to the commit.
struct Outbox<'c> {
    connection: &'c ConnectionRow,
    repo: Option<String>,
    events: Vec<(&'static str, &'static str, String, Value)>,
}

impl<'c> Outbox<'c> {
    fn new(connection: &'c ConnectionRow, repo: Option<String>) -> Self {
        Outbox {
            connection,
            repo,
            events: Vec::new(),
        }
    }

    fn push(&mut self, kind: &'static str, collection: &'static str, key: String, body: Value) {
        self.events.push((kind, collection, key, body));
    }

    async fn write(self, h: H<'_>) -> ApiResult<()> {
        let at = now_ms();
        let all: Vec<_> = self
            .events
            .iter()
            .map(|(kind, collection, key, body)| events::NewEvent {
                monorepo_id: &self.connection.monorepo_id,
                kind,
                repo: self.repo.as_deref(),
                also_repos: None,
                collection,
                key,
                op: "upsert",
                body: body.to_string(),
                at,
            })
            .collect();
        events::append_all(h, &all).await?;
        Ok(())
    }
}

fn bad(message: &str) -> ApiError {
    ApiError::bad_request(svc_protocol::ErrorCode::BadRequest, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_only_those_rfc3339_prints_back() {
        // From fuzz/fuzz_targets/buildkite_webhook.rs: a build created at this time (year
        // -1 in UTC) made `build_view` unprintable, and `json!` in `apply` panicked.
        for s in [
            "0000-01-01T00:30:00+01:00",
            "0000-01-01T00:00:00+00:01",
            "9999-12-31T23:59:59-00:01",
        ] {
            assert_eq!(at(&json!(s)), None, "{s}");
        }
        for s in [
            "0000-01-01T00:00:00Z",
            "0000-01-01T00:30:00-01:00",
            "2025-06-01T10:00:00.123+02:00",
            "9999-12-31T23:59:59Z",
        ] {
            let ms = at(&json!(s)).unwrap_or_else(|| panic!("{s}"));
            let t = time_of(ms);
            assert_eq!(ms_of(t), ms, "{s}");
            assert!(
                t.format(&time::format_description::well_known::Rfc3339)
                    .is_ok(),
                "{s}"
            );
        }
        assert_eq!(
            at(&json!("2025-06-01T10:00:00.123Z")),
            Some(1_748_772_000_123)
        );
    }
}
