//! Browser sign-in (the local provider and an OpenID Connect provider), the session
//! cookie, the Origin check on its writes, and the sign-in pages in a real Chromium.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use reqwest::{Method, Response, StatusCode, header};
use serde_json::{Value, json};
use svc_protocol::login::LoggedOut;
use svc_protocol::user::{CredentialList, User};
use svc_tests::browser::Browser;
use svc_tests::fake_oidc::{FakeOidc, Person};
use svc_tests::machine::Machine;
use svc_tests::{KillOnDrop, TestApp, expect_error, expect_json};

/// The `Set-Cookie` of `r` that sets the cookie `name`, if any.
fn set_cookie(r: &Response, name: &str) -> Option<String> {
    r.headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap())
        .find(|v| v.split_once('=').is_some_and(|(n, _)| n == name))
        .map(str::to_owned)
}

/// `set`'s `name=value`, checking that it is a `__Host-` cookie living `max_age` seconds.
fn host_cookie(set: &str, max_age: u32) -> String {
    for attr in [
        "Secure",
        "HttpOnly",
        "SameSite=Lax",
        "Path=/",
        &format!("Max-Age={max_age}"),
    ] {
        assert!(
            set.split("; ").any(|a| a == attr),
            "{attr} missing from {set}"
        );
    }
    assert!(!set.contains("Domain="), "host-only: {set}");
    set.split(';').next().unwrap().to_owned()
}

/// The session cookie's `name=value` from a `Set-Cookie`, checking its attributes.
fn session_from(r: &Response) -> String {
    let set = set_cookie(r, "__Host-svc_session").expect("the session cookie");
    let pair = host_cookie(&set, 2_592_000);
    assert!(pair.starts_with("__Host-svc_session=svc_"), "{pair}");
    pair
}

async fn password_login(app: &TestApp, login: &str, password: &str) -> Response {
    app.request(Method::POST, "/v1/login/password")
        .header(header::ORIGIN, app.origin())
        .json(&json!({"login": login, "password": password}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn local_password_sign_in_and_the_origin_check() {
    let app = TestApp::start().await;
    let made = app
        .bootstrap(json!({"email": "web@example.com", "password": "correct horse"}))
        .await;

    // Signing in is itself a cookie-setting write: a foreign page may not do it.
    let r = app
        .request(Method::POST, "/v1/login/password")
        .header(header::ORIGIN, "https://evil.example")
        .json(&json!({"login": "web", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "bad_origin").await;
    expect_error(
        password_login(&app, "web", "wrong horse").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;
    expect_error(
        password_login(&app, "nobody", "correct horse").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    )
    .await;

    let r = password_login(&app, "WEB@example.com", "correct horse").await;
    let cookie = session_from(&r);
    let me: User = expect_json(r, StatusCode::OK).await;
    assert_eq!(me.login, made.user.login);

    // Reads need no Origin; writes and upgrades need ours.
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let patch = json!({"name": "Web"});
    let r = app
        .request(Method::PATCH, "/v1/user")
        .header(header::COOKIE, &cookie)
        .json(&patch)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "bad_origin").await;
    let r = app
        .request(Method::PATCH, "/v1/user")
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, "http://127.0.0.1:1")
        .json(&patch)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "bad_origin").await;
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie)
        .header(header::UPGRADE, "websocket")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "bad_origin").await;
    let r = app
        .request(Method::PATCH, "/v1/user")
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, app.origin())
        .json(&patch)
        .send()
        .await
        .unwrap();
    let me: User = expect_json(r, StatusCode::OK).await;
    assert_eq!(me.name.as_deref(), Some("Web"));

    // The cookie's credential is a browser session: listed, but never a Bearer token.
    let session_token = cookie.split_once('=').unwrap().1;
    let r = app
        .as_user(Method::GET, "/v1/user", session_token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app
        .as_user(Method::GET, "/v1/user/credentials", &made.credential.token)
        .send()
        .await
        .unwrap();
    let list: CredentialList = expect_json(r, StatusCode::OK).await;
    assert!(
        list.items
            .iter()
            .any(|c| c.kind == svc_protocol::user::CredentialKind::Browser)
    );
    // Nor does a Bearer credential work as the cookie.
    let r = app
        .request(Method::GET, "/v1/user")
        .header(
            header::COOKIE,
            format!("__Host-svc_session={}", made.credential.token),
        )
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;

    // Sign-out ends the session and clears the cookie.
    let r = app
        .request(Method::POST, "/v1/logout")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "bad_origin").await;
    let r = app
        .request(Method::POST, "/v1/logout")
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, app.origin())
        .send()
        .await
        .unwrap();
    let cleared = r
        .headers()
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cleared.starts_with("__Host-svc_session=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    let out: LoggedOut = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        out.end_session_url, None,
        "the local provider has no session of its own"
    );
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

