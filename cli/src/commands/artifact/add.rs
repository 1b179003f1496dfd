//! `svc artifact add`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::HumanBytes;
use reqwest::Method;
use reqwest::blocking::multipart::{Form, Part};
use svc_protocol::ErrorCode;
use svc_protocol::artifact::Artifact;

use super::BranchArgs;
use super::images::{self, Found, IMAGE_EXTENSIONS};
use crate::commands::{Global, print};
use crate::error::{CommandError, Result};
use crate::terminal::errln;

/// All of an upload's files' bytes.
pub const TOTAL_MAX: u64 = 10 * 1024 * 1024;
/// A document's own bytes.
pub const DOCUMENT_MAX: u64 = 1024 * 1024 * 3 / 2;
/// Files in one upload, the document's images included.
pub const FILES_MAX: usize = 20;

/// How long an upload may take, in place of the client's minute.
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// Upload a document or image to a branch; a name already there gets a new version
///
/// FILE is a Markdown (.md, .markdown) or HTML (.html, .htm) document, or an image (.png,
/// .jpg, .jpeg, .gif, .webp, .svg); the artifact is named by its file name. A document is
/// sent with the images it uses by paths relative to it (Markdown images and the
/// definitions they use, <img src> in Markdown and HTML), read from beside it; web
/// addresses, absolute paths, paths out of its folder (..) and missing files are not
/// uploaded, each with a warning. An upload holds at most 20 files and 10 MiB, the
/// document at most 1.5 MiB.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub on: BranchArgs,
    /// The document or image to upload
    pub file: PathBuf,
}

/// What a file's extension makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Markdown,
    Html,
    Image,
}

/// A file to send: its name in the upload, where it is and its size.
struct Planned {
    name: String,
    path: PathBuf,
    size: u64,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let planned = plan(&args.file)?;
    let (target, branch) = args.on.resolve(global)?;
    let mut form = Form::new();
    for (i, p) in planned.into_iter().enumerate() {
        let field = if i == 0 { "file" } else { "image" };
        // Bytes in memory give the form a known length, so Content-Length is sent.
        form = form.part(field, Part::bytes(read(&p.path)?).file_name(p.name));
    }
    let request = target
        .session
        .request(Method::POST, &super::list_path(&target, &branch))?
        .timeout(UPLOAD_TIMEOUT)
        .multipart(form);
    let artifact: Artifact = super::call(&target, request)?;
    print(global, &artifact, || {
        let Some(v) = super::newest(&artifact) else {
            return format!("Uploaded {} to {}", artifact.name, artifact.branch);
        };
        format!(
            "Uploaded {} version {} to {} ({}, {})",
            artifact.name,
            v.n,
            artifact.branch,
            super::n_files(v.files.len()),
            super::size(v.size)
        )
    })
}

/// The file first, then the images it uses, each refused here when the server would.
fn plan(file: &Path) -> Result<Vec<Planned>> {
    let shown = file.display().to_string();
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let kind = kind(&name).ok_or_else(|| {
        CommandError::user(format!("{shown} is not a document or image svc keeps"))
            .hint("documents are .md, .markdown, .html or .htm; images .png, .jpg, .jpeg, .gif, .webp or .svg")
    })?;
    let size = size_of(file)?;
    if kind != Kind::Image && size > DOCUMENT_MAX {
        return Err(too_large(format!(
            "{shown} is {}, over the {} a document may be",
            bytes(size),
            bytes(DOCUMENT_MAX)
        )));
    }
    if size > TOTAL_MAX {
        return Err(too_large(format!(
            "{shown} is {}, over the {} an upload may hold",
            bytes(size),
            bytes(TOTAL_MAX)
        )));
    }
    let found = match kind {
        Kind::Markdown => images::markdown(&String::from_utf8_lossy(&read(file)?)),
        Kind::Html => images::html(&String::from_utf8_lossy(&read(file)?)),
        Kind::Image => Vec::new(),
    };
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut planned = vec![Planned {
        name,
        path: file.to_path_buf(),
        size,
    }];
    for f in found {
        let name = match f {
            Found::Local(name) => name,
            Found::Skipped { reference, why } => {
                errln!("svc: not uploading {reference}: {why}");
                continue;
            }
        };
        let path = dir.join(&name);
        if !path.is_file() {
            errln!(
                "svc: not uploading {name}: there is no file {}",
                path.display()
            );
            continue;
        }
        let size = size_of(&path)?;
        planned.push(Planned { name, path, size });
    }
    check_limits(&planned, &shown)?;
    Ok(planned)
}

