//! Issue search text: titles, bodies and queries folded alike (lower case, accents
//! removed) before either database sees them, so both match the same words; and a
//! query turned into the backend's own syntax from quoted words only, so user text never
//! reaches query syntax.

use svc_protocol::ErrorCode;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::error::ApiError;

/// At most this many words in a query.
pub const MAX_WORDS: usize = 10;

/// Lower case, without accents (`Ünïcödé` → `unicode`).
pub fn fold(text: &str) -> String {
    text.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of a query: folded runs of letters and digits.
fn words(q: &str) -> Vec<String> {
    fold(q)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Which database's syntax to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// SQLite FTS5: `"word" "word" "last"*`.
    Fts5,
    /// PostgreSQL `to_tsquery('simple', ...)`: `'word' & 'last':*`.
    TsQuery,
}

/// The query for `q`: every word must appear, the last as a prefix. None when `q` has no
/// words; 400 `bad_request` over [`MAX_WORDS`].
pub fn query(q: &str, syntax: Syntax) -> Result<Option<String>, ApiError> {
    let words = words(q);
    if words.len() > MAX_WORDS {
        return Err(ApiError::bad_request(
            ErrorCode::BadRequest,
            format!("a search has at most {MAX_WORDS} words"),
        ));
    }
    let Some((last, rest)) = words.split_last() else {
        return Ok(None);
    };
    // Words are letters and digits only, so the quotes cannot be closed early.
    Ok(Some(match syntax {
        Syntax::Fts5 => rest
            .iter()
            .map(|w| format!("\"{w}\""))
            .chain([format!("\"{last}\"*")])
            .collect::<Vec<_>>()
            .join(" "),
        Syntax::TsQuery => rest
            .iter()
            .map(|w| format!("'{w}'"))
            .chain([format!("'{last}':*")])
            .collect::<Vec<_>>()
            .join(" & "),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_and_case_fold() {
        assert_eq!(fold("Crème BRÛLÉE"), "creme brulee");
    }

    #[test]
    fn queries_are_quoted_words_with_a_prefix_last() {
        let q = r#"Crash "in* OR parser:"#;
        assert_eq!(
            query(q, Syntax::Fts5).unwrap().as_deref(),
            Some(r#""crash" "in" "or" "parser"*"#)
        );
        assert_eq!(
            query(q, Syntax::TsQuery).unwrap().as_deref(),
            Some("'crash' & 'in' & 'or' & 'parser':*")
        );
        assert_eq!(query(" -- ", Syntax::Fts5).unwrap(), None);
        assert!(query("a b c d e f g h i j k", Syntax::Fts5).is_err());
        assert!(query("a b c d e f g h i j", Syntax::Fts5).is_ok());
    }
}
