//! Just enough of git's pkt-line format for the door: reading a push's commands and
//! writing a refusal that git prints as `remote: ...` and `! [remote rejected] ... (reason)`.

use std::io::Read;

/// Largest pkt-line payload (65520 bytes in all, minus the 4-byte length).
const MAX_PAYLOAD: usize = 65516;

/// One ref update a push asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    pub old: String,
    pub new: String,
    pub refname: String,
}

/// A push request's head: its commands and the client's capabilities.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PushHead {
    pub updates: Vec<RefUpdate>,
    pub capabilities: Vec<String>,
    /// `git push -o <option>`: sent after the commands when `push-options` is asked for.
    pub options: Vec<String>,
}

impl PushHead {
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }

    fn side_band(&self) -> bool {
        self.has("side-band-64k") || self.has("side-band")
    }
}

/// One pkt-line's payload as text; `Some(None)` for a flush, `None` when malformed.
fn read_line(input: &mut impl Read) -> Option<Option<String>> {
    let mut len = [0u8; 4];
    input.read_exact(&mut len).ok()?;
    let len = usize::from_str_radix(std::str::from_utf8(&len).ok()?, 16).ok()?;
    if len == 0 {
        return Some(None);
    }
    let mut line = vec![0u8; len.checked_sub(4)?];
    input.read_exact(&mut line).ok()?;
    let line = String::from_utf8(line).ok()?;
    Some(Some(line.trim_end_matches('\n').to_owned()))
}

/// Reads the commands up to the first flush, then the push options when the client
/// asked for `push-options`; `None` when the request is malformed.
pub fn read_push_head(mut input: impl Read) -> Option<PushHead> {
    let mut head = PushHead::default();
    loop {
        let Some(line) = read_line(&mut input)? else {
            if head.has("push-options") {
                while let Some(option) = read_line(&mut input)? {
                    head.options.push(option);
                }
            }
            return Some(head);
        };
        let (command, caps) = line.split_once('\0').unwrap_or((&line, ""));
        if head.updates.is_empty() && !caps.is_empty() {
            head.capabilities = caps
                .split(' ')
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect();
        }
        if command.starts_with("shallow ") || command.starts_with("push-cert") {
            continue;
        }
        let mut parts = command.splitn(3, ' ');
        let (old, new, refname) = (parts.next()?, parts.next()?, parts.next()?);
        head.updates.push(RefUpdate {
            old: old.into(),
            new: new.into(),
            refname: refname.into(),
        });
    }
}

/// One pkt-line around `payload`.
pub fn line(payload: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", payload.len() + 4).into_bytes();
    out.extend_from_slice(payload);
    out
}

pub const FLUSH: &[u8] = b"0000";

/// `text` cut at a character boundary to at most `room` bytes, so that its pkt-line fits
/// (a reason or message naming a long ref twice would not; found by fuzzing).
fn fit(text: &str, room: usize) -> &str {
    &text[..text.floor_char_boundary(room)]
}

/// `message` as `remote:` lines (side band 2), to go before git's own answer; nothing
/// when the client reads no side band.
pub fn remote_lines(head: &PushHead, message: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if !head.side_band() {
        return out;
    }
    for text in message.lines() {
        let mut payload = vec![2u8];
        payload.extend_from_slice(format!("{}\n", fit(text, MAX_PAYLOAD - 2)).as_bytes());
        out.extend(line(&payload));
    }
    out
}

