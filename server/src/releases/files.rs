//! Release file bytes on disk, one folder per repo (`<data dir>/releases/<repo id>/`, gone
//! with the repo): uploads streamed to `<id>.part` there with
//! the SHA-256 computed on the way (never the whole file in memory) and renamed into
//! place only when whole and matching; downloads streamed with `Range` for resuming.

use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use svc_protocol::ErrorCode;
use svc_protocol::release::FILE_MAX;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

use crate::error::{ApiError, ApiResult};
use crate::store::releases::FileRow;

/// Bytes read from disk per chunk of a download.
const CHUNK: usize = 256 * 1024;

/// Where release files live.
pub fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("releases")
}

/// A blob's file; a blob is named `<repo id>/<id>`.
pub fn blob_path(data_dir: &Path, blob: &str) -> PathBuf {
    dir(data_dir).join(blob)
}

/// Removes a repo's release files (the repo is deleted); a missing folder is removed.
pub async fn remove_repo(data_dir: &Path, repo_id: &str) {
    match tokio::fs::remove_dir_all(dir(data_dir).join(repo_id)).await {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::error!(repo = repo_id, error = %e, "cannot remove release files"),
    }
}

/// How old bytes no row names must be before a sweep on a shared database takes them: an
/// upload in flight on another server is younger.
const LEFTOVER_AGE: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Removes what uploads cut off by a crash left: `.part` files, and whole blobs no row
/// names (the crash fell between the rename and the commit). `all` (a SQLite server, the
/// only process, before it serves): every one; else only those older than a day, as
/// another server may be mid-upload. Failures only leave bytes behind.
pub async fn remove_leftovers(store: &crate::store::Store, data_dir: &Path, all: bool) {
    let Ok(mut repos) = tokio::fs::read_dir(dir(data_dir)).await else {
        return;
    };
    while let Ok(Some(repo)) = repos.next_entry().await {
        let repo_id = repo.file_name().to_string_lossy().into_owned();
        let named: std::collections::HashSet<String> = match store.read().await {
            Ok(mut conn) => match crate::store::releases::blobs_of(conn.h(), &repo_id).await {
                Ok(blobs) => blobs.into_iter().collect(),
                Err(_) => continue,
            },
            Err(_) => return,
        };
        let Ok(mut files) = tokio::fs::read_dir(repo.path()).await else {
            continue;
        };
        while let Ok(Some(file)) = files.next_entry().await {
            let name = file.file_name().to_string_lossy().into_owned();
            if named.contains(&format!("{repo_id}/{name}")) {
                continue;
            }
            let old = file
                .metadata()
                .await
                .and_then(|m| m.modified())
                .is_ok_and(|at| at.elapsed().unwrap_or_default() > LEFTOVER_AGE);
            if all || old {
                tracing::info!(repo = %repo_id, file = %name, "removing a release file an upload left");
                let _ = tokio::fs::remove_file(file.path()).await;
            }
        }
    }
}

/// Removes blobs no row names any more (after the commit that let go of them); a
/// failure only leaves bytes behind.
pub async fn remove_blobs(data_dir: &Path, blobs: &[String]) {
    for blob in blobs {
        if let Err(e) = tokio::fs::remove_file(blob_path(data_dir, blob)).await {
            tracing::warn!(blob, error = %e, "cannot remove a release file's bytes");
        }
    }
}

/// The declared length of an upload: 411 without `Content-Length`, 413 over
/// [`FILE_MAX`] (before a byte is read).
pub fn declared_length(headers: &HeaderMap) -> ApiResult<u64> {
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::LENGTH_REQUIRED,
                ErrorCode::LengthRequired,
                "an upload needs Content-Length",
            )
        })?;
    if length > FILE_MAX {
        return Err(too_large());
    }
    Ok(length)
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        format!("a release file is at most {FILE_MAX} bytes"),
    )
}

/// The `X-Svc-Sha256` an upload is checked against, if sent (64 hex digits).
pub fn expected_sha256(headers: &HeaderMap) -> ApiResult<Option<String>> {
    let Some(value) = headers.get("x-svc-sha256") else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if value.len() != 64 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            "X-Svc-Sha256 is the SHA-256 of the bytes, 64 hex digits",
        ));
    }
    Ok(Some(value))
}

