//! The HTTP client: which server, which credential, and API errors in words, with the
//! CLI's advice for each refusal a user can act on ([`advice`]).

use std::path::PathBuf;
use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use svc_protocol::{ApiErrorBody, ErrorBody, ErrorCode};

use crate::config::{Hosts, config_dir};
use crate::credstore;
use crate::error::{CommandError, Result};

/// The most items a list route answers on one page (its `limit` at most).
pub const PAGE_MAX: u32 = 100;

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
        CommandError::user(format!("--server {input} is not a URL"))
            .because(&e)
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
        // The server closes a kept-alive connection idle for its header timeout (10 s
        // by default): one idle half that is not reused, so no request goes out on a
        // connection the server is closing.
        .pool_idle_timeout(Duration::from_secs(5))
        .user_agent(concat!("svc/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| CommandError::internal("cannot set up HTTP").because(&e))
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

    /// A session for `server` (normalized) with `token`, whatever is stored.
    pub fn with_token(server: &str, token: &str) -> Result<Session> {
        Ok(Session {
            server: server.to_owned(),
            token: Some(token.to_owned()),
            config_dir: config_dir()?,
            http: http()?,
        })
    }

    /// The token, or the error that says how to get one.
    pub fn token(&self) -> Result<&str> {
        self.token.as_deref().ok_or_else(|| self.not_signed_in())
    }

    /// Why there is no token, for a `--server` that may be a typo: a server that cannot
    /// be reached says so (exit 3); one that can says where this machine is signed in.
    pub fn not_signed_in(&self) -> CommandError {
        let probe = self
            .http
            .get(format!("{}/healthz", self.server))
            .timeout(Duration::from_secs(5))
            .send();
        if let Err(e) = probe
            && (e.is_connect() || e.is_timeout())
        {
            return self.unreachable(&e);
        }
        let elsewhere: Vec<String> = Hosts::load(&self.config_dir)
            .map(|h| {
                h.servers
                    .into_keys()
                    .filter(|s| *s != self.server)
                    .collect()
            })
            .unwrap_or_default();
        let error = CommandError::user(format!("not signed in to {}", self.server));
        let error = match elsewhere.as_slice() {
            [] => error,
            servers => error.hint(format!("you are signed in to {}", servers.join(", "))),
        };
        error.hint(format!("run svc login --server {}", self.server))
    }

    /// A request with the credential and, when `SVC_AGENT` names an agent, the header
    /// that makes the server record that agent (on merges, reviews, events).
    pub fn request(&self, method: Method, path: &str) -> Result<RequestBuilder> {
        let request = self
            .http
            .request(method, format!("{}{path}", self.server))
            .bearer_auth(self.token()?);
        Ok(
            match std::env::var("SVC_AGENT").ok().filter(|a| !a.is_empty()) {
                Some(agent) => request.header("X-Svc-Agent", agent),
                None => request,
            },
        )
    }

    /// Sends and decodes a JSON answer, turning every failure into a [`CommandError`].
    pub fn call<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T> {
        let response = self.send(request)?;
        response.json().map_err(|e| self.garbled(&e))
    }

    /// An answer that is not what the route promises.
    pub fn garbled(&self, e: &reqwest::Error) -> CommandError {
        CommandError::network(format!("{} answered something unexpected", self.server)).because(e)
    }

    /// Sends, insisting on success; the answer's body is not needed.
    pub fn send(&self, request: RequestBuilder) -> Result<Response> {
        self.answer(request)?.map_err(|r| self.refusal(r))
    }

    /// Sends; a refusal comes back decoded for callers that explain some codes themselves.
    pub fn answer(&self, request: RequestBuilder) -> Result<Result<Response, Refusal>> {
        let response = request.send().map_err(|e| self.unreachable(&e))?;
        if response.status().is_success() {
            return Ok(Ok(response));
        }
        let status = response.status();
        let error = response.json::<ApiErrorBody>().ok().map(|b| b.error);
        Ok(Err(Refusal { status, error }))
    }

    pub fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.call(self.request(Method::GET, path)?)
    }

    /// A list of `{items, next_cursor, ...}` at `path` (which may carry a query), from
    /// `cursor` on, with at most `limit` items. A limit above the server's page size
    /// ([`PAGE_MAX`]) is asked for page by page, following `next_cursor`, and answered
    /// as one page: every page's items, the first page's other fields, and the cursor
    /// after the last item taken.
    pub fn get_list<T: DeserializeOwned>(
        &self,
        path: &str,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<T> {
        let join = |limit: Option<u32>, cursor: Option<&str>| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            if let Some(limit) = limit {
                query.append_pair("limit", &limit.to_string());
            }
            if let Some(cursor) = cursor {
                query.append_pair("cursor", cursor);
            }
            let query = query.finish();
            match (query.is_empty(), path.contains('?')) {
                (true, _) => path.to_owned(),
                (false, true) => format!("{path}&{query}"),
                (false, false) => format!("{path}?{query}"),
            }
        };
        let Some(wanted) = limit.filter(|l| *l > PAGE_MAX) else {
            return self.get(&join(limit, cursor));
        };
        let garbled = || {
            CommandError::network(format!("{} answered a list badly", self.server))
                .hint("is svc-server the same version as svc?")
        };
        let mut first: serde_json::Value = self.get(&join(Some(PAGE_MAX), cursor))?;
        let mut taken = first["items"]
            .as_array()
            .map(Vec::len)
            .ok_or_else(garbled)?;
        let mut next = first["next_cursor"].as_str().map(str::to_owned);
        while let Some(at) = next.clone()
            && taken < wanted as usize
        {
            let room = u32::try_from(wanted as usize - taken).unwrap_or(PAGE_MAX);
            let page: serde_json::Value = self.get(&join(Some(room.min(PAGE_MAX)), Some(&at)))?;
            let items = page["items"].as_array().ok_or_else(garbled)?;
            taken += items.len();
            first["items"]
                .as_array_mut()
                .ok_or_else(garbled)?
                .extend(items.iter().cloned());
            next = page["next_cursor"].as_str().map(str::to_owned);
            if items.is_empty() {
                break;
            }
        }
        first["next_cursor"] = next.map_or(serde_json::Value::Null, serde_json::Value::String);
        serde_json::from_value(first).map_err(|e| garbled().because(&e))
    }

    pub fn unreachable(&self, e: &reqwest::Error) -> CommandError {
        CommandError::network(format!("cannot reach {}", self.server))
            .because(e)
            .hint("check --server, your network, or that svc-server is running")
    }

    /// A refusal no caller explains better: the server's message, and the advice for
    /// its code.
    pub fn refusal(&self, refusal: Refusal) -> CommandError {
        let status = refusal.status;
        let code = refusal.error.as_ref().map(|e| e.code.clone());
        let message = refusal.error.map_or_else(
            || format!("{} answered {status}", self.server),
            |e| e.message,
        );
        // A fault on the server's side is no fault of the user's: exit 70, as documented.
        if status.is_server_error() {
            let error = CommandError::internal(format!("{} failed: {message}", self.server))
                .hint("the server logged it; try again, or tell its operator");
            return match code {
                Some(code) => error.code(code),
                None => error,
            };
        }
        if status == StatusCode::UNAUTHORIZED {
            let what = if std::env::var_os("SVC_TOKEN").is_some() {
                "SVC_TOKEN was refused"
            } else {
                "your credential was refused"
            };
            return CommandError::user(format!("{what} by {} ({message})", self.server))
                .hint(format!("run svc login --server {}", self.server))
                .code(code.unwrap_or_else(|| ErrorCode::Unauthorized.as_str().into()));
        }
        match code {
            Some(code) => refused(message, &code),
            None => CommandError::user(message),
        }
    }
}

