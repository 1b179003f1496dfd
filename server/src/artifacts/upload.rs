//! addArtifact's multipart body, read and checked: one `file` field (the document or
//! image; its file name is the artifact's) and one `image` field per image a document
//! uses (its file name is its path from the document).

use axum::extract::{FromRequest, Multipart, Request};
use axum::http::{StatusCode, header};
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;
use svc_protocol::artifact::ArtifactKind;

use super::kinds;
use crate::error::{ApiError, ApiResult};

/// All of an upload's files' bytes.
pub const TOTAL_MAX: usize = 10 * 1024 * 1024;
/// A document's own bytes.
pub const DOCUMENT_MAX: usize = 1024 * 1024 * 3 / 2;
/// Files in one upload.
pub const FILES_MAX: usize = 20;
/// What multipart framing may add to the files' bytes in a request's `Content-Length`.
pub const FRAMING_MAX: usize = 64 * 1024;

/// One file taken whole.
#[derive(Debug)]
pub struct Part {
    pub path: String,
    pub content_type: &'static str,
    pub sha256: String,
    pub bytes: Vec<u8>,
}

/// A checked upload: the main file first.
#[derive(Debug)]
pub struct Upload {
    pub kind: ArtifactKind,
    pub files: Vec<Part>,
}

impl Upload {
    /// The artifact's name: its main file's.
    pub fn name(&self) -> &str {
        &self.files[0].path
    }

    pub fn size(&self) -> i64 {
        self.files.iter().map(|f| f.bytes.len() as i64).sum()
    }
}

fn too_large(message: String) -> ApiError {
    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::TooLarge, message)
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(ErrorCode::BadRequest, message)
}

/// Reads and checks the request: 411 without `Content-Length`, 413 over the limits
/// (from the header before a byte is read, else as the bytes come), 400
/// `too_many_files`, 400 `bad_request` for names, paths and bytes not of their type.
pub async fn read(request: Request) -> ApiResult<Upload> {
    let length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::LENGTH_REQUIRED,
                ErrorCode::LengthRequired,
                "an upload needs Content-Length",
            )
        })?;
    if length > TOTAL_MAX + FRAMING_MAX {
        return Err(too_large(format!(
            "an artifact upload is at most {TOTAL_MAX} bytes of files"
        )));
    }
    let mut multipart = Multipart::from_request(request, &()).await.map_err(|e| {
        bad(format!(
            "a multipart/form-data body is needed: {}",
            e.body_text()
        ))
    })?;
    let mut main: Option<Part> = None;
    let mut images: Vec<Part> = Vec::new();
    let mut total = 0usize;
    while let Some(mut field) = multipart
        .next_field()
        .await
        .map_err(|e| bad(format!("the multipart body is broken: {}", e.body_text())))?
    {
        let role = field.name().unwrap_or_default().to_owned();
        if role != "file" && role != "image" {
            return Err(bad(format!(
                "unknown field {role:?}: the fields are `file` and `image`"
            )));
        }
        if role == "file" && main.is_some() {
            return Err(bad("one `file` field per upload"));
        }
        if 1 + images.len() + usize::from(main.is_some()) > FILES_MAX {
            return Err(ApiError::bad_request(
                ErrorCode::TooManyFiles,
                format!("an upload has at most {FILES_MAX} files"),
            ));
        }
        let path = field
            .file_name()
            .map(str::to_owned)
            .ok_or_else(|| bad(format!("the `{role}` field needs a file name")))?;
        let (content_type, cap) = if role == "file" {
            let (kind, content_type) = kinds::main_file(&path).map_err(bad)?;
            let cap = match kind {
                ArtifactKind::Document => DOCUMENT_MAX,
                ArtifactKind::Image => TOTAL_MAX,
            };
            (content_type, cap)
        } else {
            (kinds::image_path(&path).map_err(bad)?, TOTAL_MAX)
        };
        let mut bytes = Vec::new();
        while let Some(chunk) = field
            .chunk()
            .await
            .map_err(|e| bad(format!("the multipart body is broken: {}", e.body_text())))?
        {
            total += chunk.len();
            if total > TOTAL_MAX {
                return Err(too_large(format!(
                    "an artifact upload is at most {TOTAL_MAX} bytes of files"
                )));
            }
            if bytes.len() + chunk.len() > cap {
                return Err(too_large(format!(
                    "a document is at most {DOCUMENT_MAX} bytes"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        if !kinds::bytes_match(content_type, &bytes) {
            return Err(bad(format!(
                "{path} is not the {content_type} its name says"
            )));
        }
        let part = Part {
            sha256: hex::encode(Sha256::digest(&bytes)),
            path,
            content_type,
            bytes,
        };
        if role == "file" {
            main = Some(part);
        } else {
            if images.iter().any(|i| i.path == part.path) {
                return Err(bad(format!("{} is sent twice", part.path)));
            }
            images.push(part);
        }
    }
    let main = main.ok_or_else(|| bad("the upload has no `file` field"))?;
    let (kind, _) = kinds::main_file(&main.path).map_err(bad)?;
    if kind == ArtifactKind::Image && !images.is_empty() {
        return Err(bad("an image artifact takes no `image` fields"));
    }
    let mut files = vec![main];
    files.extend(images);
    Ok(Upload { kind, files })
}
