//! Request rates a public server needs and the specification leaves open: sign-in
//! attempts and device-flow polls per client address, and `/v1` writes per credential
//! (per address for a write without one). Over a rate, 429 `rate_limited` with
//! `Retry-After`. Each server process counts on its own (several servers behind one
//! balancer allow that many times the rate); the settings are `[rate_limits]`.
//!
//! The counting is governor's GCRA (a well-kept crate; a keyed token bucket written here
//! would be the same algorithm with fewer tests): each key may spend its whole minute's
//! allowance at once, then one more per `60 / n` seconds.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;

use crate::error::ApiError;
use crate::state::AppState;

/// `[rate_limits]`: requests per minute; 0 switches one off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RateLimitSettings {
    /// Sign-in attempts per client address: password sign-in (the API and the pages'
    /// forms: sign-in, sign-up, a sign-in link, approving a device), starting a device login,
    /// the browser sign-in and its callback, and the bootstrap user.
    pub sign_in_per_minute: u32,
    /// Device-flow polls (`POST /v1/login/token`) per client address, on top of each
    /// device code's own interval (`slow_down`): enough for a dozen machines behind one
    /// address logging in at once.
    pub device_poll_per_minute: u32,
    /// `/v1` writes (any method but GET and HEAD) per credential, or per address for a
    /// write that carries none. The CI webhook receiver is not counted (it is bound by
    /// its connection's token and by the CI service's own pace).
    pub writes_per_minute: u32,
    /// Take the client address from the last `X-Forwarded-For` entry (what a reverse
    /// proxy in front of the server appends), not the connection's peer. Only behind a
    /// proxy that sets it: otherwise a client could pick its own address.
    pub forwarded_for: bool,
}

impl Default for RateLimitSettings {
    fn default() -> Self {
        Self {
            sign_in_per_minute: 10,
            device_poll_per_minute: 150,
            writes_per_minute: 1200,
            forwarded_for: false,
        }
    }
}

/// What a request is counted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    SignIn,
    DevicePoll,
    Write,
}

/// The class of a request by its method and path; None for what is not counted (reads,
/// the git door, pages, the CI webhook receiver). The forms that make a session (a
/// sign-in link's, sign-up's) count as signing in.
pub fn class(method: &Method, path: &str) -> Option<Class> {
    let post = method == Method::POST;
    // The pages' own sign-in forms (they work without JavaScript).
    if post
        && (matches!(path, "/signup" | "/login" | "/login/device")
            || path.starts_with("/login/link/"))
    {
        return Some(Class::SignIn);
    }
    if !path.starts_with("/v1/") {
        return None;
    }
    let get = method == Method::GET || method == Method::HEAD;
    match path {
        "/v1/login/token" if post => Some(Class::DevicePoll),
        "/v1/login/password" | "/v1/login/device" | "/v1/users" if post => Some(Class::SignIn),
        "/v1/login/browser" | "/v1/login/callback" if get => Some(Class::SignIn),
        _ if get || path.starts_with("/v1/ci/webhooks/") => None,
        _ => Some(Class::Write),
    }
}

/// Who a request is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Address(IpAddr),
    /// The first half of the presented token's SHA-256: the token itself is not kept.
    Credential([u8; 16]),
    /// No address known (a server not given its peers' addresses).
    Unknown,
}

/// The limiters of one server process.
pub struct RateLimits {
    sign_in: Option<DefaultKeyedRateLimiter<Key>>,
    device_poll: Option<DefaultKeyedRateLimiter<Key>>,
    writes: Option<DefaultKeyedRateLimiter<Key>>,
    forwarded_for: bool,
}

impl RateLimits {
    pub fn new(settings: &RateLimitSettings) -> RateLimits {
        let limiter = |per_minute: u32| {
            NonZeroU32::new(per_minute).map(|n| RateLimiter::keyed(Quota::per_minute(n)))
        };
        RateLimits {
            sign_in: limiter(settings.sign_in_per_minute),
            device_poll: limiter(settings.device_poll_per_minute),
            writes: limiter(settings.writes_per_minute),
            forwarded_for: settings.forwarded_for,
        }
    }

