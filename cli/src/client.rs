//! The HTTP client: which server, which credential, and API errors as one clear line.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::Method;
use reqwest::blocking::{Client, RequestBuilder};
use serde::de::DeserializeOwned;
use svc_protocol::ApiErrorBody;

use crate::config::{Hosts, config_dir};
use crate::credstore;
use crate::error::{CommandError, Result};

/// A server and (when signed in) the credential for it.
pub struct Session {
    pub server: String,
    pub token: Option<String>,
    pub config_dir: PathBuf,
    http: Client,
}

/// `http(s)://host[:port]` with no trailing slash.
pub fn normalize_server(input: &str) -> Result<String> {
    let url = url::Url::parse(input.trim()).map_err(|e| {
        CommandError::user(format!("--server {input} is not a URL ({e})"))
            .hint("e.g. --server https://svc.example.com")
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(CommandError::user(format!(
            "--server {input} must be an http or https URL"
        )));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

pub fn http() -> Result<Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| CommandError::internal(format!("cannot set up HTTP: {e}")))
}

impl Session {
    /// The server from `--server`/`SVC_SERVER`, else the default one signed in to; the
    /// token from `SVC_TOKEN`, else the one stored for that server.
    pub fn open(server: Option<&str>) -> Result<Session> {
        let config_dir = config_dir()?;
        let hosts = Hosts::load(&config_dir)?;
        let server = match server.or(hosts.default.as_deref()) {
            Some(s) => normalize_server(s)?,
            None => {
                return Err(CommandError::user("no server given")
                    .hint("pass --server URL or run svc login --server URL"));
            }
        };
        let token = match std::env::var("SVC_TOKEN").ok().filter(|t| !t.is_empty()) {
            Some(token) => Some(token),
            None => match hosts.servers.get(&server) {
                Some(host) => credstore::load(&config_dir, &server, &host.store)?,
                None => None,
            },
        };
        Ok(Session {
            server,
            token,
            config_dir,
            http: http()?,
        })
    }

    /// The token, or the error that says how to get one.
    pub fn token(&self) -> Result<&str> {
        self.token.as_deref().ok_or_else(|| {
            CommandError::user(format!("not signed in to {}", self.server))
                .hint(format!("run svc login --server {}", self.server))
        })
    }

    pub fn request(&self, method: Method, path: &str) -> Result<RequestBuilder> {
        Ok(self
            .http
            .request(method, format!("{}{path}", self.server))
            .bearer_auth(self.token()?))
    }

    /// Sends and decodes a JSON answer, turning every failure into one line.
    pub fn call<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T> {
        let response = self.send(request)?;
        response.json().map_err(|e| {
            CommandError::network(format!(
                "{} answered something unexpected: {e}",
                self.server
            ))
        })
    }

    /// Sends, insisting on success; the answer's body is not needed.
    pub fn send(&self, request: RequestBuilder) -> Result<reqwest::blocking::Response> {
        let response = request.send().map_err(|e| self.unreachable(&e))?;
        if response.status().is_success() {
            return Ok(response);
        }
        Err(self.refusal(response))
    }

    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.call(self.request(Method::GET, path)?)
    }

    pub fn unreachable(&self, e: &reqwest::Error) -> CommandError {
        let why = std::error::Error::source(e).map_or_else(|| e.to_string(), ToString::to_string);
        CommandError::network(format!("cannot reach {} ({why})", self.server))
            .hint("check --server, your network, or that svc-server is running")
    }

    fn refusal(&self, response: reqwest::blocking::Response) -> CommandError {
        let status = response.status();
        let body: Option<ApiErrorBody> = response.json().ok();
        let message = body.map_or_else(
            || format!("{} answered {status}", self.server),
            |b| b.error.message,
        );
        if status == reqwest::StatusCode::UNAUTHORIZED {
            let what = if std::env::var_os("SVC_TOKEN").is_some() {
                "SVC_TOKEN was refused"
            } else {
                "your credential was refused"
            };
            return CommandError::user(format!("{what} by {} ({message})", self.server))
                .hint(format!("run svc login --server {}", self.server));
        }
        CommandError::user(message)
    }
}

/// Splits `<owner>/<monorepo>`.
pub fn split_full_name(full: &str) -> Result<(&str, &str)> {
    full.split_once('/')
        .filter(|(o, m)| !o.is_empty() && !m.is_empty() && !m.contains('/'))
        .ok_or_else(|| CommandError::user(format!("{full} is not <owner>/<monorepo>")))
}
