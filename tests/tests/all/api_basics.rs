//! The API's ground rules: the error shape, health, and a complete OpenAPI document that
//! matches its committed snapshot.

use std::collections::BTreeSet;
use std::path::Path;

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json, snapshot};

#[tokio::test]
async fn health_answers() {
    let app = TestApp::start().await;
    let body: Value = expect_json(
        app.request(Method::GET, "/healthz").send().await.unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(body["ok"], true);
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn every_error_has_the_error_shape() {
    let app = TestApp::start().await;
    let made = app.bootstrap(json!({"email": "err@example.com"})).await;
    let token = &made.credential.token;

    let r = app
        .request(Method::GET, "/v1/no/such/route")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    // (`/nothing-here` alone is a namespace's page: a stranger is sent to sign in.)
    let r = app
        .request(Method::GET, "/nothing-here/at/all/x/y")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .as_user(Method::PUT, "/v1/user", token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed").await;

    let bad_json = app
        .as_user(Method::PATCH, "/v1/user", token)
        .header(header::CONTENT_TYPE, "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    expect_error(bad_json, StatusCode::BAD_REQUEST, "bad_request").await;
    let wrong_type = app
        .as_user(Method::PATCH, "/v1/user", token)
        .json(&json!({"name": 7}))
        .send()
        .await
        .unwrap();
    expect_error(wrong_type, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
    let no_type = app
        .as_user(Method::PATCH, "/v1/user", token)
        .body("{}")
        .send()
        .await
        .unwrap();
    expect_error(
        no_type,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
    let huge = format!("{{\"name\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    // Its own client: the server closes a connection whose body it refused.
    let r = svc_tests::client()
        .patch(app.url("/v1/user"))
        .bearer_auth(token)
        .header(header::CONTENT_TYPE, "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::PAYLOAD_TOO_LARGE, "too_large").await;
    let r = app
        .as_user(Method::DELETE, "/v1/user/credentials/%FF", token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error());
    let body: Value = r.json().await.unwrap();
    assert!(body["error"]["code"].is_string(), "{body}");

    // Every answer carries a request id for the logs.
    let r = app.request(Method::GET, "/healthz").send().await.unwrap();
    assert!(r.headers().contains_key("x-request-id"));
}

/// Each `#[utoipa::path(<method>, path = "<path>"` in the server's sources.
fn annotated_routes(dir: &Path, out: &mut BTreeSet<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        // `src/bin` holds the bench's stand-ins of other services (a model API), not svc.
        if path.is_dir() && !path.ends_with("src/bin") {
            annotated_routes(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for chunk in text.split("#[utoipa::path(").skip(1) {
                let method = chunk.split(',').next().unwrap().trim().to_owned();
                let route = chunk
                    .split("path = \"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_owned();
                out.insert((method, route));
            }
            if !path.ends_with("web.rs") {
                assert!(
                    !text.contains(".route(\"/v1"),
                    "{}: /v1 routes are registered through routes::api() so they are documented",
                    path.display()
                );
            }
        }
    }
}

#[tokio::test]
async fn the_openapi_document_lists_every_route() {
    let app = TestApp::start().await;
    let doc: Value = expect_json(
        app.request(Method::GET, "/v1/openapi.json")
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));

    let mut in_code = BTreeSet::new();
    annotated_routes(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../server/src"),
        &mut in_code,
    );
    assert!(in_code.len() >= 15, "found {in_code:?}");
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.insert((method.clone(), path.clone()));
        }
    }
    assert_eq!(
        in_code, documented,
        "routes in the code and in the OpenAPI document differ"
    );

    // And the server really serves each documented route (not the unknown-route 404).
    for (method, path) in &documented {
        let concrete = path.replace('{', "x").replace('}', "");
        let r = app
            .request(method.to_uppercase().parse().unwrap(), &concrete)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(
            status != StatusCode::METHOD_NOT_ALLOWED && !body.contains("route not found"),
            "{method} {path} is documented but not served ({status}: {body})"
        );
    }
}

/// The committed `docs/openapi.json` is the document the server serves, so a change to
/// the API shows up in review as a diff of it. Its `servers` is the server's base URL,
/// which the snapshot holds as a placeholder. What every OpenAPI tool requires of it is
/// checked here too (`.ci/openapi-lint.sh` runs the tools themselves): operationIds
/// unique, a description on every response, every security scheme named defined, and
/// every JSON body a schema a generated client can read (`.ci/clients.sh` runs two).
#[tokio::test]
async fn the_openapi_document_matches_its_snapshot() {
    let app = TestApp::start().await;
    let mut doc: Value = expect_json(
        app.request(Method::GET, "/v1/openapi.json")
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(doc["servers"][0]["url"], app.base, "{}", doc["servers"]);
    doc["servers"][0]["url"] = json!("https://svc.invalid");

    let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
    let defined = |requirements: &Value, at: &str| {
        for requirement in requirements.as_array().unwrap() {
            for scheme in requirement.as_object().unwrap().keys() {
                assert!(
                    schemes.contains_key(scheme),
                    "{at}: scheme {scheme} is not defined"
                );
            }
        }
    };
    defined(&doc["security"], "the document");
    // A bare `{"type": "object"}` is an object generators type as having no keys.
    let readable = |content: &Value, at: &str| {
        for (media, body) in content.as_object().into_iter().flatten() {
            let schema = &body["schema"];
            let keyed = ["properties", "additionalProperties", "oneOf", "allOf"];
            let bare = schema["type"] == "object" && keyed.iter().all(|k| schema.get(k).is_none());
            assert!(!bare, "{at} {media}: an object schema with no keys");
        }
    };
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            let id = op["operationId"].as_str().unwrap_or_default();
            let camel = id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && id.chars().all(|c| c.is_ascii_alphanumeric());
            assert!(camel, "{at}: operationId {id:?} is not camelCase");
            assert!(ids.insert(id.to_owned()), "{at}: operationId {id} repeats");
            for (status, response) in op["responses"].as_object().unwrap() {
                let description = response["description"].as_str().unwrap_or_default();
                assert!(!description.is_empty(), "{at} {status}: no description");
                readable(&response["content"], &format!("{at} {status}"));
            }
            readable(&op["requestBody"]["content"], &format!("{at} request"));
            if let Some(security) = op.get("security") {
                defined(security, &at);
            }
        }
    }
    // The specification's own names.
    for id in [
        "createMonorepo",
        "listMonorepos",
        "listBranches",
        "branchDiff",
        "mergeBranch",
        "createIssue",
        "createLabel",
        "addArtifact",
        "launchAgent",
        "uploadReleaseFile",
        "agentLive",
        "commitFiles",
    ] {
        assert!(ids.contains(id), "no operation {id}");
    }
    snapshot::assert_json("docs/openapi.json", &doc);
}

/// One validation style: a `limit` out of range is 400 on every list, a cursor the list
/// did not make is 400 `bad_cursor` without echoing it, and JSON that is not an object
/// is 422 like any other body of the wrong shape.
#[tokio::test]
async fn bad_limits_cursors_and_body_shapes_answer_alike() {
    let svc_tests::Cloned {
        app,
        token,
        git,
        work,
    } = svc_tests::Cloned::new("mono", "app").await;
    git.commit(&work, "base", &[("a.txt", b"one\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "feature"]);
    git.commit(&work, "more", &[("b.txt", b"two\n")]);
    git.ok(&work, &["push", "-q", "origin", "feature"]);
    let r = "/v1/monorepos/ann/mono/repos/app";
    let b = format!("{r}/branches/feature");
    let send = |method: Method, path: String| {
        let req = app.as_user(method, &path, &token);
        async move { req.send().await.unwrap() }
    };

    let lists = [
        format!("{r}/branches?"),
        format!("{b}/commits?"),
        format!("{b}/reviews?"),
        format!("{r}/history?"),
        "/v1/monorepos/ann/mono/events?".to_owned(),
        "/v1/events?".to_owned(),
    ];
    for list in &lists {
        for limit in ["-1", "0", "100000"] {
            let r = send(Method::GET, format!("{list}limit={limit}")).await;
            let body = expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
            assert!(
                body["error"]["message"].as_str().unwrap().contains("limit"),
                "{list}limit={limit}: {body}"
            );
        }
        expect_json::<Value>(
            send(Method::GET, format!("{list}limit=1")).await,
            StatusCode::OK,
        )
        .await;
    }

    // Extreme seqs are no overflow (schemathesis found a 500 here).
    for query in ["before=-9223372036854775808", "since=9223372036854775807"] {
        let path = format!("/v1/monorepos/ann/mono/events?{query}");
        expect_json::<Value>(send(Method::GET, path).await, StatusCode::OK).await;
    }

    let marker = "zz<script>zz";
    let cursors = [
        format!("{r}/branches?cursor={marker}"),
        format!("{b}/commits?cursor={marker}"),
        format!("{b}/reviews?cursor={marker}"),
        format!("{r}/tree?cursor={marker}"),
        format!("{r}/history?next={marker}"),
        format!("/v1/events?cursor={marker}"),
    ];
    for path in cursors {
        let body = expect_error(
            send(Method::GET, path.clone()).await,
            StatusCode::BAD_REQUEST,
            "bad_cursor",
        )
        .await;
        assert!(!body.to_string().contains("zz"), "{path}: {body}");
    }

    for (method, path) in [
        (Method::PATCH, "/v1/user"),
        (Method::POST, "/v1/monorepos"),
        (Method::POST, "/v1/login/device"),
    ] {
        for shape in [json!(["x"]), json!("x"), json!(7)] {
            let r = app
                .as_user(method.clone(), path, &token)
                .json(&shape)
                .send()
                .await
                .unwrap();
            expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "bad_request").await;
        }
    }
    // The user did not change.
    let user = app.get_json(&token, "/v1/user").await;
    assert_eq!(user["login"], "ann");
    assert_eq!(user["name"], "Ann Example");
}

/// The document lists the shared statuses, the ranges and what is required.
#[tokio::test]
async fn the_openapi_document_is_exact() {
    let app = TestApp::start().await;
    let doc: Value = expect_json(
        app.request(Method::GET, "/v1/openapi.json")
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    let op = |method: &str, path: &str| doc["paths"][path][method].clone();
    let statuses = |op: &Value| -> BTreeSet<String> {
        op["responses"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };

    let patch_user = op("patch", "/v1/user");
    for status in ["200", "400", "401", "403", "413", "415", "422"] {
        assert!(
            statuses(&patch_user).contains(status),
            "PATCH /v1/user {status}"
        );
    }
    let branches = op(
        "get",
        "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches",
    );
    for status in ["200", "400", "401", "404"] {
        assert!(statuses(&branches).contains(status), "branches {status}");
    }
    let limit = branches["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap();
    assert_eq!(limit["schema"]["minimum"], 1, "{limit}");
    assert_eq!(limit["schema"]["maximum"], 100, "{limit}");
    // Public reads answer no 401.
    assert!(!statuses(&op("get", "/healthz")).contains("401"));

    // Device start takes no body; deleting a monorepo requires `confirm`.
    let device = op("post", "/v1/login/device");
    assert_ne!(device["requestBody"]["required"], true, "{device}");
    assert!(!statuses(&device).contains("415"));
    let delete = op("delete", "/v1/monorepos/{owner}/{monorepo}");
    let confirm = delete["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "confirm")
        .unwrap();
    assert_eq!(confirm["required"], true, "{confirm}");

    // The two answers of GET /v1/monorepos are told apart by `view`.
    let listing =
        &op("get", "/v1/monorepos")["responses"]["200"]["content"]["application/json"]["schema"];
    let listing = if let Some(r) = listing["$ref"].as_str() {
        doc["components"]["schemas"][r.rsplit('/').next().unwrap()].clone()
    } else {
        listing.clone()
    };
    assert_eq!(listing["oneOf"].as_array().unwrap().len(), 2, "{listing}");
    assert_eq!(
        listing["discriminator"]["propertyName"], "view",
        "{listing}"
    );
    for view in ["home", "list"] {
        let member = listing["discriminator"]["mapping"][view].as_str().unwrap();
        let name = member.rsplit('/').next().unwrap();
        assert!(doc["components"]["schemas"][name].is_object(), "{member}");
    }
    let token = app
        .bootstrap(json!({"email": "ann@example.com"}))
        .await
        .credential
        .token;
    let plain = app.get_json(&token, "/v1/monorepos").await;
    assert_eq!(plain["view"], "list");
    let home = app.get_json(&token, "/v1/monorepos?summary=1").await;
    assert_eq!(home["view"], "home");
}

/// Generated clients name each member of a union (openapi-python-client drops inline
/// `allOf` members and clashes on inline members' nested models): every union's members
/// are components (`null` aside), and a tagged one names its tag in a `discriminator`.
#[tokio::test]
async fn the_openapi_unions_are_named_members() {
    let app = TestApp::start().await;
    let doc: Value = expect_json(
        app.request(Method::GET, "/v1/openapi.json")
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    fn walk(at: &str, value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(o) => {
                for key in ["oneOf", "anyOf"] {
                    for m in o.get(key).and_then(Value::as_array).into_iter().flatten() {
                        if m.get("$ref").is_none() && m != &json!({"type": "null"}) {
                            out.push(format!("{at}/{key}: {m}"));
                        }
                    }
                }
                for (k, v) in o {
                    walk(&format!("{at}/{k}"), v, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(at, v, out)),
            _ => {}
        }
    }
    let mut inline = Vec::new();
    walk("", &doc, &mut inline);
    assert!(inline.is_empty(), "inline union members: {inline:#?}");

    let schemas = &doc["components"]["schemas"];
    for (union, tag, values) in [
        (
            "Part",
            "type",
            &["text", "thinking", "tool-call", "tool-result"][..],
        ),
        (
            "BranchDiffLine",
            "type",
            &["start", "file", "end", "error"][..],
        ),
        ("MonorepoListing", "view", &["home", "list"][..]),
        ("LiveFrame", "type", &["messages"][..]),
        (
            "ServerFrame",
            "type",
            &[
                "event",
                "resync",
                "caught_up",
                "hello_ok",
                "feed",
                "feed_resync",
                "error",
            ][..],
        ),
        ("ClientFrame", "type", &["hello"][..]),
        (
            "ActivityServerFrame",
            "type",
            &[
                "event",
                "resync",
                "caught_up",
                "summary",
                "needs",
                "joined",
                "left",
                "contributed",
                "error",
            ][..],
        ),
    ] {
        let d = &schemas[union]["discriminator"];
        assert_eq!(d["propertyName"], tag, "{union}");
        let mut mapped: Vec<&str> = d["mapping"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        mapped.sort_unstable();
        let mut wanted = values.to_vec();
        wanted.sort_unstable();
        assert_eq!(mapped, wanted, "{union}");
    }

    // The streamed diff's lines and the artifact upload's form have schemas too (the
    // WebSocket frames above are components no body names).
    let diff = &doc["paths"]["/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/diff"]
        ["get"]["responses"]["200"]["content"];
    assert_eq!(
        diff["application/x-ndjson"]["schema"]["$ref"],
        "#/components/schemas/BranchDiffLine"
    );
    let upload = &doc["paths"]["/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts"]
        ["post"]["requestBody"]["content"]["multipart/form-data"]["schema"];
    assert_eq!(upload["properties"]["file"]["format"], "binary", "{upload}");
    assert_eq!(
        upload["properties"]["image"]["items"]["format"], "binary",
        "{upload}"
    );
    assert_eq!(upload["required"], json!(["file"]), "{upload}");
}
