//! The error statuses every route shares, added to the generated OpenAPI document in one
//! place: they follow from what an operation takes (parameters, a JSON body, a credential),
//! so deriving them here keeps the document exact without repeating them on each route.

use serde_json::{Value, json};

/// Methods whose operations a path item may hold.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Adds to each operation the shared statuses it can answer and does not list yet, and
/// gives each response that a route lists without words a description (OpenAPI requires
/// one): the shared meaning of an error status, else the status's reason phrase.
pub fn complete(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        for method in METHODS {
            if let Some(op) = item.get_mut(method) {
                let shared = shared_statuses(path, method, op);
                for &(status, why) in &shared {
                    add_response(op, status, why);
                }
                describe(op, &shared);
            }
        }
    }
}

/// The shared statuses one operation can answer, with what each means there.
fn shared_statuses(path: &str, method: &str, op: &Value) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let has_params = op["parameters"].as_array().is_some_and(|p| !p.is_empty());
    let json_body = op["requestBody"]["content"]
        .get("application/json")
        .is_some();
    if has_params || json_body {
        out.push((
            "400",
            "bad_request: a path, query or body that does not parse or is out of range",
        ));
    }
    // Public operations say `security: [{}]`; the others need a credential, and a write
    // that takes the session cookie also needs the page's own `Origin`.
    let requirements = op["security"].as_array();
    let public = requirements.is_some_and(|s| {
        s.iter()
            .any(|r| r.as_object().is_some_and(|r| r.is_empty()))
    });
    // Without its own `security`, an operation takes the document's: credential or session.
    let takes_session =
        requirements.is_none_or(|s| s.iter().any(|r| r.get(super::SESSION).is_some()));
    if !public {
        out.push(("401", "unauthorized: no valid credential"));
        if takes_session && !matches!(method, "get" | "head") {
            out.push((
                "403",
                "bad_origin: a session-cookie write from a page of another origin",
            ));
        }
    }
    if path.contains('{') {
        out.push(("404", "not_found: unknown, or not visible to the caller"));
    }
    let counted = axum::http::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
        .is_ok_and(|m| crate::rate_limit::class(&m, path).is_some());
    if counted {
        out.push((
            "429",
            "rate_limited: over the server's request rate for this address or credential; \
             `Retry-After` gives the seconds to wait",
        ));
    }
    if json_body {
        out.push(("413", "too_large: a body over the size limit"));
        if op["requestBody"]["required"] == Value::Bool(true) {
            out.push((
                "415",
                "unsupported_media_type: the body is not sent as application/json",
            ));
        }
        out.push((
            "422",
            "bad_request: JSON of the wrong shape (not an object, or a field missing or of the wrong type)",
        ));
    }
    out
}

/// Adds one error response unless the operation documents that status already.
fn add_response(op: &mut Value, status: &str, description: &str) {
    let Some(responses) = op
        .as_object_mut()
        .map(|o| o.entry("responses").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    responses.entry(status).or_insert_with(|| {
        json!({
            "description": description,
            "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/ApiErrorBody"}
            }}
        })
    });
}

/// Fills the description of each response listed without one.
fn describe(op: &mut Value, shared: &[(&str, &str)]) {
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else {
            continue;
        };
        if response
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.is_empty())
        {
            continue;
        }
        let words = shared
            .iter()
            .find(|(s, _)| s == status)
            .map(|(_, why)| (*why).to_owned())
            .or_else(|| error_meaning(status).map(str::to_owned))
            .or_else(|| {
                status
                    .parse::<u16>()
                    .ok()
                    .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                    .and_then(|s| s.canonical_reason())
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| format!("status {status}"));
        response.insert("description".to_owned(), Value::String(words));
    }
}

/// What an error status means wherever a route lists it without saying.
fn error_meaning(status: &str) -> Option<&'static str> {
    Some(match status {
        "400" => "bad_request (or the route's own code): a request that cannot be done as sent",
        "401" => "unauthorized: no valid credential",
        "403" => "forbidden: the caller may not do this (the body's `code` says why)",
        "404" => "not_found: unknown, or not visible to the caller",
        "409" => {
            "conflict: the state changed or does not allow this (the body's `code` says which)"
        }
        "422" => "bad_request: JSON of the wrong shape, or a value the route refuses",
        "502" => "upstream: a service this route depends on failed",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses(op: &Value) -> Vec<&str> {
        op["responses"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    #[test]
    fn a_json_write_with_a_path_gets_every_shared_status() {
        let mut doc = json!({"paths": {"/v1/a/{b}": {"patch": {
            "parameters": [{"name": "b", "in": "path"}],
            "requestBody": {"required": true, "content": {"application/json": {}}},
            "responses": {"200": {"description": "ok"}, "404": {"description": "kept"}}
        }}}});
        complete(&mut doc);
        let op = &doc["paths"]["/v1/a/{b}"]["patch"];
        let mut got = statuses(op);
        got.sort_unstable();
        assert_eq!(
            got,
            [
                "200", "400", "401", "403", "404", "413", "415", "422", "429"
            ]
        );
        assert_eq!(op["responses"]["404"]["description"], "kept");
    }

    #[test]
    fn every_response_gets_a_description() {
        let mut doc = json!({"paths": {"/v1/a/{b}": {"get": {
            "parameters": [{"name": "b", "in": "path"}],
            "responses": {"200": {}, "404": {"content": {}}, "204": {"description": ""}}
        }}}});
        complete(&mut doc);
        let op = &doc["paths"]["/v1/a/{b}"]["get"];
        assert_eq!(op["responses"]["200"]["description"], "OK");
        assert_eq!(op["responses"]["204"]["description"], "No Content");
        assert!(
            op["responses"]["404"]["description"]
                .as_str()
                .unwrap()
                .starts_with("not_found")
        );
    }

    #[test]
    fn a_public_read_without_parameters_gets_none() {
        let mut doc = json!({"paths": {"/healthz": {"get": {
            "security": [{}],
            "responses": {"200": {"description": "ok"}}
        }}}});
        complete(&mut doc);
        assert_eq!(statuses(&doc["paths"]["/healthz"]["get"]), ["200"]);
    }

    #[test]
    fn an_optional_body_is_never_refused_for_its_content_type() {
        let mut doc = json!({"paths": {"/v1/login/device": {"post": {
            "security": [{}],
            "requestBody": {"required": false, "content": {"application/json": {}}},
            "responses": {"200": {"description": "ok"}}
        }}}});
        complete(&mut doc);
        let mut got = statuses(&doc["paths"]["/v1/login/device"]["post"]);
        got.sort_unstable();
        // Starting a device login counts as signing in: 429 over the rate.
        assert_eq!(got, ["200", "400", "413", "422", "429"]);
    }
}