/// An upload taken whole: its blob is in place, for a row to name.
#[derive(Debug)]
pub struct Received {
    pub blob: String,
    pub size: u64,
    pub sha256: String,
}

/// A file removed when dropped unless kept: an upload that breaks off, or is refused,
/// leaves nothing.
struct Partial(Option<PathBuf>);

impl Drop for Partial {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Streams `body` (`length` bytes, as declared) to a new blob, computing its SHA-256 on
/// the way; a short or long body, or one whose digest is not `expected`, keeps nothing.
pub async fn receive(
    data_dir: &Path,
    repo_id: &str,
    body: Body,
    length: u64,
    expected: Option<&str>,
) -> ApiResult<Received> {
    let dir = dir(data_dir).join(repo_id);
    tokio::fs::create_dir_all(&dir)
        .await
        .map_err(ApiError::internal)?;
    let id = crate::token::new_id("");
    let blob = format!("{repo_id}/{id}");
    let part = dir.join(format!("{id}.part"));
    let mut guard = Partial(Some(part.clone()));
    let mut file = tokio::fs::File::create(&part)
        .await
        .map_err(ApiError::internal)?;
    let mut hasher = Sha256::new();
    let mut size: u64 = 0;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(
                ErrorCode::BadRequest,
                format!("the upload broke off: {e}; nothing was kept"),
            )
        })?;
        size += chunk.len() as u64;
        if size > FILE_MAX {
            return Err(too_large());
        }
        if size > length {
            return Err(ApiError::bad_request(
                ErrorCode::BadRequest,
                "the body is longer than its Content-Length; nothing was kept",
            ));
        }
        hasher.update(&chunk);
        file.write_all(&chunk).await.map_err(ApiError::internal)?;
        crate::crash::point("release.receiving");
    }
    if size != length {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("the upload broke off after {size} of {length} bytes; nothing was kept"),
        ));
    }
    file.flush().await.map_err(ApiError::internal)?;
    drop(file);
    let sha256 = hex::encode(hasher.finalize());
    if let Some(expected) = expected.filter(|e| *e != sha256) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::Sha256Mismatch,
            format!("the bytes' SHA-256 is {sha256}, not {expected}; nothing was kept"),
        ));
    }
    let path = blob_path(data_dir, &blob);
    tokio::fs::rename(&part, &path)
        .await
        .map_err(ApiError::internal)?;
    // Kept from here: the caller's transaction names it, or removes it on failure.
    guard.0 = None;
    Ok(Received { blob, size, sha256 })
}

/// The range of a `Range: bytes=...` header over `len` bytes: `Ok(None)` for the whole
/// file (no header, a multi-range or one not in bytes), `Err` when unsatisfiable.
fn range(headers: &HeaderMap, len: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(spec) = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().strip_prefix("bytes="))
    else {
        return Ok(None);
    };
    if spec.contains(',') {
        return Ok(None);
    }
    let Some((start, end)) = spec.trim().split_once('-') else {
        return Ok(None);
    };
    let (start, end) = (start.trim(), end.trim());
    let parsed = match (start.is_empty(), end.is_empty()) {
        // The last N bytes.
        (true, false) => {
            let n: u64 = end.parse().map_err(|_| ())?;
            if n == 0 {
                return Err(());
            }
            (len.saturating_sub(n), len.saturating_sub(1))
        }
        (false, _) => {
            let start: u64 = start.parse().map_err(|_| ())?;
            let end: u64 = if end.is_empty() {
                len.saturating_sub(1)
            } else {
                end.parse::<u64>()
                    .map_err(|_| ())?
                    .min(len.saturating_sub(1))
            };
            (start, end)
        }
        (true, true) => return Ok(None),
    };
    if len == 0 || parsed.0 >= len || parsed.0 > parsed.1 {
        return Err(());
    }
    Ok(Some(parsed))
}

