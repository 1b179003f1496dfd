//! The tokens a delivery carries. A read token (`svcr_...`, 30 minutes) clones one repo
//! at the git door and does nothing else; it is stored hashed. A status token
//! (`svcs_<payload>.<mac>`, 24 hours) posts statuses on one commit of one repo, signed
//! with the server's `status_secret` (no secret, no status tokens), so any server on the
//! same secret checks it without a lookup.

use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::store::{self, H, hooks};

/// How long a read token works.
pub const READ_TOKEN_MS: i64 = 30 * 60 * 1000;
/// How long a CI hook's read token works: at least 24 hours, for builds that queue.
pub const CI_READ_TOKEN_MS: i64 = 25 * 3600 * 1000;
/// How long a status token works.
pub const STATUS_TOKEN_MS: i64 = 24 * 3600 * 1000;
pub const READ_PREFIX: &str = "svcr_";
pub const STATUS_PREFIX: &str = "svcs_";

/// Mints a read token for `repo_id` on behalf of `hook_id` (none: a build started by
/// hand), working `ttl_ms`; answers it and its expiry.
pub async fn mint_read(
    h: H<'_>,
    repo_id: &str,
    hook_id: Option<&str>,
    now: i64,
    ttl_ms: i64,
) -> store::Result<(String, i64)> {
    let token = format!("{READ_PREFIX}{}", crate::token::new_secret());
    let expires_at = now + ttl_ms;
    hooks::insert_read_token(h, &crate::token::hash(&token), repo_id, hook_id, expires_at).await?;
    Ok((token, expires_at))
}

/// The repo a live read token opens, if `token` is one.
pub async fn read_repo(h: H<'_>, token: &str, now: i64) -> store::Result<Option<String>> {
    if !token.starts_with(READ_PREFIX) {
        return Ok(None);
    }
    hooks::read_token_repo(h, &crate::token::hash(token), now).await
}

/// What a status token allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusGrant {
    /// The repo's id.
    pub repo: String,
    /// The commit.
    pub sha: String,
    /// `hook:<id>`, or `app:<slug>` for a CI hook.
    pub creator: String,
    /// The CI app, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Expiry, in ms since the epoch.
    pub exp: i64,
}

fn mac(secret: &str, payload: &str) -> Vec<u8> {
    let mut m =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    m.update(b"svc status token\n");
    m.update(payload.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// Signs a status token.
pub fn sign_status(secret: &str, grant: &StatusGrant) -> String {
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(serde_json::to_vec(grant).unwrap_or_default());
    let sig = hex::encode(mac(secret, &payload));
    format!("{STATUS_PREFIX}{payload}.{sig}")
}

/// The grant of a status token signed with `secret` and not expired at `now`.
pub fn check_status(secret: &str, token: &str, now: i64) -> Option<StatusGrant> {
    let (payload, sig) = token.strip_prefix(STATUS_PREFIX)?.rsplit_once('.')?;
    let sig = hex::decode(sig).ok()?;
    if !bool::from(mac(secret, payload).as_slice().ct_eq(&sig)) {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .ok()?;
    let grant: StatusGrant = serde_json::from_slice(&bytes).ok()?;
    (grant.exp > now).then_some(grant)
}

#[cfg(test)]
mod tests {
    use super::{StatusGrant, check_status, sign_status};

    #[test]
    fn a_status_token_holds_only_with_its_secret_and_before_expiry() {
        let grant = StatusGrant {
            repo: "r_1".into(),
            sha: "a".repeat(40),
            creator: "hook:h_1".into(),
            app: None,
            exp: 1_000,
        };
        let token = sign_status("secret-secret-secret", &grant);
        assert_eq!(
            check_status("secret-secret-secret", &token, 999),
            Some(grant)
        );
        assert_eq!(check_status("secret-secret-secret", &token, 1_000), None);
        assert_eq!(check_status("another-secret-....", &token, 1), None);
        let mut forged = token.clone();
        forged.replace_range(6..7, if &token[6..7] == "A" { "B" } else { "A" });
        assert_eq!(check_status("secret-secret-secret", &forged, 1), None);
    }
}
