//! `svc artifact comment`.

use std::io::{IsTerminal, Read};

use reqwest::Method;
use svc_protocol::artifact::{ArtifactComment, NewArtifactComment};

use super::BranchArgs;
use crate::commands::{Global, print};
use crate::editor;
use crate::error::{CommandError, Result};

/// Start a comment thread on an artifact, or reply in one; without a body on a terminal,
/// write it in your editor
///
/// A thread is about the whole artifact, or with --quote about some words of it. With
/// --reply-to the comment is a reply in the thread of that comment (svc artifact view
/// shows the threads and their ids). `@login` mentions of members are recorded. The body
/// is Markdown: BODY, else --body-file, else your editor on a terminal.
#[derive(Debug, clap::Args)]
#[command(disable_version_flag = true)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The artifact's name, like design.md (svc artifact list shows them)
    pub name: String,
    /// The comment, Markdown (- reads it from standard input)
    pub body: Option<String>,
    /// Read the comment from this file (- for standard input)
    #[arg(long, short = 'F', value_name = "FILE", conflicts_with = "body")]
    pub body_file: Option<String>,
    /// The words of the artifact the thread is about
    #[arg(long, value_name = "TEXT", conflicts_with = "reply_to")]
    pub quote: Option<String>,
    /// The version it is about [default: the newest; a reply's, its thread's]
    #[arg(long, value_name = "N")]
    pub version: Option<i64>,
    /// Reply in the thread of this comment (its id, like ac_...)
    #[arg(long, value_name = "COMMENT_ID")]
    pub reply_to: Option<String>,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    let body = compose(args)?;
    if body.trim().is_empty() {
        return Err(CommandError::user(
            "an empty comment says nothing: nothing was sent",
        ));
    }
    let request = NewArtifactComment {
        body,
        version: args.version,
        anchor: None,
        quote: args.quote.clone(),
        in_reply_to: args.reply_to.clone(),
    };
    let path = format!("{}/comments", super::path(&target, &branch, &args.name));
    // A key of its own, so that the request sent again answers the first comment.
    let comment: ArtifactComment = super::call(
        &target,
        target
            .session
            .request(Method::POST, &path)?
            .header("Idempotency-Key", idempotency_key()?)
            .json(&request),
    )?;
    print(global, &comment, || match &args.reply_to {
        Some(_) => format!("Replied in thread {}", comment.thread),
        None => format!("Commented on {} (thread {})", args.name, comment.thread),
    })
}

/// The body from BODY, a file, standard input, or the editor (on a terminal).
fn compose(args: &Args) -> Result<String> {
    match (args.body.as_deref(), args.body_file.as_deref()) {
        (Some("-"), _) | (None, Some("-")) => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            Ok(text)
        }
        (Some(body), _) => Ok(body.to_owned()),
        (None, Some(file)) => std::fs::read_to_string(file)
            .map_err(|e| CommandError::user(format!("cannot read {file}")).because(&e)),
        (None, None) => {
            if !std::io::stdin().is_terminal() {
                return Err(CommandError::user("a comment needs a body")
                    .hint("pass it as BODY, --body-file <file>, or - for standard input"));
            }
            editor::compose(
                "ARTIFACT_COMMENT_EDITMSG.md",
                "",
                "Write the comment above this line (Markdown). An empty comment sends nothing.",
            )
        }
    }
}

/// 128 random bits in hex.
fn idempotency_key() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| CommandError::internal("no randomness").because(&e))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_comment_has_a_fresh_key() {
        let (a, b) = (idempotency_key().unwrap(), idempotency_key().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
