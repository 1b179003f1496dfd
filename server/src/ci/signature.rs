//! Checking a CI webhook: `X-Ci-Signature` / `X-Buildkite-Signature: timestamp=<t>,
//! signature=<hex>` (HMAC-SHA256 keyed by the connection's webhook token over
//! `<t>.<body>`, refused when over 5 minutes off), or the plain token in `X-Ci-Token` /
//! `X-Buildkite-Token`; compared in constant time.

use axum::http::HeaderMap;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How far a signature's timestamp may be from now.
pub const TOLERANCE_S: i64 = 300;

/// A webhook that passed: signed at a time (whole seconds), or with the plain token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Signed(i64),
    Token,
}

/// Why a webhook is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("no X-Ci-Signature or X-Ci-Token (or Buildkite's own)")]
    Missing,
    #[error("the signature header is not timestamp=<t>,signature=<hex>")]
    Malformed,
    #[error("the signature's timestamp is over 5 minutes from now")]
    Stale,
    #[error("the signature or token does not match this connection's")]
    Mismatch,
}

fn header<'a>(headers: &'a HeaderMap, names: [&str; 2]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| headers.get(*n))
        .and_then(|v| v.to_str().ok())
}

/// Checks `body` against the connection's `token` at `now` (seconds).
pub fn check(headers: &HeaderMap, body: &[u8], token: &str, now: i64) -> Result<Checked, Refused> {
    if let Some(signed) = header(headers, ["x-ci-signature", "x-buildkite-signature"]) {
        let mut timestamp = None;
        let mut signature = None;
        for part in signed.split(',') {
            match part.trim().split_once('=') {
                Some(("timestamp", t)) => timestamp = t.parse::<i64>().ok(),
                Some(("signature", s)) => signature = hex::decode(s).ok(),
                _ => {}
            }
        }
        let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
            return Err(Refused::Malformed);
        };
        // `abs_diff`: a timestamp near `i64::MIN` must not overflow (found by fuzzing).
        if now.abs_diff(timestamp) > TOLERANCE_S.unsigned_abs() {
            return Err(Refused::Stale);
        }
        let mut mac = Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("any key length");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        let want = mac.finalize().into_bytes();
        return if bool::from(want.as_slice().ct_eq(&signature)) {
            Ok(Checked::Signed(timestamp))
        } else {
            Err(Refused::Mismatch)
        };
    }
    let given = header(headers, ["x-ci-token", "x-buildkite-token"]).ok_or(Refused::Missing)?;
    if bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
        Ok(Checked::Token)
    } else {
        Err(Refused::Mismatch)
    }
}

/// The signature header for `body` at `timestamp` (what Buildkite sends; tests and the
/// fake service sign with it).
pub fn sign(token: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(token.as_bytes()).expect("any key length");
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "timestamp={timestamp},signature={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue};

    use super::{Checked, Refused, check, sign};

    fn with(name: &'static str, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn signatures_and_tokens_are_checked() {
        let body = br#"{"event":"ping"}"#;
        let signed = sign("tok", 1000, body);
        assert_eq!(
            check(&with("x-ci-signature", &signed), body, "tok", 1100),
            Ok(Checked::Signed(1000))
        );
        assert_eq!(
            check(&with("x-buildkite-signature", &signed), body, "tok", 1300),
            Ok(Checked::Signed(1000))
        );
        assert_eq!(
            check(&with("x-ci-signature", &signed), body, "tok", 1301),
            Err(Refused::Stale)
        );
        assert_eq!(
            check(&with("x-ci-signature", &signed), b"other", "tok", 1000),
            Err(Refused::Mismatch)
        );
        assert_eq!(
            check(&with("x-ci-signature", &signed), body, "other", 1000),
            Err(Refused::Mismatch)
        );
        assert_eq!(
            check(&with("x-ci-signature", "nonsense"), body, "tok", 1000),
            Err(Refused::Malformed)
        );
        assert_eq!(
            check(&with("x-ci-token", "tok"), body, "tok", 0),
            Ok(Checked::Token)
        );
        assert_eq!(
            check(&with("x-buildkite-token", "tok"), body, "tok", 0),
            Ok(Checked::Token)
        );
        assert_eq!(
            check(&with("x-ci-token", "tok2"), body, "tok", 0),
            Err(Refused::Mismatch)
        );
        assert_eq!(
            check(&HeaderMap::new(), body, "tok", 0),
            Err(Refused::Missing)
        );
    }

    #[test]
    fn a_timestamp_far_from_now_is_stale_not_an_overflow() {
        // From fuzz/fuzz_targets/buildkite_webhook.rs: `now - timestamp` overflowed (a
        // panic in debug builds; in release it wrapped to "0 s off" and a signature made
        // for that timestamp was taken as fresh).
        let (body, now) = (b"{}", 1_764_000_000);
        for t in [now + i64::MIN, i64::MIN, i64::MIN + 1, i64::MAX] {
            let signed = sign("tok", t, body);
            assert_eq!(
                check(&with("x-ci-signature", &signed), body, "tok", now),
                Err(Refused::Stale),
                "{t}"
            );
        }
        let far = "timestamp=-9223372035090775808,signature=00";
        assert_eq!(
            check(&with("x-ci-signature", far), body, "tok", now),
            Err(Refused::Stale)
        );
        assert_eq!(
            check(
                &with("x-ci-signature", &sign("tok", 1, body)),
                body,
                "tok",
                i64::MIN
            ),
            Err(Refused::Stale)
        );
    }
}
