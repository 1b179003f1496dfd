//! The `Idempotency-Key` header of createIssue and addArtifactComment.
//!
//! Input: the header value's bytes.
//!
//! Asserts: a key is taken exactly as sent, only when it is 1 to 255 visible ASCII
//! characters (spaces and tabs inside, as HTTP allows); anything else is a 400, never a
//! key changed to fit; no header is no key.

#![no_main]

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use libfuzzer_sys::fuzz_target;
use svc_server::extract::{IDEMPOTENCY_KEY_MAX, idempotency_key};

fuzz_target!(|data: &[u8]| {
    assert!(matches!(idempotency_key(&HeaderMap::new()), Ok(None)));
    // What HTTP/1.1 and HTTP/2 can bring as a header value at all.
    let Ok(value) = HeaderValue::from_bytes(data) else {
        return;
    };
    let mut headers = HeaderMap::new();
    headers.insert("idempotency-key", value);
    let valid = !data.is_empty()
        && data.len() <= IDEMPOTENCY_KEY_MAX
        && data
            .iter()
            .all(|&b| (b' '..=b'~').contains(&b) || b == b'\t');
    match idempotency_key(&headers) {
        Ok(Some(key)) => {
            assert!(valid, "{data:?} taken");
            assert_eq!(key.as_bytes(), data, "taken as sent");
        }
        Ok(None) => panic!("a header sent is no key"),
        Err(e) => {
            assert!(!valid, "{data:?} refused: {}", e.message);
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
        }
    }
    // The first of several is the key.
    let mut two = headers.clone();
    two.append("idempotency-key", HeaderValue::from_static("second"));
    assert_eq!(
        idempotency_key(&two).ok().flatten(),
        idempotency_key(&headers).ok().flatten()
    );
});
