//! Organizations through the API: create, the header, people, invites.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

async fn person(app: &TestApp, email: &str) -> String {
    app.bootstrap(json!({"email": email}))
        .await
        .credential
        .token
}

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    body: Option<Value>,
) -> Response {
    let mut r = app.as_user(method, path, token);
    if let Some(body) = body {
        r = r.json(&body);
    }
    r.send().await.unwrap()
}

async fn create_org(app: &TestApp, token: &str, body: Value) -> Response {
    send(app, Method::POST, "/v1/orgs", token, Some(body)).await
}

async fn put_member(app: &TestApp, token: &str, org: &str, login: &str, role: &str) -> Response {
    let path = format!("/v1/orgs/{org}/members/{login}");
    send(app, Method::PUT, &path, token, Some(json!({"role": role}))).await
}

async fn remove_member(app: &TestApp, token: &str, org: &str, login: &str) -> Response {
    let path = format!("/v1/orgs/{org}/members/{login}");
    send(app, Method::DELETE, &path, token, None).await
}

fn logins(list: &Value) -> Vec<&str> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["login"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn create_and_header() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let bob = person(&app, "bob@example.com").await;

    let r = create_org(
        &app,
        &ann,
        json!({"login": "Acme", "name": "Acme Inc.", "description": "tools"}),
    )
    .await;
    let org: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(org["login"], "acme");
    assert_eq!(org["name"], "Acme Inc.");
    assert_eq!(org["description"], "tools");
    assert_eq!(org["picture_url"], Value::Null);
    assert_eq!(org["role"], "owner");
    assert_eq!(org["members"], 1);
    assert!(org["created_at"].is_string());

    // Anyone signed in sees the header; role and head count only for its people.
    let got = app.get_json(&ann, "/v1/orgs/ACME").await;
    assert_eq!(
        (got["role"].clone(), got["members"].clone()),
        (json!("owner"), json!(1))
    );
    let got = app.get_json(&bob, "/v1/orgs/acme").await;
    assert_eq!(got["login"], "acme");
    assert_eq!(got["role"], Value::Null);
    assert_eq!(got["members"], Value::Null);
    let r = send(&app, Method::GET, "/v1/orgs/nobody", &bob, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .request(Method::GET, "/v1/orgs/acme")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);

    // The login rule, reserved names, and one namespace shared with people.
    let r = create_org(&app, &bob, json!({"login": "Orgs"})).await;
    expect_error(r, StatusCode::BAD_REQUEST, "reserved_name").await;
    for bad in ["a--b", "-x", "x_y", "", &"a".repeat(40)] {
        let r = create_org(&app, &bob, json!({"login": bad})).await;
        expect_error(r, StatusCode::BAD_REQUEST, "bad_login").await;
    }
    let r = create_org(&app, &bob, json!({"login": "ANN"})).await;
    expect_error(r, StatusCode::CONFLICT, "namespace_taken").await;
    let r = create_org(&app, &bob, json!({"login": "acme"})).await;
    expect_error(r, StatusCode::CONFLICT, "namespace_taken").await;
    let r = app
        .request(Method::POST, "/v1/users")
        .bearer_auth(svc_tests::BOOTSTRAP_SECRET)
        .json(&json!({"email": "carl@example.com", "login": "acme"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "namespace_taken").await;
}

#[tokio::test]
async fn two_creates_of_one_name_at_once() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let bob = person(&app, "bob@example.com").await;
    let (a, b) = tokio::join!(
        create_org(&app, &ann, json!({"login": "race"})),
        create_org(&app, &bob, json!({"login": "race"})),
    );
    let mut statuses = [a.status(), b.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::CREATED, StatusCode::CONFLICT]);
    let loser = if a.status() == StatusCode::CONFLICT {
        a
    } else {
        b
    };
    expect_error(loser, StatusCode::CONFLICT, "namespace_taken").await;
    let members = app.get_json(&ann, "/v1/orgs/race").await["members"].clone();
    let members_bob = app.get_json(&bob, "/v1/orgs/race").await["members"].clone();
    let counts = [members, members_bob];
    assert!(
        counts.contains(&json!(1)) && counts.contains(&Value::Null),
        "{counts:?}"
    );
}

