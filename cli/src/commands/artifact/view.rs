//! `svc artifact view`.

use reqwest::Method;
use svc_protocol::artifact::{
    Artifact, ArtifactComment, ArtifactThread, ArtifactThreadList, ThreadState,
};

use super::BranchArgs;
use crate::browser;
use crate::commands::{Global, print};
use crate::error::Result;
use crate::table::Table;
use crate::terminal::when;

/// Show an artifact, every version of it and its comment threads
///
/// Its name, kind, repo and branch, when it was made and last updated, then each version
/// with who uploaded it, its files, size and SHA-256 (of the document or image itself),
/// the files of the newest version, and the comment threads, oldest first: each with its
/// state, id, author, age, the words it quotes and its version, its body and its replies.
/// With --json: the artifact as the API answers it; with --threads too,
/// {"artifact": ..., "threads": [...]}.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The artifact's name, like design.md (svc artifact list shows them)
    pub name: String,
    /// With --json, answer the threads too, as {"artifact": ..., "threads": [...]}
    #[arg(long)]
    pub threads: bool,
    /// Open its page in your browser (or print the page's address when none can be opened)
    #[arg(long)]
    pub web: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let (target, branch) = args.on.resolve(global)?;
    let path = super::path(&target, &branch, &args.name);
    let artifact: Artifact = super::call(&target, target.session.request(Method::GET, &path)?)?;
    if args.web {
        let page = format!(
            "{}/artifacts/{}",
            browser::branch_page(&target, &branch),
            crate::target::encode(&artifact.name)
        );
        return browser::show(global, &page);
    }
    if global.json && !args.threads {
        return print(global, &artifact, String::new);
    }
    let threads: ArtifactThreadList = super::call(
        &target,
        target
            .session
            .request(Method::GET, &format!("{path}/threads"))?,
    )?;
    let value = serde_json::json!({ "artifact": &artifact, "threads": &threads.items });
    print(global, &value, || {
        let mut text = human(&artifact, &target.label());
        text.push_str(&threads_text(&threads.items));
        text
    })
}

/// The longest quote shown in a thread's first line, in characters.
const QUOTE_SHOWN: usize = 60;

/// The threads, oldest first, each with its replies indented below it.
fn threads_text(threads: &[ArtifactThread]) -> String {
    if threads.is_empty() {
        return "No comment threads\n".to_owned();
    }
    let open = threads
        .iter()
        .filter(|t| t.root.state != Some(ThreadState::Resolved))
        .count();
    let mut text = format!("Threads ({}, {open} open):\n", threads.len());
    for (i, t) in threads.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let root = &t.root;
        let state = root.state.unwrap_or(ThreadState::Open).as_str();
        let mut head = format!(
            "[{state}] {}  {}  {}",
            root.id,
            root.author,
            when(root.created_at)
        );
        if let Some(anchor) = &root.anchor {
            head.push_str(&format!("  \"{}\"", quote(&anchor.exact)));
        }
        head.push_str(&format!(" (v{})", root.version));
        text.push_str(&format!("  {head}\n"));
        push_body(&mut text, root, "    ");
        for r in &t.replies {
            let mut head = format!("{}  {}  {}", r.id, r.author, when(r.created_at));
            if r.version != root.version {
                head.push_str(&format!(" (v{})", r.version));
            }
            text.push_str(&format!("    {head}\n"));
            push_body(&mut text, r, "      ");
        }
    }
    text
}

/// A comment's body, each line indented; "(deleted)" for a deleted one.
fn push_body(text: &mut String, comment: &ArtifactComment, indent: &str) {
    match comment.body.as_deref() {
        None => text.push_str(&format!("{indent}(deleted)\n")),
        Some(body) => {
            for line in body.trim_end().lines() {
                if !line.trim().is_empty() {
                    text.push_str(indent);
                    text.push_str(line);
                }
                text.push('\n');
            }
        }
    }
}

/// The quoted words on one line, shortened with … past [`QUOTE_SHOWN`] characters.
fn quote(exact: &str) -> String {
    let one_line = exact.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= QUOTE_SHOWN {
        return one_line;
    }
    let mut short: String = one_line.chars().take(QUOTE_SHOWN - 1).collect();
    short.push('…');
    short
}

