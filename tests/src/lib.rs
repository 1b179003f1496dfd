//! The end-to-end harness: a real `svc-server` on port 0 over a temp data dir, on
//! SQLite or, when `SVC_TEST_DATABASE_URL` is set, on a fresh PostgreSQL database.

pub mod browser;
pub mod fake_anthropic;
pub mod fake_buildkite;
pub mod fake_model;
pub mod fake_oidc;
pub mod fake_openai;
pub mod git;
pub mod laptop;
pub mod machine;
pub mod npm_tools;
pub mod pg;
mod process;
pub mod receiver;
pub mod smtp_sink;
pub mod snapshot;
pub mod web;
pub mod ws;

use std::time::Duration;

use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;
use svc_protocol::user::UserWithCredential;
use svc_server::agents::settings::AgentsSettings;
use svc_server::config::{
    BuildkiteSettings, Config, FactsSettings, GitSettings, HooksSettings, LoginSettings,
    MergeQueueSettings, OidcSettings, SignupSettings, SmtpSettings,
};
use svc_server::connections::ConnectionSettings;
use svc_server::rate_limit::RateLimitSettings;
use tokio::sync::oneshot;

/// The bootstrap secret every test server is started with.
pub const BOOTSTRAP_SECRET: &str = "test-bootstrap-secret-0123456789";

/// A running server and an HTTP client for it.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub data_dir: tempfile::TempDir,
    /// The server's settings (database URL, data dir), for tests that reach under the API.
    pub config: Config,
    running: Option<Running>,
    /// The settings file of a server run as a child process.
    settings_file: Option<std::path::PathBuf>,
    _database: Option<pg::TempDatabase>,
}

/// How a test server runs: on a thread of the test process (most tests), or as a child
/// process, for the tests that kill it.
enum Running {
    Thread {
        shutdown: oneshot::Sender<()>,
        server: ServerThread,
    },
    Process(KillOnDrop),
}

/// Settings a test may change before the server starts.
pub struct TestAppBuilder {
    bootstrap_secret: Option<String>,
    login: LoginSettings,
    oidc: Option<OidcSettings>,
    event_stream: bool,
    hooks: HooksSettings,
    buildkite: Option<BuildkiteSettings>,
    agents: AgentsSettings,
    /// `[agents]` as given, for a settings file.
    agents_toml: String,
    rate_limits: RateLimitSettings,
    connections: ConnectionSettings,
    signup: SignupSettings,
    smtp: Option<SmtpSettings>,
    git: GitSettings,
    facts: FactsSettings,
    merge_queue: MergeQueueSettings,
    process: bool,
}

/// The status secret every test server signs status tokens with.
pub const STATUS_SECRET: &str = "test-status-secret-0123456789";

impl TestAppBuilder {
    /// Hook settings: which hosts hooks may reach (tests default to loopback, where
    /// their receivers listen) and the retry schedule.
    pub fn hooks(mut self, hooks: HooksSettings) -> Self {
        self.hooks = hooks;
        self
    }

    /// Buildkite settings: its REST API at `api_url` (a fake on loopback) and a token.
    pub fn buildkite(mut self, api_url: &str, token: &str) -> Self {
        self.buildkite = Some(BuildkiteSettings {
            api_url: api_url.parse().expect("a URL"),
            token: Some(token.to_owned()),
        });
        self
    }

    /// `[agents]` settings, as the server's TOML writes them (without the header).
    pub fn agents(mut self, toml: &str) -> Self {
        self.agents = AgentsSettings::from_toml(toml).expect("[agents] settings");
        toml.clone_into(&mut self.agents_toml);
        self
    }

    /// `[rate_limits]` settings.
    pub fn rate_limits(mut self, limits: RateLimitSettings) -> Self {
        self.rate_limits = limits;
        self
    }

    /// `[facts]` settings.
    pub fn facts(mut self, facts: FactsSettings) -> Self {
        self.facts = facts;
        self
    }