/// The local provider's sign-in page for `return_to`.
async fn login_page(app: &TestApp, return_to: &str) -> String {
    let query: String = url::form_urlencoded::byte_serialize(return_to.as_bytes()).collect();
    let r = app
        .request(Method::GET, &format!("/login?return_to={query}"))
        .send()
        .await
        .unwrap();
    r.text().await.unwrap()
}

#[tokio::test]
async fn without_a_provider_the_browser_goes_to_the_password_page() {
    let app = TestApp::start().await;
    let r = app
        .request(Method::GET, "/v1/login/browser?return_to=/login/device")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()[header::LOCATION],
        "/login?return_to=%2Flogin%2Fdevice"
    );
    let r = app
        .request(Method::GET, "/login?return_to=/login/device")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains(r#"<form id="f" method="post" action="/login">"#),
        "{html}"
    );
    assert!(
        html.contains(r#"name="return_to" value="/login/device""#),
        "{html}"
    );
    assert!(
        !html.contains("<script"),
        "the form needs no script: {html}"
    );

    // Where to go next is an attribute, escaped as one; never a foreign place.
    let html = login_page(&app, "/login/device?user_code=\"><script>x</script>").await;
    assert!(
        html.contains(
            r#"name="return_to" value="/login/device?user_code=&#34;&#62;&#60;script&#62;x&#60;/script&#62;""#
        ),
        "{html}"
    );
    for foreign in ["/\\evil.example", "//evil.example", "https://evil.example"] {
        assert!(
            login_page(&app, foreign)
                .await
                .contains(r#"name="return_to" value="/""#),
            "{foreign}"
        );
    }
}

#[tokio::test]
async fn the_device_page_asks_for_a_session_then_shows_the_code() {
    let app = TestApp::start().await;
    app.bootstrap(json!({"email": "page@example.com", "password": "page password"}))
        .await;
    let r = app
        .request(Method::GET, "/login/device?user_code=BCDF-GHJK")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let to = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
    assert!(
        to.starts_with("/v1/login/browser?return_to=%2Flogin%2Fdevice"),
        "{to}"
    );
    let cookie = session_from(&password_login(&app, "page", "page password").await);
    let r = app
        .request(Method::GET, "/login/device?user_code=BCDF-GHJK")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("BCDF-GHJK")
            && html.contains("page")
            && html.contains(r#"action="/login/device""#)
    );
    let r = app
        .request(Method::GET, "/login/device?user_code=%3Cscript%3E")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert!(
        !r.text().await.unwrap().contains("value=\"<script>"),
        "the code is escaped"
    );
}

/// The sign-in and device pages' forms, as a browser without JavaScript sends them: a
/// wrong password shows the form again with the reason (and the login typed); a right
/// one sets the session cookie and goes to where the form said, only on this host; a
/// foreign `Origin` is refused; the device form approves the code once.
#[tokio::test]
async fn the_sign_in_and_device_forms_work_without_javascript() {
    let app = TestApp::start().await;
    app.bootstrap(json!({"email": "form@example.com", "password": "form password"}))
        .await;
    let origin = app.origin();
    let fields = |password| {
        vec![
            ("login", "form"),
            ("password", password),
            ("return_to", "/login/device?user_code=BCDF-GHJK"),
        ]
    };
    let r = app
        .post_form("", origin, "/login", &fields("wrong password"))
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(set_cookie(&r, "__Host-svc_session").is_none());
    let html = r.text().await.unwrap();
    assert!(html.contains("wrong login or password"), "{html}");
    assert!(html.contains(r#"name="login" value="form""#), "{html}");

    let r = app
        .post_form(
            "",
            "https://evil.example",
            "/login",
            &fields("form password"),
        )
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(set_cookie(&r, "__Host-svc_session").is_none());

    let r = app
        .post_form("", origin, "/login", &fields("form password"))
        .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()[header::LOCATION],
        "/login/device?user_code=BCDF-GHJK"
    );
    let cookie = session_from(&r);
    let foreign = [
        ("login", "form"),
        ("password", "form password"),
        ("return_to", "//evil.example/x"),
    ];
    let r = app.post_form("", origin, "/login", &foreign).await;
    assert_eq!(r.headers()[header::LOCATION], "/", "never another host");

    // A machine asks; the signed-in person approves its code with the form.
    let r = app
        .request(Method::POST, "/v1/login/device")
        .json(&json!({"machine": "laptop"}))
        .send()
        .await
        .unwrap();
    let code: Value = expect_json(r, StatusCode::OK).await;
    let user_code = code["user_code"].as_str().unwrap();
    let approve = [("user_code", user_code), ("machine", ""), ("approve", "1")];
    let r = app.post_form("", origin, "/login/device", &approve).await;
    assert_eq!(
        r.status(),
        StatusCode::SEE_OTHER,
        "no session: sign in first"
    );
    let r = app
        .post_form(&cookie, origin, "/login/device", &approve)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("Approved: laptop is signing in.") && !html.contains("<form"),
        "{html}"
    );
    let r = app
        .post_form(&cookie, origin, "/login/device", &approve)
        .await;
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("already approved or denied"),
        "a code is decided once"
    );
}