/// A refusal with the server's `code`: a user error, with [`advice`] for the code.
pub fn refused(message: impl Into<String>, code: &str) -> CommandError {
    let error = CommandError::user(message).code(code);
    match ErrorCode::parse(code).and_then(advice) {
        Some(advice) => error.hint(advice),
        None => error,
    }
}

/// What a user can do about a refusal, by its code; the one place the CLI gives advice
/// for the server's codes. `None` where the server's message says it all (`not_found`
/// names what and suggests near names; `branch_exists` names the branch in the way and
/// what to do) or a user has nothing to do; `unauthorized` is advised in
/// [`Session::refusal`], which knows the server to name.
pub fn advice(code: ErrorCode) -> Option<&'static str> {
    Some(match code {
        ErrorCode::BadOwner => {
            "move it to an organization you are in, or to a person who already owns it; svc org list shows your organizations"
        }
        ErrorCode::ChecksNotGreen => {
            "see them with svc branch view; fix them, or merge anyway with svc branch merge --force"
        }
        ErrorCode::ChecksUnknown => {
            "fix the required checks in .svc/svc.toml on main, or merge anyway with svc branch merge --force"
        }
        ErrorCode::Conflicts => {
            "merge main into the branch, resolve, commit and push; --force does not help"
        }
        ErrorCode::EmptyRepo | ErrorCode::NoMain => "push a first commit to main",
        ErrorCode::HeadMoved => {
            "nothing was written; svc branch view shows the head now: look at what changed, then write again"
        }
        ErrorCode::IssueClosed => "reopen it first with svc issue reopen",
        ErrorCode::LastOwner => {
            "make someone else an owner first: svc org add <org> <login> --role owner in an org, svc api for a monorepo's members"
        }
        ErrorCode::MainMoved | ErrorCode::RefMoved => "nothing was changed; run the command again",
        ErrorCode::MonorepoExists => "pick another name; svc monorepo list shows yours",
        ErrorCode::NamespaceTaken | ErrorCode::ReservedName => "pick another name",
        ErrorCode::NotOnMain => {
            "a release commit must be on main: merge it first, or pass a commit of main with --target"
        }
        ErrorCode::NotLauncher => {
            "only the person who launched a session can send it messages; svc agent launch starts your own, svc agent chat a chat of your own"
        }
        ErrorCode::NotOpen => "svc branch view shows whether it was merged or closed",
        ErrorCode::NothingToMerge => {
            "commit to the branch and push first; svc branch delete removes a branch with nothing of its own"
        }
        ErrorCode::NotYourNamespace => {
            "use your own login, or an organization you are in; svc org list shows them"
        }
        ErrorCode::PlainRepo => {
            "a plain repo holds one repository; svc monorepo create makes a monorepo for several"
        }
        ErrorCode::RateLimited => {
            "nothing was changed; wait as long as the message says and run the command again"
        }
        ErrorCode::RepoExists => "pick another path; svc repo list shows the monorepo's repos",
        ErrorCode::Sha256Mismatch => {
            "the bytes changed on the way or while they were read; run the command again"
        }
        ErrorCode::TagExists => {
            "the tag names another commit or is locked by a published release; pick another tag, svc release list shows the releases"
        }
        ErrorCode::TooLarge => "make it smaller than the limit the message names",
        ErrorCode::TooManyArtifacts => {
            "svc artifact list shows the branch's artifacts; svc artifact delete removes one"
        }
        ErrorCode::TooManyFiles => {
            "replace a file by uploading under its name with svc release upload --name, or delete one with svc api"
        }
        ErrorCode::Unrelated => {
            "merge main into the branch with git merge --allow-unrelated-histories main, then push"
        }
        _ => return None,
    })
}