#[tokio::test]
async fn members_roles_and_last_owner() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let bob = person(&app, "bob@example.com").await;
    let cy = person(&app, "cy@example.com").await;
    expect_json::<Value>(
        create_org(&app, &ann, json!({"login": "acme"})).await,
        StatusCode::CREATED,
    )
    .await;

    // Outsiders: the lists are hidden (404), owner-only operations too.
    for path in ["/v1/orgs/acme/members", "/v1/orgs/acme/invites"] {
        let r = send(&app, Method::GET, path, &bob, None).await;
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    let r = put_member(&app, &bob, "acme", "bob", "owner").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // An owner adds by login; unknown logins are 404.
    let m: Value = expect_json(
        put_member(&app, &ann, "acme", "Bob", "member").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(m["login"], "bob");
    assert_eq!(m["role"], "member");
    assert_eq!(m["added_by"], "ann");
    assert!(m["added_at"].is_string());
    assert!(
        m["last_active_at"].is_string(),
        "bob used a credential: {m}"
    );
    let r = put_member(&app, &ann, "acme", "nobody", "member").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // Members see the people and invites, but may not manage them.
    let list = app.get_json(&bob, "/v1/orgs/acme/members").await;
    assert_eq!(logins(&list), ["ann", "bob"]);
    assert_eq!(list["items"][0]["role"], "owner");
    assert_eq!(list["items"][0]["added_by"], Value::Null);
    let invites = app.get_json(&bob, "/v1/orgs/acme/invites").await;
    assert_eq!(invites["items"], json!([]));
    let r = put_member(&app, &bob, "acme", "cy", "member").await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = remove_member(&app, &bob, "acme", "ann").await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = send(
        &app,
        Method::PATCH,
        "/v1/orgs/acme",
        &bob,
        Some(json!({"name": "x"})),
    )
    .await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let header = app.get_json(&bob, "/v1/orgs/acme").await;
    assert_eq!(
        (header["role"].clone(), header["members"].clone()),
        (json!("member"), json!(2))
    );

    // The only owner can neither step down, be removed, nor leave.
    let r = put_member(&app, &ann, "acme", "ann", "member").await;
    expect_error(r, StatusCode::CONFLICT, "last_owner").await;
    let r = remove_member(&app, &ann, "acme", "ann").await;
    expect_error(r, StatusCode::CONFLICT, "last_owner").await;

    // With a second owner, the first may step down and then leave.
    expect_json::<Value>(
        put_member(&app, &ann, "acme", "bob", "owner").await,
        StatusCode::OK,
    )
    .await;
    let m: Value = expect_json(
        put_member(&app, &ann, "acme", "ann", "member").await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(m["role"], "member");
    let r = put_member(&app, &bob, "acme", "bob", "member").await;
    expect_error(r, StatusCode::CONFLICT, "last_owner").await;
    let r = remove_member(&app, &bob, "acme", "bob").await;
    expect_error(r, StatusCode::CONFLICT, "last_owner").await;

    // A member leaves; an owner removes someone; a removed person is not found again.
    expect_json::<Value>(
        put_member(&app, &bob, "acme", "cy", "member").await,
        StatusCode::OK,
    )
    .await;
    let r = remove_member(&app, &ann, "acme", "ann").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = remove_member(&app, &bob, "acme", "cy").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = remove_member(&app, &bob, "acme", "cy").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let list = app.get_json(&bob, "/v1/orgs/acme/members").await;
    assert_eq!(logins(&list), ["bob"]);
    let r = send(&app, Method::GET, "/v1/orgs/acme/members", &ann, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let header = app.get_json(&cy, "/v1/orgs/acme").await;
    assert_eq!(header["role"], Value::Null);
}

#[tokio::test]
async fn my_orgs_by_login_with_role() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let bob = person(&app, "bob@example.com").await;
    for login in ["zeta", "alpha"] {
        expect_json::<Value>(
            create_org(&app, &ann, json!({"login": login})).await,
            StatusCode::CREATED,
        )
        .await;
    }
    expect_json::<Value>(
        create_org(&app, &bob, json!({"login": "beta"})).await,
        StatusCode::CREATED,
    )
    .await;
    expect_json::<Value>(
        put_member(&app, &bob, "beta", "ann", "member").await,
        StatusCode::OK,
    )
    .await;
    let mine = app.get_json(&ann, "/v1/user/orgs").await;
    assert_eq!(logins(&mine), ["alpha", "beta", "zeta"]);
    let roles: Vec<_> = mine["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["role"].clone())
        .collect();
    assert_eq!(roles, [json!("owner"), json!("member"), json!("owner")]);
    assert_eq!(mine["items"][1]["members"], 2);
    assert_eq!(mine["next_cursor"], Value::Null);
    let theirs = app.get_json(&bob, "/v1/user/orgs").await;
    assert_eq!(logins(&theirs), ["beta"]);
}

#[tokio::test]
async fn update_keeps_omitted_and_clears_null() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    expect_json::<Value>(
        create_org(
            &app,
            &ann,
            json!({"login": "acme", "name": "Acme", "description": "d"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let patch = |body: Value| send(&app, Method::PATCH, "/v1/orgs/acme", &ann, Some(body));
    let org: Value = expect_json(
        patch(json!({"picture_url": "https://example.com/a.png"})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(org["name"], "Acme");
    assert_eq!(org["description"], "d");
    assert_eq!(org["picture_url"], "https://example.com/a.png");
    assert_eq!(org["role"], "owner");
    let org: Value = expect_json(
        patch(json!({"name": null, "description": "new"})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(org["name"], Value::Null);
    assert_eq!(org["description"], "new");
    assert_eq!(org["picture_url"], "https://example.com/a.png");
    for bad in [
        json!({"picture_url": "http://x.example/a.png"}),
        json!({"name": ""}),
        json!({"name": "a\u{7}"}),
    ] {
        expect_error(patch(bad).await, StatusCode::BAD_REQUEST, "bad_request").await;
    }
    let got = app.get_json(&ann, "/v1/orgs/acme").await;
    assert_eq!(got["description"], "new");
    let bob = person(&app, "bob@example.com").await;
    let r = send(
        &app,
        Method::PATCH,
        "/v1/orgs/acme",
        &bob,
        Some(json!({"name": "x"})),
    )
    .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn invites_add_or_wait_for_the_email() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let bob = person(&app, "bob@example.com").await;
    expect_json::<Value>(
        create_org(&app, &ann, json!({"login": "acme"})).await,
        StatusCode::CREATED,
    )
    .await;
    let invite = |token: &str, body: Value| {
        let token = token.to_owned();
        let app = &app;
        async move {
            send(
                app,
                Method::POST,
                "/v1/orgs/acme/invites",
                &token,
                Some(body),
            )
            .await
        }
    };

    // Someone already signed in with that email is added at once (200).
    let r = invite(&ann, json!({"email": "BOB@example.com"})).await;
    let added: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(added["status"], "added");
    assert_eq!(added["member"]["login"], "bob");
    assert_eq!(added["member"]["role"], "member", "member by default");
    assert_eq!(added["member"]["added_by"], "ann");
    assert_eq!(
        added["member"]["last_active_at"],
        Value::Null,
        "bob never signed in"
    );

    // Members may not invite; outsiders do not see the org's invites.
    let r = invite(&bob, json!({"email": "x@example.com"})).await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let cy = person(&app, "cy@example.com").await;
    let r = invite(&cy, json!({"email": "x@example.com"})).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = invite(&ann, json!({"email": "not an email"})).await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_email").await;

    // Otherwise the invite waits (201).
    let r = invite(&ann, json!({"email": "Dee@Example.com", "role": "owner"})).await;
    let invited: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(invited["status"], "invited");
    assert_eq!(invited["invite"]["email"], "dee@example.com");
    assert_eq!(invited["invite"]["role"], "owner");
    assert_eq!(invited["invite"]["invited_by"], "ann");
    assert!(invited["invite"]["created_at"].is_string());
    let r = invite(&ann, json!({"email": "eve@example.com"})).await;
    expect_json::<Value>(r, StatusCode::CREATED).await;
    let pending = app.get_json(&bob, "/v1/orgs/acme/invites").await;
    let emails: Vec<_> = pending["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["email"].clone())
        .collect();
    assert_eq!(emails, [json!("dee@example.com"), json!("eve@example.com")]);

    // Owners withdraw an invite; members may not; a missing one is 404.
    let r = send(
        &app,
        Method::DELETE,
        "/v1/orgs/acme/invites/eve@example.com",
        &bob,
        None,
    )
    .await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = send(
        &app,
        Method::DELETE,
        "/v1/orgs/acme/invites/EVE@example.com",
        &ann,
        None,
    )
    .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = send(
        &app,
        Method::DELETE,
        "/v1/orgs/acme/invites/eve@example.com",
        &ann,
        None,
    )
    .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // The account made with that email joins with the invited role.
    let dee = person(&app, "dee@example.com").await;
    let header = app.get_json(&dee, "/v1/orgs/acme").await;
    assert_eq!(
        (header["role"].clone(), header["members"].clone()),
        (json!("owner"), json!(3))
    );
    let list = app.get_json(&dee, "/v1/orgs/acme/members").await;
    assert_eq!(logins(&list), ["ann", "bob", "dee"]);
    assert_eq!(list["items"][2]["added_by"], "ann");
    let pending = app.get_json(&dee, "/v1/orgs/acme/invites").await;
    assert_eq!(pending["items"], json!([]));
}
