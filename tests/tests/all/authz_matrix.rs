//! The authorization matrix: every operation of the OpenAPI document × every kind of
//! caller, in one table. Each row names an operation (method and path template) and the
//! rule that guards it; [`expected`] turns a rule and a caller kind into the class of
//! answer the rules promise (allowed, 401, 403 with its code, 404). Every cell is sent to
//! one fixture world on one server and its answer compared with that class.
//!
//! "Allowed" means the answer is none of 401, 403 and 404 (nor 429 or a 5xx, which
//! would hide one): a 400, 409 or 422 from the operation's own rules still shows that
//! authorization let the caller through, though the bodies are chosen so that most
//! allowed cells are 2xx. A denied cell must be exactly its status, and a 403 its
//! `error.code`. An outsider's 404 must read as the 404 of a monorepo (or org) that does
//! not exist. The test fails, listing them, on an operation without a row and on a row
//! without an operation, so a new route cannot go unclassified.
//!
//! Writes that would destroy what later cells need re-make their target before each
//! allowed cell ([`Prep`]); denied cells hit the standing fixture, which must come out
//! of the run unchanged (checked at the end).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use reqwest::multipart::{Form, Part};
use reqwest::{Method, RequestBuilder, header};
use serde_json::{Value, json};
use svc_server::rate_limit::RateLimitSettings;
use svc_tests::fake_buildkite::FakeBuildkite;
use svc_tests::fake_oidc::FakeOidc;
use svc_tests::receiver::Receiver;
use svc_tests::{BOOTSTRAP_SECRET, TestApp};

const M: &str = "/v1/monorepos/acme/mono";
const R: &str = "/v1/monorepos/acme/mono/repos/app";
const PASSWORD: &str = "carol's long and secret password";
const FOREIGN_ORIGIN: &str = "https://evil.example";
/// What the monorepo and the org are called in a cell's twin that asks for a missing one.
const GHOST: &str = "ghst";

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// carol: a direct owner of acme/mono, outside the org.
    Owner,
    /// dave: a direct member of acme/mono, outside the org.
    Member,
    /// ann: an owner of the org acme, which owns acme/mono.
    OrgOwner,
    /// bob: a member of the org acme.
    OrgMember,
    /// eve: signed in, in neither.
    Outsider,
    /// No credential at all.
    Anonymous,
    /// A credential of carol's, revoked.
    Revoked,
    /// A credential of carol's past its `expires_at`.
    Expired,
    /// A web hook delivery's `read_token` (the git door's, one repo).
    HookRead,
    /// A web hook delivery's `status_token` (one commit of one repo).
    StatusToken,
    /// A CI hook build's `SVC_READ_TOKEN`.
    CiRead,
    /// An agent session's sandbox credential for carol, scoped `monorepo <acme/mono>`.
    Sandbox,
    /// A review session's credential for carol, scoped `review <acme/mono> <app> topic`.
    ReviewAgent,
    /// carol's browser session cookie with the service's own `Origin`.
    Cookie,
    /// The same cookie without an `Origin`.
    CookieNoOrigin,
    /// The same cookie with a foreign `Origin`.
    CookieForeign,
}

const KINDS: [Kind; 16] = [
    Kind::Owner,
    Kind::Member,
    Kind::OrgOwner,
    Kind::OrgMember,
    Kind::Outsider,
    Kind::Anonymous,
    Kind::Revoked,
    Kind::Expired,
    Kind::HookRead,
    Kind::StatusToken,
    Kind::CiRead,
    Kind::Sandbox,
    Kind::ReviewAgent,
    Kind::Cookie,
    Kind::CookieNoOrigin,
    Kind::CookieForeign,
];

impl Kind {
    /// The column heading.
    fn short(self) -> &'static str {
        match self {
            Kind::Owner => "own",
            Kind::Member => "mem",
            Kind::OrgOwner => "oow",
            Kind::OrgMember => "omb",
            Kind::Outsider => "out",
            Kind::Anonymous => "non",
            Kind::Revoked => "rev",
            Kind::Expired => "exp",
            Kind::HookRead => "hrt",
            Kind::StatusToken => "sts",
            Kind::CiRead => "cir",
            Kind::Sandbox => "sbx",
            Kind::ReviewAgent => "rva",
            Kind::Cookie => "ck+",
            Kind::CookieNoOrigin => "ck-",
            Kind::CookieForeign => "ckx",
        }
    }

    /// The person a credential of this kind acts for, if any.
    fn person(self) -> Option<&'static str> {
        match self {
            Kind::Owner
            | Kind::Revoked
            | Kind::Expired
            | Kind::Sandbox
            | Kind::ReviewAgent
            | Kind::Cookie
            | Kind::CookieNoOrigin
            | Kind::CookieForeign => Some("carol"),
            Kind::Member => Some("dave"),
            Kind::OrgOwner => Some("ann"),
            Kind::OrgMember => Some("bob"),
            Kind::Outsider => Some("eve"),
            Kind::Anonymous | Kind::HookRead | Kind::StatusToken | Kind::CiRead => None,
        }
    }
}

/// The class of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    /// Authorization let the call through (none of 401, 403, 404, 429, 5xx).
    Allowed,
    Unauthorized,
    /// 403 with this `error.code`.
    Forbidden(String),
    NotFound,
    /// 429 or a 5xx: never expected, and never taken for allowed.
    Broken(u16),
}

fn forbidden(code: &str) -> Class {
    Class::Forbidden(code.to_owned())
}

impl Class {
    fn letter(&self) -> char {
        match self {
            Class::Allowed => 'A',
            Class::Unauthorized => 'U',
            Class::NotFound => 'N',
            Class::Forbidden(code) => match code.as_str() {
                "forbidden" => 'F',
                "bad_origin" => 'O',
                "not_launcher" => 'L',
                "not_author" => 'W',
                "missing_permission" => 'P',
                _ => 'X',
            },
            Class::Broken(_) => 'E',
        }
    }
}

/// What guards an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Anyone, whatever they send.
    Public,
    /// The password sign-in: anyone, but only from a page of the service (our `Origin`).
    PasswordLogin,
    /// The bootstrap secret as Bearer, nothing else.
    Bootstrap,
    /// The CI connection's webhook token, nothing else.
    CiWebhook,
    /// Any person's credential; not an agent session's (it acts only in its monorepo).
    SignedIn,
    /// An org's header: anyone signed in.
    OrgSignedIn,
    /// The org's people (owners and members); others see 404.
    OrgPeople,
    /// The org's owners; its members 403, others 404.
    OrgOwners,
    /// Need::Read in the monorepo: its people, an agent session of one of them.
    Read,
    /// Need::Write: as Read, but not a review session's credential.
    Write,
    /// Need::Review: as Read (a review session's only on its own branch).
    Review,
    /// Need::Own: owners (the org's too); never an agent session.
    Own,
    /// Write, and the credential's `write_builds` permission (a sandbox has none).
    WriteBuilds,
    /// Write, or the status token of that commit.
    StatusPoster,
    /// A release file of a repo whose releases are public: anyone, no credential needed.
    PublicDownload,
    /// A release file of a private repo: as Read; without a credential 404.
    PrivateDownload,
    /// Write, by a person's own credential: only people start sessions (any agent
    /// session's credential 403 `forbidden`).
    Steer,
    /// Steer, and only the session's launcher (carol): 403 `not_launcher`.
    Launcher,
    /// Steer, and the session's launcher (carol) or an owner.
    LauncherOrOwner,
    /// Read, and only the chat's person (carol): everyone else 404.
    CarolsChat,
    /// Write, and only the issue comment's author (carol): 403 `forbidden`.
    CarolsComment,
    /// Write, and the issue comment's author (dave) or an owner (never an agent as owner).
    DavesCommentOrOwner,
    /// Write, and only the artifact comment's author (carol): 403 `not_author`.
    CarolsArtifactComment,
    /// Removing one's own membership row: a person's write (no agent session's), 404
    /// without one.
    Leave,
    /// A site admin (ann, the server's first person); everyone else 404, as for a route
    /// that does not exist.
    SiteAdmin,
}

/// What a row re-makes before each allowed cell (or, for [`Prep::Leave`], before every
/// cell), so that one cell's change never breaks the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prep {
    None,
    Branch,
    Label,
    DraftRelease,
    ReleaseFile,
    Hook,
    Connection,
    Build,
    FailedJob,
    Artifact,
    ArtifactComment,
    DavesComment,
    Worktree,
    Invite,
    OrgInvite,
    /// A new person in the org (the standing zed stays).
    OrgZed,
    /// A new person with a row in the monorepo (the standing zed stays).
    MemberZed,
    /// A new person, in nothing (for the admin's disable and enable).
    NewPerson,
    OwnCredential,
    FreshLogin,
    DeviceCode,
    DoomedMonorepo,
    Leave,
}

