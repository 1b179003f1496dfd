//! `svc-bench auth`: the credential check every authenticated request adds
//! (`auth::authenticate` on a valid token) against one indexed user read of the same
//! store, and the idle RSS of a freshly started `svc-server`.

use std::time::{Duration, Instant};

use svc_protocol::user::CredentialKind;
use svc_server::accounts::{self, NewUser};
use svc_server::state::AppState;
use svc_server::store::{Store, users};
use svc_server::{Config, auth};

use super::common::{Server, print_load, print_machine, work_dir};

const ROUNDS: u32 = 20_000;

pub async fn run(database_url: Option<String>) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("auth")?;
    let url = database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    let store = Store::open(&url).await?;
    let config = Config::new(([127, 0, 0, 1], 0).into(), dir.clone(), url);
    let state = AppState::new(store.clone(), config, None);
    // On PostgreSQL the cache is trusted once the revocation listener is up.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut tx = store.begin().await?;
    let email = format!("bench-{}@example.com", svc_server::token::new_id(""));
    let new = NewUser::verified_email(&email);
    let user = accounts::create_user(&mut tx, new)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let credential =
        accounts::issue_credential(&mut tx, &user.id, "bench", CredentialKind::Machine, None)
            .await?;
    tx.commit().await?;

    println!("backend: {}", store.backend());
    println!(
        "rounds: {ROUNDS} each, after {} warm-up rounds",
        ROUNDS / 10
    );
    let baseline = time(ROUNDS, || async {
        let mut conn = store.read().await.expect("read");
        users::by_id(conn.h(), &user.id).await.expect("user");
    })
    .await;
    let check = time(ROUNDS, || async {
        auth::authenticate(&state, &credential.token)
            .await
            .expect("auth")
            .expect("valid");
    })
    .await;
    println!("baseline (one indexed user read): {baseline}");
    println!("credential check (authenticate, cached after the first):  {check}");
    println!(
        "credential check p50 goal < 50 µs: {}",
        if check.p50 < Duration::from_micros(50) {
            "met"
        } else {
            "MISSED"
        }
    );
    store.close().await;
    print_load();

    let server = Server::start(
        &dir.join("idle"),
        database_url.as_deref(),
        &dir.join("idle.log"),
    )
    .await?;
    std::thread::sleep(Duration::from_secs(3));
    println!(
        "svc-server idle RSS 3 s after /healthz answered: {} kB",
        server.rss_kb()
    );
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

struct Timing {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mean {:.1} µs, p50 {:.1} µs, p99 {:.1} µs",
            us(self.mean),
            us(self.p50),
            us(self.p99)
        )
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

async fn time<F, Fut>(rounds: u32, mut f: F) -> Timing
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..rounds / 10 {
        f().await;
    }
    let mut samples = Vec::with_capacity(rounds as usize);
    let start = Instant::now();
    for _ in 0..rounds {
        let t = Instant::now();
        f().await;
        samples.push(t.elapsed());
    }
    let mean = start.elapsed() / rounds;
    samples.sort();
    Timing {
        p50: samples[samples.len() / 2],
        p99: samples[samples.len() * 99 / 100],
        mean,
    }
}
