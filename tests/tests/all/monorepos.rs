//! Monorepos, members, invites and repos through the API.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

async fn person(app: &TestApp, email: &str) -> String {
    app.bootstrap(json!({"email": email}))
        .await
        .credential
        .token
}

#[tokio::test]
async fn create_names_and_ids() {
    let app = TestApp::start().await;
    let ann = person(&app, "ann@example.com").await;
    let m = app.monorepo(&ann, json!({"name": "Web.App_1"})).await;
    assert_eq!(m["owner"], "ann");
    assert_eq!(m["name"], "web.app_1");
    assert_eq!(m["full_name"], "ann/web.app_1");
    assert_eq!(m["kind"], "monorepo");
    assert_eq!(m["replaced_alias"], Value::Null);
    let id = m["id"].as_str().unwrap();
    assert!(
        id.len() == 18 && id.starts_with("m_") && id[2..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );

    let post = |body: Value| {
        app.as_user(Method::POST, "/v1/monorepos", &ann)
            .json(&body)
            .send()
    };
    expect_error(
        post(json!({"name": "Sessions"})).await.unwrap(),
        StatusCode::BAD_REQUEST,
        "reserved_name",
    )
    .await;
    for bad in ["a--b", "-x", "x y", "", &"a".repeat(40)] {
        expect_error(
            post(json!({"name": bad})).await.unwrap(),
            StatusCode::BAD_REQUEST,
            "bad_name",
        )
        .await;
    }
    expect_error(
        post(json!({"name": "WEB.APP_1"})).await.unwrap(),
        StatusCode::CONFLICT,
        "monorepo_exists",
    )
    .await;
    let bob = person(&app, "bob@example.com").await;
    let r = post(json!({"name": "x", "owner": "bob"})).await.unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_your_namespace").await;

    // Outsiders see nothing: 404, never 403.
    let r = app
        .as_user(Method::GET, "/v1/monorepos/ann/web.app_1", &bob)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let got = app.get_json(&ann, "/v1/monorepos/ANN/Web.App_1").await;
    assert_eq!(got["id"], m["id"], "labels match without case");
}

#[tokio::test]
async fn list_puts_own_first_and_filters() {
    let app = TestApp::start().await;
    let zed = person(&app, "zed@example.com").await;
    let amy = person(&app, "amy@example.com").await;
    for name in ["b", "a"] {
        app.monorepo(&zed, json!({"name": name})).await;
    }
    app.monorepo(&amy, json!({"name": "tools"})).await;
    let r = app
        .as_user(Method::PUT, "/v1/monorepos/amy/tools/members/zed", &amy)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let list = app.get_json(&zed, "/v1/monorepos").await;
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["full_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["zed/a", "zed/b", "amy/tools"],
        "own namespace first, then by owner and name"
    );
    let list = app.get_json(&zed, "/v1/monorepos?owner=AMY").await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
    assert_eq!(list["items"][0]["role"], "member");
    let list = app.get_json(&zed, "/v1/monorepos?name=a").await;
    assert_eq!(list["items"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn rename_keeps_old_labels_until_taken() {
    let app = TestApp::start().await;
    let kim = person(&app, "kim@example.com").await;
    let first = app.monorepo(&kim, json!({"name": "old"})).await;
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/kim/old", &kim)
        .json(&json!({"name": "new"}))
        .send()
        .await
        .unwrap();
    let renamed: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(renamed["full_name"], "kim/new");
    assert_eq!(renamed["replaced_alias"], Value::Null);
    let via_alias = app.get_json(&kim, "/v1/monorepos/kim/old").await;
    assert_eq!(
        (via_alias["id"].clone(), via_alias["full_name"].clone()),
        (first["id"].clone(), json!("kim/new"))
    );

    // Giving the old name to another monorepo takes the alias over.
    let second = app.monorepo(&kim, json!({"name": "old"})).await;
    assert_eq!(second["replaced_alias"], "kim/old");
    assert_eq!(
        app.get_json(&kim, "/v1/monorepos/kim/old").await["id"],
        second["id"]
    );

    // Renaming onto a taken name conflicts; back onto one's own alias is no takeover.
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/kim/new", &kim)
        .json(&json!({"name": "old"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "monorepo_exists").await;
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/kim/new", &kim)
        .json(&json!({"name": "newer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/kim/newer", &kim)
        .json(&json!({"name": "new"}))
        .send()
        .await
        .unwrap();
    let back: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(back["replaced_alias"], Value::Null);
    let r = app
        .as_user(Method::PATCH, "/v1/monorepos/kim/new", &kim)
        .json(&json!({"name": "sessions"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "reserved_name").await;
}

#[tokio::test]
async fn transfer_goes_to_an_owner_only() {
    let app = TestApp::start().await;
    let lee = person(&app, "lee@example.com").await;
    let max = person(&app, "max@example.com").await;
    app.monorepo(&lee, json!({"name": "proj"})).await;
    let patch = |to: &str| {
        app.as_user(Method::PATCH, "/v1/monorepos/lee/proj", &lee)
            .json(&json!({"owner": to}))
            .send()
    };
    expect_error(
        patch("max").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "bad_owner",
    )
    .await;
    expect_error(
        patch("nobody").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "bad_owner",
    )
    .await;
    let r = app
        .as_user(Method::PUT, "/v1/monorepos/lee/proj/members/max", &lee)
        .json(&json!({"role": "owner"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let moved: Value = expect_json(patch("max").await.unwrap(), StatusCode::OK).await;
    assert_eq!(moved["full_name"], "max/proj");
    assert_eq!(
        app.get_json(&max, "/v1/monorepos/lee/proj").await["full_name"],
        "max/proj",
        "old label is an alias"
    );
    assert_eq!(
        app.get_json(&lee, "/v1/monorepos/max/proj").await["role"],
        "owner",
        "members stay"
    );
}

#[tokio::test]
async fn members_and_the_last_owner() {
    let app = TestApp::start().await;
    let own = person(&app, "own@example.com").await;
    let mem = person(&app, "mem@example.com").await;
    app.monorepo(&own, json!({"name": "team"})).await;
    let put = |who: &str, role: &str, token: &str| {
        app.as_user(
            Method::PUT,
            &format!("/v1/monorepos/own/team/members/{who}"),
            token,
        )
        .json(&json!({"role": role}))
        .send()
    };
    let added: Value = expect_json(put("mem", "member", &own).await.unwrap(), StatusCode::OK).await;
    assert_eq!(
        (
            added["login"].as_str(),
            added["role"].as_str(),
            added["via"].as_str()
        ),
        (Some("mem"), Some("member"), Some("direct"))
    );
    expect_error(
        put("own", "member", &mem).await.unwrap(),
        StatusCode::FORBIDDEN,
        "forbidden",
    )
    .await;
    expect_error(
        put("own", "member", &own).await.unwrap(),
        StatusCode::CONFLICT,
        "last_owner",
    )
    .await;
    expect_error(
        put("ghost", "member", &own).await.unwrap(),
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
    let members = app.get_json(&mem, "/v1/monorepos/own/team/members").await;
    let logins: Vec<&str> = members["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["login"].as_str().unwrap())
        .collect();
    assert_eq!(logins, ["mem", "own"]);

    let r = app
        .as_user(Method::DELETE, "/v1/monorepos/own/team/members/own", &own)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "last_owner").await;
    let r = app
        .as_user(Method::DELETE, "/v1/monorepos/own/team/members/mem", &own)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(Method::GET, "/v1/monorepos/own/team", &mem)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .as_user(Method::DELETE, "/v1/monorepos/own/team/members/mem", &own)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn invites_add_known_people_and_wait_for_others() {
    let app = TestApp::start().await;
    let own = person(&app, "host@example.com").await;
    person(&app, "known@example.com").await;
    app.monorepo(&own, json!({"name": "club"})).await;
    let invite = |email: &str| {
        app.as_user(Method::POST, "/v1/monorepos/host/club/invites", &own)
            .json(&json!({"email": email}))
            .send()
    };
    let added: Value =
        expect_json(invite("Known@Example.com").await.unwrap(), StatusCode::OK).await;
    assert_eq!(added["status"], "added");
    assert_eq!(added["member"]["login"], "known");
    let invited: Value = expect_json(
        invite("later@example.com").await.unwrap(),
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(invited["status"], "invited");
    assert_eq!(invited["invite"]["email"], "later@example.com");
    assert_eq!(invited["invite"]["invited_by"], "host");
    expect_json::<Value>(
        invite("gone@example.com").await.unwrap(),
        StatusCode::CREATED,
    )
    .await;
    let pending = app.get_json(&own, "/v1/monorepos/host/club/invites").await;
    assert_eq!(pending["items"].as_array().unwrap().len(), 2);
    let r = app
        .as_user(
            Method::DELETE,
            "/v1/monorepos/host/club/invites/gone@example.com",
            &own,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(
            Method::DELETE,
            "/v1/monorepos/host/club/invites/gone@example.com",
            &own,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // The invited email's first verified sign-in makes the membership.
    let later = person(&app, "later@example.com").await;
    assert_eq!(
        app.get_json(&later, "/v1/monorepos/host/club").await["role"],
        "member"
    );
    assert!(
        app.get_json(&own, "/v1/monorepos/host/club/invites").await["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn repos_meta_and_plain_repos() {
    let app = TestApp::start().await;
    let dev = person(&app, "dev@example.com").await;
    let mem = person(&app, "crew@example.com").await;
    app.monorepo(&dev, json!({"name": "mono"})).await;
    let repo = app.repo(&dev, "dev/mono", "services/api").await;
    assert_eq!(repo["name"], "services-api");
    assert_eq!(repo["path"], "services/api");
    assert_eq!(repo["clone_url"], app.url("/dev/mono/services-api.git"));
    assert_eq!(repo["monorepo"], "dev/mono");
    let r = app
        .as_user(Method::POST, "/v1/monorepos/dev/mono/repos", &dev)
        .json(&json!({"path": "services/api"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "repo_exists").await;
    for bad in ["../x", "a//b", "meta", ".git"] {
        let r = app
            .as_user(Method::POST, "/v1/monorepos/dev/mono/repos", &dev)
            .json(&json!({"path": bad}))
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::BAD_REQUEST, "bad_path").await;
    }
    let list = app.get_json(&dev, "/v1/monorepos/dev/mono/repos").await;
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["services-api"], "the meta layer is not listed");
    let meta = app
        .get_json(&dev, "/v1/monorepos/dev/mono/repos/meta")
        .await;
    assert_eq!(
        (meta["path"].as_str(), meta["clone_url"].as_str()),
        (Some("."), Some(app.url("/dev/mono/meta.git").as_str()))
    );
    let heads = app.get_json(&dev, "/v1/monorepos/dev/mono/heads").await;
    assert_eq!(
        heads,
        json!({"seq": 1, "heads": [{"repo": "services-api", "default_branch": "main", "head": null}]})
    );

    // Settings are for owners.
    app.as_user(Method::PUT, "/v1/monorepos/dev/mono/members/crew", &dev)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    let r = app
        .as_user(
            Method::PATCH,
            "/v1/monorepos/dev/mono/repos/services-api",
            &mem,
        )
        .json(&json!({"releases_public": true}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = app
        .as_user(
            Method::PATCH,
            "/v1/monorepos/dev/mono/repos/services-api",
            &dev,
        )
        .json(&json!({"releases_public": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        expect_json::<Value>(r, StatusCode::OK).await["releases_public"],
        true
    );

    // A plain repo: one repo at `.` named after it, and no more.
    let plain = app
        .monorepo(&dev, json!({"name": "tool", "kind": "repo"}))
        .await;
    assert_eq!(plain["kind"], "repo");
    let repos = app.get_json(&dev, "/v1/monorepos/dev/tool/repos").await;
    assert_eq!(repos["items"][0]["name"], "tool");
    assert_eq!(repos["items"][0]["path"], ".");
    assert_eq!(repos["items"][0]["clone_url"], app.url("/dev/tool.git"));
    let r = app
        .as_user(Method::POST, "/v1/monorepos/dev/tool/repos", &dev)
        .json(&json!({"path": "more"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "plain_repo").await;
}

#[tokio::test]
async fn delete_needs_the_full_name_and_leaves_nothing() {
    let app = TestApp::start().await;
    let del = person(&app, "del@example.com").await;
    let mem = person(&app, "del2@example.com").await;
    app.monorepo(&del, json!({"name": "gone"})).await;
    app.repo(&del, "del/gone", "a").await;
    app.as_user(Method::PUT, "/v1/monorepos/del/gone/members/del2", &del)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    app.as_user(Method::POST, "/v1/monorepos/del/gone/invites", &del)
        .json(&json!({"email": "x@example.com"}))
        .send()
        .await
        .unwrap();
    let repos_dir = app.data_dir.path().join("repos");
    assert_eq!(
        std::fs::read_dir(&repos_dir).unwrap().count(),
        2,
        "meta and a"
    );

    let r = app
        .as_user(Method::DELETE, "/v1/monorepos/del/gone", &del)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "confirm_required").await;
    let r = app
        .as_user(
            Method::DELETE,
            "/v1/monorepos/del/gone?confirm=del/gone",
            &mem,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = app
        .as_user(
            Method::DELETE,
            "/v1/monorepos/del/gone?confirm=del/other",
            &del,
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "confirm_required").await;
    let r = app
        .as_user(
            Method::DELETE,
            "/v1/monorepos/del/gone?confirm=del/gone",
            &del,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = app
        .as_user(Method::GET, "/v1/monorepos/del/gone", &del)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    assert_eq!(
        std::fs::read_dir(&repos_dir).unwrap().count(),
        0,
        "no repository left on disk"
    );
    assert!(
        app.get_json(&mem, "/v1/monorepos").await["items"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The name is free again, with no alias to take over.
    assert_eq!(
        app.monorepo(&del, json!({"name": "gone"})).await["replaced_alias"],
        Value::Null
    );
}
