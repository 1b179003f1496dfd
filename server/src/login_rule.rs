//! The Login rule: shape, reserved names and derivation from an email.

/// Logins no one may take: they are the service's own top-level paths.
pub const RESERVED: &[&str] = &[
    "v1", "healthz", "login", "logout", "settings", "assets", "fonts", "new", "api", "app",
    "static", "orgs", "users", "docs", "install",
];

const MAX_LEN: usize = 39;

#[derive(Debug, PartialEq, Eq)]
pub enum LoginError {
    Shape,
    Reserved,
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::Shape => f.write_str(
                "a login is 1 to 39 letters, digits and single hyphens, with no hyphen at either end",
            ),
            LoginError::Reserved => f.write_str("that login is reserved"),
        }
    }
}

/// Whether `login` (already lower case) matches
/// `^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,38}$`.
pub fn is_valid(login: &str) -> bool {
    let b = login.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_LEN
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
        && !login.contains("--")
}

/// Lowers `input` and checks it against the rule.
pub fn normalize(input: &str) -> Result<String, LoginError> {
    let login = input.to_ascii_lowercase();
    if !is_valid(&login) {
        return Err(LoginError::Shape);
    }
    if RESERVED.contains(&login.as_str()) {
        return Err(LoginError::Reserved);
    }
    Ok(login)
}

/// The base of a login derived from an email's local part: lowered, every run of other
/// characters turned into one hyphen, trimmed, and short enough to take `-999`.
pub fn derive_base(email: &str) -> String {
    let local = email
        .split('@')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut base = String::new();
    for c in local.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            base.push(c);
        } else if !base.is_empty() && !base.ends_with('-') {
            base.push('-');
        }
    }
    base.truncate(MAX_LEN - 4);
    let base = base.trim_end_matches('-');
    if base.is_empty() {
        "user".to_owned()
    } else {
        base.to_owned()
    }
}

/// The first free login of `base`, `base-2` ... `base-999` (skipping reserved and
/// taken ones), else `None`: the caller then adds a random tail.
pub fn first_free(base: &str, taken: &[String]) -> Option<String> {
    std::iter::once(base.to_owned())
        .chain((2..=999).map(|n| format!("{base}-{n}")))
        .find(|c| !RESERVED.contains(&c.as_str()) && !taken.iter().any(|t| t == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape() {
        for ok in ["a", "ab-cd", "0x", &"a".repeat(39)] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "a_b", "A", &"a".repeat(40), "é"] {
            assert!(!is_valid(bad), "{bad}");
        }
        assert_eq!(normalize("Alice"), Ok("alice".into()));
        assert_eq!(normalize("Login"), Err(LoginError::Reserved));
    }

    #[test]
    fn derivation() {
        assert_eq!(derive_base("Jane.Doe+x@example.com"), "jane-doe-x");
        assert_eq!(derive_base("__@x"), "user");
        assert_eq!(derive_base(&format!("{}@x", "a".repeat(60))).len(), 35);
        assert_eq!(derive_base("api@x"), "api");
        assert_eq!(first_free("api", &[]), Some("api-2".into()));
        assert_eq!(
            first_free("jo", &["jo".into(), "jo-2".into()]),
            Some("jo-3".into())
        );
        let all: Vec<String> = std::iter::once("x".to_owned())
            .chain((2..=999).map(|n| format!("x-{n}")))
            .collect();
        assert_eq!(first_free("x", &all), None);
    }
}