fn human(a: &Artifact, repo: &str) -> String {
    let mut text = format!("{}  {}\n", a.name, a.kind.as_str());
    text.push_str(&format!("On {} of {repo}\n", a.branch));
    text.push_str(&format!(
        "Made {}, updated {}\n",
        when(a.created_at),
        when(a.updated_at)
    ));
    text.push_str("Versions:\n");
    let mut table = Table::new(&["N", "CREATED", "BY", "FILES", "SIZE", "SHA256"]);
    let mut versions: Vec<_> = a.versions.iter().collect();
    versions.sort_by_key(|v| std::cmp::Reverse(v.n));
    for v in &versions {
        table.row(vec![
            v.n.to_string(),
            when(v.created_at),
            v.created_by.clone(),
            v.files.len().to_string(),
            super::size(v.size),
            v.sha256.get(..12).unwrap_or(&v.sha256).to_owned(),
        ]);
    }
    for line in table.render().lines() {
        text.push_str(&format!("  {line}\n"));
    }
    if let Some(newest) = super::newest(a) {
        text.push_str(&format!("Files of version {}:\n", newest.n));
        let mut table = Table::new(&["PATH", "TYPE", "SIZE"]);
        for f in &newest.files {
            table.row(vec![
                f.path.clone(),
                f.content_type.clone(),
                super::size(f.size),
            ]);
        }
        for line in table.render().lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_protocol::artifact::Anchor;
    use time::OffsetDateTime;

    fn comment(id: &str, thread: &str, body: Option<&str>, version: i64) -> ArtifactComment {
        ArtifactComment {
            id: id.to_owned(),
            artifact: "art_1".to_owned(),
            thread: thread.to_owned(),
            version,
            anchor: None,
            body: body.map(str::to_owned),
            author: "ann".to_owned(),
            mentions: Vec::new(),
            state: None,
            reply_count: None,
            created_at: OffsetDateTime::UNIX_EPOCH,
            updated_at: OffsetDateTime::UNIX_EPOCH,
            body_version: 1,
        }
    }

    #[test]
    fn threads_show_state_quote_version_and_indented_replies() {
        let mut root = comment("ac_1", "ac_1", Some("Why this cache?\n\nIt grows."), 2);
        root.state = Some(ThreadState::Resolved);
        root.anchor = Some(Anchor {
            block_id: "external".to_owned(),
            start: 0,
            end: 0,
            exact: "the cache\nlayer".to_owned(),
            prefix: None,
            suffix: None,
        });
        let reply = comment("ac_2", "ac_1", Some("It is bounded."), 3);
        let mut deleted = comment("ac_3", "ac_3", None, 1);
        deleted.state = Some(ThreadState::Open);
        let threads = [
            ArtifactThread {
                root,
                replies: vec![reply],
                artifact_name: "design.md".to_owned(),
            },
            ArtifactThread {
                root: deleted,
                replies: Vec::new(),
                artifact_name: "design.md".to_owned(),
            },
        ];
        let text = threads_text(&threads);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Threads (2, 1 open):");
        assert!(
            lines[1].starts_with("  [resolved] ac_1  ann  "),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].ends_with("  \"the cache layer\" (v2)"),
            "{}",
            lines[1]
        );
        assert_eq!(&lines[2..5], ["    Why this cache?", "", "    It grows."]);
        assert!(lines[5].starts_with("    ac_2  ann  ") && lines[5].ends_with(" (v3)"));
        assert_eq!(lines[6], "      It is bounded.");
        assert_eq!(lines[7], "");
        assert!(lines[8].starts_with("  [open] ac_3  ann  ") && lines[8].ends_with(" (v1)"));
        assert_eq!(lines[9], "    (deleted)");
        assert_eq!(threads_text(&[]), "No comment threads\n");
    }

    #[test]
    fn long_quotes_are_shortened() {
        let long = "word ".repeat(30);
        let shown = quote(&long);
        assert_eq!(shown.chars().count(), QUOTE_SHOWN);
        assert!(shown.ends_with('…'));
    }
}