#[derive(Debug, Clone)]
enum Body {
    None,
    /// JSON; `{key}` inside its strings is replaced by the cell's parameter.
    Json(Value),
    Bytes(&'static [u8]),
    /// A multipart artifact upload of a small Markdown document.
    Artifact,
}

/// One row of the table.
#[derive(Debug, Clone)]
struct Row {
    method: Method,
    /// The OpenAPI path template.
    path: &'static str,
    /// Empty for an operation's main row; several rows of one operation test its cases.
    variant: &'static str,
    rule: Rule,
    params: Vec<(&'static str, String)>,
    query: &'static str,
    body: Body,
    socket: bool,
    prep: Prep,
    /// Cells the rule does not decide alone.
    cells: Vec<(Kind, Class)>,
}

fn op(method: Method, path: &'static str, rule: Rule) -> Row {
    Row {
        method,
        path,
        variant: "",
        rule,
        params: Vec::new(),
        query: "",
        body: Body::None,
        socket: false,
        prep: Prep::None,
        cells: Vec::new(),
    }
}

fn get(path: &'static str, rule: Rule) -> Row {
    op(Method::GET, path, rule)
}

fn post(path: &'static str, rule: Rule) -> Row {
    op(Method::POST, path, rule)
}

fn put(path: &'static str, rule: Rule) -> Row {
    op(Method::PUT, path, rule)
}

fn patch(path: &'static str, rule: Rule) -> Row {
    op(Method::PATCH, path, rule)
}

fn delete(path: &'static str, rule: Rule) -> Row {
    op(Method::DELETE, path, rule)
}

impl Row {
    fn json(mut self, body: Value) -> Row {
        self.body = Body::Json(body);
        self
    }

    fn bytes(mut self, body: &'static [u8]) -> Row {
        self.body = Body::Bytes(body);
        self
    }

    fn artifact(mut self) -> Row {
        self.body = Body::Artifact;
        self
    }

    fn query(mut self, query: &'static str) -> Row {
        self.query = query;
        self
    }

    fn with(mut self, key: &'static str, value: impl Into<String>) -> Row {
        self.params.push((key, value.into()));
        self
    }

    fn prep(mut self, prep: Prep) -> Row {
        self.prep = prep;
        self
    }

    fn variant(mut self, variant: &'static str) -> Row {
        self.variant = variant;
        self
    }

    /// The WebSocket upgrade of a GET.
    fn socket(mut self) -> Row {
        self.socket = true;
        self.variant = "socket";
        self
    }

    fn cell(mut self, kind: Kind, class: Class) -> Row {
        self.cells.push((kind, class));
        self
    }

    fn key(&self) -> (String, String) {
        (self.method.to_string(), self.path.to_owned())
    }

    fn label(&self) -> String {
        if self.variant.is_empty() {
            format!("{} {}", self.method, self.path)
        } else {
            format!("{} {} [{}]", self.method, self.path, self.variant)
        }
    }

    fn in_monorepo(&self) -> bool {
        self.path.starts_with("/v1/monorepos/{owner}/{monorepo}")
    }
}

/// The class the rules give `kind` on `row`.
fn expected(row: &Row, kind: Kind) -> Class {
    use Kind::*;
    use Rule::*;
    if let Some((_, class)) = row.cells.iter().find(|(k, _)| *k == kind) {
        return class.clone();
    }
    match row.rule {
        Public => return Class::Allowed,
        PasswordLogin => {
            return if kind == Cookie {
                Class::Allowed
            } else {
                forbidden("bad_origin")
            };
        }
        // Whatever a Bearer carries is not the secret; a cookie is no Bearer.
        Bootstrap => {
            return match kind {
                Anonymous | Cookie | CookieNoOrigin | CookieForeign => Class::Unauthorized,
                _ => forbidden("forbidden"),
            };
        }
        CiWebhook => return Class::Unauthorized,
        _ => {}
    }
    // The credential: only a person's live one (or a session cookie) goes on.
    let writes = row.method != Method::GET || row.socket;
    let who = match kind {
        Anonymous => {
            return match row.rule {
                PublicDownload => Class::Allowed,
                PrivateDownload => Class::NotFound,
                _ => Class::Unauthorized,
            };
        }
        Revoked | Expired | HookRead | CiRead => return Class::Unauthorized,
        StatusToken if row.rule == StatusPoster => return Class::Allowed,
        StatusToken => return Class::Unauthorized,
        CookieNoOrigin | CookieForeign if writes => return forbidden("bad_origin"),
        Cookie | CookieNoOrigin | CookieForeign => Owner,
        k => k,
    };
    let agent = matches!(who, Sandbox | ReviewAgent);
    if agent && !row.in_monorepo() {
        return forbidden("forbidden");
    }
    match row.rule {
        SignedIn | OrgSignedIn => return Class::Allowed,
        SiteAdmin => {
            return match who {
                OrgOwner => Class::Allowed,
                _ => Class::NotFound,
            };
        }
        OrgPeople => {
            return match who {
                OrgOwner | OrgMember => Class::Allowed,
                _ => Class::NotFound,
            };
        }
        OrgOwners => {
            return match who {
                OrgOwner => Class::Allowed,
                OrgMember => forbidden("forbidden"),
                _ => Class::NotFound,
            };
        }
        _ => {}
    }
    // In the monorepo: an outsider learns nothing.
    if who == Outsider {
        return if row.rule == PublicDownload {
            Class::Allowed
        } else {
            Class::NotFound
        };
    }
    let reviewer_refused = || forbidden("forbidden");
    match row.rule {
        Read | Review | PublicDownload | PrivateDownload => Class::Allowed,
        Write | StatusPoster if who == ReviewAgent => reviewer_refused(),
        Write | StatusPoster => Class::Allowed,
        Own => match who {
            Owner | OrgOwner => Class::Allowed,
            _ => forbidden("forbidden"),
        },
        WriteBuilds => match who {
            ReviewAgent => reviewer_refused(),
            Sandbox => forbidden("missing_permission"),
            _ => Class::Allowed,
        },
        // Only people drive sessions: no agent session starts, messages or stops one
        // (its own included).
        Steer | Launcher | LauncherOrOwner if agent => forbidden("forbidden"),
        Steer => Class::Allowed,
        Launcher => match who {
            Owner => Class::Allowed,
            _ => forbidden("not_launcher"),
        },
        LauncherOrOwner => match who {
            Owner | OrgOwner => Class::Allowed,
            _ => forbidden("forbidden"),
        },
        CarolsChat => match who {
            Owner | Sandbox | ReviewAgent => Class::Allowed,
            _ => Class::NotFound,
        },
        CarolsComment => match who {
            Owner | Sandbox => Class::Allowed,
            _ => forbidden("forbidden"),
        },
        // An agent session acting for an owner does not do what only owners do.
        DavesCommentOrOwner => match who {
            Owner | OrgOwner | Member => Class::Allowed,
            _ => forbidden("forbidden"),
        },
        CarolsArtifactComment => match who {
            ReviewAgent => reviewer_refused(),
            Owner | Sandbox => Class::Allowed,
            _ => forbidden("not_author"),
        },
        // ann has her own row as the monorepo's creator; bob, in by the org alone, has
        // none to remove.
        Leave => match who {
            ReviewAgent => reviewer_refused(),
            Sandbox => forbidden("forbidden"),
            Owner | Member | OrgOwner => Class::Allowed,
            _ => Class::NotFound,
        },
        Public | PasswordLogin | Bootstrap | CiWebhook | SignedIn | OrgSignedIn | OrgPeople
        | OrgOwners | SiteAdmin => unreachable!("decided above"),
    }
}

/// How a cell authenticates.
#[derive(Debug, Clone)]
enum Auth {
    None,
    Bearer(String),
    Cookie {
        cookie: String,
        origin: Option<String>,
    },
}

impl Auth {
    fn apply(&self, rb: RequestBuilder) -> RequestBuilder {
        match self {
            Auth::None => rb,
            Auth::Bearer(token) => rb.bearer_auth(token),
            Auth::Cookie { cookie, origin } => {
                let rb = rb.header(header::COOKIE, cookie);
                match origin {
                    Some(o) => rb.header(header::ORIGIN, o),
                    None => rb,
                }
            }
        }
    }
}

/// One answer.
#[derive(Debug, Clone)]
struct Got {
    status: u16,
    code: String,
    message: String,
}

impl Got {
    fn of(status: u16, text: &str) -> Got {
        let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        Got {
            status,
            code: v["error"]["code"].as_str().unwrap_or_default().to_owned(),
            message: v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        }
    }

