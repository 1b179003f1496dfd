//! `svc artifact open`.

use std::io::Write;
use std::path::{Path, PathBuf};

use reqwest::Method;
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;
use svc_protocol::artifact::{Artifact, ArtifactKind};

use super::BranchArgs;
use super::images::IMAGE_EXTENSIONS;
use crate::browser::open;
use crate::commands::login::headless;
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::terminal::{errln, write_out};

/// What a saved page may do, in place of the policy the server sends with it (a file
/// opened from disk has no headers): no script and no fetch, but its inlined images and
/// its own styles show. An uploaded page must not run in your browser.
const POLICY: &str = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n";

/// Open an artifact in your browser: a document rendered, with its images, or an image
///
/// The server renders the version's document to HTML with its images inlined; svc
/// fetches it with your credential, writes it to a file in the system's temporary folder
/// (a page with a policy that lets no script run) and opens that with the platform's
/// opener (xdg-open, open or start). Where none can be opened, the file's path is
/// printed. --print writes the bytes as the server sent them to standard output instead.
#[derive(Debug, clap::Args)]
#[command(disable_version_flag = true)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The artifact's name, like design.md (svc artifact list shows them)
    pub name: String,
    /// The version to open [default: the newest]
    #[arg(long, value_name = "N")]
    pub version: Option<i64>,
    /// Write the document's HTML (or the image) to standard output; open nothing
    #[arg(long)]
    pub print: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    let path = super::path(&target, &branch, &args.name);
    let artifact: Artifact = super::call(&target, target.session.request(Method::GET, &path)?)?;
    let n = match args.version {
        Some(n) => {
            if !artifact.versions.iter().any(|v| v.n == n) {
                let newest = super::newest(&artifact).map_or(0, |v| v.n);
                return Err(CommandError::user(format!(
                    "{} on {branch} has no version {n}",
                    artifact.name
                ))
                .code(ErrorCode::NotFound.as_str())
                .hint(format!("its versions run from 1 to {newest}")));
            }
            n
        }
        None => super::newest(&artifact).map(|v| v.n).ok_or_else(|| {
            CommandError::user(format!("{} on {branch} has no versions", artifact.name))
        })?,
    };
    let response = super::send(
        &target,
        target
            .session
            .request(Method::GET, &format!("{path}/versions/{n}/document"))?,
    )?;
    let sent_sha = response
        .headers()
        .get("x-svc-sha256")
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    let bytes = response.bytes().map_err(|e| target.session.garbled(&e))?;
    let got = hex(&Sha256::digest(&bytes));
    if let Some(sent) = sent_sha.filter(|s| *s != got) {
        return Err(CommandError::user(format!(
            "version {n} of {} came with SHA-256 {got}, not {sent} as the server sent",
            artifact.name
        ))
        .code(ErrorCode::Sha256Mismatch.as_str())
        .hint("the bytes changed on the way; run the command again"));
    }
    if args.print {
        return write_out(&bytes);
    }
    let file = save(&artifact, n, &bytes)?;
    let shown = file.display().to_string();
    let opened = !headless() && open(&shown);
    let value = serde_json::json!({
        "repo": target.label(),
        "branch": branch,
        "name": artifact.name,
        "version": n,
        "path": shown,
        "opened": opened,
    });
    if !opened && !global.json {
        errln!("svc: no browser could be opened here; open the file yourself:");
    }
    print(global, &value, || match opened {
        true => format!("Opened {} version {n} ({shown})", artifact.name),
        false => shown.clone(),
    })
}

/// Writes the bytes to a file of their own in the system's temporary folder, kept for
/// the browser to read: `.html` for a document, the image's own extension for an image.
fn save(artifact: &Artifact, n: i64, bytes: &[u8]) -> Result<PathBuf> {
    let extension = match artifact.kind {
        ArtifactKind::Document => "html".to_owned(),
        ArtifactKind::Image => Path::new(&artifact.name)
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .filter(|e| IMAGE_EXTENSIONS.contains(&e.as_str()))
            .unwrap_or_else(|| "img".to_owned()),
    };
    let stem: String = Path::new(&artifact.name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            _ => '-',
        })
        .take(60)
        .collect();
    let cannot = |e: std::io::Error| {
        CommandError::internal("cannot write the file to open in the temporary folder").because(&e)
    };
    let mut file = tempfile::Builder::new()
        .prefix(&format!("svc-{stem}-v{n}-"))
        .suffix(&format!(".{extension}"))
        .tempfile_in(std::env::temp_dir())
        .map_err(cannot)?;
    match artifact.kind {
        ArtifactKind::Document => file.write_all(&guarded(bytes)),
        ArtifactKind::Image => file.write_all(bytes),
    }
    .map_err(cannot)?;
    let (_, path) = file.keep().map_err(|e| cannot(e.error))?;
    Ok(path)
}

/// The page with [`POLICY`] first: after a byte order mark and a doctype, so the page
/// keeps its mode, and before anything else, where the parser puts it in the head.
fn guarded(page: &[u8]) -> Vec<u8> {
    let mut at = if page.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    while page.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    let doctype = page
        .get(at..at + 9)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"<!doctype"));
    if doctype && let Some(end) = page[at..].iter().position(|&c| c == b'>') {
        at += end + 1;
    }
    let mut out = Vec::with_capacity(page.len() + POLICY.len() + 1);
    out.extend_from_slice(&page[..at]);
    if at > 0 {
        out.push(b'\n');
    }
    out.extend_from_slice(POLICY.as_bytes());
    out.extend_from_slice(&page[at..]);
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_page_gets_the_policy_after_its_doctype() {
        let page = guarded(b"<!doctype html>\n<html><head><title>d</title></head></html>");
        let text = String::from_utf8(page).unwrap();
        assert!(
            text.starts_with(&format!("<!doctype html>\n{POLICY}\n<html>")),
            "{text}"
        );
        let page = guarded(b"<p>Hi</p><script>x()</script>");
        assert_eq!(
            page,
            format!("{POLICY}<p>Hi</p><script>x()</script>").as_bytes()
        );
        let page = guarded(b"\xEF\xBB\xBF <!DOCTYPE html><p>");
        assert!(page.starts_with(b"\xEF\xBB\xBF <!DOCTYPE html>\n<meta"));
    }
}