/// A browser beginning provider sign-in: the provider's address it is sent to and the
/// login cookie (`name=value`) that binds the sign-in to it.
async fn begin_sign_in(app: &TestApp, return_to: &str) -> (String, String) {
    let r = app
        .request(
            Method::GET,
            &format!("/v1/login/browser?return_to={return_to}"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER, "{:?}", r.text().await);
    let authorize = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
    let set = set_cookie(&r, "__Host-svc_login").expect("the login cookie");
    let pair = host_cookie(&set, 600);
    assert!(pair.len() > "__Host-svc_login=".len() + 32, "{pair}");
    (authorize, pair)
}

/// The provider signs its person in and answers the callback address it sends the
/// browser back to.
async fn at_provider(app: &TestApp, authorize: &str) -> String {
    let r = app.client.get(authorize).send().await.unwrap();
    assert!(r.status().is_redirection(), "provider said {}", r.status());
    let callback = r.headers()[header::LOCATION].to_str().unwrap().to_owned();
    assert!(
        callback.starts_with(&app.url("/v1/login/callback?")),
        "{callback}"
    );
    callback
}

/// The callback address opened in a browser holding `cookie` (none: a browser without).
async fn open_callback(app: &TestApp, callback: &str, cookie: Option<&str>) -> Response {
    let mut request = app.client.get(callback);
    if let Some(cookie) = cookie {
        request = request.header(header::COOKIE, cookie);
    }
    request.send().await.unwrap()
}

/// Walks one browser through provider sign-in and answers the final redirect.
async fn provider_sign_in(app: &TestApp, return_to: &str) -> Response {
    let (authorize, cookie) = begin_sign_in(app, return_to).await;
    let callback = at_provider(app, &authorize).await;
    open_callback(app, &callback, Some(&cookie)).await
}

#[tokio::test]
async fn openid_connect_sign_in_creates_then_finds_the_person() {
    let provider = FakeOidc::start().await;
    let app = TestApp::builder().oidc(provider.settings()).start().await;
    provider.sign_in_as(Person {
        sub: "p-1".into(),
        email: Some("Lin.Ma@Example.com".into()),
        email_verified: true,
        name: Some("Lin Ma".into()),
    });
    let r = provider_sign_in(&app, "/login/device").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()[header::LOCATION], "/login/device");
    let cookie = session_from(&r);
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    let me: User = expect_json(r, StatusCode::OK).await;
    assert_eq!(me.login, "lin-ma", "derived from the email's local part");
    assert_eq!(me.email.as_deref(), Some("lin.ma@example.com"));
    assert_eq!(me.name.as_deref(), Some("Lin Ma"));

    // The same subject signs in as the same person; a foreign return_to goes home.
    provider.sign_in_as(Person {
        sub: "p-1".into(),
        email: None,
        email_verified: false,
        name: None,
    });
    let r = provider_sign_in(&app, "https://evil.example/").await;
    assert_eq!(r.headers()[header::LOCATION], "/");
    let cookie2 = session_from(&r);
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie2)
        .send()
        .await
        .unwrap();
    assert_eq!(expect_json::<User>(r, StatusCode::OK).await.login, "lin-ma");

    // Another subject with an unverified email is someone new; the login moves on.
    provider.sign_in_as(Person {
        sub: "p-2".into(),
        email: Some("lin.ma@other.example".into()),
        email_verified: false,
        name: None,
    });
    let r = provider_sign_in(&app, "/").await;
    let cookie3 = session_from(&r);
    let r = app
        .request(Method::GET, "/v1/user")
        .header(header::COOKIE, &cookie3)
        .send()
        .await
        .unwrap();
    assert_eq!(
        expect_json::<User>(r, StatusCode::OK).await.login,
        "lin-ma-2"
    );

    // A state works once.
    let r = app
        .request(Method::GET, "/v1/login/callback?code=code-0&state=replayed")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;

    // Signing out points at the provider's own sign-out.
    let r = app
        .request(Method::POST, "/v1/logout")
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, app.origin())
        .send()
        .await
        .unwrap();
    let out: LoggedOut = expect_json(r, StatusCode::OK).await;
    assert!(
        out.end_session_url
            .unwrap()
            .starts_with(&format!("{}/logout", provider.issuer))
    );
}

