//! A CI webhook as `POST /v1/ci/webhooks/{id}` takes it: the signature or token headers
//! checked against the connection's token, then the JSON body read into a build and a
//! job as `ci::apply` reads it (its pure part: the store is not here).
//!
//! Input, like an HTTP message: the connection's token on the first line, the server's
//! clock (Unix seconds) on the second, `Name: value` header lines, an empty line, the
//! body.
//!
//! Asserts: the check never accepts a signature that is not the HMAC of the body under
//! the token, nor one over 5 minutes off, nor a token that is not the connection's; a
//! true signature is always accepted, and a wrong body, token, signature or time never;
//! a build's and a job's fields always make their REST views and events (times that
//! parse come back to the same millisecond and print as RFC 3339; `meta_data` comes back
//! the same).

#![no_main]

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use svc_server::ci::signature::{Checked, Refused};
use svc_server::ci::{self, signature, states};
use svc_server::store::ci::{BuildRow, JobRow};
use svc_server::store::{ms_of, time_of};

fuzz_target!(|data: &[u8]| {
    let (head, body) = match find(data, b"\n\n") {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &b""[..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split('\n');
    let token = lines.next().unwrap_or_default().to_owned();
    let now: i64 = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(1_764_000_000);
    let mut headers = HeaderMap::new();
    for l in lines {
        if let Some((name, value)) = l.split_once(':')
            && let Ok(name) = HeaderName::from_bytes(name.trim().as_bytes())
            && let Ok(value) = HeaderValue::from_str(value.trim())
        {
            headers.append(name, value);
        }
    }
    check_as_sent(&headers, body, &token, now);
    check_controls(body, &token, now, data.first().copied().unwrap_or(0));
    read_body(&headers, body);
});

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn first<'a>(headers: &'a HeaderMap, names: [&str; 2]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| headers.get(*n))
        .and_then(|v| v.to_str().ok())
}

/// Whatever the headers say, what is accepted is accepted rightly.
fn check_as_sent(headers: &HeaderMap, body: &[u8], token: &str, now: i64) {
    match signature::check(headers, body, token, now) {
        Ok(Checked::Signed(t)) => {
            let off = (i128::from(now) - i128::from(t)).abs();
            assert!(
                off <= i128::from(signature::TOLERANCE_S),
                "{off} s off accepted"
            );
            let sent = first(headers, ["x-ci-signature", "x-buildkite-signature"])
                .expect("a signature header")
                .to_ascii_lowercase();
            let want = signature::sign(token, t, body);
            let (_, mac) = want.split_once(",signature=").expect("sign's format");
            assert!(
                sent.contains(mac),
                "accepted {sent:?}; the signature is {mac}"
            );
        }
        Ok(Checked::Token) => {
            let sent = first(headers, ["x-ci-token", "x-buildkite-token"]);
            assert_eq!(sent, Some(token), "accepted another token");
        }
        Err(_) => {}
    }
}

fn with(name: &'static str, value: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        name,
        HeaderValue::from_str(value).expect("sign writes ASCII"),
    );
    h
}

/// A true signature at any time within the tolerance is taken; any change refuses it.
fn check_controls(body: &[u8], token: &str, now: i64, pick: u8) {
    let delta = i64::from(pick) * 600 / 255 - 300;
    let Some(t) = now.checked_add(delta) else {
        return;
    };
    let name = if pick.is_multiple_of(2) {
        "x-buildkite-signature"
    } else {
        "x-ci-signature"
    };
    let signed = signature::sign(token, t, body);
    assert_eq!(
        signature::check(&with(name, &signed), body, token, now),
        Ok(Checked::Signed(t)),
        "a true signature {delta} s off"
    );
    let mut other_body = body.to_vec();
    other_body.push(b' ');
    let refused = |h: &HeaderMap, b: &[u8], tok: &str, at: i64| signature::check(h, b, tok, at);
    assert_eq!(
        refused(&with(name, &signed), &other_body, token, now),
        Err(Refused::Mismatch)
    );
    let other_token = format!("{token}x");
    assert_eq!(
        refused(&with(name, &signed), body, &other_token, now),
        Err(Refused::Mismatch)
    );
    // One hex digit of the MAC changed.
    let at = signed.len() - 1 - usize::from(pick % 64);
    let mut flipped = signed.clone().into_bytes();
    flipped[at] = if flipped[at] == b'0' { b'1' } else { b'0' };
    let flipped = String::from_utf8(flipped).expect("ASCII");
    assert_eq!(
        refused(&with(name, &flipped), body, token, now),
        Err(Refused::Mismatch)
    );
    if let Some(late) = t.checked_add(signature::TOLERANCE_S + 1) {
        assert_eq!(
            refused(&with(name, &signed), body, token, late),
            Err(Refused::Stale)
        );
    }
    // Tokens svc makes are ASCII; a header the server cannot read as text is no token.
    if HeaderValue::from_str(token).is_ok_and(|v| v.to_str().is_ok()) {
        let h = with("x-ci-token", token);
        assert_eq!(refused(&h, body, token, now), Ok(Checked::Token));
        assert_eq!(refused(&h, body, &other_token, now), Err(Refused::Mismatch));
    }
}

