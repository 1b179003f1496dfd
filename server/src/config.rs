//! Server settings. Flags, environment variables and a TOML file give the same
//! settings; a flag or variable wins over the file, the file over the default.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use url::Url;

use crate::agents::settings::AgentsSettings;
use crate::connections::ConnectionSettings;
use crate::rate_limit::RateLimitSettings;

/// Settings for `svc-server` (serving is the default command).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on [default: 127.0.0.1:8640]
    #[arg(long, global = true, env = "SVC_LISTEN", value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// The address people and git use to reach this server [default: http://<listen>]
    #[arg(long, global = true, env = "SVC_BASE_URL", value_name = "URL")]
    pub base_url: Option<Url>,
    /// Where repositories and the embedded database live [default: the platform data dir]
    #[arg(long, global = true, env = "SVC_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// `postgres://...` selects PostgreSQL [default: SQLite file svc.db in the data dir]
    #[arg(long, global = true, env = "SVC_DATABASE_URL", value_name = "URL")]
    pub database_url: Option<String>,
    /// A TOML file with any of these settings
    #[arg(long, global = true, env = "SVC_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log lines as text or as JSON objects
    #[arg(long, global = true, env = "SVC_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// The TOML file: the same settings, plus the ones that have no flag.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    listen: Option<SocketAddr>,
    base_url: Option<Url>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    log_format: Option<LogFormat>,
    bootstrap_secret: Option<String>,
    /// `false` switches the monorepo event stream off (501 `event_stream_on_hold`).
    event_stream: Option<bool>,
    #[serde(default)]
    login: LoginSettings,
    oidc: Option<OidcSettings>,
    /// Signs hook deliveries' status tokens; without it they are absent.
    status_secret: Option<String>,
    #[serde(default)]
    hooks: HooksSettings,
    #[serde(default)]
    ci: CiSettings,
    #[serde(default)]
    agents: AgentsSettings,
    #[serde(default)]
    rate_limits: RateLimitSettings,
    #[serde(default)]
    connections: ConnectionSettings,
    #[serde(default)]
    signup: SignupSettings,
    smtp: Option<SmtpSettings>,
    #[serde(default)]
    git: GitSettings,
    #[serde(default)]
    facts: FactsSettings,
    #[serde(default)]
    merge_queue: MergeQueueSettings,
}

/// `[git]`: the git door.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitSettings {
    /// A push's request body may not exceed this many bytes (after gzip): 64 MiB, as the
    /// specification says. A push over it is refused as soon as that many bytes came.
    /// Imports (`svc repo import`) are not pushes and have no such limit.
    pub max_push_bytes: u64,
}

impl Default for GitSettings {
    fn default() -> Self {
        Self {
            max_push_bytes: 64 * 1024 * 1024,
        }
    }
}

/// `[facts]`: branch facts (ahead, behind, the merge dry run).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FactsSettings {
    /// Milliseconds a branch list spends in all computing its stale rows before it
    /// answers; the rest answer `stale` (`mergeable: pending`) and are finished in the
    /// background. 0: the list computes none.
    pub list_budget_ms: u64,
}

impl Default for FactsSettings {
    fn default() -> Self {
        Self {
            list_budget_ms: 100,
        }
    }
}

/// `[merge_queue]`: the repos' merge queues.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MergeQueueSettings {
    /// Seconds an entry may wait in a queue before it leaves with `timeout`: no queue
    /// stays stuck on a build that never reports.
    pub timeout_secs: u64,
}

impl Default for MergeQueueSettings {
    fn default() -> Self {
        Self {
            timeout_secs: 60 * 60,
        }
    }
}

/// `[signup]`: whether anyone may make an account from the sign-in page.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SignupSettings {
    /// `true` shows "Create an account" on the sign-in page (`/signup`); such an
    /// account's email is not verified, so it accepts no invites.
    pub open: bool,
}

/// `[smtp]`: the mail server invite sign-in links are sent through.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpSettings {
    pub host: String,
    #[serde(default = "SmtpSettings::default_port")]
    pub port: u16,
    /// The sender, like `svc <svc@example.com>`.
    pub from: String,
    pub username: Option<String>,
    pub password: Option<String>,
    /// Upgrade the connection with STARTTLS before sending (required when true).
    #[serde(default = "SmtpSettings::default_starttls")]
    pub starttls: bool,
}

impl SmtpSettings {
    fn default_port() -> u16 {
        587
    }

    fn default_starttls() -> bool {
        true
    }
}

/// `[ci]`: the CI services this server talks to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CiSettings {
    buildkite: Option<BuildkiteSettings>,
}

/// `[ci.buildkite]`: Buildkite's REST API and the server's token for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildkiteSettings {
    /// The REST API's base (tests point it at a fake on loopback).
    #[serde(default = "BuildkiteSettings::default_api_url")]
    pub api_url: Url,
    /// The server-side secret token (`SVC_BUILDKITE_TOKEN`), with `read_builds`,
    /// `write_builds`, `read_build_logs` and `read_artifacts`.
    pub token: Option<String>,
}