#[tokio::test]
async fn a_provider_name_git_refuses_signs_in_cleaned_and_merges() {
    let provider = FakeOidc::start().await;
    let app = TestApp::builder().oidc(provider.settings()).start().await;
    provider.sign_in_as(Person {
        sub: "p-odd".into(),
        email: Some("mal<lory>@example.com".into()),
        email_verified: true,
        name: Some("Mallory <root@evil>\nSigned-off-by: x".into()),
    });
    let r = provider_sign_in(&app, "/").await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let cookie = session_from(&r);
    // A machine credential of theirs, for the API and git.
    let r = app
        .request(Method::POST, "/v1/user/credentials")
        .header(header::COOKIE, &cookie)
        .header(header::ORIGIN, app.origin())
        .json(&json!({"name": "laptop", "kind": "machine"}))
        .send()
        .await
        .unwrap();
    let made: Value = expect_json(r, StatusCode::CREATED).await;
    let token = made["token"].as_str().unwrap().to_owned();
    let me: User = expect_json(
        app.as_user(Method::GET, "/v1/user", &token)
            .send()
            .await
            .unwrap(),
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        me.name.as_deref(),
        Some("Mallory root@evilSigned-off-by: x")
    );
    assert_eq!(me.email, None, "an email git cannot write is not taken");

    // The person merges like anyone.
    let login = me.login;
    app.monorepo(&token, json!({"name": "mono"})).await;
    let repo = app.repo(&token, &format!("{login}/mono"), "app").await;
    let git = svc_tests::git::Git::new(&token);
    let url = repo["clone_url"].as_str().unwrap();
    git.ok(git.home.path(), &["clone", "-q", url, "work"]);
    let work = git.path("work");
    git.commit(&work, "first", &[("a.txt", b"a\n")]);
    git.ok(&work, &["push", "-q", "origin", "main"]);
    git.ok(&work, &["checkout", "-q", "-b", "topic"]);
    git.commit(&work, "topic", &[("b.txt", b"b\n")]);
    git.ok(&work, &["push", "-q", "origin", "topic"]);
    let r = app
        .as_user(
            Method::POST,
            &format!("/v1/monorepos/{login}/mono/repos/app/branches/topic/merge"),
            &token,
        )
        .send()
        .await
        .unwrap();
    let merged: Value = expect_json(r, StatusCode::OK).await;
    git.ok(&work, &["fetch", "-q", "origin"]);
    let sha = merged["sha"].as_str().unwrap();
    assert_eq!(
        git.ok(&work, &["log", "-1", "--format=%an", sha]).trim(),
        "Mallory root@evilSigned-off-by: x"
    );
}