/// The whole answer refusing a push: `message` shown as `remote:` lines, and every ref
/// reported `ng` with `reason`. Nothing was written.
pub fn refusal(head: &PushHead, reason: &str, message: &str) -> Vec<u8> {
    let mut report = line(b"unpack ok\n");
    for update in &head.updates {
        let ng = format!("ng {} {reason}", update.refname);
        report.extend(line(format!("{}\n", fit(&ng, MAX_PAYLOAD - 1)).as_bytes()));
    }
    report.extend_from_slice(FLUSH);
    if !head.side_band() {
        return report;
    }
    let mut out = remote_lines(head, message);
    for chunk in report.chunks(MAX_PAYLOAD - 1) {
        let mut payload = vec![1u8];
        payload.extend_from_slice(chunk);
        out.extend(line(&payload));
    }
    out.extend_from_slice(FLUSH);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_commands_and_capabilities() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let mut req = line(
            format!("{zero} {one} refs/heads/main\0report-status side-band-64k agent=git/2\n")
                .as_bytes(),
        );
        req.extend(line(format!("{one} {zero} refs/heads/old\n").as_bytes()));
        req.extend_from_slice(FLUSH);
        req.extend_from_slice(b"PACK....");
        let head = read_push_head(req.as_slice()).unwrap();
        assert_eq!(head.updates.len(), 2);
        assert_eq!(
            head.updates[0],
            RefUpdate {
                old: zero.clone(),
                new: one.clone(),
                refname: "refs/heads/main".into()
            }
        );
        assert_eq!(head.updates[1].refname, "refs/heads/old");
        assert!(head.has("report-status") && head.has("side-band-64k") && !head.has("atomic"));
        assert!(head.options.is_empty());
        assert_eq!(read_push_head(&b"00zz"[..]), None);
        assert_eq!(read_push_head(&b"0009abc"[..]), None, "truncated");
    }

    #[test]
    fn reads_push_options_after_the_commands() {
        let zero = "0".repeat(40);
        let one = "1".repeat(40);
        let mut req =
            line(format!("{zero} {one} refs/heads/f\0report-status push-options\n").as_bytes());
        req.extend_from_slice(FLUSH);
        req.extend(line(b"ci.skip\n"));
        req.extend(line(b"svc.title=Faster merges"));
        req.extend_from_slice(FLUSH);
        req.extend_from_slice(b"PACK....");
        let head = read_push_head(req.as_slice()).unwrap();
        assert_eq!(head.options, ["ci.skip", "svc.title=Faster merges"]);
        let cut = &req[..req.len() - 12];
        assert_eq!(read_push_head(cut), None, "options cut short");
    }

    #[test]
    fn refusal_with_and_without_side_band() {
        let head = PushHead {
            updates: vec![RefUpdate {
                old: "a".into(),
                new: "b".into(),
                refname: "refs/heads/main".into(),
            }],
            capabilities: vec!["report-status".into()],
            options: Vec::new(),
        };
        let plain = refusal(&head, "main moves by merges", "hello");
        assert_eq!(
            plain,
            b"000eunpack ok\n002cng refs/heads/main main moves by merges\n0000"
        );
        let banded = PushHead {
            capabilities: vec!["side-band-64k".into()],
            ..head
        };
        let out = refusal(&banded, "r", "hi");
        assert!(out.starts_with(b"0008\x02hi\n"));
        assert!(out.ends_with(b"00000000"));
    }

    /// The payloads of `out`'s pkt-lines (`None` for a flush), each length checked.
    fn payloads(mut out: &[u8]) -> Vec<Option<&[u8]>> {
        let mut lines = Vec::new();
        while !out.is_empty() {
            let hex = std::str::from_utf8(&out[..4]).unwrap();
            let len = usize::from_str_radix(hex, 16).unwrap();
            assert!(len == 0 || (5..=MAX_PAYLOAD + 4).contains(&len), "{hex}");
            lines.push((len > 0).then(|| &out[4..len]));
            out = &out[len.max(4)..];
        }
        lines
    }

    #[test]
    fn long_names_still_make_pkt_lines_that_fit() {
        // From fuzz/fuzz_targets/pkt_line.rs: a refusal naming a long ref (a clash names
        // it twice) wrote pkt-lines over 65520 bytes, with a five-digit length.
        let name = format!("a/{}", "é".repeat(16_000));
        let refname = format!("refs/heads/{name}");
        let head = PushHead {
            updates: vec![RefUpdate {
                old: "0".repeat(40),
                new: "1".repeat(40),
                refname: refname.clone(),
            }],
            capabilities: vec!["side-band-64k".into()],
            options: Vec::new(),
        };
        let reason = format!("{name} clashes with the branch {name}");
        let out = refusal(
            &head,
            &reason,
            &format!("svc: {reason}\nsvc: nothing landed."),
        );
        let mut report = Vec::new();
        let banded = payloads(&out);
        assert_eq!(banded.last(), Some(&None));
        for payload in banded.iter().flatten() {
            match payload[0] {
                1 => report.extend_from_slice(&payload[1..]),
                2 => assert!(std::str::from_utf8(&payload[1..]).is_ok()),
                other => panic!("channel {other}"),
            }
        }
        let report = payloads(&report);
        assert_eq!(report.len(), 3);
        assert_eq!(report[0], Some(&b"unpack ok\n"[..]));
        let ng = std::str::from_utf8(report[1].unwrap()).unwrap();
        assert!(
            ng.starts_with(&format!("ng {refname} {name} clashes")),
            "cut at the end"
        );
        assert!(ng.ends_with('\n'));
        assert_eq!(report[2], None);
    }
}
