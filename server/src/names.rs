//! The Name rule for monorepos and the rule for repo paths.

use crate::error::{ApiError, ApiResult};
use svc_protocol::ErrorCode;

const MAX_NAME: usize = 39;

/// Lowers and checks a monorepo name: letters, digits, `.`, `_`, `-`; starts with a
/// letter or digit; no `--`; at most 39 characters; `sessions` is reserved.
pub fn monorepo_name(input: &str) -> ApiResult<String> {
    let name = input.trim().to_ascii_lowercase();
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && !name.contains("--")
        && !name.ends_with(".git");
    if !ok {
        return Err(ApiError::bad_request(
            ErrorCode::BadName,
            "a monorepo name is 1 to 39 letters, digits, '.', '_' or '-', starting with a letter or digit, without '--' or a .git ending",
        ));
    }
    if name == "sessions" {
        return Err(ApiError::bad_request(
            ErrorCode::ReservedName,
            "the name sessions is reserved",
        ));
    }
    Ok(name)
}

/// Checks a repo path (`services/api`) and answers it with its name (`services-api`).
pub fn repo_path(input: &str) -> ApiResult<(String, String)> {
    let path = input.trim().trim_matches('/');
    let segment_ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 100
            && !s.starts_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let name = path.replace('/', "-").to_ascii_lowercase();
    let ok = path.len() <= 200
        && path.split('/').all(segment_ok)
        && !name.contains("--")
        && !name.ends_with(".git")
        && name != "meta";
    if !ok {
        return Err(ApiError::bad_request(
            ErrorCode::BadPath,
            "a repo path is folders of letters, digits, '.', '_' or '-' (not starting with '.'), joined by '/'; its name (the path with '/' as '-') may not contain '--', end in .git or be meta",
        ));
    }
    Ok((path.to_owned(), name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monorepo_names() {
        assert_eq!(monorepo_name("My.Repo_1").unwrap(), "my.repo_1");
        for bad in [
            "",
            "-a",
            ".a",
            "a--b",
            "a b",
            "a/b",
            "x.git",
            &"a".repeat(40),
        ] {
            assert_eq!(
                monorepo_name(bad).unwrap_err().code,
                ErrorCode::BadName,
                "{bad}"
            );
        }
        assert_eq!(
            monorepo_name("Sessions").unwrap_err().code,
            ErrorCode::ReservedName
        );
    }

    #[test]
    fn repo_paths() {
        assert_eq!(
            repo_path("services/api").unwrap(),
            ("services/api".into(), "services-api".into())
        );
        for bad in [
            "", "a//b", "../x", ".hidden", "a-/b", "meta", "a/b.git", "a b",
        ] {
            assert!(repo_path(bad).is_err(), "{bad}");
        }
    }
}