impl BuildkiteSettings {
    fn default_api_url() -> Url {
        Url::parse("https://api.buildkite.com/v2").expect("a valid URL")
    }
}

/// Hook deliveries.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksSettings {
    /// Where hooks may post: `external` (public addresses), `private`, `loopback`, `*`,
    /// a host name, or a CIDR. Checked on create and on every address a try connects to.
    pub allowed_hosts: Vec<String>,
    /// Seconds after a failed try that the next is due: the specification's schedule,
    /// 10 s, 1 min, 5 min, 30 min (five tries). Tests may shorten it.
    pub retry_delays: Vec<u64>,
}

impl Default for HooksSettings {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["external".into()],
            retry_delays: vec![10, 60, 300, 1800],
        }
    }
}

/// Sign-in tuning.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoginSettings {
    /// Seconds a device code lives.
    pub device_expires_in: u64,
    /// Seconds a device-flow client waits between polls.
    pub device_interval: u64,
}

impl Default for LoginSettings {
    fn default() -> Self {
        Self {
            device_expires_in: 900,
            device_interval: 5,
        }
    }
}

/// An OpenID Connect identity provider.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OidcSettings {
    pub issuer: Url,
    pub client_id: String,
    pub client_secret: String,
}

/// The resolved settings the server runs with.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub base_url: Url,
    pub data_dir: PathBuf,
    pub database_url: String,
    pub log_format: LogFormat,
    /// Enables `POST /v1/users`. From `SVC_BOOTSTRAP_SECRET` or the file.
    pub bootstrap_secret: Option<String>,
    pub login: LoginSettings,
    pub oidc: Option<OidcSettings>,
    /// The monorepo event stream answers (pull and socket); off, it answers 501.
    pub event_stream: bool,
    /// Signs status tokens (`SVC_STATUS_SECRET` or the file); none: no status tokens.
    pub status_secret: Option<String>,
    pub hooks: HooksSettings,
    /// Buildkite, when `[ci.buildkite]` or `SVC_BUILDKITE_TOKEN` configures it.
    pub buildkite: Option<BuildkiteSettings>,
    /// The coding agents sessions run, and their limits.
    pub agents: AgentsSettings,
    /// Request rates per address and per credential.
    pub rate_limits: RateLimitSettings,
    /// Header and body timeouts, connections per address.
    pub connections: ConnectionSettings,
    /// Whether anyone may make an account (`/signup`).
    pub signup: SignupSettings,
    /// Where invite sign-in links are mailed through; none: the inviter passes them on.
    pub smtp: Option<SmtpSettings>,
    /// The git door's limits.
    pub git: GitSettings,
    /// How much time a branch list gives stale facts.
    pub facts: FactsSettings,
    /// How long a merge queue entry may wait.
    pub merge_queue: MergeQueueSettings,
}

