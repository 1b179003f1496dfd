//! The delivery worker of one server process. Woken by every commit (the live layer's
//! bell: SQLite's commits, PostgreSQL's notifications, so a change's deliveries leave as
//! soon as it commits) and by the next due time, it takes due deliveries with a lease in
//! the database and tries each in a task of its own: several servers share the work, a
//! try in flight is never taken twice, and a try a dead process held is made again when
//! its lease runs out. At most [`PER_HOOK`] of one hook's deliveries are taken at once,
//! so a slow or dead receiver never holds up another hook.

use std::sync::Arc;
use std::time::Duration;

use super::send::{self, Outcome};
use super::target::Policy;
use crate::state::AppState;
use crate::store::hooks::{self, DeliveryRow, TryRow};
use crate::store::now_ms;

/// How long a taken delivery is this process's: well past a try's 10 s.
const LEASE_MS: i64 = 60_000;
/// Deliveries taken per round.
const BATCH: i64 = 128;
/// Deliveries of one hook in flight at once.
pub const PER_HOOK: i64 = 8;
/// The longest sleep without a look (a notification missed, a lease run out).
const IDLE: Duration = Duration::from_secs(30);

/// Runs the worker until the runtime stops.
pub async fn run(state: AppState) {
    let policy = Arc::new(Policy::new(&state.config.hooks.allowed_hosts));
    let clients = Clients {
        web: send::client(Arc::clone(&policy)),
        policy,
        ci: state.ci_client.clone(),
    };
    let mut bell = state.live.bell();
    let mut last_prune = 0;
    // A SQLite server is the only process: a lease left is a try a crash cut off (sent
    // or not), due again now rather than when the lease would have run out.
    if state.store.postgres().is_none() {
        let released = async {
            let mut tx = state.store.begin().await?;
            let n = hooks::release_leases(tx.h()).await?;
            tx.commit().await?;
            Ok::<_, crate::store::Error>(n)
        };
        match released.await {
            Ok(0) => {}
            Ok(n) => tracing::info!(
                deliveries = n,
                "hook deliveries a crash cut off are due again"
            ),
            Err(e) => tracing::error!(error = %e, "cannot release the leases of hook deliveries"),
        }
    }
    loop {
        let now = now_ms();
        // A read first: every SQLite commit rings the bell, and a write transaction per
        // commit would only contend for the writer lock when nothing is due.
        let due = next_due(&state).await.is_some_and(|at| at <= now);
        let taken = match if due {
            take(&state, now).await
        } else {
            Ok(Vec::new())
        } {
            Ok(taken) => taken,
            Err(e) => {
                tracing::error!(error = %e, "cannot take due hook deliveries");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let full = taken.len() as i64 >= BATCH;
        for (d, lease) in taken {
            tokio::spawn(try_one(state.clone(), clients.clone(), d, lease));
        }
        if now - last_prune > 60_000 {
            last_prune = now;
            prune_tokens(&state, now).await;
        }
        if full {
            continue;
        }
        let wait = match next_due(&state).await {
            Some(at) => {
                Duration::from_millis(u64::try_from((at - now_ms()).max(0)).unwrap_or(0)).min(IDLE)
            }
            None => IDLE,
        };
        if wait.is_zero() {
            // Due but not takeable (a hook at its limit, a lease held): look again when
            // a try of this process ends, or soon.
            tokio::select! {
                () = state.hook_wake.notified() => {}
                () = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
            continue;
        }
        tokio::select! {
            changed = bell.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = state.hook_wake.notified() => {}
            () = tokio::time::sleep(wait) => {}
        }
    }
}

async fn take(state: &AppState, now: i64) -> crate::store::Result<Vec<(DeliveryRow, i64)>> {
    let lease = now + LEASE_MS;
    let mut tx = state.store.begin().await?;
    let taken = hooks::take_due(tx.h(), now, lease, BATCH, PER_HOOK).await?;
    tx.commit().await?;
    Ok(taken.into_iter().map(|d| (d, lease)).collect())
}

async fn next_due(state: &AppState) -> Option<i64> {
    let mut conn = state.store.read().await.ok()?;
    hooks::next_due(conn.h()).await.ok().flatten()
}

async fn prune_tokens(state: &AppState, now: i64) {
    let Ok(mut tx) = state.store.begin().await else {
        return;
    };
    if hooks::prune_read_tokens(tx.h(), now).await.is_ok() {
        let _ = tx.commit().await;
    }
}

/// The HTTP clients of tries: web hooks' (the host policy's resolver, no redirects) and
/// the CI service's (the operator's own settings name it).
#[derive(Clone)]
struct Clients {
    web: reqwest::Client,
    /// What web hooks may reach, for the addresses written in URLs.
    policy: Arc<Policy>,
    ci: reqwest::Client,
}

/// One try: build, send, record the outcome and the next due time.
async fn try_one(state: AppState, clients: Clients, d: DeliveryRow, lease: i64) {
    let hook = {
        let Ok(mut conn) = state.store.read().await else {
            return;
        };
        match hooks::by_id(conn.h(), &d.hook_id).await {
            Ok(Some(hook)) => hook,
            // Deleted meanwhile: its deliveries went with it.
            _ => return,
        }
    };
    let at = now_ms();
    let outcome = match send::body(&state, &hook, &d).await {
        Ok(body) if hook.kind == "ci" => {
            super::ci_build::start(&state, &clients.ci, &hook, &d, &body).await
        }
        Ok(body) => {
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            send::post(&clients.web, &clients.policy, &hook, &d, &bytes).await
        }
        Err(e) => Outcome {
            status: None,
            duration_ms: 0,
            error: Some(format!("cannot build the delivery: {e}")),
        },
    };
    crate::crash::point("hook.sent");
    if let Err(e) = record(&state, &d, lease, at, &outcome).await {
        tracing::error!(delivery = %d.id, error = %e, "cannot record a hook delivery try");
    }
    // Its next try, or another delivery of the hook held back, may be due.
    state.hook_wake.notify_one();
}

/// Where a delivery goes after its round's `round_tries`-th try failed at `now`: due
/// again after the schedule's next delay, or dead once the delays are used up (five tries
/// with the specification's four delays).
fn after_failure(delays: &[u64], round_tries: i64, now: i64) -> (&'static str, Option<i64>) {
    match usize::try_from(round_tries - 1)
        .ok()
        .and_then(|i| delays.get(i))
    {
        Some(delay) => {
            let ms = i64::try_from(*delay).unwrap_or(i64::MAX / 2_000) * 1000;
            ("pending", Some(now + ms))
        }
        None => ("dead", None),
    }
}

/// Writes the try and moves the delivery: delivered, due again after the schedule's
/// next delay, or dead after the round's last try.
async fn record(
    state: &AppState,
    d: &DeliveryRow,
    lease: i64,
    at: i64,
    outcome: &Outcome,
) -> crate::store::Result<()> {
    let round_tries = d.round_tries + 1;
    let (state_name, next) = if outcome.delivered() {
        ("delivered", None)
    } else {
        after_failure(&state.config.hooks.retry_delays, round_tries, now_ms())
    };
    let t = TryRow {
        delivery_id: d.id.clone(),
        at,
        status: outcome.status.map(i32::from),
        duration_ms: outcome.duration_ms,
        error: outcome.error.clone(),
    };
    let mut tx = state.store.begin().await?;
    let kept = hooks::finish_try(tx.h(), &d.id, lease, &t, state_name, round_tries, next).await?;
    tx.commit().await?;
    if !kept {
        tracing::warn!(delivery = %d.id, "a hook delivery's lease ran out before its try was recorded");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::after_failure;
    use crate::config::HooksSettings;

    #[test]
    fn the_schedule_is_10_s_1_min_5_min_30_min_then_dead() {
        let delays = HooksSettings::default().retry_delays;
        let now = 1_000_000;
        let next: Vec<_> = (1..=5).map(|n| after_failure(&delays, n, now)).collect();
        assert_eq!(
            next,
            [
                ("pending", Some(now + 10_000)),
                ("pending", Some(now + 60_000)),
                ("pending", Some(now + 300_000)),
                ("pending", Some(now + 1_800_000)),
                ("dead", None),
            ]
        );
    }
}