    /// `[merge_queue]` settings (how long an entry may wait).
    pub fn merge_queue(mut self, merge_queue: MergeQueueSettings) -> Self {
        self.merge_queue = merge_queue;
        self
    }

    /// `[connections]` settings.
    pub fn connections(mut self, connections: ConnectionSettings) -> Self {
        self.connections = connections;
        self
    }

    /// Runs the server as a child process (the `svc-server` binary with a settings file),
    /// which [`TestApp::crash_at`] can arm to die with SIGKILL at a crash point.
    pub fn process(mut self) -> Self {
        self.process = true;
        self
    }

    /// Starts with the monorepo event stream switched off.
    pub fn without_event_stream(mut self) -> Self {
        self.event_stream = false;
        self
    }

    /// Starts without a bootstrap secret (`POST /v1/users` then answers 404).
    pub fn without_bootstrap(mut self) -> Self {
        self.bootstrap_secret = None;
        self
    }

    /// Device codes live `expires_in` seconds and clients poll every `interval`.
    pub fn device_flow(mut self, expires_in: u64, interval: u64) -> Self {
        self.login = LoginSettings {
            device_expires_in: expires_in,
            device_interval: interval,
        };
        self
    }

    /// `[signup] open = true`: anyone may make an account at `/signup`.
    pub fn open_signup(mut self) -> Self {
        self.signup.open = true;
        self
    }

    /// `[smtp]` pointing at a sink on loopback `port`, without STARTTLS.
    pub fn smtp(mut self, port: u16) -> Self {
        self.smtp = Some(SmtpSettings {
            host: "127.0.0.1".into(),
            port,
            from: "svc <svc@example.com>".into(),
            username: None,
            password: None,
            starttls: false,
        });
        self
    }

    /// `[git]` settings (the push limit).
    pub fn git(mut self, git: GitSettings) -> Self {
        self.git = git;
        self
    }

    pub fn oidc(mut self, settings: OidcSettings) -> Self {
        self.oidc = Some(settings);
        self
    }

    pub async fn start(self) -> TestApp {
        svc_server::app::install_crypto_provider();
        let data_dir = tempfile::tempdir().expect("temp dir");
        let (database_url, database) = match pg::TempDatabase::create_if_configured().await {
            Some(db) => (db.url.clone(), Some(db)),
            None => (
                format!("sqlite://{}", data_dir.path().join("svc.db").display()),
                None,
            ),
        };
        let listener = listen();
        let addr = listener.local_addr().expect("local addr");
        let mut config = Config::new(addr, data_dir.path().to_path_buf(), database_url);
        config.bootstrap_secret = self.bootstrap_secret;
        config.login = self.login;
        config.oidc = self.oidc;
        config.event_stream = self.event_stream;
        config.hooks = self.hooks;
        config.buildkite = self.buildkite;
        config.agents = self.agents;
        config.rate_limits = self.rate_limits;
        config.connections = self.connections;
        config.signup = self.signup;
        config.smtp = self.smtp;
        config.git = self.git;
        config.facts = self.facts;
        config.merge_queue = self.merge_queue;
        config.status_secret = Some(STATUS_SECRET.to_owned());
        let (running, settings_file) = if self.process {
            drop(listener);
            let file = process::write_settings(data_dir.path(), &config, &self.agents_toml);
            (Running::Process(process::spawn(&file, None)), Some(file))
        } else {
            (serve(listener, config.clone()), None)
        };
        let mut app = TestApp {
            base: format!("http://{addr}"),
            client: client(),
            data_dir,
            config,
            running: Some(running),
            settings_file,
            _database: database,
        };
        app.wait_ready().await;
        app
    }
}

type ServerThread = std::thread::JoinHandle<anyhow::Result<()>>;

