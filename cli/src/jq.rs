//! `--jq EXPR`: the JSON a command prints, filtered as `gh --jq` does: each result on a
//! line of its own, a string as its bare text, anything else as compact JSON.
//!
//! The filter is jaq's (jaq-core, jaq-std, jaq-json): a maintained implementation of jq's
//! language and standard library in Rust, so svc needs no C library and no `jq` on the
//! machine, and a filter's mistakes come back as values to report, never as a crash.

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::Val;

use crate::error::{CommandError, Result};

/// A `--jq` expression, checked when the arguments are read.
#[derive(Debug, Clone)]
pub struct Expr(String);

/// clap's parser for `--jq`: an expression jaq cannot compile is a usage error (exit 2)
/// carrying jaq's message.
pub fn parse(text: &str) -> std::result::Result<Expr, String> {
    compile(text, |_| ())?;
    Ok(Expr(text.to_owned()))
}

/// The outputs of the filter on the JSON text `json`, each as the line it prints. Text,
/// not a parsed value, so objects keep their keys in the order they came.
pub fn lines(expr: &Expr, json: &[u8]) -> Result<Vec<String>> {
    let input = jaq_json::read::parse_single(json)
        .map_err(|e| CommandError::user("--jq: the answer is not JSON").because(&e))?;
    compile(&expr.0, |filter| {
        let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
        filter
            .id
            .run((ctx, input))
            .map(unwrap_valr)
            .map(|out| match out {
                Ok(Val::TStr(text)) => Ok(String::from_utf8_lossy(&text).into_owned()),
                Ok(other) => Ok(other.to_string()),
                Err(e) => Err(CommandError::user(format!("--jq {}: {e}", expr.0))),
            })
            .collect()
    })
    .map_err(CommandError::internal)?
}

/// Where in the expression jaq stopped: the rest of it from there (its start, when long).
fn place(rest: &str) -> String {
    if rest.is_empty() {
        return "at the end".to_owned();
    }
    let shown: String = rest.chars().take(20).collect();
    match shown.len() < rest.len() {
        true => format!("at {shown:?}..."),
        false => format!("at {shown:?}"),
    }
}

/// Loads and compiles `code` with jq's standard definitions, then hands the filter to
/// `then`; the error is jaq's complaint as one line.
fn compile<T>(
    code: &str,
    then: impl FnOnce(&jaq_core::compile::Filter<jaq_core::Native<data::JustLut<Val>>>) -> T,
) -> std::result::Result<T, String> {
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let arena = Arena::default();
    let modules = Loader::new(defs)
        .load(&arena, File { code, path: () })
        .map_err(|errors| {
            let mut said = Vec::new();
            for (_, error) in errors {
                match error {
                    jaq_core::load::Error::Io(e) => {
                        said.extend(e.into_iter().map(|(path, why)| format!("{path}: {why}")));
                    }
                    jaq_core::load::Error::Lex(e) => {
                        said.extend(e.into_iter().map(|(expect, at)| {
                            format!("expected {} {}", expect.as_str(), place(at))
                        }))
                    }
                    jaq_core::load::Error::Parse(e) => {
                        said.extend(e.into_iter().map(|(expect, at)| {
                            format!("expected {} {}", expect.as_str(), place(at))
                        }))
                    }
                }
            }
            said.join("; ")
        })?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            errors
                .into_iter()
                .flat_map(|(_, e)| e)
                .map(|(name, kind)| format!("undefined {} {name}", kind.as_str()))
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    Ok(then(&filter))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_print_bare_and_the_rest_as_json() {
        let value = br#"{"items": [{"name": "web", "n": 2}, {"name": "api", "n": 3}]}"#;
        let expr = parse(".items[].name").unwrap();
        assert_eq!(lines(&expr, value).unwrap(), ["web", "api"]);
        let expr = parse(".items[0]").unwrap();
        assert_eq!(lines(&expr, value).unwrap(), [r#"{"name":"web","n":2}"#]);
        let expr = parse("[.items[].n] | add").unwrap();
        assert_eq!(lines(&expr, value).unwrap(), ["5"]);
        let expr = parse(".items | map(select(.n > 2)) | length").unwrap();
        assert_eq!(lines(&expr, value).unwrap(), ["1"]);
    }

    #[test]
    fn a_bad_expression_says_why() {
        assert!(parse(".items[").unwrap_err().contains("expected"));
        assert!(
            parse("nosuchfilter")
                .unwrap_err()
                .contains("undefined filter")
        );
    }
}
