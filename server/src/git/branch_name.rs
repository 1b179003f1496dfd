//! Branch names as git itself allows them (`git check-ref-format --branch`), checked in
//! process so that a route never makes a branch git would refuse or read differently.

/// Why `name` cannot name a new branch, or `None` when it can.
///
/// Git's rules (`check_refname_format` on `refs/heads/<name>`, plus what `--branch`
/// adds: no leading `-`, not `HEAD`), and two of ours: not `@` (git reads it as `HEAD`)
/// and not under `refs/` (a branch `refs/heads/x` reads as another ref in every tool).
pub fn invalid_reason(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name == "HEAD" || name == "@" {
        return Some("it names HEAD");
    }
    if name.starts_with('-') {
        return Some("it starts with '-'");
    }
    if name.starts_with("refs/") {
        return Some("it starts with 'refs/'");
    }
    if name.contains("..") {
        return Some("it contains '..'");
    }
    if name.contains("@{") {
        return Some("it contains '@{'");
    }
    if let Some(c) = name.chars().find(|&c| forbidden(c)) {
        return Some(if c.is_ascii_control() {
            "it contains a control character"
        } else if c == ' ' {
            "it contains a space"
        } else {
            "it contains one of ~ ^ : ? * [ \\"
        });
    }
    if name.ends_with('.') {
        return Some("it ends with '.'");
    }
    for component in name.split('/') {
        if component.is_empty() {
            return Some("it has an empty part (a leading, trailing or double '/')");
        }
        if component.starts_with('.') {
            return Some("a part starts with '.'");
        }
        if component.ends_with(".lock") {
            return Some("a part ends with '.lock'");
        }
    }
    None
}

/// Characters git refuses anywhere in a ref name.
fn forbidden(c: char) -> bool {
    c.is_ascii_control() || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\')
}

#[cfg(test)]
mod tests {
    use super::invalid_reason;
    use std::process::Command;

    /// Names git refuses or allows, and what we say of each.
    const TABLE: &[&str] = &[
        "main",
        "feature/x",
        "a.lock.b",
        "HEAD/x",
        "x/HEAD",
        "FETCH_HEAD",
        "a@b",
        "@x",
        "lock",
        "a/-b",
        "héllo",
        "v1.2",
        "HEAD",
        "-x",
        "a..b",
        "@{-1}",
        "a@{b",
        "x.lock",
        "x.lock/y",
        "a/b.lock",
        ".lock",
        "a/.b",
        ".a",
        "a.",
        "a/",
        "/a",
        "a//b",
        "",
        "a b",
        "a~b",
        "a^",
        "a:b",
        "a?",
        "a*",
        "a[b",
        "a\\b",
        "a\tb",
        "a\u{1}b",
        "a\u{7f}b",
        "a\nb",
    ];

    /// Names git allows that we refuse on purpose (see [`invalid_reason`]).
    const STRICTER: &[&str] = &["@", "refs/heads/x", "refs/x"];

    fn git_allows(name: &str) -> bool {
        let out = Command::new("git")
            .args(["check-ref-format", "--branch", name])
            .current_dir(std::env::temp_dir())
            .env("GIT_CEILING_DIRECTORIES", std::env::temp_dir())
            .output()
            .expect("git runs");
        out.status.success()
    }

    #[test]
    fn agrees_with_git_check_ref_format() {
        for name in TABLE {
            assert_eq!(
                invalid_reason(name).is_none(),
                git_allows(name),
                "{name:?}: ours {:?}",
                invalid_reason(name)
            );
        }
        for name in STRICTER {
            assert!(git_allows(name), "{name:?}");
            assert!(invalid_reason(name).is_some(), "{name:?}");
        }
    }
}