/// Runs the server on a runtime of its own, so a test may block (running git, say)
/// without stalling it.
fn serve(listener: std::net::TcpListener, config: Config) -> Running {
    let (tx, rx) = oneshot::channel();
    let server = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            svc_server::launch(listener, config, async {
                let _ = rx.await;
            })
            .await
        })
    });
    Running::Thread {
        shutdown: tx,
        server,
    }
}

/// An HTTP client that never follows redirects, so tests see each hop.
pub fn client() -> reqwest::Client {
    svc_server::app::install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        // The server closes a kept-alive connection idle for its header timeout (10 s);
        // a test that blocks its runtime (running git) longer would otherwise send its
        // next request on a connection the server has closed.
        .pool_idle_timeout(Duration::from_secs(5))
        .build()
        .expect("client")
}

impl TestApp {
    pub fn builder() -> TestAppBuilder {
        TestAppBuilder {
            bootstrap_secret: Some(BOOTSTRAP_SECRET.to_owned()),
            login: LoginSettings::default(),
            oidc: None,
            event_stream: true,
            hooks: HooksSettings {
                allowed_hosts: vec!["loopback".into()],
                ..HooksSettings::default()
            },
            buildkite: None,
            agents: AgentsSettings::default(),
            agents_toml: String::new(),
            process: false,
            // Tests make many people from one address through the bootstrap route, which
            // counts as signing in; the rest is as a server runs by default.
            rate_limits: RateLimitSettings {
                sign_in_per_minute: 1000,
                ..RateLimitSettings::default()
            },
            connections: ConnectionSettings::default(),
            signup: SignupSettings::default(),
            smtp: None,
            git: GitSettings::default(),
            facts: FactsSettings::default(),
            merge_queue: MergeQueueSettings::default(),
        }
    }

    /// A server with the default settings and a bootstrap secret.
    pub async fn start() -> TestApp {
        Self::builder().start().await
    }