#[tokio::test]
async fn a_provider_refusal_is_an_error_not_a_session() {
    let provider = FakeOidc::start().await;
    let app = TestApp::builder().oidc(provider.settings()).start().await;
    let r = app
        .request(
            Method::GET,
            "/v1/login/callback?error=access_denied&state=x",
        )
        .send()
        .await
        .unwrap();
    assert!(r.headers().get(header::SET_COOKIE).is_none());
    let body: Value = expect_json(r, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["error"]["code"], "access_denied");
}

fn person(sub: &str) -> Person {
    Person {
        sub: sub.into(),
        email: Some(format!("{sub}@example.com")),
        email_verified: true,
        name: None,
    }
}

/// Login CSRF: someone completes a sign-in at the provider as themselves and sends the
/// callback address to another person. Only the browser that began a sign-in (its
/// `__Host-svc_login` cookie) may finish it.
#[tokio::test]
async fn a_sign_in_finishes_only_in_the_browser_that_began_it() {
    let provider = FakeOidc::start().await;
    let app = TestApp::builder().oidc(provider.settings()).start().await;
    let signed_in_as = |cookie: String| {
        let request = app.request(Method::GET, "/v1/user");
        async move {
            let r = request.header(header::COOKIE, cookie).send().await.unwrap();
            expect_json::<User>(r, StatusCode::OK).await.login
        }
    };

    // The attacker begins, signs in at the provider, and sends the callback address to a
    // victim whose browser has no sign-in going: nobody is signed in there.
    provider.sign_in_as(person("mallory"));
    let (authorize, mallory_cookie) = begin_sign_in(&app, "/").await;
    let callback = at_provider(&app, &authorize).await;
    let r = open_callback(&app, &callback, None).await;
    assert_eq!(set_cookie(&r, "__Host-svc_session"), None);
    expect_error(r, StatusCode::FORBIDDEN, "wrong_browser").await;
    // The address has leaked, so it is used up: not even its own browser finishes it.
    let r = open_callback(&app, &callback, Some(&mallory_cookie)).await;
    assert_eq!(set_cookie(&r, "__Host-svc_session"), None);
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;

    // A victim in the middle of a sign-in of their own carries another browser's cookie.
    let (victim_authorize, victim_cookie) = begin_sign_in(&app, "/victim").await;
    provider.sign_in_as(person("mallory"));
    let (authorize, _) = begin_sign_in(&app, "/").await;
    let callback = at_provider(&app, &authorize).await;
    let r = open_callback(&app, &callback, Some(&victim_cookie)).await;
    assert_eq!(set_cookie(&r, "__Host-svc_session"), None);
    expect_error(r, StatusCode::FORBIDDEN, "wrong_browser").await;
    // A cookie of the right name with another value is another browser too.
    provider.sign_in_as(person("mallory"));
    let (authorize, _) = begin_sign_in(&app, "/").await;
    let callback = at_provider(&app, &authorize).await;
    let r = open_callback(&app, &callback, Some("__Host-svc_login=")).await;
    expect_error(r, StatusCode::FORBIDDEN, "wrong_browser").await;

    // The victim's own sign-in still finishes, in the victim's browser, as the victim;
    // the login cookie is cleared with it.
    provider.sign_in_as(person("victim"));
    let victim_callback = at_provider(&app, &victim_authorize).await;
    let r = open_callback(&app, &victim_callback, Some(&victim_cookie)).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()[header::LOCATION], "/victim");
    let cleared = set_cookie(&r, "__Host-svc_login").expect("the login cookie cleared");
    assert_eq!(host_cookie(&cleared, 0), "__Host-svc_login=");
    assert_eq!(signed_in_as(session_from(&r)).await, "victim");

    // And the attacker's browser, which began its own, is signed in as the attacker.
    provider.sign_in_as(person("mallory"));
    let (authorize, cookie) = begin_sign_in(&app, "/").await;
    let callback = at_provider(&app, &authorize).await;
    let r = open_callback(&app, &callback, Some(&cookie)).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert!(set_cookie(&r, "__Host-svc_login").is_some_and(|c| c.contains("Max-Age=0")));
    assert_eq!(signed_in_as(session_from(&r)).await, "mallory");
}