    fn class(&self) -> Class {
        match self.status {
            401 => Class::Unauthorized,
            403 => Class::Forbidden(self.code.clone()),
            404 => Class::NotFound,
            s if s == 429 || s >= 500 => Class::Broken(s),
            _ => Class::Allowed,
        }
    }
}

/// The standing fixture: one org, one monorepo with everything its paths name, the
/// people and every kind of credential.
struct World {
    app: TestApp,
    _oidc: FakeOidc,
    fake: FakeBuildkite,
    rx: Receiver,
    _runner: tempfile::TempDir,
    /// Each person's first credential, by login.
    people: BTreeMap<&'static str, String>,
    auth: BTreeMap<Kind, Auth>,
    /// The values of the path parameters (and body placeholders) every row starts from.
    standing: BTreeMap<&'static str, String>,
    topic_head: String,
    issue: i64,
    carol_comment: i64,
    dave_comment: i64,
    artifact_comment: String,
    artifact_file: String,
    hook: String,
    /// An import waiting for its bundle.
    import: String,
    delivery: String,
    connection: String,
    webhook_token: String,
    build: Value,
    session: String,
    chat: String,
    spare_credential: String,
    blob: String,
}

/// Asserts a 2xx and answers the JSON body (null when empty or not JSON).
async fn ok(rb: RequestBuilder, what: &str) -> Value {
    let r = rb.send().await.expect("request");
    let status = r.status();
    let text = r.text().await.unwrap_or_default();
    assert!(status.is_success(), "{what}: {status} {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn now_secs() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    i64::try_from(secs).expect("a time")
}

/// A runner that says one line and ends.
const RUNNER: &str = "#!/bin/sh\ncat >/dev/null\necho '{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"text\":\"On it.\"}]}'\n";

impl World {
    /// A request as one of the people.
    fn as_person(&self, login: &str, method: Method, path: &str) -> RequestBuilder {
        self.app.as_user(method, path, &self.people[login])
    }

    async fn person_json(&self, login: &str, method: Method, path: &str, body: Value) -> Value {
        let what = format!("{login}: {method} {path}");
        ok(self.as_person(login, method, path).json(&body), &what).await
    }

    async fn carol(&self, method: Method, path: &str, body: Value) -> Value {
        self.person_json("carol", method, path, body).await
    }

    async fn ann(&self, method: Method, path: &str, body: Value) -> Value {
        self.person_json("ann", method, path, body).await
    }

    /// Buildkite's signed webhook about `build` and, when given, one of its jobs.
    async fn ci_webhook(&self, event: &str, build: &Value, state: &str, job: Option<Value>) {
        let mut body = json!({"event": event, "pipeline": {"slug": "pipe"},
            "build": {"id": build["id"], "number": build["number"], "state": state,
                "commit": self.topic_head, "branch": "topic", "meta_data": build["meta_data"]}});
        if let Some(job) = job {
            body["job"] = job;
        }
        let bytes = serde_json::to_vec(&body).expect("json");
        let signature = svc_server::ci::signature::sign(&self.webhook_token, now_secs(), &bytes);
        let url = format!("/v1/ci/webhooks/{}", self.connection);
        let rb = self
            .app
            .request(Method::POST, &url)
            .header("x-buildkite-event", event)
            .header("x-buildkite-signature", signature)
            .header(header::CONTENT_TYPE, "application/json")
            .body(bytes);
        ok(rb, event).await;
    }

    /// A build of topic started by carol.
    async fn start_build(&self) -> Value {
        let path = format!(
            "{M}/ci/pipelines/pipe/builds?connection={}",
            self.connection
        );
        self.carol(
            Method::POST,
            &path,
            json!({"branch": "topic", "repo": "app"}),
        )
        .await
    }

    fn upload_artifact(&self, rb: RequestBuilder, name: &str) -> RequestBuilder {
        let part =
            Part::bytes(b"# A document\n\nFor the matrix.\n".to_vec()).file_name(name.to_owned());
        rb.multipart(Form::new().part("file", part))
    }

    async fn build() -> World {
        let oidc = FakeOidc::start().await;
        let fake = FakeBuildkite::start().await;
        let rx = Receiver::start().await;
        let runner = tempfile::tempdir().expect("temp dir");
        let program = runner.path().join("runner");
        std::fs::write(&program, RUNNER).expect("runner");
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        let agents = format!(
            "sandbox = \"none\"\nmax_running = 500\nmax_running_per_person = 500\n\
             [runners.r]\ncommand = [\"{}\"]\nformat = \"svc-jsonl\"\n[[models]]\nid = \"m\"\nrunner = \"r\"\n",
            program.display()
        );
        let app = TestApp::builder()
            .oidc(oidc.settings())
            .buildkite(&fake.api_url, "bk-token")
            .agents(&agents)
            .rate_limits(RateLimitSettings {
                sign_in_per_minute: 100_000,
                device_poll_per_minute: 100_000,
                writes_per_minute: 100_000,
                forwarded_for: false,
            })
            .start()
            .await;

        let mut people = BTreeMap::new();
        for login in ["ann", "bob", "carol", "dave", "eve", "zed"] {
            let mut body = json!({"email": format!("{login}@example.com"), "login": login});
            if login == "carol" {
                body["password"] = json!(PASSWORD);
            }
            people.insert(login, app.bootstrap(body).await.credential.token);
        }
        let mut w = World {
            app,
            _oidc: oidc,
            fake,
            rx,
            _runner: runner,
            people,
            auth: BTreeMap::new(),
            standing: BTreeMap::new(),
            topic_head: String::new(),
            issue: 0,
            carol_comment: 0,
            dave_comment: 0,
            artifact_comment: String::new(),
            artifact_file: String::new(),
            hook: String::new(),
            import: String::new(),
            delivery: String::new(),
            connection: String::new(),
            webhook_token: String::new(),
            build: Value::Null,
            session: String::new(),
            chat: String::new(),
            spare_credential: String::new(),
            blob: String::new(),
        };

        // The org, with a member and a pending invite.
        w.ann(Method::POST, "/v1/orgs", json!({"login": "acme"}))
            .await;
        for login in ["bob", "zed"] {
            let path = format!("/v1/orgs/acme/members/{login}");
            w.ann(Method::PUT, &path, json!({"role": "member"})).await;
        }
        w.ann(
            Method::POST,
            "/v1/orgs/acme/invites",
            json!({"email": "pending@example.com"}),
        )
        .await;

        // The org's monorepo, with people of its own and a pending invite.
        let made = w
            .ann(
                Method::POST,
                "/v1/monorepos",
                json!({"name": "mono", "owner": "acme"}),
            )
            .await;
        let monorepo_id = made["monorepo"]["id"]
            .as_str()
            .or_else(|| made["id"].as_str())
            .expect("monorepo id")
            .to_owned();
        for (login, role) in [("carol", "owner"), ("dave", "member"), ("zed", "member")] {
            let path = format!("{M}/members/{login}");
            w.ann(Method::PUT, &path, json!({"role": role})).await;
        }
        w.ann(
            Method::POST,
            &format!("{M}/invites"),
            json!({"email": "invitee@example.com"}),
        )
        .await;

        // Repos; a web hook, a CI connection and a CI hook before the first pushes.
        let app_repo = w.app.repo(&w.people["carol"], "acme/mono", "app").await;
        let site_repo = w.app.repo(&w.people["carol"], "acme/mono", "site").await;
        let hook = w
            .carol(
                Method::POST,
                &format!("{M}/hooks"),
                json!({"kind": "web", "url": w.rx.url, "events": ["push", "branch.opened"]}),
            )
            .await;
        w.hook = hook["id"].as_str().expect("hook id").to_owned();
        let import = w
            .carol(
                Method::POST,
                &format!("{M}/imports"),
                json!({"path": "imported"}),
            )
            .await;
        w.import = import["id"].as_str().expect("import id").to_owned();
        let connection = w
            .carol(
                Method::POST,
                &format!("{M}/ci/connections"),
                json!({"service": "buildkite", "organization": "acme-ci"}),
            )
            .await;
        w.connection = connection["id"].as_str().expect("connection id").to_owned();
        w.webhook_token = connection["webhook_token"]
            .as_str()
            .expect("webhook token")
            .to_owned();
        w.carol(
            Method::POST,
            &format!("{M}/hooks"),
            json!({"kind": "ci", "pipeline": "acme-ci/pipe", "events": ["push"]}),
        )
        .await;

        // Code through the git door: main, an open branch `topic`, another `side`.
        let git = svc_tests::git::Git::new(&w.people["carol"]);
        let url = app_repo["clone_url"].as_str().expect("clone_url");
        git.ok(git.home.path(), &["clone", "-q", url, "app"]);
        let work = git.path("app");
        let main_head = git.commit(&work, "First", &[("a.txt", b"one\n")]);
        git.ok(&work, &["push", "-q", "origin", "main"]);
        git.ok(&work, &["checkout", "-q", "-b", "topic"]);
        w.topic_head = git.commit(&work, "Topic work", &[("b.txt", b"two\n")]);
        git.ok(&work, &["push", "-q", "origin", "topic"]);
        git.ok(&work, &["checkout", "-q", "-b", "side", "main"]);
        git.commit(&work, "Side work", &[("c.txt", b"three\n")]);
        git.ok(&work, &["push", "-q", "origin", "side"]);
        let url = site_repo["clone_url"].as_str().expect("clone_url");
        git.ok(git.home.path(), &["clone", "-q", url, "site"]);
        let site = git.path("site");
        git.commit(&site, "Site", &[("index.html", b"<p>hi</p>\n")]);
        git.ok(&site, &["push", "-q", "origin", "main"]);

        // The delivery of topic's push carries a read token and a status token for its head.
        let deadline = Instant::now() + Duration::from_secs(20);
        let delivered = loop {
            let found =
                w.rx.got()
                    .iter()
                    .map(|g| (g.delivery.clone(), g.json()))
                    .find(|(_, b)| {
                        b["head"] == w.topic_head.as_str()
                            && b["read_token"].is_string()
                            && b["status_token"].is_string()
                    });
            if let Some(found) = found {
                break found;
            }
            assert!(
                Instant::now() < deadline,
                "no delivery of topic's push came"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        w.delivery = delivered.0;
        let hook_read = delivered.1["read_token"]
            .as_str()
            .expect("read token")
            .to_owned();
        let status_token = delivered.1["status_token"]
            .as_str()
            .expect("status")
            .to_owned();
        // The CI hook's build of a push carries its own read token.
        let deadline = Instant::now() + Duration::from_secs(20);
        let ci_read = loop {
            let found = w
                .fake
                .created()
                .iter()
                .find_map(|c| c.body["env"]["SVC_READ_TOKEN"].as_str().map(str::to_owned));
            if let Some(found) = found {
                break found;
            }
            assert!(Instant::now() < deadline, "the CI hook started no build");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };

        // Releases: app's are private, site's public; each has a published v1 with a file.
        for (repo, file) in [("app", "app.tar"), ("site", "site.tar")] {
            let r = format!("{M}/repos/{repo}");
            w.carol(
                Method::POST,
                &format!("{r}/releases"),
                json!({"tag": "v1", "draft": true}),
            )
            .await;
            w.carol(
                Method::POST,
                &format!("{r}/releases/v1/publish?force=1"),
                json!({}),
            )
            .await;
            let rb = w
                .as_person(
                    "carol",
                    Method::PUT,
                    &format!("{r}/releases/v1/files/{file}"),
                )
                .body(b"release bytes\n".to_vec());
            ok(rb, "upload a release file").await;
        }
        w.carol(
            Method::PATCH,
            &format!("{M}/repos/site"),
            json!({"releases_public": true}),
        )
        .await;
        w.carol(
            Method::POST,
            &format!("{R}/deployments"),
            json!({"environment": "prod"}),
        )
        .await;

        // An issue with comments by carol and dave and a reaction; a label.
        let issue = w
            .carol(
                Method::POST,
                &format!("{M}/issues"),
                json!({"title": "The issue", "project": "app"}),
            )
            .await;
        w.issue = issue["number"].as_i64().expect("issue number");
        let comments = format!("{M}/issues/{}/comments", w.issue);
        let said = w
            .carol(Method::POST, &comments, json!({"body": "From carol."}))
            .await;
        w.carol_comment = said["id"].as_i64().expect("comment id");
        let said = w
            .person_json(
                "dave",
                Method::POST,
                &comments,
                json!({"body": "From dave."}),
            )
            .await;
        w.dave_comment = said["id"].as_i64().expect("comment id");
        let reaction = format!("{M}/issues/{}/reactions/+1", w.issue);
        ok(w.as_person("carol", Method::PUT, &reaction), "react").await;
        w.carol(
            Method::POST,
            &format!("{M}/labels"),
            json!({"name": "matrix", "color": "green"}),
        )
        .await;

        // An artifact on topic with a comment thread.
        let rb = w.as_person(
            "carol",
            Method::POST,
            &format!("{R}/branches/topic/artifacts"),
        );
        let artifact = ok(w.upload_artifact(rb, "doc.md"), "add an artifact").await;
        w.artifact_file = artifact["versions"][0]["files"][0]["path"]
            .as_str()
            .expect("artifact file")
            .to_owned();
        let thread = w
            .carol(
                Method::POST,
                &format!("{R}/branches/topic/artifacts/doc.md/comments"),
                json!({"body": "A thought."}),
            )
            .await;
        w.artifact_comment = thread["id"].as_str().expect("comment id").to_owned();

        // A worktree, a shared meta file.
        w.carol(
            Method::PUT,
            &format!("{M}/worktrees/wt-1"),
            json!({"repo": "app", "branch": "topic", "machine": "laptop"}),
        )
        .await;
        let shared: &[u8] = b"shared\n";
        w.blob = sha256(shared);
        let rb = w
            .as_person("carol", Method::PUT, &format!("{M}/meta/blobs/{}", w.blob))
            .body(shared.to_vec());
        ok(rb, "upload a meta blob").await;
        w.carol(
            Method::POST,
            &format!("{M}/meta/saves"),
            json!({"base": null, "changes": [{"path": "notes.txt", "sha256": w.blob}]}),
        )
        .await;

        // A CI build of topic with a failed job, its log, one annotation and artifact.
        w.fake.extras(1);
        w.fake.set_log("job-1", b"\x1b[31mfailed\x1b[0m\n");
        w.build = w.start_build().await;
        let job = json!({"id": "job-1", "name": "test", "state": "finished", "exit_status": 1});
        let build = w.build.clone();
        w.ci_webhook("job.finished", &build, "failing", Some(job))
            .await;

        // An agent session and a chat of carol's.
        let session = w
            .carol(
                Method::POST,
                &format!("{M}/agents"),
                json!({"prompt": "Work.", "branch": "agent-work", "repo": "app"}),
            )
            .await;
        w.session = session["id"].as_str().expect("session id").to_owned();
        let chat = w
            .carol(
                Method::POST,
                &format!("{M}/chats"),
                json!({"message": "Hello.", "repo": "app"}),
            )
            .await;
        w.chat = chat["id"].as_str().expect("chat id").to_owned();

        // A pending device code; carol's spare, revoked and expiring credentials.
        let device = ok(w.app.request(Method::POST, "/v1/login/device"), "device").await;
        let credentials = "/v1/user/credentials";
        let spare = w
            .carol(
                Method::POST,
                credentials,
                json!({"name": "spare", "kind": "machine"}),
            )
            .await;
        w.spare_credential = spare["id"].as_str().expect("id").to_owned();
        let revoked = w
            .carol(
                Method::POST,
                credentials,
                json!({"name": "revoked", "kind": "machine"}),
            )
            .await;
        let gone = format!("{credentials}/{}", revoked["id"].as_str().expect("id"));
        ok(w.as_person("carol", Method::DELETE, &gone), "revoke").await;
        let expiring = w
            .carol(
                Method::POST,
                credentials,
                json!({"name": "expiring", "kind": "machine", "expires_in": 1}),
            )
            .await;
        let cookie = w.app.sign_in("carol", PASSWORD).await;

        // The agent sessions' credentials, minted as the server mints them.
        let store = svc_server::store::Store::open(&w.app.config.database_url)
            .await
            .expect("store");
        let (sandbox, reviewer) = {
            let mut tx = store.begin().await.expect("tx");
            let carol = svc_server::store::users::by_login(tx.h(), "carol")
                .await
                .expect("read")
                .expect("carol");
            let repo = svc_server::store::repos::by_name(tx.h(), &monorepo_id, "app")
                .await
                .expect("read")
                .expect("app");
            let task = format!("monorepo {monorepo_id} stand-in agent");
            let review = format!("review {monorepo_id} {} topic stand-in agent", repo.id);
            let sandbox = svc_server::accounts::issue_scoped_credential(
                &mut tx,
                &carol.id,
                "cloud-task",
                &task,
            )
            .await
            .expect("sandbox credential");
            let reviewer = svc_server::accounts::issue_scoped_credential(
                &mut tx,
                &carol.id,
                "cloud-review",
                &review,
            )
            .await
            .expect("review credential");
            tx.commit().await.expect("commit");
            (sandbox.token, reviewer.token)
        };
        store.close().await;

        let bearer = |t: &str| Auth::Bearer(t.to_owned());
        let origin = w.app.origin().to_owned();
        w.auth = BTreeMap::from([
            (Kind::Owner, bearer(&w.people["carol"])),
            (Kind::Member, bearer(&w.people["dave"])),
            (Kind::OrgOwner, bearer(&w.people["ann"])),
            (Kind::OrgMember, bearer(&w.people["bob"])),
            (Kind::Outsider, bearer(&w.people["eve"])),
            (Kind::Anonymous, Auth::None),
            (
                Kind::Revoked,
                bearer(revoked["token"].as_str().expect("token")),
            ),
            (
                Kind::Expired,
                bearer(expiring["token"].as_str().expect("token")),
            ),
            (Kind::HookRead, bearer(&hook_read)),
            (Kind::StatusToken, bearer(&status_token)),
            (Kind::CiRead, bearer(&ci_read)),
            (Kind::Sandbox, bearer(&sandbox)),
            (Kind::ReviewAgent, bearer(&reviewer)),
            (
                Kind::Cookie,
                Auth::Cookie {
                    cookie: cookie.clone(),
                    origin: Some(origin),
                },
            ),
            (
                Kind::CookieNoOrigin,
                Auth::Cookie {
                    cookie: cookie.clone(),
                    origin: None,
                },
            ),
            (
                Kind::CookieForeign,
                Auth::Cookie {
                    cookie,
                    origin: Some(FOREIGN_ORIGIN.to_owned()),
                },
            ),
        ]);

        let build_id = w.build["id"].as_str().expect("build id").to_owned();
        let build_number = w.build["number"].as_i64().expect("build number");
        w.standing = BTreeMap::from([
            ("owner", "acme".to_owned()),
            ("monorepo", "mono".to_owned()),
            ("org", "acme".to_owned()),
            ("repo", "app".to_owned()),
            ("branch", "topic".to_owned()),
            ("number", w.issue.to_string()),
            ("sha", main_head),
            ("tag", "v1".to_owned()),
            ("content", "+1".to_owned()),
            ("login", "zed".to_owned()),
            ("pipeline", "pipe".to_owned()),
            ("connection", w.connection.clone()),
            ("connection_id", w.connection.clone()),
            ("build", build_id),
            ("job", "job-1".to_owned()),
            ("artifact", format!("art-{build_number}-0")),
            (
                "user_code",
                device["user_code"].as_str().expect("code").to_owned(),
            ),
            (
                "device_code",
                device["device_code"].as_str().expect("code").to_owned(),
            ),
            ("confirm", "acme/not-this-one".to_owned()),
            ("blob", w.blob.clone()),
            ("sha256", w.blob.clone()),
            ("hook_url", w.rx.url.clone()),
        ]);

        // The expiring credential has expired by now, or soon.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let r = w.auth[&Kind::Expired]
                .apply(w.app.request(Method::GET, "/v1/user"))
                .send()
                .await
                .expect("request");
            if r.status() == 401 {
                break;
            }
            assert!(Instant::now() < deadline, "the credential did not expire");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        w
    }
}

/// The table: one row per operation of the OpenAPI document (and a few more for the
/// cases one operation serves), in the order they run; those that end what others need
/// come last.
fn rows(w: &World) -> Vec<Row> {
    use Rule::*;
    let session = w.session.clone();
    let chat = w.chat.clone();
    let issue_comment = w.carol_comment.to_string();
    vec![
        // The server.
        get("/healthz", Public),
        get("/v1/openapi.json", Public),
        // Signing in.
        post("/v1/login/device", Public),
        post("/v1/login/token", Public).json(json!({"device_code": "{device_code}"})),
        post("/v1/login/device/approve", SignedIn)
            .json(json!({"user_code": "{user_code}", "approve": false}))
            .prep(Prep::DeviceCode),
        get("/v1/login/browser", Public).query("return_to=/"),
        get("/v1/login/callback", Public),
        post("/v1/login/password", PasswordLogin)
            .json(json!({"login": "carol", "password": PASSWORD})),
        post("/v1/users", Bootstrap).json(json!({"email": "boot-{k}@example.com"})),
        // The server's people, for its site admins.
        post("/v1/admin/users", SiteAdmin).json(json!({"email": "admin-made-{k}@example.com"})),
        get("/v1/admin/users", SiteAdmin),
        post("/v1/admin/users/{login}/disable", SiteAdmin).prep(Prep::NewPerson),
        post("/v1/admin/users/{login}/enable", SiteAdmin).prep(Prep::NewPerson),
        // The caller's own.
        get("/v1/user", SignedIn),
        patch("/v1/user", SignedIn).json(json!({})),
        get("/v1/user/credentials", SignedIn),
        post("/v1/user/credentials", SignedIn)
            .json(json!({"name": "made-{k}", "kind": "machine"})),
        get("/v1/user/orgs", SignedIn),
        get("/v1/monorepos", SignedIn),
        post("/v1/monorepos", SignedIn).json(json!({"name": "made-{k}"})),
        get("/v1/events", SignedIn),
        get("/v1/events", SignedIn).socket(),
        get("/v1/branches", SignedIn),
        // Organizations.
        post("/v1/orgs", SignedIn).json(json!({"login": "org-{k}"})),
        get("/v1/orgs/{org}", OrgSignedIn),
        patch("/v1/orgs/{org}", OrgOwners).json(json!({"description": "Acme."})),
        get("/v1/orgs/{org}/members", OrgPeople),
        put("/v1/orgs/{org}/members/{login}", OrgOwners).json(json!({"role": "member"})),
        delete("/v1/orgs/{org}/members/{login}", OrgOwners).prep(Prep::OrgZed),
        get("/v1/orgs/{org}/invites", OrgPeople),
        post("/v1/orgs/{org}/invites", OrgOwners)
            .json(json!({"email": "org-invite-{k}@example.com"})),
        delete("/v1/orgs/{org}/invites/{email}", OrgOwners)
            .with("email", "pending@example.com")
            .prep(Prep::OrgInvite),
        // The monorepo, its people and machines.
        get("/v1/monorepos/{owner}/{monorepo}", Read),
        patch("/v1/monorepos/{owner}/{monorepo}", Own).json(json!({"name": "mono"})),
        get("/v1/monorepos/{owner}/{monorepo}/members", Read),
        put("/v1/monorepos/{owner}/{monorepo}/members/{login}", Own)
            .json(json!({"role": "member"})),
        delete("/v1/monorepos/{owner}/{monorepo}/members/{login}", Own).prep(Prep::MemberZed),
        get("/v1/monorepos/{owner}/{monorepo}/invites", Own),
        post("/v1/monorepos/{owner}/{monorepo}/invites", Own)
            .json(json!({"email": "invite-{k}@example.com"})),
        delete("/v1/monorepos/{owner}/{monorepo}/invites/{email}", Own)
            .with("email", "invitee@example.com")
            .prep(Prep::Invite),
        get("/v1/monorepos/{owner}/{monorepo}/machines", Read),
        get("/v1/monorepos/{owner}/{monorepo}/worktrees", Read),
        put("/v1/monorepos/{owner}/{monorepo}/worktrees/{id}", Write)
            .with("id", "wt-1")
            .json(json!({"repo": "app", "branch": "topic", "machine": "laptop"})),
        delete("/v1/monorepos/{owner}/{monorepo}/worktrees/{id}", Write)
            .with("id", "wt-1")
            .prep(Prep::Worktree),
        get("/v1/monorepos/{owner}/{monorepo}/events", Read),
        get("/v1/monorepos/{owner}/{monorepo}/events", Read).socket(),
        get("/v1/monorepos/{owner}/{monorepo}/heads", Read),
        // Repos and code.
        get("/v1/monorepos/{owner}/{monorepo}/repos", Read),
        post("/v1/monorepos/{owner}/{monorepo}/repos", Write).json(json!({"path": "made-{k}"})),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}", Read),
        patch("/v1/monorepos/{owner}/{monorepo}/repos/{repo}", Own)
            .json(json!({"releases_public": false})),
        post("/v1/monorepos/{owner}/{monorepo}/imports", Own).json(json!({"path": "import-{k}"})),
        get("/v1/monorepos/{owner}/{monorepo}/imports/{id}", Own).with("id", w.import.clone()),
        put("/v1/monorepos/{owner}/{monorepo}/imports/{id}/bundle", Own)
            .with("id", w.import.clone())
            .bytes(b"not a bundle"),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/tree", Read),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/file", Read).query("path=a.txt"),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/history", Read).query("path=a.txt"),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/last-commits", Read),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}", Read),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}/diff",
            Read,
        ),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/commits/{sha}/checks",
            Read,
        ),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/statuses/{sha}",
            StatusPoster,
        )
        .with("sha", w.topic_head.clone())
        .json(json!({"context": "matrix", "state": "success"})),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/summary", Read),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/tags", Read),
        // Branches, reviews, merges.
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches", Read),
        post("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches", Write)
            .json(json!({"name": "made-{k}"})),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}",
            Read,
        ),
        patch(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}",
            Write,
        )
        .json(json!({"title": "Topic work"})),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}",
            Write,
        )
        .prep(Prep::Branch),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/commits",
            Read,
        ),
        // A new branch per cell, so the standing topic stays as it is.
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/commits",
            Write,
        )
        .with("branch", "written-{k}")
        .json(json!({"message": "Matrix {k}", "files": [{"path": "matrix.txt", "content": "{k}\n"}]})),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/diff",
            Read,
        ),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/merge",
            Write,
        )
        .query("force=1")
        .prep(Prep::Branch),
        get("/v1/monorepos/{owner}/{monorepo}/changes/{branch}", Read),
        post("/v1/monorepos/{owner}/{monorepo}/changes/{branch}/merge", Write)
            .query("force=1")
            .prep(Prep::Branch),
        // A new branch per cell: armed, it merges itself (or is disarmed) in the
        // background, and the standing topic stays as it is.
        put(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/auto-merge",
            Write,
        )
        .prep(Prep::Branch),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/auto-merge",
            Write,
        )
        .prep(Prep::Branch),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/queue", Read),
        // Not in the queue: it stays as it is.
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/queue",
            Write,
        ),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/reviews",
            Read,
        ),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/reviews",
            Review,
        )
        .json(json!({"state": "comment", "body": "Looks fine."})),
        // A review session reviews its own branch only.
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/reviews",
            Review,
        )
        .variant("another branch")
        .with("branch", "side")
        .json(json!({"state": "comment", "body": "Looks fine."}))
        .cell(Kind::ReviewAgent, forbidden("forbidden")),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/review-agent",
            Steer,
        )
        .json(json!({})),
        // Artifacts.
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts",
            Read,
        ),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts",
            Write,
        )
        .artifact(),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}",
            Read,
        )
        .with("name", "doc.md"),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}",
            Write,
        )
        .with("name", "doc.md")
        .prep(Prep::Artifact),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/files/{file}",
            Read,
        )
        .with("name", "doc.md")
        .with("n", "1")
        .with("file", w.artifact_file.clone()),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/versions/{n}/document",
            Read,
        )
        .with("name", "doc.md")
        .with("n", "1"),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/comments",
            Write,
        )
        .with("name", "doc.md")
        .json(json!({"body": "Noted {k}."})),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifacts/{name}/threads",
            Read,
        )
        .with("name", "doc.md"),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/branches/{branch}/artifact-threads",
            Read,
        ),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}",
            Read,
        )
        .with("id", w.artifact_comment.clone()),
        patch(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}",
            CarolsArtifactComment,
        )
        .with("id", w.artifact_comment.clone())
        .json(json!({"body": "Edited {k}."})),
        // Resolving a thread is any member's.
        patch(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}",
            Write,
        )
        .variant("thread state")
        .with("id", w.artifact_comment.clone())
        .json(json!({"state": "resolved"})),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/artifact-comments/{id}",
            CarolsArtifactComment,
        )
        .with("id", w.artifact_comment.clone())
        .prep(Prep::ArtifactComment),
        // Releases, tags, deployments.
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases", Read),
        post("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases", Write)
            .json(json!({"tag": "made-{k}", "draft": true})),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", Read),
        patch("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", Write)
            .json(json!({"notes": "The first."})),
        delete("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}", Write)
            .prep(Prep::DraftRelease),
        post(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/publish",
            Write,
        )
        .query("force=1")
        .prep(Prep::DraftRelease),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/notes",
            Read,
        ),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/release-notes", Read),
        put(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}",
            Write,
        )
        .with("name", "up.bin")
        .bytes(b"uploaded\n"),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}",
            PrivateDownload,
        )
        .with("name", "app.tar"),
        get(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}",
            PublicDownload,
        )
        .variant("public releases")
        .with("repo", "site")
        .with("name", "site.tar"),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/repos/{repo}/releases/{tag}/files/{name}",
            Write,
        )
        .with("name", "app.tar")
        .prep(Prep::ReleaseFile),
        get("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/deployments", Read),
        post("/v1/monorepos/{owner}/{monorepo}/repos/{repo}/deployments", Write)
            .json(json!({"environment": "prod"})),
        // Issues and labels.
        get("/v1/monorepos/{owner}/{monorepo}/issues", Read),
        post("/v1/monorepos/{owner}/{monorepo}/issues", Write).json(json!({"title": "Made {k}"})),
        get("/v1/monorepos/{owner}/{monorepo}/issues/{number}", Read),
        patch("/v1/monorepos/{owner}/{monorepo}/issues/{number}", Write)
            .json(json!({"title": "The issue"})),
        get("/v1/monorepos/{owner}/{monorepo}/issues/{number}/timeline", Read),
        post("/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments", Write)
            .json(json!({"body": "Said {k}."})),
        get(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}",
            Read,
        )
        .with("id", issue_comment.clone()),
        patch(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}",
            CarolsComment,
        )
        .with("id", issue_comment.clone())
        .json(json!({"body": "Edited {k}."})),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}",
            DavesCommentOrOwner,
        )
        .with("id", w.dave_comment.to_string())
        .prep(Prep::DavesComment),
        put(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/reactions/{content}",
            Write,
        ),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/reactions/{content}",
            Write,
        ),
        put(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions/{content}",
            Write,
        )
        .with("id", issue_comment.clone()),
        delete(
            "/v1/monorepos/{owner}/{monorepo}/issues/{number}/comments/{id}/reactions/{content}",
            Write,
        )
        .with("id", issue_comment),
        get("/v1/monorepos/{owner}/{monorepo}/labels", Read),
        post("/v1/monorepos/{owner}/{monorepo}/labels", Own)
            .json(json!({"name": "made-{k}", "color": "blue"})),
        patch("/v1/monorepos/{owner}/{monorepo}/labels/{name}", Own)
            .with("name", "matrix")
            .json(json!({"description": "For the matrix."})),
        delete("/v1/monorepos/{owner}/{monorepo}/labels/{name}", Own)
            .with("name", "matrix")
            .prep(Prep::Label),
        // Hooks.
        get("/v1/monorepos/{owner}/{monorepo}/hooks", Own),
        post("/v1/monorepos/{owner}/{monorepo}/hooks", Own)
            .json(json!({"kind": "web", "url": "{hook_url}", "events": ["tag"]})),
        delete("/v1/monorepos/{owner}/{monorepo}/hooks/{id}", Own)
            .with("id", w.hook.clone())
            .prep(Prep::Hook),
        get("/v1/monorepos/{owner}/{monorepo}/hooks/{id}/deliveries", Own)
            .with("id", w.hook.clone()),
        post(
            "/v1/monorepos/{owner}/{monorepo}/hooks/{id}/deliveries/{delivery}/redeliver",
            Own,
        )
        .with("id", w.hook.clone())
        .with("delivery", w.delivery.clone()),
        post("/v1/monorepos/{owner}/{monorepo}/hooks/{id}/replay", Own)
            .with("id", w.hook.clone())
            .json(json!({"since": 1_000_000_000})),
        // Agent sessions.
        get("/v1/monorepos/{owner}/{monorepo}/agent-models", Read),
        post("/v1/monorepos/{owner}/{monorepo}/agents", Steer)
            .json(json!({"prompt": "Work.", "branch": "agent-work", "repo": "app"})),
        get("/v1/monorepos/{owner}/{monorepo}/agents", Read),
        get("/v1/monorepos/{owner}/{monorepo}/agents/{id}", Read).with("id", session.clone()),
        // A chat is its person's alone.
        get("/v1/monorepos/{owner}/{monorepo}/agents/{id}", CarolsChat)
            .variant("a chat")
            .with("id", chat),
        get("/v1/monorepos/{owner}/{monorepo}/agents/{id}/transcript", Read)
            .with("id", session.clone()),
        post("/v1/monorepos/{owner}/{monorepo}/agents/{id}/messages", Launcher)
            .with("id", session.clone())
            .json(json!({"message": "More."})),
        post("/v1/monorepos/{owner}/{monorepo}/agents/{id}/stop", LauncherOrOwner)
            .with("id", session.clone()),
        get("/v1/monorepos/{owner}/{monorepo}/agents/{id}/live", Read)
            .with("id", session)
            .socket(),
        post("/v1/monorepos/{owner}/{monorepo}/chats", Steer)
            .json(json!({"message": "Hello.", "repo": "app"})),
        get("/v1/monorepos/{owner}/{monorepo}/chats", Read),
        post("/v1/monorepos/{owner}/{monorepo}/issues/{number}/agent", Steer).json(json!({})),
        // CI.
        get("/v1/monorepos/{owner}/{monorepo}/ci", Read),
        post("/v1/monorepos/{owner}/{monorepo}/ci/connections", Own)
            .json(json!({"service": "buildkite", "organization": "made-{k}"})),
        get("/v1/monorepos/{owner}/{monorepo}/ci/builds", Read),
        get("/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}", Read).with("id", "{build}"),
        get("/v1/monorepos/{owner}/{monorepo}/ci/pipelines/{pipeline}", Read)
            .query("connection={connection}"),
        post(
            "/v1/monorepos/{owner}/{monorepo}/ci/pipelines/{pipeline}/builds",
            Write,
        )
        .query("connection={connection}")
        .json(json!({"branch": "topic", "repo": "app"})),
        post(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/rebuild",
            WriteBuilds,
        )
        .with("id", "{build}"),
        post(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/cancel",
            WriteBuilds,
        )
        .with("id", "{build}")
        .prep(Prep::Build),
        post(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/retry",
            WriteBuilds,
        )
        .with("id", "{build}")
        .prep(Prep::FailedJob),
        get(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/jobs/{job}/log",
            Read,
        )
        .with("id", "{build}"),
        get(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/annotations",
            Read,
        )
        .with("id", "{build}"),
        get("/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/artifacts", Read)
            .with("id", "{build}"),
        get(
            "/v1/monorepos/{owner}/{monorepo}/ci/builds/{id}/artifacts/{artifact}/download",
            Read,
        )
        .with("id", "{build}"),
        delete("/v1/monorepos/{owner}/{monorepo}/ci/connections/{id}", Own)
            .with("id", "{connection}")
            .prep(Prep::Connection),
        post("/v1/ci/webhooks/{connection_id}", CiWebhook).json(json!({"event": "ping"})),
        // The meta layer.
        get("/v1/monorepos/{owner}/{monorepo}/meta/files", Read),
        get("/v1/monorepos/{owner}/{monorepo}/meta/history", Read),
        post("/v1/monorepos/{owner}/{monorepo}/meta/blobs/missing", Write)
            .json(json!({"sha256": ["{blob}"]})),
        put("/v1/monorepos/{owner}/{monorepo}/meta/blobs/{sha256}", Write).bytes(b"shared\n"),
        post("/v1/monorepos/{owner}/{monorepo}/meta/saves", Write).json(
            json!({"base": null, "changes": [{"path": "made-{k}.txt", "sha256": "{blob}"}]}),
        ),
        // What ends what other rows need: last.
        delete("/v1/monorepos/{owner}/{monorepo}/members/{login}", Leave)
            .variant("leaving")
            .prep(Prep::Leave),
        post("/v1/logout", SignedIn).prep(Prep::FreshLogin),
        delete("/v1/user/credentials/{id}", SignedIn)
            .with("id", w.spare_credential.clone())
            .prep(Prep::OwnCredential),
        // Denied cells name a confirm that does not match, so none could delete it.
        delete("/v1/monorepos/{owner}/{monorepo}", Own)
            .query("confirm={confirm}")
            .prep(Prep::DoomedMonorepo),
    ]
}