fn text(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// A time the body gives: when it parses, it round-trips and prints.
fn time_at(v: &Value) -> Option<i64> {
    let ms = ci::at(v)?;
    let t = time_of(ms);
    assert_eq!(ms_of(t), ms, "{v} comes back to the same millisecond");
    let printed = t.format(&time::format_description::well_known::Rfc3339);
    assert!(
        printed.is_ok(),
        "{v} is taken as {ms} ms, which cannot be printed as RFC 3339"
    );
    Some(ms)
}

/// `ci::apply`'s reading of the body, up to the store.
fn read_body(headers: &HeaderMap, body: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let event = first(headers, ["x-ci-event", "x-buildkite-event"])
        .map(str::to_owned)
        .or_else(|| value["event"].as_str().map(str::to_owned));
    let Some(event) = event else { return };
    if event == "ping" || !(event.starts_with("build.") || event.starts_with("job.")) {
        return;
    }
    let b = &value["build"];
    let (Some(id), Some(pipeline)) = (
        text(&b["id"]),
        text(&value["pipeline"]["slug"]).or_else(|| text(&b["pipeline"]["slug"])),
    ) else {
        return;
    };
    let word = text(&b["state"]).unwrap_or_else(|| "scheduled".into());
    let meta_data = b
        .get("meta_data")
        .filter(|m| m.is_object())
        .map_or_else(|| "{}".into(), Value::to_string);
    let row = BuildRow {
        connection_id: "c".into(),
        id,
        pipeline,
        number: b["number"].as_i64().unwrap_or_default(),
        state: states::build(&word).as_str().into(),
        service_state: word,
        branch: text(&b["branch"]),
        commit_sha: text(&b["commit"]),
        message: text(&b["message"]),
        web_url: text(&b["web_url"]),
        repo_id: None,
        meta_data,
        rebuild_of: text(&b["rebuilt_from"]["id"])
            .or_else(|| text(&b["meta_data"]["svc_rebuild_of"])),
        created_at: time_at(&b["created_at"]).unwrap_or(0),
        started_at: time_at(&b["started_at"]),
        finished_at: time_at(&b["finished_at"]),
        signed_at: 0,
    };
    let view = ci::build_view(&row, Some("api"), None);
    if let Some(m) = b.get("meta_data").filter(|m| m.is_object()) {
        assert_eq!(&view.meta_data, m, "meta_data comes back the same");
    }
    // What `ci::apply` writes as the build's event (`json!` panics on a failure).
    let event = json!({ "row": view });
    assert!(event["row"]["created_at"].is_string());
    let j = &value["job"];
    let Some(job_id) = text(&j["id"]) else { return };
    let word = text(&j["state"]).unwrap_or_else(|| "scheduled".into());
    let exit_status = j["exit_status"].as_i64();
    let job = JobRow {
        connection_id: "c".into(),
        build_id: row.id.clone(),
        id: job_id,
        name: text(&j["name"]).or_else(|| text(&j["label"])),
        state: states::job(&word, exit_status).as_str().into(),
        service_state: word,
        exit_status,
        web_url: text(&j["web_url"]),
        started_at: time_at(&j["started_at"]),
        finished_at: time_at(&j["finished_at"]),
        retried_by: None,
    };
    let event = json!({ "row": ci::job_view(&job), "build": row.id });
    assert!(event["row"]["id"].is_string());
}
