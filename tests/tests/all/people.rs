//! People on a self-hosted server: `svc-server user add` and its sign-in link, the admin
//! API and `svc admin`, invite links (shown, or mailed through `[smtp]`), `svc member`,
//! sign-up, and disabling a person.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode, header};
use serde_json::{Value, json};
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;
use svc_tests::smtp_sink::SmtpSink;
use svc_tests::ws::Closed;
use svc_tests::{TestApp, expect_error, expect_json, workspace_bin};

const PASSWORD: &str = "correct horse battery";

/// `svc-server` on the test server's database, as its operator runs it.
fn operator(app: &TestApp, args: &[&str]) -> Output {
    Command::new(workspace_bin("svc-server"))
        .env_remove("SVC_CONFIG")
        .env_remove("SVC_BOOTSTRAP_SECRET")
        .arg("--database-url")
        .arg(&app.config.database_url)
        .arg("--data-dir")
        .arg(&app.config.data_dir)
        .arg("--base-url")
        .arg(&app.base)
        .args(args)
        .output()
        .unwrap()
}

/// `svc` with `token` against `app`, insisting on success; answers stdout.
fn svc(app: &TestApp, machine: &Machine, token: &str, args: &[&str]) -> String {
    let out = svc_run(app, machine, token, args);
    assert!(out.status.success(), "svc {args:?}: {}", all_output(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn svc_run(app: &TestApp, machine: &Machine, token: &str, args: &[&str]) -> Output {
    machine
        .svc(args)
        .env("SVC_TOKEN", token)
        .env("SVC_SERVER", &app.base)
        .output()
        .unwrap()
}

/// The sign-in link in `text` (the first `http...://.../login/link/<token>`).
fn link_in(app: &TestApp, text: &str) -> String {
    let start = text
        .find(&format!("{}/login/link/", app.base))
        .unwrap_or_else(|| panic!("no sign-in link in {text:?}"));
    text[start..]
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap()
        .to_owned()
}

/// The session cookie a response sets, as a `Cookie` header value.
fn session_cookie(r: &Response) -> String {
    r.headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("__Host-svc_session="))
        .map(|v| v.split(';').next().unwrap().to_owned())
        .expect("a session cookie")
}

async fn page(app: &TestApp, url: &str) -> (StatusCode, String) {
    let r = app.client.get(url).send().await.unwrap();
    (r.status(), r.text().await.unwrap())
}

/// Posts a sign-in form as a page of this service does (with its Origin).
async fn post_form(app: &TestApp, url: &str, form: &[(&str, &str)]) -> Response {
    post_form_from(app, url, app.origin(), form).await
}

/// Posts a form as a page of `origin` would, urlencoded as a browser sends it.
async fn post_form_from(app: &TestApp, url: &str, origin: &str, form: &[(&str, &str)]) -> Response {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    app.client
        .post(url)
        .header(header::ORIGIN, origin)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap()
}

/// Whose session `cookie` is (`GET /v1/user`).
async fn who(app: &TestApp, cookie: &str) -> Value {
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, cookie)
        .send()
        .await
        .unwrap();
    expect_json(r, StatusCode::OK).await
}

async fn password_sign_in(app: &TestApp, login: &str, password: &str) -> Response {
    app.request(Method::POST, "/v1/login/password")
        .header(header::ORIGIN, app.origin())
        .json(&json!({"login": login, "password": password}))
        .send()
        .await
        .unwrap()
}

async fn first_admin(app: &TestApp) -> String {
    app.bootstrap(json!({"email": "alice@example.com", "login": "alice"}))
        .await
        .credential
        .token
}

#[tokio::test]
async fn user_add_prints_a_link_where_the_person_sets_a_password() {
    let app = TestApp::start().await;
    first_admin(&app).await;
    let out = operator(&app, &["user", "add", "bob@example.com", "--login", "bob"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        printed.contains("Created user bob <bob@example.com>"),
        "{printed}"
    );
    let link = link_in(&app, &printed);

    let (status, form) = page(&app, &link).await;
    assert_eq!(status, StatusCode::OK, "{form}");
    assert!(
        form.contains("Set your password") && form.contains("bob"),
        "{form}"
    );
    assert!(form.contains("<form method=\"post\">"), "{form}");

    // Another site's page cannot use it, and the two passwords must agree.
    let r = post_form_from(
        &app,
        &link,
        "http://evil.example",
        &[("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = post_form(
        &app,
        &link,
        &[("password", PASSWORD), ("password_again", "something else")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.text().await.unwrap().contains("The two passwords differ"));

    let r = post_form(
        &app,
        &link,
        &[("password", PASSWORD), ("password_again", PASSWORD)],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()[header::LOCATION], "/");
    let cookie = session_cookie(&r);
    assert_eq!(who(&app, &cookie).await["login"], "bob");

    // The link worked once; the password works from now on.
    let (status, used) = page(&app, &link).await;
    assert_eq!(status, StatusCode::GONE);
    assert!(used.contains("used already"), "{used}");
    let r = password_sign_in(&app, "bob", PASSWORD).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (status, _) = page(&app, &format!("{}/login/link/nonsense", app.base)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The operator's list: alice, the first person, runs the server.
    let out = operator(&app, &["user", "list"]);
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", all_output(&out));
    let alice = listed.lines().find(|l| l.starts_with("alice\t")).unwrap();
    let bob = listed.lines().find(|l| l.starts_with("bob\t")).unwrap();
    assert!(
        alice.contains("admin") && !bob.contains("admin"),
        "{listed}"
    );
    let out = operator(&app, &["user", "add", "bob@example.com"]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("already exists"),
        "{}",
        all_output(&out)
    );
}

#[tokio::test]
async fn the_admin_api_is_for_site_admins_and_answers_others_404() {
    let app = TestApp::start().await;
    let alice = first_admin(&app).await;
    let bob = app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    for (method, path) in [
        (Method::GET, "/v1/admin/users"),
        (Method::POST, "/v1/admin/users"),
        (Method::POST, "/v1/admin/users/alice/disable"),
        (Method::POST, "/v1/admin/users/alice/enable"),
    ] {
        let r = app
            .as_user(method.clone(), path, &bob)
            .json(&json!({"email": "x@example.com"}))
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }

    let r = app
        .as_user(Method::POST, "/v1/admin/users", &alice)
        .json(&json!({"email": "Carol@Example.com", "login": "carol", "name": "Carol", "admin": true}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(made["user"]["login"], "carol");
    assert_eq!(made["user"]["email"], "carol@example.com");
    assert_eq!(made["admin"], true);
    let link = made["sign_in_link"].as_str().unwrap();
    assert!(
        link.starts_with(&format!("{}/login/link/", app.base)),
        "{link}"
    );
    assert!(made["link_expires_at"].is_string());
    let r = app
        .as_user(Method::POST, "/v1/admin/users", &alice)
        .json(&json!({"email": "carol@example.com"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "email_taken").await;

    // Pages by login.
    let page1 = app.get_json(&alice, "/v1/admin/users?limit=2").await;
    let logins: Vec<&str> = page1["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["login"].as_str().unwrap())
        .collect();
    assert_eq!(logins, ["alice", "bob"]);
    assert_eq!(page1["items"][0]["admin"], true);
    assert_eq!(page1["items"][1]["admin"], false);
    assert_eq!(page1["items"][1]["disabled"], false);
    let cursor = page1["next_cursor"].as_str().unwrap();
    let page2 = app
        .get_json(&alice, &format!("/v1/admin/users?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(page2["items"][0]["login"], "carol");
    assert_eq!(page2["items"][0]["admin"], true);
    assert!(page2["next_cursor"].is_null());

    // The same from the CLI; bob is told nothing more than a missing route.
    let machine = Machine::new();
    let out = svc(
        &app,
        &machine,
        &alice,
        &[
            "admin",
            "user",
            "add",
            "dave@example.com",
            "--login",
            "dave",
        ],
    );
    assert!(
        out.contains("Created user dave <dave@example.com>"),
        "{out}"
    );
    link_in(&app, &out);
    let out = svc(&app, &machine, &alice, &["admin", "user", "list"]);
    assert!(
        out.contains("dave@example.com") && out.contains("carol"),
        "{out}"
    );
    let out = svc_run(&app, &machine, &bob, &["admin", "user", "list"]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("not found"),
        "{}",
        all_output(&out)
    );
}

#[tokio::test]
async fn an_invite_link_makes_the_account_and_the_memberships() {
    let app = TestApp::start().await;
    let alice = first_admin(&app).await;
    app.monorepo(&alice, json!({"name": "proj"})).await;
    let r = app
        .as_user(Method::POST, "/v1/orgs", &alice)
        .json(&json!({"login": "acme"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);

    // The monorepo invite from the CLI prints the link to pass on.
    let machine = Machine::new();
    let out = svc(
        &app,
        &machine,
        &alice,
        &["member", "invite", "erin@example.com", "-R", "alice/proj"],
    );
    assert!(
        out.contains("Invited erin@example.com to alice/proj as member"),
        "{out}"
    );
    let link = link_in(&app, &out);
    let invites = svc(
        &app,
        &machine,
        &alice,
        &["member", "invites", "-R", "alice/proj"],
    );
    assert!(invites.contains("erin@example.com"), "{invites}");
    // The org invite over the API answers its own link.
    let r = app
        .as_user(Method::POST, "/v1/orgs/acme/invites", &alice)
        .json(&json!({"email": "erin@example.com"}))
        .send()
        .await
        .unwrap();
    let answer: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(answer["status"], "invited");
    assert_eq!(answer["mailed"], false);
    let org_link = answer["sign_in_link"].as_str().unwrap().to_owned();
    assert_ne!(org_link, link);

    let (status, form) = page(&app, &link).await;
    assert_eq!(status, StatusCode::OK, "{form}");
    assert!(
        form.contains("alice invited <b>erin@example.com</b>"),
        "{form}"
    );
    assert!(form.contains("name=\"login\" value=\"erin\""), "{form}");
    // A taken login is said on the form, and the link still works.
    let r = post_form(
        &app,
        &link,
        &[
            ("login", "alice"),
            ("password", PASSWORD),
            ("password_again", PASSWORD),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(r.text().await.unwrap().contains("taken"));
    let r = post_form(
        &app,
        &link,
        &[
            ("login", "erin"),
            ("password", PASSWORD),
            ("password_again", PASSWORD),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let cookie = session_cookie(&r);
    assert_eq!(who(&app, &cookie).await["email"], "erin@example.com");

    // Both invites became memberships.
    let r = app
        .request(Method::GET, "/v1/monorepos/alice/proj")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let members = app.get_json(&alice, "/v1/orgs/acme/members").await;
    assert!(
        members["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["login"] == "erin")
    );
    let listed = svc(
        &app,
        &machine,
        &alice,
        &["member", "list", "-R", "alice/proj"],
    );
    assert!(listed.lines().any(|l| l.starts_with("erin ")), "{listed}");
    // The other link has nothing left to make.
    let (status, text) = page(&app, &org_link).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert!(text.contains("You have an account already"), "{text}");

    // The rest of svc member.
    let out = svc(
        &app,
        &machine,
        &alice,
        &["member", "remove", "erin", "-R", "alice/proj"],
    );
    assert!(out.contains("Removed erin from alice/proj"), "{out}");
    let out = svc(
        &app,
        &machine,
        &alice,
        &[
            "member",
            "add",
            "erin",
            "--role",
            "owner",
            "-R",
            "alice/proj",
        ],
    );
    assert!(out.contains("erin is now an owner of alice/proj"), "{out}");
    svc(
        &app,
        &machine,
        &alice,
        &["member", "invite", "zed@example.com", "-R", "alice/proj"],
    );
    let out = svc(
        &app,
        &machine,
        &alice,
        &["member", "uninvite", "zed@example.com", "-R", "alice/proj"],
    );
    assert!(
        out.contains("Withdrew the invite of zed@example.com"),
        "{out}"
    );
}

#[tokio::test]
async fn with_smtp_the_invite_link_is_mailed() {
    let sink = SmtpSink::start().await;
    let app = TestApp::builder().smtp(sink.port).start().await;
    let alice = first_admin(&app).await;
    let r = app
        .as_user(Method::POST, "/v1/orgs", &alice)
        .json(&json!({"login": "acme"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let machine = Machine::new();
    let out = svc(
        &app,
        &machine,
        &alice,
        &["org", "invite", "acme", "frank@example.com"],
    );
    assert!(
        out.contains("The server mailed frank@example.com a sign-in link"),
        "{out}"
    );
    assert!(!out.contains("/login/link/"), "{out}");

    let mail = sink.wait_for("frank@example.com").await;
    assert_eq!(mail.from, "svc@example.com");
    assert!(
        mail.data
            .contains("Subject: alice invited you to the organization acme on svc"),
        "{}",
        mail.data
    );
    let text = mail.text();
    assert!(
        text.contains("Open this link to choose your login and password"),
        "{text}"
    );
    let link = link_in(&app, &text);
    let r = post_form(
        &app,
        &link,
        &[
            ("login", "frank"),
            ("password", PASSWORD),
            ("password_again", PASSWORD),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let members = app.get_json(&alice, "/v1/orgs/acme/members").await;
    assert!(
        members["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["login"] == "frank")
    );
    // The API answer says mailed and shows no link.
    let r = app
        .as_user(Method::POST, "/v1/orgs/acme/invites", &alice)
        .json(&json!({"email": "gus@example.com"}))
        .send()
        .await
        .unwrap();
    let answer: Value = expect_json(r, StatusCode::CREATED).await;
    assert_eq!(answer["mailed"], true);
    assert!(answer.get("sign_in_link").is_none(), "{answer}");
    sink.wait_for("gus@example.com").await;
}

#[tokio::test]
async fn signup_is_closed_by_default_and_open_makes_an_unverified_account() {
    let closed = TestApp::start().await;
    let (status, _) = page(&closed, &closed.url("/signup")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let r = post_form(
        &closed,
        &closed.url("/signup"),
        &[("email", "x@example.com")],
    )
    .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let (_, login) = page(&closed, &closed.url("/login")).await;
    assert!(!login.contains("Create an account"), "{login}");

    let app = TestApp::builder().open_signup().start().await;
    let alice = first_admin(&app).await;
    app.monorepo(&alice, json!({"name": "proj"})).await;
    let r = app
        .as_user(Method::POST, "/v1/monorepos/alice/proj/invites", &alice)
        .json(&json!({"email": "gina@example.com"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let (_, login) = page(&app, &app.url("/login")).await;
    assert!(
        login.contains("<a href=\"/signup\">Create an account</a>"),
        "{login}"
    );
    let (status, form) = page(&app, &app.url("/signup")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(form.contains("name=\"email\""), "{form}");
    let r = post_form(
        &app,
        &app.url("/signup"),
        &[
            ("email", "gina@example.com"),
            ("login", "gina"),
            ("password", "short"),
            ("password_again", "short"),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let r = post_form(
        &app,
        &app.url("/signup"),
        &[
            ("email", "gina@example.com"),
            ("login", "gina"),
            ("password", PASSWORD),
            ("password_again", PASSWORD),
        ],
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let cookie = session_cookie(&r);
    assert_eq!(who(&app, &cookie).await["login"], "gina");
    // An email nobody vouched for accepts no invite.
    let r = app
        .request(Method::GET, "/v1/monorepos/alice/proj")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = password_sign_in(&app, "gina", PASSWORD).await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn disabling_a_person_ends_their_credentials_here_and_on_other_servers() {
    let app = TestApp::start().await;
    let alice = first_admin(&app).await;
    let bob = app
        .bootstrap(json!({"email": "bob@example.com", "login": "bob", "password": PASSWORD}))
        .await
        .credential
        .token;
    app.monorepo(&bob, json!({"name": "mono"})).await;
    let url = app.repo(&bob, "bob/mono", "services/app").await["clone_url"]
        .as_str()
        .unwrap()
        .to_owned();
    let git = Git::new(&bob);
    let home = git.home.path().to_owned();
    git.ok(&home, &["clone", &url, "before"]);
    let twin = if app.config.database_url.starts_with("postgres") {
        Some(app.twin().await)
    } else {
        None
    };
    let servers: Vec<&TestApp> = std::iter::once(&app).chain(twin.as_ref()).collect();
    for server in &servers {
        // Warm each server's credential cache: the disable must evict it.
        for _ in 0..2 {
            let r = server
                .as_user(Method::GET, "/v1/user", &bob)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
        }
    }
    // bob's open sockets, on each server.
    let mut sockets = Vec::new();
    for server in &servers {
        let mut ws = server.ws("/v1/monorepos/bob/mono/events", &bob).await;
        assert_eq!(ws.next().await["type"], "caught_up");
        sockets.push(ws);
    }
    // hank's sign-in link, made before the operator disables him.
    let out = operator(
        &app,
        &["user", "add", "hank@example.com", "--login", "hank"],
    );
    let hank_link = link_in(&app, &String::from_utf8_lossy(&out.stdout));

    let r = app
        .as_user(Method::POST, "/v1/admin/users/alice/disable", &alice)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = app
        .as_user(Method::POST, "/v1/admin/users/bob/disable", &alice)
        .send()
        .await
        .unwrap();
    let disabled: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(disabled["disabled"], true);

    let r = app
        .as_user(Method::GET, "/v1/user", &bob)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::UNAUTHORIZED,
        "at once on this server"
    );
    if let Some(twin) = &twin {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let r = twin
                .as_user(Method::GET, "/v1/user", &bob)
                .send()
                .await
                .unwrap();
            if r.status() == StatusCode::UNAUTHORIZED {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the twin still takes bob's token"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for ws in &mut sockets {
        assert_eq!(ws.closed().await, Closed::Code(4403), "bob's sockets close");
    }
    let out = git.run(&home, &["clone", &url, "after"]);
    assert!(!out.status.success(), "{}", all_output(&out));
    let r = password_sign_in(&app, "bob", PASSWORD).await;
    expect_error(r, StatusCode::FORBIDDEN, "account_disabled").await;
    let list = app.get_json(&alice, "/v1/admin/users").await;
    let row = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["login"] == "bob")
        .unwrap()
        .clone();
    assert_eq!(row["disabled"], true);

    // The operator disables hank: his link says so.
    let out = operator(&app, &["user", "disable", "hank"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let (status, text) = page(&app, &hank_link).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(text.contains("This account is disabled"), "{text}");

    // Enabled again, bob signs in afresh.
    let r = app
        .as_user(Method::POST, "/v1/admin/users/bob/enable", &alice)
        .send()
        .await
        .unwrap();
    let enabled: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(enabled["disabled"], false);
    let r = password_sign_in(&app, "bob", PASSWORD).await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .as_user(Method::GET, "/v1/user", &bob)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::UNAUTHORIZED,
        "his old token stays revoked"
    );
    if let Some(twin) = twin {
        twin.stop().await;
    }
}