/// The server's limits on files and bytes, told before anything is sent.
fn check_limits(planned: &[Planned], shown: &str) -> Result<()> {
    let images = planned.len() - 1;
    if planned.len() > FILES_MAX {
        return Err(CommandError::user(format!(
            "{shown} uses {images} images; an upload holds the document and at most {}",
            FILES_MAX - 1
        ))
        .code(ErrorCode::TooManyFiles.as_str())
        .hint("use fewer images, or put several in one"));
    }
    let total: u64 = planned.iter().map(|p| p.size).sum();
    if total > TOTAL_MAX {
        let mut biggest: Vec<&Planned> = planned[1..].iter().collect();
        biggest.sort_by_key(|p| std::cmp::Reverse(p.size));
        let named: Vec<String> = biggest
            .iter()
            .take(3)
            .map(|p| format!("{} ({})", p.name, bytes(p.size)))
            .collect();
        return Err(too_large(format!(
            "{shown} with its {images} images is {}, over the {} an upload may hold",
            bytes(total),
            bytes(TOTAL_MAX)
        ))
        .hint(format!("the biggest images: {}", named.join(", "))));
    }
    Ok(())
}

fn bytes(n: u64) -> HumanBytes {
    HumanBytes(n)
}

fn size_of(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path)
        .map_err(|e| CommandError::user(format!("cannot read {}", path.display())).because(&e))?;
    if !meta.is_file() {
        return Err(CommandError::user(format!(
            "{} is not a file",
            path.display()
        )));
    }
    Ok(meta.len())
}

fn too_large(message: String) -> CommandError {
    CommandError::user(message)
        .code(ErrorCode::TooLarge.as_str())
        .hint("make it smaller than the limit the message names")
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| CommandError::user(format!("cannot read {}", path.display())).because(&e))
}

/// What `name`'s extension makes it; `None` for what svc does not keep.
fn kind(name: &str) -> Option<Kind> {
    let (_, extension) = name.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    match extension.as_str() {
        "md" | "markdown" => Some(Kind::Markdown),
        "html" | "htm" => Some(Kind::Html),
        e if IMAGE_EXTENSIONS.contains(&e) => Some(Kind::Image),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_says_the_kind() {
        assert_eq!(kind("design.md"), Some(Kind::Markdown));
        assert_eq!(kind("Notes.MARKDOWN"), Some(Kind::Markdown));
        assert_eq!(kind("page.htm"), Some(Kind::Html));
        assert_eq!(kind("arch.JPEG"), Some(Kind::Image));
        assert_eq!(kind("notes.txt"), None);
        assert_eq!(kind("md"), None);
    }

    #[test]
    fn a_document_goes_with_the_images_found_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("img")).unwrap();
        std::fs::write(dir.path().join("img/arch.png"), b"png").unwrap();
        std::fs::write(dir.path().join("my pic.svg"), b"<svg/>").unwrap();
        let doc = dir.path().join("design.md");
        std::fs::write(
            &doc,
            "![a](./img/arch.png) ![b](my%20pic.svg) ![c](img/missing.png) ![d](../up.png)",
        )
        .unwrap();
        let planned = plan(&doc).unwrap();
        let names: Vec<&str> = planned.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["design.md", "img/arch.png", "my pic.svg"]);
        assert_eq!(planned[1].size, 3);
    }

    #[test]
    fn limits_are_told_before_sending() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("big.md");
        std::fs::write(&doc, vec![b'a'; DOCUMENT_MAX as usize + 1]).unwrap();
        let e = plan(&doc).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("too_large"));

        let mut text = String::new();
        for i in 0..FILES_MAX {
            std::fs::write(dir.path().join(format!("{i}.png")), b"png").unwrap();
            text.push_str(&format!("![]({i}.png)\n"));
        }
        let doc = dir.path().join("many.md");
        std::fs::write(&doc, text).unwrap();
        let e = plan(&doc).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("too_many_files"));

        let doc = dir.path().join("notes.txt");
        std::fs::write(&doc, "x").unwrap();
        assert!(plan(&doc).is_err());
    }
}