impl Config {
    /// Resolves flags and environment over the config file over defaults.
    pub fn resolve(args: &ServeArgs) -> anyhow::Result<Config> {
        let file = match &args.config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        let listen = args
            .listen
            .or(file.listen)
            .unwrap_or(([127, 0, 0, 1], 8640).into());
        let data_dir = match args.data_dir.clone().or(file.data_dir) {
            Some(dir) => dir,
            None => directories::ProjectDirs::from("", "", "svc")
                .context("no home directory to put the data dir in; pass --data-dir")?
                .data_dir()
                .to_path_buf(),
        };
        let database_url = args
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| format!("sqlite://{}", data_dir.join("svc.db").display()));
        let base_url = args.base_url.clone().or(file.base_url);
        let bootstrap_secret = std::env::var("SVC_BOOTSTRAP_SECRET")
            .ok()
            .or(file.bootstrap_secret)
            .filter(|s| !s.is_empty());
        Config {
            base_url: base_url.unwrap_or_else(|| default_base_url(listen)),
            listen,
            data_dir,
            database_url,
            log_format: args.log_format.or(file.log_format).unwrap_or_default(),
            bootstrap_secret,
            login: file.login,
            oidc: file.oidc,
            event_stream: file.event_stream.unwrap_or(true),
            status_secret: std::env::var("SVC_STATUS_SECRET")
                .ok()
                .or(file.status_secret)
                .filter(|s| !s.is_empty()),
            hooks: file.hooks,
            buildkite: buildkite(file.ci.buildkite),
            agents: file.agents,
            rate_limits: file.rate_limits,
            connections: file.connections,
            signup: file.signup,
            smtp: file.smtp,
            git: file.git,
            facts: file.facts,
            merge_queue: file.merge_queue,
        }
        .checked()
    }

    /// Settings for a server on `listen` with everything else at its default; what
    /// tests and embedders start from.
    pub fn new(listen: SocketAddr, data_dir: PathBuf, database_url: String) -> Config {
        Config {
            base_url: default_base_url(listen),
            listen,
            data_dir,
            database_url,
            log_format: LogFormat::Text,
            bootstrap_secret: None,
            login: LoginSettings::default(),
            oidc: None,
            event_stream: true,
            status_secret: None,
            hooks: HooksSettings::default(),
            buildkite: None,
            agents: AgentsSettings::default(),
            rate_limits: RateLimitSettings::default(),
            connections: ConnectionSettings::default(),
            signup: SignupSettings::default(),
            smtp: None,
            git: GitSettings::default(),
            facts: FactsSettings::default(),
            merge_queue: MergeQueueSettings::default(),
        }
    }

    fn checked(mut self) -> anyhow::Result<Config> {
        if !matches!(self.base_url.scheme(), "http" | "https") || self.base_url.host().is_none() {
            bail!(
                "--base-url must be an http or https URL with a host, not {}",
                self.base_url
            );
        }
        if let Some(secret) = &self.bootstrap_secret
            && secret.len() < 16
        {
            bail!("the bootstrap secret must be at least 16 characters long");
        }
        if let Some(secret) = &self.status_secret
            && secret.len() < 16
        {
            bail!("the status secret must be at least 16 characters long");
        }
        self.agents.check()?;
        self.agents.load_secrets()?;
        if let Some(smtp) = &self.smtp {
            smtp.from
                .parse::<lettre::message::Mailbox>()
                .map_err(|e| anyhow::anyhow!("[smtp] from {:?}: {e}", smtp.from))?;
            if smtp.username.is_some() != smtp.password.is_some() {
                bail!("[smtp] needs both username and password, or neither");
            }
        }
        if self.git.max_push_bytes == 0 {
            bail!("[git] max_push_bytes must be at least 1");
        }
        if self.hooks.retry_delays.is_empty() {
            bail!("[hooks] retry_delays needs at least one delay");
        }
        for entry in &self.hooks.allowed_hosts {
            crate::hooks::target::Allowed::parse(entry)
                .map_err(|why| anyhow::anyhow!("[hooks] allowed_hosts: {why}"))?;
        }
        Ok(self)
    }

    /// The base URL with no trailing slash, for building links.
    pub fn base(&self) -> &str {
        self.base_url.as_str().trim_end_matches('/')
    }

    /// The service's own origin, which cookie writes and socket upgrades must carry.
    pub fn origin(&self) -> String {
        self.base_url.origin().ascii_serialization()
    }
}

/// Buildkite's settings from the file, with `SVC_BUILDKITE_TOKEN` over its token; the
/// variable alone configures Buildkite at its public API.
fn buildkite(file: Option<BuildkiteSettings>) -> Option<BuildkiteSettings> {
    let token = std::env::var("SVC_BUILDKITE_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    match (file, token) {
        (Some(b), token) => Some(BuildkiteSettings {
            token: token.or(b.token),
            ..b
        }),
        (None, Some(token)) => Some(BuildkiteSettings {
            api_url: BuildkiteSettings::default_api_url(),
            token: Some(token),
        }),
        (None, None) => None,
    }
}

fn default_base_url(listen: SocketAddr) -> Url {
    let host = if listen.ip().is_unspecified() {
        "localhost".to_owned()
    } else {
        listen.to_string()
    };
    let host = if listen.ip().is_unspecified() {
        format!("{host}:{}", listen.port())
    } else {
        host
    };
    Url::parse(&format!("http://{host}/")).expect("a socket address makes a valid URL")
}

fn read_file(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("config file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_settings_apply_and_flags_win() {
        let dir = std::env::temp_dir().join(format!("svc-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("svc.toml");
        std::fs::write(
            &file,
            "listen = \"127.0.0.1:9000\"\ndata_dir = \"/srv/svc\"\n[login]\ndevice_interval = 1\n\
             [connections]\nper_address = 8\n[signup]\nopen = true\n\
             [smtp]\nhost = \"mail.example.com\"\nfrom = \"svc <svc@example.com>\"\n",
        )
        .unwrap();
        let args = ServeArgs {
            config: Some(file.clone()),
            ..Default::default()
        };
        let config = Config::resolve(&args).unwrap();
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(config.base_url.as_str(), "http://127.0.0.1:9000/");
        assert_eq!(config.database_url, "sqlite:///srv/svc/svc.db");
        assert_eq!(config.login.device_interval, 1);
        assert_eq!(config.login.device_expires_in, 900);
        assert_eq!(config.connections.per_address, 8);
        assert_eq!(config.connections.header_timeout_secs, 10);
        assert!(config.signup.open);
        let smtp = config.smtp.as_ref().unwrap();
        assert_eq!((smtp.port, smtp.starttls), (587, true));

        let args = ServeArgs {
            config: Some(file),
            listen: Some(([0, 0, 0, 0], 1).into()),
            ..Default::default()
        };
        let config = Config::resolve(&args).unwrap();
        assert_eq!(config.base_url.as_str(), "http://localhost:1/");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
