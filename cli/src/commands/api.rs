//! `svc api`: any route of the API with this machine's credential, as `gh api` does, so
//! a route is usable before it has a command of its own.

use std::io::{IsTerminal, Read};

use reqwest::Method;
use reqwest::blocking::Response;
use reqwest::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use serde_json::{Map, Value};
use svc_protocol::ApiErrorBody;

use crate::client::{Refusal, Session};
use crate::commands::Global;
use crate::error::{CommandError, Result};
use crate::terminal::{outln, write_out};

/// Call any API route with your credential and print the JSON answer
///
/// PATH is /v1/..., v1/... or a path relative to /v1 (monorepos/you/web), with a query
/// string if you like. Fields (-f, -F) make a JSON object body and the method POST
/// unless -X names another; with GET or --input they go into the query string instead.
/// The answer is printed as it came (pretty on a terminal), or filtered by --jq. A
/// refusal prints its body too and exits 1, or 70 when the server failed (5xx).
///
/// Examples:
///   svc api user
///   svc api monorepos/you/web/repos/api/branches --paginate
///   svc api -X POST monorepos -f name=web
///   svc api -X PATCH user -F name=null
///   svc api -X POST monorepos/you/web/repos --input repo.json
///   svc api monorepos --jq '.items[].full_name'
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The route: /v1/user, v1/user or user
    pub path: String,
    /// The HTTP method [default: GET, or POST when fields are given]
    #[arg(short = 'X', long = "method", value_name = "METHOD")]
    pub method: Option<String>,
    /// A string field KEY=VALUE (repeatable)
    #[arg(short = 'f', long = "raw-field", value_name = "KEY=VALUE")]
    pub raw_fields: Vec<String>,
    /// A typed field KEY=VALUE: true, false, null and numbers become JSON values, @FILE
    /// (@- for standard input) a file's text, anything else a string (repeatable)
    #[arg(short = 'F', long = "field", value_name = "KEY=VALUE")]
    pub fields: Vec<String>,
    /// The request body, as is, from FILE (- for standard input)
    #[arg(long, value_name = "FILE")]
    pub input: Option<String>,
    /// A request header "Name: value" (repeatable)
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Follow next_cursor to the last page and print one answer with every page's items
    #[arg(long)]
    pub paginate: bool,
}

pub fn run(global: &Global, args: &Args) -> Result<()> {
    let session = Session::open(global.server.as_deref())?;
    let mut fields = Vec::new();
    for raw in &args.raw_fields {
        let (key, value) = split_field(raw, "-f")?;
        fields.push((key, Value::String(value.to_owned())));
    }
    for typed in &args.fields {
        let (key, value) = split_field(typed, "-F")?;
        fields.push((key, typed_value(value)?));
    }
    let method = match &args.method {
        Some(m) => Method::from_bytes(m.to_ascii_uppercase().as_bytes())
            .map_err(|_| CommandError::user(format!("-X {m} is not an HTTP method")))?,
        None if fields.is_empty() || args.input.is_some() => Method::GET,
        None => Method::POST,
    };
    let headers = args
        .headers
        .iter()
        .map(|h| header(h))
        .collect::<Result<Vec<_>>>()?;
    let mut path = api_path(&args.path);
    let body = match &args.input {
        Some(file) => {
            add_query(&mut path, &fields);
            Some(read_input(file)?)
        }
        None if method == Method::GET || method == Method::HEAD => {
            add_query(&mut path, &fields);
            None
        }
        None if fields.is_empty() => None,
        None => {
            let object: Map<String, Value> = fields.into_iter().collect();
            Some(Value::Object(object).to_string().into_bytes())
        }
    };
    let call = Call {
        session: &session,
        method,
        headers,
        body,
    };
    if args.paginate {
        if call.method != Method::GET {
            return Err(CommandError::user("--paginate follows GET routes only"));
        }
        let merged = paginate(&call, &path)?;
        return print_json(global, &merged);
    }
    let response = call.send(&path)?;
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.contains("json"));
    let bytes = response
        .bytes()
        .map_err(|e| session.unreachable(&e))?
        .to_vec();
    if let Some(expr) = &global.jq {
        // The answer as it came, so its keys keep the server's order.
        for line in crate::jq::lines(expr, &bytes)? {
            outln!("{line}")?;
        }
        return Ok(());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value) if json && std::io::stdout().is_terminal() => print_json(global, &value),
        _ => {
            write_out(&bytes)?;
            if json && !bytes.ends_with(b"\n") {
                write_out(b"\n")?;
            }
            Ok(())
        }
    }
}

