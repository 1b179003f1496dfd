//! A push request's head (pkt-lines up to the first flush: ref update commands and the
//! client's capabilities), as `git-receive-pack` requests bring it to the door.
//!
//! Asserts: a head that parses, written back as pkt-lines, parses to the same head; the
//! refusal svc answers for it is well-formed pkt-lines (every length four hex digits and
//! true, no payload over 65516 bytes, side-band when asked) reporting every ref `ng`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use svc_server::fuzzing::{FLUSH, PushHead, line, read_push_head, refusal};

/// Largest pkt-line payload.
const MAX_PAYLOAD: usize = 65516;

fuzz_target!(|data: &[u8]| {
    let Some(head) = read_push_head(data) else {
        return;
    };
    round_trip(&head);
    // The reasons and messages svc writes hold names from the push (a clashing branch
    // is named twice or three times, and a ref name may be 65 KB long): the last byte
    // picks how often the first ref name is repeated, so long ones come without 65 KB
    // inputs.
    let name = head.updates.first().map_or("", |u| u.refname.as_str());
    let times = usize::from(data.last().copied().unwrap_or(0) % 32);
    let reason = format!("{} clashes", name.repeat(times));
    let message = format!(
        "svc: {} is refused\nsvc: nothing landed.",
        name.repeat(times)
    );
    check_refusal(&head, &reason, &message);
});

/// The head as a client would send it; `None` when a line would not fit in a pkt-line.
fn write(head: &PushHead) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for (i, u) in head.updates.iter().enumerate() {
        let mut payload = format!("{} {} {}", u.old, u.new, u.refname).into_bytes();
        if i == 0 && !head.capabilities.is_empty() {
            payload.push(0);
            payload.extend_from_slice(head.capabilities.join(" ").as_bytes());
            // A space after the last: one ending in a newline keeps it.
            payload.push(b' ');
        } else if u.refname.ends_with('\n') {
            // A NUL keeps a name's own trailing newline from being taken for the line's.
            payload.push(0);
        }
        if payload.len() > MAX_PAYLOAD + 15 {
            return None;
        }
        out.extend(line(&payload));
    }
    out.extend_from_slice(FLUSH);
    if head.has("push-options") {
        for option in &head.options {
            if option.len() > MAX_PAYLOAD {
                return None;
            }
            out.extend(line(option.as_bytes()));
        }
        out.extend_from_slice(FLUSH);
    }
    Some(out)
}

fn round_trip(head: &PushHead) {
    // Capabilities sent with no command cannot be written back as a push.
    if head.updates.is_empty() {
        return;
    }
    let Some(bytes) = write(head) else { return };
    let again = read_push_head(bytes.as_slice()).expect("a written head parses");
    assert_eq!(&again, head, "a head written back parses the same");
}

/// The pkt-lines of `bytes` up to its end: payloads, `None` for a flush.
fn pkt_lines(mut bytes: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        assert!(bytes.len() >= 4, "a cut-short length: {bytes:?}");
        let hex = std::str::from_utf8(&bytes[..4]).expect("an ASCII length");
        assert!(
            hex.bytes().all(|b| b.is_ascii_hexdigit()),
            "a length of four hex digits, not {hex:?}"
        );
        let len = usize::from_str_radix(hex, 16).expect("hex");
        if len == 0 {
            out.push(None);
            bytes = &bytes[4..];
            continue;
        }
        assert!(len >= 4, "a length of {len}");
        assert!(len - 4 <= MAX_PAYLOAD, "a payload of {} bytes", len - 4);
        assert!(bytes.len() >= len, "a length past the end");
        out.push(Some(bytes[4..len].to_vec()));
        bytes = &bytes[len..];
    }
    out
}

fn check_refusal(head: &PushHead, reason: &str, message: &str) {
    let out = refusal(head, reason, message);
    let lines = pkt_lines(&out);
    let side_band = head.has("side-band-64k") || head.has("side-band");
    let report = if side_band {
        assert_eq!(lines.last(), Some(&None), "ends with a flush");
        let mut report = Vec::new();
        for payload in &lines[..lines.len() - 1] {
            let payload = payload.as_ref().expect("no flush inside side-band");
            match payload.first() {
                Some(1) => report.extend_from_slice(&payload[1..]),
                Some(2) => {}
                other => panic!("side-band channel {other:?}"),
            }
        }
        pkt_lines(&report)
    } else {
        lines
    };
    assert_eq!(report.first(), Some(&Some(b"unpack ok\n".to_vec())));
    assert_eq!(report.last(), Some(&None), "the report ends with a flush");
    let ng: Vec<&Vec<u8>> = report[1..report.len() - 1]
        .iter()
        .map(|l| l.as_ref().expect("no flush inside the report"))
        .collect();
    assert_eq!(ng.len(), head.updates.len(), "one status per ref");
    for (line, update) in ng.iter().zip(&head.updates) {
        assert!(line.ends_with(b"\n"), "a status line ends with a newline");
        // A line too long for a pkt-line is cut, even into the name (only a 65 KB one).
        let shown = &line[..line.len() - 1];
        let want = format!("ng {} ", update.refname);
        assert!(
            shown.starts_with(want.as_bytes()) || want.as_bytes().starts_with(shown),
            "{line:?} reports {want:?}"
        );
    }
}