/// Answers a download of `file`: the whole file, or the `Range` asked for (206) unless
/// `If-Range` names another version; 304 for a matching `If-None-Match`.
pub async fn serve(data_dir: &Path, file: &FileRow, headers: &HeaderMap) -> ApiResult<Response> {
    let etag = format!("\"{}\"", file.sha256);
    let matches = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
    };
    let mut out = HeaderMap::new();
    crate::served::protect(&mut out);
    let set = |out: &mut HeaderMap, name: header::HeaderName, value: &str| {
        if let Ok(v) = HeaderValue::from_str(value) {
            out.insert(name, v);
        }
    };
    set(&mut out, header::ETAG, &etag);
    set(&mut out, header::ACCEPT_RANGES, "bytes");
    set(
        &mut out,
        "x-svc-sha256".parse().map_err(ApiError::internal)?,
        &file.sha256,
    );
    if matches(header::IF_NONE_MATCH) {
        return Ok((StatusCode::NOT_MODIFIED, out).into_response());
    }
    let mut disk = tokio::fs::File::open(blob_path(data_dir, &file.blob))
        .await
        .map_err(ApiError::internal)?;
    let len = disk.metadata().await.map_err(ApiError::internal)?.len();
    set(&mut out, header::CONTENT_TYPE, "application/octet-stream");
    set(
        &mut out,
        header::CONTENT_DISPOSITION,
        &disposition(&file.name),
    );
    let fresh = headers
        .get(header::IF_RANGE)
        .is_none_or(|_| matches(header::IF_RANGE));
    let wanted = if fresh { range(headers, len) } else { Ok(None) };
    let (status, start, count) = match wanted {
        Ok(None) => (StatusCode::OK, 0, len),
        Ok(Some((start, end))) => {
            set(
                &mut out,
                header::CONTENT_RANGE,
                &format!("bytes {start}-{end}/{len}"),
            );
            (StatusCode::PARTIAL_CONTENT, start, end - start + 1)
        }
        Err(()) => {
            set(&mut out, header::CONTENT_RANGE, &format!("bytes */{len}"));
            return Ok((StatusCode::RANGE_NOT_SATISFIABLE, out).into_response());
        }
    };
    if start > 0 {
        disk.seek(std::io::SeekFrom::Start(start))
            .await
            .map_err(ApiError::internal)?;
    }
    set(&mut out, header::CONTENT_LENGTH, &count.to_string());
    let stream = tokio_util::io::ReaderStream::with_capacity(disk.take(count), CHUNK);
    Ok((status, out, Body::from_stream(stream)).into_response())
}

/// `attachment` with the name: a plain ASCII fallback and the exact name (RFC 6266).
fn disposition(name: &str) -> String {
    let plain: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let exact: String = name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{exact}")
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header};

    use super::{disposition, range};

    fn with_range(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::RANGE, HeaderValue::from_str(v).expect("header"));
        h
    }

    #[test]
    fn ranges_read_as_rfc_9110_says() {
        assert_eq!(range(&HeaderMap::new(), 10), Ok(None));
        assert_eq!(range(&with_range("bytes=0-4"), 10), Ok(Some((0, 4))));
        assert_eq!(range(&with_range("bytes=4-"), 10), Ok(Some((4, 9))));
        assert_eq!(range(&with_range("bytes=-3"), 10), Ok(Some((7, 9))));
        assert_eq!(range(&with_range("bytes=5-100"), 10), Ok(Some((5, 9))));
        assert_eq!(range(&with_range("bytes=10-"), 10), Err(()));
        assert_eq!(range(&with_range("bytes=5-2"), 10), Err(()));
        assert_eq!(range(&with_range("bytes=0-1,4-5"), 10), Ok(None));
        assert_eq!(range(&with_range("lines=0-1"), 10), Ok(None));
    }

    #[test]
    fn a_disposition_quotes_nothing_it_should_not() {
        assert_eq!(
            disposition("a \"b\".tar.gz"),
            "attachment; filename=\"a _b_.tar.gz\"; filename*=UTF-8''a%20%22b%22.tar.gz"
        );
        assert_eq!(
            disposition("é.zip"),
            "attachment; filename=\"_.zip\"; filename*=UTF-8''%C3%A9.zip"
        );
    }
}