    async fn wait_ready(&mut self) {
        for _ in 0..300 {
            if let Ok(r) = self.client.get(self.url("/healthz")).send().await
                && r.status().is_success()
            {
                return;
            }
            let exited = match &mut self.running {
                Some(Running::Thread { server, .. }) => server.is_finished(),
                Some(Running::Process(child)) => child.0.try_wait().ok().flatten().is_some(),
                None => false,
            };
            assert!(!exited, "svc-server exited before it was ready");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("svc-server did not answer /healthz");
    }

    /// What a server run as a child process ([`TestAppBuilder::process`]) has logged.
    pub fn server_log(&self) -> Option<String> {
        let file = self.settings_file.as_ref()?;
        std::fs::read_to_string(process::log_file(file)).ok()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The service's own origin, for cookie writes.
    pub fn origin(&self) -> &str {
        &self.base
    }

    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// A request with a Bearer credential.
    pub fn as_user(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        self.request(method, path).bearer_auth(token)
    }

    /// Creates a user through bootstrap; answers the user and its first credential.
    pub async fn bootstrap(&self, body: Value) -> UserWithCredential {
        let r = self
            .request(Method::POST, "/v1/users")
            .bearer_auth(BOOTSTRAP_SECRET)
            .json(&body)
            .send()
            .await
            .expect("bootstrap request");
        expect_json(r, StatusCode::CREATED).await
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) {
        self.halt().await;
    }

    async fn halt(&mut self) {
        match self.running.take() {
            Some(Running::Thread { shutdown, server }) => {
                let _ = shutdown.send(());
                let joined = tokio::task::spawn_blocking(move || server.join())
                    .await
                    .expect("join task");
                joined.expect("server thread").expect("server result");
            }
            Some(Running::Process(mut child)) => {
                tokio::task::spawn_blocking(move || process::stop(&mut child))
                    .await
                    .expect("stop task");
            }
            None => {}
        }
    }

    /// A second server process on the same database and data dir, as when svc scales out
    /// on PostgreSQL.
    pub async fn twin(&self) -> TestApp {
        let listener = listen();
        let addr = listener.local_addr().expect("local addr");
        let config = Config {
            listen: addr,
            base_url: format!("http://{addr}/").parse().expect("url"),
            ..self.config.clone()
        };
        let running = serve(listener, config.clone());
        let mut twin = TestApp {
            base: format!("http://{addr}"),
            client: client(),
            data_dir: tempfile::tempdir().expect("temp dir"),
            config,
            running: Some(running),
            settings_file: None,
            _database: None,
        };
        twin.wait_ready().await;
        twin
    }

    /// Stops the server and starts a new one on the same address, data dir and database.
    pub async fn restart(&mut self) {
        self.halt().await;
        self.start_again(None).await;
    }

    /// Restarts a server run as a process ([`TestAppBuilder::process`]) armed to kill
    /// itself with SIGKILL at the crash point `point`; [`TestApp::crashed`] waits for it.
    pub async fn crash_at(&mut self, point: &str) {
        self.halt().await;
        self.start_again(Some(point)).await;
    }

    /// Waits for the server armed by [`TestApp::crash_at`] to die at `point` by SIGKILL,
    /// then starts it again, unarmed.
    pub async fn crashed(&mut self, point: &str) {
        match &mut self.running {
            Some(Running::Process(child)) => process::killed(child, point).await,
            _ => panic!("only a server run as a process crashes"),
        }
        self.running = None;
        self.start_again(None).await;
    }

    /// Starts the server on its old address (a process armed at `crash_at`).
    async fn start_again(&mut self, crash_at: Option<&str>) {
        if let Some(file) = &self.settings_file {
            // The port is free once the process is gone.
            self.running = Some(Running::Process(process::spawn(file, crash_at)));
            self.wait_ready().await;
            return;
        }
        assert!(crash_at.is_none(), "only a server run as a process crashes");
        // The old server's sockets may take a moment to let go of the port.
        let mut bound = std::net::TcpListener::bind(self.config.listen);
        for _ in 0..100 {
            if bound.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            bound = std::net::TcpListener::bind(self.config.listen);
        }
        let listener = bound.expect("bind again");
        listener.set_nonblocking(true).expect("nonblocking");
        self.running = Some(serve(listener, self.config.clone()));
        self.wait_ready().await;
    }
}

/// A listener for a test server on a port below the kernel's range for outgoing
/// connections (32768 and up on Linux), so that [`TestApp::restart`] finds its port free:
/// with every test in one process, a port 0 gave out could be taken, once its server
/// stopped, as the local port of some other test's connection.
fn listen() -> std::net::TcpListener {
    use std::sync::atomic::{AtomicU16, Ordering};
    const FIRST: u16 = 20_000;
    const COUNT: u16 = 12_000;
    // Where this process starts, so that test processes running side by side rarely meet.
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let start = (std::process::id() % u32::from(COUNT)) as u16;
    for _ in 0..COUNT {
        let port = FIRST + start.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)) % COUNT;
        if let Ok(listener) = std::net::TcpListener::bind(("127.0.0.1", port)) {
            listener.set_nonblocking(true).expect("nonblocking");
            return listener;
        }
    }
    panic!("no free port from {FIRST} to {}", FIRST + COUNT - 1);
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // A thread's server stops on its own; a process is killed with its KillOnDrop.
        if let Some(Running::Thread { shutdown, .. }) = self.running.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Asserts the status and decodes the JSON body, showing the body when either fails.
pub async fn expect_json<T: DeserializeOwned>(r: Response, status: StatusCode) -> T {
    let got = r.status();
    let text = r.text().await.expect("body");
    assert_eq!(got, status, "unexpected status; body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("bad JSON ({e}): {text}"))
}

/// Asserts an error answer: its status and its `error.code`, in the error shape.
pub async fn expect_error(r: Response, status: StatusCode, code: &str) -> Value {
    let body: Value = expect_json(r, status).await;
    assert_eq!(body["error"]["code"], code, "body: {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "body: {body}"
    );
    body
}

/// A binary of the workspace (`svc`, `svc-server`), built beside the test binaries.
pub fn workspace_bin(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let bin = dir.join(name);
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace` first",
        bin.display()
    );
    bin
}

/// A child process killed when the test ends, pass or fail, so no server outlives it.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl TestApp {
    /// Creates a monorepo as `token`'s user; answers the created monorepo's JSON.
    pub async fn monorepo(&self, token: &str, body: Value) -> Value {
        let r = self
            .as_user(Method::POST, "/v1/monorepos", token)
            .json(&body)
            .send()
            .await
            .expect("create monorepo");
        expect_json(r, StatusCode::CREATED).await
    }

    /// Creates a repo at `path` in `<full_name>`; answers the repo's JSON.
    pub async fn repo(&self, token: &str, full_name: &str, path: &str) -> Value {
        let r = self
            .as_user(
                Method::POST,
                &format!("/v1/monorepos/{full_name}/repos"),
                token,
            )
            .json(&serde_json::json!({"path": path}))
            .send()
            .await
            .expect("create repo");
        expect_json(r, StatusCode::CREATED).await
    }

    /// GET as `token` and decode, insisting on 200.
    pub async fn get_json(&self, token: &str, path: &str) -> Value {
        let r = self
            .as_user(Method::GET, path, token)
            .send()
            .await
            .expect("get");
        expect_json(r, StatusCode::OK).await
    }

    /// Merges a branch adding `.svc/<name>` with `content` into the meta repo of
    /// `monorepo` (`owner/name`) as `token`; answers the MergeResult.
    pub async fn merge_into_meta(
        &self,
        token: &str,
        monorepo: &str,
        name: &str,
        content: &[u8],
    ) -> Value {
        let m = format!("/v1/monorepos/{monorepo}");
        let meta = self.get_json(token, &format!("{m}/repos/meta")).await;
        let git = git::Git::new(token);
        let url = meta["clone_url"].as_str().expect("meta clone_url");
        git.ok(git.home.path(), &["clone", "-q", url, "meta"]);
        let work = git.path("meta");
        git.ok(&work, &["checkout", "-q", "-b", "add-merged"]);
        let path = format!(".svc/{name}");
        git.commit(&work, "add merged", &[(path.as_str(), content)]);
        git.ok(&work, &["push", "-q", "origin", "add-merged"]);
        let r = self
            .as_user(
                Method::POST,
                &format!("{m}/repos/meta/branches/add-merged/merge"),
                token,
            )
            .send()
            .await
            .expect("merge");
        expect_json(r, StatusCode::OK).await
    }
}

/// A server with user `ann`, monorepo `ann/<monorepo>` and its repo at `path`, cloned
/// (still empty) into `work` by a sealed git that holds ann's credential.
pub struct Cloned {
    pub app: TestApp,
    pub token: String,
    pub git: git::Git,
    pub work: std::path::PathBuf,
}

impl Cloned {
    pub async fn new(monorepo: &str, path: &str) -> Cloned {
        Cloned::with(TestApp::builder(), monorepo, path).await
    }

    /// The same, on a server with the builder's settings.
    pub async fn with(builder: TestAppBuilder, monorepo: &str, path: &str) -> Cloned {
        let app = builder.start().await;
        let token = app
            .bootstrap(serde_json::json!({"email": "ann@example.com", "name": "Ann Example"}))
            .await
            .credential
            .token;
        app.monorepo(&token, serde_json::json!({"name": monorepo}))
            .await;
        let url = app.repo(&token, &format!("ann/{monorepo}"), path).await["clone_url"]
            .as_str()
            .expect("clone_url")
            .to_owned();
        let git = git::Git::new(&token);
        git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
        let work = git.path("work");
        Cloned {
            app,
            token,
            git,
            work,
        }
    }
}