    /// Counts one request; the wait before the next would pass when over the rate.
    fn check(&self, req: &Request) -> Result<(), Duration> {
        let Some(class) = class(req.method(), req.uri().path()) else {
            return Ok(());
        };
        let (limiter, key) = match class {
            Class::SignIn => (&self.sign_in, self.address(req)),
            Class::DevicePoll => (&self.device_poll, self.address(req)),
            Class::Write => (
                &self.writes,
                credential(req.headers()).unwrap_or_else(|| self.address(req)),
            ),
        };
        let Some(limiter) = limiter else {
            return Ok(());
        };
        limiter
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    fn address(&self, req: &Request) -> Key {
        if self.forwarded_for {
            let last = req
                .headers()
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|a| a.trim().parse::<IpAddr>().ok())
                .next_back();
            if let Some(ip) = last {
                return Key::Address(ip);
            }
        }
        req.extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(Key::Unknown, |c| Key::Address(c.0.ip()))
    }

    /// Forgets keys whose allowance is whole again, so memory follows the clients of
    /// the last minute, not every client ever seen.
    pub fn forget_idle(&self) {
        for limiter in [&self.sign_in, &self.device_poll, &self.writes]
            .into_iter()
            .flatten()
        {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// The presented credential (Bearer token or session cookie), hashed.
fn credential(headers: &HeaderMap) -> Option<Key> {
    let token = crate::auth::bearer(headers)
        .or_else(|| crate::auth::cookie(headers, crate::auth::SESSION_COOKIE))?;
    let digest = Sha256::digest(token.as_bytes());
    let mut half = [0u8; 16];
    half.copy_from_slice(&digest[..16]);
    Some(Key::Credential(half))
}

/// The middleware: 429 `rate_limited` with `Retry-After` (whole seconds, at least 1)
/// over a rate, before the request reaches its route.
pub async fn limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match state.rate_limits.check(&req) {
        Ok(()) => next.run(req).await,
        Err(wait) => {
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let secs = secs.max(1);
            let mut answer = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!("too many requests; try again in {secs} s"),
            )
            .into_response();
            answer
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
            answer
        }
    }
}

/// Forgets idle keys every minute, for the life of the server.
pub async fn forget_idle_forever(state: AppState) {
    let mut every = tokio::time::interval(Duration::from_secs(60));
    loop {
        every.tick().await;
        state.rate_limits.forget_idle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        let c = |m: Method, p: &str| class(&m, p);
        assert_eq!(c(Method::POST, "/v1/login/password"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/v1/login/device"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/signup"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/login"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/login/device"), Some(Class::SignIn));
        assert_eq!(c(Method::GET, "/login"), None);
        assert_eq!(c(Method::POST, "/login/link/x"), Some(Class::SignIn));
        assert_eq!(c(Method::GET, "/login/link/x"), None);
        assert_eq!(c(Method::GET, "/v1/login/browser"), Some(Class::SignIn));
        assert_eq!(c(Method::GET, "/v1/login/callback"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/v1/users"), Some(Class::SignIn));
        assert_eq!(c(Method::POST, "/v1/login/token"), Some(Class::DevicePoll));
        assert_eq!(
            c(Method::POST, "/v1/login/device/approve"),
            Some(Class::Write)
        );
        assert_eq!(c(Method::DELETE, "/v1/monorepos/a/b"), Some(Class::Write));
        assert_eq!(c(Method::PATCH, "/v1/user"), Some(Class::Write));
        assert_eq!(c(Method::GET, "/v1/monorepos"), None);
        assert_eq!(c(Method::HEAD, "/v1/monorepos"), None);
        assert_eq!(c(Method::POST, "/v1/ci/webhooks/c_1"), None);
        assert_eq!(c(Method::POST, "/ann/mono/app.git/git-receive-pack"), None);
        assert_eq!(c(Method::GET, "/"), None);
    }
}
