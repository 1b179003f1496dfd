//! Secrets: credential tokens, ids and codes, from the operating system's CSPRNG.

use sha2::{Digest, Sha256};

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/// RFC 8628 section 6.1: consonants only, so no word is spelled and none is misread.
const USER_CODE_LETTERS: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ";

/// The credential token prefix, so leaked tokens are recognisable by scanners.
pub const PREFIX: &str = "svc_";

/// `len` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias).
fn random_chars(alphabet: &[u8], len: usize) -> String {
    let limit = 256 - 256 % alphabet.len();
    let mut out = String::with_capacity(len);
    let mut buf = [0u8; 64];
    while out.len() < len {
        getrandom::fill(&mut buf).expect("the operating system's random source failed");
        for &b in &buf {
            if usize::from(b) < limit && out.len() < len {
                out.push(char::from(alphabet[usize::from(b) % alphabet.len()]));
            }
        }
    }
    out
}

/// A new credential token: `svc_` and 43 base62 characters (256 bits).
pub fn new_token() -> String {
    format!("{PREFIX}{}", random_chars(BASE62, 43))
}

/// A random secret for flows (device codes, OAuth state, nonce, PKCE verifier).
pub fn new_secret() -> String {
    random_chars(BASE62, 43)
}

/// What is stored of a token: its SHA-256. Tokens carry 256 random bits, so a fast
/// hash is as strong as a slow one here and keeps the per-request check cheap.
pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A permanent id: `prefix` and 16 hex characters.
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system's random source failed");
    format!("{prefix}{}", hex::encode(bytes))
}

/// A device-flow user code, shown `ABCD-EFGH`.
pub fn new_user_code() -> String {
    let letters = random_chars(USER_CODE_LETTERS, 8);
    format!("{}-{}", &letters[..4], &letters[4..])
}

/// A user code as typed (any case, with or without the hyphen or spaces), normalised.
pub fn normalize_user_code(input: &str) -> Option<String> {
    let letters: String = input
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (letters.len() == 8 && letters.bytes().all(|b| USER_CODE_LETTERS.contains(&b)))
        .then(|| format!("{}-{}", &letters[..4], &letters[4..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_prefixed_and_long() {
        let t = new_token();
        assert!(t.starts_with("svc_"));
        assert_eq!(t.len(), 47);
        assert_ne!(t, new_token());
    }

    #[test]
    fn user_codes_normalise() {
        let code = new_user_code();
        assert_eq!(
            normalize_user_code(&code.to_lowercase().replace('-', " ")),
            Some(code)
        );
        assert_eq!(
            normalize_user_code("ABCD-EFGH"),
            None,
            "vowels are not in the alphabet"
        );
        assert_eq!(normalize_user_code("BCDF"), None);
    }
}