/// One request as the arguments describe it, sent to several paths when paginating.
struct Call<'a> {
    session: &'a Session,
    method: Method,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Option<Vec<u8>>,
}

impl Call<'_> {
    /// Sends to `path`; a non-2xx answer prints its body and becomes the error.
    fn send(&self, path: &str) -> Result<Response> {
        let mut request = self.session.request(self.method.clone(), path)?;
        if let Some(body) = &self.body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        // Given headers replace the defaults (the credential, the content type).
        request = request.headers(self.headers.iter().cloned().collect());
        let response = request.send().map_err(|e| self.session.unreachable(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let bytes = response.bytes().unwrap_or_default();
        write_out(&bytes)?;
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            write_out(b"\n")?;
        }
        let error = serde_json::from_slice::<ApiErrorBody>(&bytes)
            .ok()
            .map(|b| b.error);
        let mut error = self.session.refusal(Refusal { status, error });
        error.message = format!("{} (HTTP {})", error.message, status.as_u16());
        Err(error)
    }
}

/// `/v1/...`, `v1/...` or relative to `/v1`, as `/v1/...`.
fn api_path(path: &str) -> String {
    let path = path.trim_start_matches('/');
    let under_v1 = path == "v1" || path.starts_with("v1/") || path.starts_with("v1?");
    if under_v1 {
        format!("/{path}")
    } else {
        format!("/v1/{path}")
    }
}

fn split_field<'a>(field: &'a str, flag: &str) -> Result<(String, &'a str)> {
    match field.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value)),
        _ => Err(CommandError::user(format!(
            "{flag} {field} is not KEY=VALUE"
        ))),
    }
}

/// `-F`'s value as `gh` reads it: JSON literals and numbers typed, `@file` read.
fn typed_value(value: &str) -> Result<Value> {
    if let Some(file) = value.strip_prefix('@') {
        let bytes = read_input(file)?;
        return String::from_utf8(bytes)
            .map(Value::String)
            .map_err(|_| CommandError::user(format!("{file} is not UTF-8 text")));
    }
    Ok(match value {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        _ => match value.parse::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => match value.parse::<f64>() {
                Ok(x) if x.is_finite() => Value::from(x),
                _ => Value::String(value.to_owned()),
            },
        },
    })
}

fn read_input(file: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin().read_to_end(&mut bytes)?;
    } else {
        bytes = std::fs::read(file)
            .map_err(|e| CommandError::user(format!("cannot read {file}")).because(&e))?;
    }
    Ok(bytes)
}

fn header(text: &str) -> Result<(HeaderName, HeaderValue)> {
    let bad = || CommandError::user(format!("-H {text} is not \"Name: value\""));
    let (name, value) = text.split_once(':').ok_or_else(bad)?;
    let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| bad())?;
    let value = HeaderValue::from_str(value.trim()).map_err(|_| bad())?;
    Ok((name, value))
}

/// Appends the fields to `path`'s query string (JSON text for non-strings, as gh does).
fn add_query(path: &mut String, fields: &[(String, Value)]) {
    if fields.is_empty() {
        return;
    }
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in fields {
        match value {
            Value::String(s) => query.append_pair(key, s),
            Value::Null => query.append_pair(key, ""),
            other => query.append_pair(key, &other.to_string()),
        };
    }
    path.push(if path.contains('?') { '&' } else { '?' });
    path.push_str(&query.finish());
}