/// `{key}`s of `text` replaced by their values.
fn subst(text: &str, params: &BTreeMap<&str, String>) -> String {
    let mut out = text.to_owned();
    for (key, value) in params {
        out = out.replace(&format!("{{{key}}}"), value);
    }
    out
}

/// What one cell's target is: parameters over the standing ones, and a credential of
/// its own when the call ends the one it uses.
#[derive(Default)]
struct Prepared {
    params: Vec<(&'static str, String)>,
    auth: Option<Auth>,
}

impl World {
    /// A new person called `login`.
    async fn person(&self, login: &str) {
        let body = json!({"email": format!("{login}@example.com"), "login": login});
        self.app.bootstrap(body).await;
    }

    /// The call as `auth` (a cell's caller, for what must be the caller's own).
    async fn call_as(&self, auth: &Auth, method: Method, path: &str, body: Value) -> Value {
        let what = format!("{method} {path}");
        ok(
            auth.apply(self.app.request(method, path)).json(&body),
            &what,
        )
        .await
    }

    async fn prepare(&self, row: &Row, kind: Kind, k: usize, allowed: bool) -> Prepared {
        let mut p = Prepared::default();
        if row.prep == Prep::Leave {
            p.params
                .push(("login", kind.person().unwrap_or("carol").to_owned()));
            return p;
        }
        if !allowed {
            return p;
        }
        let made = format!("gone-{k}");
        match row.prep {
            Prep::None | Prep::Leave => {}
            Prep::Branch => {
                self.carol(
                    Method::POST,
                    &format!("{R}/branches"),
                    json!({"name": made}),
                )
                .await;
                p.params.push(("branch", made));
            }
            Prep::Label => {
                self.carol(
                    Method::POST,
                    &format!("{M}/labels"),
                    json!({"name": made, "color": "pink"}),
                )
                .await;
                p.params.push(("name", made));
            }
            Prep::DraftRelease => {
                self.carol(
                    Method::POST,
                    &format!("{R}/releases"),
                    json!({"tag": made, "draft": true}),
                )
                .await;
                p.params.push(("tag", made));
            }
            Prep::ReleaseFile => {
                let name = format!("{made}.bin");
                let path = format!("{R}/releases/v1/files/{name}");
                let rb = self
                    .as_person("carol", Method::PUT, &path)
                    .body(b"x".to_vec());
                ok(rb, "upload a release file").await;
                p.params.push(("name", name));
            }
            Prep::Hook => {
                let hook = self
                    .carol(
                        Method::POST,
                        &format!("{M}/hooks"),
                        json!({"kind": "web", "url": self.rx.url, "events": ["tag"]}),
                    )
                    .await;
                p.params
                    .push(("id", hook["id"].as_str().expect("id").to_owned()));
            }
            Prep::Connection => {
                let c = self
                    .carol(
                        Method::POST,
                        &format!("{M}/ci/connections"),
                        json!({"service": "buildkite", "organization": made}),
                    )
                    .await;
                p.params
                    .push(("id", c["id"].as_str().expect("id").to_owned()));
            }
            Prep::Build => {
                let b = self.start_build().await;
                p.params
                    .push(("id", b["id"].as_str().expect("id").to_owned()));
            }
            Prep::FailedJob => {
                let b = self.start_build().await;
                let job =
                    json!({"id": made, "name": "test", "state": "finished", "exit_status": 1});
                self.ci_webhook("job.finished", &b, "failing", Some(job))
                    .await;
                p.params
                    .push(("id", b["id"].as_str().expect("id").to_owned()));
                p.params.push(("job", made));
            }
            Prep::Artifact => {
                let name = format!("{made}.md");
                let path = format!("{R}/branches/topic/artifacts");
                let rb = self.as_person("carol", Method::POST, &path);
                ok(self.upload_artifact(rb, &name), "add an artifact").await;
                p.params.push(("name", name));
            }
            Prep::ArtifactComment => {
                let c = self
                    .carol(
                        Method::POST,
                        &format!("{R}/branches/topic/artifacts/doc.md/comments"),
                        json!({"body": "To go."}),
                    )
                    .await;
                p.params
                    .push(("id", c["id"].as_str().expect("id").to_owned()));
            }
            Prep::DavesComment => {
                let path = format!("{M}/issues/{}/comments", self.issue);
                let c = self
                    .person_json("dave", Method::POST, &path, json!({"body": "To go."}))
                    .await;
                p.params
                    .push(("id", c["id"].as_i64().expect("id").to_string()));
            }
            Prep::Worktree => {
                self.carol(
                    Method::PUT,
                    &format!("{M}/worktrees/{made}"),
                    json!({"repo": "app", "branch": "topic", "machine": "laptop"}),
                )
                .await;
                p.params.push(("id", made));
            }
            Prep::Invite => {
                let email = format!("{made}@example.com");
                self.ann(
                    Method::POST,
                    &format!("{M}/invites"),
                    json!({"email": email}),
                )
                .await;
                p.params.push(("email", email));
            }
            Prep::OrgInvite => {
                let email = format!("{made}@example.com");
                self.ann(
                    Method::POST,
                    "/v1/orgs/acme/invites",
                    json!({"email": email}),
                )
                .await;
                p.params.push(("email", email));
            }
            Prep::OrgZed => {
                self.person(&made).await;
                let path = format!("/v1/orgs/acme/members/{made}");
                self.ann(Method::PUT, &path, json!({"role": "member"}))
                    .await;
                p.params.push(("login", made));
            }
            Prep::NewPerson => {
                self.person(&made).await;
                p.params.push(("login", made));
            }
            Prep::MemberZed => {
                self.person(&made).await;
                let path = format!("{M}/members/{made}");
                self.ann(Method::PUT, &path, json!({"role": "member"}))
                    .await;
                p.params.push(("login", made));
            }
            Prep::OwnCredential => {
                let c = self
                    .call_as(
                        &self.auth[&kind],
                        Method::POST,
                        "/v1/user/credentials",
                        json!({"name": made, "kind": "machine"}),
                    )
                    .await;
                p.params
                    .push(("id", c["id"].as_str().expect("id").to_owned()));
            }
            Prep::FreshLogin => {
                p.auth = Some(if kind == Kind::Cookie {
                    Auth::Cookie {
                        cookie: self.app.sign_in("carol", PASSWORD).await,
                        origin: Some(self.app.origin().to_owned()),
                    }
                } else {
                    let c = self
                        .call_as(
                            &self.auth[&kind],
                            Method::POST,
                            "/v1/user/credentials",
                            json!({"name": made, "kind": "machine"}),
                        )
                        .await;
                    Auth::Bearer(c["token"].as_str().expect("token").to_owned())
                });
            }
            Prep::DeviceCode => {
                let device = ok(self.app.request(Method::POST, "/v1/login/device"), "device").await;
                let code = device["user_code"].as_str().expect("code").to_owned();
                p.params.push(("user_code", code));
            }
            Prep::DoomedMonorepo => {
                self.ann(
                    Method::POST,
                    "/v1/monorepos",
                    json!({"name": made, "owner": "acme"}),
                )
                .await;
                for (login, role) in [("carol", "owner"), ("dave", "member")] {
                    let path = format!("/v1/monorepos/acme/{made}/members/{login}");
                    self.ann(Method::PUT, &path, json!({"role": role})).await;
                }
                p.params.push(("confirm", format!("acme/{made}")));
                p.params.push(("monorepo", made));
            }
        }
        p
    }