/// An error answer: its status and, when it is in the error shape, its body.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    pub error: Option<ErrorBody>,
}

impl Refusal {
    /// The server's error code, when it is one this CLI knows.
    pub fn code(&self) -> Option<ErrorCode> {
        self.error.as_ref().and_then(|e| ErrorCode::parse(&e.code))
    }
}

/// Splits `<owner>/<monorepo>`.
pub fn split_full_name(full: &str) -> Result<(&str, &str)> {
    full.split_once('/')
        .filter(|(o, m)| !o.is_empty() && !m.is_empty() && !m.contains('/'))
        .ok_or_else(|| CommandError::user(format!("{full} is not <owner>/<monorepo>")))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use svc_protocol::ErrorCode;

    use super::advice;
    use crate::commands::Cli;

    /// Every `svc ...` an advice names is a real command, with real flags.
    #[test]
    fn advice_names_real_commands() {
        for &code in ErrorCode::ALL {
            let Some(advice) = advice(code) else { continue };
            for named in advice.split("svc ").skip(1) {
                let mut command = Cli::command();
                let mut words = named.split([' ', ',', ';']).take_while(|w| !w.is_empty());
                for word in words.by_ref() {
                    if let Some(flag) = word.strip_prefix("--") {
                        assert!(
                            command.get_arguments().any(|a| a.get_long() == Some(flag)),
                            "{code}: {advice}"
                        );
                    } else if let Some(sub) = command.find_subcommand(word) {
                        command = sub.clone();
                    } else {
                        break;
                    }
                }
                assert_ne!(command.get_name(), "svc", "{code}: {advice}");
            }
        }
    }
}
