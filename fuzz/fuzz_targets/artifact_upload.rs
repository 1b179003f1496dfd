//! addArtifact's multipart body (`file` and `image` fields), read by the server's own
//! reader over an in-memory request, and the names and bytes it checks.
//!
//! Asserts: a refused upload is a 4xx, never a 500; an accepted one has its main file
//! first, of the kind its name says, every file's bytes of the type its name says with
//! their true SHA-256, within the limits, image paths distinct; and no accepted name or
//! path can leave the artifact's folder (no `..`, `.` or empty segment, nothing absolute,
//! no backslash, no control character, at most 255 bytes).

#![no_main]

use axum::body::Body;
use axum::http::{Request, header};
use libfuzzer_sys::fuzz_target;
use sha2::{Digest, Sha256};
use svc_protocol::artifact::ArtifactKind;
use svc_server::artifacts::{kinds, upload};

const BOUNDARY: &str = "svcfuzzboundary";

fuzz_target!(|data: &[u8]| {
    // The names alone: the whole input as one name or path.
    let name = String::from_utf8_lossy(data);
    if let Ok((kind, content_type)) = kinds::main_file(&name) {
        assert_safe_path(&name);
        assert!(!name.contains('/'), "a name is one file name: {name:?}");
        assert_eq!(
            kind == ArtifactKind::Image,
            content_type.starts_with("image/")
        );
    }
    if let Ok(content_type) = kinds::image_path(&name) {
        assert_safe_path(&name);
        assert!(content_type.starts_with("image/"), "{content_type}");
    }

    // The whole request: the input is the body (seeds use the boundary above).
    let request = Request::post("/upload")
        .header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header(header::CONTENT_LENGTH, data.len())
        .body(Body::from(data.to_vec()))
        .expect("a request");
    match svc_fuzz::block_on(upload::read(request)) {
        Err(e) => assert!(e.status.is_client_error(), "{} {}", e.status, e.message),
        Ok(up) => check_upload(&up),
    }
});

fn check_upload(up: &upload::Upload) {
    let main = up.files.first().expect("a main file");
    let (kind, content_type) = kinds::main_file(&main.path).expect("the main file's name");
    assert_eq!(kind, up.kind);
    assert_eq!(main.content_type, content_type);
    assert_eq!(up.name(), main.path);
    if kind == ArtifactKind::Image {
        assert_eq!(up.files.len(), 1, "an image artifact has no images");
    }
    let document_max = match kind {
        ArtifactKind::Document => upload::DOCUMENT_MAX,
        ArtifactKind::Image => upload::TOTAL_MAX,
    };
    assert!(main.bytes.len() <= document_max);
    assert!(up.files.len() <= upload::FILES_MAX);
    let total: usize = up.files.iter().map(|f| f.bytes.len()).sum();
    assert!(total <= upload::TOTAL_MAX);
    assert_eq!(up.size(), total as i64);
    for (i, f) in up.files.iter().enumerate() {
        assert_safe_path(&f.path);
        assert_eq!(
            f.sha256,
            hex::encode(Sha256::digest(&f.bytes)),
            "{}",
            f.path
        );
        assert!(kinds::bytes_match(f.content_type, &f.bytes), "{}", f.path);
        if i > 0 {
            assert_eq!(kinds::image_path(&f.path), Ok(f.content_type));
            let twice = up.files[1..i].iter().any(|g| g.path == f.path);
            assert!(!twice, "{} is sent twice", f.path);
        }
    }
}

/// What every accepted name or path is: relative, inside the artifact's folder, one way.
fn assert_safe_path(path: &str) {
    assert!(!path.is_empty() && path.len() <= 255, "{path:?}");
    assert!(!path.starts_with('/') && !path.contains('\\'), "{path:?}");
    assert!(!path.chars().any(char::is_control), "{path:?}");
    let b = path.as_bytes();
    assert!(
        !(b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'),
        "a drive letter: {path:?}"
    );
    for segment in path.split('/') {
        assert!(!matches!(segment, "" | "." | ".."), "{path:?}");
    }
}