    /// Puts back what an allowed cell took away that other cells need.
    async fn restore(&self, row: &Row, params: &BTreeMap<&str, String>) {
        if row.prep == Prep::Leave {
            let login = params["login"].as_str();
            let role = match login {
                "carol" | "ann" => "owner",
                "dave" => "member",
                _ => return,
            };
            let path = format!("{M}/members/{login}");
            self.ann(Method::PUT, &path, json!({"role": role})).await;
        }
    }

    /// The parameters of one cell: standing, the row's, the cell's own, `{k}`.
    fn params(&self, row: &Row, prepared: &Prepared, k: usize) -> BTreeMap<&'static str, String> {
        let mut params = self.standing.clone();
        params.insert("k", k.to_string());
        for (key, value) in row.params.iter().chain(&prepared.params) {
            let value = subst(value, &params);
            params.insert(*key, value);
        }
        params
    }

    async fn send(&self, row: &Row, params: &BTreeMap<&str, String>, auth: &Auth) -> Got {
        let mut path = subst(row.path, params);
        if !row.query.is_empty() {
            path.push('?');
            path.push_str(&subst(row.query, params));
        }
        if row.socket {
            return self.upgrade(&path, auth).await;
        }
        let mut rb = auth.apply(self.app.request(row.method.clone(), &path));
        rb = match &row.body {
            Body::None => rb,
            Body::Json(v) => rb
                .header(header::CONTENT_TYPE, "application/json")
                .body(subst(&v.to_string(), params)),
            Body::Bytes(b) => rb.body(b.to_vec()),
            Body::Artifact => self.upload_artifact(rb, &format!("made-{}.md", params["k"])),
        };
        let r = rb.send().await.expect("request");
        let status = r.status().as_u16();
        let text = r.text().await.unwrap_or_default();
        Got::of(status, &text)
    }