/// What a person does: `svc login --no-browser`, open the printed address in Chromium
/// (JavaScript off: the pages are plain forms),
/// sign in with the password, type the code, approve; the CLI says it is logged in.
#[tokio::test]
async fn svc_login_finishes_in_a_real_browser() {
    // Without JavaScript: the sign-in and device pages are plain forms.
    let Some(browser) = Browser::launch_without_scripts().await else {
        return;
    };
    let app = TestApp::builder().device_flow(900, 1).start().await;
    app.bootstrap(json!({"email": "chrome@example.com", "password": "correct horse"}))
        .await;
    let machine = Machine::new();
    let mut cli = KillOnDrop(
        machine
            .svc(&["login", "--server", &app.base, "--no-browser"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut said = BufReader::new(cli.0.stdout.take().unwrap()).lines();
    let first = said.next().unwrap().unwrap();
    let code = first
        .strip_prefix("First copy your one-time code: ")
        .unwrap_or_else(|| panic!("{first}"))
        .to_owned();
    let second = said.next().unwrap().unwrap();
    let url = second
        .strip_prefix("Then open ")
        .and_then(|s| s.strip_suffix(" and approve it."))
        .unwrap_or_else(|| panic!("{second}"))
        .to_owned();
    assert_eq!(url, app.url("/login/device"));

    // No session yet: the device page sends the browser to the password page.
    browser.goto(&url).await;
    browser.wait_for_path("/login").await;
    browser.fill("#login", "chrome").await;
    browser.fill("#password", "wrong horse").await;
    browser.click("#f button").await;
    browser
        .wait_for_text("#msg", "wrong login or password")
        .await;
    browser.fill("#password", "correct horse").await;
    browser.click("#f button").await;

    // Signed in, back on the device page: type the code and approve.
    browser.wait_for_path("/login/device").await;
    browser.wait_for_text("main", "Signed in as chrome").await;
    browser.fill("#code", &code).await;
    browser.click("#f button[value='1']").await;
    browser.wait_for_text("#msg", "Approved").await;

    let rest: Vec<String> = said.map(Result::unwrap).collect();
    let status = tokio::task::spawn_blocking(move || cli.0.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{rest:?}");
    assert!(
        rest.iter()
            .any(|l| l == &format!("Logged in to {} as chrome", app.base)),
        "{rest:?}"
    );
    browser.close().await;
}