/// `path` with its `cursor` query parameter set to `cursor`.
fn with_cursor(path: &str, cursor: &str) -> String {
    let (base, query) = path.split_once('?').unwrap_or((path, ""));
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if key != "cursor" {
            out.append_pair(&key, &value);
        }
    }
    out.append_pair("cursor", cursor);
    format!("{base}?{}", out.finish())
}

/// Every page from `path` on, as the first page with each list (an array field) holding
/// the items of all pages and `next_cursor` null.
fn paginate(call: &Call<'_>, path: &str) -> Result<Value> {
    let page = |path: &str| -> Result<Map<String, Value>> {
        let response = call.send(path)?;
        match response.json::<Value>() {
            Ok(Value::Object(page)) => Ok(page),
            _ => Err(CommandError::user(format!(
                "{path} does not answer pages (a JSON object with next_cursor)"
            ))),
        }
    };
    let mut merged = page(path)?;
    let mut seen = Vec::new();
    while let Some(Value::String(cursor)) = merged.get("next_cursor").cloned() {
        // A server answering the same cursor again would loop forever.
        if seen.contains(&cursor) {
            return Err(CommandError::internal(format!(
                "{} answered the same next_cursor twice",
                call.session.server
            )));
        }
        let next = page(&with_cursor(path, &cursor))?;
        for (key, value) in next {
            match (merged.get_mut(&key), value) {
                (Some(Value::Array(items)), Value::Array(more)) => items.extend(more),
                (_, value) if key == "next_cursor" => {
                    merged.insert(key, value);
                }
                _ => {}
            }
        }
        seen.push(cursor);
    }
    Ok(Value::Object(merged))
}

/// JSON for people on a terminal (indented), compact for programs; with `--jq`, the
/// filter's results.
fn print_json(global: &Global, value: &Value) -> Result<()> {
    if global.jq.is_some() {
        return crate::commands::print_json(global, value);
    }
    let text = if std::io::stdout().is_terminal() {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    .map_err(|e| CommandError::internal("cannot encode the answer as JSON").because(&e))?;
    outln!("{text}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_under_v1() {
        assert_eq!(api_path("/v1/user"), "/v1/user");
        assert_eq!(api_path("v1/user"), "/v1/user");
        assert_eq!(api_path("monorepos/you/web"), "/v1/monorepos/you/web");
        assert_eq!(api_path("/monorepos?limit=1"), "/v1/monorepos?limit=1");
        assert_eq!(api_path("v1?x=1"), "/v1?x=1");
        assert_eq!(api_path("v1x/y"), "/v1/v1x/y");
    }

    #[test]
    fn typed_fields_are_json_values() {
        assert_eq!(typed_value("true").unwrap(), Value::Bool(true));
        assert_eq!(typed_value("null").unwrap(), Value::Null);
        assert_eq!(typed_value("42").unwrap(), Value::from(42));
        assert_eq!(typed_value("1.5").unwrap(), Value::from(1.5));
        assert_eq!(typed_value("web").unwrap(), Value::from("web"));
        assert_eq!(typed_value("NaN").unwrap(), Value::from("NaN"));
    }

    #[test]
    fn cursors_replace_cursors_and_fields_join_the_query() {
        assert_eq!(
            with_cursor("/v1/x?limit=2&cursor=a", "b c"),
            "/v1/x?limit=2&cursor=b+c"
        );
        let mut path = "/v1/x?limit=2".to_owned();
        add_query(
            &mut path,
            &[
                ("q".into(), Value::from("a&b")),
                ("n".into(), Value::from(3)),
            ],
        );
        assert_eq!(path, "/v1/x?limit=2&q=a%26b&n=3");
    }
}