    /// A WebSocket upgrade: 101, or the refusal's status and body.
    async fn upgrade(&self, path: &str, auth: &Auth) -> Got {
        use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};
        let url = format!("{}{path}", self.app.base.replacen("http", "ws", 1));
        let mut request = url.into_client_request().expect("request");
        let headers = request.headers_mut();
        match auth {
            Auth::None => {}
            Auth::Bearer(token) => {
                let value = format!("Bearer {token}").parse().expect("header");
                headers.insert("authorization", value);
            }
            Auth::Cookie { cookie, origin } => {
                headers.insert("cookie", cookie.parse().expect("header"));
                if let Some(origin) = origin {
                    headers.insert("origin", origin.parse().expect("header"));
                }
            }
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((stream, response)) => {
                drop(stream);
                Got::of(response.status().as_u16(), "")
            }
            Err(tungstenite::Error::Http(r)) => {
                let body = r
                    .body()
                    .as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .unwrap_or_default();
                Got::of(r.status().as_u16(), &body)
            }
            Err(e) => panic!("{path}: the socket failed: {e}"),
        }
    }
}

/// The operations of the OpenAPI document, as (METHOD, path template).
async fn documented(app: &TestApp) -> BTreeSet<(String, String)> {
    let doc = ok(app.request(Method::GET, "/v1/openapi.json"), "openapi").await;
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "put", "post", "delete", "patch", "head", "options"] {
            if item.get(method).is_some() {
                ops.insert((method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    ops
}

/// A 404 with the words of its twin that asks for a missing monorepo (or org).
fn same_as_missing(real: &Got, ghost: &Got) -> bool {
    let norm = |message: &str, monorepo: &str, org: &str| {
        message
            .replace(&format!("acme/{monorepo}"), "<monorepo>")
            .replace(org, "<org>")
    };
    real.status == ghost.status
        && real.code == ghost.code
        && norm(&real.message, "mono", "acme") == norm(&ghost.message, GHOST, GHOST)
}

struct Cell {
    row: usize,
    kind: Kind,
    want: Class,
    got: Got,
}

/// The matrix as letters, a `!` after each cell that differs from the table.
fn render(rows: &[Row], results: &[Cell]) -> String {
    let width = rows.iter().map(|r| r.label().len()).max().unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A allowed, U 401, N 404, F 403 forbidden, O 403 bad_origin, L 403 not_launcher, \
         W 403 not_author, P 403 missing_permission, X another 403, E 429 or 5xx; \
         a '!' marks a cell that differs from the table"
    );
    let _ = write!(out, "{:width$}", "");
    for kind in KINDS {
        let _ = write!(out, " {:<4}", kind.short());
    }
    out.push('\n');
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(out, "{:width$}", row.label());
        for r in results.iter().filter(|r| r.row == i) {
            let got = r.got.class();
            let mark = if got == r.want { ' ' } else { '!' };
            let _ = write!(out, " {}{mark}  ", got.letter());
        }
        out.push('\n');
    }
    out
}

#[tokio::test]
async fn every_operation_answers_every_kind_of_caller_as_the_rules_say() {
    let started = Instant::now();
    let w = World::build().await;
    let built = started.elapsed();
    let rows = rows(&w);

    // Every documented operation has a row, and every row an operation.
    let documented = documented(&w.app).await;
    let tabled: BTreeSet<(String, String)> = rows.iter().map(Row::key).collect();
    let missing: Vec<_> = documented.difference(&tabled).collect();
    let extra: Vec<_> = tabled.difference(&documented).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "operations of the OpenAPI document without a row in the authorization matrix \
         (add one to rows() with its rule): {missing:?}; rows naming no operation: {extra:?}"
    );

    let mut results = Vec::new();
    let mut leaks = Vec::new();
    let mut k = 0;
    for (i, row) in rows.iter().enumerate() {
        for kind in KINDS {
            k += 1;
            let want = expected(row, kind);
            let prepared = w.prepare(row, kind, k, want == Class::Allowed).await;
            let params = w.params(row, &prepared, k);
            let auth = prepared
                .auth
                .clone()
                .unwrap_or_else(|| w.auth[&kind].clone());
            let got = w.send(row, &params, &auth).await;
            if got.class() == Class::Allowed {
                w.restore(row, &params).await;
            }
            // An outsider's 404 says no more than a missing monorepo's (or org's).
            let hides = matches!(kind, Kind::Outsider | Kind::Anonymous)
                && got.class() == Class::NotFound
                && (row.path.contains("{monorepo}") || row.path.contains("{org}"));
            if hides {
                let mut twin = params.clone();
                twin.insert("monorepo", GHOST.to_owned());
                twin.insert("org", GHOST.to_owned());
                let ghost = w.send(row, &twin, &auth).await;
                if !same_as_missing(&got, &ghost) {
                    leaks.push(format!(
                        "{} as {:?}: {} {} {:?}, but for a missing one {} {} {:?}",
                        row.label(),
                        kind,
                        got.status,
                        got.code,
                        got.message,
                        ghost.status,
                        ghost.code,
                        ghost.message
                    ));
                }
            }
            results.push(Cell {
                row: i,
                kind,
                want,
                got,
            });
        }
    }
    let ran = started.elapsed() - built;

    // What denied cells hit is all still there.
    let mut gone = Vec::new();
    let standing = [
        M.to_owned(),
        format!("{R}/branches/topic"),
        format!("{M}/labels"),
        format!("{R}/releases/v1/files/app.tar"),
        format!("{M}/hooks/{}/deliveries", w.hook),
        format!("{M}/issues/{}/comments/{}", w.issue, w.dave_comment),
        format!("{R}/artifact-comments/{}", w.artifact_comment),
        format!("{R}/branches/topic/artifacts/doc.md"),
        format!("{M}/ci/builds/{}", w.standing["build"]),
        "/v1/orgs/acme/members".to_owned(),
    ];
    for path in &standing {
        let r = w
            .as_person("ann", Method::GET, path)
            .send()
            .await
            .expect("request");
        if !r.status().is_success() {
            gone.push(format!("{path}: {}", r.status()));
        }
    }
    let lists = [
        (format!("{M}/labels"), "matrix"),
        (format!("{M}/members"), "zed"),
        (format!("{M}/invites"), "invitee@example.com"),
        ("/v1/orgs/acme/members".to_owned(), "zed"),
        ("/v1/orgs/acme/invites".to_owned(), "pending@example.com"),
        (format!("{M}/worktrees"), "wt-1"),
        (format!("{M}/ci"), w.connection.as_str()),
    ];
    for (path, name) in &lists {
        let list = ok(w.as_person("ann", Method::GET, path), path).await;
        if !list.to_string().contains(name) {
            gone.push(format!("{name} is gone from {path}"));
        }
    }
    let credentials = ok(
        w.as_person("carol", Method::GET, "/v1/user/credentials"),
        "credentials",
    )
    .await;
    if !credentials.to_string().contains(&w.spare_credential) {
        gone.push("carol's spare credential is gone".to_owned());
    }

    // What no caller kind holds opens the two routes that take no credential.
    let r = w
        .app
        .request(Method::POST, "/v1/users")
        .bearer_auth(BOOTSTRAP_SECRET)
        .json(&json!({"email": "booted@example.com"}))
        .send()
        .await
        .expect("request");
    if r.status() != 201 {
        gone.push(format!(
            "the bootstrap secret makes no user: {}",
            r.status()
        ));
    }
    let r = w
        .app
        .request(Method::POST, &format!("/v1/ci/webhooks/{}", w.connection))
        .header("x-ci-event", "ping")
        .header("x-ci-token", &w.webhook_token)
        .json(&json!({"event": "ping"}))
        .send()
        .await
        .expect("request");
    if r.status() != 200 {
        gone.push(format!("the webhook token is refused: {}", r.status()));
    }

    let wrong: Vec<String> = results
        .iter()
        .filter(|r| r.got.class() != r.want)
        .map(|r| {
            format!(
                "{} as {:?}: expected {:?}, got {} {} {:?}",
                rows[r.row].label(),
                r.kind,
                r.want,
                r.got.status,
                r.got.code,
                r.got.message
            )
        })
        .collect();
    // Allowed cells should mostly show the operation working, not refusing the body.
    let short_of_2xx: Vec<String> = results
        .iter()
        .filter(|r| r.want == Class::Allowed && r.got.class() == Class::Allowed)
        .filter(|r| r.got.status >= 400 || r.got.status < 100)
        .map(|r| {
            let label = rows[r.row].label();
            format!("{label} as {:?}: {} {}", r.kind, r.got.status, r.got.code)
        })
        .collect();
    eprintln!(
        "allowed cells answered with a 4xx of the operation's own ({}):\n{}",
        short_of_2xx.len(),
        short_of_2xx.join("\n")
    );
    eprintln!(
        "authorization matrix: {} rows × {} caller kinds = {} cells; world built in {built:?}, cells in {ran:?}",
        rows.len(),
        KINDS.len(),
        results.len()
    );
    assert!(
        wrong.is_empty() && leaks.is_empty() && gone.is_empty(),
        "\n{}\n{} cells differ from the table:\n{}\n\n{} outsider 404s that differ from a missing one's:\n{}\n\n\
         standing targets changed by the run:\n{}\n",
        render(&rows, &results),
        wrong.len(),
        wrong.join("\n"),
        leaks.len(),
        leaks.join("\n"),
        gone.join("\n")
    );
}
