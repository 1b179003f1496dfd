//! One try of a web hook delivery: the body completed for this try (the label at delivery
//! time, URLs, fresh tokens, the merge base), signed, POSTed with no redirects followed,
//! 10 s for the whole answer, of which at most a little is read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use svc_protocol::event::ZERO_SHA;
use time::format_description::well_known::Rfc3339;

use super::target::{Policy, Resolver};
use super::tokens::{self, StatusGrant};
use crate::state::AppState;
use crate::store::hooks::{DeliveryRow, HookRow};
use crate::store::{self, monorepos, now_ms, repos, time_of};

/// A try that gets no 2xx within this long failed.
pub const TRY_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes of the receiver's answer read at most (only its status counts).
const ANSWER_READ: usize = 64 * 1024;

/// The HTTP client of web hooks: no redirects, no proxy, the policy's resolver.
pub fn client(policy: Arc<Policy>) -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(TRY_TIMEOUT)
        .connect_timeout(TRY_TIMEOUT)
        .user_agent(concat!("svc-hookshot/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Arc::new(Resolver(policy)))
        .build()
        .unwrap_or_default()
}

/// How a try went.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
}

impl Outcome {
    pub fn delivered(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// `sha256=<hex>`: HMAC-SHA256 of the raw body keyed by the hook's secret.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The body of this try: the fixed fields with the monorepo's label now, the URLs, a
/// fresh read token, a status token (with the status secret, for a head that exists)
/// and the merge base with main.
pub async fn body(state: &AppState, hook: &HookRow, d: &DeliveryRow) -> store::Result<Value> {
    let mut body: Value = serde_json::from_str(&d.body).unwrap_or_else(|_| json!({}));
    body["delivery_id"] = json!(d.id);
    let now = now_ms();
    let mut tx = state.store.begin().await?;
    let monorepo = monorepos::by_id(tx.h(), &hook.monorepo_id).await?;
    let repo = match &d.repo_id {
        Some(id) => repos::by_id(tx.h(), id).await?,
        None => None,
    };
    let (Some(monorepo), Some(repo)) = (monorepo, repo) else {
        tx.commit().await?;
        return Ok(body);
    };
    let label = monorepo.label();
    body["monorepo"] = json!(label);
    let clone_url = crate::views::clone_url(&state.config, &monorepo, &repo);
    body["clone_url"] = json!(clone_url);
    let ttl = if hook.kind == "ci" {
        tokens::CI_READ_TOKEN_MS
    } else {
        tokens::READ_TOKEN_MS
    };
    let (read, read_exp) = tokens::mint_read(tx.h(), &repo.id, Some(&hook.id), now, ttl).await?;
    tx.commit().await?;
    body["read_token"] = json!(read);
    body["read_token_expires_at"] = json!(stamp(read_exp));
    let base = state.config.base();
    let repo_url = format!("{base}/v1/monorepos/{label}/repos/{}", repo.name);
    // A CI hook builds a merge on main: its status token is for the merge commit.
    let head = match (hook.kind.as_str(), d.event.as_str()) {
        ("ci", "merged") => {
            body["main_branch"] = json!(repo.default_branch);
            body["merge_commit"].as_str()
        }
        _ => body["head"].as_str(),
    }
    .unwrap_or(ZERO_SHA)
    .to_owned();
    let branch = body["branch"].as_str().map(str::to_owned);
    if let Some(branch) = branch.filter(|_| head != ZERO_SHA) {
        // The branch's web page: facts, checks, the diff, reviews and the merge button.
        let page = crate::web::branch_page(&label, &repo.name, &branch);
        body["diff_url"] = json!(format!("{base}{page}"));
        if d.event != "merged" && branch != repo.default_branch {
            body["base"] = json!(merge_base(state, &repo, &head).await);
        }
    }
    if let Some(secret) = state
        .config
        .status_secret
        .as_deref()
        .filter(|_| head != ZERO_SHA)
    {
        let exp = now + tokens::STATUS_TOKEN_MS;
        let (creator, app) = match &hook.app {
            Some(app) if hook.kind == "ci" => (format!("app:{app}"), Some(app.clone())),
            _ => (format!("hook:{}", hook.id), None),
        };
        let grant = StatusGrant {
            repo: repo.id.clone(),
            sha: head.clone(),
            creator,
            app,
            exp,
        };
        body["status_url"] = json!(format!("{repo_url}/statuses/{head}"));
        body["status_token"] = json!(tokens::sign_status(secret, &grant));
        body["status_token_expires_at"] = json!(stamp(exp));
    }
    Ok(body)
}

fn stamp(ms: i64) -> String {
    time_of(ms).format(&Rfc3339).unwrap_or_default()
}

/// The merge base of `head` with main's head, if both are there.
async fn merge_base(state: &AppState, repo: &repos::RepoRow, head: &str) -> Option<String> {
    let main = repo.default_head.clone()?;
    let head = head.to_owned();
    state
        .git(repo, move |git| {
            let (Some(a), Some(b)) = (git.commit_exists(&main)?, git.commit_exists(&head)?) else {
                return Ok::<_, crate::error::ApiError>(None);
            };
            Ok(git.merge_base(a, b)?.map(|id| id.to_string()))
        })
        .await
        .ok()
        .flatten()
}

/// POSTs `body` to the hook's URL, signed. An address written in the URL is checked
/// against `policy` first: no resolver sees it, and the setting may have changed since
/// the hook was made.
pub async fn post(
    client: &reqwest::Client,
    policy: &Policy,
    hook: &HookRow,
    d: &DeliveryRow,
    body: &[u8],
) -> Outcome {
    let start = Instant::now();
    let refused = |error: String| Outcome {
        status: None,
        duration_ms: 0,
        error: Some(error),
    };
    let Some(url) = hook.url.as_deref() else {
        return refused("the hook has no URL".into());
    };
    let url = match url::Url::parse(url) {
        Ok(url) => url,
        Err(e) => return refused(format!("the hook's URL is not one: {e}")),
    };
    if let Err(why) = policy.check_literal(&url) {
        return refused(why);
    }
    let sent = client
        .post(url)
        .header("content-type", "application/json")
        .header("x-svc-event", &d.event)
        .header("x-svc-delivery", &d.id)
        .header("x-svc-signature-256", signature(&hook.secret, body))
        .body(body.to_vec())
        .send()
        .await;
    let (status, error) = match sent {
        Ok(mut answer) => {
            let status = answer.status().as_u16();
            // Read a little of the answer, within the same 10 s, then let it go.
            let mut read = 0;
            let mut error = None;
            while read < ANSWER_READ {
                match answer.chunk().await {
                    Ok(Some(chunk)) => read += chunk.len(),
                    Ok(None) => break,
                    Err(e) => {
                        error = Some(describe(&e));
                        break;
                    }
                }
            }
            let error = error.or_else(|| {
                (!(200..300).contains(&status)).then(|| format!("the receiver answered {status}"))
            });
            (Some(status), error)
        }
        Err(e) => (None, Some(describe(&e))),
    };
    Outcome {
        status,
        duration_ms: i64::try_from(start.elapsed().as_millis()).unwrap_or(i64::MAX),
        error,
    }
}

/// A failed send in plain words, without the URL (which may carry a secret path).
fn describe(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "no answer within 10 s"
    } else if e.is_connect() {
        "cannot connect"
    } else if e.is_body() || e.is_decode() {
        "the answer broke off"
    } else {
        "the request failed"
    };
    let mut cause = std::error::Error::source(e);
    let mut words = Vec::new();
    while let Some(c) = cause {
        words.push(c.to_string());
        cause = c.source();
    }
    match words.last() {
        Some(root) => format!("{kind}: {root}"),
        None => kind.to_owned(),
    }
}
