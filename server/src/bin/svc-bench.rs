//! Benchmarks of the server core, run in release mode:
//! `cargo run --release -p svc-server --bin svc-bench [-- --database-url URL]`.
//!
//! - credential check: `auth::authenticate` on a valid token (the work every
//!   authenticated request adds), against the same store read without the check;
//! - idle RSS of a freshly started `svc-server` binary (built beside this one).

use std::sync::Arc;
use std::time::{Duration, Instant};

use svc_protocol::user::CredentialKind;
use svc_server::accounts::{self, NewUser};
use svc_server::app::AppState;
use svc_server::store::{Store, users};
use svc_server::{Config, auth};

const ROUNDS: u32 = 20_000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = tempfile_dir()?;
    let url = args
        .iter()
        .position(|a| a == "--database-url")
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    let store = Store::open(&url).await?;
    let config = Config::new(([127, 0, 0, 1], 0).into(), dir.clone(), url);
    let state = AppState {
        store: store.clone(),
        config: Arc::new(config),
        oidc: None,
        push_slots: Arc::new(tokio::sync::Semaphore::new(1)),
        last_commits: Arc::default(),
    };

    let mut tx = store.begin().await?;
    let email = format!("bench-{}@example.com", svc_server::token::new_id(""));
    let new = NewUser {
        login: None,
        email: Some(&email),
        email_verified: true,
        name: None,
        password_hash: None,
    };
    let user = accounts::create_user(&mut tx, new)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let credential =
        accounts::issue_credential(&mut tx, &user.id, "bench", CredentialKind::Machine, None)
            .await?;
    tx.commit().await?;

    println!("backend: {}", store.backend());
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
    println!("credential check (authenticate):  {check}");
    store.close().await;

    if let Some(rss) = idle_server_rss(&dir)? {
        println!("svc-server idle RSS after 3 s: {rss} kB");
    }
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

fn tempfile_dir() -> anyhow::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("svc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Starts the `svc-server` built beside this binary and reads its resident set size.
fn idle_server_rss(dir: &std::path::Path) -> anyhow::Result<Option<u64>> {
    let bin = std::env::current_exe()?.with_file_name("svc-server");
    if !bin.exists() {
        println!("(no svc-server beside svc-bench: build it to measure idle RSS)");
        return Ok(None);
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    drop(listener);
    let mut child = std::process::Command::new(bin)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .arg("--data-dir")
        .arg(dir.join("idle"))
        .stderr(std::process::Stdio::null())
        .spawn()?;
    std::thread::sleep(Duration::from_secs(3));
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    child.kill()?;
    child.wait()?;
    Ok(status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()))
}
