//! Roles through organizations: an org's people reach every monorepo the org owns (its
//! owners as owners), over the API, the git door and the sockets; removal, a role
//! dropping and transfers take access away within 15 s; creating in an org's namespace.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::ws::Closed;
use svc_tests::{TestApp, expect_error, expect_json};

/// ann (who creates org `acme` and is its owner) and bob, carol, dave, each with a token.
struct World {
    app: TestApp,
    ann: String,
    bob: String,
    carol: String,
    dave: String,
}

async fn world() -> World {
    let app = TestApp::start().await;
    let mut tokens = Vec::new();
    for who in ["ann", "bob", "carol", "dave"] {
        let user = app
            .bootstrap(json!({"email": format!("{who}@example.com")}))
            .await;
        tokens.push(user.credential.token);
    }
    let r = app
        .as_user(Method::POST, "/v1/orgs", &tokens[0])
        .json(&json!({"login": "acme"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let [ann, bob, carol, dave] = <[String; 4]>::try_from(tokens).unwrap();
    World {
        app,
        ann,
        bob,
        carol,
        dave,
    }
}

impl World {
    async fn send(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> reqwest::Response {
        let mut r = self.app.as_user(method, path, token);
        if let Some(body) = body {
            r = r.json(&body);
        }
        r.send().await.unwrap()
    }

    /// Puts `login` in org `acme` with `role` (as ann, its owner).
    async fn org_member(&self, login: &str, role: &str) {
        let r = self
            .send(
                Method::PUT,
                &format!("/v1/orgs/acme/members/{login}"),
                &self.ann,
                Some(json!({"role": role})),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
    }

    async fn leave_org(&self, login: &str) {
        let r = self
            .send(
                Method::DELETE,
                &format!("/v1/orgs/acme/members/{login}"),
                &self.ann,
                None,
            )
            .await;
        assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    }

    /// The caller's role in `label`, or the status when it cannot open it.
    async fn role(&self, token: &str, label: &str) -> Result<String, StatusCode> {
        let r = self
            .send(Method::GET, &format!("/v1/monorepos/{label}"), token, None)
            .await;
        if r.status() != StatusCode::OK {
            return Err(r.status());
        }
        let body: Value = r.json().await.unwrap();
        Ok(body["role"].as_str().unwrap().to_owned())
    }

    async fn labels(&self, token: &str, query: &str) -> Vec<String> {
        let list = self
            .app
            .get_json(token, &format!("/v1/monorepos{query}"))
            .await;
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["full_name"].as_str().unwrap().to_owned())
            .collect()
    }

    /// listMembers of `label` as `(login, role, via)`.
    async fn members(&self, label: &str) -> Vec<(String, String, String)> {
        let list = self
            .app
            .get_json(&self.ann, &format!("/v1/monorepos/{label}/members"))
            .await;
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let s = |k: &str| m[k].as_str().unwrap().to_owned();
                (s("login"), s("role"), s("via"))
            })
            .collect()
    }
}

fn row(login: &str, role: &str, via: &str) -> (String, String, String) {
    (login.into(), role.into(), via.into())
}

#[tokio::test]
async fn org_people_open_and_push_to_org_monorepos_with_their_org_role() {
    let w = world().await;
    w.org_member("bob", "member").await;
    w.org_member("carol", "owner").await;
    w.app
        .monorepo(&w.ann, json!({"name": "mono", "owner": "acme"}))
        .await;
    let url = w.app.repo(&w.ann, "acme/mono", "app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();

    // bob, an org member, clones and pushes with git.
    let git = Git::new(&w.bob);
    git.ok(git.home.path(), &["clone", "-q", &url, "work"]);
    let work = git.path("work");
    let head = git.commit(&work, "first", &[("README.md", b"hi\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    let heads = w
        .app
        .get_json(&w.bob, "/v1/monorepos/acme/mono/heads")
        .await;
    assert_eq!(heads["heads"][0]["head"], head.as_str());

    assert_eq!(w.role(&w.bob, "acme/mono").await, Ok("member".into()));
    // carol owns the org, so the monorepo, without a row of her own.
    assert_eq!(w.role(&w.carol, "acme/mono").await, Ok("owner".into()));
    assert_eq!(
        w.role(&w.dave, "acme/mono").await,
        Err(StatusCode::NOT_FOUND)
    );
    // An org member may not manage members; an org owner may.
    let r = w
        .send(
            Method::PUT,
            "/v1/monorepos/acme/mono/members/dave",
            &w.bob,
            Some(json!({"role": "member"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = w
        .send(
            Method::PUT,
            "/v1/monorepos/acme/mono/members/dave",
            &w.carol,
            Some(json!({"role": "member"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    // An outsider added to the monorepo is in by their own row.
    assert_eq!(w.role(&w.dave, "acme/mono").await, Ok("member".into()));

    // Everyone who can open it, each once, with the higher role and where it comes from.
    assert_eq!(
        w.members("acme/mono").await,
        vec![
            row("ann", "owner", "direct"),
            row("bob", "member", "org"),
            row("carol", "owner", "org"),
            row("dave", "member", "direct"),
        ]
    );
    // Lists by organization too; `?owner=` narrows to the org's.
    assert_eq!(w.labels(&w.bob, "").await, vec!["acme/mono".to_owned()]);
    assert_eq!(
        w.labels(&w.bob, "?owner=acme").await,
        vec!["acme/mono".to_owned()]
    );
    let home = w.app.get_json(&w.bob, "/v1/monorepos?summary=1").await;
    assert_eq!(home["items"][0]["full_name"], "acme/mono");
    let page = w.app.get_json(&w.carol, "/v1/events").await;
    assert!(
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["monorepo"] == "acme/mono"),
        "{page}"
    );

    // An org's monorepo needs no owner row: ann's own may go, the org's owners remain.
    let r = w
        .send(
            Method::DELETE,
            "/v1/monorepos/acme/mono/members/ann",
            &w.ann,
            None,
        )
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(w.role(&w.ann, "acme/mono").await, Ok("owner".into()));
    // bob has no row of his own to remove: the org's access is not the monorepo's.
    let r = w
        .send(
            Method::DELETE,
            "/v1/monorepos/acme/mono/members/bob",
            &w.carol,
            None,
        )
        .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn creating_in_an_org_namespace_takes_being_in_the_org() {
    let w = world().await;
    w.org_member("bob", "member").await;
    let r = w
        .send(
            Method::POST,
            "/v1/monorepos",
            &w.bob,
            Some(json!({"name": "tools", "owner": "acme"})),
        )
        .await;
    let created: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(created["full_name"], "acme/tools");
    // ann owns the org, so the new monorepo.
    assert_eq!(w.role(&w.ann, "acme/tools").await, Ok("owner".into()));
    let r = w
        .send(
            Method::POST,
            "/v1/monorepos",
            &w.dave,
            Some(json!({"name": "x", "owner": "acme"})),
        )
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "not_your_namespace").await;

    // An old label in the org's namespace is given away by an org owner only.
    let r = w
        .send(
            Method::PATCH,
            "/v1/monorepos/acme/tools",
            &w.ann,
            Some(json!({"name": "tools2"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = w
        .send(
            Method::POST,
            "/v1/monorepos",
            &w.bob,
            Some(json!({"name": "tools", "owner": "acme"})),
        )
        .await;
    expect_error(r, StatusCode::CONFLICT, "monorepo_exists").await;
    let r = w
        .send(
            Method::POST,
            "/v1/monorepos",
            &w.ann,
            Some(json!({"name": "tools", "owner": "acme"})),
        )
        .await;
    let created: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(created["replaced_alias"], "acme/tools");
}

#[tokio::test]
async fn an_own_owner_row_outlasts_the_org_role() {
    let w = world().await;
    w.org_member("bob", "owner").await;
    w.app
        .monorepo(&w.ann, json!({"name": "mono", "owner": "acme"}))
        .await;
    let r = w
        .send(
            Method::PUT,
            "/v1/monorepos/acme/mono/members/bob",
            &w.ann,
            Some(json!({"role": "owner"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    w.org_member("bob", "member").await;
    assert_eq!(w.role(&w.bob, "acme/mono").await, Ok("owner".into()));
    w.leave_org("bob").await;
    assert_eq!(w.role(&w.bob, "acme/mono").await, Ok("owner".into()));
    assert_eq!(
        w.members("acme/mono").await,
        vec![row("ann", "owner", "direct"), row("bob", "owner", "direct")]
    );
}

#[tokio::test]
async fn leaving_the_org_ends_api_git_and_socket_access() {
    let w = world().await;
    w.org_member("bob", "member").await;
    w.app
        .monorepo(&w.ann, json!({"name": "mono", "owner": "acme"}))
        .await;
    let url = w.app.repo(&w.ann, "acme/mono", "app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let git = Git::new(&w.bob);
    git.ok(git.home.path(), &["clone", "-q", &url, "before"]);

    let mut events = w.app.ws("/v1/monorepos/acme/mono/events", &w.bob).await;
    assert_eq!(events.next().await["type"], "caught_up");
    let mut activity = w.app.ws("/v1/events", &w.bob).await;
    activity.send_json(&json!({"type": "hello"})).await;
    activity.until("caught_up").await;

    let removed = std::time::Instant::now();
    w.leave_org("bob").await;
    assert_eq!(
        w.role(&w.bob, "acme/mono").await,
        Err(StatusCode::NOT_FOUND)
    );
    let out = git.run(git.home.path(), &["clone", "-q", &url, "after"]);
    assert!(!out.status.success(), "{}", all_output(&out));
    assert_eq!(events.closed().await, Closed::Code(4403));
    let (left, _) = activity.until("left").await;
    assert_eq!(left["monorepo"], "acme/mono");
    assert!(removed.elapsed() < std::time::Duration::from_secs(15));
    assert!(w.labels(&w.bob, "").await.is_empty());
    let page = w.app.get_json(&w.bob, "/v1/events").await;
    assert_eq!(page["items"], json!([]));
}

/// Two server processes on one PostgreSQL: bob is removed from the org through one while
/// his sockets are held by the other, which closes them within the 15 s (at once through
/// the `svc_access` NOTIFY; its periodic re-checks are the backstop). On SQLite there is
/// one process: skipped.
#[tokio::test]
async fn removal_through_one_server_ends_access_on_another() {
    let w = world().await;
    if !w.app.config.database_url.starts_with("postgres") {
        return;
    }
    w.org_member("bob", "member").await;
    w.app
        .monorepo(&w.ann, json!({"name": "mono", "owner": "acme"}))
        .await;
    let twin = w.app.twin().await;
    let mut events = twin.ws("/v1/monorepos/acme/mono/events", &w.bob).await;
    assert_eq!(events.next().await["type"], "caught_up");
    let mut activity = twin.ws("/v1/events", &w.bob).await;
    activity.send_json(&json!({"type": "hello"})).await;
    activity.until("caught_up").await;

    let removed = std::time::Instant::now();
    w.leave_org("bob").await;
    let r = twin
        .as_user(Method::GET, "/v1/monorepos/acme/mono", &w.bob)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(events.closed().await, Closed::Code(4403));
    let (left, _) = activity.until("left").await;
    assert_eq!(left["monorepo"], "acme/mono");
    assert!(removed.elapsed() < std::time::Duration::from_secs(15));
}

#[tokio::test]
async fn transfers_into_and_out_of_an_org() {
    let w = world().await;
    w.org_member("bob", "member").await;
    w.app.monorepo(&w.ann, json!({"name": "solo"})).await;
    assert_eq!(w.role(&w.bob, "ann/solo").await, Err(StatusCode::NOT_FOUND));

    // Into an org the caller is not in: 403; into acme: its people gain it.
    let r = w
        .send(
            Method::POST,
            "/v1/orgs",
            &w.dave,
            Some(json!({"login": "other"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = w
        .send(
            Method::PATCH,
            "/v1/monorepos/ann/solo",
            &w.ann,
            Some(json!({"owner": "other"})),
        )
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "not_your_namespace").await;
    let r = w
        .send(
            Method::PATCH,
            "/v1/monorepos/ann/solo",
            &w.ann,
            Some(json!({"owner": "acme"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(w.role(&w.bob, "acme/solo").await, Ok("member".into()));
    let mut events = w.app.ws("/v1/monorepos/acme/solo/events", &w.bob).await;
    assert_eq!(events.next().await["type"], "caught_up");

    // Out of it, to a person: they need their own owner row first.
    let r = w
        .send(
            Method::PATCH,
            "/v1/monorepos/acme/solo",
            &w.ann,
            Some(json!({"owner": "carol"})),
        )
        .await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_owner").await;
    let r = w
        .send(
            Method::PUT,
            "/v1/monorepos/acme/solo/members/carol",
            &w.ann,
            Some(json!({"role": "owner"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = w
        .send(
            Method::PATCH,
            "/v1/monorepos/acme/solo",
            &w.ann,
            Some(json!({"owner": "carol"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    // The org's people lose it; its own members stay.
    assert_eq!(
        w.role(&w.bob, "carol/solo").await,
        Err(StatusCode::NOT_FOUND)
    );
    assert_eq!(events.closed().await, Closed::Code(4403));
    assert_eq!(w.role(&w.carol, "carol/solo").await, Ok("owner".into()));
    assert_eq!(w.role(&w.ann, "carol/solo").await, Ok("owner".into()));
}
